"""
Exact resume: ``save(path, include_training_state=True)`` then ``ALGO.load(path, env)`` continues training exactly
as the saved model does.

The protocol of every comparison: model A trains ``N1`` steps and is saved with its training state; then A gets a
new env and B (loaded from the file) gets one built the same way, both envs are seeded alike after the model got
them, and both train ``N2`` more steps with ``reset_num_timesteps=False``: their parameters must be identical, not
merely close. Every case of :data:`CASES` is resumed in a fresh process by tests/test_resume_new_process.py; the
tests here check what a file holds and refuses.
"""
import os
import zipfile
from functools import partial

import gymnasium as gym
import numpy as np
import pytest

from stable_baselines import A2C, ACER, ACKTR, DQN, HER, PPO2, SAC, TD3
from stable_baselines.common.bit_flipping_env import BitFlippingEnv
from stable_baselines.common.callbacks import CheckpointCallback
from stable_baselines.common.gym_compat import reset_env, seed_on_next_reset
from stable_baselines.common.model.training_state import (ARRAYS_MEMBER, BUFFER_MEMBER, STATE_MEMBER,
                                                          capture_training_state)
from stable_baselines.common.noise import AdaptiveParamNoiseSpec, NormalActionNoise, OrnsteinUhlenbeckActionNoise
from stable_baselines.common.safe_loading.errors import InvalidModelFileError
from stable_baselines.common.vec_env import VecEnv
from tests.mask_env_helpers import ChangingMaskEnv
from tests.hostile_payloads import edit_json_member, edit_npz_member, rewrite_model_file

try:
    from stable_baselines import DDPG, GAIL, PPO1, TRPO
    from stable_baselines.gail import ExpertDataset
except ImportError:  # without mpi4py (the [mpi] extra)
    DDPG = GAIL = PPO1 = TRPO = ExpertDataset = None

EXPERT_CARTPOLE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "stable_baselines",
                               "gail", "dataset", "expert_cartpole.npz")
SMALL = dict(seed=3, n_cpu_tf_sess=1, policy_kwargs=dict(layers=[8]))
SMALL_AC = dict(seed=3, n_cpu_tf_sess=1, policy_kwargs=dict(net_arch=[dict(pi=[8], vf=[8])]))
OFF_POLICY = dict(learning_starts=50, buffer_size=500, batch_size=16)


def _expert() -> "ExpertDataset":
    return ExpertDataset(expert_path=EXPERT_CARTPOLE, traj_limitation=2, batch_size=32, verbose=0)


