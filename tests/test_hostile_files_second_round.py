"""
Hostile files, second round: a refused file leaves the process as it was (generators first of all), generator
states are checked before they are used, and every bad value ends in an ``InvalidModelFileError`` naming the member
or entry, never in a bare Python or numpy exception.
"""
import io
import json
import random
import warnings
import zipfile
from functools import partial
from typing import Any, Callable, Dict

import numpy as np
import pytest

from stable_baselines import SAC
from stable_baselines.common.model.training_state import ARRAYS_MEMBER, STATE_MEMBER
from stable_baselines.common.safe_loading.errors import InvalidModelFileError

from hostile_payloads import edit_json_member, edit_npz_member, rewrite_model_file  # pylint: disable=wrong-import-order

SMALL = dict(seed=3, n_cpu_tf_sess=1, policy_kwargs=dict(layers=[8]), learning_starts=20, buffer_size=200,
             batch_size=8)


@pytest.fixture(scope="module")
def saved_sac(tmp_path_factory: Any) -> str:
    path = str(tmp_path_factory.mktemp("second_round") / "sac.zip")
    model = SAC("MlpPolicy", "Pendulum-v1", **SMALL)
    model.learn(40)
    model.save(path, include_training_state=True)
    return path


_edit_arrays = partial(edit_npz_member, ARRAYS_MEMBER)
_edit_state = partial(edit_json_member, STATE_MEMBER)


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


def _widen_first(arrays: Dict[str, np.ndarray]) -> None:
    """A parameter of another shape than the model's variable: refused once the model is built."""
    first = sorted(arrays)[0]
    arrays[first] = np.zeros(np.asarray(arrays[first]).shape + (2,), np.float32)


_bad_parameters = edit_npz_member("parameters", _widen_first)


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
    path = rewrite_model_file(saved_sac, str(tmp_path / "bad.zip"), change)
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
    path = rewrite_model_file(saved_ppo2, str(tmp_path / "bad.zip"), change)
    with pytest.raises(InvalidModelFileError) as error:
        PPO2.load(path)
    assert message in str(error.value) and "bad.zip" in str(error.value)


def test_training_state_nested_too_deep_is_refused(saved_sac: str, tmp_path: Any) -> None:
    change = _edit_state(lambda state: state["extras"].update(deep=json.loads("[" * 900 + "]" * 900)))
    path = rewrite_model_file(saved_sac, str(tmp_path / "deep.zip"), change)
    with pytest.raises(InvalidModelFileError, match="nests lists or objects 902 deep"):
        SAC.load(path, env="Pendulum-v1")


def test_thread_count_above_the_cores_is_lowered(saved_ppo2: str, tmp_path: Any) -> None:
    import os

    from stable_baselines import PPO2
    path = rewrite_model_file(saved_ppo2, str(tmp_path / "threads.zip"), _set_entry("n_cpu_tf_sess", "1024"))
    with pytest.warns(UserWarning, match="n_cpu_tf_sess=1024"):
        model = PPO2.load(path)
    assert model.n_cpu_tf_sess == (os.cpu_count() or 1)


# ------------------------------------------------------------------------------------------ budgets that compose
# One child process tries every crafted file in turn (TensorFlow's import is paid once), each statement timed on its
# own; a regression that computes for minutes is killed by the child's overall timeout.
_CHILD = """
import json, resource, sys, time
from stable_baselines.common.safe_loading.errors import InvalidModelFileError
for name, action in json.loads(sys.argv[1]).items():
    start, peak = time.time(), resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    try:
        exec(action)
        report = {"raised": None, "message": ""}
    except BaseException as err:
        report = {"raised": type(err).__name__, "message": str(err),
                  "invalid_file": isinstance(err, InvalidModelFileError)}
    report["seconds"] = time.time() - start
    # how far the process's peak memory rose during this statement (KiB -> bytes)
    report["peak_growth"] = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - peak) * 1024
    print("REPORT " + json.dumps({name: report}), flush=True)
"""


