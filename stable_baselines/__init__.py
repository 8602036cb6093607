"""
Stable Baselines: reliable reinforcement-learning algorithms (the TensorFlow 1.x API of
Stable Baselines 2.10), running on today's TensorFlow 2.x, gymnasium and numpy 2.

Importing this package puts TensorFlow in TF-1 behaviour (see ``stable_baselines.common.tf_compat``);
set ``STABLE_BASELINES_TF2_BEHAVIOR=1`` before importing it to keep TF-2 behaviour. The environment
workers of a ``SubprocVecEnv`` do not import TensorFlow (see ``stable_baselines.common.env_worker``).

The algorithm classes are imported on first use. DDPG, GAIL, PPO1 and TRPO need MPI
(``pip install stable-baselines[mpi]``) and are only available when ``mpi4py`` imports.
"""
import importlib
import importlib.util
import os
import sys
from typing import Optional

from stable_baselines.common import algorithm_packages, env_worker

if not env_worker.is_env_worker():
    from stable_baselines.common.tf_compat import enable_tf1_behavior

    enable_tf1_behavior()


def _read_version() -> str:
    source_file = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "version.txt")
    if os.path.isfile(source_file):
        with open(source_file) as file_handler:
            return file_handler.read().strip()
    try:
        from importlib.metadata import version
        return version("stable-baselines")
    except Exception:  # pragma: no cover - neither a checkout nor an installed distribution
        return "unknown"


__version__ = _read_version()

# algorithm name -> module that defines it
_ALGORITHMS = {
    "A2C": "stable_baselines.a2c",
    "ACER": "stable_baselines.acer",
    "ACKTR": "stable_baselines.acktr",
    "DQN": "stable_baselines.deepq",
    "HER": "stable_baselines.her",
    "PPO2": "stable_baselines.ppo2",
    "SAC": "stable_baselines.sac",
    "TD3": "stable_baselines.td3",
}
_MPI_ALGORITHMS = {
    "DDPG": "stable_baselines.ddpg",
    "GAIL": "stable_baselines.gail",
    "PPO1": "stable_baselines.ppo1",
    "TRPO": "stable_baselines.trpo_mpi",
}


def _mpi_available() -> bool:
    try:
        import mpi4py  # noqa: F401  pylint: disable=unused-import,import-outside-toplevel
    except ImportError:
        return False
    return True


def _implemented(module_name: str) -> bool:
    return importlib.util.find_spec(module_name) is not None


def _exported() -> list:
    names = [name for name, module in _ALGORITHMS.items() if _implemented(module)]
    if _mpi_available():
        names += [name for name, module in _MPI_ALGORITHMS.items() if _implemented(module)]
    return sorted(names)


def _load_algorithm(name: str) -> type:
    """Import the class of an algorithm (and with it TensorFlow) and keep it as a module attribute."""
    if name in _MPI_ALGORITHMS and not _mpi_available():
        raise AttributeError("stable_baselines.{} needs MPI: mpi4py is not installed. Install it with "
                             "`pip install stable-baselines[mpi]` (no system MPI needed).".format(name))
    module_name = _ALGORITHMS.get(name) or _MPI_ALGORITHMS[name]
    if not _implemented(module_name):
        raise AttributeError("stable_baselines.{} is not available in this version".format(name))
    value = getattr(importlib.import_module(module_name), name)
    globals()[name] = value
    return value


def _provide_algorithm_package(package: str) -> Optional[str]:
    """Import one of our algorithm packages that a model file names (see common/algorithm_packages.py)."""
    names = [name for name, module in {**_ALGORITHMS, **_MPI_ALGORITHMS}.items() if module == package]
    if not names:
        return "it is not one of the library's algorithm packages"
    if names[0] in _MPI_ALGORITHMS and not _mpi_available():
        return "it needs MPI, and mpi4py is not installed (pip install stable-baselines[mpi])"
    if not _implemented(package):
        return "it is not available in this version"
    importlib.import_module(package)
    return None


algorithm_packages.declare_provider(_provide_algorithm_package)


class _DeferredAlgorithm:
    """
    What ``from stable_baselines import PPO2`` gives while a SubprocVecEnv worker re-imports the user's
    main module: calling it, reading its attributes, subclassing it or using it in ``isinstance`` imports
    the real class then, so a worker that never uses it never imports TensorFlow.

    :param name: (str) the algorithm's name
    """

    def __init__(self, name: str):
        self._name = name

    def _real(self) -> type:
        return _load_algorithm(self._name)

    def __call__(self, *args, **kwargs):
        return self._real()(*args, **kwargs)

    def __getattr__(self, attribute: str):
        if attribute.startswith("__"):
            raise AttributeError(attribute)
        return getattr(self._real(), attribute)

    def __instancecheck__(self, instance) -> bool:
        return isinstance(instance, self._real())

    def __subclasscheck__(self, subclass) -> bool:
        return issubclass(subclass, self._real())

    def __mro_entries__(self, bases) -> tuple:
        return (self._real(),)

    def __eq__(self, other) -> bool:
        return self._real() == (other._real() if isinstance(other, _DeferredAlgorithm) else other)

    def __hash__(self) -> int:
        return hash(self._real())

    def __repr__(self) -> str:
        return "<stable_baselines.{} (imported on first use)>".format(self._name)


def __getattr__(name: str):
    if name in _ALGORITHMS or name in _MPI_ALGORITHMS:
        module_name = _ALGORITHMS.get(name) or _MPI_ALGORITHMS[name]
        available = _implemented(module_name) and (name in _ALGORITHMS or _mpi_available())
        if available and module_name not in sys.modules and env_worker.is_bootstrapping_worker():
            return _DeferredAlgorithm(name)
        return _load_algorithm(name)
    raise AttributeError("module 'stable_baselines' has no attribute '{}'".format(name))


def __dir__():
    return sorted(list(globals().keys()) + _exported())


__all__ = _exported()
