"""
K-FAC: Kronecker-factored approximate curvature (our own implementation for ACKTR).

References:

- J. Martens and R. Grosse, "Optimizing Neural Networks with Kronecker-factored Approximate Curvature",
  ICML 2015 (dense layers, factored Tikhonov damping).
- R. Grosse and J. Martens, "A Kronecker-factored approximate Fisher matrix for convolution layers",
  ICML 2016 (conv layers, "KFC").
- Y. Wu, E. Mansimov, S. Liao, R. Grosse and J. Ba, "Scalable trust-region method for deep reinforcement
  learning using Kronecker-factored approximation" (ACKTR), NIPS 2017 (trust-region step size).

What the optimizer does, per call of the train op:

1. **Statistics.** For every supported layer (a dense ``x @ w (+ b)`` or a conv ``conv2d(x, w) (+ b)``) it
   forms the Kronecker factors of the layer's Fisher block ``F ~= A (x) G`` from the current batch:
   ``A = E[a a^T]`` over the layer inputs ``a`` (image patches for conv layers) with a homogeneous 1 appended
   when the layer has a bias, and ``G`` from the gradients ``g`` of the *sampled* Fisher loss (the
   log-likelihood of targets sampled from the model) with respect to the layer's pre-activation output.
   For a loss that is the mean over ``N`` examples the per-example gradient is ``N * dL/ds``; with ``R``
   rows (``R = N`` for a dense layer, ``N * T`` over the ``T`` spatial positions of a conv layer, or
   ``N * U`` for a weight used ``U`` times) ``G = (1/N) sum_r (N dL/ds_r)(N dL/ds_r)^T`` and
   ``A = (1/R) sum_r a_r a_r^T``, which is the Grosse & Martens estimate ``F = T * Omega (x) Gamma`` for
   conv layers (spatially uncorrelated derivatives) and treats the uses of a shared weight as independent.
   (The original used the homogeneous coordinate only for a ``BiasAdd``; the policies add their biases with
   ``+``, so it gave every bias a gradient-side-only block of its own, as for the ``logstd`` below.)
   The factors are running averages: the first updates average exactly, then an exponential moving average
   with ``stats_decay``.
2. **Eigen-decomposition** of every factor, refreshed every ``kfac_update`` calls (synchronously, in the
   same ``session.run``; ``async_eigen_decomp`` is accepted for compatibility, see below), except the refreshes
   of the cold phase (below) that no K-FAC step reads.
3. **Preconditioning** with Tikhonov damping (factored, or the original's ``A (x) G + lambda I``,
   see ``factored_damping``); factored damping (Martens & Grosse 2015, section 6.3): the damping
   ``lambda`` is split between the factors as ``(A + pi sqrt(lambda) I) (x) (G + sqrt(lambda)/pi I)`` with
   ``pi = sqrt((tr(A)/dim A) / (tr(G)/dim G))``; in the eigenbases ``A = Qa diag(ea) Qa^T``,
   ``G = Qg diag(eg) Qg^T`` the preconditioned gradient of ``W`` is
   ``Qa [(Qa^T grad Qg) / ((ea + pi sqrt(lambda)) (eg + sqrt(lambda)/pi)^T)] Qg^T``.
   A variable used once, by an addition that broadcasts it over the batch into a ``[batch, d]`` tensor (the
   ``logstd`` of a diagonal Gaussian policy, ``mean * 0.0 + logstd``), is a block of its own with the single
   factor ``G`` (the second moment of the per-example gradients of the sampled loss w.r.t. that sum, about 2 per
   dimension for a Gaussian log-likelihood): its gradient is preconditioned with ``(G + lambda I)^-1``, and it
   enters ``g^T F^-1 g`` with that metric. (The original did the same: its search through the gradient ops
   classified the addition as an unknown op and gave such a variable a gradient-side-only block.) Other
   variables the optimizer cannot attach to a supported layer (LSTM or LayerNorm variables, a recurrent bias used
   at every step) keep their plain gradient, as the original ACKTR did.
4. **Trust region** (ACKTR): with ``v = F^-1 g`` the step is ``lr * scale * v`` with
   ``scale = min(1, sqrt(clip_kl / (lr^2 * g^T F^-1 g)))``, i.e. ``step^T F step <= clip_kl`` (the predicted KL
   divergence ``0.5 * step^T F step`` of one step is at most ``clip_kl / 2``), the original ACKTR formula.
   The variables given as ``unclipped_vars`` are outside the trust region: their step is ``lr * F^-1 g`` and they
   do not count in ``g^T F^-1 g``. ACKTR passes the variables that only its value function uses, so that the trust
   region bounds the change of the policy. (The original rescaled every variable with one joint ``g^T F^-1 g``,
   in which the value could hardly move.)
5. **Momentum** (0.9 in ACKTR): ``velocity = momentum * velocity + step`` and
   ``param -= (1 - momentum) * velocity`` (so that a constant step is taken at full size at steady state,
   as the original's ``MomentumOptimizer(lr * (1 - momentum), momentum)``).

During the first ``cold_iter`` calls (while the factors warm up) the optimizer takes plain momentum-SGD steps
of size ``cold_lr`` on the gradient clipped to ``max_grad_norm`` (global norm); the statistics are gathered from
the first call on. (The original's cold phase lasted ``cold_iter + 1`` calls, with
``tf.train.MomentumOptimizer(lr, momentum)`` at the full learning rate and a momentum buffer of its own; its
statistics, built outside the ``tf.cond`` that chose the cold step, were gathered on every call too: an exact
average of the first ``cold_iter`` batches, then a running average with ACKTR's decay 0.99; and its first
K-FAC step overlapped the last cold step.)

Where this differs from the original, docs/modules/acktr.rst gives the reason and what each variant scored.

**How layers are found** (no gradient-op introspection): the optimizer takes the variables it is given and
follows each variable's value tensors (``Identity`` snapshot of a reference variable, ``ReadVariableOp`` of a
resource variable) to the ops that consume them inside the part of the graph the losses depend on. A weight
is a *dense layer* when all those consumers are ``MatMul(x, w)`` (no transposition), a *conv layer* when they
are ``Conv2D(x, w)`` in NHWC format without dilation; the layer input ``x`` and pre-activation ``x @ w`` are
then the inputs/outputs of those ops, and a bias is a variable of ``d_out`` elements (possibly reshaped, as
``conv`` does) added directly to that output. These are exactly the ``w`` / ``b`` variables that
``common.tf_layers.linear`` and ``common.tf_layers.conv`` (and ``dense`` / ``fully_connected``) create, so no
policy code needs to know about K-FAC. The found layers are listed in ``KfacOptimizer.layers``, the variables
with a block of their own in ``KfacOptimizer.added_vars``, those with the plain gradient in
``KfacOptimizer.other_vars``.

**async_eigen_decomp**: the original ran the eigen-decompositions in a TensorFlow queue-runner thread. This
implementation always decomposes synchronously (within the train op, every ``kfac_update`` calls); the flag is
stored and has no effect, and ``apply_gradients`` returns ``None`` as queue runner.

All variables the optimizer creates (factors, eigenbases, momentum buffers, counter) are non-trainable and live
under the optimizer's variable scope (``kfac`` by default): they are never part of a model's parameter list.
"""
from collections import OrderedDict
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

