"""
PPO2 and A2C data-parallel under ``mpirun``: measured throughput at ``-np 1`` and ``-np 2``, the cost of the
gradient allreduce, and the efficiency it projects at 8, 16 and 64 ranks; then whether ``-np 2`` learns CartPole.
Every table is printed as reStructuredText for ``docs/misc/performance.rst``.

- ``throughput``: PPO2 and A2C on CartPole-v1 (``MlpPolicy``) and on PongNoFrameskip-v4 (``CnnPolicy``, the DeepMind
  stack, when ale-py imports), a fixed number of environments per rank (weak scaling: the global batch grows with
  the ranks), one TF thread per rank. After one warm-up ``learn``, a second one is timed: agent steps per second
  of all ranks, wall time, the share of rank 0's time inside the allreduce, the bytes of one gradient.
- ``latency``: under ``mpirun -np 2``, the median time of an ``Allreduce`` of one float (latency) and of a buffer
  of each model's gradient size (giving the bandwidth).
- projection: a ring allreduce of ``B`` bytes over ``N`` ranks costs ``2 (N - 1) / N * B / bandwidth
  + 2 (N - 1) * latency``; the per-rank time of an update without it stays what ``-np 1`` measured. Efficiency at
  ``N`` = time of an update at one rank / (that + the optimizer steps of an update * the allreduce time at ``N``),
  with the latency and bandwidth measured here (shared memory, one machine) and with those of a 10 Gb/s Ethernet
  (50 us, 1.1 GB/s) and of an InfiniBand EDR fabric (2 us, 11 GB/s) between machines.
- ``learning``: PPO2 with the rl-baselines-zoo CartPole-v1 settings, 8 environments in all (``-np 1``: 8, ``-np 2``:
  4 per rank), 1e5 steps in all (the same per-sample budget), then 10 evaluation episodes of the deterministic
  policy on rank 0.

    python benchmarks/ppo2_mpi_scaling.py                     # everything (a few minutes on 2 cores)
    python benchmarks/ppo2_mpi_scaling.py throughput --updates 2
    python benchmarks/ppo2_mpi_scaling.py learning --seeds 0 1 2
"""
import argparse
import json
import os
import subprocess
import sys
import time
from typing import Any, Dict, List, Sequence

from bench_util import mpirun_path, rst_table, run_worker, single_thread_env

HERE = os.path.abspath(__file__)
REPO = os.path.dirname(os.path.dirname(HERE))
# (algorithm, task) -> (environments per rank, settings)
CASES = {
    ("PPO2", "CartPole"): (4, dict(n_steps=128, nminibatches=4, noptepochs=4)),
    ("A2C", "CartPole"): (4, dict(n_steps=5)),
    ("PPO2", "Pong"): (2, dict(n_steps=128, nminibatches=4, noptepochs=4)),
    ("A2C", "Pong"): (4, dict(n_steps=5)),
}
NETWORKS = (("10 GbE", 50e-6, 1.1e9), ("InfiniBand EDR", 2e-6, 11e9))
PROJECTED_RANKS = (8, 16, 64)


