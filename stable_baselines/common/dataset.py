"""
Minibatch iteration over dictionaries / tuples of arrays (PPO1, TRPO, GAIL).
"""
from typing import Any, Dict, Iterator, Optional, Sequence, Tuple

import numpy as np


class Dataset(object):
    """
    Dataset used for PPO1, TRPO and GAIL: a dict of arrays that share their first dimension.

    :param data_map: (dict) the input data, where every key is a numpy array
    :param shuffle: (bool) Whether to shuffle or not the dataset
        Important: this should be disabled for recurrent policies
    """

    def __init__(self, data_map: Dict[str, np.ndarray], shuffle: bool = True):
        if not isinstance(data_map, dict) or len(data_map) == 0:
            raise ValueError("Dataset expects a non-empty dict of numpy arrays, got {!r}".format(type(data_map)))
        data_map = {key: np.asarray(value) for key, value in data_map.items()}
        lengths = {key: (value.shape[0] if value.ndim > 0 else None) for key, value in data_map.items()}
        if len(set(lengths.values())) != 1 or None in lengths.values():
            raise ValueError("Dataset expects arrays that all have the same first dimension, got lengths {}"
                             .format(lengths))
        self.data_map = data_map
        self.enable_shuffle = shuffle
        self.n_samples = next(iter(lengths.values()))
        self._next_id = 0
        self.shuffle()

    def shuffle(self) -> None:
        """
        Shuffles the data_map (only when shuffling is enabled) and restarts from the first sample
        """
        if self.enable_shuffle:
            perm = np.arange(self.n_samples)
            np.random.shuffle(perm)

            for key in self.data_map:
                self.data_map[key] = self.data_map[key][perm]

        self._next_id = 0

    def next_batch(self, batch_size: int) -> Dict[str, np.ndarray]:
        """
        returns a batch of data of a given size (smaller at the end of the data)

        :param batch_size: (int) the size of the batch
        :return: (dict) a batch of the input data of size 'batch_size'
        """
        if batch_size <= 0:
            raise ValueError("batch_size must be a positive int, got {!r}".format(batch_size))
        if self._next_id >= self.n_samples:
            self.shuffle()

        cur_id = self._next_id
        cur_batch_size = min(batch_size, self.n_samples - self._next_id)
        self._next_id += cur_batch_size

        data_map = dict()
        for key in self.data_map:
            data_map[key] = self.data_map[key][cur_id:cur_id + cur_batch_size]
        return data_map

    def iterate_once(self, batch_size: int) -> Iterator[Dict[str, np.ndarray]]:
        """
        generator that iterates over the dataset once, in full batches (a final partial batch is dropped)

        :param batch_size: (int) the size of the batch
        :return: (dict) a batch of the input data of size 'batch_size'
        """
        if batch_size <= 0:
            raise ValueError("batch_size must be a positive int, got {!r}".format(batch_size))
        self.shuffle()

        while self._next_id <= self.n_samples - batch_size:
            yield self.next_batch(batch_size)
        self._next_id = 0

    def subset(self, num_elements: int, deterministic: bool = True) -> "Dataset":
        """
        Return a subset of the current dataset

        :param num_elements: (int) the number of element you wish to have in the subset
        :param deterministic: (bool) True: the subset is not shuffled (the original passed this flag as
            ``shuffle``, i.e. the opposite; no code of the library relied on it)
        :return: (Dataset) a new subset of the current Dataset object
        """
        data_map = dict()
        for key in self.data_map:
            data_map[key] = self.data_map[key][:num_elements]
        return Dataset(data_map, shuffle=not deterministic)


def iterbatches(arrays: Sequence[Any], *, num_batches: Optional[int] = None, batch_size: Optional[int] = None,
                shuffle: bool = True, include_final_partial_batch: bool = True) -> Iterator[Tuple[np.ndarray, ...]]:
    """
    Iterates over arrays in batches, must provide either num_batches or batch_size, the other must be None.

    :param arrays: (tuple) a tuple of arrays
    :param num_batches: (int) the number of batches, must be None is batch_size is defined
    :param batch_size: (int) the size of the batch, must be None is num_batches is defined
    :param shuffle: (bool) enable auto shuffle
    :param include_final_partial_batch: (bool) add the last batch if not the same size as the batch_size
    :return: (tuples) a tuple of a batch of the arrays
    """
    if (num_batches is None) == (batch_size is None):
        raise ValueError("Provide num_batches or batch_size, but not both (got num_batches={!r}, batch_size={!r})"
                         .format(num_batches, batch_size))
    arrays = tuple(map(np.asarray, arrays))
    n_samples = arrays[0].shape[0]
    if not all(a.shape[0] == n_samples for a in arrays[1:]):
        raise ValueError("iterbatches expects arrays with the same first dimension, got {}"
                         .format([a.shape[0] for a in arrays]))
    inds = np.arange(n_samples)
    if shuffle:
        np.random.shuffle(inds)
    sections = np.arange(0, n_samples, batch_size)[1:] if num_batches is None else num_batches
    for batch_inds in np.array_split(inds, sections):
        if include_final_partial_batch or len(batch_inds) == batch_size:
            yield tuple(a[batch_inds] for a in arrays)