import numpy as np

from stable_baselines.common.tf_compat import tf

_READ_OPS = ("Identity", "ReadVariableOp", "Snapshot")
_ADD_OPS = ("Add", "AddV2", "BiasAdd")
_PASS_THROUGH_OPS = _READ_OPS + ("Reshape",)


class KfacLayer:
    """
    One layer whose Fisher block the optimizer approximates by a Kronecker product.

    :param kind: (str) 'dense' or 'conv'
    :param weight: (tf.Variable) the weight (``[d_in, d_out]`` or ``[kh, kw, c_in, c_out]``)
    :param bias: (tf.Variable or None) the bias added directly to the layer output, if any
    :param uses: ([tf.Operation]) the MatMul / Conv2D ops applying the weight (more than one for a shared weight)
    """

    def __init__(self, kind: str, weight: tf.Variable, bias: Optional[tf.Variable], uses: List[tf.Operation]) -> None:
        self.kind = kind
        self.weight = weight
        self.bias = bias
        self.uses = uses

    @property
    def n_in(self) -> int:
        """(int) size of the input side of the factorisation, without the homogeneous coordinate"""
        shape = self.weight.shape.as_list()
        return int(np.prod(shape[:-1]))

    @property
    def n_out(self) -> int:
        """(int) number of outputs (units or filters)"""
        return int(self.weight.shape.as_list()[-1])

    def __repr__(self) -> str:
        return "KfacLayer({}, weight={}, bias={}, uses={})".format(
            self.kind, self.weight.name, None if self.bias is None else self.bias.name, len(self.uses))


