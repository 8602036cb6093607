"""
Which entries of a model file may set what on a model, and of what kind.

A model saves the settings its class declares (:attr:`BaseRLModel._saved_settings` plus :data:`COMMON_SETTINGS`).
Loading accepts exactly those names, the class's constructor arguments (older versions saved some of them) and
the names it declares as legacy (:attr:`BaseRLModel._legacy_settings`, read and dropped); each value must be of
the kind the class declares (:attr:`BaseRLModel._setting_kinds`), or of the kind :data:`COMMON_KINDS` gives, or
of the kind of its constructor default. An unknown name, a name of a method or property, or a value of the wrong
kind is refused with an :class:`InvalidModelFileError` naming the entry.
"""
import inspect
import os
import warnings
from typing import Any, Callable, Dict, Iterable, List, Optional, Tuple, cast

import numpy as np
from gymnasium import spaces

from stable_baselines.common.noise import ActionNoise, AdaptiveParamNoiseSpec
from stable_baselines.common.safe_loading import limits
from stable_baselines.common.safe_loading.classes import is_policy_class
from stable_baselines.common.safe_loading.errors import InvalidModelFileError
from stable_baselines.common.safe_loading.saved_objects import is_expert_dataset

# saved by every model after its own settings, in this order
COMMON_SETTINGS = ("verbose", "policy", "observation_space", "action_space", "n_envs", "n_cpu_tf_sess", "seed",
                   "_vectorize_action", "policy_kwargs")
# constructor arguments that are never taken from a file (environments, where to write logs)
_NOT_FROM_FILES = ("self", "policy", "env", "eval_env", "tensorboard_log", "full_tensorboard_log",
                   "_init_setup_model", "replay_buffer", "args", "kwargs")


class SettingKind(object):
    """
    What a setting may hold.

    :param description: (str) the kind, for messages ("a number", ...)
    :param test: (callable) value -> bool
    """

    def __init__(self, description: str, test: Callable[[Any], bool]) -> None:
        self.description = description
        self.test = test

    def __or__(self, other: "SettingKind") -> "SettingKind":
        return SettingKind("{} or {}".format(self.description, other.description),
                           lambda value: self.test(value) or other.test(value))


def _is_number(value: Any) -> bool:
    if isinstance(value, np.ndarray) and value.shape == ():
        value = value[()]
    if not isinstance(value, (int, float, np.integer, np.floating)) or isinstance(value, (bool, np.bool_)):
        return False
    try:
        return not np.isnan(float(value))
    except OverflowError:  # an int beyond any float (a JSON number of hundreds of digits)
        return False


def _is_plain(value: Any, depth: int = 0) -> bool:
    if value is None or isinstance(value, (bool, str, np.bool_)) or _is_number(value):
        return True
    if depth > 20:
        return False
    if isinstance(value, np.ndarray):
        return value.dtype.kind in "biufcUS"
    if isinstance(value, (list, tuple)):
        return all(_is_plain(item, depth + 1) for item in value)
    if isinstance(value, dict):
        return all(isinstance(key, (str, int)) and _is_plain(item, depth + 1) for key, item in value.items())
    return False


def _is_function(value: Any) -> bool:
    """A function a converter rebuilt (TensorFlow activation, schedule, placeholder); never a class."""
    return callable(value) and not isinstance(value, type)


def _space_size(space: Any) -> float:
    """The number of input or output units a space asks a network for (inf for an unknown kind)."""
    if isinstance(space, spaces.Box):
        return float(np.prod(space.shape, dtype=np.float64))
    if isinstance(space, spaces.Discrete):
        return float(space.n)
    if isinstance(space, spaces.MultiDiscrete):
        return float(np.sum(space.nvec, dtype=np.float64))
    if isinstance(space, spaces.MultiBinary):
        return float(np.prod(space.shape, dtype=np.float64))
    if isinstance(space, (spaces.Tuple, spaces.Dict)):
        children = space.spaces.values() if isinstance(space, spaces.Dict) else space.spaces
        return float(sum(_space_size(child) for child in children))
    return float("inf")


def _is_sized_space(value: Any) -> bool:
    return isinstance(value, spaces.Space) and _space_size(value) <= limits.MAX_SPACE_ELEMENTS


def _is_width(value: Any) -> bool:
    return _is_number(value) and float(value).is_integer() and 0 < value <= limits.MAX_LAYER_WIDTH


