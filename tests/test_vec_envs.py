"""Tests of the vectorized environments: DummyVecEnv, SubprocVecEnv, VecFrameStack, VecCheckNan, VecVideoRecorder."""
import functools
import os
import signal
import time
import warnings
from collections import OrderedDict

import gymnasium
import numpy as np
import pytest

from stable_baselines.common.tile_images import tile_images
from stable_baselines.common.vec_env import (DummyVecEnv, SubprocVecEnv, VecCheckNan, VecEnv, VecFrameStack,
                                             VecNormalize, VecVideoRecorder, EnvWorkerError, CloudpickleWrapper)
from stable_baselines.common.vec_env import vec_video_recorder
from stable_baselines.common.vec_env.util import obs_space_info, dict_to_obs, copy_obs_dict

from vec_env_helpers import (LegacyCounterEnv, StepCounterEnv, DictObsEnv, TupleObsEnv, CrashingEnv, DyingEnv,
                             NanEnv, make_legacy_env)


@pytest.fixture
def hard_timeout():
    """Fail (instead of hanging forever) if the test takes more than 60 s."""
    def _handler(signum, frame):
        raise TimeoutError("test timed out: a SubprocVecEnv call hung")
    previous = signal.signal(signal.SIGALRM, _handler)
    signal.alarm(60)
    yield
    signal.alarm(0)
    signal.signal(signal.SIGALRM, previous)


def _cartpole(max_steps=5):
    return lambda: gymnasium.make("CartPole-v1", max_episode_steps=max_steps)


VEC_ENV_CLASSES = [DummyVecEnv, lambda fns: SubprocVecEnv(fns, start_method="fork")]
VEC_IDS = ["dummy", "subproc-fork"]


# ----------------------------------------------------------------------------------------------
# auto-reset, terminal observation, truncation
# ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("vec_cls", VEC_ENV_CLASSES, ids=VEC_IDS)
def test_cartpole_truncation_auto_reset(vec_cls, hard_timeout):
    venv = vec_cls([_cartpole(5), _cartpole(5)])
    try:
        assert venv.num_envs == 2
        obs = venv.reset()
        assert obs.shape == (2, 4) and obs.dtype == np.float32
        for step in range(5):
            # alternate the push direction so the pole cannot fall in 5 steps
            prev = obs
            obs, rewards, dones, infos = venv.step(np.array([step % 2, (step + 1) % 2]))
            # as the original: DummyVecEnv keeps float32 rewards, SubprocVecEnv stacks the envs' own (float64)
            expected_dtype = np.float32 if isinstance(venv, DummyVecEnv) else np.float64
            assert rewards.dtype == expected_dtype and dones.dtype == bool
            np.testing.assert_array_equal(rewards, [1.0, 1.0])
        assert dones.tolist() == [True, True]
        for i in range(2):
            assert infos[i]["TimeLimit.truncated"] is True
            terminal = infos[i]["terminal_observation"]
            assert terminal.shape == (4,)
            # the returned observation is the first one of the new episode, not the terminal one
            assert not np.allclose(terminal, obs[i])
            assert np.all(np.abs(obs[i]) <= 0.05)  # CartPole resets in [-0.05, 0.05]
            assert not np.allclose(terminal, prev[i])
        obs, _, dones, infos = venv.step(np.array([0, 1]))
        assert dones.tolist() == [False, False] and infos[0] == {}
    finally:
        venv.close()


@pytest.mark.parametrize("vec_cls", VEC_ENV_CLASSES, ids=VEC_IDS)
def test_termination_is_not_truncation(vec_cls, hard_timeout):
    venv = vec_cls([lambda: StepCounterEnv(max_steps=10, terminate_at=2), lambda: StepCounterEnv(max_steps=2)])
    venv.reset()
    venv.step([0, 0])
    obs, rewards, dones, infos = venv.step([0, 0])
    assert dones.tolist() == [True, True]
    np.testing.assert_array_equal(rewards, [2.0, 2.0])
    assert "TimeLimit.truncated" not in infos[0]
    assert infos[1]["TimeLimit.truncated"] is True
    for i in range(2):
        np.testing.assert_array_equal(infos[i]["terminal_observation"], [2.0])
        assert infos[i]["t"] == 2
    np.testing.assert_array_equal(obs, [[0.0], [0.0]])
    venv.reset()
    assert venv.reset_infos[0] == {"reset": True}
    venv.close()


