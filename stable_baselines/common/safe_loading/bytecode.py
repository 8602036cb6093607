"""
Small pickled functions (learning-rate and clip-range schedules) rebuilt from their bytecode, never run.

cloudpickle stores a function as the arguments of its ``types.CodeType(...)`` call plus closure cells, globals
and defaults. Building that code object would let a model file run anything, so this module reads the bytecode
instead: a decoder per CPython version (3.5 to 3.13) that knows only the opcodes of a pure-arithmetic subset,
a symbolic executor that turns the instructions into a small immutable expression tree of plain tuples, and an
evaluator of that tree (:class:`ArithmeticFunction`).

The subset: positional and keyword-only parameters (with defaults), numeric constants, closure cells and captured
globals holding numbers, the builtins ``min max abs float int round pow``, the operators ``+ - * / // % **``
(also augmented), unary ``- + not``, comparisons ``< <= > >= == !=`` (chained too), ``and``/``or``, conditional
expressions, ``if``/``else`` with forward jumps only, local variables and ``return``. Anything else (attributes,
imports, subscripts, other calls, containers, loops, exceptions, generators, f-strings...) raises
:class:`UnsupportedFunction` naming what was found.

The file does not say which Python wrote it: the layout of the code arguments (15, 16 or 18 items) narrows it to
three versions, each is tried, and the function is accepted only when every version that decodes it agrees.

Expression nodes (tuples): ``("const", value)``, ``("arg", index)``, ``("unary", op, x)`` with op in
``- + not bool``, ``("binary", op, left, right)``, ``("compare", op, left, right)``, ``("call", builtin, args)``,
``("if", test, then, otherwise)`` and ``("seq", effects, result)`` (values Python computed before a branch or a
return although the result does not use them, evaluated first so that errors surface as they would in Python).
"""
import math
import numbers
import operator
from typing import Any, Callable, Dict, List, Mapping, NamedTuple, Optional, Sequence, Tuple

__all__ = ["EMPTY_CELL", "UNSUPPORTED", "UnsupportedFunction", "ArithmeticFunction", "compile_function"]


class _Marker(object):
    """A named singleton (pickled by reference to this module)."""

    __slots__ = ("_name",)

    def __init__(self, name: str):
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

    def __init__(self, message: str, rank: int = _OUTSIDE, offset: int = -1):
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


# --- opcode tables ----------------------------------------------------------------------------------------
def _table(text: str) -> Dict[int, str]:
    """``"NAME=12 OTHER=13"`` -> ``{12: "NAME", 13: "OTHER"}``"""
    result = {}
    for item in text.split():
        name, number = item.split("=")
        result[int(number)] = name
    return result


# The opcodes of the subset. 3.5 to 3.10 share their numbers.
_SUBSET_CLASSIC = _table("""
    POP_TOP=1 ROT_TWO=2 ROT_THREE=3 DUP_TOP=4 NOP=9 UNARY_POSITIVE=10 UNARY_NEGATIVE=11 UNARY_NOT=12
    BINARY_POWER=19 BINARY_MULTIPLY=20 BINARY_MODULO=22 BINARY_ADD=23 BINARY_SUBTRACT=24 BINARY_FLOOR_DIVIDE=26
    BINARY_TRUE_DIVIDE=27 INPLACE_FLOOR_DIVIDE=28 INPLACE_TRUE_DIVIDE=29 INPLACE_ADD=55 INPLACE_SUBTRACT=56
    INPLACE_MULTIPLY=57 INPLACE_MODULO=59 INPLACE_POWER=67 RETURN_VALUE=83 LOAD_CONST=100 COMPARE_OP=107
    JUMP_FORWARD=110 JUMP_IF_FALSE_OR_POP=111 JUMP_IF_TRUE_OR_POP=112 JUMP_ABSOLUTE=113 POP_JUMP_IF_FALSE=114
    POP_JUMP_IF_TRUE=115 LOAD_GLOBAL=116 LOAD_FAST=124 STORE_FAST=125 CALL_FUNCTION=131 LOAD_DEREF=136
    EXTENDED_ARG=144""")
_SUBSET_311 = _table("""
    CACHE=0 POP_TOP=1 PUSH_NULL=2 NOP=9 UNARY_POSITIVE=10 UNARY_NEGATIVE=11 UNARY_NOT=12 RETURN_VALUE=83 SWAP=99
    LOAD_CONST=100 COMPARE_OP=107 JUMP_FORWARD=110 JUMP_IF_FALSE_OR_POP=111 JUMP_IF_TRUE_OR_POP=112
    POP_JUMP_FORWARD_IF_FALSE=114 POP_JUMP_FORWARD_IF_TRUE=115 LOAD_GLOBAL=116 COPY=120 BINARY_OP=122 LOAD_FAST=124
    STORE_FAST=125 LOAD_DEREF=137 EXTENDED_ARG=144 COPY_FREE_VARS=149 RESUME=151 PRECALL=166 CALL=171""")
_SUBSET_312 = _table("""
    CACHE=0 POP_TOP=1 PUSH_NULL=2 NOP=9 UNARY_NEGATIVE=11 UNARY_NOT=12 RETURN_VALUE=83 SWAP=99 LOAD_CONST=100
    COMPARE_OP=107 JUMP_FORWARD=110 POP_JUMP_IF_FALSE=114 POP_JUMP_IF_TRUE=115 LOAD_GLOBAL=116 COPY=120
    RETURN_CONST=121 BINARY_OP=122 LOAD_FAST=124 STORE_FAST=125 LOAD_FAST_CHECK=127 LOAD_DEREF=137 EXTENDED_ARG=144
    COPY_FREE_VARS=149 RESUME=151 CALL=171 CALL_INTRINSIC_1=173""")
_SUBSET_313 = _table("""
    CACHE=0 NOP=30 POP_TOP=32 PUSH_NULL=34 RETURN_VALUE=36 TO_BOOL=40 UNARY_NEGATIVE=42 UNARY_NOT=43 BINARY_OP=45
    CALL=53 CALL_INTRINSIC_1=55 COMPARE_OP=58 COPY=61 COPY_FREE_VARS=62 EXTENDED_ARG=71 JUMP_FORWARD=79
    LOAD_CONST=83 LOAD_DEREF=84 LOAD_FAST=85 LOAD_FAST_CHECK=87 LOAD_FAST_LOAD_FAST=88 LOAD_GLOBAL=91
    POP_JUMP_IF_FALSE=97 POP_JUMP_IF_TRUE=100 RETURN_CONST=103 STORE_FAST=110 STORE_FAST_LOAD_FAST=111
    STORE_FAST_STORE_FAST=112 SWAP=115 RESUME=149""")

# Inline cache entries (3.11+) that follow the opcodes of the subset.
_CACHES_311 = {"LOAD_GLOBAL": 5, "BINARY_OP": 1, "COMPARE_OP": 2, "PRECALL": 1, "CALL": 4}
_CACHES_312 = {"LOAD_GLOBAL": 4, "BINARY_OP": 1, "COMPARE_OP": 1, "CALL": 3}
_CACHES_313 = {"LOAD_GLOBAL": 4, "BINARY_OP": 1, "COMPARE_OP": 1, "CALL": 3, "TO_BOOL": 3,
               "POP_JUMP_IF_FALSE": 1, "POP_JUMP_IF_TRUE": 1}

# Opcodes outside the subset that we recognise, to say what a refused function does.
_OUTSIDE_CLASSIC = """
    DUP_TOP_TWO=5 UNARY_INVERT=15 BINARY_MATRIX_MULTIPLY=16 INPLACE_MATRIX_MULTIPLY=17 BINARY_SUBSCR=25
    STORE_SUBSCR=60 DELETE_SUBSCR=61 BINARY_LSHIFT=62 BINARY_RSHIFT=63 BINARY_AND=64 BINARY_XOR=65 BINARY_OR=66
    GET_ITER=68 GET_YIELD_FROM_ITER=69 PRINT_EXPR=70 LOAD_BUILD_CLASS=71 YIELD_FROM=72 GET_AWAITABLE=73
    INPLACE_LSHIFT=75 INPLACE_RSHIFT=76 INPLACE_AND=77 INPLACE_XOR=78 INPLACE_OR=79 IMPORT_STAR=84 YIELD_VALUE=86
    POP_BLOCK=87 POP_EXCEPT=89 STORE_NAME=90 DELETE_NAME=91 UNPACK_SEQUENCE=92 FOR_ITER=93 UNPACK_EX=94
    STORE_ATTR=95 DELETE_ATTR=96 STORE_GLOBAL=97 DELETE_GLOBAL=98 LOAD_NAME=101 BUILD_TUPLE=102 BUILD_LIST=103
    BUILD_SET=104 BUILD_MAP=105 LOAD_ATTR=106 IMPORT_NAME=108 IMPORT_FROM=109 SETUP_FINALLY=122 DELETE_FAST=126
    RAISE_VARARGS=130 MAKE_FUNCTION=132 BUILD_SLICE=133 LOAD_CLOSURE=135 STORE_DEREF=137 DELETE_DEREF=138
    CALL_FUNCTION_KW=141 SETUP_WITH=143 LIST_APPEND=145 SET_ADD=146 MAP_ADD=147 LOAD_CLASSDEREF=148"""
