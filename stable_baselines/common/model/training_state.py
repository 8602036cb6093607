"""
Exact resume: everything a model's next ``learn`` depends on besides its parameters and settings, taken out of a
model as plain data (JSON-able values and numeric arrays, no pickle) and put back into another model of the same
configuration, so that both continue identically.

What a :class:`TrainingState` holds:

- the TensorFlow variables of the model's graph that are not parameters (optimizer slots such as Adam's moments and
  beta powers, RMSProp's accumulators, the K-FAC statistics, step counters, running statistics), by name;
- the generators: Python's ``random``, NumPy's global generator, the generator of the actions drawn in NumPy, the
  generators of the model's action and observation spaces;
- where TensorFlow's random operations stand: a graph seeded with ``seed`` gives each random op a fixed stream,
  restarted by every new session; the library counts what its session calls draw from these ops
  (:mod:`stable_baselines.common.engine.tf_random_draws`) and a restored model draws (and drops) as many values from the
  same ops first;
- ``num_timesteps``, the objects of the model that keep state outside TensorFlow (MPI Adam optimizers, action
  noise, adaptive parameter-noise specs), the replay buffer of an off-policy model (in the format of
  ``save_replay_buffer``), and what an algorithm adds through ``training_state_extras``.

The environment is not part of it: a resumed model starts its next ``learn`` on the env it is given, so the
comparison with the model that kept training assumes both are given envs prepared the same way.
"""
import random
import sys
import warnings
from typing import Any, Callable, Dict, Iterator, List, Optional, Tuple

import numpy as np

from stable_baselines.common.gym_compat import space_generator
from stable_baselines.common.storage.buffer_files import buffer_from_bytes, buffer_to_bytes
from stable_baselines.common.buffers import ReplayBuffer
from stable_baselines.common.storage.extra_members import register_member
from stable_baselines.common.noise import ActionNoise, AdaptiveParamNoiseSpec
from stable_baselines.common.safe_loading import limits
from stable_baselines.common.safe_loading.errors import InvalidModelFileError
from stable_baselines.common.tf_compat import tf
from stable_baselines.common.engine.tf_random_draws import RANDOM_OP_TYPES, session_draws, set_session_draws

VERSION = 1
# values drawn per session call when a restored model advances a random op
_DRAW_CHUNK = 1 << 22
# the bounds of what a training state may describe
MAX_RANDOM_DRAWS = 1 << 40
MAX_SCALAR_DRAWS = 1 << 20
# a value of an op of scalar output costs a session call: as much time as drawing this many values in one call
SCALAR_DRAW_COST = 2048
_MAX_JSON_INT = 1 << 130
# the members of a model file that hold it (see stable_baselines.common.storage.extra_members)
STATE_MEMBER = register_member("training_state/state.json", 64 << 20)
ARRAYS_MEMBER = register_member("training_state/arrays.npz", 4 * limits.MAX_PARAMETER_BYTES)
BUFFER_MEMBER = register_member("training_state/replay_buffer.npz", limits.MAX_REPLAY_BUFFER_BYTES + (1 << 20))


class TrainingState:
    """
    The training state of a model as plain data.

    :param info: (dict) JSON-able values (counters, generator positions, names)
    :param arrays: (dict) numeric arrays by name
    :param replay_buffer: (bytes-like) the replay buffer in the file format of ``save_replay_buffer`` (None: none
        kept)
    """

    def __init__(self, info: Dict[str, Any], arrays: Dict[str, np.ndarray],
                 replay_buffer: Any = None) -> None:
        self.info = info
        self.arrays = arrays
        self.replay_buffer = replay_buffer


def _fail(reason: str) -> InvalidModelFileError:
    return InvalidModelFileError("Invalid training state: " + reason)


# ---------------------------------------------------------------------------------------------------- TF variables
def training_variables(model: Any) -> List[Any]:
    """
    :param model: (BaseRLModel) a model whose graph is built
    :return: ([tf.Variable]) the variables of its graph that are not in ``get_parameter_list()``, by name
    """
    parameters = {var.name for var in model.get_parameter_list()}
    with model.graph.as_default():
        variables = tf.global_variables() + tf.local_variables()
    unique = {var.name: var for var in variables if var.name not in parameters}
    return [unique[name] for name in sorted(unique)]


