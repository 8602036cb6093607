"""
One file to ship: ``model.save`` of a model trained under ``VecNormalize`` stores the statistics in the model file
(extra members ``vec_normalize.json`` / ``vec_normalize.npz``), and ``ALGO.load(path, env=raw_env)`` normalizes
the environment as at the end of training, with the statistics frozen and the true rewards.
"""
import io
import json
import pickle
import warnings
import zipfile
from collections import OrderedDict

import gymnasium as gym
import numpy as np
import pytest

from stable_baselines import PPO2, SAC
from stable_baselines.common import save_util
from stable_baselines.common.model import normalization
from stable_baselines.common.storage import extra_members
from stable_baselines.common.model.base import BaseRLModel
from stable_baselines.common.running_mean_std import RunningMeanStd
from stable_baselines.common.safe_loading.errors import InvalidModelFileError
from stable_baselines.common.vec_env import DummyVecEnv, VecNormalize
from stable_baselines.common.vec_env.vec_normalize import NormalizationStatistics

from nested_env_helpers import TwoScalesEnv  # pylint: disable=wrong-import-order

ORIGINAL_MEMBERS = ["data", "parameters", "parameter_list"]
OUR_MEMBERS = ["vec_normalize.json", "vec_normalize.npz"]


def pendulum():
    return gym.make("Pendulum-v1")


def normalized_pendulum(**kwargs):
    return VecNormalize(DummyVecEnv([pendulum]), clip_obs=5., gamma=0.95, **kwargs)


def raw_observations(n=64, seed=0):
    rng = np.random.RandomState(seed)
    return rng.uniform([-1, -1, -8], [1, 1, 8], size=(n, 3)).astype(np.float32)


@pytest.fixture(scope="module")
def trained_ppo2(tmp_path_factory):
    env = normalized_pendulum()
    model = PPO2("MlpPolicy", env, n_steps=64, nminibatches=1, noptepochs=2, seed=0, n_cpu_tf_sess=1)
    model.learn(256)
    path = str(tmp_path_factory.mktemp("ppo2") / "ppo2_pendulum.zip")
    model.save(path)
    return model, env, path


def members_of(path):
    with zipfile.ZipFile(path) as archive:
        return archive.namelist()


def read_like_the_original(path):
    """
    What the original library's loader does with a zip model file: it lists the names, reads ``data`` as JSON
    if present, and reads ``parameters`` (numpy .npz) in the order of ``parameter_list``; other members are
    never opened.
    """
    with zipfile.ZipFile(path, "r") as archive:
        names = archive.namelist()
        data = json.loads(archive.read("data").decode()) if "data" in names else None
        params = None
        if "parameters" in names:
            order = json.loads(archive.read("parameter_list").decode())
            stored = np.load(io.BytesIO(archive.read("parameters")))
            params = OrderedDict((name, stored[name]) for name in order)
    return data, params


def assert_same_rms(first, second):
    np.testing.assert_array_equal(first.mean, second.mean)
    np.testing.assert_array_equal(first.var, second.var)
    assert first.count == second.count


def test_the_file_holds_the_statistics_in_two_new_members(trained_ppo2):
    model, env, path = trained_ppo2
    assert members_of(path) == ORIGINAL_MEMBERS + OUR_MEMBERS
    with zipfile.ZipFile(path) as archive:
        settings = json.loads(archive.read("vec_normalize.json"))
        arrays = np.load(io.BytesIO(archive.read("vec_normalize.npz")), allow_pickle=False)
        assert settings == {"format": 1, "clip_obs": 5.0, "clip_reward": 10.0, "gamma": 0.95, "epsilon": 1e-8,
                            "norm_obs": True, "norm_reward": True}
        np.testing.assert_array_equal(arrays["obs_mean"], env.obs_rms.mean)
        np.testing.assert_array_equal(arrays["obs_var"], env.obs_rms.var)
        assert float(arrays["obs_count"]) == env.obs_rms.count and arrays["obs_count"].shape == ()
        assert float(arrays["ret_var"]) == float(env.ret_rms.var)