_OUTSIDE_UNTIL_37 = """SETUP_LOOP=120 BREAK_LOOP=80 CONTINUE_LOOP=119 SETUP_EXCEPT=121 END_FINALLY=88
    WITH_CLEANUP_START=81"""
_OUTSIDE_36_37 = """CALL_FUNCTION_EX=142 FORMAT_VALUE=155 BUILD_CONST_KEY_MAP=156 BUILD_STRING=157"""
_OUTSIDE_METHODS = "LOAD_METHOD=160 CALL_METHOD=161"
_OUTSIDE_38_PLUS = """ROT_FOUR=6 CALL_FUNCTION_EX=142 FORMAT_VALUE=155 BUILD_CONST_KEY_MAP=156 BUILD_STRING=157"""
_OUTSIDE_39_PLUS = """LOAD_ASSERTION_ERROR=74 LIST_TO_TUPLE=82 IS_OP=117 CONTAINS_OP=118 JUMP_IF_NOT_EXC_MATCH=121
    LIST_EXTEND=162 SET_UPDATE=163 DICT_MERGE=164 DICT_UPDATE=165 WITH_EXCEPT_START=49"""
_OUTSIDE_35 = _table(" ".join([_OUTSIDE_CLASSIC, _OUTSIDE_UNTIL_37,
                                "MAKE_CLOSURE=134 CALL_FUNCTION_VAR=140 CALL_FUNCTION_VAR_KW=142"]))
_OUTSIDE_36 = _table(" ".join([_OUTSIDE_CLASSIC, _OUTSIDE_UNTIL_37, _OUTSIDE_36_37]))
_OUTSIDE_37 = _table(" ".join([_OUTSIDE_CLASSIC, _OUTSIDE_UNTIL_37, _OUTSIDE_36_37, _OUTSIDE_METHODS]))
_OUTSIDE_38 = _table(" ".join([_OUTSIDE_CLASSIC, _OUTSIDE_38_PLUS, _OUTSIDE_METHODS, "BEGIN_FINALLY=53 END_FINALLY=88",
                               "WITH_CLEANUP_START=81 WITH_CLEANUP_FINISH=82 CALL_FINALLY=162 POP_FINALLY=163"]))
_OUTSIDE_39 = _table(" ".join([_OUTSIDE_CLASSIC, _OUTSIDE_38_PLUS, _OUTSIDE_METHODS, _OUTSIDE_39_PLUS, "RERAISE=48"]))
_OUTSIDE_310 = _table(" ".join([_OUTSIDE_CLASSIC, _OUTSIDE_38_PLUS, _OUTSIDE_METHODS, _OUTSIDE_39_PLUS,
                                "RERAISE=119 GEN_START=129 ROT_N=99"]))
_OUTSIDE_311 = _table("""
    UNARY_INVERT=15 BINARY_SUBSCR=25 PUSH_EXC_INFO=35 CHECK_EXC_MATCH=36 WITH_EXCEPT_START=49 BEFORE_WITH=53
    STORE_SUBSCR=60 DELETE_SUBSCR=61 GET_ITER=68 GET_YIELD_FROM_ITER=69 PRINT_EXPR=70 LOAD_BUILD_CLASS=71
    LOAD_ASSERTION_ERROR=74 RETURN_GENERATOR=75 LIST_TO_TUPLE=82 IMPORT_STAR=84 YIELD_VALUE=86 POP_EXCEPT=89
    STORE_NAME=90 DELETE_NAME=91 UNPACK_SEQUENCE=92 FOR_ITER=93 UNPACK_EX=94 STORE_ATTR=95 DELETE_ATTR=96
    STORE_GLOBAL=97 DELETE_GLOBAL=98 LOAD_NAME=101 BUILD_TUPLE=102 BUILD_LIST=103 BUILD_SET=104 BUILD_MAP=105
    LOAD_ATTR=106 IMPORT_NAME=108 IMPORT_FROM=109 IS_OP=117 CONTAINS_OP=118 RERAISE=119 SEND=123 DELETE_FAST=126
    POP_JUMP_FORWARD_IF_NOT_NONE=128 POP_JUMP_FORWARD_IF_NONE=129 RAISE_VARARGS=130 GET_AWAITABLE=131
    MAKE_FUNCTION=132 BUILD_SLICE=133 JUMP_BACKWARD_NO_INTERRUPT=134 MAKE_CELL=135 LOAD_CLOSURE=136 STORE_DEREF=138
    DELETE_DEREF=139 JUMP_BACKWARD=140 CALL_FUNCTION_EX=142 LIST_APPEND=145 SET_ADD=146 MAP_ADD=147
    LOAD_CLASSDEREF=148 FORMAT_VALUE=155 BUILD_CONST_KEY_MAP=156 BUILD_STRING=157 LOAD_METHOD=160 LIST_EXTEND=162
    SET_UPDATE=163 DICT_MERGE=164 DICT_UPDATE=165 KW_NAMES=172 POP_JUMP_BACKWARD_IF_NOT_NONE=173
    POP_JUMP_BACKWARD_IF_NONE=174 POP_JUMP_BACKWARD_IF_FALSE=175 POP_JUMP_BACKWARD_IF_TRUE=176""")
_OUTSIDE_312 = _table("""
    END_FOR=4 UNARY_INVERT=15 BINARY_SUBSCR=25 BINARY_SLICE=26 STORE_SLICE=27 PUSH_EXC_INFO=35 CHECK_EXC_MATCH=36
    WITH_EXCEPT_START=49 BEFORE_WITH=53 STORE_SUBSCR=60 DELETE_SUBSCR=61 GET_ITER=68 GET_YIELD_FROM_ITER=69
    LOAD_BUILD_CLASS=71 LOAD_ASSERTION_ERROR=74 RETURN_GENERATOR=75 POP_EXCEPT=89 STORE_NAME=90 DELETE_NAME=91
    UNPACK_SEQUENCE=92 FOR_ITER=93 UNPACK_EX=94 STORE_ATTR=95 DELETE_ATTR=96 STORE_GLOBAL=97 DELETE_GLOBAL=98
    LOAD_NAME=101 BUILD_TUPLE=102 BUILD_LIST=103 BUILD_SET=104 BUILD_MAP=105 LOAD_ATTR=106 IMPORT_NAME=108
    IMPORT_FROM=109 IS_OP=117 CONTAINS_OP=118 RERAISE=119 SEND=123 DELETE_FAST=126 POP_JUMP_IF_NOT_NONE=128
    POP_JUMP_IF_NONE=129 RAISE_VARARGS=130 GET_AWAITABLE=131 MAKE_FUNCTION=132 BUILD_SLICE=133
    JUMP_BACKWARD_NO_INTERRUPT=134 MAKE_CELL=135 LOAD_CLOSURE=136 STORE_DEREF=138 DELETE_DEREF=139 JUMP_BACKWARD=140
    LOAD_SUPER_ATTR=141 CALL_FUNCTION_EX=142 LOAD_FAST_AND_CLEAR=143 LIST_APPEND=145 SET_ADD=146 MAP_ADD=147
    YIELD_VALUE=150 FORMAT_VALUE=155 BUILD_CONST_KEY_MAP=156 BUILD_STRING=157 LIST_EXTEND=162 SET_UPDATE=163
    DICT_MERGE=164 DICT_UPDATE=165 KW_NAMES=172 CALL_INTRINSIC_2=174 LOAD_FROM_DICT_OR_DEREF=176""")
