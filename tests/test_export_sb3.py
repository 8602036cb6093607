"""
``model.export(path, format="sb3")`` and ``python -m stable_baselines.export_sb3``: the files are checked by the
successor itself. Stable-Baselines3 (and sb3-contrib) load them with their own ``load`` and must compute what the
model computed: for the files the ORIGINAL library saved, what the original recorded (action probabilities,
values, deterministic actions, tests/data/legacy_models/original_2_10); for models of ours, ``predict`` on 1 000
observations; the rl-baselines-zoo agents score as they did, and the successor trains on from where they were.
"""
import os
import subprocess
import sys
import warnings
from typing import Any, Dict, List, Optional

import gymnasium
import numpy as np
import pytest

from stable_baselines import A2C, ACKTR, DQN, PPO2, SAC, TD3
from stable_baselines.common.export.sb3 import load_for_check, vec_normalize_path

torch = pytest.importorskip("torch")
pytest.importorskip("stable_baselines3")
pytest.importorskip("sb3_contrib")

try:
    from stable_baselines import DDPG, PPO1, TRPO
except ImportError:  # without mpi4py
    DDPG = PPO1 = TRPO = None

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LEGACY = os.path.join(ROOT, "tests", "data", "legacy_models")
ORIGINAL = os.path.join(LEGACY, "original_2_10")
MPI_ALGORITHMS = ("ddpg", "ppo1", "trpo")


def _model_class(algorithm: str) -> Any:
    import stable_baselines

    model_class = getattr(stable_baselines, algorithm.upper(), None)
    if model_class is None:
        pytest.skip("{} needs mpi4py".format(algorithm.upper()))
    return model_class


def _export(model: Any, path: Any) -> List[str]:
    """:return: ([str]) the warnings of the export (it says what is not carried over)"""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model.export(path, format="sb3")
    return [str(warning.message) for warning in caught if "Exported" in str(warning.message)]


def _successor_outputs(sb3_model: Any, observations: np.ndarray) -> Dict[str, np.ndarray]:
    """:return: (dict) what the successor's policy computes for a batch: probabilities (or mean and std), values"""
    policy = sb3_model.policy
    obs_tensor, _ = policy.obs_to_tensor(observations)
    outputs: Dict[str, np.ndarray] = {}
    with torch.no_grad():
        if hasattr(policy, "q_net"):  # DQN: the original's action_probability is the softmax of the Q-values
            outputs["proba"] = torch.softmax(policy.q_net(obs_tensor), dim=1).numpy()
        elif hasattr(policy, "get_distribution"):
            distribution = policy.get_distribution(obs_tensor).distribution
            if isinstance(distribution, list):  # MultiCategorical: one categorical per entry
                outputs["proba"] = np.stack([part.probs.numpy() for part in distribution])
            elif isinstance(distribution, torch.distributions.Normal):
                outputs["proba"] = np.stack([distribution.mean.numpy(), distribution.stddev.numpy()])
            else:
                outputs["proba"] = distribution.probs.numpy()
            outputs["value"] = policy.predict_values(obs_tensor).numpy().reshape(-1)
    outputs["action"], _ = sb3_model.predict(observations, deterministic=True)
    return outputs


# the feed-forward files of the original library whose policies the successor has
ORIGINAL_FILES = ["a2c/Pendulum-v1_MlpPolicy", "a2c/TinyImage_CnnPolicy", "a2c/TinyMultiBinary_MlpPolicy",
                  "a2c/TinyMultiDiscrete_MlpPolicy", "acktr/CartPole-v1_MlpPolicy",
                  "dqn/Acrobot-v1_MlpPolicy_layers_nodueling", "ppo1/Acrobot-v1_MlpPolicy", "ppo1/Pendulum-v1_MlpPolicy",
                  "ppo2/Pendulum-v1_MlpPolicy", "sac/Pendulum-v1_MlpPolicy", "sac/Pendulum-v1_MlpPolicy_layers_fixed_ent",
                  "td3/Pendulum-v1_MlpPolicy", "trpo/Pendulum-v1_MlpPolicy", "trpo/CartPole-v1_MlpPolicy_net_arch",
                  "ddpg/Pendulum-v1_MlpPolicy_ou_returns"]


