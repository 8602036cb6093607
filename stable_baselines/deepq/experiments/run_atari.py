"""
Train DQN on an Atari game with the DeepMind preprocessing (prioritized replay and dueling by default).

    python -m stable_baselines.deepq.experiments.run_atari --env BreakoutNoFrameskip-v4 --num-timesteps 10000000
"""
import argparse
from typing import Optional, Sequence

from stable_baselines.common.command_line import scripts as cli
from stable_baselines.common.cmd_util import atari_arg_parser
from stable_baselines.deepq import DQN, CnnPolicy, wrap_atari_dqn


def _parser() -> argparse.ArgumentParser:
    parser = atari_arg_parser()
    for flag in ('--prioritized', '--dueling'):
        parser.add_argument(flag, type=int, default=1, help='1: on, 0: off')
    parser.add_argument('--prioritized-replay-alpha', type=float, default=0.6, help='priority exponent')
    return parser


def main(argv: Optional[Sequence[str]] = None) -> DQN:
    """
    Parse the command line and train DQN on the game.

    :param argv: ([str]) the arguments (None: ``sys.argv``)
    :return: (DQN) the trained model
    """
    args = cli.parse_and_configure(_parser(), argv)

    def make_model(env):
        return DQN(env=env, policy=CnnPolicy, policy_kwargs=dict(dueling=args.dueling == 1), learning_rate=1e-4,
                   buffer_size=10000, exploration_fraction=0.1, exploration_final_eps=0.01, train_freq=4,
                   learning_starts=10000, target_network_update_freq=1000, gamma=0.99,
                   prioritized_replay=args.prioritized != 0, prioritized_replay_alpha=args.prioritized_replay_alpha,
                   seed=args.seed)

    return cli.learn_and_close(cli.monitored_atari_env(args.env, 0, wrap=wrap_atari_dqn), make_model,
                               args.num_timesteps)


if __name__ == '__main__':
    main()