def test_the_original_library_still_reads_the_file(trained_ppo2, monkeypatch, tmp_path):
    model, _, path = trained_ppo2
    data, params = read_like_the_original(path)
    assert list(params) == [var.name for var in model.get_parameter_list()]
    for name, value in model.get_parameters().items():
        np.testing.assert_array_equal(params[name], value)
    assert data["gamma"] == model.gamma and data["n_steps"] == 64
    # the original's three members are byte for byte those of a file saved without the statistics
    monkeypatch.setattr(BaseRLModel, "_extra_members_to_save", lambda self: {})
    plain = str(tmp_path / "plain.zip")
    model.save(plain)
    assert members_of(plain) == ORIGINAL_MEMBERS
    with zipfile.ZipFile(path) as ours, zipfile.ZipFile(plain) as theirs:
        for name in ORIGINAL_MEMBERS:
            assert ours.read(name) == theirs.read(name)


@pytest.mark.parametrize("make_env", [pendulum, lambda: DummyVecEnv([pendulum])], ids=["gym_env", "vec_env"])
def test_load_with_a_raw_env_normalizes_as_at_the_end_of_training(trained_ppo2, make_env):
    model, env, path = trained_ppo2
    loaded = PPO2.load(path, env=make_env())
    vec_normalize = loaded.get_vec_normalize_env()
    assert isinstance(vec_normalize, VecNormalize) and loaded.get_env() is vec_normalize
    assert isinstance(vec_normalize.venv, DummyVecEnv)
    assert vec_normalize.training is False and vec_normalize.norm_reward is False
    assert vec_normalize.norm_obs is True
    assert (vec_normalize.clip_obs, vec_normalize.clip_reward, vec_normalize.gamma, vec_normalize.epsilon) == \
        (5., 10., 0.95, 1e-8)
    assert_same_rms(vec_normalize.obs_rms, env.obs_rms)
    assert_same_rms(vec_normalize.ret_rms, env.ret_rms)
    observations = raw_observations()
    np.testing.assert_array_equal(vec_normalize.normalize_obs(observations), env.normalize_obs(observations))
    # predict keeps its meaning: it receives what the env gives, i.e. normalized observations
    expected, _ = model.predict(env.normalize_obs(observations), deterministic=True)
    actions, _ = loaded.predict(vec_normalize.normalize_obs(observations), deterministic=True)
    np.testing.assert_allclose(actions, expected, rtol=1e-6, atol=1e-6)
    # the environment returns normalized observations and true rewards, and the statistics stay frozen
    first = vec_normalize.reset()
    np.testing.assert_array_equal(first, env.normalize_obs(vec_normalize.get_original_obs()))
    _, rewards, _, _ = vec_normalize.step(np.zeros((1, 1)))
    np.testing.assert_array_equal(rewards, vec_normalize.get_original_reward())
    assert_same_rms(vec_normalize.obs_rms, env.obs_rms)


def test_an_env_already_normalized_is_not_wrapped_again(trained_ppo2, tmp_path):
    _, env, path = trained_ppo2
    stats_path = str(tmp_path / "vec_normalize.pkl")
    env.save(stats_path)
    same = VecNormalize.load(stats_path, DummyVecEnv([pendulum]))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        loaded = PPO2.load(path, env=same)
    assert loaded.get_env() is same and loaded.get_vec_normalize_env() is same
    assert same.training is True  # left as the user set it
    fresh = normalized_pendulum()
    with pytest.warns(UserWarning, match="statistics differ"):
        loaded = PPO2.load(path, env=fresh)
    assert loaded.get_vec_normalize_env() is fresh
    np.testing.assert_array_equal(fresh.obs_rms.mean, np.zeros(3))  # the env's own statistics are kept