@pytest.mark.parametrize("name", ORIGINAL_FILES)
def test_original_files_compute_in_sb3_what_the_original_computed(name: str, tmp_path: Any) -> None:
    algorithm = name.split("/")[0]
    model = _model_class(algorithm).load(os.path.join(ORIGINAL, name + ".zip"))
    _export(model, str(tmp_path / "sb3.zip"))
    sb3_model = load_for_check(str(tmp_path / "sb3.zip"), algorithm.upper())
    recorded = np.load(os.path.join(ORIGINAL, name + ".npz"))
    for step in range(recorded["obs"].shape[0]):
        observations = recorded["obs"][step]
        found = _successor_outputs(sb3_model, observations)
        expected_actions = recorded["action"][step]
        if isinstance(model.action_space, gymnasium.spaces.Box):
            np.testing.assert_allclose(found["action"], expected_actions, rtol=1e-5, atol=1e-5)
        else:
            np.testing.assert_array_equal(found["action"], expected_actions)
        if "proba" in recorded and "proba" in found:
            np.testing.assert_allclose(found["proba"], recorded["proba"][step], rtol=1e-5, atol=1e-6)
        if "value" in recorded and "value" in found:
            np.testing.assert_allclose(found["value"], recorded["value"][step], rtol=1e-5, atol=1e-5)


# what the successor cannot represent: refused, naming the missing piece
REFUSED = [
    ("dqn/CartPole-v1_MlpPolicy", r"dueling"),
    ("dqn/MountainCar-v0_LnMlpPolicy", r"layer_norm=True"),
    ("sac/Pendulum-v1_LnMlpPolicy_layers", r"layer_norm=True"),
    ("td3/Pendulum-v1_LnMlpPolicy", r"layer_norm=True"),
    ("ddpg/Pendulum-v1_LnMlpPolicy", r"layer_norm=True"),
    ("a2c/Acrobot-v1_MlpPolicy_net_arch", r"layers shared by the policy and the value function"),
    ("acer/Acrobot-v1_MlpPolicy", r"the successor has no counterpart of ACER"),
    ("a2c/CartPole-v1_MlpLstmPolicy", r"is recurrent; the successor's recurrent algorithm is sb3_contrib's RecurrentPPO"),
    ("ppo2/Pendulum-v1_MlpLstmPolicy", r"its MLP layers \[64, 64\] come before the LSTM"),
]


@pytest.mark.parametrize("name,message", REFUSED)
def test_what_the_successor_cannot_represent_is_refused(name: str, message: str, tmp_path: Any) -> None:
    algorithm = name.split("/")[0]
    model = _model_class(algorithm).load(os.path.join(ORIGINAL, name + ".zip"))
    target = tmp_path / "sb3.zip"
    with pytest.raises(ValueError, match=message):
        model.export(str(target), format="sb3")
    assert not target.exists() and os.listdir(str(tmp_path)) == []


def test_a_layer_normalised_lstm_is_refused(tmp_path: Any) -> None:
    model = PPO2("MlpLnLstmPolicy", "CartPole-v1", n_steps=4, nminibatches=1, policy_kwargs=dict(n_lstm=8))
    with pytest.raises(ValueError, match=r"its LSTM is layer-normalised, sb3_contrib's RecurrentPPO has no"):
        model.export(str(tmp_path / "sb3.zip"), format="sb3")
    assert os.listdir(str(tmp_path)) == []


def _check_predictions(model: Any, sb3_model: Any, n_obs: int = 1000, clip: Optional[float] = None) -> None:
    space = model.observation_space
    space.seed(1)
    observations = np.stack([space.sample() for _ in range(n_obs)])
    if clip is not None:
        observations = np.clip(observations, -clip, clip)
    ours, _ = model.predict(observations, deterministic=True)
    theirs, _ = sb3_model.predict(observations, deterministic=True)
    if isinstance(model.action_space, gymnasium.spaces.Box):
        np.testing.assert_allclose(theirs, ours, rtol=1e-5, atol=1e-5)
    else:
        np.testing.assert_array_equal(theirs, ours)


