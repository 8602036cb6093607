"""
Re-create the expert datasets bundled in stable_baselines/gail/dataset/ (expert_cartpole.npz and
expert_pendulum.npz), with agents trained by this library:

* CartPole-v1: PPO2, rl-baselines-zoo hyper-parameters (8 envs, n_steps 32, 1e5 steps), seed 0;
  20 episodes recorded with the deterministic policy.
* Pendulum-v1: SAC with the zoo settings of benchmarks/sac_pendulum.py, seed 0, 40 000 steps;
  20 episodes recorded with the deterministic policy.

Recording goes through ``generate_expert_traj`` with a callable expert
(``lambda obs: model.predict(obs, deterministic=True)[0]``) on a fresh, seeded environment.
The script prints the expert's training time, the recorded returns and the file sizes.

    python benchmarks/make_expert_datasets.py                 # both, into stable_baselines/gail/dataset/
    python benchmarks/make_expert_datasets.py --which cartpole --out-dir /tmp/experts
"""
import argparse
import os
import time

import numpy as np

from stable_baselines import PPO2, SAC
from stable_baselines.common.gym_compat import make_env
from stable_baselines.common.vec_env import DummyVecEnv
from stable_baselines.gail import generate_expert_traj

DEFAULT_OUT = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                           "stable_baselines", "gail", "dataset")


def linear(initial_value):
    """The zoo's linear schedule (progress goes from 1 to 0)."""
    return lambda progress: progress * initial_value


def train_cartpole_expert(seed: int, timesteps: int = 100000) -> PPO2:
    env = DummyVecEnv([lambda: make_env("CartPole-v1") for _ in range(8)])
    model = PPO2("MlpPolicy", env, n_steps=32, nminibatches=1, lam=0.8, gamma=0.98, noptepochs=20, ent_coef=0.0,
                 learning_rate=linear(1e-3), cliprange=linear(0.2), seed=seed, n_cpu_tf_sess=1)
    return model.learn(timesteps)


def train_pendulum_expert(seed: int, timesteps: int = 40000) -> SAC:
    model = SAC("MlpPolicy", make_env("Pendulum-v1"), ent_coef=0.2, learning_rate=3e-3, buffer_size=50000,
                batch_size=64, learning_starts=100, train_freq=1, gradient_steps=1, seed=seed, n_cpu_tf_sess=1)
    return model.learn(timesteps)


def record(model, env_id: str, save_path: str, n_episodes: int, seed: int) -> dict:
    env = make_env(env_id)
    env.reset(seed=seed)
    env.action_space.seed(seed)
    return generate_expert_traj(lambda obs: model.predict(obs, deterministic=True)[0], save_path, env,
                                n_episodes=n_episodes)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--which", choices=["cartpole", "pendulum", "all"], default="all")
    parser.add_argument("--out-dir", default=DEFAULT_OUT)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--n-episodes", type=int, default=20)
    parser.add_argument("--pendulum-timesteps", type=int, default=40000)
    args = parser.parse_args()
    os.makedirs(args.out_dir, exist_ok=True)
    jobs = []
    if args.which in ("cartpole", "all"):
        jobs.append(("CartPole-v1", "expert_cartpole", lambda: train_cartpole_expert(args.seed)))
    if args.which in ("pendulum", "all"):
        jobs.append(("Pendulum-v1", "expert_pendulum",
                     lambda: train_pendulum_expert(args.seed, args.pendulum_timesteps)))
    for env_id, name, train in jobs:
        start = time.time()
        model = train()
        wall = time.time() - start
        save_path = os.path.join(args.out_dir, name)
        traj = record(model, env_id, save_path, args.n_episodes, seed=1000 + args.seed)
        returns = traj["episode_returns"]
        print("{}: expert trained in {:.1f} s; {} episodes, {} transitions, return {:.1f} +/- {:.1f} "
              "(min {:.1f}); {} ({:.0f} kB)".format(env_id, wall, len(returns), len(traj["obs"]), np.mean(returns),
                                                    np.std(returns), np.min(returns), save_path + ".npz",
                                                    os.path.getsize(save_path + ".npz") / 1024), flush=True)


if __name__ == "__main__":
    main()
