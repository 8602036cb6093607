"""
The ways a user hands an environment to a model (contract 10 of DESIGN.md), as factories for the feature x
environment matrix (tests/test_feature_env_matrix.py): an env id string, a plain gymnasium env, a legacy gym-style
env (``reset() -> obs``, a 4-tuple ``step``), a Monitor-wrapped env, an env under gymnasium wrappers (a user's own
and a TimeLimit), DummyVecEnv, SubprocVecEnv, VecNormalize and VecFrameStack.

Three small tasks stand behind every kind, each cheap to step and with episodes of known length:

- ``"discrete"``: a Box observation, Discrete(2) actions (reward 1 for the action that matches the sign of the first
  entry), with invalid-action masks written the ordinary way: ``reset`` and ``step`` make the mask, so
  ``action_masks()`` raises AttributeError before the first reset; a forbidden action is counted in ``forbidden``;
- ``"continuous"``: the same observation, a Box(1,) action that should be the first entry (reward ``-|error|``);
- ``"dict"``: a Dict observation (a Discrete entry and a Box entry) with Discrete(2) actions, or ``"dict-continuous"``
  with a Box action;
- ``"goal"``: the BitFlipping goal env, for HER.
"""
from typing import Any, Callable, Dict, List, Optional, Tuple

import gymnasium
import numpy as np
from gymnasium import spaces

from stable_baselines.bench import Monitor
from stable_baselines.common.bit_flipping_env import BitFlippingEnv
from stable_baselines.common.vec_env import DummyVecEnv, SubprocVecEnv, VecEnv, VecFrameStack, VecNormalize

# every episode of the tasks lasts EP_LEN steps (truncated); the gymnasium-wrappers kind cuts them at WRAPPED_LEN
EP_LEN = 16
WRAPPED_LEN = 10
N_BITS = 3

KINDS = ("id", "plain", "legacy", "Monitor", "gymnasium-wrappers", "DummyVecEnv", "SubprocVecEnv", "VecNormalize",
         "VecFrameStack")
# the kinds that are VecEnvs (their number of envs is chosen by the algorithm: 2 for a vectorised one)
VEC_KINDS = ("DummyVecEnv", "SubprocVecEnv", "VecNormalize", "VecFrameStack")
N_STACK = 2


class SignEnv(gymnasium.Env):
    """
    Observations: 3 values in [-1, 1]; action 1 is right when the first one is positive, 0 otherwise (reward 1
    when right, else 0); every episode is truncated after ``EP_LEN`` steps.
    """

    metadata: Dict[str, Any] = {"render_modes": []}

    def __init__(self) -> None:
        self.observation_space = spaces.Box(-1.0, 1.0, (3,), np.float32)
        self.action_space = spaces.Discrete(2)
        self._obs = np.zeros(3, np.float32)
        self._steps = 0

    def _draw(self) -> Any:
        self._obs = self.np_random.uniform(-1.0, 1.0, (3,)).astype(np.float32)
        return self._obs.copy()

    def _target(self) -> float:
        return float(self._obs[0])

    def _reward(self, action: Any) -> float:
        return float(int(action) == int(self._target() > 0))

    def reset(self, *, seed: Optional[int] = None, options: Optional[dict] = None) -> Tuple[Any, Dict[str, Any]]:
        super().reset(seed=seed)
        self._steps = 0
        return self._draw(), {}

    def step(self, action: Any) -> Tuple[Any, float, bool, bool, Dict[str, Any]]:
        reward = self._reward(action)
        self._steps += 1
        return self._draw(), reward, False, self._steps >= EP_LEN, {}


class MaskedSignEnv(SignEnv):
    """
    :class:`SignEnv` with an invalid-action mask: when the second observation is positive only the right action is
    allowed, else both. The mask exists once the env has been reset, as in most user envs.
    """

    def __init__(self) -> None:
        super().__init__()
        self.forbidden = 0

    def _draw(self) -> Any:
        obs = super()._draw()
        right = int(self._target() > 0)
        self._mask = np.array([True, True]) if obs[1] <= 0 else np.arange(2) == right
        return obs

    def action_masks(self) -> np.ndarray:
        return self._mask.copy()

    def step(self, action: Any) -> Tuple[Any, float, bool, bool, Dict[str, Any]]:
        self.forbidden += 0 if self._mask[int(action)] else 1
        return super().step(action)


class ContinuousSignEnv(SignEnv):
    """:class:`SignEnv` with a Box(1,) action in [-1, 1] that should equal the first observation (reward -|error|)."""

    def __init__(self) -> None:
        super().__init__()
        self.action_space = spaces.Box(-1.0, 1.0, (1,), np.float32)

    def _reward(self, action: Any) -> float:
        return -abs(float(np.asarray(action).ravel()[0]) - self._target())


class DictSignEnv(SignEnv):
    """:class:`SignEnv` seen as a Dict: a Discrete ``flip`` entry turns the sign of the Box ``level`` entry."""

    def __init__(self) -> None:
        super().__init__()
        self.observation_space = spaces.Dict({"flip": spaces.Discrete(2),
                                              "level": spaces.Box(-1.0, 1.0, (2,), np.float32)})
        self._flip = 0

    def _draw(self) -> Any:
        super()._draw()
        self._flip = int(self.np_random.integers(2))
        return {"flip": self._flip, "level": self._obs[:2].copy()}

    def _target(self) -> float:
        return float(self._obs[0]) * (-1.0 if self._flip else 1.0)


class ContinuousDictSignEnv(ContinuousSignEnv, DictSignEnv):
    """:class:`DictSignEnv` with the Box action (and reward) of :class:`ContinuousSignEnv`."""