def test_load_without_env_keeps_the_statistics(trained_ppo2, tmp_path):
    model, env, path = trained_ppo2
    loaded = PPO2.load(path)
    assert loaded.get_env() is None and loaded.get_vec_normalize_env() is None
    statistics = loaded.get_normalization_statistics()
    assert isinstance(statistics, NormalizationStatistics)
    assert_same_rms(statistics.obs_rms, env.obs_rms)
    assert (statistics.clip_obs, statistics.norm_obs, statistics.norm_reward) == (5., True, True)
    observations = raw_observations()
    np.testing.assert_array_equal(statistics.normalize_obs(observations), env.normalize_obs(observations))
    statistics.obs_rms.mean[:] = 123.  # a copy: the model's are untouched
    assert loaded.get_normalization_statistics().obs_rms.mean[0] != 123.
    # saved again, the file keeps them
    again = str(tmp_path / "again.zip")
    loaded.save(again)
    assert members_of(again) == ORIGINAL_MEMBERS + OUR_MEMBERS
    assert_same_rms(PPO2.load(again, env=pendulum()).get_vec_normalize_env().obs_rms, env.obs_rms)
    # the live VecNormalize of a model is what it reports
    live = model.get_normalization_statistics()
    assert_same_rms(live.obs_rms, env.obs_rms) and live is not model.get_normalization_statistics()


def test_files_without_the_members_load_as_before(trained_ppo2, monkeypatch, tmp_path):
    model, _, _ = trained_ppo2
    monkeypatch.setattr(BaseRLModel, "_extra_members_to_save", lambda self: {})
    plain = str(tmp_path / "plain.zip")
    model.save(plain)
    monkeypatch.undo()
    raw_env = pendulum()
    loaded = PPO2.load(plain, env=raw_env)
    assert loaded.get_vec_normalize_env() is None and loaded.get_normalization_statistics() is None
    assert isinstance(loaded.get_env(), DummyVecEnv)
    unnormalized = PPO2("MlpPolicy", pendulum(), n_steps=16, seed=0, n_cpu_tf_sess=1)
    path = str(tmp_path / "unnormalized.zip")
    unnormalized.save(path)
    assert members_of(path) == ORIGINAL_MEMBERS


def test_cloudpickle_format_warns_that_the_statistics_are_not_kept(trained_ppo2, tmp_path):
    model, _, _ = trained_ppo2
    with pytest.warns(UserWarning, match="vec_normalize.json, vec_normalize.npz not saved"):
        model.save(str(tmp_path / "old.pkl"), cloudpickle=True)
    assert PPO2.load(str(tmp_path / "old.pkl")).get_normalization_statistics() is None


def test_vec_normalize_save_and_load_still_work(trained_ppo2, tmp_path):
    _, env, _ = trained_ppo2
    env.save(str(tmp_path / "stats.pkl"))
    restored = VecNormalize.load(str(tmp_path / "stats.pkl"), DummyVecEnv([pendulum]))
    assert_same_rms(restored.obs_rms, env.obs_rms)
    assert restored.get_statistics().matches(env.get_statistics())


def test_sac_off_policy_round_trip(tmp_path):
    env = normalized_pendulum()
    model = SAC("MlpPolicy", env, learning_starts=32, batch_size=16, seed=0, n_cpu_tf_sess=1)
    model.learn(96)
    path = str(tmp_path / "sac.zip")
    model.save(path)
    assert members_of(path) == ORIGINAL_MEMBERS + OUR_MEMBERS
    loaded = SAC.load(path, env=pendulum())
    vec_normalize = loaded.get_vec_normalize_env()
    assert vec_normalize is not None and vec_normalize.training is False and vec_normalize.norm_reward is False
    assert loaded.get_env().venv is vec_normalize  # one env seen as a single env, as in training
    assert_same_rms(vec_normalize.obs_rms, env.obs_rms)
    observations = raw_observations(16)
    expected, _ = model.predict(env.normalize_obs(observations), deterministic=True)
    actions, _ = loaded.predict(vec_normalize.normalize_obs(observations), deterministic=True)
    np.testing.assert_allclose(actions, expected, rtol=1e-6, atol=1e-6)
    obs = loaded.get_env().reset()
    np.testing.assert_array_equal(obs, env.normalize_obs(vec_normalize.get_original_obs())[0])