def _in_child(actions: Dict[str, str], seconds: float = 240.0) -> Dict[str, Dict[str, Any]]:
    """
    Run each statement of ``actions`` (name -> statement) in one fresh Python process whose address space is capped
    at 3 GiB, and report by name what each raised, how long it took and how far it raised the peak memory.
    """
    import os
    import resource
    import subprocess
    import sys

    def cap() -> None:  # pragma: no cover - runs in the child
        resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))

    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    reports: Dict[str, Dict[str, Any]] = {}
    try:
        answer = subprocess.run([sys.executable, "-c", _CHILD, json.dumps(actions)], capture_output=True, text=True,
                                timeout=seconds, preexec_fn=cap, cwd=root, env=dict(os.environ, PYTHONPATH=root))
        output, errors = answer.stdout, answer.stderr
    except subprocess.TimeoutExpired as expired:
        output = expired.stdout.decode() if isinstance(expired.stdout, bytes) else (expired.stdout or "")
        errors = "still running after {} s".format(seconds)
    for line in output.splitlines():
        if line.startswith("REPORT "):
            reports.update(json.loads(line[len("REPORT "):]))
    for name in actions:  # what the child never reported on: it died or hung there
        reports.setdefault(name, {"raised": "no report", "message": errors[-3000:]})
    return reports


def _giant_box_entry(members: Dict[str, bytes]) -> None:
    """A 90-byte kind of pickle: a Box whose stored shape is (2**31,)."""
    import base64

    import cloudpickle
    from gymnasium import spaces
    box = spaces.Box(-1.0, 1.0, (4,))
    box._shape = (1 << 31,)
    data = json.loads(members["data"])
    data["observation_space"][":serialized:"] = base64.b64encode(cloudpickle.dumps(box)).decode()
    members["data"] = json.dumps(data).encode()


COMPOSED = {
    "Box of 2**31 elements": (_giant_box_entry, "MAX_SPACE_ELEMENTS"),
    "12 layers of 4096": (_set_entry("policy_kwargs", json.dumps({"net_arch": [4096] * 12})),
                          "MAX_NETWORK_PARAMETERS"),
    "2000 layers of 1": (_set_entry("policy_kwargs", json.dumps({"net_arch": [1] * 2000})), "MAX_LAYERS"),
    "LSTM of 8192 on a layer of 8192": (_set_entry("policy_kwargs", json.dumps({"n_lstm": 8192, "layers": [8192]})),
                                  "MAX_NETWORK_PARAMETERS"),
}


def _random_streams_file(saved_sac: str, folder: Any) -> str:
    """:return: (str) a SAC file whose training state has one random op draw 2**40 values (hours) on load"""
    from stable_baselines.common.model.training_state import random_ops
    drawing = [name for name, op in random_ops(SAC.load(saved_sac)).items() if op.inputs[0].shape.as_list()[0] != 0][0]

    def edit(state: Dict[str, Any]) -> None:
        state["tf_random_draws"][drawing] = 1 << 40  # within the per-op bound, hours of drawing
    return rewrite_model_file(saved_sac, str(folder / "draws.zip"), _edit_state(edit))


def _frame_store_file(folder: Any) -> str:
    """:return: (str) a 2 KB replay-buffer file whose frame store would allocate 2**20 slots of 1024x1024x4 frames"""
    from stable_baselines.common.storage.buffer_files import save_buffer
    from tests.test_buffer_files import make_buffer, members_of, write_members
    path = str(folder / "buffer.npz")
    save_buffer(make_buffer("frames", False, 30), path)
    members = members_of(path)
    header = json.loads(members["header.json"])
    header["size"] = 1 << 20
    header["frames"]["capacity"] = 1  # the file's ring is tiny; the store of 2**20 slots is not
    header["frames"]["obs_shape"] = [1024, 1024, 4]
    for field in header["fields"][::3]:
        field["shape"] = [1024, 1024, 4]
    members["header.json"] = json.dumps(header)
    write_members(path, members)
    return path


@pytest.fixture(scope="module")
def bomb_reports(saved_ppo2: str, saved_sac: str, tmp_path_factory: Any) -> Dict[str, Dict[str, Any]]:
    """What loading each composed bomb raised, and how long it took, in one capped child process."""
    folder = tmp_path_factory.mktemp("bombs")
    # first a normal load, so that the peak memory of the bombs is measured above it
    actions = {"normal load": "from stable_baselines import PPO2; PPO2.load({!r})".format(saved_ppo2)}
    for index, (kind, (change, _)) in enumerate(sorted(COMPOSED.items())):
        path = rewrite_model_file(saved_ppo2, str(folder / "bomb{}.zip".format(index)), change)
        actions[kind] = "from stable_baselines import PPO2; PPO2.load({!r})".format(path)
    actions["random streams"] = "from stable_baselines import SAC; SAC.load({!r}, env='Pendulum-v1')".format(
        _random_streams_file(saved_sac, folder))
    actions["frame store"] = "from stable_baselines.common.storage.buffer_files import load_buffer; load_buffer({!r})".format(
        _frame_store_file(folder))
    return _in_child(actions)


