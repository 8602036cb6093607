"""
Train PPO1 on a MuJoCo task (gymnasium's MuJoCo environments; old ``-v2`` ids map to ``-v5``),
one environment per MPI rank:

    mpirun -np 4 python -m stable_baselines.ppo1.run_mujoco --env Hopper-v2
"""
from typing import Optional, Sequence

from stable_baselines import PPO1
from stable_baselines.common.command_line import scripts as cli
from stable_baselines.common.cmd_util import make_mujoco_env, mpi_worker_setup, mujoco_arg_parser
from stable_baselines.common.policies import MlpPolicy


def train(env_id: str, num_timesteps: int, seed: int) -> PPO1:
    """
    Train PPO1 with the MLP policy on this rank's copy of a MuJoCo task. The arguments: those of
    :func:`~stable_baselines.common.command_line.scripts.parse_and_train`.
    """
    rank, worker_seed = mpi_worker_setup(seed)
    return cli.learn_on_rank(PPO1, MlpPolicy, make_mujoco_env(env_id, seed), num_timesteps, rank, worker_seed,
                             timesteps_per_actorbatch=2048, clip_param=0.2, entcoeff=0.0, optim_epochs=10,
                             optim_stepsize=3e-4, optim_batchsize=64, gamma=0.99, lam=0.95, schedule='linear')


def main(argv: Optional[Sequence[str]] = None) -> None:
    """Parse the command line (``argv``; None: ``sys.argv``) and train."""
    cli.parse_and_train(mujoco_arg_parser(), train, argv)


if __name__ == '__main__':
    main()
