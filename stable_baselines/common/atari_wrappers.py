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
from typing import Any, Dict, List, Optional, SupportsFloat, Tuple, cast

import gymnasium
import numpy as np
from gymnasium import spaces

from stable_baselines.common import gym_compat

# what gymnasium's reset and step return
ResetReturn = Tuple[Any, Dict[str, Any]]
StepReturn = Tuple[Any, SupportsFloat, bool, bool, Dict[str, Any]]


_CV2: List[Any] = []  # the OpenCV module, once imported


def _cv2() -> Any:
    if _CV2:
        return _CV2[0]
    try:
        import cv2  # pylint: disable=import-outside-toplevel
    except ImportError as err:  # pragma: no cover - depends on the installed extras
        raise ImportError("WarpFrame needs OpenCV: pip install stable-baselines[atari] "
                          "(or opencv-python-headless)") from err
    cv2.ocl.setUseOpenCL(False)
    _CV2.append(cv2)
    return cv2


class NoopResetEnv(gymnasium.Wrapper):
    """
    Varied starts: after each reset, play between 1 and ``noop_max`` times the action 0 (which must be NOOP).
    ``override_num_noops`` fixes that number when set.

    :param env: (Gym Environment) the game
    :param noop_max: (int) the largest number of no-op actions
    """

    def __init__(self, env: gymnasium.Env, noop_max: int = 30) -> None:
        super().__init__(gym_compat.as_gymnasium_env(env))
        self.noop_max = noop_max
        self.override_num_noops: Optional[int] = None
        self.noop_action = 0
        meanings = _action_meanings(self.env)
        if meanings is not None and meanings[0] != "NOOP":
            raise ValueError("NoopResetEnv expects action 0 to be NOOP, the game's action 0 is {!r}".format(meanings[0]))

    def reset(self, **kwargs: Any) -> ResetReturn:
        obs, info = self.env.reset(**kwargs)
        noops = self.override_num_noops
        if noops is None:
            noops = int(self.unwrapped.np_random.integers(1, self.noop_max + 1))
        if noops <= 0:
            raise ValueError("The number of no-ops must be positive, got {}".format(noops))
        for _ in range(noops):
            obs, _, terminated, truncated, info = self.env.step(self.noop_action)
            if terminated or truncated:
                obs, info = self.env.reset()
        return obs, info


class FireResetEnv(gymnasium.Wrapper):
    """
    For games that wait for FIRE before they start: a reset plays FIRE (action 1), then action 2.

    :param env: (Gym Environment) the game
    """

    def __init__(self, env: gymnasium.Env) -> None:
        super().__init__(gym_compat.as_gymnasium_env(env))
        meanings = _action_meanings(self.env)
        if meanings is not None and (len(meanings) < 3 or meanings[1] != "FIRE"):
            raise ValueError("FireResetEnv expects action 1 to be FIRE and at least 3 actions, the game's actions "
                             "are {}".format(meanings))

    def reset(self, **kwargs: Any) -> ResetReturn:
        self.env.reset(**kwargs)
        obs: Any = None
        info: Dict[str, Any] = {}
        for action in (1, 2):
            obs, _, terminated, truncated, info = self.env.step(action)
            if terminated or truncated:
                obs, info = self.env.reset(**kwargs)
        return obs, info


class EpisodicLifeEnv(gymnasium.Wrapper):
    """
    The learner sees an episode end at each lost life (it helps value estimation, as DeepMind found);
    the game itself is reset only when it is really over (``was_real_done``).

    :param env: (Gym Environment) the game (an ale-py environment underneath)
    """

    def __init__(self, env: gymnasium.Env) -> None:
        super().__init__(gym_compat.as_gymnasium_env(env))
        self.lives = 0
        self.was_real_done = True

    def step(self, action: Any) -> StepReturn:
        obs, reward, terminated, truncated, info = self.env.step(action)
        self.was_real_done = terminated or truncated
        # a lost life ends the learner's episode; lives == 0 is the game's own terminal signal
        lives = _ale_lives(self)
        if 0 < lives < self.lives:
            terminated = True
        self.lives = lives
        return obs, reward, terminated, truncated, info

    def reset(self, **kwargs: Any) -> ResetReturn:
        """
        After a real game over, reset the game; after a lost life, continue it with one no-op step,
        so every state of the game stays reachable.

        :param kwargs: passed to the game's ``reset``
        :return: ([int] or [float], dict) the first observation of the learner's episode and its info
        """
        if self.was_real_done:
            obs, info = self.env.reset(**kwargs)
        else:
            # no-op step to advance from the terminal (life lost) state
            obs, _, terminated, truncated, info = self.env.step(0)
            if terminated or truncated:
                obs, info = self.env.reset(**kwargs)
        self.lives = _ale_lives(self)
        return obs, info


