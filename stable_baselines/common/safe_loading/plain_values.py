"""
Plain data that older pickle protocols spell as calls: ``set([...])``, ``bytearray(...)``, ``complex(re, im)``,
``_codecs.encode(text, 'latin1')`` (bytes under protocol 2), ``OrderedDict``, and builtin types by reference.
"""
import collections
from typing import Any

from stable_baselines.common.safe_loading.converters import CALLS, REFERENCES, Converter
from stable_baselines.common.safe_loading.records import Call, Ref

_BUILTIN_TYPES = {"int": int, "float": float, "bool": bool, "complex": complex, "str": str, "bytes": bytes,
                  "tuple": tuple, "list": list, "dict": dict, "set": set, "frozenset": frozenset}
_TEXT_ENCODINGS = ("latin1", "latin-1", "iso-8859-1", "utf-8", "utf8", "ascii")


def _arguments(converter: Converter, call: Call, count: range, what: str) -> list:
    if len(call.args) not in count or call.kwargs or call.states or call.items or call.entries:
        raise converter.invalid("{} built with unexpected arguments or state".format(what))
    return [converter.value(arg) for arg in call.args]


def _collection(kind: type) -> Any:
    def convert(converter: Converter, call: Call) -> Any:
        args = _arguments(converter, call, range(0, 2), kind.__name__)
        items = args[0] if args else ()
        if not isinstance(items, (list, tuple, set, frozenset)):
            raise converter.invalid("a {} built from a {}".format(kind.__name__, type(items).__name__))
        try:
            return kind(items)
        except TypeError as err:
            raise converter.invalid("a {} with unhashable members".format(kind.__name__)) from err
    return convert


def _bytearray(converter: Converter, call: Call) -> bytearray:
    args = _arguments(converter, call, range(0, 3), "bytearray")
    if not args:
        return bytearray()
    if isinstance(args[0], (bytes, bytearray)) and len(args) == 1:
        return bytearray(args[0])
    if isinstance(args[0], str) and len(args) == 2 and args[1] in _TEXT_ENCODINGS:
        return bytearray(args[0], args[1])
    raise converter.invalid("bytearray built from {}".format([type(arg).__name__ for arg in args]))


def _complex(converter: Converter, call: Call) -> complex:
    args = _arguments(converter, call, range(1, 3), "complex")
    if not all(type(arg) in (int, float) for arg in args):
        raise converter.invalid("complex built from non-numbers")
    return complex(*args)


def _encode(converter: Converter, call: Call) -> bytes:
    args = _arguments(converter, call, range(1, 3), "_codecs.encode")
    encoding = args[1] if len(args) == 2 else "utf-8"
    if not isinstance(args[0], str) or encoding not in _TEXT_ENCODINGS:
        raise converter.invalid("_codecs.encode of a {} with encoding {!r}".format(type(args[0]).__name__, encoding))
    return args[0].encode(encoding)


def _ordered_dict(converter: Converter, call: Call) -> collections.OrderedDict:
    if call.kwargs or call.states or call.items or len(call.args) > 1:
        raise converter.invalid("an OrderedDict built with unexpected arguments or state")
    result = collections.OrderedDict()
    pairs = list(call.args[0]) if call.args else []
    if not all(isinstance(pair, (list, tuple)) and len(pair) == 2 for pair in pairs):
        raise converter.invalid("an OrderedDict built from something other than (key, value) pairs")
    for raw_key, raw_value in pairs + list(call.entries):
        result[converter.hashable(raw_key)] = converter.value(raw_value)
    return result


def _builtin_type(_: Converter, ref: Ref) -> type:
    return _BUILTIN_TYPES[ref.name]


CALLS["builtins.set"] = _collection(set)
CALLS["builtins.frozenset"] = _collection(frozenset)
CALLS["builtins.bytearray"] = _bytearray
CALLS["builtins.complex"] = _complex
CALLS["_codecs.encode"] = _encode
CALLS["collections.OrderedDict"] = _ordered_dict
for _name in _BUILTIN_TYPES:
    REFERENCES["builtins." + _name] = _builtin_type
