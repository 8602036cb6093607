"""
Record expert trajectories (from a trained model or any callable) into the expert-dataset format
read by :class:`stable_baselines.gail.ExpertDataset`. Nothing here needs MPI.
"""
import os
import warnings
from typing import Any, Callable, Dict, List, Optional, Tuple

import numpy as np
from gymnasium import spaces

from stable_baselines.common.base_class import BaseRLModel, _UnvecWrapper
from stable_baselines.common.gym_compat import as_gymnasium_env, convert_space, make_env, reset_env, step_env
from stable_baselines.common.structured_obs import (entry_name, entry_shape, entry_values, is_structured_space,
                                                    map_entries, rebuild_from_columns, space_entries)
from stable_baselines.common.vec_env import VecEnv
from stable_baselines.gail.dataset.structured import flatten_observations, shapes_by_key

_SUPPORTED = "Box or Discrete"


def _is_image_space(space: spaces.Space) -> bool:
    """An observation space that looks like images: (H, W, C) uint8."""
    return isinstance(space, spaces.Box) and len(space.shape) == 3 and space.dtype == np.uint8


def _save_image(obs: np.ndarray, path_without_ext: str) -> str:
    """
    Write one image observation: PNG (lossless) for 1, 3 or 4 channels, ``.npy`` otherwise.

    :return: (str) the path written
    """
    obs = np.asarray(obs, dtype=np.uint8)
    n_channels = obs.shape[-1]
    if n_channels in (1, 3, 4):
        try:
            from PIL import Image  # pylint: disable=import-outside-toplevel
        except ImportError:  # pragma: no cover - Pillow comes with matplotlib
            pass
        else:
            path = path_without_ext + ".png"
            image = obs[:, :, 0] if n_channels == 1 else obs
            Image.fromarray(image).save(path)
            return path
    path = path_without_ext + ".npy"
    np.save(path, obs, allow_pickle=False)
    return path


def generate_expert_traj(model: Any, save_path: Optional[str] = None, env: Any = None, n_timesteps: int = 0,
                         n_episodes: int = 100, image_folder: str = 'recorded_images') -> Dict[str, np.ndarray]:
    """
    Record episodes of an expert (training it first when asked) in the format of
    :class:`~stable_baselines.gail.ExpertDataset`.

    .. note::

        Observation and action spaces must be Box or Discrete; observations may also be Dict or Tuple spaces
        (nested too) of Box, Discrete, MultiDiscrete and MultiBinary entries: ``obs`` is then a dict (or tuple) of
        arrays, stored in the archive entry by entry under ``obs/<entry path>`` keys (image entries stay arrays).

    :param model: (BaseRLModel or callable) the expert: a model (trained first for ``n_timesteps`` when that
        is > 0) or a function mapping an observation to an action
    :param save_path: (str) where to write the ``.npz`` archive, without extension ('expert_cartpole' writes
        'expert_cartpole.npz'); None only returns the data. Needed to record image observations as files
    :param env: (gym.Env) the environment to record in (default: the model's)
    :param n_timesteps: (int) training steps of the model before recording
    :param n_episodes: (int) number of episodes to record
    :param image_folder: (str) folder, next to ``save_path``, receiving the image observations
    :return: (dict) the recorded arrays: actions, obs, rewards, episode_returns, episode_starts
    """
    is_model = isinstance(model, BaseRLModel)
    if not is_model and not callable(model):
        raise TypeError("generate_expert_traj: model must be a Stable Baselines model or a callable "
                        "obs -> action, got {}".format(type(model).__name__))
    if env is None and is_model:
        env = model.get_env()
    if env is None:
        raise ValueError("generate_expert_traj: no environment: you must set the env in the model or pass it "
                         "to the function (env=...)")
    if int(n_episodes) < 1:
        raise ValueError("generate_expert_traj: n_episodes must be >= 1, got {!r}".format(n_episodes))
    env, is_vec_env = _prepare_env(env)
    observation_space = convert_space(env.observation_space)
    action_space = convert_space(env.action_space)
    if is_structured_space(observation_space):
        space_entries(observation_space)  # refuses entries of other kinds, naming them
    else:
        _check_space("observation", observation_space)
    _check_space("action", action_space)

    image_dir = _image_directory(observation_space, save_path, image_folder)
    if n_timesteps > 0 and is_model:
        model.learn(n_timesteps)

    policy = _as_policy(model, is_model)
    recorder = _EpisodeRecorder(env, is_vec_env, image_dir)
    recorder.run(policy, int(n_episodes))
    numpy_dict: Dict[str, Any] = {
        "actions": _stack_actions(recorder.actions, action_space),
        "obs": _stack_observations(recorder.observations, observation_space, image_dir is not None),
        "rewards": np.array(recorder.rewards, dtype=np.float32),
        "episode_returns": recorder.episode_returns,
        "episode_starts": np.array(recorder.episode_starts, dtype=bool),
    }
    assert len(numpy_dict["actions"]) == len(numpy_dict["episode_starts"])

    if not is_model or model.verbose > 0:
        for key, shape in shapes_by_key(numpy_dict):
            print(key, shape)
    if save_path is not None:
        np.savez(save_path, **_archive_arrays(numpy_dict))
    return numpy_dict


