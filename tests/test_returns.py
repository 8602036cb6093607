"""The pure return / advantage estimators of common/model/returns.py and the shared rollout helpers."""
import numpy as np
import pytest
from gymnasium import spaces

from stable_baselines.a2c.a2c import discount_with_dones as a2c_discount_with_dones
from stable_baselines.common.model.rollouts import (clip_to_space, discount_with_dones, discounted_returns,
                                                     gae_advantages, notify_step)


def test_discount_with_dones_restarts_after_an_episode_end():
    assert a2c_discount_with_dones is discount_with_dones  # the manual lists it in a2c/a2c.py
    returns = discount_with_dones([1.0, 2.0, 3.0, 4.0], [False, True, False, False], 0.5)
    # steps 0-1 form one episode, 2-3 another one that is cut (no bootstrap)
    assert returns == pytest.approx([1.0 + 0.5 * 2.0, 2.0, 3.0 + 0.5 * 4.0, 4.0])


def test_discounted_returns_bootstrap_on_the_last_values():
    gamma = 0.9
    rewards = np.array([[1.0, 0.0], [0.0, 1.0], [2.0, 1.0]], dtype=np.float64)  # (n_steps, n_envs)
    dones = np.array([[False, True], [False, False], [False, True]])
    last_values = np.array([10.0, 10.0])
    returns = discounted_returns(rewards, dones, last_values, gamma)
    # env 0 never ends: 2 + 0.9 * 10, then 0 + 0.9 * 11, then 1 + 0.9 * 9.9
    np.testing.assert_allclose(returns[:, 0], [1 + 0.9 * 9.9, 9.9, 11.0])
    # env 1 ends at steps 0 and 2: no bootstrap after step 2, restart after step 0
    np.testing.assert_allclose(returns[:, 1], [0.0, 1 + 0.9 * 1.0, 1.0])
    # equal to the list version on the episode-terminated column
    assert returns[:, 1].tolist() == pytest.approx(discount_with_dones([0.0, 1.0, 1.0], [True, False, True], gamma))
    assert returns.dtype == rewards.dtype


def test_gae_advantages_match_the_recursion_and_limits():
    rng = np.random.RandomState(0)
    n_steps, n_envs, gamma = 6, 3, 0.95
    rewards = rng.randn(n_steps, n_envs)
    values = rng.randn(n_steps, n_envs)
    starts = rng.rand(n_steps, n_envs) < 0.3
    last_values, last_starts = rng.randn(n_envs), np.array([True, False, False])
    next_values = np.concatenate([values[1:], last_values[None]])
    continues = 1.0 - np.concatenate([starts[1:], last_starts[None]]).astype(float)
    deltas = rewards + gamma * next_values * continues - values

    # lambda = 0: one-step TD errors
    np.testing.assert_allclose(gae_advantages(rewards, values, starts, last_values, last_starts, gamma, 0.0), deltas)
    # lambda = 1: discounted returns minus values
    returns = discounted_returns(rewards, 1.0 - continues, last_values, gamma)
    np.testing.assert_allclose(gae_advantages(rewards, values, starts, last_values, last_starts, gamma, 1.0),
                               returns - values, rtol=1e-12, atol=1e-12)
    # any lambda: the backward recursion
    lam = 0.8
    expected = np.zeros_like(rewards)
    carry = np.zeros(n_envs)
    for step in reversed(range(n_steps)):
        carry = deltas[step] + gamma * lam * continues[step] * carry
        expected[step] = carry
    advantages = gae_advantages(rewards, values, starts, last_values, last_starts, gamma, lam)
    np.testing.assert_allclose(advantages, expected, rtol=1e-12)
    assert advantages.dtype == np.float64


def test_clip_to_space_and_notify_step():
    box = spaces.Box(low=-1.0, high=2.0, shape=(2,), dtype=np.float32)
    np.testing.assert_array_equal(clip_to_space(np.array([[-3.0, 5.0]]), box), [[-1.0, 2.0]])
    actions = np.array([7])
    assert clip_to_space(actions, spaces.Discrete(3)) is actions

    class Callback:
        def __init__(self, answer, reads_locals=True):
            self.answer, self.seen, self.reads_locals = answer, None, reads_locals

        def update_locals(self, visible):
            self.seen = dict(visible)

        def on_step(self):
            return self.answer

    assert notify_step(None, {"a": 1})
    keep_going, stop = Callback(True), Callback(False)
    assert notify_step(keep_going, {"rewards": 1}) and keep_going.seen == {"rewards": 1}
    assert not notify_step(stop, {"rewards": 2})
    assert notify_step(Callback(None), {})  # only an explicit False stops
    not_reading = Callback(False, reads_locals=False)
    assert not notify_step(not_reading, {"rewards": 3}) and not_reading.seen is None  # told nothing, still asked
