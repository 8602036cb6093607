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

    def __init__(self, epsilon: float = 1e-4, shape: Tuple[int, ...] = ()) -> None:
        self.mean = np.zeros(shape, dtype=np.float64)
        self.var = np.ones(shape, dtype=np.float64)
        self.count = epsilon

    def update(self, arr: np.ndarray) -> None:
        """
        Add a batch of samples to the statistics.

        :param arr: (np.ndarray) the batch, shape ``(batch_size,) + shape``
        """
        samples = np.asarray(arr, dtype=np.float64)
        sample_shape = np.shape(self.mean)
        if samples.shape[1:] != sample_shape:
            raise ValueError("RunningMeanStd.update expected a batch of shape (batch_size,) + {}, got an array of "
                             "shape {}".format(tuple(sample_shape), samples.shape))
        self.update_from_moments(samples.mean(axis=0), samples.var(axis=0), samples.shape[0])

    def update_from_moments(self, batch_mean: np.ndarray, batch_var: np.ndarray, batch_count: int) -> None:
        """
        Merge the mean and variance of a batch into the statistics (Chan et al.'s pairwise formula).

        :param batch_mean: (np.ndarray) the mean of the batch
        :param batch_var: (np.ndarray) the (population) variance of the batch
        :param batch_count: (int) the number of samples of the batch
        """
        shift = batch_mean - self.mean
        merged_count = self.count + batch_count
        merged_mean = self.mean + shift * batch_count / merged_count
        # sum of squared deviations of the union = both parts' own + the correction for their distinct means
        squared_deviations = (self.var * self.count + batch_var * batch_count
                              + np.square(shift) * self.count * batch_count / merged_count)
        self.mean = merged_mean
        self.var = squared_deviations / merged_count
        self.count = merged_count

    def __repr__(self) -> str:
        return "RunningMeanStd(mean={}, var={}, count={})".format(self.mean, self.var, self.count)
