"""
Train ACER on an Atari game (DeepMind preprocessing, 4 stacked frames, 16 environments).

    python -m stable_baselines.acer.run_atari --env BreakoutNoFrameskip-v4 --num-timesteps 10000000
"""
from typing import Optional, Sequence

from stable_baselines import ACER, logger
from stable_baselines.common.cmd_util import atari_arg_parser, make_atari_env
from stable_baselines.common.policies import CnnLstmPolicy, CnnPolicy
from stable_baselines.common.vec_env import VecFrameStack

POLICIES = {'cnn': CnnPolicy, 'lstm': CnnLstmPolicy}


def train(env_id: str, num_timesteps: int, seed: int, policy: str, lr_schedule: str, num_cpu: int) -> ACER:
    """
    train an ACER model on atari

    :param env_id: (str) Environment ID
    :param num_timesteps: (int) The total number of samples
    :param seed: (int) The initial seed for training
    :param policy: (A2CPolicy) The policy model to use ('cnn' or 'lstm')
    :param lr_schedule: (str) The type of scheduler for the learning rate update ('linear', 'constant',
        'double_linear_con', 'middle_drop' or 'double_middle_drop')
    :param num_cpu: (int) The number of environments
    :return: (ACER) the trained model
    """
    env = VecFrameStack(make_atari_env(env_id, num_cpu, seed), 4)
    model = ACER(POLICIES[policy], env, lr_schedule=lr_schedule, buffer_size=5000, seed=seed)
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
    parser.add_argument('--policy', choices=sorted(POLICIES), default='cnn', help='Policy architecture')
    parser.add_argument('--lr_schedule', choices=['constant', 'linear'], default='constant',
                        help='Learning rate schedule')
    parser.add_argument('--logdir', help='Directory for logging (default: no files)', default=None)
    parser.add_argument('--num-env', type=int, default=16, help='Number of environments (16 in the original)')
    args = parser.parse_args(argv)
    logger.configure(args.logdir)
    train(args.env, num_timesteps=args.num_timesteps, seed=args.seed, policy=args.policy,
          lr_schedule=args.lr_schedule, num_cpu=args.num_env)


if __name__ == '__main__':
    main()
