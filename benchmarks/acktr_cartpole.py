"""
Train ACKTR on CartPole-v1 with the rl-baselines-zoo hyper-parameters (acktr.yml CartPole-v1: n_envs 8,
n_timesteps 1e5, MlpPolicy, ent_coef 0.0; every other argument at ACKTR's defaults: n_steps 20,
learning_rate 0.25 with the linear schedule, kfac_clip 0.001, vf_coef 0.25, gamma 0.99) and report the
deterministic score (20 evaluation episodes), steps/s and wall time.

    python benchmarks/acktr_cartpole.py --seeds 0 1 2
"""
import argparse
import time

import numpy as np

from stable_baselines import ACKTR
from stable_baselines.bench import Monitor
from stable_baselines.common.evaluation import evaluate_policy
from stable_baselines.common.gym_compat import make_env
from stable_baselines.common.vec_env import DummyVecEnv

ZOO_KWARGS = dict(ent_coef=0.0)


def run(seed: int, timesteps: int = 100000) -> dict:
    env = DummyVecEnv([lambda: Monitor(make_env("CartPole-v1"), None) for _ in range(8)])
    model = ACKTR("MlpPolicy", env, seed=seed, n_cpu_tf_sess=1, **ZOO_KWARGS)
    start = time.time()
    model.learn(timesteps)
    wall = time.time() - start
    eval_env = make_env("CartPole-v1")
    eval_env.reset(seed=1000 + seed)
    mean, std = evaluate_policy(model, eval_env, n_eval_episodes=20, deterministic=True)
    return dict(seed=seed, score=mean, std=std, wall=wall, fps=timesteps / wall, timesteps=timesteps)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--seeds", type=int, nargs="+", default=[0])
    parser.add_argument("--timesteps", type=int, default=100000)
    args = parser.parse_args()
    results = []
    for seed in args.seeds:
        result = run(seed, args.timesteps)
        results.append(result)
        print("acktr CartPole-v1 seed {seed}: {timesteps} steps, deterministic score {score:.1f} +/- {std:.1f}, "
              "{fps:.0f} steps/s, wall {wall:.1f} s".format(**result), flush=True)
    print("acktr CartPole-v1: mean score {:.1f} over {} seeds, median {:.0f} steps/s".format(
        np.mean([r["score"] for r in results]), len(results), np.median([r["fps"] for r in results])))


if __name__ == "__main__":
    main()