def _tiny_image_env(discrete: bool) -> gymnasium.Env:
    class TinyImage(gymnasium.Env):
        observation_space = gymnasium.spaces.Box(0, 255, (40, 44, 3), np.uint8)
        action_space = gymnasium.spaces.Discrete(3) if discrete else gymnasium.spaces.Box(-1, 1, (2,), np.float32)

        def reset(self, *, seed: Optional[int] = None, options: Optional[dict] = None) -> Any:
            super().reset(seed=seed)
            return self.observation_space.sample(), {}

        def step(self, action: Any) -> Any:
            return self.observation_space.sample(), 1.0, False, False, {}

    return TinyImage()


OURS = {
    "A2C-CartPole": lambda: A2C("MlpPolicy", "CartPole-v1", seed=0, policy_kwargs=dict(act_fun=__import__(
        "stable_baselines.common.tf_compat", fromlist=["tf"]).tf.nn.relu)),
    "ACKTR-Pendulum": lambda: ACKTR("MlpPolicy", "Pendulum-v1", seed=0),
    "PPO2-Acrobot-net_arch": lambda: PPO2("MlpPolicy", "Acrobot-v1", seed=0, n_steps=64, nminibatches=2,
                                          policy_kwargs=dict(net_arch=[dict(pi=[32], vf=[16, 8])])),
    "PPO2-MountainCarContinuous": lambda: PPO2("MlpPolicy", "MountainCarContinuous-v0", seed=0, n_steps=64),
    "PPO2-image": lambda: PPO2("CnnPolicy", _tiny_image_env(True), seed=0, n_steps=16, nminibatches=1),
    "A2C-image-Box": lambda: A2C("CnnPolicy", _tiny_image_env(False), seed=0, n_steps=5),
    "DQN-CartPole": lambda: DQN("MlpPolicy", "CartPole-v1", seed=0, learning_starts=50,
                                policy_kwargs=dict(dueling=False, layers=[32])),
    "DQN-image": lambda: DQN("CnnPolicy", _tiny_image_env(True), seed=0, learning_starts=10, buffer_size=100,
                             policy_kwargs=dict(dueling=False)),
    "SAC-Pendulum": lambda: SAC("MlpPolicy", "Pendulum-v1", seed=0, learning_starts=50, policy_kwargs=dict(layers=[32])),
    "SAC-fixed-ent": lambda: SAC("MlpPolicy", "Pendulum-v1", seed=0, learning_starts=50, ent_coef=0.1),
    "TD3-Pendulum": lambda: TD3("MlpPolicy", "Pendulum-v1", seed=0, learning_starts=50),
}
if PPO1 is not None:
    OURS.update({
        "PPO1-CartPole": lambda: PPO1("MlpPolicy", "CartPole-v1", seed=0, timesteps_per_actorbatch=64),
        "TRPO-Pendulum": lambda: TRPO("MlpPolicy", "Pendulum-v1", seed=0, timesteps_per_batch=64),
        "DDPG-Pendulum": lambda: DDPG("MlpPolicy", "Pendulum-v1", seed=0, nb_rollout_steps=32),
    })


@pytest.mark.parametrize("case", sorted(OURS))
def test_models_of_ours_predict_alike_in_sb3(case: str, tmp_path: Any) -> None:
    model = OURS[case]()
    model.learn(128)
    notes = _export(model, tmp_path / "sb3")  # a path object; the successor adds .zip
    # a feed-forward PPO2 policy's Adam moments travel; every other optimizer starts afresh
    carried = case.startswith("PPO2-") and not model.acting_policy.recurrent
    expected = "the Adam moments are carried over" if carried else "the optimizer starts afresh"
    assert len(notes) == 1 and expected in notes[0], notes
    sb3_model = load_for_check(str(tmp_path / "sb3.zip"), case.split("-")[0])
    if case.startswith("DDPG"):  # our DDPG clips observations to [-5, 5], as the original's did: said, not hidden
        assert "clips observations to [-5.0, 5.0] before its actor" in notes[0], notes
        assert "the critic and its target start afresh" in notes[0], notes
        _check_predictions(model, sb3_model, clip=5.0)
    else:
        _check_predictions(model, sb3_model)


def test_sac_keeps_its_learnt_entropy_coefficient(tmp_path: Any) -> None:
    model = SAC.load(os.path.join(ORIGINAL, "sac", "Pendulum-v1_MlpPolicy.zip"))
    _export(model, str(tmp_path / "sb3.zip"))
    sb3_model = load_for_check(str(tmp_path / "sb3.zip"), "SAC")
    ours = float(model.get_parameters()["model/log_ent_coef:0"])
    assert float(sb3_model.log_ent_coef.detach()) == pytest.approx(ours, abs=1e-7)