@pytest.mark.parametrize("vec_cls", VEC_ENV_CLASSES, ids=VEC_IDS)
def test_legacy_env(vec_cls, hard_timeout):
    venv = vec_cls([make_legacy_env, make_legacy_env])
    try:
        assert isinstance(venv.observation_space, gymnasium.spaces.Box)
        obs = venv.reset()
        np.testing.assert_array_equal(obs, [[0, 0], [0, 0]])
        obs, rewards, dones, infos = venv.step(np.array([0, 1]))
        # env 1 terminated (action 1): no truncation flag, auto-reset
        assert dones.tolist() == [False, True]
        np.testing.assert_array_equal(rewards, [1.0, 2.0])
        np.testing.assert_array_equal(obs, [[1, 0], [0, 0]])
        np.testing.assert_array_equal(infos[1]["terminal_observation"], [1, 0])
        assert "TimeLimit.truncated" not in infos[1]
        venv.step(np.array([0, 0]))
        obs, _, dones, infos = venv.step(np.array([0, 0]))
        assert dones.tolist() == [True, False]
        assert infos[0]["TimeLimit.truncated"] is True
        np.testing.assert_array_equal(infos[0]["terminal_observation"], [3, 0])
        # legacy seed() is called at once and its return value reported
        assert venv.seed(10) == [[10], [11]]
        assert venv.get_attr("seeded_with") == [[10], [11]]
        np.testing.assert_array_equal(venv.reset(), [[0, 10], [0, 11]])
        # attributes and methods of the legacy env are reachable through the adapter
        assert venv.get_attr("custom_value") == [7, 7]
        venv.set_attr("custom_value", 3, indices=1)
        assert venv.get_attr("custom_value") == [7, 3]
        assert venv.env_method("add", 5, y=1) == [6, 6]
        assert venv.env_method("add", 1, indices=[1]) == [1]
        images = venv.get_images()
        assert len(images) == 2 and images[0].shape == (4, 6, 3)
    finally:
        venv.close()


# ----------------------------------------------------------------------------------------------
# seeding
# ----------------------------------------------------------------------------------------------
def test_seeding_reproducible():
    def first_obs(vec_cls, seed):
        venv = vec_cls([_cartpole(), _cartpole()])
        seeds = venv.seed(seed)
        obs = venv.reset()
        venv.close()
        return seeds, obs

    seeds, obs_a = first_obs(DummyVecEnv, 42)
    assert seeds == [42, 43]
    _, obs_b = first_obs(DummyVecEnv, 42)
    _, obs_c = first_obs(DummyVecEnv, 7)
    np.testing.assert_array_equal(obs_a, obs_b)
    assert not np.allclose(obs_a[0], obs_a[1])  # each env gets its own seed
    assert not np.allclose(obs_a, obs_c)
    _, obs_sub = first_obs(lambda fns: SubprocVecEnv(fns, start_method="fork"), 42)
    np.testing.assert_array_equal(obs_a, obs_sub)
    # same as seeding a single env with seed + index
    env = gymnasium.make("CartPole-v1")
    np.testing.assert_array_equal(env.reset(seed=43)[0], obs_a[1])


def test_seed_is_consumed_by_reset_and_seeds_action_space():
    venv = DummyVecEnv([_cartpole()])
    venv.seed(3)
    first = venv.reset()
    second = venv.reset()
    assert not np.allclose(first, second)  # the seed is used once
    venv.seed(3)
    samples_a = [venv.envs[0].action_space.sample() for _ in range(10)]
    np.testing.assert_array_equal(venv.reset(), first)
    venv.seed(3)
    samples_b = [venv.envs[0].action_space.sample() for _ in range(10)]
    assert samples_a == samples_b


