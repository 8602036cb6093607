"""
``model.export``: each format, loaded with its own runtime (TensorFlow's SavedModel loader, the TFLite
interpreter, onnxruntime), answers 1 000 raw observations as ``predict(obs, deterministic=True)`` does.
"""
import os
import sys
import warnings
from typing import Any, Callable, Dict, List, Optional

import gymnasium
import numpy as np
import pytest
from gymnasium import spaces

from stable_baselines import A2C, ACER, ACKTR, DQN, HER, PPO2, SAC, TD3
from stable_baselines.common.bit_flipping_env import BitFlippingEnv
from stable_baselines.common.identity_env import IdentityEnv, IdentityEnvMultiBinary, IdentityEnvMultiDiscrete
from stable_baselines.common.tf_compat import tf
from stable_baselines.common.vec_env import DummyVecEnv, VecNormalize

try:
    from stable_baselines import DDPG, GAIL, PPO1, TRPO
except ImportError:  # without mpi4py
    DDPG = GAIL = PPO1 = TRPO = None

FORMATS = ("savedmodel", "tflite", "onnx")
N_OBS = 1000
# the largest difference allowed between exported and predicted continuous actions (float32 arithmetic in a
# different order; measured differences are below 1e-6)
ATOL = 1e-5
TINY_AC = dict(net_arch=[dict(pi=[8], vf=[8])])
TINY = dict(layers=[8])


class TinyImageEnv(gymnasium.Env):
    """Observations are 36x36 RGB images (the smallest NatureCNN takes), two discrete actions."""

    observation_space = spaces.Box(0, 255, (36, 36, 3), dtype=np.uint8)
    action_space = spaces.Discrete(2)

    def reset(self, *, seed: Optional[int] = None, options: Optional[dict] = None) -> Any:
        super().reset(seed=seed)
        return self.observation_space.sample(), {}

    def step(self, action: Any) -> Any:
        return self.observation_space.sample(), 0.0, False, False, {}


# ---------------------------------------------------------------------------------------------- the runtimes
Run = Callable[[List[np.ndarray]], List[np.ndarray]]


def load_saved_model(path: str) -> Run:
    """:return: (callable) runs the ``serving_default`` signature (outputs: actions first)"""
    graph = tf.Graph()
    session = tf.Session(graph=graph)
    meta_graph = tf.saved_model.loader.load(session, [tf.saved_model.tag_constants.SERVING], path)
    signature = meta_graph.signature_def["serving_default"]
    input_names = [name for name in ("observations", "state", "mask") if name in signature.inputs]
    assert sorted(signature.inputs) == sorted(input_names)
    fetches = [signature.outputs[name].name for name in ("actions", "new_state") if name in signature.outputs]

    def run(inputs: List[np.ndarray]) -> List[np.ndarray]:
        return session.run(fetches, {signature.inputs[name].name: value for name, value in zip(input_names, inputs)})
    return run


def load_tflite(path: str) -> Run:
    """:return: (callable) runs the TFLite model, its inputs resized to what it is given"""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # tf.lite.Interpreter announces its move to ai_edge_litert
        interpreter = tf.lite.Interpreter(model_path=path)
    details = interpreter.get_input_details()
    assert details[0]["name"] == "observations"
    outputs = sorted(interpreter.get_output_details(), key=lambda detail: detail["name"] != "actions")

    def run(inputs: List[np.ndarray]) -> List[np.ndarray]:
        current = interpreter.get_input_details()
        if any(tuple(detail["shape"]) != value.shape for detail, value in zip(current, inputs)):
            for detail, value in zip(current, inputs):
                interpreter.resize_tensor_input(detail["index"], list(value.shape))
        interpreter.allocate_tensors()
        for detail, value in zip(current, inputs):
            interpreter.set_tensor(detail["index"], value.astype(detail["dtype"]))
        interpreter.invoke()
        return [interpreter.get_tensor(detail["index"]) for detail in outputs]
    return run


