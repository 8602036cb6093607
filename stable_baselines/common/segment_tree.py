"""
Segment trees: arrays of fixed size with O(log n) updates and range reductions.

They back the prioritized replay buffer: a :class:`SumSegmentTree` holds the priorities ``p_i ** alpha`` and finds
the index matching a prefix sum (proportional sampling); a :class:`MinSegmentTree` gives the smallest priority
(largest importance weight).

The tree is stored in one flat array of size ``2 * capacity``: node ``1`` is the root, the children of node ``i``
are ``2 * i`` and ``2 * i + 1`` and the leaves are ``capacity .. 2 * capacity - 1``. Setting items and searching
prefix sums accept numpy arrays of indices / prefix sums and work level by level on the whole batch.
"""
import numbers
import operator
from typing import Any, Callable, Optional, Union

import numpy as np

# numpy ufuncs of the python operators, used when a whole level of the tree is recomputed at once
_UFUNCS = {
    operator.add: np.add,
    operator.mul: np.multiply,
    min: np.minimum,
    max: np.maximum,
    np.add: np.add,
    np.minimum: np.minimum,
    np.maximum: np.maximum,
    np.multiply: np.multiply,
}

_SCALAR_OPERATIONS = {
    np.add: operator.add,
    np.multiply: operator.mul,
    np.minimum: min,
    np.maximum: max,
}

IndexLike = Union[int, np.integer, np.ndarray, list]


def _check_capacity(capacity: Any) -> int:
    if isinstance(capacity, bool) or not isinstance(capacity, numbers.Integral):
        raise TypeError("capacity must be a positive power of 2 (int), got {!r} of type {}"
                        .format(capacity, type(capacity).__name__))
    capacity = int(capacity)
    if capacity <= 0 or capacity & (capacity - 1) != 0:
        raise ValueError("capacity must be a positive power of 2 (1, 2, 4, 8, ...), got {}".format(capacity))
    return capacity


