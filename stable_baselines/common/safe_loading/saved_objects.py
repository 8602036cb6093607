"""
Objects of ours that model and statistics files legitimately hold, each rebuilt through its public constructor from
validated fields: action and parameter noise, running mean/variance statistics, schedules, VecNormalize settings,
the GAIL expert dataset, and the replay memory of old DDPG files (dropped).
"""
from typing import TYPE_CHECKING, Any, Dict, List, Optional, TypeVar

import numpy as np

from stable_baselines.common import algorithm_packages, schedules
from stable_baselines.common.noise import AdaptiveParamNoiseSpec, NormalActionNoise, OrnsteinUhlenbeckActionNoise
from stable_baselines.common.running_mean_std import RunningMeanStd
from stable_baselines.common.safe_loading.converters import INSTANCES, REFERENCES, Converter
from stable_baselines.common.safe_loading.records import Call, Ref

if TYPE_CHECKING:  # typing.TypeGuard needs Python 3.10; the annotation is only read by type checkers
    from typing import TypeGuard


def real(converter: Converter, value: Any, what: str, minimum: Optional[float] = None,
         positive: bool = False) -> float:
    """
    :param converter: (Converter)
    :param value: (Any) a converted value
    :param what: (str) its name, for messages
    :param minimum: (float) the smallest value accepted
    :param positive: (bool) whether 0 is refused
    :return: (float) a finite number
    """
    if isinstance(value, np.ndarray) and value.shape == ():
        value = value[()]
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)) or \
            not np.isfinite(float(value)) or (minimum is not None and value < minimum) or \
            (positive and value <= 0):
        raise converter.invalid("{} must be a finite number{}, got {!r}".format(
            what, " > 0" if positive else " >= {}".format(minimum) if minimum is not None else "", value))
    return float(value)


def finite_array(converter: Converter, value: Any, what: str, shape: Optional[tuple] = None) -> np.ndarray:
    """
    :param converter: (Converter)
    :param value: (Any) a converted value (array or number)
    :param what: (str) its name, for messages
    :param shape: (tuple) the shape it must have, if known
    :return: (np.ndarray) a float64 array of finite numbers
    """
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (np.ndarray, np.generic, int, float)):
        raise converter.invalid("{} must be numbers, got a {}".format(what, type(value).__name__))
    array = np.asarray(value)
    if array.dtype.kind not in "biuf" or not np.isfinite(array.astype(np.float64)).all():
        raise converter.invalid("{} must be finite numbers".format(what))
    if shape is not None and array.shape != shape:
        raise converter.invalid("{} has shape {}, expected {}".format(what, array.shape, shape))
    return array.astype(np.float64)


def _build(converter: Converter, what: str, constructor: Any, *args: Any, **kwargs: Any) -> Any:
    try:
        return constructor(*args, **kwargs)
    except (ValueError, TypeError) as err:
        raise converter.invalid("a {} with invalid fields: {}".format(what, err)) from err


# --- noise -------------------------------------------------------------------------------------------
def _normal_noise(converter: Converter, call: Call) -> Any:
    fields = converter.attributes(call, ("_mu", "_sigma"), "NormalActionNoise")
    mean = finite_array(converter, fields.get("_mu"), "the noise mean")
    sigma = finite_array(converter, fields.get("_sigma"), "the noise sigma")
    return _build(converter, "NormalActionNoise", NormalActionNoise, mean, sigma)


def _ou_noise(converter: Converter, call: Call) -> Any:
    fields = converter.attributes(call, ("_theta", "_mu", "_sigma", "_dt", "initial_noise", "noise_prev"),
                                  "OrnsteinUhlenbeckActionNoise")
    mean = finite_array(converter, fields.get("_mu"), "the noise mean")
    initial = fields.get("initial_noise")
    noise = _build(converter, "OrnsteinUhlenbeckActionNoise", OrnsteinUhlenbeckActionNoise, mean,
                   finite_array(converter, fields.get("_sigma"), "the noise sigma"),
                   theta=real(converter, fields.get("_theta", .15), "theta"),
                   dt=real(converter, fields.get("_dt", 1e-2), "dt", positive=True),
                   initial_noise=None if initial is None else finite_array(converter, initial, "initial_noise",
                                                                           mean.shape))
    if fields.get("noise_prev") is not None:
        noise.noise_prev = finite_array(converter, fields["noise_prev"], "the previous noise", mean.shape)
    return noise


