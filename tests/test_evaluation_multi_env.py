"""evaluate_policy and EvalCallback on VecEnvs of several environments."""
from collections import Counter

import gymnasium
import numpy as np
import pytest
from gymnasium import spaces

from stable_baselines import A2C, PPO2
from stable_baselines.bench import Monitor
from stable_baselines.common.callbacks import EvalCallback
from stable_baselines.common.evaluation import evaluate_policy
from stable_baselines.common.identity_env import IdentityEnv
from stable_baselines.common.vec_env import DummyVecEnv, VecMonitor, VecNormalize


class _Plain:
    recurrent = False


class _Recurrent:
    recurrent = True


class CopyModel:
    """Answers the observation: reward 1 at every step of an IdentityEnv."""
    policy = _Plain

    def predict(self, observation, state=None, mask=None, deterministic=False):
        return np.array(observation), state


class RecordingRecurrentModel:
    """A fake recurrent model trained with ``n_envs`` envs: records the batches, masks and states it gets."""
    policy = _Recurrent

    def __init__(self, observation_space, n_envs):
        self.observation_space = observation_space
        self.n_envs = n_envs
        self.observations, self.masks, self.states = [], [], []

    def predict(self, observation, state=None, mask=None, deterministic=False):
        self.observations.append(np.array(observation))
        self.masks.append(np.array(mask))
        self.states.append(None if state is None else state.copy())
        new_state = np.zeros(len(observation), dtype=np.int64) if state is None else state + 1
        return np.array(observation), new_state


class DoubleReward(gymnasium.Wrapper):
    """Doubles the rewards the agent sees (outside a Monitor, which keeps the real ones)."""

    def step(self, action):
        obs, reward, terminated, truncated, info = self.env.step(action)
        return obs, 2.0 * reward, terminated, truncated, info


class LivesEnv(gymnasium.Wrapper):
    """
    Ends the agent's "episode" every ``life`` steps without resetting the wrapped environment (the lost
    lives of Atari's EpisodicLifeEnv): only the real end of the game resets it.
    """

    def __init__(self, env, life):
        super().__init__(env)
        self.life = life
        self.steps_this_life = 0
        self.game_over = True
        self.last_obs = None

    def reset(self, **kwargs):
        self.steps_this_life = 0
        if self.game_over:
            self.game_over = False
            self.last_obs, info = self.env.reset(**kwargs)
            return self.last_obs, info
        return self.last_obs, {}

    def step(self, action):
        self.last_obs, reward, terminated, truncated, info = self.env.step(action)
        self.steps_this_life += 1
        self.game_over = terminated or truncated
        return self.last_obs, reward, self.game_over or self.steps_this_life == self.life, truncated, info


def _identity_venv(lengths, wrap=None):
    def make(length):
        def factory():
            env = IdentityEnv(dim=2, ep_length=length)
            return env if wrap is None else wrap(env)
        return factory
    return DummyVecEnv([make(length) for length in lengths])


def test_counts_are_not_biased_toward_short_episodes():
    # env 0 ends an episode every 2 steps, env 1 every 10: the first 4 episodes to end would all be env 0's
    rewards, lengths = evaluate_policy(CopyModel(), _identity_venv([2, 10]), n_eval_episodes=4,
                                       return_episode_rewards=True)
    assert lengths == [2, 2, 10, 10]  # in the order they end
    assert rewards == [2.0, 2.0, 10.0, 10.0]
    assert evaluate_policy(CopyModel(), _identity_venv([2, 10]), n_eval_episodes=4) == (6.0, 4.0)


@pytest.mark.parametrize("lengths, n_eval_episodes, per_env", [
    ([2, 3, 4], 7, [2, 2, 3]),   # env i plays (7 + i) // 3 episodes
    ([2, 3, 4], 2, [0, 1, 1]),   # fewer episodes than environments
    ([3, 5], 5, [2, 3]),
    ([4], 3, [3]),
])
def test_exact_counts_per_env(lengths, n_eval_episodes, per_env):
    rewards, episode_lengths = evaluate_policy(CopyModel(), _identity_venv(lengths), n_eval_episodes=n_eval_episodes,
                                               return_episode_rewards=True)
    assert len(rewards) == len(episode_lengths) == n_eval_episodes
    # the episode lengths tell the environments apart
    assert Counter(episode_lengths) == Counter({length: count for length, count in zip(lengths, per_env) if count})
    assert rewards == [float(length) for length in episode_lengths]
    assert all(isinstance(reward, float) for reward in rewards)
    assert all(isinstance(length, int) for length in episode_lengths)


