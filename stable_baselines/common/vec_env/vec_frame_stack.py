"""VecFrameStack: stack the last observations of each environment on the last axis."""
import sys
import warnings
from collections import OrderedDict
from typing import Dict, List, Optional

import numpy as np
from gymnasium import spaces

from stable_baselines.common.vec_env.base_vec_env import VecEnv, VecEnvObs, VecEnvStepReturn, VecEnvWrapper

#: unsigned integer types as wide as a whole stack (last axis), for shifting the stack in one integer operation
_WHOLE_STACK_TYPES = {2: np.uint16, 4: np.uint32, 8: np.uint64}


def drop_oldest(stack: np.ndarray, width: int) -> None:
    """
    Move the newer observations of each stack ``width`` slots towards the front of the last axis, in place (the
    last ``width`` slots then hold stale values, to be overwritten by the new observation).

    A C-contiguous stack whose last axis spans 2, 4 or 8 bytes (e.g. 4 stacked uint8 Atari frames) is shifted as
    one unsigned integer per pixel on a little-endian machine: the oldest slot holds the lowest bytes, so a right
    shift drops it, many times faster than copying bytes with a stride.

    :param stack: (np.ndarray) the stacks, shape ``(..., n_stack * width)``
    :param width: (int) the size of one observation on the last axis
    """
    total = stack.shape[-1]
    whole_type = _WHOLE_STACK_TYPES.get(total * stack.itemsize)
    if whole_type is not None and width < total and sys.byteorder == "little" and stack.flags.c_contiguous:
        as_words = stack.view(whole_type)
        np.right_shift(as_words, 8 * width * stack.itemsize, out=as_words)
    else:
        stack[..., :total - width] = stack[..., width:]


class VecFrameStack(VecEnvWrapper):
    """
    Gives the agent the ``n_stack`` most recent observations of each environment at once, joined on the
    last axis (the channels, for images), oldest first. When an episode ends, the stack of that environment
    starts again from zeros; the ``terminal_observation`` of its info is stacked as well.

    With a Dict observation space, every Box entry is stacked on its own (other entries pass unchanged).

    :param venv: (VecEnv) the vectorized environment whose observations are stacked
    :param n_stack: (int) how many observations to stack
    """

    def __init__(self, venv: VecEnv, n_stack: int) -> None:
        if not isinstance(n_stack, (int, np.integer)) or n_stack < 1:
            raise ValueError("VecFrameStack expected n_stack to be a positive int, got {!r}".format(n_stack))
        self.venv = venv
        self.n_stack = int(n_stack)
        single = venv.observation_space
        # Dict spaces: one stacked array per Box entry (None: a Box space, stacked in ``stackedobs``)
        self.stacked_entries: Optional[Dict[str, np.ndarray]] = None
        if isinstance(single, spaces.Dict):
            self._init_entries(venv, single)
            return
        if not isinstance(single, spaces.Box):
            raise TypeError("VecFrameStack only supports Box observation spaces, got {}".format(single))
        if len(single.shape) == 0:
            raise ValueError("VecFrameStack needs observations with at least one axis, got shape ()")
        low = np.concatenate([single.low] * self.n_stack, axis=-1)
        high = np.concatenate([single.high] * self.n_stack, axis=-1)
        self.stackedobs = np.zeros((venv.num_envs,) + low.shape, low.dtype)
        VecEnvWrapper.__init__(self, venv, observation_space=spaces.Box(low=low, high=high, dtype=single.dtype))

    def _init_entries(self, venv: VecEnv, space: spaces.Dict) -> None:
        """Prepare the stacks of the Box entries of a Dict space."""
        entries = OrderedDict(space.spaces)
        self.stacked_entries = {}
        for key, entry in space.spaces.items():
            if not isinstance(entry, spaces.Box):
                continue
            if len(entry.shape) == 0:
                raise ValueError("VecFrameStack needs observations with at least one axis, got shape () for the "
                                 "entry {!r}".format(key))
            low = np.concatenate([entry.low] * self.n_stack, axis=-1)
            high = np.concatenate([entry.high] * self.n_stack, axis=-1)
            self.stacked_entries[key] = np.zeros((venv.num_envs,) + low.shape, low.dtype)
            entries[key] = spaces.Box(low=low, high=high, dtype=entry.dtype)
        self.stackedobs = np.zeros(0)
        VecEnvWrapper.__init__(self, venv, observation_space=spaces.Dict(entries))

    def _step_entries(self, observations: Dict[str, np.ndarray], dones: np.ndarray,
                      infos: List[dict]) -> Dict[str, np.ndarray]:
        """The Dict version of ``step_wait``'s stacking: each stacked entry on its own."""
        assert self.stacked_entries is not None
        result = OrderedDict(observations)
        for key, stack in self.stacked_entries.items():
            width = observations[key].shape[-1]
            drop_oldest(stack, width)
            for env_idx in np.flatnonzero(dones):
                terminal = infos[env_idx].get("terminal_observation")
                if isinstance(terminal, dict):
                    last = np.asarray(terminal[key], dtype=stack.dtype)
                    terminal[key] = np.concatenate((stack[env_idx, ..., :-width], last), axis=-1)
                stack[env_idx] = 0
            stack[..., -width:] = observations[key]
            result[key] = np.copy(stack)
        return result

    def _reset_entries(self, first: Dict[str, np.ndarray]) -> Dict[str, np.ndarray]:
        """The Dict version of ``reset``'s stacking."""
        assert self.stacked_entries is not None
        result = OrderedDict(first)
        for key, stack in self.stacked_entries.items():
            stack[...] = 0
            stack[..., -first[key].shape[-1]:] = first[key]
            result[key] = np.copy(stack)
        return result

    def _stack_terminal(self, env_idx: int, info: dict, width: int) -> None:
        """Replace the last observation of a finished episode by its stack (before the stack is cleared)."""
        if 'terminal_observation' not in info:
            warnings.warn("VecFrameStack wrapping a VecEnv without terminal_observation info")
            return
        last = np.asarray(info['terminal_observation'], dtype=self.stackedobs.dtype)
        info['terminal_observation'] = np.concatenate((self.stackedobs[env_idx, ..., :-width], last), axis=-1)

    def step_wait(self) -> VecEnvStepReturn:
        observations, rewards, dones, infos = self.venv.step_wait()
        if self.stacked_entries is not None:
            return self._step_entries(observations, dones, infos), rewards, dones, infos
        width = observations.shape[-1]
        # drop the oldest observation: the others move one slot towards the front
        drop_oldest(self.stackedobs, width)
        for env_idx in np.flatnonzero(dones):
            self._stack_terminal(int(env_idx), infos[env_idx], width)
            self.stackedobs[env_idx] = 0
        self.stackedobs[..., -width:] = observations
        return np.copy(self.stackedobs), rewards, dones, infos

    def reset(self) -> VecEnvObs:
        """
        Reset all environments: each stack holds zeros and the first observation.
        """
        first = self.venv.reset()
        if self.stacked_entries is not None:
            return self._reset_entries(first)
        self.stackedobs[...] = 0
        self.stackedobs[..., -first.shape[-1]:] = first
        return np.copy(self.stackedobs)

    def close(self) -> None:
        self.venv.close()
