"""Save / load round trips of A2C and PPO2 for every action space, both file formats, paths and file objects."""
import io
import os

import gymnasium
import numpy as np
import pytest
from gymnasium import spaces

from stable_baselines import A2C, PPO2
from stable_baselines.common.identity_env import (IdentityEnv, IdentityEnvBox, IdentityEnvMultiBinary,
                                                  IdentityEnvMultiDiscrete)
from stable_baselines.common.vec_env import DummyVecEnv

ENVS = {
    "Discrete": lambda: IdentityEnv(10),
    "Box": lambda: IdentityEnvBox(eps=0.5),
    "MultiDiscrete": lambda: IdentityEnvMultiDiscrete(3),
    "MultiBinary": lambda: IdentityEnvMultiBinary(3),
}


@pytest.mark.parametrize("space", list(ENVS))
@pytest.mark.parametrize("model_class", [A2C, PPO2])
@pytest.mark.parametrize("use_cloudpickle", [False, True])
def test_round_trip(tmp_path, model_class, space, use_cloudpickle):
    env = DummyVecEnv([ENVS[space]])
    model = model_class("MlpPolicy", env, seed=0, n_steps=16)
    model.learn(64)
    observations = np.array([env.observation_space.sample() for _ in range(20)])
    actions, _ = model.predict(observations, deterministic=True)
    params = model.get_parameters()

    path = str(tmp_path / "model")
    model.save(path, cloudpickle=use_cloudpickle)
    suffix = ".pkl" if use_cloudpickle else ".zip"
    assert os.path.exists(path + suffix)
    loaded = model_class.load(path, env=env)

    assert list(loaded.get_parameters()) == list(params)
    for name, value in params.items():
        np.testing.assert_array_equal(loaded.get_parameters()[name], value)
    loaded_actions, _ = loaded.predict(observations, deterministic=True)
    np.testing.assert_array_equal(loaded_actions, actions)
    # a loaded model trains on
    loaded.learn(32)


@pytest.mark.parametrize("model_class", [A2C, PPO2])
def test_file_like_objects(model_class):
    model = model_class("MlpPolicy", "CartPole-v1", seed=0)
    buffer = io.BytesIO()
    model.save(buffer)
    buffer.seek(0)
    loaded = model_class.load(buffer)
    obs = np.zeros((3, 4), dtype=np.float32)
    np.testing.assert_array_equal(loaded.predict(obs, deterministic=True)[0], model.predict(obs, deterministic=True)[0])


def test_load_overrides_and_policy_kwargs_check(tmp_path):
    model = PPO2("MlpPolicy", "CartPole-v1", policy_kwargs=dict(net_arch=[32]), n_steps=16)
    path = str(tmp_path / "ppo2.zip")
    model.save(path)
    loaded = PPO2.load(path, n_steps=8, gamma=0.5)
    assert loaded.n_steps == 8 and loaded.gamma == 0.5
    assert loaded.policy_kwargs == dict(net_arch=[32])
    with pytest.raises(ValueError, match="policy kwargs"):
        PPO2.load(path, policy_kwargs=dict(net_arch=[64]))


def test_load_parameters_exact_match(tmp_path):
    model = A2C("MlpPolicy", "CartPole-v1")
    params = model.get_parameters()
    missing = dict(params)
    missing.pop("model/pi/b:0")
    with pytest.raises(RuntimeError, match="model/pi/b:0"):
        model.load_parameters(missing)
    # exact_match=False loads what is given
    missing["model/pi/w:0"] = np.ones_like(params["model/pi/w:0"])
    model.load_parameters(missing, exact_match=False)
    np.testing.assert_array_equal(model.get_parameters()["model/pi/w:0"], 1.0)
    wrong_shape = dict(params, **{"model/vf/b:0": np.zeros(3)})
    with pytest.raises(ValueError, match="model/vf/b:0"):
        model.load_parameters(wrong_shape)