# ------------------------------------------------------------------ hostile or corrupt members
def stored(path):
    with zipfile.ZipFile(path) as archive:
        settings = json.loads(archive.read("vec_normalize.json"))
        arrays = OrderedDict(np.load(io.BytesIO(archive.read("vec_normalize.npz")), allow_pickle=False).items())
    return settings, arrays


def check(settings, arrays, shape=(3,)):
    return normalization.statistics_from_members({"vec_normalize.json": settings, "vec_normalize.npz": arrays},
                                                 gym.spaces.Box(-1, 1, shape), "the test file")


def changed(base, **changes):
    result = OrderedDict(base)
    for key, value in changes.items():
        if value is None:
            result.pop(key)
        else:
            result[key] = value
    return result


def test_valid_members_give_the_statistics(trained_ppo2):
    _, env, path = trained_ppo2
    settings, arrays = stored(path)
    statistics = check(settings, arrays)
    assert statistics.matches(env.get_statistics())


@pytest.mark.parametrize("settings_change, arrays_change, message", [
    ({}, {"obs_mean": np.zeros(4), "obs_var": np.ones(4)}, "shape"),
    ({}, {"obs_var": np.ones(2)}, "shape"),
    ({}, {"obs_count": np.ones(1)}, "scalar"),
    ({}, {"ret_mean": np.zeros(3)}, "shape"),
    ({}, {"obs_mean": np.array([0., np.nan, 0.])}, "NaN"),
    ({}, {"obs_var": np.array([1., -1., 1.])}, ">= 0"),
    ({}, {"obs_count": np.array(0.)}, "> 0"),
    ({}, {"obs_count": np.array(np.inf)}, "infinite"),
    ({}, {"obs_mean": np.zeros(3, dtype=bool)}, "numeric"),
    ({}, {"obs_mean": None}, "obs_mean"),
    ({}, {"extra": np.zeros(1)}, "unexpected arrays"),
    ({"format": 2}, {}, "format"),
    ({"clip_obs": -1.}, {}, "clip_obs"),
    ({"clip_obs": True}, {}, "clip_obs"),
    ({"epsilon": "1e-8"}, {}, "epsilon"),
    ({"norm_obs": 1}, {}, "norm_obs"),
    ({"gamma": None}, {}, "missing"),
    ({"__class__": "os.system"}, {}, "unexpected"),
], ids=lambda value: str(value)[:30])
def test_invalid_statistics_are_refused(trained_ppo2, settings_change, arrays_change, message):
    settings, arrays = stored(trained_ppo2[2])
    with pytest.raises(InvalidModelFileError, match=message):
        check(changed(settings, **settings_change), changed(arrays, **arrays_change))


def test_settings_that_are_not_an_object_are_refused(trained_ppo2):
    _, arrays = stored(trained_ppo2[2])
    with pytest.raises(InvalidModelFileError, match="JSON object"):
        check([1, 2], arrays)


def rewrite(path, target, replace):
    with zipfile.ZipFile(path) as source, zipfile.ZipFile(target, "w") as out:
        for name in source.namelist():
            if name in replace:
                if replace[name] is not None:
                    out.writestr(name, replace[name])
            else:
                out.writestr(name, source.read(name))
    return target


class Payload(object):
    calls = []

    def __reduce__(self):
        return (Payload.calls.append, ("executed",))


def npz_bytes(**arrays):
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, value in arrays.items():
            with archive.open(name + ".npy", "w") as member:
                np.lib.format.write_array(member, value, allow_pickle=True)
    return buffer.getvalue()


def huge_npz():
    header = io.BytesIO()
    np.lib.format.write_array_header_1_0(header, {"descr": "<f8", "fortran_order": False, "shape": (1 << 36,)})
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("obs_mean.npy", header.getvalue() + b"\0" * 64)
    return buffer.getvalue()


