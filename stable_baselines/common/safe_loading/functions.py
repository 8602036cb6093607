"""
Functions stored in model files, rebuilt without running them.

cloudpickle stores a function by value: the arguments of its code object, its closure cells, the globals it
uses, its defaults and names. This module reads those fields from the records of every cloudpickle layout
(``_make_skel_func`` / ``_fill_function`` before 1.5; ``FunctionType`` or ``_make_function`` with
``_function_setstate`` since) and hands them to :func:`.bytecode.compile_function`, our evaluator of a
pure-arithmetic subset of CPython bytecode. A function outside the subset, or one the file names by reference,
becomes an :class:`UnresolvedFunction`: loading succeeds, and only calling it raises an error that says how to
supply the function.
"""
from typing import Any, Dict, List, Optional, cast

import numpy as np

from stable_baselines.common.safe_loading.converters import CALL_RESOLVERS, CALLS, INSTANCES, REFERENCE_RESOLVERS, \
    Converter, dotted_name
from stable_baselines.common.safe_loading.records import Call, Ref


def _bytecode() -> Any:
    """The bytecode evaluator, imported when a file first holds a function (not when the library starts)."""
    from stable_baselines.common.safe_loading import bytecode  # pylint: disable=import-outside-toplevel
    return bytecode


class UnresolvedFunction(object):
    """
    Stands for a function a model file holds but that cannot be rebuilt without running code from the file.
    Loading succeeds (so ``predict`` works); calling it raises an error that names the entry and how to supply
    the function.

    :param key: (str) the model-data entry that holds the function
    :param qualname: (str) the function's qualified name
    :param module: (str) the module the function was defined in
    :param closure_values: (list) the numbers it captured (for inspection)
    :param reason: (str) why it was not rebuilt
    """

    def __init__(self, key: Optional[str], qualname: Optional[str], module: Optional[str] = None,
                 closure_values: Optional[list] = None, reason: str = "") -> None:
        self.key = key
        self.qualname = qualname
        self.module = module
        self.closure_values = list(closure_values or [])
        self.reason = reason

    def error_message(self) -> str:
        """:return: (str) the message of the error raised when it is called"""
        name = "{}.{}".format(self.module, self.qualname) if self.module else str(self.qualname)
        where = "entry {!r}".format(self.key) if self.key is not None else "an entry"
        why = " ({})".format(self.reason) if self.reason else ""
        return ("The model file stores a Python function for {}: {}{}. Stable Baselines never runs code from a "
                "file, and this function is not plain arithmetic it can rebuild. Re-create it and pass it as "
                "custom_objects={{{!r}: value}} when loading.".format(where, name, why, self.key if self.key
                                                                       is not None else "<key>"))

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise RuntimeError(self.error_message())

    def __repr__(self) -> str:
        return "<function {!r} of entry {!r}, not rebuilt (raises when called)>".format(self.qualname, self.key)


class LinearFunction(object):
    """
    ``progress * initial_value`` (the rl-baselines-zoo's ``linear_schedule``), as files saved by earlier versions of
    this library name it.

    :param initial_value: (float) the value at progress 1
    """

    def __init__(self, initial_value: float) -> None:
        self.initial_value = initial_value

    def __call__(self, progress: float) -> float:
        return progress * self.initial_value

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, LinearFunction) and other.initial_value == self.initial_value

    def __hash__(self) -> int:
        return hash((LinearFunction, self.initial_value))

    def __repr__(self) -> str:
        return "linear_schedule({!r})".format(self.initial_value)


# --- reading the fields cloudpickle stored ------------------------------------------------------------
def _is(node: Any, name: str) -> bool:
    return isinstance(node, Ref) and dotted_name(node) == "cloudpickle." + name


def _builtin_type(node: Any, *names: str) -> bool:
    """``cloudpickle._builtin_type('CodeType')`` and the like."""
    return isinstance(node, Call) and _is(node.func, "_builtin_type") and len(node.args) == 1 and \
        node.args[0] in names


def _plain(converter: Converter, node: Any, depth: int = 0) -> Any:
    """A code-object field or captured value as plain data; anything else becomes ``bytecode.UNSUPPORTED``."""
    if node is None or type(node) in (bool, int, float, complex, str, bytes):
        return node
    if isinstance(node, tuple) and depth < 8:
        cache = converter.cache.setdefault("plain", {})
        if id(node) not in cache:
            converter.budget.spend_object(converter.what)
            cache[id(node)] = (node, tuple(_plain(converter, item, depth + 1) for item in node))
        return cache[id(node)][1]
    if isinstance(node, Call) and isinstance(node.func, Ref) and dotted_name(node.func).endswith(".scalar"):
        value = converter.value(node)  # a numpy scalar: rebuilt by the numpy converter
        if isinstance(value, np.generic) and value.dtype.kind in "biuf":
            return value.item()
    return _bytecode().UNSUPPORTED


