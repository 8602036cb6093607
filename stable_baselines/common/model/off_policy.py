"""
:class:`OffPolicyRLModel`, the base of the off-policy algorithms (DQN, DDPG, SAC, TD3; HER through its replay
wrapper): the replay buffer, and the one env-step loop they share.

The loop owns what every off-policy algorithm does alike: the learn frame (argument checks, callback, progress
bar, tensorboard writer), resetting and stepping the env, counting ``num_timesteps``, the callback's ``on_step``
(training stops when it returns False), storing the transition (:meth:`OffPolicyRLModel._store_transition`), the
episode bookkeeping and the check that the training losses are finite. The values of a run live on an
:class:`OffPolicyLoopState`. An algorithm supplies:

``_training_run(args, callback, writer)``
    a context manager giving the state of this run (a subclass with the algorithm's fields), left after the last
    step, before ``callback.on_training_end()``;
``_choose_action(state) -> (action, env_action)``
    the action as the replay buffer keeps it, and the action given to the env;
``_train_when_due(state) -> losses or None``
    trains when it is time (``callback.on_rollout_end()`` and ``on_rollout_start()`` around the training) and
    returns the losses it fetched, checked to be finite;
``_on_episode_end(state)`` and ``_end_step(state)``
    at an episode end (before the env reset and the new ``episode_rewards`` entry), and last in every step.

Order of one step: ``_choose_action``, env step, ``num_timesteps += 1``, ``on_step`` (stop on False),
``_store_transition``, then ``_train_when_due`` before (``_train_before_episode_end``: SAC, TD3) or after (DQN,
DDPG) the episode bookkeeping (``episode_rewards[-1] += reward_``; at an episode end ``_on_episode_end``, the env
reset unless ``state.auto_reset``, a new ``episode_rewards`` entry, ``is_success`` into ``episode_successes``),
and ``_end_step`` last. The variables a callback sees (``self.locals``) are declared by the class attribute
``_callback_names``, a :class:`CallbackNames` table, given to ``on_training_start`` and merged before every
``on_step``.
"""
import math
import time
from abc import abstractmethod
from contextlib import contextmanager
from operator import attrgetter
from typing import Any, Callable, Dict, Generic, Iterator, List, NamedTuple, Optional, Tuple, TypeVar, Union, cast

import numpy as np
from gymnasium import spaces

from stable_baselines.common.storage.buffer_files import load_buffer, save_buffer
from stable_baselines.common.buffers import ReplayBufferWrapper
from stable_baselines.common.gym_compat import reset_env, step_env
from stable_baselines.common.model.base import BaseRLModel
from stable_baselines.common.model.env_values import check_observation
from stable_baselines.common.model.training_state import episode_from_plain, episode_to_plain
from stable_baselines.common.structured_obs import packed_width
from stable_baselines.common.tf_util import total_episode_reward_logger
from stable_baselines.common.vec_env import VecEnv


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


# the model itself (what learn returns)
_ModelT = TypeVar("_ModelT", bound="OffPolicyRLModel")


