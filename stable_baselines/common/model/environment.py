"""
How a model holds its environment: checking a new env against the model's spaces, and shaping it the way the
algorithm steps it (a VecEnv for the vectorised algorithms, a single env for the others).
"""
from typing import Any, Optional, Tuple

import gymnasium
from gymnasium import spaces

from stable_baselines.bench.monitor import Monitor
from stable_baselines.common.gym_compat import make_env, spaces_match
from stable_baselines.common.structured_obs import (PackedNormalizer, PackedObservations, PackedSingleEnv,
                                                    is_nested_space, is_structured_space)
from stable_baselines.common.vec_env import DummyVecEnv, VecEnv, VecNormalize, unwrap_vec_normalize
from stable_baselines.common.vec_env.unvec_wrapper import _UnvecWrapper


def check_spaces_match(expected: spaces.Space, given: spaces.Space, what: str) -> None:
    """
    Raise a ValueError naming both spaces when ``given`` cannot stand in for ``expected``: another space type,
    shape, kind of dtype, ``n`` or ``nvec`` (bounds may differ, as in the original library).

    :param expected: (gymnasium.spaces.Space) the space the model was built for
    :param given: (gymnasium.spaces.Space) the space of the new environment
    :param what: (str) 'observation' or 'action'
    """
    if not spaces_match(expected, given, dtype_kind_only=True):
        raise ValueError("The {} space of the environment does not match the model's: expected {}, got {}"
                         .format(what, expected, given))


def has_monitor(env: Any) -> bool:
    """
    :param env: (gymnasium.Env) an environment, maybe wrapped
    :return: (bool) whether a :class:`~stable_baselines.bench.monitor.Monitor` is somewhere in its wrapper chain
    """
    while env is not None:
        if isinstance(env, Monitor):
            return True
        env = env.env if isinstance(env, gymnasium.Wrapper) else None
    return False


def with_episode_statistics(env: Any) -> Any:
    """
    The environment as a model steps it inside the VecEnv it builds: wrapped in a
    :class:`~stable_baselines.bench.monitor.Monitor` that writes no file, unless it already has one, so that
    ``info['episode']`` reaches the logger (``ep_reward_mean`` and ``ep_len_mean``).

    :param env: (gymnasium.Env) the environment
    :return: (gymnasium.Env) ``env`` itself, or a Monitor around it
    """
    return env if has_monitor(env) else Monitor(env, filename=None)


def vec_env_from_id(env_id: str) -> DummyVecEnv:
    """
    :param env_id: (str) a registered environment id
    :return: (DummyVecEnv) one environment made from the id, with episode statistics (see
        :func:`with_episode_statistics`)
    """
    return DummyVecEnv([lambda: with_episode_statistics(make_env(env_id))])


def env_from_id(env_id: str, vectorized: bool) -> Any:
    """
    :param env_id: (str) a registered environment id
    :param vectorized: (bool) whether the algorithm steps a VecEnv
    :return: (gymnasium.Env or DummyVecEnv) the environment made from the id, with episode statistics
    """
    return vec_env_from_id(env_id) if vectorized else with_episode_statistics(make_env(env_id))


def fit_env_to_model(env: Any, requires_vec_env: bool, verbose: int = 0) -> Tuple[Any, int, bool]:
    """
    Shape an environment (already a gymnasium env or a VecEnv) the way the model steps it. A single environment
    that a vectorised algorithm puts in a DummyVecEnv gets episode statistics on the way (see
    :func:`with_episode_statistics`); a VecEnv, and the environment of an algorithm that steps it directly, stay as
    they are.

    :param env: (gymnasium.Env or VecEnv) the environment
    :param requires_vec_env: (bool) whether the algorithm steps a VecEnv
    :param verbose: (int) 1 or more: say when a single env gets wrapped in a DummyVecEnv
    :return: (gymnasium.Env or VecEnv, int, bool) the environment to keep, its number of envs, and whether the
        model must hand actions to it as a batch of one (a one-env VecEnv behind :class:`_UnvecWrapper`)
    """
    if is_structured_space(env.observation_space):
        env = _packed_env(env, monitored=requires_vec_env)
    if requires_vec_env:
        if isinstance(env, VecEnv):
            return env, env.num_envs, False
        if verbose >= 1:
            print("Wrapping the env in a DummyVecEnv.")
        monitored = with_episode_statistics(env)
        return DummyVecEnv([lambda: monitored]), 1, False
    if not isinstance(env, VecEnv):
        return env, 1, False
    if env.num_envs != 1:
        raise ValueError("Error: the model requires a non vectorized environment or a single vectorized "
                         "environment, got a VecEnv with {} environments.".format(env.num_envs))
    return _UnvecWrapper(env), 1, True


def _packed_env(env: Any, monitored: bool) -> PackedObservations:
    """
    :param env: (gymnasium.Env or VecEnv) an environment with Dict or Tuple observations
    :param monitored: (bool) give a single env episode statistics (as a vectorised algorithm does)
    :return: (PackedObservations) it as a VecEnv of packed observations (a single env in a DummyVecEnv first)
    """
    if isinstance(env, VecEnv):
        return PackedObservations(env)
    single = with_episode_statistics(env) if monitored else env
    if is_nested_space(env.observation_space):
        packing = PackedSingleEnv(single)
        return PackedObservations(DummyVecEnv([lambda: packing]), single_env=env, prepacked=True)
    return PackedObservations(DummyVecEnv([lambda: single]), single_env=env)


def user_env(env: Any) -> Any:
    """
    :param env: (gymnasium.Env or VecEnv) the environment a model keeps (see :func:`fit_env_to_model`)
    :return: (gymnasium.Env or VecEnv) the environment as the user gave it: without the packing of structured
        observations the model added
    """
    inner = env.venv if isinstance(env, _UnvecWrapper) else env
    if not isinstance(inner, PackedObservations):
        return env
    if inner.single_env is not None and isinstance(env, _UnvecWrapper):
        return inner.single_env
    return inner.venv


def model_vec_normalize(env: Any) -> Any:
    """
    :param env: (gymnasium.Env or VecEnv) the environment a model keeps
    :return: (VecNormalize, PackedNormalizer or None) the VecNormalize inside it, seen with packed observations
        when the model packs structured ones
    """
    found = unwrap_vec_normalize(env)
    inner = env.venv if isinstance(env, _UnvecWrapper) else env
    if found is not None and isinstance(inner, PackedObservations):
        return PackedNormalizer(found, inner.structured_space)
    return found


def user_vec_normalize(found: Any) -> Optional[VecNormalize]:
    """
    :param found: (VecNormalize, PackedNormalizer or None) what :func:`model_vec_normalize` returned
    :return: (VecNormalize or None) the user's VecNormalize itself
    """
    return found.vec_normalize if isinstance(found, PackedNormalizer) else found
