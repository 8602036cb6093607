"""
From inert records to values: the one place that decides what a model file may hold.

:class:`Converter` walks what :func:`~.pickle_reader.read_pickle` produced. Plain data passes through (within the
limits of :mod:`.limits`); every :class:`~.records.Ref` and :class:`~.records.Call` must match one of the
legitimate kinds registered in :data:`REFERENCES`, :data:`CALLS` and :data:`INSTANCES` (filled by the kind
modules: numpy values, spaces, classes, functions, statistics ...), whose converter validates the fields and
builds the object through its public constructor. Anything else raises :class:`~.errors.SafeUnpicklingError`
naming the data entry and what was refused.
"""
import collections
from typing import Any, Callable, Dict, List, Optional, Tuple

from stable_baselines.common.safe_loading import limits
from stable_baselines.common.safe_loading.errors import InvalidModelFileError, SafeUnpicklingError, \
    custom_objects_hint
from stable_baselines.common.safe_loading.records import Call, Ref

# dotted name -> converter(converter, ref) for globals that may appear as values (classes, functions by reference)
REFERENCES: Dict[str, Callable[["Converter", Ref], Any]] = {}
# dotted name -> converter(converter, call) for calls (REDUCE of a function)
CALLS: Dict[str, Callable[["Converter", Call], Any]] = {}
# dotted name -> converter(converter, call) for objects of a class (NEWOBJ, INST, copyreg reconstruction, ...)
INSTANCES: Dict[str, Callable[["Converter", Call], Any]] = {}
# fallbacks tried in order when a name is in none of the tables; each returns a value or NotImplemented
REFERENCE_RESOLVERS: List[Callable[["Converter", Ref], Any]] = []
CALL_RESOLVERS: List[Callable[["Converter", Call], Any]] = []
INSTANCE_RESOLVERS: List[Callable[["Converter", Ref, Call], Any]] = []

# modules renamed since the files were written (Python 2 names, numpy 2, cloudpickle's internal modules)
_MODULE_ALIASES = {"__builtin__": "builtins", "copy_reg": "copyreg", "numpy.core.multiarray": "numpy.multiarray",
                   "numpy._core.multiarray": "numpy.multiarray", "numpy.core.numeric": "numpy.numeric",
                   "numpy._core.numeric": "numpy.numeric", "cloudpickle.cloudpickle": "cloudpickle",
                   "cloudpickle.cloudpickle_fast": "cloudpickle"}
_PLAIN = (type(None), bool, float, complex, str, bytes, bytearray)


def dotted_name(ref: Ref) -> str:
    """
    :param ref: (Ref) a global named by a pickle
    :return: (str) its ``module.name`` with renamed modules mapped to one spelling
    """
    return "{}.{}".format(_MODULE_ALIASES.get(ref.module, ref.module), ref.name)


def registered_name(ref: Ref) -> str:
    """
    :param ref: (Ref) a global named by a pickle
    :return: (str) the name its converter is registered under, "" (no converter's) when the pickle names an attribute
        path (``stable_baselines.common`` + ``schedules.linear_schedule``): every registered name is a plain attribute
        of its module, and a dotted split must not reach a converter written for the other split
    """
    return "" if "." in ref.name else dotted_name(ref)