# ----------------------------------------------------------------------------------------------
# structured observation spaces
# ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("vec_cls", VEC_ENV_CLASSES, ids=VEC_IDS)
def test_dict_and_tuple_observations(vec_cls, hard_timeout):
    venv = vec_cls([DictObsEnv, DictObsEnv, DictObsEnv])
    try:
        venv.seed(0)
        obs = venv.reset()
        assert isinstance(obs, OrderedDict) and set(obs.keys()) == {"pos", "flag"}
        assert obs["pos"].shape == (3, 2) and obs["pos"].dtype == np.float32
        assert obs["flag"].shape == (3,) and obs["flag"].dtype == np.int64
        venv.step([0, 0, 0])
        obs, _, dones, infos = venv.step([0, 0, 0])
        assert dones.all()
        assert set(infos[0]["terminal_observation"].keys()) == {"pos", "flag"}
        assert infos[0]["terminal_observation"]["flag"] == 2
        np.testing.assert_array_equal(obs["flag"], [0, 0, 0])
    finally:
        venv.close()
    venv = vec_cls([TupleObsEnv, TupleObsEnv])
    try:
        obs = venv.reset()
        assert isinstance(obs, tuple) and len(obs) == 3
        assert obs[0].shape == (2, 3) and obs[1].tolist() == [1, 1]
        obs, _, _, _ = venv.step([0, 1])
        np.testing.assert_array_equal(obs[0], np.ones((2, 3)))
        assert obs[1].tolist() == [2, 2] and obs[2].tolist() == [1, 1]
    finally:
        venv.close()


def test_util_functions():
    space = gymnasium.spaces.Dict({"a": gymnasium.spaces.Box(0, 1, (2,)), "b": gymnasium.spaces.Discrete(3)})
    keys, shapes, dtypes = obs_space_info(space)
    assert keys == ["a", "b"] and shapes == {"a": (2,), "b": ()}
    assert dtypes["a"] == np.float32 and dtypes["b"] == np.int64
    keys, shapes, _ = obs_space_info(gymnasium.spaces.Box(0, 1, (4, 5)))
    assert keys == [None] and shapes == {None: (4, 5)}
    buf = OrderedDict([(None, np.zeros(3))])
    copied = copy_obs_dict(buf)
    copied[None][0] = 1
    assert buf[None][0] == 0
    assert dict_to_obs(gymnasium.spaces.Box(0, 1, (3,)), buf) is buf[None]


# ----------------------------------------------------------------------------------------------
# SubprocVecEnv specifics: start methods and crashes
# ----------------------------------------------------------------------------------------------
def test_subproc_spawn(hard_timeout):
    venv = SubprocVecEnv([make_legacy_env, lambda: LegacyCounterEnv(ep_length=5)], start_method="spawn")
    try:
        assert venv.start_method == "spawn"
        assert venv.num_envs == 2
        assert venv.get_attr("ep_length") == [3, 5]
        np.testing.assert_array_equal(venv.reset(), [[0, 0], [0, 0]])
        obs, rewards, dones, _ = venv.step([0, 1])
        np.testing.assert_array_equal(obs, [[1, 0], [0, 0]])
        assert dones.tolist() == [False, True]
    finally:
        venv.close()
    assert all(not process.is_alive() for process in venv.processes)


def test_subproc_spaces_must_match(hard_timeout):
    with pytest.raises(ValueError, match="same spaces"):
        SubprocVecEnv([make_legacy_env, _cartpole()], start_method="fork")


def _env_ignoring_sigterm(folder):
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    with open(os.path.join(folder, "worker{}".format(os.getpid())), "w"):
        pass
    return make_legacy_env()


def test_workers_that_outlive_sigterm_are_killed_after_the_grace_period(hard_timeout, tmp_path):
    """Two workers ignoring SIGTERM: the refused VecEnv gives them 5 s in all to end, then kills them."""
    started = time.monotonic()
    with pytest.raises(ValueError, match="same spaces"):
        SubprocVecEnv([functools.partial(_env_ignoring_sigterm, str(tmp_path))] * 2 + [_cartpole()],
                      start_method="fork")
    elapsed = time.monotonic() - started
    assert 4.5 <= elapsed < 9.0, elapsed
    pids = [int(name[len("worker"):]) for name in os.listdir(str(tmp_path))]
    assert len(pids) == 2
    for pid in pids:
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)


def test_subproc_default_start_method(monkeypatch):
    import multiprocessing
    from stable_baselines.common.vec_env import subproc_vec_env
    expected = "forkserver" if "forkserver" in multiprocessing.get_all_start_methods() else "spawn"
    requested = []

    class Stop(Exception):
        pass

    def fake_get_context(method):
        requested.append(method)
        raise Stop()

    monkeypatch.setattr(subproc_vec_env.multiprocessing, "get_context", fake_get_context)
    with pytest.raises(Stop):
        SubprocVecEnv([make_legacy_env])
    assert requested == [expected]
    monkeypatch.undo()
    with pytest.raises(ValueError, match="start_method must be one of"):
        SubprocVecEnv([make_legacy_env], start_method="teleport")


