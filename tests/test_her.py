"""HER: the goal env wrapper, the replay wrapper's goal selection strategies, errors, save/load, learning.

Learning tests (marked slow):

* HER + DQN on BitFlippingEnv with 10 bits (discrete actions): 'future' strategy, 4 sampled goals,
  6 000 steps; success rate >= 0.9 over 50 deterministic episodes.
* HER + SAC, TD3 and DDPG on the continuous BitFlippingEnv with 4 bits ('future', 4 sampled goals,
  2 000 steps (2 500 for DDPG)); success rate >= 0.9 over 50 deterministic episodes. HER + DDPG is skipped
  only when stable_baselines.ddpg cannot be imported (it needs mpi4py).
"""
import importlib.util
import io
import os
import subprocess
import sys
from collections import OrderedDict

import gymnasium
import numpy as np
import pytest
from gymnasium import spaces

from her_helpers import success_rate

from stable_baselines import DQN, SAC, TD3
from stable_baselines.common.bit_flipping_env import BitFlippingEnv
from stable_baselines.common.buffers import ReplayBuffer
from stable_baselines.common.save_util import load_model_file
from stable_baselines.common.vec_env import DummyVecEnv
from stable_baselines.her import (HER, GoalSelectionStrategy, HERGoalEnvWrapper, HindsightExperienceReplayWrapper,
                                  KEY_TO_GOAL_STRATEGY)

HAS_DDPG = importlib.util.find_spec("stable_baselines.ddpg") is not None and \
    importlib.util.find_spec("mpi4py") is not None


# importing HER without mpi4py: tests/test_import_and_global_state.py


# --------------------------------------------------------------------------------------------------
# strategies and the goal env wrapper
# --------------------------------------------------------------------------------------------------
def test_goal_selection_strategies():
    assert [s.name for s in GoalSelectionStrategy] == ["FUTURE", "FINAL", "EPISODE", "RANDOM"]
    assert [s.value for s in GoalSelectionStrategy] == [0, 1, 2, 3]
    assert KEY_TO_GOAL_STRATEGY == {"future": GoalSelectionStrategy.FUTURE, "final": GoalSelectionStrategy.FINAL,
                                    "episode": GoalSelectionStrategy.EPISODE, "random": GoalSelectionStrategy.RANDOM}


def test_goal_env_wrapper_multibinary():
    env = HERGoalEnvWrapper(BitFlippingEnv(3))
    assert isinstance(env.observation_space, spaces.MultiBinary) and env.observation_space.n == 9
    assert env.action_space == spaces.Discrete(3)
    obs, info = env.reset(seed=0)
    assert obs.shape == (9,) and info == {}
    np.testing.assert_array_equal(obs[6:], [1, 1, 1])
    np.testing.assert_array_equal(obs[:3], obs[3:6])
    obs_dict = env.convert_obs_to_dict(obs)
    assert list(obs_dict) == ["observation", "achieved_goal", "desired_goal"]
    np.testing.assert_array_equal(env.convert_dict_to_obs(obs_dict), obs)
    new_obs, reward, terminated, truncated, info = env.step(0)
    assert new_obs.shape == (9,) and reward in (0.0, -1.0) and "is_success" in info
    assert env.compute_reward(np.ones(3), np.ones(3), None) == 0.0
    # batches
    batch = np.stack([obs, new_obs])
    batch_dict = env.convert_obs_to_dict(batch)
    assert batch_dict["desired_goal"].shape == (2, 3)
    np.testing.assert_array_equal(env.convert_dict_to_obs(batch_dict), batch)


