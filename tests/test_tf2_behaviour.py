"""
The library with TensorFlow's TF-2 behaviour kept (``STABLE_BASELINES_TF2_BEHAVIOR=1``, eager TensorFlow around the
models' own graphs): each algorithm family, saving and loading, the original library's files, the exports and the
tensorboard writer work there too.

All the checks run in ONE child process (TensorFlow's import is paid once), each in a folder of its own; a check's
failure is reported with its traceback under its own test.
"""
import json
import os
import subprocess
import sys
import textwrap
from typing import Any, Dict

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LEGACY = os.path.join(ROOT, "tests", "data", "legacy_models")

CHECKS = {
    # resource variables in the model's graph; a whole learn, save, load and predict; a recurrent policy
    "ppo2 and a2c": """
        import numpy as np
        import tensorflow as tf
        from stable_baselines import PPO2, A2C
        assert tf.executing_eagerly(), "TF-2 behaviour must be kept"
        model = PPO2("MlpPolicy", "CartPole-v1", n_steps=32, seed=0).learn(256)
        model.save("m.zip")
        loaded = PPO2.load("m.zip")
        obs = np.zeros((2, 4), dtype=np.float32)
        assert (loaded.predict(obs, deterministic=True)[0] == model.predict(obs, deterministic=True)[0]).all()
        A2C("MlpLstmPolicy", "CartPole-v1", seed=0).learn(100)
        assert tf.constant(1.0).numpy() == 1.0
    """,
    # K-FAC finds its layers among resource variables
    "acktr": """
        from stable_baselines import ACKTR
        from stable_baselines.common.vec_env import DummyVecEnv
        from stable_baselines.common.gym_compat import make_env
        m = ACKTR('MlpPolicy', DummyVecEnv([lambda: make_env('CartPole-v1')]), n_steps=5, seed=0)
        assert len(m.optim.layers) == 6, m.optim.layers
        assert type(m.params[0]).__name__ == 'ResourceVariable'
        m.learn(60)
        assert m.sess.run(m.optim.step_counter) == 12
    """,
    # prioritized replay and parameter noise, a file of the original library computing what it computed
    "dqn": """
        import numpy as np
        import tensorflow as tf2
        from stable_baselines import DQN
        from stable_baselines.common.identity_env import IdentityEnv
        assert tf2.executing_eagerly()
        model = DQN("LnMlpPolicy", IdentityEnv(4), learning_starts=20, batch_size=8, seed=0, prioritized_replay=True,
                    param_noise=True)
        model.learn(40)
        model.save("m.zip")
        loaded = DQN.load("m.zip")
        obs = np.arange(4)
        assert (loaded.predict(obs)[0] == model.predict(obs)[0]).all()
        legacy = DQN.load(LEGACY + "/dqn/CartPole-v1.pkl")
        golden = np.load(LEGACY + "/golden/dqn/CartPole-v1.npz")
        q = legacy.sess.run(legacy.step_model.q_values, {legacy.step_model.obs_ph: golden["policy_obs"]})
        np.testing.assert_allclose(q, golden["q"], rtol=1e-4, atol=1e-4)
    """,
    # the three export formats, the SavedModel read back with TF-2's own loader as the export guide shows
    "export": """
        import os
        import numpy as np
        import onnxruntime
        import tensorflow as tf2
        from stable_baselines import SAC
        assert tf2.executing_eagerly()
        atol = 1e-5
        model = SAC("MlpPolicy", "Pendulum-v1", policy_kwargs=dict(layers=[8]), seed=0)
        assert "VarHandleOp" in {node.op for node in model.graph.as_graph_def().node}
        obs = np.random.default_rng(0).uniform(-1, 1, (1000, 3)).astype(np.float32)
        expected, _ = model.predict(obs, deterministic=True)
        for export_format in ("savedmodel", "tflite", "onnx"):
            model.export(export_format, format=export_format)
        serve = tf2.saved_model.load("savedmodel").signatures["serving_default"]
        actions = serve(observations=tf2.constant(obs))["actions"].numpy()
        assert np.max(np.abs(actions - expected)) <= atol, "savedmodel"
        session = onnxruntime.InferenceSession("onnx", providers=["CPUExecutionProvider"])
        actions = session.run(["actions"], {"observations": obs})[0]
        assert np.max(np.abs(actions - expected)) <= atol, "onnx"
        interpreter = tf2.lite.Interpreter(model_path="tflite")
        interpreter.resize_tensor_input(interpreter.get_input_details()[0]["index"], [1000, 3])
        interpreter.allocate_tensors()
        interpreter.set_tensor(interpreter.get_input_details()[0]["index"], obs)
        interpreter.invoke()
        actions = interpreter.get_tensor(interpreter.get_output_details()[0]["index"])
        assert np.max(np.abs(actions - expected)) <= atol, "tflite"
    """,
    # the logger's tensorboard format (a FileWriter) works when TF-2 behaviour was kept
    "tensorboard logger": """
        import os
        from stable_baselines import logger
        from stable_baselines.common.tf_compat import tf
        assert tf.executing_eagerly()
        logger.configure(os.getcwd(), ["tensorboard"])
        logger.logkv("v", 7.0)
        logger.dumpkvs()
        logger.reset()
        assert logger.read_tb(os.path.join(os.getcwd(), "tb"))["v"].tolist() == [7.0]
    """,
}

_CHILD = """
import json, os, sys, traceback
checks, folder, legacy = json.loads(sys.argv[1]), sys.argv[2], sys.argv[3]
for name, code in checks.items():
    place = os.path.join(folder, name.replace(" ", "_"))
    os.makedirs(place)
    os.chdir(place)
    try:
        exec(code, {"LEGACY": legacy})
        report = "ok"
    except BaseException:
        report = traceback.format_exc()
    print("CHECK " + json.dumps({name: report}), flush=True)
"""


@pytest.fixture(scope="module")
def reports(tmp_path_factory: Any) -> Dict[str, str]:
    """:return: (dict) what each check reported in the TF-2 child: "ok", or its traceback"""
    checks = {name: textwrap.dedent(code) for name, code in CHECKS.items()}
    env = dict(os.environ, STABLE_BASELINES_TF2_BEHAVIOR="1", TF_CPP_MIN_LOG_LEVEL="3")
    result = subprocess.run([sys.executable, "-c", _CHILD, json.dumps(checks), str(tmp_path_factory.mktemp("tf2")),
                             LEGACY], env=env, capture_output=True, text=True, timeout=900, cwd=ROOT)
    found: Dict[str, str] = {}
    for line in result.stdout.splitlines():
        if line.startswith("CHECK "):
            found.update(json.loads(line[len("CHECK "):]))
    for name in CHECKS:  # a check the child never reported on: it died there
        found.setdefault(name, "no report (exit code {}):\n{}".format(result.returncode, result.stderr[-3000:]))
    return found


@pytest.mark.parametrize("check", sorted(CHECKS))
def test_runs_in_tf2_behaviour(reports: Dict[str, str], check: str) -> None:
    assert reports[check] == "ok", reports[check]