# name -> (env id, constructor of the model for an env, keyword arguments of load)
CASES = {
    "A2C": ("CartPole-v1", lambda env: A2C("MlpPolicy", env, n_steps=8, **SMALL_AC), {}),
    "ACER": ("CartPole-v1", lambda env: ACER("MlpPolicy", env, n_steps=8, buffer_size=200, replay_start=16,
                                             **SMALL_AC), {}),
    "ACKTR": ("CartPole-v1", lambda env: ACKTR("MlpPolicy", env, n_steps=8, **SMALL_AC), {}),
    "PPO2": ("Pendulum-v1", lambda env: PPO2("MlpPolicy", env, n_steps=32, nminibatches=4, noptepochs=2, **SMALL_AC),
             {}),
    "PPO2-lstm": ("CartPole-v1", lambda env: PPO2("MlpLstmPolicy", env, n_steps=16, nminibatches=1, noptepochs=1,
                                                  seed=3, n_cpu_tf_sess=1,
                                                  policy_kwargs=dict(n_lstm=8, net_arch=[8, "lstm"])), {}),
    "DQN": ("CartPole-v1", lambda env: DQN("MlpPolicy", env, target_network_update_freq=20, **OFF_POLICY, **SMALL),
            {}),
    "DQN-prioritized": ("CartPole-v1", lambda env: DQN("MlpPolicy", env, prioritized_replay=True, **OFF_POLICY,
                                                       **SMALL), {}),
    "DQN-param-noise": ("CartPole-v1", lambda env: DQN("MlpPolicy", env, param_noise=True, **OFF_POLICY, **SMALL),
                        {}),
    "SAC": ("Pendulum-v1", lambda env: SAC("MlpPolicy", env, **OFF_POLICY, **SMALL), {}),
    "TD3": ("Pendulum-v1", lambda env: TD3("MlpPolicy", env, action_noise=NormalActionNoise(np.zeros(1),
                                                                                            0.1 * np.ones(1)),
                                           **OFF_POLICY, **SMALL), {}),
    # invalid-action masks: the masked sampling ops count their draws too
    "PPO2-masks": ("masks", lambda env: PPO2("MlpPolicy", env, n_steps=16, nminibatches=2, noptepochs=1, **SMALL_AC),
                   {}),
    "DQN-masks": ("masks", lambda env: DQN("MlpPolicy", env, **OFF_POLICY, **SMALL), {}),
    "HER-SAC": ("bits-continuous", lambda env: HER("MlpPolicy", env, SAC, n_sampled_goal=2, learning_starts=20,
                                                   buffer_size=500, batch_size=16, **SMALL), {}),
    "HER-DQN": ("bits", lambda env: HER("MlpPolicy", env, DQN, n_sampled_goal=2, learning_starts=20,
                                        buffer_size=500, batch_size=16, **SMALL), {}),
}
if DDPG is not None:
    CASES.update({
        "PPO1": ("Pendulum-v1", lambda env: PPO1("MlpPolicy", env, timesteps_per_actorbatch=64, optim_batchsize=16,
                                                 optim_epochs=2, **SMALL_AC), {}),
        "TRPO": ("CartPole-v1", lambda env: TRPO("MlpPolicy", env, timesteps_per_batch=64, vf_iters=1, cg_iters=3,
                                                 **SMALL_AC), {}),
        "GAIL": ("CartPole-v1", lambda env: GAIL("MlpPolicy", env, _expert(), timesteps_per_batch=64, vf_iters=1,
                                                 cg_iters=3, g_step=1, **SMALL_AC), {"expert_dataset": _expert}),
        "DDPG": ("Pendulum-v1", lambda env: DDPG("MlpPolicy", env, nb_rollout_steps=20, nb_train_steps=5,
                                                 batch_size=16, buffer_size=500, normalize_observations=True,
                                                 action_noise=OrnsteinUhlenbeckActionNoise(np.zeros(1),
                                                                                           0.2 * np.ones(1)),
                                                 **SMALL), {}),
        "DDPG-param-noise": ("Pendulum-v1", lambda env: DDPG("MlpPolicy", env, nb_rollout_steps=20, nb_train_steps=5,
                                                             batch_size=16, buffer_size=500,
                                                             param_noise=AdaptiveParamNoiseSpec(), **SMALL), {}),
    })


def _model_class(case: str) -> type:
    """:return: (type) the class whose ``load`` reads the case's files"""
    name = case.split("-")[0]
    return {"A2C": A2C, "ACER": ACER, "ACKTR": ACKTR, "PPO2": PPO2, "DQN": DQN, "SAC": SAC, "TD3": TD3, "HER": HER,
            "PPO1": PPO1, "TRPO": TRPO, "GAIL": GAIL, "DDPG": DDPG}[name]


def make_env(env_id: str):
    """A fresh env of the case (seeded by :func:`reseed` once a model holds it)."""
    if env_id == "masks":
        return ChangingMaskEnv()
    if env_id.startswith("bits"):
        return BitFlippingEnv(n_bits=4, continuous=env_id.endswith("continuous"), max_steps=4)
    return gym.make(env_id)


def reseed(model, seed: int = 7) -> None:
    """Seed the env a model trains on, and its action space."""
    env = model.get_env()
    if isinstance(env, VecEnv):
        env.seed(seed)
    else:
        seed_on_next_reset(env, seed)
    env.action_space.seed(seed)


def _load_kwargs(case: str) -> dict:
    return {key: value() for key, value in CASES[case][2].items()}


def _train_save_continue(case: str, path: str, n1: int = 200, n2: int = 200, **save_kwargs):
    """Model A: ``n1`` steps, saved to ``path``, ``n2`` more steps on a new env; :return: (model) A"""
    env_id, build, _ = CASES[case]
    model = build(make_env(env_id))
    model.learn(n1)
    model.save(path, **save_kwargs)
    model.set_env(make_env(env_id))
    reseed(model)
    model.learn(n2, reset_num_timesteps=False)
    return model


