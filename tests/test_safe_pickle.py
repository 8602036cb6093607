"""Tests of data-only unpickling (stable_baselines.common.safe_pickle / safe_loading): legacy pickles load, code never
runs."""
import base64
import io
import os
import pickle
import subprocess
import sys
from collections import OrderedDict

import cloudpickle
import numpy as np
import pytest
from gymnasium import spaces

from stable_baselines.common import safe_pickle
from stable_baselines.gail import ExpertDataset
from stable_baselines.common.safe_loading.bytecode import ArithmeticFunction
from stable_baselines.common.safe_pickle import (InvalidModelFileError, LinearFunction, SafeUnpicklingError,
                                                 UnresolvedFunction, safe_load, safe_loads)

from legacy_helpers import legacy_file  # pylint: disable=wrong-import-order

# ----------------------------------------------------------------------------------------------
# a tiny pickle writer for hand-made payloads (old cloudpickle layouts, hostile pickles)
# ----------------------------------------------------------------------------------------------
class G(object):
    """A global reference written as a GLOBAL opcode (the target need not exist here)."""

    def __init__(self, module, name):
        self.module, self.name = module, name


class R(object):
    """A call written as REDUCE: func(*args)."""

    def __init__(self, func, *args):
        self.func, self.args = func, args


class N(object):
    """An object written as NEWOBJ + BUILD: cls.__new__(cls) then state."""

    def __init__(self, cls, state):
        self.cls, self.state = cls, state


class _Writer(pickle._Pickler):  # pylint: disable=protected-access
    dispatch = dict(pickle._Pickler.dispatch)  # pylint: disable=protected-access

    def save_g(self, obj):
        self.write(pickle.GLOBAL + obj.module.encode() + b"\n" + obj.name.encode() + b"\n")

    def save_r(self, obj):
        self.save(obj.func)
        self.save(tuple(obj.args))
        self.write(pickle.REDUCE)

    def save_n(self, obj):
        self.save(obj.cls)
        self.save(())
        self.write(pickle.NEWOBJ)
        self.save(obj.state)
        self.write(pickle.BUILD)

    dispatch[G] = save_g
    dispatch[R] = save_r
    dispatch[N] = save_n


def craft(obj, protocol=2):
    buffer = io.BytesIO()
    _Writer(buffer, protocol).dump(obj)
    return buffer.getvalue()


CP = "cloudpickle.cloudpickle"


# Python 3.6 wordcode: return progress * <cell 0>  /  return <cell 0>
LINEAR_CODE = bytes([0x7c, 0, 0x88, 0, 0x14, 0, 0x53, 0])
CONSTANT_CODE = bytes([0x88, 0, 0x53, 0])


def old_cloudpickle_closure(qualname, closure_values, module="utils.utils", state_style=True,
                            freevars=("initial_value",), code=LINEAR_CODE):
    """The layout cloudpickle 0.5 - 1.x wrote under Python 3.5 - 3.7 (_fill_function / _make_skel_func)."""
    code = R(R(G(CP, "_builtin_type"), "CodeType"), 1, 0, 1, 2, 19, code, (None,), (), ("progress",),
             "/home/someone/zoo/utils/utils.py", "func", 12, b"\x00\x01", tuple(freevars), ())
    skel = R(G(CP, "_make_skel_func"), code, len(closure_values), module)
    if state_style:
        state = {"globals": {}, "defaults": None, "dict": {}, "closure_values": list(closure_values),
                 "module": module, "name": "func", "doc": None, "qualname": qualname}
        return R(G(CP, "_fill_function"), skel, state)
    return R(G(CP, "_fill_function"), skel, {}, None, {}, module, list(closure_values))


# ----------------------------------------------------------------------------------------------
# the real legacy pickles
# ----------------------------------------------------------------------------------------------
def test_ppo2_pickle_schedules_rebuilt_without_running_code():
    with open(legacy_file("ppo2", "CartPole-v1.pkl"), "rb") as file_handler:
        data, params = safe_load(file_handler)
    learning_rate, cliprange = data["learning_rate"], data["cliprange"]
    print("ppo2 CartPole learning_rate:", learning_rate, "cliprange:", cliprange)
    # the zoo trained this agent with constant schedules (constfn closures in the file)
    assert callable(learning_rate) and callable(cliprange)
    assert learning_rate(1.0) == pytest.approx(3e-4) and learning_rate(0.5) == pytest.approx(3e-4)
    assert cliprange(1.0) == pytest.approx(0.2) and cliprange(0.5) == pytest.approx(0.2)
    assert isinstance(data["observation_space"], spaces.Box)
    assert len(params) == 14