@pytest.mark.slow
def test_zoo_agents_score_in_sb3_and_train_on(tmp_path: Any) -> None:
    """The zoo's solved CartPole agent of PPO2 scores 500 in the successor, and 2 000 more steps keep it solved."""
    from stable_baselines3.common.evaluation import evaluate_policy

    model = PPO2.load(os.path.join(LEGACY, "ppo2", "CartPole-v1.pkl"))
    _export(model, str(tmp_path / "sb3.zip"))
    env = gymnasium.make("CartPole-v1")
    sb3_model = load_for_check(str(tmp_path / "sb3.zip"), "PPO2", env=env)
    mean, _ = evaluate_policy(sb3_model, env, n_eval_episodes=5, deterministic=True)
    assert mean >= 475, mean
    sb3_model.learn(2000)
    mean, _ = evaluate_policy(sb3_model, env, n_eval_episodes=5, deterministic=True)
    assert mean >= 400, mean


@pytest.mark.parametrize("algorithm,name,env_id,expected", [
    ("a2c", "CartPole-v1.pkl", "CartPole-v1", 475), ("sac", "Pendulum-v0.pkl", "Pendulum-v1", -300),
    ("td3", "Pendulum-v0.pkl", "Pendulum-v1", -300), ("trpo", "CartPole-v1.pkl", "CartPole-v1", 475),
    ("acktr", "Pendulum-v0.zip", "Pendulum-v1", -400), ("ddpg", "Pendulum-v0.pkl", "Pendulum-v1", -300)])
def test_zoo_agents_converted_on_the_command_line_score_in_sb3(algorithm: str, name: str, env_id: str,
                                                               expected: float, tmp_path: Any) -> None:
    """The zoo's agents (files of 2018-2020), converted by the command line, score as stated in the successor."""
    from stable_baselines3.common.evaluation import evaluate_policy

    if algorithm in MPI_ALGORITHMS:
        _model_class(algorithm)
    from stable_baselines.export_sb3 import main

    assert main([os.path.join(LEGACY, algorithm, name), str(tmp_path / "agent.zip")]) == 0
    env = gymnasium.make(env_id)
    env.reset(seed=0)
    sb3_model = load_for_check(str(tmp_path / "agent.zip"), algorithm.upper())
    mean, _ = evaluate_policy(sb3_model, env, n_eval_episodes=10, deterministic=True)
    assert mean >= expected, mean


def test_vec_normalize_statistics_travel_as_the_successors_file(tmp_path: Any) -> None:
    """The zoo's MountainCar agent kept its statistics beside the file: converted, SB3 normalises as we did."""
    from stable_baselines3.common.evaluation import evaluate_policy
    from stable_baselines3.common.vec_env import DummyVecEnv, VecNormalize

    from stable_baselines.export_sb3 import main

    out = str(tmp_path / "agent.zip")
    assert main([os.path.join(LEGACY, "ppo2", "MountainCar-v0.pkl"), out,
                 "--vec-normalize", os.path.join(LEGACY, "ppo2", "MountainCar-v0")]) == 0
    assert os.path.exists(vec_normalize_path(out))
    env = VecNormalize.load(vec_normalize_path(out), DummyVecEnv([lambda: gymnasium.make("MountainCar-v0")]))
    assert env.training is False and env.norm_obs
    env.seed(0)
    sb3_model = load_for_check(out, "PPO2")
    mean, _ = evaluate_policy(sb3_model, env, n_eval_episodes=10, deterministic=True)
    # expected -138.4 +/- 27.3 over 100 episodes; a random policy scores -200
    assert mean > -175, mean