def test_callback_and_render_per_env():
    calls = []

    def callback(locals_, globals_):
        calls.append((locals_["env_index"], locals_["episode_length"], locals_["episode_reward"], locals_["done"]))

    rendered = []

    class RenderedVecEnv(DummyVecEnv):
        def render(self, mode="human"):
            rendered.append(mode)

    venv = RenderedVecEnv([lambda: IdentityEnv(dim=2, ep_length=1), lambda: IdentityEnv(dim=2, ep_length=3)])
    evaluate_policy(CopyModel(), venv, n_eval_episodes=2, callback=callback, render=True)
    # env 0 contributes one episode (step 1), env 1 one episode (steps 1-3); env 0 is silent after its quota
    assert calls == [(0, 1, 1.0, True), (1, 1, 1.0, False), (1, 2, 2.0, False), (1, 3, 3.0, True)]
    assert rendered == ["human"] * 3


def test_monitor_returns_are_reported():
    venv = _identity_venv([3, 5], wrap=lambda env: DoubleReward(Monitor(env, None)))
    rewards, lengths = evaluate_policy(CopyModel(), venv, n_eval_episodes=4, return_episode_rewards=True)
    assert rewards == [3.0, 5.0, 3.0, 5.0] and lengths == [3, 5, 3, 5]  # ends at steps 3, 5, 6, 10
    # without a Monitor: the sum of the rewards the agent saw (the original behaviour)
    rewards, _ = evaluate_policy(CopyModel(), _identity_venv([3, 5], wrap=DoubleReward), n_eval_episodes=4,
                                 return_episode_rewards=True)
    assert rewards == [6.0, 10.0, 6.0, 10.0]
    # a single environment, with and without Monitor
    assert evaluate_policy(CopyModel(), DoubleReward(Monitor(IdentityEnv(dim=2, ep_length=4), None)),
                           n_eval_episodes=2) == (4.0, 0.0)
    assert evaluate_policy(CopyModel(), DoubleReward(IdentityEnv(dim=2, ep_length=4)), n_eval_episodes=2) == (8.0, 0.0)


def test_vec_monitor_returns_are_reported():
    venv = VecNormalize(VecMonitor(_identity_venv([3, 5])), norm_obs=False, norm_reward=True)
    rewards, lengths = evaluate_policy(CopyModel(), venv, n_eval_episodes=4, return_episode_rewards=True)
    assert rewards == [3.0, 5.0, 3.0, 5.0] and lengths == [3, 5, 3, 5]


@pytest.mark.parametrize("vectorized", [False, True])
def test_monitor_counts_whole_games_only(vectorized):
    def make():
        return LivesEnv(Monitor(IdentityEnv(dim=2, ep_length=6), None), life=2)
    env = DummyVecEnv([make]) if vectorized else make()
    rewards, lengths = evaluate_policy(CopyModel(), env, n_eval_episodes=2, return_episode_rewards=True)
    assert rewards == [6.0, 6.0] and lengths == [6, 6]
    # without the Monitor every lost life counts as an episode
    env = DummyVecEnv([lambda: LivesEnv(IdentityEnv(dim=2, ep_length=6), life=2)])
    assert evaluate_policy(CopyModel(), env, n_eval_episodes=2, return_episode_rewards=True) == ([2.0, 2.0], [2, 2])


def test_recurrent_masks_and_states_per_env():
    box = spaces.Box(low=0, high=1, shape=(2,), dtype=np.float32)
    venv = DummyVecEnv([lambda length=length: IdentityEnv(space=box, ep_length=length) for length in (1, 2, 3)])
    model = RecordingRecurrentModel(box, n_envs=3)
    rewards, lengths = evaluate_policy(model, venv, n_eval_episodes=3, return_episode_rewards=True)
    assert lengths == [1, 2, 3] and rewards == [1.0, 2.0, 3.0]
    masks = [mask.tolist() for mask in model.masks]
    # a row's mask is True when its previous step ended an episode (all True at the start)
    assert masks == [[True, True, True], [True, False, False], [True, True, False]]
    assert all(observation.shape == (3, 2) for observation in model.observations)
    # the state is threaded through (the model's initial state at the start only)
    assert model.states[0] is None and model.states[1].tolist() == [0, 0, 0] and model.states[2].tolist() == [1, 1, 1]


