"""
The extra members of a zip model file (stable_baselines.common.storage.extra_members): written beside the
original's three members, read back without pickle within their size bounds, unknown ones ignored, and every
algorithm's save / load going through the model hooks.
"""
import io
import json
import pickle
import zipfile
from collections import OrderedDict

import numpy as np
import pytest

from stable_baselines import DQN, HER, PPO2, SAC, TRPO
from stable_baselines.common import save_util
from stable_baselines.common.bit_flipping_env import BitFlippingEnv
from stable_baselines.common.storage import extra_members
from stable_baselines.common.model.base import BaseRLModel
from stable_baselines.common.safe_loading.errors import InvalidModelFileError

JSON_MEMBER = extra_members.register_member("test_only/notes.json", 1 << 16)
ARRAY_MEMBER = extra_members.register_member("test_only/arrays.npz", 1 << 16)
PARAMS = OrderedDict([("model/w:0", np.arange(6, dtype=np.float32).reshape(2, 3))])


def save_bytes(extra, data=None):
    buffer = io.BytesIO()
    save_util.save_to_zip(buffer, data if data is not None else {"gamma": 0.5}, PARAMS, extra=extra)
    return buffer.getvalue()


def read(raw):
    return save_util.read_model_contents(io.BytesIO(raw))


def rewrite(raw, replace):
    """The same zip file with some members' content replaced (name -> bytes) or added."""
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(raw)) as source, zipfile.ZipFile(out, "w") as target:
        for name in source.namelist():
            target.writestr(name, replace.pop(name) if name in replace else source.read(name))
        for name, content in replace.items():
            target.writestr(name, content)
    return out.getvalue()


def test_round_trip_after_the_original_members():
    arrays = OrderedDict([("a", np.array([1.5, -2.0])), ("flag", np.array(True)), ("n", np.arange(4, dtype=np.int64)),
                          ("fortran", np.asfortranarray(np.arange(6.0).reshape(2, 3)))])
    raw = save_bytes({JSON_MEMBER: {"step": 3, "names": ["x", "y"]}, ARRAY_MEMBER: arrays})
    with zipfile.ZipFile(io.BytesIO(raw)) as archive:
        assert archive.namelist() == ["data", "parameters", "parameter_list", JSON_MEMBER, ARRAY_MEMBER]
        assert all(info.compress_type == zipfile.ZIP_STORED for info in archive.infolist())
        stored = np.load(io.BytesIO(archive.read(ARRAY_MEMBER)), allow_pickle=False)
        np.testing.assert_array_equal(stored["n"], np.arange(4))
    contents = read(raw)
    assert contents.data == {"gamma": 0.5}
    np.testing.assert_array_equal(contents.params.read()["model/w:0"], PARAMS["model/w:0"])
    assert contents.members[JSON_MEMBER] == {"step": 3, "names": ["x", "y"]}
    restored = contents.members[ARRAY_MEMBER]
    assert list(restored) == ["a", "flag", "n", "fortran"]
    np.testing.assert_array_equal(restored["fortran"], np.arange(6.0).reshape(2, 3))
    np.testing.assert_array_equal(restored["a"], [1.5, -2.0])
    assert restored["flag"].dtype == np.bool_ and restored["flag"].shape == () and bool(restored["flag"]) is True
    assert restored["n"].dtype == np.int64
    # the two-value reader and load_model_file are unchanged
    data, params = save_util.read_model_file(io.BytesIO(raw))
    assert data == {"gamma": 0.5} and list(params.read()) == ["model/w:0"]


def test_no_extra_members_gives_the_original_layout():
    raw = save_bytes(None)
    with zipfile.ZipFile(io.BytesIO(raw)) as archive:
        assert archive.namelist() == ["data", "parameters", "parameter_list"]
    assert read(raw).members == {}


def test_unknown_members_are_ignored():
    raw = rewrite(save_bytes({JSON_MEMBER: 1}), {"future_feature.json": b"{not even json", "README": b"hello"})
    assert read(raw).members == {JSON_MEMBER: 1}


@pytest.mark.parametrize("name", ["data", "parameters", "parameter_list", "Upper.json", "x.pkl", "x", "../x.json",
                                  "a//b.json", "/abs.json", "a/../b.json", "x y.json", 3, "x" * 300 + ".json"])
def test_invalid_names_are_refused(name):
    with pytest.raises(ValueError):
        extra_members.register_member(name, 100)


def test_unregistered_and_bad_values_are_refused_before_writing(tmp_path):
    path = tmp_path / "model.zip"
    save_util.save_to_zip(str(path), {"gamma": 0.5}, PARAMS)
    before = path.read_bytes()
    bad = [({"never_registered.json": 1}, ValueError),
           ({JSON_MEMBER: float("nan")}, TypeError),
           ({JSON_MEMBER: object()}, TypeError),
           ({ARRAY_MEMBER: {"o": np.array([object()], dtype=object)}}, TypeError),
           ({ARRAY_MEMBER: {"s": np.array(["text"])}}, TypeError),
           ({ARRAY_MEMBER: [np.zeros(2)]}, TypeError),
           ({ARRAY_MEMBER: {"bad name!": np.zeros(2)}}, TypeError)]
    for extra, error in bad:
        with pytest.raises(error):
            save_util.save_to_zip(str(path), {"gamma": 0.1}, PARAMS, extra=extra)
        assert path.read_bytes() == before  # the previous file is untouched


