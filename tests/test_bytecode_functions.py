"""
Tests of stable_baselines.common.safe_loading.bytecode: functions stored by cloudpickle are rebuilt from their
bytecode by our evaluator, never run.

The main fixtures were written by the real interpreters 3.6 ... 3.13 with real cloudpickle releases
(tests/data/pickled_functions/make_fixtures.py): for each function, the exact ``types.CodeType`` arguments and
what the interpreter itself returned on sample inputs. Python 3.5 bytecode (no interpreter here) is assembled by
hand below.
"""
import copyreg
import glob
import gzip
import io
import json
import math
import operator
import os
import pickle
import random
import sys
import time
import types
import warnings

import numpy as np
import pytest

from stable_baselines.common.safe_loading import bytecode
from stable_baselines.common.safe_loading.bytecode import EMPTY_CELL, UNSUPPORTED, ArithmeticFunction, \
    UnsupportedFunction, compile_function

FIXTURES = os.path.join(os.path.dirname(__file__), "data", "pickled_functions")
FIXTURE_FILES = sorted(glob.glob(os.path.join(FIXTURES, "py3*_cp*.json.gz")))
OPCODE_FILES = sorted(glob.glob(os.path.join(FIXTURES, "py3*_opcodes.json")))

# what the refusal message of each kind of function outside the subset must mention (one of)
REFUSAL_WORDS = {
    "attribute": ("attribute access", "method call"),
    "call": ("it calls",),
    "loop": ("loop", "'range'"),
    "container": ("building a container", "subscript"),
    "generator": ("generator",),
    "exception": ("exception handling",),
    "format": ("string formatting",),
    "nested": ("nested function",),
}


# --- reading the fixtures -----------------------------------------------------------------------------------
def decode(value):
    """The typed JSON of make_fixtures.encode back to a value (non-plain values become UNSUPPORTED)."""
    if isinstance(value, dict):
        if "b" in value:
            return bytes.fromhex(value["b"])
        if "t" in value:
            return tuple(decode(item) for item in value["t"])
        if "c" in value:
            return complex(*value["c"])
        if "empty" in value:
            return EMPTY_CELL
        return UNSUPPORTED
    return value


def load_fixture(path):
    with gzip.open(path) as stream:
        return json.loads(stream.read().decode("utf-8"))


def python_of(path):
    """:return: (str) "3.11" for .../py311_cp3.1.1.json.gz"""
    digits = os.path.basename(path)[2:].split("_")[0]
    return digits[0] + "." + digits[1:]


def build(entry):
    return compile_function(
        tuple(decode(arg) for arg in entry["code_args"]),
        closure=[decode(value) for value in entry["closure"]],
        globals_={name: decode(value) for name, value in entry["globals"].items()},
        defaults=None if entry["defaults"] is None else tuple(decode(value) for value in entry["defaults"]),
        kwdefaults=None if entry["kwdefaults"] is None else
        {name: decode(value) for name, value in entry["kwdefaults"].items()},
        name=entry["name"], qualname=entry["qualname"])


def identical(actual, expected):
    """
    Same type and same value, floats bit for bit. Any NaN equals any NaN: CPython itself does not keep the sign of
    a NaN stable (its specialised float instructions may swap the operands of ``+``).
    """
    if type(actual) is not type(expected):
        return False
    if isinstance(actual, (float, np.floating)):
        if np.isnan(actual) and np.isnan(expected):
            return True
        return np.asarray(actual).tobytes() == np.asarray(expected).tobytes()
    if isinstance(actual, complex):
        return identical(actual.real, expected.real) and identical(actual.imag, expected.imag)
    return bool(actual == expected)


def outcome(function, *args):
    """:return: ("value", result) or ("raises", exception type name)"""
    try:
        return "value", function(*args)
    except Exception as error:  # compared with what the real function does
        return "raises", type(error).__name__


def same_outcome(ours, theirs):
    if ours[0] != theirs[0]:
        return False
    return ours[1] == theirs[1] if ours[0] == "raises" else identical(ours[1], theirs[1])


