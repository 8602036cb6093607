"""
Knowing whether this process is an environment worker of a ``SubprocVecEnv``.

A worker only steps environments, so it should not pay for importing TensorFlow (seconds per process).
``SubprocVecEnv`` gives its worker processes names that start with :data:`WORKER_NAME_PREFIX`. With the
``spawn`` and ``forkserver`` start methods, multiprocessing sets that name in the child *before* the child
re-imports the user's main module and unpickles its task, so the name is known from the very first
``import stable_baselines`` on. No environment variable is involved: nothing leaks into other processes.

A worker goes through two phases:

- **bootstrapping**: multiprocessing re-imports the main module and unpickles the worker's task. Here
  ``import stable_baselines`` leaves TensorFlow alone, and ``from stable_baselines import PPO2`` at the top
  of the user's script gives a stand-in that imports the class (and TensorFlow) only when it is used.
- **serving**: the worker loop runs (:func:`mark_serving`). Algorithm classes are imported for real when
  asked for; TensorFlow is imported when something needs it, and then switched to TF-1 behaviour as in any
  other process.
"""
import sys

WORKER_NAME_PREFIX = "SubprocVecEnvWorker-"

_STATE = {"serving": False}


def worker_name(index: int) -> str:
    """
    :param index: (int) the index of the environment in its SubprocVecEnv
    :return: (str) the process name of that environment's worker
    """
    return "{}{}".format(WORKER_NAME_PREFIX, index)


def is_env_worker() -> bool:
    """:return: (bool) whether this process was started by a SubprocVecEnv to run an environment"""
    process_module = sys.modules.get("multiprocessing.process")
    if process_module is None:  # multiprocessing never loaded: this cannot be one of its children
        return False
    return process_module.current_process().name.startswith(WORKER_NAME_PREFIX)


def is_bootstrapping_worker() -> bool:
    """:return: (bool) whether this is an environment worker that has not started its loop yet"""
    return not _STATE["serving"] and is_env_worker()


def mark_serving() -> None:
    """Called by the worker loop when it starts: from now on, imports are served for real."""
    _STATE["serving"] = True


def is_bootstrapping_child() -> bool:
    """
    :return: (bool) whether this process is a multiprocessing child still re-importing the main module or
        unpickling its task (where starting new processes is impossible)
    """
    process_module = sys.modules.get("multiprocessing.process")
    if process_module is None:
        return False
    return bool(getattr(process_module.current_process(), "_inheriting", False))