def test_goal_env_wrapper_discrete_and_box():
    env = HERGoalEnvWrapper(BitFlippingEnv(3, discrete_obs_space=True))
    assert isinstance(env.observation_space, spaces.MultiDiscrete)
    np.testing.assert_array_equal(env.observation_space.nvec, [8, 8, 8])
    obs, _ = env.reset(seed=0)
    assert obs.shape == (3,) and obs[2] == 7
    obs_dict = env.convert_obs_to_dict(obs)
    assert obs_dict["desired_goal"] == 7 and isinstance(obs_dict["achieved_goal"], int)
    np.testing.assert_array_equal(env.convert_dict_to_obs(obs_dict), obs)

    class BoxGoalEnv(gymnasium.Env):
        observation_space = spaces.Dict(OrderedDict([
            ("observation", spaces.Box(-1, 1, (4,), np.float32)),
            ("achieved_goal", spaces.Box(-2, 2, (2,), np.float32)),
            ("desired_goal", spaces.Box(-2, 2, (2,), np.float32))]))
        action_space = spaces.Box(-1, 1, (2,), np.float32)

        def reset(self, *, seed=None, options=None):
            return self.observation_space.sample(), {}

        def step(self, action):
            return self.observation_space.sample(), 0.0, False, False, {}

        def compute_reward(self, achieved_goal, desired_goal, info):
            return -np.linalg.norm(achieved_goal - desired_goal, axis=-1)

    env = HERGoalEnvWrapper(BoxGoalEnv())
    assert env.observation_space.shape == (8,) and env.observation_space.dtype == np.float32
    np.testing.assert_array_equal(env.observation_space.low, [-1] * 4 + [-2] * 4)
    obs, _ = env.reset()
    np.testing.assert_allclose(env.convert_dict_to_obs(env.convert_obs_to_dict(obs)), obs)


def test_goal_env_wrapper_legacy_and_registered_envs():
    class LegacyGoalEnv(object):
        """gym-style: reset() returns the observation, step() a 4-tuple"""
        observation_space = BitFlippingEnv(3).observation_space
        action_space = spaces.Discrete(3)

        def __init__(self):
            self.inner = BitFlippingEnv(3, max_steps=2)

        def reset(self):
            return self.inner.reset(seed=0)[0]

        def step(self, action):
            obs, reward, terminated, truncated, info = self.inner.step(action)
            return obs, reward, terminated or truncated, info

        def compute_reward(self, achieved_goal, desired_goal, info):
            return self.inner.compute_reward(achieved_goal, desired_goal, info)

    env = HERGoalEnvWrapper(LegacyGoalEnv())
    obs, info = env.reset()
    assert obs.shape == (9,) and info == {}
    _, reward, terminated, truncated, _ = env.step(0)
    assert reward in (0.0, -1.0) and isinstance(terminated, bool) and isinstance(truncated, bool)
    assert env.compute_reward(np.ones(3), np.zeros(3), None) == -1.0

    # an env made by gymnasium.make is wrapped (wrappers do not forward compute_reward): it is found inside
    if "BitFlippingHERTest-v0" not in gymnasium.registry:
        gymnasium.register("BitFlippingHERTest-v0", entry_point=BitFlippingEnv, kwargs=dict(n_bits=3))
    env = HERGoalEnvWrapper(gymnasium.make("BitFlippingHERTest-v0", disable_env_checker=True))
    assert env.observation_space.n == 9
    assert env.compute_reward(np.ones(3), np.ones(3), None) == 0.0


def test_not_a_goal_env_errors():
    with pytest.raises(ValueError, match="observation space must be a Dict with the keys 'observation', "
                                         "'achieved_goal', 'desired_goal', got Box"):
        HER("MlpPolicy", gymnasium.make("CartPole-v1"), DQN)

    class MissingKey(BitFlippingEnv):
        def __init__(self):
            super().__init__(3)
            self.observation_space = spaces.Dict({"observation": spaces.MultiBinary(3),
                                                  "achieved_goal": spaces.MultiBinary(3)})

    with pytest.raises(ValueError, match="lacks the key\\(s\\) 'desired_goal'"):
        HERGoalEnvWrapper(MissingKey())

    class NoComputeReward(gymnasium.Env):
        observation_space = BitFlippingEnv(3).observation_space
        action_space = spaces.Discrete(3)

        def reset(self, *, seed=None, options=None):
            return self.observation_space.sample(), {}

        def step(self, action):
            return self.observation_space.sample(), 0.0, False, False, {}

    with pytest.raises(ValueError, match=r"has no method compute_reward\(achieved_goal, desired_goal, info\)"):
        HER("MlpPolicy", NoComputeReward(), DQN)
    with pytest.raises(ValueError, match="off-policy model class"):
        HER("MlpPolicy", BitFlippingEnv(3), object)
    with pytest.raises(ValueError, match="Invalid goal selection strategy 'futur'"):
        HER("MlpPolicy", BitFlippingEnv(3), DQN, goal_selection_strategy="futur")
    with pytest.raises(ValueError, match="n_sampled_goal"):
        HER("MlpPolicy", BitFlippingEnv(3), DQN, n_sampled_goal=-1)


