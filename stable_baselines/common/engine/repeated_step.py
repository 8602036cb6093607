"""
:class:`RepeatedStep`: several training steps of an existing graph in one ``Session.run``.

A training step is a set of fetched tensors (its statistics) and an update operation, computed from placeholders
fed with one minibatch. This module copies the part of the graph that a step runs into the body of a
``tf.while_loop``, op for op (same types, same attributes, hence the same kernels and the same numbers), with the
minibatch placeholders replaced by rows taken from the whole batch inside the graph. The variables are not
copied: the copies read and update the original ones (optimizer slots included), so a loop of ``K`` iterations
changes the parameters exactly as ``K`` calls of the step would, and returns the ``K`` rows of statistics.
"""
from typing import Any, Dict, List, Optional, Sequence, Set

import numpy as np

from stable_baselines.common.engine.shape_folding import ShapeFolder
from stable_baselines.common.tf_compat import control_flow_context, is_ref_dtype, tf

# operations that hold state: never copied, the copies refer to the original ones
_VARIABLE_TYPES = frozenset({"VariableV2", "Variable", "VarHandleOp"})
# operations whose presence makes a copy impossible or unfaithful (control flow cannot be copied op by op, and
# random draws would have to be counted for exact resume)
_UNCOPYABLE_MARKERS = ("Enter", "Exit", "Switch", "Merge", "NextIteration", "LoopCond", "Random", "Multinomial",
                       "PartitionedCall", "While", "If", "Case")


class NotRepeatable(Exception):
    """The step cannot be copied into a loop (the caller keeps running it step by step)."""


def _reached_ops(targets: Sequence[tf.Operation], stops: Set[tf.Operation]) -> Set[tf.Operation]:
    """
    :param targets: ([tf.Operation]) where the walk starts
    :param stops: ({tf.Operation}) operations the walk reaches but does not go through
    :return: ({tf.Operation}) every operation the targets depend on (data and control inputs), stops included
    """
    seen: Set[tf.Operation] = set()
    pending = list(targets)
    while pending:
        op = pending.pop()
        if op in seen:
            continue
        seen.add(op)
        if op in stops:
            continue
        pending.extend(tensor.op for tensor in op.inputs)
        pending.extend(op.control_inputs)
    return seen


def _ops_to_copy(reached: Set[tf.Operation], replaced: Set[tf.Operation]) -> List[tf.Operation]:
    """
    :param reached: ({tf.Operation}) the operations of a step
    :param replaced: ({tf.Operation}) the inputs that every iteration replaces
    :return: ([tf.Operation]) in creation order, those that run again in every iteration: all but the variables,
        the placeholders and the replaced inputs (constants are copied too, so that the graph optimizer sees the
        loop body as it sees the step)
    """
    graph = tf.get_default_graph()
    return [op for op in graph.get_operations() if op in reached and op not in replaced
            and op.type not in _VARIABLE_TYPES and op.type != "Placeholder"]


