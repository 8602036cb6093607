"""Running estimate of the mean and variance of a stream of arrays (used by VecNormalize)."""
from typing import Tuple

import numpy as np


class RunningMeanStd(object):
    """
    Calculates the running mean and variance of a data stream, merging batches with the
    parallel algorithm (https://en.wikipedia.org/wiki/Algorithms_for_calculating_variance#Parallel_algorithm).

    The attribute names (``mean``, ``var``, ``count``) and this module's path are those of the original
    library, so the ``obs_rms.pkl`` / ``ret_rms.pkl`` files it wrote unpickle into this class.

    :param epsilon: (float) initial count (avoids a division by zero before the first update)
    :param shape: (tuple) the shape of one data sample
    """

    def __init__(self, epsilon: float = 1e-4, shape: Tuple[int, ...] = ()):
        self.mean = np.zeros(shape, dtype=np.float64)
        self.var = np.ones(shape, dtype=np.float64)
        self.count = epsilon

    def update(self, arr: np.ndarray) -> None:
        """
        Update the statistics with a batch of samples.

        :param arr: (np.ndarray) the batch, shape ``(batch_size,) + shape``
        """
        arr = np.asarray(arr, dtype=np.float64)
        expected = np.shape(self.mean)
        if arr.shape[1:] != expected:
            raise ValueError("RunningMeanStd.update expected a batch of shape (batch_size,) + {}, got an array of "
                             "shape {}".format(tuple(expected), arr.shape))
        batch_mean = np.mean(arr, axis=0)
        batch_var = np.var(arr, axis=0)
        batch_count = arr.shape[0]
        self.update_from_moments(batch_mean, batch_var, batch_count)

    def update_from_moments(self, batch_mean: np.ndarray, batch_var: np.ndarray, batch_count: int) -> None:
        """
        Merge the moments of a batch into the running statistics.

        :param batch_mean: (np.ndarray) mean of the batch
        :param batch_var: (np.ndarray) (population) variance of the batch
        :param batch_count: (int) number of samples in the batch
        """
        delta = batch_mean - self.mean
        tot_count = self.count + batch_count

        new_mean = self.mean + delta * batch_count / tot_count
        m_a = self.var * self.count
        m_b = batch_var * batch_count
        m_2 = m_a + m_b + np.square(delta) * self.count * batch_count / tot_count
        new_var = m_2 / tot_count

        self.mean = new_mean
        self.var = new_var
        self.count = tot_count

    def __repr__(self) -> str:
        return "RunningMeanStd(mean={}, var={}, count={})".format(self.mean, self.var, self.count)