def _assert_refused_quickly(report: Dict[str, Any], message: str) -> None:
    assert report.get("invalid_file"), report
    assert message in report["message"], report
    assert report["seconds"] < 10.0, report
    assert report["peak_growth"] < 2 << 30, report


def test_the_bombs_are_measured_above_a_normal_load(bomb_reports: Dict[str, Any]) -> None:
    assert bomb_reports["normal load"]["raised"] is None, bomb_reports["normal load"]


@pytest.mark.parametrize("kind", sorted(COMPOSED))
def test_model_files_whose_parts_compose_into_a_bomb_are_refused_quickly(bomb_reports: Dict[str, Any],
                                                                         kind: str) -> None:
    _assert_refused_quickly(bomb_reports[kind], COMPOSED[kind][1])


def test_random_streams_beyond_the_fast_forward_budget_are_refused(bomb_reports: Dict[str, Any]) -> None:
    _assert_refused_quickly(bomb_reports["random streams"], "MAX_RANDOM_FAST_FORWARD")


def test_replay_buffer_whose_frame_store_would_allocate_a_tebibyte_is_refused(bomb_reports: Dict[str, Any]) -> None:
    _assert_refused_quickly(bomb_reports["frame store"], "MAX_REPLAY_BUFFER_BYTES")


# ------------------------------------------------------------------------------------------ references and arrays
@pytest.mark.parametrize("module, name", [("stable_baselines.common", "schedules.linear_schedule"),
                                          ("stable_baselines", "common.schedules.LinearSchedule"),
                                          ("numpy", "core.multiarray._reconstruct"),
                                          ("stable_baselines.common", "noise.NormalActionNoise")])
@pytest.mark.parametrize("form", ["reference", "call", "instance"])
def test_a_reference_split_at_another_dot_never_reaches_a_converter(module: str, name: str, form: str) -> None:
    import hostile_payloads as hp

    from stable_baselines.common.safe_pickle import safe_loads
    body = {"reference": hp.glob(module, name), "call": hp.call(hp.glob(module, name), hp.i(1)),
            "instance": hp.instance(module, name, x=hp.i(1))}[form]
    try:
        value = safe_loads(hp.dumps(body), key="learning_rate")
    except InvalidModelFileError:
        return
    # or an inert placeholder that fails clearly when called
    with pytest.raises(Exception, match="never runs code from a file|not rebuilt"):
        value(0.5)


def _npy_with_header(shape: Any, descr: str) -> bytes:
    header = {"descr": descr, "fortran_order": False, "shape": shape}
    stream = io.BytesIO()
    np.lib.format.write_array_header_1_0(stream, header)
    return stream.getvalue() + b"\0" * 16


@pytest.mark.parametrize("shape, descr, message", [((0, 1 << 70), "<f8", "has shape"),
                                                   ((3,), "<U0", "have no size")])
def test_npz_arrays_of_absurd_shape_or_empty_items_are_refused(tmp_path: Any, shape: Any, descr: str,
                                                               message: str) -> None:
    """Through the expert dataset reader: numpy's own errors must not come through."""
    path = tmp_path / "expert.npz"
    good = io.BytesIO()
    np.savez(good, actions=np.zeros((4, 1)), episode_returns=np.zeros(1), episode_starts=np.eye(1, 4)[0])
    with zipfile.ZipFile(io.BytesIO(good.getvalue())) as archive:
        members = {name: archive.read(name) for name in archive.namelist()}
    members["obs.npy"] = _npy_with_header(shape, descr)
    with zipfile.ZipFile(str(path), "w") as archive:
        for name, content in members.items():
            archive.writestr(name, content)
    from stable_baselines.gail import ExpertDataset
    with pytest.raises(InvalidModelFileError, match=message):
        ExpertDataset(expert_path=str(path), verbose=0)