def _cell_value(converter: Converter, node: Any) -> Any:
    if isinstance(node, Call) and _is(node.func, "_make_empty_cell"):
        return _bytecode().EMPTY_CELL
    if isinstance(node, Call) and (_is(node.func, "_make_cell") or _builtin_type(node.func, "CellType")):
        return _plain(converter, node.args[0]) if node.args else _bytecode().EMPTY_CELL
    return _plain(converter, node)


def _globals(converter: Converter, node: Any) -> Dict[str, Any]:
    if not isinstance(node, dict):
        return {}
    return {name: _plain(converter, value) for name, value in node.items() if isinstance(name, str)}


class _Fields(object):
    """What cloudpickle stored about one function, gathered from its records."""

    def __init__(self) -> None:
        self.code: Optional[Call] = None
        self.closure: List[Any] = []
        self.globals: Dict[str, Any] = {}
        self.defaults: Any = None
        self.kwdefaults: Any = None
        self.name: Any = None
        self.qualname: Any = None
        self.module: Any = None

    def apply_state(self, converter: Converter, state: Any) -> None:
        """A state dict of any cloudpickle version (``_fill_function`` or ``_function_setstate``)."""
        parts = state if isinstance(state, tuple) else (state,)
        for part in parts:
            if not isinstance(part, dict):
                continue
            for raw_name, value in part.items():
                if not isinstance(raw_name, str):
                    continue
                name = raw_name.strip("_")
                if name == "globals":
                    self.globals.update(_globals(converter, value))
                elif name in ("closure_values", "closure") and isinstance(value, (list, tuple)):
                    self.closure = [_cell_value(converter, cell) for cell in value]
                elif name in ("defaults", "kwdefaults", "name", "qualname", "module"):
                    setattr(self, name, _plain(converter, value) if name != "kwdefaults" else value)
        if isinstance(self.kwdefaults, dict):
            self.kwdefaults = {key: _plain(converter, value) for key, value in self.kwdefaults.items()}
        else:
            self.kwdefaults = None


def _code_args(node: Any) -> Optional[tuple]:
    if isinstance(node, Call) and (_builtin_type(node.func, "CodeType") or
                                   (isinstance(node.func, Ref) and dotted_name(node.func) == "types.CodeType")):
        return node.args
    return None


def _fields_of(converter: Converter, call: Call) -> Optional[_Fields]:
    """The fields of a function record of any cloudpickle layout, or None when ``call`` is not one."""
    fields = _Fields()
    if _is(call.func, "_fill_function") and call.args and isinstance(call.args[0], Call) and \
            _is(call.args[0].func, "_make_skel_func"):
        skeleton = call.args[0].args
        fields.code = skeleton[0] if skeleton else None
        if len(skeleton) > 1 and isinstance(skeleton[1], (list, tuple)):
            fields.closure = [_cell_value(converter, cell) for cell in skeleton[1]]
        if len(skeleton) > 2:
            if isinstance(skeleton[2], dict):
                fields.globals.update(_globals(converter, skeleton[2]))
            elif isinstance(skeleton[2], str):
                fields.module = skeleton[2]
        rest = call.args[1:]
        if len(rest) == 1 and isinstance(rest[0], dict):
            fields.apply_state(converter, rest[0])
        else:  # the oldest layout: (globals, defaults, dict[, module][, closure_values])
            names = ["globals", "defaults", "dict", "module", "closure_values"]
            if len(rest) == 4 and isinstance(rest[3], (list, tuple)):
                names = ["globals", "defaults", "dict", "closure_values"]
            fields.apply_state(converter, dict(zip(names, rest)))
    elif _is(call.func, "_make_function") or _builtin_type(call.func, "FunctionType", "LambdaType"):
        args = call.args
        fields.code = args[0] if args else None
        if len(args) > 1 and isinstance(args[1], dict):
            fields.globals.update(_globals(converter, args[1]))
            fields.module = fields.globals.get("__name__")
        if len(args) > 3:
            fields.defaults = _plain(converter, args[3])
        if len(args) > 4 and isinstance(args[4], tuple):
            fields.closure = [_cell_value(converter, cell) for cell in args[4]]
        for state in call.states:
            fields.apply_state(converter, state)
    else:
        return None
    return fields


