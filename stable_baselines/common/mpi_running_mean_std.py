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


class RunningMeanStd(object):
    """
    calulates the running mean and std of a data stream
    https://en.wikipedia.org/wiki/Algorithms_for_calculating_variance#Parallel_algorithm

    The variables ``runningsum``, ``runningsumsq`` (shape ``shape``) and ``count`` (scalar), all
    float64 and not trainable, are created in the current variable scope; ``runningsumsq`` and
    ``count`` start at ``epsilon``. ``update`` must run with the model's session as default session.

    :param epsilon: (float) helps with arithmetic issues
    :param shape: (tuple) the shape of the data stream's output
    """

    def __init__(self, epsilon: float = 1e-2, shape: Union[Tuple[int, ...], Sequence[int]] = ()):
        shape = tuple(int(dim) for dim in shape)
        self._sum = tf.get_variable(
            dtype=tf.float64,
            shape=shape,
            initializer=tf.constant_initializer(0.0),
            name="runningsum", trainable=False)
        self._sumsq = tf.get_variable(
            dtype=tf.float64,
            shape=shape,
            initializer=tf.constant_initializer(epsilon),
            name="runningsumsq", trainable=False)
        self._count = tf.get_variable(
            dtype=tf.float64,
            shape=(),
            initializer=tf.constant_initializer(epsilon),
            name="count", trainable=False)
        self.shape = shape

        self.mean = tf.cast(self._sum / self._count, tf.float32)
        self.std = tf.sqrt(tf.maximum(tf.cast(self._sumsq / self._count, tf.float32) - tf.square(self.mean),
                                      1e-2))

        newsum = tf.placeholder(shape=self.shape, dtype=tf.float64, name='sum')
        newsumsq = tf.placeholder(shape=self.shape, dtype=tf.float64, name='var')
        newcount = tf.placeholder(shape=[], dtype=tf.float64, name='count')
        self.incfiltparams = tf_util.function([newsum, newsumsq, newcount], [],
                                              updates=[tf.assign_add(self._sum, newsum),
                                                       tf.assign_add(self._sumsq, newsumsq),
                                                       tf.assign_add(self._count, newcount)])

    def update(self, data: Any) -> None:
        """
        update the running mean and std with the data of all the MPI workers

        :param data: (np.ndarray) the data, of shape ``(n_samples,) + shape``
        """
        data = np.asarray(data, dtype='float64')
        if data.shape[1:] != self.shape:
            raise ValueError("RunningMeanStd.update expects data of shape (n_samples,) + {}, got shape {}"
                             .format(self.shape, data.shape))
        data_size = int(np.prod(self.shape))
        totalvec = np.zeros(data_size * 2 + 1, 'float64')
        addvec = np.concatenate([data.sum(axis=0).ravel(), np.square(data).sum(axis=0).ravel(),
                                 np.array([len(data)], dtype='float64')])
        MPI.COMM_WORLD.Allreduce(addvec, totalvec, op=MPI.SUM)
        self.incfiltparams(totalvec[0: data_size].reshape(self.shape),
                           totalvec[data_size: 2 * data_size].reshape(self.shape), totalvec[2 * data_size])


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
