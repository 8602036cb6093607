"""
How far the random ops of a session have advanced.

In a graph seeded with ``tf.set_random_seed``, every random op (``tf.random_normal``, ``tf.random_uniform``, ...)
draws from its own Philox stream, which starts again in every new session and advances by the number of values
drawn, whatever the calls that drew them. Knowing how many values each op of a session drew is therefore enough for
another session of the same graph to continue identically: it draws as many first (see
:func:`stable_baselines.common.model.training_state.advance_random_ops`).

The library's session calls (:mod:`stable_baselines.common.engine.tf_run`) count the draws of what they run with
:func:`count_draws`; the counts of a session are :func:`session_draws`.
"""
import weakref
from typing import Any, Dict, List, MutableMapping, Optional, Sequence, Tuple

import numpy as np

from stable_baselines.common.tf_compat import tf

# the random ops whose stream advances linearly with the number of values drawn
RANDOM_OP_TYPES = ("RandomStandardNormal", "RandomUniform", "RandomUniformInt", "TruncatedNormal")

# session -> {random op name: values drawn}
_DRAWS: "MutableMapping[Any, Dict[str, int]]" = weakref.WeakKeyDictionary()
# key of record_draws -> what its random ops draw per call (see random_ops_behind)
_DRAWN: "MutableMapping[Any, Dict[str, Optional[Tuple[int, bool]]]]" = weakref.WeakKeyDictionary()
# session -> {random op: values counted as drawn (add_draws) that its kernel has not yet moved past}
_SKIPPED_BY_KERNEL: "MutableMapping[Any, Dict[Any, int]]" = weakref.WeakKeyDictionary()
# at most this many values are drawn in one call when moving a kernel on
_SKIP_CHUNK = 1 << 20


def _as_op(node: Any) -> Any:
    """:return: (tf.Operation) the op itself, or the op of a tensor or variable (a resource variable's assignment
        gives a variable, whose op is the assignment)"""
    return node if isinstance(node, tf.Operation) else node.op


def ops_behind(fetches: Sequence[Any]) -> List[Any]:
    """
    :param fetches: ([tf.Tensor or tf.Operation]) what a session call computes
    :return: ([tf.Operation]) the ops it runs: those of the fetches and every op they depend on (through inputs
        and control inputs)
    """
    pending = [_as_op(node) for node in fetches]
    seen = {op.name for op in pending}
    found = []
    while pending:
        op = pending.pop()
        found.append(op)
        for source in list(op.inputs) + list(op.control_inputs):
            source_op = _as_op(source)
            if source_op.name not in seen:
                seen.add(source_op.name)
                pending.append(source_op)
    return found


def random_ops_behind(fetches: Sequence[Any]) -> Dict[str, Optional[Tuple[int, bool]]]:
    """
    :param fetches: ([tf.Tensor or tf.Operation]) what a session call computes
    :return: (dict) the random ops they depend on, by name -> (values, per_row): the values a call draws per row
        of the first dimension (``per_row``, a first dimension known only when running) or in all (its shape is
        known); None when a later dimension is not known before running
    """
    return random_ops_among(ops_behind(fetches))


def random_ops_among(ops: Sequence[Any]) -> Dict[str, Optional[Tuple[int, bool]]]:
    """:return: (dict) the random ops among ``ops``, described as by :func:`random_ops_behind`"""
    return {op.name: _values_drawn(op.outputs[0].shape) for op in ops if op.type in RANDOM_OP_TYPES}


def _values_drawn(shape: Any) -> Optional[Tuple[int, bool]]:
    """:return: ((int, bool) or None) the values of a random op's output of this shape (see random_ops_behind)"""
    if shape.rank is None or shape.rank == 0:
        return None if shape.rank is None else (1, False)
    dims: List[Optional[int]] = shape.as_list()
    rest = dims[1:]
    if any(dim is None for dim in rest):
        return None
    per_row = int(np.prod(np.array(rest, dtype=np.int64)))
    return (per_row, True) if dims[0] is None else (per_row * int(dims[0]), False)


def record_draws(sess: Any, key: Any, n_rows: int, fetches: Optional[Sequence[Any]] = None) -> None:
    """
    Count what a session call drew from the random ops behind what it computed.

    :param sess: (tf.Session) the session that ran it
    :param key: (tf.Tensor, tf.Operation or another object that lives as long as the graph) the fetched tensor,
        or what identifies the fetches (the random ops behind them are found once per key)
    :param n_rows: (int) the size of the first dimension of those random ops in that call (used for the ops whose
        first dimension is only known when running)
    :param fetches: ([tf.Tensor or tf.Operation]) what the call computed (None: ``key`` itself)
    """
    drawn = _DRAWN.get(key)
    if drawn is None:
        drawn = _DRAWN[key] = random_ops_behind([key] if fetches is None else fetches)
    count_draws(sess, drawn, n_rows)


