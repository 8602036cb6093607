"""compile_function: reads the code arguments as each candidate version's and keeps the reading all agree on."""
from typing import Any, Dict, List, Mapping, NamedTuple, Optional, Sequence, Tuple, cast

from stable_baselines.common.safe_loading.bytecode.values import (
    _CO_GENERATOR_LIKE, _CO_VARARGS, _CO_VARKEYWORDS, _describe, EMPTY_CELL, _malformed, _plain_number, _Refusal,
    UNSUPPORTED, UnsupportedFunction)
from stable_baselines.common.safe_loading.bytecode.decoding import _code_fields, _VERSIONS
from stable_baselines.common.safe_loading.bytecode.nodes import _Opaque
from stable_baselines.common.safe_loading.bytecode.executor import _Environment, _Executor
from stable_baselines.common.safe_loading.bytecode.function import (
    ArithmeticFunction, _check_plain, _checked_name, _expression_key)


def _closure_values(fields: Dict[str, Any], closure: Sequence[Any]) -> Tuple[Any, ...]:
    """:return: (tuple) per free variable, a const node or an _Opaque marker (refused when used)"""
    freevars = fields["freevars"]
    if len(closure) != len(freevars):
        raise UnsupportedFunction("the closure has {} cells for {} free variables".format(len(closure), len(freevars)))
    values: List[Any] = []
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
            refusal = cast(_Refusal, reading.refusal)  # every reading without an expression has a refusal
            return refusal.rank, -reading.defects, refusal.offset
        best = max(readings, key=plausibility)
        alike = [reading.version for reading in readings
                 if plausibility(reading) == plausibility(best) and str(reading.refusal) == str(best.refusal)]
        raise UnsupportedFunction("cannot rebuild function {!r}: {} (read as Python {} bytecode)".format(
            qualname, best.refusal, " / ".join(alike)))
    if len({_expression_key(_expression_of(reading)) for reading in valid}) > 1:
        fewest = min(reading.unreachable for reading in valid)
        valid = [reading for reading in valid if reading.unreachable == fewest]
    if len({_expression_key(_expression_of(reading)) for reading in valid}) > 1:
        raise UnsupportedFunction("cannot rebuild function {!r}: its bytecode reads differently as Python {}, and "
                                  "the file does not say which wrote it".format(
                                      qualname, " and ".join(reading.version for reading in valid)))
    return _expression_of(valid[0]), tuple(reading.version for reading in valid)


def _expression_of(reading: _Reading) -> tuple:
    """:return: (tuple) the expression of a valid reading"""
    return cast(tuple, reading.expression)


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
