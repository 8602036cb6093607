"""
The DeepMind preprocessing of Atari games (Mnih et al. 2015, Machado et al. 2018 for the
terminology), as gymnasium wrappers working on ale-py's environments:

- :class:`NoopResetEnv`: a random number (1..30) of no-op actions after each reset;
- :class:`FireResetEnv`: press FIRE after a reset, for games that wait for it;
- :class:`EpisodicLifeEnv`: a lost life ends the episode for the learner (the game goes on);
- :class:`MaxAndSkipEnv`: repeat each action 4 frames, observe the max of the last two;
- :class:`ClipRewardEnv`: rewards become their sign;
- :class:`WarpFrame`: 84x84 grey frames (OpenCV);
- :class:`FrameStack` (with :class:`LazyFrames`) and :class:`ScaledFloatFrame`.

:func:`make_atari` builds the raw game with no-op starts and frame skipping, :func:`wrap_deepmind`
adds the rest. The ``*NoFrameskip-v4`` ids of the original work as they are (ale-py registers them).
"""
from collections import deque
from typing import Any, List, Optional

import gymnasium
import numpy as np
from gymnasium import spaces

from stable_baselines.common import gym_compat


def _cv2():
    try:
        import cv2  # pylint: disable=import-outside-toplevel
    except ImportError as err:  # pragma: no cover - depends on the installed extras
        raise ImportError("WarpFrame needs OpenCV: pip install stable-baselines[atari] "
                          "(or opencv-python-headless)") from err
    cv2.ocl.setUseOpenCL(False)
    return cv2


class NoopResetEnv(gymnasium.Wrapper):
    def __init__(self, env: gymnasium.Env, noop_max: int = 30):
        """
        Sample initial states by taking a random number of no-ops on reset.
        No-op is assumed to be action 0.

        :param env: (Gym Environment) the environment to wrap
        :param noop_max: (int) the maximum value of no-ops to run
        """
        super().__init__(gym_compat.as_gymnasium_env(env))
        self.noop_max = noop_max
        self.override_num_noops = None
        self.noop_action = 0
        meanings = _action_meanings(self.env)
        if meanings is not None and meanings[0] != "NOOP":
            raise ValueError("NoopResetEnv expects action 0 to be NOOP, the game's action 0 is {!r}".format(meanings[0]))

    def reset(self, **kwargs):
        obs, info = self.env.reset(**kwargs)
        if self.override_num_noops is not None:
            noops = self.override_num_noops
        else:
            noops = int(self.unwrapped.np_random.integers(1, self.noop_max + 1))
        if noops <= 0:
            raise ValueError("The number of no-ops must be positive, got {}".format(noops))
        for _ in range(noops):
            obs, _, terminated, truncated, info = self.env.step(self.noop_action)
            if terminated or truncated:
                obs, info = self.env.reset()
        return obs, info


class FireResetEnv(gymnasium.Wrapper):
    def __init__(self, env: gymnasium.Env):
        """
        Take action on reset for environments that are fixed until firing.

        :param env: (Gym Environment) the environment to wrap
        """
        super().__init__(gym_compat.as_gymnasium_env(env))
        meanings = _action_meanings(self.env)
        if meanings is not None and (len(meanings) < 3 or meanings[1] != "FIRE"):
            raise ValueError("FireResetEnv expects action 1 to be FIRE and at least 3 actions, the game's actions "
                             "are {}".format(meanings))

    def reset(self, **kwargs):
        self.env.reset(**kwargs)
        obs, info = None, {}
        for action in (1, 2):
            obs, _, terminated, truncated, info = self.env.step(action)
            if terminated or truncated:
                obs, info = self.env.reset(**kwargs)
        return obs, info


class EpisodicLifeEnv(gymnasium.Wrapper):
    def __init__(self, env: gymnasium.Env):
        """
        Make end-of-life == end-of-episode, but only reset on true game over.
        Done by DeepMind for the DQN and co. since it helps value estimation.

        :param env: (Gym Environment) the environment to wrap
        """
        super().__init__(gym_compat.as_gymnasium_env(env))
        self.lives = 0
        self.was_real_done = True

    def step(self, action):
        obs, reward, terminated, truncated, info = self.env.step(action)
        self.was_real_done = terminated or truncated
        # a lost life ends the learner's episode; lives == 0 is the game's own terminal signal
        lives = self.unwrapped.ale.lives()
        if 0 < lives < self.lives:
            terminated = True
        self.lives = lives
        return obs, reward, terminated, truncated, info

    def reset(self, **kwargs):
        """
        Calls the Gym environment reset, only when lives are exhausted.
        This way all states are still reachable even though lives are episodic,
        and the learner need not know about any of this behind-the-scenes.

        :param kwargs: Extra keywords passed to env.reset() call
        :return: ([int] or [float], dict) the first observation of the environment and its info
        """
        if self.was_real_done:
            obs, info = self.env.reset(**kwargs)
        else:
            # no-op step to advance from the terminal (life lost) state
            obs, _, terminated, truncated, info = self.env.step(0)
            if terminated or truncated:
                obs, info = self.env.reset(**kwargs)
        self.lives = self.unwrapped.ale.lives()
        return obs, info