def test_register_checks_the_limit():
    with pytest.raises(ValueError):
        extra_members.register_member("test_only/other.json", 0)
    with pytest.raises(ValueError):
        extra_members.register_member("test_only/other.json", True)
    assert extra_members.registered_members()[JSON_MEMBER] == 1 << 16


def test_oversized_members_are_refused_before_reading():
    big = save_bytes({JSON_MEMBER: "x" * (1 << 17)})
    with pytest.raises(InvalidModelFileError, match="test_only/notes.json"):
        read(big)
    # an array member whose total exceeds the member's bound
    big = save_bytes({ARRAY_MEMBER: {"a": np.zeros(1 << 14)}})
    with pytest.raises(InvalidModelFileError, match="test_only/arrays.npz"):
        read(big)


def test_an_npy_header_announcing_a_huge_array_is_refused():
    member = io.BytesIO()
    with zipfile.ZipFile(member, "w") as npz:
        header = io.BytesIO()
        np.lib.format.write_array_header_1_0(header, {"descr": "<f8", "fortran_order": False,
                                                      "shape": (1 << 40,)})
        npz.writestr("a.npy", header.getvalue() + b"\0" * 16)
    raw = rewrite(save_bytes(None), {ARRAY_MEMBER: member.getvalue()})
    with pytest.raises(InvalidModelFileError, match="size limit|declares"):
        read(raw)


def test_pickles_are_never_read():
    calls = []

    class Payload(object):
        def __reduce__(self):
            return (calls.append, ("ran",))

    member = io.BytesIO()
    with zipfile.ZipFile(member, "w") as npz:
        with npz.open("a.npy", "w") as handle:
            np.lib.format.write_array(handle, np.array([Payload()], dtype=object), allow_pickle=True)
    raw = rewrite(save_bytes(None), {ARRAY_MEMBER: member.getvalue()})
    with pytest.raises(InvalidModelFileError, match="object arrays|dtype"):
        read(raw)
    raw = rewrite(save_bytes(None), {ARRAY_MEMBER: pickle.dumps(Payload()), JSON_MEMBER: pickle.dumps(Payload())})
    with pytest.raises(InvalidModelFileError):
        read(raw)
    assert calls == []


@pytest.mark.parametrize("content", [b"{\"a\": NaN", b"\xff\xfe", b"[" * 100000 + b"]" * 100000])
def test_corrupt_json_members_are_refused(content):
    with pytest.raises(InvalidModelFileError, match="test_only/notes.json"):
        read(rewrite(save_bytes(None), {JSON_MEMBER: content}))


def test_corrupt_npz_members_are_refused():
    with pytest.raises(InvalidModelFileError, match="not a numpy .npz"):
        read(rewrite(save_bytes(None), {ARRAY_MEMBER: b"PK\x03\x04garbage"}))
    good = save_bytes({ARRAY_MEMBER: {"a": np.arange(8.0)}})
    with zipfile.ZipFile(io.BytesIO(good)) as archive:
        member = archive.read(ARRAY_MEMBER)
    with pytest.raises(InvalidModelFileError):
        read(rewrite(save_bytes(None), {ARRAY_MEMBER: member[:-20]}))


@pytest.fixture
def hooks(monkeypatch):
    """Every model saves one JSON member and records what load restores."""
    restored = []

    def to_save(self):
        return {JSON_MEMBER: {"algo": type(self).__name__}}

    def restore(self, members, what):
        restored.append((type(self).__name__, dict(members), what))

    monkeypatch.setattr(BaseRLModel, "_extra_members_to_save", to_save)
    monkeypatch.setattr(BaseRLModel, "_restore_extra_members", restore)
    return restored


def member_names(path):
    with zipfile.ZipFile(path) as archive:
        return archive.namelist()


@pytest.mark.parametrize("make", [
    lambda: PPO2("MlpPolicy", "CartPole-v1", n_steps=16, seed=0, n_cpu_tf_sess=1),
    lambda: SAC("MlpPolicy", "Pendulum-v1", seed=0, n_cpu_tf_sess=1),
    lambda: TRPO("MlpPolicy", "CartPole-v1", seed=0, n_cpu_tf_sess=1),
    lambda: HER("MlpPolicy", BitFlippingEnv(4, continuous=False, max_steps=4), DQN, seed=0, n_cpu_tf_sess=1),
], ids=["ppo2", "sac", "trpo", "her"])
def test_every_save_and_load_goes_through_the_hooks(make, hooks, tmp_path):
    model = make()
    inner = model.model if isinstance(model, HER) else model
    path = str(tmp_path / "model.zip")
    model.save(path)
    assert member_names(path) == ["data", "parameters", "parameter_list", JSON_MEMBER]
    type(model).load(path)
    assert hooks == [(type(inner).__name__, {JSON_MEMBER: {"algo": type(inner).__name__}}, repr(path).join(
        ["the model file ", ""]))]


def test_old_format_and_files_without_members_restore_nothing(hooks, tmp_path, recwarn):
    model = PPO2("MlpPolicy", "CartPole-v1", n_steps=16, seed=0, n_cpu_tf_sess=1)
    path = str(tmp_path / "model.pkl")
    with pytest.warns(UserWarning, match="test_only/notes.json not saved"):
        model.save(path, cloudpickle=True)
    PPO2.load(path)
    assert hooks[-1][1] == {}
    plain = str(tmp_path / "plain.zip")
    save_util.save_to_zip(plain, model._settings_to_save(), model.get_parameters())
    PPO2.load(plain)
    assert hooks[-1][1] == {}
    assert json.loads(zipfile.ZipFile(plain).read("parameter_list")) == list(model.get_parameters())
