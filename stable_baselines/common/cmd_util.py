"""
Environment factories for training scripts (vectorized, monitored, seeded; Atari, MuJoCo and
goal-conditioned robotics tasks) and the argument parsers of the command-line entry points
(see :mod:`stable_baselines.common.command_line` for what the scripts share beyond that).
"""
import argparse
import os
from typing import Any, Callable, Dict, Optional, Tuple, Type, Union

import gymnasium

from stable_baselines import logger
from stable_baselines.bench import Monitor
from stable_baselines.common import gym_compat
from stable_baselines.common.misc_util import mpi_rank_or_zero, set_global_seeds
from stable_baselines.common.vec_env import DummyVecEnv, SubprocVecEnv, VecEnv


def _monitor_path(folder: Optional[str], rank: int) -> Optional[str]:
    return None if folder is None else os.path.join(folder, str(rank))


def _check_vec_env_request(env_id: Any, n_envs: Any) -> None:
    if not (isinstance(env_id, str) or callable(env_id)):
        raise TypeError("make_vec_env expected an environment id (str) or an environment class, got {!r}"
                        .format(env_id))
    if not isinstance(n_envs, int) or n_envs < 1:
        raise ValueError("make_vec_env expected n_envs >= 1, got {!r}".format(n_envs))


def make_vec_env(env_id: Union[str, Type[gymnasium.Env], Callable[..., Any]], n_envs: int = 1,
                 seed: Optional[int] = None, start_index: int = 0, monitor_dir: Optional[str] = None,
                 wrapper_class: Optional[Callable[[gymnasium.Env], gymnasium.Env]] = None,
                 env_kwargs: Optional[Dict[str, Any]] = None, vec_env_cls: Optional[Type[VecEnv]] = None,
                 vec_env_kwargs: Optional[Dict[str, Any]] = None) -> VecEnv:
    """
    ``n_envs`` copies of an environment, each under a :class:`~stable_baselines.bench.Monitor`
    (then ``wrapper_class``), stepped together by a ``DummyVecEnv`` unless ``vec_env_cls`` says otherwise.

    :param env_id: (str or Type[gym.Env]) a registered id, or a class (any callable) making the environment
    :param n_envs: (int) the number of copies
    :param seed: (int) the initial seed for the random number generator (environment ``i`` gets ``seed + start_index + i``)
    :param start_index: (int) the rank of the first copy (numbers monitor files and seeds)
    :param monitor_dir: (str) folder of the monitor files ``<rank>.monitor.csv``; None writes no file
        (the Monitor still records episodes in the ``info`` dicts)
    :param wrapper_class: (gym.Wrapper or callable) applied to each monitored copy
    :param env_kwargs: (dict) keyword arguments of the environment's constructor
    :param vec_env_cls: (Type[VecEnv]) the vectorized class (None: ``DummyVecEnv``)
    :param vec_env_kwargs: (dict) keyword arguments of ``vec_env_cls``
    :return: (VecEnv) the vectorized environment
    """
    _check_vec_env_request(env_id, n_envs)
    env_kwargs = env_kwargs or {}
    if monitor_dir is not None:
        os.makedirs(monitor_dir, exist_ok=True)

    def build(rank: int) -> gymnasium.Env:
        env = gym_compat.make_env(env_id, **env_kwargs) if isinstance(env_id, str) else env_id(**env_kwargs)
        env = Monitor(env, filename=_monitor_path(monitor_dir, rank))
        return env if wrapper_class is None else wrapper_class(env)

    thunks = [_thunk(build, start_index + offset) for offset in range(n_envs)]
    # a VecEnv class taking the list of environment constructors (DummyVecEnv, SubprocVecEnv, ...)
    vec_class: Callable[..., VecEnv] = vec_env_cls or DummyVecEnv
    vec_env = vec_class(thunks, **(vec_env_kwargs or {}))
    if seed is not None:
        # seed + start_index for the first copy, one more for each next copy (at their first reset)
        vec_env.seed(seed + start_index)
    return vec_env


def _thunk(build: Callable[[int], gymnasium.Env], rank: int) -> Callable[[], gymnasium.Env]:
    return lambda: build(rank)


def make_atari_env(env_id: str, num_env: int, seed: int, wrapper_kwargs: Optional[Dict[str, Any]] = None,
                   start_index: int = 0, allow_early_resets: bool = True, start_method: Optional[str] = None,
                   use_subprocess: bool = False) -> VecEnv:
    """
    ``num_env`` copies of an Atari game, each raw game (no-op starts, frame skip) under a Monitor
    writing into the logger's folder, then preprocessed by ``wrap_deepmind``.

    :param env_id: (str) a ``*NoFrameskip*`` game id
    :param num_env: (int) the number of copies
    :param seed: (int) the global seed, and the seed of the first copy (the others follow)
    :param wrapper_kwargs: (dict) keyword arguments of ``wrap_deepmind``
    :param start_index: (int) the rank of the first copy
    :param allow_early_resets: (bool) let the Monitor accept a reset before an episode ends
    :param start_method: (str) how ``SubprocVecEnv`` starts its processes (see there)
    :param use_subprocess: (bool) one process per copy (``SubprocVecEnv``) when ``num_env`` > 1;
        the default steps them all in this process, usually faster
    :return: (VecEnv) the games
    """
    from stable_baselines.common.atari_wrappers import make_atari, wrap_deepmind  # needs the atari extra

    wrapper_kwargs = wrapper_kwargs or {}
    log_dir = logger.get_dir()

    def build(rank: int) -> gymnasium.Env:
        env = Monitor(make_atari(env_id), _monitor_path(log_dir, rank), allow_early_resets=allow_early_resets)
        return wrap_deepmind(env, **wrapper_kwargs)

    set_global_seeds(seed)
    thunks = [_thunk(build, start_index + offset) for offset in range(num_env)]
    in_process = num_env == 1 or not use_subprocess
    vec_env = DummyVecEnv(thunks) if in_process else SubprocVecEnv(thunks, start_method=start_method)
    vec_env.seed(seed + start_index)
    return vec_env


