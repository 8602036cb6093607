"""Vectorized environments and their wrappers."""
import warnings
from copy import deepcopy
from typing import Optional

from stable_baselines.common.vec_env.base_vec_env import (AlreadySteppingError, NotSteppingError, VecEnv,
                                                          VecEnvWrapper, CloudpickleWrapper)
from stable_baselines.common.vec_env.dummy_vec_env import DummyVecEnv
from stable_baselines.common.vec_env.subproc_vec_env import SubprocVecEnv, EnvWorkerError
from stable_baselines.common.vec_env.vec_frame_stack import VecFrameStack
from stable_baselines.common.vec_env.vec_normalize import VecNormalize
from stable_baselines.common.vec_env.vec_video_recorder import VecVideoRecorder
from stable_baselines.common.vec_env.vec_check_nan import VecCheckNan


def unwrap_vec_normalize(env) -> Optional[VecNormalize]:
    """
    Find the VecNormalize wrapper in a stack of VecEnv wrappers.

    :param env: (gym.Env or VecEnv) the environment
    :return: (VecNormalize or None) the first VecNormalize found, None if there is none
    """
    env_tmp = env
    while isinstance(env_tmp, VecEnvWrapper):
        if isinstance(env_tmp, VecNormalize):
            return env_tmp
        env_tmp = env_tmp.venv
    return None


def sync_envs_normalization(env, eval_env) -> None:
    """
    Copy the normalization statistics (observations and rewards) of the VecNormalize wrappers of ``env``
    to the corresponding wrappers of ``eval_env`` (useful for evaluation during training).

    :param env: (gym.Env or VecEnv) the training environment
    :param eval_env: (gym.Env or VecEnv) the evaluation environment
    """
    env_tmp, eval_env_tmp = env, eval_env
    while isinstance(env_tmp, VecEnvWrapper):
        if isinstance(env_tmp, VecNormalize):
            if isinstance(eval_env_tmp, VecNormalize):
                eval_env_tmp.obs_rms = deepcopy(env_tmp.obs_rms)
                eval_env_tmp.ret_rms = deepcopy(env_tmp.ret_rms)
            else:
                warnings.warn("sync_envs_normalization: the training env has a VecNormalize wrapper but the "
                              "evaluation env has {} at the same depth; its statistics were not copied"
                              .format(type(eval_env_tmp).__name__))
        env_tmp = env_tmp.venv
        if not isinstance(eval_env_tmp, VecEnvWrapper):
            break
        eval_env_tmp = eval_env_tmp.venv


__all__ = ["AlreadySteppingError", "NotSteppingError", "VecEnv", "VecEnvWrapper", "CloudpickleWrapper",
           "DummyVecEnv", "SubprocVecEnv", "EnvWorkerError", "VecFrameStack", "VecNormalize", "VecVideoRecorder",
           "VecCheckNan", "sync_envs_normalization", "unwrap_vec_normalize"]
