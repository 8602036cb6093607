"""
Train PPO2 on a MuJoCo task (gymnasium's MuJoCo environments; old ``-v2`` ids map to ``-v5``), with
observation and reward normalisation; ``--play`` then shows the trained agent.

    python -m stable_baselines.ppo2.run_mujoco --env Reacher-v2 --num-timesteps 1000000

Under ``mpirun -np N`` every rank steps its own environment (seed offset by 10000 per rank, its own
normalisation statistics) and the ranks train one model data-parallel; only rank 0 logs.
"""
from typing import Optional, Sequence, Tuple

import numpy as np

from stable_baselines import PPO2, logger
from stable_baselines.common.command_line import scripts as cli
from stable_baselines.common.cmd_util import make_mujoco_env, mujoco_arg_parser
from stable_baselines.common.policies import MlpPolicy
from stable_baselines.common.vec_env import DummyVecEnv, VecNormalize


def train(env_id: str, num_timesteps: int, seed: int) -> Tuple[PPO2, VecNormalize]:
    """
    Train PPO2 with the MLP policy on a normalised MuJoCo task; the environment stays open.

    :param env_id: (str) the task id
    :param num_timesteps: (int) the budget
    :param seed: (int) the seed
    :return: (PPO2, VecNormalize) the trained model and its (normalised) environment
    """
    _, model_seed = cli.worker_seeds(seed)  # make_mujoco_env offsets the env's seed by the rank itself
    env = VecNormalize(DummyVecEnv([lambda: make_mujoco_env(env_id, seed)]))
    model = PPO2(policy=MlpPolicy, env=env, n_steps=2048, nminibatches=32, lam=0.95, gamma=0.99, noptepochs=10,
                 ent_coef=0.0, learning_rate=3e-4, cliprange=0.2, seed=model_seed, verbose=1)
    return model.learn(total_timesteps=num_timesteps), env


def play(model: PPO2, env: VecNormalize) -> None:
    """
    Show the trained agent until the process is stopped.

    :param model: (PPO2) the model
    :param env: (VecNormalize) its environment
    """
    logger.log("Running trained model")
    obs = np.zeros((env.num_envs,) + env.observation_space.shape)  # float64, whatever the env's dtype
    obs[:] = env.reset()
    while True:
        obs[:] = env.step(model.step(obs)[0])[0]
        env.render()


def main(argv: Optional[Sequence[str]] = None) -> None:
    """
    Parse the command line, train, and with ``--play`` show the agent.

    :param argv: ([str]) the arguments (None: ``sys.argv``)
    """
    args = cli.parse_and_configure(mujoco_arg_parser(), argv)
    model, env = train(args.env, num_timesteps=args.num_timesteps, seed=args.seed)
    if args.play:
        play(model, env)


if __name__ == '__main__':
    main()