def test_obs_rms_and_ret_rms():
    from stable_baselines.common.running_mean_std import RunningMeanStd
    with open(legacy_file("ppo2", "MountainCar-v0", "obs_rms.pkl"), "rb") as file_handler:
        obs_rms = safe_load(file_handler)
    assert isinstance(obs_rms, RunningMeanStd)
    assert obs_rms.mean.shape == (2,) and obs_rms.var.shape == (2,)
    assert obs_rms.mean.dtype == np.float64
    assert obs_rms.count == pytest.approx(1003536.0001)
    assert np.all(obs_rms.var > 0)
    with open(legacy_file("ppo2", "MountainCar-v0", "ret_rms.pkl"), "rb") as file_handler:
        ret_rms = safe_load(file_handler)
    assert isinstance(ret_rms, RunningMeanStd)
    assert np.shape(ret_rms.mean) == () and float(ret_rms.var) == pytest.approx(515.97985993)


def test_running_mean_std_stand_in_round_trip():
    from stable_baselines.common.running_mean_std import RunningMeanStd
    rms = RunningMeanStd(shape=(3,))
    rms.update(np.arange(12, dtype=np.float64).reshape(4, 3))
    loaded = safe_loads(pickle.dumps(rms))
    assert isinstance(loaded, RunningMeanStd) and loaded is not rms
    np.testing.assert_array_equal(loaded.mean, rms.mean)
    np.testing.assert_array_equal(loaded.var, rms.var)
    assert loaded.count == rms.count


def test_old_gym_spaces_become_gymnasium():
    payload = {
        "box": N(G("gym.spaces.box", "Box"), {"low": np.zeros((2, 2), dtype=np.uint8),
                                              "high": np.full((2, 2), 255, dtype=np.uint8),
                                              "shape": (2, 2), "dtype": np.dtype("uint8"),
                                              "np_random": R(G("numpy.random", "__RandomState_ctor"))}),
        "discrete": N(G("gym.spaces.discrete", "Discrete"), {"n": np.int64(5), "shape": (), "dtype": np.dtype(int)}),
        "multi": N(G("gym.spaces.multi_discrete", "MultiDiscrete"), {"nvec": np.array([2, 3])}),
        "binary": N(G("gym.spaces.multi_binary", "MultiBinary"), {"n": 4}),
        "tuple": N(G("gym.spaces.tuple_space", "Tuple"), {"spaces": (
            N(G("gym.spaces.discrete", "Discrete"), {"n": 3}),
            N(G("gym.spaces.box", "Box"), {"low": np.array([-1.0]), "high": np.array([1.0]), "shape": (1,),
                                           "dtype": np.dtype("float64")}))}),
        "dict": N(G("gym.spaces.dict_space", "Dict"), {"spaces": OrderedDict(
            [("a", N(G("gym.spaces.discrete", "Discrete"), {"n": 2}))])}),
    }
    loaded = safe_loads(craft(payload))
    box = loaded["box"]
    assert isinstance(box, spaces.Box) and box.shape == (2, 2) and box.dtype == np.uint8
    assert loaded["discrete"] == spaces.Discrete(5)
    assert isinstance(loaded["multi"], spaces.MultiDiscrete) and list(loaded["multi"].nvec) == [2, 3]
    assert isinstance(loaded["binary"], spaces.MultiBinary)
    assert isinstance(loaded["tuple"], spaces.Tuple) and loaded["tuple"][0] == spaces.Discrete(3)
    assert isinstance(loaded["tuple"][1], spaces.Box) and loaded["tuple"][1].dtype == np.float64
    assert isinstance(loaded["dict"], spaces.Dict) and loaded["dict"]["a"] == spaces.Discrete(2)


