"""
Train DQN on CartPole-v0 until the mean reward of the last 100 episodes reaches 199, then save the agent.

    python -m stable_baselines.deepq.experiments.train_cartpole --max-timesteps 100000 --save-path cartpole_model.zip
"""
import argparse
from typing import Any, Dict, Optional, Sequence

import numpy as np

from stable_baselines.common.gym_compat import make_env
from stable_baselines.deepq import DQN, MlpPolicy
from stable_baselines.deepq.experiments import replay


def callback(lcl: Dict[str, Any], _glb: Dict[str, Any]) -> bool:
    """
    Called by ``learn`` at every step: stop once the last 100 finished episodes average 199 or more.

    :param lcl: (dict) ``learn``'s local variables (``self``, ``episode_rewards``, ...)
    :param _glb: (dict) ``learn``'s global variables (unused)
    :return: (bool) whether training goes on
    """
    finished = lcl['episode_rewards'][-101:-1]  # the last entry is the episode still running
    recent_mean = round(float(np.mean(finished)), 1) if len(finished) > 0 else -np.inf
    solved = lcl['self'].num_timesteps > 100 and recent_mean >= 199
    return not solved


def main(args: argparse.Namespace) -> DQN:
    """
    Train DQN on CartPole-v0 (until solved or out of steps) and save it.

    :param args: (argparse.Namespace) the options (missing ones take their defaults; the original read only
        ``max_timesteps``)
    :return: (DQN) the trained model
    """
    args = replay.with_defaults(args, _parser())
    env = make_env("CartPole-v0")
    model = DQN(
        env=env,
        policy=MlpPolicy,
        learning_rate=1e-3,
        buffer_size=50000,
        exploration_fraction=0.1,
        exploration_final_eps=0.02,
        seed=args.seed,
        verbose=args.verbose,
    )
    budget = args.max_timesteps
    model.learn(total_timesteps=budget, callback=callback)

    print("Saving model to {}".format(args.save_path))
    model.save(args.save_path)
    return model


def parse_args(argv: Optional[Sequence[str]] = None) -> argparse.Namespace:
    """
    :param argv: ([str]) the command line (None: sys.argv)
    :return: (argparse.Namespace)
    """
    return _parser().parse_args(argv)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description="Train DQN on cartpole")
    parser.add_argument('--max-timesteps', type=int, default=100000, help="Training budget, in steps")
    parser.add_argument('--save-path', default="cartpole_model.zip", type=str, help="Where to save the model")
    parser.add_argument('--seed', default=None, type=int, help="Random seed")
    parser.add_argument('--verbose', default=1, type=int, help="Verbosity (0: none, 1: training table)")
    return parser


if __name__ == '__main__':
    main(parse_args())
