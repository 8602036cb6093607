"""
Replay a DQN agent saved by ``train_mountaincar`` on MountainCar-v0.

    python -m stable_baselines.deepq.experiments.enjoy_mountaincar --load-path mountaincar_model.zip
"""
import argparse
from typing import List, Optional, Sequence

import numpy as np

from stable_baselines.common.gym_compat import make_env
from stable_baselines.deepq import DQN


def main(args: argparse.Namespace) -> List[float]:
    """
    Run a trained model for the mountain car problem

    :param args: (ArgumentParser) the input arguments
    :return: ([float]) the episode rewards
    """
    env = make_env("MountainCar-v0", render_mode=None if args.no_render else "human")
    model = DQN.load(args.load_path, env)
    rewards = []
    episode = 0
    while args.n_episodes is None or episode < args.n_episodes:
        obs, _ = env.reset()
        done = False
        episode_rew = 0.0
        while not done:
            action, _ = model.predict(obs)
            obs, rew, terminated, truncated, _ = env.step(action)
            done = terminated or truncated
            episode_rew += float(rew)
        print("Episode reward", episode_rew)
        rewards.append(episode_rew)
        episode += 1
        # No render is only used for automatic testing
        if args.no_render and args.n_episodes is None:
            break
    env.close()
    if rewards:
        print("Mean reward {:.1f} over {} episodes".format(float(np.mean(rewards)), len(rewards)))
    return rewards


def parse_args(argv: Optional[Sequence[str]] = None) -> argparse.Namespace:
    """
    :param argv: ([str]) the command line (None: sys.argv)
    :return: (argparse.Namespace)
    """
    parser = argparse.ArgumentParser(description="Enjoy trained DQN on MountainCar")
    parser.add_argument('--no-render', default=False, action="store_true", help="Disable rendering")
    parser.add_argument('--load-path', default="mountaincar_model.zip", type=str, help="The saved model")
    parser.add_argument('--n-episodes', default=None, type=int,
                        help="Number of episodes (default: forever, or one with --no-render)")
    return parser.parse_args(argv)


if __name__ == '__main__':
    main(parse_args())
