"""
Speed of the off-policy algorithms (the settings of the performance issue): environment steps per second of
``learn`` for DQN on CartPole-v1, SAC and TD3 on Pendulum-v1 (64x64 relu MLPs, ``n_cpu_tf_sess=1``), and the
latency of ``predict`` for one observation with a SAC MLP policy.

Each figure is the median over ``--runs`` runs. Both the CPU time of this process (``time.process_time``, robust
when other programs load the machine) and the wall-clock time are reported. Set ``OMP_NUM_THREADS=1`` for
figures comparable with single-threaded baselines.

    python benchmarks/perf_offpolicy.py                    # all, 3 runs each
    python benchmarks/perf_offpolicy.py --algos sac --runs 5 --steps 3000
    python benchmarks/perf_offpolicy.py --tf-remapper      # with TensorFlow's fused dense kernels, to compare
"""
import argparse
import os
import sys
import time

if "--tf-remapper" in sys.argv:
    os.environ["STABLE_BASELINES_TF_REMAPPER"] = "1"

import numpy as np

from stable_baselines import DQN, SAC, TD3
from stable_baselines.common.gym_compat import make_env
from stable_baselines.common.noise import NormalActionNoise


def make_model(algo: str, seed: int):
    """The model of the performance issue for ``algo`` ('dqn', 'sac' or 'td3')."""
    if algo == "dqn":
        return DQN("MlpPolicy", make_env("CartPole-v1"), train_freq=1, learning_starts=1000,
                   target_network_update_freq=500, batch_size=32, double_q=False, prioritized_replay=False,
                   policy_kwargs=dict(dueling=False), seed=seed, n_cpu_tf_sess=1)
    if algo == "sac":
        return SAC("MlpPolicy", make_env("Pendulum-v1"), train_freq=1, gradient_steps=1, batch_size=64,
                   learning_starts=100, seed=seed, n_cpu_tf_sess=1)
    if algo == "td3":
        return TD3("MlpPolicy", make_env("Pendulum-v1"), train_freq=1, gradient_steps=1, batch_size=128,
                   action_noise=NormalActionNoise(np.zeros(1), 0.1 * np.ones(1)), seed=seed, n_cpu_tf_sess=1)
    raise ValueError("algo must be 'dqn', 'sac' or 'td3', got {!r}".format(algo))


def time_learn(algo: str, steps: int, seed: int) -> tuple:
    """:return: (cpu steps/s, wall steps/s) of one ``learn(steps)`` call on a fresh model"""
    model = make_model(algo, seed)
    cpu, wall = time.process_time(), time.perf_counter()
    model.learn(steps)
    return steps / (time.process_time() - cpu), steps / (time.perf_counter() - wall)


def time_predict(n_calls: int = 2000) -> tuple:
    """:return: (median CPU us, median wall us) of ``SAC.predict`` on one Pendulum observation"""
    model = make_model("sac", 0)
    obs = make_env("Pendulum-v1").reset(seed=0)[0]
    for _ in range(100):
        model.predict(obs)
    cpu, wall = [], []
    for _ in range(n_calls):
        c, w = time.process_time(), time.perf_counter()
        model.predict(obs)
        cpu.append(time.process_time() - c)
        wall.append(time.perf_counter() - w)
    # process_time has a coarse resolution on some systems: report the mean CPU time beside the median wall time
    return 1e6 * float(np.mean(cpu)), 1e6 * float(np.median(wall))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--algos", nargs="+", default=["dqn", "sac", "td3", "predict"])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--steps", type=int, default=None, help="steps per run (default: dqn 5000, sac/td3 3000)")
    parser.add_argument("--tf-remapper", action="store_true",
                        help="keep TensorFlow's remapper (fused MatMul+BiasAdd kernels) in the models' sessions")
    args = parser.parse_args()
    default_steps = {"dqn": 5000, "sac": 3000, "td3": 3000}
    for algo in args.algos:
        if algo == "predict":
            cpu_us, wall_us = time_predict()
            print("SAC predict latency: {:.1f} us CPU (mean), {:.1f} us wall (median)".format(cpu_us, wall_us))
            continue
        steps = args.steps or default_steps[algo]
        results = np.array([time_learn(algo, steps, seed) for seed in range(args.runs)])
        print("{}: {:.0f} steps/s CPU, {:.0f} steps/s wall (median of {} runs of {} steps; CPU runs {})".format(
            algo.upper(), np.median(results[:, 0]), np.median(results[:, 1]), args.runs, steps,
            np.round(results[:, 0]).astype(int).tolist()), flush=True)


if __name__ == "__main__":
    main()
