"""
Train GAIL on the expert datasets bundled with the package and report the score of the imitating
policy (deterministic, on the environment's true reward), steps/s and wall time.

    python benchmarks/gail_cartpole.py                      # CartPole-v1 from expert_cartpole.npz
    python benchmarks/gail_cartpole.py --env Pendulum-v1    # Pendulum-v1 from expert_pendulum.npz
    mpirun --oversubscribe -np 2 python benchmarks/gail_cartpole.py   # 2 MPI workers

CartPole-v1 (the recommended recipe, docs/modules/gail.rst): 20 epochs of behaviour cloning
(model.pretrain(dataset, n_epochs=20, learning_rate=1e-3)) on the expert data, then GAIL with g_step=1 and
TRPO's max_kl=0.001 (the other arguments default: d_step=1, d_stepsize=3e-4, hidden_size_adversary=100,
adversary_entcoeff=1e-3, timesteps_per_batch=1024, lam=0.98), 100 000 timesteps. ``--g-step 3 --max-kl 0.01``
gives GAIL's own defaults (after the warm start: 464-500 up to 90 000 timesteps, then 370-500 at 100 000; as the
original, num_timesteps counts one rollout of timesteps_per_batch per iteration, so g_step=3 runs three times
the environment steps), ``--pretrain-epochs 0`` runs GAIL alone (not reliable on CartPole, see the docs).
Pendulum-v1: GAIL alone, gamma=0.9, lam=0.95, vf_iters=15, vf_stepsize=1e-3, g_step=1 (the other arguments
default), 150 000 timesteps. Both use the first 10 expert trajectories. A uniformly random policy is
evaluated too, as the reference to beat.

Measured 2026-11-21 (1 MPI worker, one core shared by ~30 processes: the wall times are not meaningful, the
CPU times are; deterministic score, 5 episodes at the intermediate budgets, 10 at the end):

- CartPole-v1, recommended (BC + g_step=1, max_kl=0.001), seeds 0, 1, 2: 500 after behaviour cloning and
  500 at 20k, 40k, 60k, 80k and 100k timesteps for every seed (stochastic actions too); ~0.8 s of CPU per
  1000 timesteps.
  Final (10 episodes) at 30 720 timesteps: 500.0 +/- 0.0 for each seed, 21 s of CPU per run incl. evaluations.
  Final (10 episodes) at 100 352 timesteps: 500.0 +/- 0.0 for each seed, 63-64 s of CPU per run incl.
  evaluations.
- CartPole-v1, BC + GAIL's defaults (g_step=3, max_kl=0.01), seeds 0, 1, 2 at 10k/30k/50k/70k/80k/100k:
  seed 0 500/500/499/484/464/500 (final 500.0 +/- 0.0), seed 1 500/500/500/500/500/451 (451.4 +/- 145.8),
  seed 2 500/500/499/500/500/370 (370.1 +/- 53.1); 100 352 timesteps = 230 s of CPU.
- CartPole-v1, BC + g_step=1 with the default max_kl=0.01, seed 0: 500 up to 30k, 469 at 50k, 281 at 70k,
  187 at 80k, 245 at 100k (the cart leaves the track).
- CartPole-v1, GAIL alone with its defaults: seed 0 167 at 9k, 448 at 30k (another run: 145 +/- 22 at 30k),
  seed 1 476 at 9k, 500 at 30k, seed 2 440.5 +/- 59.6 at 30k (77.6 s of CPU).
- Pendulum-v1, seed 0: -604.9 at 50k, -615.1 at 100k, -111.6 +/- 66.2 at 150k timesteps (expert -126.5,
  random policy -1245.9); 166 s of CPU.
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
    # behaviour cloning warm start (20 epochs of pretrain()), then GAIL with g_step=1 and a small trust region
    "CartPole-v1": dict(dataset="expert_cartpole.npz", timesteps=100000, pretrain_epochs=20,
                        kwargs=dict(g_step=1, max_kl=0.001)),
    # short-horizon discount and a better-trained critic, as the SB3 zoo's TRPO setting for Pendulum
    "Pendulum-v1": dict(dataset="expert_pendulum.npz", timesteps=150000,
                        pretrain_epochs=0, kwargs=dict(gamma=0.9, lam=0.95, vf_iters=15, vf_stepsize=1e-3, g_step=1)),
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
        pretrain_epochs: int = 0, overrides: dict = None) -> dict:
    rank = MPI.COMM_WORLD.Get_rank()
    setting = SETTINGS[env_id]
    path = os.path.join(os.path.dirname(gail_dataset.__file__), setting["dataset"])
    dataset = ExpertDataset(expert_path=path, traj_limitation=10, verbose=0)
    model = GAIL("MlpPolicy", Monitor(make_env(env_id), None), dataset, seed=seed + 10000 * rank, n_cpu_tf_sess=1,
                 **dict(setting["kwargs"], **(overrides or {})))
    train_time = 0.0
    cpu_start = time.process_time()
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
                cpu=time.process_time() - cpu_start,
                timesteps=model.num_timesteps, expert=dataset.avg_ret, curve=curve)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--env", default="CartPole-v1", choices=sorted(SETTINGS))
    parser.add_argument("--seeds", type=int, nargs="+", default=[0])
    parser.add_argument("--timesteps", type=int, default=None)
    parser.add_argument("--eval-every", type=int, default=None, help="print the score every N timesteps")
    parser.add_argument("--pretrain-epochs", type=int, default=None,
                        help="behaviour cloning epochs on the expert data before GAIL (default: 20 for CartPole-v1, "
                             "0 for Pendulum-v1; 0 = GAIL alone)")
    parser.add_argument("--g-step", type=int, default=None, help="override GAIL's g_step")
    parser.add_argument("--max-kl", type=float, default=None, help="override TRPO's max_kl")
    args = parser.parse_args()
    overrides = {name: value for name, value in (("g_step", args.g_step), ("max_kl", args.max_kl))
                 if value is not None}
    timesteps = args.timesteps or SETTINGS[args.env]["timesteps"]
    eval_every = args.eval_every or timesteps
    if MPI.COMM_WORLD.Get_rank() == 0:
        print("random policy on {}: {:.1f} (20 episodes)".format(args.env, random_score(args.env)), flush=True)
    for seed in args.seeds:
        pretrain_epochs = args.pretrain_epochs
        if pretrain_epochs is None:
            pretrain_epochs = SETTINGS[args.env]["pretrain_epochs"]
        result = run(args.env, seed, timesteps, eval_every, pretrain_epochs=pretrain_epochs, overrides=overrides)
        if MPI.COMM_WORLD.Get_rank() == 0:
            print("GAIL {env} seed {seed}: score {score:.1f} +/- {std:.1f} (10 episodes, deterministic; expert "
                  "{expert:.1f}), {timesteps} steps ({workers} MPI workers), {fps:.0f} steps/s, wall {wall:.1f} s "
                  "(CPU {cpu:.1f} s incl. evaluations)"
                  .format(env=args.env, workers=MPI.COMM_WORLD.Get_size(), **result), flush=True)


if __name__ == "__main__":
    main()
