"""Segment trees (common/segment_tree.py) against brute force."""
import operator

import numpy as np
import pytest

from stable_baselines.common.segment_tree import MinSegmentTree, SegmentTree, SumSegmentTree


def _brute_prefixsum_idx(values, prefixsum):
    """Highest i such that sum(values[:i]) <= prefixsum (restricted to the leaves with positive mass)."""
    cumsum = np.cumsum(values)
    # index i with cumsum[i-1] <= prefixsum < cumsum[i]
    return int(np.searchsorted(cumsum, prefixsum, side="right"))


@pytest.mark.parametrize("capacity", [0, 3, 6, 100, -4])
def test_capacity_must_be_power_of_two(capacity):
    with pytest.raises(ValueError, match="power of 2.*got {}".format(capacity)):
        SumSegmentTree(capacity)
    with pytest.raises(ValueError, match="power of 2"):
        MinSegmentTree(capacity)


def test_capacity_type_error():
    with pytest.raises(TypeError, match="power of 2.*4.0.*float"):
        SumSegmentTree(4.0)
    with pytest.raises(TypeError, match="callable"):
        SegmentTree(4, "add", 0.0)


def test_tree_set_and_reduce_small():
    tree = SumSegmentTree(4)
    tree[2] = 1.0
    tree[3] = 3.0
    assert np.isclose(tree.sum(), 4.0)
    assert np.isclose(tree.sum(2, 3), 1.0)
    assert np.isclose(tree.sum(2, -1), 1.0)
    assert np.isclose(tree.sum(2, 4), 4.0)
    assert np.isclose(tree.sum(0, 2), 0.0)
    assert tree.sum(3, 3) == 0.0  # empty range: neutral element
    assert tree[3] == 3.0 and len(tree) == 4 and tree.capacity == 4

    tree = MinSegmentTree(4)
    tree[0] = 1.0
    tree[2] = 0.5
    tree[3] = 3.0
    assert np.isclose(tree.min(), 0.5)
    assert np.isclose(tree.min(0, 2), 1.0)
    assert np.isclose(tree.min(0, 3), 0.5)
    assert np.isclose(tree.min(0, -1), 0.5)
    assert np.isclose(tree.min(2, 4), 0.5)
    assert np.isclose(tree.min(3, 4), 3.0)
    assert tree.min(1, 2) == float("inf")  # unset leaf


def test_capacity_one():
    tree = SumSegmentTree(1)
    tree[0] = 2.5
    assert tree.sum() == 2.5
    assert tree.find_prefixsum_idx(1.0) == 0
    tree[np.array([0])] = 3.0
    assert tree.sum() == 3.0


@pytest.mark.parametrize("capacity", [1, 2, 8, 64])
def test_random_sums_and_mins_against_brute_force(capacity):
    rng = np.random.RandomState(capacity)
    sum_tree, min_tree = SumSegmentTree(capacity), MinSegmentTree(capacity)
    ref_sum = np.zeros(capacity)
    ref_min = np.full(capacity, np.inf)
    for step in range(200):
        if step % 3 == 0:  # batch update (possibly with repeated indices: the last value wins)
            idx = rng.randint(0, capacity, size=rng.randint(1, 6))
            val = rng.rand(len(idx)) * 10
            sum_tree[idx] = val
            min_tree[idx] = val
            for i, v in zip(idx, val):
                ref_sum[i] = v
                ref_min[i] = v
        else:
            i = int(rng.randint(capacity))
            v = float(rng.rand() * 10)
            sum_tree[i] = v
            min_tree[i] = v
            ref_sum[i] = v
            ref_min[i] = v
        start = rng.randint(0, capacity)
        end = rng.randint(start, capacity + 1)
        assert np.isclose(sum_tree.sum(start, end), ref_sum[start:end].sum())
        expected_min = ref_min[start:end].min() if end > start else np.inf
        assert min_tree.min(start, end) == expected_min
        assert np.isclose(sum_tree.sum(), ref_sum.sum())
        assert min_tree.min() == ref_min.min()
    np.testing.assert_allclose(sum_tree[np.arange(capacity)], ref_sum)