_OUTSIDE_313 = _table("""
    BEFORE_WITH=2 BINARY_SLICE=4 BINARY_SUBSCR=5 CHECK_EXC_MATCH=7 DELETE_SUBSCR=9 END_FOR=11 FORMAT_SIMPLE=14
    FORMAT_WITH_SPEC=15 GET_ITER=19 GET_YIELD_FROM_ITER=21 LOAD_ASSERTION_ERROR=23 LOAD_BUILD_CLASS=24
    MAKE_FUNCTION=26 POP_EXCEPT=31 PUSH_EXC_INFO=33 RETURN_GENERATOR=35 STORE_SLICE=38 STORE_SUBSCR=39
    UNARY_INVERT=41 WITH_EXCEPT_START=44 BUILD_CONST_KEY_MAP=46 BUILD_LIST=47 BUILD_MAP=48 BUILD_SET=49
    BUILD_SLICE=50 BUILD_STRING=51 BUILD_TUPLE=52 CALL_FUNCTION_EX=54 CALL_INTRINSIC_2=56 CALL_KW=57
    CONTAINS_OP=59 CONVERT_VALUE=60 DELETE_ATTR=63 DELETE_DEREF=64 DELETE_FAST=65 DELETE_GLOBAL=66 DELETE_NAME=67
    DICT_MERGE=68 DICT_UPDATE=69 FOR_ITER=72 GET_AWAITABLE=73 IMPORT_FROM=74 IMPORT_NAME=75 IS_OP=76
    JUMP_BACKWARD=77 JUMP_BACKWARD_NO_INTERRUPT=78 LIST_APPEND=80 LIST_EXTEND=81 LOAD_ATTR=82 LOAD_FAST_AND_CLEAR=86
    LOAD_FROM_DICT_OR_DEREF=89 LOAD_NAME=92 LOAD_SUPER_ATTR=93 MAKE_CELL=94 MAP_ADD=95 POP_JUMP_IF_NONE=98
    POP_JUMP_IF_NOT_NONE=99 RAISE_VARARGS=101 RERAISE=102 SEND=104 SET_ADD=105 SET_UPDATE=107 STORE_ATTR=108
    STORE_DEREF=109 STORE_GLOBAL=113 STORE_NAME=114 UNPACK_EX=116 UNPACK_SEQUENCE=117 YIELD_VALUE=118""")

_WHAT_OUTSIDE: Dict[str, str] = {}
for _what, _names in (
        ("attribute access", "LOAD_ATTR STORE_ATTR DELETE_ATTR LOAD_SUPER_ATTR"),
        ("a method call", "LOAD_METHOD CALL_METHOD"),
        ("a subscript", "BINARY_SUBSCR STORE_SUBSCR DELETE_SUBSCR BINARY_SLICE STORE_SLICE BUILD_SLICE"),
        ("building a container", "BUILD_TUPLE BUILD_LIST BUILD_SET BUILD_MAP BUILD_CONST_KEY_MAP "
                                 "LIST_APPEND SET_ADD MAP_ADD LIST_EXTEND SET_UPDATE DICT_UPDATE DICT_MERGE "
                                 "LIST_TO_TUPLE"),
        ("unpacking", "UNPACK_SEQUENCE UNPACK_EX"),
        ("a loop", "GET_ITER FOR_ITER END_FOR SETUP_LOOP BREAK_LOOP CONTINUE_LOOP JUMP_BACKWARD "
                   "JUMP_BACKWARD_NO_INTERRUPT POP_JUMP_BACKWARD_IF_FALSE POP_JUMP_BACKWARD_IF_TRUE "
                   "POP_JUMP_BACKWARD_IF_NONE POP_JUMP_BACKWARD_IF_NOT_NONE"),
        ("exception handling", "SETUP_EXCEPT SETUP_FINALLY POP_BLOCK POP_EXCEPT RAISE_VARARGS RERAISE PUSH_EXC_INFO "
                               "CHECK_EXC_MATCH JUMP_IF_NOT_EXC_MATCH BEGIN_FINALLY END_FINALLY CALL_FINALLY "
                               "POP_FINALLY LOAD_ASSERTION_ERROR"),
        ("a with statement", "SETUP_WITH BEFORE_WITH WITH_EXCEPT_START WITH_CLEANUP_START WITH_CLEANUP_FINISH"),
        ("an import", "IMPORT_NAME IMPORT_FROM IMPORT_STAR"),
        ("a nested function or a variable shared with one", "MAKE_FUNCTION MAKE_CLOSURE LOAD_CLOSURE MAKE_CELL "
                                                            "STORE_DEREF DELETE_DEREF LOAD_CLASSDEREF "
                                                            "LOAD_FROM_DICT_OR_DEREF"),
        ("a generator or coroutine", "YIELD_VALUE YIELD_FROM GET_YIELD_FROM_ITER RETURN_GENERATOR GEN_START SEND "
                                     "GET_AWAITABLE"),
        ("string formatting (an f-string)", "FORMAT_VALUE FORMAT_SIMPLE FORMAT_WITH_SPEC CONVERT_VALUE BUILD_STRING"),
        ("a call with keyword or star arguments", "CALL_FUNCTION_KW CALL_FUNCTION_EX CALL_FUNCTION_VAR "
                                                  "CALL_FUNCTION_VAR_KW KW_NAMES CALL_KW"),
        ("a name that is not a local variable", "STORE_GLOBAL DELETE_GLOBAL STORE_NAME LOAD_NAME DELETE_NAME "
                                                "DELETE_FAST"),
        ("an identity or membership test (is / in)", "IS_OP CONTAINS_OP POP_JUMP_IF_NONE POP_JUMP_IF_NOT_NONE "
                                                     "POP_JUMP_FORWARD_IF_NONE POP_JUMP_FORWARD_IF_NOT_NONE"),
        ("a bitwise or matrix operator", "BINARY_AND BINARY_OR BINARY_XOR BINARY_LSHIFT BINARY_RSHIFT "
                                         "BINARY_MATRIX_MULTIPLY INPLACE_AND INPLACE_OR INPLACE_XOR INPLACE_LSHIFT "
                                         "INPLACE_RSHIFT INPLACE_MATRIX_MULTIPLY UNARY_INVERT"),
        ("a class definition", "LOAD_BUILD_CLASS"),
        ("printing", "PRINT_EXPR"),
        ("stack handling the subset does not use", "DUP_TOP_TWO ROT_FOUR ROT_N LOAD_FAST_AND_CLEAR CALL_INTRINSIC_2")):
    for _op in _names.split():
        _WHAT_OUTSIDE[_op] = _what


class _Version(NamedTuple):
    """How one CPython version encodes the subset."""

    label: str
    wordcode: bool                  # 2-byte units (3.6+) or 1/3-byte instructions (3.5)
    subset: Dict[int, str]          # opcode -> name, subset only
    outside: Dict[int, str]         # opcode -> name of recognised opcodes outside the subset
    caches: Dict[str, int]          # inline cache units after an opcode (3.11+)
    jump_unit: int                  # bytes per unit of a jump argument
    absolute_jumps: frozenset       # names whose argument is a target, not a distance
    compare_shift: int              # COMPARE_OP argument >> shift = index in < <= == != > >=
    call: str                       # "classic35", "classic", "null_first" (3.11, 3.12), "null_second" (3.13)
    localsplus: bool                # LOAD_DEREF indexes varnames + cells + free variables (3.11+)


_CLASSIC_ABSOLUTE = frozenset(["JUMP_ABSOLUTE", "POP_JUMP_IF_FALSE", "POP_JUMP_IF_TRUE", "JUMP_IF_FALSE_OR_POP",
                               "JUMP_IF_TRUE_OR_POP"])
