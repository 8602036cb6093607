"""
Writes the fixtures of tests/test_bytecode_functions.py: functions pickled by the REAL interpreters.

For every CPython 3.6 ... 3.13 found under a pyenv root and two cloudpickle releases that run on it, this script
runs ITSELF under that interpreter (``--child``) with the cloudpickle wheel on PYTHONPATH; the child writes, in this directory,

- ``py3X_cpV.pkl``: ``cloudpickle.dumps(FUNCTIONS, protocol=4)`` (a dict of schedules and small lambdas, ~23 in the
  arithmetic subset of stable_baselines.common.safe_loading.bytecode and 10 outside it);
- ``py3X_cpV.json.gz`` (gzip keeps the directory small): for each function, the exact arguments that this
  cloudpickle release passed to ``types.CodeType`` (recorded while the child unpickles its own pickle), the
  closure values, captured globals, defaults, and what the interpreter itself returns on a few inputs (floats
  written with repr, which reads back bit for bit; see ``encode``);
- ``py3X_opcodes.json``: the interpreter's ``opcode.opmap`` and inline-cache counts (facts the tests check our
  opcode tables against).

Run it from anywhere with any Python >= 3.6 (nothing is installed anywhere; wheels are downloaded with
``pip download`` into --wheels and extracted beside themselves)::

    python tests/data/pickled_functions/make_fixtures.py --pyenv /root/.pyenv/versions --wheels /tmp/cloudpickle-wheels

The interpreters must be plain pyenv builds (no extra packages needed). Existing fixture files are overwritten.
The script body below the ``# --- child`` line must stay valid Python 3.6.
"""
import argparse
import collections
import glob
import gzip
import json
import math
import os
import pickle
import subprocess
import sys
import types
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))

# interpreter -> cloudpickle releases (1.2.2 / 1.6.0 are the era of the original library; 1.x on 3.10 still
# stores co_lnotab; cloudpickle >= 3 needs Python 3.8)
COMBINATIONS = collections.OrderedDict([
    ("3.6", ("1.2.2", "2.2.1")),
    ("3.7", ("1.6.0", "2.2.1")),
    ("3.8", ("1.6.0", "3.1.1")),
    ("3.9", ("2.2.1", "3.1.1")),
    ("3.10", ("1.6.0", "3.1.1")),
    ("3.11", ("2.2.1", "3.1.1")),
    ("3.12", ("2.2.1", "3.1.1")),
    ("3.13", ("2.2.1", "3.1.1")),
])
SAMPLE_INPUTS = (1.0, 0.75, 0.5, 0.3, 0.0, 2, -1.5)


def find_interpreter(pyenv_root, version):
    """:return: (str) the python executable of the newest pyenv build of ``version`` (e.g. "3.8")"""
    candidates = sorted(glob.glob(os.path.join(pyenv_root, version + ".*")),
                        key=lambda path: [int(part) for part in os.path.basename(path).split(".") if part.isdigit()])
    candidates = [path for path in candidates if os.path.basename(path).count(".") == 2]
    if not candidates:
        raise SystemExit("no pyenv build of Python {} under {}".format(version, pyenv_root))
    return os.path.join(candidates[-1], "bin", "python")


def cloudpickle_path(wheels, release):
    """Download (once) and extract the cloudpickle wheel of ``release``; :return: (str) a PYTHONPATH entry"""
    target = os.path.join(wheels, release)
    site = os.path.join(target, "site")
    if not os.path.isdir(os.path.join(site, "cloudpickle")):
        if not glob.glob(os.path.join(target, "cloudpickle-*.whl")):
            subprocess.check_call([sys.executable, "-m", "pip", "download", "--no-deps", "-q", "-d", target,
                                   "cloudpickle==" + release])
        with zipfile.ZipFile(glob.glob(os.path.join(target, "cloudpickle-*.whl"))[0]) as wheel:
            wheel.extractall(site)
    return site


def drive(pyenv_root, wheels):
    """Run the child for every combination."""
    for version, releases in COMBINATIONS.items():
        interpreter = find_interpreter(pyenv_root, version)
        for release in releases:
            env = dict(os.environ, PYTHONPATH=cloudpickle_path(wheels, release), PYTHONHASHSEED="0")
            stem = "py{}_cp{}".format(version.replace(".", ""), release)
            # run with a relative script path so that co_filename does not depend on the checkout location
            subprocess.check_call([interpreter, "make_fixtures.py", "--child", stem], cwd=HERE, env=env)
            print("wrote", stem)


# --- child: everything below runs under the interpreter being recorded (keep it Python 3.6 syntax) ---------
LR_CONSTANT = 3e-4
FINAL_FRACTION = 0.1


