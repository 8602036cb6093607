"""
Parameters as one flat vector: sizes of variables, the flattened gradient, reading and writing all
variables of a list at once (what TRPO, PPO1, GAIL and MPI Adam work on). Re-exported by
:mod:`stable_baselines.common.tf_util`.
"""
from typing import Any, Iterable, List, Optional, Sequence

import numpy as np

from stable_baselines.common.tf_compat import tf
from stable_baselines.common.engine.tf_run import session_run


def var_shape(tensor: Any) -> List[int]:
    """
    The static shape of a tensor or variable, which must be fully defined.

    :param tensor: (TensorFlow Tensor) the tensor
    :return: ([int]) its shape
    """
    dims = tensor.get_shape().as_list()
    if any(not isinstance(dim, int) for dim in dims):
        raise ValueError("var_shape assumes that the shape is fully known, got {} for {}".format(
            dims, getattr(tensor, "name", tensor)))
    return dims


def intprod(tensor: Iterable) -> int:
    """
    The product of a sequence of numbers, as an int (1 for an empty sequence).

    :param tensor: ([Number]) the numbers
    :return: (int) their product
    """
    return int(np.prod(list(tensor)))


def numel(tensor: Any) -> int:
    """
    The number of scalars a tensor of fully defined shape holds.

    :param tensor: (TensorFlow Tensor) the tensor
    :return: (int) the number of elements
    """
    return intprod(var_shape(tensor))


def _flat(tensor: Any) -> tf.Tensor:
    return tf.reshape(tensor, [numel(tensor)])


def flatgrad(loss: tf.Tensor, var_list: Sequence[tf.Variable], clip_norm: Optional[float] = None) -> tf.Tensor:
    """
    The gradient of ``loss`` with respect to every variable of ``var_list``, concatenated into one
    vector (zeros for variables the loss does not depend on).

    :param loss: (TensorFlow Tensor) the scalar to differentiate
    :param var_list: ([TensorFlow Variable]) the variables, in the order of the vector
    :param clip_norm: (float) if given, each variable's gradient is clipped to this L2 norm first
    :return: (TensorFlow Tensor) the flat gradient
    """
    grads = tf.gradients(loss, var_list)
    if clip_norm is not None:
        grads = [None if grad is None else tf.clip_by_norm(grad, clip_norm=clip_norm) for grad in grads]
    pieces = []
    for var, grad in zip(var_list, grads):
        pieces.append(tf.reshape(tf.zeros_like(var) if grad is None else grad, [numel(var)]))
    return tf.concat(axis=0, values=pieces)


class SetFromFlat(object):
    """
    ``set_from_flat(theta)`` writes one flat vector into the variables of a list, in order.

    :param var_list: ([TensorFlow Variable]) the variables
    :param dtype: (type) the dtype of the vector's placeholder
    :param sess: (TensorFlow Session) the session (None: the default session at each call)
    """

    def __init__(self, var_list: Sequence[tf.Variable], dtype: Any = tf.float32, sess: Optional[tf.Session] = None) -> None:
        shapes = [var_shape(var) for var in var_list]
        sizes = [intprod(shape) for shape in shapes]
        self.theta = tf.placeholder(dtype, [int(np.sum(sizes))])
        assignments = []
        offset = 0
        for var, shape, size in zip(var_list, shapes, sizes):
            piece = tf.reshape(self.theta[offset:offset + size], shape)
            assignments.append(tf.assign(var, piece))
            offset += size
        self.operation = tf.group(*assignments)
        self.sess = sess

    def __call__(self, theta: np.ndarray) -> Any:
        sess = tf.get_default_session() if self.sess is None else self.sess
        return session_run(sess, self.operation, {self.theta: theta})


class GetFlat(object):
    """
    ``get_flat()`` reads the variables of a list as one flat vector, in order.

    :param var_list: ([TensorFlow Variable]) the variables
    :param sess: (TensorFlow Session) the session (None: the default session at each call)
    """

    def __init__(self, var_list: Sequence[tf.Variable], sess: Optional[tf.Session] = None) -> None:
        self.operation = tf.concat(axis=0, values=[_flat(var) for var in var_list])
        self.sess = sess

    def __call__(self) -> np.ndarray:
        sess = tf.get_default_session() if self.sess is None else self.sess
        return sess.run(self.operation)
