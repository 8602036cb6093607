"""What the symbolic executor pushes besides expressions, the operator tables and helpers on expression nodes."""
from typing import Any, List, Sequence


class _Null(object):
    """The NULL that 3.11+ pushes below or above a callable."""

    def __repr__(self) -> str:
        return "NULL"


_NULL = _Null()


class _Builtin(object):
    """
    An allowed builtin function on the stack (only calls of it are supported).

    :param name: (str) its name
    """

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name


class _Opaque(object):
    """
    A value that is not a number (a module, a function, a string...): refused when used, as a value or called.

    :param name: (str) where it comes from (a global's name, "constant #2"...)
    :param why: (str) the refusal message when it is used as a value
    """

    __slots__ = ("name", "why")

    def __init__(self, name: str, why: str) -> None:
        self.name = name
        self.why = why


_BUILTIN_NAMES = ("abs", "float", "int", "max", "min", "pow", "round")
_BINARY_OP_ARGS = {0: "+", 2: "//", 5: "*", 6: "%", 8: "**", 10: "-", 11: "/",
                   13: "+", 15: "//", 18: "*", 19: "%", 21: "**", 23: "-", 24: "/"}
_BINARY_OP_OTHERS = {1: "&", 3: "<<", 4: "@", 7: "|", 9: ">>", 12: "^"}
_BINARY_NAMES = {"BINARY_ADD": "+", "BINARY_SUBTRACT": "-", "BINARY_MULTIPLY": "*", "BINARY_TRUE_DIVIDE": "/",
                 "BINARY_FLOOR_DIVIDE": "//", "BINARY_MODULO": "%", "BINARY_POWER": "**",
                 "INPLACE_ADD": "+", "INPLACE_SUBTRACT": "-", "INPLACE_MULTIPLY": "*", "INPLACE_TRUE_DIVIDE": "/",
                 "INPLACE_FLOOR_DIVIDE": "//", "INPLACE_MODULO": "%", "INPLACE_POWER": "**"}
_COMPARISONS = ("<", "<=", "==", "!=", ">", ">=")
_INTRINSIC_UNARY_POSITIVE = 5
_LEAVES = ("const", "arg")
_JUMPS = frozenset(["JUMP_FORWARD", "JUMP_ABSOLUTE", "POP_JUMP_IF_FALSE", "POP_JUMP_IF_TRUE", "POP_JUMP_FORWARD_IF_FALSE",
                    "POP_JUMP_FORWARD_IF_TRUE", "JUMP_IF_FALSE_OR_POP", "JUMP_IF_TRUE_OR_POP"])
_ENDS_BLOCK = frozenset(["JUMP_FORWARD", "JUMP_ABSOLUTE", "RETURN_VALUE", "RETURN_CONST"])
_TRUTH_VALUED = ("compare",)


def _children(node: tuple) -> Sequence[tuple]:
    """:return: (sequence) the sub-expressions of a node, in evaluation order"""
    kind = node[0]
    if kind == "unary":
        return (node[2],)
    if kind in ("binary", "compare"):
        return node[2:4]
    if kind == "call":
        return node[2]
    if kind == "if":
        return node[1:4]
    if kind == "seq":
        return tuple(node[1]) + (node[2],)
    return ()


def _is_computed(value: Any) -> bool:
    """:return: (bool) whether a stack value is an operation Python evaluates (may raise), not a leaf"""
    return isinstance(value, tuple) and value[0] not in _LEAVES


def _drop_evaluated(pending: List[tuple], operands: Sequence[Any]) -> None:
    """
    Remove from the end of ``pending`` the computed operands a new node consumes: evaluating the node evaluates
    them in the same order, so they need no separate place in the sequence.
    """
    tail: List[Any] = []
    for operand in operands:
        if _is_computed(operand) and not any(operand is seen for seen in tail):
            tail.append(operand)
    count = len(tail)
    if count and len(pending) >= count and all(pending[len(pending) - count + i] is tail[i] for i in range(count)):
        del pending[len(pending) - count:]


def _test_of(node: tuple) -> tuple:
    """The expression a branch tests: a ``bool(x)`` node tests like ``x``."""
    while node[0] == "unary" and node[1] == "bool":
        node = node[2]
    return node
