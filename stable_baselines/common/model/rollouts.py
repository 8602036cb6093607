"""
Collecting a rollout of the on-policy algorithms that step a VecEnv (A2C, ACER, ACKTR, PPO2), and its returns.

- :class:`AbstractEnvRunner`: the base of their runners; it keeps where every environment stands between
  rollouts and supplies what the algorithms differ in (which policy outputs are recorded, whether the runner takes
  the environment's answer before or after the callback).
- :func:`collect_rollout`: the environment-step loop, written once: ask the policy, clip continuous actions to the
  action space, step, count the timesteps, hand the loop's variables to the callback (stopping early when
  ``on_step`` returns False) and keep the ``episode`` records of the Monitor. The variables a callback sees
  (``self.locals``) keep the names the manual documents for each algorithm (``actions``, ``rewards``, ``infos``,
  ``mb_obs``, ``ep_infos``, ...).
- :func:`discount_with_dones`, :func:`discounted_returns`, :func:`gae_advantages`: the returns and advantages, pure
  functions of time-major NumPy arrays (axis 0 is the step, further axes the environments). Their arithmetic
  follows NumPy's type promotion of the inputs, so a caller chooses the precision by the dtypes it passes (episode
  flags given as booleans are promoted to float64 when subtracted from 1.0; as float32 they keep a float32
  computation).

:func:`clip_to_space` and :func:`notify_step` are shared with the segment generator of PPO1, TRPO and GAIL
(:mod:`stable_baselines.common.model.segments`).
"""
from abc import ABC, abstractmethod
from typing import Any, Dict, List, NamedTuple, Optional, Sequence, Tuple, Type, TypeVar, Union, cast

import numpy as np
from gymnasium import spaces

from stable_baselines.common.callbacks import BaseCallback
from stable_baselines.common.model.env_values import check_observation, check_rewards_finite
from stable_baselines.common.policy_parts.action_masks import env_action_masks, mask_width
from stable_baselines.common.vec_env import VecEnv


def discount_with_dones(rewards: Sequence[float], dones: Sequence[float], gamma: float) -> List[float]:
    """
    Discounted returns of one environment's reward sequence; the sum restarts after every step that ended
    an episode. Nothing is bootstrapped after the last step.

    :param rewards: ([float]) rewards of consecutive steps
    :param dones: ([bool]) per step, True when the episode ended with that step
    :param gamma: (float) discount factor
    :return: ([float]) the discounted return of every step, in the order of ``rewards``
    """
    returns = [0.0] * len(rewards)
    running = 0.0
    for idx in range(len(rewards) - 1, -1, -1):
        running = rewards[idx] + gamma * running * (1. - dones[idx])
        returns[idx] = running
    return returns


def discounted_returns(rewards: np.ndarray, dones: np.ndarray, last_values: np.ndarray,
                       gamma: float) -> np.ndarray:
    """
    n-step discounted returns, bootstrapped on the value of the observation that follows the rollout:
    ``R_t = r_t + gamma * (1 - done_t) * R_{t+1}`` with ``R_T = last_values``.

    :param rewards: (np.ndarray) rewards, shape (n_steps, ...)
    :param dones: (np.ndarray) per step, whether the episode ended with that step, shape (n_steps, ...)
    :param last_values: (np.ndarray) value estimates of the observations after the last step
    :param gamma: (float) discount factor
    :return: (np.ndarray) the returns, in the dtype of ``rewards``
    """
    returns = np.zeros_like(rewards)
    running = last_values
    for step in range(len(rewards) - 1, -1, -1):
        running = rewards[step] + gamma * running * (1.0 - dones[step])
        returns[step] = running
    return returns