def _param_noise(converter: Converter, call: Call) -> Any:
    names = ("initial_stddev", "desired_action_stddev", "adoption_coefficient")
    fields = converter.attributes(call, names + ("current_stddev",), "AdaptiveParamNoiseSpec")
    spec = _build(converter, "AdaptiveParamNoiseSpec", AdaptiveParamNoiseSpec,
                  **{name: real(converter, fields[name], name, positive=True) for name in names if name in fields})
    if "current_stddev" in fields:
        spec.current_stddev = real(converter, fields["current_stddev"], "current_stddev", positive=True)
    return spec


# --- statistics and settings -------------------------------------------------------------------------
def _running_mean_std(converter: Converter, call: Call) -> Any:
    fields = converter.attributes(call, ("mean", "var", "count"), "RunningMeanStd")
    mean = finite_array(converter, fields.get("mean"), "the running mean")
    var = finite_array(converter, fields.get("var"), "the running variance", mean.shape)
    if (var < 0).any():
        raise converter.invalid("a running variance below 0")
    rms = RunningMeanStd(shape=mean.shape)
    rms.mean, rms.var = mean, var
    rms.count = real(converter, fields.get("count"), "the running count", positive=True)
    return rms


class SavedVecNormalize(object):
    """
    The validated content of a pickled ``VecNormalize`` (statistics and settings, never the wrapped environment);
    ``VecNormalize.load`` builds the wrapper from it around the given environment.

    :param settings: (dict) constructor arguments (training, norm_obs, norm_reward, clip_obs, clip_reward, gamma,
        epsilon, and norm_obs_keys for statistics per entry of a Dict observation)
    :param obs_rms: (RunningMeanStd or dict) observation statistics (per key: key -> RunningMeanStd)
    :param ret_rms: (RunningMeanStd) return statistics
    """

    def __init__(self, settings: Dict[str, Any], obs_rms: Any, ret_rms: Any) -> None:
        self.settings = settings
        self.obs_rms = obs_rms
        self.ret_rms = ret_rms


_VEC_NORMALIZE_FLAGS = ("training", "norm_obs", "norm_reward")
_VEC_NORMALIZE_NUMBERS = ("clip_obs", "clip_reward", "gamma", "epsilon")
# attributes the original library (or ours) pickled that are restored from the environment instead
_VEC_NORMALIZE_IGNORED = ("ret", "old_obs", "old_rews", "old_reward", "num_envs", "observation_space",
                          "action_space", "class_attributes", "venv")
# the most entries of a Dict observation with statistics of their own
_MAX_NORMALIZED_KEYS = 1024


def _vec_normalize(converter: Converter, call: Call) -> SavedVecNormalize:
    fields = converter.attributes(call, ("obs_rms", "ret_rms", "norm_obs_keys") + _VEC_NORMALIZE_FLAGS +
                                  _VEC_NORMALIZE_NUMBERS, "VecNormalize", _VEC_NORMALIZE_IGNORED)
    settings: Dict[str, Any] = {}
    for name in _VEC_NORMALIZE_FLAGS:
        if name in fields:
            if not isinstance(fields[name], (bool, np.bool_)):
                raise converter.invalid("VecNormalize {} must be True or False, got {!r}".format(name, fields[name]))
            settings[name] = bool(fields[name])
    for name in _VEC_NORMALIZE_NUMBERS:
        if name in fields:
            settings[name] = real(converter, fields[name], "VecNormalize " + name, minimum=0.0)
    keys = _normalized_keys(converter, fields.get("norm_obs_keys"))
    if keys is None:
        _check_running_statistics(converter, fields.get("obs_rms"), "VecNormalize obs_rms")
    else:
        _check_per_key_statistics(converter, fields.get("obs_rms"), keys)
        settings["norm_obs_keys"] = keys
    _check_running_statistics(converter, fields.get("ret_rms"), "VecNormalize ret_rms")
    return SavedVecNormalize(settings, fields["obs_rms"], fields["ret_rms"])


