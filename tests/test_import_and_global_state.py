"""Importing the package: TF-1 behaviour (and its opt-out), MPI algorithms hidden without mpi4py, no side effects."""
import os
import subprocess
import sys
import textwrap

import pytest

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _run(code: str, env_update=None, cwd=None) -> str:
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3")
    env.pop("STABLE_BASELINES_TF2_BEHAVIOR", None)
    env.update(env_update or {})
    result = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True,
                            env=env, cwd=cwd or REPO_ROOT, timeout=600)
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout


def test_import_enables_tf1_behaviour_and_legacy_keras():
    out = _run("""
        import stable_baselines
        import tensorflow as tf
        import os
        print(tf.executing_eagerly(), os.environ["TF_USE_LEGACY_KERAS"], stable_baselines.__version__)
        # SB2-era user code: placeholders at top level, tf.layers in a session
        x = tf.compat.v1.placeholder(tf.float32, [None, 2])
        y = tf.compat.v1.layers.dense(x, 3, name="user_dense")
        with tf.compat.v1.Session() as sess:
            sess.run(tf.compat.v1.global_variables_initializer())
            print(sess.run(y, {x: [[1.0, 2.0]]}).shape)
    """)
    version = open(os.path.join(REPO_ROOT, "version.txt")).read().strip()
    assert out.split("\n")[0] == "False 1 {}".format(version)
    assert "(1, 3)" in out


def test_existing_eager_tensors_warn_instead_of_crashing():
    out = _run("""
        import warnings
        import tensorflow as tf
        t = tf.constant(2.0)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            import stable_baselines
        assert any("eager" in str(w.message) for w in caught), [str(w.message) for w in caught]
        print("value", (t + 1).numpy())
        from stable_baselines import A2C
        A2C("MlpPolicy", "CartPole-v1").learn(50)
    """)
    assert "value 3.0" in out


def test_import_without_mpi4py_hides_mpi_algorithms():
    out = _run("""
        import sys
        sys.modules["mpi4py"] = None  # makes `import mpi4py` fail as if it were not installed
        import stable_baselines
        assert "TRPO" not in stable_baselines.__all__ and "PPO1" not in stable_baselines.__all__
        assert "PPO2" in stable_baselines.__all__ and "A2C" in stable_baselines.__all__
        try:
            stable_baselines.TRPO
        except AttributeError as err:
            print("hidden:", err)
        from stable_baselines import PPO2
        print(PPO2.__name__)
        # HER and the expert datasets stay: only GAIL needs MPI
        from stable_baselines import HER
        from stable_baselines.her import GoalSelectionStrategy, HERGoalEnvWrapper, KEY_TO_GOAL_STRATEGY
        from stable_baselines.common.bit_flipping_env import BitFlippingEnv
        assert "HER" in stable_baselines.__all__
        print(HER.__name__, HERGoalEnvWrapper(BitFlippingEnv(3)).observation_space)
        from stable_baselines.gail import ExpertDataset, generate_expert_traj, DataLoader
        import stable_baselines.gail as gail
        assert "GAIL" not in gail.__all__, gail.__all__
        try:
            from stable_baselines.gail import GAIL
        except ImportError as error:
            assert "mpi4py" in str(error) or "GAIL" in str(error), error
            print("GAIL hidden")
    """)
    assert "hidden:" in out and "mpi4py" in out
    assert "PPO2" in out
    assert "HER MultiBinary(9)" in out
    assert "GAIL hidden" in out


def test_no_files_written(tmp_path):
    _run("""
        from stable_baselines import PPO2
        from stable_baselines.bench import Monitor
        from stable_baselines.common.gym_compat import make_env
        from stable_baselines.common.vec_env import DummyVecEnv
        env = DummyVecEnv([lambda: Monitor(make_env("CartPole-v1"), None)])
        PPO2("MlpPolicy", env, n_steps=32, verbose=1).learn(64)
    """, cwd=str(tmp_path))
    assert os.listdir(str(tmp_path)) == []


@pytest.mark.parametrize("module", ["stable_baselines.demo"])
def test_demo_module_help(module):
    out = _run("import runpy, sys; sys.argv = ['demo', '--help']\n"
               "try:\n    runpy.run_module('{}', run_name='__main__')\nexcept SystemExit:\n    pass".format(module))
    assert "--timesteps" in out