def test_gymnasium_spaces_and_numpy_round_trip():
    box = spaces.Box(low=-1.0, high=1.0, shape=(3,), dtype=np.float32)
    box.seed(3)
    value = {"box": box, "discrete": spaces.Discrete(4, start=1), "array": np.arange(6).reshape(2, 3),
             "fortran": np.asfortranarray(np.ones((2, 3))), "scalar": np.float32(1.5), "int": np.int64(7),
             "ordered": OrderedDict([("b", 1), ("a", 2)]), "set": {1, 2}, "bytes": b"\x00x",
             "complex": 1 + 2j, "nested": [(1, 2.0), {"x": None}], "text": np.array(["ab", "c"])}
    for protocol in (2, 4, 5):
        loaded = safe_loads(cloudpickle.dumps(value, protocol=protocol))
        assert loaded["box"] == box  # (its random generator is not read from the file)
        assert loaded["discrete"] == spaces.Discrete(4, start=1)
        np.testing.assert_array_equal(loaded["array"], value["array"])
        assert loaded["fortran"].flags.f_contiguous
        assert loaded["scalar"] == np.float32(1.5) and loaded["scalar"].dtype == np.float32
        assert list(loaded["ordered"].keys()) == ["b", "a"] and isinstance(loaded["ordered"], OrderedDict)
        assert loaded["set"] == {1, 2} and loaded["bytes"] == b"\x00x" and loaded["complex"] == 1 + 2j
        assert loaded["nested"] == [(1, 2.0), {"x": None}] and loaded["text"].tolist() == ["ab", "c"]
        # kinds a model file never holds on their own: object arrays (their items are pickles), random generators
        for name, refused in (("objects", np.array([1, "a", None], dtype=object)),
                              ("rng", np.random.RandomState(0)), ("gen", np.random.default_rng(1))):
            with pytest.raises(InvalidModelFileError) as excinfo:
                safe_loads(cloudpickle.dumps({name: refused}, protocol=protocol))
            assert repr(name) in str(excinfo.value)


# ----------------------------------------------------------------------------------------------
# pickled functions
# ----------------------------------------------------------------------------------------------
def test_old_cloudpickle_closures_rebuilt_by_the_bytecode_evaluator():
    payload = {"learning_rate": old_cloudpickle_closure("linear_schedule.<locals>.func", [7.3e-4]),
               "cliprange": old_cloudpickle_closure("constfn.<locals>.func", [0.2], freevars=("val",),
                                                    code=CONSTANT_CODE),
               "other": old_cloudpickle_closure("make.<locals>.scale", [0.5], freevars=("x",))}
    loaded = safe_loads(craft(payload, protocol=4))
    for key in payload:
        assert isinstance(loaded[key], ArithmeticFunction), (key, loaded[key])
    assert loaded["learning_rate"](1.0) == pytest.approx(7.3e-4)
    assert loaded["learning_rate"](0.5) == pytest.approx(3.65e-4)
    assert loaded["cliprange"](1.0) == pytest.approx(0.2) and loaded["cliprange"](0.3) == pytest.approx(0.2)
    # the names do not matter, the bytecode does
    assert loaded["other"](0.5) == pytest.approx(0.25)
    # the rebuilt functions pickle with plain pickle (unlike the closures)
    assert pickle.loads(pickle.dumps(loaded["learning_rate"]))(0.5) == pytest.approx(3.65e-4)
    # the oldest layout (positional _fill_function arguments)
    loaded = safe_loads(craft({"lr": old_cloudpickle_closure("unused", [1e-3], state_style=False)}, protocol=4))
    assert loaded["lr"](0.5) == pytest.approx(5e-4)
    # bytecode outside the subset (LOAD_ATTR): a placeholder that keeps the closure values
    loaded = safe_loads(craft({"lr": old_cloudpickle_closure("f", [1e-3], code=bytes([0x88, 0, 0x6a, 0, 0x53, 0]))},
                              protocol=4))
    assert isinstance(loaded["lr"], UnresolvedFunction) and loaded["lr"].closure_values == [1e-3]
    assert loaded["lr"].module == "utils.utils"