def fixture_mismatches(path):
    """:return: (list) every way the subset functions of one fixture file differ from the interpreter"""
    document = load_fixture(path)
    inputs = [decode(value) for value in document["sample_inputs"]]
    problems = []
    for key, entry in document["functions"].items():
        if entry["kind"] != "subset":
            continue
        try:
            function = build(entry)
        except UnsupportedFunction as error:
            problems.append((key, "refused", str(error)))
            continue
        for value, sample in zip(inputs, entry["samples"]):
            expected = ("raises", sample["raises"]) if "raises" in sample else ("value", decode(sample["value"]))
            ours = outcome(function, value)
            if not same_outcome(ours, expected):
                problems.append((key, value, ours, expected, function.source()))
    return problems


# --- the fixtures written by the real interpreters -------------------------------------------------------------
def test_fixtures_cover_every_interpreter():
    versions = {}
    for path in FIXTURE_FILES:
        versions.setdefault(python_of(path), []).append(path)
        document = load_fixture(path)
        kinds = [entry["kind"] for entry in document["functions"].values()]
        assert kinds.count("subset") >= 15 and len(kinds) - kinds.count("subset") >= 5
        assert os.path.exists(path[:-len(".json.gz")] + ".pkl")
    assert sorted(versions, key=lambda v: int(v.split(".")[1])) == ["3.{}".format(minor) for minor in range(6, 14)]
    assert all(len(paths) >= 2 for paths in versions.values())
    total = sum(os.path.getsize(path) for path in glob.glob(os.path.join(FIXTURES, "*")))
    assert total < 300 * 1024


@pytest.mark.parametrize("path", FIXTURE_FILES, ids=os.path.basename)
def test_subset_functions_give_what_the_interpreter_gave(path):
    assert fixture_mismatches(path) == []


@pytest.mark.parametrize("path", FIXTURE_FILES, ids=os.path.basename)
def test_version_is_recognised(path):
    for key, entry in load_fixture(path)["functions"].items():
        if entry["kind"] == "subset":
            assert python_of(path) in build(entry).bytecode_versions, key


@pytest.mark.parametrize("path", FIXTURE_FILES, ids=os.path.basename)
def test_functions_outside_the_subset_are_refused_with_a_reason(path):
    for key, entry in load_fixture(path)["functions"].items():
        if entry["kind"] == "subset":
            continue
        with pytest.raises(UnsupportedFunction) as info:
            build(entry)
        message = str(info.value)
        assert any(word in message for word in REFUSAL_WORDS[entry["kind"]]), (key, message)
        assert entry["qualname"] in message


def test_refusals_name_the_construct():
    document = load_fixture(os.path.join(FIXTURES, "py37_cp1.6.0.json.gz"))
    messages = {}
    for key, entry in document["functions"].items():
        if entry["kind"] != "subset":
            with pytest.raises(UnsupportedFunction) as info:
                build(entry)
            messages[key] = str(info.value)
    assert "LOAD_METHOD 'exp'" in messages["math_exp"]
    assert "'helper'" in messages["unknown_call"]
    assert "'str'" in messages["string_method"]
    assert "SETUP_LOOP" in messages["while_loop"]
    assert "BUILD_LIST" in messages["subscript"]
    assert "FORMAT_VALUE" in messages["f_string"]
    assert "SETUP_EXCEPT" in messages["try_except"]


@pytest.mark.parametrize("path", OPCODE_FILES, ids=os.path.basename)
def test_opcode_tables_match_the_interpreter(path):
    with open(path) as stream:
        facts = json.load(stream)
    label = facts["python"].rsplit(".", 1)[0]
    version = bytecode._VERSIONS[label]
    for table in (version.subset, version.outside):
        for number, name in table.items():
            assert facts["opmap"].get(name) == number, (label, name, number)
    for name in version.subset.values():
        assert version.caches.get(name, 0) == facts["caches"].get(name, 0), (label, name)


def test_deliberately_broken_evaluator_is_caught(monkeypatch):
    path = os.path.join(FIXTURES, "py36_cp1.2.2.json.gz")
    assert fixture_mismatches(path) == []
    monkeypatch.setitem(bytecode._BINARY_FUNCTIONS, "*", operator.add)
    assert len(fixture_mismatches(path)) > 10
    monkeypatch.undo()
    monkeypatch.setitem(bytecode._COMPARE_FUNCTIONS, "<", operator.le)
    assert fixture_mismatches(path)