def count_draws(sess: Any, drawn: Dict[str, Optional[Tuple[int, bool]]], n_rows: Optional[int]) -> None:
    """
    Count one session call's draws.

    :param sess: (tf.Session) the session that ran it
    :param drawn: (dict) the random ops behind what it computed (:func:`random_ops_behind`)
    :param n_rows: (int) the size of the first dimension of those random ops in that call (None: not known, the
        ops whose first dimension is only known when running become uncountable)
    """
    if not drawn:
        return
    counts = _session_counts(sess)
    for name, values in drawn.items():
        before = counts.get(name, 0)
        rows = n_rows if values is not None and values[1] else 1
        if values is None or before < 0 or rows is None:
            counts[name] = -1  # an op whose draws cannot be counted: never resumed exactly
        else:
            counts[name] = before + values[0] * rows


def session_draws(sess: Any) -> Dict[str, int]:
    """
    :param sess: (tf.Session) a session
    :return: (dict) random op name -> values drawn in this session, as reported (-1: not countable)
    """
    return dict(_DRAWS.get(sess, {}))


def set_session_draws(sess: Any, draws: Dict[str, int]) -> None:
    """
    :param sess: (tf.Session) a session whose random ops were advanced by these numbers of values
    :param draws: (dict) random op name -> values drawn
    """
    new_counts = dict(draws)
    counts = _session_counts(sess)  # replaced in place: an OpDrawCount keeps the dict
    counts.clear()
    counts.update(new_counts)


def _session_counts(sess: Any) -> Dict[str, int]:
    """:return: (dict) the session's live counts, random op name -> values drawn (made empty when missing)"""
    counts = _DRAWS.get(sess)
    if counts is None:
        counts = _DRAWS[sess] = {}
    return counts


def _session_pending(sess: Any) -> Dict[Any, int]:
    """:return: (dict) the session's live random op -> values drawn outside its kernel (made when missing)"""
    pending = _SKIPPED_BY_KERNEL.get(sess)
    if pending is None:
        pending = _SKIPPED_BY_KERNEL[sess] = {}
    return pending



def values_drawn(sess: Any, op_name: str) -> int:
    """
    :param sess: (tf.Session) a session
    :param op_name: (str) the name of a random op
    :return: (int) values the op drew in this session, as reported (-1: not countable)
    """
    counts = _DRAWS.get(sess)
    return 0 if counts is None else counts.get(op_name, 0)


def add_draws(sess: Any, op: Any, n_values: int) -> None:
    """
    Count values computed outside the graph in place of a random op's next ones (see
    :mod:`stable_baselines.common.engine.tf_philox`) as drawn by the op. Its kernel has not moved past them: the
    session's next call of the op's users must be preceded by :func:`settle_draws`.

    :param sess: (tf.Session) the session whose op's stream they come from
    :param op: (tf.Operation) the op
    :param n_values: (int) how many values
    """
    OpDrawCount(sess, op).add(n_values)


class OpDrawCount:
    """
    The count of one random op's draws in one session, for code that reads and advances it at every step (the
    NumPy rollouts): the session's counts are looked up once, not at every call.

    :param sess: (tf.Session) the session
    :param op: (tf.Operation) the random op
    """

    def __init__(self, sess: Any, op: Any) -> None:
        self.op = op
        self.op_name: str = op.name
        self._counts = _session_counts(sess)
        self._pending = _session_pending(sess)

    def drawn(self) -> int:
        """:return: (int) values the op drew in the session, as reported (-1: not countable)"""
        return self._counts.get(self.op_name, 0)

    def add(self, n_values: int) -> None:
        """
        Count values computed outside the graph in place of the op's next ones, as :func:`add_draws` does.

        :param n_values: (int) how many values
        """
        n_values = int(n_values)
        counts, name = self._counts, self.op_name
        before = counts.get(name, 0)
        if before >= 0:
            counts[name] = before + n_values
        pending, op = self._pending, self.op
        pending[op] = pending.get(op, 0) + n_values


def settle_draws(sess: Any) -> None:
    """
    Move the kernels of the session's random ops past the values drawn in their place outside the graph (one
    session call per op that has some), so that the graph's next draws are the ones after them. Cheap when there
    is nothing to do: call it before running anything that may draw from such an op.

    :param sess: (tf.Session) the session
    """
    pending = _SKIPPED_BY_KERNEL.get(sess)
    if not pending:
        return
    for op, n_values in list(pending.items()):
        shape_input = op.inputs[0]
        rank = shape_input.shape.as_list()[0]
        while n_values > 0:
            chunk = 1 if rank == 0 else min(n_values, _SKIP_CHUNK)
            sess.run(op.outputs[0], feed_dict={} if rank == 0 else {shape_input: [chunk] + [1] * (rank - 1)})
            n_values -= chunk
    pending.clear()
