"""
Hostile files, second round: a refused file leaves the process as it was (generators first of all), generator
states are checked before they are used, and every bad value ends in an ``InvalidModelFileError`` naming the member
or entry, never in a bare Python or numpy exception.
"""
import io
import json
import random
import zipfile
from typing import Any, Callable, Dict

import numpy as np
import pytest

from stable_baselines import SAC
from stable_baselines.common.model.training_state import ARRAYS_MEMBER, STATE_MEMBER
from stable_baselines.common.safe_loading.errors import InvalidModelFileError

SMALL = dict(seed=3, n_cpu_tf_sess=1, policy_kwargs=dict(layers=[8]), learning_starts=20, buffer_size=200,
             batch_size=8)


@pytest.fixture(scope="module")
def saved_sac(tmp_path_factory: Any) -> str:
    path = str(tmp_path_factory.mktemp("second_round") / "sac.zip")
    model = SAC("MlpPolicy", "Pendulum-v1", **SMALL)
    model.learn(40)
    model.save(path, include_training_state=True)
    return path


def _rewrite(path: str, target: str, change: Callable[[Dict[str, bytes]], None]) -> str:
    with zipfile.ZipFile(path) as archive:
        members = {name: archive.read(name) for name in archive.namelist()}
    change(members)
    with zipfile.ZipFile(target, "w") as archive:
        for name, content in members.items():
            archive.writestr(name, content)
    return target


def _edit_arrays(edit: Callable[[Dict[str, np.ndarray]], None]) -> Callable[[Dict[str, bytes]], None]:
    def change(members: Dict[str, bytes]) -> None:
        with zipfile.ZipFile(io.BytesIO(members[ARRAYS_MEMBER])) as archive:
            arrays = {name[:-4]: np.load(io.BytesIO(archive.read(name))) for name in archive.namelist()}
        edit(arrays)
        out = io.BytesIO()
        np.savez(out, **arrays)
        members[ARRAYS_MEMBER] = out.getvalue()
    return change


def _edit_state(edit: Callable[[Dict[str, Any]], None]) -> Callable[[Dict[str, bytes]], None]:
    def change(members: Dict[str, bytes]) -> None:
        state = json.loads(members[STATE_MEMBER])
        edit(state)
        members[STATE_MEMBER] = json.dumps(state).encode()
    return change


def _zero_keys(name: str) -> Callable[[Dict[str, np.ndarray]], None]:
    def edit(arrays: Dict[str, np.ndarray]) -> None:
        keys = np.zeros_like(arrays[name])
        if name == "rng/python":
            keys[-1] = 624  # the position stays valid: only the words are zero
        arrays[name] = keys
    return edit


def _forward_state(key: str, value: int) -> Callable[[Dict[str, Any]], None]:
    def edit(state: Dict[str, Any]) -> None:
        target = state["rng"]["forward"]
        if key in ("state", "inc"):
            target["state"][key] = value
        else:
            target[key] = value
    return edit


def _bad_parameters(members: Dict[str, bytes]) -> None:
    """A parameter of another shape than the model's variable: refused once the model is built."""
    with zipfile.ZipFile(io.BytesIO(members["parameters"])) as archive:
        arrays = {name[:-4]: np.load(io.BytesIO(archive.read(name))) for name in archive.namelist()}
    first = sorted(arrays)[0]
    arrays[first] = np.zeros(np.asarray(arrays[first]).shape + (2,), np.float32)
    out = io.BytesIO()
    np.savez(out, **arrays)
    members["parameters"] = out.getvalue()


BAD_STATES = {
    "numpy keys all zero": (_edit_arrays(_zero_keys("rng/numpy")), "degenerate"),
    "python keys all zero": (_edit_arrays(_zero_keys("rng/python")), "degenerate"),
    "PCG64 state out of range": (_edit_state(_forward_state("state", 1 << 129)), "not a valid PCG64 state"),
    "PCG64 increment out of range": (_edit_state(_forward_state("inc", 1 << 129)), "not a valid PCG64 state"),
    "PCG64 cached word out of range": (_edit_state(_forward_state("uinteger", 1 << 40)), "not a valid PCG64 state"),
    # refused after the model is built (and the global generators seeded by its seed)
    "parameter of another shape": (_bad_parameters, "shape"),
    # refused at the very end of the training state, after the generators were checked
    "unknown object state": (_edit_state(lambda state: state["objects"].update(evil={"kind": "MpiAdam"})),
                             "objects"),
}