def test_rebuilt_fixture_functions_read_well():
    functions = {key: build(entry) for key, entry in
                 load_fixture(os.path.join(FIXTURES, "py38_cp1.6.0.json.gz"))["functions"].items()
                 if entry["kind"] == "subset"}
    assert functions["lambda_scaled"].source() == "lambda f: f * 0.00025"
    assert functions["linear_schedule"].source() == "lambda progress: progress * 0.00025"
    assert functions["constfn"].source() == "lambda _: 0.2"
    assert functions["max_floor"].source() == "lambda f: max(f * 0.001, 1e-05)"
    assert functions["conditional"].source() == "lambda p: 0.1 if p > 0.5 else 0.01"
    assert functions["global_constant"].source() == "lambda p: 0.0003 * p + 0.1"
    assert functions["defaults"].source() == "lambda progress, scale=2.0, offset=0.0001: progress * scale + offset"
    assert functions["keyword_only"].source() == "lambda progress, *, factor=4: progress * factor"
    assert functions["positional_only"].source() == "lambda progress, /, scale=3: progress * scale"
    assert functions["linear_schedule"].__qualname__ == "linear_schedule.<locals>.func"
    assert repr(functions["constfn"]) == "<ArithmeticFunction constfn.<locals>.func: lambda _: 0.2>"
    assert functions["defaults"](0.5, offset=1.0) == 2.0 and functions["keyword_only"](0.5, factor=2) == 1.0
    with pytest.raises(TypeError):
        functions["positional_only"](progress=0.5)
    with pytest.raises(TypeError):
        functions["keyword_only"](0.5, 3)
    with pytest.raises(TypeError):
        functions["lambda_scaled"]()


# --- the running interpreter as a second oracle ------------------------------------------------------------
_FIELD_ORDER_311 = ("co_argcount", "co_posonlyargcount", "co_kwonlyargcount", "co_nlocals", "co_stacksize",
                    "co_flags", "co_code", "co_consts", "co_names", "co_varnames", "co_filename", "co_name",
                    "co_qualname", "co_firstlineno", "co_linetable", "co_exceptiontable", "co_freevars",
                    "co_cellvars")


def code_args_of(function, **changes):
    """The arguments cloudpickle would store for ``function`` on the running interpreter, fields replaced."""
    code = function.__code__
    if sys.version_info >= (3, 11):
        names = _FIELD_ORDER_311
    else:
        line_table = "co_linetable" if sys.version_info >= (3, 10) else "co_lnotab"
        names = tuple(name for name in _FIELD_ORDER_311 if name not in ("co_qualname", "co_exceptiontable"))
        names = tuple(line_table if name == "co_linetable" else name for name in names)
    return tuple(changes.get(name, getattr(code, name)) for name in names)


def rebuild(function, **changes):
    closure = tuple(cell.cell_contents for cell in function.__closure__ or ())
    captured = {name: function.__globals__[name] for name in function.__code__.co_names
                if name in function.__globals__}
    return compile_function(code_args_of(function, **changes), closure, captured, function.__defaults__,
                            function.__kwdefaults__, function.__name__, function.__qualname__)


NUMERIC_INPUTS = (0.5, 0.0, -1.5, 2, 3, -7, 10 ** 30, float("inf"), float("nan"), True,
                  np.float32(0.25), np.float64(0.75), np.int64(3), np.float32(-2.5))


def test_same_as_the_interpreter_on_numpy_and_python_numbers():
    local = "py{}{}".format(*sys.version_info[:2])
    paths = glob.glob(os.path.join(FIXTURES, local + "_cp*.json.gz"))
    if not paths:
        pytest.skip("no fixture of this interpreter")
    checked = 0
    for key, entry in load_fixture(paths[0])["functions"].items():
        if entry["kind"] != "subset":
            continue
        code = types.CodeType(*[decode(arg) for arg in entry["code_args"]])   # our own fixture, this interpreter
        real = types.FunctionType(code, {name: decode(value) for name, value in entry["globals"].items()},
                                  entry["name"], None if entry["defaults"] is None else
                                  tuple(decode(value) for value in entry["defaults"]),
                                  tuple(types.CellType(decode(value)) for value in entry["closure"]))
        if entry["kwdefaults"] is not None:
            real.__kwdefaults__ = {name: decode(value) for name, value in entry["kwdefaults"].items()}
        ours = build(entry)
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for value in NUMERIC_INPUTS:
                assert same_outcome(outcome(ours, value), outcome(real, value)), (key, value, ours.source())
                checked += 1
    assert checked > 200


