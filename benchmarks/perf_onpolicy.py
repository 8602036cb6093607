"""
Speed of the on-policy core: PPO2 and A2C learning throughput, ``predict`` latency, time to solve
CartPole-v1 with the rl-baselines-zoo PPO2 settings, and peak memory.

Every figure is the median of ``--runs`` fresh measurements; throughput is given in wall-clock and in
CPU time of this (single-threaded) process, which is the fairer figure on a loaded machine.
``--graph`` turns the NumPy inference path off (``STABLE_BASELINES_NUMPY_FORWARD=0``), to compare;
``--tf-remapper`` keeps TensorFlow's fused dense-layer kernels in the models' sessions
(``STABLE_BASELINES_TF_REMAPPER=1``), to compare.

    python benchmarks/perf_onpolicy.py                   # everything
    python benchmarks/perf_onpolicy.py --what ppo2 a2c --runs 5
    python benchmarks/perf_onpolicy.py --what predict --graph

Settings (those of the performance issue): CartPole-v1 in a Monitor, DummyVecEnv of 8 envs,
64x64 tanh MLP (separate policy and value networks), ``n_cpu_tf_sess=1``;
PPO2 n_steps 128, nminibatches 4, noptepochs 4; A2C n_steps 5.
"""
import argparse
import os
import resource
import sys
import time

for _name in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
    os.environ.setdefault(_name, "1")
if "--tf-remapper" in sys.argv:
    os.environ["STABLE_BASELINES_TF_REMAPPER"] = "1"
if "--graph" in sys.argv:
    os.environ["STABLE_BASELINES_NUMPY_FORWARD"] = "0"

import numpy as np  # noqa: E402

from stable_baselines import A2C, PPO2  # noqa: E402
from stable_baselines.bench import Monitor  # noqa: E402
from stable_baselines.common.callbacks import BaseCallback  # noqa: E402
from stable_baselines.common.gym_compat import make_env  # noqa: E402
from stable_baselines.common.vec_env import DummyVecEnv  # noqa: E402


def _venv(n_envs: int = 8) -> DummyVecEnv:
    return DummyVecEnv([lambda: Monitor(make_env("CartPole-v1"), None) for _ in range(n_envs)])


def throughput(algo: str, steps: int) -> dict:
    """Environment steps per second of ``learn`` (after a short warm-up)."""
    if algo == "ppo2":
        model = PPO2("MlpPolicy", _venv(), n_steps=128, nminibatches=4, noptepochs=4, n_cpu_tf_sess=1, seed=0)
        model.learn(2048)
    else:
        model = A2C("MlpPolicy", _venv(), n_steps=5, n_cpu_tf_sess=1, seed=0)
        model.learn(2000)
    start_wall, start_cpu = time.perf_counter(), time.process_time()
    model.learn(steps)
    wall, cpu = time.perf_counter() - start_wall, time.process_time() - start_cpu
    return {"fps_wall": steps / wall, "fps_cpu": steps / cpu, "us_per_step_cpu": 1e6 * cpu / steps}


def predict_latency(n_calls: int = 5000) -> dict:
    """Median latency of ``model.predict`` for one CartPole observation (stochastic and deterministic)."""
    model = PPO2("MlpPolicy", _venv(1), n_cpu_tf_sess=1, seed=0)
    obs = np.zeros(4, dtype=np.float32)
    result = {}
    for deterministic in (False, True):
        for _ in range(500):
            model.predict(obs, deterministic=deterministic)
        wall, cpu = [], []
        for _ in range(n_calls):
            start_wall, start_cpu = time.perf_counter_ns(), time.process_time_ns()
            model.predict(obs, deterministic=deterministic)
            cpu.append(time.process_time_ns() - start_cpu)
            wall.append(time.perf_counter_ns() - start_wall)
        tag = "det" if deterministic else "stoch"
        result["us_wall_" + tag] = float(np.median(wall)) / 1e3
        result["us_cpu_" + tag] = float(np.median(cpu)) / 1e3
    return result


class _SolvedCallback(BaseCallback):
    """Stop when the mean return of the last 100 training episodes reaches ``threshold``."""

    def __init__(self, threshold: float = 475.0):
        super().__init__()
        self.threshold = threshold
        self.solved_at = None

    def _on_step(self) -> bool:
        return self.solved_at is None  # stop at the first step after the solving rollout

    def _on_rollout_end(self) -> None:
        buf = self.model.ep_info_buf
        if buf is not None and len(buf) >= 100 and self.solved_at is None:
            if np.mean([info["r"] for info in buf]) >= self.threshold:
                self.solved_at = self.num_timesteps


def time_to_solve(seed: int, max_steps: int = 200000) -> dict:
    """Wall and CPU time until the mean return of the last 100 episodes is >= 475 (zoo PPO2 settings)."""
    def linear(value):
        return lambda progress: progress * value

    model = PPO2("MlpPolicy", _venv(), n_steps=32, nminibatches=1, lam=0.8, gamma=0.98, noptepochs=20,
                 ent_coef=0.0, learning_rate=linear(1e-3), cliprange=linear(0.2), n_cpu_tf_sess=1, seed=seed)
    callback = _SolvedCallback()
    start_wall, start_cpu = time.perf_counter(), time.process_time()
    model.learn(max_steps, callback=callback)
    return {"solved_at_steps": callback.solved_at, "wall_s": time.perf_counter() - start_wall,
            "cpu_s": time.process_time() - start_cpu}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--what", nargs="+", default=["ppo2", "a2c", "predict", "solve"],
                        choices=["ppo2", "a2c", "predict", "solve"])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--steps", type=int, default=16384)
    parser.add_argument("--graph", action="store_true", help="disable the NumPy inference path")
    parser.add_argument("--tf-remapper", action="store_true",
                        help="keep TensorFlow's remapper (fused MatMul+BiasAdd kernels) in the models' sessions")
    args = parser.parse_args()
    print("NumPy inference path: {}; TensorFlow's remapper: {}".format("off" if args.graph else "on",
                                                                      "on" if args.tf_remapper else "off on CPU"))
    for what in args.what:
        if what in ("ppo2", "a2c"):
            runs = [throughput(what, args.steps) for _ in range(args.runs)]
            print("{}: {:.0f} steps/s wall, {:.0f} steps/s CPU ({:.1f} us CPU per step), median of {} runs".format(
                what, np.median([r["fps_wall"] for r in runs]), np.median([r["fps_cpu"] for r in runs]),
                np.median([r["us_per_step_cpu"] for r in runs]), args.runs), flush=True)
        elif what == "predict":
            runs = [predict_latency() for _ in range(args.runs)]
            print("predict, one observation: median {:.1f} us wall / {:.1f} us CPU (stochastic), "
                  "{:.1f} us wall / {:.1f} us CPU (deterministic)".format(
                      *[np.median([r[key] for r in runs]) for key in
                        ("us_wall_stoch", "us_cpu_stoch", "us_wall_det", "us_cpu_det")]), flush=True)
        else:
            runs = [time_to_solve(seed) for seed in range(args.runs)]
            for seed, run in enumerate(runs):
                print("solve CartPole-v1 (zoo PPO2), seed {}: mean return >= 475 at {} steps, {:.1f} s wall, "
                      "{:.1f} s CPU".format(seed, run["solved_at_steps"], run["wall_s"], run["cpu_s"]), flush=True)
    print("peak memory (max RSS): {:.0f} MB".format(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0))


if __name__ == "__main__":
    main()