@pytest.mark.parametrize("kind", sorted(BAD_STATES))
def test_a_refused_file_leaves_the_generators_as_they_were(saved_sac: str, tmp_path: Any, kind: str) -> None:
    change, message = BAD_STATES[kind]
    path = _rewrite(saved_sac, str(tmp_path / "bad.zip"), change)
    random.seed(11)
    np.random.seed(12)
    python_before, numpy_before = random.getstate(), np.random.get_state()
    with pytest.raises(InvalidModelFileError, match=message):
        SAC.load(path, env="Pendulum-v1")
    assert random.getstate() == python_before
    numpy_after = np.random.get_state()
    np.testing.assert_array_equal(numpy_after[1], numpy_before[1])
    assert numpy_after[2:] == numpy_before[2:]
    assert 0.0 < random.random() < 1.0 and 0.0 < np.random.random() < 1.0


def test_a_good_file_still_restores_the_generators(saved_sac: str) -> None:
    random.seed(11)
    SAC.load(saved_sac, env="Pendulum-v1")
    first = random.random()
    random.seed(11)
    SAC.load(saved_sac, env="Pendulum-v1")
    assert random.random() == first  # the file's state, not the one before the load


# ------------------------------------------------------------------------------------------ settings of the file
@pytest.fixture(scope="module")
def saved_ppo2(tmp_path_factory: Any) -> str:
    from stable_baselines import PPO2
    path = str(tmp_path_factory.mktemp("settings") / "ppo2.zip")
    PPO2("MlpPolicy", "CartPole-v1", n_steps=16, nminibatches=2, seed=1, policy_kwargs=dict(layers=[8])).save(path)
    return path


def _edit_data_text(edit: Callable[[str], str]) -> Callable[[Dict[str, bytes]], None]:
    def change(members: Dict[str, bytes]) -> None:
        members["data"] = edit(members["data"].decode()).encode()
    return change


def _set_entry(name: str, json_text: str) -> Callable[[Dict[str, bytes]], None]:
    def edit(text: str) -> str:
        data = json.loads(text)
        data[name] = "@@VALUE@@"
        return json.dumps(data).replace('"@@VALUE@@"', json_text)
    return _edit_data_text(edit)


BAD_SETTINGS = {
    "verbose of 400 digits": (_set_entry("verbose", "1" + "0" * 400), "'verbose'"),
    "seed Infinity": (_set_entry("seed", "Infinity"), "'seed'"),
    "negative seed": (_set_entry("seed", "-5"), "'seed'"),
    "policy_kwargs giving sess": (_set_entry("policy_kwargs", '{"sess": 1}'), "'sess'"),
    "nminibatches 0": (_set_entry("nminibatches", "0"), "nminibatches must be a positive int, got 0"),
    "n_steps negative": (_set_entry("n_steps", "-3"), "'n_steps'"),
    "data nested 900 deep": (_set_entry("gamma", "[" * 900 + "]" * 900), "nests lists or objects 901 deep"),
}


@pytest.mark.parametrize("kind", sorted(BAD_SETTINGS))
def test_bad_settings_end_in_one_clear_error(saved_ppo2: str, tmp_path: Any, kind: str) -> None:
    from stable_baselines import PPO2
    change, message = BAD_SETTINGS[kind]
    path = _rewrite(saved_ppo2, str(tmp_path / "bad.zip"), change)
    with pytest.raises(InvalidModelFileError) as error:
        PPO2.load(path)
    assert message in str(error.value) and "bad.zip" in str(error.value)


def test_training_state_nested_too_deep_is_refused(saved_sac: str, tmp_path: Any) -> None:
    change = _edit_state(lambda state: state["extras"].update(deep=json.loads("[" * 900 + "]" * 900)))
    path = _rewrite(saved_sac, str(tmp_path / "deep.zip"), change)
    with pytest.raises(InvalidModelFileError, match="nests lists or objects 902 deep"):
        SAC.load(path, env="Pendulum-v1")


def test_thread_count_above_the_cores_is_lowered(saved_ppo2: str, tmp_path: Any) -> None:
    import os

    from stable_baselines import PPO2
    path = _rewrite(saved_ppo2, str(tmp_path / "threads.zip"), _set_entry("n_cpu_tf_sess", "1024"))
    with pytest.warns(UserWarning, match="n_cpu_tf_sess=1024"):
        model = PPO2.load(path)
    assert model.n_cpu_tf_sess == (os.cpu_count() or 1)