@pytest.mark.parametrize("replace, message", [
    ({"vec_normalize.npz": pickle.dumps(Payload())}, "not a numpy .npz"),
    ({"vec_normalize.json": pickle.dumps(Payload())}, "UTF-8|JSON"),
    ({"vec_normalize.npz": npz_bytes(obs_mean=np.array([Payload()], dtype=object))}, "object arrays"),
    ({"vec_normalize.npz": huge_npz()}, "size limit"),
    ({"vec_normalize.json": b"{\"format\": 1, \"clip_obs\": NaN"}, "JSON"),
    ({"vec_normalize.json": None}, "without 'vec_normalize.json'"),
    ({"vec_normalize.npz": None}, "without 'vec_normalize.npz'"),
], ids=["npz_pickle", "json_pickle", "object_array", "huge_array", "bad_json", "no_json", "no_npz"])
def test_hostile_members_are_refused_without_running_code(trained_ppo2, tmp_path, replace, message):
    path = rewrite(trained_ppo2[2], str(tmp_path / "hostile.zip"), replace)
    with pytest.raises(InvalidModelFileError, match=message):
        contents = save_util.read_model_contents(path)
        normalization.statistics_from_members(contents.members, gym.spaces.Box(-1, 1, (3,)), contents.what)
    assert Payload.calls == []


def test_a_huge_member_is_refused_by_its_declared_size(trained_ppo2, monkeypatch):
    monkeypatch.setitem(extra_members._REGISTRY, "vec_normalize.json", 64)
    with pytest.raises(InvalidModelFileError, match="more than the 64 bytes"):
        save_util.read_model_contents(trained_ppo2[2])


def test_load_refuses_statistics_of_another_observation_shape(trained_ppo2, tmp_path):
    settings, arrays = stored(trained_ppo2[2])
    arrays = changed(arrays, obs_mean=np.zeros(4), obs_var=np.ones(4))
    buffer = io.BytesIO()
    np.savez(buffer, **arrays)
    path = rewrite(trained_ppo2[2], str(tmp_path / "shape.zip"), {"vec_normalize.npz": buffer.getvalue()})
    with pytest.raises(InvalidModelFileError, match=r"obs_mean has shape \(4,\), expected \(3,\)"):
        PPO2.load(path, env=pendulum())


def test_statistics_copy_and_wrap():
    obs_rms = RunningMeanStd(shape=(3,))
    obs_rms.update(raw_observations(10))
    statistics = NormalizationStatistics(obs_rms, RunningMeanStd(shape=()), clip_obs=2., norm_reward=True)
    obs_rms.mean[:] = 0.  # copied at construction
    assert statistics.obs_rms.mean[0] != 0.
    wrapped = statistics.wrap(DummyVecEnv([pendulum]))
    assert wrapped.training is False and wrapped.norm_reward is False and wrapped.clip_obs == 2.
    assert wrapped.obs_rms is not statistics.obs_rms
    assert statistics.matches(wrapped.get_statistics())
    with pytest.raises(ValueError, match="shape"):
        statistics.wrap(DummyVecEnv([lambda: gym.make("CartPole-v1")]))


# ------------------------------------------------------------------ statistics per key of a Dict observation
# TwoScalesEnv (tests/nested_env_helpers.py): a Dict of two vectors on very different scales and a Discrete entry
# (never normalized); reward: the action


def per_key_env(n_envs=2, steps=30, **kwargs):
    env = VecNormalize(DummyVecEnv([lambda i=i: TwoScalesEnv(i) for i in range(n_envs)]), clip_obs=4., **kwargs)
    env.reset()
    for _ in range(steps):
        env.step(np.ones(n_envs, dtype=np.int64))
    return env


def dict_observations(n=16, seed=5):
    env = TwoScalesEnv(seed)
    draws = [env._draw() for _ in range(n)]
    return {key: np.stack([np.asarray(draw[key]) for draw in draws]) for key in ("big", "small", "mode")}


def assert_same_dicts(first, second):
    assert list(first) == list(second)
    for key in first:
        np.testing.assert_array_equal(first[key], second[key])