def test_set_env_checks_spaces_and_n_envs():
    model = PPO2("MlpPolicy", DummyVecEnv([lambda: IdentityEnv(10)] * 2), n_steps=16, nminibatches=2)
    with pytest.raises(ValueError, match="observation space"):
        model.set_env(DummyVecEnv([lambda: IdentityEnv(5)] * 2))
    # a feed-forward policy takes any number of environments (as in the original); the batch follows
    model.set_env(DummyVecEnv([lambda: IdentityEnv(10)] * 3))
    assert (model.n_envs, model.n_batch) == (3, 48)
    model.learn(96)
    assert model.num_timesteps == 96
    # a recurrent policy's graph holds one state row per environment: it is built again for 3 (issue 22), but
    # training cuts whole env sequences into nminibatches parts, which 3 envs and nminibatches=2 cannot give
    lstm = PPO2("MlpLstmPolicy", DummyVecEnv([lambda: IdentityEnv(10)] * 2), n_steps=16, nminibatches=2)
    lstm.set_env(DummyVecEnv([lambda: IdentityEnv(10)] * 3))
    assert (lstm.n_envs, lstm.n_batch, lstm.initial_state.shape[0]) == (3, 48, 3)
    with pytest.raises(ValueError, match=r"environments run in parallel \(3\) must be a multiple of nminibatches"):
        lstm.learn(48)
    lstm.set_env(DummyVecEnv([lambda: IdentityEnv(10)] * 2))
    lstm.learn(32)


@pytest.mark.parametrize("model_class", [A2C, PPO2])
def test_load_with_another_number_of_envs(tmp_path, model_class):
    """Trained on 4 environments, continued on 1 (the graph is built after the env is set, as in the original)."""
    model = model_class("MlpPolicy", DummyVecEnv([lambda: IdentityEnv(10)] * 4), n_steps=8, seed=0)
    model.learn(64)
    model.save(str(tmp_path / "model"))
    loaded = model_class.load(str(tmp_path / "model"), env=DummyVecEnv([lambda: IdentityEnv(10)]))
    assert (loaded.n_envs, loaded.n_batch) == (1, 8)
    for name, value in model.get_parameters().items():
        np.testing.assert_array_equal(loaded.get_parameters()[name], value)
    loaded.learn(16)
    assert loaded.num_timesteps == 16


def test_predict_shape_errors():
    model = A2C("MlpPolicy", "CartPole-v1")
    with pytest.raises(ValueError, match="Unexpected observation shape"):
        model.predict(np.zeros(5))
    with pytest.raises(ValueError, match="env.reset"):
        model.predict((np.zeros(4), {}))
    action, state = model.predict(np.zeros(4))
    assert np.shape(action) == () and state is None
    actions, _ = model.predict(np.zeros((7, 4)))
    assert actions.shape == (7,)


