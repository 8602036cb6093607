"""
Train ACKTR on CartPole-v1 with the rl-baselines-zoo hyper-parameters (acktr.yml CartPole-v1: n_envs 8,
n_timesteps 1e5, MlpPolicy, ent_coef 0.0; every other argument at ACKTR's defaults: n_steps 20,
learning_rate 0.25 with the linear schedule, kfac_clip 0.001, vf_coef 0.25, gamma 0.99) and report the
score of the final agent over 20 evaluation episodes, both deterministic (mode of the policy) and stochastic
(sampled actions, as the zoo's ``enjoy.py`` evaluated ACKTR), the steps/s (wall clock and CPU time of this
process) and the wall time.

    python benchmarks/acktr_cartpole.py --seeds 0 1 2 3 4
"""
import argparse
import os
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np  # noqa: E402  pylint: disable=wrong-import-position

from stable_baselines import ACKTR  # noqa: E402  pylint: disable=wrong-import-position
from stable_baselines.bench import Monitor  # noqa: E402  pylint: disable=wrong-import-position
from stable_baselines.common.evaluation import evaluate_policy  # noqa: E402  pylint: disable=wrong-import-position
from stable_baselines.common.gym_compat import make_env  # noqa: E402  pylint: disable=wrong-import-position
from stable_baselines.common.vec_env import DummyVecEnv  # noqa: E402  pylint: disable=wrong-import-position

ZOO_KWARGS = dict(ent_coef=0.0)


def evaluate(model, seed: int, n_episodes: int, deterministic: bool) -> float:
    """Mean return of ``n_episodes`` evaluation episodes of ``model`` (evaluation env seeded with 1000 + seed)."""
    eval_env = make_env("CartPole-v1")
    eval_env.reset(seed=1000 + seed)
    mean, _ = evaluate_policy(model, eval_env, n_eval_episodes=n_episodes, deterministic=deterministic)
    return float(mean)


def run(seed: int, timesteps: int = 100000, n_episodes: int = 20) -> dict:
    env = DummyVecEnv([lambda: Monitor(make_env("CartPole-v1"), None) for _ in range(8)])
    model = ACKTR("MlpPolicy", env, seed=seed, n_cpu_tf_sess=1, **ZOO_KWARGS)
    start, cpu_start = time.time(), time.process_time()
    model.learn(timesteps)
    wall, cpu = time.time() - start, time.process_time() - cpu_start
    return dict(seed=seed, det=evaluate(model, seed, n_episodes, True), sto=evaluate(model, seed, n_episodes, False),
                wall=wall, fps=timesteps / wall, cpu_fps=timesteps / cpu, timesteps=timesteps)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--seeds", type=int, nargs="+", default=[0])
    parser.add_argument("--timesteps", type=int, default=100000)
    parser.add_argument("--episodes", type=int, default=20, help="evaluation episodes (each mode)")
    args = parser.parse_args()
    results = []
    for seed in args.seeds:
        result = run(seed, args.timesteps, args.episodes)
        results.append(result)
        print("acktr CartPole-v1 seed {seed}: {timesteps} steps, score deterministic {det:.1f}, stochastic {sto:.1f}, "
              "{fps:.0f} steps/s ({cpu_fps:.0f} per CPU second), wall {wall:.1f} s".format(**result), flush=True)
    print("acktr CartPole-v1: mean score over {} seeds: deterministic {:.1f}, stochastic {:.1f} (maximum 500, "
          "random policy about 22); median {:.0f} steps/s".format(
              len(results), np.mean([r["det"] for r in results]), np.mean([r["sto"] for r in results]),
              np.median([r["fps"] for r in results])))


if __name__ == "__main__":
    main()
