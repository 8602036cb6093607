"""Conjugate gradient (used by TRPO): solves symmetric positive-definite systems from matrix-vector products."""
import numpy as np
import pytest

from stable_baselines.common.cg import conjugate_gradient


def _spd_matrix(size, seed):
    rng = np.random.RandomState(seed)
    base = rng.randn(size, size)
    return base @ base.T + size * np.eye(size)


def test_conjugate_gradient_solves_an_spd_system():
    matrix = _spd_matrix(8, 0)
    b_vec = np.random.RandomState(1).randn(8)
    calls = []
    x_var = conjugate_gradient(lambda v: matrix @ v, b_vec, cg_iters=20, callback=lambda x: calls.append(x.copy()))
    np.testing.assert_allclose(matrix @ x_var, b_vec, atol=1e-6)
    np.testing.assert_allclose(x_var, np.linalg.solve(matrix, b_vec), atol=1e-6)
    # exact arithmetic needs at most n iterations; the callback sees x before each iteration and at the end
    assert 2 <= len(calls) <= 10
    np.testing.assert_allclose(calls[0], 0.0)
    np.testing.assert_allclose(calls[-1], x_var)


def test_conjugate_gradient_with_few_iterations_reduces_the_residual():
    matrix = _spd_matrix(30, 2)
    b_vec = np.random.RandomState(3).randn(30)
    x_var = conjugate_gradient(lambda v: matrix @ v, b_vec, cg_iters=3)
    assert np.linalg.norm(matrix @ x_var - b_vec) < 0.5 * np.linalg.norm(b_vec)
    # float32 input stays float32 (TRPO feeds float32 gradients)
    x32 = conjugate_gradient(lambda v: (matrix @ v).astype(np.float32), b_vec.astype(np.float32), cg_iters=30)
    assert x32.dtype == np.float32
    np.testing.assert_allclose(x32, np.linalg.solve(matrix, b_vec), rtol=1e-3, atol=1e-4)


def test_conjugate_gradient_zero_rhs_and_verbose(capsys):
    x_var = conjugate_gradient(lambda v: 2 * v, np.zeros(3), verbose=True)
    np.testing.assert_array_equal(x_var, np.zeros(3))
    out = capsys.readouterr().out
    assert "residual norm" in out
    with pytest.raises(ValueError, match="1-D vector.*shape \\(2, 2\\)"):
        conjugate_gradient(lambda v: v, np.ones((2, 2)))
    with pytest.raises(TypeError, match="function"):
        conjugate_gradient(np.eye(2), np.ones(2))
