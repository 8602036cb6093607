"""
Train TD3 on Pendulum-v1 (train_freq 1, gradient_steps 1, batch_size 128, Gaussian action noise
sigma 0.1, 20 000 steps; rl-baselines-zoo style gamma 0.98, learning rate 1e-3, 1000 random warm-up
steps) and report the deterministic score over 10 episodes, steps/s and wall time.

    python benchmarks/td3_pendulum.py --seeds 0 1 2
"""
import argparse

import numpy as np

from bench_util import add_seed_arguments, evaluation_score, run_seeds, score_summary, timed_learn
from stable_baselines import TD3
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
    wall, _ = timed_learn(model, timesteps)
    mean, std = evaluation_score(model, "Pendulum-v1", seed, n_eval_episodes)
    return dict(seed=seed, score=mean, std=std, wall=wall, fps=timesteps / wall)


def main():
    parser = argparse.ArgumentParser()
    add_seed_arguments(parser, 20000)
    args = parser.parse_args()
    results = run_seeds(args.seeds, lambda seed: run(seed, args.timesteps),
                        "td3 Pendulum-v1 seed {seed}: deterministic score {score:.1f} +/- {std:.1f}, {fps:.0f} steps/s, "
                        "wall {wall:.1f} s")
    print(score_summary("td3", results))


if __name__ == "__main__":
    main()