# --------------------------------------------------------------------------------------------------
# the replay wrapper: what each strategy samples
# --------------------------------------------------------------------------------------------------
def _episode_wrapper(strategy, n_sampled_goal=3, n_steps=5, prefill=None):
    """A discrete-observation bit env whose achieved goal after step t is 10 + t (desired goal 63)."""
    env = HERGoalEnvWrapper(BitFlippingEnv(6, discrete_obs_space=True))
    buffer = ReplayBuffer(1000)
    for goal in prefill or []:
        buffer.add(np.array([goal, goal, 63]), 0, -1.0, np.array([goal, goal, 63]), 0.0)
    wrapper = HindsightExperienceReplayWrapper(buffer, n_sampled_goal, strategy, env)
    for t in range(n_steps):
        obs_t = np.array([9 + t, 9 + t, 63])
        obs_tp1 = np.array([10 + t, 10 + t, 63])
        wrapper.add(obs_t, t % 6, -1.0, obs_tp1, t == n_steps - 1, {"step": t})
    return wrapper, len(prefill or [])


def _relabelled(wrapper, start):
    """{step: [(desired goal, reward, done), ...]} of the artificial transitions."""
    storage = wrapper.replay_buffer.storage[start:]
    out, step = {}, None
    for obs_t, action, reward, obs_tp1, done in storage:
        if obs_t[2] == 63 and obs_tp1[2] == 63 and (step is None or obs_t[0] != step + 9):
            step = int(obs_t[0]) - 9
            out[step] = []
            continue
        out[step].append((int(obs_tp1[2]), reward, done))
        assert obs_t[2] == obs_tp1[2]
    return out


@pytest.mark.parametrize("strategy", ["future", "final", "episode", "random", GoalSelectionStrategy.FUTURE])
def test_replay_wrapper_sampled_goals(strategy):
    prefill = [50, 51, 52] if strategy == "random" else None
    wrapper, start = _episode_wrapper(strategy, prefill=prefill)
    assert len(wrapper) == start + 5 * (1 + 3) and wrapper.episode_transitions == []
    relabelled = _relabelled(wrapper, start)
    assert sorted(relabelled) == [0, 1, 2, 3, 4]
    strategy = KEY_TO_GOAL_STRATEGY.get(strategy, strategy)
    for t, transitions in relabelled.items():
        assert len(transitions) == 3
        for goal, reward, done in transitions:
            achieved_next = 10 + t
            if strategy == GoalSelectionStrategy.FUTURE:
                assert 10 + t <= goal <= 14
            elif strategy == GoalSelectionStrategy.FINAL:
                assert goal == 14
            elif strategy == GoalSelectionStrategy.EPISODE:
                assert 10 <= goal <= 14
            else:
                # the buffer: the prefilled transitions and those of this episode stored so far
                assert goal in (50, 51, 52) or 10 <= goal <= 10 + t
            # the reward is recomputed for the new goal, artificial transitions are not terminal
            assert reward == (0.0 if goal == achieved_next else -1.0)
            assert done is False
    # the real transitions are kept as they were (last one terminal)
    real = [tr for tr in wrapper.replay_buffer.storage[start:] if tr[0][2] == 63 and tr[3][2] == 63]
    assert [tr[4] for tr in real] == [False] * 4 + [True]


def test_replay_wrapper_future_covers_later_steps_and_stores_only_at_episode_end():
    np.random.seed(0)
    wrapper, _ = _episode_wrapper("future", n_sampled_goal=40)
    goals_step0 = {goal for goal, _, _ in _relabelled(wrapper, 0)[0]}
    assert goals_step0 == {10, 11, 12, 13, 14}
    env = HERGoalEnvWrapper(BitFlippingEnv(6, discrete_obs_space=True))
    wrapper = HindsightExperienceReplayWrapper(ReplayBuffer(100), 2, GoalSelectionStrategy.FINAL, env)
    wrapper.add(np.array([1, 1, 63]), 0, -1.0, np.array([2, 2, 63]), False, {})
    assert len(wrapper) == 0 and not wrapper.can_sample(1)
    wrapper.flush()
    assert len(wrapper) == 3 and wrapper.can_sample(3)
    with pytest.raises(ValueError, match="Invalid goal selection strategy"):
        HindsightExperienceReplayWrapper(ReplayBuffer(10), 2, "best", env)


