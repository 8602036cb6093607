"""Launching ``mpirun`` from the tests: one place for finding it and for the environment it needs."""
import json
import os
import shutil
import subprocess
import sys
from typing import Any, Dict, List, Optional

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def find_mpirun() -> Optional[str]:
    """
    The ``mpirun`` of the Open MPI wheel installed beside this interpreter, else the one on PATH.

    :return: (str or None) its path, None when there is none
    """
    candidate = os.path.join(os.path.dirname(sys.executable), "mpirun")
    return candidate if os.path.isfile(candidate) else shutil.which("mpirun")


def run_mpirun(n_ranks: int, args: List[str], *, timeout: float, cwd: Optional[str] = None,
               extra_env: Optional[Dict[str, str]] = None) -> subprocess.CompletedProcess:
    """
    Run ``mpirun --oversubscribe -np n_ranks <this python> args...`` and capture its text output.

    The environment allows running as root (CI does), keeps TensorFlow quiet and puts the repository on the
    path of the workers.

    :param n_ranks: (int) number of MPI processes
    :param args: ([str]) arguments after the interpreter (a script path, or ``-m module ...``)
    :param timeout: (float) seconds before the run is killed
    :param cwd: (str) working directory of the run
    :param extra_env: (dict) more environment variables
    :return: (subprocess.CompletedProcess) with ``stdout`` and ``stderr`` as text
    """
    mpirun = find_mpirun()
    if mpirun is None:
        raise RuntimeError("mpirun was found neither next to {} nor on PATH".format(sys.executable))
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMPI_MCA_rmaps_base_oversubscribe="1", TF_CPP_MIN_LOG_LEVEL="3", PYTHONPATH=REPO_ROOT)
    env.pop("OPENAI_LOGDIR", None)
    env.update(extra_env or {})
    return subprocess.run([mpirun, "--oversubscribe", "-np", str(n_ranks), sys.executable] + list(args),
                          capture_output=True, text=True, env=env, timeout=timeout, cwd=cwd)


def run_worker_script(source: str, folder: Any, script_name: str, prefix_name: str, *, timeout: float,
                      n_ranks: int = 2) -> str:
    """
    Write a worker script into ``folder`` and run it under ``mpirun``, its one argument the path prefix of the
    files the ranks write; asserts that the run succeeded (the message: its output).

    :param source: (str) the text of the script
    :param folder: (str or pathlib.Path) where the script and the ranks' files go
    :param script_name: (str) the file name of the script
    :param prefix_name: (str) the file name prefix handed to the script
    :param timeout: (float) seconds before the run is killed
    :param n_ranks: (int) number of MPI processes
    :return: (str) the path prefix
    """
    script = os.path.join(str(folder), script_name)
    with open(script, "w") as file_handler:
        file_handler.write(source)
    prefix = os.path.join(str(folder), prefix_name)
    result = run_mpirun(n_ranks, [script, prefix], timeout=timeout)
    assert result.returncode == 0, result.stdout + result.stderr
    return prefix


def rank_results(prefix: str, n_ranks: int = 2) -> List[Any]:
    """:return: ([object]) the JSON file ``<prefix>.<rank>`` of each rank, in rank order"""
    results = []
    for rank in range(n_ranks):
        with open(prefix + "." + str(rank)) as file_handler:
            results.append(json.load(file_handler))
    return results


NO_MPIRUN_REASON = "mpirun not found next to the python interpreter nor on PATH (pip install stable-baselines[mpi])"
