"""
Evaluation helper: play a number of episodes with a trained agent and report their returns.
"""
import inspect
from typing import Any, Callable, Dict, List, Literal, Optional, Sequence, Tuple, Union, cast, overload

import numpy as np
from gymnasium import spaces

from stable_baselines.common.policy_parts.action_masks import env_action_masks, env_has_action_masks, mask_width
from stable_baselines.common.gym_compat import reset_env, step_env
from stable_baselines.common.type_aliases import PolicyPredictor
from stable_baselines.common.vec_env import VecEnv
from stable_baselines.common.vec_env.unvec_wrapper import user_vec_env
from stable_baselines.common.vec_env.vec_monitor import is_monitor_wrapped


def _check_n_eval_episodes(n_eval_episodes: int) -> None:
    if int(n_eval_episodes) != n_eval_episodes or n_eval_episodes < 1:
        raise ValueError("n_eval_episodes must be a positive integer, got {!r}".format(n_eval_episodes))


def _masks_kwargs(env: Any, masked: bool, batched: bool) -> Dict[str, Any]:
    """
    :param env: (gym.Env or VecEnv) the environment played
    :param masked: (bool) whether it has ``action_masks()``
    :param batched: (bool) whether it is a VecEnv
    :return: (dict) the keyword arguments that restrict ``predict`` to the allowed actions (empty without masks)
    """
    if not masked:
        return {}
    masks = env_action_masks(env, mask_width(env.action_space))
    return {"action_masks": masks if batched else masks[0]}


def _plays_masked(env: Any) -> bool:
    """:return: (bool) whether the env defines ``action_masks()`` for a Discrete or MultiDiscrete action space"""
    return isinstance(env.action_space, (spaces.Discrete, spaces.MultiDiscrete)) and env_has_action_masks(env)


def _predict_takes_masks(model: PolicyPredictor) -> bool:
    """:return: (bool) whether ``model.predict`` has the ``action_masks`` parameter of the discrete-action models"""
    try:
        return "action_masks" in inspect.signature(model.predict).parameters
    except (TypeError, ValueError):
        return False


class _SingleEnvPlayer(object):
    """
    A gym environment played as a batch of one that answers in its own terms: the observation and the
    action are not batched, and the environment is reset when an episode ends and more are to be played.

    :param env: (gym.Env) a gymnasium or legacy gym-style environment
    """
    num_envs = 1
    batched = False

    def __init__(self, env: Any) -> None:
        self.env = env
        self.masked = _plays_masked(env)

    def reset(self) -> Any:
        return reset_env(self.env)[0]

    def predict_kwargs(self) -> Dict[str, Any]:
        """:return: (dict) ``action_masks`` for ``predict`` when the environment has them (else nothing)"""
        return _masks_kwargs(self.env, self.masked, batched=False)

    def step(self, action: Any) -> Tuple[Any, List[float], List[bool], List[Dict[str, Any]]]:
        obs, reward, terminated, truncated, info = step_env(self.env, action)
        return obs, [float(reward)], [bool(terminated or truncated)], [info]

    def next_observation(self, obs: Any, dones: Sequence[bool], more_to_play: bool) -> Any:
        return self.reset() if dones[0] and more_to_play else obs


class _VecEnvPlayer(object):
    """
    A VecEnv played as it is (it resets its environments itself).

    :param venv: (VecEnv) the vectorized environment
    """
    batched = True

    def __init__(self, venv: Any) -> None:
        self.env = venv
        self.num_envs = int(venv.num_envs)
        self.masked = _plays_masked(venv)

    def predict_kwargs(self) -> Dict[str, Any]:
        """:return: (dict) ``action_masks`` for ``predict`` when the environments have them (else nothing)"""
        return _masks_kwargs(self.env, self.masked, batched=True)

    def reset(self) -> Any:
        return self.env.reset()

    def step(self, actions: Any) -> Tuple[Any, List[float], List[bool], List[Dict[str, Any]]]:
        obs, rewards, dones, infos = self.env.step(actions)
        return (obs, [float(reward) for reward in np.asarray(rewards).reshape(-1)],
                [bool(done) for done in np.asarray(dones).reshape(-1)], list(infos))

    def next_observation(self, obs: Any, dones: Sequence[bool], more_to_play: bool) -> Any:
        return obs


