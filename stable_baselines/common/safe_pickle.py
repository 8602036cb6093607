"""
A restricted unpickler for model files: loading a file never runs code from it.

Model files travel between people (rl-baselines-zoo agents, papers, forums), and (cloud)pickle would
execute whatever a file tells it to. This module reads the pickles that Stable Baselines files
legitimately hold -- the old ``.pkl`` model files (``cloudpickle.dump((data, params))``), the base64
``:serialized:`` entries of ``.zip`` model files, the zoo's ``obs_rms.pkl`` / ``ret_rms.pkl`` and
pickled ``VecNormalize`` objects -- and refuses everything else.

What is resolved:

- classes *by reference* from ``stable_baselines.*`` (policies, noise objects, running statistics, ...),
  gymnasium spaces, numpy arrays / dtypes / scalars / random generators, ``collections.OrderedDict``,
  plain builtin containers and values, and classes (never functions) of modules the user has
  already imported;
- old ``gym.spaces`` objects: their pickled state is collected by stand-in objects and turned into
  gymnasium spaces (:func:`stable_baselines.common.gym_compat.space_from_state`) after loading;
- pickled functions (the cloudpickle machinery of any version): they are never built. Each becomes an
  inert :class:`FunctionRecord` (qualified name, module, closure values, captured globals). Schedules
  are rebuilt from it: ``constfn.<locals>.func`` gives ``constfn(value)``, the zoo's
  ``linear_schedule.<locals>.func`` gives :class:`LinearFunction` (``progress * initial_value``);
  any other function becomes an :class:`UnresolvedFunction`, a placeholder that raises a clear error
  only when it is called;
- the zoo's own policy classes ``utils.CustomDQNPolicy``, ``utils.utils.CustomSACPolicy`` and
  ``utils.utils.CustomMlpPolicy`` (which exist nowhere) map to subclasses of our policies with the
  zoo's keyword arguments fixed;
- ``stable_baselines.ddpg.noise.*`` maps to ``stable_baselines.common.noise.*``;
  ``stable_baselines.ddpg.memory.*`` (removed in 2.6) becomes a :class:`LegacyReplayMemory` placeholder.

Anything else -- a call to an arbitrary function (``os.system``, ``builtins.eval``, ``subprocess.Popen``,
...), a module that is not imported -- is never called: it is recorded, and when it would end up in the
loaded value a :class:`SafeUnpicklingError` is raised that names the entry (key) and says how to supply
it through ``custom_objects``.
"""
import base64
import binascii
import collections
import copy
import enum
import importlib
import io
import numbers
import pickle
import re
import struct
import sys
import types
from typing import Any, Callable, Dict, Optional

import numpy as np
from gymnasium import spaces as gym_spaces

__all__ = ["SafeUnpicklingError", "SafeUnpickler", "safe_loads", "safe_load", "safe_loads_base64",
           "FunctionRecord", "CodeRecord", "CellRecord", "ModuleRecord", "GlobalReference", "CallRecord",
           "LinearFunction", "UnresolvedFunction", "MissingClass", "LazyZooPolicy", "PlaceholderObject",
           "LegacyReplayMemory", "LegacyRingBuffer", "OldGymSpace", "ZOO_POLICIES", "zoo_policy_class", "resolve_class"]

_EMPTY = object()
_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


class SafeUnpicklingError(pickle.UnpicklingError):
    """
    Raised when a pickle refers to something that a model file may not contain (a call to an arbitrary
    function, a class of a module that is not imported, ...). Nothing from the file was executed.

    :param message: (str) what was found and how to supply the value instead
    :param key: (str) the entry of the model data that holds it (None when unknown)
    :param target: (str) the dotted name of the refused global (None when unknown)
    """

    def __init__(self, message: str, key: Optional[str] = None, target: Optional[str] = None):
        super(SafeUnpicklingError, self).__init__(message)
        self.key = key
        self.target = target


def _custom_objects_hint(key: Optional[str]) -> str:
    if key is None:
        return ("If you trust this object, create it yourself and pass it through "
                "custom_objects={'<key>': value} when loading the model.")
    return "If you know what it should be, pass it through custom_objects={{{!r}: value}} when loading.".format(key)


# ----------------------------------------------------------------------------------------------
# inert records: what a file describes, never executed
# ----------------------------------------------------------------------------------------------
class _Inert(object):
    """Base of the inert records; a BUILD / APPEND / SETITEM on them only stores the data."""

    def _sb_build(self, state: Any) -> None:
        self.__dict__.setdefault("_pickled_state", []).append(state)

    def _sb_append(self, items: Any) -> None:
        self.__dict__.setdefault("_pickled_items", []).extend(items)

    def _sb_setitem(self, key: Any, value: Any) -> None:
        self.__dict__.setdefault("_pickled_mapping", {})[key] = value


class GlobalReference(_Inert):
    """
    A global (module attribute) named by a pickle that may not be resolved: it is kept as a name only.

    :param module: (str) module name
    :param name: (str) attribute name
    :param reason: (str) why it was not resolved
    """

    def __init__(self, module: str, name: str, reason: str):
        self.module = module
        self.name = name
        self.reason = reason

    @property
    def dotted_name(self) -> str:
        """(str) ``module.name``"""
        return "{}.{}".format(self.module, self.name)

    def __repr__(self) -> str:
        return "<GlobalReference {} ({})>".format(self.dotted_name, self.reason)


class CallRecord(_Inert):
    """
    A call the pickle asked for and that was refused (never executed).

    :param target: (Any) the callable (usually a :class:`GlobalReference`)
    :param args: (tuple) its arguments
    :param kwargs: (dict) its keyword arguments
    """

    def __init__(self, target: Any, args: tuple, kwargs: Optional[dict] = None):
        self.target = target
        self.args = args
        self.kwargs = kwargs or {}

    @property
    def target_name(self) -> str:
        """(str) the dotted name of the refused callable"""
        return _describe(self.target)

    def __repr__(self) -> str:
        return "<CallRecord {}(...) (refused)>".format(self.target_name)


class ModuleRecord(_Inert):
    """
    A module a pickled function referred to (cloudpickle's ``subimport``); it is never imported.

    :param name: (str) module name
    """

    def __init__(self, name: Any, *_args: Any):
        self.name = name

    def __repr__(self) -> str:
        return "<ModuleRecord {!r}>".format(self.name)


class CodeRecord(_Inert):
    """
    The arguments of a pickled ``types.CodeType(...)`` call; no code object is ever built.

    :param args: (tuple) the raw constructor arguments (the layout depends on the Python version that wrote it)
    """

    def __init__(self, *args: Any):
        self.args = args

    @property
    def strings(self) -> list:
        """(list) the plain strings among the arguments (file name, function name, ...)"""
        return [arg for arg in self.args if isinstance(arg, str)]

    @property
    def name(self) -> Optional[str]:
        """(str) the function name stored in the code object (best effort)"""
        strings = self.strings
        # layout: ..., filename, name, [qualname], firstlineno, ...
        return strings[1] if len(strings) >= 2 else (strings[0] if strings else None)

    def __repr__(self) -> str:
        return "<CodeRecord {!r}>".format(self.name)


class CellRecord(_Inert):
    """
    A closure cell of a pickled function.

    :param value: (Any) the cell contents (absent for an empty cell)
    """

    def __init__(self, value: Any = _EMPTY):
        self.value = value

    @property
    def empty(self) -> bool:
        """(bool) whether the cell holds no value"""
        return self.value is _EMPTY

    def __repr__(self) -> str:
        return "<CellRecord {}>".format("empty" if self.empty else repr(self.value))


