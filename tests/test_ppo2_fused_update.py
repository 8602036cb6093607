"""
PPO2's update in one session call (``ppo2/fused_update.py``, ``common/engine/repeated_step.py``): the parameters after a
seeded ``learn`` and the logged losses are those of the loop of one session call per minibatch, bit for bit, on
every kind of action space, with action masks, dict observations and a CNN; the cases that keep the loop still do.
"""
from typing import Any, Callable, List, Tuple

import gymnasium
import numpy as np
import pytest
from gymnasium import spaces

from stable_baselines import PPO2
from stable_baselines.common.identity_env import IdentityEnv, IdentityEnvBox, IdentityEnvMultiDiscrete
from stable_baselines.common.engine.repeated_step import RepeatedStep
from stable_baselines.common.tf_compat import tf
from stable_baselines.common.vec_env import DummyVecEnv
from stable_baselines.ppo2.fused_update import _normalised_per_step, normalised_advantages, run_indices


class _SmallImages(gymnasium.Env):
    """uint8 images 36x36x1 (the smallest the nature CNN takes); the reward says whether the action is t % 3."""

    observation_space = spaces.Box(0, 255, (36, 36, 1), dtype=np.uint8)
    action_space = spaces.Discrete(3)

    def __init__(self) -> None:
        self.t = 0
        self.rng = np.random.default_rng(0)

    def _obs(self) -> np.ndarray:
        return self.rng.integers(0, 256, size=(36, 36, 1), dtype=np.uint8)

    def reset(self, *, seed: Any = None, options: Any = None) -> Tuple[np.ndarray, dict]:
        self.t = 0
        return self._obs(), {}

    def step(self, action: Any) -> Tuple[np.ndarray, float, bool, bool, dict]:
        self.t += 1
        return self._obs(), float(int(action) == self.t % 3), self.t >= 10, False, {}


class _TwoEntries(gymnasium.Env):
    """Dict observations; the right action is 1 when the position plus the flag is positive."""

    observation_space = spaces.Dict({"flag": spaces.Discrete(2), "position": spaces.Box(-1, 1, (1,), np.float32)})
    action_space = spaces.Discrete(2)

    def __init__(self) -> None:
        self.rng = np.random.default_rng(1)
        self.obs: dict = {}

    def _draw(self) -> dict:
        self.obs = {"flag": int(self.rng.integers(2)), "position": self.rng.uniform(-1, 1, (1,)).astype(np.float32)}
        return self.obs

    def reset(self, *, seed: Any = None, options: Any = None) -> Tuple[dict, dict]:
        return self._draw(), {}

    def step(self, action: Any) -> Tuple[dict, float, bool, bool, dict]:
        right = int(self.obs["position"][0] + self.obs["flag"] - 0.5 > 0)
        return self._draw(), float(int(action) == right), False, False, {}


class _Masked(IdentityEnv):
    """Discrete(4) identity task whose odd actions are forbidden at even steps."""

    def __init__(self) -> None:
        super().__init__(4, ep_length=20)
        self.n_steps = 0

    def step(self, action: Any) -> Any:
        self.n_steps += 1
        return super().step(action)

    def action_masks(self) -> np.ndarray:
        return np.array([True, self.n_steps % 2 == 1, True, self.n_steps % 2 == 1])


CONFIGS = {
    "discrete": (lambda: IdentityEnv(4), "MlpPolicy", {}),
    "box_vf_clip": (lambda: IdentityEnvBox(eps=0.5), "MlpPolicy", {"cliprange_vf": 0.3}),
    "box_no_vf_clip": (lambda: IdentityEnvBox(eps=0.5), "MlpPolicy", {"cliprange_vf": -1.0}),
    "multidiscrete": (lambda: IdentityEnvMultiDiscrete(3), "MlpPolicy", {"noptepochs": 3}),
    "masks": (_Masked, "MlpPolicy", {}),
    "multi_input": (_TwoEntries, "MultiInputPolicy", {}),
    "cnn": (_SmallImages, "CnnPolicy", {"nminibatches": 2, "noptepochs": 2}),
}


def _train(config: str, fused: bool, total_timesteps: int = 256) -> Tuple[PPO2, List[np.ndarray]]:
    """:return: (PPO2, [np.ndarray]) the model trained with or without the fused update, and its loss rows"""
    make_env, policy, kwargs = CONFIGS[config]
    settings = dict(n_steps=32, nminibatches=4, learning_rate=1e-3, seed=3, n_cpu_tf_sess=1)
    settings.update(kwargs)
    model = PPO2(policy, DummyVecEnv([make_env, make_env]), **settings)
    model._fused_update.enabled = fused
    losses: List[np.ndarray] = []
    train_on_rollout = model._train_on_rollout

    def record(*args: Any) -> Any:
        stats = train_on_rollout(*args)
        losses.append(stats[2])
        return stats

    model._train_on_rollout = record  # type: ignore[method-assign]
    model.learn(total_timesteps)
    return model, losses


def _fused_op_names(model: PPO2) -> List[str]:
    return [op.name for op in model.graph.get_operations() if op.name.startswith("fused_update/")]


