"""
How the loader gets one of the library's algorithm packages that a model file names (a policy class, HER's
``model_class``) when the user has not imported it yet: the root package, which knows its algorithms and imports
them on first use, declares a provider here (common/ names no algorithm). Nothing else is imported: the provider
answers only for the library's own algorithm packages, and for those needing MPI only when mpi4py imports.
"""
from typing import Callable, Optional

_provider: Optional[Callable[[str], Optional[str]]] = None


def declare_provider(provider: Callable[[str], Optional[str]]) -> None:
    """
    :param provider: (callable) takes a package name (``stable_baselines.sac``) and imports it if it is one of the
        library's algorithm packages that can be imported here; returns None when it did, else why not (str)
    """
    global _provider  # pylint: disable=global-statement
    _provider = provider


def provide(package: str) -> Optional[str]:
    """
    :param package: (str) the package a model file names, two parts (``stable_baselines.sac``)
    :return: (str or None) None when it is now imported; otherwise why it is not (not one of the library's
        algorithm packages, or not importable here)
    """
    if _provider is None:
        return "the root package stable_baselines declared no provider"
    return _provider(package)
