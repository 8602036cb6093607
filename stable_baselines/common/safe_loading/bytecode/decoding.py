"""Opcode tables of CPython 3.5 to 3.13 and the decoding of cloudpickled code arguments into instructions."""
from typing import Any, Dict, NamedTuple, Optional, Tuple

from stable_baselines.common.safe_loading.bytecode.values import (
    _malformed, MAX_CODE_BYTES, MAX_NAME_LENGTH, MAX_TABLE_ITEMS, _OUTSIDE, _Refusal, UnsupportedFunction)


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
