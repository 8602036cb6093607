"""HER: bad input at run time gets an exception that names what was expected and what was given."""
from collections import OrderedDict

import gymnasium
import numpy as np
import pytest
from gymnasium import spaces

from stable_baselines import DQN, SAC
from stable_baselines.common.bit_flipping_env import BitFlippingEnv
from stable_baselines.common.buffers import ReplayBuffer
from stable_baselines.her import (HER, GoalSelectionStrategy, HERGoalEnvWrapper, HindsightExperienceReplayWrapper,
                                  KEY_TO_GOAL_STRATEGY)
from stable_baselines.her.replay_buffer import HERReplayWrapperFactory

FLAT_12 = r"flat vector of length 12 \(observation 4 \+ achieved_goal 4 \+ desired_goal 4\)"


@pytest.fixture(scope="module")
def her_dqn():
    env = BitFlippingEnv(4)
    model = HER("MlpPolicy", env, DQN, seed=0, n_cpu_tf_sess=1)
    obs, _ = env.reset(seed=3)
    return model, obs


@pytest.mark.parametrize("bad, given", [
    (np.zeros(5), r"ndarray of shape \(5,\)"),
    (np.zeros((2, 7)), r"ndarray of shape \(2, 7\)"),
    (np.zeros((2, 3, 12)), r"ndarray of shape \(2, 3, 12\)"),
    ([1, 0], r"list of shape \(2,\)"),
    (3, r"int of shape \(\)"),
])
def test_predict_flat_observation_of_the_wrong_size(her_dqn, bad, given):
    model, _ = her_dqn
    for method in (model.predict, model.action_probability):
        with pytest.raises(ValueError, match="HER expects a goal observation: a dict with the keys 'observation', "
                                             "'achieved_goal', 'desired_goal' or its " + FLAT_12 + r".*got " + given):
            method(bad)


def test_predict_valid_observations_still_agree(her_dqn):
    model, obs = her_dqn
    flat = model.get_env().convert_dict_to_obs(obs)
    assert flat.shape == (12,)
    action, _ = model.predict(obs)
    assert model.predict(flat)[0] == action
    np.testing.assert_array_equal(model.predict(np.stack([flat, flat]))[0], [action, action])
    np.testing.assert_allclose(model.action_probability(flat), model.action_probability(obs))


def test_predict_dict_missing_or_misshapen_parts(her_dqn):
    model, obs = her_dqn
    without_goal = OrderedDict((key, obs[key]) for key in ("observation", "achieved_goal"))
    with pytest.raises(ValueError, match=r"lacks the key\(s\) \['desired_goal'\] \(expected \['observation', "
                                         r"'achieved_goal', 'desired_goal'\], got \['observation', 'achieved_goal'\]\)"):
        model.predict(without_goal)
    short_goal = OrderedDict(obs, desired_goal=np.ones(3, dtype=np.int8))
    with pytest.raises(ValueError, match=r"'desired_goal' must hold 4 values: shape \(4,\), or \(n_batch, 4\) for a "
                                         r"batch; got shape \(3,\)$"):
        model.predict(short_goal)
    short_obs = OrderedDict(obs, observation=np.ones(3, dtype=np.int8))
    with pytest.raises(ValueError, match=r"'observation' must hold 4 values.*got shape \(3,\)$"):
        model.action_probability(short_obs)
    # a batch of 2 observations with a batch of 3 desired goals
    batch = OrderedDict((key, np.stack([value, value])) for key, value in obs.items())
    batch["desired_goal"] = np.ones((3, 4), dtype=np.int8)
    with pytest.raises(ValueError, match=r"'desired_goal' must hold 4 values.*got shape \(3, 4\) "
                                         r"\(the batch of 'observation' has 2 rows\)"):
        model.predict(batch)