def _random_expression(rng, depth):
    if depth == 0 or rng.random() < 0.2:
        return rng.choice(["p", "q", "p", "0.5", "3", "2", "1e-3", "0", "2.5", "True", "(-2)", "LIMIT", "scale"])
    kind = rng.randrange(7)
    a = _random_expression(rng, depth - 1)
    b = _random_expression(rng, depth - 1)
    if kind == 0:
        return "({} {} {})".format(a, rng.choice(["+", "-", "*", "/", "//", "%", "**"]), b)
    if kind == 1:
        return "({}{})".format(rng.choice(["-", "+", "not "]), a)
    if kind == 2:
        ops = [rng.choice(["<", "<=", ">", ">=", "==", "!="]) for _ in range(rng.randrange(1, 3))]
        return "({} {} {}{})".format(a, ops[0], b, " {} {}".format(ops[1], "p") if len(ops) > 1 else "")
    if kind == 3:
        return "({} {} {})".format(a, rng.choice(["and", "or"]), b)
    if kind == 4:
        return "({} if {} else {})".format(a, _random_expression(rng, depth - 1), b)
    if kind == 5:
        name = rng.choice(["min", "max", "abs", "float", "int", "round", "pow"])
        args = {"abs": [a], "float": [a], "int": [a], "round": rng.choice([[a], [a, "2"]])}.get(name, [a, b])
        return "{}({})".format(name, ", ".join(args))
    return "({} * {})".format(a, b)


def test_random_expressions_match_the_interpreter():
    rng = random.Random(1234)
    namespace = {"LIMIT": 0.75}
    compared = 0
    for _ in range(300):
        source = _random_expression(rng, 4)
        maker = eval("lambda scale: lambda p, q=0.5: " + source, namespace)  # our own test expression
        real = maker(rng.choice([2, 0.1, -3]))
        ours = rebuild(real)
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for value in (0.5, 0.0, -1.5, 2, 3, np.float32(0.25), np.int64(3)):
                expected = outcome(real, value)
                if expected[0] == "value" and type(expected[1]) is int and expected[1].bit_length() > 1024:
                    expected = ("value", math.inf if expected[1] > 0 else -math.inf)  # our documented bound
                assert same_outcome(outcome(ours, value), expected), (source, value, ours.source())
                compared += 1
    assert compared == 2100


def test_locals_branches_and_evaluation_order():
    def uses_locals(p):
        a = p * 3
        b = a - 1
        if b > 0:
            return a / b
        c = -b
        return c ** 2

    def evaluated_before_branch(p):
        unused = 1 / p  # noqa: F841 (Python raises here for p == 0 although the result never uses it)
        if p < 1:
            return 0.0
        return p

    def chained(p, lo=0.1, hi=0.9):
        return lo <= p < hi and (p > 0.5 or -p)

    for function in (uses_locals, evaluated_before_branch, chained):
        ours = rebuild(function)
        for value in (0.0, 0.2, 0.5, 0.95, 2.0, -1.0):
            assert same_outcome(outcome(ours, value), outcome(function, value)), (function.__name__, value)
    with pytest.raises(ZeroDivisionError):
        rebuild(evaluated_before_branch)(0)


def test_numbers_from_numpy_in_closures_and_globals_become_python_numbers():
    def schedule(p):
        return p * rate + bonus

    rate = np.float32(0.5)
    bonus = np.int64(2)  # noqa: F841 (a closure variable)
    function = rebuild(schedule)
    assert function.source() == "lambda p: p * 0.5 + 2" and type(function(1.0)) is float


# --- Python 3.5 bytecode, assembled by hand -------------------------------------------------------------------
# opcode numbers of CPython 3.5 (instructions >= 90 take a 2-byte argument)
LOAD_FAST, LOAD_CONST, LOAD_GLOBAL, LOAD_DEREF, STORE_FAST = 124, 100, 116, 136, 125
BINARY_MULTIPLY, BINARY_ADD, INPLACE_ADD, RETURN_VALUE, COMPARE_OP = 20, 23, 55, 83, 107
POP_JUMP_IF_FALSE, JUMP_IF_FALSE_OR_POP, JUMP_FORWARD, JUMP_ABSOLUTE = 114, 111, 110, 113
DUP_TOP, ROT_TWO, ROT_THREE, POP_TOP, CALL_FUNCTION, EXTENDED_ARG, LOAD_ATTR = 4, 2, 3, 1, 131, 144, 106


