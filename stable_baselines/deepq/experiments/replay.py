"""
What the experiment scripts share: the episode loop and command line of the ``enjoy_*`` scripts, and
:func:`with_defaults`, which lets every script's ``main(args)`` take an object holding only some options.
"""
import argparse
from typing import Any, List, Optional, Sequence

from stable_baselines.common.gym_compat import make_env
from stable_baselines.deepq import DQN


def replay(env_id: str, args: argparse.Namespace) -> List[float]:
    """
    Run a trained DQN agent on an environment and print each episode's reward.

    :param env_id: (str) the environment id
    :param args: (argparse.Namespace) ``load_path``, ``no_render`` and ``n_episodes`` (see :func:`parse_args`)
    :return: ([float]) the episode rewards
    """
    env = make_env(env_id, render_mode=None if args.no_render else "human")
    model = DQN.load(args.load_path, env)
    rewards: List[float] = []
    while args.n_episodes is None or len(rewards) < args.n_episodes:
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
        # No render is only used for automatic testing
        if args.no_render and args.n_episodes is None:
            break
    env.close()
    return rewards


def with_defaults(args: Any, parser: argparse.ArgumentParser) -> argparse.Namespace:
    """
    Every option of ``parser``: the attribute of ``args`` where it has one, else the parser's default.
    The original scripts' ``main(args)`` read only one or two options (``max_timesteps``, ``no_render``),
    and code calling them builds ``args`` with just those.

    :param args: (argparse.Namespace or any object) the options given
    :param parser: (ArgumentParser) the script's parser (it must have no required option)
    :return: (argparse.Namespace) all options
    """
    complete = parser.parse_args([])
    for name, default in vars(complete).items():
        setattr(complete, name, getattr(args, name, default))
    return complete


def enjoy_parser(description: str, default_load_path: str) -> argparse.ArgumentParser:
    """
    :param description: (str) the script's description
    :param default_load_path: (str) the model file read when ``--load-path`` is not given
    :return: (ArgumentParser) the options of an ``enjoy_*`` script
    """
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument('--no-render', default=False, action="store_true", help="Disable rendering")
    parser.add_argument('--load-path', default=default_load_path, type=str, help="The saved model")
    parser.add_argument('--n-episodes', default=None, type=int,
                        help="Number of episodes (default: forever, or one with --no-render)")
    return parser


def parse_args(description: str, default_load_path: str,
               argv: Optional[Sequence[str]] = None) -> argparse.Namespace:
    """
    :param description: (str) the script's description
    :param default_load_path: (str) the model file read when ``--load-path`` is not given
    :param argv: ([str]) the command line (None: sys.argv)
    :return: (argparse.Namespace)
    """
    return enjoy_parser(description, default_load_path).parse_args(argv)
