"""ArithmeticFunction: a rebuilt function, its validated plain-data state, binding of arguments and evaluation."""
from typing import Any, Dict, List, Mapping, Tuple

from stable_baselines.common.safe_loading.bytecode.values import (
    _describe, _Marker, MAX_CALL_ARGS, MAX_DEPTH, MAX_NAME_LENGTH, MAX_NODES, MAX_TABLE_ITEMS, _plain_number,
    UNSUPPORTED, UnsupportedFunction)
from stable_baselines.common.safe_loading.bytecode.decoding import _VERSIONS
from stable_baselines.common.safe_loading.bytecode.nodes import _BUILTIN_NAMES
from stable_baselines.common.safe_loading.bytecode.arithmetic import (
    _BINARY_FUNCTIONS, _BUILTIN_FUNCTIONS, _COMPARE_FUNCTIONS, _evaluate, _render, _render_const, _UNARY_FUNCTIONS)


_STATE_KEYS = frozenset(["format", "name", "qualname", "parameters", "positional", "posonly", "defaults",
                         "kwdefaults", "expression", "bytecode_versions"])
_NODE_SHAPES = {"const": 2, "arg": 2, "unary": 3, "binary": 4, "compare": 4, "call": 3, "if": 4, "seq": 3}
_UNARY_SYMBOLS = frozenset(_UNARY_FUNCTIONS)


def _value_key(value: Any) -> Any:
    """A key telling apart values that compare equal but behave differently (1, 1.0, True, -0.0)."""
    if isinstance(value, float):
        return "float", value.hex()
    if isinstance(value, complex):
        return "complex", value.real.hex(), value.imag.hex()
    return type(value).__name__, value


def _expression_key(node: tuple) -> tuple:
    """:return: (tuple) the expression with its constants replaced by :func:`_value_key` (for ==, hash)"""
    kind = node[0]
    if kind == "const":
        return kind, _value_key(node[1])
    if kind == "arg":
        return node
    if kind == "call":
        return kind, node[1], tuple(_expression_key(child) for child in node[2])
    if kind == "seq":
        return kind, tuple(_expression_key(child) for child in node[1]), _expression_key(node[2])
    if kind == "if":
        return (kind,) + tuple(_expression_key(child) for child in node[1:4])
    return (kind, node[1]) + tuple(_expression_key(child) for child in node[2:])


def _check_plain(value: Any, what: str) -> Any:
    plain = _plain_number(value)
    if plain is UNSUPPORTED:
        raise UnsupportedFunction("{} is {}, not a number".format(what, _describe(value)))
    return plain


def _checked_expression(node: Any, parameter_count: int, budget: List[int], depth: int = 1) -> tuple:
    """
    Validate an expression from a saved state, rebuilding it from tuples (lists accepted).

    :param node: (Any) the expression as stored
    :param parameter_count: (int) number of parameters (bounds ``("arg", i)``)
    :param budget: (list) ``[nodes left]``, decremented for every node
    :return: (tuple) the expression
    """
    budget[0] -= 1
    if budget[0] < 0:
        raise UnsupportedFunction("the expression has more than {} operations".format(MAX_NODES))
    if depth > MAX_DEPTH:
        raise UnsupportedFunction("the expression is nested more than {} levels deep".format(MAX_DEPTH))
    if not isinstance(node, (tuple, list)) or not node or node[0] not in _NODE_SHAPES or \
            len(node) != _NODE_SHAPES[node[0]]:
        raise UnsupportedFunction("malformed expression node {!r}".format(node)[:200])
    kind = node[0]

    def sub(child: Any) -> tuple:
        return _checked_expression(child, parameter_count, budget, depth + 1)

    def children(items: Any, limit: int) -> tuple:
        if not isinstance(items, (tuple, list)) or len(items) > limit:
            raise UnsupportedFunction("malformed {} node".format(kind))
        return tuple(sub(item) for item in items)

    if kind == "const":
        return "const", _check_plain(node[1], "a constant")
    if kind == "arg":
        if type(node[1]) is not int or not 0 <= node[1] < parameter_count:
            raise UnsupportedFunction("parameter index {!r} out of range".format(node[1]))
        return "arg", node[1]
    if kind == "unary":
        if node[1] not in _UNARY_SYMBOLS:
            raise UnsupportedFunction("unknown unary operator {!r}".format(node[1]))
        return "unary", node[1], sub(node[2])
    if kind in ("binary", "compare"):
        table = _BINARY_FUNCTIONS if kind == "binary" else _COMPARE_FUNCTIONS
        if not isinstance(node[1], str) or node[1] not in table:
            raise UnsupportedFunction("unknown {} operator {!r}".format(kind, node[1]))
        return kind, node[1], sub(node[2]), sub(node[3])
    if kind == "call":
        if not isinstance(node[1], str) or node[1] not in _BUILTIN_FUNCTIONS:
            raise UnsupportedFunction("a call of {!r}, which is not one of the builtins {}".format(
                node[1], ", ".join(_BUILTIN_NAMES)))
        return "call", node[1], children(node[2], MAX_CALL_ARGS)
    if kind == "if":
        return "if", sub(node[1]), sub(node[2]), sub(node[3])
    return "seq", children(node[1], MAX_NODES), sub(node[2])