def gae_advantages(rewards: np.ndarray, values: np.ndarray, episode_starts: np.ndarray,
                   last_values: np.ndarray, last_episode_starts: np.ndarray, gamma: float,
                   lam: float) -> np.ndarray:
    """
    Generalized Advantage Estimation (Schulman et al. 2015, https://arxiv.org/abs/1506.02438):
    ``A_t = delta_t + gamma * lam * (1 - start_{t+1}) * A_{t+1}`` with the TD error
    ``delta_t = r_t + gamma * (1 - start_{t+1}) * V_{t+1} - V_t``.

    :param rewards: (np.ndarray) rewards, shape (n_steps, ...)
    :param values: (np.ndarray) value estimates of the observations of every step, shape (n_steps, ...)
    :param episode_starts: (np.ndarray) per step, whether its observation starts an episode
    :param last_values: (np.ndarray) value estimates of the observations after the last step
    :param last_episode_starts: (np.ndarray) whether the observations after the last step start an episode
    :param gamma: (float) discount factor
    :param lam: (float) GAE lambda, trade-off of bias (0: one-step TD) against variance (1: Monte-Carlo)
    :return: (np.ndarray) the advantages as float64 (each exactly the value of the recursion)
    """
    n_steps = len(rewards)
    advantages = np.zeros(np.shape(rewards), dtype=np.float64)
    if n_steps == 0:
        return advantages
    # the TD errors of all steps at once, each with the same operations (hence the same rounding) as one by one;
    # the last step bootstraps on the values after the rollout, in the dtypes the caller gave them
    continues = 1.0 - np.asarray(episode_starts[1:])
    td_errors = rewards[:-1] + gamma * values[1:] * continues - values[:-1]
    last_continues = 1.0 - last_episode_starts
    last_td_error = rewards[-1] + gamma * last_values * last_continues - values[-1]
    carry = last_td_error + gamma * lam * last_continues * 0
    advantages[-1] = carry
    for step in range(n_steps - 2, -1, -1):
        carry = td_errors[step] + gamma * lam * continues[step] * carry
        advantages[step] = carry
    return advantages


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


def notify_step(callback: Optional[BaseCallback], visible: Dict[str, Any]) -> bool:
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

