"""
Loading pickles without running code from them (the names earlier versions of this module offered).

The work is done by :mod:`stable_baselines.common.safe_loading`; this module keeps the functions
:func:`safe_load`, :func:`safe_loads` and :func:`safe_loads_base64`, and the classes that files saved by earlier
versions of this library name by reference (the zoo policy classes, :class:`LinearFunction`,
:class:`UnresolvedFunction`).
"""
import base64
import binascii
from typing import Any, Dict, Optional

from stable_baselines.common.safe_loading import limits, load_pickle
from stable_baselines.common.safe_loading.archive import read_whole
from stable_baselines.common.safe_loading.classes import ZOO_POLICIES, zoo_policy_class
from stable_baselines.common.safe_loading.errors import InvalidModelFileError, SafeUnpicklingError
from stable_baselines.common.safe_loading.functions import LinearFunction, UnresolvedFunction
from stable_baselines.common.safe_loading.saved_objects import LegacyReplayMemory

__all__ = ["SafeUnpicklingError", "InvalidModelFileError", "safe_load", "safe_loads", "safe_loads_base64",
           "UnresolvedFunction", "LinearFunction", "LegacyReplayMemory", "ZOO_POLICIES", "zoo_policy_class"]


def _checked(custom_objects: Any) -> Dict[str, Any]:
    if custom_objects is not None and not isinstance(custom_objects, dict):
        raise TypeError("custom_objects must be a dict mapping data keys to values (or None), got {!r}".format(
            type(custom_objects).__name__))
    return custom_objects or {}


def safe_loads(data: bytes, custom_objects: Optional[Dict[str, Any]] = None, key: Optional[str] = None) -> Any:
    """
    Load a pickle given as bytes without running anything from it.

    :param data: (bytes) the pickle
    :param custom_objects: (dict) values replacing the top-level entries of the same keys (when the pickle holds a
        dict, or an old model file's ``(data, params)``), which are not read; when ``key`` is one of them, its
        value is returned without reading the data
    :param key: (str) the model-data entry the pickle is (for error messages), or None
    :return: (Any) the value
    :raises SafeUnpicklingError: the pickle holds something a model file may not hold
    :raises InvalidModelFileError: the pickle is malformed or too large
    """
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise TypeError("safe_loads expects bytes, got {!r}".format(type(data).__name__))
    return load_pickle(bytes(data), "the pickle" if key is None else "the pickle of entry {!r}".format(key), key,
                       _checked(custom_objects))


def safe_load(file_obj: Any, custom_objects: Optional[Dict[str, Any]] = None, key: Optional[str] = None) -> Any:
    """
    Load a pickle from a binary file object without running anything from it (see :func:`safe_loads`).

    :param file_obj: (file-like) binary file opened for reading (read up to
        :data:`~stable_baselines.common.safe_loading.limits.MAX_PICKLE_BYTES`)
    :param custom_objects: (dict) see :func:`safe_loads`
    :param key: (str) the model-data entry this pickle is (for error messages), or None
    :return: (Any) the value
    """
    custom_objects = _checked(custom_objects)
    if key is not None and key in custom_objects:
        return custom_objects[key]
    what = repr(getattr(file_obj, "name", "the pickle file"))
    return load_pickle(read_whole(file_obj, what, limits.MAX_PICKLE_BYTES), what, key, custom_objects)


def safe_loads_base64(text: str, custom_objects: Optional[Dict[str, Any]] = None, key: Optional[str] = None) -> Any:
    """
    Decode a base64 ``:serialized:`` entry of a zip model file and load it (see :func:`safe_loads`).

    :param text: (str) base64 text
    :param custom_objects: (dict) see :func:`safe_loads`
    :param key: (str) the model-data entry (for error messages)
    :return: (Any) the value
    """
    custom_objects = _checked(custom_objects)
    if key is not None and key in custom_objects:
        return custom_objects[key]
    try:
        raw = base64.b64decode(text.encode("ascii") if isinstance(text, str) else text, validate=True)
    except (binascii.Error, ValueError, TypeError, UnicodeEncodeError) as err:
        raise InvalidModelFileError("The ':serialized:' value of entry {!r} is not valid base64: {}".format(
            key, err)) from err
    return safe_loads(raw, custom_objects=custom_objects, key=key)


def __getattr__(name: str) -> Any:
    # files saved by earlier versions name the zoo policy classes by reference to this module
    if name in ZOO_POLICIES:
        return zoo_policy_class(name)
    raise AttributeError("module {!r} has no attribute {!r}".format(__name__, name))
