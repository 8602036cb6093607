"""
Train A2C on an Atari game (DeepMind preprocessing, 4 stacked frames, 16 environments).

    python -m stable_baselines.a2c.run_atari --env BreakoutNoFrameskip-v4 --num-timesteps 10000000

Under ``mpirun -np N`` every rank steps its own environments (seeds offset by 10000 per rank) and the ranks
train one model data-parallel; the budget counts the steps of all ranks; only rank 0 logs.
"""
from typing import Optional, Sequence

from stable_baselines import A2C
from stable_baselines.common.command_line import scripts as cli
from stable_baselines.common.policies import CnnLnLstmPolicy, CnnLstmPolicy, CnnPolicy

POLICIES = {'cnn': CnnPolicy, 'lstm': CnnLstmPolicy, 'lnlstm': CnnLnLstmPolicy}


def train(env_id: str, num_timesteps: int, seed: int, policy: str, lr_schedule: str, num_env: int) -> A2C:
    """
    Train A2C on ``num_env`` copies of an Atari game.

    :param env_id: (str) the game id
    :param num_timesteps: (int) the budget (10 % more is trained, as in the original script)
    :param seed: (int) the seed (of rank 0 under mpirun)
    :param policy: (str) a key of ``POLICIES``: 'cnn', 'lstm' or 'lnlstm'
    :param lr_schedule: (str) the learning-rate schedule ('constant', 'linear', 'double_linear_con',
        'middle_drop' or 'double_middle_drop')
    :param num_env: (int) the number of environments
    :return: (A2C) the trained model
    """
    env_seed, model_seed = cli.worker_seeds(seed)
    return cli.learn_and_close(
        cli.stacked_atari_env(env_id, num_env, env_seed, cli.worker_start_index(num_env)),
        lambda env: A2C(POLICIES[policy], env, lr_schedule=lr_schedule, seed=model_seed),
        cli.with_margin(num_timesteps))


def main(argv: Optional[Sequence[str]] = None) -> A2C:
    """
    Parse the command line and train.

    :param argv: ([str]) the arguments (None: ``sys.argv``)
    :return: (A2C) the trained model
    """
    args = cli.parse_and_configure(cli.vec_atari_parser(16, POLICIES, lr_schedule=True), argv)
    return train(args.env, num_timesteps=args.num_timesteps, seed=args.seed, policy=args.policy,
          lr_schedule=args.lr_schedule, num_env=args.num_env)


if __name__ == '__main__':
    main()
