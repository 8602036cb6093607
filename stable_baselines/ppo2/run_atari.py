"""
Train PPO2 on an Atari game (DeepMind preprocessing, 4 stacked frames, 8 environments), with the
hyper-parameters of the PPO paper.

    python -m stable_baselines.ppo2.run_atari --env BreakoutNoFrameskip-v4 --num-timesteps 10000000

Under ``mpirun -np N`` every rank steps its own 8 environments (seeds offset by 10000 per rank) and the ranks
train one model data-parallel; the budget counts the steps of all ranks; only rank 0 logs.
"""
from typing import Optional, Sequence

from stable_baselines import PPO2
from stable_baselines.common.command_line import scripts as cli
from stable_baselines.common.policies import CnnLnLstmPolicy, CnnLstmPolicy, CnnPolicy, MlpPolicy

POLICIES = {'cnn': CnnPolicy, 'lstm': CnnLstmPolicy, 'lnlstm': CnnLnLstmPolicy, 'mlp': MlpPolicy}


def train(env_id: str, num_timesteps: int, seed: int, policy: str, n_envs: int = 8,
          nminibatches: int = 4, n_steps: int = 128) -> PPO2:
    """
    Train PPO2 on ``n_envs`` copies of an Atari game, learning rate and clip range decaying linearly.

    :param env_id: (str) the game id
    :param num_timesteps: (int) the budget
    :param seed: (int) the seed (of rank 0 under mpirun)
    :param policy: (str) a key of ``POLICIES``: 'cnn', 'lstm', 'lnlstm' or 'mlp'
    :param n_envs: (int) the number of environments (of each rank under mpirun)
    :param nminibatches: (int) minibatches per update (recurrent policies: must divide ``n_envs``)
    :param n_steps: (int) steps per environment and update
    :return: (PPO2) the trained model
    """
    env_seed, model_seed = cli.worker_seeds(seed)

    def make_model(env):
        return PPO2(policy=POLICIES[policy], env=env, n_steps=n_steps, nminibatches=nminibatches, lam=0.95,
                    gamma=0.99, noptepochs=4, ent_coef=.01, learning_rate=lambda f: f * 2.5e-4,
                    cliprange=lambda f: f * 0.1, verbose=1, seed=model_seed)

    env = cli.stacked_atari_env(env_id, n_envs, env_seed, cli.worker_start_index(n_envs))
    return cli.learn_and_close(env, make_model, num_timesteps)


def main(argv: Optional[Sequence[str]] = None) -> PPO2:
    """
    Parse the command line and train.

    :param argv: ([str]) the arguments (None: ``sys.argv``)
    :return: (PPO2) the trained model
    """
    args = cli.parse_and_configure(cli.vec_atari_parser(8, POLICIES), argv)
    return train(args.env, num_timesteps=args.num_timesteps, seed=args.seed, policy=args.policy, n_envs=args.num_env)


if __name__ == '__main__':
    main()
