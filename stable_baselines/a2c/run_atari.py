"""
Train A2C on an Atari game (DeepMind preprocessing, 4 stacked frames, 16 environments).

    python -m stable_baselines.a2c.run_atari --env BreakoutNoFrameskip-v4 --num-timesteps 10000000
"""
from typing import Optional, Sequence

from stable_baselines import A2C, logger
from stable_baselines.common.cmd_util import atari_arg_parser, make_atari_env
from stable_baselines.common.policies import CnnLnLstmPolicy, CnnLstmPolicy, CnnPolicy
from stable_baselines.common.vec_env import VecFrameStack

POLICIES = {'cnn': CnnPolicy, 'lstm': CnnLstmPolicy, 'lnlstm': CnnLnLstmPolicy}


def train(env_id: str, num_timesteps: int, seed: int, policy: str, lr_schedule: str, num_env: int) -> A2C:
    """
    Train A2C model for atari environment, for testing purposes

    :param env_id: (str) Environment ID
    :param num_timesteps: (int) The total number of samples
    :param seed: (int) The initial seed for training
    :param policy: (A2CPolicy) The policy model to use ('cnn', 'lstm' or 'lnlstm')
    :param lr_schedule: (str) The type of scheduler for the learning rate update ('linear', 'constant',
        'double_linear_con', 'middle_drop' or 'double_middle_drop')
    :param num_env: (int) The number of environments
    :return: (A2C) the trained model
    """
    env = VecFrameStack(make_atari_env(env_id, num_env, seed), 4)
    model = A2C(POLICIES[policy], env, lr_schedule=lr_schedule, seed=seed)
    try:
        # 10% more steps than asked, as the original script did
        model.learn(total_timesteps=int(num_timesteps * 1.1))
    finally:
        env.close()
    return model


def main(argv: Optional[Sequence[str]] = None) -> None:
    """
    Runs the test
    """
    parser = atari_arg_parser()
    parser.add_argument('--policy', choices=sorted(POLICIES), default='cnn', help='Policy architecture')
    parser.add_argument('--lr_schedule', choices=['constant', 'linear'], default='constant',
                        help='Learning rate schedule')
    parser.add_argument('--num-env', type=int, default=16, help='Number of environments (16 in the original)')
    args = parser.parse_args(argv)
    logger.configure()
    train(args.env, num_timesteps=args.num_timesteps, seed=args.seed, policy=args.policy,
          lr_schedule=args.lr_schedule, num_env=args.num_env)


if __name__ == '__main__':
    main()