def test_vec_normalize_save_load_per_key(tmp_path):
    env = per_key_env(norm_obs_keys=["big"])
    path = str(tmp_path / "per_key.pkl")
    env.save(path)
    loaded = VecNormalize.load(path, DummyVecEnv([TwoScalesEnv]))
    assert loaded.norm_obs_keys == ["big"] and set(loaded.obs_rms) == {"big"}
    assert_same_rms(loaded.obs_rms["big"], env.obs_rms["big"])
    assert_same_rms(loaded.ret_rms, env.ret_rms)
    assert (loaded.clip_obs, loaded.training, loaded.norm_reward) == (4., True, True)
    observations = dict_observations()
    normalized = loaded.normalize_obs(observations)
    assert_same_dicts(normalized, env.normalize_obs(observations))
    assert np.abs(normalized["big"]).max() < 4 and np.abs(observations["big"]).min() > 30
    np.testing.assert_array_equal(normalized["small"], observations["small"])  # not a normalized key
    assert loaded.get_statistics().matches(env.get_statistics())
    every_box = per_key_env(n_envs=1)  # norm_obs_keys=None: every Box entry
    every_box.save(path)
    assert VecNormalize.load(path, DummyVecEnv([TwoScalesEnv])).norm_obs_keys == ["big", "small"]


def saved_with(tmp_path, change):
    env = per_key_env(n_envs=1, steps=3, norm_obs_keys=["big", "small"])
    change(env)
    path = str(tmp_path / "changed.pkl")
    env.save(path)
    return path


def _set_rms(key, **fields):
    def change(env):
        for name, value in fields.items():
            setattr(env.obs_rms[key], name, value)
    return change


@pytest.mark.parametrize("change, message", [
    (lambda env: env.obs_rms.update(other=RunningMeanStd(shape=(2,))), "keys .*'other'.* norm_obs_keys is"),
    (lambda env: env.obs_rms.pop("small"), r"keys 'big', but norm_obs_keys is \['big', 'small'\]"),
    (lambda env: setattr(env, "norm_obs_keys", ["big", "big"]), "distinct strings"),
    (lambda env: setattr(env, "norm_obs_keys", "big"), "list of at most"),
    (lambda env: setattr(env, "obs_rms", env.obs_rms["big"]), "obs_rms must be a dict of running statistics"),
    (lambda env: env.obs_rms.update(big=np.zeros(2)), r"obs_rms\['big'\] must be running statistics"),
    (_set_rms("big", mean=np.array([0., np.nan])), "finite"),
    (_set_rms("small", var=np.array([-1.])), "variance below 0"),
    (_set_rms("small", count=0.), "count must be a finite number > 0"),
    (lambda env: env.obs_rms.update(big=Payload()), "Payload|not allowed|refuse"),
], ids=["unknown_key", "missing_key", "duplicate_keys", "keys_not_a_list", "one_set", "array_not_statistics",
        "nan", "negative_var", "zero_count", "payload"])
def test_vec_normalize_load_refuses_bad_per_key_statistics(tmp_path, change, message):
    path = saved_with(tmp_path, change)
    with pytest.raises(InvalidModelFileError, match=message):
        VecNormalize.load(path, DummyVecEnv([TwoScalesEnv]))
    assert Payload.calls == []


def test_vec_normalize_load_checks_per_key_statistics_against_the_env(tmp_path):
    path = saved_with(tmp_path, _set_rms("big", mean=np.zeros(3), var=np.ones(3)))
    with pytest.raises(ValueError, match=r"key 'big' are for observations of shape \(3,\) but the environment's "
                                         r"entry has shape \(2,\)"):
        VecNormalize.load(path, DummyVecEnv([TwoScalesEnv]))
    path = saved_with(tmp_path, lambda env: None)
    with pytest.raises(ValueError, match="norm_obs_keys is for Dict observation spaces"):
        VecNormalize.load(path, DummyVecEnv([pendulum]))
    box_path = str(tmp_path / "box.pkl")
    normalized_pendulum().save(box_path)
    with pytest.raises(ValueError, match="one per normalized key .* got a RunningMeanStd"):
        VecNormalize.load(box_path, DummyVecEnv([TwoScalesEnv]))


