"""
Shape arithmetic settled while a training step is copied into a loop body
(see :class:`stable_baselines.common.engine.repeated_step.RepeatedStep`).

The gradient of every broadcasting operation carries a little integer program (``Shape``,
``BroadcastGradientArgs``, ``Reshape``, ``Sum`` over the broadcast axes, ...), and a loop body runs each
of its nodes, and each of its constants, again in every iteration. TensorFlow's graph optimizer cannot
settle that program, because it does not trust the shapes of fed placeholders. When the copies have
fully known static shapes (the loop feeds minibatches of a fixed size), the program's answer is known
while the graph is built: this module computes it once, with TensorFlow's own kernels, and hands the
copy either a constant made outside the loop (so it is not run again in every iteration) or, when the
operation leaves its input unchanged (a reshape to the same shape, a sum over no axis, a tile by ones),
the input itself. Values of floating-point tensors are never computed here, except constants, zeros and
ones: the numbers of a step are those of the step.
"""
import contextlib
from typing import Any, Dict, Iterator, List, Optional, Sequence

import numpy as np

from stable_baselines.common.tf_compat import control_flow_context, is_ref_dtype, replace_input, \
    set_control_flow_context, tf

# integer bookkeeping whose answer depends on its (known) inputs only; evaluated once with TensorFlow's kernel
_EVALUATED = frozenset({"BroadcastGradientArgs", "Pack", "Prod", "StridedSlice", "Slice", "ConcatV2", "Range",
                        "Maximum", "Minimum", "FloorDiv", "FloorMod", "Sub", "AddV2", "Add", "Mul", "Cast",
                        "Reshape", "GatherV2", "DynamicStitch", "ExpandDims", "Fill", "Identity", "Sum",
                        "InvertPermutation", "ListDiff", "Transpose", "Unpack",
                        "Squeeze", "Equal", "Less", "Greater", "LessEqual", "GreaterEqual"})
# exact integer outputs, or data movement of known values
_INTEGER_DTYPES = frozenset({tf.int32, tf.int64})
# larger constants are left where they are (copied in the loop body)
_MAX_FOLDED_ELEMENTS = 1 << 16
# what a kernel answered, by operation type, attributes and input values: a kernel is a pure function of these, and
# models of the same sizes ask the same questions (each answer costs a session run of a scratch graph)
_KERNEL_ANSWERS: Dict[Any, Optional[List[np.ndarray]]] = {}
_MAX_KERNEL_ANSWERS = 4096


