"""
Evaluation helper: play a number of episodes with a trained agent and report their returns.
"""
from typing import Any, Callable, List, Literal, Optional, Tuple, Union, cast, overload

import numpy as np

from stable_baselines.common.gym_compat import reset_env, step_env
from stable_baselines.common.type_aliases import PolicyPredictor


def _is_vec_env(env: Any) -> bool:
    from stable_baselines.common.vec_env import VecEnv  # pylint: disable=import-outside-toplevel
    return isinstance(env, VecEnv)


def _check_arguments(env: Any, n_eval_episodes: int, is_vec_env: bool) -> None:
    if int(n_eval_episodes) != n_eval_episodes or n_eval_episodes < 1:
        raise ValueError("n_eval_episodes must be a positive integer, got {!r}".format(n_eval_episodes))
    if is_vec_env and env.num_envs != 1:
        raise ValueError("evaluate_policy needs a VecEnv holding exactly one environment, got a {} with "
                         "num_envs={}. Pass a single environment (or a DummyVecEnv of one)."
                         .format(type(env).__name__, env.num_envs))


class _RecurrentFeed(object):
    """
    Presents the single evaluation environment to a recurrent policy, which was built for a batch of
    ``n_envs`` observations: the observation fills the first row of a zero batch, the mask marks the
    first step of an episode for every row, and only the first action is played.

    :param n_envs: (int) the batch size the policy was built for
    :param obs_shape: (tuple) the shape of one observation
    """

    def __init__(self, n_envs: int, obs_shape: Tuple[int, ...]) -> None:
        self.n_envs = n_envs
        self.obs_shape = obs_shape

    def batch(self, observation: Any) -> np.ndarray:
        observation = np.asarray(observation)
        batch = np.zeros((self.n_envs,) + self.obs_shape, dtype=observation.dtype)
        batch[0] = observation.reshape(self.obs_shape)
        return batch

    def mask(self, first_step: bool) -> np.ndarray:
        return np.full((self.n_envs,), first_step, dtype=bool)


def _recurrent_feed(model: PolicyPredictor) -> Optional[_RecurrentFeed]:
    """A feed for a model whose policy is recurrent, None for any other model."""
    policy = getattr(model, "policy", None)
    if not getattr(policy, "recurrent", False):
        return None
    n_envs = int(getattr(model, "n_envs", 1) or 1)
    observation_space = cast(Any, model).observation_space  # every model has one; a plain predictor is not recurrent
    return _RecurrentFeed(n_envs, tuple(observation_space.shape))


# for type checkers: the mean and standard deviation by default, the lists with return_episode_rewards=True
@overload
def evaluate_policy(model: PolicyPredictor, env: Any, n_eval_episodes: int = ..., deterministic: bool = ...,
                    render: bool = ..., callback: Optional[Callable] = ..., reward_threshold: Optional[float] = ...,
                    return_episode_rewards: Literal[False] = ...) -> Tuple[float, float]:
    ...


@overload
def evaluate_policy(model: PolicyPredictor, env: Any, n_eval_episodes: int = ..., deterministic: bool = ...,
                    render: bool = ..., callback: Optional[Callable] = ..., reward_threshold: Optional[float] = ...,
                    *, return_episode_rewards: Literal[True]) -> Tuple[List[float], List[int]]:
    ...


@overload
def evaluate_policy(model: PolicyPredictor, env: Any, n_eval_episodes: int = ..., deterministic: bool = ...,
                    render: bool = ..., callback: Optional[Callable] = ..., reward_threshold: Optional[float] = ...,
                    return_episode_rewards: bool = ...) -> Union[Tuple[float, float], Tuple[List[float], List[int]]]:
    ...


def evaluate_policy(model: PolicyPredictor, env: Any, n_eval_episodes: int = 10, deterministic: bool = True,
                    render: bool = False, callback: Optional[Callable] = None,
                    reward_threshold: Optional[float] = None,
                    return_episode_rewards: bool = False) -> Union[Tuple[float, float], Tuple[List[float], List[int]]]:
    """
    Play ``n_eval_episodes`` episodes with the agent on one environment and measure their returns.

    The environment may be a gymnasium environment, a legacy gym-style one (an episode ends when it
    terminates or is truncated) or a VecEnv of exactly one environment (which resets itself between
    episodes, so it is reset only once). A recurrent policy gets its hidden state and the episode-start
    mask, and its observation is padded with zeros to the number of environments it was trained with.

    :param model: (BaseRLModel) the agent (anything with the models' ``predict`` method)
    :param env: (gym.Env or VecEnv) the environment; a ``VecEnv`` must hold only one environment
    :param n_eval_episodes: (int) how many episodes to play
    :param deterministic: (bool) play the most likely actions instead of sampling them
    :param render: (bool) render the environment after each step
    :param callback: (callable) called as ``callback(locals(), globals())`` after each step, e.g. for
        extra checks
    :param reward_threshold: (float) if given, an AssertionError is raised when the mean return is not
        above it
    :param return_episode_rewards: (bool) return the return and length of every episode instead of
        the mean and standard deviation of the returns
    :return: (float, float) mean and standard deviation of the episode returns, or
        ([float], [int]) the returns and lengths when ``return_episode_rewards`` is True
    """
    is_vec_env = _is_vec_env(env)
    _check_arguments(env, n_eval_episodes, is_vec_env)
    feed = _recurrent_feed(model)

    episode_rewards, episode_lengths = [], []
    obs: Any = None
    for i in range(int(n_eval_episodes)):
        if not is_vec_env:
            obs, _ = reset_env(env)
        elif i == 0:
            obs = env.reset()
        done, state = False, None
        episode_reward = 0.0
        episode_length = 0
        while not done:
            if feed is None:
                action, state = model.predict(obs, state=state, deterministic=deterministic)
                env_action = action
            else:
                own_obs = obs[0] if is_vec_env else obs
                action, state = model.predict(feed.batch(own_obs), state=state, mask=feed.mask(episode_length == 0),
                                              deterministic=deterministic)
                env_action = np.asarray(action)[:1] if is_vec_env else np.asarray(action)[0]
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

    mean_reward, std_reward = float(np.mean(episode_rewards)), float(np.std(episode_rewards))
    if reward_threshold is not None and not mean_reward > reward_threshold:
        raise AssertionError("Mean reward below threshold: {:.2f} < {:.2f} (mean over {} episodes)"
                             .format(mean_reward, reward_threshold, n_eval_episodes))
    if return_episode_rewards:
        return episode_rewards, episode_lengths
    return mean_reward, std_reward


__all__ = ["evaluate_policy"]
