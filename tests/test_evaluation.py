import gymnasium
import numpy as np
import pytest
from gymnasium import spaces

from stable_baselines.common.evaluation import evaluate_policy
from stable_baselines.common.identity_env import IdentityEnv
from stable_baselines.common.vec_env import DummyVecEnv


class FakePolicy:
    recurrent = False


class FakeRecurrentPolicy:
    recurrent = True


class CopyModel:
    """Fake model that answers the observation (perfect on IdentityEnv)."""
    policy = FakePolicy

    def __init__(self):
        self.calls = 0

    def predict(self, observation, state=None, mask=None, deterministic=False):
        self.calls += 1
        return np.array(observation), state


class CartPoleModel:
    """Fake model: push the cart towards where the pole falls (or always left when ``bad``)."""
    policy = FakePolicy

    def __init__(self, bad=False):
        self.bad = bad

    def predict(self, observation, state=None, mask=None, deterministic=False):
        observation = np.asarray(observation)
        if self.bad:
            action = np.zeros(observation.shape[:-1], dtype=np.int64)
        else:
            action = (observation[..., 2] + observation[..., 3] > 0).astype(np.int64)
        return (action if observation.ndim > 1 else int(action)), state


class RecurrentModel:
    """Fake recurrent model trained with 3 envs: checks the padding, the mask and the state."""
    policy = FakeRecurrentPolicy
    n_envs = 3

    def __init__(self, observation_space):
        self.observation_space = observation_space
        self.masks = []
        self.states_seen = []

    def predict(self, observation, state=None, mask=None, deterministic=False):
        observation = np.asarray(observation)
        assert observation.shape == (self.n_envs,) + self.observation_space.shape
        assert np.all(observation[1:] == 0)
        assert mask is not None and np.shape(mask) == (self.n_envs,)
        self.masks.append(bool(mask[0]))
        self.states_seen.append(None if state is None else int(state[0]))
        new_state = np.zeros(self.n_envs, dtype=np.int64) if state is None else state + 1
        return observation.copy(), new_state


class LegacyEnv:
    """A gym-style env: reset() -> obs, step() -> (obs, reward, done, info); episodes of 4 steps."""

    def __init__(self):
        self.observation_space = spaces.Box(low=-1, high=1, shape=(2,), dtype=np.float32)
        self.action_space = spaces.Discrete(2)
        self.steps = 0

    def reset(self):
        self.steps = 0
        return np.zeros(2, dtype=np.float32)

    def step(self, action):
        self.steps += 1
        return np.zeros(2, dtype=np.float32), 0.5, self.steps >= 4, {}


def test_identity_plain_env():
    env = IdentityEnv(dim=4, ep_length=10)
    model = CopyModel()
    mean, std = evaluate_policy(model, env, n_eval_episodes=3)
    assert (mean, std) == (10.0, 0.0)
    assert isinstance(mean, float) and isinstance(std, float)
    assert env.num_resets == 3
    assert model.calls == 30


def test_identity_vec_env_no_double_reset():
    env = IdentityEnv(dim=4, ep_length=7)
    vec_env = DummyVecEnv([lambda: env])
    rewards, lengths = evaluate_policy(CopyModel(), vec_env, n_eval_episodes=4, return_episode_rewards=True)
    assert rewards == [7.0] * 4
    assert lengths == [7] * 4
    assert all(isinstance(reward, float) for reward in rewards)
    # one explicit reset, then the VecEnv resets itself at the end of each episode
    assert env.num_resets == 1 + 4


def test_cartpole_good_and_bad_policies():
    env = gymnasium.make("CartPole-v1", max_episode_steps=30)
    mean, std = evaluate_policy(CartPoleModel(), env, n_eval_episodes=3)
    assert (mean, std) == (30.0, 0.0)  # balanced until truncation
    rewards, lengths = evaluate_policy(CartPoleModel(bad=True), env, n_eval_episodes=3, return_episode_rewards=True)
    assert all(length < 30 for length in lengths)
    assert rewards == [float(length) for length in lengths]

    vec_env = DummyVecEnv([lambda: gymnasium.make("CartPole-v1", max_episode_steps=20)])
    assert evaluate_policy(CartPoleModel(), vec_env, n_eval_episodes=2) == (20.0, 0.0)


def test_legacy_env():
    rewards, lengths = evaluate_policy(CopyModel(), LegacyEnv(), n_eval_episodes=2, return_episode_rewards=True)
    assert rewards == [2.0, 2.0]
    assert lengths == [4, 4]


