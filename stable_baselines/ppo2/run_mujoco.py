"""
Train PPO2 on a MuJoCo task (gymnasium's MuJoCo environments; old ``-v2`` ids map to ``-v5``), with
observation and reward normalisation; ``--play`` then shows the trained agent.

    python -m stable_baselines.ppo2.run_mujoco --env Reacher-v2 --num-timesteps 1000000
"""
from typing import Optional, Sequence

import numpy as np

from stable_baselines import PPO2, logger
from stable_baselines.common.cmd_util import make_mujoco_env, mujoco_arg_parser
from stable_baselines.common.policies import MlpPolicy
from stable_baselines.common.vec_env import DummyVecEnv, VecNormalize


def train(env_id: str, num_timesteps: int, seed: int):
    """
    Train PPO2 model for Mujoco environment, for testing purposes

    :param env_id: (str) the environment id string
    :param num_timesteps: (int) the number of timesteps to run
    :param seed: (int) Used to seed the random generator.
    :return: (PPO2, VecNormalize) the trained model and its (normalised) environment
    """
    env = VecNormalize(DummyVecEnv([lambda: make_mujoco_env(env_id, seed)]))
    model = PPO2(policy=MlpPolicy, env=env, n_steps=2048, nminibatches=32, lam=0.95, gamma=0.99, noptepochs=10,
                 ent_coef=0.0, learning_rate=3e-4, cliprange=0.2, seed=seed, verbose=1)
    model.learn(total_timesteps=num_timesteps)
    return model, env


def main(argv: Optional[Sequence[str]] = None) -> None:
    """
    Runs the test
    """
    args = mujoco_arg_parser().parse_args(argv)
    logger.configure()
    model, env = train(args.env, num_timesteps=args.num_timesteps, seed=args.seed)

    if args.play:
        logger.log("Running trained model")
        obs = np.zeros((env.num_envs,) + env.observation_space.shape)
        obs[:] = env.reset()
        while True:
            actions = model.step(obs)[0]
            obs[:] = env.step(actions)[0]
            env.render()


if __name__ == '__main__':
    main()
