"""
Masked environments for the action-mask tests (tests/test_env_has_attr.py, tests/test_action_masks.py). They live
apart from the tests, in a module that imports no algorithm and no TensorFlow, so that the SubprocVecEnv workers
that unpickle them stay light (contract 8), as a user's env module does.
"""
from typing import Any, Dict, Optional, Tuple

import gymnasium
import numpy as np
from gymnasium import spaces

N_ACTIONS = 6


class MaskAfterResetEnv(gymnasium.Env):
    """
    Discrete(6), three actions allowed at each step; the mask is made by ``reset`` and ``step``, as most user envs
    do, so ``action_masks()`` raises AttributeError before the first reset. A forbidden action costs -1 and is
    counted in ``forbidden`` (kept in the env, so that a SubprocVecEnv worker reports it through ``get_attr``).
    """

    def __init__(self) -> None:
        self.observation_space = spaces.Box(-1.0, 1.0, (N_ACTIONS,), np.float32)
        self.action_space = spaces.Discrete(N_ACTIONS)
        self.forbidden = 0
        self._steps = 0

    def _new_mask(self) -> None:
        allowed = self.np_random.choice(N_ACTIONS, 3, replace=False)
        self._mask = np.zeros(N_ACTIONS, dtype=bool)
        self._mask[allowed] = True

    def _obs(self) -> np.ndarray:
        return self._mask.astype(np.float32) * 2.0 - 1.0

    def action_masks(self) -> np.ndarray:
        return self._mask.copy()

    def reset(self, *, seed: Optional[int] = None, options: Optional[dict] = None) -> Tuple[np.ndarray, Dict]:
        super().reset(seed=seed)
        self._steps = 0
        self._new_mask()
        return self._obs(), {}

    def step(self, action: Any) -> Tuple[np.ndarray, float, bool, bool, Dict]:
        allowed = bool(self._mask[int(action)])
        self.forbidden += 0 if allowed else 1
        self._steps += 1
        self._new_mask()
        return self._obs(), 0.1 if allowed else -1.0, False, self._steps >= 25, {}


class LegacyMaskAfterResetEnv(MaskAfterResetEnv):
    """The same env written for the old gym API: ``reset()`` gives the observation only, ``step`` four values."""

    def reset(self, **_kwargs: Any) -> np.ndarray:  # type: ignore[override]
        return super().reset()[0]

    def step(self, action: Any) -> Tuple[np.ndarray, float, bool, Dict]:  # type: ignore[override]
        obs, reward, terminated, truncated, info = super().step(action)
        return obs, reward, terminated or truncated, info


class UserWrapper(gymnasium.Wrapper):
    """A wrapper of the user's that knows nothing of masks."""


class BrokenMaskEnv(MaskAfterResetEnv):
    """An env whose ``action_masks`` has a bug of its own."""

    def action_masks(self) -> np.ndarray:
        raise KeyError("the user's bug")


MASK_ENV_ID = "MaskAfterReset-v0"
if MASK_ENV_ID not in gymnasium.registry:
    gymnasium.register(id=MASK_ENV_ID, entry_point=MaskAfterResetEnv)


N_CHANGING_ACTIONS = 5
FORBIDDEN_REWARD = -10.0


class RedrawnMaskEnv(gymnasium.Env):
    """
    The base of the envs whose observation and allowed actions are drawn anew at each reset and step: a subclass
    sets ``allowed`` (bool array, the mask) and returns the observation in ``_draw``; ``elapsed`` counts the steps
    of the episode.
    """

    allowed: np.ndarray
    elapsed: int

    def action_masks(self) -> np.ndarray:
        return self.allowed.copy()

    def reset(self, *, seed: Optional[int] = None, options: Optional[dict] = None) -> Tuple[np.ndarray, Dict]:
        super().reset(seed=seed)
        self.elapsed = 0
        return self._draw(), {}


class ChangingMaskEnv(RedrawnMaskEnv):
    """
    The observation is the one-hot of a target action; the allowed actions are a new random subset of 2 or 3 of
    the 5 actions at every step, always with the target. The target pays 1, another allowed action 0 and a
    forbidden one -10 (and is counted in ``forbidden_taken``). Choosing uniformly among the allowed actions
    earns (1/2 + 1/3) / 2 = 0.417 per step on average.
    """

    def __init__(self, episode_length: int = 20, seed: int = 0) -> None:
        super().__init__()
        self.observation_space = spaces.Box(0.0, 1.0, (N_CHANGING_ACTIONS,), dtype=np.float32)
        self.action_space = spaces.Discrete(N_CHANGING_ACTIONS)
        self.episode_length = episode_length
        self.rng = np.random.default_rng(seed)
        self.forbidden_taken = 0
        self.steps_taken = 0
        self.target = 0
        self.allowed = np.ones(N_CHANGING_ACTIONS, dtype=bool)
        self.elapsed = 0

    def _draw(self) -> np.ndarray:
        self.target = int(self.rng.integers(N_CHANGING_ACTIONS))
        others = [action for action in range(N_CHANGING_ACTIONS) if action != self.target]
        chosen = self.rng.choice(others, size=int(self.rng.integers(1, 3)), replace=False)
        self.allowed = np.zeros(N_CHANGING_ACTIONS, dtype=bool)
        self.allowed[[self.target, *chosen]] = True
        obs = np.zeros(N_CHANGING_ACTIONS, dtype=np.float32)
        obs[self.target] = 1.0
        return obs

    def step(self, action: Any) -> Tuple[np.ndarray, float, bool, bool, Dict]:
        action = int(action)
        self.steps_taken += 1
        if not self.allowed[action]:
            self.forbidden_taken += 1
            reward = FORBIDDEN_REWARD
        else:
            reward = float(action == self.target)
        self.elapsed += 1
        return self._draw(), reward, False, self.elapsed >= self.episode_length, {}


def changing_mask_env() -> ChangingMaskEnv:
    """:return: (ChangingMaskEnv) the env of the SubprocVecEnv mask test"""
    return ChangingMaskEnv(seed=21)
