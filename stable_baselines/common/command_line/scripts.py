"""
What the algorithms' command-line scripts (``python -m stable_baselines.<algo>.run_atari`` and
``run_mujoco`` / ``run_robotics``, the DQN experiments) have in common: their options, the environments they
train on, and the train-then-close (or train-then-save) step. Each script only declares its model and what it
changes.
"""
import argparse
from typing import TYPE_CHECKING, Any, Callable, Mapping, Optional, Sequence, Tuple, TypeVar

import gymnasium

from stable_baselines import logger
from stable_baselines.bench import Monitor
from stable_baselines.common.cmd_util import _monitor_path, atari_arg_parser, make_atari_env
from stable_baselines.common.model.data_parallel import SEED_STRIDE, data_parallel_launch
from stable_baselines.common.misc_util import mpi_rank_or_zero
from stable_baselines.common.vec_env import VecEnv, VecFrameStack

if TYPE_CHECKING:  # only for the annotation: this module is imported by scripts before any model
    from stable_baselines.common.base_class import BaseRLModel

Model = TypeVar("Model", bound="BaseRLModel")

# the original Atari scripts trained 10 % more steps than asked
ATARI_MARGIN = 1.1
N_STACKED_FRAMES = 4


def with_margin(num_timesteps: int) -> int:
    """
    :param num_timesteps: (int) the budget given on the command line
    :return: (int) the budget the original Atari scripts actually trained for
    """
    return int(num_timesteps * ATARI_MARGIN)


def vec_atari_parser(n_envs: int, policies: Optional[Mapping[str, Any]] = None, lr_schedule: bool = False,
                     logdir: bool = False) -> argparse.ArgumentParser:
    """
    The options of a script training on several Atari games at once: those of
    :func:`~stable_baselines.common.cmd_util.atari_arg_parser`, then the optional ones asked for.

    :param n_envs: (int) default of ``--num-env``
    :param policies: ({str: policy class}) the choices of ``--policy`` (default ``cnn``); None: no option
    :param lr_schedule: (bool) add ``--lr_schedule`` ('constant' or 'linear', default 'constant')
    :param logdir: (bool) add ``--logdir`` (the logger's folder, default none)
    :return: (ArgumentParser)
    """
    parser = atari_arg_parser()
    if policies is not None:
        parser.add_argument('--policy', choices=sorted(policies), default='cnn', help='Policy architecture')
    if lr_schedule:
        parser.add_argument('--lr_schedule', choices=['constant', 'linear'], default='constant',
                            help='Learning rate schedule')
    if logdir:
        parser.add_argument('--logdir', help='Directory for logging (default: no files)', default=None)
    parser.add_argument('--num-env', type=int, default=n_envs, help='Number of environments')
    return parser


def parse_and_configure(parser: argparse.ArgumentParser, argv: Optional[Sequence[str]]) -> argparse.Namespace:
    """
    Parse the command line, then configure the logger: stdout, plus files in the ``--logdir`` folder
    when the script has that option, else in ``OPENAI_LOGDIR`` when set. On the ranks other than 0 of a
    data-parallel launch (``mpirun -np N``) the logger writes nothing.

    :param parser: (ArgumentParser) the script's options
    :param argv: ([str]) the arguments (None: ``sys.argv``)
    :return: (argparse.Namespace) the options
    """
    args = parser.parse_args(argv)
    if data_parallel_launch() and mpi_rank_or_zero() > 0:
        logger.configure(format_strs=[])
    else:
        logger.configure(vars(args).get("logdir"))
    return args


def worker_seeds(seed: int) -> Tuple[int, int]:
    """
    The seeds of this MPI rank's environments and of its PPO2 / A2C model: the environments get
    ``seed + 10000 * rank``; so does the model, unless it trains data-parallel (it then adds the offset itself).
    In one process both are ``seed``.

    :param seed: (int) the seed given on the command line
    :return: (int, int) the environments' seed and the model's
    """
    env_seed = seed + SEED_STRIDE * mpi_rank_or_zero()
    return env_seed, seed if data_parallel_launch() else env_seed


def stacked_atari_env(env_id: str, n_envs: int, seed: int, start_index: int = 0) -> VecEnv:
    """
    ``n_envs`` copies of a game with the DeepMind preprocessing, the last 4 frames stacked.

    :param env_id: (str) a ``*NoFrameskip*`` game id
    :param n_envs: (int) the number of copies
    :param seed: (int) the seed of the first copy (the others follow)
    :param start_index: (int) the index of the first copy (names its Monitor file ``<index>.monitor.csv``)
    :return: (VecEnv)
    """
    return VecFrameStack(make_atari_env(env_id, n_envs, seed, start_index=start_index), N_STACKED_FRAMES)


