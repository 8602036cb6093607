"""
The one env-step loop of the off-policy models (DQN, DDPG, SAC, TD3; HER through its replay wrapper).

:class:`OffPolicyLoop` (a base of ``OffPolicyRLModel``) owns what every off-policy algorithm does alike: the learn
frame (argument checks, callback, progress bar, tensorboard writer), the first env reset, stepping the env,
counting ``num_timesteps``, the callback's ``on_step`` (training stops when it returns False), storing the
transition, the episode bookkeeping (returns, successes, the reset of an env that does not reset itself), the check
that the training losses are finite, and ``on_training_start`` / ``on_training_end``. The per-run values live on an
:class:`OffPolicyLoopState`.

An algorithm supplies its train step and the few hooks every algorithm has:

``_training_run(args, callback, writer)``
    a context manager giving the state of this run (an algorithm may use a subclass with its own fields), entered
    inside the learn frame before the first env reset and left after the last step (or the stop asked by the
    callback), before ``callback.on_training_end()``.
``_choose_action(state) -> (action, env_action)``
    every step, first: the action as the replay buffer keeps it, and the action given to the env.
``_store_transition(state) -> (new_obs_, reward_)``
    every step the callback accepted: stores the transition (``OffPolicyRLModel`` has the usual one).
``_train_when_due(state) -> losses or None``
    every step: trains when it is time (calling ``callback.on_rollout_end()`` and ``callback.on_rollout_start()``
    around the training itself) and returns the losses it fetched (any nesting of numbers), which the loop checks
    to be finite; None when there is nothing to check. It runs before the episode bookkeeping when the class
    attribute ``_train_before_episode_end`` is True (SAC, TD3), after it otherwise (DQN, DDPG).
``_on_episode_end(state)``
    when an episode ended, before the env is reset and before ``state.episode_rewards`` gets its new entry.
``_end_step(state)``
    every step, last (the logger table when it is due).

The variables a callback sees (``self.locals``) are declared by the class attribute ``_callback_names``, a
:class:`CallbackNames` table: given to ``on_training_start`` and merged before every ``on_step``.

Order of one step: ``_choose_action``, env step, ``num_timesteps += 1``, callback ``on_step`` (stop on False),
``_store_transition``, then [``_train_when_due``, finiteness check of its losses] either before or after the
episode bookkeeping (``episode_rewards[-1] += reward_``; at an episode end: ``_on_episode_end``, env reset unless
``state.auto_reset``, a new ``episode_rewards`` entry, ``is_success`` into ``episode_successes``), and ``_end_step``
last.
"""
import math
import time
from contextlib import contextmanager
from operator import attrgetter
from typing import Any, Callable, ContextManager, Dict, Generic, Iterator, List, NamedTuple, Optional, Tuple, \
    TypeVar, Union, cast

import numpy as np

from stable_baselines.common.model.env_values import check_observation
from stable_baselines.common.gym_compat import reset_env, step_env


class LearnArguments(NamedTuple):
    """The arguments of an off-policy ``learn`` call."""

    total_timesteps: int
    callback: Any
    log_interval: Optional[int]
    tb_log_name: str
    reset_num_timesteps: bool
    replay_wrapper: Any
    progress_bar: bool