def _load_continue(case: str, path: str, n2: int = 200):
    """Model B: loaded from ``path`` with a new env, ``n2`` more steps; :return: (model) B"""
    env_id = CASES[case][0]
    model = _model_class(case).load(path, env=make_env(env_id), **_load_kwargs(case))
    reseed(model)
    model.learn(n2, reset_num_timesteps=False)
    return model


def _assert_same_parameters(first, second) -> None:
    expected, found = first.get_parameters(), second.get_parameters()
    assert list(expected) == list(found)
    for name in expected:
        np.testing.assert_array_equal(expected[name], found[name], err_msg=name)


def test_resume_under_vec_normalize_goes_on_normalising(tmp_path):
    """A model trained under VecNormalize, loaded with a raw env: the VecNormalize that load makes goes on
    updating its statistics and normalising rewards as the saved model's did, so training continues exactly."""
    from stable_baselines.common.vec_env import DummyVecEnv, VecNormalize

    def raw():
        return DummyVecEnv([lambda: gym.make("Pendulum-v1")])

    path = str(tmp_path / "model.zip")
    model = PPO2("MlpPolicy", VecNormalize(raw()), n_steps=32, nminibatches=4, noptepochs=2, **SMALL_AC)
    model.learn(192)
    model.save(path, include_training_state=True)
    statistics = model.get_normalization_statistics()
    model.set_env(statistics.wrap(raw(), training=True, norm_reward=True))
    reseed(model)
    model.learn(192, reset_num_timesteps=False)

    resumed = PPO2.load(path, env=raw())
    made = resumed.get_vec_normalize_env()
    assert made is not None and made.training and made.norm_reward
    reseed(resumed)
    resumed.learn(192, reset_num_timesteps=False)
    _assert_same_parameters(model, resumed)
    np.testing.assert_array_equal(model.get_vec_normalize_env().obs_rms.mean, made.obs_rms.mean)
    # without the training state, load freezes the statistics and leaves the rewards raw
    model.save(str(tmp_path / "plain.zip"))
    plain = PPO2.load(str(tmp_path / "plain.zip"), env=raw()).get_vec_normalize_env()
    assert not plain.training and not plain.norm_reward


@pytest.mark.parametrize("case", ["A2C", "SAC"])
def test_without_training_state_the_continuation_differs(case, tmp_path):
    """The stored state is what makes the difference (optimizer slots, generators, replay buffer)."""
    path = str(tmp_path / "model.zip")
    saved = _train_save_continue(case, path)
    resumed = _load_continue(case, path)
    expected, found = saved.get_parameters(), resumed.get_parameters()
    assert any(not np.array_equal(expected[name], found[name]) for name in expected)


def test_her_unfinished_episode_is_kept(tmp_path):
    """HER stores an episode when it ends; the steps of the one running at save time are in the training state."""
    env_id, build, _ = CASES["HER-DQN"]
    model = build(make_env(env_id))
    model.learn(203)
    pending = len(model.model.replay_buffer.episode_transitions)
    assert pending > 0
    path = str(tmp_path / "her.zip")
    model.save(path, include_training_state=True)
    loaded = HER.load(path, env=make_env(env_id))
    kept = loaded.model.replay_buffer.episode_transitions
    assert len(kept) == pending
    for (obs, action, reward, _, done, _), original in zip(kept, model.model.replay_buffer.episode_transitions):
        np.testing.assert_array_equal(obs, original[0])
        np.testing.assert_array_equal(action, original[1])
        assert (reward, done) == (original[2], original[4]) and type(done) is type(original[4])


def _members(path: str) -> list:
    with zipfile.ZipFile(path) as archive:
        return sorted(archive.namelist())


def _sac_saved_both_ways(folder, n_steps: int) -> tuple:
    """
    Train the SAC case ``n_steps`` steps and save it twice: ``with.zip`` with its training state, ``plain.zip``
    without.

    :return: (SAC, str, str) the model and the two paths
    """
    env_id, build, _ = CASES["SAC"]
    model = build(make_env(env_id))
    model.learn(n_steps)
    with_state, plain = str(folder / "with.zip"), str(folder / "plain.zip")
    model.save(with_state, include_training_state=True)
    model.save(plain)
    return model, with_state, plain