class MaxAndSkipEnv(gymnasium.Wrapper):
    """
    Frame skipping: each action is repeated ``skip`` frames, the rewards summed, and the observation is
    the pixel-wise maximum of the last two frames (Atari sprites flicker between frames).

    :param env: (Gym Environment) the game
    :param skip: (int) frames per action
    """

    def __init__(self, env: gymnasium.Env, skip: int = 4) -> None:
        super().__init__(gym_compat.as_gymnasium_env(env))
        if skip < 1:
            raise ValueError("skip must be at least 1, got {}".format(skip))
        # the last two frames of the current repetition
        self._obs_buffer = np.zeros((2,) + _shape(self.observation_space), dtype=self.observation_space.dtype)
        self._skip = skip

    def step(self, action: int) -> StepReturn:
        """
        Play ``action`` for ``skip`` frames (fewer if the episode ends).

        :param action: ([int] or [float]) the action
        :return: ([int] or [float], [float], bool, bool, dict) observation, reward, terminated, truncated, info
        """
        total_reward = 0.0
        terminated = truncated = False
        info: Dict[str, Any] = {}
        first_kept = self._skip - 2
        for repeat in range(self._skip):
            obs, reward, terminated, truncated, info = self.env.step(action)
            if repeat >= first_kept:
                self._obs_buffer[repeat - first_kept] = obs
            total_reward += float(reward)
            if terminated or truncated:
                break
        # when the episode ended early, the buffer is stale: that last observation is never acted on
        return np.maximum(self._obs_buffer[0], self._obs_buffer[1]), total_reward, terminated, truncated, info


class ClipRewardEnv(gymnasium.RewardWrapper):
    """
    Rewards become their sign (-1, 0 or 1), so one learning rate suits every game.

    :param env: (Gym Environment) the game
    """

    def __init__(self, env: gymnasium.Env) -> None:
        super().__init__(gym_compat.as_gymnasium_env(env))

    def reward(self, reward: SupportsFloat) -> float:
        """
        :param reward: (float) the game's reward
        :return: (float) its sign
        """
        return float(np.sign(float(reward)))


class WarpFrame(gymnasium.ObservationWrapper):
    """
    Frames become grey images of ``height`` x ``width`` (84x84, the Nature DQN's input), with one channel.

    :param env: (Gym Environment) the game
    :param width: (int) the width of the image
    :param height: (int) the height of the image
    """

    def __init__(self, env: gymnasium.Env, width: int = 84, height: int = 84) -> None:
        super().__init__(gym_compat.as_gymnasium_env(env))
        self.width = width
        self.height = height
        self.observation_space = spaces.Box(low=0, high=255, shape=(self.height, self.width, 1), dtype=np.uint8)

    def observation(self, frame: np.ndarray) -> np.ndarray:
        """
        :param frame: ([int] or [float]) an RGB (or single-channel) frame of the game
        :return: ([int] or [float]) the grey image, shape (height, width, 1)
        """
        cv2 = _cv2()
        if frame.ndim == 3:
            grey = cv2.cvtColor(frame, cv2.COLOR_RGB2GRAY) if frame.shape[-1] == 3 else frame[..., 0]
        else:
            grey = frame
        small = cv2.resize(grey, (self.width, self.height), interpolation=cv2.INTER_AREA)
        return small[:, :, None]


class FrameStack(gymnasium.Wrapper):
    """
    The observation is the last ``n_frames`` frames side by side on the channel axis, as a
    :class:`LazyFrames` (consecutive observations share their frames in memory).

    :param env: (Gym Environment) the game
    :param n_frames: (int) how many frames
    """

    def __init__(self, env: gymnasium.Env, n_frames: int) -> None:
        super().__init__(gym_compat.as_gymnasium_env(env))
        self.n_frames = n_frames
        self.frames: deque = deque(maxlen=n_frames)
        single = cast(spaces.Box, self.env.observation_space)
        shp = single.shape
        low = np.repeat(single.low, n_frames, axis=-1)
        high = np.repeat(single.high, n_frames, axis=-1)
        self.observation_space = spaces.Box(low=low, high=high, shape=shp[:-1] + (shp[-1] * n_frames,),
                                            dtype=single.dtype)

    def reset(self, **kwargs: Any) -> ResetReturn:
        obs, info = self.env.reset(**kwargs)
        self.frames.extend([obs] * self.n_frames)
        return self._get_ob(), info

    def step(self, action: Any) -> StepReturn:
        obs, reward, terminated, truncated, info = self.env.step(action)
        self.frames.append(obs)
        return self._get_ob(), reward, terminated, truncated, info

    def _get_ob(self) -> "LazyFrames":
        if len(self.frames) != self.n_frames:
            raise RuntimeError("FrameStack holds {} frames, expected {}: reset() first".format(
                len(self.frames), self.n_frames))
        return LazyFrames(list(self.frames))


