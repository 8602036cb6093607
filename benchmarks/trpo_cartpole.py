"""
Train TRPO on CartPole-v1 with the rl-baselines-zoo hyper-parameters and report the deterministic
score, steps/s and wall time.

    python benchmarks/trpo_cartpole.py --seeds 0 1 2
    mpirun --oversubscribe -np 2 python benchmarks/trpo_cartpole.py   # 2 MPI workers

The zoo's ``hyperparams/trpo.yml`` (CartPole-v1), as stored in the zoo's own trained agent
(``tests/data/legacy_models/trpo/CartPole-v1.pkl``): 1e5 timesteps, timesteps_per_batch 512,
max_kl 0.001, cg_iters 10, cg_damping 1e-3, entcoeff 0.0, gamma 0.99, lam 1.0, vf_iters 3,
vf_stepsize 1e-4. With N MPI workers each collects timesteps_per_batch steps per iteration and the
total budget is shared.
"""
import argparse

from mpi4py import MPI

from bench_util import add_seed_arguments, run_seeds, timed_learn
from stable_baselines import TRPO
from stable_baselines.bench import Monitor
from stable_baselines.common.evaluation import evaluate_policy
from stable_baselines.common.gym_compat import make_env

ZOO_KWARGS = dict(timesteps_per_batch=512, max_kl=0.001, cg_iters=10, cg_damping=1e-3, entcoeff=0.0,
                  gamma=0.99, lam=1.0, vf_iters=3, vf_stepsize=1e-4)
ZOO_TIMESTEPS = 100000


def run(seed: int, timesteps: int = ZOO_TIMESTEPS, n_eval_episodes: int = 20) -> dict:
    rank = MPI.COMM_WORLD.Get_rank()
    env = Monitor(make_env("CartPole-v1"), None)
    model = TRPO("MlpPolicy", env, seed=seed + 10000 * rank, n_cpu_tf_sess=1, **ZOO_KWARGS)
    wall, _ = timed_learn(model, timesteps)
    mean, std = evaluate_policy(model, make_env("CartPole-v1"), n_eval_episodes=n_eval_episodes, deterministic=True)
    return dict(seed=seed, score=mean, std=std, wall=wall, fps=model.num_timesteps / wall,
                timesteps=model.num_timesteps)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_seed_arguments(parser, ZOO_TIMESTEPS)
    args = parser.parse_args()
    run_seeds(args.seeds, lambda seed: run(seed, args.timesteps),
              "TRPO CartPole-v1 seed {seed}: score {score:.1f} +/- {std:.1f} (20 episodes, deterministic), "
              "{timesteps} steps ({workers} MPI workers), {fps:.0f} steps/s, wall {wall:.1f} s",
              printing=MPI.COMM_WORLD.Get_rank() == 0, workers=MPI.COMM_WORLD.Get_size())


if __name__ == "__main__":
    main()