def _checked_name(name: Any) -> str:
    if type(name) is not str or not name.isidentifier() or len(name) > MAX_NAME_LENGTH:
        raise UnsupportedFunction("{!r} is not a parameter name".format(name)[:200])
    return name


class ArithmeticFunction(object):
    """
    A function rebuilt from stored bytecode: an expression over its parameters, evaluated when called.
    Build it with :func:`compile_function`, or :meth:`from_state` for one saved by this library. It pickles as a
    reference to this class plus plain data (see :meth:`__getstate__`).

    :param state: (dict) the validated state
    """

    def __init__(self, state: Mapping[str, Any]) -> None:
        self._apply(self._validated(state))

    # -- construction
    @classmethod
    def from_state(cls, state: Any) -> "ArithmeticFunction":
        """
        Rebuild a function from the state :meth:`__getstate__` returned, validating every field.

        :param state: (dict) the state
        :return: (ArithmeticFunction) the function
        :raises UnsupportedFunction: when the state is malformed
        """
        function = cls.__new__(cls)
        function.__setstate__(state)
        return function

    @staticmethod
    def _validated(state: Any) -> Dict[str, Any]:
        if not isinstance(state, Mapping) or set(state) != _STATE_KEYS:
            keys = sorted(map(str, state)) if isinstance(state, Mapping) else type(state).__name__
            raise UnsupportedFunction("malformed function state (keys {})".format(keys))
        if state["format"] != 1:
            raise UnsupportedFunction("unknown function state format {!r}".format(state["format"]))
        for key in ("name", "qualname"):
            if type(state[key]) is not str or len(state[key]) > 4 * MAX_NAME_LENGTH:
                raise UnsupportedFunction("the function's {} is not a string".format(key))
        parameters = state["parameters"]
        if not isinstance(parameters, (tuple, list)) or len(parameters) > MAX_TABLE_ITEMS:
            raise UnsupportedFunction("the parameters are not a list of names")
        parameters = tuple(_checked_name(name) for name in parameters)
        if len(set(parameters)) != len(parameters):
            raise UnsupportedFunction("duplicate parameter names")
        positional, posonly = state["positional"], state["posonly"]
        if type(positional) is not int or type(posonly) is not int or \
                not 0 <= posonly <= positional <= len(parameters):
            raise UnsupportedFunction("inconsistent parameter counts")
        defaults = state["defaults"]
        if not isinstance(defaults, (tuple, list)) or len(defaults) > positional:
            raise UnsupportedFunction("more defaults than positional parameters")
        defaults = tuple(_check_plain(value, "a default value") for value in defaults)
        kwdefaults = state["kwdefaults"]
        if not isinstance(kwdefaults, Mapping) or not set(kwdefaults) <= set(parameters[positional:]):
            raise UnsupportedFunction("keyword defaults for unknown keyword-only parameters")
        kwdefaults = {name: _check_plain(value, "a default value") for name, value in kwdefaults.items()}
        versions = state["bytecode_versions"]
        if not isinstance(versions, (tuple, list)) or not set(versions) <= set(_VERSIONS):
            raise UnsupportedFunction("unknown bytecode versions {!r}".format(versions)[:200])
        expression = _checked_expression(state["expression"], len(parameters), [MAX_NODES])
        return {"format": 1, "name": state["name"], "qualname": state["qualname"], "parameters": parameters,
                "positional": positional, "posonly": posonly, "defaults": defaults, "kwdefaults": kwdefaults,
                "expression": expression, "bytecode_versions": tuple(versions)}

    def _apply(self, state: Dict[str, Any]) -> None:
        self._state = state
        self.__name__ = state["name"]            # like a function's, for code that logs schedules by name
        self.__qualname__ = state["qualname"]
        self._key = (state["parameters"], state["positional"], state["posonly"],
                     tuple(_value_key(value) for value in state["defaults"]),
                     tuple(sorted((name, _value_key(value)) for name, value in state["kwdefaults"].items())),
                     _expression_key(state["expression"]))

    def __getstate__(self) -> Dict[str, Any]:
        """:return: (dict) plain data: names, parameters, defaults and the expression (nested tuples)"""
        state = dict(self._state)
        state["kwdefaults"] = dict(state["kwdefaults"])
        return state

    def __setstate__(self, state: Any) -> None:
        """Validates exactly like :meth:`from_state` (so unpickling cannot install an arbitrary expression)."""
        self._apply(self._validated(state))

    # -- use
    @property
    def bytecode_versions(self) -> Tuple[str, ...]:
        """:return: (tuple) the Python versions whose bytecode reading gave this expression"""
        return self._state["bytecode_versions"]

    @property
    def expression(self) -> tuple:
        """:return: (tuple) the expression tree"""
        return self._state["expression"]

    def _bind(self, args: tuple, kwargs: Dict[str, Any]) -> List[Any]:
        state = self._state
        parameters, positional = state["parameters"], state["positional"]
        label = "{}()".format(state["name"])
        if len(args) > positional:
            raise TypeError("{} takes {} positional arguments but {} were given".format(label, positional, len(args)))
        values = list(args) + [_UNSET] * (len(parameters) - len(args))
        for name, value in kwargs.items():
            index = parameters.index(name) if name in parameters else -1
            if index < state["posonly"]:
                raise TypeError("{} got an unexpected keyword argument {!r}".format(label, name))
            if values[index] is not _UNSET:
                raise TypeError("{} got multiple values for argument {!r}".format(label, name))
            values[index] = value
        first_default = positional - len(state["defaults"])
        for index, name in enumerate(parameters):
            if values[index] is not _UNSET:
                continue
            if first_default <= index < positional:
                values[index] = state["defaults"][index - first_default]
            elif index >= positional and name in state["kwdefaults"]:
                values[index] = state["kwdefaults"][name]
            else:
                raise TypeError("{} missing required argument {!r}".format(label, name))
        return values

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return _evaluate(self._state["expression"], self._bind(args, kwargs))

    def source(self) -> str:
        """:return: (str) the function as Python-like text, e.g. ``lambda f: f * 0.00025``"""
        state = self._state
        parameters, positional = state["parameters"], state["positional"]
        first_default = positional - len(state["defaults"])
        parts = []
        for index, name in enumerate(parameters):
            if index == positional and index < len(parameters):
                parts.append("*")
            if first_default <= index < positional:
                name += "=" + _render_const(state["defaults"][index - first_default])[0]
            elif index >= positional and name in state["kwdefaults"]:
                name += "=" + _render_const(state["kwdefaults"][name])[0]
            parts.append(name)
            if index + 1 == state["posonly"]:
                parts.append("/")
        body = _render(state["expression"], parameters)[0]
        return "lambda{}: {}".format(" " + ", ".join(parts) if parts else "", body)

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, ArithmeticFunction) and other._key == self._key

    def __ne__(self, other: Any) -> bool:
        return not self == other

    def __hash__(self) -> int:
        return hash(self._key)

    def __repr__(self) -> str:
        return "<ArithmeticFunction {}: {}>".format(self._state["qualname"], self.source())


_UNSET = _Marker("_UNSET")
