"""
NumPy inference helpers: the forward pass of small policies without a TensorFlow session call.

A ``Session.run`` costs a few hundred microseconds whatever the graph; a 64x64 MLP forward in
NumPy costs a few microseconds. Policies whose structure is known (dense stacks with a supported
activation, optional layer normalisation) can therefore act from a NumPy copy of their weights,
refreshed from the graph after every update. Anything not supported returns ``None`` from the
builders here, and the caller falls back to the TensorFlow graph, so the NumPy path never gives
different answers: it computes the same float32 arithmetic the graph computes.

Interface (stable, used by the actor-critic policies and by the off-policy algorithms):

- :func:`numpy_activation` ``(tf_fn) -> callable or None``: the NumPy twin of a TensorFlow
  activation function (``tf.tanh``, ``tf.nn.relu``, ...), ``None`` when unknown.
- :func:`dense` ``(x, kernel, bias) -> x @ kernel + bias`` (float32).
- :func:`mlp_forward` ``(x, layers, activation, activate_last=True, layer_norms=None)``: a dense
  stack; ``layers`` is a list of ``(kernel, bias)`` NumPy arrays; ``activation`` a NumPy callable
  (or ``None`` for identity); ``layer_norms`` an optional list (one entry per layer, ``None`` or
  ``(gamma, beta)``) applied before the activation, as ``tf_layers.mlp(..., layer_norm=True)`` does.
- :func:`layer_norm` ``(x, gamma, beta, epsilon=LAYER_NORM_EPSILON)``: TF's layer norm over the last
  axis (variance epsilon 1e-12, like ``tf_layers.layer_norm``, the TF 1.15 layer it replaces).
- :func:`softmax`, :func:`log_softmax`, :func:`sigmoid`: numerically stable float32 versions.
- :func:`categorical_sample` ``(logits, rng) -> int64 actions`` (Gumbel-max, like the graph),
  :func:`categorical_sample_row` ``(logits, rng) -> int`` (one row, inverse CDF),
  :func:`categorical_neglogp` ``(logits, actions)``.
- :class:`SingleRowStack` ``(layers, activation, activate_last=False)``: a dense stack for one observation
  with preallocated buffers and the biases folded into the kernels (the ``predict`` fast path).
- :func:`gaussian_sample` ``(mean, std, rng)`` and :func:`diag_gaussian_neglogp`
  ``(mean, logstd, x)``.
- :func:`bernoulli_sample` ``(logits, rng) -> float32 in {0, 1}`` and
  :func:`bernoulli_neglogp` ``(logits, x)``.
- :func:`preprocess_observation` ``(obs, ob_space, scale=False)``: what
  ``stable_baselines.common.input.observation_input`` computes (one-hot for discrete spaces, cast to
  float32, optional scaling to [0, 1] of bounded boxes), or ``None`` for an unsupported space.
- :func:`dense_stack_weights` ``(values, n_layers, layer_norm, start=0)``: the (kernel, bias) and
  (gamma, beta) pairs of a dense stack from a flat list of variable values in creation order.
- :class:`NumpyNetworkCopy`: base of the NumPy copies of the off-policy networks (variables to read,
  refresh when stale, observation features, the single-row path); subclasses define ``set_weights`` and
  optionally ``row_layers``.
- :func:`make_rng` ``(seed) -> numpy.random.Generator``: the generator used for stochastic actions
  (seeded from the model seed, so a seeded run is reproducible).
- :func:`numpy_forward_enabled` ``() -> bool``: ``False`` when the environment variable
  ``STABLE_BASELINES_NUMPY_FORWARD=0`` is set (everything then uses the graph).

Random draws come from a :class:`numpy.random.Generator`, not from TensorFlow's random ops, so a
stochastic action differs from the one the graph would have drawn with the same seed; its
distribution is the same, and deterministic actions, probabilities, values and neg-log-likelihoods
equal the graph's to float32 precision.
"""
import abc
import math
import os
import threading
from typing import TYPE_CHECKING, Any, Callable, List, Literal, Optional, Sequence, Tuple, Union

import numpy as np

