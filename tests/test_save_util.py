"""Tests of the model-file formats (stable_baselines.common.save_util): legacy files, round trips, errors."""
import io
import json
import os
import pickle
import re
import threading
import warnings
import zipfile
from collections import OrderedDict

import numpy as np
import pytest
from gymnasium import spaces

# the classes the legacy files name are declared by their packages, which the models' loads import
import stable_baselines.common.policies  # noqa: F401  pylint: disable=unused-import
from stable_baselines import DDPG, DQN, SAC, TD3  # noqa: F401  pylint: disable=unused-import
from stable_baselines.common import save_util
from stable_baselines.common.safe_pickle import LegacyReplayMemory, LinearFunction, SafeUnpicklingError
from stable_baselines.common.save_util import (InvalidModelFileError, ModelFileNotFoundError, bytes_to_params,
                                              data_to_json, is_json_serializable, json_to_data, load_from_pkl,
                                              load_from_zip, load_model_file, params_to_bytes, save_to_pkl,
                                              save_to_zip)

from legacy_helpers import legacy_file  # pylint: disable=wrong-import-order


def readme_parameter_lists():
    """file -> [(name, shape)] from the legacy-models README (the SB 2.10 get_parameter_list() order)."""
    with open(legacy_file("README.md")) as file_handler:
        text = file_handler.read()
    lists = {}
    pattern = re.compile(r"^#### \w+ — `([^`]+)`[^\n]*\n+```\n(.*?)```", re.M | re.S)
    for match in pattern.finditer(text):
        entries = []
        for line in match.group(2).strip().splitlines():
            name, shape = re.match(r"^(\S+) \((.*)\)$", line.strip()).groups()
            entries.append((name, tuple(int(dim) for dim in re.findall(r"\d+", shape))))
        lists[match.group(1)] = entries
    return lists


