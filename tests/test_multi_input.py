"""
MultiInputPolicy: Dict and Tuple observation spaces (nested too) for the actor-critic models, DQN, SAC and TD3.

The learning tasks need TWO entries of the observation: the right action depends on a Discrete ``offset`` and on a
Box ``position`` together (a policy reading one of them alone scores at most 0.83).
"""
import itertools

import gymnasium as gym
import numpy as np
import pytest
from gymnasium import spaces

from stable_baselines import A2C, ACER, ACKTR, DQN, PPO2, SAC, TD3
from stable_baselines.common.input import observation_input
from stable_baselines.common.structured_obs import pack_batch, packed_width, unpack_rows
from stable_baselines.common.tf_compat import tf
from stable_baselines.common.vec_env import DummyVecEnv

from nested_env_helpers import TwoScalesEnv  # pylint: disable=wrong-import-order

try:
    from stable_baselines import DDPG, PPO1, TRPO
except ImportError:  # without mpi4py
    DDPG = PPO1 = TRPO = None

_SEEDS = itertools.count()


class ShiftedThresholdEnv(gym.Env):
    """
    Discrete actions: the right action is 1 when ``position + 0.5 * (offset - 1) > 0``, else 0 (reward 1 when
    right). Knowing only the position scores 0.83, only the offset 0.67.
    """

    def __init__(self, ep_len: int = 25):
        self.ep_len = ep_len
        self.observation_space = spaces.Dict({"offset": spaces.Discrete(3),
                                              "position": spaces.Box(-1, 1, (1,), np.float32)})
        self.action_space = spaces.Discrete(2)
        self.rng = np.random.default_rng(next(_SEEDS))
        self.offset, self.position, self.steps = 0, np.zeros(1, np.float32), 0

    def _draw(self):
        self.offset = int(self.rng.integers(3))
        self.position = self.rng.uniform(-1, 1, (1,)).astype(np.float32)
        return {"offset": self.offset, "position": self.position}

    def target(self) -> float:
        return float(self.position[0] + 0.5 * (self.offset - 1))

    def reset(self, seed=None, options=None):
        if seed is not None:
            self.rng = np.random.default_rng(seed)
        self.steps = 0
        return self._draw(), {}

    def reward(self, action) -> float:
        return float(int(action) == int(self.target() > 0))

    def step(self, action):
        reward = self.reward(action)
        self.steps += 1
        return self._draw(), reward, False, self.steps >= self.ep_len, {}


class ShiftedTargetEnv(ShiftedThresholdEnv):
    """Continuous actions: the action should be ``position + 0.5 * (offset - 1)``; reward -|error|."""

    def __init__(self, ep_len: int = 25):
        super().__init__(ep_len)
        self.observation_space = spaces.Dict({"offset": spaces.Discrete(3),
                                              "position": spaces.Box(-0.5, 0.5, (1,), np.float32)})
        self.action_space = spaces.Box(-1, 1, (1,), np.float32)

    def _draw(self):
        self.offset = int(self.rng.integers(3))
        self.position = self.rng.uniform(-0.5, 0.5, (1,)).astype(np.float32)
        return {"offset": self.offset, "position": self.position}

    def reward(self, action) -> float:
        return -abs(float(np.asarray(action).ravel()[0]) - self.target())


def mean_reward(model, env, n_steps: int = 400) -> float:
    obs, _ = env.reset(seed=123)
    total = 0.0
    for _ in range(n_steps):
        action, _ = model.predict(obs, deterministic=True)
        obs, reward, _, _, _ = env.step(action)
        total += reward
    return total / n_steps


@pytest.mark.slow
@pytest.mark.parametrize("algo,kwargs,threshold", [
    (PPO2, dict(n_steps=16, nminibatches=4, noptepochs=4, learning_rate=3e-3), 0.93),
    (A2C, dict(n_steps=5, learning_rate=7e-3), 0.88),
])
def test_actor_critic_learns_two_entry_task(algo, kwargs, threshold):
    model = algo("MultiInputPolicy", DummyVecEnv([ShiftedThresholdEnv] * 8), gamma=0.0, ent_coef=0.0, seed=0,
                 n_cpu_tf_sess=1, **kwargs)
    model.learn(10000)
    assert mean_reward(model, ShiftedThresholdEnv()) >= threshold