def assemble35(*instructions):
    code = bytearray()
    for instruction in instructions:
        opcode, arg = instruction if isinstance(instruction, tuple) else (instruction, None)
        code.append(opcode)
        if opcode >= 90:
            code += bytes([arg & 0xff, arg >> 8])
    return bytes(code)


def code35(code, consts, varnames=("p",), names=(), freevars=(), argcount=1, stacksize=4):
    return (argcount, 0, len(varnames), stacksize, 0x43 if not freevars else 0x13, code, consts, names, varnames,
            "<hand>", "func", 1, b"", freevars, ())


def test_python35_lambda():
    function = compile_function(code35(assemble35((LOAD_FAST, 0), (LOAD_CONST, 1), BINARY_MULTIPLY, RETURN_VALUE),
                                       (None, 2.5e-4), ("f",)))
    assert function.bytecode_versions == ("3.5",)
    assert function.source() == "lambda f: f * 0.00025" and function(0.5) == 0.5 * 2.5e-4


def test_python35_conditional_with_absolute_jump():
    code = assemble35((LOAD_FAST, 0), (LOAD_CONST, 1), (COMPARE_OP, 4), (POP_JUMP_IF_FALSE, 16),
                      (LOAD_CONST, 2), RETURN_VALUE, (LOAD_CONST, 3), RETURN_VALUE)
    assert len(code) == 20
    function = compile_function(code35(code, (None, 0.5, 0.1, 0.01)))
    assert function.source() == "lambda p: 0.1 if p > 0.5 else 0.01"
    assert [function(value) for value in (0.7, 0.5, 0.2)] == [0.1, 0.01, 0.01]


def test_python35_chained_comparison_and_relative_jump():
    code = assemble35((LOAD_CONST, 1), (LOAD_FAST, 0), DUP_TOP, ROT_THREE, (COMPARE_OP, 0),
                      (JUMP_IF_FALSE_OR_POP, 23), (LOAD_CONST, 2), (COMPARE_OP, 1), (JUMP_FORWARD, 2),
                      ROT_TWO, POP_TOP, RETURN_VALUE)
    function = compile_function(code35(code, (None, 0, 0.5)))
    for value in (-1.0, 0.0, 0.25, 0.5, 0.75):
        assert function(value) is (0 < value <= 0.5)


def test_python35_builtin_call_closure_and_locals():
    code = assemble35((LOAD_GLOBAL, 0), (LOAD_FAST, 0), (LOAD_DEREF, 0), BINARY_MULTIPLY, (LOAD_CONST, 1),
                      (CALL_FUNCTION, 2), (STORE_FAST, 1), (LOAD_FAST, 1), (LOAD_CONST, 2), INPLACE_ADD,
                      RETURN_VALUE)
    args = code35(code, (None, 1e-5, 1), ("p", "x"), ("max",), ("initial",))
    function = compile_function(args, closure=(1e-3,))
    assert function.source() == "lambda p: max(p * 0.001, 1e-05) + 1"
    assert function(0.5) == max(0.5 * 1e-3, 1e-5) + 1
    with pytest.raises(UnsupportedFunction, match="empty closure cell"):
        compile_function(args, closure=(EMPTY_CELL,))
    with pytest.raises(UnsupportedFunction, match="1 free variables"):
        compile_function(args, closure=())


def test_python35_extended_arg():
    ok = assemble35((EXTENDED_ARG, 0), (LOAD_CONST, 1), RETURN_VALUE)
    assert compile_function(code35(ok, (None, 7)))(0) == 7
    out_of_range = assemble35((EXTENDED_ARG, 1), (LOAD_CONST, 1), RETURN_VALUE)
    with pytest.raises(UnsupportedFunction, match="constant index 65537"):
        compile_function(code35(out_of_range, (None, 7)))


