"""
Data-only loading of the pickles that model files hold.

A pickle is read in two steps, and nothing from it is ever executed:

1. :func:`.pickle_reader.read_pickle` turns the stream into plain data and inert records of the globals, calls
   and objects it describes (it imports, calls and instantiates nothing);
2. :class:`.converters.Converter` turns each record into a value only if it is one of the kinds a model file
   legitimately holds, through that kind's converter, which validates the fields and calls the public
   constructor: numpy arrays, dtypes and scalars (:mod:`.numpy_values`), plain containers
   (:mod:`.plain_values`), gym / gymnasium spaces (:mod:`.spaces`), policy and model classes by reference,
   TensorFlow activations by name, our enums (:mod:`.classes`), noise objects, running statistics, schedules,
   VecNormalize settings, the GAIL expert dataset (:mod:`.saved_objects`) and functions stored by cloudpickle,
   rebuilt by our evaluator of a pure-arithmetic subset of CPython bytecode or kept as inert placeholders
   (:mod:`.functions`, :mod:`.bytecode`).

Everything else raises :class:`~.errors.SafeUnpicklingError` naming the data entry; malformed and oversized input
raises :class:`~.errors.InvalidModelFileError`; sizes are bounded by :mod:`.limits`.
"""
from typing import Any, Dict, Optional

# the kind modules register their converters on import; functions comes last (its fallback for unknown
# references must be tried after the others)
from stable_baselines.common.safe_loading import limits
from stable_baselines.common.safe_loading import numpy_values, plain_values, spaces, classes, saved_objects  # noqa: F401  pylint: disable=unused-import
from stable_baselines.common.safe_loading import functions  # noqa: F401  pylint: disable=unused-import
from stable_baselines.common.safe_loading.converters import Converter
from stable_baselines.common.safe_loading.errors import InvalidModelFileError, SafeUnpicklingError
from stable_baselines.common.safe_loading.pickle_reader import read_pickle

__all__ = ["load_pickle"]


def load_pickle(data: bytes, what: str = "the pickle", key: Optional[str] = None,
                custom_objects: Optional[Dict[str, Any]] = None, budget: Optional[limits.Budget] = None) -> Any:
    """
    Load a pickle without running anything from it.

    :param data: (bytes) the pickle
    :param what: (str) what it is, for error messages (e.g. "the model file 'agent.pkl'")
    :param key: (str) the model-data entry the pickle is (a ``:serialized:`` entry of a zip file), or None when
        its top-level dict holds the entries (an old ``.pkl`` model file holds ``(data, params)``)
    :param custom_objects: (dict) values replacing the top-level entries of the same keys, which are not read;
        when ``key`` is one of them, its value is returned without reading the data
    :param budget: (limits.Budget) what the whole file may still cost, shared by its pickles (None: a new one)
    :return: (Any) the value
    :raises SafeUnpicklingError: when the pickle holds something a model file may not hold
    :raises InvalidModelFileError: when the pickle is malformed or exceeds the limits
    """
    custom_objects = custom_objects or {}
    if key is not None and key in custom_objects:
        return custom_objects[key]
    where = what if key is None else "entry {!r} of {}".format(key, what)
    return Converter(what, key, budget).top_level(read_pickle(data, where), custom_objects)