def recurrent_mean_reward(model, env, n_steps: int = 400) -> float:
    """Like :func:`mean_reward` for a recurrent model: the state and the episode starts go along."""
    obs, _ = env.reset(seed=123)
    state, starts, total = None, np.array([True]), 0.0
    for _ in range(n_steps):
        action, state = model.predict(obs, state=state, mask=starts, deterministic=True)
        obs, reward, _, truncated, _ = env.step(action)
        starts = np.array([truncated])
        if truncated:
            obs, _ = env.reset()
        total += reward
    return total / n_steps


@pytest.mark.slow
def test_recurrent_multi_input_policy_learns_two_entry_task():
    model = PPO2("MultiInputLstmPolicy", DummyVecEnv([ShiftedThresholdEnv] * 8), n_steps=32, nminibatches=4,
                 learning_rate=1e-3, gamma=0.0, ent_coef=0.0, seed=0, n_cpu_tf_sess=1, policy_kwargs=dict(n_lstm=32))
    model.learn(20000)
    # reading only the position scores 0.83
    assert recurrent_mean_reward(model, ShiftedThresholdEnv()) >= 0.93


def test_recurrent_multi_input_policy_predicts_dicts_at_any_batch_and_round_trips(tmp_path):
    model = A2C("MultiInputLstmPolicy", DummyVecEnv([ShiftedThresholdEnv] * 2), seed=0, n_cpu_tf_sess=1,
                policy_kwargs=dict(n_lstm=8))
    model.learn(40)
    batch = {"offset": np.array([0, 2, 1]), "position": np.array([[0.3], [-0.3], [0.1]], np.float32)}
    actions, states = model.predict(batch, deterministic=True)
    assert actions.shape == (3,) and states.shape == (3, 16)
    single, single_state = model.predict({"offset": 2, "position": np.array([-0.3], np.float32)},
                                         state=np.zeros((1, 16), np.float32), deterministic=True)
    assert single == actions[1]
    np.testing.assert_allclose(single_state[0], states[1], rtol=1e-5, atol=1e-6)
    model.save(str(tmp_path / "model.zip"))
    loaded = A2C.load(str(tmp_path / "model.zip"))
    np.testing.assert_array_equal(loaded.predict(batch, deterministic=True)[0], actions)
    with pytest.raises(ValueError, match="MultiInputPolicy"):
        A2C("MultiInputLstmPolicy", "CartPole-v1")


@pytest.mark.slow
def test_dqn_learns_two_entry_task():
    model = DQN("MultiInputPolicy", ShiftedThresholdEnv(), gamma=0.0, learning_starts=200, exploration_fraction=0.3,
                learning_rate=1e-3, target_network_update_freq=100, buffer_size=5000, batch_size=32, seed=0,
                n_cpu_tf_sess=1)
    model.learn(3000)
    assert mean_reward(model, ShiftedThresholdEnv()) >= 0.93


@pytest.mark.slow
@pytest.mark.parametrize("algo", [SAC, TD3])
def test_continuous_learns_two_entry_task(algo):
    model = algo("MultiInputPolicy", ShiftedTargetEnv(), gamma=0.0, learning_starts=200, learning_rate=3e-3,
                 buffer_size=5000, batch_size=64, seed=0, n_cpu_tf_sess=1)
    model.learn(2500)
    # a constant action scores about -0.42, reading only the position about -0.33
    assert mean_reward(model, ShiftedTargetEnv()) >= -0.1


@pytest.mark.slow
@pytest.mark.skipif(DDPG is None, reason="DDPG needs mpi4py")
def test_ddpg_learns_two_entry_task():
    from stable_baselines.common.noise import NormalActionNoise

    model = DDPG("MultiInputPolicy", ShiftedTargetEnv(), gamma=0.0, nb_rollout_steps=50, nb_train_steps=50,
                 batch_size=64, actor_lr=1e-3, critic_lr=1e-3, seed=0, n_cpu_tf_sess=1,
                 action_noise=NormalActionNoise(np.zeros(1), 0.2 * np.ones(1)))
    model.learn(2500)
    assert mean_reward(model, ShiftedTargetEnv()) >= -0.1
    with pytest.raises(ValueError, match="normalize_observations=True.*VecNormalize"):
        DDPG("MultiInputPolicy", ShiftedTargetEnv(), normalize_observations=True)