def test_subproc_worker_exception_is_reported(hard_timeout):
    venv = SubprocVecEnv([lambda: StepCounterEnv(max_steps=100), lambda: CrashingEnv(crash_at=2, max_steps=100)],
                         start_method="fork")
    try:
        venv.reset()
        venv.step([0, 0])
        with pytest.raises(EnvWorkerError) as excinfo:
            venv.step([0, 0])
        message = str(excinfo.value)
        assert "Environment 1" in message and "step" in message and "boom at step 2" in message
        # the other worker's pipe stayed in sync: the vec env is still usable after a reset
        obs = venv.reset()
        np.testing.assert_array_equal(obs, [[0.0], [0.0]])
        with pytest.raises(EnvWorkerError, match="get_attr"):
            venv.get_attr("does_not_exist")
        assert venv.get_attr("max_steps") == [100, 100]
    finally:
        venv.close()


def test_subproc_worker_death_is_reported(hard_timeout):
    venv = SubprocVecEnv([lambda: StepCounterEnv(), lambda: DyingEnv()], start_method="fork")
    venv.reset()
    with pytest.raises(EnvWorkerError) as excinfo:
        venv.step([0, 0])
    message = str(excinfo.value)
    assert "environment 1" in message and "died" in message and "exit code 3" in message
    with pytest.raises(EnvWorkerError, match="no longer be used"):
        venv.reset()
    venv.close()
    assert all(not process.is_alive() for process in venv.processes)


def test_subproc_env_creation_error(hard_timeout):
    def bad_env():
        raise ValueError("cannot build this env")
    with pytest.raises(EnvWorkerError, match="Environment 1 .*creating the environment(.|\n)*cannot build this env"):
        SubprocVecEnv([make_legacy_env, bad_env], start_method="fork")


def test_cloudpickle_wrapper_roundtrip():
    import pickle
    wrapper = CloudpickleWrapper(lambda x: x + 1)
    assert pickle.loads(pickle.dumps(wrapper)).var(1) == 2


# ----------------------------------------------------------------------------------------------
# bad input
# ----------------------------------------------------------------------------------------------
def test_bad_input():
    with pytest.raises(TypeError, match="list of functions"):
        DummyVecEnv(gymnasium.make("CartPole-v1"))
    with pytest.raises(TypeError, match="element 0"):
        DummyVecEnv([gymnasium.make("CartPole-v1")])
    venv = DummyVecEnv([_cartpole(), _cartpole()])
    venv.reset()
    with pytest.raises(ValueError, match="one action per environment"):
        venv.step([0])
    with pytest.raises(IndexError, match="out of range"):
        venv.get_attr("spec", indices=[5])
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        venv.get_attr("nope")


@pytest.mark.parametrize("vec_cls", VEC_ENV_CLASSES, ids=VEC_IDS)
def test_more_actions_than_envs_use_the_first_ones(vec_cls, hard_timeout):
    """
    As with the original library's VecEnvs, extra actions are ignored (its own VecCheckNan test steps one env with
    two actions), with a warning; fewer actions than envs stay an error naming both numbers.
    """
    venv = VecCheckNan(vec_cls([lambda: NanEnv(nan_at=None)]), raise_exception=True)
    try:
        venv.reset()
        with pytest.warns(UserWarning, match=r"step got 2 actions for 1 environment\(s\): the first 1 are used"):
            obs, rewards, dones, _ = venv.step(np.array([[0, 1], [0, 1]]))
        assert obs.shape == (1,) + venv.observation_space.shape and rewards.shape == dones.shape == (1,)
        with pytest.raises(ValueError, match=r"expected one action per environment \(1\), got 0 actions"):
            venv.venv.step(np.zeros((0, 1)))
    finally:
        venv.close()