if TYPE_CHECKING:
    from stable_baselines.common.engine.tf_philox import OpUniformStream

LAYER_NORM_EPSILON = 1e-12
_HALF_LOG_2PI = 0.5 * np.log(2.0 * np.pi)
_TWO_POW_MINUS_53 = 2.0 ** -53


def numpy_forward_enabled() -> bool:
    """
    :return: (bool) whether the NumPy inference path may be used
        (disable with the environment variable ``STABLE_BASELINES_NUMPY_FORWARD=0``)
    """
    return os.environ.get("STABLE_BASELINES_NUMPY_FORWARD", "1").strip().lower() not in ("0", "false", "no", "off")


# ------------------------------------------------------------------------------------------------
# activations
# ------------------------------------------------------------------------------------------------
_FLOAT32_ZERO = np.float32(0)


def _relu(x: np.ndarray) -> np.ndarray:
    return np.maximum(x, _FLOAT32_ZERO, out=x)


# TensorFlow's float32 Tanh kernel (Eigen's ptanh_float, built without FMA): the input clipped to +-_TANH_CLIP, then
# x * (1 + x^2 P(x^2)) / Q(x^2), Horner steps rounded one operation at a time. Computed so, the NumPy tanh gives the
# kernel's values bit for bit (np.tanh can be a few ulps away), and the copies' outputs follow the graph's exactly.
# On the few rows of a rollout step the cost is the number of ufunc calls, not the arithmetic: each is a direct call
# with ``out=`` (no operator dispatch, no temporary) and every constant a 0-d float32 array (a NumPy scalar operand
# costs a conversion per call).
_TANH_CLIP = np.array(7.90738964080810547, dtype=np.float32)
_TANH_MINUS_CLIP = np.negative(_TANH_CLIP)
_P3, _P2, _P1, _P0 = (np.array(c, dtype=np.float32) for c in (1.394553628e-8, 2.102733560e-5, 3.520756727e-3,
                                                                1.340216100e-1))
_Q4, _Q3, _Q2, _Q1, _Q0 = (np.array(c, dtype=np.float32) for c in (8.015776984e-7, 3.326951409e-4, 2.597254514e-2,
                                                                   4.673548340e-1, 1.0))


def _tanh(x: np.ndarray) -> np.ndarray:
    if x.dtype != np.float32:
        return np.tanh(x, out=x)
    multiply, add = np.multiply, np.add
    np.minimum(x, _TANH_CLIP, out=x)
    np.maximum(x, _TANH_MINUS_CLIP, out=x)
    x2 = multiply(x, x)
    # P(x^2) and Q(x^2) by Horner's rule, from the highest coefficient
    p = multiply(x2, _P3)
    add(p, _P2, out=p)
    multiply(p, x2, out=p)
    add(p, _P1, out=p)
    multiply(p, x2, out=p)
    add(p, _P0, out=p)
    q = multiply(x2, _Q4)
    add(q, _Q3, out=q)
    multiply(q, x2, out=q)
    add(q, _Q2, out=q)
    multiply(q, x2, out=q)
    add(q, _Q1, out=q)
    multiply(q, x2, out=q)
    add(q, _Q0, out=q)
    # x + x^3 P(x^2), over Q(x^2)
    multiply(x2, x, out=x2)
    multiply(p, x2, out=p)
    add(p, x, out=p)
    return np.divide(p, q, out=x)


def _tanh_fast(x: np.ndarray) -> np.ndarray:
    """NumPy's own tanh, in place: within a few ulps of :func:`_tanh` and ten times cheaper on a single row."""
    return np.tanh(x, out=x)


def _sigmoid_inplace(x: np.ndarray) -> np.ndarray:
    return sigmoid(x)


def _elu(x: np.ndarray) -> np.ndarray:
    return np.where(x > 0, x, np.expm1(np.minimum(x, 0))).astype(x.dtype, copy=False)


def _selu(x: np.ndarray) -> np.ndarray:
    alpha = np.float32(1.6732632423543772848170429916717)
    scale = np.float32(1.0507009873554804934193349852946)
    return (scale * np.where(x > 0, x, alpha * np.expm1(np.minimum(x, 0)))).astype(x.dtype, copy=False)


