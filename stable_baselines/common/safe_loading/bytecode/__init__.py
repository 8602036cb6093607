"""
Small pickled functions (learning-rate and clip-range schedules) rebuilt from their bytecode, never run.

cloudpickle stores a function as the arguments of its ``types.CodeType(...)`` call plus closure cells, globals
and defaults. Building that code object would let a model file run anything, so this package reads the bytecode
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

Layout of the package: :mod:`.values` (markers, bounds, refusals), :mod:`.decoding` (opcode tables per version,
code fields, instructions), :mod:`.nodes` (stack values and expression helpers), :mod:`.executor` (the symbolic
stack machine), :mod:`.arithmetic` (evaluation and rendering), :mod:`.function` (:class:`ArithmeticFunction`)
and :mod:`.compiler` (:func:`compile_function`). The public names live here; pickles and messages name this
module, never the one a name is defined in.
"""
from stable_baselines.common.safe_loading.bytecode.values import EMPTY_CELL, UNSUPPORTED, UnsupportedFunction, \
    _Marker
from stable_baselines.common.safe_loading.bytecode.decoding import _VERSIONS
from stable_baselines.common.safe_loading.bytecode.arithmetic import _BINARY_FUNCTIONS, _COMPARE_FUNCTIONS
from stable_baselines.common.safe_loading.bytecode.function import ArithmeticFunction, _UNSET
from stable_baselines.common.safe_loading.bytecode.compiler import compile_function

__all__ = ["EMPTY_CELL", "UNSUPPORTED", "UnsupportedFunction", "ArithmeticFunction", "compile_function"]

# A saved ArithmeticFunction and a pickled marker refer to their class by module path: keep this one.
for _public in (_Marker, UnsupportedFunction, ArithmeticFunction, compile_function):
    _public.__module__ = __name__
del _public