class FunctionRecord(_Inert):
    """
    A pickled function, described but never built: what cloudpickle stored about it.

    :param code: (CodeRecord) the code description
    :param globals_: (Any) the globals it captured (a dict, or a module name)
    :param name: (str) the function name
    :param closure: (list) closure cells (:class:`CellRecord`)
    """

    def __init__(self, code: Any = None, globals_: Any = None, name: Optional[str] = None, closure: Any = None):
        self.code = code
        self.globals = globals_
        self.name = name if isinstance(name, str) else (code.name if isinstance(code, CodeRecord) else None)
        self.qualname = None
        self.module = None
        self.defaults = None
        self.kwdefaults = None
        self.doc = None
        self.attributes = {}
        self.closure = list(closure) if isinstance(closure, (list, tuple)) else []
        if isinstance(globals_, dict) and isinstance(globals_.get("__name__"), str):
            self.module = globals_["__name__"]
        elif isinstance(globals_, str):
            self.module = globals_

    @property
    def closure_values(self) -> list:
        """(list) the values held by the closure cells (empty cells are skipped)"""
        values = []
        for cell in self.closure:
            if isinstance(cell, CellRecord):
                if not cell.empty:
                    values.append(cell.value)
            else:
                values.append(cell)
        return values

    @property
    def full_name(self) -> str:
        """(str) ``module.qualname`` as far as it is known"""
        qualname = self.qualname or self.name or "<unknown function>"
        return "{}.{}".format(self.module, qualname) if self.module else qualname

    def _fill_closure(self, values: Any) -> None:
        if not isinstance(values, (list, tuple)):
            return
        values = list(values)
        if len(self.closure) < len(values):
            self.closure.extend(CellRecord() for _ in range(len(values) - len(self.closure)))
        for cell, value in zip(self.closure, values):
            if isinstance(value, CellRecord):
                value = value.value
            cell.value = value

    def _set_state(self, state: dict) -> None:
        # cloudpickle < 1.5 (`_fill_function(func, state)`) and >= 1.5 (`_function_setstate`) spellings
        for key, value in state.items():
            name = key.strip("_") if isinstance(key, str) else key
            if name == "globals":
                if isinstance(value, dict) and isinstance(self.globals, dict):
                    self.globals.update(value)
                else:
                    self.globals = value
            elif name == "closure_values":
                self._fill_closure(value)
            elif name == "closure":
                self._fill_closure(value)
            elif name in ("qualname", "module", "defaults", "kwdefaults", "doc"):
                setattr(self, name, value)
            elif name == "name" and isinstance(value, str):
                self.name = value
            elif name == "dict":
                if isinstance(value, dict):
                    self.attributes.update(value)
            else:
                self.attributes[key] = value
        if self.module is None and isinstance(self.globals, dict) and isinstance(self.globals.get("__name__"), str):
            self.module = self.globals["__name__"]

    def __repr__(self) -> str:
        return "<FunctionRecord {} closure={!r}>".format(self.full_name, self.closure_values)


# ----------------------------------------------------------------------------------------------
# values that loading produces in place of what cannot be rebuilt
# ----------------------------------------------------------------------------------------------
class LinearFunction(object):
    """
    The rl-baselines-zoo's linear schedule ``linear_schedule(initial_value)``: ``progress * initial_value``
    (progress goes from 1 at the start of training to 0 at the end). Unlike the zoo's closure it pickles
    by reference.

    :param initial_value: (float) the value at progress 1
    """

    def __init__(self, initial_value: float):
        self.initial_value = initial_value

    def __call__(self, progress: float) -> float:
        return progress * self.initial_value

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, LinearFunction) and other.initial_value == self.initial_value

    def __hash__(self) -> int:
        return hash((LinearFunction, self.initial_value))

    def __repr__(self) -> str:
        return "linear_schedule({!r})".format(self.initial_value)


class UnresolvedFunction(object):
    """
    Placeholder for a function stored in a model file that cannot be rebuilt without running code from
    the file. Loading succeeds; calling it raises an error that says how to supply the function.

    :param key: (str) the entry of the model data that holds the function
    :param qualname: (str) the function's qualified name
    :param module: (str) the module the function was defined in
    :param closure_values: (list) the values it captured (for inspection)
    """

    def __init__(self, key: Optional[str], qualname: Optional[str], module: Optional[str] = None,
                 closure_values: Optional[list] = None):
        self.key = key
        self.qualname = qualname
        self.module = module
        self.closure_values = list(closure_values or [])

    def error_message(self) -> str:
        """:return: (str) the message of the error raised on a call"""
        name = "{}.{}".format(self.module, self.qualname) if self.module else str(self.qualname)
        where = "entry {!r}".format(self.key) if self.key is not None else "an entry"
        return ("The model file stored a Python function for {} ({}), which cannot be rebuilt without running "
                "code from the file (Stable Baselines never does that). Re-create the function and pass it through "
                "custom_objects={{{!r}: value}} when loading.".format(where, name, self.key if self.key is not None
                                                                       else "<key>"))

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise RuntimeError(self.error_message())

    def __repr__(self) -> str:
        return "<UnresolvedFunction {!r} for key {!r} (raises when called)>".format(self.qualname, self.key)


class MissingClass(object):
    """
    Placeholder for a class by reference that is not available in this installation (an algorithm not
    implemented yet, a module of the original library that was removed, a dependency that is missing).
    It can be passed around; calling it (or :meth:`resolve` when the class is still unavailable) raises
    an ImportError that says what is missing.

    :param module: (str) module name
    :param name: (str) class name
    :param reason: (str) why the class could not be imported
    """

    def __init__(self, module: str, name: str, reason: str):
        self.module = module
        self.name = name
        self.reason = reason

    @property
    def dotted_name(self) -> str:
        """(str) ``module.name``"""
        return "{}.{}".format(self.module, self.name)

    def resolve(self) -> type:
        """
        Import the class now (for instance once the algorithm is available).

        :return: (type) the class
        """
        try:
            module = importlib.import_module(self.module)
            value = _getattr_path(module, self.name)
        except (ImportError, AttributeError) as err:
            raise ImportError("The model file refers to {}, which is not available: {}".format(
                self.dotted_name, err)) from err
        if not isinstance(value, type):
            raise ImportError("{} is not a class".format(self.dotted_name))
        return value

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise ImportError("The model file refers to the class {}, which is not available in this installation "
                          "({})".format(self.dotted_name, self.reason))

    def __repr__(self) -> str:
        return "<MissingClass {} ({})>".format(self.dotted_name, self.reason)


class PlaceholderObject(object):
    """
    An object of a class that is not available (see :class:`MissingClass`): keeps the pickled state.

    :param cls: (MissingClass) the class reference
    :param args: (tuple) constructor arguments found in the file
    """

    def __init__(self, cls: Any, args: tuple = ()):
        self.cls = cls
        self.args = args
        self.state = None

    def _sb_build(self, state: Any) -> None:
        self.state = state

    def __repr__(self) -> str:
        return "<placeholder for an object of {!r}; state={!r}>".format(self.cls, self.state)


class LegacyReplayMemory(object):
    """
    The replay buffer (``stable_baselines.ddpg.memory.Memory``, removed in 2.6) stored in old DDPG files.
    The contents are kept in :attr:`state` for inspection; algorithms create a fresh replay buffer.
    """

    legacy_name = "Memory"

    def __init__(self) -> None:
        self.state = None

    def _sb_build(self, state: Any) -> None:
        self.state = state

    def __repr__(self) -> str:
        return "<replay buffer from stable_baselines.ddpg.memory.{} (removed in 2.6; not restored)>".format(
            type(self).legacy_name)


