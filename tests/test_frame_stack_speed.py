"""The faster frame stacking and Atari wrappers give exactly the observations of the straightforward versions."""
import hashlib

import gymnasium
import numpy as np
import pytest

from stable_baselines.common.vec_env import DummyVecEnv, VecFrameStack
from stable_baselines.common.vec_env.vec_frame_stack import drop_oldest


def _rolled(stack: np.ndarray, width: int) -> np.ndarray:
    return np.roll(stack, shift=-width, axis=-1)


@pytest.mark.parametrize("shape,width,dtype", [
    ((3, 84, 84, 4), 1, np.uint8),     # Atari: 4 grey frames, shifted as one uint32 per pixel
    ((2, 5, 5, 8), 2, np.uint8),       # 4 RGB-less pairs: uint64 words
    ((2, 6, 2), 1, np.uint8),          # 2 frames: uint16 words
    ((2, 7, 4), 1, np.float32),        # 16 bytes per pixel: the slice copy
    ((4, 12), 3, np.float64),          # vectors
    ((2, 3, 1), 1, np.uint8),          # one frame: nothing to keep
])
def test_drop_oldest_matches_roll(shape, width, dtype):
    rng = np.random.default_rng(0)
    stack = (rng.integers(0, 255, size=shape)).astype(dtype)
    expected = _rolled(stack, width)
    drop_oldest(stack, width)
    total = shape[-1]
    # the kept part equals np.roll's; the last ``width`` slots are overwritten by the caller
    np.testing.assert_array_equal(stack[..., :total - width], expected[..., :total - width])


class _Counting(gymnasium.Env):
    """A tiny image env whose frame ``t`` is filled with ``t + 10 * seed``, episodes of 3 steps."""

    def __init__(self, seed):
        self.observation_space = gymnasium.spaces.Box(0, 255, shape=(16, 16, 1), dtype=np.uint8)
        self.action_space = gymnasium.spaces.Discrete(2)
        self.base = 10 * seed
        self.t = 0

    def reset(self, **_kwargs):
        self.t = 0
        return np.full((16, 16, 1), self.base, np.uint8), {}

    def step(self, _action):
        self.t += 1
        return np.full((16, 16, 1), self.base + self.t, np.uint8), 1.0, self.t == 3, False, {}


def test_vec_frame_stack_uint8_values():
    venv = VecFrameStack(DummyVecEnv([lambda: _Counting(1), lambda: _Counting(2)]), 4)
    obs = venv.reset()
    assert obs.shape == (2, 16, 16, 4)
    np.testing.assert_array_equal(obs[:, 0, 0], [[0, 0, 0, 10], [0, 0, 0, 20]])
    obs, _, dones, _ = venv.step([0, 0])
    np.testing.assert_array_equal(obs[:, 0, 0], [[0, 0, 10, 11], [0, 0, 20, 21]])
    venv.step([0, 0])
    obs, _, dones, infos = venv.step([0, 0])
    assert dones.tolist() == [True, True]
    # the terminal stack holds the last frames; the new stack starts from zeros and the reset frame
    np.testing.assert_array_equal(infos[0]["terminal_observation"][0, 0], [10, 11, 12, 13])
    np.testing.assert_array_equal(obs[:, 0, 0], [[0, 0, 0, 10], [0, 0, 0, 20]])


def test_atari_stream_unchanged():
    """Observations, rewards, dones and terminal observations of the DeepMind stack, as recorded before the speedups."""
    pytest.importorskip("ale_py")
    pytest.importorskip("cv2")
    from stable_baselines.common.cmd_util import make_atari_env

    env = VecFrameStack(make_atari_env("BreakoutNoFrameskip-v4", 2, 3), 4)
    digest = hashlib.sha256()
    digest.update(env.reset().tobytes())
    rng = np.random.default_rng(5)
    n_terminal = 0
    for _ in range(300):
        obs, rewards, dones, infos = env.step(rng.integers(4, size=2))
        digest.update(obs.tobytes())
        digest.update(rewards.astype(np.float64).tobytes())
        digest.update(dones.tobytes())
        for info in infos:
            if "terminal_observation" in info:
                n_terminal += 1
                digest.update(np.asarray(info["terminal_observation"]).tobytes())
    env.close()
    assert n_terminal > 0
    # recorded with the implementation of commit 10100c0 (np.roll stacking, ndarray.max over the two frames)
    assert digest.hexdigest() == "99dffc9902ec1d9b150eca072e660dd4d2128f02a6fbc67eef68641e61f818ce"
