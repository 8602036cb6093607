"""VecMonitor, VecExtractDictObs and VecTransposeImage: the successor library's VecEnv wrappers."""
import json
import warnings

import gymnasium
import numpy as np
import pytest
from gymnasium import spaces

from stable_baselines.bench import Monitor, load_results
from stable_baselines.common.preprocessing import is_image_space, is_image_space_channels_first
from stable_baselines.common.vec_env import (DummyVecEnv, SubprocVecEnv, VecExtractDictObs, VecMonitor,
                                             VecNormalize, VecTransposeImage)
from stable_baselines.common.vec_env.vec_monitor import is_monitor_wrapped

IMAGE = spaces.Box(low=0, high=255, shape=(8, 6, 3), dtype=np.uint8)
VECTOR = spaces.Box(low=-10, high=10, shape=(2,), dtype=np.float32)


class PatternEnv(gymnasium.Env):
    """
    Episodes of ``ep_length`` steps; step ``t`` of an episode gives reward ``reward_unit * t`` and an observation
    filled with ``t + offset`` (for a Dict space: every entry). Info carries ``{'level': offset}``.
    """

    def __init__(self, observation_space, ep_length=3, offset=0, reward_unit=0.25):
        self.observation_space = observation_space
        self.action_space = spaces.Discrete(2)
        self.ep_length, self.offset, self.reward_unit = ep_length, offset, reward_unit
        self.t = 0

    def _observation(self):
        def fill(space):
            return np.full(space.shape, self.t + self.offset, dtype=space.dtype)
        if isinstance(self.observation_space, spaces.Dict):
            return {key: fill(space) for key, space in self.observation_space.spaces.items()}
        return fill(self.observation_space)

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        self.t = 0
        return self._observation(), {}

    def step(self, action):
        self.t += 1
        return self._observation(), self.reward_unit * self.t, self.t >= self.ep_length, False, {"level": self.offset}


def _pattern_venv(space, lengths, monitor=False, reward_unit=0.25):
    def make(index):
        def factory():
            env = PatternEnv(space, ep_length=lengths[index], offset=10 * index, reward_unit=reward_unit)
            return Monitor(env, None) if monitor else env
        return factory
    return DummyVecEnv([make(index) for index in range(len(lengths))])


def _play(venv, n_steps):
    """Step with zero actions; return the episode records of the infos as (env index, record) in order."""
    records = []
    venv.reset()
    for _ in range(n_steps):
        _, _, dones, infos = venv.step(np.zeros(venv.num_envs, dtype=np.int64))
        for index, (done, info) in enumerate(zip(dones, infos)):
            if done:
                records.append((index, info["episode"]))
    return records


# ---------------------------------------------------------------------------------------------- VecMonitor
def test_vec_monitor_matches_monitor():
    lengths = [2, 3, 5]
    with_monitor = _play(_pattern_venv(VECTOR, lengths, monitor=True), 12)
    with_vec_monitor = _play(VecMonitor(_pattern_venv(VECTOR, lengths)), 12)
    assert [(index, record["r"], record["l"]) for index, record in with_vec_monitor] == \
        [(index, record["r"], record["l"]) for index, record in with_monitor]
    # env 0: 6 episodes of 2 steps, return 0.25 + 0.5; env 1: 4 of 3 steps; env 2: 2 of 5 steps
    assert [index for index, _ in with_vec_monitor].count(0) == 6
    assert {record["r"] for index, record in with_vec_monitor if index == 1} == {1.5}
    assert {record["l"] for index, record in with_vec_monitor if index == 2} == {5}
    assert all(isinstance(record["r"], float) and isinstance(record["l"], int) for _, record in with_vec_monitor)


def test_vec_monitor_pendulum_like_monitor():
    """Non-dyadic rewards: equal to the Monitor's up to the float32 rewards of the VecEnv."""
    def make(monitor):
        def factory():
            env = gymnasium.make("Pendulum-v1", max_episode_steps=20)
            return Monitor(env, None) if monitor else env
        return factory
    reference, watched = DummyVecEnv([make(True)] * 2), VecMonitor(DummyVecEnv([make(False)] * 2))
    reference.seed(3)
    watched.seed(3)
    reference.reset()
    watched.reset()
    actions = np.random.RandomState(0).uniform(-2, 2, size=(45, 2, 1)).astype(np.float32)
    pairs = []
    for action in actions:
        _, _, dones, ref_infos = reference.step(action)
        _, _, _, infos = watched.step(action)
        pairs += [(ref_infos[i]["episode"], infos[i]["episode"]) for i in range(2) if dones[i]]
    assert len(pairs) == 4
    for expected, given in pairs:
        assert given["l"] == expected["l"] == 20
        assert given["r"] == pytest.approx(expected["r"], abs=1e-4)