def _archive_arrays(numpy_dict: Dict[str, Any]) -> Dict[str, Any]:
    """:return: (dict) the arrays to write: structured observations one array per entry (``obs/<path>``)"""
    observations = numpy_dict["obs"]
    if not isinstance(observations, (dict, tuple)):
        return numpy_dict
    arrays = {key: value for key, value in numpy_dict.items() if key != "obs"}
    arrays.update(flatten_observations(observations))
    return arrays


def _prepare_env(env) -> Tuple[Any, bool]:
    """
    :return: (gymnasium.Env or VecEnv, bool) the environment to record in (an id is made into one) and
        whether it is a real VecEnv (only its first environment is recorded)
    """
    if isinstance(env, str):
        env = make_env(env)
    is_vec_env = isinstance(env, VecEnv) and not isinstance(env, _UnvecWrapper)
    if not isinstance(env, VecEnv):
        env = as_gymnasium_env(env)
    if is_vec_env and env.num_envs > 1:
        warnings.warn("You are using multiple envs, only the data from the first one will be recorded.")
    return env, is_vec_env


def _check_space(kind: str, space: spaces.Space) -> None:
    """Raise a ValueError for a space other than Box or Discrete."""
    if not isinstance(space, (spaces.Box, spaces.Discrete)):
        raise ValueError("generate_expert_traj: {} space type not supported: expected {}, got {}"
                         .format(kind, _SUPPORTED, space))


def _image_directory(observation_space: spaces.Space, save_path, image_folder: str) -> Optional[str]:
    """
    :return: (str or None) the created folder for image observations, None when observations are kept in
        the archive (no images, or images without a save path)
    """
    if not _is_image_space(observation_space):
        return None
    if save_path is None:
        warnings.warn("Observations are images but no save path was specified, so will save in numpy archive; "
                      "this can lead to higher memory usage.")
        return None
    folder = os.path.join(os.path.dirname(os.fspath(save_path)), image_folder)
    os.makedirs(folder, exist_ok=True)
    separator = "=" * 10
    print(separator)
    print("Images will be recorded to {}/".format(folder))
    print("Image shape: {}".format(observation_space.shape))
    print(separator)
    return folder


def _as_policy(model, is_model: bool) -> Callable:
    """:return: (callable) ``(obs, state, mask) -> (action, state)`` for a model or an obs -> action function"""
    if is_model:
        return lambda obs, state, mask: model.predict(obs, state=state, mask=mask)
    return lambda obs, state, mask: (model(obs), state)