class ShapeFolder:
    """
    Decides, for each operation about to be copied into a loop body, whether static shapes already give its
    outputs.

    :param graph: (tf.Graph) the graph of the loop
    :param outer_context: (ControlFlowContext or None) the context around the loop, where the constants go
    """

    def __init__(self, graph: tf.Graph, outer_context: Any) -> None:
        self.graph = graph
        self._outer_context = outer_context
        # the known value of every tensor (original or copy) that one of the rules settled
        self._known: Dict[Any, np.ndarray] = {}
        # constants made outside the loop, by identity of their value's bytes, dtype and shape
        self._hoisted: Dict[Any, tf.Tensor] = {}
        self._scratch_graph: Optional[tf.Graph] = None
        self._scratch_session: Optional[tf.Session] = None
        # what the rules did (for tests and benchmarks)
        self.n_hoisted = 0
        self.n_folded = 0
        self.n_forwarded = 0

    def finish(self) -> None:
        """
        Once the loop is built: the loop's entries of the constants take them through a
        ``PlaceholderWithDefault``, because TensorFlow's optimizer would otherwise put each constant back into
        the loop body, where it runs again in every iteration (the constants themselves stay the inputs of the
        loop as it was built, so that the static shapes inferred from them stand).
        """
        for tensor in self._hoisted.values():
            entries = [op for op in tensor.consumers() if op.type == "Enter"]
            if not entries:
                continue
            with self._outside_the_loop():
                opaque = tf.placeholder_with_default(tensor, tensor.shape, name="folded_entry")
            for entry in entries:
                replace_input(entry, 0, opaque)

    @contextlib.contextmanager
    def _outside_the_loop(self) -> Iterator[None]:
        """Operations made in this block belong to the context around the loop, with no control dependency."""
        graph = self.graph
        inner = control_flow_context(graph)
        set_control_flow_context(graph, self._outer_context)
        try:
            with graph.control_dependencies(None):
                yield
        finally:
            set_control_flow_context(graph, inner)

    def close(self) -> None:
        """Release the scratch session of the evaluations."""
        if self._scratch_session is not None:
            self._scratch_session.close()
        self._scratch_session = None
        self._scratch_graph = None

    # -------------------------------------------------------------------------------------------------
    def outputs_of(self, op: tf.Operation, inputs: Sequence[tf.Tensor]) -> Optional[List[tf.Tensor]]:
        """
        :param op: (tf.Operation) the original operation
        :param inputs: ([tf.Tensor]) its inputs in the loop body (copies where they exist)
        :return: ([tf.Tensor] or None) what stands for its outputs in the body, or None: copy the operation
        """
        if op.control_inputs or any(is_ref_dtype(out.dtype) for out in op.outputs):
            return None
        if op.type == "Const":
            # float arrays stay in the body: the optimizer rewrites some arithmetic with constant arrays, and the
            # loop must compute as the step does (scalars and integers it treats alike either way)
            if op.outputs[0].dtype not in _INTEGER_DTYPES and op.outputs[0].dtype != tf.bool:
                if op.outputs[0].shape.num_elements() != 1:
                    return None
            return [self._hoist(op.outputs[0], self._const_value(op))]
        forwarded = self._unchanged_input(op, inputs)
        if forwarded is not None:
            self.n_forwarded += 1
            return [forwarded]
        values = self._settled_values(op, inputs)
        if values is None:
            return None
        self.n_folded += 1
        return [self._hoist(out, value) for out, value in zip(op.outputs, values)]

    def _const_value(self, op: tf.Operation) -> np.ndarray:
        return tf.make_ndarray(op.get_attr("value"))

    def value(self, tensor: tf.Tensor) -> Optional[np.ndarray]:
        """
        :param tensor: (tf.Tensor) a tensor of the loop body
        :return: (np.ndarray or None) its value when the rules know it
        """
        known = self._known.get(tensor)
        if known is not None:
            return known
        if tensor.op.type == "Const" and not tensor.op.control_inputs:
            return self._const_value(tensor.op)
        if tensor.op.type in ("Shape", "Size", "Rank") and not tensor.op.control_inputs:
            return _static_answer(tensor.op.type, tensor.op.inputs[0], tensor.dtype)
        return None

    # -------------------------------------------------------------------------------------------------
    def _unchanged_input(self, op: tf.Operation, inputs: Sequence[tf.Tensor]) -> Optional[tf.Tensor]:
        """:return: (tf.Tensor or None) the input that the operation returns unchanged, if it is one of those"""
        if op.type not in ("Reshape", "Sum", "Tile", "BroadcastTo") or len(op.outputs) != 1:
            return None
        data = inputs[0]
        if is_ref_dtype(data.dtype) or not data.shape.is_fully_defined():
            return None
        second = self.value(inputs[1])
        if second is None:
            return None
        shape = list(data.shape.as_list())
        if op.type in ("Reshape", "BroadcastTo"):
            target = [int(size) for size in second.reshape(-1)] if second.ndim == 1 else None
            if op.type == "Reshape" and target is not None and target.count(-1) == 1:
                rest = int(np.prod([size for size in target if size != -1], dtype=np.int64))
                if rest > 0 and data.shape.num_elements() % rest == 0:
                    target[target.index(-1)] = data.shape.num_elements() // rest
            same = target == shape
        elif op.type == "Sum":
            same = second.size == 0
        else:
            same = second.ndim == 1 and len(second) == len(shape) and bool(np.all(second == 1))
        return data if same else None

    def _settled_values(self, op: tf.Operation, inputs: Sequence[tf.Tensor]) -> Optional[List[np.ndarray]]:
        """:return: ([np.ndarray] or None) the outputs of ``op`` when they follow from static shapes"""
        kind = op.type
        if kind in ("Shape", "Size", "Rank"):
            answer = _static_answer(kind, inputs[0], op.outputs[0].dtype)
            return None if answer is None else [answer]
        if kind in ("ZerosLike", "OnesLike"):
            data = inputs[0]
            if not data.shape.is_fully_defined() or not data.dtype.is_numpy_compatible:
                return None
            if data.shape.num_elements() > _MAX_FOLDED_ELEMENTS:
                return None
            maker = np.zeros if kind == "ZerosLike" else np.ones
            return [maker(data.shape.as_list(), dtype=data.dtype.as_numpy_dtype)]
        if kind not in _EVALUATED:
            return None
        maybe_values = [self.value(tensor) for tensor in inputs]
        values = [value for value in maybe_values if value is not None]
        if len(values) != len(maybe_values):
            return None
        if kind != "Fill" and not all(out.dtype in _INTEGER_DTYPES or out.dtype == tf.bool for out in op.outputs):
            if kind not in ("Cast", "Pack", "Reshape", "ExpandDims", "Identity", "ConcatV2", "Squeeze"):
                return None
        results = self._evaluate(op, inputs, values)
        if results is None or any(result.size > _MAX_FOLDED_ELEMENTS for result in results):
            return None
        return results

    def _evaluate(self, op: tf.Operation, inputs: Sequence[tf.Tensor],
                  values: Sequence[np.ndarray]) -> Optional[List[np.ndarray]]:
        """:return: ([np.ndarray]) the outputs of ``op`` on these input values, from TensorFlow's kernel"""
        attrs = {key: value for key, value in op.node_def.attr.items() if not key.startswith("_")}
        key = (op.type, tuple(sorted((name, value.SerializeToString()) for name, value in attrs.items())),
               tuple((tensor.dtype.base_dtype.name, value.shape, np.ascontiguousarray(value).tobytes())
                     for value, tensor in zip(values, inputs)))
        if key in _KERNEL_ANSWERS:
            answer = _KERNEL_ANSWERS[key]
            return None if answer is None else [result.copy() for result in answer]
        answer = self._run_kernel(op, inputs, values, attrs)
        if len(_KERNEL_ANSWERS) < _MAX_KERNEL_ANSWERS:
            _KERNEL_ANSWERS[key] = None if answer is None else [result.copy() for result in answer]
        return answer

    def _run_kernel(self, op: tf.Operation, inputs: Sequence[tf.Tensor], values: Sequence[np.ndarray],
                    attrs: Dict[str, Any]) -> Optional[List[np.ndarray]]:
        """:return: ([np.ndarray] or None) the outputs of TensorFlow's kernel of ``op`` on these input values"""
        session = self._scratch_session
        if session is None:
            self._scratch_graph = tf.Graph()
            config = tf.ConfigProto(inter_op_parallelism_threads=1, intra_op_parallelism_threads=1,
                                    device_count={"GPU": 0})
            session = self._scratch_session = tf.Session(graph=self._scratch_graph, config=config)
        with session.graph.as_default():
            constants = [tf.constant(value, dtype=tensor.dtype.base_dtype) for value, tensor in zip(values, inputs)]
            try:
                scratch = session.graph.create_op(op.type, constants, [out.dtype for out in op.outputs],
                                                        input_types=[tensor.dtype.base_dtype for tensor in inputs],
                                                        attrs=attrs, op_def=op.op_def)
                results = session.run(list(scratch.outputs))
            except (tf.errors.OpError, ValueError, TypeError):
                return None
        return [np.asarray(result) for result in results]

    def _hoist(self, original: tf.Tensor, value: np.ndarray) -> tf.Tensor:
        """:return: (tf.Tensor) a constant of ``value`` (``original``'s dtype) made outside the loop"""
        dtype = original.dtype.base_dtype
        key = (dtype, value.shape, np.ascontiguousarray(value).tobytes())
        tensor = self._hoisted.get(key)
        if tensor is None:
            with self._outside_the_loop():
                tensor = tf.constant(value, dtype=dtype, name="folded")
            self._hoisted[key] = tensor
            self.n_hoisted += 1
        self._known[tensor] = value
        return tensor


def _static_answer(kind: str, data: tf.Tensor, dtype: Any) -> Optional[np.ndarray]:
    """:return: (np.ndarray or None) ``Shape``, ``Size`` or ``Rank`` of ``data`` from its static shape"""
    shape = data.shape
    if kind == "Rank":
        return None if shape.ndims is None else np.array(shape.ndims, dtype=dtype.as_numpy_dtype)
    if not shape.is_fully_defined():
        return None
    if kind == "Shape":
        return np.array(shape.as_list(), dtype=dtype.as_numpy_dtype)
    return np.array(shape.num_elements(), dtype=dtype.as_numpy_dtype)