def load_onnx(path: str) -> Run:
    """:return: (callable) runs the ONNX model under onnxruntime"""
    import onnxruntime  # pylint: disable=import-outside-toplevel
    session = onnxruntime.InferenceSession(path, providers=["CPUExecutionProvider"])
    names = [value.name for value in session.get_inputs()]
    assert names[0] == "observations"

    def run(inputs: List[np.ndarray]) -> List[np.ndarray]:
        assert len(inputs) == len(names)
        return session.run(None, dict(zip(names, inputs)))
    return run


RUNTIMES: Dict[str, Callable[[str], Run]] = {"savedmodel": load_saved_model, "tflite": load_tflite,
                                            "onnx": load_onnx}


def export_and_load(model: Any, directory: Any, export_format: str) -> Run:
    """:return: (callable) ``model`` exported in ``export_format`` into ``directory``, loaded by its runtime"""
    path = os.path.join(str(directory), "policy" + ("" if export_format == "savedmodel" else "." + export_format))
    model.export(path, format=export_format)
    assert os.path.isdir(path) == (export_format == "savedmodel")
    return RUNTIMES[export_format](path)


# ---------------------------------------------------------------------------------------------- helpers
def sample_observations(space: spaces.Space, n_obs: int = N_OBS, seed: int = 0) -> np.ndarray:
    """:return: (np.ndarray) ``n_obs`` observations drawn from ``space``, stacked"""
    space.seed(seed)
    return np.stack([space.sample() for _ in range(n_obs)])


def perturb_parameters(model: Any, seed: int = 1) -> None:
    """Move every parameter away from its initial value (the export must read the current values)."""
    rng = np.random.default_rng(seed)
    model.load_parameters({name: value + 0.1 * rng.standard_normal(value.shape).astype(value.dtype)
                           for name, value in model.get_parameters().items()})


def assert_same_actions(exported: np.ndarray, expected: np.ndarray, label: str) -> None:
    """Discrete actions must be equal; continuous ones equal to ``ATOL``."""
    exported = np.asarray(exported).reshape(expected.shape)
    if np.issubdtype(expected.dtype, np.integer):
        assert np.array_equal(exported, expected), "{}: {} of {} discrete actions differ".format(
            label, int(np.sum(exported != expected)), expected.size)
    else:
        error = float(np.max(np.abs(exported - expected)))
        assert error <= ATOL, "{}: largest difference {}".format(label, error)


def check_all_formats(model: Any, tmp_path: Any, observations: np.ndarray,
                      expected: Optional[np.ndarray] = None) -> None:
    """Each format answers ``observations`` as ``predict(observations, deterministic=True)`` does."""
    if expected is None:
        expected, _ = model.predict(observations, deterministic=True)
    for export_format in FORMATS:
        actions = export_and_load(model, tmp_path / export_format, export_format)([observations])[0]
        assert_same_actions(actions, np.asarray(expected), "{} {}".format(type(model).__name__, export_format))


def mpi_algorithm(name: str) -> Any:
    """:return: (type) the MPI algorithm, or a skip when mpi4py is missing"""
    algorithm = {"DDPG": DDPG, "GAIL": GAIL, "PPO1": PPO1, "TRPO": TRPO}[name]
    if algorithm is None:
        pytest.skip("{} needs mpi4py (the [mpi] extra)".format(name))
    return algorithm


# every algorithm, on an env of the kind of action space it is made for
MODELS: Dict[str, Callable[[], Any]] = {
    "A2C": lambda: A2C("MlpPolicy", "CartPole-v1", n_steps=4, policy_kwargs=TINY_AC, seed=0),
    "ACER": lambda: ACER("MlpPolicy", "CartPole-v1", n_steps=4, policy_kwargs=TINY_AC, seed=0),
    "ACKTR": lambda: ACKTR("MlpPolicy", "Pendulum-v1", n_steps=4, policy_kwargs=TINY_AC, seed=0),
    "PPO2": lambda: PPO2("MlpPolicy", "CartPole-v1", n_steps=8, policy_kwargs=TINY_AC, seed=0),
    "PPO1": lambda: mpi_algorithm("PPO1")("MlpPolicy", "Pendulum-v1", timesteps_per_actorbatch=16,
                                          policy_kwargs=TINY_AC, seed=0),
    "TRPO": lambda: mpi_algorithm("TRPO")("MlpPolicy", "CartPole-v1", timesteps_per_batch=16,
                                          policy_kwargs=TINY_AC, seed=0),
    "GAIL": lambda: mpi_algorithm("GAIL")("MlpPolicy", "Pendulum-v1", timesteps_per_batch=16,
                                          policy_kwargs=TINY_AC, seed=0),
    "DQN": lambda: DQN("MlpPolicy", "CartPole-v1", policy_kwargs=TINY, seed=0),
    "SAC": lambda: SAC("MlpPolicy", "Pendulum-v1", policy_kwargs=TINY, seed=0),
    "TD3": lambda: TD3("MlpPolicy", "Pendulum-v1", policy_kwargs=TINY, seed=0),
    "DDPG": lambda: mpi_algorithm("DDPG")("MlpPolicy", "Pendulum-v1", normalize_observations=True,
                                          policy_kwargs=TINY, seed=0),
}


