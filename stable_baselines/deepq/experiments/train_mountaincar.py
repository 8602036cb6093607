"""
Train DQN with parameter-space noise on MountainCar-v0, then save the agent.

    python -m stable_baselines.deepq.experiments.train_mountaincar --max-timesteps 100000 \
        --save-path mountaincar_model.zip
"""
import argparse
from typing import Any, Optional, Sequence

from stable_baselines.common.command_line import scripts as cli
from stable_baselines.common.gym_compat import make_env
from stable_baselines.deepq import DQN
from stable_baselines.deepq.experiments import replay
from stable_baselines.deepq.policies import FeedForwardPolicy


class CustomPolicy(FeedForwardPolicy):
    """One hidden layer of 64 units with layer normalisation (important for parameter space noise)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.update(layers=[64], layer_norm=True, feature_extraction="mlp")
        super(CustomPolicy, self).__init__(*args, **kwargs)


def main(args: argparse.Namespace) -> DQN:
    """
    Train DQN with parameter-space noise on MountainCar-v0 and save it.

    :param args: (argparse.Namespace) the options (missing ones take their defaults; the original read only
        ``max_timesteps``)
    :return: (DQN) the trained model
    """
    args = replay.with_defaults(args, _parser())
    env = make_env("MountainCar-v0")
    # refer to the policy through the importable module (not __main__), so that the saved file names it by reference
    from stable_baselines.deepq.experiments.train_mountaincar import CustomPolicy as policy_class

    # parameter-space noise needs the layer normalisation of CustomPolicy to perturb all layers alike
    model = DQN(policy=policy_class, env=env, learning_rate=1e-3, buffer_size=50000, exploration_fraction=0.1,
                exploration_final_eps=0.1, param_noise=True, seed=args.seed, verbose=args.verbose)
    return cli.learn_and_save(model, args)


def parse_args(argv: Optional[Sequence[str]] = None) -> argparse.Namespace:
    """:return: (argparse.Namespace) the options of the command line ``argv`` (None: sys.argv)"""
    return _parser().parse_args(argv)


def _parser() -> argparse.ArgumentParser:
    return cli.train_parser("Train DQN on MountainCar", "mountaincar_model.zip")


if __name__ == '__main__':
    main(parse_args())
