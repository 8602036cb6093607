"""
A pickle reader that only reads.

The standard unpickler executes a pickle: it imports modules, calls functions and instantiates classes as the
stream says. This reader walks the same instructions (decoded by :func:`pickletools.genops`, which parses and
never executes) with a stack machine of its own, and every instruction that would import, call or instantiate
something produces an inert :class:`~.records.Ref` or :class:`~.records.Call` instead. Plain data (numbers,
strings, bytes, lists, tuples, dicts, sets) is built as itself. Persistent ids, the extension registry and
out-of-band buffers become references to :data:`OUTSIDE_MODULE`, which the converters refuse.
"""
import io
import pickletools
from typing import Any, Callable, Dict, List

from stable_baselines.common.safe_loading import limits
from stable_baselines.common.safe_loading.errors import InvalidModelFileError
from stable_baselines.common.safe_loading.records import Call, Ref


class _Machine(object):
    """The stack, the mark stack and the memo of one pickle being read."""

    def __init__(self, what: str) -> None:
        self.what = what
        self.stack: List[Any] = []
        self.marks: List[List[Any]] = []
        self.memo: Dict[Any, Any] = {}

    def fail(self, reason: str) -> InvalidModelFileError:
        return InvalidModelFileError("{} is not a valid pickle: {}".format(self.what, reason))

    def push(self, value: Any) -> None:
        self.stack.append(value)

    def pop(self) -> Any:
        if not self.stack:
            raise self.fail("an instruction found the stack empty")
        return self.stack.pop()

    def top(self) -> Any:
        if not self.stack:
            raise self.fail("an instruction found the stack empty")
        return self.stack[-1]

    def mark(self, _: Any) -> None:
        self.marks.append(self.stack)
        self.stack = []

    def pop_mark(self) -> List[Any]:
        if not self.marks:
            raise self.fail("an instruction needs a MARK and there is none")
        items = self.stack
        self.stack = self.marks.pop()
        return items

    # --- containers ----------------------------------------------------------------------------
    def append_items(self, target: Any, items: List[Any]) -> None:
        if isinstance(target, list):
            target.extend(items)
        elif isinstance(target, Call):
            target.items.extend(items)
        else:
            raise self.fail("APPEND on a {}".format(type(target).__name__))

    def set_entries(self, target: Any, flat: List[Any]) -> None:
        if len(flat) % 2:
            raise self.fail("SETITEMS with an odd number of items")
        pairs = list(zip(flat[0::2], flat[1::2]))
        if isinstance(target, dict):
            for key, value in pairs:
                try:
                    target[key] = value
                except TypeError as err:  # unhashable key
                    raise self.fail("a dict key of type {} ({})".format(type(key).__name__, err)) from err
        elif isinstance(target, Call):
            target.entries.extend(pairs)
        else:
            raise self.fail("SETITEM on a {}".format(type(target).__name__))

    def make_set(self, items: List[Any], kind: type) -> Any:
        try:
            return kind(items)
        except TypeError as err:
            raise self.fail("a set member is unhashable ({})".format(err)) from err

    def make_dict(self, flat: List[Any]) -> dict:
        result: Dict[Any, Any] = {}
        self.set_entries(result, flat)
        return result

    # --- objects -------------------------------------------------------------------------------
    def build(self, state: Any) -> None:
        target = self.top()
        if not isinstance(target, Call):
            raise self.fail("BUILD on a {}".format(type(target).__name__))
        target.states.append(state)

    def reduce(self, args: Any) -> None:
        func = self.pop()
        if not isinstance(args, tuple):
            raise self.fail("REDUCE arguments are a {}, not a tuple".format(type(args).__name__))
        # cloudpickle applies the state of functions and classes by calling a "state setter" whose result is
        # then discarded: keep the state on the record it is meant for
        if isinstance(func, Ref) and func.name in _STATE_SETTERS and func.module.split(".")[0] == "cloudpickle" \
                and len(args) == 2 and isinstance(args[0], Call):
            args[0].states.append(args[1])
            self.stack.append(None)
            return
        self.stack.append(Call(func, args, how="reduce"))

    def newobj(self, args: Any, kwargs: Any = None) -> None:
        cls = self.pop()
        if not isinstance(args, tuple) or not isinstance(kwargs, (dict, type(None))):
            raise self.fail("NEWOBJ arguments of the wrong types")
        self.stack.append(Call(cls, args, kwargs, how="newobj"))

    def memo_get(self, index: Any) -> None:
        if index not in self.memo:
            raise self.fail("memo entry {!r} is read before it is written".format(index))
        self.stack.append(self.memo[index])

    def memo_put(self, index: Any) -> None:
        self.memo[index] = self.top()


