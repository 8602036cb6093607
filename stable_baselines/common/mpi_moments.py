"""
Mean, standard deviation and count of arrays spread over the MPI workers.

Run ``python -m stable_baselines.common.mpi_moments`` (optionally under ``mpirun -np N``) for a
self-test against numpy.
"""
from typing import Any, Optional, Tuple

import numpy as np
from mpi4py import MPI


def _check_axis(arr: np.ndarray, axis: int) -> None:
    """
    Refuse an axis that is negative or beyond the array's dimensions.

    :param arr: (np.ndarray) the array
    :param axis: (int) the axis
    """
    n_axes = max(arr.ndim, 1)
    if isinstance(axis, (int, np.integer)) and 0 <= axis < n_axes:
        return
    raise ValueError("axis must be a non-negative int smaller than the number of dimensions of the array "
                     "({}), got {!r}".format(arr.ndim, axis))


def mpi_mean(arr: Any, axis: int = 0, comm: Optional[Any] = None, keepdims: bool = False) -> Tuple[np.ndarray, float]:
    """
    Mean over all the workers' data along an axis.

    :param arr: (np.ndarray) this worker's part of the data (the parts are joined along ``axis``)
    :param axis: (int) the axis to average over (non-negative)
    :param comm: (MPI Communicators) the workers, MPI.COMM_WORLD when None
    :param keepdims: (bool) keep ``axis`` as a dimension of size 1
    :return: (np.ndarray or Number, float) the mean and the total number of entries along ``axis``
    """
    arr = np.asarray(arr)
    _check_axis(arr, axis)
    communicator = MPI.COMM_WORLD if comm is None else comm
    local_total = arr.sum(axis=axis, keepdims=keepdims)
    n_values = local_total.size
    # the sums and the count travel in one message: [sum_0, ..., sum_{n-1}, count]
    outgoing = np.zeros(n_values + 1, 'float64')
    outgoing[:n_values] = np.asarray(local_total, dtype='float64').ravel()
    outgoing[n_values] = arr.shape[axis]
    incoming = np.zeros_like(outgoing)
    communicator.Allreduce(outgoing, incoming, op=MPI.SUM)
    count = incoming[n_values]
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = incoming[:n_values].reshape(np.shape(local_total)) / count
    return mean, count


def mpi_moments(arr: Any, axis: int = 0, comm: Optional[Any] = None,
                keepdims: bool = False) -> Tuple[np.ndarray, np.ndarray, float]:
    """
    Mean and (population) standard deviation over all the workers' data along an axis.

    :param arr: (np.ndarray) this worker's part of the data (the parts are joined along ``axis``)
    :param axis: (int) the axis to reduce (non-negative)
    :param comm: (MPI Communicators) the workers, MPI.COMM_WORLD when None
    :param keepdims: (bool) keep ``axis`` as a dimension of size 1
    :return: (np.ndarray or Number, np.ndarray or Number, float) the mean, the std and the total count
    """
    arr = np.asarray(arr)
    _check_axis(arr, axis)
    mean, count = mpi_mean(arr, axis=axis, comm=comm, keepdims=True)
    variance, variance_count = mpi_mean(np.square(arr - mean), axis=axis, comm=comm, keepdims=True)
    if variance_count != count:
        raise RuntimeError("mpi_moments: the workers disagree on the number of samples ({} and {})"
                           .format(count, variance_count))
    std = np.sqrt(variance)
    if not keepdims:
        mean = np.squeeze(mean, axis=axis)
        std = np.squeeze(std, axis=axis)
    return mean, std, count


def _helper_runningmeanstd() -> int:
    """
    Self-test: every worker takes its slice of the same random arrays, and :func:`mpi_moments` of the
    slices must equal numpy's moments of the whole arrays, for several shapes and axes.

    :return: (int) the number of cases checked
    """
    comm = MPI.COMM_WORLD
    rank, n_workers = comm.Get_rank(), comm.Get_size()
    rng = np.random.RandomState(1234)
    cases = [((5,), 0), ((4, 3), 0), ((4, 3), 1), ((2, 6, 3), 1), ((3, 2, 5), 2)]
    for shape, axis in cases:
        per_worker = list(shape)
        whole_shape = list(shape)
        whole_shape[axis] = shape[axis] * n_workers
        whole = rng.randn(*whole_shape)
        start = rank * per_worker[axis]
        mine = np.take(whole, np.arange(start, start + per_worker[axis]), axis=axis)
        mean, std, count = mpi_moments(mine, axis=axis)
        np.testing.assert_allclose(mean, whole.mean(axis=axis), rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(std, whole.std(axis=axis), rtol=1e-10, atol=1e-12)
        if count != whole.shape[axis]:
            raise AssertionError("mpi_moments counted {} samples, expected {}".format(count, whole.shape[axis]))
    return len(cases)


if __name__ == "__main__":
    N_CHECKED = _helper_runningmeanstd()
    if MPI.COMM_WORLD.Get_rank() == 0:
        print("mpi_moments self-test passed: {} cases on {} worker(s)".format(N_CHECKED, MPI.COMM_WORLD.Get_size()))