def _set_variables(model: Any, variables: List[Any], values: List[np.ndarray]) -> None:
    """Give variables new values through their initializers (no op is added to the graph)."""
    fetches, feed = [], {}
    for var, value in zip(variables, values):
        initializer = var.initializer
        fetches.append(initializer)
        feed[initializer.inputs[1]] = value
    if fetches:
        model.sess.run(fetches, feed_dict=feed)


# ---------------------------------------------------------------------------------------------------- generators
def _generator_state(generator: np.random.Generator) -> Dict[str, Any]:
    return dict(generator.bit_generator.state)


def _check_generator_state(state: Any, generator: np.random.Generator, what: str) -> Dict[str, Any]:
    expected = generator.bit_generator.state
    if not isinstance(state, dict) or state.get("bit_generator") != expected["bit_generator"]:
        raise _fail("{} must be the state of a {} generator, got {!r}".format(what, expected["bit_generator"],
                                                                           state))
    if set(state) != set(expected) or not _plain_ints(state):
        raise _fail("the state of {} must have the entries {} with integer values".format(what, sorted(expected)))
    scratch = type(generator.bit_generator)()
    try:  # a throwaway generator of the same kind checks the values' ranges
        scratch.state = state
    except (ValueError, TypeError, OverflowError) as err:
        raise _fail("the state of {} is not a valid {} state ({})".format(what, expected["bit_generator"], err)) \
            from err
    return state


def _check_twister_keys(keys: np.ndarray, what: str) -> None:
    """A Mersenne Twister whose 624 words are zero (but the top bit of the first) only ever gives zeros."""
    if not (int(keys[0]) & 0x80000000) and not keys[1:624].any():
        raise _fail("the state of {} is degenerate (all its words are zero): it would only give zeros".format(what))


def _plain_ints(value: Any) -> bool:
    """:return: (bool) whether every leaf below ``value`` (but the generator's name) is an int within bounds"""
    if isinstance(value, dict):
        return all(_plain_ints(item) for key, item in value.items() if key != "bit_generator")
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value < _MAX_JSON_INT


def _capture_generators(model: Any, info: Dict[str, Any], arrays: Dict[str, np.ndarray]) -> None:
    version, python_keys, gauss_next = random.getstate()
    arrays["rng/python"] = np.asarray(python_keys, dtype=np.uint32)
    name, numpy_keys, position, has_gauss, cached = np.random.get_state(legacy=True)
    arrays["rng/numpy"] = np.asarray(numpy_keys, dtype=np.uint32)
    spaces = {}
    for attribute in ("action_space", "observation_space"):
        generator = space_generator(getattr(model, attribute))
        spaces[attribute] = None if generator is None else _generator_state(generator)
    info["rng"] = {"python": {"version": version, "gauss_next": gauss_next},
                   "numpy": {"name": name, "pos": int(position), "has_gauss": int(has_gauss),
                             "cached_gaussian": float(cached)},
                   "forward": _generator_state(model.fast_path.generator),
                   "spaces": spaces}


def _checked_generators(model: Any, info: Dict[str, Any], arrays: Dict[str, np.ndarray]) -> Callable[[], None]:
    """
    Check the generator states of a training state without touching any generator.

    :return: (callable) puts them into Python's and NumPy's global generators and the model's (called once every
        other part of the file has been checked, so that a refused file leaves the process as it was)
    """
    rng = _entry(info, "rng", dict)
    python, numpy_state = _entry(rng, "python", dict), _entry(rng, "numpy", dict)
    python_keys, numpy_keys = arrays["rng/python"], arrays["rng/numpy"]
    if python_keys.shape != (625,) or numpy_keys.shape != (624,):
        raise _fail("the Python and NumPy generator keys must have 625 and 624 values")
    gauss_next = python.get("gauss_next")
    if python.get("version") != 3 or not (gauss_next is None or isinstance(gauss_next, float)):
        raise _fail("the state of Python's generator is not one of version 3")
    position = numpy_state.get("pos")
    if numpy_state.get("name") != "MT19937" or not (type(position) is int and 0 <= position <= 624) \
            or numpy_state.get("has_gauss") not in (0, 1) \
            or not isinstance(numpy_state.get("cached_gaussian"), (int, float)):
        raise _fail("the state of NumPy's global generator is not a MT19937 state")
    if int(python_keys[-1]) > 624:
        raise _fail("the state of Python's generator has an invalid position")
    _check_twister_keys(python_keys, "Python's generator")
    _check_twister_keys(numpy_keys, "NumPy's global generator")
    forward = model.fast_path.generator
    forward_state = _check_generator_state(rng.get("forward"), forward, "the NumPy action generator")
    spaces = _entry(rng, "spaces", dict)
    space_states = {}
    for attribute in ("action_space", "observation_space"):
        state = spaces.get(attribute)
        if state is not None:
            space_states[attribute] = _check_generator_state(state, np.random.default_rng(), "the " + attribute)
    python_state = (3, tuple(int(key) for key in python_keys), gauss_next)
    numpy_global = ("MT19937", numpy_keys, numpy_state["pos"], numpy_state["has_gauss"],
                    float(numpy_state["cached_gaussian"]))

    def apply() -> None:
        random.setstate(python_state)
        np.random.set_state(numpy_global)
        forward.bit_generator.state = forward_state  # in place: the policies hold this generator
        for attribute, state in space_states.items():
            space = getattr(model, attribute)
            space.seed(0)  # makes its generator, whose state is then replaced
            space.np_random.bit_generator.state = state

    return apply