class OffPolicyLoopState:
    """
    The mutable values of one ``learn`` call of an off-policy model, shared by the loop and the model's hooks.
    The values of a step (``step``, ``action``, ``new_obs``, ...) exist once the first step set them.

    :param args: (LearnArguments) the arguments of ``learn``
    :param callback: (BaseCallback) the callback made by the learn frame
    :param writer: (tf.summary.FileWriter) the tensorboard writer, or None
    :param auto_reset: (bool) whether the env resets itself at the end of an episode (a VecEnv)
    """

    # the index of the current step in this call (0 for the first), and the info of the last env reset
    step: int
    reset_info: Dict[str, Any]
    # the step in progress: the actions (as the replay buffer keeps it, as given to the env), what the env returned,
    # the episode end (termination or time limit) and the reward as stored
    action: Any
    env_action: Any
    new_obs: Any
    reward: Any
    terminated: bool
    truncated: bool
    done: bool
    info: Dict[str, Any]
    reward_: float
    # the "is_success" of the last finished episode (None when its info had none)
    maybe_is_success: Any

    def __init__(self, args: LearnArguments, callback: Any, writer: Any, auto_reset: bool) -> None:
        self.args = args
        self.total_timesteps = int(args.total_timesteps)
        self.log_interval = args.log_interval
        self.callback = callback
        # whether a callback reads the loop's variables (they are gathered at every step only then)
        self.share_locals = bool(callback.reads_locals)
        self.writer = writer
        self.auto_reset = auto_reset
        self.start_time = time.time()
        # the env's current observation, the same unnormalized (as the replay buffer keeps it)
        self.obs: Any = None
        self.obs_: Any = None
        # the returns of the episodes (the last one running), and the successes of the finished ones
        self.episode_rewards = [0.0]
        self.episode_successes: List[float] = []

    @property
    def num_episodes(self) -> int:
        """:return: (int) the number of finished episodes in this run"""
        return len(self.episode_rewards) - 1


# where the value of a callback-visible name lives: "state.<attribute>" (of the loop state), "args.<field>" (of
# the learn arguments), "model" or "model.<attribute>", or a function of (model, state) returning the value or
# ABSENT
Source = Union[str, Callable[[Any, Any], Any]]


class _Absent:
    """The value of a callback-visible name that has none yet in this run (the name is then left out)."""

    def __repr__(self) -> str:
        return "ABSENT"


ABSENT = _Absent()


def _reader(source: Source) -> Callable[[Any, Any], Any]:
    """:return: (callable) a function of (model, state) giving the value that ``source`` names, or ABSENT"""
    if callable(source):
        return source
    root, _, path = source.partition(".")
    if root == "model":
        if not path:
            return lambda model, state: model
        get_model = attrgetter(path)
        return lambda model, state: get_model(model)
    if root == "args":
        get_arg = attrgetter(path)
        return lambda model, state: get_arg(state.args)
    if root == "state" and path and "." not in path:
        return lambda model, state: getattr(state, path, ABSENT)
    raise ValueError("Unknown source of a callback-visible value: {!r}".format(source))


class CallbackNames:
    """
    The variables a callback sees during an off-policy ``learn`` (``self.locals``): each name of the original
    library's ``learn`` with where its value lives; a name whose value does not exist yet is left out.

    :param sources: ({str: str or callable}) by name, where the value lives (see :data:`Source`)
    """

    def __init__(self, sources: Dict[str, Source]) -> None:
        self.sources = dict(sources)
        self._readers = [(name, _reader(source)) for name, source in self.sources.items()]

    def extended(self, sources: Dict[str, Source], without: Tuple[str, ...] = ()) -> "CallbackNames":
        """
        :param sources: ({str: str or callable}) names to add (or whose source changes)
        :param without: ((str,)) names to leave out
        :return: (CallbackNames) a new table
        """
        kept = {name: source for name, source in self.sources.items() if name not in without}
        kept.update(sources)
        return CallbackNames(kept)

    def read(self, model: Any, state: OffPolicyLoopState) -> Dict[str, Any]:
        """
        :param model: (OffPolicyRLModel) the model
        :param state: (OffPolicyLoopState) the loop state
        :return: (dict) the values that exist, by name
        """
        shown = {}
        for name, read in self._readers:
            value = read(model, state)
            if value is not ABSENT:
                shown[name] = value
        return shown


# the names every off-policy run shows: the arguments of learn and the values of the env-step loop
LOOP_NAMES = CallbackNames({
    "self": "model", "total_timesteps": "args.total_timesteps", "callback": "state.callback",
    "log_interval": "args.log_interval", "tb_log_name": "args.tb_log_name",
    "reset_num_timesteps": "args.reset_num_timesteps", "replay_wrapper": "args.replay_wrapper",
    "progress_bar": "args.progress_bar", "writer": "state.writer", "step": "state.step", "obs": "state.obs",
    "obs_": "state.obs_", "action": "state.action", "new_obs": "state.new_obs", "reward": "state.reward",
    "reward_": "state.reward_", "terminated": "state.terminated", "truncated": "state.truncated",
    "done": "state.done", "info": "state.info", "episode_rewards": "state.episode_rewards",
    "episode_successes": "state.episode_successes",
})