def test_predict_after_load_without_env_checks_the_saved_layout(her_dqn, tmp_path):
    model, obs = her_dqn
    model.save(str(tmp_path / "her.zip"))
    loaded = HER.load(str(tmp_path / "her.zip"))
    assert loaded.get_env() is None
    assert loaded.predict(obs)[0] == model.predict(obs)[0]
    with pytest.raises(ValueError, match=FLAT_12 + r".*got ndarray of shape \(11,\)"):
        loaded.predict(np.zeros(11))
    with pytest.raises(ValueError, match=r"lacks the key\(s\) \['achieved_goal'\]"):
        loaded.predict({"observation": obs["observation"], "desired_goal": obs["desired_goal"]})
    with pytest.raises(ValueError, match="Invalid goal selection strategy 'closest'"):
        HER.load(str(tmp_path / "her.zip"), goal_selection_strategy="closest")
    with pytest.raises(ValueError, match="n_sampled_goal must be an int >= 0, got -2"):
        HER.load(str(tmp_path / "her.zip"), n_sampled_goal=-2)


def test_discrete_goal_parts_of_different_lengths():
    env = BitFlippingEnv(3, discrete_obs_space=True)
    model = HER("MlpPolicy", env, DQN, seed=0, n_cpu_tf_sess=1)
    with pytest.raises(ValueError, match=r"flat vector of length 3 \(observation 1 \+ achieved_goal 1 \+ "
                                         r"desired_goal 1\).*got ndarray of shape \(4,\)"):
        model.predict(np.array([1, 2, 7, 0]))
    with pytest.raises(ValueError, match=r"1-D arrays of the same length for a batch; got shapes "
                                         r"\{'observation': \(2,\), 'achieved_goal': \(2,\), 'desired_goal': \(3,\)\}"):
        model.predict({"observation": np.array([1, 2]), "achieved_goal": np.array([1, 2]),
                       "desired_goal": np.array([7, 7, 7])})
    actions, _ = model.predict({"observation": np.array([1, 2]), "achieved_goal": np.array([1, 2]),
                                "desired_goal": np.array([7, 7])})
    assert actions.shape == (2,)


@pytest.mark.parametrize("n_sampled_goal", [-1, 2.5, True, "4", None])
def test_n_sampled_goal_must_be_a_non_negative_int(n_sampled_goal):
    message = "n_sampled_goal must be an int >= 0, got {}".format(repr(n_sampled_goal).replace(".", r"\."))
    with pytest.raises(ValueError, match=message):
        HER("MlpPolicy", BitFlippingEnv(3), DQN, n_sampled_goal=n_sampled_goal)
    goal_env = HERGoalEnvWrapper(BitFlippingEnv(3))
    with pytest.raises(ValueError, match=message):
        HindsightExperienceReplayWrapper(ReplayBuffer(10), n_sampled_goal, "future", goal_env)
    with pytest.raises(ValueError, match=message):
        HERReplayWrapperFactory(n_sampled_goal, "future", goal_env)


@pytest.mark.parametrize("strategy", ["futur", "best", "", 0, None])
def test_unknown_goal_selection_strategy(strategy):
    message = r"Invalid goal selection strategy {}, please use one of \['future', 'final', 'episode', 'random'\] " \
              r"or a GoalSelectionStrategy".format(repr(strategy))
    with pytest.raises(ValueError, match=message):
        HER("MlpPolicy", BitFlippingEnv(3), DQN, goal_selection_strategy=strategy)
    goal_env = HERGoalEnvWrapper(BitFlippingEnv(3))
    with pytest.raises(ValueError, match=message):
        HindsightExperienceReplayWrapper(ReplayBuffer(10), 2, strategy, goal_env)


def test_strategy_names_and_members():
    assert KEY_TO_GOAL_STRATEGY == {"future": GoalSelectionStrategy.FUTURE, "final": GoalSelectionStrategy.FINAL,
                                    "episode": GoalSelectionStrategy.EPISODE, "random": GoalSelectionStrategy.RANDOM}
    assert [member.value for member in GoalSelectionStrategy] == [0, 1, 2, 3]
    model = HER("MlpPolicy", BitFlippingEnv(3), DQN, goal_selection_strategy="FINAL")
    assert model.goal_selection_strategy is GoalSelectionStrategy.FINAL


