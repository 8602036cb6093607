"""
Numpy arrays, dtypes and scalars from their pickled fields.

Only numeric, boolean and fixed-width text dtypes are rebuilt (never object, void or structured ones). An array's
size is computed from its shape and dtype and compared with the raw bytes the file really holds before anything
is allocated.
"""
import re
from typing import Any, cast

import numpy as np

from stable_baselines.common.safe_loading import limits
from stable_baselines.common.safe_loading.converters import CALLS, REFERENCES, Converter
from stable_baselines.common.safe_loading.records import Call, Ref

_DTYPE_SPEC = re.compile(r"^[<>=|]?(\?|b1|[iu][1248]|f[248]|c(8|16|32)|[US][0-9]{1,6})$")
_SCALAR_TYPES = ("bool_", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float16",
                 "float32", "float64", "complex64", "complex128", "longlong", "ulonglong", "intc", "uintc",
                 "double", "single", "half", "str_", "bytes_")


def to_dtype(converter: Converter, node: Any) -> np.dtype:
    """
    :param converter: (Converter)
    :param node: (Any) a pickled dtype, a numpy scalar type by reference, or a dtype string
    :return: (np.dtype) a plain (numeric, boolean or text) dtype
    """
    value = converter.value(node)
    if isinstance(value, str) and _DTYPE_SPEC.match(value):
        value = np.dtype(value)
    elif isinstance(value, type) and issubclass(value, np.generic):
        value = np.dtype(value)
    if not isinstance(value, np.dtype) or value.hasobject or value.fields is not None or \
            value.subdtype is not None or value.kind not in "biufcUS" or value.itemsize == 0:
        raise converter.invalid("expected a numeric, boolean or text dtype whose items have a size, got {!r}".format(
            value))
    return value


def _dtype(converter: Converter, call: Call) -> np.dtype:
    """``numpy.dtype(spec, align, copy)`` followed by its state (byte order ...)."""
    spec = call.args[0] if call.args else None
    if not isinstance(spec, str) or not _DTYPE_SPEC.match(spec):
        raise converter.invalid("a numpy dtype {!r} (only numeric, boolean and text dtypes are loaded)".format(spec))
    dtype = np.dtype(spec)
    if dtype.itemsize == 0:
        raise converter.invalid("a numpy dtype {!r} whose items have no size".format(spec))
    for state in call.states:
        if not isinstance(state, tuple) or len(state) < 2:
            raise converter.invalid("a numpy dtype state that is not a tuple")
        byteorder = state[1]
        if byteorder not in ("<", ">", "=", "|"):
            raise converter.invalid("a numpy dtype byte order {!r}".format(byteorder))
        if any(part is not None for part in state[2:5]):
            raise converter.invalid("a structured or sub-array numpy dtype (not loaded)")
        if byteorder in "<>" and dtype.itemsize > 1 and dtype.kind != "S":
            dtype = dtype.newbyteorder(byteorder)
    return dtype


def _raw_bytes(converter: Converter, node: Any) -> bytes:
    raw = converter.value(node)
    if isinstance(raw, str):  # Python 2 pickles hold the buffer as a latin-1 string
        raw = raw.encode("latin-1")
    if not isinstance(raw, (bytes, bytearray)):
        raise converter.invalid("array data of type {} (expected raw bytes; object arrays are not loaded)".format(
            type(raw).__name__))
    return bytes(raw)


def array_from_buffer(converter: Converter, raw: bytes, dtype: np.dtype, shape: Any, fortran: bool) -> np.ndarray:
    """
    :param converter: (Converter)
    :param raw: (bytes) the array data
    :param dtype: (np.dtype) a plain dtype
    :param shape: (Any) the shape given by the file
    :param fortran: (bool) column-major data
    :return: (np.ndarray) a writable copy, after checking that shape, dtype and data agree
    """
    if not isinstance(shape, tuple) or len(shape) > 32 or \
            not all(type(dim) is int and 0 <= dim <= limits.MAX_ARRAY_ELEMENTS for dim in shape):
        raise converter.invalid("an array shape {!r} (at most 32 axes of at most {} entries each)".format(
            shape, limits.MAX_ARRAY_ELEMENTS))
    n_elements = 1
    for dim in shape:
        n_elements *= dim
    if n_elements > limits.MAX_ARRAY_ELEMENTS:
        raise converter.invalid("an array of {} elements (at most {})".format(n_elements, limits.MAX_ARRAY_ELEMENTS))
    if n_elements * dtype.itemsize != len(raw):
        raise converter.invalid("an array of shape {} and dtype {} needs {} bytes, the file holds {}".format(
            shape, dtype, n_elements * dtype.itemsize, len(raw)))
    flat = np.frombuffer(raw, dtype=dtype, count=n_elements)
    return flat.reshape(shape, order="F" if fortran else "C").copy(order="F" if fortran else "C")


def _reconstruct(converter: Converter, call: Call) -> np.ndarray:
    """``numpy.core.multiarray._reconstruct(ndarray, (0,), b'b')`` + state ``(version, shape, dtype, fortran, raw)``."""
    if not call.args or not isinstance(call.args[0], Ref) or converter.reference(call.args[0]) is not np.ndarray:
        raise converter.invalid("a numpy array of a type other than numpy.ndarray (not loaded)")
    if len(call.states) != 1 or not isinstance(call.states[0], tuple) or len(call.states[0]) != 5:
        raise converter.invalid("a numpy array without its (version, shape, dtype, order, data) state")
    _, shape, dtype_node, fortran, raw_node = call.states[0]
    dtype = to_dtype(converter, dtype_node)
    if not isinstance(fortran, bool):
        raise converter.invalid("a numpy array order flag {!r}".format(fortran))
    return array_from_buffer(converter, _raw_bytes(converter, raw_node), dtype, converter.value(shape), fortran)


def _frombuffer(converter: Converter, call: Call) -> np.ndarray:
    """``numpy.core.numeric._frombuffer(buffer, dtype, shape, order)`` (pickle protocol 5)."""
    if len(call.args) != 4:
        raise converter.invalid("numpy _frombuffer with {} arguments".format(len(call.args)))
    buffer, dtype_node, shape, order = call.args
    if order not in ("C", "F"):
        raise converter.invalid("a numpy array order {!r}".format(order))
    return array_from_buffer(converter, _raw_bytes(converter, buffer), to_dtype(converter, dtype_node),
                             converter.value(shape), order == "F")


def _scalar(converter: Converter, call: Call) -> np.generic:
    """``numpy.core.multiarray.scalar(dtype, raw)``."""
    if len(call.args) != 2:
        raise converter.invalid("a numpy scalar with {} arguments".format(len(call.args)))
    dtype = to_dtype(converter, call.args[0])
    # indexing a 0-d array with () gives its numpy scalar
    return cast(np.generic, array_from_buffer(converter, _raw_bytes(converter, call.args[1]), dtype, (), False)[()])


def _numpy_type(_: Converter, ref: Ref) -> type:
    return np.ndarray if ref.name == "ndarray" else getattr(np, ref.name)


for _prefix in ("numpy.multiarray", "numpy.numeric"):
    CALLS[_prefix + "._reconstruct"] = _reconstruct
    CALLS[_prefix + ".scalar"] = _scalar
    CALLS[_prefix + "._frombuffer"] = _frombuffer
CALLS["numpy.dtype"] = _dtype
REFERENCES["numpy.ndarray"] = _numpy_type
for _name in _SCALAR_TYPES:
    if hasattr(np, _name):
        REFERENCES["numpy." + _name] = _numpy_type
