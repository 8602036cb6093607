"""
Replay a DQN agent saved by ``train_cartpole`` on CartPole-v0.

    python -m stable_baselines.deepq.experiments.enjoy_cartpole --load-path cartpole_model.zip
"""
import argparse
from typing import List, Optional, Sequence

from stable_baselines.deepq.experiments import replay


def main(args: argparse.Namespace) -> List[float]:
    """
    Run a trained model for the cartpole problem

    :param args: (argparse.Namespace) the options (missing ones take their defaults; the original read only
        ``no_render``)
    :return: ([float]) the episode rewards
    """
    return replay.replay("CartPole-v0", replay.with_defaults(args, _parser()))


def parse_args(argv: Optional[Sequence[str]] = None) -> argparse.Namespace:
    """
    :param argv: ([str]) the command line (None: sys.argv)
    :return: (argparse.Namespace)
    """
    return _parser().parse_args(argv)


def _parser() -> argparse.ArgumentParser:
    return replay.enjoy_parser("Enjoy trained DQN on cartpole", "cartpole_model.zip")


if __name__ == '__main__':
    main(parse_args())