def test_replay_wrapper_multibinary_rewards():
    env = HERGoalEnvWrapper(BitFlippingEnv(3))
    wrapper = HindsightExperienceReplayWrapper(ReplayBuffer(100), 2, GoalSelectionStrategy.FINAL, env)
    obs_t = np.array([0, 0, 0, 0, 0, 0, 1, 1, 1], dtype=np.int8)
    obs_tp1 = np.array([1, 0, 0, 1, 0, 0, 1, 1, 1], dtype=np.int8)
    wrapper.add(obs_t, 0, -1.0, obs_tp1, True, {})
    storage = wrapper.storage
    assert len(storage) == 3
    for obs, _, reward, next_obs, done in storage[1:]:
        np.testing.assert_array_equal(next_obs[6:], [1, 0, 0])
        np.testing.assert_array_equal(obs[6:], [1, 0, 0])
        assert reward == 0.0 and done is False


# --------------------------------------------------------------------------------------------------
# the model wrapper
# --------------------------------------------------------------------------------------------------
def test_her_dqn_learns_with_each_strategy():
    env = BitFlippingEnv(4, max_steps=4)
    model = HER("MlpPolicy", env, DQN, n_sampled_goal=2, learning_starts=30, seed=0, n_cpu_tf_sess=1)
    assert model.goal_selection_strategy == GoalSelectionStrategy.FUTURE
    for strategy in ["future", "final", "episode", "random"]:
        model.goal_selection_strategy = KEY_TO_GOAL_STRATEGY[strategy]
        model.set_env(env)  # recreates the replay wrapper with the new strategy
        assert model.learn(60) is model
        assert model.num_timesteps == 60
        buffer = model.model.replay_buffer
        assert isinstance(buffer, HindsightExperienceReplayWrapper)
        assert buffer.goal_selection_strategy == KEY_TO_GOAL_STRATEGY[strategy]
        # every stored real transition comes with 2 artificial ones
        assert len(buffer) % 3 == 0 and len(buffer) >= 3 * (60 - 4)
    # callbacks and the progress bar reach the wrapped model's learn
    model.learn(30, callback=lambda locals_, globals_: locals_["self"].num_timesteps < 10, progress_bar=True)
    assert model.num_timesteps == 10


def test_her_discrete_obs_space_and_vec_env():
    env = DummyVecEnv([lambda: BitFlippingEnv(3, discrete_obs_space=True)])
    model = HER("MlpPolicy", env, DQN, learning_starts=20, seed=1, n_cpu_tf_sess=1)
    assert isinstance(model.get_env(), HERGoalEnvWrapper)
    assert isinstance(model.model.observation_space, spaces.MultiDiscrete)
    model.learn(60)
    obs = env.reset()
    action, _ = model.predict(obs)
    assert action.shape == (1,)
    # the stored terminal transitions hold the true last observation (not the reset one of the VecEnv)
    successes = [tr for tr in model.model.replay_buffer.storage if tr[4] and tr[2] == 0.0]
    assert successes and all(tr[3][1] == tr[3][2] == 7 for tr in successes)


def test_her_predict_dict_and_batch():
    env = BitFlippingEnv(4)
    model = HER("MlpPolicy", env, DQN, seed=0, n_cpu_tf_sess=1)
    obs, _ = env.reset(seed=0)
    action, state = model.predict(obs)
    assert state is None and 0 <= int(action) < 4
    flat = model.get_env().convert_dict_to_obs(obs)
    assert model.predict(flat)[0] == action
    batch = OrderedDict((key, np.stack([value, value])) for key, value in obs.items())
    actions, _ = model.predict(batch)
    assert actions.shape == (2,) and np.all(actions == action)
    probs = model.action_probability(obs)
    assert probs.shape == (4,) and np.isclose(probs.sum(), 1.0)
    with pytest.raises(ValueError, match=r"\(observation, info\) tuple"):
        model.predict(env.reset())
    # attributes of the wrapped model
    assert model.sess is model.model.sess and model.gamma == model.model.gamma