def _softplus(x: np.ndarray) -> np.ndarray:
    return np.logaddexp(np.float32(0), x).astype(x.dtype, copy=False)


def _relu6(x: np.ndarray) -> np.ndarray:
    return np.clip(x, 0, 6, out=x)


def _leaky_relu(x: np.ndarray) -> np.ndarray:
    # tf.nn.leaky_relu default alpha=0.2
    return np.where(x > 0, x, np.float32(0.2) * x).astype(x.dtype, copy=False)


def _softsign(x: np.ndarray) -> np.ndarray:
    return x / (np.float32(1) + np.abs(x))


def _identity(x: np.ndarray) -> np.ndarray:
    return x


_ACTIVATIONS = None  # type: Optional[List[Tuple[Any, Callable]]]


def _activation_table() -> List[Tuple[Any, Callable]]:
    global _ACTIVATIONS  # pylint: disable=global-statement
    if _ACTIVATIONS is None:
        from stable_baselines.common.tf_compat import tf  # pylint: disable=import-outside-toplevel
        table: List[Tuple[Any, Callable]] = []
        candidates = [
            ("tanh", _tanh), ("nn.tanh", _tanh), ("math.tanh", _tanh),
            ("nn.relu", _relu), ("nn.relu6", _relu6), ("nn.elu", _elu), ("nn.selu", _selu),
            ("sigmoid", _sigmoid_inplace), ("nn.sigmoid", _sigmoid_inplace), ("math.sigmoid", _sigmoid_inplace),
            ("nn.softplus", _softplus), ("math.softplus", _softplus), ("nn.softsign", _softsign),
            ("math.softsign", _softsign), ("nn.leaky_relu", _leaky_relu), ("identity", _identity),
        ]
        for name, fun in candidates:
            obj = tf
            try:
                for part in name.split("."):
                    obj = getattr(obj, part)
            except AttributeError:
                continue
            table.append((obj, fun))
        _ACTIVATIONS = table
    return _ACTIVATIONS


def numpy_activation(tf_fn: Any) -> Optional[Callable[[np.ndarray], np.ndarray]]:
    """
    The NumPy equivalent of a TensorFlow activation function.

    The returned callable may work in place on its (float32) argument and returns the result.

    :param tf_fn: (callable or None) a TensorFlow activation (``tf.tanh``, ``tf.nn.relu``, ``tf.nn.elu``,
        ``tf.nn.selu``, ``tf.sigmoid``, ``tf.nn.softplus``, ``tf.nn.softsign``, ``tf.nn.relu6``,
        ``tf.nn.leaky_relu``, ``tf.identity``); ``None`` means identity
    :return: (callable or None) the NumPy activation, or None if ``tf_fn`` is not recognised
    """
    if tf_fn is None:
        return _identity
    for known, fun in _activation_table():
        if tf_fn is known:
            return fun
    # functools.wraps'd dispatch wrappers of TF expose the raw op through __wrapped__
    wrapped = getattr(tf_fn, "__wrapped__", None)
    if wrapped is not None and wrapped is not tf_fn:
        for known, fun in _activation_table():
            if wrapped is known or wrapped is getattr(known, "__wrapped__", None):
                return fun
    return None


# ------------------------------------------------------------------------------------------------
# layers
# ------------------------------------------------------------------------------------------------
def dense(x: np.ndarray, kernel: np.ndarray, bias: Optional[np.ndarray]) -> np.ndarray:
    """
    Fully connected layer ``x @ kernel + bias``.

    :param x: (np.ndarray) float32 input, shape (batch, n_in)
    :param kernel: (np.ndarray) float32 weights, shape (n_in, n_out)
    :param bias: (np.ndarray or None) float32 bias, shape (n_out,)
    :return: (np.ndarray) float32 output, shape (batch, n_out)
    """
    out = x @ kernel
    if bias is not None:
        out += bias
    return out


