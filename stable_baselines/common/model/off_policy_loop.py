"""
The one env-step loop of the off-policy models (DQN, DDPG, SAC, TD3; HER through its replay wrapper).

:func:`run_off_policy_loop` owns what every off-policy algorithm does alike: the learn frame
(``model._learning``: argument checks, callback, progress bar, tensorboard writer), the first env reset,
stepping the env, counting ``model.num_timesteps``, the callback's ``on_step`` (training stops when it returns
False), storing the transition (``model._store_transition``), the episode bookkeeping (returns, successes, the
reset of an env that does not reset itself), the check that the training losses are finite, and
``on_training_start`` / ``on_training_end``. The per-run values live on an :class:`OffPolicyLoopState`.

What differs between the algorithms comes from hooks, methods of the model (defaults in ``OffPolicyRLModel``):

``_new_loop_state(args: LearnArguments, callback: BaseCallback, writer) -> OffPolicyLoopState``
    once, inside the learn frame (``writer``: the tensorboard writer or None): the state of this run (an algorithm
    may return a subclass with its own fields).
``_loop_begin(state) -> None``
    once, before the first env reset (schedules, noise reset, replay-buffer preparation).
``_choose_action(state) -> Tuple[Any, Any]``
    every step, first: the action as the replay buffer keeps it, and the action given to the env.
``_on_env_step(state) -> None``
    every step, after the callback accepted the step, before the transition is stored.
``_train_when_due(state) -> Optional[Any]``
    every step, after the transition is stored: trains when it is time (calling ``callback.on_rollout_end()`` and
    ``callback.on_rollout_start()`` around the training itself), and returns the losses it fetched (any nesting of
    numbers; None when it did not train). It runs before the episode bookkeeping when the class attribute
    ``_train_before_episode_end`` is True (SAC, TD3), after it otherwise (DQN, DDPG).
``_update_targets_when_due(state) -> None``
    every step, right after ``_train_when_due``.
``_on_episode_end(state) -> None``
    when an episode ended, before the env is reset and before ``state.episode_rewards`` gets its new entry.
``_log_when_due(state) -> None``
    every step, last.
``_loop_end(state) -> None``
    once, after the last step (or the stop asked by the callback), before ``callback.on_training_end()``.
``_callback_locals(state) -> Dict[str, Any]``
    the variables the callback sees (``self.locals``): given to ``on_training_start`` and merged before every
    ``on_step``. Values still equal to :data:`UNSET` are left out (a name appears once it has a value).

The model's ``_store_transition(obs_, action, reward, new_obs, done, info, writer) -> (new_obs_, reward_)`` is
called by the loop too (DDPG overrides it). Class attribute: ``_train_before_episode_end`` (bool, see above); the
learn frame checks ``log_interval`` (None or an int >= 1). An algorithm's ``learn`` is ``return
self._run_loop(total_timesteps, callback, log_interval, tb_log_name, reset_num_timesteps, replay_wrapper,
progress_bar)``.

Order of one step: ``_choose_action``, env step, ``num_timesteps += 1``, callback ``on_step`` (stop on False),
``_on_env_step``, ``_store_transition``, then [``_train_when_due``, finiteness check of its losses,
``_update_targets_when_due``] either before or after the episode bookkeeping (``episode_rewards[-1] +=
reward_``; at an episode end: ``_on_episode_end``, env reset unless ``state.auto_reset``, a new
``episode_rewards`` entry, ``is_success`` into ``episode_successes``), and ``_log_when_due`` last.
"""
import math
import time
from typing import Any, Dict, List, NamedTuple, Optional

import numpy as np

from stable_baselines.common.env_values import check_observation
from stable_baselines.common.gym_compat import reset_env, step_env


class _Unset:
    """The value of a state field that has not been given a value yet in this run."""

    def __repr__(self) -> str:
        return "UNSET"


