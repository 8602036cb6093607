"""
Running mean and standard deviation held in TensorFlow variables and updated over MPI.

DDPG normalizes its observations with it (its variables are part of DDPG's saved parameters,
``.../obs_rms/runningsum:0``, ``runningsumsq:0``, ``count:0``, float64).

Run ``python -m stable_baselines.common.mpi_running_mean_std`` (optionally under
``mpirun -np N``) for a self-test.
"""
from typing import Any, Sequence, Tuple, Union

import numpy as np
from mpi4py import MPI

from stable_baselines.common import tf_util
from stable_baselines.common.tf_compat import tf


def _statistic(name: str, shape: Tuple[int, ...], start: float) -> Any:
    """
    A float64, non-trainable variable of the current scope.

    :param name: (str) the variable's name
    :param shape: (tuple) its shape
    :param start: (float) its initial value
    :return: (TensorFlow Variable) the variable
    """
    return tf.get_variable(name=name, shape=shape, dtype=tf.float64, trainable=False,
                           initializer=tf.constant_initializer(start))


class RunningMeanStd(object):
    """
    Mean and standard deviation of a stream of samples seen by all the MPI workers, kept as sums in
    TensorFlow variables (so they are saved with the model): ``runningsum``, ``runningsumsq`` (shape
    ``shape``) and ``count`` (scalar), float64 and not trainable, created in the current variable scope.
    ``runningsumsq`` and ``count`` start at ``epsilon``. ``update`` runs in the default session.

    :param epsilon: (float) the initial count and sum of squares (keeps the first estimates finite)
    :param shape: (tuple) the shape of one sample
    """

    def __init__(self, epsilon: float = 1e-2, shape: Union[Tuple[int, ...], Sequence[int]] = ()) -> None:
        shape = tuple(int(dim) for dim in shape)
        self._sum = _statistic("runningsum", shape, 0.0)
        self._sumsq = _statistic("runningsumsq", shape, epsilon)
        self._count = _statistic("count", (), epsilon)
        self.shape = shape

        self.mean = tf.cast(self._sum / self._count, tf.float32)
        mean_of_squares = tf.cast(self._sumsq / self._count, tf.float32)
        # the variance is floored at 1e-2, so the std is at least 0.1
        self.std = tf.sqrt(tf.maximum(mean_of_squares - tf.square(self.mean), 1e-2))

        added_sum = tf.placeholder(name='sum', shape=shape, dtype=tf.float64)
        added_sumsq = tf.placeholder(name='var', shape=shape, dtype=tf.float64)
        added_count = tf.placeholder(name='count', shape=[], dtype=tf.float64)
        increments = [tf.assign_add(variable, increment) for variable, increment in
                      ((self._sum, added_sum), (self._sumsq, added_sumsq), (self._count, added_count))]
        self.incfiltparams = tf_util.function([added_sum, added_sumsq, added_count], [], updates=increments)

    def update(self, data: Any) -> None:
        """
        Add a batch of this worker's samples, and those the other workers add at the same time.

        :param data: (np.ndarray) the samples, shape ``(n_samples,) + shape``
        """
        data = np.asarray(data, dtype='float64')
        if data.shape[1:] != self.shape:
            raise ValueError("RunningMeanStd.update expects data of shape (n_samples,) + {}, got shape {}"
                             .format(self.shape, data.shape))
        # one message for all the workers: [sums..., sums of squares..., count]
        local = np.concatenate([data.sum(axis=0).ravel(), np.square(data).sum(axis=0).ravel(),
                                np.array([len(data)], dtype='float64')])
        total = np.zeros_like(local)
        MPI.COMM_WORLD.Allreduce(local, total, op=MPI.SUM)
        n_values = int(np.prod(self.shape))
        sums, squares, count = np.split(total, [n_values, 2 * n_values])
        self.incfiltparams(sums.reshape(self.shape), squares.reshape(self.shape), count[0])


def _self_test() -> None:
    """
    Feed three chunks of data (a different slice on every worker) and compare the running mean
    and std with numpy's on the concatenation of what all the workers saw.
    """
    comm = MPI.COMM_WORLD
    rank, n_workers = comm.Get_rank(), comm.Get_size()
    rng = np.random.RandomState(0)
    chunks = [rng.randn(3 * n_workers, 2) for _ in range(3)]
    graph = tf.Graph()
    with graph.as_default(), tf_util.single_threaded_session(graph=graph) as sess:
        rms = RunningMeanStd(epsilon=0.0, shape=(2,))
        tf_util.initialize(sess)
        for chunk in chunks:
            rms.update(chunk[3 * rank: 3 * (rank + 1)])
        mean, std = sess.run([rms.mean, rms.std])
    everything = np.concatenate(chunks, axis=0)
    np.testing.assert_allclose(mean, everything.mean(axis=0), rtol=1e-5)
    np.testing.assert_allclose(std, everything.std(axis=0), rtol=1e-5)
    if rank == 0:
        print("RunningMeanStd self-test passed on {} worker(s): mean {} std {}".format(n_workers, mean, std))


if __name__ == "__main__":
    _self_test()
