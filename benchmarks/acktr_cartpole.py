"""
Train ACKTR on CartPole-v1 with the rl-baselines-zoo hyper-parameters (acktr.yml CartPole-v1: n_envs 8,
n_timesteps 1e5, MlpPolicy, ent_coef 0.0; every other argument at ACKTR's defaults: n_steps 20,
learning_rate 0.25 with the linear schedule, kfac_clip 0.001, vf_coef 0.25, gamma 0.99) and report the
score of the final agent over 20 evaluation episodes, both deterministic (mode of the policy) and stochastic
(sampled actions, as the zoo's ``enjoy.py`` evaluated ACKTR), the steps/s (wall clock and CPU time of this
process) and the wall time.

    python benchmarks/acktr_cartpole.py --seeds 0 1 2 3 4
"""
import argparse
import os

os.environ.setdefault("OMP_NUM_THREADS", "1")

from bench_util import add_seed_arguments, evaluation_score, run_seeds, timed_learn, two_mode_summary  # noqa: E402  pylint: disable=wrong-import-position
from stable_baselines import ACKTR  # noqa: E402  pylint: disable=wrong-import-position
from stable_baselines.bench import Monitor  # noqa: E402  pylint: disable=wrong-import-position
from stable_baselines.common.gym_compat import make_env  # noqa: E402  pylint: disable=wrong-import-position
from stable_baselines.common.vec_env import DummyVecEnv  # noqa: E402  pylint: disable=wrong-import-position

ZOO_KWARGS = dict(ent_coef=0.0)


def evaluate(model, seed: int, n_episodes: int, deterministic: bool) -> float:
    """Mean return of ``n_episodes`` evaluation episodes of ``model`` (evaluation env seeded with 1000 + seed)."""
    return float(evaluation_score(model, "CartPole-v1", seed, n_episodes, deterministic)[0])


def run(seed: int, timesteps: int = 100000, n_episodes: int = 20) -> dict:
    env = DummyVecEnv([lambda: Monitor(make_env("CartPole-v1"), None) for _ in range(8)])
    model = ACKTR("MlpPolicy", env, seed=seed, n_cpu_tf_sess=1, **ZOO_KWARGS)
    wall, cpu = timed_learn(model, timesteps)
    return dict(seed=seed, det=evaluate(model, seed, n_episodes, True), sto=evaluate(model, seed, n_episodes, False),
                wall=wall, fps=timesteps / wall, cpu_fps=timesteps / cpu, timesteps=timesteps)


def main():
    parser = argparse.ArgumentParser()
    add_seed_arguments(parser, 100000)
    parser.add_argument("--episodes", type=int, default=20, help="evaluation episodes (each mode)")
    args = parser.parse_args()
    results = run_seeds(args.seeds, lambda seed: run(seed, args.timesteps, args.episodes),
                        "acktr CartPole-v1 seed {seed}: {timesteps} steps, score deterministic {det:.1f}, stochastic "
                        "{sto:.1f}, {fps:.0f} steps/s ({cpu_fps:.0f} per CPU second), wall {wall:.1f} s")
    print(two_mode_summary("acktr CartPole-v1", results, "maximum 500, random policy about 22"))


if __name__ == "__main__":
    main()
