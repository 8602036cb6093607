"""
How the cost grows: three measurements, each printed as a reStructuredText table ready for
``docs/misc/performance.rst`` (with the machine's load average before and after, as the figures depend on it).

- ``n_envs``: PPO2 ``MlpPolicy`` on CartPole-v1 (n_steps 128, 4 minibatches, 4 epochs, one TF thread) with 1, 2, 4,
  8, 16 environments in a ``DummyVecEnv``, a ``SubprocVecEnv`` (forkserver) and an ``EnvPoolVecEnv`` (when envpool
  imports): agent steps per second of ``learn`` (wall clock), after a warm-up update.
- ``mpi``: PPO1 (timesteps_per_actorbatch 256) and TRPO (timesteps_per_batch 512) on CartPole-v1 under
  ``mpirun -np 1`` and ``-np 2``, the same total number of steps (the ranks share them): wall time of ``learn``,
  speed-up and parallel efficiency (speed-up / ranks).
- ``memory``: resident memory (now and peak) of a process holding a DQN model and the replay buffer DQN's ``learn``
  creates, filled to capacity, against the buffer size: Atari frame stacks (84x84x4 uint8, frames shared between
  consecutive transitions) and vector observations (17 float32 values, 6-dimensional actions).

Every figure comes from a fresh process (``--worker``); repeated runs alternate the configurations, and the median
is printed.

    python benchmarks/scaling.py                         # all three
    python benchmarks/scaling.py n_envs --runs 3 --steps 16384
    python benchmarks/scaling.py mpi memory
"""
import argparse
import json
import os
import resource
import subprocess
import sys
import time
from typing import Dict, List

from bench_util import median, mpirun_path, rst_table, run_worker, single_thread_env

HERE = os.path.abspath(__file__)
N_ENVS = (1, 2, 4, 8, 16)
VEC_KINDS = ("DummyVecEnv", "SubprocVecEnv", "EnvPoolVecEnv")
MPI_ALGOS = ("PPO1", "TRPO")
ATARI_SIZES = (10000, 30000, 100000)
VECTOR_SIZES = (10000, 100000, 1000000)


def _load() -> str:
    one, five, fifteen = os.getloadavg()
    return "load average {:.2f}, {:.2f}, {:.2f} on {} cores".format(one, five, fifteen, os.cpu_count())


def _peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def _rss_mb() -> float:
    """The resident memory of this process now (Linux ``/proc``; elsewhere the peak)."""
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024.0
    except OSError:
        pass
    return _peak_rss_mb()


# ------------------------------------------------------------------------------------------------
# workers (one measurement each, in a fresh process)
# ------------------------------------------------------------------------------------------------
def _vec_env(kind: str, n_envs: int):
    from stable_baselines.common.vec_env import DummyVecEnv, EnvPoolVecEnv, SubprocVecEnv
    from stable_baselines.common.gym_compat import make_env
    if kind == "EnvPoolVecEnv":
        return EnvPoolVecEnv("CartPole-v1", n_envs, seed=0)
    thunks = [lambda: make_env("CartPole-v1") for _ in range(n_envs)]
    return DummyVecEnv(thunks) if kind == "DummyVecEnv" else SubprocVecEnv(thunks)


def worker_n_envs(kind: str, n_envs: int, steps: int) -> Dict[str, float]:
    """Steps per second of PPO2 learn with ``n_envs`` environments in a ``kind`` VecEnv."""
    from stable_baselines import PPO2
    env = _vec_env(kind, n_envs)
    model = PPO2("MlpPolicy", env, n_steps=128, nminibatches=4, noptepochs=4, n_cpu_tf_sess=1, seed=0)
    model.learn(128 * n_envs)
    start_wall, start_cpu = time.perf_counter(), time.process_time()
    model.learn(steps)
    wall, cpu = time.perf_counter() - start_wall, time.process_time() - start_cpu
    env.close()
    return {"steps_per_s": steps / wall, "cpu_steps_per_s": steps / cpu}


def worker_mpi(algo: str, steps: int) -> Dict[str, float]:
    """Wall time of ``learn(steps)`` of PPO1 or TRPO on CartPole-v1, all ranks sharing the steps."""
    from mpi4py import MPI
    from stable_baselines import PPO1, TRPO
    rank = MPI.COMM_WORLD.Get_rank()
    if algo == "PPO1":
        model = PPO1("MlpPolicy", "CartPole-v1", timesteps_per_actorbatch=256, n_cpu_tf_sess=1, seed=rank)
    else:
        model = TRPO("MlpPolicy", "CartPole-v1", timesteps_per_batch=512, n_cpu_tf_sess=1, seed=rank)
    MPI.COMM_WORLD.Barrier()
    start = time.perf_counter()
    model.learn(steps)
    MPI.COMM_WORLD.Barrier()
    return {"wall_s": time.perf_counter() - start, "ranks": MPI.COMM_WORLD.Get_size(), "rank": rank}