def test_statistics_of_a_model_trained_in_vec_normalize_are_exported_beside_it(tmp_path: Any) -> None:
    from stable_baselines3.common.vec_env import DummyVecEnv as SB3DummyVecEnv
    from stable_baselines3.common.vec_env import VecNormalize as SB3VecNormalize

    from stable_baselines.common.vec_env import DummyVecEnv, VecNormalize

    env = VecNormalize(DummyVecEnv([lambda: gymnasium.make("Pendulum-v1")]), clip_obs=7.0)
    model = PPO2("MlpPolicy", env, n_steps=64, seed=0)
    model.learn(256)
    notes = _export(model, str(tmp_path / "sb3.zip"))
    assert "VecNormalize statistics" in notes[0]
    theirs = SB3VecNormalize.load(vec_normalize_path(str(tmp_path / "sb3.zip")),
                                  SB3DummyVecEnv([lambda: gymnasium.make("Pendulum-v1")]))
    assert theirs.clip_obs == 7.0
    np.testing.assert_allclose(theirs.obs_rms.mean, env.obs_rms.mean)
    np.testing.assert_allclose(theirs.obs_rms.var, env.obs_rms.var)
    raw = np.random.RandomState(0).uniform(-1, 1, size=(5, 3)).astype(np.float32)
    np.testing.assert_allclose(theirs.normalize_obs(raw), env.normalize_obs(raw), rtol=1e-5, atol=1e-6)


