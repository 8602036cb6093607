"""
Conjugate gradient: solve ``A x = b`` for a symmetric positive-definite ``A`` given only the
product ``x -> A x`` (TRPO uses it with the Fisher-vector product).
"""
from typing import Callable, Optional

import numpy as np


def conjugate_gradient(f_ax: Callable[[np.ndarray], np.ndarray], b_vec: np.ndarray, cg_iters: int = 10,
                       callback: Optional[Callable[[np.ndarray], None]] = None, verbose: bool = False,
                       residual_tol: float = 1e-10) -> np.ndarray:
    """
    conjugate gradient calculation (Ax = b), bases on
    https://epubs.siam.org/doi/book/10.1137/1.9781611971446 Demmel p 312

    :param f_ax: (function) The function describing the Matrix A dot the vector x
                 (x being the input parameter of the function)
    :param b_vec: (numpy float) vector b, where Ax = b
    :param cg_iters: (int) the maximum number of iterations for converging
    :param callback: (function) callback the values of x while converging
    :param verbose: (bool) print extra information
    :param residual_tol: (float) the break point if the residual is below this value
    :return: (numpy float) vector x, where Ax = b
    """
    if not callable(f_ax):
        raise TypeError("f_ax must be a function computing the product A x, got {!r}".format(type(f_ax)))
    b_vec = np.asarray(b_vec)
    if b_vec.ndim != 1:
        raise ValueError("b_vec must be a 1-D vector, got an array of shape {}".format(b_vec.shape))
    if not np.issubdtype(b_vec.dtype, np.floating):
        b_vec = b_vec.astype(np.float64)
    first_basis_vect = b_vec.copy()  # the first basis vector
    residual = b_vec.copy()  # the residual
    x_var = np.zeros_like(b_vec)  # vector x, where Ax = b
    residual_dot_residual = residual.dot(residual)  # L2 norm of the residual

    fmt_str = "%10i %10.3g %10.3g"
    title_str = "%10s %10s %10s"
    if verbose:
        print(title_str % ("iter", "residual norm", "soln norm"))

    i = 0
    for i in range(cg_iters):
        if callback is not None:
            callback(x_var)
        if verbose:
            print(fmt_str % (i, residual_dot_residual, np.linalg.norm(x_var)))
        if residual_dot_residual < residual_tol:
            break
        z_var = f_ax(first_basis_vect)
        v_var = residual_dot_residual / first_basis_vect.dot(z_var)
        x_var += v_var * first_basis_vect
        residual -= v_var * z_var
        new_residual_dot_residual = residual.dot(residual)
        mu_val = new_residual_dot_residual / residual_dot_residual
        first_basis_vect = residual + mu_val * first_basis_vect

        residual_dot_residual = new_residual_dot_residual
        if residual_dot_residual < residual_tol:
            i += 1
            break
    else:
        i = cg_iters

    if callback is not None:
        callback(x_var)
    if verbose:
        print(fmt_str % (i, residual_dot_residual, np.linalg.norm(x_var)))
    return x_var
