"""
Environment loops that collect experience for the on-policy algorithms.
"""
from abc import ABC, abstractmethod
from typing import Optional, Union

import numpy as np
from gymnasium import spaces

from stable_baselines.common.callbacks import BaseCallback
from stable_baselines.common.gym_compat import reset_env, step_env
from stable_baselines.common.vec_env import VecEnv


class AbstractEnvRunner(ABC):
    def __init__(self, *, env: Union[VecEnv], model, n_steps: int):
        """
        Collect experience by running `n_steps` in the environment.
        Note: if this is a `VecEnv`, the total number of steps will
        be `n_steps * n_envs`.

        :param env: (Union[gym.Env, VecEnv]) The environment to learn from
        :param model: (Model) The model to learn
        :param n_steps: (int) The number of steps to run for each environment
        """
        self.env = env
        self.model = model
        n_envs = env.num_envs
        self.batch_ob_shape = (n_envs * n_steps,) + env.observation_space.shape
        self.obs = np.zeros((n_envs,) + env.observation_space.shape, dtype=env.observation_space.dtype)
        self.obs[:] = env.reset()
        self.n_steps = n_steps
        self.states = model.initial_state
        self.dones = [False for _ in range(n_envs)]
        self.callback = None  # type: Optional[BaseCallback]
        self.continue_training = True
        self.n_envs = n_envs

    def run(self, callback: Optional[BaseCallback] = None):
        """
        Collect experience.

        :param callback: (Optional[BaseCallback]) The callback that will be called
            at each environment step.
        """
        self.callback = callback
        self.continue_training = True
        return self._run()

    @abstractmethod
    def _run(self):
        """
        This method must be overwritten by child class.
        """
        raise NotImplementedError

    def _clip_actions(self, actions: np.ndarray) -> np.ndarray:
        """
        Clip continuous actions to the bounds of the action space (to avoid out of bound errors).

        :param actions: (np.ndarray)
        :return: (np.ndarray)
        """
        action_space = self.env.action_space
        if isinstance(action_space, spaces.Box):
            return np.clip(actions, action_space.low, action_space.high)
        return actions

    def _on_env_step(self, local_variables: dict) -> bool:
        """
        Hand the loop's variables to the callback after an environment step. As the manual's legacy
        callbacks expect, ``locals_["self"]`` is the model; the runner itself is ``locals_["runner"]``.

        :param local_variables: (dict) ``locals()`` of the collecting loop
        :return: (bool) False when the callback asked to stop training
        """
        if self.callback is None:
            return True
        local_variables = dict(local_variables, self=self.model, runner=self)
        self.callback.update_locals(local_variables)
        if self.callback.on_step() is False:
            self.continue_training = False
            return False
        return True


def swap_and_flatten(arr: np.ndarray) -> np.ndarray:
    """
    swap and then flatten axes 0 and 1

    :param arr: (np.ndarray)
    :return: (np.ndarray)
    """
    shape = arr.shape
    return arr.swapaxes(0, 1).reshape(shape[0] * shape[1], *shape[2:])