# ---------------------------------------------------------------------------------------------------- objects
def _is_mpi_adam(value: Any) -> bool:
    """:return: (bool) whether ``value`` is an MpiAdam (whose module imports mpi4py, so it is not imported here)"""
    module = sys.modules.get("stable_baselines.common.mpi_adam")
    return module is not None and isinstance(value, module.MpiAdam)


def _stateful_objects(model: Any) -> Iterator[Tuple[str, Any]]:
    """:return: (iterator) (attribute name, object) of the model's objects that keep training state in NumPy"""
    for name in sorted(vars(model)):
        value = vars(model)[name]
        if _is_mpi_adam(value) or isinstance(value, (ActionNoise, AdaptiveParamNoiseSpec)):
            yield name, value


def _capture_objects(model: Any, info: Dict[str, Any], arrays: Dict[str, np.ndarray]) -> None:
    objects: Dict[str, Any] = {}
    for name, value in _stateful_objects(model):
        prefix = "objects/{}/".format(name)
        if _is_mpi_adam(value):
            objects[name] = {"kind": "MpiAdam", "step": int(value.step)}
            arrays[prefix + "exp_avg"] = value.exp_avg.copy()
            arrays[prefix + "exp_avg_sq"] = value.exp_avg_sq.copy()
        elif isinstance(value, ActionNoise):
            state = value.get_state()
            objects[name] = {"kind": "ActionNoise", "arrays": sorted(state)}
            arrays.update((prefix + key, array) for key, array in state.items())
        else:
            objects[name] = {"kind": "AdaptiveParamNoiseSpec", "current_stddev": float(value.current_stddev)}
    info["objects"] = objects


def _restore_objects(model: Any, info: Dict[str, Any], arrays: Dict[str, np.ndarray]) -> None:
    stored = _entry(info, "objects", dict)
    present = dict(_stateful_objects(model))
    if set(stored) != set(present):
        raise _fail("it holds the state of the objects {}, the model has {}".format(sorted(stored), sorted(present)))
    for name, value in present.items():
        entry, prefix = _entry(stored, name, dict), "objects/{}/".format(name)
        if _is_mpi_adam(value):
            step = entry.get("step")
            if entry.get("kind") != "MpiAdam" or not isinstance(step, int) or step < 0:
                raise _fail("{!r} must be the state of an MpiAdam".format(name))
            for key in ("exp_avg", "exp_avg_sq"):
                _check_array(_array(arrays, prefix + key), getattr(value, key), prefix + key)
            value.exp_avg[:] = arrays[prefix + "exp_avg"]
            value.exp_avg_sq[:] = arrays[prefix + "exp_avg_sq"]
            value.step = step
        elif isinstance(value, ActionNoise):
            if entry.get("kind") != "ActionNoise":
                raise _fail("{!r} must be the state of an action noise".format(name))
            keys = entry.get("arrays")
            if not isinstance(keys, list):
                raise _fail("{!r} must list the arrays of its state".format(name))
            try:
                value.set_state({str(key): _array(arrays, prefix + str(key)) for key in keys})
            except ValueError as err:
                raise _fail("the state of {!r}: {}".format(name, err)) from err
        else:
            stddev = entry.get("current_stddev")
            if entry.get("kind") != "AdaptiveParamNoiseSpec" or not isinstance(stddev, (int, float)):
                raise _fail("{!r} must be the state of an AdaptiveParamNoiseSpec".format(name))
            value.current_stddev = float(stddev)


