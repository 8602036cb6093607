"""
Train PPO1 on CartPole-v1 with the rl-baselines-zoo hyper-parameters (hyperparams/ppo1.yml, CartPole-v1:
MlpPolicy, timesteps_per_actorbatch 1024, clip_param 0.2, entcoeff 0.0, optim_epochs 10, optim_stepsize 3e-4,
optim_batchsize 64, gamma 0.99, lam 0.95, schedule linear; 1e5 steps) and report the deterministic score,
steps/s and wall time.

    python benchmarks/ppo1_cartpole.py --seeds 0 1 2
    mpirun --oversubscribe -np 2 python benchmarks/ppo1_cartpole.py   # 2 workers share the 1e5 steps
"""
import argparse

import numpy as np
from mpi4py import MPI

from bench_util import add_seed_arguments, evaluation_score, run_seeds, score_summary, timed_learn
from stable_baselines import PPO1
from stable_baselines.bench import Monitor
from stable_baselines.common.gym_compat import make_env

ZOO = dict(timesteps_per_actorbatch=1024, clip_param=0.2, entcoeff=0.0, optim_epochs=10, optim_stepsize=3e-4,
           optim_batchsize=64, gamma=0.99, lam=0.95, schedule="linear")


def run(seed: int, timesteps: int, n_eval_episodes: int) -> dict:
    """
    :param seed: (int) the seed of the model and the environments (worker i adds 10000 * i)
    :param timesteps: (int) the number of training steps (all MPI workers together)
    :param n_eval_episodes: (int) the number of deterministic evaluation episodes
    :return: (dict) score, std, training reward of the last 100 episodes, wall time, steps/s
    """
    rank = MPI.COMM_WORLD.Get_rank()
    env = Monitor(make_env("CartPole-v1"), None)
    model = PPO1("MlpPolicy", env, seed=seed + 10000 * rank, n_cpu_tf_sess=1, **ZOO)
    wall, _ = timed_learn(model, timesteps)
    train_rewards = env.get_episode_rewards()[-100:]
    mean, std = evaluation_score(model, "CartPole-v1", seed, n_eval_episodes)
    return dict(seed=seed, score=mean, std=std, train=float(np.mean(train_rewards)) if train_rewards else float("nan"),
                wall=wall, fps=model.num_timesteps / wall, workers=MPI.COMM_WORLD.Get_size())


def main():
    parser = argparse.ArgumentParser(description="PPO1 on CartPole-v1 with the rl-baselines-zoo settings")
    add_seed_arguments(parser, 100000)
    parser.add_argument("--n-eval-episodes", type=int, default=20)
    args = parser.parse_args()
    rank_0 = MPI.COMM_WORLD.Get_rank() == 0
    results = run_seeds(args.seeds, lambda seed: run(seed, args.timesteps, args.n_eval_episodes),
                        "ppo1 seed {seed} ({workers} worker(s)): deterministic score {score:.1f} +/- {std:.1f} "
                        "(last 100 training episodes {train:.1f}), {fps:.0f} steps/s, wall {wall:.1f} s", printing=rank_0)
    if rank_0:
        print(score_summary("ppo1", results))


if __name__ == "__main__":
    main()