UNSET = _Unset()


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

    :param args: (LearnArguments) the arguments of ``learn``
    :param callback: (BaseCallback) the callback made by the learn frame
    :param writer: (tf.summary.FileWriter) the tensorboard writer, or None
    :param auto_reset: (bool) whether the env resets itself at the end of an episode (a VecEnv)
    """

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
        # the index of the current step in this call (0 for the first)
        self.step: Any = UNSET
        # the env's current observation, the same unnormalized (as the replay buffer keeps it), the last reset info
        self.obs: Any = None
        self.obs_: Any = None
        self.reset_info: Any = UNSET
        # the step in progress
        self.action: Any = UNSET
        self.env_action: Any = UNSET
        self.new_obs: Any = UNSET
        self.reward: Any = UNSET
        self.reward_: Any = UNSET
        self.terminated: Any = UNSET
        self.truncated: Any = UNSET
        self.done: Any = UNSET
        self.info: Any = UNSET
        # the returns of the episodes (the last one running), and the successes of the finished ones
        self.episode_rewards = [0.0]
        self.episode_successes: List[float] = []
        self.maybe_is_success: Any = UNSET

    @property
    def num_episodes(self) -> int:
        """:return: (int) the number of finished episodes in this run"""
        return len(self.episode_rewards) - 1


def visible(names: Dict[str, Any]) -> Dict[str, Any]:
    """
    :param names: (dict) candidate callback locals
    :return: (dict) those that have a value (not :data:`UNSET`)
    """
    return {name: value for name, value in names.items() if value is not UNSET}


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


def _reset_observation(model: Any, state: OffPolicyLoopState) -> None:
    """Reset the env; the new observation becomes the state's current one (and its unnormalized copy)."""
    state.obs, state.reset_info = reset_env(model.env)
    check_observation(state.obs, model.observation_space, "reset()")
    state.obs_ = state.obs
    if model._vec_normalize_env is not None:
        state.obs_ = model._vec_normalize_env.get_original_obs()[0]


def _train(model: Any, state: OffPolicyLoopState) -> None:
    """The training hook, the finiteness check of its losses, then the target-update hook."""
    losses = model._train_when_due(state)
    if losses is not None:
        check_finite_losses(losses, model.num_timesteps)
    model._update_targets_when_due(state)


def _finish_episode(model: Any, state: OffPolicyLoopState) -> None:
    """The bookkeeping of an episode end: the hook, the env reset when needed, the returns and successes."""
    model._on_episode_end(state)
    if not state.auto_reset:
        _reset_observation(model, state)
    state.episode_rewards.append(0.0)
    state.maybe_is_success = state.info.get("is_success")
    if state.maybe_is_success is not None:
        state.episode_successes.append(float(state.maybe_is_success))


def _take_step(model: Any, state: OffPolicyLoopState) -> bool:
    """
    One env step with everything that follows it.

    :return: (bool) False when the callback asked to stop (nothing after its ``on_step`` ran)
    """
    state.action, state.env_action = model._choose_action(state)
    state.new_obs, state.reward, state.terminated, state.truncated, state.info = step_env(model.env,
                                                                                          state.env_action)
    check_observation(state.new_obs, model.observation_space, "step()")
    # as the original: the episode end (termination or time limit) is the stored `done`
    state.done = bool(state.terminated or state.truncated)
    model.num_timesteps += 1

    if state.share_locals:
        state.callback.update_locals(model._callback_locals(state))
    if state.callback.on_step() is False:  # None (a callback without return) continues
        return False
    model._on_env_step(state)

    state.obs_, state.reward_ = model._store_transition(state.obs_, state.action, state.reward, state.new_obs,
                                                        state.done, state.info, state.writer)
    state.obs = state.new_obs

    train_first = model._train_before_episode_end
    if train_first:
        _train(model, state)
    state.episode_rewards[-1] += float(state.reward_)
    if state.done:
        _finish_episode(model, state)
    if not train_first:
        _train(model, state)
    model._log_when_due(state)
    return True


def run_off_policy_loop(model: Any, args: LearnArguments) -> Any:
    """
    Train ``model`` for ``args.total_timesteps`` env steps with its hooks (see the module's docstring).

    :param model: (OffPolicyRLModel) the model
    :param args: (LearnArguments) the arguments of its ``learn``
    :return: (OffPolicyRLModel) the model
    """
    with model._learning(args.total_timesteps, args.callback, args.tb_log_name, args.reset_num_timesteps,
                         args.replay_wrapper, args.progress_bar,
                         log_interval=args.log_interval) as (callback, writer):
        state = model._new_loop_state(args, callback, writer)
        model._loop_begin(state)
        _reset_observation(model, state)
        callback.on_training_start(model._callback_locals(state), globals())
        callback.on_rollout_start()
        for step in range(state.total_timesteps):
            state.step = step
            if not _take_step(model, state):
                break
        model._loop_end(state)
        callback.on_training_end()
    return model

