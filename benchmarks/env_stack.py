"""
Cost of our environment stack per environment step, against the bare gymnasium environments.

Four ways of stepping the same ``--n-envs`` environments with the same pre-drawn random actions (same seeds,
so every way sees the same episodes and the same resets):

- ``raw``: the ``gymnasium.make`` envs (with gymnasium's own TimeLimit / OrderEnforcing / checker wrappers) in a
  plain Python loop that resets an env when its episode ends;
- ``monitor``: each env inside our ``Monitor`` (no file), same plain loop;
- ``dummy``: the bare envs inside our ``DummyVecEnv``;
- ``stack``: ``DummyVecEnv([lambda: Monitor(make_env(env_id), None)] * n_envs)``, the stack of the on-policy
  benchmarks (``perf_onpolicy.py``, ``vs_sb3.py``).

The ways take turns, repetition after repetition, so that a drift of the machine's speed touches all alike.
Figures are microseconds of CPU time (``time.process_time``) per environment step, median and best of the
repetitions, and the overhead of each way over ``raw``. The script measures whatever ``stable_baselines`` is
imported: run it with ``PYTHONPATH=<checkout>`` to compare two checkouts, alternating.

    python benchmarks/env_stack.py
    python benchmarks/env_stack.py --reps 30 --batches 2000 --env CartPole-v1
"""
import argparse
import os
import statistics
import time
from typing import Any, Callable, Dict, List

for _name in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
    os.environ.setdefault(_name, "1")

import gymnasium  # noqa: E402
import numpy as np  # noqa: E402

import stable_baselines  # noqa: E402
from stable_baselines.bench import Monitor  # noqa: E402
from stable_baselines.common.gym_compat import make_env  # noqa: E402
from stable_baselines.common.vec_env import DummyVecEnv  # noqa: E402


def _plain_loop(envs: List[Any], actions: np.ndarray) -> Callable[[], None]:
    """A run of the envs stepped one by one, each reset at the end of its episode (5-value gymnasium answers)."""
    for seed, env in enumerate(envs):
        env.reset(seed=seed)

    def run() -> None:
        for row in actions:
            for env, action in zip(envs, row):
                _, _, terminated, truncated, _ = env.step(action)
                if terminated or truncated:
                    env.reset()
    return run


def _vec_loop(venv: DummyVecEnv, actions: np.ndarray) -> Callable[[], None]:
    """A run of a DummyVecEnv (which resets its envs itself)."""
    venv.seed(0)
    venv.reset()

    def run() -> None:
        for row in actions:
            venv.step(row)
    return run


def build_runs(env_id: str, n_envs: int, actions: np.ndarray) -> Dict[str, Callable[[], None]]:
    """
    :param env_id: (str) the gymnasium id
    :param n_envs: (int) the number of environments
    :param actions: (np.ndarray) one row of actions (one per env) per step of the batch
    :return: (dict) for each way of stepping, a function that takes all the steps of ``actions``
    """
    return {
        "raw": _plain_loop([gymnasium.make(env_id) for _ in range(n_envs)], actions),
        "monitor": _plain_loop([Monitor(make_env(env_id), None) for _ in range(n_envs)], actions),
        "dummy": _vec_loop(DummyVecEnv([lambda: make_env(env_id)] * n_envs), actions),
        "stack": _vec_loop(DummyVecEnv([lambda: Monitor(make_env(env_id), None)] * n_envs), actions),
    }


def measure(runs: Dict[str, Callable[[], None]], reps: int, env_steps: int) -> Dict[str, List[float]]:
    """
    :param runs: (dict) the ways of stepping (see :func:`build_runs`)
    :param reps: (int) repetitions of each way, taken in turns
    :param env_steps: (int) environment steps of one run
    :return: (dict) for each way, the CPU microseconds per environment step of every repetition
    """
    for run in runs.values():  # warm-up
        run()
    timings: Dict[str, List[float]] = {name: [] for name in runs}
    for _ in range(reps):
        for name, run in runs.items():
            start = time.process_time()
            run()
            timings[name].append(1e6 * (time.process_time() - start) / env_steps)
    return timings


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--env", default="CartPole-v1")
    parser.add_argument("--n-envs", type=int, default=8)
    parser.add_argument("--batches", type=int, default=1000, help="steps of the (vectorized) env per run")
    parser.add_argument("--reps", type=int, default=15, help="runs of each way, taken in turns")
    args = parser.parse_args()
    space = gymnasium.make(args.env).action_space
    space.seed(0)
    actions = np.array([[space.sample() for _ in range(args.n_envs)] for _ in range(args.batches)])
    timings = measure(build_runs(args.env, args.n_envs, actions), args.reps, args.batches * args.n_envs)
    raw = statistics.median(timings["raw"])
    print("stable_baselines from {}".format(os.path.dirname(stable_baselines.__file__)))
    print("{} x {}, {} env steps per run, {} runs each; CPU us per env step:".format(
        args.n_envs, args.env, args.batches * args.n_envs, args.reps))
    for name, values in timings.items():
        median = statistics.median(values)
        print("  {:8s} median {:6.2f}  best {:6.2f}  over raw {:+6.2f}".format(name, median, min(values), median - raw))


if __name__ == "__main__":
    main()