def layer_norm(x: np.ndarray, gamma: Optional[np.ndarray], beta: Optional[np.ndarray],
               epsilon: float = LAYER_NORM_EPSILON) -> np.ndarray:
    """
    Layer normalisation over the last axis, with TensorFlow's formula
    (``tf.nn.batch_normalization`` with the moments of the last axis).

    :param x: (np.ndarray) float32 input
    :param gamma: (np.ndarray or None) scale
    :param beta: (np.ndarray or None) offset
    :param epsilon: (float) variance epsilon (1e-12 as in ``tf_layers.layer_norm``)
    :return: (np.ndarray) normalised float32 array
    """
    mean = x.mean(axis=-1, keepdims=True)
    variance = np.square(x - mean).mean(axis=-1, keepdims=True)
    inv = (1.0 / np.sqrt(variance + np.float32(epsilon))).astype(np.float32)
    if gamma is not None:
        inv = inv * gamma
    offset = -mean * inv
    if beta is not None:
        offset = offset + beta
    return (x * inv + offset).astype(np.float32, copy=False)


def mlp_forward(x: np.ndarray, layers: Sequence[Tuple[np.ndarray, Optional[np.ndarray]]],
                activation: Optional[Callable[[np.ndarray], np.ndarray]], activate_last: bool = True,
                layer_norms: Optional[Sequence[Optional[Tuple[Optional[np.ndarray], Optional[np.ndarray]]]]] = None
                ) -> np.ndarray:
    """
    Forward pass of a stack of dense layers.

    :param x: (np.ndarray) float32 input, shape (batch, n_in)
    :param layers: ([(np.ndarray, np.ndarray)]) the (kernel, bias) of each layer
    :param activation: (callable or None) NumPy activation (see :func:`numpy_activation`); None: identity
    :param activate_last: (bool) apply the activation (and layer norm) after the last layer too
    :param layer_norms: ([None or (gamma, beta)]) optional layer normalisation per layer, applied between the
        dense layer and its activation
    :return: (np.ndarray) float32 output
    """
    n_layers = len(layers)
    for idx, (kernel, bias) in enumerate(layers):
        x = dense(x, kernel, bias)
        if idx < n_layers - 1 or activate_last:
            norm = None if layer_norms is None else layer_norms[idx]
            if norm is not None:
                gamma, beta = norm
                x = layer_norm(x, gamma, beta)
            if activation is not None:
                x = activation(x)
    return x


class SingleRowStack(object):
    """
    A dense stack evaluated for one observation at a time, with preallocated buffers: what ``predict`` on a
    single observation runs. The bias of each layer is folded into its kernel (the layer input carries a
    constant 1 in an extra last column), so a layer costs one ``np.dot`` into a preallocated buffer and one
    in-place activation instead of a matmul, a broadcast addition and an activation that each allocate: about
    half the time of :func:`mlp_forward` on a 64x64 network, where the call overheads dominate. The summation
    order differs from ``x @ kernel + bias`` only within float32 rounding.

    The buffers belong to the thread that built the stack; a call from another thread returns None (the caller
    then takes the batch path), so concurrent ``predict`` calls never share them.

    :param layers: ([(np.ndarray, np.ndarray)]) the float32 (kernel, bias) of each layer
    :param activation: (callable) NumPy activation (see :func:`numpy_activation`), applied after every layer but
        the last (and after the last too with ``activate_last``)
    :param activate_last: (bool) whether the last layer is activated
    """

    def __init__(self, layers: Sequence[Tuple[np.ndarray, np.ndarray]], activation: Callable[[np.ndarray], np.ndarray],
                 activate_last: bool = False) -> None:
        self._owner = threading.get_ident()
        n_in = int(layers[0][0].shape[0])
        self.n_in = n_in
        self._input = np.zeros((1, n_in + 1), dtype=np.float32)
        self._input[0, n_in] = 1.0
        self._input_view = self._input[0, :n_in]
        self._steps = []
        # a single row's answer already differs from the graph's within float32 rounding (the folded bias), so it
        # takes NumPy's tanh: the kernel-exact one would cost a single-row predict as much as the rest of it
        # (docs/misc/performance.rst)
        if activation is _tanh:
            activation = _tanh_fast
        source = self._input
        for idx, (kernel, bias) in enumerate(layers):
            n_out = int(kernel.shape[1])
            folded = np.ascontiguousarray(np.concatenate([kernel, bias.reshape(1, n_out)], axis=0), dtype=np.float32)
            buffer = np.zeros((1, n_out + 1), dtype=np.float32)
            buffer[0, n_out] = 1.0
            activate = activation if (idx < len(layers) - 1 or activate_last) else None
            self._steps.append((source, folded, buffer[:, :n_out], activate))
            source = buffer
        self.n_out = int(layers[-1][0].shape[1])

    def __call__(self, obs: np.ndarray) -> Optional[np.ndarray]:
        """
        :param obs: (np.ndarray) one observation with ``n_in`` elements (any shape, a real dtype)
        :return: (np.ndarray or None) the float32 output, shape (1, n_out): a view of a buffer that the next
            call overwrites (copy it to keep it); None when called from another thread than the builder's
        """
        if threading.get_ident() != self._owner:
            return None
        self._input_view[...] = obs.reshape(-1)
        out = None
        for source, folded, out, activate in self._steps:
            np.dot(source, folded, out=out)
            if activate is not None:
                result = activate(out)
                if result is not out:
                    out[...] = result
        return out


