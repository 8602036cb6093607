"""
Mean, standard deviation and count of arrays spread over the MPI workers.
"""
from typing import Any, Optional, Tuple

import numpy as np
from mpi4py import MPI


def _check_axis(arr: np.ndarray, axis: int) -> None:
    if not isinstance(axis, (int, np.integer)) or axis < 0 or axis >= max(arr.ndim, 1):
        raise ValueError("axis must be a non-negative int smaller than the number of dimensions of the array "
                         "({}), got {!r}".format(arr.ndim, axis))


def mpi_mean(arr: Any, axis: int = 0, comm: Optional[Any] = None, keepdims: bool = False) -> Tuple[np.ndarray, float]:
    """
    calculates the mean of an array, using MPI

    :param arr: (np.ndarray) the array (each worker holds its own part, along ``axis``)
    :param axis: (int) the axis along which to average (non-negative)
    :param comm: (MPI Communicators) if None, MPI.COMM_WORLD
    :param keepdims: (bool) keep the other dimensions intact
    :return: (np.ndarray or Number, float) the global mean and the global number of elements along ``axis``
    """
    arr = np.asarray(arr)
    _check_axis(arr, axis)
    if comm is None:
        comm = MPI.COMM_WORLD
    xsum = arr.sum(axis=axis, keepdims=keepdims)
    size = xsum.size
    localsum = np.zeros(size + 1, 'float64')
    localsum[:size] = np.asarray(xsum, dtype='float64').ravel()
    localsum[size] = arr.shape[axis]
    globalsum = np.zeros_like(localsum)
    comm.Allreduce(localsum, globalsum, op=MPI.SUM)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = globalsum[:size].reshape(np.shape(xsum)) / globalsum[size]
    return mean, globalsum[size]


def mpi_moments(arr: Any, axis: int = 0, comm: Optional[Any] = None,
                keepdims: bool = False) -> Tuple[np.ndarray, np.ndarray, float]:
    """
    calculates the mean and std of an array, using MPI

    :param arr: (np.ndarray) the array (each worker holds its own part, along ``axis``)
    :param axis: (int) the axis along which to compute the moments (non-negative)
    :param comm: (MPI Communicators) if None, MPI.COMM_WORLD
    :param keepdims: (bool) keep the other dimensions intact
    :return: (np.ndarray or Number, np.ndarray or Number, float) the mean, the std and the count
    """
    arr = np.asarray(arr)
    _check_axis(arr, axis)
    mean, count = mpi_mean(arr, axis=axis, comm=comm, keepdims=True)
    sqdiffs = np.square(arr - mean)
    meansqdiff, count1 = mpi_mean(sqdiffs, axis=axis, comm=comm, keepdims=True)
    assert count1 == count
    std = np.sqrt(meansqdiff)
    if not keepdims:
        newshape = mean.shape[:axis] + mean.shape[axis + 1:]
        mean = mean.reshape(newshape)
        std = std.reshape(newshape)
    return mean, std, count