@pytest.fixture(scope="module")
def trained_per_key(tmp_path_factory):
    env = per_key_env(norm_obs_keys=["big", "small"], steps=0)
    model = PPO2("MultiInputPolicy", env, n_steps=32, nminibatches=1, noptepochs=2, seed=0, n_cpu_tf_sess=1)
    model.learn(128)
    path = str(tmp_path_factory.mktemp("per_key") / "ppo2_dict.zip")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model.save(path)
    return model, env, path


def test_model_file_stores_per_key_statistics(trained_per_key):
    model, env, path = trained_per_key
    assert members_of(path) == ORIGINAL_MEMBERS + OUR_MEMBERS
    settings, arrays = stored(path)
    assert settings["norm_obs_keys"] == ["big", "small"]
    assert list(arrays) == ["obs_mean/0", "obs_var/0", "obs_count/0", "obs_mean/1", "obs_var/1", "obs_count/1",
                            "ret_mean", "ret_var", "ret_count"]
    np.testing.assert_array_equal(arrays["obs_mean/0"], env.obs_rms["big"].mean)
    np.testing.assert_array_equal(arrays["obs_var/1"], env.obs_rms["small"].var)
    assert float(arrays["obs_count/0"]) == env.obs_rms["big"].count
    read_like_the_original(path)


def test_model_load_with_a_raw_dict_env_normalizes_per_key(trained_per_key):
    model, env, path = trained_per_key
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        loaded = PPO2.load(path, env=DummyVecEnv([TwoScalesEnv]))
    vec_normalize = loaded.get_vec_normalize_env()
    assert vec_normalize is not None and loaded.get_env() is vec_normalize
    assert (vec_normalize.training, vec_normalize.norm_reward, vec_normalize.clip_obs) == (False, False, 4.)
    assert vec_normalize.norm_obs_keys == ["big", "small"]
    for key in ("big", "small"):
        assert_same_rms(vec_normalize.obs_rms[key], env.obs_rms[key])
    observations = dict_observations(32)
    normalized = vec_normalize.normalize_obs(observations)
    assert_same_dicts(normalized, env.normalize_obs(observations))
    expected, _ = model.predict(env.normalize_obs(observations), deterministic=True)
    actions, _ = loaded.predict(normalized, deterministic=True)
    np.testing.assert_array_equal(actions, expected)
    # without an env the statistics are kept, and saved again
    statistics = PPO2.load(path).get_normalization_statistics()
    assert statistics.norm_obs_keys == ["big", "small"] and statistics.matches(env.get_statistics())
    assert_same_dicts(statistics.normalize_obs(observations), normalized)
    # an env with its own (different) per-key VecNormalize is kept, with a warning
    own = per_key_env(norm_obs_keys=["big", "small"], steps=2)
    with pytest.warns(UserWarning, match="statistics differ"):
        assert PPO2.load(path, env=own).get_vec_normalize_env() is own


def dict_check(settings, arrays):
    return normalization.statistics_from_members({"vec_normalize.json": settings, "vec_normalize.npz": arrays},
                                                 TwoScalesEnv().observation_space, "the test file")