@pytest.mark.parametrize("name", sorted(MODELS))
def test_export_every_algorithm(name: str, tmp_path: Any) -> None:
    model = MODELS[name]()
    perturb_parameters(model)
    check_all_formats(model, tmp_path, sample_observations(model.observation_space))


@pytest.mark.parametrize("model_class", [SAC, DQN])
def test_export_her_wrapped_model(model_class: type, tmp_path: Any) -> None:
    env = BitFlippingEnv(4, continuous=model_class is SAC, max_steps=4)
    model = HER("MlpPolicy", env, model_class, n_sampled_goal=2, policy_kwargs=TINY, seed=0)
    perturb_parameters(model)
    # the export takes the flat goal observation (observation, achieved goal, desired goal)
    flat_space = model.model.observation_space
    observations = sample_observations(flat_space)
    assert observations.dtype == flat_space.dtype
    check_all_formats(model, tmp_path, observations)


@pytest.mark.parametrize("env_class", [IdentityEnv, IdentityEnvMultiDiscrete, IdentityEnvMultiBinary])
def test_export_other_spaces(env_class: type, tmp_path: Any) -> None:
    # Discrete observations (one-hot inside the graph), MultiDiscrete and MultiBinary actions
    model = PPO2("MlpPolicy", DummyVecEnv([lambda: env_class(4)]), n_steps=8, policy_kwargs=TINY_AC, seed=0)
    perturb_parameters(model, seed=2)
    observations = sample_observations(model.observation_space)
    expected, _ = model.predict(observations, deterministic=True)
    assert len(np.unique(expected, axis=0)) > 1  # the actions depend on the observation
    check_all_formats(model, tmp_path, observations, expected)


def test_export_bakes_vec_normalize_in(tmp_path: Any) -> None:
    env = VecNormalize(DummyVecEnv([lambda: gymnasium.make("Pendulum-v1")]), clip_obs=2.0)
    model = PPO2("MlpPolicy", env, n_steps=32, nminibatches=1, noptepochs=1, policy_kwargs=TINY_AC, seed=0)
    model.learn(64)  # moves both the policy and the running statistics
    assert model.get_vec_normalize_env() is env
    assert np.max(np.abs(env.obs_rms.mean)) > 0.01
    raw = sample_observations(model.observation_space) * 1.5  # some beyond the clipping bound once normalised
    expected, _ = model.predict(env.normalize_obs(raw), deterministic=True)
    check_all_formats(model, tmp_path, raw.astype(np.float32), expected)


def test_export_of_a_model_loaded_without_env_uses_the_statistics_of_its_file(tmp_path: Any) -> None:
    env = VecNormalize(DummyVecEnv([lambda: gymnasium.make("Pendulum-v1")]), clip_obs=2.0)
    model = PPO2("MlpPolicy", env, n_steps=32, nminibatches=1, noptepochs=1, policy_kwargs=TINY_AC, seed=0)
    model.learn(64)
    model.save(str(tmp_path / "shipped.zip"))
    loaded = PPO2.load(str(tmp_path / "shipped.zip"))
    assert loaded.get_vec_normalize_env() is None
    raw = sample_observations(model.observation_space) * 1.5
    expected, _ = model.predict(env.normalize_obs(raw), deterministic=True)
    check_all_formats(loaded, tmp_path, raw.astype(np.float32), expected)