def traj_segment_generator(policy, env, horizon: int, reward_giver=None, gail: bool = False, callback=None):
    """
    Generate trajectory segments of ``horizon`` timesteps with the given policy (used by PPO1,
    TRPO and GAIL). The callback sees the local variables of this loop (see the manual's
    "Callbacks - Accessible Variables").

    :param policy: (MLPPolicy) the policy
    :param env: (Gym Environment) the environment (a gymnasium / legacy gym env, or a 1-env VecEnv
        wrapper that resets by itself)
    :param horizon: (int) the number of timesteps to run per batch
    :param reward_giver: (TransitionClassifier) the reward predicter from obsevation and action
    :param gail: (bool) Whether we are using this generator for standard trpo or with gail
    :param callback: (BaseCallback)
    :return: (dict) generator that returns a dict with the following keys:

        - observations: (np.ndarray) observations
        - rewards: (numpy float) rewards (if gail is used it is the predicted reward)
        - true_rewards: (numpy float) if gail is used it is the original reward
        - vpred: (numpy float) action logits
        - dones: (numpy bool) dones (is end of episode, used for logging)
        - episode_starts: (numpy bool)
            True if first timestep of an episode, used for GAE
        - actions: (np.ndarray) actions
        - nextvpred: (numpy float) next action logits
        - ep_rets: (float) cumulated current episode reward
        - ep_lens: (int) the length of the current episode
        - ep_true_rets: (float) the real environment reward
        - total_timestep: (int) the number of timesteps of this segment
        - continue_training: (bool) Whether to continue training
            or stop early (triggered by the callback)
    """
    # Check when using GAIL
    if gail and reward_giver is None:
        raise ValueError("You must pass a reward giver (reward_giver=...) when using GAIL (gail=True)")
    if not isinstance(horizon, (int, np.integer)) or horizon <= 0:
        raise ValueError("horizon must be a positive int (timesteps per segment), got {!r}".format(horizon))

    # Initialize state variables
    step = 0
    action = env.action_space.sample()  # not used, just so we have the datatype
    observation, _ = reset_env(env)

    cur_ep_ret = 0  # return in current episode
    current_it_len = 0  # len of current iteration
    current_ep_len = 0  # len of current episode
    cur_ep_true_ret = 0
    ep_true_rets = []
    ep_rets = []  # returns of completed episodes in this segment
    ep_lens = []  # Episode lengths

    # Initialize history arrays
    observations = np.array([observation for _ in range(horizon)])
    true_rewards = np.zeros(horizon, 'float32')
    rewards = np.zeros(horizon, 'float32')
    vpreds = np.zeros(horizon, 'float32')
    episode_starts = np.zeros(horizon, 'bool')
    dones = np.zeros(horizon, 'bool')
    actions = np.array([action for _ in range(horizon)])
    states = policy.initial_state
    episode_start = True  # marks if we're on first timestep of an episode
    done = False

    # the weights may have changed since the policy's NumPy copy was read (e.g. synchronised across MPI workers);
    # any object with a ``step`` method is accepted as policy
    invalidate_numpy_forward = getattr(policy, "invalidate_numpy_forward", lambda: None)
    invalidate_numpy_forward()
    if callback is not None:
        callback.on_rollout_start()

    while True:
        action, vpred, states, _ = policy.step(np.asarray(observation).reshape(-1, *np.shape(observation)), states,
                                               np.array([done]))
        # Slight weirdness here because we need value function at time T
        # before returning segment [0, T-1] so we get the correct
        # terminal value
        if step > 0 and step % horizon == 0:
            if callback is not None:
                callback.on_rollout_end()
            yield {
                "observations": observations,
                "rewards": rewards,
                "dones": dones,
                "episode_starts": episode_starts,
                "true_rewards": true_rewards,
                "vpred": vpreds,
                "actions": actions,
                "nextvpred": vpred[0] * (1 - episode_start),
                "ep_rets": ep_rets,
                "ep_lens": ep_lens,
                "ep_true_rets": ep_true_rets,
                "total_timestep": current_it_len,
                "continue_training": True
            }
            # The policy may have changed during the update: recompute the value of the current state
            invalidate_numpy_forward()
            _, vpred, _, _ = policy.step(np.asarray(observation).reshape(-1, *np.shape(observation)))
            # Be careful!!! if you change the downstream algorithm to aggregate
            # several of these batches, then be sure to do a deepcopy
            ep_rets = []
            ep_true_rets = []
            ep_lens = []
            # Reset current iteration length
            current_it_len = 0
            if callback is not None:
                callback.on_rollout_start()
        i = step % horizon
        observations[i] = observation
        vpreds[i] = vpred[0]
        actions[i] = action[0]
        episode_starts[i] = episode_start

        clipped_action = action
        # Clip the actions to avoid out of bound error
        if isinstance(env.action_space, spaces.Box):
            clipped_action = np.clip(action, env.action_space.low, env.action_space.high)

        if gail:
            # the discriminator's reward for this one transition, as a plain float
            reward = float(np.asarray(reward_giver.get_reward(observation, clipped_action[0])).reshape(-1)[0])
            observation, true_reward, terminated, truncated, info = step_env(env, clipped_action[0])
        else:
            observation, reward, terminated, truncated, info = step_env(env, clipped_action[0])
            true_reward = reward
        done = terminated or truncated

        if callback is not None:
            callback.update_locals(locals())
            if callback.on_step() is False:
                # We have to return everything so pytype does not complain
                yield {
                    "observations": observations,
                    "rewards": rewards,
                    "dones": dones,
                    "episode_starts": episode_starts,
                    "true_rewards": true_rewards,
                    "vpred": vpreds,
                    "actions": actions,
                    "nextvpred": vpred[0] * (1 - episode_start),
                    "ep_rets": ep_rets,
                    "ep_lens": ep_lens,
                    "ep_true_rets": ep_true_rets,
                    "total_timestep": current_it_len,
                    "continue_training": False
                }
                return

        rewards[i] = reward
        true_rewards[i] = true_reward
        dones[i] = done
        episode_start = done

        cur_ep_ret += reward
        cur_ep_true_ret += true_reward
        current_it_len += 1
        current_ep_len += 1
        if done:
            # Retrieve unnormalized reward if using Monitor wrapper
            maybe_ep_info = info.get('episode')
            if maybe_ep_info is not None:
                if not gail:
                    cur_ep_ret = maybe_ep_info['r']
                cur_ep_true_ret = maybe_ep_info['r']

            ep_rets.append(cur_ep_ret)
            ep_true_rets.append(cur_ep_true_ret)
            ep_lens.append(current_ep_len)
            cur_ep_ret = 0
            cur_ep_true_ret = 0
            current_ep_len = 0
            # A VecEnv (wrapper) resets by itself and already returned the first observation
            if not isinstance(env, VecEnv):
                observation, _ = reset_env(env)
        step += 1


def add_vtarg_and_adv(seg: dict, gamma: float, lam: float) -> None:
    """
    Compute target value using TD(lambda) estimator, and advantage with GAE(lambda)

    Adds to ``seg`` the keys "adv" (the GAE(lambda) advantages) and "tdlamret" (the TD(lambda)
    returns, ``adv + vpred``).

    :param seg: (dict) the current segment of the trajectory (see traj_segment_generator return for more information)
    :param gamma: (float) Discount factor
    :param lam: (float) GAE factor
    """
    # last element is only used for last vtarg, but we already zeroed it if last new = 1
    episode_starts = np.append(seg["episode_starts"], False)
    vpred = np.append(seg["vpred"], seg["nextvpred"])
    rew_len = len(seg["rewards"])
    seg["adv"] = np.empty(rew_len, 'float32')
    rewards = seg["rewards"]
    lastgaelam = 0
    for step in reversed(range(rew_len)):
        nonterminal = 1 - float(episode_starts[step + 1])
        delta = rewards[step] + gamma * vpred[step + 1] * nonterminal - vpred[step]
        seg["adv"][step] = lastgaelam = delta + gamma * lam * nonterminal * lastgaelam
    seg["tdlamret"] = seg["adv"] + seg["vpred"]
