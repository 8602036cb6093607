"""
Invalid-action masks (``env.action_masks()``, ``predict(..., action_masks=...)``): no forbidden action is ever
taken, the masked distribution's numbers are right, and models whose environment has no masks are unchanged.
"""
import inspect
import warnings
from typing import Any, Dict, List, Tuple

import gymnasium
import numpy as np
import pytest
from gymnasium import spaces

from stable_baselines import A2C, ACER, ACKTR, DQN, PPO2
from stable_baselines.common.policy_parts.action_masks import env_has_action_masks, masked_actions, masked_probabilities
from stable_baselines.common.distributions import (CategoricalProbabilityDistributionType,
                                                   MultiCategoricalProbabilityDistributionType,
                                                   masked_proba_distribution)
from stable_baselines.common.evaluation import evaluate_policy
from stable_baselines.common.policies import MlpLstmPolicy, RecurrentActorCriticPolicy
from stable_baselines.common.tf_compat import tf
from stable_baselines.common.vec_env import DummyVecEnv, VecNormalize
from stable_baselines.deepq.build_graph import _masked_q_target
from mask_env_helpers import FORBIDDEN_REWARD, ChangingMaskEnv, RedrawnMaskEnv, changing_mask_env
from mask_env_helpers import N_CHANGING_ACTIONS as N_ACTIONS

def _forbidden(vec_env: Any) -> int:
    return sum(vec_env.get_attr("forbidden_taken"))


def _vec(n_envs: int = 4, seed: int = 0) -> DummyVecEnv:
    return DummyVecEnv([lambda i=i: ChangingMaskEnv(seed=seed + i) for i in range(n_envs)])


def test_mask_detection() -> None:
    assert env_has_action_masks(_vec(1))
    assert env_has_action_masks(VecNormalize(_vec(1)))
    assert env_has_action_masks(ChangingMaskEnv())
    assert not env_has_action_masks(DummyVecEnv([lambda: gymnasium.make("CartPole-v1")]))


def _log_softmax(logits: np.ndarray) -> np.ndarray:
    shifted = logits - logits.max(axis=-1, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(axis=-1, keepdims=True))


