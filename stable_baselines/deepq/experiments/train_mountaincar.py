"""
Train DQN with parameter-space noise on MountainCar-v0, then save the agent.

    python -m stable_baselines.deepq.experiments.train_mountaincar --max-timesteps 100000 \
        --save-path mountaincar_model.zip
"""
import argparse
from typing import Any, Optional, Sequence

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
    model = DQN(
        policy=policy_class,
        env=env,
        learning_rate=1e-3,
        buffer_size=50000,
        exploration_fraction=0.1,
        exploration_final_eps=0.1,
        param_noise=True,
        seed=args.seed,
        verbose=args.verbose,
    )
    budget = args.max_timesteps
    model.learn(total_timesteps=budget)

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
    parser = argparse.ArgumentParser(description="Train DQN on MountainCar")
    parser.add_argument('--max-timesteps', type=int, default=100000, help="Training budget, in steps")
    parser.add_argument('--save-path', default="mountaincar_model.zip", type=str, help="Where to save the model")
    parser.add_argument('--seed', default=None, type=int, help="Random seed")
    parser.add_argument('--verbose', default=1, type=int, help="Verbosity (0: none, 1: training table)")
    return parser


if __name__ == '__main__':
    main(parse_args())
