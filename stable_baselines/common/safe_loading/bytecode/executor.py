"""The symbolic stack machine: runs one candidate version's instructions on expressions, every path."""
from typing import Any, Callable, Dict, List, Mapping, NamedTuple, Optional, Sequence, Tuple

from stable_baselines.common.safe_loading.bytecode.values import (
    _describe, _malformed, MAX_BRANCH_DEPTH, MAX_CALL_ARGS, MAX_DEPTH, MAX_NODES, MAX_STACK, MAX_STEPS, _OUTSIDE,
    _plain_number, _Refusal, UNSUPPORTED)
from stable_baselines.common.safe_loading.bytecode.decoding import _decode, _Instruction, _outside_refusal, _Version
from stable_baselines.common.safe_loading.bytecode.nodes import (
    _BINARY_NAMES, _BINARY_OP_ARGS, _BINARY_OP_OTHERS, _Builtin, _BUILTIN_NAMES, _children, _COMPARISONS,
    _drop_evaluated, _ENDS_BLOCK, _INTRINSIC_UNARY_POSITIVE, _JUMPS, _LEAVES, _NULL, _Opaque, _test_of,
    _TRUTH_VALUED)


class _Path(object):
    """The state of one execution path: position, stack, local variables, facts known about tests."""

    __slots__ = ("offset", "stack", "slots", "pending", "known", "branches")

    def __init__(self, offset: int, stack: list, slots: list, pending: list, known: dict, branches: int) -> None:
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

    def __init__(self, version: _Version, fields: Dict[str, Any], environment: _Environment) -> None:
        self.version = version
        self.fields = fields
        self.environment = environment
        self.instructions = _decode(version, fields["code"])
        self.steps = 0
        self.measures: Dict[int, Tuple[int, int]] = {}  # id(node) -> (size, depth) of every node built
        self.keep_alive: List[Any] = []  # the nodes of self.measures, so their ids stay theirs
        self.depth_at: Dict[int, int] = {}  # offset -> stack depth the first time it was reached
        self.const_nodes: Dict[Any, tuple] = {}
        self.handlers = self._handlers()

    # -- entry point
    def run(self) -> tuple:
        """:return: (tuple) the expression"""
        count = self.environment.parameter_count
        slots: List[Optional[tuple]] = [("arg", index) for index in range(count)]
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
        node: Any = self.const_nodes.get(index)  # a const node, or an _Opaque refused when used
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