class _GoalSpaceEnv(gymnasium.Env):
    """An env with the given observation space and a compute_reward method."""

    def __init__(self, observation_space):
        super().__init__()
        self.observation_space = observation_space
        self.action_space = spaces.Box(-1, 1, (2,), dtype=np.float32)

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        return self.observation_space.sample(), {}

    def step(self, action):
        return self.observation_space.sample(), 0.0, False, False, {}

    def compute_reward(self, achieved_goal, desired_goal, info):
        return 0.0


def _box(size):
    return spaces.Box(-1, 1, (size,), dtype=np.float32)


@pytest.mark.parametrize("observation_space, message", [
    (_box(6), r"observation space must be a Dict with the keys 'observation', 'achieved_goal', 'desired_goal', "
              r"got Box\(-1\.0, 1\.0, \(6,\), float32\)"),
    (spaces.Dict({"observation": _box(3), "goal": _box(2)}),
     r"lacks the key\(s\) 'achieved_goal', 'desired_goal' \(expected 'observation', 'achieved_goal', "
     r"'desired_goal', got \['goal', 'observation'\]\)"),
    (spaces.Dict({"observation": _box(3), "achieved_goal": _box(2), "desired_goal": spaces.Discrete(2)}),
     r"spaces of observation, achieved_goal and desired_goal to be of the same type, got observation: Box.*"
     r"desired_goal: Discrete\(2\)"),
    (spaces.Dict({"observation": _box(3), "achieved_goal": _box(2), "desired_goal": _box(3)}),
     r"achieved_goal and desired_goal must have the same size, got 2 and 3"),
])
def test_env_without_a_goal_observation_space(observation_space, message):
    env = _GoalSpaceEnv(observation_space)
    with pytest.raises(ValueError, match=message):
        HER("MlpPolicy", env, SAC)
    with pytest.raises(ValueError, match=message):
        HERGoalEnvWrapper(env)


def test_set_env_refuses_an_env_that_is_not_goal_conditioned(her_dqn):
    model, _ = her_dqn
    env_before = model.get_env()
    with pytest.raises(ValueError, match=r"observation space must be a Dict.*got Discrete\(2\)"):
        model.set_env(_GoalSpaceEnv(spaces.Discrete(2)))
    assert model.get_env() is env_before


@pytest.mark.parametrize("model_class", [DQN, SAC])
def test_set_env_and_load_refuse_vec_envs_that_do_not_fit(model_class, tmp_path):
    """As in the original, set_env and load raise ValueError for a VecEnv of a non-goal env or of several envs."""
    from stable_baselines.common.vec_env import DummyVecEnv

    continuous = model_class is SAC
    make = lambda: BitFlippingEnv(4, continuous=continuous, max_steps=4)  # noqa: E731
    model = HER("MlpPolicy", make(), model_class, n_sampled_goal=1, policy_kwargs=dict(layers=[8]))
    path = str(tmp_path / "her.zip")
    model.save(path)
    plain_id = "Pendulum-v1" if continuous else "CartPole-v1"
    not_goal = DummyVecEnv([lambda: gymnasium.make(plain_id)])
    for action in (model.set_env, lambda env: HER.load(path, env=env)):
        with pytest.raises(ValueError, match=r"HER needs a goal-conditioned environment.*got Box"):
            action(not_goal)
        with pytest.raises(ValueError, match=r"HER needs a single environment .*got a VecEnv with 2 environments"):
            action(DummyVecEnv([make, make]))
    model.set_env(DummyVecEnv([make]))  # a VecEnv of one goal env is accepted, as in the original
    assert model.get_env().num_envs == 1


def test_predict_names_a_reset_pair_and_a_ragged_observation(her_dqn):
    """HERGoalEnvWrapper.reset() gives gymnasium's (obs, info): predict says so; ragged nesting names the layout."""
    model, _ = her_dqn
    wrapped = HERGoalEnvWrapper(BitFlippingEnv(4))
    with pytest.raises(ValueError, match=r"got a \(observation, info\) tuple.*obs, info = env.reset\(\)"):
        model.predict(wrapped.reset())
    with pytest.raises(ValueError, match=r"HER expects a goal observation.*flat vector of length 12.*ragged nesting"):
        model.predict([[0] * 12, [0] * 3])
    assert model.predict(wrapped.reset()[0])[0] in (0, 1, 2, 3)