def _is_layer_description(name: str, value: Any) -> bool:
    """
    ``layers``: a list of widths; ``net_arch``: a list of widths, ``'lstm'`` and dicts of lists of widths (``pi``,
    ``vf``...); ``n_lstm``: a width; each width at most MAX_LAYER_WIDTH.
    """
    if value is None:
        return True
    if name == "n_lstm":
        return _is_width(value)
    if not isinstance(value, (list, tuple)) or len(value) > limits.MAX_LAYERS:
        return False
    for item in value:
        if isinstance(item, dict) and name == "net_arch":
            if not all(isinstance(key, str) and isinstance(widths, (list, tuple)) and len(widths) <= limits.MAX_LAYERS
                       and all(map(_is_width, widths)) for key, widths in item.items()):
                return False
        elif not (_is_width(item) or name == "net_arch" and item == "lstm"):  # LstmPolicy's net_arch has 'lstm'
            return False
    return True


def _is_policy_kwargs(value: Any, depth: int = 0) -> bool:
    if depth == 0:
        return value is None or isinstance(value, dict) and _is_policy_kwargs(value, 1) and \
            all(_is_layer_description(name, value.get(name)) for name in ("layers", "net_arch", "n_lstm"))
    if isinstance(value, dict) and depth < 20:
        return all(isinstance(key, str) and _is_policy_kwargs(item, depth + 1) for key, item in value.items())
    if isinstance(value, (list, tuple)) and depth < 20:
        return all(_is_policy_kwargs(item, depth + 1) for item in value)
    return _is_plain(value) or _is_function(value)


NONE = SettingKind("None", lambda value: value is None)
NUMBER = SettingKind("a number", _is_number)
BOOL = SettingKind("True or False", lambda value: isinstance(value, (bool, np.bool_)))
TEXT = SettingKind("a string", lambda value: isinstance(value, str))
PLAIN = SettingKind("plain data (numbers, strings, lists, dicts)", _is_plain)
FUNCTION = SettingKind("a function", _is_function)
SPACE = SettingKind("a gymnasium space", lambda value: isinstance(value, spaces.Space))
SIZED_SPACE = SettingKind("a gymnasium space of at most {} elements (safe_loading.limits.MAX_SPACE_ELEMENTS)".format(
    limits.MAX_SPACE_ELEMENTS), _is_sized_space)
# a policy class and an expert dataset are of the classes their modules declared to safe_loading (register_policy_base,
# expert_dataset_class): this module reads those declarations and imports neither the policies nor GAIL
POLICY = SettingKind("a policy class", is_policy_class)
POLICY_KWARGS = SettingKind("a dict of policy arguments (plain data and functions; at most {} layers of at most {} "
                            "units: safe_loading.limits.MAX_LAYERS, MAX_LAYER_WIDTH)".format(
                                limits.MAX_LAYERS, limits.MAX_LAYER_WIDTH), _is_policy_kwargs)
ACTION_NOISE = SettingKind("an action noise object", lambda value: isinstance(value, ActionNoise))
PARAM_NOISE = SettingKind("an AdaptiveParamNoiseSpec", lambda value: isinstance(value, AdaptiveParamNoiseSpec))
EXPERT_DATASET = SettingKind("an ExpertDataset", is_expert_dataset)

def count(largest: int) -> SettingKind:
    """
    :param largest: (int) the largest value accepted
    :return: (SettingKind) a whole number from 0 to ``largest`` (settings that size threads or graphs)
    """
    return SettingKind("a whole number from 0 to {}".format(largest),
                       lambda value: _is_number(value) and float(value).is_integer() and 0 <= value <= largest)


# kinds of the settings shared by several algorithms
COMMON_KINDS = {
    "policy": POLICY, "observation_space": SIZED_SPACE | NONE, "action_space": SIZED_SPACE | NONE,
    "n_envs": count(1 << 20) | NONE, "n_cpu_tf_sess": count(1024) | NONE, "n_steps": count(1 << 20),
    # what set_global_seeds accepts (NumPy's seeds are 32-bit); verbose is a level (0, 1, 2)
    "seed": count((1 << 32) - 1) | NONE, "verbose": count(100), "_vectorize_action": BOOL,
    "policy_kwargs": POLICY_KWARGS, "learning_rate": NUMBER | FUNCTION, "cliprange": NUMBER | FUNCTION,
    "cliprange_vf": NUMBER | FUNCTION | NONE, "action_noise": ACTION_NOISE | NONE,
    "param_noise": PARAM_NOISE | BOOL | NONE, "ent_coef": NUMBER | TEXT, "target_entropy": NUMBER | TEXT,
}


def _default_kind(default: Any) -> SettingKind:
    if isinstance(default, bool):
        return BOOL
    if isinstance(default, (int, float)):
        return NUMBER
    if isinstance(default, str):
        return TEXT
    return PLAIN


def _class_declarations(model_class: type, name: str) -> Iterable[Any]:
    for klass in reversed(model_class.__mro__):
        if name in vars(klass):
            yield vars(klass)[name]