def test_masked_distribution_matches_numpy() -> None:
    rng = np.random.default_rng(1)
    logits = rng.normal(size=(64, N_ACTIONS)).astype(np.float32) * 3
    other_logits = rng.normal(size=(64, N_ACTIONS)).astype(np.float32)
    allowed = rng.random((64, N_ACTIONS)) < 0.5
    allowed[np.arange(64), rng.integers(N_ACTIONS, size=64)] = True
    actions = np.array([rng.choice(np.flatnonzero(row)) for row in allowed])
    graph = tf.Graph()
    with graph.as_default():
        pdtype = CategoricalProbabilityDistributionType(N_ACTIONS)
        logits_ph = tf.placeholder(tf.float32, (None, N_ACTIONS))
        other_ph = tf.placeholder(tf.float32, (None, N_ACTIONS))
        allowed_ph = tf.placeholder(tf.bool, (None, N_ACTIONS))
        dist, _ = masked_proba_distribution(pdtype, logits_ph, allowed_ph)
        other, _ = masked_proba_distribution(pdtype, other_ph, allowed_ph)
        grads = tf.gradients(tf.reduce_sum(dist.entropy()) + tf.reduce_sum(dist.kl(other)), [logits_ph])[0]
        fetched = [dist.neglogp(tf.constant(actions)), dist.entropy(), dist.kl(other), dist.mode(), dist.sample(),
                   grads]
        with tf.Session(graph=graph) as sess:
            neglogp, entropy, kl, mode, sample, grad = sess.run(
                fetched, {logits_ph: logits, other_ph: other_logits, allowed_ph: allowed})
    masked = np.where(allowed, logits.astype(np.float64), -np.inf)
    logp = _log_softmax(masked)
    probs = np.exp(logp)
    other_logp = _log_softmax(np.where(allowed, other_logits.astype(np.float64), -np.inf))
    # the terms of forbidden actions are 0 (p = 0); finite stand-ins keep NumPy from computing 0 * inf
    logp, other_logp = np.where(allowed, logp, 0.0), np.where(allowed, other_logp, 0.0)
    np.testing.assert_allclose(neglogp, -logp[np.arange(64), actions], rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(entropy, -np.where(allowed, probs * logp, 0).sum(axis=1), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(kl, np.where(allowed, probs * (logp - other_logp), 0).sum(axis=1), atol=1e-5)
    np.testing.assert_array_equal(mode, np.argmax(masked, axis=1))
    assert allowed[np.arange(64), sample].all()
    assert np.isfinite(grad).all() and (grad[~allowed] == 0).all()


def test_multi_categorical_masks() -> None:
    nvec = [3, 2]
    graph = tf.Graph()
    logits = np.array([[5.0, 0.0, 1.0, 2.0, -1.0]], dtype=np.float32)
    allowed = np.array([[False, True, True, True, False]])
    with graph.as_default():
        pdtype = MultiCategoricalProbabilityDistributionType(nvec)
        logits_ph = tf.placeholder(tf.float32, (None, 5))
        dist, _ = masked_proba_distribution(pdtype, logits_ph, tf.constant(allowed))
        with tf.Session(graph=graph) as sess:
            mode, entropy = sess.run([dist.mode(), dist.entropy()], {logits_ph: logits})
    np.testing.assert_array_equal(mode, [[2, 0]])
    first = np.exp(_log_softmax(np.array([0.0, 1.0])))
    np.testing.assert_allclose(entropy, [-(first * np.log(first)).sum()], rtol=1e-5)
    space = spaces.MultiDiscrete(nvec)
    probabilities = [np.full((1, 3), 1 / 3), np.full((1, 2), 0.5)]
    masked = masked_probabilities(space, probabilities, allowed)
    np.testing.assert_allclose(masked[0], [[0, 0.5, 0.5]])
    np.testing.assert_allclose(masked[1], [[1, 0]])
    draws = masked_actions(space, probabilities, np.repeat(allowed, 1, axis=0), deterministic=False)
    assert draws.shape == (1, 2) and draws[0, 0] in (1, 2) and draws[0, 1] == 0


@pytest.mark.slow
@pytest.mark.parametrize("model_class, kwargs, steps", [
    (PPO2, dict(n_steps=64, nminibatches=4, learning_rate=3e-3, ent_coef=0.0), 8192),
    (A2C, dict(n_steps=8, learning_rate=3e-3, ent_coef=0.0), 8192),
])
def test_learns_with_masks(model_class: Any, kwargs: Dict[str, Any], steps: int) -> None:
    env = _vec()
    model = model_class("MlpPolicy", env, seed=0, n_cpu_tf_sess=1, **kwargs)
    assert model.uses_action_masks and model.train_model.action_mask_ph is not None
    model.learn(steps)
    assert _forbidden(env) == 0
    assert sum(env.get_attr("steps_taken")) >= steps
    eval_env = _vec(2, seed=100)
    mean_reward, _ = evaluate_policy(model, eval_env, n_eval_episodes=10)
    assert _forbidden(eval_env) == 0
    # random among the allowed actions: 0.417 per step, 8.3 per episode of 20 steps
    assert mean_reward > 16.0


def _random_masked_batch(seed: int) -> Tuple[np.ndarray, np.ndarray]:
    """1000 random observations and their masks: about 30 % of the actions allowed, at least one in each row."""
    rng = np.random.default_rng(seed)
    obs = rng.random((1000, N_ACTIONS)).astype(np.float32)
    allowed = rng.random((1000, N_ACTIONS)) < 0.3
    allowed[np.arange(1000), rng.integers(N_ACTIONS, size=1000)] = True
    return obs, allowed


def test_predict_respects_masks() -> None:
    env = _vec(2)
    model = PPO2("MlpPolicy", env, n_steps=16, nminibatches=2, seed=1, n_cpu_tf_sess=1)
    obs, allowed = _random_masked_batch(3)
    for deterministic in (False, True):
        actions, _ = model.predict(obs, deterministic=deterministic, action_masks=allowed)
        assert actions.shape == (1000,) and allowed[np.arange(1000), actions].all()
    single, _ = model.predict(obs[0], action_masks=allowed[0])
    assert allowed[0, single]
    probs = model.action_probability(obs, action_masks=allowed)
    np.testing.assert_allclose(probs.sum(axis=1), 1.0, rtol=1e-6)
    assert (probs[~allowed] == 0).all()
    with pytest.raises(ValueError, match="action masks of shape"):
        model.predict(obs, action_masks=allowed[:10])
    # evaluation reads the masks of the environment (an untrained policy would often choose forbidden actions)
    single = ChangingMaskEnv(seed=5)
    eval_vec = _vec(3, seed=10)
    for eval_env in (eval_vec, single):
        evaluate_policy(model, eval_env, n_eval_episodes=6, deterministic=False)
    assert _forbidden(eval_vec) == 0 and sum(eval_vec.get_attr("steps_taken")) >= 120
    assert single.forbidden_taken == 0 and single.steps_taken == 120


def test_no_masks_without_env_method() -> None:
    model = PPO2("MlpPolicy", "CartPole-v1", n_steps=16, nminibatches=1)
    assert not model.uses_action_masks and model.act_model.action_mask_ph is None
    names = [op.name for op in model.graph.get_operations()]
    assert not any("action_mask" in name for name in names)
    # predict still applies masks given by hand (in NumPy)
    actions, _ = model.predict(np.zeros((50, 4), dtype=np.float32), action_masks=np.tile([False, True], (50, 1)))
    assert (actions == 1).all()


@pytest.mark.slow
def test_dqn_learns_with_masks() -> None:
    env = ChangingMaskEnv(seed=7)
    model = DQN("MlpPolicy", env, learning_starts=200, exploration_fraction=0.3, exploration_final_eps=0.02,
                learning_rate=1e-3, target_network_update_freq=100, seed=0, n_cpu_tf_sess=1)
    assert model.uses_action_masks
    model.learn(3000)
    # epsilon-greedy exploration included: never a forbidden action
    assert env.forbidden_taken == 0 and env.steps_taken == 3000
    stored = model._next_masks[:len(model.replay_buffer)]
    assert stored.sum(axis=1).min() >= 2 and stored.sum(axis=1).max() <= 3
    eval_env = ChangingMaskEnv(seed=11)
    mean_reward, _ = evaluate_policy(model, eval_env, n_eval_episodes=10)
    assert eval_env.forbidden_taken == 0 and mean_reward > 16.0
    obs, allowed = _random_masked_batch(2)
    for deterministic in (False, True):
        actions, _ = model.predict(obs, deterministic=deterministic, action_masks=allowed)
        assert allowed[np.arange(1000), actions].all()
    probs = model.action_probability(obs, action_masks=allowed)
    assert (probs[~allowed] == 0).all()
    np.testing.assert_allclose(probs.sum(axis=1), 1.0, rtol=1e-6)


@pytest.mark.parametrize("double_q", [False, True])
def test_dqn_targets_use_next_masks(double_q: bool) -> None:
    target_q = np.array([[1.0, 5.0, 3.0], [2.0, -1.0, 9.0]], dtype=np.float32)
    online_q = np.array([[2.0, 4.0, 1.0], [0.0, 7.0, 8.0]], dtype=np.float32)
    allowed = np.array([[True, False, True], [True, True, False]])
    graph = tf.Graph()
    with graph.as_default(), tf.Session(graph=graph) as sess:
        value = sess.run(_masked_q_target(tf.constant(target_q), tf.constant(online_q) if double_q else None, 3,
                                          tf.constant(allowed)))
    # plain: max of the target network over the allowed actions; double: the target network's value of the
    # online network's best allowed action
    expected = [1.0, -1.0] if double_q else [3.0, 2.0]
    np.testing.assert_allclose(value, expected)


@pytest.mark.slow
@pytest.mark.parametrize("model_class, kwargs", [
    (ACKTR, dict(n_steps=8)),
    (ACER, dict(n_steps=8, buffer_size=1000, replay_start=64)),
])
def test_acktr_acer_learn_with_masks(model_class: Any, kwargs: Dict[str, Any]) -> None:
    env = _vec()
    model = model_class("MlpPolicy", env, seed=0, n_cpu_tf_sess=1, **kwargs)
    assert model.uses_action_masks
    model.learn(4096)
    assert _forbidden(env) == 0
    eval_env = _vec(2, seed=100)
    mean_reward, _ = evaluate_policy(model, eval_env, n_eval_episodes=10)
    assert _forbidden(eval_env) == 0 and mean_reward > 16.0


@pytest.mark.slow
@pytest.mark.parametrize("algo", ["PPO1", "TRPO"])
def test_ppo1_trpo_learn_with_masks(algo: str) -> None:
    pytest.importorskip("mpi4py")
    import stable_baselines
    env = ChangingMaskEnv(seed=3)
    kwargs = dict(timesteps_per_actorbatch=256, optim_batchsize=64) if algo == "PPO1" else \
        dict(timesteps_per_batch=256, vf_iters=3)
    model = getattr(stable_baselines, algo)("MlpPolicy", env, seed=0, n_cpu_tf_sess=1, **kwargs)
    assert model.uses_action_masks and model.policy_pi.action_mask_ph is not None
    model.learn(6144)
    assert env.forbidden_taken == 0 and env.steps_taken >= 6144
    eval_env = ChangingMaskEnv(seed=12)
    mean_reward, _ = evaluate_policy(model, eval_env, n_eval_episodes=10)
    assert eval_env.forbidden_taken == 0 and mean_reward > 16.0


class MultiMaskEnv(RedrawnMaskEnv):
    """
    Two sub-actions (3 and 4 choices), each with its own target shown one-hot in the observation; the allowed
    choices of each sub-space change every step and always include its target. A correct sub-action pays 0.5,
    a forbidden one -10 (counted in ``forbidden_taken``).
    """

    nvec = (3, 4)

    def __init__(self, seed: int = 0) -> None:
        super().__init__()
        self.observation_space = spaces.Box(0.0, 1.0, (sum(self.nvec),), dtype=np.float32)
        self.action_space = spaces.MultiDiscrete(list(self.nvec))
        self.rng = np.random.default_rng(seed)
        self.forbidden_taken = 0
        self.targets = [0, 0]
        self.allowed = np.ones(sum(self.nvec), dtype=bool)
        self.elapsed = 0

    def _draw(self) -> np.ndarray:
        obs = np.zeros(sum(self.nvec), dtype=np.float32)
        first = 0
        for index, size in enumerate(self.nvec):
            self.targets[index] = int(self.rng.integers(size))
            self.allowed[first:first + size] = self.rng.random(size) < 0.4
            self.allowed[first + self.targets[index]] = True
            obs[first + self.targets[index]] = 1.0
            first += size
        return obs

    def step(self, action: Any) -> Tuple[np.ndarray, float, bool, bool, Dict]:
        reward, first = 0.0, 0
        for index, size in enumerate(self.nvec):
            choice = int(action[index])
            if not self.allowed[first + choice]:
                self.forbidden_taken += 1
                reward += FORBIDDEN_REWARD
            elif choice == self.targets[index]:
                reward += 0.5
            first += size
        self.elapsed += 1
        return self._draw(), reward, False, self.elapsed >= 20, {}


@pytest.mark.slow
@pytest.mark.parametrize("model_class", [PPO2, A2C])
def test_multi_discrete_masks(model_class: Any) -> None:
    env = DummyVecEnv([lambda i=i: MultiMaskEnv(seed=i) for i in range(4)])
    kwargs = dict(n_steps=64, nminibatches=4) if model_class is PPO2 else dict(n_steps=8)
    model = model_class("MlpPolicy", env, learning_rate=3e-3, ent_coef=0.0, seed=0, n_cpu_tf_sess=1, **kwargs)
    assert model.uses_action_masks
    model.learn(8192)
    assert _forbidden(env) == 0
    eval_env = DummyVecEnv([lambda: MultiMaskEnv(seed=50)])
    mean_reward, _ = evaluate_policy(model, eval_env, n_eval_episodes=5)
    assert _forbidden(eval_env) == 0 and mean_reward > 16.0
    rng = np.random.default_rng(4)
    obs = rng.random((500, 7)).astype(np.float32)
    allowed = rng.random((500, 7)) < 0.3
    allowed[np.arange(500), rng.integers(3, size=500)] = True
    allowed[np.arange(500), 3 + rng.integers(4, size=500)] = True
    for deterministic in (False, True):
        actions, _ = model.predict(obs, deterministic=deterministic, action_masks=allowed)
        assert actions.shape == (500, 2)
        assert allowed[np.arange(500), actions[:, 0]].all() and allowed[np.arange(500), 3 + actions[:, 1]].all()


def test_subproc_vec_env_masks() -> None:
    from stable_baselines.common.vec_env import SubprocVecEnv
    env = VecNormalize(SubprocVecEnv([changing_mask_env, changing_mask_env]), norm_reward=False)
    try:
        model = PPO2("MlpPolicy", env, n_steps=32, nminibatches=2, seed=0, n_cpu_tf_sess=1)
        assert model.uses_action_masks
        model.learn(256)
        assert _forbidden(env) == 0 and sum(env.get_attr("steps_taken")) == 256
    finally:
        env.close()
    plain = SubprocVecEnv([lambda: gymnasium.make("CartPole-v1")])
    try:
        assert not env_has_action_masks(plain)
    finally:
        plain.close()


LSTM_KWARGS = dict(n_lstm=32)


@pytest.mark.slow
@pytest.mark.parametrize("model_class, kwargs, steps, threshold", [
    (PPO2, dict(n_steps=32, nminibatches=2, learning_rate=3e-3, ent_coef=0.0), 8192, 14.0),
    (A2C, dict(n_steps=8, learning_rate=3e-3, ent_coef=0.0), 8192, 12.0),
    (ACKTR, dict(n_steps=8), 2048, 11.0),
    (ACER, dict(n_steps=8, buffer_size=1000, replay_start=64), 2048, 11.0),
])
def test_recurrent_learns_with_masks(model_class: Any, kwargs: Dict[str, Any], steps: int, threshold: float) -> None:
    env = _vec()
    model = model_class("MlpLstmPolicy", env, seed=0, n_cpu_tf_sess=1, policy_kwargs=LSTM_KWARGS, **kwargs)
    assert model.uses_action_masks
    model.learn(steps)
    assert _forbidden(env) == 0 and sum(env.get_attr("steps_taken")) >= steps
    eval_env = _vec(3, seed=100)
    evaluate_policy(model, eval_env, n_eval_episodes=6, deterministic=False)
    mean_reward, _ = evaluate_policy(model, eval_env, n_eval_episodes=9)
    assert _forbidden(eval_env) == 0 and sum(eval_env.get_attr("steps_taken")) >= 300
    # random among the allowed actions: 8.3 per episode of 20 steps
    assert mean_reward > threshold


def _recorded_train_feeds(model: Any) -> List[Dict[str, Any]]:
    """Wrap ``model._train_step`` so that every call's arguments (by name) are recorded in the returned list."""
    calls: List[Dict[str, Any]] = []
    original = model._train_step
    signature = inspect.signature(original)

    def recording(*args: Any, **kwargs: Any) -> Any:
        calls.append(dict(signature.bind(*args, **kwargs).arguments))
        return original(*args, **kwargs)

    model._train_step = recording
    return calls


@pytest.mark.parametrize("model_class, kwargs", [
    (PPO2, dict(n_steps=16, nminibatches=2, noptepochs=2)),
    (A2C, dict(n_steps=8)),
])
def test_recurrent_training_gets_the_masks_of_its_rows(model_class: Any, kwargs: Dict[str, Any]) -> None:
    # the env always allows the target shown one-hot in the observation, and 1 or 2 of the 4 other actions:
    # a mask of another row would miss the target of most observations
    model = model_class("MlpLstmPolicy", _vec(4), seed=0, n_cpu_tf_sess=1, policy_kwargs=LSTM_KWARGS, **kwargs)
    calls = _recorded_train_feeds(model)
    model.learn(2 * 4 * kwargs["n_steps"])
    assert len(calls) == (8 if model_class is PPO2 else 2)
    for call in calls:
        obs, masks, actions = call["obs"], call["action_masks"], call["actions"]
        rows = np.arange(len(obs))
        assert masks.shape == (len(obs), N_ACTIONS) and masks[rows, np.argmax(obs, axis=1)].all()
        assert masks[rows, actions].all() and 2 <= masks.sum(axis=1).mean() < 3


def _masked_log_probs(logits: np.ndarray, allowed: np.ndarray) -> np.ndarray:
    return _log_softmax(np.where(allowed, logits.astype(np.float64), -np.inf))


def test_recurrent_masked_log_probs_match_numpy() -> None:
    model = PPO2("MlpLstmPolicy", _vec(2), n_steps=4, nminibatches=1, seed=2, n_cpu_tf_sess=1,
                 policy_kwargs=LSTM_KWARGS)
    rng = np.random.default_rng(4)
    for policy, rows in ((model.act_model, 2), (model.train_model, 8)):
        obs = rng.random((rows, N_ACTIONS)).astype(np.float32)
        states = rng.normal(size=(2, 64)).astype(np.float32)
        dones = np.zeros(rows, dtype=np.float32)
        dones[1] = 1.0
        allowed = rng.random((rows, N_ACTIONS)) < 0.5
        allowed[np.arange(rows), rng.integers(N_ACTIONS, size=rows)] = True
        actions = np.array([rng.choice(np.flatnonzero(row)) for row in allowed])
        with model.graph.as_default():
            neglogp_op = policy.proba_distribution.neglogp(tf.constant(actions))
        feed = {policy.obs_ph: obs, policy.states_ph: states, policy.dones_ph: dones}
        logits, free_neglogp = model.sess.run([policy.proba_distribution.flatparam(), neglogp_op], feed)
        feed[policy.action_mask_ph] = allowed
        masked_neglogp, probs = model.sess.run([neglogp_op, policy.policy_proba], feed)
        np.testing.assert_allclose(free_neglogp, -_log_softmax(logits)[np.arange(rows), actions], rtol=1e-5, atol=1e-5)
        reference = _masked_log_probs(logits, allowed)
        np.testing.assert_allclose(masked_neglogp, -reference[np.arange(rows), actions], rtol=1e-5, atol=1e-5)
        np.testing.assert_allclose(probs, np.exp(reference), rtol=1e-5, atol=1e-6)
    # the step with masks: the masked neglogp of its actions, the same next state as the unmasked step
    policy = model.act_model
    step_actions, values, next_states, neglogp = policy.step_with_action_masks(obs[:2], allowed[:2], states,
                                                                               dones[:2])
    free_actions, free_values, free_states, _ = policy.step(obs[:2], states, dones[:2])
    assert allowed[np.arange(2), step_actions].all()
    np.testing.assert_allclose(neglogp, -reference[np.arange(2), step_actions], rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(next_states, free_states, rtol=1e-6)
    np.testing.assert_allclose(values, free_values, rtol=1e-6)
    assert free_actions.shape == step_actions.shape


def test_recurrent_predict_with_masks_any_batch() -> None:
    model = A2C("MlpLstmPolicy", _vec(4), n_steps=4, seed=3, n_cpu_tf_sess=1, policy_kwargs=LSTM_KWARGS)
    rng = np.random.default_rng(6)
    obs = rng.random((8, N_ACTIONS)).astype(np.float32)
    states = rng.normal(size=(8, 64)).astype(np.float32)
    episode_starts = np.array([True, False] * 4)
    allowed = np.zeros((8, N_ACTIONS), dtype=bool)
    allowed[np.arange(8), rng.integers(N_ACTIONS, size=8)] = True  # a single allowed action per row
    expected = np.argmax(allowed, axis=1)
    _, free_states = model.predict(obs, state=states, mask=episode_starts)
    for rows in (1, 4, 8):
        for deterministic in (False, True):
            actions, next_states = model.predict(obs[:rows], state=states[:rows], mask=episode_starts[:rows],
                                                 deterministic=deterministic, action_masks=allowed[:rows])
            np.testing.assert_array_equal(actions, expected[:rows])
            assert next_states.shape == (rows, 64)
            np.testing.assert_allclose(next_states, free_states[:rows], rtol=1e-5, atol=1e-6)
    single, single_state = model.predict(obs[0], state=states[:1], mask=episode_starts[:1],
                                         action_masks=allowed[0])
    assert single == expected[0] and single_state.shape == (1, 64)
    # several allowed actions: sampled ones stay among them
    allowed = rng.random((4, N_ACTIONS)) < 0.4
    allowed[:, 2] = True
    for _ in range(20):
        actions, _ = model.predict(obs[:4], state=states[:4], mask=episode_starts[:4], action_masks=allowed)
        assert allowed[np.arange(4), actions].all()
    probs = model.action_probability(obs[:4], state=states[:4], mask=episode_starts[:4], action_masks=allowed)
    np.testing.assert_allclose(probs.sum(axis=1), 1.0, rtol=1e-6)
    assert (probs[~allowed] == 0).all()


class _StatelessRecurrentPolicy(RecurrentActorCriticPolicy):
    """A recurrent policy of a user that does not name its next-state tensor (never built here)."""


def test_recurrent_policies_use_masks() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model = PPO2("MlpLstmPolicy", _vec(2), n_steps=8, nminibatches=2, policy_kwargs=LSTM_KWARGS)
    assert model.uses_action_masks and model.act_model.action_mask_ph is not None
    assert model.train_model.action_mask_ph is not None
    assert MlpLstmPolicy.declares_state_output() and not _StatelessRecurrentPolicy.declares_state_output()
    custom = PPO2(_StatelessRecurrentPolicy, _vec(2), n_steps=8, nminibatches=2, _init_setup_model=False)
    with pytest.warns(UserWarning, match="recurrent policy _StatelessRecurrentPolicy"):
        assert not custom._env_gives_action_masks()


def test_save_load_keeps_parameters(tmp_path: Any) -> None:
    env = _vec(2)
    model = PPO2("MlpPolicy", env, n_steps=16, nminibatches=2, seed=0, n_cpu_tf_sess=1).learn(64)
    path = str(tmp_path / "masked.zip")
    model.save(path)
    obs = np.eye(N_ACTIONS, dtype=np.float32)
    allowed = np.ones((N_ACTIONS, N_ACTIONS), dtype=bool)
    allowed[:, 0] = False
    expected = model.action_probability(obs, action_masks=allowed)
    # the masked graph has the same variables: a model without masks loads the file, and the other way round
    for loaded in (PPO2.load(path), PPO2.load(path, env=_vec(2))):
        assert loaded.uses_action_masks == (loaded.get_env() is not None)
        np.testing.assert_allclose(loaded.action_probability(obs, action_masks=allowed), expected, rtol=1e-5)
        assert (loaded.predict(obs, action_masks=allowed)[0] != 0).all()


class _TargetPredictor:
    """A predictor without ``action_masks``: it picks the target shown in the observation."""

    def predict(self, observation: np.ndarray, state: Any = None, mask: Any = None,
                deterministic: bool = False) -> Tuple[np.ndarray, None]:
        return np.argmax(observation, axis=-1), None


def test_evaluate_predictor_without_masks_parameter() -> None:
    # an env with action_masks() and a predictor that does not take them: evaluated as before
    mean_reward, _ = evaluate_policy(_TargetPredictor(), ChangingMaskEnv(seed=1), n_eval_episodes=2)
    assert mean_reward == 20.0
