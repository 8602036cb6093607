"""
Contract 8 (quiet start, light workers): SubprocVecEnv workers do not import TensorFlow, a script without
the ``if __name__ == "__main__":`` guard gets one clear error, importing the library prints nothing, and
old-API environments render in the mode asked for.
"""
import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from stable_baselines.common import tf_compat
from stable_baselines.common.vec_env import DummyVecEnv, SubprocVecEnv, VecFrameStack, VecNormalize

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TESTS_DIR = os.path.dirname(os.path.abspath(__file__))


def _run_script(tmp_path, source: str, env_update=None, drop=("TF_CPP_MIN_LOG_LEVEL",)):
    """Run ``source`` as a main script (a file, as users run them) in a fresh interpreter."""
    script = tmp_path / "main_script.py"
    script.write_text(textwrap.dedent(source))
    env = dict(os.environ)
    for name in drop:
        env.pop(name, None)
    env.pop("STABLE_BASELINES_TF2_BEHAVIOR", None)
    env["PYTHONPATH"] = os.pathsep.join([REPO_ROOT, TESTS_DIR, env.get("PYTHONPATH", "")])
    env.update(env_update or {})
    return subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env,
                          cwd=str(tmp_path), timeout=600)


def _last_json(stdout: str):
    return json.loads(stdout.strip().splitlines()[-1])


# ----------------------------------------------------------------------------------------------
# workers without TensorFlow
# ----------------------------------------------------------------------------------------------
def test_worker_does_not_import_tensorflow_default_start_method():
    from vec_env_helpers import ProbeEnv
    venv = SubprocVecEnv([ProbeEnv, ProbeEnv])
    try:
        reports = venv.env_method("report")
    finally:
        venv.close()
    assert [report["tensorflow"] for report in reports] == [False, False]
    assert [report["process"] for report in reports] == ["SubprocVecEnvWorker-0", "SubprocVecEnvWorker-1"]


@pytest.mark.parametrize("start_method", ["forkserver", "spawn"])
def test_main_script_importing_algorithms_keeps_workers_light(tmp_path, start_method):
    result = _run_script(tmp_path, """
        import json
        from stable_baselines import A2C, PPO2  # the usual first line of a training script
        from stable_baselines.common import make_vec_env
        from stable_baselines.common.vec_env import SubprocVecEnv
        from vec_env_helpers import ProbeEnv

        if __name__ == "__main__":
            venv = make_vec_env(ProbeEnv, n_envs=2, vec_env_cls=SubprocVecEnv,
                                vec_env_kwargs=dict(start_method="{}"))
            before = venv.env_method("report")
            used = venv.env_method("use_algorithm", "PPO2", indices=0)[0]
            after = venv.env_method("report")
            venv.close()
            print(json.dumps(dict(before=before, used=used, after=after)))
    """.format(start_method))
    assert result.returncode == 0, result.stderr
    out = _last_json(result.stdout)
    assert [report["tensorflow"] for report in out["before"]] == [False, False]
    # asked for, an algorithm is imported for real, with TensorFlow in TF-1 behaviour as in the main process
    assert out["used"]["class"] == "PPO2" and out["used"]["eager"] is False
    # the name the main script bound while the worker re-imported it stands in for the real class
    assert "imported on first use" in out["used"]["stand_in"]
    assert out["used"]["stand_in_equals_class"] is True and out["used"]["stand_in_subclass_check"] is True
    assert [report["tensorflow"] for report in out["after"]] == [True, False]


@pytest.mark.parametrize("start_method", [None, "spawn"])
def test_missing_main_guard_is_one_clear_error(tmp_path, start_method):
    result = _run_script(tmp_path, """
        from stable_baselines.common import make_vec_env
        from stable_baselines.common.vec_env import SubprocVecEnv

        env = make_vec_env("CartPole-v1", n_envs=4, vec_env_cls=SubprocVecEnv,
                           vec_env_kwargs=dict(start_method={!r}))
        print("created", env.num_envs)
    """.format(start_method))
    assert result.returncode != 0
    assert "created" not in result.stdout
    assert result.stderr.count("Traceback") == 1, result.stderr
    assert "EnvWorkerError: SubprocVecEnv: the main script is not guarded by `if __name__ == \"__main__\":`" \
        in result.stderr
    assert "segfault" not in result.stderr and "bootstrapping phase" not in result.stderr
    assert len(result.stderr.splitlines()) < 40


def test_missing_guard_in_another_child_is_a_clear_runtime_error(monkeypatch):
    from stable_baselines.common import env_worker
    monkeypatch.setattr(env_worker, "is_bootstrapping_child", lambda: True)
    monkeypatch.setattr(env_worker, "is_bootstrapping_worker", lambda: False)
    with pytest.raises(RuntimeError, match="not guarded by `if __name__"):
        SubprocVecEnv([lambda: None], start_method="spawn")


def test_unknown_start_method_is_a_value_error():
    """multiprocessing's own words come first, as with the original library, then the methods there are."""
    with pytest.raises(ValueError, match=r"^cannot find context for 'telepathy': start_method must be one of"):
        SubprocVecEnv([lambda: None], start_method="telepathy")


# ----------------------------------------------------------------------------------------------
# quiet start
# ----------------------------------------------------------------------------------------------
def test_import_prints_nothing(tmp_path):
    result = _run_script(tmp_path, """
        import os
        import stable_baselines
        import tensorflow
        assert os.environ["TF_CPP_MIN_LOG_LEVEL"] == "2"
    """)
    assert result.returncode == 0, result.stderr
    assert result.stdout == "" and result.stderr == ""


