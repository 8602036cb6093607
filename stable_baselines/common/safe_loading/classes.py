"""
Classes and functions a model file may name by reference.

- classes of ours, declared by the modules that define them when they are imported (:func:`declare_loadable`):
  policy classes, HER's model classes (DQN, SAC, TD3, DDPG), enums (HER's goal selection strategy, by value or by
  name); when a file names a class of one of our algorithm packages that is not imported yet, the root package
  imports it (as ``from stable_baselines import SAC`` would); one that cannot be imported here (DDPG, GAIL, PPO1,
  TRPO without mpi4py) or a module of ours that declared nothing is refused, saying what to import;
- a user's own policy class when a class of that module and name, subclassing our ``BasePolicy``, is already
  defined in this process;
- the rl-baselines-zoo's ``utils.CustomDQNPolicy`` / ``CustomSACPolicy`` / ``CustomMlpPolicy`` (which exist
  nowhere) as subclasses of our declared policies with the zoo's keyword arguments fixed;
- TensorFlow activation functions, by name (``relu``, ``tanh``, ...), whatever module the file names.

Loading imports no module a file names, except the library's own algorithm packages through the root package
(:mod:`stable_baselines.common.algorithm_packages`; common/ imports no algorithm).
"""
import copy
import enum
from typing import Any, Dict, List, Optional, Tuple, Type

from stable_baselines.common import algorithm_packages
from stable_baselines.common.safe_loading.converters import CALL_RESOLVERS, CALLS, REFERENCE_RESOLVERS, \
    Converter, dotted_name
from stable_baselines.common.safe_loading.errors import SafeUnpicklingError
from stable_baselines.common.safe_loading.records import Call, Ref

# (module, name) -> class, as the modules of ours declared them
_DECLARED: Dict[Tuple[str, str], type] = {}


def declare_loadable(*classes: type) -> None:
    """
    Declare classes of ours that model files may name by reference (at their ``__module__`` and ``__qualname__``):
    policy classes, model classes HER may wrap, enums. Each algorithm package declares its own when it is
    imported; loading never imports one.

    :param classes: (type) the classes
    """
    for cls in classes:
        _DECLARED[(cls.__module__, cls.__qualname__)] = cls


def _declared(module: str, name: str) -> Optional[type]:
    """
    :return: (type or None) the class of ours declared at ``module`` and ``name``; when its algorithm package is not
        imported yet, the root package imports it first (see :mod:`stable_baselines.common.algorithm_packages`)
    """
    found = _DECLARED.get((module, name))
    parts = module.split(".")
    if found is None and parts[0] == "stable_baselines" and len(parts) > 2 and parts[1] != "common" \
            and algorithm_packages.provide(".".join(parts[:2])) is None:
        found = _DECLARED.get((module, name))
    return found


def _undeclared(converter: Converter, what: str, module: str) -> Optional[SafeUnpicklingError]:
    """
    :return: (SafeUnpicklingError or None) the refusal of ``what`` when ``module`` is a module of ours that declared
        nothing (its package cannot be imported here, or does not declare it), None when it is not
    """
    parts = module.split(".")
    if parts[0] != "stable_baselines" or len(parts) < 2 or (parts[1] == "common" and converter.key != "policy") or \
            any(declared == module for declared, _ in _DECLARED):
        return None
    package = module if parts[1] == "common" else ".".join(parts[:2])
    reason = None if parts[1] == "common" else algorithm_packages.provide(package)
    detail = "" if reason is None else ", and {} cannot be imported: {}".format(package, reason)
    return converter.refuse(what, "no class of {} is declared in this process{}; declared are those of: {}"
                            .format(module, detail, ", ".join(sorted({name for name, _ in _DECLARED})) or "none"))


ACTIVATIONS = ("relu", "relu6", "elu", "selu", "tanh", "sigmoid", "softplus", "softsign", "leaky_relu", "swish",
               "silu", "gelu", "crelu", "identity")