def test_file_layout_and_plain_files(tmp_path):
    """The original's three members are unchanged; a file without training state loads as before."""
    env_id = CASES["SAC"][0]
    model, with_state, plain = _sac_saved_both_ways(tmp_path, 100)
    assert _members(with_state) == sorted(_members(plain) + [ARRAYS_MEMBER, BUFFER_MEMBER, STATE_MEMBER])
    with zipfile.ZipFile(with_state) as first, zipfile.ZipFile(plain) as second:
        for name in ("data", "parameter_list", "parameters"):
            assert first.read(name) == second.read(name)

    loaded = SAC.load(plain, env=make_env(env_id))
    assert loaded.num_timesteps == 0 and len(loaded.replay_buffer) == 0
    assert loaded.sess.run(loaded.graph.get_tensor_by_name("loss/beta1_power:0")) == np.float32(0.9)
    resumed = SAC.load(with_state, env=make_env(env_id))
    assert resumed.num_timesteps == 100 and len(resumed.replay_buffer) == 100
    state = capture_training_state(model)
    assert sorted(capture_training_state(resumed).arrays) == sorted(state.arrays)
    for name in ("variables/loss/beta1_power:0", "variables/loss/model/pi/fc0/kernel/Adam:0"):
        np.testing.assert_array_equal(capture_training_state(resumed).arrays[name], state.arrays[name])


def test_checkpoint_callback_writes_training_state(tmp_path):
    """A checkpoint holds the training state of the moment it was written, and resumes from it exactly."""
    env_id, build, _ = CASES["A2C"]
    model = build(make_env(env_id))
    captured = {}

    class Capture(CheckpointCallback):
        def _on_step(self) -> bool:
            answer = super()._on_step()
            if self.n_calls % self.save_freq == 0:
                captured[self.num_timesteps] = capture_training_state(self.model)
            return answer

    folder = str(tmp_path / "checkpoints")
    model.learn(160, callback=Capture(save_freq=10, save_path=folder, name_prefix="a2c", save_training_state=True))
    path = os.path.join(folder, "a2c_80_steps.zip")
    assert STATE_MEMBER in _members(path)
    plain = CheckpointCallback(save_freq=10, save_path=str(tmp_path / "plain"))
    model.learn(16, callback=plain)
    written = os.listdir(str(tmp_path / "plain"))
    assert written and not any(name.startswith("training_state/")
                               for name in _members(str(tmp_path / "plain" / written[0])))

    loaded = A2C.load(path, env=make_env(env_id))
    restored = capture_training_state(loaded)
    expected = captured[80]
    assert restored.info["num_timesteps"] == 80
    for name, array in expected.arrays.items():
        np.testing.assert_array_equal(restored.arrays[name], array, err_msg=name)
    # two models resumed from the checkpoint go on identically
    other = A2C.load(path, env=make_env(env_id))
    for resumed in (loaded, other):
        reseed(resumed)
        resumed.learn(80, reset_num_timesteps=False)
    _assert_same_parameters(loaded, other)


# ------------------------------------------------------------------------------------------------ hostile files
@pytest.fixture(scope="module")
def saved_sac(tmp_path_factory):
    path = str(tmp_path_factory.mktemp("hostile") / "sac.zip")
    env_id, build, _ = CASES["SAC"]
    model = build(make_env(env_id))
    model.learn(80)
    model.save(path, include_training_state=True)
    return path


_edit_state = partial(edit_json_member, STATE_MEMBER)
_edit_arrays = partial(edit_npz_member, ARRAYS_MEMBER)


def _set(key, value):
    return lambda state: state.__setitem__(key, value)