def test_command_line_reads_the_algorithm_from_the_file_and_reports_refusals(tmp_path: Any) -> None:
    from stable_baselines.export_sb3 import algorithm_of_settings

    from stable_baselines.common.base_class import BaseRLModel

    for algorithm, name in (("A2C", "a2c/CartPole-v1.pkl"), ("PPO2", "ppo2/CartPole-v1.pkl"),
                            ("DQN", "dqn/CartPole-v1.pkl"), ("ACKTR", "acktr/Pendulum-v0.zip"),
                            ("SAC", "sac/Pendulum-v0.pkl"), ("TD3", "td3/Pendulum-v0.pkl"),
                            ("TRPO", "trpo/CartPole-v1.pkl"), ("ACER", "acer/CartPole-v1.pkl"),
                            ("DDPG", "ddpg/Pendulum-v0.pkl")):
        data, _ = BaseRLModel._load_from_file(os.path.join(LEGACY, name))
        assert algorithm_of_settings(data) == algorithm, name
    with pytest.raises(ValueError, match=r"Cannot tell which algorithm saved this file.*give --algo"):
        algorithm_of_settings({"gamma": 0.99})
    result = subprocess.run([sys.executable, "-m", "stable_baselines.export_sb3",
                             os.path.join(LEGACY, "acer", "CartPole-v1.pkl"), str(tmp_path / "out.zip")],
                            capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert result.returncode == 1, result.stdout
    assert "export_sb3: Cannot export ACER to SB3" in result.stderr
    assert not (tmp_path / "out.zip").exists()


def test_the_export_front_door(tmp_path: Any, monkeypatch: Any) -> None:
    model = A2C("MlpPolicy", "CartPole-v1", seed=0)
    with pytest.raises(ValueError, match=r"batch_size is for the export of recurrent policies"):
        model.export(str(tmp_path / "a.zip"), format="sb3", batch_size=4)
    with pytest.raises(ValueError, match=r"choose one of 'savedmodel', 'tflite', 'onnx', 'sb3'"):
        model.export(str(tmp_path / "a.zip"), format="sb2")
    monkeypatch.setitem(sys.modules, "stable_baselines3", None)  # as if it were not installed
    with pytest.raises(ImportError, match=r"pip install stable-baselines\[sb3\]"):
        model.export(str(tmp_path / "a.zip"), format="sb3")
    assert os.listdir(str(tmp_path)) == []


def _recurrent_outputs(sb3_model: Any, observations: np.ndarray, states: Any,
                       starts: np.ndarray) -> Any:
    """:return: (np.ndarray, np.ndarray, states) the probabilities and values of one step of RecurrentPPO's policy"""
    policy = sb3_model.policy
    obs_tensor, _ = policy.obs_to_tensor(observations)
    start_tensor = torch.as_tensor(starts, dtype=torch.float32)
    with torch.no_grad():
        distribution, new_states = policy.get_distribution(obs_tensor, states, start_tensor)
        values = policy.predict_values(obs_tensor, states, start_tensor)
    probabilities = distribution.distribution.probs if not isinstance(distribution.distribution,
                                                                      torch.distributions.Normal) \
        else torch.stack([distribution.distribution.mean, distribution.distribution.stddev])
    return probabilities.numpy(), values.numpy().reshape(-1), new_states


def _zero_states(sb3_model: Any, n_envs: int) -> Any:
    size = sb3_model.policy.lstm_actor.hidden_size
    return tuple(torch.zeros(1, n_envs, size) for _ in range(2))


def test_the_original_cnn_lstm_policy_steps_in_recurrent_ppo_as_it_did(tmp_path: Any) -> None:
    """PPO2's CnnLstmPolicy, saved by the original library: RecurrentPPO carries the state and resets it alike."""
    name = os.path.join(ORIGINAL, "ppo2", "TinyImage_CnnLstmPolicy")
    model = PPO2.load(name + ".zip")
    _export(model, str(tmp_path / "sb3.zip"))
    sb3_model = load_for_check(str(tmp_path / "sb3.zip"), "PPO2", recurrent=True)
    recorded = np.load(name + ".npz")
    states = _zero_states(sb3_model, recorded["obs"].shape[1])
    for step in range(recorded["obs"].shape[0]):
        probabilities, _, states = _recurrent_outputs(sb3_model, recorded["obs"][step], states, recorded["masks"][step])
        np.testing.assert_allclose(probabilities, recorded["proba"][step], rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("action_kind", ["discrete", "box"])
def test_a_recurrent_policy_of_ours_steps_alike_in_recurrent_ppo(action_kind: str, tmp_path: Any) -> None:
    """An LSTM first, then separate policy and value layers: probabilities and values equal step by step."""
    env_id = "CartPole-v1" if action_kind == "discrete" else "Pendulum-v1"
    model = PPO2("MlpLstmPolicy", env_id, n_steps=16, nminibatches=1, seed=0,
                 policy_kwargs=dict(n_lstm=8, net_arch=["lstm", dict(pi=[16], vf=[8])]))
    model.learn(64)
    _export(model, str(tmp_path / "sb3.zip"))
    sb3_model = load_for_check(str(tmp_path / "sb3.zip"), "PPO2", recurrent=True)
    space = model.observation_space
    space.seed(2)
    ours_state = None
    theirs_states = _zero_states(sb3_model, 1)
    policy = model.act_model
    for step in range(12):
        observation = space.sample()[None]
        start = np.array([step in (0, 7)])
        proba = model.action_probability(observation, state=ours_state, mask=start)
        value = model.sess.run(policy.value_flat, {policy.obs_ph: observation, policy.states_ph:
                               policy.initial_state if ours_state is None else ours_state, policy.dones_ph: start})
        _, ours_state = model.predict(observation, state=ours_state, mask=start, deterministic=True)
        probabilities, values, theirs_states = _recurrent_outputs(sb3_model, observation, theirs_states, start)
        np.testing.assert_allclose(values, value, rtol=1e-5, atol=1e-5)
        if action_kind == "discrete":
            np.testing.assert_allclose(probabilities, proba, rtol=1e-5, atol=1e-6)
        else:
            np.testing.assert_allclose(probabilities, np.stack(proba), rtol=1e-5, atol=1e-6)


class _SortedGoalEnv(gymnasium.Env):
    """A goal env whose Dict space lists its entries in sorted order (achieved, desired, observation), of 3 sizes."""

    def __init__(self) -> None:
        box = lambda size: gymnasium.spaces.Box(-1.0, 1.0, (size,), np.float32)  # noqa: E731
        self.observation_space = gymnasium.spaces.Dict(
            {"observation": box(3), "achieved_goal": box(2), "desired_goal": box(2)})
        self.action_space = gymnasium.spaces.Box(-1.0, 1.0, (2,), np.float32)
        self._steps = 0

    def _observation(self) -> Dict[str, np.ndarray]:
        return self.observation_space.sample()

    def reset(self, *, seed: Optional[int] = None, options: Optional[dict] = None) -> Any:
        super().reset(seed=seed)
        self._steps = 0
        return self._observation(), {}

    def step(self, action: Any) -> Any:
        self._steps += 1
        observation = self._observation()
        reward = float(self.compute_reward(observation["achieved_goal"], observation["desired_goal"], {}))
        return observation, reward, False, self._steps >= 8, {}

    def compute_reward(self, achieved_goal: np.ndarray, desired_goal: np.ndarray, info: Any) -> Any:
        return -(np.linalg.norm(np.asarray(achieved_goal) - np.asarray(desired_goal), axis=-1) > 0.5).astype(
            np.float32)


@pytest.mark.parametrize("inner", ["DQN", "SAC", "TD3", "DDPG"])
def test_her_models_travel_with_the_successors_her_buffer(inner: str, tmp_path: Any) -> None:
    """The successor's HER: its replay buffer, MultiInputPolicy, and the entries reordered to its Dict's key order."""
    from stable_baselines import HER
    from stable_baselines.common.bit_flipping_env import BitFlippingEnv

    model_class = _model_class(inner.lower())
    make_env = (lambda: BitFlippingEnv(6, max_steps=6)) if inner == "DQN" else _SortedGoalEnv
    if inner != "DQN":
        assert list(make_env().observation_space.spaces) == ["achieved_goal", "desired_goal", "observation"]
    extra = dict(policy_kwargs=dict(dueling=False)) if inner == "DQN" else {}
    if inner != "DDPG":
        extra["learning_starts"] = 20
    model = HER("MlpPolicy", make_env(), model_class, n_sampled_goal=2, goal_selection_strategy="final", seed=0,
                **extra)
    model.learn(64)
    notes = _export(model, str(tmp_path / "sb3.zip"))
    assert "Exported HER-{}".format(inner) in notes[0], notes
    sb3_model = load_for_check(str(tmp_path / "sb3.zip"), inner, env=make_env())  # the successor's HER needs the env
    assert type(sb3_model.replay_buffer).__name__ == "HerReplayBuffer"
    assert sb3_model.replay_buffer.n_sampled_goal == 2
    assert sb3_model.replay_buffer.goal_selection_strategy.name == "FINAL"
    space = make_env().observation_space
    space.seed(0)
    samples = [space.sample() for _ in range(500)]
    batch = {key: np.stack([sample[key] for sample in samples]) for key in space.spaces}
    ours, _ = model.predict(batch, deterministic=True)
    theirs, _ = sb3_model.predict(batch, deterministic=True)
    if inner == "DQN":
        np.testing.assert_array_equal(theirs, ours)
    else:
        np.testing.assert_allclose(theirs, ours, rtol=1e-5, atol=1e-5)


def test_the_adam_moments_of_ppo2_travel_with_it(tmp_path: Any) -> None:
    """The successor's Adam starts from ours: both moments of every trained parameter, laid out as the weights are,
    and the step count; an untrained model's optimizer starts afresh."""
    model = PPO2("MlpPolicy", "CartPole-v1", n_steps=32, nminibatches=2, noptepochs=3, seed=0, n_cpu_tf_sess=1)
    warning, = _export(model, tmp_path / "untrained.zip")
    assert "the optimizer starts afresh (its moments are not carried over)" in warning
    model.learn(256)  # 8 updates of 2 minibatches x 3 epochs
    warning, = _export(model, tmp_path / "trained.zip")
    assert "the Adam moments are carried over (48 steps" in warning and "starts afresh" not in warning, warning
    sb3_model = load_for_check(str(tmp_path / "trained.zip"), "PPO2")
    optimizer = sb3_model.policy.optimizer
    named = dict(sb3_model.policy.named_parameters())
    ours = {variable.name: value for variable, value in zip(
        model.graph.get_collection("variables"), model.sess.run(model.graph.get_collection("variables")))}
    for sb3_name, our_name, transpose in (("mlp_extractor.policy_net.0.weight", "model/pi_fc0/w", True),
                                          ("mlp_extractor.value_net.2.bias", "model/vf_fc1/b", False),
                                          ("action_net.weight", "model/pi/w", True)):
        state = optimizer.state[named[sb3_name]]
        assert float(state["step"]) == 48.0
        for key, slot in (("exp_avg", "Adam"), ("exp_avg_sq", "Adam_1")):
            expected = ours["{}/{}:0".format(our_name, slot)]
            np.testing.assert_array_equal(state[key].numpy(), expected.T if transpose else expected)
    assert len(optimizer.state) == len(list(sb3_model.policy.parameters()))
    sb3_model.set_env(gymnasium.make("CartPole-v1"))
    sb3_model.learn(64)  # the successor trains on from them