def _check_array(array: np.ndarray, like: np.ndarray, name: str) -> None:
    if array.shape != np.shape(like) or array.dtype != np.asarray(like).dtype:
        raise _fail("{} must be a {} array of shape {}, got {} of shape {}".format(
            name, np.asarray(like).dtype, np.shape(like), array.dtype, array.shape))


def _array(arrays: Dict[str, np.ndarray], key: str) -> np.ndarray:
    if key not in arrays:
        raise _fail("it lacks the array {!r}".format(key))
    return arrays[key]


def _entry(mapping: Dict[str, Any], key: str, kind: type) -> Any:
    value = mapping.get(key) if isinstance(mapping, dict) else None
    if not isinstance(value, kind):
        raise _fail("the entry {!r} is missing or not a {}".format(key, kind.__name__))
    return value


# ---------------------------------------------------------------------------------------------------- random ops
def random_ops(model: Any) -> Dict[str, Any]:
    """
    :param model: (BaseRLModel) a model whose graph is built
    :return: (dict) the random ops of its graph whose streams a restored model can advance, by name
    """
    return {op.name: op for op in model.graph.get_operations() if op.type in RANDOM_OP_TYPES}


def advance_random_ops(model: Any, draws: Dict[str, int]) -> None:
    """
    Draw (and drop) from each random op of the model's session as many values as given, so that the op continues
    where another session of the same graph stands after drawing as many (a Philox stream advances by the number
    of values, whatever the calls that drew them).

    :param model: (BaseRLModel) the model
    :param draws: (dict) op name -> number of values
    """
    ops = random_ops(model)
    for name, count in sorted(draws.items()):
        shape_input = ops[name].inputs[0]
        rank = shape_input.shape.as_list()[0]
        while count > 0:
            # one value per call from an op of scalar output, else up to a chunk of values in one row each
            chunk = 1 if rank == 0 else min(count, _DRAW_CHUNK)
            feed = {} if rank == 0 else {shape_input: [chunk] + [1] * (rank - 1)}
            model.sess.run(ops[name].outputs[0], feed_dict=feed)
            count -= chunk


def _check_draws(model: Any, draws: Any) -> Dict[str, int]:
    if not isinstance(draws, dict):
        raise _fail("'tf_random_draws' must map random op names to counts")
    ops = random_ops(model)
    for name, count in draws.items():
        if name not in ops:
            raise _fail("the model's graph has no random op {!r}".format(name))
        rank = ops[name].inputs[0].shape.as_list()[0] if ops[name].inputs[0].shape.rank == 1 else None
        limit = MAX_SCALAR_DRAWS if rank == 0 else MAX_RANDOM_DRAWS
        if not isinstance(count, int) or isinstance(count, bool) or not -1 <= count <= limit:
            raise _fail("the draws of {!r} must be an int in [-1, {}] (-1: not counted), got {!r}".format(
                name, limit, count))
        if rank is None:
            raise _fail("the random op {!r} has a shape of unknown rank".format(name))
    # what fast-forwarding the streams will cost, in drawn values (a scalar op needs a session call per value)
    cost = sum(max(count, 0) * (SCALAR_DRAW_COST if ops[name].inputs[0].shape.as_list()[0] == 0 else 1)
               for name, count in draws.items())
    if cost > limits.MAX_RANDOM_FAST_FORWARD:
        raise _fail("bringing the random streams where they stood means drawing the equivalent of {} values, more "
                    "than the {} a model file may ask for (stable_baselines.common.safe_loading.limits."
                    "MAX_RANDOM_FAST_FORWARD, about half a minute of drawing; raise it for a trusted file)".format(
                        cost, limits.MAX_RANDOM_FAST_FORWARD))
    return draws


# ---------------------------------------------------------------------------------------------------- replay buffer
def _capture_buffer(model: Any, info: Dict[str, Any]) -> Optional[memoryview]:
    entry, buffer = model.replay_buffer_state()
    info["replay_buffer"] = entry
    if buffer is None:
        return None
    return buffer_to_bytes(buffer.with_float_scalars() if isinstance(buffer, ReplayBuffer) else buffer)