_STATE_SETTERS = ("_function_setstate", "_class_setstate")


def _global(arg: str) -> Ref:
    module, _, name = arg.partition(" ")
    return Ref(module, name)


# an opcode's handler: it acts on the machine with the opcode's argument (what it returns is ignored)
_Operation = Callable[[_Machine, Any], Any]


def _operations() -> Dict[str, _Operation]:  # pylint: disable=too-many-statements
    ops: Dict[str, _Operation] = {}

    def push_arg(machine: _Machine, arg: Any) -> None:
        machine.stack.append(arg)

    for name in ("INT", "BININT", "BININT1", "BININT2", "LONG", "LONG1", "LONG4", "BINBYTES", "SHORT_BINBYTES",
                 "BINBYTES8", "UNICODE", "SHORT_BINUNICODE", "BINUNICODE", "BINUNICODE8", "FLOAT", "BINFLOAT"):
        ops[name] = push_arg
    for name in ("STRING", "BINSTRING", "SHORT_BINSTRING"):  # Python 2 str: read as latin-1 text
        ops[name] = lambda m, a: m.stack.append(a.decode("latin-1") if isinstance(a, bytes) else a)
    ops["BYTEARRAY8"] = lambda m, a: m.stack.append(bytearray(a))
    ops["NONE"] = lambda m, a: m.stack.append(None)
    ops["NEWTRUE"] = lambda m, a: m.stack.append(True)
    ops["NEWFALSE"] = lambda m, a: m.stack.append(False)
    for name in ("PROTO", "FRAME"):
        ops[name] = lambda m, a: None

    ops["MARK"] = _Machine.mark
    ops["POP"] = lambda m, a: m.pop_mark() if (not m.stack and m.marks) else m.pop()
    ops["POP_MARK"] = lambda m, a: m.pop_mark()
    ops["DUP"] = lambda m, a: m.stack.append(m.top())

    ops["EMPTY_LIST"] = lambda m, a: m.stack.append([])
    ops["LIST"] = lambda m, a: m.push(m.pop_mark())
    ops["APPEND"] = lambda m, a: m.append_items(m.stack[-2] if len(m.stack) > 1 else None, [m.pop()])
    ops["APPENDS"] = lambda m, a: (lambda items: m.append_items(m.top(), items))(m.pop_mark())
    ops["EMPTY_TUPLE"] = lambda m, a: m.stack.append(())
    ops["TUPLE"] = lambda m, a: m.push(tuple(m.pop_mark()))
    ops["TUPLE1"] = lambda m, a: m.stack.append((m.pop(),))
    ops["TUPLE2"] = lambda m, a: m.stack.append(tuple(reversed([m.pop(), m.pop()])))
    ops["TUPLE3"] = lambda m, a: m.stack.append(tuple(reversed([m.pop(), m.pop(), m.pop()])))
    ops["EMPTY_DICT"] = lambda m, a: m.stack.append({})
    ops["DICT"] = lambda m, a: m.push(m.make_dict(m.pop_mark()))
    ops["SETITEM"] = lambda m, a: (lambda v, k: m.set_entries(m.top(), [k, v]))(m.pop(), m.pop())
    ops["SETITEMS"] = lambda m, a: (lambda flat: m.set_entries(m.top(), flat))(m.pop_mark())
    ops["EMPTY_SET"] = lambda m, a: m.stack.append(set())
    ops["FROZENSET"] = lambda m, a: m.push(m.make_set(m.pop_mark(), frozenset))

    def additems(machine: _Machine, _: Any) -> None:
        items = machine.pop_mark()
        target = machine.top()
        if not isinstance(target, set):
            raise machine.fail("ADDITEMS on a {}".format(type(target).__name__))
        target.update(machine.make_set(items, set))
    ops["ADDITEMS"] = additems

    for name in ("GET", "BINGET", "LONG_BINGET"):
        ops[name] = _Machine.memo_get
    for name in ("PUT", "BINPUT", "LONG_BINPUT"):
        ops[name] = _Machine.memo_put
    ops["MEMOIZE"] = lambda m, a: m.memo_put(len(m.memo))

    ops["GLOBAL"] = lambda m, a: m.stack.append(_global(a))

    def stack_global(machine: _Machine, _: Any) -> None:
        name = machine.pop()
        module = machine.pop()
        if not isinstance(module, str) or not isinstance(name, str):
            raise machine.fail("STACK_GLOBAL needs two strings")
        machine.stack.append(Ref(module, name))
    ops["STACK_GLOBAL"] = stack_global

    ops["REDUCE"] = lambda m, a: m.reduce(m.pop())
    ops["BUILD"] = lambda m, a: m.build(m.pop())
    ops["NEWOBJ"] = lambda m, a: m.newobj(m.pop())
    ops["NEWOBJ_EX"] = lambda m, a: (lambda kwargs, args: m.newobj(args, kwargs))(m.pop(), m.pop())

    def inst(machine: _Machine, arg: str) -> None:  # protocol 0: INST module name, arguments above the mark
        args = tuple(machine.pop_mark())
        machine.push(Call(_global(arg), args, how="inst"))
    ops["INST"] = inst

    def obj(machine: _Machine, _: Any) -> None:  # protocol 1: the class is the first item above the mark
        items = machine.pop_mark()
        if not items:
            raise machine.fail("OBJ without a class")
        machine.push(Call(items[0], tuple(items[1:]), how="inst"))
    ops["OBJ"] = obj
    return ops