# ------------------------------------------------------------------------------------------------
# distributions
# ------------------------------------------------------------------------------------------------
def sigmoid(x: np.ndarray) -> np.ndarray:
    """
    :param x: (np.ndarray) logits
    :return: (np.ndarray) 1 / (1 + exp(-x)), computed without overflow
    """
    x = np.asarray(x)
    out = np.empty_like(x)
    pos = x >= 0
    out[pos] = 1.0 / (1.0 + np.exp(-x[pos]))
    exp_x = np.exp(x[~pos])
    out[~pos] = exp_x / (1.0 + exp_x)
    return out


def log_softmax(logits: np.ndarray) -> np.ndarray:
    """
    :param logits: (np.ndarray) shape (..., n)
    :return: (np.ndarray) log-probabilities over the last axis
    """
    shifted = logits - logits.max(axis=-1, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(axis=-1, keepdims=True))


def softmax(logits: np.ndarray) -> np.ndarray:
    """
    :param logits: (np.ndarray) shape (..., n)
    :return: (np.ndarray) probabilities over the last axis
    """
    exp_shifted = np.exp(logits - logits.max(axis=-1, keepdims=True))
    return exp_shifted / exp_shifted.sum(axis=-1, keepdims=True)


def categorical_sample(logits: np.ndarray, rng: Union[np.random.Generator, "OpUniformStream"]) -> np.ndarray:
    """
    Draw one category per row with the Gumbel-max trick, as the graph does:
    ``argmax(logits + G)`` with ``G`` standard Gumbel noise (``-log(-log(U))``, ``U`` uniform).

    :param logits: (np.ndarray) shape (batch, n)
    :param rng: (np.random.Generator or OpUniformStream) the generator of the noise, or the seeded uniform op of
        the graph's sampling whose next values ``U`` are (then the graph's float32 formula, on the very numbers
        the graph would have drawn: the same actions)
    :return: (np.ndarray) int64 actions, shape (batch,)
    """
    if not isinstance(rng, np.random.Generator):
        logs = rng.gumbel_logs(logits.shape)
        if logs is None:
            raise ValueError("the random op's draws in this session are not known")
        return (logits.astype(np.float32, copy=False) - logs).argmax(axis=-1).astype(np.int64, copy=False)
    return (logits + rng.gumbel(size=logits.shape)).argmax(axis=-1).astype(np.int64, copy=False)