class SegmentTree(object):
    """
    Build a Segment Tree data structure.

    https://en.wikipedia.org/wiki/Segment_tree

    Can be used as regular array that supports Index arrays, but with two important differences:

        a) setting item's value is slightly slower. It is O(lg capacity) instead of O(1).
        b) user has access to an efficient ( O(log segment size) ) `reduce` operation which reduces `operation`
           over a contiguous subsequence of items in the array.

    :param capacity: (int) Total size of the array - must be a power of two.
    :param operation: (lambda (Any, Any): Any) operation for combining elements (eg. sum, max) must form a
        mathematical group together with the set of possible values for array elements (i.e. be associative)
    :param neutral_element: (Any) neutral element for the operation above. eg. float('-inf') for max and 0 for sum.
    """

    def __init__(self, capacity: int, operation: Callable[[Any, Any], Any], neutral_element: Any):
        self._capacity = _check_capacity(capacity)
        if not callable(operation):
            raise TypeError("operation must be callable (e.g. operator.add or min), got {!r}".format(operation))
        self._operation = operation
        # vectorised version of the operation (falls back to np.vectorize for custom python operations)
        self._ufunc = _UFUNCS.get(operation)
        # python-level version of the operation for single values (much faster than a ufunc call on scalars)
        self._scalar_operation = _SCALAR_OPERATIONS.get(operation, operation)
        if self._ufunc is None:
            self._ufunc = np.vectorize(operation, otypes=[float])
        self.neutral_element = neutral_element
        self._value = np.full(2 * self._capacity, neutral_element, dtype=np.float64)

    @property
    def capacity(self) -> int:
        """(int) the number of leaves (items) of the tree"""
        return self._capacity

    def _reduce_helper(self, start: int, end: int, node: int, node_start: int, node_end: int) -> float:
        # inclusive bounds [start, end] inside the node's range [node_start, node_end]
        if start == node_start and end == node_end:
            return self._value[node]
        mid = (node_start + node_end) // 2
        if end <= mid:
            return self._reduce_helper(start, end, 2 * node, node_start, mid)
        if mid + 1 <= start:
            return self._reduce_helper(start, end, 2 * node + 1, mid + 1, node_end)
        return self._scalar_operation(
            self._reduce_helper(start, mid, 2 * node, node_start, mid),
            self._reduce_helper(mid + 1, end, 2 * node + 1, mid + 1, node_end)
        )

    def reduce(self, start: int = 0, end: Optional[int] = None) -> float:
        """
        Returns result of applying `self.operation`
        to a contiguous subsequence of the array.

            self.operation(arr[start], operation(arr[start+1], operation(... arr[end])))

        :param start: (int) beginning of the subsequence
        :param end: (int) end of the subsequences (exclusive; negative values count from the end, None: capacity)
        :return: (Any) result of reducing self.operation over the specified range of array elements.
        """
        if end is None:
            end = self._capacity
        if end < 0:
            end += self._capacity
        if start < 0:
            start += self._capacity
        if not 0 <= start <= self._capacity or not 0 <= end <= self._capacity:
            raise IndexError("reduce range [{}, {}) is outside the tree of capacity {}"
                             .format(start, end, self._capacity))
        end -= 1  # inclusive
        if end < start:
            # empty range
            return self.neutral_element
        return self._reduce_helper(start, end, 1, 0, self._capacity - 1)

    def _leaf_indices(self, idx: IndexLike) -> np.ndarray:
        idx_arr = np.asarray(idx)
        if idx_arr.dtype == bool or not np.issubdtype(idx_arr.dtype, np.integer):
            raise TypeError("segment tree indices must be integers, got {!r} (dtype {})".format(idx, idx_arr.dtype))
        if idx_arr.size and (idx_arr.min() < 0 or idx_arr.max() >= self._capacity):
            raise IndexError("segment tree index out of range: expected 0 <= idx < {}, got {}"
                             .format(self._capacity, idx_arr.min() if idx_arr.min() < 0 else idx_arr.max()))
        return idx_arr.astype(np.int64) + self._capacity

    def __setitem__(self, idx: IndexLike, val: Any) -> None:
        """
        Set the value of one leaf, or of several leaves at once (``idx`` an array of indices, ``val`` a scalar
        or an array of the same length). With repeated indices the last value wins.

        :param idx: (int or np.ndarray) index or indices of the leaves
        :param val: (float or np.ndarray) new value(s)
        """
        if isinstance(idx, (int, np.integer)) and not isinstance(idx, bool):
            # fast path for one leaf (called at every environment step by the prioritized buffer)
            if not 0 <= idx < self._capacity:
                raise IndexError("segment tree index out of range: expected 0 <= idx < {}, got {}"
                                 .format(self._capacity, idx))
            node = int(idx) + self._capacity
            values = self._value
            values[node] = val
            node //= 2
            operation = self._scalar_operation
            while node >= 1:
                values[node] = operation(values[2 * node], values[2 * node + 1])
                node //= 2
            return
        leaves = self._leaf_indices(idx)
        if leaves.ndim == 0:
            self[int(leaves)] = val
            return
        leaves = leaves.ravel()
        vals = np.broadcast_to(np.asarray(val, dtype=np.float64), np.asarray(idx).shape).ravel()
        if leaves.size == 0:
            return
        self._value[leaves] = vals  # numpy fancy assignment: the last occurrence of a repeated index wins
        nodes = np.unique(leaves // 2)
        while nodes[0] >= 1:
            self._value[nodes] = self._ufunc(self._value[2 * nodes], self._value[2 * nodes + 1])
            if nodes[0] == 1:
                break
            nodes = np.unique(nodes // 2)

    def __getitem__(self, idx: IndexLike) -> Union[float, np.ndarray]:
        """
        Value of one leaf, or array of values for an array of indices.

        :param idx: (int or np.ndarray) index or indices
        :return: (float or np.ndarray)
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
    A segment tree reducing with the sum (neutral element 0.0).

    :param capacity: (int) Total size of the array - must be a power of two.
    """

    def __init__(self, capacity: int):
        super(SumSegmentTree, self).__init__(capacity=capacity, operation=np.add, neutral_element=0.0)

    def sum(self, start: int = 0, end: Optional[int] = None) -> float:
        """
        Returns arr[start] + ... + arr[end - 1]

        :param start: (int) start position of the reduction (must be >= 0)
        :param end: (int) end position of the reduction (exclusive; must be < len(arr), can be None for len(arr) - 1)
        :return: (Any) reduction of SumSegmentTree
        """
        return super(SumSegmentTree, self).reduce(start, end)

    def find_prefixsum_idx(self, prefixsum: Union[float, np.ndarray]) -> Union[int, np.ndarray]:
        """
        Find the highest index `i` in the array such that
            sum(arr[0] + arr[1] + ... + arr[i - 1]) <= prefixsum for each entry in prefixsum

        if array values are probabilities, this function
        allows to sample indexes according to the discrete
        probability efficiently.

        :param prefixsum: (float or np.ndarray) upperbound(s) on the sum of array prefix
        :return: (int or np.ndarray) highest index (indices) satisfying the prefixsum constraint
            (an int for a scalar prefixsum, an int64 array for an array)
        """
        scalar = np.ndim(prefixsum) == 0
        mass = np.array(prefixsum, dtype=np.float64).reshape(-1)
        if mass.size == 0:
            return np.zeros(0, dtype=np.int64)
        if not np.all(np.isfinite(mass)):
            raise ValueError("prefixsum must be finite, got {}".format(prefixsum))
        total = self._value[1]
        if mass.min() < 0 or mass.max() > total + 1e-5:
            raise ValueError("prefixsum must be in [0, sum()] = [0, {}], got values in [{}, {}]"
                             .format(total, mass.min(), mass.max()))
        node = np.ones(mass.shape, dtype=np.int64)
        while node[0] < self._capacity:  # all nodes are on the same level
            left = 2 * node
            left_sum = self._value[left]
            go_right = left_sum <= mass
            mass = np.where(go_right, mass - left_sum, mass)
            node = np.where(go_right, left + 1, left)
        idx = node - self._capacity
        return int(idx[0]) if scalar else idx


class MinSegmentTree(SegmentTree):
    """
    A segment tree reducing with the minimum (neutral element +inf).

    :param capacity: (int) Total size of the array - must be a power of two.
    """

    def __init__(self, capacity: int):
        super(MinSegmentTree, self).__init__(capacity=capacity, operation=np.minimum, neutral_element=float('inf'))

    def min(self, start: int = 0, end: Optional[int] = None) -> float:
        """
        Returns min(arr[start], ...,  arr[end - 1])

        :param start: (int) start position of the reduction (must be >= 0)
        :param end: (int) end position of the reduction (exclusive; must be < len(arr), can be None for len(arr) - 1)
        :return: (Any) reduction of MinSegmentTree
        """
        return super(MinSegmentTree, self).reduce(start, end)
