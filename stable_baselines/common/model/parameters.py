"""
Writing values into a model's TF variables: the assign operations, the reading of a model file's arrays
against the variables' shapes, and the old unnamed parameter lists.
"""
import typing
from collections import OrderedDict
from typing import Any, Callable, Dict, List, Tuple

import numpy as np

from stable_baselines.common import save_util
from stable_baselines.common.safe_loading.errors import InvalidModelFileError
from stable_baselines.common.tf_compat import tf

# variable name -> (placeholder of its value, the assign op); TF's classes are untyped for mypy
AssignOps = typing.OrderedDict[str, Tuple[Any, Any]]


def make_assign_ops(graph: tf.Graph, variables: List[tf.Variable]) -> AssignOps:
    """
    :param graph: (tf.Graph) the graph of the variables
    :param variables: ([tf.Variable]) the model's parameters, in the order of its parameter list
    :return: (OrderedDict) variable name -> (placeholder, assign op), in the same order
    """
    with graph.as_default():
        return OrderedDict((var.name, _assign_op(var)) for var in variables)


def _assign_op(var: tf.Variable) -> Tuple[tf.Tensor, tf.Operation]:
    value = tf.placeholder(dtype=var.dtype.base_dtype, shape=var.shape)
    return value, var.assign(value)


def expected_shapes(assign_ops: AssignOps) -> Dict[str, Tuple[int, ...]]:
    """
    :param assign_ops: (OrderedDict) see :func:`make_assign_ops`
    :return: (dict) variable name -> its shape
    """
    return {name: tuple(value.shape.as_list()) for name, (value, _) in assign_ops.items()}


def read_source(source: Any, assign_ops: AssignOps,
                from_list: Callable[[List[np.ndarray]], Dict[str, np.ndarray]]) -> Dict[str, Any]:
    """
    The parameters to load, from a dict, a list (files of the library <= 2.7), a path, a file object, or the
    parameters of a model file being loaded; arrays of a file are read only after their shape was compared with
    the variable of that name.

    :param source: (dict, list, str, file-like or save_util.ModelParameters)
    :param assign_ops: (OrderedDict) see :func:`make_assign_ops`
    :param from_list: (list -> dict) names an unnamed list of arrays
    :return: (dict) variable name -> array
    """
    if isinstance(source, dict):
        return dict(source)
    if isinstance(source, list):
        return dict(from_list(source))
    stored = source
    if not isinstance(stored, save_util.ModelParameters):
        _, stored = save_util.read_model_file(source, load_data=False)
    params = stored.read(expected_shapes(assign_ops))
    if params is None:
        raise InvalidModelFileError("The model file {!r} holds no parameters".format(source))
    return dict(from_list(params) if isinstance(params, list) else params)


def assign_feed(assign_ops: AssignOps, params: Dict[str, Any], exact_match: bool
                ) -> Tuple[List[Any], Dict[Any, np.ndarray]]:
    """
    Check ``params`` against the model's variables and pair each value with its assign op.

    :param assign_ops: (OrderedDict) see :func:`make_assign_ops`
    :param params: (dict) variable name -> array
    :param exact_match: (bool) every variable must be given, and nothing else
    :return: ([tf.Operation], dict) the assign ops to run and their feed dict
    """
    unknown = sorted(name for name in params if name not in assign_ops)
    if unknown and exact_match:
        raise RuntimeError("Load dictionary has parameters the model does not have: {}. The model's parameters "
                           "are: {}".format(", ".join(unknown), ", ".join(assign_ops)))
    ops: List[Any] = []
    feed: Dict[Any, np.ndarray] = {}
    for name, value in params.items():
        if name not in assign_ops:
            continue
        placeholder, assign = assign_ops[name]
        value = _numeric_array(name, value, placeholder.dtype.as_numpy_dtype)
        shape = tuple(placeholder.shape.as_list())
        if tuple(value.shape) != shape:
            raise ValueError("Parameter '{}' has shape {} in the load dictionary, the model expects {}"
                             .format(name, value.shape, shape))
        feed[placeholder] = value
        ops.append(assign)
    missing: List[str] = sorted(set(assign_ops) - set(params))
    if exact_match and missing:
        raise RuntimeError("Load dictionary did not contain all variables. Missing variables: {}"
                           .format(", ".join(missing)))
    return ops, feed


# numpy dtype kinds that convert to a variable's (real, numeric) dtype without losing their meaning:
# booleans, signed and unsigned integers, floats
_NUMERIC_KINDS = "biuf"


def _numeric_array(name: str, value: Any, expected: Any) -> np.ndarray:
    """
    :param name: (str) the variable's name, for the error message
    :param value: (array_like) the value given for it
    :param expected: (np.dtype) the variable's dtype
    :return: (np.ndarray) ``value`` as an array of real numbers
    """
    array = np.asarray(value)
    if array.dtype.kind in _NUMERIC_KINDS:
        return array
    if array.dtype.kind == "O":  # an object array of plain numbers is fine
        elements = np.asarray(array.tolist())
        if elements.dtype.kind in _NUMERIC_KINDS and elements.shape == array.shape:
            return elements
    raise ValueError("Parameter '{}' has dtype {} in the load dictionary, the model expects real numbers "
                     "({}); complex numbers, strings and other objects cannot be loaded"
                     .format(name, array.dtype, np.dtype(expected).name))


def name_unnamed_arrays(names: List[str], arrays: List[np.ndarray],
                        select: Callable[[List[np.ndarray], int], List[np.ndarray]]) -> "OrderedDict[str, np.ndarray]":
    """
    Give the arrays of an unnamed parameter list (model files of the library <= 2.7) the model's variable names.

    :param names: ([str]) the model's variable names, in order
    :param arrays: ([np.ndarray]) the arrays of the file
    :param select: (([np.ndarray], int) -> [np.ndarray]) picks the model's arrays among the file's (some old
        files hold every array twice)
    :return: (OrderedDict) variable name -> array
    """
    if len(arrays) < len(names):
        raise ValueError("The file holds {} parameter arrays, the model has {} parameters ({})"
                         .format(len(arrays), len(names), ", ".join(names)))
    return OrderedDict(zip(names, select(list(arrays), len(names))))
