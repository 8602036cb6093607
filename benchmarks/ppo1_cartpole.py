"""
Train PPO1 on CartPole-v1 with the rl-baselines-zoo hyper-parameters (hyperparams/ppo1.yml, CartPole-v1:
MlpPolicy, timesteps_per_actorbatch 1024, clip_param 0.2, entcoeff 0.0, optim_epochs 10, optim_stepsize 3e-4,
optim_batchsize 64, gamma 0.99, lam 0.95, schedule linear; 1e5 steps) and report the deterministic score,
steps/s and wall time.

    python benchmarks/ppo1_cartpole.py --seeds 0 1 2
    mpirun --oversubscribe -np 2 python benchmarks/ppo1_cartpole.py   # 2 workers share the 1e5 steps
"""
import argparse
import time

import numpy as np
from mpi4py import MPI

from stable_baselines import PPO1
from stable_baselines.bench import Monitor
from stable_baselines.common.evaluation import evaluate_policy
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
    start = time.time()
    model.learn(timesteps)
    wall = time.time() - start
    train_rewards = env.get_episode_rewards()[-100:]
    eval_env = make_env("CartPole-v1")
    eval_env.reset(seed=1000 + seed)
    mean, std = evaluate_policy(model, eval_env, n_eval_episodes=n_eval_episodes, deterministic=True)
    return dict(seed=seed, score=mean, std=std, train=float(np.mean(train_rewards)) if train_rewards else float("nan"),
                wall=wall, fps=model.num_timesteps / wall, workers=MPI.COMM_WORLD.Get_size())


def main():
    parser = argparse.ArgumentParser(description="PPO1 on CartPole-v1 with the rl-baselines-zoo settings")
    parser.add_argument("--seeds", type=int, nargs="+", default=[0])
    parser.add_argument("--timesteps", type=int, default=100000)
    parser.add_argument("--n-eval-episodes", type=int, default=20)
    args = parser.parse_args()
    results = []
    for seed in args.seeds:
        result = run(seed, args.timesteps, args.n_eval_episodes)
        results.append(result)
        if MPI.COMM_WORLD.Get_rank() == 0:
            print("ppo1 seed {seed} ({workers} worker(s)): deterministic score {score:.1f} +/- {std:.1f} "
                  "(last 100 training episodes {train:.1f}), {fps:.0f} steps/s, wall {wall:.1f} s"
                  .format(**result), flush=True)
    if MPI.COMM_WORLD.Get_rank() == 0:
        print("ppo1: mean score {:.1f} over {} seeds, median {:.0f} steps/s".format(
            np.mean([r["score"] for r in results]), len(results), np.median([r["fps"] for r in results])))


if __name__ == "__main__":
    main()