def _check_running_statistics(converter: Converter, value: Any, what: str) -> None:
    if not isinstance(value, RunningMeanStd):
        raise converter.invalid("{} must be running statistics, got a {}".format(what, type(value).__name__))


def _normalized_keys(converter: Converter, value: Any) -> Optional[List[str]]:
    """The ``norm_obs_keys`` of a pickled VecNormalize: None (not a Dict observation) or distinct strings."""
    if value is None:
        return None
    if not isinstance(value, (list, tuple)) or len(value) > _MAX_NORMALIZED_KEYS or \
            not all(isinstance(key, str) for key in value) or len(set(value)) != len(value):
        raise converter.invalid("VecNormalize norm_obs_keys must be a list of at most {} distinct strings, got {!r}"
                                .format(_MAX_NORMALIZED_KEYS, value))
    return list(value)


def _check_per_key_statistics(converter: Converter, value: Any, keys: List[str]) -> None:
    """Statistics per entry of a Dict observation: a dict with exactly the keys of ``norm_obs_keys``."""
    if not isinstance(value, dict):
        raise converter.invalid("VecNormalize obs_rms must be a dict of running statistics (one per key of "
                                "norm_obs_keys {}), got a {}".format(keys, type(value).__name__))
    if set(value) != set(keys) or len(value) != len(keys):
        raise converter.invalid("VecNormalize obs_rms holds statistics for the keys {}, but norm_obs_keys is {}"
                                .format(", ".join(sorted(map(repr, value))) or "(none)", keys))
    for key in keys:
        _check_running_statistics(converter, value[key], "VecNormalize obs_rms[{!r}]".format(key))


# --- schedules --------------------------------------------------------------------------------------
def _constant_function(converter: Converter, call: Call) -> Any:
    value = converter.attributes(call, ("val",), "constant schedule").get("val")
    return schedules.ConstantFunction(real(converter, value, "a constant schedule's value"))


def _constant_schedule(converter: Converter, call: Call) -> Any:
    value = converter.attributes(call, ("_value",), "ConstantSchedule").get("_value")
    return schedules.ConstantSchedule(real(converter, value, "a constant schedule's value"))


def _linear_schedule(converter: Converter, call: Call) -> Any:
    fields = converter.attributes(call, ("schedule_timesteps", "final_p", "initial_p"), "LinearSchedule")
    return _build(converter, "LinearSchedule", schedules.LinearSchedule,
                  real(converter, fields.get("schedule_timesteps"), "schedule_timesteps", positive=True),
                  real(converter, fields.get("final_p"), "final_p"),
                  real(converter, fields.get("initial_p", 1.0), "initial_p"))


def _piecewise_schedule(converter: Converter, call: Call) -> Any:
    fields = converter.attributes(call, ("_endpoints", "_outside_value", "_interpolation"), "PiecewiseSchedule")
    points = fields.get("_endpoints")
    if not isinstance(points, (list, tuple)) or not all(isinstance(point, (list, tuple)) and len(point) == 2
                                                         for point in points):
        raise converter.invalid("a PiecewiseSchedule whose endpoints are not (step, value) pairs")
    if fields.get("_interpolation", schedules.linear_interpolation) is not schedules.linear_interpolation:
        raise converter.invalid("a PiecewiseSchedule with an interpolation other than linear_interpolation")
    outside = fields.get("_outside_value")
    return _build(converter, "PiecewiseSchedule", schedules.PiecewiseSchedule,
                  [(real(converter, step, "a schedule step"), real(converter, value, "a schedule value"))
                   for step, value in points],
                  outside_value=None if outside is None else real(converter, outside, "outside_value"))


def _schedule_function(_: Converter, ref: Ref) -> Any:
    return getattr(schedules, ref.name)


# --- the GAIL expert dataset ---------------------------------------------------------------------------
# The classes declared expert datasets by the module that defines them (GAIL's ExpertDataset: common/ imports no
# algorithm). The converter below builds the first one; the setting kind EXPERT_DATASET of
# common/storage/persistence.py accepts instances of any of them.
_EXPERT_DATASET_CLASSES: List[type] = []
_Class = TypeVar("_Class", bound=type)