def _restore_buffer(model: Any, info: Dict[str, Any], content: Any) -> None:
    entry = _entry(info, "replay_buffer", dict)
    if bool(entry.get("present")) != (content is not None):
        raise _fail("its description of the replay buffer does not match its content")
    if content is None:
        return
    model.restore_replay_buffer_state(buffer_from_bytes(content, "the replay buffer of the training state"),
                                      bool(entry.get("loaded")))


# ---------------------------------------------------------------------------------------------------- whole state
def capture_training_state(model: Any) -> TrainingState:
    """
    :param model: (BaseRLModel) a model whose graph is built
    :return: (TrainingState) what its next ``learn`` depends on besides its parameters and settings
    """
    variables = training_variables(model)
    info: Dict[str, Any] = {"version": VERSION, "algorithm": type(model).__name__,
                            "num_timesteps": int(model.num_timesteps),
                            "variables": [var.name for var in variables],
                            "tf_random_draws": session_draws(model.sess)}
    arrays = {"variables/" + var.name: value for var, value in zip(variables, model.sess.run(variables))}
    _capture_generators(model, info, arrays)
    _capture_objects(model, info, arrays)
    vec_normalize = model.get_vec_normalize_env()
    if vec_normalize is not None:
        # how the normalisation went on (its statistics are in the model file's VecNormalize members)
        info["vec_normalize"] = {"training": bool(vec_normalize.training),
                                 "norm_reward": bool(vec_normalize.norm_reward)}
    extra_info, extra_arrays = model.training_state_extras()
    info["extras"] = extra_info
    arrays.update(("extras/" + name, array) for name, array in extra_arrays.items())
    replay_buffer = _capture_buffer(model, info) if model.keeps_replay_buffer else None
    return TrainingState(info, arrays, replay_buffer)


def check_training_state(model: Any, state: TrainingState) -> List[Any]:
    """
    Refuse a training state that does not fit the model (another algorithm, other variables, shapes or dtypes).

    :param model: (BaseRLModel) the model it would be restored into
    :param state: (TrainingState) the state
    :return: ([tf.Variable]) the model's training variables, in the order of the state's names
    """
    info = state.info
    if not isinstance(info, dict) or info.get("version") != VERSION:
        raise _fail("unknown version {!r} (this library writes version {})".format(
            info.get("version") if isinstance(info, dict) else None, VERSION))
    if info.get("algorithm") != type(model).__name__:
        raise _fail("it was saved by a {} model, this is a {}".format(info.get("algorithm"), type(model).__name__))
    timesteps = info.get("num_timesteps")
    if not isinstance(timesteps, int) or isinstance(timesteps, bool) or timesteps < 0:
        raise _fail("'num_timesteps' must be an int >= 0, got {!r}".format(timesteps))
    variables = {var.name: var for var in training_variables(model)}
    names = _entry(info, "variables", list)
    if sorted(names) != sorted(variables):
        missing, unknown = sorted(set(variables) - set(names)), sorted(set(names) - set(variables))
        raise _fail("its variables do not match the model's: missing {}, unknown {}".format(missing, unknown))
    expected = {"variables/" + name for name in names} | {"rng/python", "rng/numpy"}
    lacking = sorted(key for key in expected if key not in state.arrays)
    if lacking:
        raise _fail("it lacks the arrays {}".format(lacking))
    unknown = sorted(key for key in state.arrays if key not in expected and not key.startswith(("objects/", "extras/")))
    if unknown:
        raise _fail("it has unknown arrays {}".format(unknown))
    for key in ("rng/python", "rng/numpy"):
        if state.arrays[key].dtype != np.uint32:
            raise _fail("{} must be a uint32 array, got {}".format(key, state.arrays[key].dtype))
    for name in names:
        array, var = state.arrays["variables/" + name], variables[name]
        shape, dtype = tuple(var.shape.as_list()), var.dtype.base_dtype.as_numpy_dtype
        if array.shape != shape or array.dtype != np.dtype(dtype):
            raise _fail("the variable {} must be a {} array of shape {}, got {} of shape {}".format(
                name, np.dtype(dtype), shape, array.dtype, array.shape))
    _check_draws(model, info.get("tf_random_draws"))
    return [variables[name] for name in names]


