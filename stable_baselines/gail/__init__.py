"""
Imitation learning: expert datasets, behaviour cloning data (:class:`ExpertDataset`, :class:`DataLoader`,
:func:`generate_expert_traj`, always available) and GAIL (:class:`GAIL`, needs MPI: it is exported only
when ``mpi4py`` imports, and loaded on first use).
"""
import importlib
import importlib.util

from stable_baselines.gail.dataset.dataset import DataLoader, ExpertDataset
from stable_baselines.gail.dataset.record_expert import generate_expert_traj


def _gail_available() -> bool:
    try:
        import mpi4py  # noqa: F401  pylint: disable=unused-import,import-outside-toplevel
    except ImportError:
        return False
    return importlib.util.find_spec("stable_baselines.gail.model") is not None


def __getattr__(name: str):
    if name == "GAIL":
        try:
            import mpi4py  # noqa: F401  pylint: disable=unused-import,import-outside-toplevel
        except ImportError as error:
            raise AttributeError("stable_baselines.gail.GAIL needs MPI: mpi4py is not installed. Install it with "
                                 "`pip install stable-baselines[mpi]`.") from error
        if importlib.util.find_spec("stable_baselines.gail.model") is None:
            raise AttributeError("stable_baselines.gail.GAIL is not available in this version")
        value = importlib.import_module("stable_baselines.gail.model").GAIL
        globals()["GAIL"] = value
        return value
    raise AttributeError("module 'stable_baselines.gail' has no attribute '{}'".format(name))


def __dir__():
    return sorted(list(globals().keys()) + (["GAIL"] if _gail_available() else []))


__all__ = ["DataLoader", "ExpertDataset", "generate_expert_traj"] + (["GAIL"] if _gail_available() else [])