# ------------------------------------------------------------------------------------------------
# graph search
# ------------------------------------------------------------------------------------------------
def _backward_cone(tensors: Sequence) -> set:
    """The set of ops the given tensors depend on (inputs and control inputs, transitively)."""
    seen = set()
    stack = [tensor.op for tensor in tensors]
    while stack:
        op = stack.pop()
        if op in seen:
            continue
        seen.add(op)
        stack.extend(inp.op for inp in op.inputs)
        stack.extend(op.control_inputs)
    return seen


def _value_tensors(var) -> List:
    """The tensors that carry the value of a variable (reads / snapshots, following identity chains)."""
    result = []
    stack = [var.op.outputs[0]]
    seen = set()
    while stack:
        tensor = stack.pop()
        for consumer in tensor.consumers():
            if consumer.type in _READ_OPS and consumer not in seen:
                seen.add(consumer)
                result.append(consumer.outputs[0])
                stack.append(consumer.outputs[0])
    return result


def _source_variable_op(tensor):
    """Follow reads / reshapes back to a variable op, or None."""
    op = tensor.op
    for _ in range(8):
        if op.type in ("VariableV2", "Variable", "VarHandleOp"):
            return op
        if op.type in _PASS_THROUGH_OPS and len(op.inputs) > 0:
            op = op.inputs[0].op
        else:
            return None
    return None


def _terminal_uses(var, cone: set) -> List:
    """Ops of ``cone`` consuming the value of ``var``, looking through reads and reshapes."""
    uses = []
    stack = list(_value_tensors(var))
    seen = set()
    while stack:
        tensor = stack.pop()
        for consumer in tensor.consumers():
            if consumer not in cone or consumer in seen:
                continue
            seen.add(consumer)
            if consumer.type in _READ_OPS or (consumer.type == "Reshape" and consumer.inputs[0] is tensor):
                stack.append(consumer.outputs[0])
            else:
                uses.append(consumer)
    return uses


def _as_str(value) -> str:
    return value.decode() if isinstance(value, bytes) else value


def _layer_use_kind(op, value_tensor) -> Optional[str]:
    """'dense' / 'conv' when ``op`` applies the weight the way K-FAC supports, else None."""
    if op.type == "MatMul" and op.inputs[1] is value_tensor:
        if not op.get_attr("transpose_a") and not op.get_attr("transpose_b"):
            return "dense"
    if op.type == "Conv2D" and op.inputs[1] is value_tensor:
        data_format = _as_str(op.get_attr("data_format"))
        dilations = list(op.get_attr("dilations"))
        padding = _as_str(op.get_attr("padding"))
        if data_format == "NHWC" and dilations == [1, 1, 1, 1] and padding in ("VALID", "SAME"):
            return "conv"
    return None


def find_layers(loss_tensors: Sequence, var_list: Sequence) -> Tuple[List[KfacLayer], List]:
    """
    Find the dense and conv layers of ``var_list`` used by ``loss_tensors`` (see the module docstring).

    :param loss_tensors: ([tf.Tensor]) the tensors whose dependencies define the model graph to search
    :param var_list: ([tf.Variable]) the variables to optimise
    :return: ([KfacLayer], [tf.Variable]) the layers found, and the other variables (plain gradient)
    """
    cone = _backward_cone(loss_tensors)
    var_by_op = {var.op: var for var in var_list}
    layers = []
    claimed = set()
    for var in var_list:
        shape = var.shape.as_list()
        if len(shape) not in (2, 4) or var in claimed:
            continue
        ops_and_values = []
        for value in _value_tensors(var):
            for consumer in value.consumers():
                if consumer in cone and consumer.type not in _READ_OPS:
                    ops_and_values.append((consumer, value))
        if not ops_and_values:
            continue
        kinds = {_layer_use_kind(op, value) for op, value in ops_and_values}
        if len(kinds) != 1:
            continue
        kind = kinds.pop()
        if kind is None or (kind == "dense") != (len(shape) == 2):
            continue
        uses = [op for op, _ in ops_and_values]
        # bias: the same variable of d_out elements added directly to every use's output
        bias = None
        bias_adds = []
        for op in uses:
            consumers = [c for c in op.outputs[0].consumers() if c in cone]
            candidate = None
            if len(consumers) == 1 and consumers[0].type in _ADD_OPS:
                add_op = consumers[0]
                others = [inp for inp in add_op.inputs if inp is not op.outputs[0]]
                if len(others) == 1:
                    var_op = _source_variable_op(others[0])
                    candidate = var_by_op.get(var_op)
                    if candidate is not None and int(np.prod(candidate.shape.as_list())) == shape[-1]:
                        bias_adds.append(add_op)
                    else:
                        candidate = None
            if candidate is None or (bias is not None and candidate is not bias):
                bias = None
                break
            bias = candidate
        if bias is not None:
            if bias in claimed or set(_terminal_uses(bias, cone)) != set(bias_adds):
                bias = None
        layers.append(KfacLayer(kind, var, bias, uses))
        claimed.add(var)
        if bias is not None:
            claimed.add(bias)
    others = [var for var in var_list if var not in claimed]
    return layers, others