# the rl-baselines-zoo's policy classes: name -> (module of our base class, base class name, fixed keyword arguments)
ZOO_POLICIES: Dict[str, Tuple[str, str, Dict[str, Any]]] = {
    "CustomDQNPolicy": ("stable_baselines.deepq.policies", "FeedForwardPolicy",
                        {"layers": [64], "layer_norm": True, "feature_extraction": "mlp"}),
    "CustomSACPolicy": ("stable_baselines.sac.policies", "FeedForwardPolicy",
                        {"layers": [256, 256], "feature_extraction": "mlp"}),
    "CustomMlpPolicy": ("stable_baselines.common.policies", "FeedForwardPolicy",
                        {"layers": [16], "feature_extraction": "mlp"}),
}
# modules where a file names them: the zoo's own, and ours (files saved by earlier versions of this library)
_ZOO_MODULES = ("utils", "utils.utils", "stable_baselines.common.safe_pickle",
                "stable_baselines.common.safe_loading.classes")
_ZOO_CLASSES: Dict[str, type] = {}


def zoo_policy_class(name: str) -> type:
    """
    The class standing for one of the rl-baselines-zoo's policy classes (see :data:`ZOO_POLICIES`): a subclass of
    our policy with the zoo's keyword arguments fixed, made once.

    :param name: (str) 'CustomDQNPolicy', 'CustomSACPolicy' or 'CustomMlpPolicy'
    :return: (type) the policy class
    :raises KeyError: for another name, or when the module of its base class has not declared it (not imported)
    """
    if name not in ZOO_POLICIES:
        raise KeyError("Unknown zoo policy {!r}; expected one of {}".format(name, sorted(ZOO_POLICIES)))
    if name not in _ZOO_CLASSES:
        module_name, base_name, fixed_kwargs = ZOO_POLICIES[name]
        base: Any = _declared(module_name, base_name)
        if base is None:
            raise KeyError("the zoo's {} derives from {}.{}, which is not declared in this process: import {} "
                           "before loading a file that names it".format(name, module_name, base_name, module_name))

        def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
            kwargs.update(copy.deepcopy(fixed_kwargs))
            base.__init__(self, *args, **kwargs)

        doc = "rl-baselines-zoo's ``{}``: {}.{} with {} fixed.".format(
            name, module_name, base_name, ", ".join("{}={!r}".format(k, v) for k, v in fixed_kwargs.items()))
        _ZOO_CLASSES[name] = type(base)(name, (base,), {"__init__": __init__, "__module__": __name__,
                                                         "__qualname__": name, "__doc__": doc})
    return _ZOO_CLASSES[name]


def __getattr__(name: str) -> Any:
    # the zoo policy classes pickle by reference to this module
    if name in ZOO_POLICIES:
        return zoo_policy_class(name)
    raise AttributeError("module {!r} has no attribute {!r}".format(__name__, name))


# the base class of our policies, registered by the module that defines it when it is imported (safe loading sits
# below the policies: it never imports them)
_POLICY_BASES: List[type] = []


def register_policy_base(base: type) -> None:
    """
    :param base: (type) the class every policy of ours derives from (``BasePolicy``); a file may name a class by
        reference only if it derives from it
    """
    if base not in _POLICY_BASES:
        _POLICY_BASES.append(base)


def is_policy_class(value: Any) -> bool:
    """:return: (bool) whether ``value`` is a class deriving from a registered policy base (``BasePolicy``)"""
    return isinstance(value, type) and any(issubclass(value, base) for base in _POLICY_BASES)


def _defined_subclass(converter: Converter, module: str, qualname: str) -> Optional[type]:
    """A subclass of our ``BasePolicy`` already defined in this process with this module and qualified name."""
    if "policy classes" not in converter.cache:  # listed once per pickle
        found: Dict[Tuple[str, str], type] = {}
        pending: List[type] = list(_POLICY_BASES)
        while pending:
            subclasses: List[type] = pending.pop().__subclasses__()
            for sub in subclasses:
                if (sub.__module__, sub.__qualname__) not in found:
                    found[(sub.__module__, sub.__qualname__)] = sub
                    pending.append(sub)
        converter.cache["policy classes"] = found
    return converter.cache["policy classes"].get((module, qualname))