def linear_schedule(initial_value):
    """The rl-baselines-zoo's schedule."""
    def func(progress):
        return progress * initial_value
    return func


def constfn(val):
    """stable_baselines.a2c.utils.constfn"""
    def func(_):
        return val
    return func


def clipped_schedule(initial, floor):
    def func(progress):
        return max(progress * initial, floor)
    return func


def stepped(progress):
    if progress > 0.75:
        return 1e-3
    elif progress > 0.25:
        return 5e-4
    return 1e-4


def with_defaults(progress, scale=2.0, offset=1e-4):
    return progress * scale + offset


def with_locals(progress):
    a = progress * 3e-4
    b = a + 1e-5
    c = b * b
    return c - a / 3


def augmented(progress):
    x = progress
    x += 1
    x *= 3
    x -= 0.5
    x /= 7
    x **= 2
    x //= 0.01
    x %= 3
    return x


def tuple_assignment(progress):
    a, b = progress * 2, progress + 1
    b, a = a, b
    return a - b


def keyword_only(progress, *, factor=4):
    return progress * factor


def guarded(progress):
    if progress < 0.1 or progress > 0.9:
        return 0.0
    return progress


def helper(x):
    return x


def loop(progress):
    total = 0.0
    for _ in range(3):
        total += progress
    return total


def while_loop(progress):
    while progress < 1:
        progress += 0.5
    return progress


def generator(progress):
    yield progress


def try_except(progress):
    try:
        return 1 / progress
    except ZeroDivisionError:
        return 0.0


def subset_functions():
    """:return: (list) (key, function) in the arithmetic subset"""
    functions = [
        ("lambda_scaled", lambda f: f * 2.5e-4),
        ("linear_schedule", linear_schedule(2.5e-4)),
        ("constfn", constfn(0.2)),
        ("constfn_int", constfn(7)),
        ("max_floor", lambda f: max(f * 1e-3, 1e-5)),
        ("min_abs", lambda f: min(f, 0.5) + abs(f - 0.5)),
        ("clipped_closure", clipped_schedule(1e-3, 1e-5)),
        ("conditional", lambda p: 0.1 if p > 0.5 else 0.01),
        ("stepped", stepped),
        ("chained_compare", lambda p: 0 < p <= 0.5),
        ("and_or", lambda p: p > 0.2 and p * 2 or 0.5),
        ("or_in_expression", lambda p: (p or 0.5) * 2),
        ("not_and_compare", lambda p: not (p >= 0.3) and p != 0 or p == 1),
        ("global_constant", lambda p: LR_CONSTANT * p + FINAL_FRACTION),
        ("defaults", with_defaults),
        ("keyword_only", keyword_only),
        ("locals_chain", with_locals),
        ("augmented", augmented),
        ("arithmetic", lambda p: -p ** 2 + p // 0.3 - p % 0.25 / 2 + (+p)),
        ("builtins", lambda p: round(p * 100, 2) + float(int(p * 10)) + pow(p, 2) + round(p)),
        ("big_int", lambda p: p * 10 ** 20 + 2 ** 70),
        ("guarded", guarded),
        ("tuple_assignment", tuple_assignment),
    ]
    if sys.version_info >= (3, 8):  # syntax of 3.8+: compiled here so that the file still parses on 3.6
        namespace = globals()
        exec("def positional_only(progress, /, scale=3):\n    return progress * scale\n"
             "walrus = lambda p: (q := p * 2) + q\n", namespace)
        functions += [("positional_only", namespace["positional_only"]), ("walrus", namespace["walrus"])]
    return functions


def outside_functions():
    """:return: (list) (key, kind, function) outside the subset; kind names what the refusal must mention"""
    return [
        ("math_exp", "attribute", lambda f: math.exp(-f)),
        ("unknown_call", "call", lambda f: helper(f) * 2),
        ("loop", "loop", loop),
        ("while_loop", "loop", while_loop),
        ("subscript", "container", lambda f: [f, 2 * f][0]),
        ("string_method", "call", lambda f: str(f).upper()),
        ("generator", "generator", generator),
        ("try_except", "exception", try_except),
        ("f_string", "format", lambda f: f"{f:.3f}"),
        ("nested_function", "nested", lambda f: (lambda g: g * 2)(f)),
    ]


def encode(value):
    """
    A value as JSON that keeps its type: JSON numbers, strings, booleans and null stand for themselves (Python's
    json writes floats with repr, which reads back bit for bit); bytes, tuples, complex numbers and anything
    else are tagged: {"b": hex}, {"t": [items]}, {"c": [real, imag]}, {"u": type name}.
    """
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, complex):
        return {"c": [value.real, value.imag]}
    if isinstance(value, bytes):
        return {"b": value.hex()}
    if isinstance(value, tuple):
        return {"t": [encode(item) for item in value]}
    return {"u": type(value).__name__}