def test_export_zoo_agent_with_its_vec_normalize_statistics(tmp_path: Any) -> None:
    # an agent trained and saved by the original library, with the statistics of its VecNormalize
    legacy_dir = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "legacy_models", "ppo2")
    env = VecNormalize(DummyVecEnv([lambda: gymnasium.make("MountainCar-v0")]), training=False, norm_reward=False)
    with pytest.warns(DeprecationWarning, match="load_running_average"):
        env.load_running_average(os.path.join(legacy_dir, "MountainCar-v0"))
    with pytest.warns(DeprecationWarning, match="old format"):
        model = PPO2.load(os.path.join(legacy_dir, "MountainCar-v0.pkl"), env=env)
    raw = sample_observations(model.observation_space)
    expected, _ = model.predict(env.normalize_obs(raw), deterministic=True)
    check_all_formats(model, tmp_path, raw.astype(np.float32), expected)
    # the ONNX file alone drives the car up the hill from raw observations
    run = load_onnx(str(tmp_path / "onnx" / "policy.onnx"))
    raw_env = gymnasium.make("MountainCar-v0")
    obs, _ = raw_env.reset(seed=0)
    for step in range(200):
        obs, _, terminated, truncated, _ = raw_env.step(int(run([obs[None].astype(np.float32)])[0][0]))
        if terminated or truncated:
            break
    assert terminated, "the exported agent did not reach the flag in {} steps".format(step + 1)


def test_export_cnn_policy(tmp_path: Any) -> None:
    model = PPO2("CnnPolicy", DummyVecEnv([TinyImageEnv]), n_steps=4, seed=0)
    perturb_parameters(model)
    observations = sample_observations(model.observation_space, n_obs=200)
    assert observations.dtype == np.uint8
    check_all_formats(model, tmp_path, observations)


@pytest.mark.parametrize("model_class, policy", [(PPO2, "MlpLstmPolicy"), (A2C, "MlpLnLstmPolicy")])
def test_export_recurrent_policy(model_class: type, policy: str, tmp_path: Any) -> None:
    n_envs, n_steps = 2, 100
    env = DummyVecEnv([lambda: gymnasium.make("CartPole-v1")] * n_envs)
    kwargs = dict(nminibatches=n_envs) if model_class is PPO2 else {}
    model = model_class(policy, env, n_steps=4, policy_kwargs=dict(n_lstm=8), seed=0, **kwargs)
    perturb_parameters(model)
    rng = np.random.default_rng(0)
    observations = sample_observations(model.observation_space, n_envs * n_steps).reshape(n_steps, n_envs, -1)
    masks = rng.random((n_steps, n_envs)) < 0.2
    expected_actions, expected_states = [], []
    state = model.initial_state
    for obs, mask in zip(observations, masks):
        actions, state = model.predict(obs, state=state, mask=mask, deterministic=True)
        expected_actions.append(actions)
        expected_states.append(state)
    for export_format in FORMATS:
        run = export_and_load(model, tmp_path / export_format, export_format)
        state = model.initial_state.astype(np.float32)
        for step, (obs, mask) in enumerate(zip(observations, masks)):
            actions, state = run([obs.astype(np.float32), state, mask.astype(np.float32)])
            label = "{} {} step {}".format(policy, export_format, step)
            assert_same_actions(actions, expected_actions[step], label)
            assert np.max(np.abs(state - expected_states[step])) <= ATOL, label


def test_export_recurrent_policy_for_another_batch_size(tmp_path: Any) -> None:
    # trained with 3 environments, deployed for one: the rebuilt function steps row 0 as predict does
    n_envs, n_steps = 3, 150
    env = DummyVecEnv([lambda: gymnasium.make("Pendulum-v1")] * n_envs)
    model = PPO2("MlpLstmPolicy", env, n_steps=4, nminibatches=n_envs, policy_kwargs=dict(n_lstm=8), seed=0)
    perturb_parameters(model)
    rng = np.random.default_rng(1)
    observations = sample_observations(model.observation_space, n_envs * n_steps).reshape(n_steps, n_envs, -1)
    masks = rng.random((n_steps, n_envs)) < 0.1
    runs = {export_format: export_and_load_batch(model, tmp_path / export_format, export_format, 1)
            for export_format in FORMATS}
    states = {export_format: model.initial_state[:1].astype(np.float32) for export_format in FORMATS}
    state = model.initial_state
    for step, (obs, mask) in enumerate(zip(observations, masks)):
        expected, state = model.predict(obs, state=state, mask=mask, deterministic=True)
        for export_format, run in runs.items():
            actions, states[export_format] = run([obs[:1].astype(np.float32), states[export_format],
                                                  mask[:1].astype(np.float32)])
            label = "batch 1 {} step {}".format(export_format, step)
            assert_same_actions(actions, expected[:1], label)
            assert np.max(np.abs(states[export_format] - state[:1])) <= ATOL, label


