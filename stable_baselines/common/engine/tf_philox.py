"""
TensorFlow's seeded uniform draws, computed in NumPy.

A seeded ``RandomUniform`` op (float32) of TensorFlow's CPU kernel is a Philox-4x32-10 counter generator: the key is
the op's ``seed`` attribute (low word, high word), the upper half of the 128-bit counter its ``seed2`` attribute, and
the lower half a position that every session call moves on by 256 per value it draws. A call drawing ``n`` values
from position ``p`` fills them four at a time: group ``g`` is the Philox block of position ``p + g``, each of its four
32-bit words turned into a float in [0, 1) by putting its low 23 bits under the exponent of 1.0 and subtracting 1.

So the values the op would give in its next call follow from its two seeds and the number of values it has drawn
in the session so far (:mod:`stable_baselines.common.engine.tf_random_draws` keeps that number): :func:`uniform_draws`
computes them bit for bit, and :class:`OpUniformStream` stands in for one op of a session, keeping the count
up to date and computing the values of many future calls of the same size in one vectorised pass.
"""
from typing import Any, Optional, Sequence

import numpy as np

from stable_baselines.common.engine.tf_random_draws import OpDrawCount

# the multipliers of the Philox-4x32 round and the constants added to the key between rounds
_MUL_A = np.uint64(0xD2511F53)
_MUL_B = np.uint64(0xCD9E8D57)
_KEY_STEP = (0x9E3779B9, 0xBB67AE85)
_ROUNDS = 10
_LOW32 = np.uint64(0xFFFFFFFF)
_SHIFT32 = np.uint64(32)
# position moved on per value drawn by one kernel call
POSITIONS_PER_VALUE = 256
# the counter's lower half is 64 bits: past this many drawn values it would carry into seed2's half
_MAX_DRAWN = (1 << 64) // POSITIONS_PER_VALUE - (1 << 32)


def philox_words(seed: int, seed2: int, positions: np.ndarray) -> np.ndarray:
    """
    The Philox-4x32-10 blocks TensorFlow's seeded kernels compute at some counter positions.

    :param seed: (int) the op's ``seed`` attribute (the key)
    :param seed2: (int) the op's ``seed2`` attribute (the upper half of the counter)
    :param positions: (np.ndarray) uint64 positions (the lower half of the counter), any shape
    :return: (np.ndarray) uint32, the positions' shape plus a last axis of the 4 words of each block
    """
    positions = np.asarray(positions, dtype=np.uint64)
    word0 = positions & _LOW32
    word1 = positions >> _SHIFT32
    word2 = np.full_like(word0, seed2 & 0xFFFFFFFF)
    word3 = np.full_like(word0, (seed2 >> 32) & 0xFFFFFFFF)
    key0, key1 = seed & 0xFFFFFFFF, (seed >> 32) & 0xFFFFFFFF
    for _ in range(_ROUNDS):
        product_a = word0 * _MUL_A  # 32 x 32 bits: exact in 64 bits
        product_b = word2 * _MUL_B
        word0, word1, word2, word3 = ((product_b >> _SHIFT32) ^ word1 ^ np.uint64(key0), product_b & _LOW32,
                                      (product_a >> _SHIFT32) ^ word3 ^ np.uint64(key1), product_a & _LOW32)
        key0 = (key0 + _KEY_STEP[0]) & 0xFFFFFFFF
        key1 = (key1 + _KEY_STEP[1]) & 0xFFFFFFFF
    return np.stack([word0, word1, word2, word3], axis=-1).astype(np.uint32)


def words_to_unit_float32(words: np.ndarray) -> np.ndarray:
    """
    :param words: (np.ndarray) uint32 random words
    :return: (np.ndarray) float32 in [0, 1): 1.0 with the words' low 23 bits as mantissa, minus 1 (TensorFlow's
        conversion)
    """
    bits = (words & np.uint32(0x7FFFFF)) | np.uint32(127 << 23)
    return bits.view(np.float32) - np.float32(1.0)