class OldGymSpace(object):
    """
    Stand-in for a space of the old ``gym`` package while a pickle is read: collects the pickled state;
    turned into a gymnasium space afterwards.
    """

    kind = "Space"

    def __init__(self) -> None:
        self.state = {}

    def _sb_build(self, state: Any) -> None:
        slotstate = None
        if isinstance(state, tuple) and len(state) == 2:
            state, slotstate = state
        for part in (state, slotstate):
            if isinstance(part, dict):
                self.state.update(part)
            elif part is not None:
                raise pickle.UnpicklingError("Unexpected state for an old gym.spaces.{}: {!r}".format(self.kind, part))

    def to_gymnasium(self, convert_child: Callable[[Any], Any]) -> gym_spaces.Space:
        """
        :param convert_child: (callable) converts nested values (for Tuple / Dict spaces)
        :return: (gymnasium.spaces.Space) the equivalent gymnasium space
        """
        from stable_baselines.common.gym_compat import space_from_state  # pylint: disable=import-outside-toplevel
        state = dict(self.state)
        if "shape" not in state and "_shape" in state:
            state["shape"] = state["_shape"]
        if state.get("shape") is not None:
            state["shape"] = tuple(int(dim) for dim in state["shape"])
        if "spaces" in state:
            state["spaces"] = convert_child(state["spaces"])
        if self.kind == "Box" and state.get("dtype") is None and "low" in state:
            state["dtype"] = np.asarray(state["low"]).dtype
        if self.kind == "Discrete" and "n" in state:
            state["n"] = int(state["n"])
        try:
            return space_from_state(self.kind, state)
        except Exception as err:
            raise pickle.UnpicklingError("Could not rebuild the old gym.spaces.{} stored in the file as a gymnasium "
                                         "space: {}".format(self.kind, err)) from err


class LegacyRingBuffer(LegacyReplayMemory):
    """A ring buffer of the removed ``stable_baselines.ddpg.memory`` module (part of a :class:`LegacyReplayMemory`)."""

    legacy_name = "RingBuffer"


_OLD_GYM_SPACES = {}
for _kind in ("Box", "Discrete", "MultiDiscrete", "MultiBinary", "Tuple", "Dict"):
    _OLD_GYM_SPACES[_kind] = type("OldGym" + _kind, (OldGymSpace,), {"kind": _kind, "__module__": __name__})


# ----------------------------------------------------------------------------------------------
# the zoo's policy classes
# ----------------------------------------------------------------------------------------------
# name -> (module of our base class, base class name, fixed keyword arguments)
ZOO_POLICIES = {
    "CustomDQNPolicy": ("stable_baselines.deepq.policies", "FeedForwardPolicy",
                        {"layers": [64], "layer_norm": True, "feature_extraction": "mlp"}),
    "CustomSACPolicy": ("stable_baselines.sac.policies", "FeedForwardPolicy",
                        {"layers": [256, 256], "feature_extraction": "mlp"}),
    "CustomMlpPolicy": ("stable_baselines.common.policies", "FeedForwardPolicy",
                        {"layers": [16], "feature_extraction": "mlp"}),
}
_ZOO_MODULES = ("utils", "utils.utils")
_ZOO_CLASSES = {}


def zoo_policy_class(name: str) -> type:
    """
    The class standing for one of the rl-baselines-zoo's policy classes (see :data:`ZOO_POLICIES`):
    a subclass of our policy with the zoo's keyword arguments fixed, created on first use.

    :param name: (str) 'CustomDQNPolicy', 'CustomSACPolicy' or 'CustomMlpPolicy'
    :return: (type) the policy class
    """
    if name not in ZOO_POLICIES:
        raise KeyError("Unknown zoo policy {!r}; expected one of {}".format(name, sorted(ZOO_POLICIES)))
    if name in _ZOO_CLASSES:
        return _ZOO_CLASSES[name]
    module_name, base_name, fixed_kwargs = ZOO_POLICIES[name]
    base = getattr(importlib.import_module(module_name), base_name)

    def __init__(self, *args, **kwargs):
        kwargs.update(copy.deepcopy(fixed_kwargs))
        base.__init__(self, *args, **kwargs)

    doc = "rl-baselines-zoo's ``{}``: {}.{} with {} fixed.".format(
        name, module_name, base_name, ", ".join("{}={!r}".format(k, v) for k, v in fixed_kwargs.items()))
    cls = type(base)(name, (base,), {"__init__": __init__, "__module__": __name__, "__qualname__": name,
                                     "__doc__": doc})
    _ZOO_CLASSES[name] = cls
    return cls


class LazyZooPolicy(MissingClass):
    """
    One of the zoo's policy classes whose base (our algorithm's policy) is not available yet; :meth:`resolve`
    creates the class once it is.

    :param name: (str) the zoo class name
    :param reason: (str) why the base is not available
    """

    def __init__(self, name: str, reason: str):
        module_name, base_name, fixed = ZOO_POLICIES[name]
        super(LazyZooPolicy, self).__init__(__name__, name, "maps to {}.{} with {}; {}".format(
            module_name, base_name, fixed, reason))

    def resolve(self) -> type:
        try:
            return zoo_policy_class(self.name)
        except (ImportError, AttributeError) as err:
            raise ImportError("The model file's policy is the rl-baselines-zoo class {} ({}); it is not available: "
                              "{}".format(self.name, self.reason, err)) from err


def resolve_class(obj: Any) -> Any:
    """
    Return the class a :class:`MissingClass` / :class:`LazyZooPolicy` placeholder stands for, importing it now;
    other values are returned unchanged.

    :param obj: (Any) a loaded value (e.g. ``data['policy']``)
    :return: (Any) the class, or ``obj`` itself
    """
    if isinstance(obj, MissingClass):
        return obj.resolve()
    return obj


def __getattr__(name: str) -> Any:
    # lets the zoo policy classes pickle (and unpickle) by reference: stable_baselines.common.safe_pickle.CustomDQNPolicy
    if name in ZOO_POLICIES:
        try:
            return zoo_policy_class(name)
        except ImportError as err:
            raise AttributeError("{} is not available: {}".format(name, err)) from err
    raise AttributeError("module {!r} has no attribute {!r}".format(__name__, name))


# ----------------------------------------------------------------------------------------------
# safe replacements for the callables a pickle may name
# ----------------------------------------------------------------------------------------------
class _SafeCallable(object):
    """A callable that a pickle may invoke (REDUCE): our own implementation with validated arguments."""

    def __init__(self, func: Callable, label: str):
        self.func = func
        self.label = label

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.func(*args, **kwargs)

    def __repr__(self) -> str:
        return "<safe rebuild of {}>".format(self.label)


def _numpy_core():
    return getattr(np, "_core", None) or np.core


def _np_reconstruct(subtype: Any, shape: Any, dtype_code: Any) -> np.ndarray:
    if subtype is not np.ndarray:
        raise pickle.UnpicklingError("numpy array reconstruction of type {!r} is not supported (only "
                                     "numpy.ndarray)".format(subtype))
    return _numpy_core().multiarray._reconstruct(np.ndarray, shape, dtype_code)


def _np_scalar(dtype: Any, *args: Any) -> Any:
    if not isinstance(dtype, np.dtype):
        raise pickle.UnpicklingError("numpy scalar: expected a dtype, got {!r}".format(dtype))
    if dtype.hasobject:
        return args[0] if args else None
    if len(args) != 1 or not isinstance(args[0], (bytes, bytearray)):
        raise pickle.UnpicklingError("numpy scalar: expected raw bytes, got {!r}".format(args))
    return _numpy_core().multiarray.scalar(dtype, bytes(args[0]))