def test_import_keeps_the_users_log_level(tmp_path):
    result = _run_script(tmp_path, """
        import os
        import stable_baselines
        print(os.environ["TF_CPP_MIN_LOG_LEVEL"])
    """, env_update={"TF_CPP_MIN_LOG_LEVEL": "0"})
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "0"


def test_startup_filter_keeps_errors_and_other_output():
    text = ("WARNING: All log messages before absl::InitializeLog() is called are written to STDERR\n"
            "I0000 00:00:1795665882.569751    9954 port.cc:153] oneDNN custom operations are on.\n"
            "W0000 00:00:1795665882.570409    9954 cudart_stub.cc:31] something to warn about\n"
            "E0000 00:00:1795665912.798665   10099 cuda_platform.cc:52] failed call to cuInit\n"
            "a line of the user's own\n")
    assert tf_compat._without_startup_noise(text) == (
        "E0000 00:00:1795665912.798665   10099 cuda_platform.cc:52] failed call to cuInit\n"
        "a line of the user's own\n")


def test_no_driver_notice_dropped_only_at_the_first_session():
    text = ("E0000 00:00:1795682234.981700    8203 cuda_platform.cc:52] failed call to cuInit: INTERNAL: CUDA error: "
            "Failed call to cuInit: UNKNOWN ERROR (303)\n"
            "E0000 00:00:1795682234.981700    8203 cuda_platform.cc:52] failed call to cuInit: CUDA_ERROR_OUT_OF_MEMORY\n"
            "I0000 00:00:1795665882.569751    9954 port.cc:153] oneDNN custom operations are on.\n")
    assert tf_compat._without_startup_noise(text, tf_compat._NO_DRIVER_NOTICE) == (
        "E0000 00:00:1795682234.981700    8203 cuda_platform.cc:52] failed call to cuInit: CUDA_ERROR_OUT_OF_MEMORY\n")


def test_first_model_prints_nothing_of_tensorflow(tmp_path):
    """The README demo's start: a model (its session starts the devices) and a prediction, nothing on stderr."""
    result = _run_script(tmp_path, """
        from stable_baselines import PPO2
        model = PPO2("MlpPolicy", "CartPole-v1", n_steps=16, seed=0)
        action, _ = model.predict(model.env.reset())
        print(action.shape)
    """)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "(1,)"
    assert result.stderr == "", result.stderr


def test_a2c_creation_prints_no_deprecation_warning(tmp_path):
    result = _run_script(tmp_path, """
        from stable_baselines import A2C
        model = A2C("MlpPolicy", "CartPole-v1", seed=0)
        print(type(model.sess).__name__)
    """)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "Session"
    assert "deprecat" not in result.stderr.lower(), result.stderr
    assert "Instructions for updating" not in result.stderr


# ----------------------------------------------------------------------------------------------
# old-API render(mode=...)
# ----------------------------------------------------------------------------------------------
def _mode_render_vec_envs():
    from vec_env_helpers import make_monitored_mode_render_env
    return [("dummy", lambda: DummyVecEnv([make_monitored_mode_render_env] * 2)),
            ("subproc", lambda: SubprocVecEnv([make_monitored_mode_render_env] * 2, start_method="fork"))]


@pytest.mark.parametrize("kind", ["dummy", "subproc"])
@pytest.mark.parametrize("wrapper", ["none", "normalize", "frame_stack"])
def test_old_api_render_gets_the_mode(kind, wrapper):
    venv = dict(_mode_render_vec_envs())[kind]()
    if wrapper == "normalize":
        venv = VecNormalize(venv)
    elif wrapper == "frame_stack":
        venv = VecFrameStack(venv, n_stack=2)
    try:
        venv.reset()
        venv.step(np.array([0, 1]))
        images = venv.env_method("render", "rgb_array")
        assert [image.shape for image in images] == [(2, 3, 3), (2, 3, 3)]
        assert all(np.all(image == 8) for image in images)
        assert venv.env_method("render", mode="human") == ["shown", "shown"]
        assert venv.env_method("render") == ["shown", "shown"]
        got = venv.get_images()
        assert len(got) == 2 and all(np.all(image == 8) for image in got)
        tiled = venv.render(mode="rgb_array")
        assert tiled.shape == (4, 3, 3) and np.all(tiled == 8)  # two images, one above the other
    finally:
        venv.close()


def test_single_old_api_env_render_passes_any_mode():
    from vec_env_helpers import make_monitored_mode_render_env
    venv = DummyVecEnv([make_monitored_mode_render_env])
    assert venv.render(mode="rgb_array").shape == (2, 3, 3)
    assert venv.render(mode="human") == "shown"


def test_gymnasium_env_still_renders_in_its_render_mode():
    import gymnasium
    venv = DummyVecEnv([lambda: gymnasium.make("CartPole-v1")])
    with pytest.raises(ValueError, match="render_mode='rgb_array'"):
        venv.get_images()
    with pytest.raises(TypeError):
        venv.env_method("render", "rgb_array")
    rgb = DummyVecEnv([lambda: gymnasium.make("CartPole-v1", render_mode="rgb_array")])
    rgb.reset()
    assert rgb.env_method("render")[0].shape == (400, 600, 3)
