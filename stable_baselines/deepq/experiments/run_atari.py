"""
Train DQN on an Atari game with the DeepMind preprocessing (prioritized replay and dueling by default).

    python -m stable_baselines.deepq.experiments.run_atari --env BreakoutNoFrameskip-v4 --num-timesteps 10000000
"""
import argparse
import os
from typing import Optional, Sequence

from stable_baselines import bench, logger
from stable_baselines.common.atari_wrappers import make_atari
from stable_baselines.deepq import DQN, CnnPolicy, wrap_atari_dqn


def main(argv: Optional[Sequence[str]] = None) -> DQN:
    """
    Run the atari test
    """
    parser = argparse.ArgumentParser(formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    parser.add_argument('--env', help='environment ID', default='BreakoutNoFrameskip-v4')
    parser.add_argument('--seed', help='RNG seed', type=int, default=0)
    parser.add_argument('--prioritized', type=int, default=1)
    parser.add_argument('--dueling', type=int, default=1)
    parser.add_argument('--prioritized-replay-alpha', type=float, default=0.6)
    parser.add_argument('--num-timesteps', type=int, default=int(10e6))
    args = parser.parse_args(argv)
    logger.configure()
    env = make_atari(args.env)
    log_dir = logger.get_dir()
    env = bench.Monitor(env, None if log_dir is None else os.path.join(log_dir, "0"))
    env = wrap_atari_dqn(env)
    model = DQN(
        env=env,
        policy=CnnPolicy,
        policy_kwargs=dict(dueling=args.dueling == 1),
        learning_rate=1e-4,
        buffer_size=10000,
        exploration_fraction=0.1,
        exploration_final_eps=0.01,
        train_freq=4,
        learning_starts=10000,
        target_network_update_freq=1000,
        gamma=0.99,
        prioritized_replay=bool(args.prioritized),
        prioritized_replay_alpha=args.prioritized_replay_alpha,
        seed=args.seed,
    )
    model.learn(total_timesteps=args.num_timesteps)
    env.close()
    return model


if __name__ == '__main__':
    main()