def test_action_probability():
    model = PPO2("MlpPolicy", "CartPole-v1")
    obs = np.zeros((5, 4), dtype=np.float32)
    proba = model.action_probability(obs)
    assert proba.shape == (5, 2)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0, rtol=1e-5)
    actions = np.array([0, 1, 0, 1, 1])
    chosen = model.action_probability(obs, actions=actions)
    np.testing.assert_allclose(chosen[:, 0], proba[np.arange(5), actions], rtol=1e-5)
    logp = model.action_probability(obs, actions=actions, logp=True)
    np.testing.assert_allclose(np.exp(logp), chosen, rtol=1e-5)

    box_model = A2C("MlpPolicy", DummyVecEnv([lambda: IdentityEnvBox()]))
    mean, std = box_model.action_probability(np.zeros((3, 1), dtype=np.float32))
    assert mean.shape == (3, 1) and std.shape == (3, 1)
    density = box_model.action_probability(np.zeros((3, 1), dtype=np.float32), actions=mean[:, 0])
    expected = 1.0 / (np.sqrt(2 * np.pi) * std[:, 0])
    np.testing.assert_allclose(density[:, 0], expected, rtol=1e-4)

    # a standard deviation other than 1, two action dimensions: the density of N(mean, diag(std^2))
    class TwoDimBox(gymnasium.Env):
        observation_space = spaces.Box(-1, 1, (2,), np.float32)
        action_space = spaces.Box(-1, 1, (2,), np.float32)

        def reset(self, *, seed=None, options=None):
            return np.zeros(2, np.float32), {}

        def step(self, action):
            return np.zeros(2, np.float32), 0.0, True, False, {}

    env_2d = DummyVecEnv([TwoDimBox])
    box_model = A2C("MlpPolicy", env_2d, policy_kwargs=dict(net_arch=[8]))
    params = box_model.get_parameters()
    params["model/pi/logstd:0"] = np.log(np.array([[0.5, 1.5]], dtype=np.float32))
    box_model.load_parameters(params)
    obs = np.random.default_rng(0).uniform(-1, 1, (4, 2)).astype(np.float32)
    mean, std = box_model.action_probability(obs)
    np.testing.assert_allclose(std, np.tile([[0.5, 1.5]], (4, 1)), rtol=1e-6)
    actions = mean + np.array([0.3, -0.7], dtype=np.float32)
    expected = np.prod(np.exp(-np.square(actions - mean) / (2 * np.square(std))) / (np.sqrt(2 * np.pi) * std), axis=1)
    density = box_model.action_probability(obs, actions=actions)
    np.testing.assert_allclose(density[:, 0], expected, rtol=1e-5)
    np.testing.assert_allclose(box_model.action_probability(obs, actions=actions, logp=True)[:, 0], np.log(expected),
                               rtol=1e-5)


def test_policy_kwargs_with_tf_nn_functions_save_by_reference(tmp_path):
    """tf.nn.tanh is a dispatch wrapper in TF 2: stored by reference (math_ops.tanh, as the original's files)."""
    import base64
    import json
    import zipfile

    from stable_baselines.common.tf_compat import tf

    for function in (tf.nn.tanh, tf.nn.sigmoid, tf.nn.leaky_relu, tf.nn.relu):
        module_before = function.__module__
        model = PPO2("MlpPolicy", "CartPole-v1", n_steps=16, policy_kwargs=dict(act_fun=function, net_arch=[8]))
        model.save(str(tmp_path / "model"))
        assert function.__module__ == module_before  # restored after saving
        with zipfile.ZipFile(str(tmp_path / "model.zip")) as archive:
            stored = json.loads(archive.read("data"))["policy_kwargs"][":serialized:"]
        assert b"tensorflow.python.ops" in base64.b64decode(stored)
        assert PPO2.load(str(tmp_path / "model")).policy_kwargs["act_fun"] is function


def test_load_takes_a_policy_class_stored_by_value_from_its_arguments(tmp_path):
    """A policy class defined in a script is stored by value: never rebuilt; the class of that name defined in the
    process, or load(policy=...), supplies it (the manual's advice)."""
    from stable_baselines.common.policies import FeedForwardPolicy
    from stable_baselines.common.safe_pickle import SafeUnpicklingError

    class ScriptPolicy(FeedForwardPolicy):  # a local class: cloudpickle stores it by value
        def __init__(self, *args, **kwargs):
            super(ScriptPolicy, self).__init__(*args, **kwargs, net_arch=[dict(pi=[8], vf=[8])],
                                               feature_extraction="mlp")

    model = A2C(ScriptPolicy, "CartPole-v1", n_steps=5, seed=0)
    model.save(str(tmp_path / "model"))
    # the class is defined in this process: it stands for the one in the file (which is never rebuilt)
    assert A2C.load(str(tmp_path / "model")).policy is ScriptPolicy
    # not defined (here: renamed): refused, with the way out
    ScriptPolicy.__name__ = ScriptPolicy.__qualname__ = "RenamedPolicy"
    with pytest.raises(SafeUnpicklingError, match="'policy'.*ScriptPolicy.*define or import"):
        A2C.load(str(tmp_path / "model"))
    loaded = A2C.load(str(tmp_path / "model"), policy=ScriptPolicy)
    assert loaded.policy is ScriptPolicy
    for name, value in model.get_parameters().items():
        np.testing.assert_array_equal(loaded.get_parameters()[name], value)
    # policy_kwargs given to load must still equal the stored ones
    with pytest.raises(ValueError, match="policy kwargs"):
        A2C.load(str(tmp_path / "model"), policy=ScriptPolicy, policy_kwargs=dict(net_arch=[4]))


