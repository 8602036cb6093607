"""Evaluation of expression trees with bounded numbers, and their rendering as Python source."""
import math
import operator
from typing import Any, Callable, Dict, Sequence, Tuple

from stable_baselines.common.safe_loading.bytecode.values import INT_BITS


# --- evaluation ---------------------------------------------------------------------------------------------
def _limit(value: Any) -> Any:
    """An int beyond 2**INT_BITS becomes +-inf, so that no computation grows without bound."""
    if type(value) is int and value.bit_length() > INT_BITS:
        return math.inf if value > 0 else -math.inf
    return value


def _power(base: Any, exponent: Any) -> Any:
    if type(base) in (int, bool) and type(exponent) in (int, bool) and exponent > 0 and abs(base) > 1:
        if (abs(base).bit_length() - 1) * exponent > INT_BITS:
            return -math.inf if base < 0 and exponent % 2 else math.inf
    return _limit(base ** exponent)


def _builtin_pow(*args: Any) -> Any:
    if len(args) == 2:
        return _power(*args)
    return _limit(pow(*args))


def _builtin_round(*args: Any) -> Any:
    if len(args) == 2 and isinstance(args[0], int) and type(args[1]) in (int, bool) and args[1] < 0 and \
            -args[1] > abs(args[0]).bit_length() * 0.302 + 2:
        return 0   # |x| < 10 ** -ndigits / 2: what round gives, without computing 10 ** -ndigits
    return round(*args)


def _guarded(function: Callable[..., Any]) -> Callable[..., Any]:
    def call(*args: Any) -> Any:
        return _limit(function(*args))
    return call


_BINARY_FUNCTIONS: Dict[str, Callable[..., Any]] = {
    "+": _guarded(operator.add), "-": _guarded(operator.sub), "*": _guarded(operator.mul),
    "/": operator.truediv, "//": operator.floordiv, "%": operator.mod, "**": _power,
}
_COMPARE_FUNCTIONS: Dict[str, Callable[..., Any]] = {"<": operator.lt, "<=": operator.le, "==": operator.eq, "!=": operator.ne,
                      ">": operator.gt, ">=": operator.ge}
_UNARY_FUNCTIONS: Dict[str, Callable[..., Any]] = {"-": operator.neg, "+": operator.pos, "not": operator.not_, "bool": bool}
_BUILTIN_FUNCTIONS: Dict[str, Callable[..., Any]] = {"abs": abs, "float": float, "int": _guarded(int), "max": max, "min": min,
                      "pow": _builtin_pow, "round": _builtin_round}


def _evaluate(node: tuple, arguments: Sequence[Any]) -> Any:
    """
    The value of an expression (in Python's order of evaluation).

    :param node: (tuple) the expression
    :param arguments: (sequence) the parameter values
    :return: (Any) its value
    """
    kind = node[0]
    if kind == "const":
        return node[1]
    if kind == "arg":
        return arguments[node[1]]
    if kind == "binary":
        return _BINARY_FUNCTIONS[node[1]](_evaluate(node[2], arguments), _evaluate(node[3], arguments))
    if kind == "compare":
        return _COMPARE_FUNCTIONS[node[1]](_evaluate(node[2], arguments), _evaluate(node[3], arguments))
    if kind == "unary":
        return _UNARY_FUNCTIONS[node[1]](_evaluate(node[2], arguments))
    if kind == "call":
        return _BUILTIN_FUNCTIONS[node[1]](*[_evaluate(argument, arguments) for argument in node[2]])
    if kind == "if":
        return _evaluate(node[2] if _evaluate(node[1], arguments) else node[3], arguments)
    for effect in node[1]:   # "seq"
        _evaluate(effect, arguments)
    return _evaluate(node[2], arguments)


# --- rendering ----------------------------------------------------------------------------------------------
_BINARY_PRECEDENCE = {"+": 5, "-": 5, "*": 6, "/": 6, "//": 6, "%": 6, "**": 8}
_ATOM = 9


def _render_const(value: Any) -> Tuple[str, int]:
    if isinstance(value, float) and not math.isfinite(value):
        return "float({!r})".format(repr(value)), _ATOM
    text = repr(value)
    return text, 7 if text.startswith("-") else _ATOM


def _render(node: tuple, names: Sequence[str]) -> Tuple[str, int]:
    """:return: (str, int) Python-like text of an expression and its precedence"""
    kind = node[0]
    if kind == "const":
        return _render_const(node[1])
    if kind == "arg":
        return names[node[1]], _ATOM

    def operand(child: tuple, minimum: int) -> str:
        text, level = _render(child, names)
        return text if level >= minimum else "(" + text + ")"

    if kind == "binary":
        level = _BINARY_PRECEDENCE[node[1]]
        if node[1] == "**":
            return "{} ** {}".format(operand(node[2], _ATOM), operand(node[3], 7)), level
        return "{} {} {}".format(operand(node[2], level), node[1], operand(node[3], level + 1)), level
    if kind == "compare":
        return "{} {} {}".format(operand(node[2], 5), node[1], operand(node[3], 5)), 4
    if kind == "unary":
        if node[1] == "not":
            return "not " + operand(node[2], 3), 3
        if node[1] == "bool":
            return "bool({})".format(_render(node[2], names)[0]), _ATOM
        return node[1] + operand(node[2], 7), 7
    if kind == "call":
        return "{}({})".format(node[1], ", ".join(_render(argument, names)[0] for argument in node[2])), _ATOM
    if kind == "if":
        test, then, otherwise = node[1:4]
        if otherwise == test:
            return "{} and {}".format(operand(test, 2), operand(then, 3)), 2
        if then == test:
            return "{} or {}".format(operand(test, 1), operand(otherwise, 2)), 1
        return "{} if {} else {}".format(operand(then, 1), operand(test, 1), operand(otherwise, 0)), 0
    parts = [_render(effect, names)[0] for effect in node[1]] + [_render(node[2], names)[0]]
    return "({})[-1]".format(", ".join(parts)), _ATOM