def find_added_variables(loss_tensors: Sequence, variables: Sequence) -> Tuple[List[Tuple], List]:
    """
    Among ``variables`` (those not claimed by a dense / conv layer), find the ones used exactly once in the graph
    of ``loss_tensors``, by an addition whose output is a ``[batch, d]`` tensor with ``d`` the number of elements
    of the variable: a per-dimension parameter broadcast over the batch, such as the ``logstd`` of a diagonal
    Gaussian policy (``mean * 0.0 + logstd``). Such a variable gets a Fisher block of its own (see the module
    docstring).

    :param loss_tensors: ([tf.Tensor]) the tensors whose dependencies define the model graph to search
    :param variables: ([tf.Variable]) the candidate variables
    :return: ([(tf.Variable, tf.Operation)], [tf.Variable]) the added variables with their addition op, and the
        remaining variables (plain gradient)
    """
    cone = _backward_cone(loss_tensors)
    added, others = [], []
    for var in variables:
        uses = _terminal_uses(var, cone)
        size = int(np.prod(var.shape.as_list()))
        if len(uses) == 1 and uses[0].type in ("Add", "AddV2"):
            out_shape = uses[0].outputs[0].shape.as_list()
            if len(out_shape) == 2 and out_shape[1] == size:
                added.append((var, uses[0]))
                continue
        others.append(var)
    return added, others