_OPERATIONS = _operations()
# instructions that name something outside the pickle: kept as references the converters always refuse
_OUTSIDE = {"PERSID": "persistent id", "BINPERSID": "persistent id", "EXT1": "extension registry",
            "EXT2": "extension registry", "EXT4": "extension registry", "NEXT_BUFFER": "out-of-band buffer",
            "READONLY_BUFFER": "out-of-band buffer"}
# the module name these references carry (no module has it)
OUTSIDE_MODULE = "<outside the pickle>"


def _outside(machine: _Machine, name: str, arg: Any) -> None:
    if name == "BINPERSID":
        arg = machine.pop()
    elif name == "READONLY_BUFFER":
        machine.pop()
    label = arg if isinstance(arg, (str, int)) else type(arg).__name__
    machine.push(Ref(OUTSIDE_MODULE, "{} {}".format(_OUTSIDE[name], label)[:80]))


def read_pickle(data: bytes, what: str = "the pickle") -> Any:
    """
    Read one pickle into plain data and inert records, without importing, calling or instantiating anything.

    :param data: (bytes) the whole pickle (read into memory first, within :data:`~.limits.MAX_PICKLE_BYTES`)
    :param what: (str) what the pickle is, for error messages (e.g. "entry 'policy' of the 'data' member")
    :return: (Any) the value, in which :class:`~.records.Ref` and :class:`~.records.Call` stand for globals
        and calls
    :raises InvalidModelFileError: when the data is not a valid pickle, is too large, or uses persistent ids,
        the extension registry or out-of-band buffers
    """
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise TypeError("read_pickle expects bytes, got {}".format(type(data).__name__))
    limits.check_size(len(data), limits.MAX_PICKLE_BYTES, what)
    machine = _Machine(what)
    budget = limits.MAX_PICKLE_INSTRUCTIONS
    try:
        for opcode, arg, _ in pickletools.genops(io.BytesIO(bytes(data))):
            budget -= 1
            if budget < 0:
                raise InvalidModelFileError("{} holds more than {} pickle instructions".format(
                    what, limits.MAX_PICKLE_INSTRUCTIONS))
            name = opcode.name
            if name == "STOP":
                result = machine.pop()
                if machine.stack or machine.marks:
                    raise machine.fail("data is left on the stack at the end")
                return result
            if name in _OUTSIDE:
                _outside(machine, name, arg)
                continue
            operation = _OPERATIONS.get(name)
            if operation is None:
                raise machine.fail("unknown instruction {}".format(name))
            operation(machine, arg)
    except InvalidModelFileError:
        raise
    except (ValueError, TypeError, IndexError, KeyError, OverflowError, UnicodeDecodeError, MemoryError) as err:
        raise machine.fail("{}: {}".format(type(err).__name__, err)) from err
    raise machine.fail("it ends before its STOP instruction (truncated)")
