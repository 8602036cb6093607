"""The stochastic rollout steps of A2C and PPO2 drawn from the NumPy copy of the acting policy (issue 23)."""
import numpy as np
import pytest

from stable_baselines import A2C, PPO2
from stable_baselines.common.gym_compat import make_env
from stable_baselines.common.identity_env import IdentityEnvBox
from stable_baselines.common.engine.tf_random_draws import session_draws
from stable_baselines.common.vec_env import DummyVecEnv

ENVS = {"Discrete": lambda: make_env("CartPole-v1"), "Box": lambda: IdentityEnvBox(eps=0.5)}


def _model(model_class, space, **kwargs):
    env = DummyVecEnv([ENVS[space] for _ in range(2)])
    if model_class is PPO2:
        kwargs.setdefault("n_steps", 16)
        kwargs.setdefault("nminibatches", 2)
    return model_class("MlpPolicy", env, seed=3, n_cpu_tf_sess=1, **kwargs)


def _graph_draws(model):
    """:return: (int) values drawn by the TF random ops of the model's session, as counted"""
    return sum(session_draws(model.sess).values())


@pytest.mark.parametrize("space", list(ENVS))
@pytest.mark.parametrize("model_class", [A2C, PPO2])
def test_rollouts_sampling_and_determinism(model_class, space):
    """Discrete actions of a seeded model: drawn in NumPy from the sampling op's own stream (tf_philox), counted
    as the op's draws (one value per logit), the fast path's generator untouched. Box actions: drawn in the graph
    (counted for exact resume), the generator untouched. Either way a seeded learn gives the same parameters twice."""
    steps = 120 if model_class is A2C else 128  # whole rollouts (A2C: 2 envs x 5 steps, PPO2: 2 x 16)
    params = []
    for _ in range(2):
        model = _model(model_class, space)
        state_before = model.fast_path.generator.bit_generator.state["state"]["state"]
        model.learn(steps)
        state_after = model.fast_path.generator.bit_generator.state["state"]["state"]
        assert _graph_draws(model) == (2 * steps if space == "Discrete" else steps)
        assert state_after == state_before
        params.append(model.get_parameters())
    for name, value in params[0].items():
        np.testing.assert_array_equal(value, params[1][name], err_msg=name)


@pytest.mark.parametrize("model_class", [A2C, PPO2])
def test_graph_sampling_when_switched_off(model_class, monkeypatch):
    """``sample_rollouts = False`` and ``STABLE_BASELINES_NUMPY_FORWARD=0`` send the rollouts back to the graph:
    one action drawn per environment step, counted for exact resume."""
    steps = 120 if model_class is A2C else 128
    model = _model(model_class, "Discrete")
    model.fast_path.sample_rollouts = False
    model.learn(steps)
    assert _graph_draws(model) == 2 * steps  # the graph's Gumbel noise: one uniform value per logit

    monkeypatch.setenv("STABLE_BASELINES_NUMPY_FORWARD", "0")
    model = _model(model_class, "Discrete")
    assert model.fast_path.copy_of(model.acting_policy) is None
    model.learn(steps)
    assert _graph_draws(model) == 2 * steps


@pytest.mark.parametrize("model_class", [A2C, PPO2])
def test_gaussian_draws_in_numpy_when_asked(model_class):
    """``sampled_kinds`` including "gaussian" (what benchmarks/numpy_sampling_study.py compares) draws the Box
    actions in NumPy too."""
    model = _model(model_class, "Box")
    model.fast_path.sampled_kinds = ("categorical", "gaussian")
    model.learn(120 if model_class is A2C else 128)
    assert _graph_draws(model) == 0


@pytest.mark.parametrize("space", list(ENVS))
def test_stored_neglogp_is_the_training_graphs(space):
    """The negative log-likelihoods a PPO2 rollout stores with its NumPy-drawn actions are those the training
    network computes for the same observations and actions: the clipped ratio starts at exactly 1 (float32)."""
    model = _model(PPO2, space)
    model.fast_path.sampled_kinds = ("categorical", "gaussian")
    model.learn(32)
    rollout = model.runner.run()
    train = model.train_model
    recomputed = model.sess.run(train.neglogp, {train.obs_ph: rollout.observations, train.action: rollout.actions})
    assert rollout.neglogpacs.dtype == np.float32
    np.testing.assert_allclose(rollout.neglogpacs, recomputed, rtol=1e-5, atol=1e-5)
    if space == "Box":
        # the stored actions are the unclipped draws; what the env received is clipped to the space
        assert np.all(np.isfinite(rollout.actions))


def test_user_step_replacement_is_respected():
    """A ``step`` the user put on the model answers the rollouts (the NumPy copy stays out of the way)."""
    model = _model(A2C, "Discrete")
    calls = []
    original = model.step

    def counting_step(obs, states=None, dones=None, **kwargs):
        calls.append(len(obs))
        return original(obs, states, dones, **kwargs)

    model.step = counting_step
    model.learn(40)
    assert sum(calls) == 40
    assert _graph_draws(model) == 2 * 40  # the graph's Gumbel noise: one uniform value per logit


def _gae_step_by_step(rewards, values, starts, last_values, last_starts, gamma, lam):
    """GAE as the plain backward recursion, one step at a time (the reference of the vectorised TD errors)."""
    advantages = np.zeros(np.shape(rewards), dtype=np.float64)
    carry = 0
    for step in range(len(rewards) - 1, -1, -1):
        if step == len(rewards) - 1:
            continues, next_values = 1.0 - last_starts, last_values
        else:
            continues, next_values = 1.0 - starts[step + 1], values[step + 1]
        carry = rewards[step] + gamma * next_values * continues - values[step] + gamma * lam * continues * carry
        advantages[step] = carry
    return advantages


@pytest.mark.parametrize("n_envs", [None, 1, 8])
@pytest.mark.parametrize("values_dtype", [np.float32, np.float64])
def test_gae_bit_identical_to_the_recursion(n_envs, values_dtype):
    """The TD errors computed for all steps at once give the very bits of the step-by-step recursion, for the
    dtypes the callers pass (float32 rewards and values, boolean or float episode starts)."""
    from stable_baselines.common.model.rollouts import gae_advantages
    rng = np.random.default_rng(5)
    for n_steps in (1, 2, 17, 128):
        shape = (n_steps,) if n_envs is None else (n_steps, n_envs)
        rewards = rng.standard_normal(shape).astype(np.float32)
        values = rng.standard_normal(shape).astype(values_dtype)
        for starts in (rng.random(shape) < 0.2, (rng.random(shape) < 0.2).astype(values_dtype)):
            last_values = rng.standard_normal(shape[1:]).astype(np.float32)
            last_starts = (rng.random(shape[1:]) < 0.3).astype(np.float32)
            expected = _gae_step_by_step(rewards, values, starts, last_values, last_starts, 0.98, 0.9)
            got = gae_advantages(rewards, values, starts, last_values, last_starts, 0.98, 0.9)
            assert got.dtype == np.float64
            assert got.tobytes() == expected.tobytes()
