"""VecFrameStack: stack the last observations of each environment on the last axis."""
import sys
import warnings
from collections import OrderedDict
from typing import Any, Dict, List, Optional

import numpy as np
from gymnasium import spaces

from stable_baselines.common.vec_env.base_vec_env import VecEnv, VecEnvObs, VecEnvStepReturn, VecEnvWrapper
from stable_baselines.common.vec_env.obs_entries import EntryPath, entry_at, entry_name, put_entry, with_entries

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

    With a Dict observation space, every Box entry is stacked on its own, also inside nested Dict and Tuple
    entries (other entries pass unchanged).

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
        self.stacked_entries: Optional[Dict[EntryPath, np.ndarray]] = None
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
        """Prepare the stacks of the Box entries of a Dict space (at any depth)."""
        self.stacked_entries = {}
        stacked_space = self._stacked_space(space, (), venv.num_envs)
        self.stackedobs = np.zeros(0)
        VecEnvWrapper.__init__(self, venv, observation_space=stacked_space)

    def _stacked_space(self, space: spaces.Space, path: EntryPath, num_envs: int) -> spaces.Space:
        """:return: (gymnasium.spaces.Space) ``space`` with its Box entries stacked (their stacks registered)"""
        assert self.stacked_entries is not None
        if isinstance(space, spaces.Dict):
            return spaces.Dict(OrderedDict((key, self._stacked_space(entry, path + (key,), num_envs))
                                           for key, entry in space.spaces.items()))
        if isinstance(space, spaces.Tuple):
            return spaces.Tuple(tuple(self._stacked_space(entry, path + (index,), num_envs)
                                      for index, entry in enumerate(space.spaces)))
        if not isinstance(space, spaces.Box):
            return space
        if len(space.shape) == 0:
            raise ValueError("VecFrameStack needs observations with at least one axis, got shape () for the "
                             "entry {!r}".format(entry_name(path)))
        low = np.concatenate([space.low] * self.n_stack, axis=-1)
        high = np.concatenate([space.high] * self.n_stack, axis=-1)
        self.stacked_entries[path] = np.zeros((num_envs,) + low.shape, low.dtype)
        return spaces.Box(low=low, high=high, dtype=space.dtype)

    def _step_entries(self, observations: Dict[str, Any], dones: np.ndarray, infos: List[dict]) -> Dict[str, Any]:
        """The Dict version of ``step_wait``'s stacking: each stacked entry on its own."""
        assert self.stacked_entries is not None
        finished = [int(env_idx) for env_idx in np.flatnonzero(dones)]
        stacked = {}
        for path, stack in self.stacked_entries.items():
            newest = entry_at(observations, path)
            width = newest.shape[-1]
            drop_oldest(stack, width)
            for env_idx in finished:
                terminal = infos[env_idx].get("terminal_observation")
                if isinstance(terminal, dict):
                    last = np.asarray(entry_at(terminal, path), dtype=stack.dtype)
                    infos[env_idx]["terminal_observation"] = put_entry(
                        terminal, path, np.concatenate((stack[env_idx, ..., :-width], last), axis=-1))
                stack[env_idx] = 0
            stack[..., -width:] = newest
            stacked[path] = np.copy(stack)
        return with_entries(observations, stacked)

    def _reset_entries(self, first: Dict[str, Any]) -> Dict[str, Any]:
        """The Dict version of ``reset``'s stacking."""
        assert self.stacked_entries is not None
        stacked = {}
        for path, stack in self.stacked_entries.items():
            newest = entry_at(first, path)
            stack[...] = 0
            stack[..., -newest.shape[-1]:] = newest
            stacked[path] = np.copy(stack)
        return with_entries(first, stacked)

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