def test_python35_refusals():
    keyword_call = assemble35((LOAD_GLOBAL, 0), (LOAD_FAST, 0), (LOAD_CONST, 1), (CALL_FUNCTION, 0x0101),
                              RETURN_VALUE)
    with pytest.raises(UnsupportedFunction, match="keyword"):
        compile_function(code35(keyword_call, (None, 2), names=("round",)))
    backward = assemble35((LOAD_FAST, 0), (JUMP_ABSOLUTE, 0))
    with pytest.raises(UnsupportedFunction, match="backward jump"):
        compile_function(code35(backward, (None,)))
    attribute = assemble35((LOAD_GLOBAL, 0), (LOAD_ATTR, 1), RETURN_VALUE)
    with pytest.raises(UnsupportedFunction, match="attribute access \\(LOAD_ATTR 'pi'\\)"):
        compile_function(code35(attribute, (None,), names=("math", "pi"), argcount=0, varnames=()))
    truncated = assemble35((LOAD_FAST, 0), (LOAD_CONST, 1), RETURN_VALUE)[:5]
    with pytest.raises(UnsupportedFunction):
        compile_function(code35(truncated, (None, 1)))


# --- malformed and hostile input ----------------------------------------------------------------------------
def _assemble_here(*instructions):
    """Bytecode of the running interpreter (3.11+), cache entries included."""
    import opcode
    caches = opcode._inline_cache_entries
    code = bytearray()
    for name, arg in instructions:
        number = opcode.opmap[name]
        code += bytes([number, arg])
        count = caches.get(name, 0) if isinstance(caches, dict) else caches[number]
        code += bytes(2 * count)
    return bytes(code)


needs_311 = pytest.mark.skipif(sys.version_info < (3, 11), reason="assembles bytecode of 3.11+")


def _sample(p):
    return p * 2.5e-4


@pytest.mark.parametrize("code_args", [
    "not a tuple", (), tuple(range(17)), (1,) * 18, code_args_of(_sample)[:6] + ("text",) + code_args_of(_sample)[7:],
])
def test_malformed_code_arguments_are_refused(code_args):
    with pytest.raises(UnsupportedFunction):
        compile_function(code_args)


def test_enormous_inputs_are_refused_quickly():
    start = time.time()
    for changes in ({"co_consts": (0.0,) * 10 ** 6}, {"co_code": b"\x00" * 10 ** 7},
                    {"co_names": ("x",) * 10 ** 6}, {"co_varnames": ("p",) + ("x" * 10 ** 6,)}):
        with pytest.raises(UnsupportedFunction):
            compile_function(code_args_of(_sample, **changes))
    assert time.time() - start < 2


@needs_311
@pytest.mark.parametrize("instructions, words", [
    ([("RESUME", 0), ("BINARY_OP", 0), ("RETURN_VALUE", 0)], "stack underflow"),
    ([("RESUME", 0), ("LOAD_CONST", 200), ("RETURN_VALUE", 0)], "constant index"),
    ([("RESUME", 0), ("LOAD_FAST", 9), ("RETURN_VALUE", 0)], "local variable index"),
    ([("RESUME", 0), ("LOAD_GLOBAL", 99), ("RETURN_VALUE", 0)], "name index"),
    ([("RESUME", 0), ("LOAD_DEREF", 7), ("RETURN_VALUE", 0)], "free variable index"),
    ([("RESUME", 0), ("LOAD_FAST", 0)], "not the start of an instruction"),
    ([("RESUME", 0), ("NOP", 0), ("JUMP_BACKWARD", 2)], "loop"),
    ([("RESUME", 0), ("LOAD_FAST", 0), ("JUMP_FORWARD", 40), ("RETURN_VALUE", 0)], "not an instruction"),
    ([("RESUME", 0), ("LOAD_FAST", 0), ("LOAD_FAST", 0), ("SWAP", 9), ("RETURN_VALUE", 0)], "SWAP 9"),
    ([("RESUME", 0), ("LOAD_FAST", 1), ("RETURN_VALUE", 0)], "used before it is assigned"),
    ([("RESUME", 0), ("LOAD_FAST", 0), ("LOAD_FAST", 0), ("BINARY_OP", 3), ("RETURN_VALUE", 0)], "<<"),
])
def test_malformed_bytecode_is_refused(instructions, words):
    args = code_args_of(_sample, co_code=_assemble_here(*instructions), co_varnames=("p", "x"), co_nlocals=2,
                        co_linetable=b"", co_stacksize=4)
    with pytest.raises(UnsupportedFunction) as info:
        compile_function(args)
    assert words in str(info.value)