def _call_values(seed: int, seed2: int, starts: np.ndarray, n_values: int) -> np.ndarray:
    """
    :param starts: (np.ndarray) int64 values drawn before each call, shape (n_calls,)
    :param n_values: (int) values drawn per call
    :return: (np.ndarray) float32, shape (n_calls, n_values): what each call draws
    """
    n_groups = -(-n_values // 4)
    first = starts.astype(np.uint64) * np.uint64(POSITIONS_PER_VALUE)
    positions = first[:, None] + np.arange(n_groups, dtype=np.uint64)[None, :]
    values = words_to_unit_float32(philox_words(seed, seed2, positions))
    return values.reshape(len(starts), n_groups * 4)[:, :n_values]


def _check_range(last_drawn: int) -> None:
    if last_drawn > _MAX_DRAWN:
        raise ValueError("a random op drew too many values to be reproduced: {}".format(last_drawn))


def uniform_draws(seed: int, seed2: int, already_drawn: int, shape: Sequence[int]) -> np.ndarray:
    """
    What a seeded float32 ``RandomUniform`` op (range [0, 1)) of TensorFlow draws in a session call.

    :param seed: (int) the op's ``seed`` attribute
    :param seed2: (int) the op's ``seed2`` attribute
    :param already_drawn: (int) how many values the op drew in the session before this call
    :param shape: ((int)) the shape of the call's output
    :return: (np.ndarray) float32 of that shape, bit for bit the op's output
    """
    n_values = int(np.prod(shape, dtype=np.int64))
    _check_range(already_drawn + n_values)
    starts = np.array([already_drawn], dtype=np.int64)
    return _call_values(seed, seed2, starts, n_values).reshape(tuple(shape))


class OpUniformStream:
    """
    A seeded float32 ``RandomUniform`` op of a session, drawn in NumPy: :meth:`draw` gives what the op's next call
    would give and counts the values as drawn by that op in the session (an exact resume sees them all; graph calls
    of the op can alternate with NumPy draws when :func:`~stable_baselines.common.engine.tf_random_draws.settle_draws`
    precedes them).

    Calls of one size are computed ``lookahead`` at a time: the position of a call depends only on the op's count
    before it, so the values of the next calls are known in advance; they are used only while the count is where
    they expect it (a graph call of the op in between, or a call of another size, just causes a new computation).

    :param sess: (tf.Session) the session the op's draws are counted in
    :param op: (tf.Operation) the op (its ``seed`` and ``seed2`` attributes must not both be 0)
    :param lookahead: (int) how many calls of one size to compute at once
    """

    def __init__(self, sess: Any, op: Any, lookahead: int = 256) -> None:
        self.sess = sess
        self.op = op
        self.op_name: str = op.name
        self.seed = int(op.get_attr("seed"))
        self.seed2 = int(op.get_attr("seed2"))
        self.lookahead = int(lookahead)
        self._count = OpDrawCount(sess, op)
        # the computed batch: values per call, values drawn before its first call, its uniforms (one row per call)
        # and their log(-log(U)) (computed when first asked for)
        self._size = -1
        self._start = 0
        self._uniforms = np.zeros((0, 0), dtype=np.float32)
        self._logs: Optional[np.ndarray] = None

    @staticmethod
    def is_seeded(op: Any) -> bool:
        """
        :param op: (tf.Operation) a random op
        :return: (bool) whether its draws are reproducible (a graph or op seed was set)
        """
        return bool(op.get_attr("seed") or op.get_attr("seed2"))

    def drawn(self) -> int:
        """:return: (int) values the op drew in the session so far (-1: not known)"""
        return self._count.drawn()

    def draw(self, shape: Sequence[int]) -> Optional[np.ndarray]:
        """
        :param shape: ((int)) the shape of the op's output in this call
        :return: (np.ndarray or None) float32, the op's next output (counted as drawn); None when the op's count in
            the session is not known (nothing is drawn then)
        """
        row = self._next_call(shape)
        return None if row is None else self._uniforms[row].reshape(tuple(shape))

    def gumbel_logs(self, shape: Sequence[int]) -> Optional[np.ndarray]:
        """
        ``log(-log(U))`` in float32 for the op's next output ``U`` (what the graph's Gumbel-max sampling subtracts
        from the logits), computed for all the calls of a batch at once.

        :param shape: ((int)) the shape of the op's output in this call
        :return: (np.ndarray or None) float32 of that shape (counted as drawn); None as for :meth:`draw`
        """
        row = self._next_call(shape)
        if row is None:
            return None
        if self._logs is None:
            with np.errstate(divide="ignore"):  # U == 0 gives -inf, as in the graph
                self._logs = np.log(-np.log(self._uniforms))
        return self._logs[row].reshape(tuple(shape))

    def _next_call(self, shape: Sequence[int]) -> Optional[int]:
        """
        Count the op's next call as drawn, after making sure the computed batch holds it.

        :return: (int or None) its row in the batch; None when the op's count is not known
        """
        before = self._count.drawn()
        if before < 0:
            return None
        n_values = 1
        for size in shape:
            n_values *= int(size)
        offset = before - self._start
        if n_values != self._size or offset < 0 or (n_values and (
                offset % n_values or offset // n_values >= len(self._uniforms))):
            self._compute(n_values, before)
            offset = 0
        self._count.add(n_values)
        return offset // n_values if n_values else 0

    def _compute(self, n_values: int, before: int) -> None:
        """Compute the next ``lookahead`` calls of ``n_values`` values, the first one after ``before`` values."""
        _check_range(before + self.lookahead * n_values)
        starts = before + n_values * np.arange(self.lookahead, dtype=np.int64)
        self._uniforms = _call_values(self.seed, self.seed2, starts, n_values)
        self._logs = None
        self._size, self._start = n_values, before