def test_reward_threshold():
    env = IdentityEnv(dim=2, ep_length=5)
    assert evaluate_policy(CopyModel(), env, n_eval_episodes=2, reward_threshold=4.5)[0] == 5.0
    with pytest.raises(AssertionError, match="Mean reward below threshold: 5.00 < 6.00"):
        evaluate_policy(CopyModel(), env, n_eval_episodes=2, reward_threshold=6.0)


def test_callback_and_render():
    calls = []

    def callback(locals_, globals_):
        calls.append((locals_["episode_length"], locals_["episode_reward"]))

    rendered = []

    class RenderEnv(IdentityEnv):
        def render(self, mode='human'):
            rendered.append(1)

    evaluate_policy(CopyModel(), RenderEnv(dim=2, ep_length=3), n_eval_episodes=2, callback=callback, render=True)
    assert calls == [(1, 1.0), (2, 2.0), (3, 3.0)] * 2
    assert len(rendered) == 6


def test_vec_env_with_several_envs_is_evaluated():
    # once refused; several environments are now evaluated together (tests/test_evaluation_multi_env.py)
    vec_env = DummyVecEnv([lambda: IdentityEnv(2, ep_length=3) for _ in range(2)])
    rewards, lengths = evaluate_policy(CopyModel(), vec_env, return_episode_rewards=True)
    assert rewards == [3.0] * 10 and lengths == [3] * 10


def test_bad_n_eval_episodes():
    with pytest.raises(ValueError, match="n_eval_episodes"):
        evaluate_policy(CopyModel(), IdentityEnv(2), n_eval_episodes=0)


@pytest.mark.parametrize("vectorized", [False, True])
def test_recurrent_model(vectorized):
    env = IdentityEnv(ep_length=3, space=spaces.Box(low=0, high=1, shape=(2,), dtype=np.float32))
    model = RecurrentModel(env.observation_space)
    eval_env = DummyVecEnv([lambda: env]) if vectorized else env
    rewards, lengths = evaluate_policy(model, eval_env, n_eval_episodes=2, return_episode_rewards=True)
    assert rewards == [3.0, 3.0] and lengths == [3, 3]
    # mask marks the first step of each episode; the state is threaded through and reset per episode
    assert model.masks == [True, False, False] * 2
    assert model.states_seen == [None, 0, 1] * 2


def _imported_modules(path):
    """Every module a source file imports, at any depth (TYPE_CHECKING blocks and functions included)."""
    import ast
    with open(path, encoding="utf-8") as file_handler:
        tree = ast.parse(file_handler.read())
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            names.add(node.module or "")
            names.update("{}.{}".format(node.module, alias.name) for alias in node.names)
    return names


@pytest.mark.parametrize("module", ["common/callbacks.py", "common/evaluation.py", "common/type_aliases.py"])
def test_no_import_of_base_class(module):
    """base_class imports the callbacks, which import evaluate_policy: neither may import base_class back."""
    import os
    import stable_baselines
    path = os.path.join(os.path.dirname(stable_baselines.__file__), module)
    imported = _imported_modules(path)
    assert not [name for name in imported if "base_class" in name], sorted(imported)


def test_models_fit_the_protocols():
    """The protocols the callbacks and evaluate_policy are typed with describe the models' real methods."""
    import inspect
    from stable_baselines.common.base_class import ActorCriticRLModel, BaseRLModel, OffPolicyRLModel
    from stable_baselines.common.type_aliases import PolicyPredictor, TrainedModel

    def parameters(function):
        return [(p.name, p.default) for p in inspect.signature(function).parameters.values()]

    for model_class in (BaseRLModel, ActorCriticRLModel, OffPolicyRLModel):
        # the actor-critic models add action_masks=None last (evaluate_policy passes it only for envs with masks)
        extra = [("action_masks", None)] if model_class is ActorCriticRLModel else []
        assert parameters(model_class.predict) == parameters(PolicyPredictor.predict) + extra
        assert parameters(model_class.save) == parameters(TrainedModel.save)
        assert parameters(model_class.get_env) == parameters(TrainedModel.get_env)
    assert "num_timesteps" in TrainedModel.__annotations__
    # evaluate_policy needs nothing but predict(): a plain object with that method is evaluated
    assert evaluate_policy(CopyModel(), IdentityEnv(dim=3, ep_length=4), n_eval_episodes=2) == (4.0, 0.0)