def test_her_save_load_round_trip(tmp_path):
    env = BitFlippingEnv(4, continuous=True)
    model = HER("MlpPolicy", env, SAC, n_sampled_goal=3, goal_selection_strategy="episode", learning_starts=20,
                seed=0, n_cpu_tf_sess=1, gamma=0.9)
    model.learn(50)
    obs, _ = env.reset(seed=3)
    action, _ = model.predict(obs, deterministic=True)
    path = str(tmp_path / "her_sac.zip")
    model.save(path)
    assert "_save_to_file" not in model.model.__dict__
    # the original library's layout: the wrapped model's file plus HER's entries
    data, _ = load_model_file(path)
    assert data["model_class"] is SAC and data["n_sampled_goal"] == 3
    assert data["goal_selection_strategy"] == GoalSelectionStrategy.EPISODE
    assert data["her_obs_space"] == env.observation_space and data["her_action_space"] == env.action_space
    assert data["observation_space"] == spaces.MultiBinary(12)

    loaded = HER.load(path)
    assert loaded.model_class is SAC and isinstance(loaded.model, SAC)
    assert loaded.n_sampled_goal == 3 and loaded.goal_selection_strategy == GoalSelectionStrategy.EPISODE
    assert loaded.observation_space == env.observation_space and loaded.get_env() is None
    assert loaded.model.gamma == 0.9
    assert "model_class" not in loaded.model.__dict__
    np.testing.assert_allclose(loaded.predict(obs, deterministic=True)[0], action, rtol=1e-5, atol=1e-6)
    for (name, value), (name2, value2) in zip(model.get_parameters().items(), loaded.get_parameters().items()):
        assert name == name2
        np.testing.assert_array_equal(value, value2)

    # file-like objects; with an env training continues; HER's settings can be changed at load time
    buffer = io.BytesIO()
    loaded.save(buffer)
    buffer.seek(0)
    loaded = HER.load(buffer, env=BitFlippingEnv(4, continuous=True), n_sampled_goal=1)
    assert loaded.model_class is SAC and loaded.n_sampled_goal == 1
    assert isinstance(loaded.get_env(), HERGoalEnvWrapper)
    loaded.learn(30)
    assert loaded.model.replay_buffer.n_sampled_goal == 1

    with pytest.raises(ValueError, match="observation space of the environment does not match"):
        HER.load(path, env=BitFlippingEnv(5, continuous=True))
    plain = str(tmp_path / "plain.zip")
    model.model.save(plain)
    with pytest.raises(ValueError, match="not a HER model file"):
        HER.load(plain)


def test_her_set_env_checks_spaces():
    model = HER("MlpPolicy", BitFlippingEnv(4), DQN, n_cpu_tf_sess=1)
    model.set_env(BitFlippingEnv(4, max_steps=8))
    assert model.get_env().env.max_steps == 8 and model.model.get_env() is model.get_env()
    with pytest.raises(ValueError, match="observation space of the environment does not match"):
        model.set_env(BitFlippingEnv(6))
    with pytest.raises(ValueError, match="Dict"):
        model.set_env(gymnasium.make("CartPole-v1"))


# --------------------------------------------------------------------------------------------------
# learning
# --------------------------------------------------------------------------------------------------
@pytest.mark.slow
@pytest.mark.seeds(0, 1, 2)
def test_her_dqn_solves_10_bits(learning_seed, learning_score):
    n_bits = 10
    env = BitFlippingEnv(n_bits, max_steps=n_bits)
    model = HER("MlpPolicy", env, DQN, n_sampled_goal=4, goal_selection_strategy="future",
                seed=learning_seed, n_cpu_tf_sess=1, learning_rate=1e-3, gamma=0.9, batch_size=64, buffer_size=50000,
                exploration_fraction=0.1, exploration_final_eps=0.02, learning_starts=500,
                target_network_update_freq=500, policy_kwargs=dict(layers=[64]))
    model.learn(8000)
    rate = success_rate(model, BitFlippingEnv(n_bits, max_steps=n_bits))
    learning_score(rate)
    assert rate >= 0.9


