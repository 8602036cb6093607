"""
Helpers for scripts like run_atari.py: environment factories (vectorized, monitored, seeded) and
the argument parsers of the command-line entry points.
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


def make_vec_env(env_id: Union[str, Type[gymnasium.Env], Callable[..., Any]], n_envs: int = 1,
                 seed: Optional[int] = None, start_index: int = 0, monitor_dir: Optional[str] = None,
                 wrapper_class: Optional[Callable[[gymnasium.Env], gymnasium.Env]] = None,
                 env_kwargs: Optional[Dict[str, Any]] = None, vec_env_cls: Optional[Type[VecEnv]] = None,
                 vec_env_kwargs: Optional[Dict[str, Any]] = None) -> VecEnv:
    """
    Create a wrapped, monitored `VecEnv`.
    By default it uses a `DummyVecEnv` which is usually faster
    than a `SubprocVecEnv`.

    :param env_id: (str or Type[gym.Env]) the environment ID or the environment class
    :param n_envs: (int) the number of environments you wish to have in parallel
    :param seed: (int) the initial seed for the random number generator (environment ``i`` gets ``seed + start_index + i``)
    :param start_index: (int) start rank index
    :param monitor_dir: (str) Path to a folder where the monitor files will be saved.
        If None, no file will be written, however, the env will still be wrapped
        in a Monitor wrapper to provide additional information about training.
    :param wrapper_class: (gym.Wrapper or callable) Additional wrapper to use on the environment.
        This can also be a function with single argument that wraps the environment in many things.
    :param env_kwargs: (dict) Optional keyword argument to pass to the env constructor
    :param vec_env_cls: (Type[VecEnv]) A custom `VecEnv` class constructor. Default: None.
    :param vec_env_kwargs: (dict) Keyword arguments to pass to the `VecEnv` class constructor.
    :return: (VecEnv) The wrapped environment
    """
    if not (isinstance(env_id, str) or callable(env_id)):
        raise TypeError("make_vec_env expected an environment id (str) or an environment class, got {!r}"
                        .format(env_id))
    if not isinstance(n_envs, int) or n_envs < 1:
        raise ValueError("make_vec_env expected n_envs >= 1, got {!r}".format(n_envs))
    env_kwargs = {} if env_kwargs is None else env_kwargs
    vec_env_kwargs = {} if vec_env_kwargs is None else vec_env_kwargs
    if monitor_dir is not None:
        os.makedirs(monitor_dir, exist_ok=True)

    def make_env(rank: int) -> Callable[[], gymnasium.Env]:
        def _init() -> gymnasium.Env:
            if isinstance(env_id, str):
                env = gym_compat.make_env(env_id, **env_kwargs)
            else:
                env = env_id(**env_kwargs)
            env = Monitor(env, filename=_monitor_path(monitor_dir, rank))
            if wrapper_class is not None:
                env = wrapper_class(env)
            return env
        return _init

    if vec_env_cls is None:
        vec_env_cls = DummyVecEnv
    vec_env = vec_env_cls([make_env(start_index + i) for i in range(n_envs)], **vec_env_kwargs)
    if seed is not None:
        # environment i is seeded with seed + start_index + i at its first reset (the original's seed + rank)
        vec_env.seed(seed + start_index)
    return vec_env


def make_atari_env(env_id: str, num_env: int, seed: int, wrapper_kwargs: Optional[Dict[str, Any]] = None,
                   start_index: int = 0, allow_early_resets: bool = True, start_method: Optional[str] = None,
                   use_subprocess: bool = False) -> VecEnv:
    """
    Create a wrapped, monitored VecEnv for Atari.

    :param env_id: (str) the environment ID
    :param num_env: (int) the number of environment you wish to have in subprocesses
    :param seed: (int) the initial seed for RNG
    :param wrapper_kwargs: (dict) the parameters for wrap_deepmind function
    :param start_index: (int) start rank index
    :param allow_early_resets: (bool) allows early reset of the environment
    :param start_method: (str) method used to start the subprocesses.
        See SubprocVecEnv doc for more information
    :param use_subprocess: (bool) Whether to use `SubprocVecEnv` or `DummyVecEnv` when
        `num_env` > 1, `DummyVecEnv` is usually faster. Default: False
    :return: (VecEnv) The atari environment
    """
    from stable_baselines.common.atari_wrappers import make_atari, wrap_deepmind  # needs the atari extra

    wrapper_kwargs = {} if wrapper_kwargs is None else wrapper_kwargs
    log_dir = logger.get_dir()

    def make_env(rank: int) -> Callable[[], gymnasium.Env]:
        def _thunk() -> gymnasium.Env:
            env = make_atari(env_id)
            env = Monitor(env, _monitor_path(log_dir, rank), allow_early_resets=allow_early_resets)
            return wrap_deepmind(env, **wrapper_kwargs)
        return _thunk

    set_global_seeds(seed)
    env_fns = [make_env(i + start_index) for i in range(num_env)]
    if num_env == 1 or not use_subprocess:
        vec_env = DummyVecEnv(env_fns)
    else:
        vec_env = SubprocVecEnv(env_fns, start_method=start_method)
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
    Create a wrapped, monitored gym.Env for MuJoCo.

    :param env_id: (str) the environment ID
    :param seed: (int) the initial seed for RNG
    :param allow_early_resets: (bool) allows early reset of the environment
    :return: (Gym Environment) The mujoco environment
    """
    rank = mpi_rank_or_zero()
    my_seed = seed + 10000 * rank if seed is not None else None
    if my_seed is not None:
        set_global_seeds(my_seed)
    env = _seeded(gym_compat.make_env(env_id), my_seed)
    return Monitor(env, _monitor_path(logger.get_dir(), rank), allow_early_resets=allow_early_resets)


