"""Markers, bounds and refusals shared by the bytecode decoder, the executor and the rebuilt functions."""
import numbers
from typing import Any


class _Marker(object):
    """A named singleton, pickled by reference to the :mod:`~stable_baselines.common.safe_loading.bytecode` package."""

    __slots__ = ("_name",)

    def __init__(self, name: str) -> None:
        self._name = name

    def __repr__(self) -> str:
        return self._name

    def __reduce__(self) -> str:
        return self._name


#: a closure cell that holds no value
EMPTY_CELL = _Marker("EMPTY_CELL")
#: a value the caller could not turn into plain data (a nested function, a module, an object...)
UNSUPPORTED = _Marker("UNSUPPORTED")

# --- bounds -----------------------------------------------------------------------------------------------
MAX_CODE_BYTES = 16384      # longest bytecode read
MAX_TABLE_ITEMS = 1024      # longest consts / names / varnames / freevars / cellvars tuple
MAX_NAME_LENGTH = 256       # longest identifier
MAX_NODES = 1000            # largest expression, counting shared sub-expressions each time they are used
MAX_DEPTH = 100             # deepest expression
MAX_STEPS = 20000           # instructions visited over all paths of one decoding
MAX_BRANCH_DEPTH = 64       # nested conditional jumps on one path
MAX_STACK = 256             # deepest value stack
MAX_CALL_ARGS = 32          # most arguments of a builtin call
INT_BITS = 1024             # an int result larger than 2**INT_BITS becomes +-inf (so 10**10**10 cannot hang)

_CO_VARARGS, _CO_VARKEYWORDS = 0x04, 0x08
_CO_GENERATOR_LIKE = 0x20 | 0x80 | 0x100 | 0x200   # generator, coroutine, iterable coroutine, async generator


class UnsupportedFunction(ValueError):
    """A stored function that cannot be rebuilt: its code leaves the arithmetic subset or is malformed."""


_OUTSIDE, _MALFORMED = 2, 1   # how telling a refusal is, to pick the message when no version decodes the code


class _Refusal(UnsupportedFunction):
    """
    A refusal while decoding with one candidate version.

    :param message: (str) what was found
    :param rank: (int) _OUTSIDE when the code is understood but leaves the subset, _MALFORMED when it does not
        decode (likely the wrong version)
    :param offset: (int) where in the bytecode
    """

    def __init__(self, message: str, rank: int = _OUTSIDE, offset: int = -1) -> None:
        super(_Refusal, self).__init__(message)
        self.rank = rank
        self.offset = offset


def _malformed(message: str, offset: int = -1) -> _Refusal:
    return _Refusal(message, _MALFORMED, offset)


# --- plain values -------------------------------------------------------------------------------------------
def _plain_number(value: Any) -> Any:
    """
    A number / bool / None as a Python value (numpy scalars converted), or UNSUPPORTED.

    :param value: (Any) a constant, closure value, global or default
    :return: (Any) the plain value, or UNSUPPORTED
    """
    kind = type(value)
    if value is None or kind in (bool, float, complex):
        return value
    if kind is int:
        return value if value.bit_length() <= INT_BITS else UNSUPPORTED
    if kind.__module__ == "numpy":
        if kind.__name__ in ("bool_", "bool"):
            return bool(value)
        if isinstance(value, numbers.Integral):
            return _plain_number(int(value))
        if isinstance(value, numbers.Real):
            return float(value)
        if isinstance(value, numbers.Complex):
            return complex(value)
    return UNSUPPORTED


def _describe(value: Any) -> str:
    """:return: (str) a short description of a value that is not a plain number, for messages"""
    if value is UNSUPPORTED:
        return "an object that is not a plain number (a function, module, class or other object)"
    if value is EMPTY_CELL:
        return "an empty closure cell"
    if isinstance(value, str):
        return "the string {!r}".format(value[:40])
    if isinstance(value, int):
        return "an integer of {} bits".format(value.bit_length())
    return "a value of type {}".format(type(value).__name__)
