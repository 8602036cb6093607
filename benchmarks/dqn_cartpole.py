"""
Train DQN on CartPole-v1 with the rl-baselines-zoo hyper-parameters (hyperparams/dqn.yml: the zoo's
CustomDQNPolicy = one layer of 64 with layer norm, dueling; lr 1e-3, buffer 50000, exploration_fraction 0.1,
exploration_final_eps 0.02, prioritized replay; 1e5 steps) and report the deterministic score, steps/s and
wall time.

    python benchmarks/dqn_cartpole.py --seeds 0 1 2
"""
import argparse

import numpy as np

from bench_util import add_seed_arguments, evaluation_score, run_seeds, score_summary, timed_learn
from stable_baselines import DQN
from stable_baselines.bench import Monitor
from stable_baselines.common.gym_compat import make_env
from stable_baselines.deepq.policies import FeedForwardPolicy


class CustomDQNPolicy(FeedForwardPolicy):
    """The zoo's policy (utils/utils.py): layers [64], layer_norm=True, mlp features, dueling."""

    def __init__(self, *args, **kwargs):
        super(CustomDQNPolicy, self).__init__(*args, **kwargs, layers=[64], layer_norm=True,
                                              feature_extraction="mlp")


ZOO = dict(learning_rate=1e-3, buffer_size=50000, exploration_fraction=0.1, exploration_final_eps=0.02,
           prioritized_replay=True)


def run(seed: int, timesteps: int, n_eval_episodes: int) -> dict:
    """
    :param seed: (int) the seed of the model and the environments
    :param timesteps: (int) the number of training steps
    :param n_eval_episodes: (int) the number of deterministic evaluation episodes
    :return: (dict) score, std, training reward of the last 100 episodes, wall time, steps/s
    """
    env = Monitor(make_env("CartPole-v1"), None)
    model = DQN(CustomDQNPolicy, env, seed=seed, n_cpu_tf_sess=1, **ZOO)
    wall, _ = timed_learn(model, timesteps)
    train_rewards = env.get_episode_rewards()[-100:]
    mean, std = evaluation_score(model, "CartPole-v1", seed, n_eval_episodes)
    return dict(seed=seed, score=mean, std=std, train=float(np.mean(train_rewards)) if train_rewards else float("nan"),
                wall=wall, fps=timesteps / wall)


def main():
    parser = argparse.ArgumentParser(description="DQN on CartPole-v1 with the rl-baselines-zoo settings")
    add_seed_arguments(parser, 100000)
    parser.add_argument("--n-eval-episodes", type=int, default=20)
    args = parser.parse_args()
    results = run_seeds(args.seeds, lambda seed: run(seed, args.timesteps, args.n_eval_episodes),
                        "dqn seed {seed}: deterministic score {score:.1f} +/- {std:.1f} (last 100 training episodes "
                        "{train:.1f}), {fps:.0f} steps/s, wall {wall:.1f} s")
    print(score_summary("dqn", results))


if __name__ == "__main__":
    main()