class MaxAndSkipEnv(gymnasium.Wrapper):
    def __init__(self, env: gymnasium.Env, skip: int = 4):
        """
        Return only every `skip`-th frame (frameskipping)

        :param env: (Gym Environment) the environment
        :param skip: (int) number of `skip`-th frame
        """
        super().__init__(gym_compat.as_gymnasium_env(env))
        if skip < 1:
            raise ValueError("skip must be at least 1, got {}".format(skip))
        # most recent raw observations (for max pooling across time steps)
        self._obs_buffer = np.zeros((2,) + self.observation_space.shape, dtype=self.observation_space.dtype)
        self._skip = skip

    def step(self, action: int):
        """
        Step the environment with the given action
        Repeat action, sum reward, and max over last observations.

        :param action: ([int] or [float]) the action
        :return: ([int] or [float], [float], bool, bool, dict) observation, reward, terminated, truncated, info
        """
        total_reward = 0.0
        terminated = truncated = False
        info = {}
        for i in range(self._skip):
            obs, reward, terminated, truncated, info = self.env.step(action)
            if i == self._skip - 2:
                self._obs_buffer[0] = obs
            if i == self._skip - 1:
                self._obs_buffer[1] = obs
            total_reward += float(reward)
            if terminated or truncated:
                break
        # the observation on the game-over frame does not matter
        max_frame = self._obs_buffer.max(axis=0)
        return max_frame, total_reward, terminated, truncated, info


class ClipRewardEnv(gymnasium.RewardWrapper):
    def __init__(self, env: gymnasium.Env):
        """
        clips the reward to {+1, 0, -1} by its sign.

        :param env: (Gym Environment) the environment
        """
        super().__init__(gym_compat.as_gymnasium_env(env))

    def reward(self, reward: float) -> float:
        """
        Bin reward to {+1, 0, -1} by its sign.

        :param reward: (float)
        """
        return float(np.sign(reward))


class WarpFrame(gymnasium.ObservationWrapper):
    def __init__(self, env: gymnasium.Env, width: int = 84, height: int = 84):
        """
        Warp frames to 84x84 (by default) grey images as done in the Nature paper and later work.

        :param env: (Gym Environment) the environment
        :param width: (int) the width of the resized frame
        :param height: (int) the height of the resized frame
        """
        super().__init__(gym_compat.as_gymnasium_env(env))
        self.width = width
        self.height = height
        self.observation_space = spaces.Box(low=0, high=255, shape=(self.height, self.width, 1), dtype=np.uint8)

    def observation(self, frame: np.ndarray) -> np.ndarray:
        """
        returns the current observation from a frame

        :param frame: ([int] or [float]) environment frame
        :return: ([int] or [float]) the observation
        """
        cv2 = _cv2()
        if frame.ndim == 3 and frame.shape[-1] == 3:
            frame = cv2.cvtColor(frame, cv2.COLOR_RGB2GRAY)
        elif frame.ndim == 3:
            frame = frame[..., 0]
        frame = cv2.resize(frame, (self.width, self.height), interpolation=cv2.INTER_AREA)
        return frame[:, :, None]


class FrameStack(gymnasium.Wrapper):
    def __init__(self, env: gymnasium.Env, n_frames: int):
        """
        Stack n_frames last frames.

        Returns lazy array, which is much more memory efficient.

        See Also
        --------
        stable_baselines.common.atari_wrappers.LazyFrames

        :param env: (Gym Environment) the environment
        :param n_frames: (int) the number of frames to stack
        """
        super().__init__(gym_compat.as_gymnasium_env(env))
        self.n_frames = n_frames
        self.frames = deque([], maxlen=n_frames)
        shp = self.env.observation_space.shape
        low = np.repeat(self.env.observation_space.low, n_frames, axis=-1)
        high = np.repeat(self.env.observation_space.high, n_frames, axis=-1)
        self.observation_space = spaces.Box(low=low, high=high, shape=shp[:-1] + (shp[-1] * n_frames,),
                                            dtype=self.env.observation_space.dtype)

    def reset(self, **kwargs):
        obs, info = self.env.reset(**kwargs)
        for _ in range(self.n_frames):
            self.frames.append(obs)
        return self._get_ob(), info

    def step(self, action):
        obs, reward, terminated, truncated, info = self.env.step(action)
        self.frames.append(obs)
        return self._get_ob(), reward, terminated, truncated, info

    def _get_ob(self) -> "LazyFrames":
        assert len(self.frames) == self.n_frames
        return LazyFrames(list(self.frames))