def test_files_saved_by_earlier_versions_of_this_library():
    """They name our LinearFunction / UnresolvedFunction classes and the zoo policy classes of safe_pickle."""
    payload = {"lr": N(G("stable_baselines.common.safe_pickle", "LinearFunction"), {"initial_value": 0.5}),
               "clip": N(G("stable_baselines.common.safe_pickle", "UnresolvedFunction"),
                         {"key": "clip", "qualname": "f", "module": "m", "closure_values": [1.0]}),
               "policy": G("stable_baselines.common.safe_pickle", "CustomMlpPolicy")}
    loaded = safe_loads(craft(payload))
    assert loaded["lr"] == LinearFunction(0.5) and loaded["lr"](0.5) == 0.25
    assert isinstance(loaded["clip"], UnresolvedFunction) and loaded["clip"].closure_values == [1.0]
    assert loaded["policy"].__name__ == "CustomMlpPolicy"
    with pytest.raises(InvalidModelFileError):  # fields are checked
        safe_loads(craft({"lr": N(G("stable_baselines.common.safe_pickle", "LinearFunction"),
                                  {"initial_value": "1e-3"})}))


def constfn(val):
    """Same as the original library's constfn (a closure)."""
    def func(_):
        return val
    return func


def linear_schedule(initial_value):
    """Same as the rl-baselines-zoo's linear_schedule (a closure)."""
    def func(progress):
        return progress * initial_value
    return func


def test_modern_cloudpickle_closures_rebuilt():
    blob = cloudpickle.dumps({"lr": linear_schedule(0.01), "clip": constfn(0.1)})
    loaded = safe_loads(blob)
    assert loaded["lr"](1.0) == pytest.approx(0.01) and loaded["lr"](0.25) == pytest.approx(0.0025)
    assert loaded["clip"](0.0) == pytest.approx(0.1)
    loaded = safe_loads(cloudpickle.dumps({"lr": lambda f: max(f * 2.5e-4, 1e-5)}))
    assert isinstance(loaded["lr"], ArithmeticFunction)
    assert loaded["lr"](1.0) == 2.5e-4 and loaded["lr"](0.0) == 1e-5


def test_other_functions_become_placeholders_that_raise_when_called(tmp_path):
    sentinel = tmp_path / "ran"

    def my_schedule(progress):
        open(str(sentinel), "w").close()
        return progress

    loaded = safe_loads(cloudpickle.dumps({"learning_rate": my_schedule, "gamma": 0.9}))
    assert loaded["gamma"] == 0.9
    placeholder = loaded["learning_rate"]
    assert isinstance(placeholder, UnresolvedFunction)
    with pytest.raises(RuntimeError) as excinfo:
        placeholder(1.0)
    message = str(excinfo.value)
    assert "learning_rate" in message and "my_schedule" in message and "custom_objects" in message
    assert not sentinel.exists()
    # the old layout with code outside the subset
    loaded = safe_loads(craft({"f": old_cloudpickle_closure("make.<locals>.func", [1.0, 2.0], freevars=("a", "b"),
                                                            code=bytes([0x88, 0, 0x6a, 0, 0x53, 0]))}, protocol=4))
    assert isinstance(loaded["f"], UnresolvedFunction) and loaded["f"].closure_values == [1.0, 2.0]
    # custom_objects replaces it
    loaded = safe_loads(cloudpickle.dumps({"learning_rate": my_schedule}), custom_objects={"learning_rate": 0.5})
    assert loaded["learning_rate"] == 0.5