def _np_frombuffer(buf: Any, dtype: Any, shape: Any, order: Any) -> np.ndarray:
    if not isinstance(buf, (bytes, bytearray, memoryview, pickle.PickleBuffer)):
        raise pickle.UnpicklingError("numpy _frombuffer: expected a buffer, got {!r}".format(type(buf)))
    if not isinstance(dtype, np.dtype) or dtype.hasobject:
        raise pickle.UnpicklingError("numpy _frombuffer: expected a plain dtype, got {!r}".format(dtype))
    if order not in ("C", "F"):
        raise pickle.UnpicklingError("numpy _frombuffer: bad order {!r}".format(order))
    shape = tuple(int(dim) for dim in shape)
    return np.frombuffer(bytes(memoryview(buf)), dtype=dtype).reshape(shape, order=order).copy(order=order)


def _bit_generator_class(spec: Any) -> type:
    if isinstance(spec, str):
        cls = getattr(np.random, spec, None)
    else:
        cls = spec
    if not (isinstance(cls, type) and issubclass(cls, np.random.BitGenerator) and
            cls.__module__.startswith("numpy.random")):
        raise pickle.UnpicklingError("Unknown numpy bit generator {!r}".format(spec))
    return cls


def _np_bit_generator_ctor(spec: Any = "MT19937") -> Any:
    return _bit_generator_class(spec)()


def _np_randomstate_ctor(spec: Any = "MT19937", *_args: Any) -> np.random.RandomState:
    if isinstance(spec, np.random.BitGenerator):
        return np.random.RandomState(spec)
    return np.random.RandomState(_bit_generator_class(spec)())


def _np_generator_ctor(spec: Any = "PCG64", *_args: Any) -> np.random.Generator:
    if isinstance(spec, np.random.BitGenerator):
        return np.random.Generator(spec)
    return np.random.Generator(_bit_generator_class(spec)())


def _np_unpickle_seed_sequence(cls: Any, checksum: Any, state: Any) -> Any:
    if cls is not np.random.SeedSequence:
        raise pickle.UnpicklingError("Unexpected class for a SeedSequence: {!r}".format(cls))
    import numpy.random.bit_generator as bit_generator_module  # pylint: disable=import-outside-toplevel
    return getattr(bit_generator_module, "__pyx_unpickle_SeedSequence")(cls, checksum, state)


def _codecs_encode(text: Any, encoding: Any = "utf-8") -> bytes:
    if not isinstance(text, str) or encoding not in ("latin1", "latin-1", "utf-8", "utf8", "ascii"):
        raise pickle.UnpicklingError("Unexpected _codecs.encode({!r}, {!r})".format(type(text), encoding))
    return text.encode(encoding)


# --- cloudpickle's function machinery (all versions), rebuilt as inert records ---------------------
def _cp_builtin_type(name: Any) -> Any:
    factories = {"CodeType": CodeRecord, "FunctionType": _cp_make_function, "LambdaType": _cp_make_function,
                 "CellType": CellRecord, "ModuleType": ModuleRecord}
    if name in factories:
        return _SafeCallable(factories[name], "types.{}".format(name))
    return GlobalReference("types", str(name), "only functions, code and cells are rebuilt (as inert records)")


def _cp_make_skel_func(code: Any, cells: Any = None, base_globals: Any = None, *_args: Any) -> FunctionRecord:
    if isinstance(cells, int):
        closure = [CellRecord() for _ in range(max(cells, 0))]
    elif isinstance(cells, (list, tuple)):
        closure = [cell if isinstance(cell, CellRecord) else CellRecord(cell) for cell in cells]
    else:
        closure = []
    return FunctionRecord(code=code, globals_=base_globals, closure=closure)


def _cp_make_function(code: Any, globals_: Any = None, name: Any = None, argdefs: Any = None,
                      closure: Any = None, *_args: Any) -> FunctionRecord:
    record = FunctionRecord(code=code, globals_=globals_, name=name, closure=closure or [])
    record.defaults = argdefs
    return record


def _cp_fill_function(func: Any, *args: Any) -> Any:
    if not isinstance(func, FunctionRecord):
        raise pickle.UnpicklingError("cloudpickle _fill_function on {!r}".format(func))
    if len(args) == 1 and isinstance(args[0], dict):
        func._set_state(args[0])
    else:
        # older layouts: (globals, defaults, dict[, module][, closure_values])
        names = ["globals", "defaults", "dict"]
        rest = list(args[3:])
        if len(rest) == 2:
            names += ["module", "closure_values"]
        elif len(rest) == 1:
            names += ["closure_values" if isinstance(rest[0], (list, tuple)) else "module"]
        func._set_state(dict(zip(names, args)))
    return func


def _cp_function_setstate(func: Any, state: Any) -> Any:
    if not isinstance(func, FunctionRecord):
        raise pickle.UnpicklingError("cloudpickle _function_setstate on {!r}".format(func))
    if isinstance(state, tuple) and len(state) == 2:
        for part in state:
            if isinstance(part, dict):
                func._set_state(part)
    elif isinstance(state, dict):
        func._set_state(state)
    return func


def _cp_cell_set(cell: Any, value: Any) -> None:
    if isinstance(cell, CellRecord):
        cell.value = value


def _cp_get_cell_contents(cell: Any) -> Any:
    return cell.value if isinstance(cell, CellRecord) else cell


_CLOUDPICKLE_HELPERS = {
    "_builtin_type": _cp_builtin_type,
    "_make_skel_func": _cp_make_skel_func,
    "_fill_function": _cp_fill_function,
    "_make_function": _cp_make_function,
    "_function_setstate": _cp_function_setstate,
    "_make_cell": CellRecord,
    "_make_empty_cell": CellRecord,
    "_make_cell_set_template_code": lambda *args: CodeRecord(*args),
    "cell_set": _cp_cell_set,
    "_get_cell_contents": _cp_get_cell_contents,
    "subimport": ModuleRecord,
    "dynamic_subimport": ModuleRecord,
}
_CLOUDPICKLE_MODULES = ("cloudpickle", "cloudpickle.cloudpickle", "cloudpickle.cloudpickle_fast")


_SAFE_BUILTINS = {name: getattr(__import__("builtins"), name) for name in (
    "dict", "list", "tuple", "set", "frozenset", "bytearray", "bytes", "str", "int", "float", "complex", "bool",
    "slice", "range", "object", "Ellipsis", "NotImplemented")}
_SAFE_REDUCE_TYPES = (dict, list, tuple, set, frozenset, bytearray, bytes, str, int, float, complex, bool, slice,
                      range, object, collections.OrderedDict, collections.deque, np.dtype)
_TF_ACTIVATIONS = ("relu", "relu6", "elu", "selu", "tanh", "sigmoid", "softplus", "softsign", "leaky_relu",
                   "swish", "silu", "gelu", "crelu", "identity")
# known-safe __setstate__ of stable_baselines classes (others are restored by setting attributes)
_SAFE_SETSTATE_CLASSES = ("stable_baselines.common.vec_env.vec_normalize.VecNormalize",)
_NEVER_TRUSTED_MODULES = {
    "os", "posix", "nt", "subprocess", "sys", "builtins", "__builtin__", "shutil", "pickle", "_pickle", "marshal",
    "importlib", "ctypes", "socket", "pty", "code", "codeop", "runpy", "types", "functools", "operator", "io",
    "pathlib", "tempfile", "webbrowser", "multiprocessing", "threading", "signal", "asyncio", "platform",
    "cloudpickle", "dill", "joblib", "copyreg", "inspect", "gc", "atexit", "shelve", "sqlite3", "urllib", "http",
    "ftplib", "smtplib", "telnetlib", "xmlrpc", "zipimport", "pkgutil", "site", "distutils", "setuptools", "pip",
    "tensorflow", "keras", "tf_keras", "torch", "jax", "IPython", "ipykernel", "numpy", "gym", "gymnasium"}
_STDLIB = set(getattr(sys, "stdlib_module_names", ()))


def _describe(obj: Any) -> str:
    if isinstance(obj, (GlobalReference, MissingClass)):
        return obj.dotted_name
    if isinstance(obj, _SafeCallable):
        return obj.label
    if isinstance(obj, type):
        return "{}.{}".format(obj.__module__, obj.__qualname__)
    return repr(obj)


