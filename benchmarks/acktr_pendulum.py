"""
Train ACKTR on Pendulum-v1 with the rl-baselines-zoo hyper-parameters of the shipped Pendulum-v0 agent
(tests/data/legacy_models/acktr/Pendulum-v0/config.yml: n_envs 4, n_steps 16, learning_rate 0.06 constant,
ent_coef 0.0, gamma 0.99, MlpPolicy) on a reduced budget (the zoo trains 2e6 steps; default here 2e5), and
report the deterministic score (20 evaluation episodes; a random policy scores about -1200), steps/s and wall
time.

    python benchmarks/acktr_pendulum.py --seeds 0 1 --timesteps 200000
"""
import argparse
import time

import numpy as np

from stable_baselines import ACKTR
from stable_baselines.bench import Monitor
from stable_baselines.common.evaluation import evaluate_policy
from stable_baselines.common.gym_compat import make_env
from stable_baselines.common.vec_env import DummyVecEnv

ZOO_KWARGS = dict(n_steps=16, learning_rate=0.06, lr_schedule="constant", ent_coef=0.0, gamma=0.99)


def run(seed: int, timesteps: int) -> dict:
    env = DummyVecEnv([lambda: Monitor(make_env("Pendulum-v1"), None) for _ in range(4)])
    model = ACKTR("MlpPolicy", env, seed=seed, n_cpu_tf_sess=1, **ZOO_KWARGS)
    start = time.time()
    model.learn(timesteps)
    wall = time.time() - start
    eval_env = make_env("Pendulum-v1")
    eval_env.reset(seed=1000 + seed)
    mean, std = evaluate_policy(model, eval_env, n_eval_episodes=20, deterministic=True)
    train_mean = float(np.mean([info["r"] for info in model.ep_info_buf])) if model.ep_info_buf else float("nan")
    return dict(seed=seed, score=mean, std=std, wall=wall, fps=timesteps / wall, timesteps=timesteps,
                train=train_mean)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--seeds", type=int, nargs="+", default=[0])
    parser.add_argument("--timesteps", type=int, default=200000)
    args = parser.parse_args()
    results = []
    for seed in args.seeds:
        result = run(seed, args.timesteps)
        results.append(result)
        print("acktr Pendulum-v1 seed {seed}: {timesteps} steps, deterministic score {score:.1f} +/- {std:.1f} "
              "(last 100 training episodes {train:.1f}), {fps:.0f} steps/s, wall {wall:.1f} s".format(**result),
              flush=True)
    print("acktr Pendulum-v1: mean score {:.1f} over {} seeds (random policy: about -1200), median {:.0f} steps/s"
          .format(np.mean([r["score"] for r in results]), len(results), np.median([r["fps"] for r in results])))


if __name__ == "__main__":
    main()