def test_recurrent_fewer_envs_than_trained_with_are_padded():
    box = spaces.Box(low=0, high=1, shape=(2,), dtype=np.float32)
    venv = DummyVecEnv([lambda: IdentityEnv(space=box, ep_length=2)] * 2)
    model = RecordingRecurrentModel(box, n_envs=4)
    assert evaluate_policy(model, venv, n_eval_episodes=4, return_episode_rewards=True)[1] == [2, 2, 2, 2]
    assert all(observation.shape == (4, 2) and np.all(observation[2:] == 0) for observation in model.observations)
    assert [mask.tolist() for mask in model.masks[:3]] == [[True] * 4, [False, False, True, True], [True] * 4]


# values of the implementation before several environments were allowed (commit 3db0528), same seeds
def _seeded_cases(model):
    env = gymnasium.make("CartPole-v1")
    env.reset(seed=1)
    single = evaluate_policy(model, env, n_eval_episodes=3, deterministic=False, return_episode_rewards=True)
    venv = DummyVecEnv([lambda: gymnasium.make("CartPole-v1")])
    venv.seed(2)
    one_env_vec = evaluate_policy(model, venv, n_eval_episodes=3, deterministic=False, return_episode_rewards=True)
    return single, one_env_vec


def test_single_env_results_unchanged():
    model = A2C("MlpPolicy", "CartPole-v1", seed=0, n_cpu_tf_sess=1)
    assert _seeded_cases(model) == (([15.0, 18.0, 11.0], [15, 18, 11]), ([30.0, 63.0, 22.0], [30, 63, 22]))


def test_single_env_results_unchanged_recurrent():
    venv = DummyVecEnv([lambda: gymnasium.make("CartPole-v1")] * 2)
    model = PPO2("MlpLstmPolicy", venv, nminibatches=2, n_steps=16, seed=0, n_cpu_tf_sess=1)
    assert _seeded_cases(model) == (([19.0, 41.0, 23.0], [19, 41, 23]), ([31.0, 30.0, 53.0], [31, 30, 53]))


def _reference_rollout(model, venv, targets):
    """Play every environment, passing the state and the done mask, and keep each env's first episodes."""
    obs, state, dones = venv.reset(), None, np.ones(venv.num_envs, dtype=bool)
    returns, lengths = np.zeros(venv.num_envs), np.zeros(venv.num_envs, dtype=int)
    finished = [[] for _ in range(venv.num_envs)]
    while any(len(finished[i]) < targets[i] for i in range(venv.num_envs)):
        action, state = model.predict(obs, state=state, mask=dones, deterministic=True)
        obs, rewards, dones, _ = venv.step(action)
        returns += rewards
        lengths += 1
        for i in np.flatnonzero(dones):
            if len(finished[i]) < targets[i]:
                finished[i].append((returns[i], lengths[i]))
            returns[i], lengths[i] = 0, 0
    return finished


def test_recurrent_model_with_its_number_of_envs():
    def make_venv():
        venv = DummyVecEnv([lambda: gymnasium.make("CartPole-v1", max_episode_steps=40)] * 2)
        venv.seed(5)
        return venv
    model = PPO2("MlpLstmPolicy", make_venv(), nminibatches=2, n_steps=16, seed=0, n_cpu_tf_sess=1)
    model.learn(64)
    rewards, lengths = evaluate_policy(model, make_venv(), n_eval_episodes=5, return_episode_rewards=True)
    reference = _reference_rollout(model, make_venv(), targets=[2, 3])
    assert len(reference[0]) == 2 and len(reference[1]) == 3
    assert sorted(zip(rewards, lengths)) == sorted((float(r), int(l)) for episodes in reference for r, l in episodes)
    assert rewards == [float(length) for length in lengths]


def test_eval_callback_with_several_envs(tmp_path):
    model = A2C("MlpPolicy", DummyVecEnv([lambda: IdentityEnv(dim=2, ep_length=5)]), n_steps=5, seed=0,
                n_cpu_tf_sess=1)
    eval_callback = EvalCallback(_identity_venv([2, 4]), n_eval_episodes=4, eval_freq=4, log_path=str(tmp_path),
                                 verbose=0)
    model.learn(10, callback=eval_callback)
    assert len(eval_callback.evaluations_length) == 2
    assert all(lengths == [2, 2, 4, 4] for lengths in eval_callback.evaluations_length)
    saved = np.load(str(tmp_path / "evaluations.npz"))
    assert saved["ep_lengths"].shape == (2, 4) and saved["results"].shape == (2, 4)