def _restore_normalization(info: Dict[str, Any], made: Any) -> None:
    """
    :param info: (dict) the JSON part of the training state
    :param made: (VecNormalize or None) the VecNormalize that ``load`` put around the user's environment (None:
        none, or the user's own, which is left as it is)
    """
    stored = info.get("vec_normalize")
    if stored is None or made is None:
        return
    if not isinstance(stored, dict) or set(stored) != {"training", "norm_reward"} \
            or not all(isinstance(value, bool) for value in stored.values()):
        raise _fail("'vec_normalize' must hold the booleans 'training' and 'norm_reward', got {!r}".format(stored))
    made.training, made.norm_reward = stored["training"], stored["norm_reward"]


def restore_training_state(model: Any, state: TrainingState, made_normalization: Any = None) -> None:
    """
    Put a training state into a model of the same configuration (built with the same settings and seed, its
    parameters loaded), so that its next ``learn(..., reset_num_timesteps=False)`` continues as the model it was
    taken from would.

    :param model: (BaseRLModel) the model
    :param state: (TrainingState) a state of :func:`capture_training_state` (checked first)
    :param made_normalization: (VecNormalize) the VecNormalize ``load`` made from the file's statistics around the
        user's environment, if it did: it goes on normalising as the saved model's did (training, rewards)
    """
    variables = check_training_state(model, state)
    info, arrays = state.info, state.arrays
    apply_generators = _checked_generators(model, info, arrays)
    _restore_normalization(info, made_normalization)
    _set_variables(model, variables, [arrays["variables/" + var.name] for var in variables])
    _restore_objects(model, info, arrays)
    if model.keeps_replay_buffer:
        _restore_buffer(model, info, state.replay_buffer)
    model.restore_training_state_extras(_entry(info, "extras", dict),
                                         {name[len("extras/"):]: array for name, array in arrays.items()
                                          if name.startswith("extras/")})
    draws = info["tf_random_draws"]
    uncounted = sorted(name for name, count in draws.items() if count < 0)
    if uncounted:
        warnings.warn("The training state cannot tell how far the random ops {} had advanced: the resumed model "
                      "draws other random numbers from them than the saved one would have".format(uncounted))
    advance_random_ops(model, {name: count for name, count in draws.items() if count > 0})
    set_session_draws(model.sess, draws)
    model.num_timesteps = info["num_timesteps"]
    apply_generators()  # last: nothing else of the file can be refused now


# ---------------------------------------------------------------------------------------------------- model files
def training_state_members(model: Any) -> Dict[str, Any]:
    """
    :param model: (BaseRLModel) a model whose graph is built
    :return: (dict) its training state as extra members of its model file, name -> value
    """
    state = capture_training_state(model)
    members: Dict[str, Any] = {STATE_MEMBER: state.info, ARRAYS_MEMBER: state.arrays}
    if state.replay_buffer is not None:
        members[BUFFER_MEMBER] = {"file": np.frombuffer(state.replay_buffer, dtype=np.uint8)}
    return members


def has_training_state(members: Dict[str, Any]) -> bool:
    """
    :param members: (dict) the extra members of a model file, by name
    :return: (bool) whether the file holds a training state (checked when it is restored)
    """
    return STATE_MEMBER in members


def restore_training_state_members(model: Any, members: Dict[str, Any], what: str,
                                   made_normalization: Any = None) -> bool:
    """
    Restore the training state stored in the extra members of a model file, if it has one.

    :param model: (BaseRLModel) the model loaded from the file
    :param members: (dict) the file's extra members, decoded
    :param what: (str) the file, for messages
    :param made_normalization: (VecNormalize) the VecNormalize ``load`` put around the user's environment, if any
    :return: (bool) whether the file held a training state
    """
    if not has_training_state(members):
        stray = sorted(name for name in (ARRAYS_MEMBER, BUFFER_MEMBER) if name in members)
        if stray:
            raise InvalidModelFileError("{} has the members {} of a training state but not its {!r}".format(
                what, stray, STATE_MEMBER))
        return False
    content = None
    if BUFFER_MEMBER in members:
        stored = members[BUFFER_MEMBER]
        if set(stored) != {"file"} or stored["file"].dtype != np.uint8 or stored["file"].ndim != 1:
            raise InvalidModelFileError("{}: the member {!r} must hold one uint8 array 'file'".format(
                what, BUFFER_MEMBER))
        content = stored["file"]  # read in place: a buffer of gigabytes is not copied once more
    try:
        restore_training_state(model, TrainingState(members[STATE_MEMBER], dict(members.get(ARRAYS_MEMBER, {})),
                                                    content), made_normalization)
    except InvalidModelFileError as err:
        raise InvalidModelFileError("{}: {}".format(what, err)) from err
    return True