@pytest.mark.parametrize("settings_change, arrays_change, message", [
    ({"norm_obs_keys": ["big", "nose"]}, {}, "names 'nose', which is not a Box entry .*'big', 'small'"),
    ({"norm_obs_keys": ["big", "mode"]}, {}, "names 'mode', which is not a Box entry"),
    ({"norm_obs_keys": ["big", "big"]}, {}, "distinct"),
    ({"norm_obs_keys": "big"}, {}, "must be a list"),
    ({"norm_obs_keys": [1, 2]}, {}, "non-empty strings"),
    ({"norm_obs_keys": None}, {}, "Dict: statistics per key"),
    ({}, {"obs_mean/0": np.zeros(3), "obs_var/0": np.ones(3)}, r"key 'big'\): obs_mean/0 has shape \(3,\), "
                                                             r"expected \(2,\)"),
    ({}, {"obs_var/1": np.ones(2)}, "obs_var/1 must have the shape"),
    ({}, {"obs_mean/1": np.array([np.nan])}, "obs_mean/1 holds NaN"),
    ({}, {"obs_var/0": np.array([1., -1.])}, "obs_var/0 must be >= 0"),
    ({}, {"obs_count/1": np.array(0.)}, "obs_count/1 > 0"),
    ({}, {"obs_count/1": None}, "obs_count/1 must be a numeric array"),
    ({}, {"obs_mean/2": np.zeros(1)}, "unexpected arrays: obs_mean/2"),
    ({}, {"obs_mean": np.zeros(2)}, "unexpected arrays: obs_mean"),
], ids=lambda value: str(value)[:30])
def test_invalid_per_key_statistics_are_refused(trained_per_key, settings_change, arrays_change, message):
    settings, arrays = stored(trained_per_key[2])
    assert dict_check(settings, arrays).matches(trained_per_key[1].get_statistics())
    with pytest.raises(InvalidModelFileError, match=message):
        dict_check(changed(settings, **settings_change), changed(arrays, **arrays_change))


def test_per_key_and_box_layouts_do_not_mix(trained_per_key, trained_ppo2):
    settings, arrays = stored(trained_per_key[2])
    with pytest.raises(InvalidModelFileError, match="per key of a Dict observation .* not a Dict"):
        check(settings, arrays)
    with pytest.raises(InvalidModelFileError, match="one set of observation statistics, but the observation space "
                                                    "is a Dict"):
        dict_check(*stored(trained_ppo2[2]))


@pytest.mark.parametrize("replace, message", [
    ({"vec_normalize.npz": npz_bytes(**{"obs_mean/0": np.array([Payload()], dtype=object)})}, "object arrays"),
    ({"vec_normalize.npz": pickle.dumps({"obs_mean/0": Payload()})}, "not a numpy .npz"),
    ({"vec_normalize.json": pickle.dumps({"norm_obs_keys": Payload()})}, "UTF-8|JSON"),
], ids=["object_array", "npz_pickle", "json_pickle"])
def test_hostile_per_key_members_are_refused_without_running_code(trained_per_key, tmp_path, replace, message):
    path = rewrite(trained_per_key[2], str(tmp_path / "hostile.zip"), replace)
    with pytest.raises(InvalidModelFileError, match=message):
        PPO2.load(path, env=DummyVecEnv([TwoScalesEnv]))
    assert Payload.calls == []


def test_off_policy_model_loaded_with_a_single_raw_dict_env(tmp_path):
    from stable_baselines import DQN

    env = per_key_env(n_envs=1, steps=0)
    model = DQN("MultiInputPolicy", env, learning_starts=10, seed=0, n_cpu_tf_sess=1)
    model.learn(40)
    path = str(tmp_path / "dqn_dict.zip")
    model.save(path)
    loaded = DQN.load(path, env=TwoScalesEnv(3))
    vec_normalize = loaded.get_vec_normalize_env()
    assert vec_normalize is not None and vec_normalize.norm_obs_keys == ["big", "small"]
    assert vec_normalize.training is False and vec_normalize.norm_reward is False
    assert loaded.get_normalization_statistics().matches(env.get_statistics())
    observations = dict_observations(8)
    expected, _ = model.predict(env.normalize_obs(observations), deterministic=True)
    actions, _ = loaded.predict(vec_normalize.normalize_obs(observations), deterministic=True)
    np.testing.assert_array_equal(actions, expected)
    assert loaded.get_env() is vec_normalize
    first = vec_normalize.reset()
    assert np.abs(first["big"]).max() <= 4. and np.abs(vec_normalize.get_original_obs()["big"]).min() > 30


def test_export_refuses_per_key_statistics_clearly(trained_per_key, tmp_path):
    model, _, _ = trained_per_key
    with pytest.raises(ValueError, match=r"Cannot export with the VecNormalize statistics per key of a Dict "
                                         r"observation \(\['big', 'small'\]\)"):
        model.export(str(tmp_path / "exported"), format="savedmodel")
    assert not (tmp_path / "exported").exists()