def _getattr_path(obj: Any, dotted: str) -> Any:
    for part in dotted.split("."):
        obj = getattr(obj, part)
    return obj


def _valid_name(name: str) -> bool:
    return isinstance(name, str) and all(_IDENTIFIER.match(part) and not (part.startswith("__") and
                                                                           part.endswith("__"))
                                         for part in name.split("."))


def _valid_module(module: str) -> bool:
    return isinstance(module, str) and all(_IDENTIFIER.match(part) for part in module.split("."))


# classes of ours whose __del__ only releases their own resources (the expert dataset's loader threads):
# a GAIL file holds an ExpertDataset
_SAFE_DEL_CLASSES = ("stable_baselines.gail.dataset.dataset.ExpertDataset",
                     "stable_baselines.gail.dataset.dataset.DataLoader")


def _defines_del(cls: type) -> bool:
    return any("__del__" in vars(klass) and "{}.{}".format(klass.__module__, klass.__qualname__)
               not in _SAFE_DEL_CLASSES for klass in cls.__mro__ if klass is not object)


def _is_sb_class(cls: Any) -> bool:
    return isinstance(cls, type) and isinstance(getattr(cls, "__module__", None), str) and (
        cls.__module__ == "stable_baselines" or cls.__module__.startswith("stable_baselines."))


def _is_gymnasium_space_class(cls: Any) -> bool:
    return isinstance(cls, type) and issubclass(cls, gym_spaces.Space) and \
        cls.__module__.startswith("gymnasium.spaces")


def _numpy_class_allowed(cls: Any) -> bool:
    if not isinstance(cls, type):
        return False
    return (cls is np.ndarray or issubclass(cls, (np.dtype, np.generic)) or
            cls in (np.random.RandomState, np.random.Generator, np.random.SeedSequence) or
            (issubclass(cls, np.random.BitGenerator) and cls.__module__.startswith("numpy.random")))


def _setstate_allowed(inst: Any) -> bool:
    cls = type(inst)
    if isinstance(inst, (np.ndarray, np.dtype, np.random.RandomState, np.random.Generator, np.random.BitGenerator,
                         np.random.SeedSequence)):
        return cls.__module__.startswith("numpy")
    if isinstance(inst, gym_spaces.Space):
        return all(klass.__module__.startswith(("gymnasium.spaces", "builtins", "typing", "abc"))
                   or _is_sb_class(klass) for klass in cls.__mro__)
    if _is_sb_class(cls):
        return "{}.{}".format(cls.__module__, cls.__qualname__) in _SAFE_SETSTATE_CLASSES or \
            getattr(cls, "_safe_pickle_setstate", False) is True
    return False