def _function(converter: Converter, call: Call) -> Any:
    converter.budget.spend_function(converter.what)
    fields = _fields_of(converter, call)
    if fields is None:
        raise converter.refuse("a call to {}".format(call.target), "not a function record cloudpickle writes")
    qualname = fields.qualname if isinstance(fields.qualname, str) else \
        fields.name if isinstance(fields.name, str) else None
    module = fields.module if isinstance(fields.module, str) else None
    numbers = [value for value in fields.closure if type(value) in (int, float, bool)]
    code_args = _code_args(fields.code)
    if code_args is None:
        return UnresolvedFunction(converter.key, qualname, module, numbers, "its code is missing")
    try:
        return _bytecode().compile_function(
            tuple(_plain(converter, arg) for arg in code_args), closure=fields.closure, globals_=fields.globals,
            defaults=fields.defaults if isinstance(fields.defaults, tuple) else None,
            kwdefaults=fields.kwdefaults, name=fields.name if isinstance(fields.name, str) else None,
            qualname=qualname)
    except _bytecode().UnsupportedFunction as err:
        return UnresolvedFunction(converter.key, qualname, module, numbers, str(err))


def _unresolved_reference(converter: Converter, ref: Ref) -> UnresolvedFunction:
    """
    Last resort for a global used as a value. A function (a schedule of the user's module, say) becomes a placeholder
    (never imported); a class (by its CapWords name) is refused: classes of other modules are never used.
    """
    if ref.name.split(".")[-1][:1].isupper():
        raise converter.refuse("the class {}".format(ref.dotted), "only the classes of the kinds a model file holds "
                                                                   "are used, never one a file names")
    return UnresolvedFunction(converter.key, ref.name, ref.module, [],
                              "the file names it by reference; it is never imported from a file")


def _saved_placeholder(converter: Converter, call: Call) -> UnresolvedFunction:
    fields = converter.attributes(call, ("key", "qualname", "module", "closure_values", "reason"),
                                  "function placeholder")
    text = {name: fields.get(name) for name in ("key", "qualname", "module", "reason")}
    if not all(value is None or isinstance(value, str) for value in text.values()):
        raise converter.invalid("a function placeholder with non-text fields")
    values = fields.get("closure_values") or []
    if not isinstance(values, list) or not all(type(value) in (int, float, bool) for value in values):
        raise converter.invalid("a function placeholder with closure values that are not numbers")
    return UnresolvedFunction(text["key"] if text["key"] is not None else converter.key, text["qualname"],
                              text["module"], values, text["reason"] or "")


def _saved_linear(converter: Converter, call: Call) -> LinearFunction:
    value = converter.attributes(call, ("initial_value",), "linear schedule").get("initial_value")
    if type(value) not in (int, float) or not np.isfinite(cast(float, value)):
        raise converter.invalid("a linear schedule with initial value {!r}".format(value))
    return LinearFunction(cast(float, value))


def _saved_arithmetic(converter: Converter, call: Call) -> Any:
    state = {}
    for raw in call.states:
        value = converter.value(raw)
        if not isinstance(value, dict):
            raise converter.invalid("a rebuilt function whose state is not a dict")
        state.update(value)
    try:
        return _bytecode().ArithmeticFunction.from_state(state)
    except _bytecode().UnsupportedFunction as err:
        raise converter.invalid("a rebuilt function with a malformed state: {}".format(err)) from err


for _name in ("_fill_function", "_make_function"):
    CALLS["cloudpickle." + _name] = _function
for _module in ("stable_baselines.common.safe_loading.functions", "stable_baselines.common.safe_pickle"):
    INSTANCES[_module + ".UnresolvedFunction"] = _saved_placeholder
    INSTANCES[_module + ".LinearFunction"] = _saved_linear
INSTANCES["stable_baselines.common.safe_loading.bytecode.ArithmeticFunction"] = _saved_arithmetic


def _function_type_call(converter: Converter, call: Call) -> Any:
    """``cloudpickle._builtin_type('FunctionType')(code, globals, ...)`` (cloudpickle 1.5 - 2.x)."""
    if _builtin_type(call.func, "FunctionType", "LambdaType"):
        return _function(converter, call)
    return NotImplemented


CALL_RESOLVERS.append(_function_type_call)
# registered last (the package imports this module after the other kinds): any other global used as a value
REFERENCE_RESOLVERS.append(_unresolved_reference)
