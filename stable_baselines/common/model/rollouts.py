"""
The environment-step loop of the on-policy algorithms, written once.

:func:`collect_rollout` steps every environment of a vectorized runner ``n_steps`` times: ask the policy,
clip continuous actions to the action space, step, count the timesteps, hand the loop's variables to the
callback (stopping early when ``on_step`` returns False) and keep the ``episode`` records of the Monitor.
What the algorithms differ in is supplied by the runner (see :class:`~stable_baselines.common.runners.AbstractEnvRunner`):
which policy outputs are recorded, and whether the runner takes the environment's answer before or after the
callback. :func:`clip_to_space` and :func:`notify_step` are shared with the single-environment segment generator
of PPO1, TRPO and GAIL.

The variables a callback sees (``self.locals``) keep the names the manual documents for each algorithm
(``actions``, ``rewards``, ``infos``, ``mb_obs``, ``ep_infos``, ...).
"""
from typing import TYPE_CHECKING, Any, Dict, List, NamedTuple, Optional, Protocol, Tuple, Type, TypeVar

import numpy as np
from gymnasium import spaces

from stable_baselines.common.model.env_values import check_observation, check_rewards_finite

if TYPE_CHECKING:
    from stable_baselines.common.callbacks import BaseCallback


class RolloutRunner(Protocol):
    """
    What :func:`collect_rollout` asks of a runner; :class:`~stable_baselines.common.runners.AbstractEnvRunner`
    documents each member.
    """

    obs: Any
    states: Any
    dones: Any
    action_masks: Optional[np.ndarray]
    rollout_action_masks: Optional[np.ndarray]

    @property
    def model(self) -> Any: ...
    @property
    def env(self) -> Any: ...
    @property
    def n_envs(self) -> int: ...
    @property
    def n_steps(self) -> int: ...
    @property
    def callback(self) -> Optional["BaseCallback"]: ...
    @property
    def recorded_outputs(self) -> Tuple[str, ...]: ...
    @property
    def start_states_name(self) -> str: ...
    @property
    def advance_before_callback(self) -> bool: ...
    def policy_step(self) -> Tuple[np.ndarray, Any, Dict[str, Any]]: ...
    def extra_columns(self) -> Dict[str, list]: ...
    def refresh_action_masks(self) -> None: ...
    def clip_actions(self, actions: np.ndarray) -> np.ndarray: ...
    def on_env_step(self, local_variables: Dict[str, Any]) -> bool: ...
    def advance(self, obs: np.ndarray, dones: np.ndarray, states: Any) -> None: ...
    def after_step(self, columns: Dict[str, Any], obs: np.ndarray) -> None: ...


_Batch = TypeVar("_Batch", bound=tuple)


class ReturnsBatch(NamedTuple):
    """
    A rollout of A2C or ACKTR, every array flattened with the environment index first (``n_envs * n_steps`` rows);
    a tuple in the order the original's runners returned.
    """

    observations: Any  # (np.ndarray) the observations
    states: Any  # (np.ndarray) recurrent states at the start of the rollout (None for feed-forward policies)
    returns: Any  # (np.ndarray) the value targets
    masks: Any  # (np.ndarray) episode-start flags
    actions: Any  # (np.ndarray) the actions
    values: Any  # (np.ndarray) the value estimates made while acting
    ep_infos: Any  # ([dict]) the Monitor records of the episodes that ended
    true_rewards: Any  # (np.ndarray) the rewards as the environment gave them

    @property
    def episode_flags(self) -> Any:
        """(np.ndarray) the flags of the tensorboard reward curve: the episode starts"""
        return self.masks


def stopped_batch(batch_type: Type[_Batch]) -> _Batch:
    """
    :param batch_type: (type) a NamedTuple type of rollout
    :return: (NamedTuple) one with every field None: what a runner returns when the callback stopped the rollout
    """
    named: Any = batch_type
    return named._make([None] * len(named._fields))


def clip_to_space(actions: np.ndarray, action_space: spaces.Space) -> np.ndarray:
    """
    Keep continuous actions inside the bounds of a Box action space (other spaces: unchanged).

    :param actions: (np.ndarray) the actions chosen by the policy
    :param action_space: (gym.spaces.Space) the action space of the environment
    :return: (np.ndarray) the actions the environment may receive
    """
    if isinstance(action_space, spaces.Box):
        return np.clip(actions, action_space.low, action_space.high)
    return actions