def _algorithms():
    found = [(A2C, True, {}), (ACKTR, True, {}), (ACER, True, dict(n_steps=5)), (PPO2, True, dict(n_steps=8)),
             (DQN, False, dict(learning_starts=10)), (SAC, False, dict(learning_starts=10)),
             (TD3, False, dict(learning_starts=10))]
    if PPO1 is not None:
        found += [(PPO1, False, dict(timesteps_per_actorbatch=32)), (TRPO, False, dict(timesteps_per_batch=32)),
                  (DDPG, False, dict(nb_rollout_steps=16, nb_train_steps=4, batch_size=8))]
    return found


@pytest.mark.parametrize("algo,vectorized,kwargs", _algorithms(), ids=lambda value: getattr(value, "__name__", ""))
def test_predict_and_save_load_round_trip(tmp_path, algo, vectorized, kwargs):
    continuous = algo in (SAC, TD3) or (DDPG is not None and algo is DDPG)
    env_class = ShiftedTargetEnv if continuous else ShiftedThresholdEnv
    env = DummyVecEnv([env_class] * 2) if vectorized else env_class()
    model = algo("MultiInputPolicy", env, seed=0, n_cpu_tf_sess=1, **kwargs)
    model.learn(64)
    assert model.get_env() is env
    batch = {"offset": np.array([0, 2, 1]), "position": np.array([[0.3], [-0.3], [0.1]], np.float32)}
    actions, _ = model.predict(batch, deterministic=True)
    single, _ = model.predict({"offset": 2, "position": np.array([-0.3], np.float32)}, deterministic=True)
    assert np.shape(actions) == (3,) + env.action_space.shape
    np.testing.assert_allclose(single, actions[1], rtol=1e-5, atol=1e-6)
    model.save(str(tmp_path / "model.zip"))
    loaded = algo.load(str(tmp_path / "model.zip"))
    assert loaded.observation_space == env.observation_space
    np.testing.assert_allclose(loaded.predict(batch, deterministic=True)[0], actions, rtol=1e-5, atol=1e-6)
    if not continuous:
        np.testing.assert_allclose(loaded.action_probability(batch), model.action_probability(batch), rtol=1e-5)


def test_bad_observations_name_expected_and_given():
    model = PPO2("MultiInputPolicy", DummyVecEnv([ShiftedThresholdEnv]), n_steps=8, seed=0)
    with pytest.raises(ValueError, match=r"no key 'offset': expected keys \['offset', 'position'\], got \['position'\]"):
        model.predict({"position": np.zeros(1, np.float32)})
    with pytest.raises(ValueError, match=r"entry position .* expected \(n_env,\) \+ \(1,\)"):
        model.predict({"offset": np.array([1, 2]), "position": np.zeros((2, 3), np.float32)})
    with pytest.raises(ValueError, match=r"does not have: \['speed'\]"):
        model.predict({"offset": 1, "position": np.zeros(1, np.float32), "speed": 3.0})
    with pytest.raises(ValueError, match=r"entry offset.*outside the observation space"):
        model.predict({"offset": 5, "position": np.zeros(1, np.float32)})
    with pytest.raises(ValueError, match="MultiInputPolicy is for Dict and Tuple"):
        PPO2("MultiInputPolicy", "CartPole-v1", n_steps=8)
    for algo in (PPO2, DQN):
        with pytest.raises(ValueError, match=r"MlpPolicy does not read Dict observation spaces .*use MultiInputPolicy"):
            algo("MlpPolicy", ShiftedThresholdEnv())
    with pytest.raises(ValueError, match=r"MlpPolicy does not read Dict observation spaces .*use MultiInputPolicy"):
        SAC("MlpPolicy", ShiftedTargetEnv())


class NestedEnv(gym.Env):
    """A nested Dict with an image, a Tuple of a MultiDiscrete and a MultiBinary, and a vector."""

    def __init__(self):
        self.observation_space = spaces.Dict({
            "camera": spaces.Box(0, 255, (36, 36, 1), np.uint8),
            "robot": spaces.Dict({"joints": spaces.Box(-1, 1, (3,), np.float32),
                                  "flags": spaces.Tuple((spaces.MultiDiscrete([2, 3]), spaces.MultiBinary(2)))}),
        })
        self.action_space = spaces.Discrete(3)

    def reset(self, seed=None, options=None):
        return self.observation_space.sample(), {}

    def step(self, action):
        return self.observation_space.sample(), 0.0, False, False, {}