def test_a_compressed_member_that_would_inflate_is_refused_before_reading(saved_sac: str, tmp_path: Any) -> None:
    """An 8 MB member of the model file that inflates to 1 GiB: refused from its zip record, nothing inflated."""
    import time
    import tracemalloc

    from stable_baselines.common.model.training_state import BUFFER_MEMBER
    path = str(tmp_path / "inflating.zip")
    with zipfile.ZipFile(saved_sac) as source, zipfile.ZipFile(path, "w") as target:
        for name in source.namelist():
            if name != BUFFER_MEMBER:
                target.writestr(name, source.read(name))
        info = zipfile.ZipInfo(BUFFER_MEMBER)
        info.compress_type = zipfile.ZIP_DEFLATED
        with target.open(info, "w", force_zip64=True) as member:
            zeros = bytes(64 << 20)
            for _ in range(16):
                member.write(zeros)
    with zipfile.ZipFile(path) as archive:
        inflating = archive.getinfo(BUFFER_MEMBER)
        assert inflating.file_size == 1 << 30 and inflating.compress_size < 8 << 20
    start = time.time()
    tracemalloc.start()
    with pytest.raises(InvalidModelFileError, match="is compressed"):
        SAC.load(path, env="Pendulum-v1")
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert time.time() - start < 10.0 and peak < 256 << 20


def test_policy_kwargs_the_policy_refuses_end_in_a_file_error(saved_ppo2: str, tmp_path: Any) -> None:
    from stable_baselines import PPO2
    path = rewrite_model_file(saved_ppo2, str(tmp_path / "kwargs.zip"), _set_entry("policy_kwargs", '{"bogus": 1}'))
    with pytest.raises(InvalidModelFileError, match="kwargs.zip.*Unknown keywords for policy"):
        PPO2.load(path)


# ------------------------------------------------------------------------------------------ third sweep
def test_a_billion_laughs_of_shared_references_is_refused_at_once(saved_ppo2: str, tmp_path: Any) -> None:
    """A 200-byte pickle: 40 levels of lists holding the same list twice (2**40 visits for any walk over it)."""
    import base64
    import pickle
    import time

    from stable_baselines import PPO2
    from stable_baselines.common.safe_loading import load_pickle
    laughs: Any = ["ha"]
    for _ in range(40):
        laughs = [laughs, laughs]
    stored = pickle.dumps({"net_arch": laughs})
    assert len(stored) < 400
    with pytest.raises(InvalidModelFileError, match="MAX_EXPANDED_VALUES"):
        load_pickle(stored, "a crafted pickle", key="policy_kwargs")

    def edit(text: str) -> str:
        data = json.loads(text)
        data["policy_kwargs"] = {":type:": "<class 'dict'>", ":serialized:": base64.b64encode(stored).decode()}
        return json.dumps(data)
    path = rewrite_model_file(saved_ppo2, str(tmp_path / "laughs.zip"), _edit_data_text(edit))
    start = time.time()
    with pytest.raises(InvalidModelFileError, match="entry 'policy_kwargs'.*MAX_EXPANDED_VALUES"):
        PPO2.load(path)
    assert time.time() - start < 10.0
    # shared references within the limit still load as shared values
    small: Any = ["ha"]
    for _ in range(5):
        small = [small, small]
    loaded = load_pickle(pickle.dumps(small), "a pickle", key="x")
    assert loaded[0] is loaded[1] and loaded[0][0][0][0][0] == ["ha"]


def _with_a_second_member(path: str, target: str, name: str) -> str:
    with zipfile.ZipFile(path) as source, zipfile.ZipFile(target, "w") as archive:
        for info in source.infolist():
            archive.writestr(info.filename, source.read(info))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)  # zipfile's "Duplicate name"
            archive.writestr(name, source.read(name))
    return target


