"""
Evaluation helper: run a trained agent for a number of episodes and report the episode rewards.
"""
from typing import TYPE_CHECKING, Any, Callable, List, Optional, Tuple, Union

import numpy as np

from stable_baselines.common.gym_compat import reset_env, step_env

if TYPE_CHECKING:
    from stable_baselines.common.base_class import BaseRLModel  # noqa: F401


def _is_vec_env(env: Any) -> bool:
    from stable_baselines.common.vec_env import VecEnv
    return isinstance(env, VecEnv)


def evaluate_policy(model: "BaseRLModel", env: Any, n_eval_episodes: int = 10, deterministic: bool = True,
                    render: bool = False, callback: Optional[Callable] = None,
                    reward_threshold: Optional[float] = None,
                    return_episode_rewards: bool = False) -> Union[Tuple[float, float], Tuple[List[float], List[int]]]:
    """
    Runs policy for `n_eval_episodes` episodes and returns average reward.
    This is made to work only with one env.

    The environment may be a VecEnv holding exactly one environment (it resets itself at the end
    of each episode), a gymnasium environment or a legacy gym-style environment (an episode ends
    when it terminates or is truncated). Recurrent policies get their state and the episode-start
    mask; their observation is padded with zeros to the number of environments they were trained
    with, and only the first one is used.

    :param model: (BaseRLModel) The RL agent you want to evaluate.
    :param env: (gym.Env or VecEnv) The gym environment. In the case of a `VecEnv`
        this must contain only one environment.
    :param n_eval_episodes: (int) Number of episode to evaluate the agent
    :param deterministic: (bool) Whether to use deterministic or stochastic actions
    :param render: (bool) Whether to render the environment or not
    :param callback: (callable) callback function to do additional checks,
        called after each step (with ``locals()`` and ``globals()``).
    :param reward_threshold: (float) Minimum expected reward per episode,
        this will raise an error (AssertionError) if the performance is not met
    :param return_episode_rewards: (bool) If True, a list of reward per episode
        will be returned instead of the mean.
    :return: (float, float) Mean reward per episode, std of reward per episode
        returns ([float], [int]) when `return_episode_rewards` is True
    """
    if int(n_eval_episodes) != n_eval_episodes or n_eval_episodes < 1:
        raise ValueError("n_eval_episodes must be a positive integer, got {!r}".format(n_eval_episodes))
    is_vec_env = _is_vec_env(env)
    if is_vec_env and env.num_envs != 1:
        raise ValueError("evaluate_policy needs a VecEnv holding exactly one environment, got a {} with "
                         "num_envs={}. Pass a single environment (or a DummyVecEnv of one)."
                         .format(type(env).__name__, env.num_envs))

    policy = getattr(model, "policy", None)
    is_recurrent = bool(getattr(policy, "recurrent", False))
    n_envs = int(getattr(model, "n_envs", 1) or 1) if is_recurrent else 1

    def pad(observation: Any) -> np.ndarray:
        """Zero-pad a single observation to the batch size a recurrent policy was built for."""
        observation = np.asarray(observation)
        single_shape = tuple(model.observation_space.shape)
        padded = np.zeros((n_envs,) + single_shape, dtype=observation.dtype)
        padded[0] = observation.reshape(single_shape)
        return padded

    def first(action: Any) -> Any:
        """The action of the first environment of a batch of actions."""
        return np.asarray(action)[0]

    episode_rewards, episode_lengths = [], []
    obs = None
    for i in range(int(n_eval_episodes)):
        # Avoid double reset, as VecEnv are reset automatically
        if not is_vec_env or i == 0:
            if is_vec_env:
                obs = env.reset()
            else:
                obs, _ = reset_env(env)
        done, state = False, None
        episode_reward = 0.0
        episode_length = 0
        while not done:
            if is_recurrent:
                single_obs = obs[0] if is_vec_env else obs
                mask = np.full((n_envs,), episode_length == 0, dtype=bool)
                action, state = model.predict(pad(single_obs), state=state, mask=mask, deterministic=deterministic)
                env_action = np.asarray(action)[:1] if is_vec_env else first(action)
            else:
                action, state = model.predict(obs, state=state, deterministic=deterministic)
                env_action = action
            if is_vec_env:
                obs, rewards, dones, _infos = env.step(env_action)
                reward = float(np.asarray(rewards).reshape(-1)[0])
                done = bool(np.asarray(dones).reshape(-1)[0])
            else:
                obs, reward, terminated, truncated, _info = step_env(env, env_action)
                reward = float(reward)
                done = terminated or truncated
            episode_reward += reward
            episode_length += 1
            if callback is not None:
                callback(locals(), globals())
            if render:
                env.render()
        episode_rewards.append(episode_reward)
        episode_lengths.append(episode_length)

    mean_reward = float(np.mean(episode_rewards))
    std_reward = float(np.std(episode_rewards))
    if reward_threshold is not None and not mean_reward > reward_threshold:
        raise AssertionError("Mean reward below threshold: {:.2f} < {:.2f} (mean over {} episodes)"
                             .format(mean_reward, reward_threshold, n_eval_episodes))
    if return_episode_rewards:
        return episode_rewards, episode_lengths
    return mean_reward, std_reward


__all__ = ["evaluate_policy"]
