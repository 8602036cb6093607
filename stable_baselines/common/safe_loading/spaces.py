"""
Observation and action spaces: gymnasium's and the old ``gym`` package's (which is never imported), rebuilt as
gymnasium spaces from their validated fields. Random-generator states stored with a space are not read.
"""
import collections
from typing import Any, Dict

import numpy as np
from gymnasium import spaces

from stable_baselines.common.safe_loading import limits
from stable_baselines.common.safe_loading.converters import INSTANCE_RESOLVERS, Converter
from stable_baselines.common.safe_loading.errors import InvalidModelFileError
from stable_baselines.common.safe_loading.numpy_values import to_dtype
from stable_baselines.common.safe_loading.records import Call, Ref

_KINDS = ("Box", "Discrete", "MultiDiscrete", "MultiBinary", "Tuple", "Dict")
# the fields read from a space's state (gym and gymnasium spellings); the others (random generators, cached values
# of the various gym versions) are ignored without being read
_FIELDS = ("low", "high", "shape", "_shape", "dtype", "n", "start", "nvec", "spaces")


def _integer(converter: Converter, value: Any, what: str, minimum: int = 0) -> int:
    if isinstance(value, np.ndarray) and value.shape == ():
        value = value[()]
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)) or int(value) < minimum:
        raise converter.invalid("a space's {} must be an integer >= {}, got {!r}".format(what, minimum, value))
    return int(value)


def _shape(converter: Converter, value: Any) -> tuple:
    if not isinstance(value, (tuple, list)) or len(value) > 32:
        raise converter.invalid("a space's shape must be a tuple of integers, got {!r}".format(value))
    shape = tuple(_integer(converter, dim, "shape") for dim in value)
    # checked before gymnasium allocates the bounds of that shape
    if int(np.prod(shape, dtype=object)) > limits.MAX_SPACE_ELEMENTS:
        raise converter.invalid("a space of shape {}, more than the {} elements a model's space may have "
                                "(stable_baselines.common.safe_loading.limits.MAX_SPACE_ELEMENTS)".format(
                                    shape, limits.MAX_SPACE_ELEMENTS))
    return shape


def _numbers(converter: Converter, value: Any, what: str) -> np.ndarray:
    array = np.asarray(value) if isinstance(value, (np.ndarray, np.generic, int, float)) and \
        not isinstance(value, bool) else None
    if array is None or array.dtype.kind not in "biuf" or np.isnan(array.astype(np.float64)).any():
        raise converter.invalid("a space's {} must be numbers (no NaN), got {!r}".format(what, type(value).__name__))
    return array


def _box(converter: Converter, fields: Dict[str, Any]) -> spaces.Box:
    dtype = to_dtype(converter, fields["dtype"]) if fields.get("dtype") is not None else None
    low, high = _numbers(converter, fields.get("low"), "low"), _numbers(converter, fields.get("high"), "high")
    shape = fields.get("shape", fields.get("_shape"))
    shape = _shape(converter, shape if shape is not None else low.shape)
    dtype = dtype if dtype is not None else low.dtype
    if dtype.kind not in "biuf":
        raise converter.invalid("a Box of dtype {}".format(dtype))
    for bound in (low, high):
        if bound.shape not in ((), shape):
            raise converter.invalid("a Box of shape {} with bounds of shape {}".format(shape, bound.shape))
    return spaces.Box(low=low.astype(dtype) if low.shape else low.item(),
                      high=high.astype(dtype) if high.shape else high.item(), shape=shape, dtype=dtype)


def build_space(converter: Converter, kind: str, fields: Dict[str, Any]) -> spaces.Space:
    """
    :param converter: (Converter)
    :param kind: (str) one of 'Box', 'Discrete', 'MultiDiscrete', 'MultiBinary', 'Tuple', 'Dict'
    :param fields: (dict) the converted fields of the pickled space
    :return: (gymnasium.spaces.Space)
    """
    try:
        if kind == "Box":
            return _box(converter, fields)
        if kind == "Discrete":
            start = fields.get("start") or 0
            return spaces.Discrete(_integer(converter, fields.get("n"), "n", 1),
                                   start=_integer(converter, start, "start", -(1 << 62)))
        if kind == "MultiDiscrete":
            nvec = _numbers(converter, fields.get("nvec"), "nvec")
            if nvec.dtype.kind not in "iu" or (nvec < 1).any() or nvec.size > limits.MAX_SPACE_ELEMENTS:
                raise converter.invalid("a MultiDiscrete space needs positive integer sizes")
            return spaces.MultiDiscrete(nvec)
        if kind == "MultiBinary":
            n = fields.get("n")
            return spaces.MultiBinary(_shape(converter, n) if isinstance(n, (tuple, list)) else
                                      _integer(converter, n, "n", 1))
        children = fields.get("spaces")
        if kind == "Tuple" and isinstance(children, (tuple, list)) and \
                all(isinstance(child, spaces.Space) for child in children):
            return spaces.Tuple(list(children))
        if kind == "Dict" and isinstance(children, dict) and all(isinstance(key, str) and
                                                                 isinstance(child, spaces.Space)
                                                                 for key, child in children.items()):
            return spaces.Dict(collections.OrderedDict(children))  # keeps the stored order (a dict would be sorted)
        raise converter.invalid("a {} space whose 'spaces' are not spaces".format(kind))
    except InvalidModelFileError:
        raise
    except (ValueError, TypeError, OverflowError) as err:
        raise converter.invalid("a {} space with fields {}: {}".format(kind, sorted(fields), err)) from err


def _space_kind(cls: Ref) -> Any:
    top = cls.module.split(".")[0]
    if top in ("gym", "gymnasium") and (cls.module == top or cls.module.startswith(top + ".spaces")) and \
            cls.name in _KINDS:
        return cls.name
    return None


def _space(converter: Converter, cls: Ref, call: Call) -> Any:
    kind = _space_kind(cls)
    if kind is None:
        return NotImplemented
    return build_space(converter, kind, converter.attributes(call, _FIELDS, "{} space".format(kind), None))


INSTANCE_RESOLVERS.append(_space)
