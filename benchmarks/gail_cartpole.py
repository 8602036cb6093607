"""
Train GAIL on the expert datasets bundled with the package and report the score of the imitating
policy (deterministic, on the environment's true reward), steps/s and wall time.

    python benchmarks/gail_cartpole.py                      # CartPole-v1 from expert_cartpole.npz
    python benchmarks/gail_cartpole.py --env Pendulum-v1    # Pendulum-v1 from expert_pendulum.npz
    mpirun --oversubscribe -np 2 python benchmarks/gail_cartpole.py   # 2 MPI workers

CartPole-v1: GAIL's defaults (g_step=3, d_step=1, hidden_size_adversary=100, TRPO's
timesteps_per_batch=1024, max_kl=0.01, lam=0.98), 30 000 timesteps. Pendulum-v1: gamma=0.9, lam=0.95,
vf_iters=15, vf_stepsize=1e-3, g_step=1 (the other arguments default), 150 000 timesteps. Both use the
first 10 expert trajectories. A uniformly random policy is evaluated too, as the reference to beat.
"""
import argparse
import os
import time

import numpy as np
from mpi4py import MPI

import stable_baselines.gail.dataset as gail_dataset
from stable_baselines import GAIL
from stable_baselines.bench import Monitor
from stable_baselines.common.evaluation import evaluate_policy
from stable_baselines.common.gym_compat import make_env
from stable_baselines.gail import ExpertDataset

SETTINGS = {
    "CartPole-v1": dict(dataset="expert_cartpole.npz", timesteps=30000, kwargs=dict()),
    # short-horizon discount and a better-trained critic, as the SB3 zoo's TRPO setting for Pendulum
    "Pendulum-v1": dict(dataset="expert_pendulum.npz", timesteps=150000,
                        kwargs=dict(gamma=0.9, lam=0.95, vf_iters=15, vf_stepsize=1e-3, g_step=1)),
}


def random_score(env_id: str, n_episodes: int = 20) -> float:
    env = make_env(env_id)
    env.action_space.seed(0)
    returns = []
    for episode in range(n_episodes):
        env.reset(seed=episode)
        done, total = False, 0.0
        while not done:
            _, reward, terminated, truncated, _ = env.step(env.action_space.sample())
            total += reward
            done = terminated or truncated
        returns.append(total)
    return float(np.mean(returns))


def run(env_id: str, seed: int, timesteps: int, eval_every: int, n_eval_episodes: int = 10,
        pretrain_epochs: int = 0) -> dict:
    rank = MPI.COMM_WORLD.Get_rank()
    setting = SETTINGS[env_id]
    path = os.path.join(os.path.dirname(gail_dataset.__file__), setting["dataset"])
    dataset = ExpertDataset(expert_path=path, traj_limitation=10, verbose=0)
    model = GAIL("MlpPolicy", Monitor(make_env(env_id), None), dataset, seed=seed + 10000 * rank, n_cpu_tf_sess=1,
                 **setting["kwargs"])
    train_time = 0.0
    curve = []
    if pretrain_epochs > 0:
        # behaviour cloning on the same expert data before GAIL (the manual's pretrain())
        start = time.time()
        model.pretrain(dataset, n_epochs=pretrain_epochs, learning_rate=1e-3)
        train_time += time.time() - start
        if rank == 0:
            mean, _ = evaluate_policy(model, make_env(env_id), n_eval_episodes=5, deterministic=True)
            curve.append((0, round(float(mean), 1)))
            print("  after behaviour cloning ({} epochs): score {:.1f} (5 episodes)".format(pretrain_epochs, mean),
                  flush=True)
    while model.num_timesteps < timesteps:
        start = time.time()
        model.learn(min(eval_every, timesteps - model.num_timesteps), reset_num_timesteps=False)
        train_time += time.time() - start
        if eval_every < timesteps and rank == 0:
            mean, _ = evaluate_policy(model, make_env(env_id), n_eval_episodes=5, deterministic=True)
            curve.append((model.num_timesteps, round(float(mean), 1)))
            print("  {} steps: score {:.1f} (5 episodes), {:.0f} s of training".format(
                model.num_timesteps, mean, train_time), flush=True)
    mean, std = evaluate_policy(model, make_env(env_id), n_eval_episodes=n_eval_episodes, deterministic=True)
    return dict(seed=seed, score=mean, std=std, wall=train_time, fps=model.num_timesteps / train_time,
                timesteps=model.num_timesteps, expert=dataset.avg_ret, curve=curve)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--env", default="CartPole-v1", choices=sorted(SETTINGS))
    parser.add_argument("--seeds", type=int, nargs="+", default=[0])
    parser.add_argument("--timesteps", type=int, default=None)
    parser.add_argument("--eval-every", type=int, default=None, help="print the score every N timesteps")
    parser.add_argument("--pretrain-epochs", type=int, default=0,
                        help="behaviour cloning epochs on the expert data before GAIL (default: none)")
    args = parser.parse_args()
    timesteps = args.timesteps or SETTINGS[args.env]["timesteps"]
    eval_every = args.eval_every or timesteps
    if MPI.COMM_WORLD.Get_rank() == 0:
        print("random policy on {}: {:.1f} (20 episodes)".format(args.env, random_score(args.env)), flush=True)
    for seed in args.seeds:
        result = run(args.env, seed, timesteps, eval_every, pretrain_epochs=args.pretrain_epochs)
        if MPI.COMM_WORLD.Get_rank() == 0:
            print("GAIL {env} seed {seed}: score {score:.1f} +/- {std:.1f} (10 episodes, deterministic; expert "
                  "{expert:.1f}), {timesteps} steps ({workers} MPI workers), {fps:.0f} steps/s, wall {wall:.1f} s"
                  .format(env=args.env, workers=MPI.COMM_WORLD.Get_size(), **result), flush=True)


if __name__ == "__main__":
    main()