# ----------------------------------------------------------------------------------------------
# the unpickler
# ----------------------------------------------------------------------------------------------
class SafeUnpickler(pickle._Unpickler):  # pylint: disable=protected-access
    """
    The restricted unpickler. It is the pure-Python implementation of ``pickle.Unpickler`` with
    ``find_class`` overridden and every opcode that calls or mutates an object (REDUCE, NEWOBJ, NEWOBJ_EX,
    OBJ, INST, BUILD, APPEND(S), SETITEM(S), ADDITEMS) replaced by a checked version: only our own safe
    rebuild functions and a few pure constructors are ever called.

    Use :func:`safe_loads` / :func:`safe_load`, which also turn the inert records into values.

    :param file: (file-like) binary file to read
    :param key: (str) the model-data entry being read (used in error messages)
    """

    dispatch = dict(pickle._Unpickler.dispatch)  # pylint: disable=protected-access

    def __init__(self, file: Any, key: Optional[str] = None):
        super(SafeUnpickler, self).__init__(file, fix_imports=True, encoding="latin1", errors="strict")
        self.key = key
        self.built_ids = set()
        self._keepalive = []

    # --- globals ---------------------------------------------------------------------------------
    def find_class(self, module: str, name: str) -> Any:
        """
        Resolve a global named by the pickle, or return an inert :class:`GlobalReference`.

        :param module: (str) module name
        :param name: (str) (qualified) attribute name
        :return: (Any)
        """
        if not isinstance(module, str) or not isinstance(name, str):
            raise pickle.UnpicklingError("Invalid global reference {!r}.{!r}".format(module, name))
        if self.proto < 3:
            import _compat_pickle  # pylint: disable=import-outside-toplevel
            if (module, name) in _compat_pickle.NAME_MAPPING:
                module, name = _compat_pickle.NAME_MAPPING[(module, name)]
            elif module in _compat_pickle.IMPORT_MAPPING:
                module = _compat_pickle.IMPORT_MAPPING[module]
        return self._resolve(module, name)

    def _resolve(self, module: str, name: str) -> Any:  # pylint: disable=too-many-return-statements,too-many-branches
        if module.startswith("numpy.core"):
            module = "numpy._core" + module[len("numpy.core"):] if hasattr(np, "_core") else module
        top = module.split(".")[0]

        # explicit safe replacements
        special = _special_global(module, name, self)
        if special is not None:
            return special

        if module in ("builtins", "__builtin__"):
            if name in _SAFE_BUILTINS:
                return _SAFE_BUILTINS[name]
            return GlobalReference(module, name, "builtin functions are never called from a file")
        if module == "collections" and name in ("OrderedDict", "deque"):
            return getattr(collections, name)

        if top == "gym":
            kind = name.split(".")[-1]
            if (module == "gym" or module.startswith("gym.spaces")) and kind in _OLD_GYM_SPACES:
                return _OLD_GYM_SPACES[kind]
            return GlobalReference(module, name, "only spaces of the old gym package are supported")

        if top == "numpy":
            value = self._lookup(module, name, import_allowed=True)
            if _numpy_class_allowed(value):
                return value
            return GlobalReference(module, name, "only numpy arrays, dtypes, scalars and random generators "
                                                 "are rebuilt")

        if top == "gymnasium":
            value = self._lookup(module, name, import_allowed=module.startswith("gymnasium.spaces"))
            if _is_gymnasium_space_class(value):
                return value
            return GlobalReference(module, name, "only gymnasium spaces are allowed")

        if module in _ZOO_MODULES and name in ZOO_POLICIES:
            user_value = self._lookup(module, name, import_allowed=False)
            if isinstance(user_value, type):
                return user_value
            try:
                return zoo_policy_class(name)
            except (ImportError, AttributeError) as err:
                return LazyZooPolicy(name, str(err))

        if module == "stable_baselines.ddpg.memory":
            return _legacy_memory_class(name)
        if module == "stable_baselines.ddpg.noise":
            value = self._stable_baselines_class("stable_baselines.common.noise", name)
            if isinstance(value, MissingClass):
                value_old = self._stable_baselines_class(module, name)
                if not isinstance(value_old, MissingClass):
                    return value_old
            return value
        if top == "stable_baselines":
            return self._stable_baselines_class(module, name)

        if top == "tensorflow" and name.split(".")[-1] in _TF_ACTIVATIONS:
            return _tf_activation(module, name)

        if top in _NEVER_TRUSTED_MODULES or (top in _STDLIB and top != "__main__"):
            return GlobalReference(module, name, "module '{}' may not be used by a model file".format(module))
        if module in sys.modules:
            value = self._lookup(module, name, import_allowed=False)
            if isinstance(value, type) and getattr(value, "__module__", None) == module:
                return value
            if value is None:
                return GlobalReference(module, name, "module '{}' has no class '{}'".format(module, name))
            return GlobalReference(module, name, "only classes (not functions or other objects) of imported "
                                                 "modules may be used by a model file")
        return GlobalReference(module, name, "module '{}' is not imported; if you trust it, import it before "
                                             "loading (its classes can then be used)".format(module))

    @staticmethod
    def _lookup(module: str, name: str, import_allowed: bool) -> Any:
        if not (_valid_module(module) and _valid_name(name)):
            return None
        mod = sys.modules.get(module)
        if mod is None and import_allowed:
            try:
                mod = importlib.import_module(module)
            except Exception:  # pylint: disable=broad-except
                return None
        if mod is None:
            return None
        try:
            return _getattr_path(mod, name)
        except AttributeError:
            return None

    @staticmethod
    def _stable_baselines_class(module: str, name: str) -> Any:
        if not (_valid_module(module) and _valid_name(name)):
            return GlobalReference(module, name, "invalid name")
        try:
            mod = importlib.import_module(module)
        except Exception as err:  # pylint: disable=broad-except
            return MissingClass(module, name, "{}: {}".format(type(err).__name__, err))
        try:
            value = _getattr_path(mod, name)
        except AttributeError:
            return MissingClass(module, name, "module '{}' has no attribute '{}'".format(module, name))
        if _is_sb_class(value):
            return value
        return GlobalReference(module, name, "only classes of stable_baselines may be named by a model file "
                                             "(functions are never called from a file)")

    # --- calls -----------------------------------------------------------------------------------
    def _reduce_allowed(self, cls: Any) -> bool:
        if not isinstance(cls, type):
            return False
        if cls in _SAFE_REDUCE_TYPES:
            return True
        if issubclass(cls, np.generic) and cls.__module__.startswith("numpy"):
            return True
        if issubclass(cls, enum.Enum) and (_is_sb_class(cls) or cls.__module__.startswith("gymnasium")):
            return True
        return False

    def _instantiation_allowed(self, cls: Any) -> bool:
        if not isinstance(cls, type):
            return False
        if issubclass(cls, (OldGymSpace, LegacyReplayMemory)):
            return True
        if _defines_del(cls):
            return False
        if _is_sb_class(cls) or _is_gymnasium_space_class(cls):
            return True
        if cls in (object, dict, list, set, collections.OrderedDict):
            return True
        # a class of a module the user imported: only if it extends a stable_baselines class
        return any(_is_sb_class(klass) for klass in cls.__mro__[1:])

    def _call(self, func: Any, args: Any, kwargs: Optional[dict] = None) -> Any:
        if not isinstance(args, tuple):
            raise pickle.UnpicklingError("Invalid pickle: call arguments are {!r}, not a tuple".format(type(args)))
        kwargs = kwargs or {}
        if isinstance(func, _SafeCallable):
            try:
                return func(*args, **kwargs)
            except pickle.UnpicklingError:
                raise
            except Exception as err:  # pylint: disable=broad-except
                raise pickle.UnpicklingError("Could not rebuild {} from the file: {}: {}".format(
                    func.label, type(err).__name__, err)) from err
        if isinstance(func, MissingClass):
            return PlaceholderObject(func, args)
        if self._reduce_allowed(func):
            try:
                return func(*args, **kwargs)
            except Exception as err:  # pylint: disable=broad-except
                raise pickle.UnpicklingError("Could not rebuild a {} from the file: {}: {}".format(
                    _describe(func), type(err).__name__, err)) from err
        return CallRecord(func, args, kwargs)

    def _instantiate_new(self, cls: Any, args: tuple = (), kwargs: Optional[dict] = None) -> Any:
        kwargs = kwargs or {}
        if isinstance(cls, MissingClass):
            return PlaceholderObject(cls, args)
        if not self._instantiation_allowed(cls):
            return CallRecord(cls, args, kwargs)
        try:
            if issubclass(cls, (OldGymSpace, LegacyReplayMemory)):
                obj = cls()  # our own stand-ins
            elif cls.__new__ is object.__new__:
                obj = object.__new__(cls)
            else:
                obj = cls.__new__(cls, *args, **kwargs)
        except Exception as err:  # pylint: disable=broad-except
            raise pickle.UnpicklingError("Could not create an object of {} from the file: {}: {}".format(
                _describe(cls), type(err).__name__, err)) from err
        self.built_ids.add(id(obj))
        self._keepalive.append(obj)
        return obj

    def _reconstructor(self, cls: Any, base: Any, state: Any) -> Any:
        if base is object:
            return self._instantiate_new(cls)
        if base in (dict, list, set) and isinstance(cls, type) and issubclass(cls, base) and \
                self._instantiation_allowed(cls):
            obj = base.__new__(cls, state)
            base.__init__(obj, state)
            self.built_ids.add(id(obj))
            self._keepalive.append(obj)
            return obj
        return CallRecord(cls, (base, state))

    def load_reduce(self) -> None:  # noqa: D102
        stack = self.stack
        args = stack.pop()
        stack[-1] = self._call(stack[-1], args)
    dispatch[pickle.REDUCE[0]] = load_reduce

    def load_newobj(self) -> None:  # noqa: D102
        args = self.stack.pop()
        cls = self.stack.pop()
        if not isinstance(args, tuple):
            raise pickle.UnpicklingError("Invalid pickle: NEWOBJ arguments are not a tuple")
        self.append(self._instantiate_new(cls, args))
    dispatch[pickle.NEWOBJ[0]] = load_newobj

    def load_newobj_ex(self) -> None:  # noqa: D102
        kwargs = self.stack.pop()
        args = self.stack.pop()
        cls = self.stack.pop()
        if not isinstance(args, tuple) or not isinstance(kwargs, dict):
            raise pickle.UnpicklingError("Invalid pickle: NEWOBJ_EX arguments")
        self.append(self._instantiate_new(cls, args, kwargs))
    dispatch[pickle.NEWOBJ_EX[0]] = load_newobj_ex

    def _instantiate(self, klass: Any, args: Any) -> None:
        # INST / OBJ (protocols 0 and 1)
        if args:
            self.append(self._call(klass, tuple(args)))
        else:
            self.append(self._instantiate_new(klass))

    def load_build(self) -> None:  # noqa: D102
        stack = self.stack
        state = stack.pop()
        inst = stack[-1]
        if isinstance(inst, (_Inert, OldGymSpace, PlaceholderObject, LegacyReplayMemory)):
            inst._sb_build(state)  # pylint: disable=protected-access
            return
        if _setstate_allowed(inst):
            try:
                inst.__setstate__(state)
            except Exception as err:  # pylint: disable=broad-except
                raise pickle.UnpicklingError("Could not restore the state of a {} from the file: {}: {}".format(
                    _describe(type(inst)), type(err).__name__, err)) from err
            return
        if id(inst) in self.built_ids:
            _set_attributes(inst, state)
            return
        raise pickle.UnpicklingError("Invalid or unsupported pickle: cannot set the state of {!r}".format(
            type(inst)))
    dispatch[pickle.BUILD[0]] = load_build

    def load_append(self) -> None:  # noqa: D102
        value = self.stack.pop()
        self._extend(self.stack[-1], [value])
    dispatch[pickle.APPEND[0]] = load_append

    def load_appends(self) -> None:  # noqa: D102
        items = self.pop_mark()
        self._extend(self.stack[-1], items)
    dispatch[pickle.APPENDS[0]] = load_appends

    @staticmethod
    def _extend(target: Any, items: list) -> None:
        if isinstance(target, list):
            list.extend(target, items)
        elif isinstance(target, collections.deque):
            collections.deque.extend(target, items)
        elif isinstance(target, _Inert):
            target._sb_append(items)  # pylint: disable=protected-access
        else:
            raise pickle.UnpicklingError("Invalid or unsupported pickle: cannot append to {!r}".format(type(target)))

    def load_setitem(self) -> None:  # noqa: D102
        value = self.stack.pop()
        key = self.stack.pop()
        self._setitems(self.stack[-1], [key, value])
    dispatch[pickle.SETITEM[0]] = load_setitem

    def load_setitems(self) -> None:  # noqa: D102
        items = self.pop_mark()
        self._setitems(self.stack[-1], items)
    dispatch[pickle.SETITEMS[0]] = load_setitems

    @staticmethod
    def _setitems(target: Any, items: list) -> None:
        if type(target) in (dict, collections.OrderedDict):
            for i in range(0, len(items), 2):
                target[items[i]] = items[i + 1]
        elif isinstance(target, dict):
            for i in range(0, len(items), 2):
                dict.__setitem__(target, items[i], items[i + 1])
        elif isinstance(target, _Inert):
            for i in range(0, len(items), 2):
                target._sb_setitem(items[i], items[i + 1])  # pylint: disable=protected-access
        else:
            raise pickle.UnpicklingError("Invalid or unsupported pickle: cannot set items of {!r}".format(
                type(target)))

    def load_additems(self) -> None:  # noqa: D102
        items = self.pop_mark()
        target = self.stack[-1]
        if isinstance(target, set):
            set.update(target, items)
        else:
            raise pickle.UnpicklingError("Invalid or unsupported pickle: cannot add items to {!r}".format(
                type(target)))
    dispatch[pickle.ADDITEMS[0]] = load_additems

    def persistent_load(self, pid: Any) -> Any:  # noqa: D102
        raise pickle.UnpicklingError("Model files may not contain persistent ids (found {!r})".format(pid))