@pytest.mark.parametrize("config", sorted(CONFIGS))
def test_fused_update_equals_minibatch_loop(config: str) -> None:
    total_timesteps = 128 if config == "cnn" else 256
    fused, fused_losses = _train(config, fused=True, total_timesteps=total_timesteps)
    looped, looped_losses = _train(config, fused=False, total_timesteps=total_timesteps)
    assert _fused_op_names(fused) and not _fused_op_names(looped)
    # the graph built with the model is unchanged: the loop's operations come after all of it
    original_ops = [op.name for op in looped.graph.get_operations()]
    assert [op.name for op in fused.graph.get_operations()][:len(original_ops)] == original_ops
    fused_params, looped_params = fused.get_parameters(), looped.get_parameters()
    assert list(fused_params) == list(looped_params)
    for name in fused_params:
        np.testing.assert_array_equal(fused_params[name], looped_params[name], err_msg=name)
    assert len(fused_losses) == len(looped_losses) == total_timesteps // 64
    np.testing.assert_array_equal(np.array(fused_losses), np.array(looped_losses))


def test_global_generator_left_in_the_same_state() -> None:
    states = []
    for fused in (True, False):
        _train("discrete", fused=fused, total_timesteps=128)
        states.append(np.random.random())
    assert states[0] == states[1]


@pytest.mark.parametrize("policy,kwargs", [("MlpLstmPolicy", {"nminibatches": 2}),
                                           ("MlpPolicy", {"tensorboard_log": "TMP"}),
                                           ("MlpPolicy", {"max_grad_norm": None})])
def test_cases_that_keep_the_minibatch_loop(tmp_path: Any, policy: str, kwargs: dict) -> None:
    kwargs = {key: str(tmp_path) if value == "TMP" else value for key, value in kwargs.items()}
    env = DummyVecEnv([lambda: IdentityEnv(2), lambda: IdentityEnv(2)])
    model = PPO2(policy, env, n_steps=16, seed=0, n_cpu_tf_sess=1, **kwargs)
    before = model.get_parameters()
    model.learn(64)
    assert not _fused_op_names(model)
    after = model.get_parameters()
    assert any(not np.array_equal(before[name], after[name]) for name in before)


def test_run_indices_are_the_shuffled_passes() -> None:
    rng = np.random.RandomState(7)
    indices = run_indices(12, 3, 4, rng.shuffle)
    assert indices.shape == (9, 4) and indices.dtype == np.int32
    expected, order = [], np.arange(12)
    replay = np.random.RandomState(7)
    for _ in range(3):
        replay.shuffle(order)
        expected.extend(order[first:first + 4].copy() for first in (0, 4, 8))
    np.testing.assert_array_equal(indices, np.array(expected))
    for one_pass in indices.reshape(3, 12):
        assert sorted(one_pass) == list(range(12))


def test_repeated_step_runs_sgd_steps_on_gathered_rows() -> None:
    graph = tf.Graph()
    with graph.as_default():
        inputs = tf.placeholder(tf.float32, [None], name="x")
        scale = tf.placeholder(tf.float32, [], name="scale")
        weight = tf.Variable(1.0, name="w")
        loss = tf.reduce_mean(tf.square(weight * inputs - 2.0 * inputs))
        update = tf.train.GradientDescentOptimizer(scale).minimize(loss)
        repeated = RepeatedStep([loss], update, gathered=[inputs], constants=[scale], name="loop")
        sess = tf.Session(graph=graph)
        sess.run(tf.global_variables_initializer())
        data = np.array([1.0, 2.0, 3.0, 4.0], dtype=np.float32)
        indices = np.array([[0, 1], [2, 3], [3, 0]], dtype=np.int32)
        rows = sess.run(repeated.stats, dict(zip(repeated.feeds + [scale], [indices, data, 0.05])))
    # the same steps one by one, in NumPy
    w, expected = 1.0, []
    for chosen in indices:
        x = data[chosen]
        expected.append(np.mean((w * x - 2 * x) ** 2))
        w -= 0.05 * np.mean(2 * (w * x - 2 * x) * x)
    np.testing.assert_allclose(rows[:, 0], expected, rtol=1e-6)
    with graph.as_default():
        np.testing.assert_allclose(sess.run(weight), w, rtol=1e-6)
    assert rows.shape == (3, 1)


def test_advantages_of_all_minibatches_equal_the_per_minibatch_ones():
    """The fused update's one-pass normalisation gives the bits of normalised_advantages on each minibatch."""
    rng = np.random.default_rng(2)
    for n_rows, rows_per_step, scale in ((1024, 256, 1.0), (96, 8, 300.0), (40, 40, 1e-3)):
        returns = (rng.normal(size=n_rows) * scale).astype(np.float32)
        values = (rng.normal(size=n_rows) * scale).astype(np.float32)
        indices = run_indices(n_rows, 3, rows_per_step, rng.shuffle)
        expected = np.stack([normalised_advantages(returns[rows], values[rows]) for rows in indices])
        together = _normalised_per_step(returns, values, indices)
        assert together.dtype == expected.dtype == np.float32
        np.testing.assert_array_equal(together.view(np.uint32), expected.view(np.uint32))