# ---------------------------------------------------------------------------------------------------- HER's episode
_EPISODE_FIELDS = ("obs_t", "action", "obs_tp1")


def _scalar_tag(value: Any) -> str:
    """:return: (str) how to rebuild a reward or done value of this type"""
    if type(value) in (bool, int, float):
        return type(value).__name__
    return "numpy:" + np.asarray(value).dtype.str


def _from_tag(value: float, tag: Any) -> Any:
    if tag in ("bool", "int", "float"):
        return {"bool": bool, "int": int, "float": float}[tag](value)
    if isinstance(tag, str) and tag.startswith("numpy:"):
        try:
            dtype = np.dtype(tag[len("numpy:"):])
        except TypeError as err:
            raise _fail("unknown scalar type {!r}".format(tag)) from err
        if dtype.kind in "biuf":
            return dtype.type(value)
    raise _fail("unknown scalar type {!r}".format(tag))


def _json_info(info: Any) -> Any:
    """:return: (Any) a step's info as JSON values (NumPy scalars as Python ones); ValueError when it has others"""
    if isinstance(info, np.generic):
        return info.item()
    if isinstance(info, dict):
        if not all(isinstance(key, str) for key in info):
            raise ValueError("keys that are not strings")
        return {key: _json_info(value) for key, value in info.items()}
    if isinstance(info, (list, tuple)):
        return [_json_info(value) for value in info]
    if info is None or isinstance(info, (str, bool, int, float)):
        return info
    raise ValueError("a value of type {}".format(type(info).__name__))


def episode_to_plain(transitions: List[tuple]) -> Tuple[Dict[str, Any], Dict[str, np.ndarray]]:
    """
    :param transitions: ([tuple]) the steps of HER's unfinished episode: (obs_t, action, reward, obs_tp1, done,
        info)
    :return: (dict, dict) the JSON-able description and the arrays of the steps (extras of a training state)
    """
    if not transitions:
        return {}, {}
    columns = list(zip(*transitions))
    arrays = {"her_episode/" + name: np.stack([np.asarray(value) for value in columns[index]])
              for name, index in zip(_EPISODE_FIELDS, (0, 1, 3))}
    arrays["her_episode/reward"] = np.asarray(columns[2], dtype=np.float64)
    arrays["her_episode/done"] = np.asarray(columns[4], dtype=np.float64)
    try:
        infos = [_json_info(info) for info in columns[5]]
    except ValueError as err:
        warnings.warn("The infos of HER's unfinished episode hold {}: they are stored empty, so the resumed model's "
                      "relabelled rewards may differ".format(err))
        infos = [{} for _ in columns[5]]
    return {"her_episode": {"length": len(transitions), "infos": infos,
                            "reward_types": [_scalar_tag(value) for value in columns[2]],
                            "done_types": [_scalar_tag(value) for value in columns[4]]}}, arrays


def episode_from_plain(info: Dict[str, Any], arrays: Dict[str, np.ndarray]) -> List[tuple]:
    """
    :param info: (dict) the description of :func:`episode_to_plain` (checked)
    :param arrays: (dict) its arrays
    :return: ([tuple]) the steps of the unfinished episode
    """
    episode = _entry(info, "her_episode", dict)
    length = episode.get("length")
    if not isinstance(length, int) or length < 1:
        raise _fail("the length of HER's episode must be a positive int")
    columns = {}
    for name in _EPISODE_FIELDS + ("reward", "done"):
        array = _array(arrays, "her_episode/" + name)
        if array.ndim < 1 or array.shape[0] != length:
            raise _fail("the array {!r} of HER's episode must have {} rows".format(name, length))
        columns[name] = array
    lists = {key: episode.get(key) for key in ("infos", "reward_types", "done_types")}
    if not all(isinstance(value, list) and len(value) == length for value in lists.values()) \
            or not all(isinstance(item, dict) for item in lists["infos"]):
        raise _fail("HER's episode must list {} infos (dicts), reward and done types".format(length))
    return [(columns["obs_t"][row], columns["action"][row],
             _from_tag(columns["reward"][row], lists["reward_types"][row]), columns["obs_tp1"][row],
             _from_tag(columns["done"][row], lists["done_types"][row]), lists["infos"][row])
            for row in range(length)]
