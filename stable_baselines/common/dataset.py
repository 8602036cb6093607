"""
Minibatch iteration over dictionaries / tuples of arrays (PPO1, TRPO, GAIL).
"""
from typing import Any, Dict, Iterator, Optional, Sequence, Tuple, cast

import numpy as np


def _require_positive(batch_size: int) -> None:
    """
    Refuse a batch size below 1.

    :param batch_size: (int) the batch size
    """
    if batch_size <= 0:
        raise ValueError("batch_size must be a positive int, got {!r}".format(batch_size))


def _common_length(data_map: Dict[str, np.ndarray]) -> int:
    """
    The first dimension shared by all the arrays.

    :param data_map: (dict) the arrays
    :return: (int) their common length
    """
    lengths = {key: (array.shape[0] if array.ndim > 0 else None) for key, array in data_map.items()}
    distinct = set(lengths.values())
    if len(distinct) != 1 or None in distinct:
        raise ValueError("Dataset expects arrays that all have the same first dimension, got lengths {}"
                         .format(lengths))
    return cast(int, distinct.pop())  # checked above: one length, not None


class Dataset(object):
    """
    Named arrays of equal length (observations, actions, advantages, ...) served in minibatches,
    reshuffled at every pass unless shuffling is disabled (as recurrent policies need).

    :param data_map: (dict) name -> numpy array, all with the same first dimension
    :param shuffle: (bool) shuffle the rows (the same permutation for every array) at every pass
    """

    def __init__(self, data_map: Dict[str, np.ndarray], shuffle: bool = True) -> None:
        if not isinstance(data_map, dict) or len(data_map) == 0:
            raise ValueError("Dataset expects a non-empty dict of numpy arrays, got {!r}".format(type(data_map)))
        arrays = {key: np.asarray(array) for key, array in data_map.items()}
        self.n_samples = _common_length(arrays)
        self.data_map = arrays
        self.enable_shuffle = shuffle
        self._next_id = 0
        self.shuffle()

    def _rows(self, selection: Any) -> Dict[str, np.ndarray]:
        """
        The same rows of every array.

        :param selection: (slice or np.ndarray) which rows
        :return: (dict) name -> selected rows
        """
        return {key: array[selection] for key, array in self.data_map.items()}

    def shuffle(self) -> None:
        """
        Go back to the first row, after permuting the rows when shuffling is enabled.
        """
        if self.enable_shuffle:
            order = np.arange(self.n_samples)
            np.random.shuffle(order)
            self.data_map.update(self._rows(order))
        self._next_id = 0

    def next_batch(self, batch_size: int) -> Dict[str, np.ndarray]:
        """
        The next ``batch_size`` rows (fewer at the end of the data; the pass after that starts over).

        :param batch_size: (int) the number of rows
        :return: (dict) name -> rows of the batch
        """
        _require_positive(batch_size)
        if self._next_id >= self.n_samples:
            self.shuffle()
        first = self._next_id
        last = min(first + batch_size, self.n_samples)
        self._next_id = last
        return self._rows(slice(first, last))

    def iterate_once(self, batch_size: int) -> Iterator[Dict[str, np.ndarray]]:
        """
        One pass over the data in full batches (a last, smaller batch is left out).

        :param batch_size: (int) the number of rows of a batch
        :return: (dict) name -> rows of the batch, for each batch
        """
        _require_positive(batch_size)
        self.shuffle()
        while self.n_samples - self._next_id >= batch_size:
            yield self.next_batch(batch_size)
        self._next_id = 0

    def subset(self, num_elements: int, deterministic: bool = True) -> "Dataset":
        """
        A new dataset holding the first ``num_elements`` rows.

        :param num_elements: (int) the number of rows to keep
        :param deterministic: (bool) True: the new dataset does not shuffle (the original library passed this
            flag on as ``shuffle``, the opposite; nothing in the library relied on it)
        :return: (Dataset) the smaller dataset
        """
        return Dataset(self._rows(slice(None, num_elements)), shuffle=not deterministic)


def iterbatches(arrays: Sequence[Any], *, num_batches: Optional[int] = None, batch_size: Optional[int] = None,
                shuffle: bool = True, include_final_partial_batch: bool = True) -> Iterator[Tuple[np.ndarray, ...]]:
    """
    Cut arrays of equal length into batches of the same rows. Give exactly one of ``num_batches``
    (that many batches of near-equal size) and ``batch_size``.

    :param arrays: (tuple) the arrays
    :param num_batches: (int) the number of batches (None when batch_size is given)
    :param batch_size: (int) the number of rows of a batch (None when num_batches is given)
    :param shuffle: (bool) visit the rows in a random order
    :param include_final_partial_batch: (bool) also yield a last batch smaller than batch_size
    :return: (tuple) the rows of every array for one batch, for each batch
    """
    if (num_batches is None) == (batch_size is None):
        raise ValueError("Provide num_batches or batch_size, but not both (got num_batches={!r}, batch_size={!r})"
                         .format(num_batches, batch_size))
    arrays = tuple(np.asarray(array) for array in arrays)
    lengths = [array.shape[0] for array in arrays]
    if len(set(lengths)) > 1:
        raise ValueError("iterbatches expects arrays with the same first dimension, got {}".format(lengths))
    order = np.arange(lengths[0])
    if shuffle:
        np.random.shuffle(order)
    split_at: Any
    if num_batches is None:
        step = cast(int, batch_size)  # exactly one of the two is given (checked above)
        split_at = np.arange(step, lengths[0], step)
    else:
        split_at = num_batches
    for rows in np.array_split(order, split_at):
        if len(rows) == batch_size or include_final_partial_batch:
            yield tuple(array[rows] for array in arrays)
