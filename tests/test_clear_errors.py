"""
Bad input named in the error: what was expected and what was given (design contract 4), for the edges of
load_parameters, VecNormalize.load, tensorboard_log, save, ExpertDataset, predict and the CNN policies; and the
dtypes of VecNormalize's original rewards and observations.
"""
import os
import pickle

import gymnasium as gym
import numpy as np
import pytest

from stable_baselines import A2C, DQN, PPO2
from stable_baselines.common.safe_loading.errors import InvalidModelFileError
from stable_baselines.common.vec_env import DummyVecEnv, VecEnv, VecNormalize
from stable_baselines.gail import ExpertDataset


class _Float64Rewards(VecEnv):
    """A one-env VecEnv that returns float64 rewards and float32 observations, as a user's VecEnv may."""

    def __init__(self):
        super().__init__(1, gym.spaces.Box(-1, 1, (2,), np.float32), gym.spaces.Discrete(2))
        self.rewards = [0.25, -1.5, 3.125]
        self.calls = 0

    def reset(self):
        return np.full((1, 2), 0.5, dtype=np.float32)

    def step_async(self, actions):
        pass

    def step_wait(self):
        reward = np.array([self.rewards[self.calls % 3]], dtype=np.float64)
        self.calls += 1
        return np.full((1, 2), 0.5, dtype=np.float32), reward, np.array([False]), [{}]

    def close(self):
        pass

    def get_attr(self, attr_name, indices=None):
        return [None]

    def set_attr(self, attr_name, value, indices=None):
        pass

    def env_method(self, method_name, *method_args, indices=None, **method_kwargs):
        return [None]

    def seed(self, seed=None):
        return [seed]

    def render(self, mode="human"):
        return None


# ------------------------------------------------------------------ VecNormalize's original values
def test_original_reward_and_obs_keep_the_wrapped_env_dtypes():
    venv = VecNormalize(_Float64Rewards())
    venv.reset()
    for expected in (0.25, -1.5, 3.125):
        _, normalized, _, _ = venv.step(np.array([0]))
        original = venv.get_original_reward()
        assert original.dtype == np.float64 and original.tolist() == [expected]
        assert venv.get_original_obs().dtype == np.float32
        assert not np.allclose(normalized, original)
    # the copy is the env's own value, not a view the wrapper may change
    original[0] = 99.0
    assert venv.get_original_reward().tolist() == [3.125]


def test_original_reward_has_the_dtype_of_the_rewards_step_returned():
    # DummyVecEnv keeps the rewards in a float32 buffer; the normalized ones are float64 (numpy 2 divides by the
    # float64 running statistics), and get_original_reward gives the same values in that dtype, so that
    # `orig.dtype == rewards.dtype` holds as in the original library's test; without reward normalization both
    # are the env's float32. The observations keep the env's float32.
    for norm_reward, dtype in ((True, np.float64), (False, np.float32)):
        venv = VecNormalize(DummyVecEnv([lambda: gym.make("Pendulum-v1")]), norm_reward=norm_reward)
        venv.reset()
        _, normalized, _, _ = venv.step(np.zeros((1, 1)))
        original = venv.get_original_reward()
        assert original.dtype == normalized.dtype == dtype
        assert original.tolist() == venv.venv.buf_rews.astype(np.float64).tolist()  # the same values
        np.testing.assert_allclose(venv.normalize_reward(original), normalized)
        assert venv.get_original_obs().dtype == np.float32


# ------------------------------------------------------------------ load_parameters
@pytest.fixture(scope="module")
def a2c_cartpole():
    return A2C("MlpPolicy", "CartPole-v1", seed=0)


@pytest.mark.parametrize("bad", [lambda shape: np.full(shape, "a"), lambda shape: np.ones(shape) * 1j,
                                 lambda shape: np.full(shape, None)])
def test_load_parameters_refuses_non_numeric_arrays(a2c_cartpole, bad):
    params = a2c_cartpole.get_parameters()
    name = "model/pi_fc0/w:0"
    before = params[name].copy()
    params[name] = bad(before.shape)
    with pytest.raises(ValueError, match=r"Parameter 'model/pi_fc0/w:0' has dtype .* expects real numbers "
                                         r"\(float32\)"):
        a2c_cartpole.load_parameters(params)
    np.testing.assert_array_equal(a2c_cartpole.get_parameters()[name], before)  # nothing loaded