CONTINUOUS = {
    "SAC": dict(learning_rate=1e-3, gamma=0.9, batch_size=64, learning_starts=300, random_exploration=0.1),
    "TD3": dict(learning_rate=1e-3, gamma=0.9, batch_size=64, learning_starts=300, train_freq=1,
                gradient_steps=1, random_exploration=0.1),
    "DDPG": dict(actor_lr=1e-3, critic_lr=1e-3, gamma=0.9, batch_size=64, random_exploration=0.1),
}


def _continuous_model_class(name):
    if name == "DDPG":
        if not HAS_DDPG:
            pytest.skip("stable_baselines.ddpg is not available (it needs mpi4py)")
        from stable_baselines.ddpg import DDPG  # pylint: disable=import-outside-toplevel
        return DDPG
    return {"SAC": SAC, "TD3": TD3}[name]


@pytest.mark.slow
@pytest.mark.seeds(0, 1, 2)
@pytest.mark.parametrize("name", ["SAC", "TD3", "DDPG"])
def test_her_continuous_solves_4_bits(name, learning_seed, learning_score):
    model_class = _continuous_model_class(name)
    n_bits = 4
    kwargs = dict(CONTINUOUS[name])
    if name in ("TD3", "DDPG"):
        from stable_baselines.common.noise import NormalActionNoise  # pylint: disable=import-outside-toplevel
        kwargs["action_noise"] = NormalActionNoise(np.zeros(n_bits), 0.2 * np.ones(n_bits))
    env = BitFlippingEnv(n_bits, continuous=True, max_steps=n_bits)
    model = HER("MlpPolicy", env, model_class, n_sampled_goal=4, goal_selection_strategy="future",
                seed=learning_seed, n_cpu_tf_sess=1, **kwargs)
    model.learn(2500 if name == "DDPG" else 2000)
    rate = success_rate(model, BitFlippingEnv(n_bits, continuous=True, max_steps=n_bits))
    learning_score(rate)
    assert rate >= 0.9


def test_vec_env_wrapper_is_refused_as_the_original_did():
    from stable_baselines.common.vec_env import DummyVecEnv, VecNormalize
    from stable_baselines.her.her import HERVecEnvWrapperError
    venv = VecNormalize(DummyVecEnv([lambda: BitFlippingEnv(4, max_steps=4)]), norm_obs=False)
    # the original raised an AssertionError; scripts catching it (or a ValueError) keep working
    with pytest.raises(AssertionError, match="HER does not support VecEnvWrapper"):
        HER("MlpPolicy", venv, DQN)
    assert issubclass(HERVecEnvWrapperError, ValueError)
    # a plain one-env VecEnv is still accepted
    model = HER("MlpPolicy", DummyVecEnv([lambda: BitFlippingEnv(4, max_steps=4)]), DQN, seed=0, n_cpu_tf_sess=1)
    model.learn(10)


def test_load_in_a_script_that_imports_only_her(tmp_path):
    """As with the original, ``from stable_baselines import HER`` is all a script needs to load a HER model of any
    algorithm: the wrapped model's package (here SAC's) is imported by the root package when the file names it."""
    model = HER("MlpPolicy", BitFlippingEnv(3, continuous=True, max_steps=3), SAC, n_sampled_goal=2,
                learning_starts=1, seed=0, n_cpu_tf_sess=1)
    model.learn(5)
    path = str(tmp_path / "her_sac.zip")
    model.save(path)
    flat = np.array([1, 0, 0, 1, 0, 0, 1, 1, 1], dtype=np.float32)  # observation, achieved goal, desired goal
    expected = np.array2string(model.predict(flat, deterministic=True)[0], precision=6)
    code = ("import sys, numpy as np\n"
            "from stable_baselines import HER\n"
            "from stable_baselines.common.bit_flipping_env import BitFlippingEnv\n"
            "assert 'stable_baselines.sac' not in sys.modules\n"
            "model = HER.load(sys.argv[1], env=BitFlippingEnv(3, continuous=True, max_steps=3))\n"
            "print(type(model.model).__module__, type(model.model).__name__)\n"
            "flat = np.array([1, 0, 0, 1, 0, 0, 1, 1, 1], dtype=np.float32)\n"
            "print(np.array2string(model.predict(flat, deterministic=True)[0], precision=6))\n")
    result = subprocess.run([sys.executable, "-c", code, path], capture_output=True, text=True, timeout=600,
                            env=dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3"))
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == ["stable_baselines.sac.sac SAC", expected]