def notify_step(callback: Optional["BaseCallback"], visible: Dict[str, Any]) -> bool:
    """
    Give the callback the variables of the loop after an environment step and call its ``on_step``.

    :param callback: (BaseCallback or None) the callback (None: nothing to tell)
    :param visible: (dict) the variables by name
    :return: (bool) False when the callback asked to stop the training
    """
    if callback is None:
        return True
    if callback.reads_locals:
        callback.update_locals(visible)
    return callback.on_step() is not False


def collect_rollout(runner: RolloutRunner) -> Optional[Dict[str, Any]]:
    """
    Step all environments of ``runner`` for ``runner.n_steps`` steps with its policy.

    :param runner: (AbstractEnvRunner) the runner; its ``obs``, ``states`` and ``dones`` are advanced
    :return: (dict or None) None when the callback stopped the training; otherwise the per-step lists
        ``mb_obs``, ``mb_actions``, ``mb_dones`` (episode-start flags before each step), ``mb_rewards``,
        one ``mb_<name>`` per name of ``runner.recorded_outputs``, the runner's extra columns, the
        recurrent states at the start (under ``runner.start_states_name``) and the Monitor's
        ``ep_infos`` of the episodes that ended
    """
    columns: Dict[str, Any] = {name: [] for name in ("mb_obs", "mb_actions", "mb_dones", "mb_rewards")}
    columns.update(("mb_" + name, []) for name in runner.recorded_outputs)
    columns.update(runner.extra_columns())
    columns[runner.start_states_name] = runner.states
    ep_infos: List[dict] = []
    columns["ep_infos"] = ep_infos
    last_info: Dict[str, Any] = {}
    step_masks: List[np.ndarray] = []
    # the loop's variables are gathered for the callback only when it may read them
    reads_locals = runner.callback is not None and runner.callback.reads_locals
    visible: Dict[str, Any] = {}

    mb_obs, mb_actions, mb_dones, mb_rewards = (columns[name] for name in ("mb_obs", "mb_actions", "mb_dones",
                                                                           "mb_rewards"))
    recorded = [(name, columns["mb_" + name]) for name in runner.recorded_outputs]
    model = runner.model
    # the timesteps of all ranks when a data-parallel model trains under mpirun
    data_parallel = getattr(model, "data_parallel", None)  # a runner may serve a model of the user's own
    env_steps = runner.n_envs * (1 if data_parallel is None else data_parallel.size)
    for index in range(runner.n_steps):
        if runner.action_masks is not None:
            step_masks.append(runner.action_masks)
        actions, next_states, outputs = runner.policy_step()
        mb_obs.append(np.array(runner.obs, order="K", subok=False))  # np.copy without its dispatch
        mb_actions.append(actions)
        for name, column in recorded:
            column.append(outputs[name])
        mb_dones.append(runner.dones)

        clipped_actions = runner.clip_actions(actions)
        obs, rewards, dones, infos = runner.env.step(clipped_actions)
        model.num_timesteps += env_steps
        check_observation(obs, model.observation_space, "step()", batched=True)
        check_rewards_finite(rewards, model.num_timesteps)
        runner.refresh_action_masks()

        if reads_locals:
            visible = dict(columns, **last_info)
            visible.update({"_": index, "actions": actions, "clipped_actions": clipped_actions, "rewards": rewards,
                            "infos": infos})
            visible.update(outputs)
            if not runner.advance_before_callback:
                visible.update(obs=obs, dones=dones, states=next_states)
        if runner.advance_before_callback:
            runner.advance(obs, dones, next_states)
        if not runner.on_env_step(visible):
            return None

        info = None
        for info in infos:
            maybe_ep_info = info.get("episode")
            if maybe_ep_info is not None:
                ep_infos.append(maybe_ep_info)
        if reads_locals and info is not None:
            # the callback of the next step sees the last environment's info
            last_info = {"info": info, "maybe_ep_info": info.get("episode")}
        if not runner.advance_before_callback:
            runner.advance(obs, dones, next_states)
        mb_rewards.append(rewards)
        runner.after_step(columns, obs)
    if step_masks:
        # (n_steps, n_envs, width) -> one row per transition, environment-major
        runner.rollout_action_masks = np.stack(step_masks, axis=1).reshape(-1, step_masks[0].shape[-1])
    return columns
