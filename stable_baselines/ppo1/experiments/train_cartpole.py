"""
Train PPO1 on CartPole-v1, then evaluate it (deterministic actions).

Single process::

    python -m stable_baselines.ppo1.experiments.train_cartpole

Several MPI workers (their gradients are averaged; the timestep budget is shared)::

    mpirun -np 2 python -m stable_baselines.ppo1.experiments.train_cartpole

Nothing is written to disk unless ``--save-path`` is given.
"""
import argparse
from typing import Optional, Sequence

from mpi4py import MPI

from stable_baselines.common.evaluation import evaluate_policy
from stable_baselines.common.gym_compat import make_env
from stable_baselines.ppo1 import PPO1


def main(args: Optional[Sequence[str]] = None) -> float:
    """
    Train and evaluate.

    :param args: ([str]) the command line arguments (None: ``sys.argv``)
    :return: (float) the mean evaluation return (on rank 0; NaN on the other workers)
    """
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--timesteps", type=int, default=100000, help="total timesteps (all workers together)")
    parser.add_argument("--seed", type=int, default=0, help="base seed (worker i uses seed + 10000 * i)")
    parser.add_argument("--eval-episodes", type=int, default=10)
    parser.add_argument("--save-path", default=None, help="where to save the trained model (rank 0 only)")
    parser.add_argument("--verbose", type=int, default=1)
    parsed = parser.parse_args(args)

    rank = MPI.COMM_WORLD.Get_rank()
    env = make_env("CartPole-v1")
    # rl-baselines-zoo hyperparams/ppo1.yml, CartPole-v1
    model = PPO1("MlpPolicy", env, timesteps_per_actorbatch=1024, clip_param=0.2, entcoeff=0.0, optim_epochs=10,
                 optim_stepsize=3e-4, optim_batchsize=64, gamma=0.99, lam=0.95, schedule="linear",
                 verbose=parsed.verbose if rank == 0 else 0, seed=parsed.seed + 10000 * rank)
    model.learn(total_timesteps=parsed.timesteps)
    mean_reward = float("nan")
    if rank == 0:
        eval_env = make_env("CartPole-v1")
        eval_env.reset(seed=parsed.seed + 123)
        mean_reward, std_reward = evaluate_policy(model, eval_env, n_eval_episodes=parsed.eval_episodes)
        print("PPO1 CartPole-v1: mean reward {:.1f} +/- {:.1f} over {} episodes"
              .format(mean_reward, std_reward, parsed.eval_episodes))
        if parsed.save_path is not None:
            model.save(parsed.save_path)
    return mean_reward


if __name__ == "__main__":
    main()