def test_find_prefixsum_idx_small():
    tree = SumSegmentTree(4)
    tree[2] = 1.0
    tree[3] = 3.0
    assert tree.find_prefixsum_idx(0.0) == 2
    assert tree.find_prefixsum_idx(0.5) == 2
    assert tree.find_prefixsum_idx(0.99) == 2
    assert tree.find_prefixsum_idx(1.01) == 3
    assert tree.find_prefixsum_idx(3.00) == 3
    assert tree.find_prefixsum_idx(4.00) == 3
    assert isinstance(tree.find_prefixsum_idx(0.5), int)
    np.testing.assert_array_equal(tree.find_prefixsum_idx(np.array([0.0, 0.5, 0.99, 1.01, 3.0, 4.0])),
                                  [2, 2, 2, 3, 3, 3])

    tree = SumSegmentTree(4)
    tree[0] = 0.5
    tree[1] = 1.0
    tree[2] = 1.0
    tree[3] = 3.0
    assert tree.find_prefixsum_idx(0.00) == 0
    assert tree.find_prefixsum_idx(0.55) == 1
    assert tree.find_prefixsum_idx(0.99) == 1
    assert tree.find_prefixsum_idx(1.51) == 2
    assert tree.find_prefixsum_idx(3.00) == 3
    assert tree.find_prefixsum_idx(5.50) == 3


@pytest.mark.parametrize("capacity", [2, 16, 128])
def test_find_prefixsum_idx_against_brute_force(capacity):
    rng = np.random.RandomState(1000 + capacity)
    tree = SumSegmentTree(capacity)
    values = rng.rand(capacity) * (rng.rand(capacity) > 0.3)  # some zero leaves
    values[0] = max(values[0], 0.1)
    tree[np.arange(capacity)] = values
    prefix = rng.rand(500) * values.sum()
    found = tree.find_prefixsum_idx(prefix)
    assert found.dtype == np.int64 and found.shape == (500,)
    expected = [_brute_prefixsum_idx(values, p) for p in prefix]
    np.testing.assert_array_equal(found, expected)
    # a zero-mass leaf is never found inside the range
    assert np.all(values[found] > 0)
    # scalar and vectorised searches agree
    assert [tree.find_prefixsum_idx(float(p)) for p in prefix[:20]] == list(found[:20])


def test_find_prefixsum_circular_overwrites():
    """Leaves overwritten as in a full circular buffer: the tree keeps matching brute force."""
    rng = np.random.RandomState(0)
    capacity, n_items = 16, 13  # buffer of 13 items inside a tree of 16 leaves
    tree, min_tree = SumSegmentTree(capacity), MinSegmentTree(capacity)
    ref = np.zeros(capacity)
    next_idx = 0
    for _ in range(100):
        batch = rng.randint(1, 5)
        idx = (next_idx + np.arange(batch)) % n_items
        vals = rng.rand(batch) + 0.01
        tree[idx] = vals
        min_tree[idx] = vals
        ref[idx] = vals
        next_idx = (next_idx + batch) % n_items
        assert np.isclose(tree.sum(), ref.sum())
        assert np.isclose(tree.sum(0, n_items), ref[:n_items].sum())
        assert min_tree.min() == ref[ref > 0].min()
        prefix = rng.rand(50) * tree.sum(0, n_items)
        np.testing.assert_array_equal(tree.find_prefixsum_idx(prefix),
                                      [_brute_prefixsum_idx(ref, p) for p in prefix])
    assert np.all(ref[n_items:] == 0)


def test_find_prefixsum_errors():
    tree = SumSegmentTree(4)
    tree[np.arange(4)] = [1.0, 2.0, 3.0, 4.0]
    with pytest.raises(ValueError, match=r"prefixsum must be in \[0, sum\(\)\].*10.0"):
        tree.find_prefixsum_idx(11.0)
    with pytest.raises(ValueError, match="prefixsum must be in"):
        tree.find_prefixsum_idx(np.array([1.0, -0.5]))
    with pytest.raises(ValueError, match="finite"):
        tree.find_prefixsum_idx(np.nan)


def test_index_errors():
    tree = SumSegmentTree(4)
    with pytest.raises(IndexError, match="0 <= idx < 4, got 4"):
        tree[4] = 1.0
    with pytest.raises(IndexError, match="got -1"):
        tree[np.array([0, -1])] = 1.0
    with pytest.raises(TypeError, match="integers"):
        tree[1.5] = 1.0
    with pytest.raises(IndexError, match="outside the tree"):
        tree.sum(0, 9)


def test_custom_operation():
    tree = SegmentTree(8, operation=max, neutral_element=float("-inf"))
    tree[np.array([1, 5])] = [3.0, 7.0]
    tree[2] = 5.0
    assert tree.reduce() == 7.0
    assert tree.reduce(0, 5) == 5.0
    tree = SegmentTree(8, operation=operator.add, neutral_element=0.0)
    tree[np.arange(8)] = np.arange(8.0)
    assert tree.reduce(2, 6) == 2 + 3 + 4 + 5