_VERSIONS = {
    "3.5": _Version("3.5", False, _SUBSET_CLASSIC, _OUTSIDE_35, {}, 1, _CLASSIC_ABSOLUTE, 0, "classic35", False),
    "3.6": _Version("3.6", True, _SUBSET_CLASSIC, _OUTSIDE_36, {}, 1, _CLASSIC_ABSOLUTE, 0, "classic", False),
    "3.7": _Version("3.7", True, _SUBSET_CLASSIC, _OUTSIDE_37, {}, 1, _CLASSIC_ABSOLUTE, 0, "classic", False),
    "3.8": _Version("3.8", True, _SUBSET_CLASSIC, _OUTSIDE_38, {}, 1, _CLASSIC_ABSOLUTE, 0, "classic", False),
    "3.9": _Version("3.9", True, _SUBSET_CLASSIC, _OUTSIDE_39, {}, 1, _CLASSIC_ABSOLUTE, 0, "classic", False),
    "3.10": _Version("3.10", True, _SUBSET_CLASSIC, _OUTSIDE_310, {}, 2, _CLASSIC_ABSOLUTE, 0, "classic", False),
    "3.11": _Version("3.11", True, _SUBSET_311, _OUTSIDE_311, _CACHES_311, 2, frozenset(), 0, "null_first", True),
    "3.12": _Version("3.12", True, _SUBSET_312, _OUTSIDE_312, _CACHES_312, 2, frozenset(), 4, "null_first", True),
    "3.13": _Version("3.13", True, _SUBSET_313, _OUTSIDE_313, _CACHES_313, 2, frozenset(), 5, "null_second", True),
}

# --- the code-object layouts cloudpickle writes --------------------------------------------------------------
_FIELDS_15 = ("argcount", "kwonlyargcount", "nlocals", "stacksize", "flags", "code", "consts", "names", "varnames",
              "filename", "name", "firstlineno", "linetable", "freevars", "cellvars")
_FIELDS_16 = _FIELDS_15[:1] + ("posonlyargcount",) + _FIELDS_15[1:]
_FIELDS_18 = _FIELDS_16[:12] + ("qualname",) + _FIELDS_16[12:14] + ("exceptiontable",) + _FIELDS_16[14:]
_LAYOUTS = {
    15: (_FIELDS_15, ("3.5", "3.6", "3.7")),
    16: (_FIELDS_16, ("3.8", "3.9", "3.10")),
    18: (_FIELDS_18, ("3.11", "3.12", "3.13")),
}
_INT_FIELDS = ("argcount", "posonlyargcount", "kwonlyargcount", "nlocals", "stacksize", "flags", "firstlineno")
_BYTES_FIELDS = ("code", "linetable", "exceptiontable")
_NAME_TUPLES = ("names", "varnames", "freevars", "cellvars")


def _code_fields(code_args: Any) -> Tuple[Dict[str, Any], Tuple[str, ...]]:
    """
    Check the ``types.CodeType`` arguments and name them.

    :param code_args: (tuple) the arguments cloudpickle stored
    :return: (dict, tuple) the fields by name, the candidate versions
    """
    if not isinstance(code_args, (tuple, list)):
        raise UnsupportedFunction("the code arguments are a {}, not a tuple".format(type(code_args).__name__))
    if len(code_args) not in _LAYOUTS:
        raise UnsupportedFunction("{} code arguments: no layout of Python 3.5 to 3.13 has that many (15, 16 or 18)"
                                  .format(len(code_args)))
    names, versions = _LAYOUTS[len(code_args)]
    fields = dict(zip(names, code_args))
    fields.setdefault("posonlyargcount", 0)
    fields.setdefault("exceptiontable", b"")
    for key in _INT_FIELDS:
        value = fields[key]
        if type(value) is not int or not 0 <= value < 2 ** 31:
            raise UnsupportedFunction("code field {} is {!r}, not a small non-negative integer".format(key, value))
    for key in _BYTES_FIELDS:
        if isinstance(fields[key], bytearray):
            fields[key] = bytes(fields[key])
        if type(fields[key]) is not bytes:
            raise UnsupportedFunction("code field {} is not bytes".format(key))
    if len(fields["code"]) > MAX_CODE_BYTES:
        raise UnsupportedFunction("the bytecode has {} bytes, more than the {} of a small arithmetic function"
                                  .format(len(fields["code"]), MAX_CODE_BYTES))
    for key in ("consts",) + _NAME_TUPLES:
        value = fields[key]
        if not isinstance(value, (tuple, list)) or len(value) > MAX_TABLE_ITEMS:
            raise UnsupportedFunction("code field {} is not a tuple of at most {} items".format(key, MAX_TABLE_ITEMS))
        fields[key] = tuple(value)
    for key in _NAME_TUPLES:
        for item in fields[key]:
            if type(item) is not str or len(item) > MAX_NAME_LENGTH:
                raise UnsupportedFunction("code field {} holds {!r}, not a name".format(key, item))
    for key in ("name", "qualname"):
        if key in fields and type(fields[key]) is not str:
            raise UnsupportedFunction("code field {} is not a string".format(key))
    return fields, versions


# --- decoding -----------------------------------------------------------------------------------------------
class _Instruction(NamedTuple):
    """One instruction, its EXTENDED_ARG prefixes folded in."""

    offset: int        # byte offset of its first unit (prefixes included)
    name: str          # subset opcode name, "" when outside the subset
    opcode: int
    arg: int
    next_offset: int   # byte offset after it and its cache units
    problem: str       # why it cannot be executed (truncated, caches not empty...), "" when fine


def _read_unit(version: _Version, code: bytes, offset: int) -> Tuple[int, Optional[int], int]:
    """:return: (int, int or None, int) opcode, argument (None when truncated), size in bytes"""
    opcode = code[offset]
    if version.wordcode:
        return opcode, code[offset + 1] if offset + 1 < len(code) else None, 2
    if opcode < 90:   # 3.5: HAVE_ARGUMENT
        return opcode, 0, 1
    if offset + 2 >= len(code):
        return opcode, None, 3
    return opcode, code[offset + 1] | code[offset + 2] << 8, 3


def _decode(version: _Version, code: bytes) -> Dict[int, _Instruction]:
    """
    Decode the whole bytecode (unknown opcodes are kept, refused only when executed).

    :param version: (_Version) the candidate version
    :param code: (bytes) co_code
    :return: (dict) instructions by byte offset
    """
    instructions = {}
    offset = 0
    shift = 8 if version.wordcode else 16
    while offset < len(code):
        start, extended, prefixes = offset, 0, 0
        while True:
            opcode, arg, size = _read_unit(version, code, offset)
            if arg is None:
                instructions[start] = _Instruction(start, "", opcode, 0, len(code), "the bytecode ends mid-instruction")
                return instructions
            name = version.subset.get(opcode, "")
            if name != "EXTENDED_ARG":
                break
            prefixes += 1
            extended = (extended | arg) << shift
            offset += size
            if offset >= len(code) or prefixes > 3:
                instructions[start] = _Instruction(start, "", opcode, 0, len(code), "a dangling EXTENDED_ARG")
                return instructions
        problem = ""
        if prefixes and not version.wordcode and opcode < 90:
            problem = "EXTENDED_ARG before an opcode without argument"
        end = offset + size + 2 * version.caches.get(name, 0)
        if end > len(code):
            problem, end = "the bytecode ends inside the cache entries of {}".format(name), len(code)
        elif any(code[offset + size:end]):
            problem = "the cache entries of {} are not empty".format(name)
        instructions[start] = _Instruction(start, name, opcode, extended | arg, end, problem)
        offset = end
    return instructions


def _outside_refusal(version: _Version, instruction: _Instruction, names: Tuple[str, ...]) -> _Refusal:
    """The refusal of an opcode outside the subset: says what it does when we know it."""
    name = version.outside.get(instruction.opcode)
    if name is None:
        return _malformed("opcode {} at offset {} is not an opcode of Python {}".format(
            instruction.opcode, instruction.offset, version.label), instruction.offset)
    detail = ""
    if name in ("LOAD_ATTR", "LOAD_METHOD", "STORE_ATTR", "IMPORT_NAME", "STORE_GLOBAL", "LOAD_SUPER_ATTR"):
        index = instruction.arg >> (1 if name == "LOAD_ATTR" and version.label in ("3.12", "3.13") else 0)
        index >>= 2 if name == "LOAD_SUPER_ATTR" else 0
        if index < len(names):
            detail = " {!r}".format(names[index])
    return _Refusal("{} ({}{}) is outside the arithmetic subset".format(_WHAT_OUTSIDE.get(name, "an operation"),
                                                                       name, detail), _OUTSIDE, instruction.offset)


# --- symbolic execution -------------------------------------------------------------------------------------
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

    def __init__(self, name: str):
        self.name = name