def _plainly_finite(losses: Any) -> bool:
    """
    :param losses: (Any) the losses of a training step
    :return: (bool) True when they are a float array (DQN's TD errors) or a list of tuples of float scalars (the rows
        of SAC and TD3) and all finite; False otherwise (then the general check decides)
    """
    if type(losses) is np.ndarray:  # pylint: disable=unidiomatic-typecheck
        return losses.dtype.kind == "f" and bool(np.isfinite(losses).all())
    if type(losses) is not list:  # pylint: disable=unidiomatic-typecheck
        return False
    for row in losses:
        if type(row) is not tuple:  # pylint: disable=unidiomatic-typecheck
            return False
        for value in row:
            if not isinstance(value, (float, np.floating)) or not math.isfinite(value):
                return False
    return True


def check_finite_losses(losses: Any, num_timesteps: int) -> None:
    """
    Raise a RuntimeError when a training step produced a loss that is not finite (the parameters are then NaN, most
    often because of NaN or inf in the observations or rewards).

    :param losses: (Any) the losses fetched by the training step (numbers, arrays or nested sequences of them)
    :param num_timesteps: (int) the timestep at which the training step ran
    """
    if _plainly_finite(losses):
        return
    values = np.asarray(losses, dtype=np.float64)
    if not np.isfinite(values).all():
        raise RuntimeError(
            "Training diverged at timestep {}: a loss is not finite ({}), the model's parameters are no longer "
            "usable. NaN or inf in the observations or rewards is the usual cause: wrap the env in "
            "stable_baselines.common.vec_env.VecCheckNan(env, raise_exception=True) to find where they come from"
            .format(num_timesteps, values.ravel().tolist()))


# the loop state of an algorithm (a subclass of OffPolicyLoopState with its own fields)
LoopStateT = TypeVar("LoopStateT", bound=OffPolicyLoopState)


