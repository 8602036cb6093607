"""
Experience collection of the on-policy algorithms.

- :class:`AbstractEnvRunner`: base of the vectorized runners of A2C, ACER, ACKTR and PPO2; the step loop itself
  is :func:`~stable_baselines.common.model.rollouts.collect_rollout`.
- :func:`traj_segment_generator`: fixed-length segments of one environment (PPO1, TRPO, GAIL).
- :func:`add_vtarg_and_adv`: GAE advantages and TD(lambda) targets of such a segment.
"""
from abc import ABC, abstractmethod
from typing import Any, Dict, Generator, List, Optional, Tuple, Union, cast

import numpy as np

from stable_baselines.common.policy_parts.action_masks import env_action_masks, mask_width
from stable_baselines.common.callbacks import BaseCallback
from stable_baselines.common.model.env_values import check_observation, check_rewards_finite
from stable_baselines.common.gym_compat import reset_env, step_env
from stable_baselines.common.model.returns import gae_advantages
from stable_baselines.common.model.rollouts import clip_to_space, notify_step
from stable_baselines.common.vec_env import VecEnv


class AbstractEnvRunner(ABC):
    """
    Steps a vectorized environment with a model's policy and keeps where every environment stands
    (current observations, recurrent states, episode-start flags) from one rollout to the next.
    A rollout holds ``n_steps`` steps of every environment, ``n_steps * n_envs`` transitions in all.

    Subclasses implement :meth:`_run`; those built on :func:`~stable_baselines.common.model.rollouts.collect_rollout`
    choose what differs through :attr:`recorded_outputs`, :attr:`start_states_name`,
    :attr:`advance_before_callback` and the hooks :meth:`policy_step`, :meth:`extra_columns`, :meth:`after_step`.

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


def _policy_input(observation: Any) -> np.ndarray:
    """One observation as a batch of one row."""
    return np.asarray(observation).reshape(-1, *np.shape(observation))


class _SegmentState:
    """
    What :func:`traj_segment_generator` keeps between steps: the arrays of the segment being filled and the
    running sums of the current episode.

    :param horizon: (int) steps per segment
    :param observation: (np.ndarray) an observation (gives the shape and dtype)
    :param action: (np.ndarray) an action (gives the shape and dtype)
    """

    def __init__(self, horizon: int, observation: Any, action: Any) -> None:
        self.observations = np.array([observation] * horizon)
        self.actions = np.array([action] * horizon)
        self.rewards = np.zeros(horizon, 'float32')
        self.true_rewards = np.zeros(horizon, 'float32')
        self.vpreds = np.zeros(horizon, 'float32')
        self.episode_starts = np.zeros(horizon, 'bool')
        self.dones = np.zeros(horizon, 'bool')
        self.cur_ep_ret: Any = 0
        self.cur_ep_true_ret: Any = 0
        self.current_ep_len = 0
        self.current_it_len = 0
        self.ep_rets: List[Any] = []
        self.ep_true_rets: List[Any] = []
        self.ep_lens: List[int] = []
        # the allowed actions at each step (allocated only for a policy that uses action masks)
        self.action_masks: Optional[np.ndarray] = None

    def new_segment(self) -> None:
        """Forget the episodes of the segment that was handed out (the arrays are refilled in place)."""
        self.ep_rets, self.ep_true_rets, self.ep_lens = [], [], []
        self.current_it_len = 0

    def end_episode(self, info: dict, gail: bool) -> Optional[dict]:
        """
        Close the current episode; the Monitor's undiscounted return replaces the sums when available (for
        GAIL only the true return: its learning return is the discriminator's).

        :param info: (dict) the info of the last step
        :param gail: (bool) whether the rewards come from a discriminator
        :return: (dict or None) the Monitor's episode record
        """
        episode = info.get('episode')
        if episode is not None:
            self.cur_ep_true_ret = episode['r']
            if not gail:
                self.cur_ep_ret = episode['r']
        self.ep_rets.append(self.cur_ep_ret)
        self.ep_true_rets.append(self.cur_ep_true_ret)
        self.ep_lens.append(self.current_ep_len)
        self.cur_ep_ret = self.cur_ep_true_ret = self.current_ep_len = 0
        return episode

    def segment(self, next_value: Any, continue_training: bool) -> Dict[str, Any]:
        """
        :param next_value: (float) value estimate after the last step (0 at an episode start)
        :param continue_training: (bool) False when the callback stopped the training
        :return: (dict) the segment, see :func:`traj_segment_generator`
        """
        segment = {"observations": self.observations, "rewards": self.rewards, "dones": self.dones,
                   "episode_starts": self.episode_starts, "true_rewards": self.true_rewards, "vpred": self.vpreds,
                   "actions": self.actions, "nextvpred": next_value, "ep_rets": self.ep_rets,
                   "ep_lens": self.ep_lens, "ep_true_rets": self.ep_true_rets,
                   "total_timestep": self.current_it_len, "continue_training": continue_training}
        if self.action_masks is not None:
            segment["action_masks"] = self.action_masks
        return segment

    def visible(self) -> Dict[str, Any]:
        """
        :return: (dict) the segment's variables under the names a callback sees them
        """
        names = ("observations", "actions", "rewards", "true_rewards", "vpreds", "episode_starts", "dones",
                 "cur_ep_ret", "cur_ep_true_ret", "current_ep_len", "current_it_len", "ep_rets",
                 "ep_true_rets", "ep_lens")
        return {name: getattr(self, name) for name in names}


def traj_segment_generator(policy: Any, env: Any, horizon: int, reward_giver: Any = None, gail: bool = False,
                           callback: Any = None) -> Generator[Dict[str, Any], None, None]:
    """
    Endless generator of trajectory segments of ``horizon`` steps of one environment (PPO1, TRPO, GAIL).
    Episodes run on across segments; after each segment the policy may change before the next is collected (a
    model whose policy acts from a NumPy copy tells its ``fast_path`` before asking for the next segment).
    The callback is told after every step (see the manual's "Callbacks - Accessible Variables").

    :param policy: (MLPPolicy) the policy (any object with a ``step(obs, states, dones)`` method)
    :param env: (Gym Environment) a gymnasium or legacy gym environment, or a one-environment VecEnv
        (which resets by itself)
    :param horizon: (int) the number of steps of a segment
    :param reward_giver: (TransitionClassifier) the discriminator rewarding (observation, action) pairs (GAIL)
    :param gail: (bool) learn from the discriminator's reward instead of the environment's
    :param callback: (BaseCallback) the callback (None: no callback)
    :return: (dict) generator of segments, with the keys:

        - observations: (np.ndarray) the observations
        - rewards: (numpy float) the rewards learned from (the discriminator's with GAIL)
        - true_rewards: (numpy float) the environment's rewards
        - vpred: (numpy float) the value estimates
        - dones: (numpy bool) whether the episode ended with the step
        - episode_starts: (numpy bool) whether the step is the first of an episode (for GAE)
        - actions: (np.ndarray) the actions
        - nextvpred: (numpy float) the value estimate after the last step (0 at an episode start)
        - ep_rets: (float) returns of the episodes that ended in the segment
        - ep_lens: (int) their lengths
        - ep_true_rets: (float) their environment returns
        - total_timestep: (int) the number of steps of the segment
        - continue_training: (bool) False when the callback stopped the training (last segment)
        - action_masks: (numpy bool) the allowed actions at each step, only for a policy built with action masks
          (``action_mask_ph``), which then acts among the actions the env's ``action_masks()`` allows
    """
    if gail and reward_giver is None:
        raise ValueError("You must pass a reward giver (reward_giver=...) when using GAIL (gail=True)")
    if not isinstance(horizon, (int, np.integer)) or horizon <= 0:
        raise ValueError("horizon must be a positive int (timesteps per segment), got {!r}".format(horizon))

    observation, _ = reset_env(env)
    check_observation(observation, env.observation_space, "reset()")
    record = _SegmentState(horizon, observation, env.action_space.sample())
    states = policy.initial_state
    episode_start, done = True, False
    if callback is not None:
        callback.on_rollout_start()
    visible: Dict[str, Any] = {"env": env, "policy": policy, "horizon": horizon, "reward_giver": reward_giver,
                               "gail": gail, "callback": callback}

    masked = getattr(policy, "action_mask_ph", None) is not None
    if masked:
        record.action_masks = np.ones((horizon, mask_width(env.action_space)), dtype=bool)
    step = 0
    while True:
        if masked:
            allowed = env_action_masks(env, mask_width(env.action_space))
            action, vpred, states, last_output = policy.step_with_action_masks(
                _policy_input(observation), allowed, states, np.array([done]))
        else:
            action, vpred, states, last_output = policy.step(_policy_input(observation), states, np.array([done]))
        if step > 0 and step % horizon == 0:
            # the value of the observation after the segment is known only now
            if callback is not None:
                callback.on_rollout_end()
            yield record.segment(vpred[0] * (1 - episode_start), True)
            # the update may have changed the policy: estimate the current value again
            _, vpred, _, last_output = policy.step(_policy_input(observation))
            record.new_segment()
            if callback is not None:
                callback.on_rollout_start()
        i = step % horizon
        record.observations[i] = observation
        record.vpreds[i] = vpred[0]
        record.actions[i] = action[0]
        record.episode_starts[i] = episode_start
        if record.action_masks is not None:
            record.action_masks[i] = allowed[0]

        clipped_action = clip_to_space(action, env.action_space)
        if gail:
            # the discriminator's reward for this transition, as a plain float
            reward = float(np.asarray(reward_giver.get_reward(observation, clipped_action[0])).reshape(-1)[0])
            observation, true_reward, terminated, truncated, info = step_env(env, clipped_action[0])
        else:
            observation, reward, terminated, truncated, info = step_env(env, clipped_action[0])
            true_reward = reward
        done = terminated or truncated
        check_observation(observation, env.observation_space, "step()")
        check_rewards_finite(true_reward, step + 1)

        if callback is not None and callback.reads_locals:
            visible.update(record.visible())
            visible.update({"_": last_output, "action": action, "clipped_action": clipped_action, "vpred": vpred,
                            "states": states, "step": step, "i": i, "observation": observation,
                            "reward": reward, "true_reward": true_reward, "terminated": terminated,
                            "truncated": truncated, "info": info, "done": done, "episode_start": episode_start})
        if callback is not None and not notify_step(callback, visible):
            yield record.segment(vpred[0] * (1 - episode_start), False)
            return

        record.rewards[i] = reward
        record.true_rewards[i] = true_reward
        record.dones[i] = done
        episode_start = done
        record.cur_ep_ret += reward
        record.cur_ep_true_ret += true_reward
        record.current_it_len += 1
        record.current_ep_len += 1
        if done:
            visible["maybe_ep_info"] = record.end_episode(info, gail)
            # a VecEnv (wrapper) resets by itself and already returned the first observation
            if not isinstance(env, VecEnv):
                observation, _ = reset_env(env)
                check_observation(observation, env.observation_space, "reset()")
        step += 1


def add_vtarg_and_adv(seg: Dict[str, Any], gamma: float, lam: float) -> None:
    """
    Add to a segment of :func:`traj_segment_generator` its GAE(lambda) advantages (key ``"adv"``) and
    TD(lambda) value targets (key ``"tdlamret"``, advantages plus value estimates).

    :param seg: (dict) the segment
    :param gamma: (float) discount factor
    :param lam: (float) GAE lambda
    """
    # with the value after the segment appended, the value estimates take their common dtype
    values = np.append(seg["vpred"], seg["nextvpred"])
    # the episode flags in that dtype keep the recursion in the precision of the values
    starts = np.asarray(seg["episode_starts"], dtype=values.dtype)
    advantages = gae_advantages(seg["rewards"], values[:-1], starts, values[-1], values.dtype.type(0), gamma, lam)
    seg["adv"] = advantages.astype(np.float32)
    seg["tdlamret"] = seg["adv"] + seg["vpred"]