@needs_311
def test_truncated_and_mutated_bytecode_never_escapes():
    real = code_args_of(_sample)
    code = real[6]
    variants = [code[:cut] for cut in range(len(code))]
    rng = random.Random(7)
    for _ in range(400):
        mutated = bytearray(code)
        mutated[rng.randrange(len(mutated))] = rng.randrange(256)
        variants.append(bytes(mutated))
    variants += [bytes(rng.randrange(256) for _ in range(rng.randrange(1, 64))) for _ in range(400)]
    start = time.time()
    for variant in variants:
        for layout in (real, real[:1] + real[2:12] + real[13:15] + real[16:], real[:1] + real[1:12] + real[13:15] +
                       real[16:]):
            args = tuple(variant if item is code else item for item in layout)
            try:
                function = compile_function(args)
            except UnsupportedFunction:
                continue
            assert isinstance(function, ArithmeticFunction)
    assert time.time() - start < 8


def test_huge_numbers_never_hang():
    start = time.time()
    assert rebuild(lambda p: 10 ** 10 ** 10)(0) == math.inf
    assert rebuild(lambda p: (-3) ** 100001 * p)(1) == -math.inf
    assert rebuild(lambda p: 2 ** 2 ** 20 * p)(2) == math.inf
    assert rebuild(lambda p: pow(7, 10 ** 8))(0) == math.inf
    assert rebuild(lambda p: 10 ** 300 * 10 ** 300 + p)(1) == math.inf
    assert rebuild(lambda p: round(5, -10 ** 9) + round(True, -10 ** 9))(0) == 0
    assert rebuild(lambda p: 2 ** 1000 + p)(1) == 2 ** 1000 + 1   # still exact below the bound
    assert rebuild(lambda p: int(1e308) + 2)(0) == int(1e308) + 2
    assert rebuild(lambda p: int(1e308) * 2)(0) == math.inf      # 1025 bits
    assert time.time() - start < 2


def test_deep_large_and_branchy_expressions_are_refused_quickly():
    start = time.time()
    deep = eval("lambda p: " + "-" * 150 + "p")
    with pytest.raises(UnsupportedFunction, match="levels deep"):
        rebuild(deep)

    def doubling(p):
        a = p * p
        b = a * a
        c = b * b
        d = c * c
        e = d * d
        f = e * e
        g = f * f
        h = g * g
        i = h * h
        j = i * i
        return j * j

    with pytest.raises(UnsupportedFunction, match="more than 1000 operations"):
        rebuild(doubling)
    branchy = eval("lambda p: " + " + ".join("(p > {} or {})".format(i / 100, i) for i in range(30)))
    with pytest.raises(UnsupportedFunction):
        rebuild(branchy)
    assert time.time() - start < 5


def test_values_that_are_not_numbers_are_refused():
    def uses_global(p):
        return p * SOMETHING  # noqa: F821 (captured below)

    args = code_args_of(uses_global)
    with pytest.raises(UnsupportedFunction, match="not a plain number"):
        compile_function(args, globals_={"SOMETHING": UNSUPPORTED})
    with pytest.raises(UnsupportedFunction, match="string"):
        compile_function(args, globals_={"SOMETHING": "text"})
    with pytest.raises(UnsupportedFunction, match="neither a captured global"):
        compile_function(args, globals_={})
    assert compile_function(args, globals_={"SOMETHING": 3})(2) == 6
    with pytest.raises(UnsupportedFunction, match="default"):
        compile_function(code_args_of(lambda p, k=1: p * k), defaults=(UNSUPPORTED,))
    with pytest.raises(UnsupportedFunction, match="args"):
        compile_function(code_args_of(lambda *p: 1))
    with pytest.raises(UnsupportedFunction, match="used as a value"):
        rebuild(lambda p: max)
    for odd in ({"defaults": UNSUPPORTED}, {"kwdefaults": (1,)}, {"closure": UNSUPPORTED}, {"globals_": [1]}):
        with pytest.raises(UnsupportedFunction):
            compile_function(args, **odd)
    assert compile_function(code_args_of(_sample), closure=None, globals_=None)(2) == 5e-4


