"""
Train DQN on CartPole-v0 until the mean reward of the last 100 episodes reaches 199, then save the agent.

    python -m stable_baselines.deepq.experiments.train_cartpole --max-timesteps 100000 --save-path cartpole_model.zip
"""
import argparse
from typing import Any, Dict, Optional, Sequence

import numpy as np

from stable_baselines.common.command_line import scripts as cli
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
    model = DQN(env=make_env("CartPole-v0"), policy=MlpPolicy, learning_rate=1e-3, buffer_size=50000,
                exploration_fraction=0.1, exploration_final_eps=0.02, seed=args.seed, verbose=args.verbose)
    return cli.learn_and_save(model, args, callback)


def parse_args(argv: Optional[Sequence[str]] = None) -> argparse.Namespace:
    """:return: (argparse.Namespace) the options of the command line ``argv`` (None: sys.argv)"""
    return _parser().parse_args(argv)


def _parser() -> argparse.ArgumentParser:
    return cli.train_parser("Train DQN on cartpole", "cartpole_model.zip")


if __name__ == '__main__':
    main(parse_args())