class _Opaque(object):
    """
    A value that is not a number (a module, a function, a string...): refused when used, as a value or called.

    :param name: (str) where it comes from (a global's name, "constant #2"...)
    :param why: (str) the refusal message when it is used as a value
    """

    __slots__ = ("name", "why")

    def __init__(self, name: str, why: str):
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
    tail = []
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


class _Path(object):
    """The state of one execution path: position, stack, local variables, facts known about tests."""

    __slots__ = ("offset", "stack", "slots", "pending", "known", "branches")

    def __init__(self, offset: int, stack: list, slots: list, pending: list, known: dict, branches: int):
        self.offset = offset
        self.stack = stack
        self.slots = slots
        self.pending = pending      # computed nodes Python has evaluated but no emitted node evaluates yet
        self.known = known          # test expression -> truth, for tests already taken on this path
        self.branches = branches

    def split(self, offset: int) -> "_Path":
        """:return: (_Path) a copy continuing at ``offset``, nothing pending"""
        return _Path(offset, list(self.stack), list(self.slots), [], dict(self.known), self.branches + 1)


class _Environment(NamedTuple):
    """What a function sees besides its code: closure values, globals, parameter count."""

    closure: Tuple[Any, ...]        # const node or _Opaque per free variable
    globals_: Mapping[str, Any]
    parameter_count: int