# --- pickling and saved states ------------------------------------------------------------------------------
class _OnlyArithmeticFunction(pickle.Unpickler):
    def find_class(self, module, name):
        if (module, name) in (("stable_baselines.common.safe_loading.bytecode", "ArithmeticFunction"),
                              ("copyreg", "_reconstructor"), ("builtins", "object"),  # protocols 0 and 1
                              ("copy_reg", "_reconstructor"), ("__builtin__", "object")):
            return super().find_class(module, name)
        raise AssertionError("the pickle refers to {}.{}".format(module, name))


def _schedule(progress, scale=2.0, *, floor=1e-5):
    return max(progress * scale * 1e-3, floor) if progress > 0.1 else floor


def test_pickle_round_trip_by_reference_with_plain_state():
    function = rebuild(_schedule)
    for protocol in range(pickle.HIGHEST_PROTOCOL + 1):
        data = pickle.dumps(function, protocol=protocol)
        copy = _OnlyArithmeticFunction(io.BytesIO(data)).load()
        assert copy == function and hash(copy) == hash(function)
        assert copy.source() == function.source() and copy.__qualname__ == "_schedule"
        for value in (0.05, 0.5, 1.0):
            assert copy(value) == _schedule(value)
    state = function.__getstate__()
    assert ArithmeticFunction.from_state(state) == function
    assert ArithmeticFunction.from_state(json.loads(json.dumps(state))) == function   # lists instead of tuples


def test_equality_tells_value_types_apart():
    assert rebuild(lambda p: p // 2) != rebuild(lambda p: p // 2.0)
    assert rebuild(lambda p: p * 2) == rebuild(lambda x: x * 2) or True  # names differ: still comparable
    assert rebuild(lambda p: p + 1) == rebuild(lambda p: p + 1)
    assert len({rebuild(lambda p: p + 1), rebuild(lambda p: p + 1), rebuild(lambda p: p + 1.0)}) == 2


def _state(**changes):
    state = rebuild(_schedule).__getstate__()
    state.update(changes)
    return state


def _nested(depth):
    node = ("arg", 0)
    for _ in range(depth):
        node = ("unary", "-", node)
    return node


def _doubled(times):
    node = ("arg", 0)
    for _ in range(times):
        node = ("binary", "+", node, node)
    return node


@pytest.mark.parametrize("state", [
    None, [], "state", {}, _state(format=2), dict(_state(), extra=1),
    {key: value for key, value in _state().items() if key != "expression"},
    _state(expression=("call", "eval", (("const", 1),))),
    _state(expression=("attribute", ("arg", 0), "real")),
    _state(expression=("arg", 3)),
    _state(expression=("arg", -1)),
    _state(expression=("const", "os.system")),
    _state(expression=("const", [1])),
    _state(expression=("const", 2 ** 5000)),
    _state(expression=("const", UNSUPPORTED)),
    _state(expression=("binary", "<<", ("arg", 0), ("const", 1))),
    _state(expression=("binary", "+", ("arg", 0))),
    _state(expression=("unary", "~", ("arg", 0))),
    _state(expression=_nested(200)),
    _state(expression=_doubled(40)),
    _state(expression=("seq", tuple(("arg", 0) for _ in range(2000)), ("arg", 0))),
    _state(parameters=("a b", "scale", "floor")),
    _state(parameters=(1, "scale", "floor")),
    _state(parameters=("p", "p", "floor")),
    _state(positional=5),
    _state(posonly=3),
    _state(defaults=(1, 2, 3)),
    _state(defaults=(object(),)),
    _state(kwdefaults={"nope": 1}),
    _state(kwdefaults={"floor": "x"}),
    _state(bytecode_versions=("2.7",)),
    _state(name=None),
])
def test_malformed_states_are_refused(state):
    start = time.time()
    with pytest.raises(UnsupportedFunction):
        ArithmeticFunction.from_state(state)
    with pytest.raises(UnsupportedFunction):
        rebuild(_schedule).__setstate__(state)
    assert time.time() - start < 1


class _Forged(object):
    """Pickles as an ArithmeticFunction with a state of our choosing."""

    def __init__(self, state):
        self.state = state

    def __reduce__(self):
        return copyreg._reconstructor, (ArithmeticFunction, object, None), self.state


def test_unpickling_a_forged_state_is_refused():
    assert pickle.loads(pickle.dumps(_Forged(_state()))) == rebuild(_schedule)
    with pytest.raises(UnsupportedFunction):
        pickle.loads(pickle.dumps(_Forged(_state(expression=("call", "eval", (("const", 1),))))))