class ScaledFloatFrame(gymnasium.ObservationWrapper):
    """
    Observations as float32 in [0, 1] (frames divided by 255). Each observation then owns a float copy
    of its frames: four times the memory of bytes, and no sharing between stacked frames.

    :param env: (Gym Environment) the game
    """

    def __init__(self, env: gymnasium.Env) -> None:
        super().__init__(gym_compat.as_gymnasium_env(env))
        self.observation_space = spaces.Box(low=0, high=1.0, shape=env.observation_space.shape, dtype=np.float32)

    def observation(self, observation: Any) -> np.ndarray:
        as_float = np.asarray(observation, dtype=np.float32)
        return as_float / 255.0


class LazyFrames:
    """
    Stacked frames that are concatenated only when first read: observations that overlap in time hold
    references to the same frame arrays, which matters for replay buffers of a million steps. Convert
    to an array (``np.asarray``) only where the model needs one.

    :param frames: ([np.ndarray]) the frames, oldest first
    """

    def __init__(self, frames: List[np.ndarray]) -> None:
        self._frames: Optional[List[np.ndarray]] = frames
        self._out: Optional[np.ndarray] = None

    def _force(self) -> np.ndarray:
        if self._out is None:
            self._out = np.concatenate(cast(List[np.ndarray], self._frames), axis=-1)
            self._frames = None
        return self._out

    def __array__(self, dtype: Any = None, copy: Optional[bool] = None) -> np.ndarray:
        out = self._force()
        if dtype is not None:
            out = out.astype(dtype)
        return np.array(out, copy=True) if copy else out

    def __len__(self) -> int:
        return len(self._force())

    def __getitem__(self, i: Any) -> Any:
        return self._force()[i]

    @property
    def shape(self) -> Tuple[int, ...]:
        return self._force().shape

    @property
    def dtype(self) -> np.dtype:
        return self._force().dtype

    def count(self) -> int:
        """:return: (int) the number of stacked frames"""
        frames = self._force()
        return frames.shape[frames.ndim - 1]

    def frame(self, i: int) -> np.ndarray:
        """:return: (np.ndarray) the i-th stacked frame"""
        return self._force()[..., i]


def _ale_lives(env: gymnasium.Env) -> int:
    """:return: (int) the lives left in the ale-py game under ``env``"""
    game: Any = env.unwrapped
    return game.ale.lives()


def _shape(space: spaces.Space) -> Tuple[int, ...]:
    """:return: (tuple) the shape of a space that has one"""
    assert space.shape is not None, "a space with a shape"
    return space.shape


def _action_meanings(env: gymnasium.Env) -> Optional[List[str]]:
    get_meanings = getattr(env.unwrapped, "get_action_meanings", None)
    return list(get_meanings()) if callable(get_meanings) else None


def make_atari(env_id: str) -> gymnasium.Env:
    """
    A raw game with varied starts (up to 30 no-ops) and 4 frames per action (max over the last two).

    :param env_id: (str) a game without built-in frame skipping, such as ``BreakoutNoFrameskip-v4``
    :return: (Gym Environment) the game
    """
    env = gym_compat.make_env(env_id)
    if env.spec is None or "NoFrameskip" not in env.spec.id:
        raise ValueError("make_atari expects a game without built-in frame skipping (an id containing "
                         "'NoFrameskip', e.g. 'BreakoutNoFrameskip-v4'), got '{}'".format(env_id))
    return MaxAndSkipEnv(NoopResetEnv(env, noop_max=30), skip=4)


def wrap_deepmind(env: gymnasium.Env, episode_life: bool = True, clip_rewards: bool = True,
                  frame_stack: bool = False, scale: bool = False) -> gymnasium.Env:
    """
    The DeepMind preprocessing on top of :func:`make_atari`: lives as episodes, FIRE at reset where the
    game needs it, 84x84 grey frames, then optionally scaled to [0, 1], clipped rewards, 4 stacked frames.

    :param env: (Gym Environment) the game from :func:`make_atari`
    :param episode_life: (bool) a lost life ends the learner's episode (:class:`EpisodicLifeEnv`)
    :param clip_rewards: (bool) rewards become their sign (:class:`ClipRewardEnv`)
    :param frame_stack: (bool) observe the last 4 frames (:class:`FrameStack`)
    :param scale: (bool) float observations in [0, 1] (:class:`ScaledFloatFrame`)
    :return: (Gym Environment) the preprocessed game
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
