"""
Segment trees: fixed-size arrays that also answer "combine all values in ``[start, end)``" in O(log n).

The prioritized replay buffer keeps its priorities ``p_i ** alpha`` in a :class:`SumSegmentTree` (total mass, and
the slot where a prefix sum falls: proportional sampling) and a :class:`MinSegmentTree` (the smallest priority,
which gives the largest importance weight).

Layout: one flat float64 array of ``2 * capacity`` nodes. Node 1 is the root, node ``i`` combines its children
``2 * i`` and ``2 * i + 1``, and the leaves (the array's items) are nodes ``capacity .. 2 * capacity - 1``.
Index arrays are accepted for reading and writing leaves and for prefix-sum searches; they are processed one tree
level at a time for the whole batch.
"""
import numbers
import operator
from typing import Any, Callable, Dict, Optional, Union, cast

import numpy as np

IndexLike = Union[int, np.integer, np.ndarray, list]

# for a known operation: its elementwise numpy form (a whole tree level at once) and its fast form on two scalars
_ARRAY_FORMS: Dict[Any, Callable[..., Any]] = {
    operator.add: np.add, np.add: np.add, operator.mul: np.multiply, np.multiply: np.multiply,
    min: np.minimum, np.minimum: np.minimum, max: np.maximum, np.maximum: np.maximum}
_SCALAR_FORMS: Dict[Any, Callable[..., Any]] = {
    np.add: operator.add, np.multiply: operator.mul, np.minimum: min, np.maximum: max}


def _check_capacity(capacity: Any) -> int:
    if isinstance(capacity, bool) or not isinstance(capacity, numbers.Integral):
        raise TypeError("capacity must be a positive power of 2 (int), got {!r} of type {}"
                        .format(capacity, type(capacity).__name__))
    capacity = int(capacity)
    if capacity <= 0 or capacity & (capacity - 1):
        raise ValueError("capacity must be a positive power of 2 (1, 2, 4, 8, ...), got {}".format(capacity))
    return capacity