def policy_class(converter: Converter, module: str, qualname: str, how: str = "by reference") -> Any:
    """
    :param converter: (Converter)
    :param module: (str) the module a file names
    :param qualname: (str) the class name a file names
    :param how: (str) how the file stores it, for the message
    :return: (type) the policy class, or NotImplemented when none is known under that name
    """
    declared = _declared(module, qualname)
    if is_policy_class(declared):
        return declared
    what = "the {}class {}.{} ({})".format("policy " if converter.key == "policy" else "", module, qualname, how)
    if module in _ZOO_MODULES and qualname in ZOO_POLICIES:
        try:
            return zoo_policy_class(qualname)
        except KeyError as err:
            raise converter.refuse(what, err.args[0]) from err
    found = _defined_subclass(converter, module, qualname)
    if found is not None:
        return found
    refusal = _undeclared(converter, what, module)
    if refusal is not None and (converter.key == "policy" or qualname.split(".")[-1][:1].isupper()):
        raise refusal
    if converter.key != "policy" and (module.split(".")[0] == "stable_baselines" or module in _ZOO_MODULES):
        return NotImplemented
    raise converter.refuse(what, "no policy class of that name is defined in this process: define or import it "
                                 "before loading")


def _reference(converter: Converter, ref: Ref) -> Any:
    declared = _declared(ref.module, ref.name)
    if declared is not None:
        return declared
    top, short = ref.module.split(".")[0], ref.name.split(".")[-1]
    if top in ("tensorflow", "keras", "tf_keras") and short in ACTIVATIONS:
        return tf_activation(short)
    if top == "stable_baselines" or ref.module in _ZOO_MODULES or converter.key == "policy" or \
            _defined_subclass(converter, ref.module, ref.name) is not None:
        return policy_class(converter, ref.module, ref.name)
    return NotImplemented


def tf_activation(name: str) -> Any:
    """
    :param name: (str) one of :data:`ACTIVATIONS`
    :return: (callable) the TensorFlow function of that name
    """
    from stable_baselines.common.tf_compat import tf  # pylint: disable=import-outside-toplevel
    for namespace in (tf.nn, tf.math, tf):
        value = getattr(namespace, name, None)
        if callable(value):
            return value
    raise KeyError(name)


def _enum_class(node: Any) -> Optional[Type[enum.Enum]]:
    """:return: (type or None) the declared enum that ``node`` (a Ref) names"""
    found = _declared(node.module, node.name) if isinstance(node, Ref) else None
    return found if isinstance(found, type) and issubclass(found, enum.Enum) else None


def _enum_member(converter: Converter, call: Call) -> Any:
    """``EnumClass(value)`` (pickle) or ``getattr(EnumClass, name)`` (pickle of Python >= 3.12)."""
    by_name = isinstance(call.func, Ref) and dotted_name(call.func) == "builtins.getattr" and len(call.args) == 2
    cls = _enum_class(call.args[0] if by_name else call.func)
    if cls is None:
        return NotImplemented
    arg = call.args[1] if by_name else call.args[0] if len(call.args) == 1 else None
    members = cls.__members__
    if by_name:
        if isinstance(arg, str) and arg in members:
            return members[arg]
    else:
        for member in members.values():
            if type(arg) in (int, str) and member.value == arg:
                return member
    raise converter.invalid("{!r} is not a member of {}".format(arg, cls.__name__))


def _class_by_value(converter: Converter, call: Call) -> type:
    """
    A class cloudpickle stored by value (a policy class defined in a script or notebook): never rebuilt from the
    file; the one policy class of that module and name already defined in this process stands for it.
    """
    args = call.args
    name = args[1] if len(args) > 1 and isinstance(args[1], str) else "?"
    type_kwargs = args[3] if len(args) > 3 and isinstance(args[3], dict) else {}
    module_name = type_kwargs.get("__module__")
    module = module_name if isinstance(module_name, str) else "?"
    _defined_subclass(converter, module, name)  # fills the cache
    found = [cls for (cls_module, _), cls in converter.cache["policy classes"].items()
             if cls_module == module and cls.__name__ == name]
    if len(set(found)) == 1:
        return found[0]
    raise converter.refuse("the class {}.{}, stored by value".format(module, name),
                           "classes are never built from a file; define or import that policy class before loading, "
                           "or pass it as policy=... / custom_objects" if not found else
                           "several policy classes of that name are defined in this process")


def _getattr_call(converter: Converter, call: Call) -> Any:
    result = _enum_member(converter, call)
    if result is NotImplemented:
        raise converter.refuse("a call to builtins.getattr", "attributes are never looked up for a file")
    return result


REFERENCE_RESOLVERS.append(_reference)
CALL_RESOLVERS.append(_enum_member)
CALLS["builtins.getattr"] = _getattr_call
CALLS["cloudpickle._make_skeleton_class"] = _class_by_value
