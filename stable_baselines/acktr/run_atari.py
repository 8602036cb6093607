"""
Train ACKTR on an Atari game (DeepMind preprocessing, 4 stacked frames, 32 environments).

    python -m stable_baselines.acktr.run_atari --env BreakoutNoFrameskip-v4 --num-timesteps 10000000
"""
from typing import Optional, Sequence

from stable_baselines import ACKTR
from stable_baselines.common.command_line import scripts as cli
from stable_baselines.common.policies import CnnPolicy


def train(env_id: str, num_timesteps: int, seed: int, num_cpu: int) -> ACKTR:
    """
    Train ACKTR with the CNN policy on ``num_cpu`` copies of an Atari game.

    :param env_id: (str) the game id
    :param num_timesteps: (int) the budget (10 % more is trained, as in the original script)
    :param seed: (int) the seed
    :param num_cpu: (int) the number of environments
    :return: (ACKTR) the trained model
    """
    return cli.learn_and_close(cli.stacked_atari_env(env_id, num_cpu, seed),
                               lambda env: ACKTR(CnnPolicy, env, seed=seed), cli.with_margin(num_timesteps))


def main(argv: Optional[Sequence[str]] = None) -> None:
    """
    Parse the command line and train.

    :param argv: ([str]) the arguments (None: ``sys.argv``)
    """
    args = cli.parse_and_configure(cli.vec_atari_parser(32), argv)
    train(args.env, num_timesteps=args.num_timesteps, seed=args.seed, num_cpu=args.num_env)


if __name__ == '__main__':
    main()