def test_lambda_schedules_load_back_and_training_continues(tmp_path):
    """Schedules given as lambdas are stored by value (cloudpickle); loading rebuilds them without running them."""
    from stable_baselines.common.safe_loading.bytecode import ArithmeticFunction
    model = PPO2("MlpPolicy", "CartPole-v1", n_steps=32, nminibatches=2, seed=0,
                 learning_rate=lambda f: f * 3e-4, cliprange=lambda f: max(0.1, f * 0.2),
                 cliprange_vf=lambda f: 0.5 if f > 0.5 else 0.25, policy_kwargs=dict(net_arch=[8]))
    model.learn(64)
    for use_cloudpickle in (False, True):
        path = str(tmp_path / ("model" + str(use_cloudpickle)))
        model.save(path, cloudpickle=use_cloudpickle)
        loaded = PPO2.load(path, env=model.get_env())
        for name in ("learning_rate", "cliprange", "cliprange_vf"):
            rebuilt, original = getattr(loaded, name), getattr(model, name)
            assert isinstance(rebuilt, ArithmeticFunction), (name, rebuilt)
            for progress in (1.0, 0.7, 0.5, 0.3, 0.0):
                assert rebuilt(progress) == original(progress), (name, progress)
        loaded.learn(64)
        # and it saves and loads again
        loaded.save(path + "_again", cloudpickle=use_cloudpickle)
        again = PPO2.load(path + "_again")
        assert again.cliprange(0.25) == model.cliprange(0.25)


def test_layer_descriptions_load_back_and_are_bounded(tmp_path):
    """policy_kwargs layer descriptions ('lstm' in a recurrent net_arch included) load back; widths are bounded."""
    from stable_baselines.common.safe_loading import limits
    from stable_baselines.common.save_util import InvalidModelFileError
    net_arch = [8, "lstm", dict(pi=[4], vf=[4])]
    model = A2C("MlpLstmPolicy", "CartPole-v1", n_steps=4, policy_kwargs=dict(net_arch=net_arch, n_lstm=8))
    model.save(str(tmp_path / "model"))
    assert A2C.load(str(tmp_path / "model")).policy_kwargs == dict(net_arch=net_arch, n_lstm=8)
    # a file describing a layer wider than the limit (its network would be allocated before its parameters are read)
    from stable_baselines.common.save_util import save_to_zip
    data = model._settings_to_save()  # pylint: disable=protected-access
    data["policy_kwargs"] = dict(net_arch=[limits.MAX_LAYER_WIDTH + 1])
    save_to_zip(str(tmp_path / "wide"), data=data, params=model.get_parameters())
    with pytest.raises(InvalidModelFileError, match="'policy_kwargs'.*MAX_LAYER_WIDTH"):
        A2C.load(str(tmp_path / "wide"))
    # a recurrent policy unrolled over more steps than any model file holds (its graph alone would take hours)
    data = model._settings_to_save()  # pylint: disable=protected-access
    data["n_steps"] = limits.MAX_RECURRENT_STEPS + 1
    save_to_zip(str(tmp_path / "long"), data=data, params=model.get_parameters())
    with pytest.raises(InvalidModelFileError, match="'n_steps'.*MAX_RECURRENT_STEPS"):
        A2C.load(str(tmp_path / "long"))