class ScaledFloatFrame(gymnasium.ObservationWrapper):
    def __init__(self, env: gymnasium.Env):
        """
        Observations as float32 in [0, 1] (frames divided by 255).

        :param env: (Gym Environment) the environment
        """
        super().__init__(gym_compat.as_gymnasium_env(env))
        self.observation_space = spaces.Box(low=0, high=1.0, shape=env.observation_space.shape, dtype=np.float32)

    def observation(self, observation):
        # careful! This undoes the memory optimization, use
        # with smaller replay buffers only.
        return np.array(observation).astype(np.float32) / 255.0


class LazyFrames:
    def __init__(self, frames: List[np.ndarray]):
        """
        This object ensures that common frames between the observations are only stored once.
        It exists purely to optimize memory usage which can be huge for DQN's 1M frames replay
        buffers.

        This object should only be converted to np.ndarray before being passed to the model.

        :param frames: ([int] or [float]) environment frames
        """
        self._frames = frames
        self._out = None

    def _force(self) -> np.ndarray:
        if self._out is None:
            self._out = np.concatenate(self._frames, axis=-1)
            self._frames = None
        return self._out

    def __array__(self, dtype: Any = None, copy: Optional[bool] = None) -> np.ndarray:
        out = self._force()
        if dtype is not None:
            out = out.astype(dtype)
        return np.array(out, copy=True) if copy else out

    def __len__(self) -> int:
        return len(self._force())

    def __getitem__(self, i):
        return self._force()[i]

    @property
    def shape(self):
        return self._force().shape

    @property
    def dtype(self):
        return self._force().dtype

    def count(self) -> int:
        """:return: (int) the number of stacked frames"""
        frames = self._force()
        return frames.shape[frames.ndim - 1]

    def frame(self, i: int) -> np.ndarray:
        """:return: (np.ndarray) the i-th stacked frame"""
        return self._force()[..., i]


def _action_meanings(env: gymnasium.Env) -> Optional[List[str]]:
    get_meanings = getattr(env.unwrapped, "get_action_meanings", None)
    return list(get_meanings()) if callable(get_meanings) else None


def make_atari(env_id: str) -> gymnasium.Env:
    """
    Create a wrapped atari Environment: no-op starts and a frame skip of 4 (max over the last two frames).

    :param env_id: (str) the environment ID, a ``*NoFrameskip*`` game such as ``BreakoutNoFrameskip-v4``
    :return: (Gym Environment) the wrapped atari environment
    """
    env = gym_compat.make_env(env_id)
    if "NoFrameskip" not in env.spec.id:
        raise ValueError("make_atari expects a game without built-in frame skipping (an id containing "
                         "'NoFrameskip', e.g. 'BreakoutNoFrameskip-v4'), got '{}'".format(env_id))
    env = NoopResetEnv(env, noop_max=30)
    env = MaxAndSkipEnv(env, skip=4)
    return env


def wrap_deepmind(env: gymnasium.Env, episode_life: bool = True, clip_rewards: bool = True,
                  frame_stack: bool = False, scale: bool = False) -> gymnasium.Env:
    """
    Configure environment for DeepMind-style Atari.

    :param env: (Gym Environment) the atari environment
    :param episode_life: (bool) wrap the episode life wrapper
    :param clip_rewards: (bool) wrap the reward clipping wrapper
    :param frame_stack: (bool) wrap the frame stacking wrapper
    :param scale: (bool) wrap the scaling observation wrapper
    :return: (Gym Environment) the wrapped atari environment
    """
    if episode_life:
        env = EpisodicLifeEnv(env)
    if "FIRE" in (_action_meanings(env) or []):
        env = FireResetEnv(env)
    env = WarpFrame(env)
    if scale:
        env = ScaledFloatFrame(env)
    if clip_rewards:
        env = ClipRewardEnv(env)
    if frame_stack:
        env = FrameStack(env, 4)
    return env