# ----------------------------------------------------------------------------------------------
# hostile pickles: nothing runs
# ----------------------------------------------------------------------------------------------
def _hostile_payloads(sentinel):
    path = str(sentinel)

    class System(object):
        def __reduce__(self):
            return os.system, ("touch {}".format(path),)

    class Eval(object):
        def __reduce__(self):
            return eval, ("open({!r}, 'w').close()".format(path),)

    class Popen(object):
        def __reduce__(self):
            return subprocess.Popen, (["touch", path],)

    class Exec(object):
        def __reduce__(self):
            return exec, ("open({!r}, 'w').close()".format(path),)

    def touch(_=None):
        open(path, "w").close()

    class CallDynamicFunction(object):
        def __reduce__(self):
            return touch, (None,)

    class CallLambda(object):
        def __reduce__(self):
            return (lambda p: open(p, "w").close()), (path,)

    return {
        "os.system": pickle.dumps(System()),
        "builtins.eval": pickle.dumps(Eval()),
        "builtins.exec": pickle.dumps(Exec()),
        "subprocess.Popen": pickle.dumps(Popen()),
        "cloudpickle function": cloudpickle.dumps(CallDynamicFunction()),
        "cloudpickle lambda": cloudpickle.dumps(CallLambda()),
        "old cloudpickle function": craft(R(old_cloudpickle_closure("f", []), path), protocol=4),
        "getattr": craft(R(R(G("builtins", "getattr"), G("os", "path"), "join"), "a", "b")),
        "os.system crafted": craft(R(G("os", "system"), "touch " + path)),
        "posix.system": craft(R(G("posix", "system"), "touch " + path)),
        "__import__": craft(R(G("builtins", "__import__"), "os")),
        "importlib": craft(R(G("importlib", "import_module"), "os")),
        "unknown module": craft(R(G("some_unknown_module_xyz", "run"), path)),
        "stable_baselines function": craft(R(G("stable_baselines.common.misc_util", "set_global_seeds"), 0)),
        "numpy function": craft(R(G("numpy", "save"), path, np.zeros(1))),
        "numpy.load": craft(R(G("numpy", "load"), path)),
        "CloudpickleWrapper setstate": pickle.dumps(_cloudpickle_wrapper(System())),
        "stable_baselines class called with args": craft(R(G("stable_baselines.bench.monitor", "Monitor"),
                                                           None, path)),
    }


def _cloudpickle_wrapper(var):
    from stable_baselines.common.vec_env.base_vec_env import CloudpickleWrapper
    return CloudpickleWrapper(var)


def test_hostile_pickles_are_refused_and_nothing_runs(tmp_path):
    sentinel = tmp_path / "pwned"
    for name, blob in _hostile_payloads(sentinel).items():
        with pytest.raises(SafeUnpicklingError) as excinfo:
            safe_loads(blob)
        assert not sentinel.exists(), name
        assert isinstance(excinfo.value, (pickle.UnpicklingError, RuntimeError, ValueError)), name
        assert "custom_objects" in str(excinfo.value), name
    assert not sentinel.exists()
    # the payloads are live: the standard unpickler runs them
    pickle.loads(_hostile_payloads(sentinel)["builtins.eval"])
    assert sentinel.exists()


def test_hostile_entry_error_names_the_key_and_custom_objects_skips_it(tmp_path):
    sentinel = tmp_path / "pwned"

    class System(object):
        def __reduce__(self):
            return os.system, ("touch {}".format(sentinel),)

    blob = pickle.dumps(({"gamma": 0.99, "policy_kwargs": {"act": System()}}, [np.zeros(2)]), protocol=4)
    with pytest.raises(SafeUnpicklingError) as excinfo:
        safe_loads(blob)
    assert excinfo.value.key == "policy_kwargs"
    assert "'policy_kwargs'" in str(excinfo.value) and "custom_objects={'policy_kwargs': value}" in str(excinfo.value)
    assert "system" in str(excinfo.value)
    data, params = safe_loads(blob, custom_objects={"policy_kwargs": {}})
    assert data == {"gamma": 0.99, "policy_kwargs": {}} and params[0].shape == (2,)
    # a zip entry: the key is given by the caller
    with pytest.raises(SafeUnpicklingError) as excinfo:
        safe_loads(pickle.dumps(System()), key="action_noise")
    assert excinfo.value.key == "action_noise" and "custom_objects={'action_noise': value}" in str(excinfo.value)
    assert safe_loads(pickle.dumps(System()), key="action_noise", custom_objects={"action_noise": 3}) == 3
    assert not sentinel.exists()


class DelWrites(object):
    """A class of an imported module whose __del__ has a side effect."""

    path = None

    def __del__(self):
        if getattr(self, "target", None):
            open(self.target, "w").close()


class Plain(object):
    """A plain class of an imported module."""


