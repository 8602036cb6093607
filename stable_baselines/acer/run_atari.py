"""
Train ACER on an Atari game (DeepMind preprocessing, 4 stacked frames, 16 environments).

    python -m stable_baselines.acer.run_atari --env BreakoutNoFrameskip-v4 --num-timesteps 10000000
"""
from typing import Optional, Sequence

from stable_baselines import ACER
from stable_baselines.common.command_line import scripts as cli
from stable_baselines.common.policies import CnnLstmPolicy, CnnPolicy

POLICIES = {'cnn': CnnPolicy, 'lstm': CnnLstmPolicy}


def train(env_id: str, num_timesteps: int, seed: int, policy: str, lr_schedule: str, num_cpu: int) -> ACER:
    """
    Train ACER (replay buffer of 5000 steps) on ``num_cpu`` copies of an Atari game.

    :param env_id: (str) the game id
    :param num_timesteps: (int) the budget (10 % more is trained, as in the original script)
    :param seed: (int) the seed
    :param policy: (str) a key of ``POLICIES``: 'cnn' or 'lstm'
    :param lr_schedule: (str) the learning-rate schedule ('constant', 'linear', 'double_linear_con',
        'middle_drop' or 'double_middle_drop')
    :param num_cpu: (int) the number of environments
    :return: (ACER) the trained model
    """
    return cli.learn_and_close(
        cli.stacked_atari_env(env_id, num_cpu, seed),
        lambda env: ACER(POLICIES[policy], env, lr_schedule=lr_schedule, buffer_size=5000, seed=seed),
        cli.with_margin(num_timesteps))


def main(argv: Optional[Sequence[str]] = None) -> None:
    """
    Parse the command line and train.

    :param argv: ([str]) the arguments (None: ``sys.argv``)
    """
    args = cli.parse_and_configure(cli.vec_atari_parser(16, POLICIES, lr_schedule=True, logdir=True), argv)
    train(args.env, num_timesteps=args.num_timesteps, seed=args.seed, policy=args.policy,
          lr_schedule=args.lr_schedule, num_cpu=args.num_env)


if __name__ == '__main__':
    main()
