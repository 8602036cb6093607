"""
The experience replay buffer of ACER: it stores whole on-policy segments of ``n_steps`` steps per
environment (observations, actions, rewards, behaviour-policy probabilities ``mus``, dones and
masks), and hands back one segment per environment, so that Retrace can run along the sequence; and
:class:`ACERBatch`, the segment as ACER's runner collects it.
"""
from typing import Any, NamedTuple, Optional, Tuple

import numpy as np

from stable_baselines.common.vec_env import VecEnv, VecFrameStack


class Buffer(object):
    """
    Replay buffer of trajectory segments for ACER.

    Each slot holds one segment: for every environment, ``n_steps + 1`` observations (the last one is
    the bootstrap observation), ``n_steps`` actions, rewards, behaviour probabilities and dones, and
    ``n_steps + 1`` masks (True where an observation is the first of an episode).

    When the environment is a :class:`~stable_baselines.common.vec_env.VecFrameStack`, only the
    newest frame of every observation is stored (plus the full stack of the first observation of the
    segment); the stacks are rebuilt on sampling, exactly as VecFrameStack built them (zeroed at an
    episode start). This divides the memory needed for Atari-style frame stacks by ``n_stack``.

    :param env: (VecEnv) the environment (its number of environments and observation space are used)
    :param n_steps: (int) the number of steps per segment and environment
    :param size: (int) the buffer size in number of steps per environment (``size // n_steps`` segments)
    """

    def __init__(self, env: VecEnv, n_steps: int, size: int = 50000) -> None:
        if not isinstance(n_steps, (int, np.integer)) or n_steps < 1:
            raise ValueError("Buffer expected n_steps to be a positive int, got {!r}".format(n_steps))
        if size // n_steps < 1:
            raise ValueError("Buffer size ({}) must hold at least one segment of n_steps={} steps"
                             .format(size, n_steps))
        self.n_env = env.num_envs
        self.n_steps = int(n_steps)
        self.n_batch = self.n_env * self.n_steps
        # Each slot contains n_env * n_steps transitions: the total buffer is n_env * size transitions
        self.size = int(size) // self.n_steps
        self.obs_shape = tuple(env.observation_space.shape)
        self.obs_dtype = env.observation_space.dtype

        # frame stacking: store only the newest frame of each stacked observation
        self.n_stack = 1
        if isinstance(env, VecFrameStack) and env.n_stack > 1 and len(self.obs_shape) >= 1:
            self.n_stack = env.n_stack
        self.frame_size = self.obs_shape[-1] // self.n_stack if self.obs_shape else 1

        # Memory (allocated on the first put, when the shapes are known)
        # full observations, or the first stacked observation of the segment
        self.enc_obs: Optional[np.ndarray] = None
        # newest frames of the following observations (frame stacking only)
        self.frames: Optional[np.ndarray] = None
        self.actions: Optional[np.ndarray] = None
        self.rewards: Optional[np.ndarray] = None
        self.mus: Optional[np.ndarray] = None
        self.dones: Optional[np.ndarray] = None
        self.masks: Optional[np.ndarray] = None
        self.states: Optional[np.ndarray] = None
        # the allowed actions of every observation [n_env, n_steps + 1, mask width] (models using action masks)
        self.action_masks: Optional[np.ndarray] = None

        # Size indexes
        self.next_idx = 0
        self.num_in_buffer = 0

    def __len__(self) -> int:
        return self.num_in_buffer

    def has_atleast(self, frames: int) -> bool:
        """
        Whether the buffer holds at least ``frames`` steps per environment.

        :param frames: (int) number of steps per environment
        :return: (bool)
        """
        return self.num_in_buffer >= (frames // self.n_steps)

    def can_sample(self) -> bool:
        """
        :return: (bool) whether at least one segment is stored
        """
        return self.num_in_buffer > 0

    def encode(self, obs: np.ndarray) -> Tuple[np.ndarray, Optional[np.ndarray]]:
        """
        Split a segment of (stacked) observations into what is stored.

        :param obs: (np.ndarray) observations of shape [n_env, n_steps + 1, ...]
        :return: (np.ndarray, np.ndarray or None) the stored observations (all of them, or only the first
            stacked one) and the newest frames of the following ones (None without frame stacking)
        """
        if self.n_stack == 1:
            return obs, None
        return obs[:, 0], obs[:, 1:, ..., -self.frame_size:]

    def decode(self, enc_obs: np.ndarray, frames: Optional[np.ndarray], masks: np.ndarray) -> np.ndarray:
        """
        Rebuild the observations of segments.

        :param enc_obs: (np.ndarray) stored observations ([n_env, n_steps + 1, ...] without frame stacking,
            the first stacked observation [n_env, ...] with it)
        :param frames: (np.ndarray) newest frames [n_env, n_steps, ..., frame channels] (frame stacking only)
        :param masks: (np.ndarray) [n_env, n_steps + 1] True where an observation starts an episode
        :return: (np.ndarray) observations of shape [n_env, n_steps + 1, ...]
        """
        if self.n_stack == 1:
            return enc_obs
        assert frames is not None, "segments stored with frame stacking have their frames"
        n_env = enc_obs.shape[0]
        obs = np.zeros((n_env, self.n_steps + 1) + self.obs_shape, dtype=self.obs_dtype)
        obs[:, 0] = enc_obs
        for step in range(1, self.n_steps + 1):
            stacked = np.roll(obs[:, step - 1], shift=-self.frame_size, axis=-1)
            stacked[masks[:, step].astype(bool)] = 0
            stacked[..., -self.frame_size:] = frames[:, step - 1]
            obs[:, step] = stacked
        return obs

    def put(self, enc_obs: np.ndarray, actions: np.ndarray, rewards: np.ndarray, mus: np.ndarray,
            dones: np.ndarray, masks: np.ndarray, states: Optional[np.ndarray] = None,
            action_masks: Optional[np.ndarray] = None) -> None:
        """
        Store one segment.

        :param enc_obs: (np.ndarray) observations [n_env, n_steps + 1, ...]
        :param actions: (np.ndarray) [n_env, n_steps]
        :param rewards: (np.ndarray) [n_env, n_steps]
        :param mus: (np.ndarray) behaviour policy probabilities [n_env, n_steps, n_act]
        :param dones: (np.ndarray) [n_env, n_steps]
        :param masks: (np.ndarray) [n_env, n_steps + 1]
        :param states: (np.ndarray) recurrent states at the start of the segment [n_env, ...] (or None)
        :param action_masks: (np.ndarray) the allowed actions [n_env, n_steps + 1, mask width] (or None)
        """
        enc_obs = np.asarray(enc_obs)
        expected = (self.n_env, self.n_steps + 1) + self.obs_shape
        if enc_obs.shape != expected:
            raise ValueError("Buffer.put expected observations of shape {}, got {}".format(expected, enc_obs.shape))
        first_obs, frames = self.encode(enc_obs)
        if self.enc_obs is None:
            self.enc_obs = np.empty((self.size,) + first_obs.shape, dtype=self.obs_dtype)
            if frames is not None:
                self.frames = np.empty((self.size,) + frames.shape, dtype=self.obs_dtype)
            self.actions = np.empty((self.size,) + np.shape(actions), dtype=np.int32)
            self.rewards = np.empty((self.size,) + np.shape(rewards), dtype=np.float32)
            self.mus = np.empty((self.size,) + np.shape(mus), dtype=np.float32)
            self.dones = np.empty((self.size,) + np.shape(dones), dtype=bool)
            self.masks = np.empty((self.size,) + np.shape(masks), dtype=bool)
            if states is not None:
                self.states = np.empty((self.size,) + np.shape(states), dtype=np.float32)
            if action_masks is not None:
                self.action_masks = np.ones((self.size,) + np.shape(action_masks), dtype=bool)

        stored_obs, stored_actions, stored_rewards, stored_mus, stored_dones, stored_masks = self._storage()
        stored_obs[self.next_idx] = first_obs
        if frames is not None and self.frames is not None:  # both exactly when frames are stacked
            self.frames[self.next_idx] = frames
        stored_actions[self.next_idx] = actions
        stored_rewards[self.next_idx] = rewards
        stored_mus[self.next_idx] = mus
        stored_dones[self.next_idx] = dones
        stored_masks[self.next_idx] = masks
        if self.states is not None and states is not None:
            self.states[self.next_idx] = states
        if self.action_masks is not None and action_masks is not None:
            self.action_masks[self.next_idx] = action_masks

        self.next_idx = (self.next_idx + 1) % self.size
        self.num_in_buffer = min(self.size, self.num_in_buffer + 1)

    def _storage(self) -> Tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """
        :return: (np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray) the arrays of the
            observations (``enc_obs``), actions, rewards, mus, dones and masks, allocated by the first ``put``
        """
        if self.enc_obs is None or self.actions is None or self.rewards is None or self.mus is None \
                or self.dones is None or self.masks is None:
            raise RuntimeError("Cannot sample from an empty ACER buffer: put at least one segment first")
        return self.enc_obs, self.actions, self.rewards, self.mus, self.dones, self.masks

    def take(self, arr: np.ndarray, idx: np.ndarray, envx: np.ndarray) -> np.ndarray:
        """
        Pick, for every environment ``i``, the row ``envx[i]`` of the segment ``idx[i]``.

        :param arr: (np.ndarray) a storage array [size, n_env, ...]
        :param idx: (np.ndarray) segment index per environment
        :param envx: (np.ndarray) environment index per environment
        :return: (np.ndarray) [n_env, ...]
        """
        return arr[idx, envx]

    def get(self, return_states: bool = False, return_action_masks: bool = False) -> tuple:
        """
        Sample one stored segment per environment (each environment's own experience, from a random slot).

        :param return_states: (bool) also return the recurrent states at the start of the segments
            (None when no states were stored)
        :param return_action_masks: (bool) also return, last, the allowed actions of the observations
            [n_env, n_steps + 1, mask width] (None when none were stored)
        :return: (tuple) obs [n_env, n_steps + 1, ...], actions, rewards [n_env, n_steps],
            mus [n_env, n_steps, n_act], dones [n_env, n_steps], masks [n_env, n_steps + 1]
            (and states when ``return_states``, then action masks when ``return_action_masks``)
        """
        if not self.can_sample():
            raise RuntimeError("Cannot sample from an empty ACER buffer: put at least one segment first")
        # Sample exactly one slot per env: samples from the same env are more correlated
        idx = np.random.randint(0, self.num_in_buffer, self.n_env)
        envx = np.arange(self.n_env)

        stored_obs, stored_actions, stored_rewards, stored_mus, stored_dones, stored_masks = self._storage()
        masks = self.take(stored_masks, idx, envx)
        frames = None if self.frames is None else self.take(self.frames, idx, envx)
        obs = self.decode(self.take(stored_obs, idx, envx), frames, masks)
        actions = self.take(stored_actions, idx, envx)
        rewards = self.take(stored_rewards, idx, envx)
        mus = self.take(stored_mus, idx, envx)
        dones = self.take(stored_dones, idx, envx)
        sample: tuple = (obs, actions, rewards, mus, dones, masks)
        if return_states:
            sample += (None if self.states is None else self.take(self.states, idx, envx),)
        if return_action_masks:
            sample += (None if self.action_masks is None else self.take(self.action_masks, idx, envx),)
        return sample


class ACERBatch(NamedTuple):
    """
    A segment of ACER, the arrays [n_envs, n_steps, ...] (n_steps + 1 for ``obs`` and ``masks``: the last position
    bootstraps); the field names are those the callback sees.
    """

    enc_obs: Any  # (np.ndarray) the observations as stored in the replay buffer
    obs: Any  # (np.ndarray) the observations
    actions: Any  # (np.ndarray) the actions
    rewards: Any  # (np.ndarray) the rewards
    mus: Any  # (np.ndarray) the probabilities of every action under the acting policy
    dones: Any  # (np.ndarray) episode ends aligned with the rewards
    masks: Any  # (np.ndarray) episode-start flags
    states: Any  # (np.ndarray) recurrent states at the start of the segment
    ep_infos: Any  # ([dict]) the Monitor records of the episodes that ended

    @property
    def true_rewards(self) -> Any:
        """(np.ndarray) the rewards as the environment gave them (ACER trains on them unchanged)"""
        return self.rewards

    @property
    def episode_flags(self) -> Any:
        """(np.ndarray) the flags of the tensorboard reward curve: the episode ends"""
        return self.dones