# ----------------------------------------------------------------------------------------------
# wrappers
# ----------------------------------------------------------------------------------------------
def test_vec_frame_stack():
    venv = DummyVecEnv([lambda: StepCounterEnv(max_steps=3), lambda: StepCounterEnv(max_steps=10)])
    stacked = VecFrameStack(venv, n_stack=3)
    assert stacked.observation_space.shape == (3,)
    obs = stacked.reset()
    np.testing.assert_array_equal(obs, [[0, 0, 0], [0, 0, 0]])
    obs, _, _, _ = stacked.step([0, 0])
    np.testing.assert_array_equal(obs, [[0, 0, 1], [0, 0, 1]])
    obs, _, _, _ = stacked.step([0, 0])
    np.testing.assert_array_equal(obs, [[0, 1, 2], [0, 1, 2]])
    obs, _, dones, infos = stacked.step([0, 0])
    assert dones.tolist() == [True, False]
    # env 0: stack zeroed, then the reset observation; terminal observation stacked too
    np.testing.assert_array_equal(obs, [[0, 0, 0], [1, 2, 3]])
    np.testing.assert_array_equal(infos[0]["terminal_observation"], [1, 2, 3])
    obs2, _, _, _ = stacked.step([0, 0])
    np.testing.assert_array_equal(obs2, [[0, 0, 1], [2, 3, 4]])
    np.testing.assert_array_equal(obs, [[0, 0, 0], [1, 2, 3]])  # returned arrays are not reused
    # image-like observations stack on the channel axis
    img_venv = DummyVecEnv([lambda: gymnasium.make("CartPole-v1")])
    space = VecFrameStack(img_venv, 4).observation_space
    assert space.shape == (16,) and space.dtype == np.float32
    np.testing.assert_array_equal(space.high[:4], img_venv.observation_space.high)
    np.testing.assert_array_equal(space.high[-4:], img_venv.observation_space.high)
    images = DummyVecEnv([lambda: GoodImageEnv()] * 2)
    image_stack = VecFrameStack(images, 3)
    assert image_stack.observation_space.shape == (8, 8, 9) and image_stack.observation_space.dtype == np.uint8
    obs = image_stack.reset()
    assert obs.shape == (2, 8, 8, 9) and obs.dtype == np.uint8
    np.testing.assert_array_equal(obs[..., :6], 0)
    np.testing.assert_array_equal(obs[..., 6:], 7)
    with pytest.raises(ValueError, match="positive int"):
        VecFrameStack(img_venv, 0)


class GoodImageEnv(gymnasium.Env):
    observation_space = gymnasium.spaces.Box(0, 255, (8, 8, 3), dtype=np.uint8)
    action_space = gymnasium.spaces.Discrete(2)

    def reset(self, *, seed=None, options=None):
        return np.full((8, 8, 3), 7, dtype=np.uint8), {}

    def step(self, action):
        return np.full((8, 8, 3), 9, dtype=np.uint8), 0.0, False, False, {}


def test_getattr_through_wrappers_and_unwrapped():
    venv = DummyVecEnv([lambda: StepCounterEnv()])
    wrapped = VecNormalize(VecFrameStack(venv, n_stack=2))
    assert wrapped.n_stack == 2
    assert wrapped.unwrapped is venv
    assert wrapped.num_envs == 1
    assert wrapped.get_attr("max_steps") == [4]
    with pytest.raises(AttributeError):
        _ = wrapped.no_such_attribute


def test_vec_check_nan():
    venv = VecCheckNan(DummyVecEnv([lambda: StepCounterEnv(), lambda: NanEnv(nan_at=2)]), raise_exception=True)
    venv.reset()
    venv.step([0, 0])
    with pytest.raises(ValueError) as excinfo:
        venv.step([0, 1])
    message = str(excinfo.value)
    assert "found nan in observations (env index 1)" in message
    assert "Originated from the environment" in message and "action=[0, 1]" in message

    venv = VecCheckNan(DummyVecEnv([lambda: NanEnv(nan_at=None, inf_at=1)]), raise_exception=True)
    venv.reset()
    with pytest.raises(ValueError, match="found inf in rewards"):
        venv.step([0])
    venv = VecCheckNan(DummyVecEnv([lambda: NanEnv(nan_at=None, inf_at=1)]), raise_exception=True, check_inf=False)
    venv.reset()
    venv.step([0])

    # invalid actions come from the model
    venv = VecCheckNan(DummyVecEnv([lambda: gymnasium.make("Pendulum-v1")]), raise_exception=True)
    venv.reset()
    with pytest.raises(ValueError, match="found nan in actions(.|\n)*RL model"):
        venv.step(np.array([[np.nan]]))

    # default: warn once
    venv = VecCheckNan(DummyVecEnv([lambda: NanEnv(nan_at=1)]))
    venv.reset()
    with pytest.warns(UserWarning, match="found nan in observations"):
        venv.step([0])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        venv.step([np.nan])