def categorical_sample_row(logits: np.ndarray, rng: np.random.Generator) -> int:
    """
    Draw one category from a single row of logits by inverting the cumulative distribution (one uniform number,
    arithmetic on Python floats): the same distribution as :func:`categorical_sample`, a few microseconds
    cheaper for the handful of categories of a single ``predict``. The uniform number is taken from the
    generator's bit stream exactly as ``rng.random()`` would take it, so a seeded model stays reproducible.

    :param logits: (np.ndarray) shape (n,) or (1, n)
    :param rng: (np.random.Generator)
    :return: (int) the category
    """
    values = logits.ravel().tolist()
    top = max(values)
    weights = [math.exp(value - top) for value in values]
    # rng.random() computes (next_uint64 >> 11) * 2**-53 from the same bit generator
    threshold = ((rng.bit_generator.random_raw() >> 11) * _TWO_POW_MINUS_53) * sum(weights)
    cumulative = 0.0
    for index, weight in enumerate(weights):
        cumulative += weight
        if threshold < cumulative:
            return index
    return len(weights) - 1


def categorical_neglogp(logits: np.ndarray, actions: np.ndarray) -> np.ndarray:
    """
    :param logits: (np.ndarray) shape (batch, n)
    :param actions: (np.ndarray) int actions, shape (batch,)
    :return: (np.ndarray) float32 negative log-likelihood, shape (batch,)
    """
    logp = log_softmax(logits)
    return (-logp[np.arange(logp.shape[0]), actions]).astype(np.float32, copy=False)


