"""
Train PPO2 on an Atari game (DeepMind preprocessing, 4 stacked frames, 8 environments), with the
hyper-parameters of the PPO paper.

    python -m stable_baselines.ppo2.run_atari --env BreakoutNoFrameskip-v4 --num-timesteps 10000000
"""
from typing import Optional, Sequence

from stable_baselines import PPO2, logger
from stable_baselines.common.cmd_util import atari_arg_parser, make_atari_env
from stable_baselines.common.policies import CnnLnLstmPolicy, CnnLstmPolicy, CnnPolicy, MlpPolicy
from stable_baselines.common.vec_env import VecFrameStack

POLICIES = {'cnn': CnnPolicy, 'lstm': CnnLstmPolicy, 'lnlstm': CnnLnLstmPolicy, 'mlp': MlpPolicy}


def train(env_id: str, num_timesteps: int, seed: int, policy: str, n_envs: int = 8,
          nminibatches: int = 4, n_steps: int = 128) -> PPO2:
    """
    Train PPO2 model for atari environment, for testing purposes

    :param env_id: (str) the environment id string
    :param num_timesteps: (int) the number of timesteps to run
    :param seed: (int) Used to seed the random generator.
    :param policy: (Object) The policy model to use ('cnn', 'lstm', 'lnlstm' or 'mlp')
    :param n_envs: (int) Number of parallel environments
    :param nminibatches: (int) Number of training minibatches per update. For recurrent policies,
        the number of environments run in parallel should be a multiple of nminibatches.
    :param n_steps: (int) The number of steps to run for each environment per update
        (i.e. batch size is n_steps * n_env where n_env is number of environment copies running in parallel)
    :return: (PPO2) the trained model
    """
    env = VecFrameStack(make_atari_env(env_id, n_envs, seed), 4)
    model = PPO2(policy=POLICIES[policy], env=env, n_steps=n_steps, nminibatches=nminibatches, lam=0.95,
                 gamma=0.99, noptepochs=4, ent_coef=.01, learning_rate=lambda f: f * 2.5e-4,
                 cliprange=lambda f: f * 0.1, verbose=1, seed=seed)
    try:
        model.learn(total_timesteps=num_timesteps)
    finally:
        env.close()
    return model


def main(argv: Optional[Sequence[str]] = None) -> None:
    """
    Runs the test
    """
    parser = atari_arg_parser()
    parser.add_argument('--policy', help='Policy architecture', choices=sorted(POLICIES), default='cnn')
    parser.add_argument('--num-env', type=int, default=8, help='Number of environments')
    args = parser.parse_args(argv)
    logger.configure()
    train(args.env, num_timesteps=args.num_timesteps, seed=args.seed, policy=args.policy, n_envs=args.num_env)


if __name__ == '__main__':
    main()