class RepeatedStep:
    """
    Build the loop of training steps in the default graph (call inside ``graph.as_default()``).

    :param stats: ([tf.Tensor]) the scalar statistics of one step, returned for every iteration
    :param update: (tf.Operation) the update operation of one step
    :param gathered: ([tf.Tensor]) placeholders of one minibatch taken from the whole batch: each is fed once
        with the whole batch and every iteration gathers its rows by the iteration's row of indices
    :param stacked: ([tf.Tensor]) placeholders fed with the value of every iteration stacked on a first axis
    :param constants: ([tf.Tensor]) placeholders fed once, the same for every iteration (e.g. the learning rate)
    :param name: (str) name scope of the copies
    :param rows_per_step: (int) the number of rows every iteration gathers, when it is always the same (the
        copies then have static shapes, and the shape arithmetic of the step is settled once, see
        :mod:`stable_baselines.common.engine.shape_folding`; the indices fed must then have this many columns)
    :raises NotRepeatable: the step contains an operation that cannot be copied faithfully, or depends on a
        placeholder of none of the three kinds
    """

    def __init__(self, stats: Sequence[tf.Tensor], update: tf.Operation, gathered: Sequence[tf.Tensor],
                 stacked: Sequence[tf.Tensor] = (), constants: Sequence[tf.Tensor] = (),
                 name: str = "repeated_step", rows_per_step: Optional[int] = None) -> None:
        valid_rows = isinstance(rows_per_step, (int, np.integer)) and not isinstance(rows_per_step, bool) \
            and rows_per_step > 0
        if rows_per_step is not None and not valid_rows:
            raise ValueError("rows_per_step must be a positive int or None, got {!r}".format(rows_per_step))
        targets = [tensor.op for tensor in stats] + [update]
        replaced = {tensor.op for tensor in list(gathered) + list(stacked)}
        reached = _reached_ops(targets, replaced)
        known = replaced | {tensor.op for tensor in constants}
        unknown = [op.name for op in reached if op.type == "Placeholder" and op not in known]
        if unknown:
            raise NotRepeatable("the step depends on placeholders fed in no known way: {}".format(unknown))
        to_copy = _ops_to_copy(reached, replaced)
        for op in to_copy:
            if any(marker in op.type for marker in _UNCOPYABLE_MARKERS):
                raise NotRepeatable("the step contains a {} operation ({})".format(op.type, op.name))
        with tf.name_scope(name):
            rows = None if rows_per_step is None else int(rows_per_step)
            self.indices_ph = tf.placeholder(tf.int32, [None, rows], name="indices_ph")
            self.gathered_phs = [tf.placeholder(ph.dtype, ph.shape, name="whole_" + ph.op.name.split("/")[-1])
                                 for ph in gathered]
            self.stacked_phs = [tf.placeholder(ph.dtype, tf.TensorShape([None]).concatenate(
                _with_rows(ph.shape, rows)), name="stacked_" + ph.op.name.split("/")[-1]) for ph in stacked]
            graph = tf.get_default_graph()
            # settles the step's shape arithmetic while it is copied (and counts what it did)
            self.folder = ShapeFolder(graph, control_flow_context(graph))
            try:
                self.stats = self._build_loop(stats, update, to_copy, list(gathered), list(stacked))
                self.folder.finish()
            finally:
                self.folder.close()

    @property
    def feeds(self) -> List[tf.Tensor]:
        """:return: ([tf.Tensor]) the placeholders of a call: indices, whole batches, stacked values"""
        return [self.indices_ph] + self.gathered_phs + self.stacked_phs

    def _build_loop(self, stats: Sequence[tf.Tensor], update: tf.Operation, to_copy: List[tf.Operation],
                    gathered: List[tf.Tensor], stacked: List[tf.Tensor]) -> tf.Tensor:
        """
        :return: (tf.Tensor) the statistics of every iteration, shape (iterations, len(stats))
        """
        n_iterations = tf.shape(self.indices_ph)[0]
        dtype = stats[0].dtype

        def body(iteration: tf.Tensor, rows: Any) -> List[Any]:
            rows_of_step = tf.gather(self.indices_ph, iteration)
            copies: Dict[tf.Tensor, tf.Tensor] = {}
            for original, whole in zip(gathered, self.gathered_phs):
                copies[original] = tf.gather(whole, rows_of_step)
            for original, all_steps in zip(stacked, self.stacked_phs):
                copies[original] = tf.gather(all_steps, iteration)
            copied_ops = _copy_ops(to_copy, copies, self.folder)
            step_stats = tf.stack([copies.get(tensor, tensor) for tensor in stats])
            # the next iteration (and the recorded row) wait for this iteration's update
            with tf.control_dependencies([copied_ops[update]]):
                return [iteration + 1, rows.write(iteration, step_stats)]

        rows = tf.TensorArray(dtype, size=n_iterations, element_shape=tf.TensorShape([len(stats)]))
        _, rows = tf.while_loop(lambda iteration, _: iteration < n_iterations, body, [tf.constant(0), rows],
                                parallel_iterations=1, back_prop=False)
        return rows.stack()


