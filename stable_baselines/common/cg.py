"""
Conjugate gradient: solve ``A x = b`` for a symmetric positive-definite ``A`` given only the
product ``x -> A x`` (TRPO uses it with the Fisher-vector product).
"""
from typing import Callable, Optional

import numpy as np

_HEADER_FORMAT = "%10s %10s %10s"
_ROW_FORMAT = "%10i %10.3g %10.3g"


def _report(iteration: int, squared_residual: float, solution: np.ndarray) -> None:
    """
    Print one row of the verbose table.

    :param iteration: (int) the iteration number
    :param squared_residual: (float) the squared norm of the residual
    :param solution: (np.ndarray) the current estimate of x
    """
    print(_ROW_FORMAT % (iteration, squared_residual, np.linalg.norm(solution)))


def conjugate_gradient(f_ax: Callable[[np.ndarray], np.ndarray], b_vec: np.ndarray, cg_iters: int = 10,
                       callback: Optional[Callable[[np.ndarray], None]] = None, verbose: bool = False,
                       residual_tol: float = 1e-10) -> np.ndarray:
    """
    Solve ``A x = b`` by conjugate gradients (Demmel, Applied Numerical Linear Algebra, p. 312),
    starting from x = 0 and stopping after ``cg_iters`` iterations or once the squared residual
    norm is below ``residual_tol``.

    :param f_ax: (function) the product with the matrix: v -> A v
    :param b_vec: (numpy float) the right-hand side b (1-D)
    :param cg_iters: (int) the maximum number of iterations
    :param callback: (function) called with the current x before each iteration and at the end
    :param verbose: (bool) print the iteration, the squared residual norm and the norm of x
    :param residual_tol: (float) stop when the squared residual norm falls below this value
    :return: (numpy float) the solution x
    """
    if not callable(f_ax):
        raise TypeError("f_ax must be a function computing the product A x, got {!r}".format(type(f_ax)))
    b_vec = np.asarray(b_vec)
    if b_vec.ndim != 1:
        raise ValueError("b_vec must be a 1-D vector, got an array of shape {}".format(b_vec.shape))
    if not np.issubdtype(b_vec.dtype, np.floating):
        b_vec = b_vec.astype(np.float64)

    solution = np.zeros_like(b_vec)
    residual = b_vec.copy()  # b - A x with x = 0
    direction = b_vec.copy()
    squared_residual = residual.dot(residual)
    if verbose:
        print(_HEADER_FORMAT % ("iter", "residual norm", "soln norm"))

    iterations_done = cg_iters
    for iteration in range(cg_iters):
        if callback is not None:
            callback(solution)
        if verbose:
            _report(iteration, squared_residual, solution)
        if squared_residual < residual_tol:
            iterations_done = iteration
            break
        a_direction = f_ax(direction)
        step_length = squared_residual / direction.dot(a_direction)
        solution += step_length * direction
        residual -= step_length * a_direction
        previous = squared_residual
        squared_residual = residual.dot(residual)
        direction = residual + (squared_residual / previous) * direction
        if squared_residual < residual_tol:
            iterations_done = iteration + 1
            break

    if callback is not None:
        callback(solution)
    if verbose:
        _report(iterations_done, squared_residual, solution)
    return solution