class AbstractEnvRunner(ABC):
    """
    Steps a vectorized environment with a model's policy and keeps where every environment stands
    (current observations, recurrent states, episode-start flags) from one rollout to the next.
    A rollout holds ``n_steps`` steps of every environment, ``n_steps * n_envs`` transitions in all.

    Subclasses implement :meth:`_run`; those built on :func:`collect_rollout` choose what differs through
    :attr:`recorded_outputs`, :attr:`start_states_name`, :attr:`advance_before_callback` and the hooks
    :meth:`policy_step`, :meth:`extra_columns`, :meth:`after_step`.

    :param env: (VecEnv) the environment to step
    :param model: (BaseRLModel) the model whose policy acts (its ``num_timesteps`` is advanced)
    :param n_steps: (int) steps per environment in one rollout
    """

    #: outputs of :meth:`policy_step` kept per step (as ``mb_<name>`` lists)
    recorded_outputs: Tuple[str, ...] = ("values",)
    #: name under which the callback sees the recurrent states at the start of the rollout
    start_states_name = "mb_states"
    #: store the environment's answer in the runner before the callback is told (the callback then does
    #: not see ``obs``, ``dones`` and ``states`` as separate variables)
    advance_before_callback = False

    def __init__(self, *, env: VecEnv, model: Any, n_steps: int) -> None:
        self.env = env
        self.model = model
        self.n_envs = n_envs = env.num_envs
        self.n_steps = n_steps
        obs_shape = cast(Tuple[int, ...], env.observation_space.shape)
        self.batch_ob_shape = (n_envs * n_steps,) + obs_shape
        self.obs = np.zeros((n_envs,) + obs_shape, dtype=env.observation_space.dtype)
        self.obs[:] = env.reset()
        self.states = model.initial_state
        self.dones: Union[List[bool], np.ndarray] = [False] * n_envs
        self.callback: Optional[BaseCallback] = None
        self.continue_training = True
        # the allowed actions of the current observations (None: the model does not use action masks), and those
        # of every transition of the last rollout, environment-major like the other arrays of a rollout
        self.action_masks: Optional[np.ndarray] = None
        self.rollout_action_masks: Optional[np.ndarray] = None
        self.refresh_action_masks()

    def run(self, callback: Optional[BaseCallback] = None) -> Any:
        """
        Collect one rollout.

        :param callback: (BaseCallback) told after every environment step (None: no callback)
        :return: what the algorithm's runner returns (a tuple of arrays, all None when the callback stopped)
        """
        self.callback = callback
        self.continue_training = True
        return self._run()

    @abstractmethod
    def _run(self) -> Any:
        """
        Collect one rollout (implemented by every runner).
        """
        raise NotImplementedError

    def refresh_action_masks(self) -> None:
        """Read the allowed actions of the current observations from the environment (if the model uses masks)."""
        if self.model.uses_action_masks:
            self.action_masks = env_action_masks(self.env, mask_width(self.env.action_space))

    def model_step(self) -> Tuple[Any, ...]:
        """
        :return: (tuple) the model's ``step`` at the current observations (actions, values, states, negative
            log-likelihoods), restricted to the allowed actions when the model uses action masks
        """
        if self.action_masks is None:
            return self.model.step(self.obs, self.states, self.dones)
        return self.model.acting_policy.step_with_action_masks(self.obs, self.action_masks, self.states, self.dones)

    def sampled_model_step(self) -> Tuple[Any, ...]:
        """
        :meth:`model_step`, answered by the NumPy copy of the acting policy when it has one (see
        :meth:`~stable_baselines.common.model.fast_path.FastPath.sampled_step`; masked steps and a ``step`` the user
        replaced go through :meth:`model_step`)

        :return: (tuple) actions, values, states, negative log-likelihoods
        """
        model = self.model
        policy = model.acting_policy
        if self.action_masks is None and policy is not None and model.step == policy.step:
            answer = model.fast_path.sampled_step(policy, self.obs)
            if answer is not None:
                return answer
        return self.model_step()

    def policy_step(self) -> Tuple[np.ndarray, Any, Dict[str, Any]]:
        """
        Ask the model for the actions of the current observations.

        :return: (np.ndarray, Any, dict) the actions, the next recurrent states, and the other outputs by the
            name the callback sees them under (the value estimates as ``values``; the negative
            log-likelihoods as ``_``, unused by the algorithms built on this default)
        """
        actions, values, states, neglogp = self.model_step()
        return actions, states, {"values": values, "_": neglogp}

    def extra_columns(self) -> Dict[str, list]:
        """
        :return: (dict) further per-step lists of a rollout, by name, with their initial content
        """
        return {}

    def after_step(self, columns: Dict[str, Any], obs: np.ndarray) -> None:
        """
        Called at the end of every step of a rollout.

        :param columns: (dict) the lists of the rollout
        :param obs: (np.ndarray) the observations the environment returned
        """

    def advance(self, obs: np.ndarray, dones: np.ndarray, states: Any) -> None:
        """
        Take the environment's answer as the new current position of every environment.

        :param obs: (np.ndarray) the observations after the step
        :param dones: (np.ndarray) whether each episode ended with the step
        :param states: (Any) the recurrent states after the step
        """
        if self.advance_before_callback:
            self.obs[:] = obs
        else:
            self.obs = obs
        self.dones, self.states = dones, states

    def clip_actions(self, actions: np.ndarray) -> np.ndarray:
        """
        :param actions: (np.ndarray) actions of the policy
        :return: (np.ndarray) the actions clipped to a Box action space
        """
        return clip_to_space(actions, self.env.action_space)

    def on_env_step(self, local_variables: Dict[str, Any]) -> bool:
        """
        Tell the callback about an environment step. As legacy callbacks expect, ``locals_["self"]`` is the
        model; the runner is ``locals_["runner"]``.

        :param local_variables: (dict) the variables of the collecting loop
        :return: (bool) False when the callback asked to stop
        """
        callback = self.callback
        if callback is None:
            return True
        if callback.reads_locals:
            local_variables = dict(local_variables, self=self.model, runner=self)
        go_on = notify_step(callback, local_variables)
        data_parallel = getattr(self.model, "data_parallel", None)  # a model of the user's own may have none
        if data_parallel is not None:
            # the ranks of a data-parallel model stop together, at the step one of them asked to
            go_on = data_parallel.agreed(go_on)
        if go_on:
            return True
        self.continue_training = False
        return False


def swap_and_flatten(arr: np.ndarray) -> np.ndarray:
    """
    Turn a time-major array (n_steps, n_envs, ...) into one row per transition, environment-major.

    :param arr: (np.ndarray) array of shape (n_steps, n_envs, ...)
    :return: (np.ndarray) array of shape (n_envs * n_steps, ...)
    """
    n_steps, n_envs = arr.shape[:2]
    return arr.swapaxes(0, 1).reshape(n_steps * n_envs, *arr.shape[2:])


def collect_rollout(runner: AbstractEnvRunner) -> Optional[Dict[str, Any]]:
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