def _set_attributes(inst: Any, state: Any) -> None:
    """Restore an object's state by setting attributes directly (its __setstate__ is not run)."""
    slotstate = None
    if isinstance(state, tuple) and len(state) == 2 and (state[0] is None or isinstance(state[0], dict)):
        state, slotstate = state
    if state is not None and not isinstance(state, dict):
        raise pickle.UnpicklingError("The state stored for a {} is a {} (expected a dict of attributes); this class "
                                     "restores itself with code, which is not run from a file".format(
                                         _describe(type(inst)), type(state).__name__))
    inst_dict = getattr(inst, "__dict__", None)
    for part in (state, slotstate):
        if not part:
            continue
        for name, value in part.items():
            if not isinstance(name, str):
                raise pickle.UnpicklingError("Invalid attribute name {!r} in the file".format(name))
            descriptor = None
            for klass in type(inst).__mro__:
                if name in vars(klass):
                    descriptor = vars(klass)[name]
                    break
            if isinstance(descriptor, types.MemberDescriptorType):
                descriptor.__set__(inst, value)
            elif inst_dict is not None:
                inst_dict[sys.intern(name)] = value
            else:
                raise pickle.UnpicklingError("Cannot set attribute {!r} of a {}".format(name, _describe(type(inst))))


def _legacy_memory_class(name: str) -> Any:
    if name == "RingBuffer":
        return LegacyRingBuffer
    if _valid_name(name):
        return LegacyReplayMemory
    return GlobalReference("stable_baselines.ddpg.memory", name, "invalid name")


def _tf_activation(module: str, name: str) -> Any:
    from stable_baselines.common.tf_compat import tf  # pylint: disable=import-outside-toplevel
    short = name.split(".")[-1]
    for namespace in (tf.nn, tf.math, tf):
        value = getattr(namespace, short, None)
        if callable(value):
            return value
    return GlobalReference(module, name, "TensorFlow activation not found")


def _special_global(module: str, name: str, unpickler: SafeUnpickler) -> Any:
    """Explicitly mapped globals (numpy rebuild functions, copyreg, cloudpickle machinery, ...)."""
    if module in ("numpy._core.multiarray", "numpy.core.multiarray"):
        if name == "_reconstruct":
            return _SafeCallable(_np_reconstruct, "numpy array")
        if name == "scalar":
            return _SafeCallable(_np_scalar, "numpy scalar")
    if module in ("numpy._core.numeric", "numpy.core.numeric") and name == "_frombuffer":
        return _SafeCallable(_np_frombuffer, "numpy array")
    if module == "numpy.random" and name == "__RandomState_ctor":
        return _SafeCallable(_np_randomstate_ctor, "numpy RandomState")
    if module == "numpy.random._pickle":
        table = {"__randomstate_ctor": _np_randomstate_ctor, "__generator_ctor": _np_generator_ctor,
                 "__bit_generator_ctor": _np_bit_generator_ctor}
        if name in table:
            return _SafeCallable(table[name], "numpy random generator")
    if module == "numpy.random.bit_generator" and name == "__pyx_unpickle_SeedSequence":
        return _SafeCallable(_np_unpickle_seed_sequence, "numpy SeedSequence")
    if module == "copyreg":
        if name == "_reconstructor":
            return _SafeCallable(unpickler._reconstructor, "copyreg._reconstructor")  # pylint: disable=protected-access
        if name == "__newobj__":
            return _SafeCallable(lambda cls, *args: unpickler._instantiate_new(cls, args),  # pylint: disable=protected-access
                                 "copyreg.__newobj__")
        if name == "__newobj_ex__":
            return _SafeCallable(lambda cls, args, kwargs: unpickler._instantiate_new(  # pylint: disable=protected-access
                cls, tuple(args), dict(kwargs)), "copyreg.__newobj_ex__")
    if module == "_codecs" and name == "encode":
        return _SafeCallable(_codecs_encode, "bytes")
    if module in _CLOUDPICKLE_MODULES:
        if name in _CLOUDPICKLE_HELPERS:
            return _SafeCallable(_CLOUDPICKLE_HELPERS[name], "cloudpickle.{}".format(name))
        return GlobalReference(module, name, "this part of cloudpickle (dynamic classes, ...) is not supported")
    return None


# ----------------------------------------------------------------------------------------------
# after loading: records -> values
# ----------------------------------------------------------------------------------------------
def _is_real_number(value: Any) -> bool:
    if isinstance(value, bool):
        return False
    if isinstance(value, numbers.Real):
        return True
    return isinstance(value, np.ndarray) and value.shape == () and np.issubdtype(value.dtype, np.number)


def function_to_value(record: FunctionRecord, key: Optional[str] = None) -> Any:
    """
    Turn the record of a pickled function into a value: the schedules Stable Baselines and the zoo stored are
    rebuilt, any other function becomes an :class:`UnresolvedFunction` placeholder.

    :param record: (FunctionRecord) the pickled function
    :param key: (str) the model-data entry that holds it (for the placeholder's error message)
    :return: (callable)
    """
    qualname = record.qualname or record.name
    values = record.closure_values
    freevars = record.code.args[-2] if isinstance(record.code, CodeRecord) and len(record.code.args) >= 2 else None
    if not (isinstance(freevars, tuple) and all(isinstance(name, str) for name in freevars)):
        freevars = None
    if len(values) == 1 and _is_real_number(values[0]):
        value = values[0].item() if isinstance(values[0], (np.ndarray, np.generic)) else values[0]
        if qualname == "constfn.<locals>.func" and freevars in (None, ("val",)):
            try:
                from stable_baselines.common.schedules import constfn  # pylint: disable=import-outside-toplevel
            except ImportError:  # pragma: no cover - schedules is part of the package
                return _ConstantValue(value)
            return constfn(value)
        if qualname == "linear_schedule.<locals>.func" and freevars in (None, ("initial_value",)):
            return LinearFunction(value)
    return UnresolvedFunction(key, qualname, record.module, values)


class _ConstantValue(object):
    """Fallback for ``constfn(value)`` (used only if :mod:`stable_baselines.common.schedules` is missing)."""

    def __init__(self, val: Any):
        self.val = val

    def __call__(self, _: Any) -> Any:
        return self.val