def export_and_load_batch(model: Any, directory: Any, export_format: str, batch_size: int) -> Run:
    """:return: (callable) ``model`` exported for ``batch_size`` sequences, loaded by its runtime"""
    path = os.path.join(str(directory), "policy." + export_format)
    model.export(path, format=export_format, batch_size=batch_size)
    return RUNTIMES[export_format](path)


def test_batch_size_is_for_recurrent_policies(tmp_path: Any) -> None:
    model = PPO2("MlpPolicy", "CartPole-v1", n_steps=8, policy_kwargs=TINY_AC, seed=0)
    with pytest.raises(ValueError, match="batch_size is for recurrent policies"):
        model.export(str(tmp_path / "policy"), batch_size=4)
    assert os.listdir(str(tmp_path)) == []


# ---------------------------------------------------------------------------------------------- the target path
@pytest.fixture(scope="module")
def small_model() -> Any:
    """A PPO2 model on CartPole (untrained)."""
    return PPO2("MlpPolicy", "CartPole-v1", n_steps=8, policy_kwargs=TINY_AC, seed=0)


def test_unknown_format_names_the_known_ones(small_model: Any, tmp_path: Any) -> None:
    with pytest.raises(ValueError, match="'savedmodel', 'tflite', 'onnx'"):
        small_model.export(str(tmp_path / "policy.pb"), format="protobuf")
    assert os.listdir(str(tmp_path)) == []


def test_export_replaces_a_previous_export(small_model: Any, tmp_path: Any) -> None:
    observations = sample_observations(small_model.observation_space, n_obs=50)
    expected, _ = small_model.predict(observations, deterministic=True)
    for export_format in FORMATS:
        path = str(tmp_path / ("policy." + export_format))
        small_model.export(path, format=export_format)
        small_model.export(path, format=export_format)  # over its own previous export
        actions = RUNTIMES[export_format](path)([observations.astype(np.float32)])[0]
        assert np.array_equal(actions, expected)
    # nothing but the three exports is left beside them (no temporary siblings)
    assert sorted(os.listdir(str(tmp_path))) == ["policy." + name for name in sorted(FORMATS)]


def test_export_refuses_a_target_of_the_wrong_kind(small_model: Any, tmp_path: Any) -> None:
    a_file = tmp_path / "notes.txt"
    a_file.write_text("keep me")
    with pytest.raises(ValueError, match="is an existing file"):
        small_model.export(str(a_file), format="savedmodel")
    a_directory = tmp_path / "data"
    a_directory.mkdir()
    (a_directory / "results.csv").write_text("1,2")
    with pytest.raises(ValueError, match="non-empty directory that is not a SavedModel"):
        small_model.export(str(a_directory), format="savedmodel")
    for export_format in ("tflite", "onnx"):
        with pytest.raises(ValueError, match="is an existing directory"):
            small_model.export(str(a_directory), format=export_format)
    assert a_file.read_text() == "keep me"
    assert os.listdir(str(a_directory)) == ["results.csv"]
    assert sorted(os.listdir(str(tmp_path))) == ["data", "notes.txt"]


def test_onnx_without_tf2onnx_says_which_extra(small_model: Any, tmp_path: Any, monkeypatch: Any) -> None:
    monkeypatch.setitem(sys.modules, "tf2onnx", None)  # what Python does for a package that is not installed
    with pytest.raises(ImportError, match=r"pip install stable-baselines\[export\]"):
        small_model.export(str(tmp_path / "policy.onnx"), format="onnx")
    assert os.listdir(str(tmp_path)) == []