def expert_dataset_class(klass: _Class) -> _Class:
    """
    Class decorator: declare ``klass`` the expert dataset that model files may hold (GAIL's ``expert_dataset``).

    :param klass: (type) the class, built by the converter through its constructor
    :return: (type) ``klass``
    """
    if klass not in _EXPERT_DATASET_CLASSES:
        _EXPERT_DATASET_CLASSES.append(klass)
    return klass


def is_expert_dataset(value: Any) -> bool:
    """:return: (bool) whether ``value`` is an instance of a declared expert dataset class (or of a subclass)"""
    return isinstance(value, tuple(_EXPERT_DATASET_CLASSES))


_DATASET_FIELDS = ("observations", "actions", "returns", "avg_ret", "std_ret", "verbose", "num_traj",
                   "num_transition", "randomize", "batch_size", "sequential_preprocessing", "train_fraction",
                   "train_loader", "val_loader", "dataloader")
_LOADER_FIELDS = ("indices", "observations", "actions", "batch_size", "n_workers", "infinite_loop",
                  "max_queue_len", "shuffle", "backend", "sequential", "partial_minibatch", "load_images",
                  "n_minibatches", "start_idx", "queue", "process", "_stop_event", "_finished", "_epoch",
                  "_batch_idx", "_rng", "start_process", "pipeline")


def _loader_indices(converter: Converter, node: Any, n_samples: int) -> Optional[np.ndarray]:
    """The sample indices of a pickled DataLoader (nothing else of it is read)."""
    if not isinstance(node, Call) or not isinstance(node.func, Ref) or node.func.name != "DataLoader":
        return None
    raw = {}
    for state in node.states:
        if isinstance(state, dict):
            raw.update(state)
    unknown = [name for name in raw if name not in _LOADER_FIELDS]
    if unknown:
        raise converter.refuse("a DataLoader with the attributes {}".format(unknown), "a data loader has only the "
                               "attributes {}".format(", ".join(_LOADER_FIELDS)))
    indices = converter.value(raw.get("indices"))
    if not isinstance(indices, np.ndarray) or indices.ndim != 1 or indices.dtype.kind not in "iu" or \
            (indices.size and (indices.min() < 0 or indices.max() >= n_samples)):
        raise converter.invalid("a DataLoader whose indices are not sample indices")
    return indices.astype(np.int64)


def _is_array(value: Any) -> "TypeGuard[np.ndarray]":
    """:return: (bool) whether ``value`` is a numpy array with at least one axis"""
    return isinstance(value, np.ndarray) and value.ndim >= 1


def _array_leaves(value: Any) -> Optional[List[Any]]:
    """:return: ([Any]) the plain values of a dict or tuple (nested too), in order; None when one of them is empty"""
    if not isinstance(value, (dict, tuple)):
        return [value]
    children = list(value.values()) if isinstance(value, dict) else list(value)
    if not children:
        return None
    leaves: List[Any] = []
    for child in children:
        found = _array_leaves(child)
        if found is None:
            return None
        leaves.extend(found)
    return leaves


def _is_structure_of_arrays(value: Any) -> bool:
    """:return: (bool) whether ``value`` is a dict or tuple (nested too) of arrays with at least one axis each"""
    leaves = _array_leaves(value) if isinstance(value, (dict, tuple)) else None
    return leaves is not None and all(_is_array(leaf) for leaf in leaves)


