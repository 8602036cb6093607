import argparse
import random

import numpy as np
import pytest
from gymnasium import spaces

from stable_baselines.common.math_util import (discount, discount_with_boundaries, explained_variance,
                                               explained_variance_2d, flatten_arrays, safe_mean, scale_action,
                                               unflatten_vector, unscale_action)
from stable_baselines.common.misc_util import (boolean_flag, flatten_lists, mpi_rank_or_zero, mpi_size_or_one,
                                               set_global_seeds, zipsame)
from stable_baselines.common.tf_compat import tf


def test_safe_mean():
    assert np.isnan(safe_mean([]))
    assert safe_mean([1, 2, 3]) == 2.0
    assert safe_mean(np.array([0.5])) == 0.5


def test_explained_variance():
    y_true = np.array([1.0, 2.0, 3.0, 4.0])
    assert explained_variance(y_true.copy(), y_true) == pytest.approx(1.0)
    assert explained_variance(np.zeros(4), y_true) == pytest.approx(1 - np.var(y_true) / np.var(y_true))
    pred = np.array([1.5, 2.0, 2.5, 4.0])
    expected = 1 - np.var(y_true - pred) / np.var(y_true)
    assert explained_variance(pred, y_true) == pytest.approx(expected)
    # constant prediction offset: still explains everything
    assert explained_variance(y_true + 3, y_true) == pytest.approx(1.0)
    assert np.isnan(explained_variance(pred, np.ones(4)))
    with pytest.raises(ValueError, match="1-D"):
        explained_variance(np.zeros((4, 1)), np.zeros((4, 1)))


def test_explained_variance_2d():
    y_true = np.array([[1.0, 5.0], [2.0, 5.0], [3.0, 5.0]])
    y_pred = np.array([[1.0, 4.0], [2.0, 6.0], [2.0, 5.0]])
    result = explained_variance_2d(y_pred, y_true)
    assert result.shape == (2,)
    assert result[0] == pytest.approx(1 - np.var(y_true[:, 0] - y_pred[:, 0]) / np.var(y_true[:, 0]))
    assert result[1] == 0  # no variance in y_true
    with pytest.raises(ValueError, match="2-D"):
        explained_variance_2d(np.zeros(3), np.zeros(3))


def test_flatten_unflatten():
    arrays = [np.arange(6).reshape(2, 3), np.array([7.0]), np.arange(4).reshape(2, 2, 1)]
    flat = flatten_arrays(arrays)
    assert flat.shape == (11,)
    restored = unflatten_vector(flat, [arr.shape for arr in arrays])
    for original, back in zip(arrays, restored):
        assert back.shape == original.shape
        assert np.array_equal(back, original)
    with pytest.raises(ValueError, match="11"):
        unflatten_vector(flat[:-1], [arr.shape for arr in arrays])


def test_discount():
    rewards = np.array([1.0, 2.0, 3.0])
    gamma = 0.9
    expected = np.array([1 + 0.9 * 2 + 0.81 * 3, 2 + 0.9 * 3, 3.0])
    assert np.allclose(discount(rewards, gamma), expected)
    two_d = np.stack([rewards, 2 * rewards], axis=1)
    assert np.allclose(discount(two_d, gamma), np.stack([expected, 2 * expected], axis=1))


def test_discount_with_boundaries():
    gamma = 0.9
    rewards = np.array([1.0, 2.0, 3.0, 4.0])
    episode_starts = np.array([1.0, 0.0, 1.0, 0.0])
    result = discount_with_boundaries(rewards, episode_starts, gamma)
    assert np.allclose(result, [1 + 0.9 * 2, 2.0, 3 + 0.9 * 4, 4.0])
    # no boundaries: same as discount
    assert np.allclose(discount_with_boundaries(rewards, np.zeros(4), gamma), discount(rewards, gamma))
    with pytest.raises(ValueError, match="same length"):
        discount_with_boundaries(rewards, np.zeros(3), gamma)


def test_scale_unscale_action():
    space = spaces.Box(low=np.array([-2.0, 0.0]), high=np.array([2.0, 10.0]), dtype=np.float64)
    action = np.array([1.0, 2.5])
    scaled = scale_action(space, action)
    assert np.allclose(scaled, [0.5, -0.5])
    assert np.allclose(unscale_action(space, scaled), action)
    assert np.allclose(scale_action(space, space.low), -1.0)
    assert np.allclose(scale_action(space, space.high), 1.0)
    assert np.allclose(unscale_action(space, np.array([1.0, -1.0])), [2.0, 0.0])


def test_set_global_seeds():
    set_global_seeds(3)
    first = (random.random(), np.random.rand())
    set_global_seeds(3)
    assert (random.random(), np.random.rand()) == first
    with tf.Graph().as_default() as graph:
        set_global_seeds(5)
        assert graph.seed == 5
    with pytest.raises(TypeError, match="integer seed"):
        set_global_seeds("0")


def test_misc_helpers():
    assert list(zipsame([1, 2], "ab")) == [(1, "a"), (2, "b")]
    with pytest.raises(ValueError, match="same length"):
        zipsame([1, 2], [1])
    assert flatten_lists([[1, 2], [], [3]]) == [1, 2, 3]
    assert mpi_rank_or_zero() == 0
    assert mpi_size_or_one() == 1

    parser = argparse.ArgumentParser()
    boolean_flag(parser, "use-gpu", default=True, help_msg="use the gpu")
    assert parser.parse_args([]).use_gpu is True
    assert parser.parse_args(["--no-use-gpu"]).use_gpu is False
    assert parser.parse_args(["--use-gpu"]).use_gpu is True


def test_the_launchers_rank_and_size_are_read_without_mpi(monkeypatch):
    """Under a launcher (here, its variables), the rank and the size come from them; mpi4py is not imported."""
    import sys
    # an xdist worker may have imported mpi4py.MPI for another test: it would answer instead of the variables
    monkeypatch.delitem(sys.modules, "mpi4py.MPI", raising=False)
    monkeypatch.setenv("PMI_RANK", "3")
    monkeypatch.setenv("PMI_SIZE", "8")
    assert (mpi_rank_or_zero(), mpi_size_or_one()) == (3, 8)
    assert "mpi4py.MPI" not in sys.modules