def _seeded(env: gymnasium.Env, seed: Optional[int]) -> gymnasium.Env:
    # gymnasium seeds an environment through reset(seed=...): done once here, before any Monitor
    if seed is not None:
        env.reset(seed=int(seed))
        env.action_space.seed(int(seed))
    return env


def make_mujoco_env(env_id: str, seed: int, allow_early_resets: bool = True) -> gymnasium.Env:
    """
    A MuJoCo task under a Monitor writing ``<logger folder>/<MPI rank>.monitor.csv``; under MPI each
    rank seeds its copy (and the global generators) with ``seed + 10000 * rank``.

    :param env_id: (str) the task id (old ``-v2`` ids map to gymnasium's versions)
    :param seed: (int) the seed of rank 0 (None: unseeded)
    :param allow_early_resets: (bool) let the Monitor accept a reset before an episode ends
    :return: (Gym Environment) the task
    """
    rank = mpi_rank_or_zero()
    my_seed = seed + 10000 * rank if seed is not None else None
    if my_seed is not None:
        set_global_seeds(my_seed)
    env = _seeded(gym_compat.make_env(env_id), my_seed)
    return Monitor(env, _monitor_path(logger.get_dir(), rank), allow_early_resets=allow_early_resets)


def make_robotics_env(env_id: str, seed: int, rank: int = 0, allow_early_resets: bool = True) -> gymnasium.Env:
    """
    A goal-conditioned task with its ``observation`` and ``desired_goal`` flattened into one vector,
    under a Monitor that also records ``is_success``.

    :param env_id: (str) the task id (a Dict observation space with those two keys)
    :param seed: (int) the seed (None: unseeded)
    :param rank: (int) names the monitor file ``<logger folder>/<rank>.monitor.csv``
    :param allow_early_resets: (bool) let the Monitor accept a reset before an episode ends
    :return: (Gym Environment) the task
    """
    if seed is not None:
        set_global_seeds(seed)
    env = gym_compat.make_env(env_id)
    keys = ("observation", "desired_goal")
    space = env.observation_space
    if not (isinstance(space, gymnasium.spaces.Dict) and all(key in space.spaces for key in keys)):
        raise ValueError("make_robotics_env expects a goal-conditioned environment (a Dict observation space with "
                         "the keys {}), '{}' has {}".format(keys, env_id, env.observation_space))
    env = gymnasium.wrappers.FlattenObservation(gymnasium.wrappers.FilterObservation(env, list(keys)))
    env = _seeded(env, seed)
    return Monitor(env, _monitor_path(logger.get_dir(), rank), allow_early_resets=allow_early_resets,
                   info_keywords=("is_success",))


def mpi_worker_setup(seed: int) -> Tuple[int, int]:
    """
    The start of an MPI-launched script (``mpirun -np N python -m ...``): only rank 0 logs (the others
    configure a silent logger), and each rank gets its own seed, ``seed + 10000 * rank``, set globally.
    Without MPI, this is rank 0.

    :param seed: (int) the seed given on the command line
    :return: (int, int) the MPI rank and the seed of this worker
    """
    rank = mpi_rank_or_zero()
    settings: Dict[str, Any] = {} if rank == 0 else {"format_strs": []}
    logger.configure(**settings)
    worker_seed = seed + 10000 * rank
    set_global_seeds(worker_seed)
    return rank, worker_seed


def arg_parser() -> argparse.ArgumentParser:
    """
    A parser without options that shows each option's default in ``--help``.

    :return: (ArgumentParser)
    """
    return argparse.ArgumentParser(formatter_class=argparse.ArgumentDefaultsHelpFormatter)


def _training_parser(default_env: str, default_timesteps: float) -> argparse.ArgumentParser:
    """The options every script has: ``--env``, ``--seed`` (default 0) and ``--num-timesteps``."""
    parser = arg_parser()
    parser.add_argument('--env', type=str, default=default_env, help='environment ID')
    parser.add_argument('--seed', type=int, default=0, help='RNG seed')
    parser.add_argument('--num-timesteps', type=int, default=int(default_timesteps))
    return parser


def atari_arg_parser() -> argparse.ArgumentParser:
    """
    The options of the ``run_atari`` scripts.

    :return: (ArgumentParser) parser {'--env': 'BreakoutNoFrameskip-v4', '--seed': 0, '--num-timesteps': int(1e7)}
    """
    return _training_parser('BreakoutNoFrameskip-v4', 1e7)


def mujoco_arg_parser() -> argparse.ArgumentParser:
    """
    The options of the ``run_mujoco`` scripts (``--play`` shows the trained agent where supported).

    :return: (ArgumentParser) parser {'--env': 'Reacher-v2', '--seed': 0, '--num-timesteps': int(1e6), '--play': False}
    """
    parser = _training_parser('Reacher-v2', 1e6)
    parser.add_argument('--play', action='store_true', default=False)
    return parser


def robotics_arg_parser() -> argparse.ArgumentParser:
    """
    The options of the ``run_robotics`` script.

    :return: (ArgumentParser) parser {'--env': 'FetchReach-v0', '--seed': 0, '--num-timesteps': int(1e6)}
    """
    return _training_parser('FetchReach-v0', 1e6)