def _median(values: Sequence[float]) -> float:
    ordered = sorted(values)
    return ordered[len(ordered) // 2]


def _env(task: str, n_envs: int, rank: int) -> Any:
    from stable_baselines.common.command_line import scripts as cli
    from stable_baselines.common.gym_compat import make_env
    from stable_baselines.common.vec_env import DummyVecEnv
    if task == "Pong":
        return cli.stacked_atari_env("PongNoFrameskip-v4", n_envs, 10000 * rank, start_index=n_envs * rank)
    return DummyVecEnv([lambda: make_env("CartPole-v1") for _ in range(n_envs)])


def _optimizer_steps(algo: str, settings: Dict[str, int]) -> int:
    return settings["nminibatches"] * settings["noptepochs"] if algo == "PPO2" else 1


# ------------------------------------------------------------------------------------------------
# workers (run under mpirun; rank 0 prints one JSON line)
# ------------------------------------------------------------------------------------------------
def worker_throughput(algo: str, task: str, updates: int) -> None:
    from stable_baselines import A2C, PPO2
    from stable_baselines.common.model.data_parallel import ALLREDUCE_STATS
    from stable_baselines.common.misc_util import mpi_rank_or_zero
    n_envs, settings = CASES[(algo, task)]
    rank = mpi_rank_or_zero()
    model = {"PPO2": PPO2, "A2C": A2C}[algo]("CnnPolicy" if task == "Pong" else "MlpPolicy",
                                             _env(task, n_envs, rank), seed=0, n_cpu_tf_sess=1, **settings)
    ranks = model._n_ranks()
    global_batch = model._global_batch()
    model.learn(global_batch)  # warm-up: graph callables, first allocations
    ALLREDUCE_STATS.reset()
    started = time.perf_counter()
    model.learn(updates * global_batch)
    wall = time.perf_counter() - started
    n_params = sum(int(value.size) for value in model.get_parameters().values())
    if rank == 0:
        print(json.dumps(dict(algo=algo, task=task, ranks=ranks, n_envs=n_envs, wall=wall,
                              steps=model.num_timesteps, allreduce_s=ALLREDUCE_STATS.seconds,
                              allreduce_calls=ALLREDUCE_STATS.calls, grad_bytes=4 * n_params,
                              updates=updates, optimizer_steps=_optimizer_steps(algo, settings))), flush=True)


def worker_latency(sizes: Sequence[int], repeats: int) -> None:
    import numpy as np
    from mpi4py import MPI
    comm = MPI.COMM_WORLD
    results = {}
    for size in [1] + list(sizes):
        local, out = np.ones(size, np.float32), np.empty(size, np.float32)
        times = []
        for _ in range(repeats):
            comm.Barrier()
            started = time.perf_counter()
            comm.Allreduce(local, out, op=MPI.SUM)
            times.append(time.perf_counter() - started)
        results[str(size)] = _median(times)
    if comm.Get_rank() == 0:
        print(json.dumps(results), flush=True)


def worker_learning(seed: int, total: int, n_envs: int) -> None:
    from stable_baselines import PPO2
    from stable_baselines.bench import Monitor
    from stable_baselines.common.evaluation import evaluate_policy
    from stable_baselines.common.gym_compat import make_env
    from stable_baselines.common.misc_util import mpi_rank_or_zero
    from stable_baselines.common.vec_env import DummyVecEnv
    env = DummyVecEnv([lambda: Monitor(make_env("CartPole-v1"), None) for _ in range(n_envs)])
    model = PPO2("MlpPolicy", env, n_steps=32, nminibatches=1, lam=0.8, gamma=0.98, noptepochs=20, ent_coef=0.0,
                 learning_rate=lambda f: f * 1e-3, cliprange=lambda f: f * 0.2, seed=seed, n_cpu_tf_sess=1)
    started = time.perf_counter()
    model.learn(total)
    wall = time.perf_counter() - started
    if mpi_rank_or_zero() == 0:
        eval_env = make_env("CartPole-v1")
        eval_env.reset(seed=1000 + seed)
        mean_reward, _ = evaluate_policy(model, eval_env, n_eval_episodes=10)
        print(json.dumps(dict(seed=seed, ranks=model._n_ranks(), steps=model.num_timesteps, wall=wall,
                              mean_reward=float(mean_reward))), flush=True)


# ------------------------------------------------------------------------------------------------
# driver
# ------------------------------------------------------------------------------------------------
def _mpirun(ranks: int, *args: object, timeout: float = 1800) -> List[dict]:
    command = [mpirun_path(), "--oversubscribe", "-np", str(ranks), sys.executable, HERE, "--worker"] + [
        str(arg) for arg in args]
    return run_worker(command, timeout, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
                      PYTHONPATH=REPO + os.pathsep + os.environ.get("PYTHONPATH", ""))


def _ring_allreduce(n_ranks: int, n_bytes: float, latency: float, bandwidth: float) -> float:
    return 2 * (n_ranks - 1) / n_ranks * n_bytes / bandwidth + 2 * (n_ranks - 1) * latency


def _atari_available() -> bool:
    probe = subprocess.run([sys.executable, "-c", "import ale_py"], capture_output=True, check=False)
    return probe.returncode == 0


def throughput_and_projection(updates: int) -> str:
    tasks = ["CartPole"] + (["Pong"] if _atari_available() else [])
    measured: Dict[Any, Dict[int, dict]] = {}
    for task in tasks:
        for algo in ("PPO2", "A2C"):
            # A2C updates are tiny: time 40 times as many
            n_updates = updates * (40 if algo == "A2C" else 1) * (1 if task == "Pong" else 8)
            measured[(algo, task)] = {ranks: _mpirun(ranks, "throughput", algo, task, n_updates)[0]
                                      for ranks in (1, 2)}
    grad_sizes = sorted({row[2]["grad_bytes"] // 4 for row in measured.values()})
    latency = _mpirun(2, "latency", *grad_sizes)[0]
    lines = []
    rows = []
    for (algo, task), by_ranks in measured.items():
        one, two = by_ranks[1], by_ranks[2]
        rows.append([algo, task, one["n_envs"], "{:.0f}".format(one["steps"] / one["wall"]),
                     "{:.0f}".format(two["steps"] / two["wall"]), "{:.2f}".format(one["wall"]),
                     "{:.2f}".format(two["wall"]),
                     "{:.2f}".format((two["steps"] / two["wall"]) / (one["steps"] / one["wall"])),
                     "{:.1f} %".format(100 * two["allreduce_s"] / two["wall"]),
                     "{:.0f} kB".format(two["grad_bytes"] / 1e3)])
    lines.append(rst_table(["algorithm", "task", "envs/rank", "steps/s -np 1", "steps/s -np 2", "wall -np 1 (s)",
                         "wall -np 2 (s)", "speed-up", "allreduce share", "gradient"], rows))
    small = latency["1"]
    link_rows = [["latency (1 float)", "{:.1f} us".format(1e6 * small)]]
    bandwidths = {}
    for size in grad_sizes:
        seconds = latency[str(size)]
        # a 2-rank ring moves the buffer once each way: B / bandwidth = time - 2 latencies
        bandwidths[size] = 4 * size / max(seconds - 2 * small, 1e-9)
        link_rows.append(["allreduce of {:.0f} kB".format(4 * size / 1e3),
                          "{:.1f} us ({:.2f} GB/s)".format(1e6 * seconds, bandwidths[size] / 1e9)])
    lines += ["", rst_table(["measured (-np 2, shared memory)", "time"], link_rows)]
    projection = []
    for (algo, task), by_ranks in measured.items():
        one = by_ranks[1]
        per_update = one["wall"] / one["updates"]
        steps_per_update = one["optimizer_steps"]
        n_bytes = one["grad_bytes"]
        links = [("this machine", small, bandwidths[n_bytes // 4])] + list(NETWORKS)
        for name, link_latency, bandwidth in links:
            cells = []
            for ranks in PROJECTED_RANKS:
                cost = steps_per_update * _ring_allreduce(ranks, n_bytes, link_latency, bandwidth)
                cells.append("{:.0f} %".format(100 * per_update / (per_update + cost)))
            projection.append([algo, task, "{:.1f} ms".format(1e3 * per_update), name] + cells)
    lines += ["", rst_table(["algorithm", "task", "update at 1 rank", "link"]
                         + ["efficiency N={}".format(ranks) for ranks in PROJECTED_RANKS], projection)]
    return "\n".join(lines)


def learning(seeds: Sequence[int], total: int, all_ranks: Sequence[int]) -> str:
    rows = []
    for seed in seeds:
        for ranks in all_ranks:
            result = _mpirun(ranks, "learning", seed, total, 8 // ranks)[0]
            rows.append([seed, result["ranks"], 8 // ranks, result["steps"], "{:.1f}".format(result["wall"]),
                         "{:.1f}".format(result["mean_reward"])])
    return rst_table(["seed", "ranks", "envs/rank", "steps (all ranks)", "wall (s)", "mean reward (10 episodes)"],
                  rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("parts", nargs="*", default=["throughput", "learning"])
    parser.add_argument("--updates", type=int, default=2, help="timed updates (PPO2 Pong; CartPole 8x, A2C 40x)")
    parser.add_argument("--seeds", type=int, nargs="*", default=[0, 1, 2])
    parser.add_argument("--total", type=int, default=100000, help="learning: steps of all ranks")
    parser.add_argument("--ranks", type=int, nargs="*", default=[1, 2], help="learning: the -np values")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    single_thread_env()
    if args.worker:
        name, rest = args.parts[0], args.parts[1:]
        if name == "throughput":
            worker_throughput(rest[0], rest[1], int(rest[2]))
        elif name == "latency":
            worker_latency([int(size) for size in rest], repeats=200)
        else:
            worker_learning(int(rest[0]), int(rest[1]), int(rest[2]))
        return
    print("load average {:.2f}, {:.2f}, {:.2f} on {} cores".format(*os.getloadavg(), os.cpu_count()))
    for part in args.parts:
        if part == "throughput":
            print(throughput_and_projection(args.updates))
        elif part == "learning":
            print(learning(args.seeds, args.total, args.ranks))
        else:
            parser.error("unknown part {!r} (throughput, learning)".format(part))
        print(flush=True)


if __name__ == "__main__":
    main()
