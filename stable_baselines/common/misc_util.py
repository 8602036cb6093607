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
    ``zip`` for sequences that must have the same length (a mismatch is an error, not a silent cut).

    :param seqs: (sequences) the sequences to zip
    :return: (iterator) the tuples of elements at the same position
    """
    lengths = [len(seq) for seq in seqs]
    if len(set(lengths)) > 1:
        raise ValueError("zipsame expects sequences of the same length, got lengths {}".format(lengths))
    return zip(*seqs)


def set_global_seeds(seed: int) -> None:
    """
    Seed Python's ``random``, numpy's global generator and TensorFlow's default graph.

    The TensorFlow seed is the graph-level seed of the *default* graph (``tf.set_random_seed``);
    Stable Baselines models own their graph and seed it themselves from their ``seed`` argument.
    gymnasium has no global generator: environments are seeded through ``reset(seed=...)``
    (``VecEnv.seed``).

    :param seed: (int) the seed
    """
    from stable_baselines.common.tf_compat import tf  # pylint: disable=import-outside-toplevel
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)):
        raise TypeError("Expected an integer seed, got {!r} of type {}".format(seed, type(seed).__name__))
    seed = int(seed)
    tf.set_random_seed(seed)
    np.random.seed(seed)
    random.seed(seed)


def boolean_flag(parser: argparse.ArgumentParser, name: str, default: Optional[bool] = False,
                 help_msg: Optional[str] = None) -> None:
    """
    Give an argparse parser the pair of options ``--<name>`` (sets True) and ``--no-<name>`` (sets False).

    :param parser: (argparse.ArgumentParser) the parser
    :param name: (str) the option's name; dashes become underscores in the parsed namespace
    :param default: (bool) the value when neither option is given
    :param help_msg: (str) help text of ``--<name>``
    """
    destination = name.replace('-', '_')
    parser.add_argument("--{}".format(name), dest=destination, action="store_true", default=default,
                        help=help_msg)
    parser.add_argument("--no-{}".format(name), dest=destination, action="store_false")


# what the MPI launchers (Open MPI, MPICH / Intel MPI, PMIx, MVAPICH) tell each process they start
_LAUNCHER_RANK_VARIABLES = ("OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK", "MV2_COMM_WORLD_RANK")
_LAUNCHER_SIZE_VARIABLES = ("OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE", "MV2_COMM_WORLD_SIZE")


def _mpi_launch_fact(query: str, variables: Iterable[str], default: int) -> int:
    """
    :param query: (str) the method of ``MPI.COMM_WORLD`` that answers (``Get_rank`` or ``Get_size``)
    :param variables: ([str]) the launcher's environment variables that hold the same number
    :param default: (int) the answer without MPI
    :return: (int) the number, from ``mpi4py.MPI`` when it is already imported, else from the launcher's variables
    """
    mpi_module = sys.modules.get("mpi4py.MPI")
    if mpi_module is not None:
        try:
            return int(getattr(mpi_module.COMM_WORLD, query)())
        except Exception:  # pragma: no cover - MPI finalized
            pass
    for variable in variables:
        text = os.environ.get(variable)
        if text is not None and text.strip().isdigit():
            return int(text)
    return default


def mpi_rank_or_zero() -> int:
    """
    This process's MPI rank, 0 without MPI.

    MPI is not initialised just to answer: the rank comes from ``mpi4py.MPI`` when it is already
    imported, else from the environment variables the MPI launcher (``mpirun``) sets, else 0.

    :return: (int) the rank
    """
    return _mpi_launch_fact("Get_rank", _LAUNCHER_RANK_VARIABLES, 0)


def mpi_size_or_one() -> int:
    """
    The number of processes of the MPI launch this process belongs to, 1 without MPI (found as
    :func:`mpi_rank_or_zero` finds the rank, without initialising MPI).

    :return: (int) the number of processes
    """
    return _mpi_launch_fact("Get_size", _LAUNCHER_SIZE_VARIABLES, 1)


def flatten_lists(listoflists: Iterable[Iterable[Any]]) -> List[Any]:
    """
    Join lists into one list.

    :param listoflists: (list(list)) the lists
    :return: (list) their elements, in order
    """
    return [element for inner in listoflists for element in inner]


__all__ = ["zipsame", "set_global_seeds", "boolean_flag", "mpi_rank_or_zero", "mpi_size_or_one", "flatten_lists"]