class _Executor(object):
    """
    Runs one candidate version's decoding of the bytecode on symbolic values, all paths, and returns the
    expression the function computes.

    :param version: (_Version) the candidate version
    :param fields: (dict) the code fields
    :param environment: (_Environment) closure, globals, parameters
    """

    def __init__(self, version: _Version, fields: Dict[str, Any], environment: _Environment):
        self.version = version
        self.fields = fields
        self.environment = environment
        self.instructions = _decode(version, fields["code"])
        self.steps = 0
        self.measures = {}       # id(node) -> (size, depth) of every node built
        self.keep_alive = []     # the nodes of self.measures, so their ids stay theirs
        self.depth_at = {}       # offset -> stack depth the first time it was reached
        self.const_nodes = {}
        self.handlers = self._handlers()

    # -- entry point
    def run(self) -> tuple:
        """:return: (tuple) the expression"""
        count = self.environment.parameter_count
        slots = [("arg", index) for index in range(count)]
        slots += [None] * (len(self.fields["varnames"]) - count)
        return self._run(_Path(0, [], slots, [], {}, 0))

    def _run(self, path: _Path) -> tuple:
        while True:
            self.steps += 1
            if self.steps > MAX_STEPS:
                raise _Refusal("the function has too many branches (more than {} instructions to follow)"
                               .format(MAX_STEPS))
            instruction = self.instructions.get(path.offset)
            if instruction is None:
                raise _malformed("execution reaches offset {}, which is not the start of an instruction"
                                 .format(path.offset), path.offset)
            if instruction.problem:
                raise _malformed("{} at offset {}".format(instruction.problem, instruction.offset), path.offset)
            if self.depth_at.setdefault(path.offset, len(path.stack)) != len(path.stack):
                raise _malformed("the stack depth at offset {} differs between paths".format(path.offset),
                                 path.offset)
            if not instruction.name:
                raise _outside_refusal(self.version, instruction, self.fields["names"])
            path.offset = instruction.next_offset
            result = self.handlers[instruction.name](path, instruction)
            if result is not None:
                return result

    # -- stack and nodes
    def _pop(self, path: _Path, instruction: _Instruction, count: int = 1) -> list:
        if len(path.stack) < count:
            raise _malformed("stack underflow at offset {}".format(instruction.offset), instruction.offset)
        values = path.stack[len(path.stack) - count:]
        del path.stack[len(path.stack) - count:]
        return values

    def _push(self, path: _Path, instruction: _Instruction, *values: Any) -> None:
        path.stack.extend(values)
        if len(path.stack) > min(MAX_STACK, max(self.fields["stacksize"], 1)):
            raise _malformed("the stack grows beyond the declared stack size at offset {}".format(instruction.offset),
                             instruction.offset)

    def _value(self, value: Any, instruction: _Instruction) -> tuple:
        """The expression of a stack value used as a number."""
        if isinstance(value, tuple):
            return value
        if isinstance(value, _Opaque):
            raise _Refusal(value.why, _OUTSIDE, instruction.offset)
        if isinstance(value, _Builtin):
            raise _Refusal("the builtin {} is used as a value; only calls of it are supported".format(value.name),
                           _OUTSIDE, instruction.offset)
        raise _malformed("a NULL is used as a value at offset {}".format(instruction.offset), instruction.offset)

    def _measure(self, node: tuple) -> Tuple[int, int]:
        known = self.measures.get(id(node))
        if known is not None:
            return known
        if node[0] in _LEAVES:
            return 1, 1
        raise _malformed("an expression node was not built by the executor")

    def _node(self, node: tuple, instruction: _Instruction) -> tuple:
        """Register a new node, refusing it when the expression becomes too large or deep."""
        size, depth = 1, 0
        for child in _children(node):
            child_size, child_depth = self._measure(child)
            size += child_size
            depth = max(depth, child_depth)
        if size > MAX_NODES:
            raise _Refusal("the expression has more than {} operations".format(MAX_NODES), _OUTSIDE,
                           instruction.offset)
        if depth + 1 > MAX_DEPTH:
            raise _Refusal("the expression is nested more than {} levels deep".format(MAX_DEPTH), _OUTSIDE,
                           instruction.offset)
        self.measures[id(node)] = (size, depth + 1)
        self.keep_alive.append(node)
        return node

    def _compute(self, path: _Path, instruction: _Instruction, node: tuple, operands: Sequence[Any]) -> tuple:
        """Build an operation node and note that Python evaluates it here."""
        node = self._node(node, instruction)
        _drop_evaluated(path.pending, operands)
        path.pending.append(node)
        return node

    def _finish(self, path: _Path, instruction: _Instruction, value: Any) -> tuple:
        """The result of a path that returns ``value``."""
        node = self._value(value, instruction)
        _drop_evaluated(path.pending, [node])
        if path.pending:
            node = self._node(("seq", tuple(path.pending), node), instruction)
        return node

    # -- loads and stores
    def _const(self, index: int, instruction: _Instruction) -> Any:
        """The node of a numeric constant, or an _Opaque marker refused when used (a string, a code object...)."""
        consts = self.fields["consts"]
        if index >= len(consts):
            raise _malformed("constant index {} out of range at offset {}".format(index, instruction.offset),
                             instruction.offset)
        node = self.const_nodes.get(index)
        if node is None:
            value = _plain_number(consts[index])
            if value is UNSUPPORTED:
                node = _Opaque("constant #{}".format(index), "constant #{} is {}, not a number".format(
                    index, _describe(consts[index])))
            else:
                node = ("const", value)
            self.const_nodes[index] = node
        return node

    def _slot_index(self, index: int, instruction: _Instruction) -> int:
        if index >= len(self.fields["varnames"]):
            raise _malformed("local variable index {} out of range at offset {}".format(index, instruction.offset),
                             instruction.offset)
        return index

    def _load_local(self, path: _Path, instruction: _Instruction, index: int) -> None:
        value = path.slots[self._slot_index(index, instruction)]
        if value is None:
            raise _Refusal("local variable {!r} may be used before it is assigned".format(
                self.fields["varnames"][index]), _OUTSIDE, instruction.offset)
        self._push(path, instruction, value)

    def _store_local(self, path: _Path, instruction: _Instruction, index: int) -> None:
        path.slots[self._slot_index(index, instruction)] = self._pop(path, instruction)[0]

    def _free_variable(self, index: int, instruction: _Instruction) -> Any:
        cellvars, freevars = self.fields["cellvars"], self.fields["freevars"]
        if self.version.localsplus:
            varnames = self.fields["varnames"]
            first_free = len(varnames) + sum(1 for name in cellvars if name not in varnames)
        else:
            first_free = len(cellvars)
        if index < first_free:
            raise _Refusal("a variable shared with a nested function (LOAD_DEREF {}) is outside the arithmetic "
                           "subset".format(index), _OUTSIDE, instruction.offset)
        if index - first_free >= len(freevars):
            raise _malformed("free variable index {} out of range at offset {}".format(index, instruction.offset),
                             instruction.offset)
        return self.environment.closure[index - first_free]

    def _global(self, index: int, instruction: _Instruction) -> Any:
        names = self.fields["names"]
        if index >= len(names):
            raise _malformed("name index {} out of range at offset {}".format(index, instruction.offset),
                             instruction.offset)
        name = names[index]
        globals_ = self.environment.globals_
        if name in globals_:
            value = _plain_number(globals_[name])
            if value is UNSUPPORTED:
                return _Opaque(name, "the global {!r} is {}".format(name, _describe(globals_[name])))
            return ("const", value)
        if name in _BUILTIN_NAMES:
            return _Builtin(name)
        return _Opaque(name, "the name {!r} is neither a captured global number nor one of the builtins {}"
                       .format(name, ", ".join(_BUILTIN_NAMES)))

    # -- handlers
    def _handlers(self) -> Dict[str, Callable[[_Path, _Instruction], Optional[tuple]]]:
        handlers = {
            "NOP": self._nothing, "RESUME": self._nothing, "PRECALL": self._nothing,
            "CACHE": self._cache, "COPY_FREE_VARS": self._copy_free_vars,
            "POP_TOP": self._pop_top, "ROT_TWO": self._rot_two, "ROT_THREE": self._rot_three,
            "DUP_TOP": self._dup_top, "COPY": self._copy, "SWAP": self._swap, "PUSH_NULL": self._push_null,
            "LOAD_CONST": self._load_const, "RETURN_CONST": self._return_const, "RETURN_VALUE": self._return_value,
            "LOAD_FAST": self._load_fast, "LOAD_FAST_CHECK": self._load_fast, "STORE_FAST": self._store_fast,
            "LOAD_FAST_LOAD_FAST": self._load_fast_load_fast, "STORE_FAST_LOAD_FAST": self._store_fast_load_fast,
            "STORE_FAST_STORE_FAST": self._store_fast_store_fast,
            "LOAD_DEREF": self._load_deref, "LOAD_GLOBAL": self._load_global,
            "UNARY_NEGATIVE": self._unary("-"), "UNARY_POSITIVE": self._unary("+"), "UNARY_NOT": self._unary_not,
            "TO_BOOL": self._to_bool, "CALL_INTRINSIC_1": self._intrinsic,
            "BINARY_OP": self._binary_op, "COMPARE_OP": self._compare,
            "CALL_FUNCTION": self._call_function, "CALL": self._call,
            "JUMP_FORWARD": self._jump, "JUMP_ABSOLUTE": self._jump,
            "POP_JUMP_IF_FALSE": self._pop_jump(False), "POP_JUMP_IF_TRUE": self._pop_jump(True),
            "POP_JUMP_FORWARD_IF_FALSE": self._pop_jump(False), "POP_JUMP_FORWARD_IF_TRUE": self._pop_jump(True),
            "JUMP_IF_FALSE_OR_POP": self._jump_or_pop(False), "JUMP_IF_TRUE_OR_POP": self._jump_or_pop(True),
        }
        for name, symbol in _BINARY_NAMES.items():
            handlers[name] = self._binary(symbol)
        return handlers

    def _nothing(self, path: _Path, instruction: _Instruction) -> None:
        return None

    def _cache(self, path: _Path, instruction: _Instruction) -> None:
        raise _malformed("execution reaches a cache entry at offset {}".format(instruction.offset), instruction.offset)

    def _copy_free_vars(self, path: _Path, instruction: _Instruction) -> None:
        if instruction.arg != len(self.fields["freevars"]):
            raise _malformed("COPY_FREE_VARS {} for {} free variables".format(
                instruction.arg, len(self.fields["freevars"])), instruction.offset)

    def _pop_top(self, path: _Path, instruction: _Instruction) -> None:
        self._pop(path, instruction)

    def _rot_two(self, path: _Path, instruction: _Instruction) -> None:
        first, second = self._pop(path, instruction, 2)
        path.stack.extend((second, first))

    def _rot_three(self, path: _Path, instruction: _Instruction) -> None:
        first, second, third = self._pop(path, instruction, 3)
        path.stack.extend((third, first, second))

    def _dup_top(self, path: _Path, instruction: _Instruction) -> None:
        top = self._pop(path, instruction)[0]
        path.stack.append(top)
        self._push(path, instruction, top)

    def _copy(self, path: _Path, instruction: _Instruction) -> None:
        if not 1 <= instruction.arg <= len(path.stack):
            raise _malformed("COPY {} with {} values on the stack".format(instruction.arg, len(path.stack)),
                             instruction.offset)
        self._push(path, instruction, path.stack[-instruction.arg])

    def _swap(self, path: _Path, instruction: _Instruction) -> None:
        if not 2 <= instruction.arg <= len(path.stack):
            raise _malformed("SWAP {} with {} values on the stack".format(instruction.arg, len(path.stack)),
                             instruction.offset)
        stack, other = path.stack, -instruction.arg
        stack[-1], stack[other] = stack[other], stack[-1]

    def _push_null(self, path: _Path, instruction: _Instruction) -> None:
        self._push(path, instruction, _NULL)

    def _load_const(self, path: _Path, instruction: _Instruction) -> None:
        self._push(path, instruction, self._const(instruction.arg, instruction))

    def _return_const(self, path: _Path, instruction: _Instruction) -> tuple:
        return self._finish(path, instruction, self._const(instruction.arg, instruction))

    def _return_value(self, path: _Path, instruction: _Instruction) -> tuple:
        return self._finish(path, instruction, self._pop(path, instruction)[0])

    def _load_fast(self, path: _Path, instruction: _Instruction) -> None:
        self._load_local(path, instruction, instruction.arg)

    def _store_fast(self, path: _Path, instruction: _Instruction) -> None:
        self._store_local(path, instruction, instruction.arg)

    def _load_fast_load_fast(self, path: _Path, instruction: _Instruction) -> None:
        self._load_local(path, instruction, instruction.arg >> 4)
        self._load_local(path, instruction, instruction.arg & 15)

    def _store_fast_load_fast(self, path: _Path, instruction: _Instruction) -> None:
        self._store_local(path, instruction, instruction.arg >> 4)
        self._load_local(path, instruction, instruction.arg & 15)

    def _store_fast_store_fast(self, path: _Path, instruction: _Instruction) -> None:
        self._store_local(path, instruction, instruction.arg >> 4)
        self._store_local(path, instruction, instruction.arg & 15)

    def _load_deref(self, path: _Path, instruction: _Instruction) -> None:
        self._push(path, instruction, self._free_variable(instruction.arg, instruction))

    def _load_global(self, path: _Path, instruction: _Instruction) -> None:
        if self.version.call in ("classic", "classic35"):
            self._push(path, instruction, self._global(instruction.arg, instruction))
            return
        value = self._global(instruction.arg >> 1, instruction)
        if not instruction.arg & 1:
            self._push(path, instruction, value)
        elif self.version.call == "null_first":
            self._push(path, instruction, _NULL, value)
        else:
            self._push(path, instruction, value, _NULL)

    def _unary(self, symbol: str) -> Callable[[_Path, _Instruction], None]:
        def handler(path: _Path, instruction: _Instruction) -> None:
            operand = self._pop(path, instruction)[0]
            node = ("unary", symbol, self._value(operand, instruction))
            path.stack.append(self._compute(path, instruction, node, [operand]))
        return handler

    def _unary_not(self, path: _Path, instruction: _Instruction) -> None:
        operand = self._pop(path, instruction)[0]
        node = ("unary", "not", _test_of(self._value(operand, instruction)))
        path.stack.append(self._compute(path, instruction, node, [operand]))

    def _to_bool(self, path: _Path, instruction: _Instruction) -> None:
        operand = self._pop(path, instruction)[0]
        value = self._value(operand, instruction)
        if value[0] in _TRUTH_VALUED or value[0] == "unary" and value[1] in ("not", "bool") or \
                value[0] == "const" and type(value[1]) is bool:
            path.stack.append(value)
            return
        path.stack.append(self._compute(path, instruction, ("unary", "bool", value), [operand]))

    def _intrinsic(self, path: _Path, instruction: _Instruction) -> None:
        if instruction.arg != _INTRINSIC_UNARY_POSITIVE:
            raise _Refusal("the intrinsic function #{} (CALL_INTRINSIC_1) is outside the arithmetic subset"
                           .format(instruction.arg), _OUTSIDE, instruction.offset)
        self._unary("+")(path, instruction)

    def _binary(self, symbol: str) -> Callable[[_Path, _Instruction], None]:
        def handler(path: _Path, instruction: _Instruction) -> None:
            left, right = self._pop(path, instruction, 2)
            node = ("binary", symbol, self._value(left, instruction), self._value(right, instruction))
            path.stack.append(self._compute(path, instruction, node, [left, right]))
        return handler

    def _binary_op(self, path: _Path, instruction: _Instruction) -> None:
        symbol = _BINARY_OP_ARGS.get(instruction.arg)
        if symbol is None:
            other = _BINARY_OP_OTHERS.get(instruction.arg % 13) if instruction.arg < 26 else None
            if other is None:
                raise _malformed("BINARY_OP {} at offset {}".format(instruction.arg, instruction.offset),
                                 instruction.offset)
            raise _Refusal("the operator {} (BINARY_OP {}) is outside the arithmetic subset".format(
                other, instruction.arg), _OUTSIDE, instruction.offset)
        self._binary(symbol)(path, instruction)

    def _compare(self, path: _Path, instruction: _Instruction) -> None:
        index = instruction.arg >> self.version.compare_shift
        if index >= len(_COMPARISONS):
            if self.version.compare_shift == 0 and index <= 10:
                raise _Refusal("an identity, membership or exception test (COMPARE_OP {}) is outside the "
                               "arithmetic subset".format(index), _OUTSIDE, instruction.offset)
            raise _malformed("COMPARE_OP {} at offset {}".format(instruction.arg, instruction.offset),
                             instruction.offset)
        left, right = self._pop(path, instruction, 2)
        node = ("compare", _COMPARISONS[index], self._value(left, instruction), self._value(right, instruction))
        path.stack.append(self._compute(path, instruction, node, [left, right]))

    def _call_builtin(self, path: _Path, instruction: _Instruction, function: Any, arguments: list) -> None:
        if isinstance(function, _Opaque):
            raise _Refusal("it calls {!r}, which is not one of the builtins {} (the only calls supported)".format(
                function.name, ", ".join(_BUILTIN_NAMES)), _OUTSIDE, instruction.offset)
        if not isinstance(function, _Builtin):
            raise _Refusal("it calls a value that is not one of the builtins {}".format(", ".join(_BUILTIN_NAMES)),
                           _OUTSIDE, instruction.offset)
        if len(arguments) > MAX_CALL_ARGS:
            raise _Refusal("a call with {} arguments".format(len(arguments)), _OUTSIDE, instruction.offset)
        values = tuple(self._value(argument, instruction) for argument in arguments)
        path.stack.append(self._compute(path, instruction, ("call", function.name, values), arguments))

    def _call_function(self, path: _Path, instruction: _Instruction) -> None:
        count = instruction.arg
        if self.version.call == "classic35":
            if count >> 8:
                raise _Refusal("a call with keyword arguments (CALL_FUNCTION {:#x}) is outside the arithmetic subset"
                               .format(count), _OUTSIDE, instruction.offset)
            count &= 0xff
        values = self._pop(path, instruction, count + 1)
        self._call_builtin(path, instruction, values[0], values[1:])

    def _call(self, path: _Path, instruction: _Instruction) -> None:
        values = self._pop(path, instruction, instruction.arg + 2)
        first, second = values[0], values[1]
        if self.version.call == "null_first":
            null, function = first, second
        else:
            function, null = first, second
        if null is not _NULL:
            raise _Refusal("a method call (CALL with a bound object) is outside the arithmetic subset", _OUTSIDE,
                           instruction.offset)
        self._call_builtin(path, instruction, function, values[2:])

    # -- jumps
    def _target_offset(self, instruction: _Instruction) -> int:
        distance = instruction.arg * self.version.jump_unit
        if instruction.name in self.version.absolute_jumps:
            return distance
        return instruction.next_offset + distance

    def unreachable_count(self) -> int:
        """
        :return: (int) the instructions no path reaches, following every jump both ways. Compilers of 3.8+
            leave no dead code, so a reading of the bytecode that does is the wrong version's.
        """
        reached, todo = set(), [0]
        while todo:
            offset = todo.pop()
            instruction = self.instructions.get(offset)
            if instruction is None or offset in reached:
                continue
            reached.add(offset)
            if instruction.name in _JUMPS:
                todo.append(self._target_offset(instruction))
            if instruction.name not in _ENDS_BLOCK:
                todo.append(instruction.next_offset)
        return sum(1 for offset, instruction in self.instructions.items()
                   if offset not in reached and instruction.name != "CACHE")

    def defects(self) -> int:
        """:return: (int) instructions that decode to nothing known (likely the wrong version)"""
        return sum(1 for instruction in self.instructions.values() if instruction.problem or
                   not instruction.name and instruction.opcode not in self.version.outside)

    def _target(self, instruction: _Instruction) -> int:
        target = self._target_offset(instruction)
        if target <= instruction.offset:
            raise _Refusal("a backward jump (a loop) at offset {} is outside the arithmetic subset".format(
                instruction.offset), _OUTSIDE, instruction.offset)
        found = self.instructions.get(target)
        if found is None or found.name == "CACHE":
            raise _malformed("a jump at offset {} to offset {}, which is not an instruction".format(
                instruction.offset, target), instruction.offset)
        return target

    def _jump(self, path: _Path, instruction: _Instruction) -> None:
        path.offset = self._target(instruction)

    def _pop_jump(self, jump_if: bool) -> Callable[[_Path, _Instruction], Optional[tuple]]:
        def handler(path: _Path, instruction: _Instruction) -> Optional[tuple]:
            value = self._pop(path, instruction)[0]
            return self._branch(path, instruction, value, jump_if, keep_on_jump=False)
        return handler

    def _jump_or_pop(self, jump_if: bool) -> Callable[[_Path, _Instruction], Optional[tuple]]:
        def handler(path: _Path, instruction: _Instruction) -> Optional[tuple]:
            value = self._pop(path, instruction)[0]
            return self._branch(path, instruction, value, jump_if, keep_on_jump=True)
        return handler

    def _branch(self, path: _Path, instruction: _Instruction, value: Any, jump_if: bool,
                keep_on_jump: bool) -> Optional[tuple]:
        """
        A conditional jump: follow the branch already decided on this path, or both.

        :param value: (Any) the tested stack value (already popped)
        :param jump_if: (bool) the truth value that jumps
        :param keep_on_jump: (bool) the value stays on the stack when jumping (``and`` / ``or``)
        :return: (tuple or None) the expression of the rest of the function when both branches were followed
        """
        target = self._target(instruction)
        test = _test_of(self._value(value, instruction))
        truth = path.known.get(test)
        if truth is None and test[0] == "const":
            truth = bool(test[1])
        if truth is not None:
            _drop_evaluated(path.pending, [value])
            if truth == jump_if:
                path.offset = target
                if keep_on_jump:
                    path.stack.append(value)
            return None
        if path.branches >= MAX_BRANCH_DEPTH:
            raise _Refusal("more than {} nested conditions".format(MAX_BRANCH_DEPTH), _OUTSIDE, instruction.offset)
        _drop_evaluated(path.pending, [value])
        evaluated = tuple(path.pending)
        jumped, fell = path.split(target), path.split(instruction.next_offset)
        if keep_on_jump:
            jumped.stack.append(value)
        jumped.known[test], fell.known[test] = jump_if, not jump_if
        when_jumping, when_falling = self._run(jumped), self._run(fell)
        if jump_if:
            node = ("if", test, when_jumping, when_falling)
        else:
            node = ("if", test, when_falling, when_jumping)
        node = self._node(node, instruction)
        if evaluated:
            node = self._node(("seq", evaluated, node), instruction)
        return node


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