def _is_variable_update(op: tf.Operation) -> bool:
    """:return: (bool) whether ``op`` is an optimizer's update of a variable (``ApplyAdam``, ``ApplyGradientDescent``...)"""
    return op.type.startswith(("Apply", "ResourceApply", "SparseApply", "ResourceSparseApply"))


def _with_rows(shape: tf.TensorShape, rows: Optional[int]) -> tf.TensorShape:
    """:return: (tf.TensorShape) ``shape`` with an unknown first dimension set to ``rows`` (when given)"""
    if rows is None or shape.ndims is None or shape.ndims == 0 or shape.as_list()[0] is not None:
        return shape
    return tf.TensorShape([rows]).concatenate(shape[1:])


def _copy_ops(to_copy: List[tf.Operation], copies: Dict[tf.Tensor, tf.Tensor],
              folder: Optional[ShapeFolder] = None) -> Dict[tf.Operation, tf.Operation]:
    """
    Create a copy of every operation of ``to_copy`` (in their order) in the current graph context, its inputs
    replaced by their copies where one exists.

    A variable read hands out the variable's own buffer, and an optimizer update changes that buffer in place, so
    every copied update also waits for every value that any update of the step takes (all the gradients, hence
    every read of the weights they come from): no update can overtake a computation of the same step, whatever
    order the loop's executor picks.

    :param to_copy: ([tf.Operation]) the operations, in creation order
    :param copies: ({tf.Tensor: tf.Tensor}) replacements of tensors; filled with the outputs of the copies
    :param folder: (ShapeFolder) settles what static shapes decide (None: every operation is copied)
    :return: ({tf.Operation: tf.Operation}) the copy of every copied operation (or, for an operation that
        returns its input unchanged, the operation in the loop that makes that input)
    """
    graph = tf.get_default_graph()
    body_context = control_flow_context(graph)

    def in_body(new_op: tf.Operation) -> bool:
        return control_flow_context(new_op) is body_context

    update_inputs = [tensor for op in to_copy if _is_variable_update(op) for tensor in op.inputs
                     if not is_ref_dtype(tensor.dtype)]
    copied_ops: Dict[tf.Operation, tf.Operation] = {}
    for op in to_copy:
        inputs = [copies.get(tensor, tensor) for tensor in op.inputs]
        if folder is not None and not _is_variable_update(op):
            replacements = folder.outputs_of(op, inputs)
            if replacements is not None:
                copies.update(zip(op.outputs, replacements))
                if in_body(replacements[0].op):
                    copied_ops[op] = replacements[0].op
                continue
        control = [copied_ops[src] for src in op.control_inputs if src in copied_ops]
        if _is_variable_update(op):
            control.extend(copies[tensor].op for tensor in update_inputs
                           if tensor in copies and in_body(copies[tensor].op))
        with graph.control_dependencies(control):
            new_op = graph.create_op(op.type, inputs, [out.dtype for out in op.outputs],
                                     input_types=[tensor.dtype for tensor in op.inputs], name=op.name,
                                     attrs={key: value for key, value in op.node_def.attr.items()},
                                     op_def=op.op_def, compute_device=True)
        copied_ops[op] = new_op
        for original, copied in zip(op.outputs, new_op.outputs):
            copies[original] = copied
    return copied_ops


def optional_repeated_step(*args: Any, **kwargs: Any) -> Optional[RepeatedStep]:
    """
    :return: (RepeatedStep) the loop built with these arguments, or None when the step cannot be repeated in
        the graph (or TensorFlow's functional control flow is on, whose loop bodies are separate functions)
    """
    if tf.control_flow_v2_enabled():
        return None
    try:
        return RepeatedStep(*args, **kwargs)
    except NotRepeatable:
        return None
