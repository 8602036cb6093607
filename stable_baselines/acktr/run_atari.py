"""
Train ACKTR on an Atari game (DeepMind preprocessing, 4 stacked frames, 32 environments).

    python -m stable_baselines.acktr.run_atari --env BreakoutNoFrameskip-v4 --num-timesteps 10000000
"""
from typing import Optional, Sequence

from stable_baselines import ACKTR, logger
from stable_baselines.common.cmd_util import atari_arg_parser, make_atari_env
from stable_baselines.common.policies import CnnPolicy
from stable_baselines.common.vec_env import VecFrameStack


def train(env_id: str, num_timesteps: int, seed: int, num_cpu: int) -> ACKTR:
    """
    train an ACKTR model on atari

    :param env_id: (str) Environment ID
    :param num_timesteps: (int) The total number of samples
    :param seed: (int) The initial seed for training
    :param num_cpu: (int) The number of environments
    :return: (ACKTR) the trained model
    """
    env = VecFrameStack(make_atari_env(env_id, num_cpu, seed), 4)
    model = ACKTR(CnnPolicy, env, seed=seed)
    try:
        model.learn(total_timesteps=int(num_timesteps * 1.1))
    finally:
        env.close()
    return model


def main(argv: Optional[Sequence[str]] = None) -> None:
    """
    Runs the test
    """
    parser = atari_arg_parser()
    parser.add_argument('--num-env', type=int, default=32, help='Number of environments (32 in the original)')
    args = parser.parse_args(argv)
    logger.configure()
    train(args.env, num_timesteps=args.num_timesteps, seed=args.seed, num_cpu=args.num_env)


if __name__ == '__main__':
    main()