_BINARY_FUNCTIONS = {
    "+": _guarded(operator.add), "-": _guarded(operator.sub), "*": _guarded(operator.mul),
    "/": operator.truediv, "//": operator.floordiv, "%": operator.mod, "**": _power,
}
_COMPARE_FUNCTIONS = {"<": operator.lt, "<=": operator.le, "==": operator.eq, "!=": operator.ne,
                      ">": operator.gt, ">=": operator.ge}
_UNARY_FUNCTIONS = {"-": operator.neg, "+": operator.pos, "not": operator.not_, "bool": bool}
_BUILTIN_FUNCTIONS = {"abs": abs, "float": float, "int": _guarded(int), "max": max, "min": min,
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


# --- the function -------------------------------------------------------------------------------------------
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

    def __init__(self, state: Mapping[str, Any]):
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


# --- compiling ----------------------------------------------------------------------------------------------
def _closure_values(fields: Dict[str, Any], closure: Sequence[Any]) -> Tuple[Any, ...]:
    """:return: (tuple) per free variable, a const node or an _Opaque marker (refused when used)"""
    freevars = fields["freevars"]
    if len(closure) != len(freevars):
        raise UnsupportedFunction("the closure has {} cells for {} free variables".format(len(closure), len(freevars)))
    values = []
    for name, value in zip(freevars, closure):
        plain = UNSUPPORTED if value is EMPTY_CELL else _plain_number(value)
        if plain is UNSUPPORTED:
            values.append(_Opaque(name, "the closure variable {!r} is {}".format(name, _describe(value))))
        else:
            values.append(("const", plain))
    return tuple(values)


def _signature(fields: Dict[str, Any], defaults: Optional[tuple],
               kwdefaults: Optional[Mapping[str, Any]]) -> Tuple[tuple, int, int, tuple, dict]:
    """:return: (tuple) parameter names, positional count, positional-only count, defaults, keyword defaults"""
    flags = fields["flags"]
    if flags & (_CO_VARARGS | _CO_VARKEYWORDS):
        raise UnsupportedFunction("*args / **kwargs parameters are outside the arithmetic subset")
    if flags & _CO_GENERATOR_LIKE:
        raise UnsupportedFunction("a generator or coroutine is outside the arithmetic subset")
    positional, posonly = fields["argcount"], fields["posonlyargcount"]
    count = positional + fields["kwonlyargcount"]
    if posonly > positional or count > len(fields["varnames"]):
        raise UnsupportedFunction("inconsistent parameter counts in the code fields")
    parameters = tuple(_checked_name(name) for name in fields["varnames"][:count])
    defaults = tuple(defaults or ())
    if len(defaults) > positional:
        raise UnsupportedFunction("{} defaults for {} positional parameters".format(len(defaults), positional))
    first_default = positional - len(defaults)
    defaults = tuple(_check_plain(value, "the default of parameter {!r}".format(parameters[first_default + i]))
                     for i, value in enumerate(defaults))
    kwdefaults = dict(kwdefaults or {})
    if not set(kwdefaults) <= set(parameters[positional:]):
        raise UnsupportedFunction("keyword defaults {} for unknown keyword-only parameters".format(
            sorted(map(str, kwdefaults)))[:200])
    kwdefaults = {name: _check_plain(value, "the default of parameter {!r}".format(name))
                  for name, value in kwdefaults.items()}
    return parameters, positional, posonly, defaults, kwdefaults


def _line_table_allows(version: str, fields: Dict[str, Any]) -> bool:
    """
    Whether the line table fits a version: a 3.10 ``co_linetable`` covers the whole bytecode, which a
    3.8 / 3.9 ``co_lnotab`` never does (its last entry starts the last line). cloudpickle < 2 stored
    ``co_lnotab`` on 3.10 too, so only the full cover is conclusive.
    """
    table, code = fields["linetable"], fields["code"]
    covers_code = len(code) > 0 and sum(table[0::2]) == len(code)
    return version == "3.10" or not covers_code


class _Reading(NamedTuple):
    """The outcome of reading the bytecode as one version's."""

    version: str
    expression: Optional[tuple]     # None when refused
    refusal: Optional[_Refusal]
    defects: int                    # instructions that decode to nothing known
    unreachable: int                # instructions no path reaches


def _read_as(label: str, fields: Dict[str, Any], environment: _Environment) -> _Reading:
    if not _line_table_allows(label, fields):
        return _Reading(label, None, _malformed("the line table does not fit Python {}".format(label)), 0, 0)
    executor = _Executor(_VERSIONS[label], fields, environment)
    try:
        expression = executor.run()
    except _Refusal as refusal:
        return _Reading(label, None, refusal, executor.defects(), 0)
    except RecursionError:
        return _Reading(label, None, _Refusal("the function is nested too deeply"), executor.defects(), 0)
    return _Reading(label, expression, None, 0, executor.unreachable_count())


def _chosen_expression(qualname: str, readings: List[_Reading]) -> Tuple[tuple, Tuple[str, ...]]:
    """
    The expression all valid readings agree on (when they disagree, those leaving dead code are dropped first).

    :return: (tuple, tuple) the expression, the versions that gave it
    :raises UnsupportedFunction: when no reading is valid, or valid readings disagree
    """
    valid = [reading for reading in readings if reading.expression is not None]
    if not valid:
        def plausibility(reading: _Reading) -> tuple:
            return reading.refusal.rank, -reading.defects, reading.refusal.offset
        best = max(readings, key=plausibility)
        alike = [reading.version for reading in readings
                 if plausibility(reading) == plausibility(best) and str(reading.refusal) == str(best.refusal)]
        raise UnsupportedFunction("cannot rebuild function {!r}: {} (read as Python {} bytecode)".format(
            qualname, best.refusal, " / ".join(alike)))
    if len({_expression_key(reading.expression) for reading in valid}) > 1:
        fewest = min(reading.unreachable for reading in valid)
        valid = [reading for reading in valid if reading.unreachable == fewest]
    if len({_expression_key(reading.expression) for reading in valid}) > 1:
        raise UnsupportedFunction("cannot rebuild function {!r}: its bytecode reads differently as Python {}, and "
                                  "the file does not say which wrote it".format(
                                      qualname, " and ".join(reading.version for reading in valid)))
    return valid[0].expression, tuple(reading.version for reading in valid)


def compile_function(code_args: tuple, closure: Sequence[Any] = (), globals_: Optional[Mapping[str, Any]] = None,
                     defaults: Optional[tuple] = None, kwdefaults: Optional[Mapping[str, Any]] = None,
                     name: Optional[str] = None, qualname: Optional[str] = None) -> ArithmeticFunction:
    """
    Rebuild a function cloudpickle stored, without running any of it.

    :param code_args: (tuple) the arguments cloudpickle passed to ``types.CodeType`` (15, 16 or 18 items)
    :param closure: (sequence) the closure cell values in ``co_freevars`` order (EMPTY_CELL for an empty cell)
    :param globals_: (mapping) the globals cloudpickle captured (name -> number, None, str or UNSUPPORTED)
    :param defaults: (tuple) the positional defaults (``__defaults__``)
    :param kwdefaults: (mapping) the keyword-only defaults (``__kwdefaults__``)
    :param name: (str) the function's ``__name__`` (default: the code's name)
    :param qualname: (str) the function's ``__qualname__`` (default: the code's qualname, or the name)
    :return: (ArithmeticFunction) the function
    :raises UnsupportedFunction: when the function leaves the arithmetic subset or its code is malformed
    """
    fields, versions = _code_fields(code_args)
    name = name if isinstance(name, str) else fields["name"]
    qualname = qualname if isinstance(qualname, str) else fields.get("qualname", name)
    for what, value, kinds in (("closure", closure, (tuple, list)), ("defaults", defaults, (tuple, list)),
                               ("keyword defaults", kwdefaults, Mapping), ("globals", globals_, Mapping)):
        if value is not None and not isinstance(value, kinds):
            raise UnsupportedFunction("cannot rebuild function {!r}: its {} are {}".format(
                qualname, what, _describe(value)))
    try:
        parameters, positional, posonly, defaults, kwdefaults = _signature(fields, defaults, kwdefaults)
        if fields["exceptiontable"]:
            raise UnsupportedFunction("exception handling (try / with) is outside the arithmetic subset")
        environment = _Environment(_closure_values(fields, closure or ()), dict(globals_ or {}), len(parameters))
    except UnsupportedFunction as error:
        raise UnsupportedFunction("cannot rebuild function {!r}: {}".format(qualname, error)) from None
    expression, labels = _chosen_expression(qualname, [_read_as(label, fields, environment) for label in versions])
    return ArithmeticFunction({
        "format": 1, "name": name, "qualname": qualname, "parameters": parameters, "positional": positional,
        "posonly": posonly, "defaults": defaults, "kwdefaults": kwdefaults, "expression": expression,
        "bytecode_versions": labels})