class _EpisodeTally(object):
    """
    Counts the evaluation episodes over the environments without favouring short episodes: environment ``i``
    of ``n_envs`` contributes its first ``(n_eval_episodes + i) // n_envs`` episodes and no more.

    :param n_envs: (int) the number of environments played at once
    :param n_eval_episodes: (int) the number of episodes to collect in total
    :param from_monitor: (bool) take each episode's return and length from ``info['episode']`` (a Monitor
        or VecMonitor wrapper); an end of episode without it (e.g. a lost life) is then not counted
    """

    def __init__(self, n_envs: int, n_eval_episodes: int, from_monitor: bool) -> None:
        self.targets = [(n_eval_episodes + index) // n_envs for index in range(n_envs)]
        self.counts = [0] * n_envs
        self.current_rewards = [0.0] * n_envs
        self.current_lengths = [0] * n_envs
        self.from_monitor = from_monitor
        self.episode_rewards = []  # type: List[float]
        self.episode_lengths = []  # type: List[int]

    def counting(self, index: int) -> bool:
        """:return: (bool) whether environment ``index`` still has episodes to contribute"""
        return self.counts[index] < self.targets[index]

    def complete(self) -> bool:
        """:return: (bool) whether every environment has contributed its episodes"""
        return not any(self.counting(index) for index in range(len(self.targets)))

    def add_step(self, index: int, reward: float) -> Tuple[float, int]:
        """:return: (float, int) the return and the length of the current episode of environment ``index``"""
        self.current_rewards[index] += reward
        self.current_lengths[index] += 1
        return self.current_rewards[index], self.current_lengths[index]

    def end_episode(self, index: int, info: Dict[str, Any]) -> None:
        """Record the episode environment ``index`` just ended (if it counts) and start its next one."""
        if not self.from_monitor:
            self._record(index, self.current_rewards[index], self.current_lengths[index])
        elif "episode" in info:
            self._record(index, float(info["episode"]["r"]), int(info["episode"]["l"]))
        self.current_rewards[index] = 0.0
        self.current_lengths[index] = 0

    def _record(self, index: int, episode_return: float, episode_length: int) -> None:
        self.episode_rewards.append(episode_return)
        self.episode_lengths.append(episode_length)
        self.counts[index] += 1


class _RecurrentFeed(object):
    """
    Presents the evaluation environments to a recurrent policy built for a batch of ``n_envs`` observations:
    fewer observations are padded with zero rows (whose actions are dropped), and the mask tells which rows
    start an episode.

    :param n_envs: (int) the batch size the policy was built for
    :param player: (_SingleEnvPlayer or _VecEnvPlayer) the environments being played
    :param obs_shape: (tuple) the shape of one observation
    """

    def __init__(self, n_envs: int, player: Union[_SingleEnvPlayer, _VecEnvPlayer],
                 obs_shape: Tuple[int, ...]) -> None:
        self.n_rows = max(n_envs, player.num_envs)
        self.num_envs = player.num_envs
        self.batched = player.batched
        self.obs_shape = obs_shape

    def observations(self, obs: Any) -> np.ndarray:
        rows = np.asarray(obs).reshape((self.num_envs,) + self.obs_shape)
        if self.n_rows == self.num_envs:
            return rows
        batch = np.zeros((self.n_rows,) + self.obs_shape, dtype=rows.dtype)
        batch[:self.num_envs] = rows
        return batch

    def mask(self, episode_starts: np.ndarray) -> np.ndarray:
        mask = np.ones((self.n_rows,), dtype=bool)
        mask[:self.num_envs] = episode_starts
        return mask

    def predict_kwargs(self, kwargs: Dict[str, Any]) -> Dict[str, Any]:
        """:return: (dict) the player's ``predict`` arguments, action masks padded with rows allowing everything"""
        if "action_masks" not in kwargs:
            return kwargs
        own = np.asarray(kwargs["action_masks"], dtype=bool).reshape(self.num_envs, -1)
        masks = np.ones((self.n_rows, own.shape[1]), dtype=bool)
        masks[:self.num_envs] = own
        return dict(kwargs, action_masks=masks)

    def actions(self, actions: Any) -> Any:
        own = np.asarray(actions)[:self.num_envs]
        return own if self.batched else own[0]


def _recurrent_feed(model: PolicyPredictor, player: Union[_SingleEnvPlayer, _VecEnvPlayer]) -> Optional[_RecurrentFeed]:
    """A feed for a model whose policy is recurrent, None for any other model."""
    policy = getattr(model, "policy", None)
    if not getattr(policy, "recurrent", False):
        return None
    n_envs = int(getattr(model, "n_envs", 1) or 1)
    observation_space = cast(Any, model).observation_space  # every model has one; a plain predictor is not recurrent
    return _RecurrentFeed(n_envs, player, tuple(observation_space.shape))


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
    Play ``n_eval_episodes`` episodes with the agent and measure their returns.

    The environment may be a gymnasium environment, a legacy gym-style one (an episode ends when it
    terminates or is truncated) or a VecEnv of any number of environments, which reset themselves
    between episodes. With several environments, environment ``i`` of ``n_envs`` contributes its first
    ``(n_eval_episodes + i) // n_envs`` episodes (so short episodes are not favoured) and the episodes
    are listed in the order they end. When the environment is wrapped in a ``Monitor`` (or the VecEnv
    in a ``VecMonitor``), the returns and lengths are those the monitor reports in ``info['episode']``
    (only the episodes it ends count, e.g. not the lost lives of Atari wrappers); otherwise they are
    the sums of the rewards given to the agent. A recurrent policy gets its hidden state and the mask
    of the rows that start an episode; fewer observations than it was trained with are padded with zeros.

    :param model: (BaseRLModel) the agent (anything with the models' ``predict`` method)
    :param env: (gym.Env or VecEnv) the environment
    :param n_eval_episodes: (int) how many episodes to play (in total over the environments)
    :param deterministic: (bool) play the most likely actions instead of sampling them
    :param render: (bool) render the environment after each step
    :param callback: (callable) called as ``callback(locals(), globals())`` after each step, once per
        environment still contributing episodes, e.g. for extra checks (``env_index``, ``reward``,
        ``done``, ``episode_reward`` and ``episode_length`` describe that environment)
    :param reward_threshold: (float) if given, an AssertionError is raised when the mean return is not
        above it
    :param return_episode_rewards: (bool) return the return and length of every episode instead of
        the mean and standard deviation of the returns
    :return: (float, float) mean and standard deviation of the episode returns, or
        ([float], [int]) the returns and lengths when ``return_episode_rewards`` is True
    """
    _check_n_eval_episodes(n_eval_episodes)
    env = user_vec_env(env)  # e.g. DQN's get_env() of a VecEnv: play the VecEnv itself
    player = _VecEnvPlayer(env) if isinstance(env, VecEnv) else _SingleEnvPlayer(env)
    player.masked = player.masked and _predict_takes_masks(model)
    feed = _recurrent_feed(model, player)
    tally = _EpisodeTally(player.num_envs, int(n_eval_episodes), is_monitor_wrapped(env))
    episode_rewards, episode_lengths = tally.episode_rewards, tally.episode_lengths

    obs = player.reset()
    state = None
    episode_starts = np.ones((player.num_envs,), dtype=bool)
    while not tally.complete():
        if episode_starts.all():
            state = None
        if feed is None:
            action, state = model.predict(obs, state=state, deterministic=deterministic, **player.predict_kwargs())
            env_action = action
        else:
            action, state = model.predict(feed.observations(obs), state=state, mask=feed.mask(episode_starts),
                                          deterministic=deterministic, **feed.predict_kwargs(player.predict_kwargs()))
            env_action = feed.actions(action)
        obs, rewards, dones, infos = player.step(env_action)
        episode_starts = np.array(dones, dtype=bool)
        for env_index in range(player.num_envs):
            if not tally.counting(env_index):
                continue
            reward, done, _info = rewards[env_index], dones[env_index], infos[env_index]
            episode_reward, episode_length = tally.add_step(env_index, reward)
            i = len(episode_rewards)  # the index of the episode (of a single environment) being played
            if callback is not None:
                callback(locals(), globals())
            if done:
                tally.end_episode(env_index, _info)
        if render:
            env.render()
        obs = player.next_observation(obs, dones, not tally.complete())

    mean_reward, std_reward = float(np.mean(episode_rewards)), float(np.std(episode_rewards))
    if reward_threshold is not None and not mean_reward > reward_threshold:
        raise AssertionError("Mean reward below threshold: {:.2f} < {:.2f} (mean over {} episodes)"
                             .format(mean_reward, reward_threshold, n_eval_episodes))
    if return_episode_rewards:
        return episode_rewards, episode_lengths
    return mean_reward, std_reward


__all__ = ["evaluate_policy"]