def test_nested_packing_round_trip_and_processed_entries():
    space = NestedEnv().observation_space
    samples = [space.sample() for _ in range(4)]
    batch = {"camera": np.stack([s["camera"] for s in samples]),
             "robot": {"joints": np.stack([s["robot"]["joints"] for s in samples]),
                       "flags": (np.stack([s["robot"]["flags"][0] for s in samples]),
                                 np.stack([s["robot"]["flags"][1] for s in samples]))}}
    rows = pack_batch(batch, space)
    assert rows.shape == (4, 36 * 36 + 3 + 2 + 2) == (4, packed_width(space))
    back = unpack_rows(rows, space)
    np.testing.assert_array_equal(back["camera"], batch["camera"])
    np.testing.assert_array_equal(back["robot"]["flags"][0], batch["robot"]["flags"][0])
    with tf.Graph().as_default(), tf.Session() as sess:
        placeholder, processed = observation_input(space, None)
        values = sess.run(processed, {placeholder: rows})
    np.testing.assert_allclose(values["camera"], batch["camera"] / 255.0, rtol=1e-6)
    np.testing.assert_allclose(values["robot"]["joints"], batch["robot"]["joints"])
    expected_one_hot = np.concatenate([np.eye(2)[batch["robot"]["flags"][0][:, 0]],
                                       np.eye(3)[batch["robot"]["flags"][0][:, 1]]], axis=1)
    np.testing.assert_array_equal(values["robot"]["flags"][0], expected_one_hot)
    np.testing.assert_array_equal(values["robot"]["flags"][1], batch["robot"]["flags"][1])


def test_nested_space_policy_kwargs_and_fast_path():
    def small_cnn(images, **_kwargs):
        return tf.reshape(images[:, ::6, ::6, :], (-1, 36))

    seen = []

    def joints_encoder(tensor):
        seen.append(tensor.shape.as_list())
        return tensor * 2.0

    env = NestedEnv()
    model = PPO2("MultiInputPolicy", env, n_steps=8, nminibatches=1, seed=0,
                 policy_kwargs=dict(cnn_extractor=small_cnn, mlp_extractor_arch=[16, 8],
                                    extractors={"robot/joints": joints_encoder}))
    model.learn(16)
    assert seen and seen[0][1:] == [3]
    names = [param.name for param in model.get_parameter_list()]
    assert "model/entry_robot_flags__0_/fc0/w:0" not in names  # discrete entries have no layers
    assert not any("entry_robot_joints" in name for name in names)  # replaced by the given encoder
    assert not any("entry_camera" in name for name in names)  # the CNN given has no variables
    obs = env.observation_space.sample()
    before = model.predict(obs, deterministic=True)[0]
    # the NumPy fast path does not take these policies: the graph keeps answering
    assert model.fast_path.enable(model.act_model) is False
    assert model.predict(obs, deterministic=True)[0] == before
    with pytest.raises(ValueError, match=r"names entries the observation space does not have: \['joints'\]"):
        PPO2("MultiInputPolicy", env, n_steps=8, policy_kwargs=dict(extractors={"joints": joints_encoder}))


def test_tuple_space_vector_entries_go_through_an_mlp():
    class TupleEnv(ShiftedThresholdEnv):
        def __init__(self):
            super().__init__()
            self.observation_space = spaces.Tuple((spaces.Discrete(3), spaces.Box(-1, 1, (1,), np.float32)))

        def _draw(self):
            observation = super()._draw()
            return (observation["offset"], observation["position"])

    model = A2C("MultiInputPolicy", TupleEnv(), n_steps=4, seed=0, policy_kwargs=dict(mlp_extractor_arch=[7]))
    model.learn(16)
    # the DummyVecEnv the model made around the env gives the observations as they are (not packed)
    first = model.get_env().reset()
    assert isinstance(first, tuple) and first[1].shape == (1, 1)
    shapes = {param.name: param.shape.as_list() for param in model.get_parameter_list()}
    assert shapes["model/entry__1_/fc0/w:0"] == [1, 7]
    # one-hot offset (3) + MLP code (7) feed the first policy layer
    assert shapes["model/pi_fc0/w:0"] == [10, 64]
    assert model.predict((2, np.array([0.2], np.float32)))[0] in (0, 1)


class VectorsEnv(TwoScalesEnv):
    """A Dict of two vectors on very different scales and a Discrete entry; reward 1, each env its own seed."""

    def __init__(self):
        super().__init__(next(_SEEDS), reward=1.0)