# ------------------------------------------------------------------------------------------------
# the optimizer
# ------------------------------------------------------------------------------------------------
class KfacOptimizer:
    """
    Kronecker-factored natural-gradient optimizer with ACKTR's trust-region step size.

    :param learning_rate: (float or tf.Tensor) the learning rate (may be a placeholder)
    :param momentum: (float) momentum coefficient (ACKTR: 0.9)
    :param clip_kl: (float or None) the trust-region radius (ACKTR's ``kfac_clip``): a step satisfies
        ``step^T F step <= clip_kl`` (predicted KL divergence at most ``clip_kl / 2``); None disables the rescaling
    :param kfac_update: (int) refresh the eigen-decompositions of the factors every ``kfac_update`` calls
    :param stats_decay: (float) decay of the running averages of the factors
    :param epsilon: (float) Tikhonov damping ``lambda``, split between the two factors
    :param async_eigen_decomp: (bool) accepted for compatibility; the decomposition is always synchronous
    :param cold_iter: (int) number of first calls that take momentum-SGD steps (factors warming up)
    :param cold_lr: (float) the SGD learning rate of those calls
    :param max_grad_norm: (float or None) global-norm clipping of the gradient for the cold SGD steps
    :param verbose: (int) 2: print the layers found when the graph is built
    :param name: (str) variable scope of the optimizer's variables
    :param factored_damping: (bool) True: factored Tikhonov damping (Martens & Grosse 2015, section 6.3),
        ``(A + pi sqrt(lambda) I) (x) (G + sqrt(lambda)/pi I)``; False: ``A (x) G + lambda I`` (the damping added
        to the products of the factors' eigenvalues, as the original ACKTR code did by default)
    :param unclipped_vars: ([tf.Variable] or None) variables whose step is the plain natural-gradient step
        ``lr * F^-1 g``, neither rescaled by the trust region nor counted in ``g^T F^-1 g`` (ACKTR passes the
        variables that only its value function uses); None: every step is in the trust region
    """

    def __init__(self, learning_rate: Union[float, tf.Tensor] = 0.01, momentum: float = 0.9,
                 clip_kl: Optional[float] = 0.01, kfac_update: int = 2, stats_decay: float = 0.95,
                 epsilon: float = 1e-2, async_eigen_decomp: bool = False, cold_iter: int = 0,
                 cold_lr: float = 0.01, max_grad_norm: Optional[float] = None, verbose: int = 0,
                 name: str = "kfac", factored_damping: bool = True, unclipped_vars: Optional[Sequence] = None) -> None:
        if not isinstance(kfac_update, (int, np.integer)) or kfac_update < 1:
            raise ValueError("kfac_update must be an int >= 1, got {!r}".format(kfac_update))
        if not 0.0 <= stats_decay < 1.0:
            raise ValueError("stats_decay must be in [0, 1), got {!r}".format(stats_decay))
        if epsilon < 0:
            raise ValueError("epsilon (damping) must be >= 0, got {!r}".format(epsilon))
        if not 0.0 <= momentum < 1.0:
            raise ValueError("momentum must be in [0, 1), got {!r}".format(momentum))
        if clip_kl is not None and clip_kl <= 0:
            raise ValueError("clip_kl must be > 0 or None, got {!r}".format(clip_kl))
        self.learning_rate = learning_rate
        self.momentum = momentum
        self.clip_kl = clip_kl
        self.kfac_update = int(kfac_update)
        self.stats_decay = stats_decay
        self.epsilon = epsilon
        self.async_eigen_decomp = async_eigen_decomp
        self.cold_iter = int(cold_iter)
        self.cold_lr = cold_lr
        self.max_grad_norm = max_grad_norm
        self.verbose = verbose
        self.name = name
        self.factored_damping = factored_damping
        self.unclipped_vars = list(unclipped_vars) if unclipped_vars is not None else []

        self.layers = []  # type: List[KfacLayer]
        self.other_vars = []  # type: List
        self.added_vars = []  # type: List  # variables with a Fisher block of their own (the Gaussian logstd)
        self._added_uses: List[tf.Operation] = []  # their addition ops
        self._added_factors: List[tf.Variable] = []  # their G factors
        self.var_list = []  # type: List
        self.stats_op = None
        self.step_counter = None
        self.scale = None  # trust-region scale of the last step (tensor)
        self.natural_gradient_norm = None  # g^T F^-1 g of the variables in the trust region (tensor)
        self._factors: List[Dict[str, tf.Variable]] = []  # per layer: dict(A=var, G=var)
        self._eigen: List[Dict[str, tf.Variable]] = []  # per layer: dict(QA, eA, QG, eG)
        self._scope = None
        self._stats_count: Optional[tf.Variable] = None
        self._graph = None

    # --------------------------------------------------------------------------------------------
    def _variable(self, name: str, shape: List[int], dtype: Any, initializer: Any = None) -> tf.Variable:
        if initializer is None:
            initializer = tf.zeros_initializer()
        return tf.get_variable(name, shape=shape, dtype=dtype, initializer=initializer, trainable=False,
                               collections=[tf.GraphKeys.GLOBAL_VARIABLES])

    def compute_and_apply_stats(self, loss_sampled: tf.Tensor, var_list: Optional[Sequence] = None,
                                extra_loss_tensors: Sequence = ()) -> tf.Operation:
        """
        Find the layers and build the op that updates the running Kronecker factors.

        :param loss_sampled: (tf.Tensor) the sampled Fisher loss (scalar, mean over examples of the
            log-likelihood of targets sampled from the model)
        :param var_list: ([tf.Variable]) the variables to optimise (default: the trainable variables)
        :param extra_loss_tensors: ([tf.Tensor]) other tensors (the training loss) whose graph may hold the layers
        :return: (tf.Operation) the statistics update op
        """
        if var_list is None:
            var_list = tf.trainable_variables()
        var_list = list(var_list)
        if not var_list:
            raise ValueError("KfacOptimizer needs a non-empty var_list")
        self.var_list = var_list
        self._graph = tf.get_default_graph()
        self.layers, others = find_layers([loss_sampled] + list(extra_loss_tensors), var_list)
        added, self.other_vars = find_added_variables([loss_sampled] + list(extra_loss_tensors), others)
        self.added_vars = [var for var, _ in added]
        self._added_uses = [op for _, op in added]
        if self.verbose >= 2:
            print("K-FAC: {} Kronecker-factored layers, {} variables with a block of their own ({}), {} variables "
                  "with plain gradient".format(len(self.layers), len(self.added_vars),
                                               ", ".join(var.name for var in self.added_vars), len(self.other_vars)))
            for layer in self.layers:
                print("  ", layer)

        with tf.variable_scope(None, default_name=self.name) as scope:
            self._scope = scope
            self._stats_count = self._variable("stats_count", [], tf.float32)
            self.step_counter = self._variable("step", [], tf.int64)
            outputs = [op.outputs[0] for layer in self.layers for op in layer.uses]
            added_outputs = [op.outputs[0] for op in self._added_uses]
            grads = tf.gradients(loss_sampled, outputs + added_outputs) if outputs + added_outputs else []
            grads = [tf.zeros_like(out) if grad is None else grad
                     for out, grad in zip(outputs + added_outputs, grads)]
            grad_iter = iter(grads[:len(outputs)])
            count = self._stats_count.read_value()
            decay = tf.minimum(tf.constant(self.stats_decay, tf.float32), count / (count + 1.0))
            updates = []
            self._factors, self._eigen = [], []
            for index, layer in enumerate(self.layers):
                dtype = layer.weight.dtype.base_dtype
                n_a = layer.n_in + (1 if layer.bias is not None else 0)
                n_g = layer.n_out
                with tf.variable_scope("layer_{}".format(index)):
                    factor_a = self._variable("A", [n_a, n_a], dtype)
                    factor_g = self._variable("G", [n_g, n_g], dtype)
                    eigen = dict(QA=self._variable("QA", [n_a, n_a], dtype, tf.initializers.identity()),
                                 eA=self._variable("eA", [n_a], dtype, tf.ones_initializer()),
                                 QG=self._variable("QG", [n_g, n_g], dtype, tf.initializers.identity()),
                                 eG=self._variable("eG", [n_g], dtype, tf.ones_initializer()))
                self._factors.append(dict(A=factor_a, G=factor_g))
                self._eigen.append(eigen)
                acts, backs, n_examples = [], [], []
                for op in layer.uses:
                    grad = next(grad_iter)
                    inp = tf.stop_gradient(op.inputs[0])
                    if layer.kind == "conv":
                        k_h, k_w = layer.weight.shape.as_list()[:2]
                        patches = tf.extract_image_patches(
                            inp, ksizes=[1, k_h, k_w, 1], strides=list(op.get_attr("strides")),
                            rates=[1, 1, 1, 1], padding=_as_str(op.get_attr("padding")))
                        acts.append(tf.reshape(patches, [-1, layer.n_in]))
                        backs.append(tf.reshape(grad, [-1, n_g]))
                    else:
                        acts.append(inp)
                        backs.append(grad)
                    n_examples.append(tf.shape(inp)[0])
                act = tf.concat(acts, axis=0) if len(acts) > 1 else acts[0]
                back = tf.concat(backs, axis=0) if len(backs) > 1 else backs[0]
                act = tf.cast(act, dtype)
                back = tf.cast(back, dtype)
                if layer.bias is not None:
                    act = tf.concat([act, tf.ones([tf.shape(act)[0], 1], dtype=dtype)], axis=1)
                n_rows = tf.cast(tf.shape(act)[0], dtype)
                n_ex = tf.cast(tf.add_n(n_examples) if len(n_examples) > 1 else n_examples[0], dtype)
                batch_a = tf.matmul(act, act, transpose_a=True) / n_rows
                batch_g = tf.matmul(back, back, transpose_a=True) * n_ex
                decay_t = tf.cast(decay, dtype)
                updates.append(tf.assign(factor_a, decay_t * factor_a + (1.0 - decay_t) * batch_a))
                updates.append(tf.assign(factor_g, decay_t * factor_g + (1.0 - decay_t) * batch_g))
            self._added_factors = []
            for index, (var, grad) in enumerate(zip(self.added_vars, grads[len(outputs):])):
                dtype = var.dtype.base_dtype
                size = int(np.prod(var.shape.as_list()))
                with tf.variable_scope("added_{}".format(index)):
                    factor_g = self._variable("G", [size, size], dtype)
                self._added_factors.append(factor_g)
                back = tf.cast(grad, dtype)
                n_ex = tf.cast(tf.shape(back)[0], dtype)
                decay_t = tf.cast(decay, dtype)
                batch_g = tf.matmul(back, back, transpose_a=True) * n_ex
                updates.append(tf.assign(factor_g, decay_t * factor_g + (1.0 - decay_t) * batch_g))
            with tf.control_dependencies(updates):
                self.stats_op = tf.assign_add(self._stats_count, 1.0).op
        return self.stats_op

    # --------------------------------------------------------------------------------------------
    @staticmethod
    def _eigh(matrix: tf.Tensor) -> Tuple[tf.Tensor, tf.Tensor]:
        dtype = matrix.dtype
        sym = tf.cast(matrix, tf.float64)
        sym = 0.5 * (sym + tf.transpose(sym))
        values, vectors = tf.linalg.eigh(sym)
        values = values * tf.cast(values > 1e-6, values.dtype)  # PSD factors: eigenvalues <= 1e-6 are set to 0
        return tf.cast(vectors, dtype), tf.cast(values, dtype)

    def _precondition(self, grads: Dict, eigens: List[Dict]) -> Tuple[Dict, List]:
        """
        :return: (dict var -> preconditioned gradient, [(grad, preconditioned) pairs for g^T F^-1 g])
        """
        result = {}
        pairs = []
        for layer, eigen in zip(self.layers, eigens):
            grad_w = grads.get(layer.weight)
            if grad_w is None:
                continue
            dtype = layer.weight.dtype.base_dtype
            matrix = tf.reshape(grad_w, [layer.n_in, layer.n_out])
            grad_b = grads.get(layer.bias) if layer.bias is not None else None
            q_a, e_a, q_g, e_g = eigen["QA"], eigen["eA"], eigen["QG"], eigen["eG"]
            if layer.bias is not None:
                if grad_b is None:
                    grad_b = tf.zeros(layer.bias.shape, dtype=dtype)
                matrix = tf.concat([matrix, tf.reshape(grad_b, [1, layer.n_out])], axis=0)
            tiny = tf.constant(1e-12, dtype)
            rotated = tf.matmul(tf.matmul(q_a, matrix, transpose_a=True), q_g)
            if self.factored_damping:
                sqrt_damping = tf.constant(float(np.sqrt(self.epsilon)), dtype)
                pi = tf.sqrt((tf.reduce_mean(e_a) + tiny) / (tf.reduce_mean(e_g) + tiny))
                denominator = tf.expand_dims(e_a + pi * sqrt_damping, 1) * tf.expand_dims(e_g + sqrt_damping / pi, 0)
            else:
                denominator = tf.expand_dims(e_a, 1) * tf.expand_dims(e_g, 0) + tf.constant(self.epsilon, dtype)
            rotated = rotated / tf.maximum(denominator, tiny)
            precond = tf.matmul(tf.matmul(q_a, rotated), q_g, transpose_b=True)
            pairs.append((matrix, precond))
            if layer.bias is not None:
                result[layer.weight] = tf.reshape(precond[:-1], tf.shape(grad_w))
                result[layer.bias] = tf.reshape(precond[-1], layer.bias.shape)
            else:
                result[layer.weight] = tf.reshape(precond, tf.shape(grad_w))
        for var, factor_g in zip(self.added_vars, self._added_factors):
            grad = grads.get(var)
            if grad is None:
                continue
            dtype = var.dtype.base_dtype
            size = int(np.prod(var.shape.as_list()))
            damped = factor_g.read_value() + tf.constant(self.epsilon, dtype) * tf.eye(size, dtype=dtype)
            precond = tf.reshape(tf.linalg.solve(damped, tf.reshape(grad, [size, 1])), tf.shape(grad))
            result[var] = precond
            pairs.append((grad, precond))
        for var in self.other_vars:
            grad = grads.get(var)
            if grad is not None:
                result[var] = grad
                pairs.append((grad, grad))
        return result, pairs

    def apply_gradients(self, grads_and_vars: Sequence[Tuple]) -> Tuple[tf.Operation, None]:
        """
        Build the train op: statistics update, eigen refresh (every ``kfac_update`` calls), preconditioning,
        trust-region rescaling and the momentum update. ``compute_and_apply_stats`` must have been called.

        :param grads_and_vars: ([(tf.Tensor, tf.Variable)]) gradients of the training loss
        :return: (tf.Operation, None) the train op, and no queue runner (the decomposition is synchronous)
        """
        if self.stats_op is None:
            raise RuntimeError("KfacOptimizer.compute_and_apply_stats(loss_sampled, var_list) must be called "
                               "before apply_gradients")
        grads_and_vars = [(grad, var) for grad, var in grads_and_vars if grad is not None]
        if not grads_and_vars:
            raise ValueError("KfacOptimizer.apply_gradients got no gradient (all None)")
        grads = OrderedDict((var, grad) for grad, var in grads_and_vars)
        with tf.variable_scope(self._scope, auxiliary_name_scope=False), \
                tf.name_scope(self._scope.original_name_scope):
            velocities = OrderedDict()
            for index, var in enumerate(grads):
                velocities[var] = self._variable("momentum_{}".format(index), var.shape,
                                                 var.dtype.base_dtype)
            with tf.control_dependencies([self.stats_op]):
                step = self.step_counter.read_value()
                refresh = tf.equal(tf.mod(step, self.kfac_update), 0)
                # the eigenbases serve the K-FAC steps only: of the decompositions due in the cold phase, all but the
                # last are replaced before any step reads them, so they are skipped (the one at the first K-FAC
                # step, or the last before it, is made)
                first_read = (self.cold_iter // self.kfac_update) * self.kfac_update
                if first_read > 0:
                    refresh = tf.logical_and(refresh, tf.greater_equal(step, tf.constant(first_read, step.dtype)))
                eigens, eigen_assigns = [], []
                for factors, eigen_vars in zip(self._factors, self._eigen):
                    factor_a = factors["A"].read_value()
                    factor_g = factors["G"].read_value()

                    def _fresh(factor_a=factor_a, factor_g=factor_g):
                        q_a, e_a = self._eigh(factor_a)
                        q_g, e_g = self._eigh(factor_g)
                        return q_a, e_a, q_g, e_g

                    def _stored(eigen_vars=eigen_vars):
                        return (tf.identity(eigen_vars["QA"].read_value()), tf.identity(eigen_vars["eA"].read_value()),
                                tf.identity(eigen_vars["QG"].read_value()), tf.identity(eigen_vars["eG"].read_value()))

                    values = tf.cond(refresh, _fresh, _stored, strict=True)
                    eigen = dict(zip(("QA", "eA", "QG", "eG"), values))
                    eigens.append(eigen)
                    eigen_assigns.extend(tf.assign(eigen_vars[key], eigen[key]) for key in eigen)

                precond, _ = self._precondition(grads, eigens)
                lr = tf.convert_to_tensor(self.learning_rate)
                scale = tf.constant(1.0, tf.float32)
                unclipped = set(self.unclipped_vars)
                clipped_terms = [tf.cast(tf.reduce_sum(grad * precond.get(var, grad)), tf.float32)
                                 for var, grad in grads.items() if var not in unclipped]
                g_f_g = tf.add_n(clipped_terms) if clipped_terms else tf.constant(0.0, tf.float32)
                self.natural_gradient_norm = g_f_g
                lr32 = tf.cast(lr, tf.float32)
                if self.clip_kl is not None and clipped_terms:
                    scale = tf.minimum(1.0, tf.sqrt(self.clip_kl / tf.maximum(lr32 * lr32 * g_f_g, 1e-20)))
                self.scale = scale
                kfac_steps = [tf.cast(lr32 * (1.0 if var in unclipped else scale), var.dtype.base_dtype)
                              * precond.get(var, grads[var]) for var in grads]
                if self.cold_iter > 0:
                    raw = list(grads.values())
                    if self.max_grad_norm is not None:
                        raw, _ = tf.clip_by_global_norm(raw, self.max_grad_norm)
                    cold_steps = [tf.cast(self.cold_lr, var.dtype.base_dtype) * grad for var, grad in zip(grads, raw)]
                    is_cold = tf.less(step, self.cold_iter)
                    steps = tf.cond(is_cold, lambda: [tf.identity(s) for s in cold_steps],
                                    lambda: [tf.identity(s) for s in kfac_steps], strict=True)
                else:
                    steps = kfac_steps
                # every gradient is computed before any variable changes: the step of a variable outside the
                # trust region depends on its own gradient only, and without this order it could be written
                # while the back-propagation of another gradient still reads it (a race between the session's
                # threads that made seeded runs differ)
                updates = []
                with tf.control_dependencies(list(grads.values())):
                    for (var, velocity), update in zip(velocities.items(), steps):
                        new_velocity = tf.assign(velocity, self.momentum * velocity + update)
                        updates.append(tf.assign_sub(var, (1.0 - self.momentum) * new_velocity))
            with tf.control_dependencies(updates + eigen_assigns):
                train_op = tf.assign_add(self.step_counter, 1).op
        return train_op, None

    def minimize(self, loss: tf.Tensor, loss_sampled: tf.Tensor, var_list: Optional[Sequence] = None) \
            -> Tuple[tf.Operation, None]:
        """
        Build the whole K-FAC train op for ``loss``.

        :param loss: (tf.Tensor) the training loss to minimise
        :param loss_sampled: (tf.Tensor) the sampled Fisher loss (see ``compute_and_apply_stats``)
        :param var_list: ([tf.Variable]) the variables (default: the trainable variables)
        :return: (tf.Operation, None) the train op and no queue runner
        """
        if var_list is None:
            var_list = tf.trainable_variables()
        var_list = list(var_list)
        grads = tf.gradients(loss, var_list)
        self.compute_and_apply_stats(loss_sampled, var_list, extra_loss_tensors=[loss])
        return self.apply_gradients(list(zip(grads, var_list)))

    def get_variables(self) -> List:
        """
        :return: ([tf.Variable]) the variables created by the optimizer (none of them trainable)
        """
        if self._scope is None:
            return []
        return self._graph.get_collection(tf.GraphKeys.GLOBAL_VARIABLES, scope=self._scope.name + "/")