class SegmentTree(object):
    """
    An array of ``capacity`` values with fast range reductions (https://en.wikipedia.org/wiki/Segment_tree).
    Writing one item costs O(log capacity) instead of O(1); :meth:`reduce` combines a contiguous range in
    O(log capacity).

    :param capacity: (int) the number of items, a power of two
    :param operation: (lambda (Any, Any): Any) the associative operation combining two values (e.g.
        ``operator.add``, ``min``)
    :param neutral_element: (Any) the value that leaves the operation unchanged (0 for a sum, ``float('inf')``
        for a minimum); every item starts with it
    """

    def __init__(self, capacity: int, operation: Callable[[Any, Any], Any], neutral_element: Any) -> None:
        self._capacity = _check_capacity(capacity)
        if not callable(operation):
            raise TypeError("operation must be callable (e.g. operator.add or min), got {!r}".format(operation))
        self._operation = operation
        self._ufunc = _ARRAY_FORMS.get(operation) or np.vectorize(operation, otypes=[float])
        self._scalar_operation = _SCALAR_FORMS.get(operation, operation)
        self.neutral_element = neutral_element
        self._value = np.full(2 * self._capacity, neutral_element, dtype=np.float64)

    @property
    def capacity(self) -> int:
        """(int) the number of leaves (items) of the tree"""
        return self._capacity

    def _bounds(self, start: int, end: Optional[int]) -> range:
        """``[start, end)`` with None and negative values resolved, checked to lie in the tree."""
        capacity = self._capacity
        end = capacity if end is None else end
        start, end = (bound + capacity if bound < 0 else bound for bound in (start, end))
        if not (0 <= start <= capacity and 0 <= end <= capacity):
            raise IndexError("reduce range [{}, {}) is outside the tree of capacity {}".format(start, end, capacity))
        return range(start, end)

    def reduce(self, start: int = 0, end: Optional[int] = None) -> float:
        """
        Combine the items ``start .. end - 1`` with the tree's operation. The covering nodes are combined left to
        right, the left ones from the smallest up, the right ones from the largest down (as a top-down recursion
        would), so the result does not depend on how the range is walked.

        :param start: (int) the first item (negative: counted from the end)
        :param end: (int) one past the last item (negative: counted from the end; None: the capacity)
        :return: (Any) the combined value, the neutral element for an empty range
        """
        items = self._bounds(start, end)
        if not items:
            return self.neutral_element
        operation, values = self._scalar_operation, self._value
        left = right = None  # the combined covering nodes left and right of the walk (None: none yet)
        low, high = items.start + self._capacity, items.stop + self._capacity
        while low < high:
            if low % 2 == 1:  # a right child: its parent reaches outside the range
                left = values[low] if left is None else operation(left, values[low])
                low += 1
            if high % 2 == 1:
                high -= 1
                right = values[high] if right is None else operation(values[high], right)
            low //= 2
            high //= 2
        if left is None or right is None:
            return cast(float, right if left is None else left)  # the range is not empty: one side has a value
        return operation(left, right)

    def _leaf_indices(self, idx: IndexLike) -> np.ndarray:
        idx_arr = np.asarray(idx)
        if idx_arr.dtype == bool or not np.issubdtype(idx_arr.dtype, np.integer):
            raise TypeError("segment tree indices must be integers, got {!r} (dtype {})".format(idx, idx_arr.dtype))
        if idx_arr.size and (idx_arr.min() < 0 or idx_arr.max() >= self._capacity):
            wrong = idx_arr.min() if idx_arr.min() < 0 else idx_arr.max()
            raise IndexError("segment tree index out of range: expected 0 <= idx < {}, got {}".format(
                self._capacity, wrong))
        return idx_arr.astype(np.int64) + self._capacity

    def _set_one(self, idx: Union[int, np.integer], val: Any) -> None:
        """One leaf, then its ancestors up to the root (called at every environment step: plain Python)."""
        if not 0 <= idx < self._capacity:
            raise IndexError("segment tree index out of range: expected 0 <= idx < {}, got {}".format(
                self._capacity, idx))
        values, operation = self._value, self._scalar_operation
        node = int(idx) + self._capacity
        values[node] = val
        node //= 2
        while node:
            values[node] = operation(values[2 * node], values[2 * node + 1])
            node //= 2

    def __setitem__(self, idx: IndexLike, val: Any) -> None:
        """
        Set one leaf, or several at once (``idx`` an array of indices, ``val`` a scalar or one value per index;
        for a repeated index the last value wins).

        :param idx: (int or np.ndarray) index or indices of the leaves
        :param val: (float or np.ndarray) new value(s)
        """
        if isinstance(idx, (int, np.integer)) and not isinstance(idx, bool):
            self._set_one(idx, val)
            return
        leaves = self._leaf_indices(idx)
        if leaves.ndim == 0:
            self._set_one(int(leaves) - self._capacity, val)
            return
        new_values = np.broadcast_to(np.asarray(val, dtype=np.float64), np.shape(idx)).ravel()
        leaves = leaves.ravel()
        if not leaves.size:
            return
        self._value[leaves] = new_values
        parents = np.unique(leaves // 2)
        while parents[0] >= 1:  # all parents are on one level; a tree of one leaf has none
            self._value[parents] = self._ufunc(self._value[2 * parents], self._value[2 * parents + 1])
            if parents[0] == 1:
                break
            parents = np.unique(parents // 2)

    def __getitem__(self, idx: IndexLike) -> Union[float, np.ndarray]:
        """
        :param idx: (int or np.ndarray) index or indices
        :return: (float or np.ndarray) the value(s) of the leaves
        """
        return self._value[self._leaf_indices(idx)]

    def __len__(self) -> int:
        return self._capacity

    @property
    def nodes(self) -> np.ndarray:
        """(np.ndarray) the flat node array (``2 * capacity`` values: unused slot 0, root at 1, leaves at the end)"""
        return self._value

    def load_nodes(self, nodes: np.ndarray) -> None:
        """
        :param nodes: (np.ndarray) a node array of this tree's size, as :attr:`nodes` gave it
        """
        nodes = np.asarray(nodes, dtype=np.float64)
        if nodes.shape != self._value.shape:
            raise ValueError("a segment tree of capacity {} has {} nodes, got an array of shape {}".format(
                self._capacity, self._value.size, nodes.shape))
        self._value = nodes.copy()

    def __repr__(self) -> str:
        return "{}(capacity={})".format(type(self).__name__, self._capacity)


class SumSegmentTree(SegmentTree):
    """
    A segment tree of sums (neutral element 0.0).

    :param capacity: (int) the number of items, a power of two
    """

    def __init__(self, capacity: int) -> None:
        super(SumSegmentTree, self).__init__(capacity=capacity, operation=np.add, neutral_element=0.0)

    def sum(self, start: int = 0, end: Optional[int] = None) -> float:
        """
        :param start: (int) the first item
        :param end: (int) one past the last item (None: the capacity)
        :return: (float) ``arr[start] + ... + arr[end - 1]``
        """
        return self.reduce(start, end)

    def find_prefixsum_idx(self, prefixsum: Union[float, np.ndarray]) -> Union[int, np.ndarray]:
        """
        The item where a running sum crosses ``prefixsum``: the largest ``i`` with
        ``arr[0] + ... + arr[i - 1] <= prefixsum``. With the items as (unnormalised) probabilities and
        ``prefixsum`` uniform in ``[0, sum())``, ``i`` is drawn in proportion to ``arr[i]``.

        :param prefixsum: (float or np.ndarray) the running sum(s) to find, in ``[0, sum()]``
        :return: (int or np.ndarray) the index, or an int64 array of indices for an array
        """
        scalar = np.ndim(prefixsum) == 0
        remaining = np.array(prefixsum, dtype=np.float64).reshape(-1)
        if not remaining.size:
            return np.zeros(0, dtype=np.int64)
        if not np.all(np.isfinite(remaining)):
            raise ValueError("prefixsum must be finite, got {}".format(prefixsum))
        total = self._value[1]
        if remaining.min() < 0 or remaining.max() > total + 1e-5:
            raise ValueError("prefixsum must be in [0, sum()] = [0, {}], got values in [{}, {}]"
                             .format(total, remaining.min(), remaining.max()))
        node = np.ones(remaining.shape, dtype=np.int64)
        for _ in range(self._capacity.bit_length() - 1):  # one step down per level
            left_child = 2 * node
            left_mass = self._value[left_child]
            go_right = left_mass <= remaining
            remaining = np.where(go_right, remaining - left_mass, remaining)
            node = left_child + go_right
        leaves = node - self._capacity
        return int(leaves[0]) if scalar else leaves


class MinSegmentTree(SegmentTree):
    """
    A segment tree of minimums (neutral element +inf).

    :param capacity: (int) the number of items, a power of two
    """

    def __init__(self, capacity: int) -> None:
        super(MinSegmentTree, self).__init__(capacity=capacity, operation=np.minimum, neutral_element=float('inf'))

    def min(self, start: int = 0, end: Optional[int] = None) -> float:
        """
        :param start: (int) the first item
        :param end: (int) one past the last item (None: the capacity)
        :return: (float) ``min(arr[start], ..., arr[end - 1])``
        """
        return self.reduce(start, end)