def test_vec_normalize_per_key(tmp_path):
    from stable_baselines.common.vec_env import VecNormalize

    env = VecNormalize(DummyVecEnv([VectorsEnv] * 4), norm_obs_keys=["big"])
    env.reset()
    for _ in range(200):
        obs, _, _, _ = env.step(np.zeros(4, dtype=np.int64))
    assert set(env.obs_rms) == {"big"}
    np.testing.assert_allclose(env.obs_rms["big"].mean, [100, 100], atol=2)
    original = env.get_original_obs()
    assert abs(float(np.mean(obs["big"]))) < 3 and np.all(np.abs(original["big"]) > 30)
    np.testing.assert_array_equal(obs["small"], original["small"])  # not in norm_obs_keys: unchanged
    np.testing.assert_array_equal(obs["mode"], original["mode"])
    np.testing.assert_allclose(env.unnormalize_obs(obs)["big"], original["big"], rtol=1e-4)
    every_box = VecNormalize(DummyVecEnv([VectorsEnv]))
    assert every_box.norm_obs_keys == ["big", "small"]
    with pytest.raises(ValueError, match=r"names 'mode', which is not a Box entry.*\['big', 'small'\]"):
        VecNormalize(DummyVecEnv([VectorsEnv]), norm_obs_keys=["mode"])
    # a model trains on the normalized dicts and stores the original observations in its replay buffer
    model = DQN("MultiInputPolicy", VecNormalize(DummyVecEnv([VectorsEnv])), learning_starts=10, seed=0)
    model.learn(50)
    stored = np.asarray([transition[0] for transition in model.replay_buffer.storage])
    assert stored.shape[1] == 4 and np.all(np.abs(stored[:, :2]) > 30)
    assert isinstance(model.get_vec_normalize_env(), VecNormalize)


def test_vec_frame_stack_stacks_each_box_entry():
    from stable_baselines.common.vec_env import VecFrameStack

    class CountingEnv(gym.Env):
        def __init__(self):
            self.observation_space = spaces.Dict({"count": spaces.Box(0, 100, (1,), np.float32),
                                                  "mode": spaces.Discrete(2)})
            self.action_space = spaces.Discrete(2)
            self.count = 0

        def reset(self, seed=None, options=None):
            self.count = 0
            return {"count": np.array([0.0], np.float32), "mode": 1}, {}

        def step(self, action):
            self.count += 1
            return ({"count": np.array([self.count], np.float32), "mode": 0}, 0.0, self.count == 4, False, {})

    env = VecFrameStack(DummyVecEnv([CountingEnv]), n_stack=3)
    assert env.observation_space["count"].shape == (3,) and env.observation_space["mode"] == spaces.Discrete(2)
    obs = env.reset()
    np.testing.assert_array_equal(obs["count"], [[0, 0, 0]])
    for _ in range(3):
        obs, _, dones, infos = env.step(np.zeros(1, dtype=np.int64))
    np.testing.assert_array_equal(obs["count"], [[1, 2, 3]])
    np.testing.assert_array_equal(obs["mode"], [0])
    obs, _, dones, infos = env.step(np.zeros(1, dtype=np.int64))
    assert dones[0]
    np.testing.assert_array_equal(infos[0]["terminal_observation"]["count"], [2, 3, 4])
    np.testing.assert_array_equal(obs["count"], [[0, 0, 0]])
    model = PPO2("MultiInputPolicy", env, n_steps=4, nminibatches=1, seed=0)
    model.learn(8)
    assert model.predict({"count": np.array([1, 2, 3], np.float32), "mode": 0})[0] in (0, 1)


def test_replay_buffer_save_load_with_dict_observations(tmp_path):
    model = SAC("MultiInputPolicy", ShiftedTargetEnv(), learning_starts=10, buffer_size=100, seed=0)
    model.learn(30)
    model.save_replay_buffer(str(tmp_path / "buffer"))
    other = SAC("MultiInputPolicy", ShiftedTargetEnv(), learning_starts=10, buffer_size=100, seed=1)
    other.load_replay_buffer(str(tmp_path / "buffer"))
    assert len(other.replay_buffer) == len(model.replay_buffer) == 30
    np.testing.assert_array_equal(other.replay_buffer.storage[5][0], model.replay_buffer.storage[5][0])
