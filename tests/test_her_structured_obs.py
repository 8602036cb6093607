"""
HER with a goal env whose ``observation`` entry is itself a Dict (nested): the wrapper packs it (as
``stable_baselines.common.structured_obs`` packs observations) before the goals, and splits it back exactly.
"""
from collections import OrderedDict

import numpy as np
import pytest
from gymnasium import spaces

from her_helpers import success_rate

from stable_baselines import DQN, HER, SAC
from stable_baselines.common.bit_flipping_env import BitFlippingEnv
from stable_baselines.her import HERGoalEnvWrapper


class DictBitFlippingEnv(BitFlippingEnv):
    """BitFlippingEnv whose observation is ``{"bits": MultiBinary(n), "clock": {"step": Discrete(max_steps + 1)}}``."""

    def __init__(self, n_bits=4, continuous=False, max_steps=None):
        super().__init__(n_bits, continuous=continuous, max_steps=max_steps)
        self.observation_space = spaces.Dict(OrderedDict([
            ("observation", spaces.Dict({"bits": spaces.MultiBinary(n_bits),
                                         "clock": spaces.Dict({"step": spaces.Discrete(self.max_steps + 1)})})),
            ("achieved_goal", spaces.MultiBinary(n_bits)),
            ("desired_goal", spaces.MultiBinary(n_bits)),
        ]))

    def _get_obs(self):
        obs = super()._get_obs()
        obs["observation"] = {"bits": obs["observation"], "clock": {"step": self.current_step}}
        return obs

    def step(self, action):
        obs, reward, terminated, truncated, info = super().step(action)
        obs["observation"]["clock"]["step"] = self.current_step  # the steps taken, this one included
        return obs, reward, terminated, truncated, info


def test_wrapper_packs_the_observation_dict_and_splits_it_back():
    env = HERGoalEnvWrapper(DictBitFlippingEnv(4, max_steps=4))
    assert env.observation_space == spaces.Box(np.array([-np.inf] * 5 + [0] * 8, np.float32),
                                               np.array([np.inf] * 5 + [1] * 8, np.float32), dtype=np.float32)
    obs, _ = env.reset(seed=3)
    state = env.env.state.astype(np.float32)
    np.testing.assert_array_equal(obs, np.concatenate([state, [0.0], state, np.ones(4)]))
    obs, _, _, _, _ = env.step(2)
    assert obs[4] == 1.0 and obs[2] == 1.0 - state[2]
    parts = env.convert_obs_to_dict(obs)
    np.testing.assert_array_equal(parts["observation"]["bits"], obs[:4])
    assert parts["observation"]["bits"].dtype == np.int8 and parts["observation"]["clock"]["step"] == 1
    np.testing.assert_array_equal(env.convert_dict_to_obs(parts), obs)
    batch = np.stack([obs, obs * 0])
    batch_parts = env.convert_obs_to_dict(batch)
    assert batch_parts["observation"]["clock"]["step"].shape == (2,)
    np.testing.assert_array_equal(env.convert_dict_to_obs(batch_parts), batch)
    with pytest.raises(ValueError, match=r"'desired_goal' must hold 4 values"):
        env.convert_dict_to_obs(dict(parts, desired_goal=np.ones(3)))
    with pytest.raises(ValueError, match=r"no key 'clock'"):
        env.convert_dict_to_obs(dict(parts, observation={"bits": parts["observation"]["bits"]}))


@pytest.mark.slow
def test_her_dqn_solves_dict_observation_bit_flipping(tmp_path):
    n_bits = 6
    model = HER("MlpPolicy", DictBitFlippingEnv(n_bits, max_steps=n_bits), DQN, n_sampled_goal=4, seed=0,
                n_cpu_tf_sess=1, learning_rate=1e-3, gamma=0.9, batch_size=64, exploration_fraction=0.1,
                exploration_final_eps=0.02, learning_starts=300, target_network_update_freq=300,
                policy_kwargs=dict(layers=[64]))
    model.learn(3000)
    assert success_rate(model, DictBitFlippingEnv(n_bits, max_steps=n_bits), n_episodes=30) >= 0.9
    # the model takes the nested dict observation itself, and keeps it across save and load
    obs, _ = DictBitFlippingEnv(n_bits, max_steps=n_bits).reset(seed=5)
    action, _ = model.predict(obs, deterministic=True)
    model.save(str(tmp_path / "her.zip"))
    loaded = HER.load(str(tmp_path / "her.zip"), env=DictBitFlippingEnv(n_bits, max_steps=n_bits))
    assert loaded.predict(obs, deterministic=True)[0] == action


def test_her_sac_takes_dict_observation_with_continuous_actions():
    model = HER("MlpPolicy", DictBitFlippingEnv(3, continuous=True, max_steps=3), SAC, n_sampled_goal=2,
                learning_starts=10, seed=0, n_cpu_tf_sess=1)
    model.learn(30)
    obs, _ = DictBitFlippingEnv(3, continuous=True, max_steps=3).reset(seed=0)
    assert model.predict(obs, deterministic=True)[0].shape == (3,)
    with pytest.raises(NotImplementedError, match="Dict or Tuple observation with Box or MultiBinary goal"):
        class DiscreteGoals(DictBitFlippingEnv):
            def __init__(self):
                super().__init__(3)
                self.observation_space = spaces.Dict(OrderedDict([
                    ("observation", spaces.Dict({"a": spaces.Discrete(2)})),
                    ("achieved_goal", spaces.Discrete(8)), ("desired_goal", spaces.Discrete(8))]))

        HERGoalEnvWrapper(DiscreteGoals())