def test_load_parameters_still_casts_numbers(a2c_cartpole):
    params = a2c_cartpole.get_parameters()
    name = "model/pi_fc0/w:0"
    params[name] = np.full(params[name].shape, 2, dtype=np.int64)
    params["model/pi_fc0/b:0"] = np.array([0.5] * len(params["model/pi_fc0/b:0"]), dtype=object)
    a2c_cartpole.load_parameters(params, exact_match=False)
    loaded = a2c_cartpole.get_parameters()
    assert loaded[name].dtype == np.float32 and np.all(loaded[name] == 2.0)
    assert np.all(loaded["model/pi_fc0/b:0"] == 0.5)


# ------------------------------------------------------------------ VecNormalize.load
def test_vec_normalize_load_of_other_files(tmp_path, a2c_cartpole):
    venv = DummyVecEnv([lambda: gym.make("Pendulum-v1")])
    model_path = str(tmp_path / "model.zip")
    a2c_cartpole.save(model_path)
    npy_path = str(tmp_path / "array.npy")
    np.save(npy_path, np.zeros(3))
    text_path = str(tmp_path / "stats.pkl")
    with open(text_path, "w") as handle:
        handle.write("obs_rms: not a pickle\n")
    dict_path = str(tmp_path / "dict.pkl")
    with open(dict_path, "wb") as handle:
        pickle.dump({"obs_rms": 1}, handle)
    cases = [(model_path, r"is a zip archive \(a model file\? those load with the algorithm's load\(\)\), not a "
                          r"pickled VecNormalize"),
             (npy_path, "is a numpy .npy array, not a pickled VecNormalize"),
             (text_path, r"\(expected VecNormalize\) is not a valid pickle"),
             (dict_path, r"does not hold VecNormalize \(found a dict\)")]
    for path, message in cases:
        with pytest.raises(InvalidModelFileError, match=message):
            VecNormalize.load(path, venv)


# ------------------------------------------------------------------ folders that are files
def test_tensorboard_log_under_a_file_fails_before_training(tmp_path):
    a_file = tmp_path / "not_a_folder"
    a_file.write_text("x")
    for log_dir in (str(a_file), str(a_file / "tb")):
        model = A2C("MlpPolicy", "CartPole-v1", tensorboard_log=log_dir, seed=0)
        with pytest.raises(NotADirectoryError, match="tensorboard_log='{}' must be a folder .* but '{}' is a file"
                           .format(log_dir, str(a_file))):
            model.learn(100)
        assert model.num_timesteps == 0
    assert a_file.read_text() == "x"


def test_save_under_a_file_says_so(tmp_path, a2c_cartpole):
    a_file = tmp_path / "not_a_folder"
    a_file.write_text("x")
    with pytest.raises(NotADirectoryError, match="Cannot save to '.*model.zip': '{}' is a file, not a directory"
                       .format(str(a_file))):
        a2c_cartpole.save(str(a_file / "sub" / "model"))
    with pytest.raises(FileNotFoundError, match="the directory '.*missing' does not exist"):
        a2c_cartpole.save(str(tmp_path / "missing" / "model"))
    assert a_file.read_text() == "x"


# ------------------------------------------------------------------ ExpertDataset
def test_expert_dataset_random_bytes_is_not_an_npz(tmp_path):
    path = str(tmp_path / "expert.npz")
    with open(path, "wb") as handle:
        handle.write(np.random.RandomState(0).bytes(4096))
    with pytest.raises(InvalidModelFileError, match=r"the expert dataset '.*expert.npz' is not a numpy .npz "
                                                    r"archive \(BadZipFile"):
        ExpertDataset(expert_path=path, verbose=0)


# ------------------------------------------------------------------ predict
@pytest.mark.parametrize("model_class", [A2C, DQN])
def test_predict_refuses_discrete_observations_outside_the_space(model_class):
    model = model_class("MlpPolicy", gym.make("FrozenLake-v1"), seed=0)
    assert 0 <= int(model.predict(15)[0]) < 4
    with pytest.raises(ValueError, match=r"observation 20 is outside the observation space Discrete\(16\): "
                                         r"expected an integer from 0 to 15"):
        model.predict(20)
    with pytest.raises(ValueError, match=r"observations \[16, -1\] \(rows \[1, 2\] of the batch\) are outside"):
        model.predict(np.array([3, 16, -1]))
    with pytest.raises(ValueError, match="observation 2.5 is outside"):
        model.action_probability(2.5) if model_class is A2C else model.predict(2.5)