class RecordingUnpickler(pickle.Unpickler):
    """Unpickles normally, but records the arguments of every ``types.CodeType`` call in the stream."""

    def __init__(self, data):
        import io
        super().__init__(io.BytesIO(data))
        self.code_args = {}  # id(code object) -> args
        self.keep = []

    def find_class(self, module, name):
        found = super().find_class(module, name)
        if module.startswith("cloudpickle") and name == "_builtin_type":
            def builtin_type(type_name):
                if type_name == "CodeType":
                    return self.make_code
                return found(type_name)
            return builtin_type
        if found is types.CodeType:
            return self.make_code
        return found

    def make_code(self, *args):
        code = types.CodeType(*args)
        self.code_args[id(code)] = args
        self.keep.append(code)
        return code


def captured_globals(function):
    names = set(function.__code__.co_names)
    return {name: encode(value) for name, value in function.__globals__.items() if name in names}


def samples(function):
    """:return: (list) per SAMPLE_INPUTS, {"value": result} or {"raises": exception name}"""
    result = []
    for value in SAMPLE_INPUTS:
        try:
            result.append({"value": encode(function(value))})
        except Exception as error:  # the sample documents what the interpreter does, errors included
            result.append({"raises": type(error).__name__})
    return result


def interpreter_facts():
    """:return: (dict) the opcode numbers and inline cache sizes of this interpreter"""
    import opcode
    caches = getattr(opcode, "_inline_cache_entries", None)
    if isinstance(caches, list):
        caches = {name: caches[number] for name, number in opcode.opmap.items() if number < len(caches)}
    caches = {name: count for name, count in (caches or {}).items() if count}
    return {"python": sys.version.split()[0], "opmap": opcode.opmap, "caches": caches}


def child(stem):
    import cloudpickle
    if not stem.endswith("_cp" + cloudpickle.__version__):
        raise SystemExit("found cloudpickle {} instead of the one of {}".format(cloudpickle.__version__, stem))
    table = collections.OrderedDict()
    kinds = {}
    for key, function in subset_functions():
        table[key] = function
        kinds[key] = "subset"
    for key, kind, function in outside_functions():
        table[key] = function
        kinds[key] = kind
    payload = cloudpickle.dumps(table, protocol=4)
    unpickler = RecordingUnpickler(payload)
    loaded = unpickler.load()
    entries = collections.OrderedDict()
    for key, function in loaded.items():
        args = unpickler.code_args.get(id(function.__code__))
        if args is None:
            raise SystemExit("the code of {} was not recorded".format(key))
        entries[key] = {
            "kind": kinds[key],
            "name": function.__name__,
            "qualname": function.__qualname__,
            "code_args": [encode(arg) for arg in args],
            "closure": [encode(cell.cell_contents) if _cell_full(cell) else {"empty": True}
                        for cell in (function.__closure__ or ())],
            "globals": captured_globals(function),
            "defaults": None if function.__defaults__ is None else [encode(v) for v in function.__defaults__],
            "kwdefaults": None if function.__kwdefaults__ is None else
            {name: encode(v) for name, v in function.__kwdefaults__.items()},
            "samples": samples(function),
        }
    with open(stem + ".pkl", "wb") as stream:
        stream.write(payload)
    document = {"python": sys.version.split()[0], "cloudpickle": cloudpickle.__version__,
                "sample_inputs": [encode(value) for value in SAMPLE_INPUTS], "functions": entries}
    text = json.dumps(document, separators=(",", ":")).encode("utf-8")
    with open(stem + ".json.gz", "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0) as stream:
        stream.write(text)
    with open(stem.split("_")[0] + "_opcodes.json", "w") as stream:
        json.dump(interpreter_facts(), stream, separators=(",", ":"), sort_keys=True)


def _cell_full(cell):
    try:
        cell.cell_contents
    except ValueError:
        return False
    return True


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pyenv", default="/root/.pyenv/versions", help="root of the pyenv versions")
    parser.add_argument("--wheels", default="/tmp/cloudpickle-wheels", help="where cloudpickle wheels go")
    parser.add_argument("--child", metavar="STEM", help=argparse.SUPPRESS)
    options = parser.parse_args()
    if options.child:
        child(options.child)
    else:
        drive(options.pyenv, options.wheels)
