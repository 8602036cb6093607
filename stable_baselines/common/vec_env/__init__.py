"""Vectorized environments and their wrappers."""
import warnings
from copy import deepcopy
from typing import Any, Optional, Tuple

from stable_baselines.common.vec_env.base_vec_env import (AlreadySteppingError, NotSteppingError, VecEnv,
                                                          VecEnvWrapper, CloudpickleWrapper, env_has_attr)
from stable_baselines.common.vec_env.dummy_vec_env import DummyVecEnv
from stable_baselines.common.vec_env.subproc_vec_env import SubprocVecEnv, EnvWorkerError
from stable_baselines.common.vec_env.vec_frame_stack import VecFrameStack
from stable_baselines.common.vec_env.vec_normalize import VecNormalize
from stable_baselines.common.vec_env.vec_video_recorder import VecVideoRecorder
from stable_baselines.common.vec_env.vec_check_nan import VecCheckNan
from stable_baselines.common.vec_env.vec_monitor import VecMonitor
from stable_baselines.common.vec_env.vec_extract_dict_obs import VecExtractDictObs
from stable_baselines.common.vec_env.vec_transpose import VecTransposeImage
from stable_baselines.common.vec_env.envpool_vec_env import EnvPoolVecEnv  # envpool itself is imported on use
from stable_baselines.common.vec_env.unvec_wrapper import user_vec_env


def unwrap_vec_normalize(env: Any) -> Optional[VecNormalize]:
    """
    :param env: (gym.Env or VecEnv) an environment, possibly a stack of VecEnv wrappers
    :return: (VecNormalize or None) the outermost VecNormalize of the stack, None if it has none
    """
    layer = env
    while isinstance(layer, VecEnvWrapper) and not isinstance(layer, VecNormalize):
        layer = layer.venv
    return layer if isinstance(layer, VecNormalize) else None


def _copy_statistics(source: VecNormalize, target: Any) -> None:
    if isinstance(target, VecNormalize):
        target.obs_rms = deepcopy(source.obs_rms)
        target.ret_rms = deepcopy(source.ret_rms)
    else:
        warnings.warn("sync_envs_normalization: the training env has a VecNormalize wrapper but the "
                      "evaluation env has {} at the same depth; its statistics were not copied"
                      .format(type(target).__name__))


def sync_envs_normalization(env: Any, eval_env: Any) -> None:
    """
    Give each VecNormalize of ``eval_env`` the statistics (observations and rewards) of the VecNormalize found
    at the same depth of ``env``, e.g. before evaluating a policy during training.

    :param env: (gym.Env or VecEnv) the environment the model trains on
    :param eval_env: (gym.Env or VecEnv) the environment it is evaluated on
    """
    # the envs as the user gave them: a single-env algorithm sees its one-env VecEnv through a view of one env
    training, evaluation = user_vec_env(env), user_vec_env(eval_env)
    while isinstance(training, VecEnvWrapper):
        if isinstance(training, VecNormalize):
            _copy_statistics(training, evaluation)
        if not isinstance(evaluation, VecEnvWrapper):
            break
        training, evaluation = training.venv, evaluation.venv


def vec_wrapper_types(env: Any) -> Tuple[type, ...]:
    """
    :param env: (gym.Env or VecEnv) an environment as a model or a user holds it
    :return: ((type, ...)) the classes of its VecEnv wrappers from the outside in (VecNormalize, VecFrameStack, ...):
        what changes the observations the policy sees. A single env, a DummyVecEnv and a SubprocVecEnv have none;
        the one-env view of a single-env algorithm is looked through.
    """
    found = []
    layer = user_vec_env(env)
    while isinstance(layer, VecEnvWrapper):
        found.append(type(layer))
        layer = user_vec_env(layer.venv)
    return tuple(found)


__all__ = ["AlreadySteppingError", "NotSteppingError", "VecEnv", "VecEnvWrapper", "CloudpickleWrapper",
           "DummyVecEnv", "SubprocVecEnv", "EnvWorkerError", "VecFrameStack", "VecNormalize", "VecVideoRecorder",
           "VecCheckNan", "VecMonitor", "VecExtractDictObs", "VecTransposeImage", "EnvPoolVecEnv", "sync_envs_normalization",
           "unwrap_vec_normalize", "env_has_attr", "vec_wrapper_types"]