def test_an_archive_with_two_members_of_one_name_is_refused_by_every_reader(saved_ppo2: str, saved_sac: str,
                                                                             tmp_path: Any) -> None:
    """Two members named alike: which one a reader takes is not for the file to decide."""
    from stable_baselines import PPO2
    from stable_baselines.common.storage.buffer_files import load_buffer, save_buffer
    from stable_baselines.gail import ExpertDataset
    from tests.test_buffer_files import make_buffer
    ambiguous = "holds several members named '{}'"
    for member in ("data", "parameters", "parameter_list"):
        path = _with_a_second_member(saved_ppo2, str(tmp_path / "{}.zip".format(member)), member)
        with pytest.raises(InvalidModelFileError, match=ambiguous.format(member)):
            PPO2.load(path)
    with zipfile.ZipFile(saved_ppo2) as archive:
        (tmp_path / "parameters.npz").write_bytes(archive.read("parameters"))
    inner_name = zipfile.ZipFile(str(tmp_path / "parameters.npz")).namelist()[0]
    path = _with_a_second_member(str(tmp_path / "parameters.npz"), str(tmp_path / "inner.npz"), inner_name)
    members = {name: zipfile.ZipFile(saved_ppo2).read(name) for name in ("data", "parameter_list")}
    members["parameters"] = open(path, "rb").read()
    with zipfile.ZipFile(str(tmp_path / "inner_twice.zip"), "w") as archive:
        for name, content in members.items():
            archive.writestr(name, content)
    with pytest.raises(InvalidModelFileError, match=ambiguous.format(inner_name)):
        PPO2.load(str(tmp_path / "inner_twice.zip"))
    buffer_path = str(tmp_path / "buffer.npz")
    save_buffer(make_buffer("vector", False, 10), buffer_path)
    with pytest.raises(InvalidModelFileError, match=ambiguous.format("header.json")):
        load_buffer(_with_a_second_member(buffer_path, str(tmp_path / "buffer2.npz"), "header.json"))
    dataset = str(tmp_path / "expert.npz")
    np.savez(dataset, obs=np.zeros((6, 2)), actions=np.zeros((6, 1)), rewards=np.zeros(6), episode_returns=np.zeros(1),
             episode_starts=np.arange(6) == 0)
    with pytest.raises(InvalidModelFileError, match=ambiguous.format("obs.npy")):
        ExpertDataset(expert_path=_with_a_second_member(dataset, str(tmp_path / "expert2.npz"), "obs.npy"), verbose=0)
    from stable_baselines.common.model.training_state import STATE_MEMBER
    with pytest.raises(InvalidModelFileError, match=ambiguous.format(STATE_MEMBER)):
        SAC.load(_with_a_second_member(saved_sac, str(tmp_path / "state.zip"), STATE_MEMBER), env="Pendulum-v1")


def test_a_replay_buffer_of_nan_transitions_is_refused(tmp_path: Any) -> None:
    from stable_baselines.common.storage.buffer_files import load_buffer, save_buffer
    from tests.test_buffer_files import make_buffer, members_of, npy_bytes, write_members
    path = str(tmp_path / "buffer.npz")
    save_buffer(make_buffer("vector", True, 12), path)
    assert load_buffer(path) is not None  # the priority trees' infinities are legitimate
    members = members_of(path)
    for name in ("obs_t.npy", "reward.npy"):
        poisoned = dict(members)
        array = np.load(io.BytesIO(members[name]))
        array.reshape(-1)[3] = np.nan
        poisoned[name] = npy_bytes(array)
        write_members(path, poisoned)
        with pytest.raises(InvalidModelFileError, match="array '{}' .* NaN or infinite".format(name[:-4])):
            load_buffer(path)


EXPERT = dict(obs=np.zeros((8, 2), np.float32), actions=np.zeros((8, 1)), rewards=np.zeros(8),
              episode_returns=np.zeros(2), episode_starts=np.arange(8) % 4 == 0)
BAD_EXPERT_FILES = {
    "no observations": ({"obs": None}, "lacks the array"),
    "fewer actions": ({"actions": np.zeros((3, 1))}, "one entry per transition"),
    "no transition": ({key: EXPERT[key][:0] for key in ("obs", "actions", "rewards", "episode_starts")},
                      "at least one"),
    "text actions": ({"actions": np.array(["left"] * 8)}, "array 'actions' .* expected numbers"),
    "complex observations": ({"obs": np.zeros((8, 2), np.complex64)}, "expected numbers or image paths"),
    "NaN observations": ({"obs": np.full((8, 2), np.nan, np.float32)}, "NaN or infinite"),
    "infinite returns": ({"episode_returns": np.array([np.inf, 0.0])}, "NaN or infinite"),
    "starts that are not flags": ({"episode_starts": np.full(8, 0.5)}, "must hold flags"),
}


@pytest.mark.parametrize("kind", sorted(BAD_EXPERT_FILES))
def test_an_expert_dataset_file_that_cannot_be_training_data_is_refused(tmp_path: Any, kind: str) -> None:
    from stable_baselines.gail import ExpertDataset
    change, message = BAD_EXPERT_FILES[kind]
    arrays = {key: value for key, value in dict(EXPERT, **change).items() if value is not None}
    path = str(tmp_path / "expert.npz")
    np.savez(path, **arrays)
    with pytest.raises(InvalidModelFileError, match=message):
        ExpertDataset(expert_path=path, verbose=0)
    # the same arrays handed over in memory keep the original's errors (the user's own data, not a file)
    if kind in ("fewer actions", "no transition"):
        with pytest.raises(ValueError):
            ExpertDataset(traj_data=arrays, verbose=0)