def test_classes_of_imported_modules_are_never_read(tmp_path):
    sentinel = str(tmp_path / "deleted")
    module = __name__
    # a class by reference, as a value: refused (never imported, never used)
    with pytest.raises(SafeUnpicklingError, match="Plain"):
        safe_loads(craft({"cls": G(module, "Plain")}))
    # a function by reference (a schedule of the user's module, say): an inert placeholder, raising only when called
    placeholder = safe_loads(craft({"learning_rate": G(module, "constfn")}))["learning_rate"]
    assert isinstance(placeholder, UnresolvedFunction) and placeholder is not constfn
    with pytest.raises(RuntimeError, match="custom_objects={'learning_rate': value}"):
        placeholder(1.0)
    # instances are never built, whatever their class
    for cls in (G(module, "DelWrites"), G(module, "Plain"), G("tempfile", "_TemporaryFileCloser"),
                G("stable_baselines.bench.monitor", "Monitor"), G("stable_baselines.common.tf_util", "GetFlat")):
        with pytest.raises(SafeUnpicklingError):
            safe_loads(craft(N(cls, {"target": sentinel, "name": sentinel, "delete": True})))
    import gc
    gc.collect()
    assert not os.path.exists(sentinel)
    # as a policy class: only a subclass of our BasePolicy defined in this process
    with pytest.raises(SafeUnpicklingError, match="define or import it before loading"):
        safe_loads(craft({"policy": G(module, "Plain")}))