def make_robotics_env(env_id: str, seed: int, rank: int = 0, allow_early_resets: bool = True) -> gymnasium.Env:
    """
    Create a wrapped, monitored gym.Env for MuJoCo.

    :param env_id: (str) the environment ID
    :param seed: (int) the initial seed for RNG
    :param rank: (int) the rank of the environment (for logging)
    :param allow_early_resets: (bool) allows early reset of the environment
    :return: (Gym Environment) The robotic environment
    """
    if seed is not None:
        set_global_seeds(seed)
    env = gym_compat.make_env(env_id)
    keys = ("observation", "desired_goal")
    if not isinstance(env.observation_space, gymnasium.spaces.Dict) or \
            any(key not in env.observation_space.spaces for key in keys):
        raise ValueError("make_robotics_env expects a goal-conditioned environment (a Dict observation space with "
                         "the keys {}), '{}' has {}".format(keys, env_id, env.observation_space))
    env = gymnasium.wrappers.FlattenObservation(gymnasium.wrappers.FilterObservation(env, list(keys)))
    env = _seeded(env, seed)
    filename = _monitor_path(logger.get_dir(), rank)
    return Monitor(env, filename, allow_early_resets=allow_early_resets, info_keywords=("is_success",))


def mpi_worker_setup(seed: int) -> Tuple[int, int]:
    """
    The start of an MPI-launched script (``mpirun -np N python -m ...``): only rank 0 logs (the others
    configure a silent logger), and each rank gets its own seed, ``seed + 10000 * rank``, set globally.
    Without MPI, this is rank 0.

    :param seed: (int) the seed given on the command line
    :return: (int, int) the MPI rank and the seed of this worker
    """
    rank = mpi_rank_or_zero()
    if rank == 0:
        logger.configure()
    else:
        logger.configure(format_strs=[])
    worker_seed = seed + 10000 * rank
    set_global_seeds(worker_seed)
    return rank, worker_seed


def arg_parser() -> argparse.ArgumentParser:
    """
    Create an empty argparse.ArgumentParser.

    :return: (ArgumentParser)
    """
    return argparse.ArgumentParser(formatter_class=argparse.ArgumentDefaultsHelpFormatter)


def atari_arg_parser() -> argparse.ArgumentParser:
    """
    Create an argparse.ArgumentParser for run_atari.py.

    :return: (ArgumentParser) parser {'--env': 'BreakoutNoFrameskip-v4', '--seed': 0, '--num-timesteps': int(1e7)}
    """
    parser = arg_parser()
    parser.add_argument('--env', help='environment ID', default='BreakoutNoFrameskip-v4')
    parser.add_argument('--seed', help='RNG seed', type=int, default=0)
    parser.add_argument('--num-timesteps', type=int, default=int(1e7))
    return parser


def mujoco_arg_parser() -> argparse.ArgumentParser:
    """
    Create an argparse.ArgumentParser for run_mujoco.py.

    :return: (ArgumentParser) parser {'--env': 'Reacher-v2', '--seed': 0, '--num-timesteps': int(1e6), '--play': False}
    """
    parser = arg_parser()
    parser.add_argument('--env', help='environment ID', type=str, default='Reacher-v2')
    parser.add_argument('--seed', help='RNG seed', type=int, default=0)
    parser.add_argument('--num-timesteps', type=int, default=int(1e6))
    parser.add_argument('--play', default=False, action='store_true')
    return parser


def robotics_arg_parser() -> argparse.ArgumentParser:
    """
    Create an argparse.ArgumentParser for run_mujoco.py.

    :return: (ArgumentParser) parser {'--env': 'FetchReach-v0', '--seed': 0, '--num-timesteps': int(1e6)}
    """
    parser = arg_parser()
    parser.add_argument('--env', help='environment ID', type=str, default='FetchReach-v0')
    parser.add_argument('--seed', help='RNG seed', type=int, default=0)
    parser.add_argument('--num-timesteps', type=int, default=int(1e6))
    return parser
