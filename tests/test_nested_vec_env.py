"""
DummyVecEnv and SubprocVecEnv of nested observation spaces (a Dict holding a Dict and a Tuple): batches keep the
nesting, ``terminal_observation`` too; VecMonitor and VecCheckNan work on them, and models with MultiInputPolicy
train on such VecEnvs.
"""
import numpy as np
import pytest

from stable_baselines import A2C, DQN, PPO2, SAC
from stable_baselines.common.vec_env import DummyVecEnv, SubprocVecEnv, VecCheckNan, VecMonitor
from stable_baselines.common.vec_env.util import copy_obs_dict, dict_to_obs, obs_space_info
from nested_env_helpers import NestedCounterEnv, make_nested


def check_batch(obs, t, n_envs=2):
    assert list(obs) == ["count", "robot"] and list(obs["robot"]) == ["flags", "joints"]
    np.testing.assert_array_equal(obs["count"], np.full((n_envs, 1), t, np.float32))
    assert obs["count"].dtype == np.float32
    np.testing.assert_array_equal(obs["robot"]["joints"], [[t, 10 * index] for index in range(n_envs)])
    flags = obs["robot"]["flags"]
    assert isinstance(flags, tuple) and len(flags) == 2
    np.testing.assert_array_equal(flags[0], np.full(n_envs, t % 3))
    assert flags[0].dtype == np.int64
    np.testing.assert_array_equal(flags[1], [[index % 2, 1] for index in range(n_envs)])
    assert flags[1].dtype == np.int8


def test_buffer_layout_of_a_nested_space():
    space = NestedCounterEnv().observation_space
    keys, shapes, dtypes = obs_space_info(space)
    assert keys == [("count",), ("robot", "flags", 0), ("robot", "flags", 1), ("robot", "joints")]
    assert shapes[("robot", "flags", 1)] == (2,) and dtypes[("robot", "flags", 0)] == np.int64
    buffers = {key: np.zeros((1,) + shapes[key], dtypes[key]) for key in keys}
    rebuilt = dict_to_obs(space, copy_obs_dict(buffers))
    assert rebuilt["robot"]["flags"][1].shape == (1, 2)
    # spaces without nesting keep their buffer keys
    assert obs_space_info(space["robot"]["flags"])[0] == [0, 1]


@pytest.mark.parametrize("vec_env_class", [DummyVecEnv, SubprocVecEnv])
def test_nested_batches_and_terminal_observation(vec_env_class):
    env = vec_env_class([make_nested(0), make_nested(1)])
    try:
        check_batch(env.reset(), 0)
        for t in (1, 2):
            obs, rewards, dones, infos = env.step(np.array([1, 0]))
            check_batch(obs, t)
            np.testing.assert_array_equal(rewards, [1.0, 0.0])
            assert not dones.any()
        obs, _, dones, infos = env.step(np.array([0, 0]))
        assert dones.all()
        check_batch(obs, 0)  # reset
        terminal = infos[1]["terminal_observation"]
        np.testing.assert_array_equal(terminal["robot"]["joints"], [3, 10])
        assert terminal["robot"]["flags"][0] == 0 and infos[1]["TimeLimit.truncated"]
        if vec_env_class is SubprocVecEnv:
            assert env.env_method("tensorflow_imported") == [False, False]
    finally:
        env.close()


def test_wrong_nested_observation_names_the_entry():
    class Broken(NestedCounterEnv):
        def _obs(self):
            obs = super()._obs()
            del obs["robot"]["flags"]
            return obs

    with pytest.raises(ValueError, match=r"no entry 'flags' at robot"):
        DummyVecEnv([Broken]).reset()


def test_vec_monitor_and_vec_check_nan_on_nested_observations():
    env = VecMonitor(DummyVecEnv([make_nested(0), make_nested(1)]))
    env.reset()
    for _ in range(3):
        obs, _, _, infos = env.step(np.array([1, 1]))
    check_batch(obs, 0)
    assert infos[0]["episode"]["r"] == 3.0 and infos[0]["episode"]["l"] == 3
    checked = VecCheckNan(DummyVecEnv([lambda: NestedCounterEnv(0, nan_at=2)]), raise_exception=True)
    checked.reset()
    checked.step(np.array([0]))
    with pytest.raises(ValueError, match=r"found nan in observations\['robot'\]\['joints'\]"):
        checked.step(np.array([0]))


@pytest.mark.parametrize("algo,kwargs", [(PPO2, dict(n_steps=8, nminibatches=2)), (A2C, dict(n_steps=5)),
                                         (DQN, dict(learning_starts=10)), (SAC, dict(learning_starts=10))])
def test_models_take_a_user_vec_env_of_nested_observations(algo, kwargs):
    if algo is SAC:
        class ContinuousNested(NestedCounterEnv):
            def __init__(self):
                super().__init__()
                from gymnasium import spaces
                self.action_space = spaces.Box(-1, 1, (1,), np.float32)

            def step(self, action):
                return super().step(int(np.asarray(action).ravel()[0] > 0))

        env = DummyVecEnv([ContinuousNested])
    else:
        env = DummyVecEnv([make_nested(0)] if algo is DQN else [make_nested(0), make_nested(1)])
    model = algo("MultiInputPolicy", env, seed=0, n_cpu_tf_sess=1, **kwargs)
    model.learn(40)
    assert model.get_env() is env
    batch = env.reset()
    actions, _ = model.predict(batch, deterministic=True)
    single = {"count": batch["count"][0], "robot": {"joints": batch["robot"]["joints"][0],
                                                    "flags": (batch["robot"]["flags"][0][0],
                                                              batch["robot"]["flags"][1][0])}}
    np.testing.assert_allclose(model.predict(single, deterministic=True)[0], actions[0], rtol=1e-5)
