"""Public path of :mod:`stable_baselines.common.storage.frame_store` (image frame stacks of a replay buffer)."""
from stable_baselines.common.storage.frame_store import (GROW_CHUNK, MAX_STACK, MIN_FRAME_PIXELS,  # noqa: F401
                                                         FrameStackStore, is_frame_stack)
