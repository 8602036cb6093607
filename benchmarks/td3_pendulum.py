"""
Train TD3 on Pendulum-v1 (train_freq 1, gradient_steps 1, batch_size 128, Gaussian action noise
sigma 0.1, 20 000 steps; rl-baselines-zoo style gamma 0.98, learning rate 1e-3, 1000 random warm-up
steps) and report the deterministic score over 10 episodes, steps/s and wall time.

    python benchmarks/td3_pendulum.py --seeds 0 1 2
"""
import argparse
import time

import numpy as np

from stable_baselines import TD3
from stable_baselines.common.evaluation import evaluate_policy
from stable_baselines.common.gym_compat import make_env
from stable_baselines.common.noise import NormalActionNoise


def run(seed: int, timesteps: int = 20000, n_eval_episodes: int = 10) -> dict:
    """
    :param seed: (int) the seed of the model and of the training env
    :param timesteps: (int) the number of training steps
    :param n_eval_episodes: (int) the number of deterministic evaluation episodes
    :return: (dict) seed, score, std, wall (s), fps (training steps per second)
    """
    env = make_env("Pendulum-v1")
    n_actions = env.action_space.shape[-1]
    action_noise = NormalActionNoise(mean=np.zeros(n_actions), sigma=0.1 * np.ones(n_actions))
    model = TD3("MlpPolicy", env, gamma=0.98, learning_rate=1e-3, learning_starts=1000, train_freq=1,
                gradient_steps=1, batch_size=128, action_noise=action_noise, seed=seed, n_cpu_tf_sess=1)
    start = time.time()
    model.learn(timesteps)
    wall = time.time() - start
    eval_env = make_env("Pendulum-v1")
    eval_env.reset(seed=1000 + seed)
    mean, std = evaluate_policy(model, eval_env, n_eval_episodes=n_eval_episodes, deterministic=True)
    return dict(seed=seed, score=mean, std=std, wall=wall, fps=timesteps / wall)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--seeds", type=int, nargs="+", default=[0])
    parser.add_argument("--timesteps", type=int, default=20000)
    args = parser.parse_args()
    results = []
    for seed in args.seeds:
        result = run(seed, args.timesteps)
        results.append(result)
        print("td3 Pendulum-v1 seed {seed}: deterministic score {score:.1f} +/- {std:.1f}, {fps:.0f} steps/s, "
              "wall {wall:.1f} s".format(**result), flush=True)
    print("td3: mean score {:.1f} over {} seeds, median {:.0f} steps/s".format(
        np.mean([r["score"] for r in results]), len(results), np.median([r["fps"] for r in results])))


if __name__ == "__main__":
    main()
