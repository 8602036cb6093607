"""
Train ACER on CartPole-v1 with the rl-baselines-zoo hyper-parameters and report the deterministic
score, steps/s and wall time.

rl-baselines-zoo, hyperparams/acer.yml::

    CartPole-v1:
      n_envs: 8
      n_timesteps: !!float 1e5
      policy: 'MlpPolicy'
      ent_coef: 0.0

Every other argument keeps the ACER default (n_steps=20, learning_rate=7e-4 with lr_schedule='linear',
replay_ratio=4, buffer_size=5000, replay_start=1000, trust_region=True, ...).

    python benchmarks/acer_cartpole.py --seeds 0 1 2
"""
import argparse
import time

import numpy as np

from stable_baselines import ACER
from stable_baselines.bench import Monitor
from stable_baselines.common.evaluation import evaluate_policy
from stable_baselines.common.gym_compat import make_env
from stable_baselines.common.vec_env import DummyVecEnv

ZOO_KWARGS = dict(ent_coef=0.0)
ZOO_N_ENVS = 8
ZOO_TIMESTEPS = 100000


def run(seed: int, timesteps: int = ZOO_TIMESTEPS, policy: str = "MlpPolicy") -> dict:
    env = DummyVecEnv([lambda: Monitor(make_env("CartPole-v1"), None) for _ in range(ZOO_N_ENVS)])
    model = ACER(policy, env, seed=seed, n_cpu_tf_sess=1, **ZOO_KWARGS)
    start = time.time()
    model.learn(timesteps)
    wall = time.time() - start
    eval_env = make_env("CartPole-v1")
    eval_env.reset(seed=1000 + seed)
    if model.initial_state is None:
        mean, std = evaluate_policy(model, eval_env, n_eval_episodes=20, deterministic=True)
    else:  # recurrent models act on a batch of n_envs observations: evaluate on a VecEnv
        vec_env = DummyVecEnv([lambda: make_env("CartPole-v1") for _ in range(ZOO_N_ENVS)])
        mean, std = evaluate_policy(model, vec_env, n_eval_episodes=20, deterministic=True)
    return dict(seed=seed, score=mean, std=std, wall=wall, fps=timesteps / wall)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--seeds", type=int, nargs="+", default=[0])
    parser.add_argument("--timesteps", type=int, default=ZOO_TIMESTEPS)
    parser.add_argument("--policy", default="MlpPolicy")
    args = parser.parse_args()
    results = []
    for seed in args.seeds:
        result = run(seed, args.timesteps, args.policy)
        results.append(result)
        print("acer seed {seed}: deterministic score {score:.1f} +/- {std:.1f}, {fps:.0f} steps/s, "
              "wall {wall:.1f} s".format(**result), flush=True)
    print("acer: mean score {:.1f} over {} seeds, median {:.0f} steps/s".format(
        np.mean([r["score"] for r in results]), len(results), np.median([r["fps"] for r in results])))


if __name__ == "__main__":
    main()