def load_quietly(path, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        return load_model_file(path, **kwargs)


# (file, list in the README to compare with, observation shape, action space kind, n actions / action shape)
LEGACY_FILES = [
    ("a2c/CartPole-v1.pkl", "a2c/CartPole-v1.pkl", (4,), "Discrete", 2),
    ("acer/CartPole-v1.pkl", "acer/CartPole-v1.pkl", (4,), "Discrete", 2),
    ("acktr/Pendulum-v0.zip", "acktr/Pendulum-v0.zip", (3,), "Box", (1,)),
    ("ppo2/CartPole-v1.pkl", "a2c/CartPole-v1.pkl", (4,), "Discrete", 2),
    ("ppo2/MountainCar-v0.pkl", None, (2,), "Discrete", 3),
    ("trpo/CartPole-v1.pkl", "trpo/CartPole-v1.pkl", (4,), "Discrete", 2),
    ("dqn/CartPole-v1.pkl", "dqn/CartPole-v1.pkl", (4,), "Discrete", 2),
    ("ddpg/Pendulum-v0.pkl", "ddpg/Pendulum-v0.pkl", (3,), "Box", (1,)),
    ("sac/Pendulum-v0.pkl", "sac/Pendulum-v0.pkl", (3,), "Box", (1,)),
    ("td3/Pendulum-v0.pkl", "td3/Pendulum-v0.pkl", (3,), "Box", (1,)),
]


@pytest.mark.parametrize("filename,list_name,obs_shape,action_kind,action_info", LEGACY_FILES)
def test_legacy_files_load(filename, list_name, obs_shape, action_kind, action_info):
    path = legacy_file(*filename.split("/"))
    data, params = load_quietly(path)
    # spaces are gymnasium spaces with the right shape and dtype
    observation_space, action_space = data["observation_space"], data["action_space"]
    assert isinstance(observation_space, spaces.Box)
    assert observation_space.shape == obs_shape and observation_space.dtype == np.float32
    if action_kind == "Discrete":
        assert action_space == spaces.Discrete(action_info)
    else:
        assert isinstance(action_space, spaces.Box) and action_space.shape == action_info
        assert action_space.dtype == np.float32
        np.testing.assert_allclose(action_space.low, -2.0)
    assert isinstance(data["gamma"], float) and 0.9 < data["gamma"] < 1
    assert isinstance(data["verbose"], int)
    # policy: one of our policy classes (the zoo's own classes map to ours)
    from stable_baselines.common.policies import BasePolicy
    assert isinstance(data["policy"], type) and issubclass(data["policy"], BasePolicy), data["policy"]
    # parameters: count and shapes as the README lists them
    if list_name is None:  # ppo2 MountainCar: the CartPole list with 2 observations and 3 actions
        expected = [(name, shape) for name, shape in readme_parameter_lists()["a2c/CartPole-v1.pkl"]]
        expected = [(name, tuple(2 if (dim == 4 and i == 0) else (3 if (dim == 2 and name.startswith(
            ("model/pi/", "model/q/"))) else dim) for i, dim in enumerate(shape))) for name, shape in expected]
    else:
        expected = readme_parameter_lists()[list_name]
    if isinstance(params, OrderedDict):
        assert [(name, value.shape) for name, value in params.items()] == expected
    else:
        assert isinstance(params, list)
        shapes = [np.shape(value) for value in params]
        if filename.startswith("sac/"):  # pre-2.6 bug: every variable twice
            assert len(shapes) == 2 * len(expected) == 64
            assert shapes[:len(expected)] == [shape for _, shape in expected]
        else:
            assert shapes == [shape for _, shape in expected]
    for value in (params.values() if isinstance(params, dict) else params):
        assert isinstance(value, (np.ndarray, np.generic)) and np.all(np.isfinite(value))


def test_legacy_specifics():
    data, params = load_quietly(legacy_file("acktr", "Pendulum-v0"))  # extension added
    assert list(params.keys()) == [name for name, _ in readme_parameter_lists()["acktr/Pendulum-v0.zip"]]
    assert data["learning_rate"] == 0.06 and data["policy_kwargs"] == {} and data["n_envs"] == 4
    from stable_baselines.common.policies import MlpPolicy
    assert data["policy"] is MlpPolicy

    data, params = load_quietly(legacy_file("td3", "Pendulum-v0.pkl"))
    assert isinstance(params, OrderedDict) and len(params) == 36
    assert data["learning_rate"](1.0) == pytest.approx(3e-4) and data["learning_rate"](0.5) == pytest.approx(3e-4)

    data, _ = load_quietly(legacy_file("ppo2", "MountainCar-v0.pkl"))
    print("ppo2 MountainCar learning_rate:", data["learning_rate"], "cliprange:", data["cliprange"])
    assert data["learning_rate"](0.5) == pytest.approx(2.5e-4) and data["cliprange"](1.0) == pytest.approx(0.2)
    assert "policy_kwargs" not in data  # old files: left to the caller

    data, params = load_quietly(legacy_file("dqn", "CartPole-v1.pkl"))
    assert np.shape(params[0]) == ()  # deepq/eps:0
    assert data["prioritized_replay"] is True and data["exploration_final_eps"] == pytest.approx(0.02)

    data, _ = load_quietly(legacy_file("ddpg", "Pendulum-v0.pkl"))
    assert data["observation_range"] == (-5.0, 5.0)
    assert data["memory_policy"] is LegacyReplayMemory  # the removed stable_baselines.ddpg.memory.Memory
    noise = data["action_noise"]
    state = noise.state if hasattr(noise, "state") and isinstance(noise.state, dict) else vars(noise)
    assert np.shape(state["_mu"]) == (1,)


def test_custom_objects_override():
    # pkl: the entry is replaced
    data, _ = load_quietly(legacy_file("ppo2", "CartPole-v1.pkl"), custom_objects={"learning_rate": 1e-3, "unknown": 1})
    assert data["learning_rate"] == 1e-3 and "unknown" not in data
    # zip: the entry is not deserialized at all
    data, _ = load_quietly(legacy_file("acktr", "Pendulum-v0.zip"),
                           custom_objects={"policy": "replaced", "observation_space": spaces.Box(-1, 1, (3,))})
    assert data["policy"] == "replaced" and data["observation_space"] == spaces.Box(-1, 1, (3,))
    with pytest.raises(ValueError):
        load_model_file(legacy_file("acktr", "Pendulum-v0.zip"), custom_objects=["policy"])


# ----------------------------------------------------------------------------------------------
# round trips
# ----------------------------------------------------------------------------------------------
def make_data_and_params():
    from stable_baselines.common.policies import MlpPolicy
    from stable_baselines.common.schedules import constfn
    data = {
        "gamma": 0.99, "n_steps": 5, "verbose": 0, "lr_schedule": "linear", "policy_kwargs": {"net_arch": [8]},
        "policy": MlpPolicy,
        "observation_space": spaces.Box(low=-1.0, high=1.0, shape=(3,), dtype=np.float32),
        "action_space": spaces.Discrete(2),
        "learning_rate": constfn(3e-4), "cliprange": LinearFunction(0.2),
        "seed": None, "eps": np.float32(0.5), "bounds": np.arange(3.0),
    }
    params = OrderedDict([("model/pi_fc0/w:0", np.random.RandomState(0).randn(3, 4).astype(np.float32)),
                          ("model/pi_fc0/b:0", np.zeros(4, dtype=np.float32)),
                          ("model/vf/w:0", np.ones((4, 1), dtype=np.float32)),
                          ("deepq/eps:0", np.array(0.5, dtype=np.float32)),
                          ("input/obs_rms/count:0", np.array(3.0))])
    return data, params


def check_round_trip(data, params, loaded_data, loaded_params):
    assert set(loaded_data.keys()) == set(data.keys())
    for key in ("gamma", "n_steps", "verbose", "lr_schedule", "policy_kwargs", "seed", "policy",
                "observation_space", "action_space"):
        assert loaded_data[key] == data[key], key
    assert loaded_data["learning_rate"](0.5) == pytest.approx(3e-4)
    assert loaded_data["cliprange"](0.5) == pytest.approx(0.1)
    assert loaded_data["eps"] == np.float32(0.5)
    np.testing.assert_array_equal(loaded_data["bounds"], data["bounds"])
    assert list(loaded_params.keys()) == list(params.keys())
    for name, value in params.items():
        np.testing.assert_array_equal(loaded_params[name], value)
        assert loaded_params[name].dtype == value.dtype


def test_zip_round_trip_and_format(tmp_path):
    data, params = make_data_and_params()
    path = save_to_zip(str(tmp_path / "model"), data, params)
    assert path == str(tmp_path / "model.zip") and os.path.isfile(path)
    with zipfile.ZipFile(path) as archive:
        assert archive.namelist() == ["data", "parameters", "parameter_list"]
        assert all(info.compress_type == zipfile.ZIP_STORED for info in archive.infolist())
        json_data = json.loads(archive.read("data"))
        assert json.loads(archive.read("parameter_list")) == list(params.keys())
        with zipfile.ZipFile(io.BytesIO(archive.read("parameters"))) as npz:
            assert sorted(npz.namelist()) == sorted(name + ".npy" for name in params)
    assert json_data["gamma"] == 0.99 and json_data["policy_kwargs"] == {"net_arch": [8]}
    assert json_data["observation_space"][":type:"] == str(type(data["observation_space"]))
    assert ":serialized:" in json_data["observation_space"] and json_data["observation_space"]["dtype"] == "float32"
    assert json_data["policy"]["__module__"] == "stable_baselines.common.policies"
    loaded_data, loaded_params = load_model_file(str(tmp_path / "model"))  # '.zip' added
    check_round_trip(data, params, loaded_data, loaded_params)
    loaded_data, loaded_params = load_from_zip(path)
    check_round_trip(data, params, loaded_data, loaded_params)
    assert load_from_zip(path, load_data=False)[0] is None


def test_pkl_round_trip(tmp_path):
    data, params = make_data_and_params()
    path = save_to_pkl(str(tmp_path / "model"), data, params)
    assert path.endswith("model.pkl")
    with open(path, "rb") as file_handler:
        assert file_handler.read(2) == b"\x80\x04"
    loaded_data, loaded_params = load_from_pkl(str(tmp_path / "model"))
    check_round_trip(data, params, loaded_data, loaded_params)
    loaded_data, loaded_params = load_quietly(str(tmp_path / "model"))
    check_round_trip(data, params, loaded_data, loaded_params)
    # an unnamed list, as the oldest files hold
    save_to_pkl(str(tmp_path / "list.pkl"), {"gamma": 0.5}, [np.ones(2), np.zeros((1, 1))])
    loaded_data, loaded_params = load_quietly(str(tmp_path / "list.pkl"))
    assert loaded_data == {"gamma": 0.5} and [p.shape for p in loaded_params] == [(2,), (1, 1)]


def test_file_like_objects_both_ways():
    data, params = make_data_and_params()
    for save, load in ((save_to_zip, load_from_zip), (save_to_pkl, load_from_pkl)):
        buffer = io.BytesIO()
        assert save(buffer, data, params) is None
        buffer.seek(0)
        check_round_trip(data, params, *load(buffer))
        buffer.seek(0)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            check_round_trip(data, params, *load_model_file(buffer))

        class Stream(io.RawIOBase):  # not seekable
            def __init__(self, content):
                super().__init__()
                self._inner = io.BytesIO(content)

            def readable(self):
                return True

            def readinto(self, target):
                chunk = self._inner.read(len(target))
                target[:len(chunk)] = chunk
                return len(chunk)

        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            check_round_trip(data, params, *load_model_file(io.BufferedReader(Stream(buffer.getvalue()))))
    with open(legacy_file("acktr", "Pendulum-v0.zip"), "rb") as file_handler:
        _, loaded_params = load_model_file(io.BytesIO(file_handler.read()))
    assert len(loaded_params) == 15


def test_save_none_members(tmp_path):
    path = save_to_zip(str(tmp_path / "only_params.zip"), None, OrderedDict([("a:0", np.ones(1))]))
    data, params = load_model_file(path)
    assert data is None and list(params) == ["a:0"]
    path = save_to_zip(str(tmp_path / "only_data.zip"), {"gamma": 0.1}, None)
    assert load_model_file(path) == ({"gamma": 0.1}, None)


def test_atomic_save_keeps_old_file(tmp_path, monkeypatch):
    data, params = make_data_and_params()
    path = str(tmp_path / "model.zip")
    save_to_zip(path, data, params)
    with open(path, "rb") as file_handler:
        before = file_handler.read()
    original_writestr = zipfile.ZipFile.writestr
    calls = []

    def failing_writestr(self, *args, **kwargs):
        calls.append(args[0])
        if len(calls) == 2:
            raise OSError("disk full (simulated crash mid-write)")
        return original_writestr(self, *args, **kwargs)

    monkeypatch.setattr(zipfile.ZipFile, "writestr", failing_writestr)
    with pytest.raises(OSError, match="simulated"):
        save_to_zip(path, {"gamma": 0.5}, OrderedDict([("x:0", np.zeros(1))]))
    monkeypatch.undo()
    with open(path, "rb") as file_handler:
        assert file_handler.read() == before
    assert os.listdir(str(tmp_path)) == ["model.zip"]  # no temporary file left behind
    check_round_trip(data, params, *load_model_file(path))

    pkl_path = str(tmp_path / "model.pkl")
    save_to_pkl(pkl_path, data, params)
    with open(pkl_path, "rb") as file_handler:
        before = file_handler.read()

    def failing_fsync(_fd):
        raise OSError("simulated crash before the rename")

    monkeypatch.setattr(os, "fsync", failing_fsync)
    with pytest.raises(OSError, match="simulated"):
        save_to_pkl(pkl_path, {"gamma": 0.1}, [])
    monkeypatch.undo()
    with open(pkl_path, "rb") as file_handler:
        assert file_handler.read() == before
    assert sorted(os.listdir(str(tmp_path))) == ["model.pkl", "model.zip"]


def test_saved_file_permissions_follow_umask(tmp_path):
    path = save_to_zip(str(tmp_path / "m.zip"), {"a": 1}, None)
    mask = os.umask(0o022)
    os.umask(mask)
    assert os.stat(path).st_mode & 0o777 == 0o666 & ~mask


# ----------------------------------------------------------------------------------------------
# errors
# ----------------------------------------------------------------------------------------------
def test_file_not_found_names_paths(tmp_path):
    missing = str(tmp_path / "nope")
    with pytest.raises(ModelFileNotFoundError) as excinfo:
        load_model_file(missing)
    message = str(excinfo.value)
    assert missing in message and missing + ".zip" in message and missing + ".pkl" in message
    assert isinstance(excinfo.value, FileNotFoundError) and isinstance(excinfo.value, ValueError)
    with pytest.raises(ModelFileNotFoundError):
        load_from_zip(missing)
    with pytest.raises(ModelFileNotFoundError):
        load_from_pkl(missing)


@pytest.mark.parametrize("source", ["acktr/Pendulum-v0.zip", "ppo2/CartPole-v1.pkl"])
def test_truncated_files(tmp_path, source):
    with open(legacy_file(*source.split("/")), "rb") as file_handler:
        content = file_handler.read()
    for size in (len(content) // 2, len(content) - 10, 10):
        path = str(tmp_path / ("cut" + os.path.splitext(source)[1]))
        with open(path, "wb") as file_handler:
            file_handler.write(content[:size])
        with pytest.raises(InvalidModelFileError) as excinfo:
            load_quietly(path)
        assert "is not a valid" in str(excinfo.value)  # ... model file / pickle: the reason follows
        assert "cut" in str(excinfo.value)


def test_corrupt_files(tmp_path):
    with open(legacy_file("acktr", "Pendulum-v0.zip"), "rb") as file_handler:
        content = bytearray(file_handler.read())
    # flip bytes inside the stored parameters: CRC error
    position = content.find(b"parameters") + 5000
    content[position:position + 8] = b"\xff" * 8
    path = str(tmp_path / "corrupt.zip")
    with open(path, "wb") as file_handler:
        file_handler.write(bytes(content))
    with pytest.raises(InvalidModelFileError, match="is not a valid Stable Baselines model file"):
        load_model_file(path)
    for name, blob, expected in (("garbage.zip", b"hello world, not a model", "neither a zip archive nor a pickle"),
                                 ("empty.zip", b"", "empty"),
                                 ("list.pkl", pickle.dumps([1, 2, 3]), "expected a pickled tuple")):
        path = str(tmp_path / name)
        with open(path, "wb") as file_handler:
            file_handler.write(blob)
        with pytest.raises(InvalidModelFileError) as excinfo:
            load_quietly(path)
        assert expected in str(excinfo.value) and name in str(excinfo.value)


def _zip_with(path, members):
    with zipfile.ZipFile(path, "w") as archive:
        for name, content in members.items():
            archive.writestr(name, content)


def test_missing_and_bad_members(tmp_path):
    params = OrderedDict([("a:0", np.ones(2)), ("b:0", np.zeros(1))])
    path = str(tmp_path / "no_list.zip")
    _zip_with(path, {"data": "{}", "parameters": params_to_bytes(params)})
    with pytest.raises(InvalidModelFileError, match="parameter_list"):
        load_model_file(path)
    path = str(tmp_path / "bad_list.zip")
    _zip_with(path, {"parameters": params_to_bytes(params), "parameter_list": json.dumps(["a:0", "c:0"])})
    with pytest.raises(InvalidModelFileError, match="c:0"):
        load_model_file(path)
    path = str(tmp_path / "bad_json.zip")
    _zip_with(path, {"data": "{not json", "parameters": params_to_bytes(params),
                     "parameter_list": json.dumps(list(params))})
    with pytest.raises(InvalidModelFileError, match="'data' member .* is not valid JSON"):
        load_model_file(path)
    path = str(tmp_path / "other.zip")
    _zip_with(path, {"README.txt": "hello"})
    with pytest.raises(InvalidModelFileError, match="neither a 'data' nor a 'parameters' member"):
        load_model_file(path)
    # a pickled object array in the parameters is refused by numpy (allow_pickle=False)
    path = str(tmp_path / "object_params.zip")
    buffer = io.BytesIO()
    np.savez(buffer, **{"a:0": np.array([object()], dtype=object)})
    _zip_with(path, {"parameters": buffer.getvalue(), "parameter_list": json.dumps(["a:0"])})
    with pytest.raises(InvalidModelFileError):
        load_model_file(path)


def test_malicious_serialized_entry_in_zip(tmp_path):
    sentinel = tmp_path / "pwned"

    class System(object):
        def __reduce__(self):
            return os.system, ("touch {}".format(sentinel),)

    import base64
    json_data = json.dumps({"gamma": 0.9, "policy": {":type:": "<class 'type'>",
                                                     ":serialized:": base64.b64encode(pickle.dumps(System())).decode()}})
    path = str(tmp_path / "evil.zip")
    _zip_with(path, {"data": json_data})
    with pytest.raises(SafeUnpicklingError) as excinfo:
        load_model_file(path)
    assert "'policy'" in str(excinfo.value) and "custom_objects" in str(excinfo.value)
    assert not sentinel.exists()
    data, params = load_model_file(path, custom_objects={"policy": "mine"})
    assert data == {"gamma": 0.9, "policy": "mine"} and params is None
    assert not sentinel.exists()
    # the same in the old format
    path = str(tmp_path / "evil.pkl")
    with open(path, "wb") as file_handler:
        pickle.dump(({"gamma": 0.9, "policy": System()}, []), file_handler, protocol=4)
    with pytest.raises(SafeUnpicklingError):
        load_quietly(path)
    assert not sentinel.exists()


# ----------------------------------------------------------------------------------------------
# helpers
# ----------------------------------------------------------------------------------------------
def test_json_helpers():
    assert is_json_serializable({"a": [1, 2.0, None, "x"]}) and not is_json_serializable(np.zeros(1))
    assert not is_json_serializable({1, 2})
    text = data_to_json({"a": 1, "space": spaces.Discrete(3), "od": OrderedDict(b=np.int64(1))})
    loaded = json.loads(text)
    assert loaded["a"] == 1 and str(loaded["space"]["n"]) == "3" and loaded["space"][":type:"].startswith("<class")
    assert loaded["od"]["b"] == "1"
    back = json_to_data(text)
    assert back["space"] == spaces.Discrete(3) and back["od"] == OrderedDict(b=1)
    assert json_to_data(text, custom_objects={"space": 5})["space"] == 5
    with pytest.raises(ValueError):
        json_to_data(text, custom_objects="space")
    with pytest.raises(TypeError, match="entry 'f'"):
        data_to_json({"f": threading.Lock()})  # neither JSON nor picklable
    params = OrderedDict([("z:0", np.ones(1)), ("a:0", np.zeros(2))])
    assert list(bytes_to_params(params_to_bytes(params), ["z:0", "a:0"])) == ["z:0", "a:0"]
    assert list(bytes_to_params(params_to_bytes(params), ["a:0"])) == ["a:0"]
    with pytest.raises(TypeError):
        params_to_bytes([np.ones(1)])


def test_save_util_errors_on_bad_arguments(tmp_path):
    with pytest.raises(TypeError):
        save_to_zip(str(tmp_path / "x.zip"), ["not a dict"], None)
    with pytest.raises(TypeError):
        save_to_zip(12, {"a": 1}, None)
    with pytest.raises(TypeError):
        load_model_file(12)
    with pytest.raises(FileNotFoundError):
        save_to_zip(str(tmp_path / "no_dir" / "x.zip"), {"a": 1}, None)
    assert save_util.PICKLE_PROTOCOL == 4


def test_atomic_save_through_symlink(tmp_path):
    target = tmp_path / "real.zip"
    save_to_zip(str(target), {"gamma": 0.1}, None)
    link = tmp_path / "link.zip"
    os.symlink(str(target), str(link))
    save_to_zip(str(link), {"gamma": 0.2}, None)
    assert os.path.islink(str(link))
    assert load_model_file(str(target))[0] == {"gamma": 0.2}