class _EpisodeRecorder:
    """
    Steps the expert in the environment and keeps, per step, the observation (or its image path), the
    action, the reward and whether the step starts an episode.

    :param env: (gymnasium.Env or VecEnv) the environment
    :param is_vec_env: (bool) whether ``env`` is a VecEnv (its first environment is recorded)
    :param image_dir: (str or None) folder receiving image observations, None to keep the arrays
    """

    def __init__(self, env, is_vec_env: bool, image_dir: Optional[str]):
        self.env = env
        self.is_vec_env = is_vec_env
        self.image_dir = image_dir
        self.observations: List[Any] = []
        self.actions: List[np.ndarray] = []
        self.rewards: List[float] = []
        self.episode_starts: List[bool] = []
        self.episode_returns = np.zeros((0,))

    def run(self, policy: Callable, n_episodes: int) -> None:
        """
        Record ``n_episodes`` complete episodes.

        :param policy: (callable) ``(obs, state, mask) -> (action, state)``
        :param n_episodes: (int) number of episodes
        """
        self.episode_returns = np.zeros((n_episodes,))
        env = self.env
        # the recurrent state and the done mask given to predict
        state, mask = None, None
        if self.is_vec_env:
            obs = env.reset()
            mask = [True] * env.num_envs
        else:
            obs, _ = reset_env(env)
        episode, episode_return, starts_episode = 0, 0.0, True
        while episode < n_episodes:
            self._keep_observation(map_entries(lambda values: values[0], obs) if self.is_vec_env else obs)
            action, state = policy(obs, state, mask)
            if self.is_vec_env:
                obs, rewards, dones, _ = env.step(action)
                done = bool(dones[0])
                mask = [done] * env.num_envs
                action = np.asarray(action)[0]
                reward = float(np.asarray(rewards)[0])
            else:
                obs, reward, terminated, truncated, _ = step_env(env, action)
                done = terminated or truncated
                reward = float(np.asarray(reward).reshape(-1)[0])
            self.actions.append(np.asarray(action))
            self.rewards.append(reward)
            self.episode_starts.append(starts_episode)
            starts_episode = done
            episode_return += reward
            if done:
                if not self.is_vec_env:
                    # a VecEnv resets itself; a recurrent policy starts over from a fresh state
                    obs, _ = reset_env(env)
                    state = None
                self.episode_returns[episode] = episode_return
                episode_return = 0.0
                episode += 1

    def _keep_observation(self, obs) -> None:
        if isinstance(obs, (dict, tuple)):
            self.observations.append(obs)
        elif self.image_dir is None:
            self.observations.append(np.asarray(obs))
        else:
            path = os.path.join(self.image_dir, str(len(self.observations)))
            self.observations.append(_save_image(obs, path))


def _stack_entries(observations: list, space: spaces.Space) -> Any:
    """Structured observations as the structure of the space (plain dicts and tuples) of stacked entries."""
    paths = iter(path for path, _ in space_entries(space))

    def stack(entry_space: spaces.Space, _start: int, _end: int) -> np.ndarray:
        path = next(paths)
        dtype = np.int64 if isinstance(entry_space, spaces.Discrete) else entry_space.dtype
        values = [np.asarray(entry_values(obs, space, path)) for obs in observations]
        shape = entry_shape(entry_space)
        wrong = [np.shape(value) for value in values if np.shape(value) != shape]
        if wrong:
            raise ValueError("generate_expert_traj: the entry {} of an observation has shape {}, the observation space "
                             "says {}".format(entry_name(path), wrong[0], shape))
        return np.stack(values).reshape((-1,) + shape).astype(dtype, copy=False)

    # plain dicts and tuples (not OrderedDicts), as a loaded dataset has them
    return map_entries(lambda entry: entry, rebuild_from_columns(space, stack))


def _stack_observations(observations: list, space: spaces.Space, as_paths: bool) -> Any:
    """The recorded observations as one array: image paths, Box values of the space's dtype, or (n, 1) indices."""
    if is_structured_space(space):
        return _stack_entries(observations, space)
    if as_paths:
        return np.array(observations)
    if isinstance(space, spaces.Box):
        return np.stack(observations).reshape((-1,) + space.shape).astype(space.dtype, copy=False)
    return np.array(observations).reshape((-1, 1))


def _stack_actions(actions: list, space: spaces.Space) -> np.ndarray:
    """The recorded actions as one array: float32 values (Box) or (n, 1) int64 indices (Discrete)."""
    if isinstance(space, spaces.Box):
        return np.stack(actions).reshape((-1,) + space.shape).astype(np.float32, copy=False)
    return np.array(actions).astype(np.int64).reshape((-1, 1))