class _Finalizer(object):
    """Walks the unpickled value: old gym spaces -> gymnasium, function records -> schedules / placeholders,
    refused globals and calls -> SafeUnpicklingError naming the key."""

    def __init__(self, built_ids: set, key: Optional[str], custom_objects: Optional[dict]):
        self.built_ids = built_ids
        self.key = key
        self.custom_objects = custom_objects or {}
        self.memo = {}

    def run(self, root: Any) -> Any:
        try:
            return self.fix(root, self.key, self.key is None)
        except RecursionError as err:
            raise pickle.UnpicklingError("The pickled data is nested too deeply") from err

    def _refuse(self, obj: Any, key: Optional[str]) -> None:
        if isinstance(obj, CallRecord):
            what = "a call to {}".format(obj.target_name)
            target = obj.target_name
            reason = obj.target.reason if isinstance(obj.target, GlobalReference) else \
                "objects of this type are never built by calling code from a file"
        elif isinstance(obj, GlobalReference):
            what = "{}".format(obj.dotted_name)
            target = obj.dotted_name
            reason = obj.reason
        else:
            what = _describe(obj)
            target = what
            reason = "functions are never called from a file"
        where = "entry {!r} of the model file".format(key) if key is not None else "the pickled data"
        raise SafeUnpicklingError("Refusing to load {}: it refers to {} ({}). Loading a file never runs code from "
                                  "it. {}".format(where, what, reason, _custom_objects_hint(key)),
                                  key=key, target=target)

    def fix(self, obj: Any, key: Optional[str], assign_keys: bool) -> Any:  # pylint: disable=too-many-branches
        if obj is None or isinstance(obj, (bool, int, float, complex, str, bytes, type, np.generic, np.dtype)):
            return obj
        oid = id(obj)
        if oid in self.memo:
            return self.memo[oid]
        if isinstance(obj, np.ndarray):
            self.memo[oid] = obj
            if obj.dtype.hasobject:
                flat = obj.reshape(-1)
                for i in range(flat.size):
                    flat[i] = self.fix(flat[i], key, False)
            return obj
        if isinstance(obj, OldGymSpace):
            result = obj.to_gymnasium(lambda child: self.fix(child, key, False))
            self.memo[oid] = result
            return result
        if isinstance(obj, FunctionRecord):
            result = function_to_value(obj, key)
            self.memo[oid] = result
            return result
        if isinstance(obj, (CallRecord, GlobalReference, _SafeCallable, CodeRecord, CellRecord, ModuleRecord)):
            self._refuse(obj, key)
        if isinstance(obj, dict):
            self.memo[oid] = obj
            for item_key in list(obj.keys()):
                if assign_keys and item_key in self.custom_objects:
                    obj[item_key] = self.custom_objects[item_key]
                    continue
                child_key = str(item_key) if assign_keys else key
                obj[item_key] = self.fix(obj[item_key], child_key, False)
            return obj
        if isinstance(obj, list):
            self.memo[oid] = obj
            for i, item in enumerate(obj):
                obj[i] = self.fix(item, key, False)
            return obj
        if isinstance(obj, tuple):
            items = tuple(self.fix(item, key, assign_keys) for item in obj)
            if oid in self.memo:
                return self.memo[oid]
            result = obj if all(a is b for a, b in zip(items, obj)) else type(obj)(items) \
                if type(obj) is tuple else obj
            self.memo[oid] = result
            return result
        if isinstance(obj, (set, frozenset)):
            items = [self.fix(item, key, False) for item in obj]
            result = type(obj)(items) if type(obj) in (set, frozenset) else obj
            self.memo[oid] = result
            return result
        if isinstance(obj, collections.deque):
            self.memo[oid] = obj
            for i, item in enumerate(list(obj)):
                obj[i] = self.fix(item, key, False)
            return obj
        if isinstance(obj, (PlaceholderObject, LegacyReplayMemory)):
            self.memo[oid] = obj
            obj.state = self.fix(obj.state, key, False)
            if isinstance(obj, PlaceholderObject):
                obj.args = self.fix(obj.args, key, False)
            return obj
        if oid in self.built_ids and isinstance(getattr(obj, "__dict__", None), dict):
            self.memo[oid] = obj
            attributes = obj.__dict__
            for name in list(attributes.keys()):
                attributes[name] = self.fix(attributes[name], key, False)
            return obj
        return obj


# ----------------------------------------------------------------------------------------------
# public API
# ----------------------------------------------------------------------------------------------
def _check_custom_objects(custom_objects: Any) -> dict:
    if custom_objects is None:
        return {}
    if not isinstance(custom_objects, dict):
        raise TypeError("custom_objects must be a dict mapping data keys to values (or None), got {!r}".format(
            type(custom_objects).__name__))
    return custom_objects


def safe_load(file_obj: Any, custom_objects: Optional[Dict[str, Any]] = None, key: Optional[str] = None) -> Any:
    """
    Unpickle from a binary file object without running code from it (see the module documentation).

    :param file_obj: (file-like) binary file opened for reading
    :param custom_objects: (dict) values to use instead of what the file holds: when the pickle holds a dict
        (or a tuple ``(data, params)`` whose first item is a dict), an entry whose key is in ``custom_objects``
        is replaced by the given value and is not checked; when ``key`` is given and is in ``custom_objects``,
        the value is returned without reading the file
    :param key: (str) the model-data entry this pickle is (for error messages), or None
    :return: (Any) the unpickled value
    :raises SafeUnpicklingError: when the file refers to something that may not be loaded
    :raises pickle.UnpicklingError: when the data is not a valid pickle (truncated, corrupt)
    """
    custom_objects = _check_custom_objects(custom_objects)
    if key is not None and key in custom_objects:
        return custom_objects[key]
    unpickler = SafeUnpickler(file_obj, key=key)
    try:
        value = unpickler.load()
    except pickle.UnpicklingError:
        raise
    except (EOFError, ValueError, TypeError, KeyError, IndexError, AttributeError, struct.error,
            UnicodeDecodeError, OverflowError, MemoryError, RecursionError) as err:
        raise pickle.UnpicklingError("Invalid pickle data: {}: {}".format(type(err).__name__, err)) from err
    return _Finalizer(unpickler.built_ids, key, custom_objects).run(value)


def safe_loads(data: bytes, custom_objects: Optional[Dict[str, Any]] = None, key: Optional[str] = None) -> Any:
    """
    Unpickle bytes without running code from them (see :func:`safe_load`).

    :param data: (bytes) the pickle
    :param custom_objects: (dict) values to use instead of what the data holds (see :func:`safe_load`)
    :param key: (str) the model-data entry this pickle is (for error messages), or None
    :return: (Any) the unpickled value
    """
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise TypeError("safe_loads expects bytes, got {!r}".format(type(data).__name__))
    custom_objects = _check_custom_objects(custom_objects)
    if key is not None and key in custom_objects:
        return custom_objects[key]
    return safe_load(io.BytesIO(bytes(data)), custom_objects=custom_objects, key=key)


def safe_loads_base64(text: str, custom_objects: Optional[Dict[str, Any]] = None, key: Optional[str] = None) -> Any:
    """
    Decode a base64 ``:serialized:`` entry of a zip model file and unpickle it safely.

    :param text: (str) base64 text
    :param custom_objects: (dict) see :func:`safe_load`
    :param key: (str) the model-data entry (for error messages)
    :return: (Any) the value
    """
    custom_objects = _check_custom_objects(custom_objects)
    if key is not None and key in custom_objects:
        return custom_objects[key]
    try:
        raw = base64.b64decode(text.encode() if isinstance(text, str) else text, validate=False)
    except (binascii.Error, ValueError, TypeError) as err:
        raise pickle.UnpicklingError("The ':serialized:' value of entry {!r} is not valid base64: {}".format(
            key, err)) from err
    return safe_loads(raw, custom_objects=custom_objects, key=key)