class Converter(object):
    """
    Turns the output of the pickle reader into values, for one pickle.

    :param what: (str) what the pickle is, for messages (e.g. "the model file 'x.pkl'")
    :param key: (str) the data entry the pickle is, or None when its top-level dict holds the entries
    """

    def __init__(self, what: str, key: Optional[str] = None, budget: Optional[limits.Budget] = None) -> None:
        self.what = what
        self.key = key
        self.budget = budget if budget is not None else limits.Budget()
        # per-pickle caches of the kind converters (name -> value), so repeated references cost once
        self.cache: Dict[Any, Any] = {}
        self._memo: Dict[int, Any] = {}
        self._keep: List[Any] = []
        self._depth = 0
        # the values the result holds when every shared reference is followed (what a walk over it visits), and
        # that count for each converted container
        self._expanded = 0
        self._expanded_sizes: Dict[int, int] = {}

    # --- errors ----------------------------------------------------------------------------------
    def refuse(self, what: str, reason: str) -> SafeUnpicklingError:
        """
        :param what: (str) what was found (e.g. "a call to os.system")
        :param reason: (str) why it is not loaded
        :return: (SafeUnpicklingError) the error to raise, naming the current entry
        """
        where = "entry {!r} of {}".format(self.key, self.what) if self.key is not None else self.what
        return SafeUnpicklingError("Refusing to load {}: it holds {} ({}). Loading a model file never runs code from "
                                   "it. {}".format(where, what, reason, custom_objects_hint(self.key)),
                                   key=self.key, target=what)

    def invalid(self, reason: str) -> InvalidModelFileError:
        """
        :param reason: (str) what is wrong with a value of a legitimate kind
        :return: (InvalidModelFileError) the error to raise, naming the current entry
        """
        where = "entry {!r} of {}".format(self.key, self.what) if self.key is not None else self.what
        return InvalidModelFileError("Invalid {}: {}".format(where, reason))

    # --- the walk --------------------------------------------------------------------------------
    def top_level(self, node: Any, custom_objects: Optional[Dict[str, Any]] = None) -> Any:
        """
        Convert a whole pickle. When it is a dict (or an old model file's ``(data, params)`` tuple whose first item
        is a dict) and no key was given, its entries are converted one by one with their key in the messages, and
        the entries named in ``custom_objects`` are replaced without being read.

        :param node: (Any) the reader's output
        :param custom_objects: (dict) values replacing entries of the same key
        :return: (Any) the value
        """
        custom_objects = custom_objects or {}
        if self.key is None and isinstance(node, tuple) and len(node) == 2 and isinstance(node[0], dict):
            data = self._entries(node[0].items(), custom_objects)
            self.key = "parameters"
            try:
                return data, self.value(node[1])
            finally:
                self.key = None
        if self.key is None and isinstance(node, dict):
            return self._entries(node.items(), custom_objects)
        if self.key is None and isinstance(node, Call) and isinstance(node.func, Ref) and node.how == "reduce" and \
                dotted_name(node.func) == "collections.OrderedDict" and not node.args and not node.states:
            return collections.OrderedDict(self._entries(node.entries, custom_objects))
        return self.value(node)

    def _entries(self, pairs: Any, custom_objects: Dict[str, Any]) -> dict:
        result = {}
        for raw_key, raw_value in pairs:
            if not isinstance(raw_key, str):
                raise InvalidModelFileError("{}: the data keys must be strings, found a {}".format(
                    self.what, type(raw_key).__name__))
            if raw_key in custom_objects:
                result[raw_key] = custom_objects[raw_key]
                continue
            self.key = raw_key
            try:
                result[raw_key] = self.value(raw_value)
            finally:
                self.key = None
        return result

    def value(self, node: Any) -> Any:  # pylint: disable=too-many-return-statements
        """
        Convert one node (and what it contains).

        :param node: (Any) plain data, a container, a Ref or a Call
        :return: (Any) the value
        """
        kind = type(node)
        if kind in _PLAIN:
            self._expand(1)
            return node
        if kind is int:
            if node.bit_length() > limits.MAX_INT_BITS:
                raise self.invalid("an integer of {} bits".format(node.bit_length()))
            self._expand(1)
            return node
        found = self._memo.get(id(node), _MISSING)
        if found is not _MISSING:
            # a shared value: stored once, but every walk over the result visits it again
            self._expand(self._expanded_sizes.get(id(node), 1))
            return found
        self.budget.spend_object(self.what)
        if self._depth >= limits.MAX_NESTING:
            raise self.invalid("values nested more than {} levels deep".format(limits.MAX_NESTING))
        self._depth += 1
        start = self._expanded
        self._expand(1)
        try:
            result = self._convert(node, kind)
        finally:
            self._depth -= 1
        self._expanded_sizes[id(node)] = self._expanded - start
        return result

    def _expand(self, count: int) -> None:
        """
        Count ``count`` more values in the result as a walk over it sees them (a value referenced twice counts twice),
        so that a small pickle of shared references (a "billion laughs") is refused before any code walks it.

        :param count: (int) the values added
        """
        self._expanded += count
        if self._expanded > limits.MAX_EXPANDED_VALUES:
            raise self.invalid("more than {} values once its shared references are followed "
                               "(safe_loading.limits.MAX_EXPANDED_VALUES)".format(limits.MAX_EXPANDED_VALUES))

    def _remember(self, node: Any, result: Any) -> Any:
        self._memo[id(node)] = result
        self._keep.append(node)  # the id stays valid while the node is alive
        return result

    def _convert(self, node: Any, kind: type) -> Any:
        if kind is list:
            result = self._remember(node, [])
            result.extend(self.value(item) for item in node)
            return result
        if kind is dict:
            result = self._remember(node, {})
            for raw_key, raw_value in node.items():
                result[self.hashable(raw_key)] = self.value(raw_value)
            return result
        if kind is tuple:
            return self._remember(node, tuple(self.value(item) for item in node))
        if kind in (set, frozenset):
            return self._remember(node, kind(self.hashable(item) for item in node))
        if kind is Ref:
            return self._remember(node, self.reference(node))
        if kind is Call:
            return self._remember(node, self.call(node))
        return node  # a value a converter already built (the reader produces only the kinds above)

    def hashable(self, node: Any) -> Any:
        """
        :param node: (Any) a dict key or set member
        :return: (Any) its value, which must be hashable
        """
        result = self.value(node)
        try:
            hash(result)
        except TypeError as err:
            raise self.invalid("a dict key or set member of type {}".format(type(result).__name__)) from err
        return result

    # --- globals and calls -------------------------------------------------------------------------
    def reference(self, ref: Ref) -> Any:
        """
        :param ref: (Ref) a global used as a value (a class or function by reference)
        :return: (Any) the class or function of a legitimate kind
        """
        if ref.module.startswith("<"):  # a persistent id, the extension registry, an out-of-band buffer
            raise self.refuse("a {}".format(ref.name), "model files never refer to objects outside themselves")
        converter = REFERENCES.get(registered_name(ref))
        if converter is not None:
            return converter(self, ref)
        for resolver in REFERENCE_RESOLVERS:
            result = resolver(self, ref)
            if result is not NotImplemented:
                return result
        raise self.refuse("a reference to {}".format(ref.dotted), "not a class or function a model file may name")

    def call(self, call: Call) -> Any:
        """
        :param call: (Call) a call or object construction described by the pickle
        :return: (Any) the value built by the converter of its kind
        """
        if isinstance(call.func, Ref) and call.how != "reduce" and not call.args and not call.kwargs:
            return self.instance(call.func, call)
        if call.how == "reduce":
            converter = CALLS.get(registered_name(call.func)) if isinstance(call.func, Ref) else None
            if converter is not None:
                return converter(self, call)
            for resolver in CALL_RESOLVERS:
                result = resolver(self, call)
                if result is not NotImplemented:
                    return result
        raise self.refuse("a call to {}".format(call.target), "model files never make calls, except to rebuild "
                                                              "the data kinds they legitimately hold")

    def instance(self, cls: Any, call: Call) -> Any:
        """
        :param cls: (Ref) the class of the object
        :param call: (Call) the record holding the object's state (``states``, ``items``, ``entries``)
        :return: (Any) the object built by the converter of its kind
        """
        if not isinstance(cls, Ref):
            raise self.refuse("an object of a class defined in the file", "classes are never built from a file")
        converter = INSTANCES.get(registered_name(cls))
        if converter is not None:
            return converter(self, call)
        for resolver in INSTANCE_RESOLVERS:
            result = resolver(self, cls, call)
            if result is not NotImplemented:
                return result
        raise self.refuse("an object of {}".format(cls.dotted), "not one of the kinds a model file may hold")

    # --- helpers for the kind converters --------------------------------------------------------
    def attributes(self, call: Call, allowed: Tuple[str, ...], what: str, ignored: Optional[Tuple[str, ...]] = ()) \
            -> Dict[str, Any]:
        """
        The object state a pickle gave (BUILD with a dict, or a ``(dict, slots)`` pair), converted, restricted to
        the attribute names of that kind.

        :param call: (Call) the record
        :param allowed: (tuple) names that are read
        :param what: (str) the kind, for messages
        :param ignored: (tuple) names that are accepted and dropped without being read (None: every other name)
        :return: (dict) name -> converted value
        """
        raw = {}
        for state in call.states:
            parts = state if isinstance(state, tuple) and len(state) == 2 else (state,)
            for part in parts:
                if part is None:
                    continue
                if not isinstance(part, dict):
                    raise self.invalid("the state of a {} is a {}, not a dict of attributes".format(
                        what, type(part).__name__))
                raw.update(part)
        result = {}
        for name, node in raw.items():
            if ignored is None and name not in allowed or ignored is not None and name in ignored:
                continue
            if name not in allowed:
                raise self.refuse("a {} with the attribute {!r}".format(what, name),
                                  "that kind has only the attributes {}".format(", ".join(allowed)))
            result[name] = self.value(node)
        return result


_MISSING = object()
