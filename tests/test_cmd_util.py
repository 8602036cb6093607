"""Environment factories and argument parsers of common/cmd_util, and the run_atari / run_mujoco scripts."""
import os

import gymnasium
import numpy as np
import pytest

from stable_baselines import logger
from stable_baselines.bench import Monitor
from stable_baselines.common import cmd_util
from stable_baselines.common.cmd_util import make_atari_env, make_mujoco_env, make_vec_env
from stable_baselines.common.vec_env import DummyVecEnv


def _monitor_of(env):
    while not isinstance(env, Monitor):
        env = env.env
    return env


def test_make_vec_env_seeds_each_env_differently_and_reproducibly():
    first = make_vec_env("CartPole-v1", n_envs=3, seed=7)
    second = make_vec_env("CartPole-v1", n_envs=3, seed=7)
    assert isinstance(first, DummyVecEnv) and first.num_envs == 3
    obs_first, obs_second = first.reset(), second.reset()
    np.testing.assert_array_equal(obs_first, obs_second)
    assert not np.allclose(obs_first[0], obs_first[1])
    # start_index shifts the ranks: env 0 of start_index=1 is env 1 of start_index=0
    shifted = make_vec_env("CartPole-v1", n_envs=2, seed=7, start_index=1)
    np.testing.assert_array_equal(shifted.reset()[0], obs_first[1])
    assert all(isinstance(_monitor_of(env), Monitor) for env in first.envs)


def test_make_vec_env_class_kwargs_wrapper_and_monitor_dir(tmp_path):
    class Wrapped(gymnasium.Wrapper):
        pass

    monitor_dir = str(tmp_path / "monitor")
    env = make_vec_env(gymnasium.envs.classic_control.PendulumEnv, n_envs=2, monitor_dir=monitor_dir,
                       wrapper_class=Wrapped, env_kwargs=dict(g=5.0))
    assert all(isinstance(sub_env, Wrapped) for sub_env in env.envs)
    assert env.envs[0].unwrapped.g == 5.0
    env.reset()
    for _ in range(200):
        env.step(np.zeros((2, 1)))
    env.close()
    assert sorted(os.listdir(monitor_dir)) == ["0.monitor.csv", "1.monitor.csv"]


def test_make_vec_env_no_file_without_monitor_dir(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    env = make_vec_env("CartPole-v1", n_envs=1)
    env.reset()
    env.close()
    assert os.listdir(tmp_path) == []


def test_make_vec_env_custom_vec_env_class():
    class CountingVecEnv(DummyVecEnv):
        def __init__(self, env_fns, label):
            super().__init__(env_fns)
            self.label = label

    env = make_vec_env("CartPole-v1", n_envs=2, seed=0, vec_env_cls=CountingVecEnv,
                       vec_env_kwargs=dict(label="custom"))
    assert isinstance(env, CountingVecEnv) and env.label == "custom"
    assert env.reset().shape == (2, 4)


def test_make_vec_env_bad_input():
    with pytest.raises(ValueError, match="n_envs"):
        make_vec_env("CartPole-v1", n_envs=0)
    with pytest.raises(TypeError, match="environment id"):
        make_vec_env(42)


def test_argument_parsers_have_the_manual_defaults():
    args = cmd_util.atari_arg_parser().parse_args([])
    assert (args.env, args.seed, args.num_timesteps) == ("BreakoutNoFrameskip-v4", 0, int(1e7))
    args = cmd_util.mujoco_arg_parser().parse_args([])
    assert (args.env, args.seed, args.num_timesteps, args.play) == ("Reacher-v2", 0, int(1e6), False)
    args = cmd_util.robotics_arg_parser().parse_args([])
    assert (args.env, args.seed, args.num_timesteps) == ("FetchReach-v0", 0, int(1e6))
    assert cmd_util.arg_parser().parse_args([]) is not None


def test_make_robotics_env_refuses_envs_without_goals():
    with pytest.raises(ValueError, match="goal-conditioned"):
        cmd_util.make_robotics_env("CartPole-v1", seed=0)


def test_make_atari_env_vectorizes_the_deepmind_game():
    pytest.importorskip("ale_py", reason="needs the atari extra (ale-py)")
    env = make_atari_env("PongNoFrameskip-v4", num_env=2, seed=0)
    try:
        obs = env.reset()
        assert obs.shape == (2, 84, 84, 1) and obs.dtype == np.uint8
        obs, rewards, dones, infos = env.step([0, 1])
        assert obs.shape == (2, 84, 84, 1) and rewards.shape == (2,) and len(infos) == 2
    finally:
        env.close()


def test_make_mujoco_env_maps_the_old_ids():
    pytest.importorskip("mujoco", reason="needs the mujoco extra")
    with pytest.warns(UserWarning, match="Reacher-v5"):
        env = make_mujoco_env("Reacher-v2", seed=0)
    assert isinstance(env, Monitor) and env.observation_space.shape == (10,)
    obs, _ = env.reset()
    assert obs.shape == (10,)


@pytest.fixture
def restore_logger():
    yield
    logger.reset()


@pytest.mark.slow
@pytest.mark.parametrize("module, argv", [
    ("stable_baselines.a2c.run_atari", ["--num-env", "2", "--policy", "lstm"]),
    ("stable_baselines.ppo2.run_atari", ["--num-env", "2"]),
    ("stable_baselines.deepq.experiments.run_atari", []),
])
def test_run_atari_scripts_complete(module, argv, restore_logger):  # pylint: disable=unused-argument,redefined-outer-name
    """Each script trains its budget on the game it is given, with the policy it is told, and returns its model."""
    pytest.importorskip("ale_py", reason="needs the atari extra (ale-py)")
    import importlib
    script = importlib.import_module(module)
    model = script.main(["--env", "PongNoFrameskip-v4", "--num-timesteps", "256"] + argv)
    assert model.num_timesteps >= 256
    assert model.observation_space.shape == (84, 84, 4)  # DeepMind's preprocessing, 4 frames stacked
    if "--policy" in argv:
        assert model.policy.__name__ == "CnnLstmPolicy"


@pytest.mark.slow
def test_run_mujoco_ppo2_completes(restore_logger):  # pylint: disable=unused-argument,redefined-outer-name
    pytest.importorskip("mujoco", reason="needs the mujoco extra")
    from stable_baselines.ppo2 import run_mujoco
    model, env = run_mujoco.train("Reacher-v2", num_timesteps=2048, seed=0)
    assert model.num_timesteps == 2048
    assert env.obs_rms.count > 2048  # VecNormalize saw every observation