def settings_schema(model_class: type) -> Tuple[Dict[str, SettingKind], Tuple[str, ...]]:
    """
    :param model_class: (type) a model class
    :return: (dict, tuple) the names a file may set -> their kind, and the legacy names that are read and dropped
    """
    saved = list(COMMON_SETTINGS)
    legacy = []
    declared = dict(COMMON_KINDS)
    for names in _class_declarations(model_class, "_saved_settings"):
        saved.extend(names)
    for names in _class_declarations(model_class, "_legacy_settings"):
        legacy.extend(names)
    for kinds in _class_declarations(model_class, "_setting_kinds"):
        declared.update(kinds)
    defaults = {}
    constructor = cast(Any, model_class).__init__  # the class's own __init__, not an instance's
    for parameter in inspect.signature(constructor).parameters.values():
        if parameter.name not in _NOT_FROM_FILES and parameter.kind in (parameter.POSITIONAL_OR_KEYWORD,
                                                                        parameter.KEYWORD_ONLY):
            defaults[parameter.name] = parameter.default
    schema = {}
    for name in list(saved) + list(defaults) + list(legacy):
        if name in declared:
            schema[name] = declared[name]
        elif name in defaults and defaults[name] is not inspect.Parameter.empty:
            schema[name] = _default_kind(defaults[name])
        else:
            schema[name] = PLAIN
    return schema, tuple(name for name in legacy if name not in saved and name not in defaults)


# the policy arguments the models fill in themselves
_POLICY_POSITIONALS = ("self", "sess", "ob_space", "ac_space", "n_env", "n_steps", "n_batch", "reuse")


def _check_policy_kwargs(policy: Any, policy_kwargs: Any, what: str, trusted: Iterable[str]) -> None:
    """Refuse ``policy_kwargs`` that the policy's constructor cannot take (before the graph is built)."""
    if not isinstance(policy, type) or not isinstance(policy_kwargs, dict) or "policy_kwargs" in trusted:
        return
    try:
        parameters = inspect.signature(cast(Any, policy).__init__).parameters
    except (TypeError, ValueError):
        return
    takes_any = any(parameter.kind == parameter.VAR_KEYWORD for parameter in parameters.values())
    refused = [name for name in policy_kwargs if name in _POLICY_POSITIONALS or
               not takes_any and name not in parameters]
    if refused:
        accepted = [name for name in parameters if name not in _POLICY_POSITIONALS and
                    parameters[name].kind != parameters[name].VAR_KEYWORD]
        raise InvalidModelFileError("Entry 'policy_kwargs' of {} holds {} that the policy {} does not take (the model "
                                    "gives sess, ob_space, ac_space, n_env, n_steps, n_batch and reuse itself; "
                                    "the policy's own arguments are: {})".format(
                                        what, refused, policy.__name__, ", ".join(accepted) or "none"))


