"""
Small helpers: seeding, argparse flags, list utilities, MPI rank.
"""
import argparse
import os
import random
import sys
from typing import Any, Iterable, Iterator, List, Optional, Sequence, Tuple

import numpy as np


def zipsame(*seqs: Sequence) -> Iterator[Tuple]:
    """
    Performes a zip function, but asserts that all zipped elements are of the same size

    :param seqs: a list of arrays that are zipped together
    :return: the zipped arguments
    """
    if not seqs:
        return zip()
    length = len(seqs[0])
    lengths = [len(seq) for seq in seqs]
    if any(other != length for other in lengths):
        raise ValueError("zipsame expects sequences of the same length, got lengths {}".format(lengths))
    return zip(*seqs)


def set_global_seeds(seed: int) -> None:
    """
    set the seed for python random, tensorflow and numpy

    The TensorFlow seed is the graph-level seed of the *default* graph
    (``tf.set_random_seed``); Stable Baselines models own their graph and seed it themselves from
    their ``seed`` argument. gymnasium has no global random generator: environments are seeded
    through ``reset(seed=...)`` (``VecEnv.seed``).

    :param seed: (int) the seed
    """
    from stable_baselines.common.tf_compat import tf
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)):
        raise TypeError("Expected an integer seed, got {!r} of type {}".format(seed, type(seed).__name__))
    seed = int(seed)
    tf.set_random_seed(seed)
    np.random.seed(seed)
    random.seed(seed)


def boolean_flag(parser: argparse.ArgumentParser, name: str, default: Optional[bool] = False,
                 help_msg: Optional[str] = None) -> None:
    """
    Add a boolean flag to argparse parser.

    :param parser: (argparse.Parser) parser to add the flag to
    :param name: (str) --<name> will enable the flag, while --no-<name> will disable it
    :param default: (bool) default value of the flag
    :param help_msg: (str) help string for the flag
    """
    dest = name.replace('-', '_')
    parser.add_argument("--" + name, action="store_true", default=default, dest=dest, help=help_msg)
    parser.add_argument("--no-" + name, action="store_false", dest=dest)


def mpi_rank_or_zero() -> int:
    """
    Return the MPI rank if mpi is installed. Otherwise, return 0.

    MPI is not initialised just to answer: the rank is read from ``mpi4py.MPI`` when it is
    already imported, else from the MPI launcher's environment variables (``mpirun``), else 0.

    :return: (int)
    """
    mpi_module = sys.modules.get("mpi4py.MPI")
    if mpi_module is not None:
        try:
            return int(mpi_module.COMM_WORLD.Get_rank())
        except Exception:  # pragma: no cover - MPI finalized
            pass
    for var in ("OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK", "MV2_COMM_WORLD_RANK"):
        value = os.environ.get(var)
        if value is not None and value.strip().isdigit():
            return int(value)
    return 0


def flatten_lists(listoflists: Iterable[Iterable[Any]]) -> List[Any]:
    """
    Flatten a python list of list

    :param listoflists: (list(list))
    :return: (list)
    """
    return [el for list_ in listoflists for el in list_]


__all__ = ["zipsame", "set_global_seeds", "boolean_flag", "mpi_rank_or_zero", "flatten_lists"]