def _expert_dataset(converter: Converter, call: Call) -> Any:
    reason = None if _EXPERT_DATASET_CLASSES else algorithm_packages.provide("stable_baselines.gail")
    if not _EXPERT_DATASET_CLASSES:
        raise converter.refuse("an ExpertDataset", "no expert dataset class is defined in this process, and "
                               "stable_baselines.gail, which defines it, cannot be imported: {}".format(reason))
    dataset_class = _EXPERT_DATASET_CLASSES[0]
    raw = {}
    for state in call.states:
        if not isinstance(state, dict):
            raise converter.invalid("an ExpertDataset state that is not a dict")
        raw.update(state)
    unknown = [name for name in raw if name not in _DATASET_FIELDS]
    if unknown:
        raise converter.refuse("an ExpertDataset with the attributes {}".format(unknown), "an expert dataset has only "
                               "the attributes {}".format(", ".join(_DATASET_FIELDS)))
    fields = {name: converter.value(raw[name]) for name in ("observations", "actions", "returns", "randomize",
                                                            "batch_size", "sequential_preprocessing",
                                                            "train_fraction") if name in raw}
    observations, actions, returns = (fields.get(name) for name in ("observations", "actions", "returns"))
    if not ((_is_array(observations) or _is_structure_of_arrays(observations)) and _is_array(actions)
            and _is_array(returns)):
        raise converter.invalid("an ExpertDataset without observation, action and return arrays")
    n_samples, n_episodes = len((_array_leaves(observations) or [observations])[0]), len(returns)
    if len(actions) != n_samples or n_samples < 2 or n_episodes > n_samples:
        raise converter.invalid("an ExpertDataset with {} observations, {} actions and {} episodes".format(
            n_samples, len(actions), n_episodes))
    train = _loader_indices(converter, raw.get("train_loader"), n_samples)
    validation = _loader_indices(converter, raw.get("val_loader"), n_samples)
    fraction = fields.get("train_fraction")
    if fraction is None:
        fraction = len(train) / n_samples if train is not None and 0 < len(train) < n_samples else 0.7
    starts = np.zeros(n_samples, dtype=bool)
    starts[:max(n_episodes, 1)] = True  # only their number matters once the episodes are cut
    batch_size = fields.get("batch_size", 64)
    dataset = _build(converter, "ExpertDataset", dataset_class,
                     traj_data={"obs": observations, "actions": actions, "episode_returns": returns,
                                "episode_starts": starts},
                     train_fraction=real(converter, fraction, "train_fraction", positive=True),
                     batch_size=int(real(converter, batch_size, "batch_size", positive=True)),
                     randomize=bool(fields.get("randomize", True)), verbose=0,
                     sequential_preprocessing=bool(fields.get("sequential_preprocessing", False)))
    if train is not None and validation is not None and len(train) + len(validation) == n_samples:
        dataset.restore_split(train, validation)
    return dataset


# --- the replay memory of DDPG files written before 2.6 -----------------------------------------------
class LegacyReplayMemory(object):
    """The replay memory (``stable_baselines.ddpg.memory``, removed in 2.6) of old DDPG files: not restored."""

    def __repr__(self) -> str:
        return "<replay memory of an old DDPG file (stable_baselines.ddpg.memory, removed in 2.6; not restored)>"


def _legacy_memory(_: Converter, __: Any) -> type:
    return LegacyReplayMemory


INSTANCES.update({
    "stable_baselines.ddpg.noise.NormalActionNoise": _normal_noise,
    "stable_baselines.common.noise.NormalActionNoise": _normal_noise,
    "stable_baselines.ddpg.noise.OrnsteinUhlenbeckActionNoise": _ou_noise,
    "stable_baselines.common.noise.OrnsteinUhlenbeckActionNoise": _ou_noise,
    "stable_baselines.ddpg.noise.AdaptiveParamNoiseSpec": _param_noise,
    "stable_baselines.common.noise.AdaptiveParamNoiseSpec": _param_noise,
    "stable_baselines.common.running_mean_std.RunningMeanStd": _running_mean_std,
    "stable_baselines.common.vec_env.vec_normalize.VecNormalize": _vec_normalize,
    "stable_baselines.common.schedules.ConstantFunction": _constant_function,
    "stable_baselines.common.schedules.ConstantSchedule": _constant_schedule,
    "stable_baselines.common.schedules.LinearSchedule": _linear_schedule,
    "stable_baselines.common.schedules.PiecewiseSchedule": _piecewise_schedule,
    "stable_baselines.gail.dataset.dataset.ExpertDataset": _expert_dataset,
    "stable_baselines.ddpg.memory.Memory": lambda converter, call: LegacyReplayMemory(),
    "stable_baselines.ddpg.memory.RingBuffer": lambda converter, call: LegacyReplayMemory(),
})
REFERENCES.update({"stable_baselines.ddpg.memory.Memory": _legacy_memory,
                   "stable_baselines.ddpg.memory.RingBuffer": _legacy_memory})
for _name in ("constant", "linear_schedule", "middle_drop", "double_linear_con", "double_middle_drop",
              "linear_interpolation"):
    REFERENCES["stable_baselines.common.schedules." + _name] = _schedule_function