def test_corrupt_pickles_give_clear_errors():
    good = pickle.dumps({"a": np.arange(100)}, protocol=4)
    for blob in (good[: len(good) // 2], b"\x80\x04garbage", b""):
        with pytest.raises(InvalidModelFileError, match="is not a valid pickle"):
            safe_loads(blob)
    with pytest.raises(TypeError):
        safe_loads("not bytes")
    with pytest.raises(TypeError):
        safe_loads(good, custom_objects=["a"])


# ----------------------------------------------------------------------------------------------
# mapped classes
# ----------------------------------------------------------------------------------------------
def test_zoo_policy_mapping():
    from stable_baselines import DQN, SAC  # noqa: F401  (their loads import them: their packages declare the bases)
    loaded = safe_loads(craft({"policy": G("utils", "CustomDQNPolicy"), "sac": G("utils.utils", "CustomSACPolicy"),
                               "mlp": G("utils.utils", "CustomMlpPolicy")}))
    mlp = loaded["mlp"]
    from stable_baselines.common.policies import FeedForwardPolicy
    assert isinstance(mlp, type) and issubclass(mlp, FeedForwardPolicy) and mlp.__name__ == "CustomMlpPolicy"
    assert safe_pickle.CustomMlpPolicy is mlp  # pickles by reference
    for name, module in (("policy", "stable_baselines.deepq.policies"), ("sac", "stable_baselines.sac.policies")):
        base = __import__(module, fromlist=["FeedForwardPolicy"]).FeedForwardPolicy
        assert issubclass(loaded[name], base)


def test_unknown_stable_baselines_names_are_refused():
    with pytest.raises(SafeUnpicklingError, match="stable_baselines.not_an_algo.policies.MlpPolicy"):
        safe_loads(craft({"policy": G("stable_baselines.not_an_algo.policies", "MlpPolicy")}))
    with pytest.raises(SafeUnpicklingError, match="noise"):
        safe_loads(craft({"noise": N(G("stable_baselines.not_an_algo.noise", "Noise"), {"_mu": 1.0})}))


def test_ddpg_noise_and_memory_mapping():
    loaded = safe_loads(craft({"noise": N(G("stable_baselines.ddpg.noise", "NormalActionNoise"),
                                          {"_mu": np.zeros(1), "_sigma": np.ones(1) * 0.1}),
                               "memory_policy": G("stable_baselines.ddpg.memory", "Memory"),
                               "memory": N(G("stable_baselines.ddpg.memory", "Memory"), {"limit": 10})}))
    from stable_baselines.common.noise import NormalActionNoise
    assert isinstance(loaded["noise"], NormalActionNoise)
    assert loaded["noise"]._sigma[0] == pytest.approx(0.1)  # pylint: disable=protected-access
    assert loaded["memory_policy"] is safe_pickle.LegacyReplayMemory
    assert isinstance(loaded["memory"], safe_pickle.LegacyReplayMemory) and "not restored" in repr(loaded["memory"])
    # fields are validated: a noise object with a callable or a non-finite sigma is refused
    for state in ({"_mu": np.zeros(1), "_sigma": G("os", "system")}, {"_mu": np.zeros(1), "_sigma": np.array([np.nan])},
                  {"_mu": np.zeros(1), "_sigma": np.ones(1), "__call__": G("os", "system")}):
        with pytest.raises(InvalidModelFileError):
            safe_loads(craft({"noise": N(G("stable_baselines.common.noise", "NormalActionNoise"), state)}))


def test_tensorflow_activation_by_reference():
    from stable_baselines.common.tf_compat import tf
    loaded = safe_loads(cloudpickle.dumps({"act_fun": tf.nn.relu, "tanh": tf.tanh}))
    assert loaded["act_fun"] is tf.nn.relu or loaded["act_fun"].__name__ == "relu"
    assert callable(loaded["tanh"])


def test_base64_helper_and_key_shortcut():
    text = base64.b64encode(pickle.dumps([1, 2])).decode()
    assert safe_pickle.safe_loads_base64(text, key="x") == [1, 2]
    assert safe_pickle.safe_loads_base64("!!!", key="x", custom_objects={"x": 5}) == 5
    with pytest.raises(InvalidModelFileError, match="base64"):
        safe_pickle.safe_loads_base64("@@@@", key="x")


def test_loading_old_gym_spaces_never_imports_gym():
    had_gym = "gym" in sys.modules
    assert safe_loads(craft(N(G("gym.spaces.discrete", "Discrete"), {"n": 2}))) == spaces.Discrete(2)
    assert ("gym" in sys.modules) == had_gym


def test_expert_dataset_of_a_gail_file_loads_but_foreign_finalizers_do_not():
    """A GAIL file holds its ExpertDataset (whose __del__ only stops its loader threads)."""
    observations = np.arange(40, dtype=np.float32).reshape(20, 2)
    traj_data = dict(obs=observations, actions=np.zeros((20, 1)), rewards=np.ones(20),
                     episode_returns=np.array([10.0, 10.0]), episode_starts=np.eye(1, 20, 0).ravel().astype(bool) |
                     np.eye(1, 20, 10).ravel().astype(bool))
    dataset = ExpertDataset(traj_data=traj_data, batch_size=4, verbose=0)
    dataset.prepare_pickling()
    loaded = safe_pickle.safe_loads(cloudpickle.dumps(dataset), key="expert_dataset")
    assert isinstance(loaded, ExpertDataset)
    np.testing.assert_array_equal(loaded.observations, observations)
    assert loaded.get_next_batch("train")[0].shape == (4, 2)

    payload = cloudpickle.dumps(_DatasetWithFinalizer(traj_data=traj_data, verbose=0))
    with pytest.raises(SafeUnpicklingError, match="expert_dataset"):
        safe_pickle.safe_loads(payload, key="expert_dataset")


class _DatasetWithFinalizer(ExpertDataset):
    def __del__(self):  # a finalizer we do not know: never built from a file
        pass


# ----------------------------------------------------------------------------------------------
# functions pickled by cloudpickle under Python 3.6 - 3.13 (tests/data/pickled_functions), through the whole loader
# ----------------------------------------------------------------------------------------------
FUNCTION_FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "pickled_functions")


def _function_fixtures():
    import glob
    return sorted(os.path.basename(path)[:-4] for path in glob.glob(os.path.join(FUNCTION_FIXTURES, "*.pkl")))


@pytest.mark.parametrize("stem", _function_fixtures())
def test_functions_pickled_by_every_python_load_without_running(stem):
    import gzip
    import json
    with gzip.open(os.path.join(FUNCTION_FIXTURES, stem + ".json.gz"), "rt") as file_handler:
        facts = json.load(file_handler)
    with open(os.path.join(FUNCTION_FIXTURES, stem + ".pkl"), "rb") as file_handler:
        loaded = safe_load(file_handler)
    assert set(loaded) == set(facts["functions"])
    for key, fact in facts["functions"].items():
        function = loaded[key]
        if fact["kind"] != "subset":
            assert isinstance(function, UnresolvedFunction), (stem, key, function)
            with pytest.raises(RuntimeError, match=repr(key)):
                function(0.5)
            continue
        assert isinstance(function, ArithmeticFunction), (stem, key, function)
        for argument, sample in zip(facts["sample_inputs"], fact["samples"]):
            if "value" not in sample or not isinstance(sample["value"], (int, float)):
                continue
            result = function(argument)
            if sample["value"] != sample["value"]:  # NaN
                assert result != result, (stem, key, argument)
            else:
                assert result == sample["value"] and type(result) is type(sample["value"]), (stem, key, argument,
                                                                                             result, sample)
