"""
Memory and speed of the replay buffer: bytes per transition, ``add`` and ``sample`` times, for Atari-shaped frame
stacks (84x84x4 uint8, episodes with resets) and for vector observations (float32), comparing observations stored
whole ("whole", the storage before frames were shared) with the default storage ("default": frames shared for
image frame stacks, whole observations for vectors).

    python benchmarks/replay_memory.py
    python benchmarks/replay_memory.py --size 20000 --batch 32 --samples 2000
"""
import argparse
import time
from typing import Iterator, Optional, Tuple

import numpy as np

from stable_baselines.common.buffers import PrioritizedReplayBuffer, ReplayBuffer
from stable_baselines.common.storage.frame_store import FrameStackStore


class WholeObservationBuffer(ReplayBuffer):
    """A replay buffer that stores every observation whole (what the default did for frame stacks before)."""

    def _frame_store_for(self, obs_t: np.ndarray, obs_tp1: np.ndarray) -> Optional[FrameStackStore]:
        return None


class WholeObservationPrioritizedBuffer(PrioritizedReplayBuffer):
    """The prioritized buffer storing every observation whole."""

    def _frame_store_for(self, obs_t: np.ndarray, obs_tp1: np.ndarray) -> Optional[FrameStackStore]:
        return None


def atari_stream(n_transitions: int, episode_length: int = 500, seed: int = 0) -> Iterator[Tuple]:
    """Transitions of 84x84x4 frame stacks: one new frame per step, a repeated-frame stack at each reset."""
    rng = np.random.RandomState(seed)
    frames = rng.randint(0, 256, size=(64, 84, 84), dtype=np.uint8)  # reused to keep the generator cheap
    stack, step = None, 0
    for i in range(n_transitions):
        if stack is None or step == episode_length:
            stack, step = np.repeat(frames[i % 64][..., None], 4, axis=-1), 0
        next_stack = np.concatenate([stack[..., 1:], frames[(i * 7 + 3) % 64][..., None]], axis=-1)
        yield stack, rng.randint(6), float(rng.randn()), next_stack, float(step == episode_length - 1)
        stack, step = next_stack, step + 1


def vector_stream(n_transitions: int, seed: int = 0) -> Iterator[Tuple]:
    """Transitions of 17-dimensional float32 observations and 6-dimensional actions (a MuJoCo-like task)."""
    rng = np.random.RandomState(seed)
    obs = rng.randn(17).astype(np.float32)
    for _ in range(n_transitions):
        next_obs = rng.randn(17).astype(np.float32)
        yield obs, rng.randn(6).astype(np.float32), float(rng.randn()), next_obs, 0.0
        obs = next_obs


def measure(buffer: ReplayBuffer, transitions: list, batch: int, n_samples: int) -> Tuple[float, float, float]:
    """:return: (tuple) bytes per transition, microseconds per add, microseconds per sample"""
    start = time.perf_counter()
    for transition in transitions:
        buffer.add(*transition)
    add_time = (time.perf_counter() - start) / len(transitions)
    np.random.seed(0)
    start = time.perf_counter()
    for _ in range(n_samples):
        buffer.sample(batch)
    sample_time = (time.perf_counter() - start) / n_samples
    return buffer.nbytes / buffer.buffer_size, add_time * 1e6, sample_time * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size", type=int, default=10000, help="buffer capacity")
    parser.add_argument("--batch", type=int, default=32, help="batch size of sample()")
    parser.add_argument("--samples", type=int, default=1000, help="number of sample() calls timed")
    args = parser.parse_args()
    n_transitions = args.size + args.size // 2  # the buffer wraps around
    cases = [("atari 84x84x4 uint8", list(atari_stream(n_transitions))),
             ("vector 17 float32", list(vector_stream(n_transitions)))]
    print("{:<22} {:<24} {:>12} {:>10} {:>12}".format("observations", "buffer", "bytes/trans", "add us",
                                                      "sample us"))
    for name, transitions in cases:
        for label, buffer in (("ReplayBuffer whole", WholeObservationBuffer(args.size)),
                              ("ReplayBuffer default", ReplayBuffer(args.size)),
                              ("Prioritized whole", WholeObservationPrioritizedBuffer(args.size, alpha=0.6)),
                              ("Prioritized default", PrioritizedReplayBuffer(args.size, alpha=0.6))):
            per_transition, add_us, sample_us = measure(buffer, transitions, args.batch, args.samples)
            print("{:<22} {:<24} {:>12.0f} {:>10.1f} {:>12.1f}".format(name, label, per_transition, add_us,
                                                                      sample_us))


if __name__ == "__main__":
    main()