def gaussian_sample(mean: np.ndarray, std: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """
    :param mean: (np.ndarray) shape (batch, n)
    :param std: (np.ndarray) broadcastable to ``mean``
    :param rng: (np.random.Generator)
    :return: (np.ndarray) float32 sample ``mean + std * N(0, 1)``
    """
    noise = rng.standard_normal(mean.shape, dtype=np.float32)
    return mean + std * noise


def diag_gaussian_neglogp(mean: np.ndarray, logstd: np.ndarray, x: np.ndarray) -> np.ndarray:
    """
    :param mean: (np.ndarray) shape (batch, n)
    :param logstd: (np.ndarray) broadcastable to ``mean``
    :param x: (np.ndarray) values, shape (batch, n)
    :return: (np.ndarray) float32 negative log-likelihood, shape (batch,)
    """
    logstd = np.broadcast_to(logstd, mean.shape)
    out = 0.5 * np.square((x - mean) / np.exp(logstd)).sum(axis=-1) \
        + np.float32(_HALF_LOG_2PI * mean.shape[-1]) + logstd.sum(axis=-1)
    return out.astype(np.float32, copy=False)


def bernoulli_sample(logits: np.ndarray, rng: np.random.Generator,
                     probs: Optional[np.ndarray] = None) -> np.ndarray:
    """
    :param logits: (np.ndarray) shape (batch, n)
    :param rng: (np.random.Generator)
    :param probs: (np.ndarray) the sigmoid of ``logits`` if already computed
    :return: (np.ndarray) float32 0/1 sample
    """
    if probs is None:
        probs = sigmoid(logits)
    return (rng.random(probs.shape, dtype=np.float32) < probs).astype(np.float32)


def bernoulli_neglogp(logits: np.ndarray, x: np.ndarray) -> np.ndarray:
    """
    Sum over the last axis of TF's ``sigmoid_cross_entropy_with_logits``.

    :param logits: (np.ndarray) shape (batch, n)
    :param x: (np.ndarray) labels in {0, 1}, shape (batch, n)
    :return: (np.ndarray) float32, shape (batch,)
    """
    x = x.astype(np.float32, copy=False)
    out = np.maximum(logits, 0) - logits * x + np.log1p(np.exp(-np.abs(logits)))
    return out.sum(axis=-1).astype(np.float32, copy=False)


# ------------------------------------------------------------------------------------------------
# observations, randomness
# ------------------------------------------------------------------------------------------------
def observation_features(obs: Any, ob_space: Any) -> Optional[np.ndarray]:
    """
    A batch of observations as the float32 (batch, features) matrix the first dense layer of an MLP takes.

    :param obs: (array_like) observations, shape (batch,) + ob_space.shape
    :param ob_space: (gymnasium.spaces.Space) the observation space
    :return: (np.ndarray or None) None when the batch does not fit the space (the caller uses the graph)
    """
    obs = np.asarray(obs)
    if obs.dtype == object or obs.ndim < 1 or obs.shape[1:] != ob_space.shape:
        return None
    if obs.dtype == np.float32:  # the common case of Box observations: no conversion
        return obs.reshape(obs.shape[0], -1)
    return preprocess_observation(obs, ob_space)


def preprocess_observation(obs: np.ndarray, ob_space: Any, scale: bool = False) -> Optional[np.ndarray]:
    """
    The processed observation ``stable_baselines.common.input.observation_input`` feeds to the network,
    flattened to (batch, features) float32.

    :param obs: (np.ndarray) a batch of observations, shape (batch,) + ob_space.shape
    :param ob_space: (gymnasium.spaces.Space)
    :param scale: (bool) scale bounded boxes to [0, 1] (CNN policies)
    :return: (np.ndarray or None) float32 (batch, n_features), None for an unsupported space
    """
    from gymnasium import spaces  # pylint: disable=import-outside-toplevel
    if isinstance(ob_space, spaces.Box):
        out: np.ndarray = np.asarray(obs, dtype=np.float32)
        if scale:
            low = np.asarray(ob_space.low, dtype=np.float64)
            high = np.asarray(ob_space.high, dtype=np.float64)
            if not np.any(np.isinf(low)) and not np.any(np.isinf(high)) and np.any((high - low) != 0):
                span = high - low
                span = np.where(span == 0, 1.0, span)
                out = (out - low.astype(np.float32)) / span.astype(np.float32)
        return out.reshape(out.shape[0], -1)
    if isinstance(ob_space, spaces.Discrete):
        index = np.asarray(obs).astype(np.int64).reshape(-1) - int(getattr(ob_space, "start", 0) or 0)
        n = int(ob_space.n)
        out = np.zeros((index.shape[0], n), dtype=np.float32)
        valid = (index >= 0) & (index < n)
        out[np.nonzero(valid)[0], index[valid]] = 1.0
        return out
    if isinstance(ob_space, spaces.MultiBinary):
        out = np.asarray(obs, dtype=np.float32)
        return out.reshape(out.shape[0], -1)
    if isinstance(ob_space, spaces.MultiDiscrete):
        nvec = np.asarray(ob_space.nvec).reshape(-1)
        starts = np.asarray(getattr(ob_space, "start", np.zeros_like(nvec))).reshape(-1)
        obs = np.asarray(obs).astype(np.int64).reshape(-1, nvec.shape[0]) - starts
        parts = []
        for idx, n in enumerate(nvec):
            n = int(n)
            part = np.zeros((obs.shape[0], n), dtype=np.float32)
            col = obs[:, idx]
            valid = (col >= 0) & (col < n)
            part[np.nonzero(valid)[0], col[valid]] = 1.0
            parts.append(part)
        return np.concatenate(parts, axis=1)
    return None


def dense_stack_weights(values: Sequence[np.ndarray], n_layers: int, layer_norm: bool,
                        start: int = 0) -> Tuple[list, Optional[list], int]:
    """
    Read the weights of ``n_layers`` dense layers from a flat list laid out as ``tf_layers.mlp`` creates
    the variables: per layer the kernel and the bias, then (with layer normalisation) beta and gamma.

    :param values: ([np.ndarray]) the variable values in creation order
    :param n_layers: (int) how many layers to read
    :param layer_norm: (bool) whether every layer has a layer normalisation
    :param start: (int) the position of the first kernel in ``values``
    :return: ([(np.ndarray, np.ndarray)], [(np.ndarray, np.ndarray)] or None, int) the (kernel, bias) pairs,
        the (gamma, beta) pairs (None without layer normalisation) and the position after the last layer
    """
    layers, norms, pos = [], [], start
    for _ in range(n_layers):
        layers.append((values[pos], values[pos + 1]))
        pos += 2
        if layer_norm:
            norms.append((values[pos + 1], values[pos]))  # (gamma, beta); beta is created first
            pos += 2
    return layers, (norms if layer_norm else None), pos


class NumpyNetworkCopy(abc.ABC):
    """
    The common part of the NumPy copies of the off-policy networks (the DQN Q-network, the SAC and TD3
    actors): the variables to read, the structure of the policy's dense stack, and the refresh from the
    graph when the copy is stale. Subclasses implement ``set_weights(values)``.

    :param policy: (BasePolicy) the policy (its ``sess``, ``ob_space``, ``layers`` and ``layer_norm``)
    :param variables: ([tf.Variable]) the network's variables in creation order
    :param activation: (callable) the NumPy activation
    """

    def __init__(self, policy: Any, variables: Sequence, activation: Callable) -> None:
        self.sess = policy.sess
        self.variables = list(variables)
        self.ob_space = policy.ob_space
        self.activation = activation
        self.n_hidden = len(policy.layers)
        self.layer_norm = bool(policy.layer_norm)
        self.stale = True
        from gymnasium import spaces  # pylint: disable=import-outside-toplevel
        self._box_obs = isinstance(self.ob_space, spaces.Box)
        # SingleRowStack of the current weights, built on first use (False: not possible)
        self._row: Union[None, Literal[False], SingleRowStack] = None
        # (start, end, shape) of each variable in a vector of all of them flattened in order; built on first use
        self._flat_layout: Optional[List[Tuple[int, int, Tuple[int, ...]]]] = None

    @abc.abstractmethod
    def set_weights(self, values: List[np.ndarray]) -> None:
        """
        :param values: ([np.ndarray]) the values of ``variables`` (kept by reference: pass arrays nobody modifies);
            implementations must reset ``self._row`` to None and ``self.stale`` to False
        """

    def set_flat_weights(self, flat: np.ndarray) -> None:
        """
        :param flat: (np.ndarray) the values of ``variables`` flattened and concatenated in order (a training step
            fetches them so; its slices are kept, not copied)
        """
        if self._flat_layout is None:
            layout, start = [], 0
            for var in self.variables:
                shape = tuple(var.shape.as_list())
                size = int(np.prod(shape, dtype=np.int64))
                layout.append((start, start + size, shape))
                start += size
            self._flat_layout = layout
        self.set_weights([flat[start:end].reshape(shape) for start, end, shape in self._flat_layout])

    def row_layers(self) -> Optional[List[Tuple[np.ndarray, np.ndarray]]]:
        """
        :return: ([(np.ndarray, np.ndarray)] or None) the (kernel, bias) pairs whose stack (activation between the
            layers, none after the last) :meth:`row_forward` computes; None when there is no such stack
        """
        return None

    def features(self, obs: np.ndarray) -> Optional[np.ndarray]:
        """
        Refresh the weights if they are stale, then turn the observations into the network's input.

        :param obs: (np.ndarray) a batch of observations
        :return: (np.ndarray or None) float32 features, None when the graph must answer
        """
        if self.stale:
            self.set_weights([np.array(value) for value in self.sess.run(self.variables)])
        return observation_features(obs, self.ob_space)

    def row_forward(self, obs: np.ndarray) -> Optional[np.ndarray]:
        """
        The output of the :meth:`row_layers` stack for ONE Box observation, through a :class:`SingleRowStack`.

        :param obs: (np.ndarray) one observation (the caller has checked its shape against the space)
        :return: (np.ndarray or None) float32, shape (1, n_out): a buffer the next call overwrites; None when the
            batch path must answer
        """
        if self.stale:
            self.set_weights([np.array(value) for value in self.sess.run(self.variables)])
        row = self._row
        if row is None:
            layers = self.row_layers() if (self._box_obs and not self.layer_norm) else None
            row = self._row = False if layers is None else SingleRowStack(layers, self.activation)
        if row is False or obs.dtype.kind not in "fiub":
            return None
        return row(obs)


def make_rng(seed: Optional[int] = None) -> np.random.Generator:
    """
    :param seed: (int or None) the model seed (None: fresh entropy)
    :return: (np.random.Generator) the generator for stochastic actions of the NumPy path
    """
    if seed is None:
        return np.random.default_rng()
    return np.random.default_rng([int(seed) & 0xFFFFFFFF, 0x5B2])
