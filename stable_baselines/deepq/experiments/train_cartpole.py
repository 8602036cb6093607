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
    The callback function for logging and saving

    :param lcl: (dict) the local variables
    :param _glb: (dict) the global variables
    :return: (bool) is solved
    """
    # stop training if reward exceeds 199
    if len(lcl['episode_rewards'][-101:-1]) == 0:
        mean_100ep_reward = -np.inf
    else:
        mean_100ep_reward = round(float(np.mean(lcl['episode_rewards'][-101:-1])), 1)
    is_solved = lcl['self'].num_timesteps > 100 and mean_100ep_reward >= 199
    return not is_solved


def main(args: argparse.Namespace) -> DQN:
    """
    Train and save the DQN model, for the cartpole problem

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
    model.learn(total_timesteps=args.max_timesteps, callback=callback)

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
    parser.add_argument('--max-timesteps', default=100000, type=int, help="Maximum number of timesteps")
    parser.add_argument('--save-path', default="cartpole_model.zip", type=str, help="Where to save the model")
    parser.add_argument('--seed', default=None, type=int, help="Random seed")
    parser.add_argument('--verbose', default=1, type=int, help="Verbosity (0: none, 1: training table)")
    return parser


if __name__ == '__main__':
    main(parse_args())