def test_predict_refuses_multi_discrete_values_outside_nvec():
    from stable_baselines.common.identity_env import IdentityEnvMultiDiscrete
    env = IdentityEnvMultiDiscrete(3)
    model = A2C("MlpPolicy", env, seed=0)
    assert model.predict(np.array([2, 0]))[0].shape == (2,)
    with pytest.raises(ValueError, match=r"observation \[3, 0\] is outside .* expected integers from \[0, 0\] to "
                                         r"\[2, 2\]"):
        model.predict(np.array([3, 0]))


@pytest.fixture(scope="module")
def lstm_model():
    return PPO2("MlpLstmPolicy", DummyVecEnv([lambda: gym.make("CartPole-v1")] * 2), nminibatches=2, n_steps=8,
                seed=0)


def test_recurrent_state_and_mask_are_checked(lstm_model):
    obs = np.zeros((2, 4))
    actions, state = lstm_model.predict(obs)
    assert state.shape == (2, 512)
    lstm_model.predict(obs, state=state, mask=[True, False])
    lstm_model.predict(obs[0], state=state, mask=[True])  # one observation, its own mask entry
    state_message = r"state of this recurrent policy is an array of shape \(n_envs, state size\) = \(2, 512\), got {}"
    for bad_state, given in ((np.zeros((2, 10)), r"\(2, 10\)"), (np.zeros(512), r"\(512,\)"),
                             (np.zeros((3, 512)), r"\(3, 512\)")):
        with pytest.raises(ValueError, match=state_message.format(given)):
            lstm_model.predict(obs, state=bad_state)
        with pytest.raises(ValueError, match=state_message.format(given)):
            lstm_model.action_probability(obs, state=bad_state)
    with pytest.raises(ValueError, match=r"mask of a recurrent policy has one entry per environment .*expected "
                                         r"shape \(2,\), got \(3,\)"):
        lstm_model.predict(obs, mask=[False] * 3)
    with pytest.raises(ValueError, match=r"expected shape \(1,\) or \(2,\), got \(2, 2\)"):
        lstm_model.predict(obs[0], mask=np.zeros((2, 2)))


# ------------------------------------------------------------------ CNN policies
@pytest.mark.parametrize("model_class", [A2C, DQN])
def test_cnn_policy_needs_images(model_class):
    with pytest.raises(ValueError, match=r"The CNN policies \(nature_cnn\) need image observations of shape "
                                         r"\(height, width, channels\), got observations of shape \(4,\): use an "
                                         r"MlpPolicy"):
        model_class("CnnPolicy", "CartPole-v1")


def test_cnn_policy_needs_large_enough_images():
    class SmallImages(gym.Env):
        observation_space = gym.spaces.Box(0, 255, (10, 10, 1), np.uint8)
        action_space = gym.spaces.Discrete(2)

        def reset(self, seed=None, options=None):
            return np.zeros((10, 10, 1), np.uint8), {}

        def step(self, action):
            return np.zeros((10, 10, 1), np.uint8), 0.0, False, False, {}

    with pytest.raises(ValueError, match=r"need images of at least 36x36 pixels, got observations of shape "
                                         r"\(10, 10, 1\)"):
        A2C("CnnPolicy", SmallImages())


def test_predict_before_setup_model_names_the_missing_step():
    model = A2C("MlpPolicy", "CartPole-v1", _init_setup_model=False)
    with pytest.raises(RuntimeError, match="A2C has no step yet: it is made by setup_model"):
        model.predict(np.zeros(4, dtype=np.float32))
    with pytest.raises(RuntimeError, match="A2C has no proba_step yet"):
        model.action_probability(np.zeros(4, dtype=np.float32))
    with pytest.raises(RuntimeError, match="A2C has no params yet"):
        model.get_parameter_list()
    model.setup_model()
    action, state = model.predict(np.zeros(4, dtype=np.float32))
    assert action in (0, 1) and state is None
    assert len(model.get_parameter_list()) == len(model.get_parameters()) > 0


@pytest.mark.parametrize("algo", ["PPO2", "A2C"])
def test_predict_refuses_text_observations(algo):
    """Text where numbers are expected: a clear error naming the space and the dtype (numpy's message before)."""
    import stable_baselines
    model = getattr(stable_baselines, algo)("MlpPolicy", "CartPole-v1", n_steps=16, seed=0)
    with pytest.raises(ValueError, match=r"are numbers, got an array of dtype <U1 \(text\)"):
        model.predict(np.array(["a", "b", "c", "d"]))