HOSTILE = {
    "another algorithm": (_edit_state(_set("algorithm", "TD3")), "saved by a TD3 model"),
    "unknown version": (_edit_state(_set("version", 99)), "unknown version 99"),
    "negative timesteps": (_edit_state(_set("num_timesteps", -5)), "'num_timesteps' must be an int >= 0"),
    "variable missing": (_edit_state(lambda state: state["variables"].pop()), "do not match the model's"),
    "unknown variable": (_edit_state(lambda state: state["variables"].append("evil/Adam:0")), "unknown ['evil/Adam:0']"),
    "unknown random op": (_edit_state(_set("tf_random_draws", {"evil/RandomStandardNormal": 5})),
                          "no random op 'evil/RandomStandardNormal'"),
    "huge random draws": (_edit_state(_set("tf_random_draws", {"model/random_normal/RandomStandardNormal": 1 << 60})),
                          "must be an int in"),
    "generator of another kind": (_edit_state(lambda state: state["rng"]["forward"].__setitem__("bit_generator",
                                                                                                 "MT19937")),
                                  "must be the state of a PCG64 generator"),
    "wrong shape": (_edit_arrays(lambda arrays: arrays.__setitem__("variables/loss/beta1_power:0",
                                                                   np.zeros(3, np.float32))),
                    "must be a float32 array of shape ()"),
    "wrong dtype": (_edit_arrays(lambda arrays: arrays.__setitem__("variables/loss/beta1_power:0",
                                                                   np.array(0.5, np.float64))),
                    "must be a float32 array of shape ()"),
    "short generator keys": (_edit_arrays(lambda arrays: arrays.__setitem__("rng/numpy", np.zeros(3, np.uint32))),
                             "624 values"),
    "stray array": (_edit_arrays(lambda arrays: arrays.__setitem__("evil", np.zeros(3))), "unknown arrays ['evil']"),
    "state member missing": (lambda members: members.pop(STATE_MEMBER), "but not its 'training_state/state.json'"),
    "buffer member malformed": (lambda members: members.__setitem__(BUFFER_MEMBER, members[ARRAYS_MEMBER]),
                                "must hold one uint8 array 'file'"),
}


@pytest.mark.parametrize("kind", sorted(HOSTILE))
def test_hostile_training_state_is_refused(saved_sac, tmp_path, kind):
    change, message = HOSTILE[kind]
    path = rewrite_model_file(saved_sac, str(tmp_path / "hostile.zip"), change)
    with pytest.raises(InvalidModelFileError) as error:
        SAC.load(path, env=make_env("Pendulum-v1"))
    assert message in str(error.value)
    assert "hostile.zip" in str(error.value)


def test_state_of_another_architecture_is_refused(saved_sac, tmp_path):
    """A training state whose variables have other shapes than the model's (another net) is refused by name."""
    env_id, _, _ = CASES["SAC"]
    other = SAC("MlpPolicy", make_env(env_id), seed=3, n_cpu_tf_sess=1, policy_kwargs=dict(layers=[4]), **OFF_POLICY)
    other.learn(60)
    wide = str(tmp_path / "wide.zip")
    other.save(wide, include_training_state=True)

    def graft(members):
        with zipfile.ZipFile(wide) as archive:
            for name in (STATE_MEMBER, ARRAYS_MEMBER):
                members[name] = archive.read(name)
    path = rewrite_model_file(saved_sac, str(tmp_path / "grafted.zip"), graft)
    with pytest.raises(InvalidModelFileError, match="must be a float32 array of shape"):
        SAC.load(path, env=make_env(env_id))


def test_resuming_leaves_the_env_as_given(tmp_path):
    """``load`` seeds the env it is given with the model's seed, as the original did, unless the file resumes a
    training state: then the env goes on as the user prepared it, as the saved model's env after ``set_env``."""
    env_id = CASES["SAC"][0]
    _, with_state, plain = _sac_saved_both_ways(tmp_path, 60)

    def user_env():
        env = make_env(env_id)
        env.reset(seed=7)
        return env

    reference = make_env(env_id)
    reference.reset(seed=7)
    after_user_seed = reference.reset()[0]
    seeded_by_model = reference.reset(seed=SMALL["seed"])[0]
    resumed = SAC.load(with_state, env=user_env())
    # the library resets its envs through reset_env (which applies a seed pending from env.seed-style seeding)
    np.testing.assert_array_equal(reset_env(resumed.get_env())[0], after_user_seed)
    loaded = SAC.load(plain, env=user_env())
    np.testing.assert_array_equal(reset_env(loaded.get_env())[0], seeded_by_model)