class OffPolicyLoop(Generic[LoopStateT]):
    """
    The env-step loop of the off-policy models (see the module's docstring), a base of ``OffPolicyRLModel``:
    the members below the loop reads are those every model has; the hooks are the algorithm's.
    """

    # what the loop reads and counts (BaseRLModel's)
    env: Any
    observation_space: Any
    num_timesteps: int
    _vec_normalize_env: Any
    _learning: Callable[..., ContextManager[Tuple[Any, Any]]]

    # the names callbacks see; training after the episode bookkeeping of a step (DQN, DDPG) or before it (SAC, TD3)
    _callback_names: CallbackNames = LOOP_NAMES
    _train_before_episode_end = False

    # ------------------------------------------------------------------------------------------------ the hooks
    def _env_resets_itself(self) -> bool:
        """:return: (bool) whether the env starts a new episode by itself when one ends (a VecEnv does)"""
        raise NotImplementedError

    @contextmanager
    def _training_run(self, args: LearnArguments, callback: Any, writer: Any) -> Iterator[LoopStateT]:
        """
        :param args: (LearnArguments) the arguments of ``learn``
        :param callback: (BaseCallback) the callback made by the learn frame
        :param writer: (tf.summary.FileWriter) the tensorboard writer, or None
        :return: (OffPolicyLoopState) the state of a new run of the loop, for the duration of the run (the plain
            state here; the algorithms prepare their own)
        """
        yield cast(LoopStateT, OffPolicyLoopState(args, callback, writer, self._env_resets_itself()))

    def _choose_action(self, state: LoopStateT) -> Tuple[Any, Any]:
        """
        :param state: (OffPolicyLoopState) the loop state (``state.obs`` is the current observation)
        :return: (Any, Any) the action as the replay buffer keeps it, and the action given to the env
        """
        raise NotImplementedError("{} does not choose actions for the off-policy loop".format(type(self).__name__))

    def _store_transition(self, state: LoopStateT) -> Tuple[Any, float]:
        """
        :param state: (OffPolicyLoopState) the loop state, with the step just taken
        :return: (Any, float) the unnormalized new observation (``obs_`` of the next step) and reward
        """
        raise NotImplementedError

    def _train_when_due(self, state: LoopStateT) -> Optional[Any]:
        """
        Train when it is time (calling ``on_rollout_end``/``on_rollout_start`` of ``state.callback`` around it).

        :param state: (OffPolicyLoopState) the loop state
        :return: (Any) the losses fetched by the training (checked to be finite), None when there are none
        """
        return None

    def _on_episode_end(self, state: LoopStateT) -> None:
        """An episode ended; called before the env reset (nothing by default)."""

    def _end_step(self, state: LoopStateT) -> None:
        """The last hook of a step: the logger table when it is time (nothing by default)."""

    # ------------------------------------------------------------------------------------------------- the loop
    def _callback_locals(self, state: LoopStateT) -> Dict[str, Any]:
        """
        :param state: (OffPolicyLoopState) the loop state
        :return: (dict) the variables the callback sees, by name (those of ``_callback_names`` that exist)
        """
        return self._callback_names.read(self, state)

    def _run_off_policy_loop(self, args: LearnArguments) -> None:
        """
        Train for ``args.total_timesteps`` env steps with the model's hooks.

        :param args: (LearnArguments) the arguments of ``learn``
        """
        with self._learning(args.total_timesteps, args.callback, args.tb_log_name, args.reset_num_timesteps,
                            args.replay_wrapper, args.progress_bar,
                            log_interval=args.log_interval) as (callback, writer):
            with self._training_run(args, callback, writer) as state:
                self._reset_observation(state)
                callback.on_training_start(self._callback_locals(state), globals())
                callback.on_rollout_start()
                for step in range(state.total_timesteps):
                    state.step = step
                    if not self._take_step(state):
                        break
            callback.on_training_end()

    def _reset_observation(self, state: LoopStateT) -> None:
        """Reset the env; the new observation becomes the state's current one (and its unnormalized copy)."""
        state.obs, state.reset_info = reset_env(self.env)
        check_observation(state.obs, self.observation_space, "reset()")
        state.obs_ = state.obs
        if self._vec_normalize_env is not None:
            state.obs_ = self._vec_normalize_env.get_original_obs()[0]

    def _train(self, state: LoopStateT) -> None:
        """The training hook and the finiteness check of its losses."""
        losses = self._train_when_due(state)
        if losses is not None:
            check_finite_losses(losses, self.num_timesteps)

    def _finish_episode(self, state: LoopStateT) -> None:
        """The bookkeeping of an episode end: the hook, the env reset when needed, the returns and successes."""
        self._on_episode_end(state)
        if not state.auto_reset:
            self._reset_observation(state)
        state.episode_rewards.append(0.0)
        state.maybe_is_success = state.info.get("is_success")
        if state.maybe_is_success is not None:
            state.episode_successes.append(float(state.maybe_is_success))

    def _take_step(self, state: LoopStateT) -> bool:
        """
        One env step with everything that follows it.

        :return: (bool) False when the callback asked to stop (nothing after its ``on_step`` ran)
        """
        state.action, state.env_action = self._choose_action(state)
        state.new_obs, state.reward, state.terminated, state.truncated, state.info = step_env(self.env,
                                                                                              state.env_action)
        check_observation(state.new_obs, self.observation_space, "step()")
        # as the original: the episode end (termination or time limit) is the stored `done`
        state.done = bool(state.terminated or state.truncated)
        self.num_timesteps += 1

        if state.share_locals:
            state.callback.update_locals(self._callback_locals(state))
        if state.callback.on_step() is False:  # None (a callback without return) continues
            return False

        state.obs_, state.reward_ = self._store_transition(state)
        state.obs = state.new_obs

        train_first = self._train_before_episode_end
        if train_first:
            self._train(state)
        state.episode_rewards[-1] += float(state.reward_)
        if state.done:
            self._finish_episode(state)
        if not train_first:
            self._train(state)
        self._end_step(state)
        return True