def test_vec_monitor_csv_read_by_load_results(tmp_path):
    venv = VecMonitor(_pattern_venv(VECTOR, [2, 4]), filename=str(tmp_path / "run"), info_keywords=("level",))
    records = _play(venv, 8)
    venv.close()
    path = tmp_path / "run.monitor.csv"
    with open(str(path)) as handle:
        header = json.loads(handle.readline()[1:])
        assert handle.readline().strip() == "r,l,t,level"
    assert set(header) == {"t_start", "env_id"}
    table = load_results(str(tmp_path))
    assert list(table["l"]) == [record["l"] for _, record in records] == [2, 2, 4, 2, 2, 4]
    assert list(table["r"]) == [record["r"] for _, record in records]
    assert list(table["level"]) == [0, 0, 10, 0, 0, 10]
    assert [record["level"] for _, record in records] == [0, 0, 10, 0, 0, 10]


def test_vec_monitor_no_file_by_default(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    venv = VecMonitor(_pattern_venv(VECTOR, [2]))
    _play(venv, 4)
    venv.close()
    assert venv.results_writer is None
    assert list(tmp_path.iterdir()) == []


def test_vec_monitor_reset_restarts_counts():
    venv = VecMonitor(_pattern_venv(VECTOR, [3]))
    venv.reset()
    venv.step(np.zeros(1, dtype=np.int64))
    venv.reset()
    records = _play(venv, 3)
    assert [record["l"] for _, record in records] == [3]
    assert venv.episode_count == 1


def test_vec_monitor_keeps_other_infos_and_does_not_touch_inner_ones():
    inner = _pattern_venv(VECTOR, [1])
    venv = VecMonitor(inner)
    venv.reset()
    _, rewards, dones, infos = venv.step(np.zeros(1, dtype=np.int64))
    assert dones[0] and rewards[0] == 0.25
    assert infos[0]["level"] == 0 and infos[0]["episode"]["l"] == 1
    assert "terminal_observation" in infos[0]


def test_vec_monitor_missing_info_keyword():
    venv = VecMonitor(_pattern_venv(VECTOR, [1]), info_keywords=("score",))
    venv.reset()
    with pytest.raises(KeyError, match="expected the key 'score'.*got keys"):
        venv.step(np.zeros(1, dtype=np.int64))


def test_vec_monitor_warns_over_monitor():
    with pytest.warns(UserWarning, match="already wrapped in a Monitor"):
        VecMonitor(_pattern_venv(VECTOR, [2], monitor=True))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        VecMonitor(_pattern_venv(VECTOR, [2]))


def test_is_monitor_wrapped():
    assert is_monitor_wrapped(Monitor(PatternEnv(VECTOR), None))
    assert not is_monitor_wrapped(PatternEnv(VECTOR))
    assert is_monitor_wrapped(_pattern_venv(VECTOR, [2], monitor=True))
    assert not is_monitor_wrapped(_pattern_venv(VECTOR, [2]))
    assert is_monitor_wrapped(VecNormalize(VecMonitor(_pattern_venv(VECTOR, [2]))))
    assert is_monitor_wrapped(VecNormalize(_pattern_venv(VECTOR, [2], monitor=True)))


def test_is_monitor_wrapped_subprocess():
    venv = SubprocVecEnv([lambda: Monitor(gymnasium.make("CartPole-v1"), None)] * 2)
    plain = SubprocVecEnv([lambda: gymnasium.make("CartPole-v1")])
    try:
        assert is_monitor_wrapped(venv)
        assert not is_monitor_wrapped(plain)
        with pytest.warns(UserWarning, match="already wrapped in a Monitor"):
            VecMonitor(venv)
        # the failed lookup left the worker usable
        assert plain.reset().shape == (1, 4)
    finally:
        venv.close()
        plain.close()


# ---------------------------------------------------------------------------------------------- VecExtractDictObs
DICT = spaces.Dict([("vector", VECTOR), ("count", spaces.Box(low=0, high=100, shape=(), dtype=np.int64))])


def test_vec_extract_dict_obs():
    venv = VecExtractDictObs(_pattern_venv(DICT, [2, 3]), key="vector")
    assert venv.observation_space == VECTOR
    obs = venv.reset()
    assert obs.shape == (2, 2) and obs.dtype == np.float32
    assert np.array_equal(obs, [[0, 0], [10, 10]])
    obs, _, dones, infos = venv.step(np.zeros(2, dtype=np.int64))
    obs, _, dones, infos = venv.step(np.zeros(2, dtype=np.int64))
    assert list(dones) == [True, False]
    # env 0 was reset: its last observation is the terminal one, reduced to the key
    assert np.array_equal(infos[0]["terminal_observation"], [2, 2])
    assert infos[0]["terminal_observation"].shape == (2,)
    assert np.array_equal(obs, [[0, 0], [12, 12]])
    assert "terminal_observation" not in infos[1]


def test_vec_extract_dict_obs_bad_input():
    with pytest.raises(TypeError, match="expected a VecEnv with a Dict observation space, got Box"):
        VecExtractDictObs(_pattern_venv(VECTOR, [2]), key="vector")
    with pytest.raises(KeyError, match=r"'image' is not in the Dict observation space; expected one of "
                                       r"\['vector', 'count'\]"):
        VecExtractDictObs(_pattern_venv(DICT, [2]), key="image")


# ---------------------------------------------------------------------------------------------- VecTransposeImage
def test_is_image_space():
    assert is_image_space(IMAGE)
    assert is_image_space(IMAGE, check_channels=True)
    assert not is_image_space(spaces.Box(low=0, high=255, shape=(8, 6, 5), dtype=np.uint8), check_channels=True)
    assert not is_image_space(spaces.Box(low=0, high=1, shape=(8, 6, 3), dtype=np.float32))
    assert not is_image_space(spaces.Box(low=0, high=100, shape=(8, 6, 3), dtype=np.uint8))
    assert not is_image_space(spaces.Box(low=0, high=255, shape=(8, 6), dtype=np.uint8))
    assert not is_image_space(spaces.Discrete(3))
    assert not is_image_space_channels_first(IMAGE)
    assert is_image_space_channels_first(spaces.Box(low=0, high=255, shape=(3, 8, 6), dtype=np.uint8))


def test_vec_transpose_image():
    venv = VecTransposeImage(_pattern_venv(IMAGE, [2, 3]))
    assert venv.observation_space.shape == (3, 8, 6) and venv.observation_space.dtype == np.uint8
    assert np.all(venv.observation_space.low == 0) and np.all(venv.observation_space.high == 255)
    obs = venv.reset()
    assert obs.shape == (2, 3, 8, 6) and obs.dtype == np.uint8
    assert venv.observation_space.contains(obs[0])
    venv.step(np.zeros(2, dtype=np.int64))
    obs, _, dones, infos = venv.step(np.zeros(2, dtype=np.int64))
    assert list(dones) == [True, False]
    assert infos[0]["terminal_observation"].shape == (3, 8, 6)
    assert np.all(infos[0]["terminal_observation"] == 2)
    assert np.all(obs[1] == 12)


def test_transpose_image_values():
    image = np.arange(8 * 6 * 3, dtype=np.uint8).reshape(8, 6, 3)
    transposed = VecTransposeImage.transpose_image(image)
    assert transposed.shape == (3, 8, 6)
    assert transposed[2, 7, 5] == image[7, 5, 2] and transposed[1, 3, 0] == image[3, 0, 1]
    batch = VecTransposeImage.transpose_image(np.stack([image, image + 1]))
    assert batch.shape == (2, 3, 8, 6) and np.array_equal(batch[1], transposed + 1)
    assert VecTransposeImage.transpose_space(IMAGE).shape == (3, 8, 6)


def test_vec_transpose_image_dict():
    space = spaces.Dict([("image", IMAGE), ("vector", VECTOR)])
    venv = VecTransposeImage(_pattern_venv(space, [1]))
    assert venv.image_space_keys == ["image"]
    assert list(venv.observation_space.spaces) == ["image", "vector"]
    assert venv.observation_space["image"].shape == (3, 8, 6) and venv.observation_space["vector"] == VECTOR
    obs = venv.reset()
    assert obs["image"].shape == (1, 3, 8, 6) and obs["vector"].shape == (1, 2)
    _, _, dones, infos = venv.step(np.zeros(1, dtype=np.int64))
    terminal = infos[0]["terminal_observation"]
    assert dones[0] and terminal["image"].shape == (3, 8, 6) and terminal["vector"].shape == (2,)


def test_vec_transpose_image_skip():
    venv = VecTransposeImage(_pattern_venv(IMAGE, [1]), skip=True)
    assert venv.observation_space.shape == (8, 6, 3)
    assert venv.reset().shape == (1, 8, 6, 3)
    _, _, _, infos = venv.step(np.zeros(1, dtype=np.int64))
    assert infos[0]["terminal_observation"].shape == (8, 6, 3)


def test_vec_transpose_image_bad_input():
    with pytest.raises(ValueError, match="expected an image observation space.*or a Dict observation space, "
                                         "got Box"):
        VecTransposeImage(_pattern_venv(VECTOR, [1]))
    channel_first = spaces.Box(low=0, high=255, shape=(3, 8, 6), dtype=np.uint8)
    with pytest.raises(ValueError, match=r"must have its channels last \(H, W, C\); its shape \(3, 8, 6\)"):
        VecTransposeImage(_pattern_venv(channel_first, [1]))
    with pytest.raises(ValueError, match="observation space 'image' must have its channels last"):
        VecTransposeImage(_pattern_venv(spaces.Dict([("image", channel_first)]), [1]))
    with pytest.raises(ValueError, match=r"must be an image .*got Box\(0.0, 1.0"):
        VecTransposeImage.transpose_space(spaces.Box(low=0, high=1, shape=(8, 6, 3), dtype=np.float32))
    with pytest.raises(ValueError, match=r"got an array of shape \(8, 6\)"):
        VecTransposeImage.transpose_image(np.zeros((8, 6)))