def _nature_cnn_parameters(shape: Tuple[int, ...]) -> float:
    """The parameters of the Atari CNN (3 convolutions, a dense layer of 512) on images of ``shape``."""
    height, width, channels = (float(dim) for dim in shape)
    for kernel, stride in ((8, 4), (4, 2), (3, 1)):
        height, width = max((height - kernel) // stride + 1, 1.0), max((width - kernel) // stride + 1, 1.0)
    return 8 * 8 * channels * 32 + 4 * 4 * 32 * 64 + 3 * 3 * 64 * 64 + height * width * 64 * 512


def _widths(policy_kwargs: Dict[str, Any]) -> List[List[float]]:
    """The chains of layer widths that ``layers`` / ``net_arch`` describe (shared layers, then each head)."""
    chains: List[List[float]] = []
    layers, net_arch = policy_kwargs.get("layers"), policy_kwargs.get("net_arch")
    if isinstance(layers, (list, tuple)):
        chains.append([float(width) for width in layers])
    if isinstance(net_arch, (list, tuple)):
        shared = [float(item) for item in net_arch if _is_number(item)]
        heads = [item for item in net_arch if isinstance(item, dict)]
        chains.append(shared)
        for head in heads:
            chains.extend(shared[-1:] + [float(width) for width in widths] for widths in head.values())
    return chains or [[64.0, 64.0]]


def network_parameters(observation_space: Any, action_space: Any, policy_kwargs: Any) -> float:
    """
    An upper estimate of the parameters of one network of a model, from its spaces and architecture: the first
    layer on the flattened observation (or on the CNN of an image), each layer on the previous one, the LSTM, and
    an output of the action size on the widest layer.

    :param observation_space: (gymnasium.spaces.Space) the observation space
    :param action_space: (gymnasium.spaces.Space) the action space
    :param policy_kwargs: (dict) the policy's arguments
    :return: (float) the estimate
    """
    kwargs = policy_kwargs if isinstance(policy_kwargs, dict) else {}
    inputs = _space_size(observation_space)
    total = 0.0
    if isinstance(observation_space, spaces.Box) and len(observation_space.shape) == 3:
        total += _nature_cnn_parameters(observation_space.shape)
    outputs = 2 * _space_size(action_space)
    widest = 0.0
    for chain in _widths(kwargs):
        previous = inputs
        for width in chain:
            total += (previous + 1) * width
            previous, widest = width, max(widest, width)
    n_lstm = kwargs.get("n_lstm")
    if _is_number(n_lstm):
        cells = float(cast(float, n_lstm))
        total += 4 * cells * (max(inputs, widest) + cells + 1)
        widest = max(widest, cells)
    return total + (max(widest, inputs) + 1) * outputs


def _check_network_size(settings: Dict[str, Any], what: str, trusted: Iterable[str]) -> None:
    if "policy_kwargs" in trusted or not all(isinstance(settings.get(name), spaces.Space)
                                             for name in ("observation_space", "action_space")):
        return
    estimate = network_parameters(settings["observation_space"], settings["action_space"],
                                  settings.get("policy_kwargs"))
    if estimate > limits.MAX_NETWORK_PARAMETERS:
        raise InvalidModelFileError("{} describes a network of about {:.0f} parameters (its spaces and policy_kwargs), "
                                    "more than the {} a model file may (stable_baselines.common.safe_loading.limits."
                                    "MAX_NETWORK_PARAMETERS; raise it for a trusted file)".format(
                                        what, estimate, limits.MAX_NETWORK_PARAMETERS))


def _is_code_attribute(model_class: type, name: str) -> bool:
    """Whether the class defines ``name`` as a method, property or other descriptor (never set from a file)."""
    for klass in model_class.__mro__:
        if name in vars(klass):
            attribute = vars(klass)[name]
            return callable(attribute) or hasattr(attribute, "__get__") or hasattr(attribute, "__set__")
    return False


def check_settings(model_class: type, data: Dict[str, Any], what: str, trusted: Iterable[str] = (),
                   extra: Optional[Dict[str, SettingKind]] = None) -> Dict[str, Any]:
    """
    Validate the class parameters read from a model file.

    :param model_class: (type) the model class loading the file
    :param data: (dict) the class parameters read from the file
    :param what: (str) the file, for messages
    :param trusted: (iterable) names whose values the user supplied (``custom_objects``, keyword arguments): not
        checked
    :param extra: (dict) further names the caller accepts here, and their kinds (e.g. HER's entries when the
        wrapped model reads a HER file)
    :return: (dict) the settings to set on the model (legacy names and ``extra`` names removed)
    :raises InvalidModelFileError: an unknown name, a name of a method or property, or a value of the wrong kind
    """
    schema, legacy = settings_schema(model_class)
    extra = extra or {}
    trusted = set(trusted)
    settings = {}
    for name, value in data.items():
        kind = schema.get(name, extra.get(name))
        if kind is None and name in trusted and not name.startswith("_"):
            continue  # an entry unknown to this version that the user chose to supply: dropped
        if kind is None or name.startswith("__") or _is_code_attribute(model_class, name):
            raise InvalidModelFileError(
                "Entry {!r} of {} is not a setting a {} model file holds (its settings are: {}); the file was not "
                "written by Stable Baselines for this algorithm, or it was modified. If you trust the file, "
                "custom_objects={{{!r}: None}} drops the entry".format(
                    name, what, model_class.__name__, ", ".join(sorted(schema)), name))
        if name not in trusted and not kind.test(value):
            raise InvalidModelFileError("Entry {!r} of {} must be {}, got a {}{}".format(
                name, what, kind.description, type(value).__name__,
                " ({!r})".format(value) if isinstance(value, (str, int, float)) and len(repr(value)) < 80 else ""))
        if name not in legacy and name not in extra:
            settings[name] = value
    _check_policy_kwargs(settings.get("policy"), settings.get("policy_kwargs"), what, trusted)
    _check_network_size(settings, what, trusted)
    threads = settings.get("n_cpu_tf_sess")
    cores = os.cpu_count() or 1
    if "n_cpu_tf_sess" not in trusted and _is_number(threads) and cast(float, threads) > cores:
        warnings.warn("{} asks for n_cpu_tf_sess={} TensorFlow threads; this machine has {} cores: the model uses {}"
                      .format(what, threads, cores, cores))
        settings["n_cpu_tf_sess"] = cores
    n_steps = settings.get("n_steps")
    if getattr(settings.get("policy"), "recurrent", False) and "n_steps" not in trusted and _is_number(n_steps) and \
            cast(float, n_steps) > limits.MAX_RECURRENT_STEPS:
        raise InvalidModelFileError("Entry 'n_steps' of {} is {}: a recurrent policy is unrolled over that many steps "
                                    "when the model is built, and model files hold at most {} "
                                    "(safe_loading.limits.MAX_RECURRENT_STEPS)".format(what, n_steps,
                                                                                       limits.MAX_RECURRENT_STEPS))
    return settings