def goal_env() -> BitFlippingEnv:
    """:return: (BitFlippingEnv) the goal env of HER, episodes of ``EP_LEN`` steps at most"""
    return BitFlippingEnv(n_bits=N_BITS, max_steps=EP_LEN)


TASKS: Dict[str, Callable[[], gymnasium.Env]] = {
    "discrete": MaskedSignEnv, "continuous": ContinuousSignEnv, "dict": DictSignEnv,
    "dict-continuous": ContinuousDictSignEnv, "goal": goal_env,
}
ENV_IDS = {task: "Matrix{}-v0".format(task.title().replace("-", "")) for task in TASKS}
for _task, _env_id in ENV_IDS.items():
    if _env_id not in gymnasium.registry:
        gymnasium.register(id=_env_id, entry_point=TASKS[_task])


class LegacyEnv:
    """
    A gym-style env of the old API around a task (not a gymnasium.Env): ``reset()`` gives the observation only,
    ``step`` four values (``done`` is the end of the episode), ``seed()`` seeds it, as gym < 0.26 envs did.

    :param task: (str) the task it plays
    """

    metadata: Dict[str, Any] = {"render.modes": []}
    reward_range = (-float("inf"), float("inf"))

    def __init__(self, task: str) -> None:
        self._env = TASKS[task]()
        self.observation_space = self._env.observation_space
        self.action_space = self._env.action_space
        self._seed: Optional[int] = None

    def seed(self, seed: Optional[int] = None) -> List[Optional[int]]:
        self._seed = seed
        return [seed]

    def reset(self) -> Any:
        seed, self._seed = self._seed, None
        return self._env.reset(seed=seed)[0]

    def step(self, action: Any) -> Tuple[Any, float, bool, Dict[str, Any]]:
        obs, reward, terminated, truncated, info = self._env.step(action)
        return obs, reward, terminated or truncated, info

    def render(self, mode: str = "human") -> None:
        return None

    def close(self) -> None:
        self._env.close()


class LegacyMaskedEnv(LegacyEnv):
    """The masked task written for the old API: the env defines ``action_masks`` (and counts its forbidden actions)."""

    def __init__(self) -> None:
        super().__init__("discrete")

    def action_masks(self) -> np.ndarray:
        return self._env.action_masks()

    @property
    def forbidden(self) -> int:
        return self._env.forbidden


class LegacyGoalEnv(LegacyEnv):
    """The goal env of the old API: a gym.GoalEnv defined ``compute_reward`` itself."""

    def __init__(self) -> None:
        super().__init__("goal")

    def compute_reward(self, achieved_goal: Any, desired_goal: Any, info: Any) -> Any:
        return self._env.compute_reward(achieved_goal, desired_goal, info)


class UserWrapper(gymnasium.Wrapper):
    """A wrapper of the user's own that only marks the infos (and knows nothing of the library)."""

    def step(self, action: Any) -> Tuple[Any, float, bool, bool, Dict[str, Any]]:
        obs, reward, terminated, truncated, info = self.env.step(action)
        return obs, reward, terminated, truncated, dict(info, user_wrapper=True)


def episode_length(kind: str) -> int:
    """:return: (int) the length of every episode of a task played through ``kind`` (HER's can end sooner)"""
    return WRAPPED_LEN if kind == "gymnasium-wrappers" else EP_LEN


def make_env(kind: str, task: str, n_envs: int = 1) -> Any:
    """
    :param kind: (str) one of :data:`KINDS`
    :param task: (str) one of the keys of :data:`TASKS`
    :param n_envs: (int) the number of envs of the VecEnv kinds (ignored by the others)
    :return: (str, gymnasium env, legacy env or VecEnv) what a user hands to a model for ``kind``
    """
    make = TASKS[task]
    if kind == "id":
        return ENV_IDS[task]
    if kind == "plain":
        return make()
    if kind == "legacy":
        return {"goal": LegacyGoalEnv, "discrete": LegacyMaskedEnv}.get(task, lambda: LegacyEnv(task))()
    if kind == "Monitor":
        return Monitor(make(), filename=None)
    if kind == "gymnasium-wrappers":
        return gymnasium.wrappers.TimeLimit(UserWrapper(make()), max_episode_steps=WRAPPED_LEN)
    if kind == "SubprocVecEnv":
        return SubprocVecEnv([make] * n_envs)
    vec_env = DummyVecEnv([make] * n_envs)
    if kind == "DummyVecEnv":
        return vec_env
    if kind == "VecNormalize":
        return VecNormalize(vec_env)
    if kind == "VecFrameStack":
        return VecFrameStack(vec_env, N_STACK)
    raise ValueError("unknown env kind {!r}, expected one of {}".format(kind, KINDS))


def seed_env(env: Any, seed: int = 7) -> Any:
    """:return: (Any) ``env`` seeded as a user seeds the env they hand over (an id string is left as it is)"""
    if isinstance(env, str):
        return env
    if isinstance(env, VecEnv):
        env.seed(seed)
    elif isinstance(env, LegacyEnv):
        env.seed(seed)
    else:
        env.reset(seed=seed)
    env.action_space.seed(seed)
    return env


def forbidden_actions(env: Any) -> int:
    """:return: (int) the forbidden actions taken so far in the masked env(s) behind ``env`` (any kind)"""
    if isinstance(env, VecEnv):
        return int(sum(env.get_attr("forbidden")))
    layer = env
    while not isinstance(layer, (MaskedSignEnv, LegacyMaskedEnv)):
        layer = layer.env
    return layer.forbidden


def close_env(env: Any) -> None:
    """Close a VecEnv (SubprocVecEnv workers end); other kinds need nothing."""
    if isinstance(env, VecEnv):
        env.close()