class OffPolicyRLModel(BaseRLModel, Generic[LoopStateT]):
    """
    The base of the off-policy algorithms (DQN, DDPG, SAC, TD3): a replay buffer, the transitions stored in it,
    the fused single-call training steps, and the env-step loop (see the module's docstring).

    :param policy: (BasePolicy or str) the policy class, or its registered name
    :param env: (gymnasium.Env, VecEnv or str) the environment to learn from (None to build a model for ``load``)
    :param replay_buffer: (ReplayBuffer) the replay buffer (the algorithms create theirs in ``learn``)
    :param _init_setup_model: (bool) build the graph now (the algorithm does it)
    :param verbose: (int) 0 quiet, 1 training information, 2 also TensorFlow's messages
    :param requires_vec_env: (bool) whether the algorithm steps a VecEnv
    :param policy_base: (BasePolicy) the class the policy must derive from
    :param policy_kwargs: (dict) extra arguments of the policy's constructor
    :param seed: (int) the seed of Python's, NumPy's and TensorFlow's generators (None: not seeded); runs are
        only reproducible with ``n_cpu_tf_sess=1``
    :param n_cpu_tf_sess: (int) TensorFlow's number of threads (None: as many as the machine has)
    """

    # the names callbacks see; training after the episode bookkeeping of a step (DQN, DDPG) or before it (SAC, TD3)
    _callback_names: CallbackNames = LOOP_NAMES
    _train_before_episode_end = False

    def __init__(self, policy: Any, env: Any, replay_buffer: Any = None, _init_setup_model: bool = False,
                 verbose: int = 0, *, requires_vec_env: bool = False, policy_base: Optional[type] = None,
                 policy_kwargs: Optional[Dict[str, Any]] = None, seed: Optional[int] = None,
                 n_cpu_tf_sess: Optional[int] = None) -> None:
        super().__init__(policy, env, verbose=verbose, requires_vec_env=requires_vec_env, policy_base=policy_base,
                         policy_kwargs=policy_kwargs, seed=seed, n_cpu_tf_sess=n_cpu_tf_sess)
        self.replay_buffer = replay_buffer
        self._policy_base = policy_base
        # the single-call training steps of DQN, SAC and TD3, built in setup_model when available
        # (a SessionCall for DQN; {delayed_update: SessionCall} for SAC and TD3)
        self._fused_train: Any = None
        # set by load_replay_buffer: the next learn() keeps the loaded buffer (DQN otherwise makes a new one)
        self._replay_buffer_loaded = False
        # the unfinished episode of HER's replay wrapper read from a training state, until HER wraps the buffer again
        self.restored_her_episode: Optional[List[tuple]] = None

    def _inner_replay_buffer(self) -> Any:
        """:return: (ReplayBuffer) the replay buffer itself (inside HER's wrapper when there is one), or None"""
        return self.replay_buffer.replay_buffer if self.is_using_her() else self.replay_buffer

    def save_replay_buffer(self, path: str) -> None:
        """
        Write the replay buffer's transitions (and priorities) to a file, an ``.npz`` archive of plain arrays
        with a JSON header (no pickle); the transitions of HER's current, unfinished episode are not included.

        :param path: (str) the file to write (replaced atomically)
        """
        buffer = self._inner_replay_buffer()
        if buffer is None:
            raise ValueError("{} has no replay buffer yet: it is created by {}, save it after training"
                             .format(type(self).__name__, self._replay_buffer_made_in))
        save_buffer(buffer, path)

    # where the replay buffer is created, for the message of save_replay_buffer before there is one
    _replay_buffer_made_in = "setup_model()"

    def load_replay_buffer(self, path: str) -> None:
        """
        Replace the replay buffer with one written by :meth:`save_replay_buffer` (read without pickle, its sizes
        checked before anything is allocated); the next ``learn`` continues with it.

        :param path: (str) the file
        """
        buffer = load_buffer(path)
        self._check_buffer_fits(buffer, path)
        if self.is_using_her():
            self.replay_buffer.replay_buffer = buffer
        else:
            self.replay_buffer = buffer
        self._replay_buffer_loaded = True

    def _check_buffer_fits(self, buffer: Any, path: str) -> None:
        """Raise a ValueError when the stored observations do not have the model's observation shape."""
        if len(buffer) == 0 or self.observation_space is None or self.is_using_her():
            return
        stored = np.asarray(buffer.storage[0][0]).shape
        expected = tuple(self.observation_space.shape or (packed_width(self.observation_space),))
        if stored != expected:
            raise ValueError("The replay buffer in {!r} holds observations of shape {}, the model's observation "
                             "space has shape {}".format(path, stored, expected))

    def _take_loaded_replay_buffer(self) -> bool:
        """
        :return: (bool) whether a buffer was loaded since the last ``learn`` (then it is kept, once)
        """
        loaded, self._replay_buffer_loaded = self._replay_buffer_loaded, False
        return loaded and self.replay_buffer is not None

    def _check_action_space(self) -> None:
        """
        Raise a clear error when the action space is known and is not continuous: for the models that support
        ``gym.spaces.Box`` actions only (DDPG, SAC, TD3).
        """
        if self.action_space is not None and not isinstance(self.action_space, spaces.Box):
            raise ValueError("Error: {} only supports continuous action spaces (gym.spaces.Box), got {} ({})"
                             .format(type(self).__name__, type(self.action_space).__name__, self.action_space))

    def _check_policy_class(self) -> None:
        """Raise a clear error when the policy is not a subclass of the model's base policy class."""
        policy_base = self._policy_base
        if policy_base is not None and not (isinstance(self.policy, type) and issubclass(self.policy, policy_base)):
            raise ValueError("Error: the input policy for the {} model must be a subclass of {}.{} (MlpPolicy, "
                             "LnMlpPolicy, CnnPolicy, LnCnnPolicy or a FeedForwardPolicy subclass), got {!r}"
                             .format(type(self).__name__, policy_base.__module__, policy_base.__name__,
                                     self.policy))

    def is_using_her(self) -> bool:
        """
        :return: (bool) whether the replay buffer is a wrapper in front of the real one (HER's relabelling)
        """
        return isinstance(self.replay_buffer, ReplayBufferWrapper)

    def replay_buffer_add(self, obs_t: Any, action: Any, reward: float, obs_tp1: Any, done: Any,
                          info: Dict[str, Any]) -> None:
        """
        Store one transition in the replay buffer.

        :param obs_t: (np.ndarray) the observation the action was taken in
        :param action: ([float]) the action
        :param reward: (float) its reward
        :param obs_tp1: (np.ndarray) the observation that followed
        :param done: (bool) whether the episode ended with it
        :param info: (dict) the step's info (HER's wrapper computes rewards with it)
        """
        kwargs = dict(info=info) if self.is_using_her() else {}
        self.replay_buffer.add(obs_t, action, reward, obs_tp1, float(done), **kwargs)

    def _store_transition(self, state: LoopStateT, reward_scale: Optional[float] = None) -> Tuple[Any, float]:
        """
        Store the transition of the step just taken in the replay buffer, record Monitor's episode statistics and
        the tensorboard episode reward. With a VecNormalize env the unnormalized observation and reward are stored
        (as the original did); when the env is a VecEnv that already reset at the end of an episode, the stored
        next observation is its true last one (``info["terminal_observation"]``, where the original stored the
        reset observation).

        :param state: (OffPolicyLoopState) the loop state: ``obs_`` (the unnormalized observation in which the action
            was taken), ``action`` (as the replay buffer keeps it), the env's ``reward``, ``new_obs``, ``done`` and
            ``info``, and the tensorboard ``writer`` (or None)
        :param reward_scale: (float) the stored reward is the unnormalized one times this (DDPG's); None: as it is
        :return: (Any, float) the unnormalized new observation (``obs_`` of the next step) and reward
        """
        obs_, action, reward, new_obs, done, info = (state.obs_, state.action, state.reward, state.new_obs,
                                                     state.done, state.info)
        if self._vec_normalize_env is not None:
            new_obs_ = self._vec_normalize_env.get_original_obs()[0]
            reward_ = float(np.asarray(self._vec_normalize_env.get_original_reward()).reshape(-1)[0])
        else:
            new_obs_, reward_ = new_obs, reward
        stored_next_obs = new_obs_
        if done and isinstance(self.env, VecEnv) and info.get("terminal_observation") is not None:
            stored_next_obs = info["terminal_observation"]
        stored_reward = reward_ if reward_scale is None else reward_ * reward_scale
        self.replay_buffer_add(obs_, action, stored_reward, stored_next_obs, done, info)

        maybe_ep_info = info.get("episode")
        if maybe_ep_info is not None:
            assert self.ep_info_buf is not None, "the learn frame prepares the episode statistics"
            self.ep_info_buf.extend([maybe_ep_info])
        if state.writer is not None:
            assert self.episode_reward is not None, "the learn frame prepares the episode returns"
            total_episode_reward_logger(self.episode_reward, np.array([reward_]).reshape((1, -1)),
                                        np.array([done]).reshape((1, -1)), state.writer, self.num_timesteps)
        return new_obs_, reward_

    # ---------------------------------------------------------------------------------------------- the loop
    @contextmanager
    def _training_run(self, args: LearnArguments, callback: Any, writer: Any) -> Iterator[LoopStateT]:
        """
        :param args: (LearnArguments) the arguments of ``learn``
        :param callback: (BaseCallback) the callback made by the learn frame
        :param writer: (tf.summary.FileWriter) the tensorboard writer, or None
        :return: (OffPolicyLoopState) the state of a new run, for the duration of the run (the algorithms make
            their own)
        """
        yield cast(LoopStateT, OffPolicyLoopState(args, callback, writer, self._env_resets_itself()))

    def _choose_action(self, state: LoopStateT) -> Tuple[Any, Any]:
        """
        :param state: (OffPolicyLoopState) the loop state (``state.obs`` is the current observation)
        :return: (Any, Any) the action as the replay buffer keeps it, and the action given to the env
        """
        raise NotImplementedError("{} does not choose actions for the off-policy loop".format(type(self).__name__))

    def _train_when_due(self, state: LoopStateT) -> Optional[Any]:
        """
        :param state: (OffPolicyLoopState) the loop state
        :return: (Any) the losses fetched by the training (checked to be finite), None when there are none
        """
        return None

    def _on_episode_end(self, state: LoopStateT) -> None:
        """An episode ended; called before the env reset (nothing by default)."""

    def _end_step(self, state: LoopStateT) -> None:
        """The last hook of a step: the logger table when it is time (nothing by default)."""

    def _env_resets_itself(self) -> bool:
        """:return: (bool) whether the env starts a new episode by itself when one ends (a VecEnv does)"""
        return isinstance(self.env, VecEnv)

    def _callback_locals(self, state: LoopStateT) -> Dict[str, Any]:
        """:return: (dict) the variables the callback sees, by name (those of ``_callback_names`` that exist)"""
        return self._callback_names.read(self, state)

    def _run_loop(self: _ModelT, total_timesteps: int, callback: Any, log_interval: Optional[int], tb_log_name: str,
                  reset_num_timesteps: bool, replay_wrapper: Any, progress_bar: bool) -> _ModelT:
        """
        Train for ``total_timesteps`` env steps with this model's hooks; the arguments are those of ``learn``.

        :return: (OffPolicyRLModel) the model
        """
        args = LearnArguments(total_timesteps, callback, log_interval, tb_log_name, reset_num_timesteps,
                              replay_wrapper, progress_bar)
        with self._learning(total_timesteps, callback, tb_log_name, reset_num_timesteps, replay_wrapper,
                            progress_bar, log_interval=log_interval) as (callback, writer):
            with self._training_run(args, callback, writer) as state:
                self._reset_observation(state)
                callback.on_training_start(self._callback_locals(state), globals())
                callback.on_rollout_start()
                for step in range(state.total_timesteps):
                    state.step = step
                    if not self._take_step(state):
                        break
            callback.on_training_end()
        return self

    def _reset_observation(self, state: LoopStateT) -> None:
        """Reset the env; the new observation becomes the state's current one (and its unnormalized copy)."""
        state.obs, state.reset_info = reset_env(self.env)
        check_observation(state.obs, self._built(self.observation_space, "observation_space"), "reset()")
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
        check_observation(state.new_obs, self._built(self.observation_space, "observation_space"), "step()")
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

    # replay_wrapper stands before progress_bar (the original's order), where BaseRLModel.learn has progress_bar
    @abstractmethod
    def learn(self, total_timesteps: int, callback: Any = None,  # type: ignore[override]
              log_interval: Optional[int] = 100, tb_log_name: str = "run", reset_num_timesteps: bool = True,
              replay_wrapper: Optional[Callable[[Any], Any]] = None,
              progress_bar: bool = False) -> "OffPolicyRLModel":
        """
        Train the model.

        :param total_timesteps: (int) the number of environment steps to train for
        :param callback: (callable, [callable] or BaseCallback) see :meth:`BaseRLModel.learn`
        :param log_interval: (int) the number of episodes between two logger tables
        :param tb_log_name: (str) the name of the tensorboard run
        :param reset_num_timesteps: (bool) count the timesteps from 0 again (False: continue the count)
        :param replay_wrapper: (ReplayBuffer -> ReplayBuffer) wraps the replay buffer before training (e.g. HER's
            HindsightExperienceReplayWrapper)
        :param progress_bar: (bool) draw a progress bar over the timesteps (needs tqdm)
        :return: (OffPolicyRLModel) the model
        """
        pass

    # exact resume (common/model/training_state.py): the replay buffer, and the unfinished episode HER's wrapper keeps
    keeps_replay_buffer = True

    def replay_buffer_state(self) -> Tuple[Dict[str, bool], Any]:
        """
        :return: (dict, ReplayBuffer) whether there is a replay buffer and whether it came from
            ``load_replay_buffer`` (the next ``learn`` keeps it), and the buffer itself (None: none yet)
        """
        inner = self._inner_replay_buffer() if self.replay_buffer is not None else None
        return {"present": inner is not None, "loaded": bool(self._replay_buffer_loaded)}, inner

    def restore_replay_buffer_state(self, buffer: Any, loaded: bool) -> None:
        """
        :param buffer: (ReplayBuffer) the replay buffer of a training state (checked to fit the model here)
        :param loaded: (bool) whether it came from ``load_replay_buffer`` in the saved model
        """
        self._check_buffer_fits(buffer, "the training state")
        self.replay_buffer = buffer
        self._replay_buffer_loaded = loaded

    def training_state_extras(self) -> Tuple[Dict[str, Any], Dict[str, np.ndarray]]:
        if not self.is_using_her():
            return {}, {}
        return episode_to_plain(self.replay_buffer.episode_transitions)

    def restore_training_state_extras(self, info: Dict[str, Any], arrays: Dict[str, np.ndarray]) -> None:
        if info or arrays:
            self.restored_her_episode = episode_from_plain(info, arrays)
