"""
Record expert trajectories (from a trained model or any callable) into the expert-dataset format
read by :class:`stable_baselines.gail.ExpertDataset`. Nothing here needs MPI.
"""
import os
import warnings
from typing import Any, Dict, List, cast

import numpy as np
from gymnasium import spaces

from stable_baselines.common.base_class import BaseRLModel, _UnvecWrapper
from stable_baselines.common.gym_compat import as_gymnasium_env, convert_space, reset_env, step_env
from stable_baselines.common.vec_env import VecEnv

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
            Image = None
        if Image is not None:
            path = path_without_ext + ".png"
            image = obs[:, :, 0] if n_channels == 1 else obs
            Image.fromarray(image).save(path)
            return path
    path = path_without_ext + ".npy"
    np.save(path, obs, allow_pickle=False)
    return path


def generate_expert_traj(model, save_path=None, env=None, n_timesteps=0,
                         n_episodes=100, image_folder='recorded_images') -> Dict[str, np.ndarray]:
    """
    Train expert controller (if needed) and record expert trajectories.

    .. note::

        only Box and Discrete spaces are supported for now.

    :param model: (RL model or callable) The expert model, if it needs to be trained,
        then you need to pass ``n_timesteps > 0``.
    :param save_path: (str) Path without the extension where the expert dataset will be saved
        (ex: 'expert_cartpole' -> creates 'expert_cartpole.npz').
        If not specified, it will not save, and just return the generated expert trajectories.
        This parameter must be specified for image-based environments.
    :param env: (gym.Env) The environment, if not defined then it tries to use the model
        environment.
    :param n_timesteps: (int) Number of training timesteps
    :param n_episodes: (int) Number of trajectories (episodes) to record
    :param image_folder: (str) When using images, folder that will be used to record images.
    :return: (dict) the generated expert trajectories.
    """
    is_model = isinstance(model, BaseRLModel)
    if not is_model and not callable(model):
        raise TypeError("generate_expert_traj: model must be a Stable Baselines model or a callable "
                        "obs -> action, got {}".format(type(model).__name__))
    # Retrieve the environment using the RL model
    if env is None and is_model:
        env = model.get_env()
    if env is None:
        raise ValueError("generate_expert_traj: no environment: you must set the env in the model or pass it "
                         "to the function (env=...)")
    if int(n_episodes) < 1:
        raise ValueError("generate_expert_traj: n_episodes must be >= 1, got {!r}".format(n_episodes))
    n_episodes = int(n_episodes)

    if isinstance(env, str):
        from stable_baselines.common.gym_compat import make_env  # pylint: disable=import-outside-toplevel
        env = cast(Any, make_env(env))
    is_vec_env = isinstance(env, VecEnv) and not isinstance(env, _UnvecWrapper)
    if not isinstance(env, VecEnv):
        env = cast(Any, as_gymnasium_env(env))
    if is_vec_env and env.num_envs > 1:
        warnings.warn("You are using multiple envs, only the data from the first one will be recorded.")

    observation_space = convert_space(env.observation_space)
    action_space = convert_space(env.action_space)
    if not isinstance(observation_space, (spaces.Box, spaces.Discrete)):
        raise ValueError("generate_expert_traj: observation space type not supported: expected {}, got {}"
                         .format(_SUPPORTED, observation_space))
    if not isinstance(action_space, (spaces.Box, spaces.Discrete)):
        raise ValueError("generate_expert_traj: action space type not supported: expected {}, got {}"
                         .format(_SUPPORTED, action_space))

    # Check if we need to record images
    record_images = _is_image_space(observation_space)
    if record_images and save_path is None:
        warnings.warn("Observations are images but no save path was specified, so will save in numpy archive; "
                      "this can lead to higher memory usage.")
        record_images = False

    if record_images:
        image_folder = os.path.join(os.path.dirname(os.fspath(save_path)), image_folder)
        os.makedirs(image_folder, exist_ok=True)
        print("=" * 10)
        print("Images will be recorded to {}/".format(image_folder))
        print("Image shape: {}".format(observation_space.shape))
        print("=" * 10)

    if n_timesteps > 0 and is_model:
        model.learn(n_timesteps)

    actions: Any = []
    observations: Any = []
    rewards: List[float] = []
    episode_returns = np.zeros((n_episodes,))
    episode_starts = [True]

    ep_idx = 0
    idx = 0
    reward_sum = 0.0
    # state and mask for recurrent policies
    state, mask = None, None
    if is_vec_env:
        obs = env.reset()
        mask = [True for _ in range(env.num_envs)]
    else:
        obs, _ = reset_env(env)

    while ep_idx < n_episodes:
        obs_: Any = obs[0] if is_vec_env else obs
        if record_images:
            observations.append(_save_image(obs_, os.path.join(image_folder, str(idx))))
        else:
            observations.append(np.asarray(obs_))

        if is_model:
            action, state = model.predict(obs, state=state, mask=mask)
        else:
            action = model(obs)

        if is_vec_env:
            obs, reward, dones, _ = env.step(action)
            # Use only the first env
            done = bool(dones[0])
            mask = [done for _ in range(env.num_envs)]
            action = np.asarray(action)[0]
            reward = float(np.asarray(reward)[0])
        else:
            obs, reward, terminated, truncated, _ = step_env(env, action)
            done = terminated or truncated
            reward = float(np.asarray(reward).reshape(-1)[0])

        actions.append(np.asarray(action))
        rewards.append(reward)
        episode_starts.append(done)
        reward_sum += reward
        idx += 1
        if done:
            if not is_vec_env:
                obs, _ = reset_env(env)
                # Reset the state in case of a recurrent policy
                state = None
            episode_returns[ep_idx] = reward_sum
            reward_sum = 0.0
            ep_idx += 1

    if record_images:
        observations = np.array(observations)
    elif isinstance(observation_space, spaces.Box):
        observations = np.stack(observations).reshape((-1,) + observation_space.shape) \
            .astype(observation_space.dtype, copy=False)
    else:
        observations = np.array(observations).reshape((-1, 1))

    if isinstance(action_space, spaces.Box):
        actions = np.stack(actions).reshape((-1,) + action_space.shape).astype(np.float32, copy=False)
    else:
        actions = np.array(actions).astype(np.int64).reshape((-1, 1))

    numpy_dict: Dict[str, Any] = {
        "actions": actions,
        "obs": observations,
        "rewards": np.array(rewards, dtype=np.float32),
        "episode_returns": episode_returns,
        "episode_starts": np.array(episode_starts[:-1], dtype=bool),
    }
    assert len(observations) == len(actions) == len(numpy_dict["episode_starts"])

    if getattr(model, "verbose", 1) > 0 or not is_model:
        for key, val in numpy_dict.items():
            print(key, val.shape)

    if save_path is not None:
        np.savez(save_path, **numpy_dict)

    return numpy_dict