def worker_memory(kind: str, size: int) -> Dict[str, float]:
    """Peak RSS of a DQN model plus a full replay buffer of ``size`` transitions."""
    sys.path.insert(0, os.path.dirname(HERE))
    from replay_memory import atari_stream, vector_stream  # pylint: disable=import-error
    from stable_baselines import DQN
    from stable_baselines.common.buffers import ReplayBuffer
    if kind == "atari":
        from stable_baselines.common.cmd_util import make_atari_env
        from stable_baselines.common.vec_env import VecFrameStack
        env = VecFrameStack(make_atari_env("PongNoFrameskip-v4", 1, 0), 4)
        model = DQN("CnnPolicy", env, buffer_size=size, n_cpu_tf_sess=1, seed=0)
        stream = atari_stream(size)
    else:
        model = DQN("MlpPolicy", "CartPole-v1", buffer_size=size, n_cpu_tf_sess=1, seed=0)
        stream = vector_stream(size)
    before = _rss_mb()
    buffer = ReplayBuffer(model.buffer_size)  # what DQN's learn creates (no prioritized replay)
    for transition in stream:
        buffer.add(*transition)
    return {"model_rss_mb": before, "rss_mb": _rss_mb(), "peak_rss_mb": _peak_rss_mb(),
            "buffer_mb": buffer.nbytes / 2 ** 20}


# ------------------------------------------------------------------------------------------------
# driver
# ------------------------------------------------------------------------------------------------
def _run(command: List[str], timeout: float = 3600) -> List[dict]:
    return run_worker(command, timeout, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")


def _worker_command(*args: object) -> List[str]:
    return [sys.executable, HERE, "--worker"] + [str(arg) for arg in args]


def _envpool_available() -> bool:
    probe = subprocess.run([sys.executable, "-c", "import envpool"], capture_output=True, check=False)
    return probe.returncode == 0


def table_n_envs(runs: int, steps: int) -> str:
    kinds = [kind for kind in VEC_KINDS if kind != "EnvPoolVecEnv" or _envpool_available()]
    results: Dict[tuple, List[float]] = {}
    load_before = _load()
    for _ in range(runs):
        for n_envs in N_ENVS:
            for kind in kinds:
                figures = _run(_worker_command("n_envs", kind, n_envs, steps))[0]
                results.setdefault((kind, n_envs), []).append(figures["steps_per_s"])
    rows = [[str(n_envs)] + ["{:.0f}".format(median(results[(kind, n_envs)])) for kind in kinds]
            for n_envs in N_ENVS]
    return "PPO2 MlpPolicy CartPole-v1, learn({}) timed, agent steps/s (wall), median of {} run(s); {} -> {}\n\n{}".format(
        steps, runs, load_before, _load(), rst_table(["n_envs"] + kinds, rows))


def table_mpi(runs: int, steps: int) -> str:
    walls: Dict[tuple, List[float]] = {}
    load_before = _load()
    for _ in range(runs):
        for algo in MPI_ALGOS:
            for ranks in (1, 2):
                command = [mpirun_path(), "--oversubscribe", "-np", str(ranks)] + _worker_command("mpi", algo, steps)
                rank0 = [row for row in _run(command) if row["rank"] == 0][0]
                walls.setdefault((algo, ranks), []).append(rank0["wall_s"])
    rows = []
    for algo in MPI_ALGOS:
        one, two = median(walls[(algo, 1)]), median(walls[(algo, 2)])
        rows.append([algo, "{:.1f} s".format(one), "{:.1f} s".format(two), "x{:.2f}".format(one / two),
                     "{:.0f} %".format(100 * one / two / 2)])
    return "CartPole-v1, learn({}) shared by the ranks, wall time of rank 0, median of {} run(s); {} -> {}\n\n{}".format(
        steps, runs, load_before, _load(),
        rst_table(["algorithm", "-np 1", "-np 2", "speed-up", "efficiency"], rows))


def table_memory() -> str:
    rows = []
    load_before = _load()
    for kind, sizes in (("atari", ATARI_SIZES), ("vector", VECTOR_SIZES)):
        for size in sizes:
            figures = _run(_worker_command("memory", kind, size))[0]
            rows.append(["84x84x4 uint8" if kind == "atari" else "17 float32", "{:,}".format(size),
                         "{:.0f}".format(figures["buffer_mb"]), "{:.0f}".format(figures["model_rss_mb"]),
                         "{:.0f}".format(figures["rss_mb"]), "{:.0f}".format(figures["peak_rss_mb"])])
    return "DQN and a full ReplayBuffer (MB); {} -> {}\n\n{}".format(load_before, _load(), rst_table(
        ["observations", "buffer size", "buffer arrays", "RSS: model", "RSS: model + full buffer",
         "peak RSS"], rows))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("parts", nargs="*", default=["n_envs", "mpi", "memory"])
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--steps", type=int, default=8192, help="agent steps timed (n_envs and mpi)")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    single_thread_env()
    if args.worker:
        name, rest = args.parts[0], args.parts[1:]
        if name == "n_envs":
            result = worker_n_envs(rest[0], int(rest[1]), int(rest[2]))
        elif name == "mpi":
            result = worker_mpi(rest[0], int(rest[1]))
        else:
            result = worker_memory(rest[0], int(rest[1]))
        print(json.dumps(result), flush=True)
        return
    for part in args.parts:
        if part == "n_envs":
            print(table_n_envs(args.runs, args.steps))
        elif part == "mpi":
            print(table_mpi(args.runs, args.steps))
        elif part == "memory":
            print(table_memory())
        else:
            parser.error("unknown part {!r} (n_envs, mpi, memory)".format(part))
        print(flush=True)


if __name__ == "__main__":
    main()
