"""
Train ACKTR on Pendulum-v1 with the rl-baselines-zoo hyper-parameters of the shipped Pendulum-v0 agent (the
``data`` of tests/data/legacy_models/acktr/Pendulum-v0.zip and its config.yml: n_envs 4, n_steps 16,
learning_rate 0.06 with the constant schedule, ent_coef 0.0, gamma 0.99, vf_coef 0.25, vf_fisher_coef 1.0,
kfac_clip 0.001, max_grad_norm 0.5, kfac_update 1, no GAE, MlpPolicy; the zoo trained it for 2e6 steps).
Prints the learning curve (mean return of the last 100 training episodes every ``--every`` steps, with the
CPU time of this process), then the score of the final agent over ``--episodes`` evaluation episodes,
deterministic and stochastic (a random policy scores about -1200), steps/s and wall time.

    python benchmarks/acktr_pendulum.py --seeds 0 --timesteps 2000000

``--normalize`` wraps the training environments in ``VecNormalize(norm_obs=False, norm_reward=True)``
(reward scaling only; the agent acts on raw observations and is evaluated on the raw environment). This is an
experiment, not a zoo setting: with the zoo settings the value function must first climb to returns of several
hundred under ACKTR's trust region.
"""
import argparse
import os
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np  # noqa: E402  pylint: disable=wrong-import-position

from bench_util import add_seed_arguments, evaluation_score, run_seeds, timed_learn, two_mode_summary  # noqa: E402  pylint: disable=wrong-import-position
from stable_baselines import ACKTR  # noqa: E402  pylint: disable=wrong-import-position
from stable_baselines.bench import Monitor  # noqa: E402  pylint: disable=wrong-import-position
from stable_baselines.common.callbacks import BaseCallback  # noqa: E402  pylint: disable=wrong-import-position
from stable_baselines.common.gym_compat import make_env  # noqa: E402  pylint: disable=wrong-import-position
from stable_baselines.common.vec_env import DummyVecEnv, VecNormalize  # noqa: E402  pylint: disable=wrong-import-position

ZOO_KWARGS = dict(n_steps=16, learning_rate=0.06, lr_schedule="constant", ent_coef=0.0, gamma=0.99,
                  vf_coef=0.25, vf_fisher_coef=1.0, kfac_clip=0.001, max_grad_norm=0.5, kfac_update=1)
N_ENVS = 4


class CurvePrinter(BaseCallback):
    """Print the mean return of the last 100 training episodes every ``every`` steps."""

    def __init__(self, every: int):
        super(CurvePrinter, self).__init__()
        self.every = every
        self.next_print = every

    def _on_step(self) -> bool:
        if self.num_timesteps >= self.next_print:
            self.next_print += self.every
            buf = self.model.ep_info_buf
            mean = float(np.mean([info["r"] for info in buf])) if buf else float("nan")
            print("  {:>8d} steps: last 100 training episodes {:8.1f}   (CPU {:.0f} s)".format(
                self.num_timesteps, mean, time.process_time()), flush=True)
        return True


def evaluate(model, seed: int, n_episodes: int, deterministic: bool) -> float:
    """Mean return of ``n_episodes`` episodes on the raw Pendulum-v1 (evaluation env seeded with 1000 + seed)."""
    return float(evaluation_score(model, "Pendulum-v1", seed, n_episodes, deterministic)[0])


def run(seed: int, timesteps: int, every: int, n_episodes: int, normalize: bool = False) -> dict:
    env = DummyVecEnv([lambda: Monitor(make_env("Pendulum-v1"), None) for _ in range(N_ENVS)])
    if normalize:
        env = VecNormalize(env, norm_obs=False, norm_reward=True, gamma=ZOO_KWARGS["gamma"])
    model = ACKTR("MlpPolicy", env, seed=seed, n_cpu_tf_sess=1, **ZOO_KWARGS)
    print("acktr Pendulum-v1 seed {}{}:".format(seed, " (reward normalization)" if normalize else ""), flush=True)
    wall, cpu = timed_learn(model, timesteps, callback=CurvePrinter(every) if every > 0 else None)
    return dict(seed=seed, det=evaluate(model, seed, n_episodes, True), sto=evaluate(model, seed, n_episodes, False),
                wall=wall, fps=timesteps / wall, cpu_fps=timesteps / cpu, timesteps=timesteps, episodes=n_episodes)


def main():
    parser = argparse.ArgumentParser()
    add_seed_arguments(parser, 2000000, "the zoo budget is 2e6")
    parser.add_argument("--every", type=int, default=100000, help="print the training curve every N steps (0: off)")
    parser.add_argument("--episodes", type=int, default=20, help="evaluation episodes (each mode)")
    parser.add_argument("--normalize", action="store_true", help="scale the rewards with VecNormalize")
    args = parser.parse_args()
    results = run_seeds(args.seeds, lambda seed: run(seed, args.timesteps, args.every, args.episodes, args.normalize),
                        "acktr Pendulum-v1 seed {seed}: {timesteps} steps, score over {episodes} episodes deterministic "
                        "{det:.1f}, stochastic {sto:.1f}, {fps:.0f} steps/s ({cpu_fps:.0f} per CPU second), "
                        "wall {wall:.1f} s")
    print(two_mode_summary("acktr Pendulum-v1", results, "random policy: about -1200"))


if __name__ == "__main__":
    main()