def test_tile_images():
    images = np.stack([np.full((2, 3, 1), i, dtype=np.uint8) for i in range(1, 4)])
    tiled = tile_images(images)
    # 3 images -> 2 x 2 grid, last slot black
    assert tiled.shape == (4, 6, 1)
    np.testing.assert_array_equal(tiled[:2, :3, 0], 1)
    np.testing.assert_array_equal(tiled[:2, 3:, 0], 2)
    np.testing.assert_array_equal(tiled[2:, :3, 0], 3)
    np.testing.assert_array_equal(tiled[2:, 3:, 0], 0)
    with pytest.raises(ValueError, match="n_images, height, width, n_channels"):
        tile_images(np.zeros((2, 3)))


def test_render_and_images():
    venv = DummyVecEnv([lambda: StepCounterEnv(), lambda: StepCounterEnv()])
    venv.reset()
    venv.step([0, 0])
    images = venv.get_images()
    assert len(images) == 2 and images[0].shape == (4, 6, 3)
    big = venv.render(mode="rgb_array")
    assert big.shape == (8, 6, 3) and big.max() == 1
    single = DummyVecEnv([lambda: StepCounterEnv()])
    assert single.render(mode="rgb_array").shape == (4, 6, 3)
    no_render = DummyVecEnv([lambda: gymnasium.make("CartPole-v1")])
    with pytest.raises(ValueError, match="render_mode='rgb_array'"):
        no_render.get_images()


def test_vec_video_recorder(tmp_path, monkeypatch):
    venv = DummyVecEnv([lambda: StepCounterEnv(max_steps=100)])
    if not vec_video_recorder.importlib.util.find_spec("moviepy"):
        with pytest.raises(ImportError, match="pip install moviepy"):
            VecVideoRecorder(venv, str(tmp_path), record_video_trigger=lambda step: step == 0)
    written = []
    monkeypatch.setattr(vec_video_recorder, "_require_moviepy", lambda: None)
    monkeypatch.setattr(vec_video_recorder, "_write_video",
                        lambda frames, path, fps: written.append((len(frames), path, fps, frames[-1].max())))
    recorder = VecVideoRecorder(venv, str(tmp_path / "videos"), record_video_trigger=lambda step: step % 10 == 0,
                                video_length=3, name_prefix="agent")
    recorder.reset()
    for _ in range(12):
        recorder.step([0])
    recorder.close()
    assert (tmp_path / "videos").is_dir()
    names = [entry[1].split("/")[-1] for entry in written]
    assert names == ["agent-step-0-to-step-3.mp4", "agent-step-10-to-step-13.mp4"]
    assert written[0][0] == 4 and written[0][2] == 10.0 and written[0][3] == 3  # frames of steps 0..3
    assert written[1][0] == 3  # interrupted by close after steps 10, 11, 12


def test_vec_env_is_abstract():
    with pytest.raises(TypeError):
        VecEnv(1, gymnasium.spaces.Discrete(2), gymnasium.spaces.Discrete(2))


def test_subproc_unpicklable_result_is_reported(hard_timeout):
    venv = SubprocVecEnv([make_legacy_env], start_method="fork")
    try:
        with pytest.raises(EnvWorkerError, match="could not be sent to the main process"):
            venv.env_method("make_lock")
        assert venv.env_method("add", 1) == [1]
    finally:
        venv.close()


@pytest.mark.parametrize("vec_cls", VEC_ENV_CLASSES, ids=VEC_IDS)
def test_attributes_through_gymnasium_wrappers(vec_cls, hard_timeout):
    venv = vec_cls([_cartpole(), _cartpole()])
    try:
        # gymnasium.make wraps CartPoleEnv in TimeLimit, OrderEnforcing, PassiveEnvChecker
        assert venv.get_attr("gravity") == [9.8, 9.8]
        venv.set_attr("gravity", 1.0, indices=[1])
        assert venv.get_attr("gravity") == [9.8, 1.0]
        assert venv.env_method("get_wrapper_attr", "gravity") == [9.8, 1.0]  # the unwrapped env was changed
        assert [spec.max_episode_steps for spec in venv.get_attr("spec")] == [5, 5]
    finally:
        venv.close()