def worker_start_index(n_envs: int) -> int:
    """
    :param n_envs: (int) the environments of every MPI rank
    :return: (int) the index of this rank's first environment (``n_envs * rank``: the ranks' Monitor files differ)
    """
    return n_envs * mpi_rank_or_zero()


def monitored_atari_env(env_id: str, rank: int, wrap: Optional[Callable[[gymnasium.Env], gymnasium.Env]] = None
                        ) -> gymnasium.Env:
    """
    One game (no-op starts, frame skip) under a Monitor writing ``<logger folder>/<rank>.monitor.csv``
    (no file without a logger folder), then wrapped by ``wrap``.

    :param env_id: (str) a ``*NoFrameskip*`` game id
    :param rank: (int) the MPI rank (names the monitor file)
    :param wrap: (function) the preprocessing (default: ``wrap_deepmind`` with its defaults)
    :return: (Gym Environment)
    """
    from stable_baselines.common.atari_wrappers import make_atari, wrap_deepmind  # needs the atari extra

    env = Monitor(make_atari(env_id), _monitor_path(logger.get_dir(), rank))
    return (wrap_deepmind if wrap is None else wrap)(env)


def parse_and_train(parser: argparse.ArgumentParser, train: Callable[..., Any],
                    argv: Optional[Sequence[str]]) -> None:
    """
    The ``main`` of the MPI scripts: parse the command line and call the script's
    ``train(env_id, num_timesteps, seed)`` (the task id, the budget, and the seed of rank 0).

    :param parser: (ArgumentParser) the options (``--env``, ``--num-timesteps``, ``--seed``)
    :param train: (function) the script's ``train``
    :param argv: ([str]) the arguments (None: ``sys.argv``)
    """
    args = parser.parse_args(argv)
    train(args.env, num_timesteps=args.num_timesteps, seed=args.seed)


def learn_on_rank(model_class: Callable[..., Model], policy: Any, env: Any, num_timesteps: int, rank: int,
                  worker_seed: int, root_verbose: int = 1, **hyperparameters: Any) -> Model:
    """
    The training of one MPI rank: ``model_class(policy, env, **hyperparameters)`` with this rank's seed (verbose
    on rank 0 only), trained, then the environment closed.

    :param model_class: (type) the algorithm
    :param policy: (type) the policy class
    :param env: (Gym Environment) this rank's environment
    :param num_timesteps: (int) the training budget
    :param rank: (int) the MPI rank
    :param worker_seed: (int) the seed of this rank
    :param root_verbose: (int) the verbosity of rank 0
    :param hyperparameters: (dict) the other arguments of the model
    :return: (BaseRLModel) the trained model
    """
    def make_model(rank_env: Any) -> Model:
        return model_class(policy, rank_env, **hyperparameters, verbose=root_verbose if rank == 0 else 0,
                           seed=worker_seed)

    return learn_and_close(env, make_model, num_timesteps)


def train_parser(description: str, default_save_path: str) -> argparse.ArgumentParser:
    """
    :param description: (str) the script's description
    :param default_save_path: (str) the model file written when ``--save-path`` is not given
    :return: (ArgumentParser) the options of a script that trains one model and saves it (``--max-timesteps``,
        ``--save-path``, ``--seed``, ``--verbose``)
    """
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument('--max-timesteps', type=int, default=100000, help="Training budget, in steps")
    parser.add_argument('--save-path', default=default_save_path, type=str, help="Where to save the model")
    parser.add_argument('--seed', default=None, type=int, help="Random seed")
    parser.add_argument('--verbose', default=1, type=int, help="Verbosity (0: none, 1: training table)")
    return parser


def learn_and_save(model: Model, args: argparse.Namespace, callback: Any = None) -> Model:
    """
    Train a model for ``args.max_timesteps`` and save it to ``args.save_path`` (saying so).

    :param model: (BaseRLModel) the untrained model
    :param args: (argparse.Namespace) the options of :func:`train_parser`
    :param callback: (callable) the callback of ``learn``
    :return: (BaseRLModel) the trained model
    """
    model.learn(total_timesteps=args.max_timesteps, callback=callback)
    print("Saving model to {}".format(args.save_path))
    model.save(args.save_path)
    return model


def learn_and_close(env: Any, make_model: Callable[[Any], Model], total_timesteps: int) -> Model:
    """
    Build the model on ``env``, train it, and close the environment whatever happens during training.

    :param env: (Gym Environment or VecEnv) the environment
    :param make_model: (function) env -> the untrained model
    :param total_timesteps: (int) the training budget
    :return: (BaseRLModel) the trained model
    """
    model = make_model(env)
    try:
        model.learn(total_timesteps=total_timesteps)
    finally:
        env.close()
    return model
