"""
Neural-network layers used by the policies.

Two families live here:

- the original library's own layers (:func:`linear`, :func:`conv`, :func:`lstm`, ...), which
  create variables ``w`` / ``b`` (``wx``, ``wh``, ``b``, ``gx``... for the LSTM) under the scope
  name they are given;
- replacements for the TensorFlow 1.15 layers the original called (``tf.layers.dense``,
  ``tf.layers.flatten``, the contrib ``layers.fully_connected``, the contrib ``layers.layer_norm``),
  which are gone from today's TensorFlow. They create the SAME variable names TF 1.15 gave
  (``dense/kernel``, ``dense_1/bias``, ``fully_connected/weights``, ``LayerNorm/beta``, ...), in the
  same order, so that parameter files saved by the original library load into them. Unnamed
  layers are made unique per enclosing variable scope exactly as TF 1.15 did (through
  ``tf.variable_scope(None, default_name=...)``): the first is bare, then ``_1``, ``_2``, ...
"""
from typing import Any, Callable, List, Optional, Sequence, Tuple, cast

import numpy as np

from stable_baselines.common.tf_compat import dim_value, tf


# ------------------------------------------------------------------------------------------------
# the original library's layers
# ------------------------------------------------------------------------------------------------
def _ortho_matrix_shape(shape: Tuple[int, ...]) -> Tuple[int, int]:
    if len(shape) == 2:
        return shape
    if len(shape) == 4:
        # a convolution kernel (height, width, in, out): everything but the output channels is the fan-in
        return int(np.prod(shape[:-1])), shape[-1]
    raise NotImplementedError("ortho_init supports 2-D and 4-D shapes only, got {}".format(shape))


def ortho_init(scale: float = 1.0) -> Callable:
    """
    An initializer drawing (semi-)orthogonal weights, multiplied by ``scale`` (Saxe et al. 2013).
    Draws come from numpy's global generator.

    :param scale: (float) the gain
    :return: (function) an initializer ``(shape, ...) -> np.ndarray`` for 2-D and 4-D (NHWC kernel) shapes
    """

    def _ortho_init(shape: Sequence[Any], *_: Any, **_kwargs: Any) -> np.ndarray:
        """Orthonormal rows or columns of an SVD of a Gaussian matrix, reshaped to ``shape``."""
        dims = tuple(int(cast(int, dim_value(dim))) for dim in shape)
        matrix_shape = _ortho_matrix_shape(dims)
        left, _singular_values, right = np.linalg.svd(np.random.normal(0.0, 1.0, matrix_shape), full_matrices=False)
        basis = left if left.shape == matrix_shape else right
        return (scale * basis.reshape(dims)[:dims[0], :dims[1]]).astype(np.float32)

    return _ortho_init


def _static_dim(tensor: Any, axis: int, what: str) -> int:
    value = dim_value(tensor.get_shape()[axis])
    if value is None:
        raise ValueError("{} needs a known size on axis {} of its input, got shape {} for {}".format(
            what, axis, tensor.get_shape(), getattr(tensor, "name", tensor)))
    return int(value)


# data format -> (channel axis, strides of a given stride, shape the bias is broadcast to)
_CONV_LAYOUTS = {
    'NHWC': (3, lambda step: [1, step, step, 1], lambda n_out: [1, 1, 1, n_out]),
    'NCHW': (1, lambda step: [1, 1, step, step], lambda n_out: [1, n_out, 1, 1]),
}


def _kernel_size(filter_size: Any) -> Tuple[Any, Any]:
    if not isinstance(filter_size, (list, tuple)):
        return filter_size, filter_size
    if len(filter_size) != 2:
        raise ValueError("filter_size must be an int or a (height, width) pair, got {}".format(filter_size))
    return filter_size[0], filter_size[1]


def conv(input_tensor: tf.Tensor, scope: str, *, n_filters: int, filter_size: Any, stride: int,
         pad: str = 'VALID', init_scale: float = 1.0, data_format: str = 'NHWC',
         one_dim_bias: bool = False) -> tf.Tensor:
    """
    2-D convolution with orthogonally initialised kernel ``<scope>/w`` and zero bias ``<scope>/b``.

    :param input_tensor: (TensorFlow Tensor) the images, laid out as ``data_format`` says
    :param scope: (str) the variable scope of the layer
    :param n_filters: (int) output channels
    :param filter_size: (Union[int, [int], tuple<int, int>]) kernel side, or (height, width)
    :param stride: (int) the stride along height and width
    :param pad: (str) 'VALID' or 'SAME'
    :param init_scale: (int) gain of the orthogonal initializer
    :param data_format: (str) 'NHWC' or 'NCHW'
    :param one_dim_bias: (bool) store the bias with shape (n_filters,) instead of (1, n_filters, 1, 1)
    :return: (TensorFlow Tensor) the feature maps
    """
    height, width = _kernel_size(filter_size)
    if data_format not in _CONV_LAYOUTS:
        raise NotImplementedError("data_format must be 'NHWC' or 'NCHW', got {!r}".format(data_format))
    channel_axis, strides_of, broadcast_shape_of = _CONV_LAYOUTS[data_format]
    kernel_shape = [height, width, _static_dim(input_tensor, channel_axis, "conv"), n_filters]
    stored_bias_shape = [n_filters] if one_dim_bias else [1, n_filters, 1, 1]
    with tf.variable_scope(scope):
        kernel = tf.get_variable("w", kernel_shape, initializer=ortho_init(init_scale))
        offset = tf.get_variable("b", stored_bias_shape, initializer=tf.constant_initializer(0.0))
        if data_format == 'NHWC' and not one_dim_bias:
            offset = tf.reshape(offset, broadcast_shape_of(n_filters))
        feature_maps = tf.nn.conv2d(input_tensor, kernel, strides=strides_of(stride), padding=pad,
                                    data_format=data_format)
        return offset + feature_maps


def linear(input_tensor: tf.Tensor, scope: str, n_hidden: int, *, init_scale: float = 1.0,
           init_bias: float = 0.0) -> tf.Tensor:
    """
    Affine layer ``x @ w + b`` with orthogonal ``<scope>/w`` and constant ``<scope>/b``.

    :param input_tensor: (TensorFlow Tensor) shape (batch, n_input)
    :param scope: (str) the variable scope of the layer
    :param n_hidden: (int) output units
    :param init_scale: (int) gain of the orthogonal initializer
    :param init_bias: (int) initial value of every bias
    :return: (TensorFlow Tensor) shape (batch, n_hidden)
    """
    with tf.variable_scope(scope):
        fan_in = _static_dim(input_tensor, 1, "linear")
        matrix = tf.get_variable("w", [fan_in, n_hidden], initializer=ortho_init(init_scale))
        offset = tf.get_variable("b", [n_hidden], initializer=tf.constant_initializer(init_bias))
        return tf.matmul(input_tensor, matrix) + offset


def conv_to_fc(input_tensor: tf.Tensor) -> tf.Tensor:
    """
    Flatten feature maps to one vector per sample, for the dense layers that follow.

    :param input_tensor: (TensorFlow Tensor) shape (batch, ...) with known non-batch sizes
    :return: (TensorFlow Tensor) shape (batch, prod(...))
    """
    dims = [dim_value(v) for v in input_tensor.get_shape()[1:]]
    known = [dim for dim in dims if dim is not None]
    if len(known) != len(dims):
        raise ValueError("conv_to_fc needs known non-batch dimensions, got shape {}".format(input_tensor.get_shape()))
    return tf.reshape(input_tensor, [-1, int(np.prod(known))])


def batch_to_seq(tensor_batch: tf.Tensor, n_batch: int, n_steps: int, flat: bool = False) -> List[tf.Tensor]:
    """
    Cut a batch laid out env-major (``n_batch`` environments times ``n_steps`` steps) into a list of
    ``n_steps`` tensors, one per time step, as the recurrent cells consume them.

    :param tensor_batch: (TensorFlow Tensor) the batch
    :param n_batch: (int) the number of environments
    :param n_steps: (int) the number of time steps per environment
    :param flat: (bool) the batch holds one scalar per sample
    :return: ([TensorFlow Tensor]) ``n_steps`` tensors of shape (n_batch,) or (n_batch, features)
    """
    grid = [n_batch, n_steps] if flat else [n_batch, n_steps, -1]
    tensor_batch = tf.reshape(tensor_batch, grid)
    steps = tf.split(axis=1, num_or_size_splits=n_steps, value=tensor_batch)
    return [tf.squeeze(step, [1]) for step in steps]


def seq_to_batch(tensor_sequence: Sequence[tf.Tensor], flat: bool = False) -> tf.Tensor:
    """
    The inverse of :func:`batch_to_seq`: one tensor per time step back into one batch.

    :param tensor_sequence: ([TensorFlow Tensor]) the per-step tensors
    :param flat: (bool) the tensors hold one scalar per environment
    :return: (TensorFlow Tensor) the batch, shape (n_batch * n_steps,) or (n_batch * n_steps, features)
    """
    tensor_sequence = list(tensor_sequence)
    if flat:
        return tf.reshape(tf.stack(values=tensor_sequence, axis=1), [-1])
    step_shape = tensor_sequence[0].get_shape().as_list()
    if len(step_shape) <= 1:
        raise ValueError("seq_to_batch(flat=False) expects tensors of rank > 1, got shape {}".format(step_shape))
    return tf.reshape(tf.concat(axis=1, values=tensor_sequence), [-1, step_shape[-1]])


def _ln(input_tensor: tf.Tensor, gain: tf.Tensor, bias: tf.Tensor, epsilon: float = 1e-5,
        axes: Optional[List[int]] = None) -> tf.Tensor:
    """
    Normalise to zero mean and unit variance over ``axes`` (default: axis 1), then scale and shift.

    :param input_tensor: (TensorFlow Tensor) the input
    :param gain: (TensorFlow Tensor) the scale
    :param bias: (TensorFlow Tensor) the shift
    :param epsilon: (float) added to the variance before the square root
    :param axes: (tuple, list or int) the axes of the statistics
    :return: (TensorFlow Tensor) the normalised input
    """
    mean, variance = tf.nn.moments(input_tensor, axes=[1] if axes is None else axes, keepdims=True)
    standardized = (input_tensor - mean) / tf.sqrt(variance + epsilon)
    return standardized * gain + bias


def _lstm_norm_params(n_hidden: int) -> dict:
    """The gains (initial 1) and shifts (initial 0) of the three layer normalisations of an LSTM."""
    params = {}
    for suffix, size in (("x", n_hidden * 4), ("h", n_hidden * 4), ("c", n_hidden)):
        for prefix, start in (("g", 1.0), ("b", 0.0)):
            params[prefix + suffix] = tf.get_variable(prefix + suffix, [size],
                                                      initializer=tf.constant_initializer(start))
    return params


def lstm(input_tensor: Sequence[tf.Tensor], mask_tensor: Sequence[tf.Tensor], cell_state_hidden: tf.Tensor,
         scope: str, n_hidden: int, init_scale: float = 1.0,
         layer_norm: bool = False) -> Tuple[List[tf.Tensor], tf.Tensor]:
    """
    Unroll an LSTM over a sequence, resetting the state where a mask is 1 (an episode starts).

    Variables (in creation order): ``wx``, ``wh``, ``b`` and, with ``layer_norm``,
    ``gx``, ``bx``, ``gh``, ``bh``, ``gc``, ``bc``.

    :param input_tensor: ([TensorFlow Tensor]) one input of shape (n_env, n_input) per step (:func:`batch_to_seq`)
    :param mask_tensor: ([TensorFlow Tensor]) one mask of shape (n_env,) or (n_env, 1) per step
    :param cell_state_hidden: (TensorFlow Tensor) cell state and hidden state side by side, (n_env, 2 * n_hidden)
    :param scope: (str) the variable scope of the cell
    :param n_hidden: (int) units of the cell
    :param init_scale: (int) gain of the orthogonal initializer
    :param layer_norm: (bool) normalise the input and hidden projections and the cell state
    :return: ([TensorFlow Tensor], TensorFlow Tensor) the hidden state of each step and the final packed state
    """
    input_tensor = list(input_tensor)
    n_input = _static_dim(input_tensor[0], 1, "lstm")
    with tf.variable_scope(scope):
        weight_x = tf.get_variable("wx", [n_input, n_hidden * 4], initializer=ortho_init(init_scale))
        weight_h = tf.get_variable("wh", [n_hidden, n_hidden * 4], initializer=ortho_init(init_scale))
        bias = tf.get_variable("b", [n_hidden * 4], initializer=tf.constant_initializer(0.0))
        norm = _lstm_norm_params(n_hidden) if layer_norm else None

    cell_state, hidden = tf.split(axis=1, num_or_size_splits=2, value=cell_state_hidden)
    # the input projection does not depend on the recurrence: one matmul covers every step
    projected = tf.matmul(tf.concat(input_tensor, axis=0), weight_x)
    if norm is not None:
        projected = _ln(projected, norm["gx"], norm["bx"])
    outputs = []
    for step_input, mask in zip(tf.split(projected, len(input_tensor), axis=0), mask_tensor):
        cell_state = cell_state * (1 - mask)
        hidden = hidden * (1 - mask)
        recurrent = tf.matmul(hidden, weight_h)
        if norm is not None:
            recurrent = _ln(recurrent, norm["gh"], norm["bh"])
        gate_inputs = step_input + recurrent + bias
        in_gate, forget_gate, out_gate, candidate = tf.split(axis=1, num_or_size_splits=4, value=gate_inputs)
        in_gate, forget_gate, out_gate = tf.nn.sigmoid(in_gate), tf.nn.sigmoid(forget_gate), tf.nn.sigmoid(out_gate)
        candidate = tf.tanh(candidate)
        cell_state = forget_gate * cell_state + in_gate * candidate
        shown_cell = cell_state if norm is None else _ln(cell_state, norm["gc"], norm["bc"])
        hidden = out_gate * tf.tanh(shown_cell)
        outputs.append(hidden)
    return outputs, tf.concat(axis=1, values=[cell_state, hidden])


def ln_lstm(input_tensor: Sequence[tf.Tensor], mask_tensor: Sequence[tf.Tensor], cell_state_hidden: tf.Tensor,
            scope: str, n_hidden: int, init_scale: float = 1.0) -> Tuple[List[tf.Tensor], tf.Tensor]:
    """
    :func:`lstm` with layer normalisation.

    :param input_tensor: ([TensorFlow Tensor]) one input per step
    :param mask_tensor: ([TensorFlow Tensor]) one episode-start mask per step
    :param cell_state_hidden: (TensorFlow Tensor) the packed initial state
    :param scope: (str) the variable scope of the cell
    :param n_hidden: (int) units of the cell
    :param init_scale: (int) gain of the orthogonal initializer
    :return: ([TensorFlow Tensor], TensorFlow Tensor) the hidden state of each step and the final packed state
    """
    return lstm(input_tensor, mask_tensor, cell_state_hidden, scope, n_hidden, init_scale=init_scale,
                layer_norm=True)


# ------------------------------------------------------------------------------------------------
# replacements of tf.layers / TF 1.15's contrib layers with the TF 1.15 variable names
# ------------------------------------------------------------------------------------------------
def _reuse_flag(reuse: Any) -> Any:
    """TF 1.x semantics of a layer's ``reuse`` argument: False means "inherit" (None)."""
    if reuse is tf.AUTO_REUSE:
        return reuse
    return True if reuse else None


def _apply_kernel(inputs: tf.Tensor, kernel: tf.Variable) -> tf.Tensor:
    rank = inputs.get_shape().ndims
    if rank is not None and rank > 2:
        outputs = tf.tensordot(inputs, kernel, [[rank - 1], [0]])
        static = inputs.get_shape().as_list()[:-1] + [kernel.get_shape().as_list()[-1]]
        outputs.set_shape(static)
        return outputs
    return tf.matmul(inputs, kernel)


def _dense_core(inputs: tf.Tensor, units: int, kernel_name: str, bias_name: str, use_bias: bool,
                kernel_initializer: Any, bias_initializer: Any, kernel_regularizer: Any, bias_regularizer: Any,
                kernel_constraint: Any, bias_constraint: Any, trainable: bool) -> tf.Tensor:
    inputs = tf.convert_to_tensor(inputs)
    if not inputs.dtype.is_floating:
        inputs = tf.cast(inputs, tf.float32)
    n_input = _static_dim(inputs, -1, "dense")
    dtype = inputs.dtype.base_dtype
    kernel = tf.get_variable(kernel_name, [n_input, units], dtype=dtype,
                             initializer=kernel_initializer if kernel_initializer is not None
                             else tf.glorot_uniform_initializer(),
                             regularizer=kernel_regularizer, constraint=kernel_constraint, trainable=trainable)
    outputs = _apply_kernel(inputs, kernel)
    if use_bias:
        bias = tf.get_variable(bias_name, [units], dtype=dtype,
                               initializer=bias_initializer if bias_initializer is not None
                               else tf.zeros_initializer(),
                               regularizer=bias_regularizer, constraint=bias_constraint, trainable=trainable)
        outputs = tf.nn.bias_add(outputs, bias)
    return outputs


def dense(inputs: tf.Tensor, units: int, activation: Optional[Callable] = None, use_bias: bool = True,
          kernel_initializer: Any = None, bias_initializer: Any = None, kernel_regularizer: Any = None,
          bias_regularizer: Any = None, activity_regularizer: Any = None, kernel_constraint: Any = None,
          bias_constraint: Any = None, trainable: bool = True, name: Optional[str] = None,
          reuse: Optional[bool] = None) -> tf.Tensor:
    """
    Densely-connected layer, a replacement of TF 1.15's ``tf.layers.dense`` that creates the same
    variables: ``<name>/kernel`` then ``<name>/bias``. Without a name, the scope is ``dense``,
    ``dense_1``, ... (unique in the enclosing variable scope, as TF 1.15 did).

    :param inputs: (TensorFlow Tensor) the input, shape (..., n_input)
    :param units: (int) the number of output units
    :param activation: (function) activation applied to the output (None: linear)
    :param use_bias: (bool) whether to add a bias
    :param kernel_initializer: (Initializer) default: Glorot uniform
    :param bias_initializer: (Initializer) default: zeros
    :param kernel_regularizer: (function) optional regularizer of the kernel
    :param bias_regularizer: (function) optional regularizer of the bias
    :param activity_regularizer: (function) optional regularizer of the output (added to the
        REGULARIZATION_LOSSES collection)
    :param kernel_constraint: (function) optional projection of the kernel
    :param bias_constraint: (function) optional projection of the bias
    :param trainable: (bool) whether the variables are trainable
    :param name: (str) the name (variable scope) of the layer
    :param reuse: (bool) whether to reuse the variables of a previous layer of the same name
    :return: (TensorFlow Tensor) the output
    """
    if name:
        scope_ctx = tf.variable_scope(name, reuse=_reuse_flag(reuse))
    elif reuse:
        # TF 1.15: a reusing unnamed layer re-enters the bare default scope
        scope_ctx = tf.variable_scope("dense", reuse=True)
    else:
        scope_ctx = tf.variable_scope(None, default_name="dense")
    with scope_ctx:
        outputs = _dense_core(inputs, units, "kernel", "bias", use_bias, kernel_initializer, bias_initializer,
                              kernel_regularizer, bias_regularizer, kernel_constraint, bias_constraint, trainable)
        if activation is not None:
            outputs = activation(outputs)
        if activity_regularizer is not None:
            tf.add_to_collection(tf.GraphKeys.REGULARIZATION_LOSSES, activity_regularizer(outputs))
    return outputs


def flatten(inputs: tf.Tensor, name: Optional[str] = None) -> tf.Tensor:
    """
    Flattens an input tensor while preserving the batch axis (axis 0), like ``tf.layers.flatten``.

    :param inputs: (TensorFlow Tensor) the input, shape (batch, ...)
    :param name: (str) optional name of the operation
    :return: (TensorFlow Tensor) shape (batch, prod(...))
    """
    inputs = tf.convert_to_tensor(inputs)
    shape = inputs.get_shape().as_list()
    if len(shape) == 0:
        raise ValueError("flatten needs a tensor with a batch axis, got a scalar {}".format(inputs.name))
    if len(shape) == 1:
        return tf.expand_dims(inputs, 1, name=name)
    rest = shape[1:]
    if all(dim is not None for dim in rest):
        return tf.reshape(inputs, [-1, int(np.prod(rest))], name=name)
    return tf.reshape(inputs, tf.stack([tf.shape(inputs)[0], -1]), name=name)


def fully_connected(inputs: tf.Tensor, num_outputs: int, activation_fn: Optional[Callable] = tf.nn.relu,
                    normalizer_fn: Optional[Callable] = None, normalizer_params: Optional[dict] = None,
                    weights_initializer: Any = None, weights_regularizer: Any = None,
                    biases_initializer: Any = "zeros", biases_regularizer: Any = None,
                    reuse: Optional[bool] = None, variables_collections: Any = None,
                    outputs_collections: Any = None, trainable: bool = True,
                    scope: Optional[str] = None) -> tf.Tensor:
    """
    Fully connected layer, a replacement of the TF 1.15 contrib ``layers.fully_connected`` that
    creates the same variables: ``<scope>/weights`` then ``<scope>/biases``; without a scope, the
    scope is ``fully_connected``, ``fully_connected_1``, ... (unique in the enclosing variable scope).

    :param inputs: (TensorFlow Tensor) the input, shape (..., n_input)
    :param num_outputs: (int) the number of output units
    :param activation_fn: (function) activation (default relu; None: linear)
    :param normalizer_fn: (function) normalization applied before the activation (then no biases)
    :param normalizer_params: (dict) keyword arguments of ``normalizer_fn``
    :param weights_initializer: (Initializer) default: Glorot (Xavier) uniform
    :param weights_regularizer: (function) optional regularizer of the weights
    :param biases_initializer: (Initializer) default: zeros; None: no biases
    :param biases_regularizer: (function) optional regularizer of the biases
    :param reuse: (bool) whether to reuse the variables (needs ``scope``)
    :param variables_collections: (list) extra collections the variables are added to
    :param outputs_collections: (list) collections the output is added to
    :param trainable: (bool) whether the variables are trainable
    :param scope: (str) the variable scope of the layer
    :return: (TensorFlow Tensor) the output
    """
    if reuse and scope is None:
        raise ValueError("fully_connected: reuse=True cannot be used without a scope (got scope=None)")
    if isinstance(biases_initializer, str) and biases_initializer == "zeros":
        biases_initializer = tf.zeros_initializer()
    use_bias = normalizer_fn is None and biases_initializer is not None
    with tf.variable_scope(scope, default_name="fully_connected", reuse=_reuse_flag(reuse)):
        outputs = _dense_core(inputs, num_outputs, "weights", "biases", use_bias, weights_initializer,
                              biases_initializer, weights_regularizer, biases_regularizer, None, None, trainable)
        if variables_collections:
            for var in tf.get_collection(tf.GraphKeys.GLOBAL_VARIABLES, scope=tf.get_variable_scope().name + "/"):
                for collection in _names(variables_collections):
                    if var not in tf.get_collection(collection):
                        tf.add_to_collection(collection, var)
        if normalizer_fn is not None:
            outputs = normalizer_fn(outputs, **(normalizer_params or {}))
        if activation_fn is not None:
            outputs = activation_fn(outputs)
    for collection in _names(outputs_collections) if outputs_collections else []:
        tf.add_to_collection(collection, outputs)
    return outputs


def _names(collections: Any) -> list:
    """:return: ([str]) the collection names given as one name or a list of them"""
    return list(collections) if isinstance(collections, (list, tuple)) else [collections]


def layer_norm(inputs: tf.Tensor, center: bool = True, scale: bool = True, activation_fn: Optional[Callable] = None,
               reuse: Optional[bool] = None, variables_collections: Any = None, outputs_collections: Any = None,
               trainable: bool = True, begin_norm_axis: int = 1, begin_params_axis: int = -1,
               scope: Optional[str] = None) -> tf.Tensor:
    """
    Layer normalization, a replacement of the TF 1.15 contrib ``layers.layer_norm`` with the same
    variables (``<scope>/beta`` then ``<scope>/gamma``; default scope ``LayerNorm``, ``LayerNorm_1``, ...)
    and the same numerics (variance epsilon 1e-12).

    :param inputs: (TensorFlow Tensor) the input, of known rank
    :param center: (bool) add an offset ``beta``
    :param scale: (bool) multiply by a scale ``gamma``
    :param activation_fn: (function) optional activation of the output
    :param reuse: (bool) whether to reuse the variables (needs ``scope``)
    :param variables_collections: (list) extra collections the variables are added to
    :param outputs_collections: (list) collections the output is added to
    :param trainable: (bool) whether the variables are trainable
    :param begin_norm_axis: (int) first axis of the normalization (moments over [begin_norm_axis, rank))
    :param begin_params_axis: (int) first axis of the parameter shape (beta, gamma: shape[begin_params_axis:])
    :param scope: (str) the variable scope
    :return: (TensorFlow Tensor) the normalized output
    """
    if reuse and scope is None:
        raise ValueError("layer_norm: reuse=True cannot be used without a scope (got scope=None)")
    with tf.variable_scope(scope, default_name="LayerNorm", reuse=_reuse_flag(reuse)):
        inputs = tf.convert_to_tensor(inputs)
        inputs_shape = inputs.get_shape()
        inputs_rank = inputs_shape.ndims
        if inputs_rank is None:
            raise ValueError("layer_norm needs inputs of known rank, got {}".format(inputs.name))
        dtype = inputs.dtype.base_dtype
        if begin_norm_axis < 0:
            begin_norm_axis = inputs_rank + begin_norm_axis
        if begin_params_axis >= inputs_rank or begin_norm_axis >= inputs_rank:
            raise ValueError("begin_params_axis ({}) and begin_norm_axis ({}) must be < rank(inputs) ({})".format(
                begin_params_axis, begin_norm_axis, inputs_rank))
        params_shape = inputs_shape[begin_params_axis:].as_list()
        if any(dim is None for dim in params_shape):
            raise ValueError("layer_norm: inputs {} has undefined dimensions {}".format(inputs.name, params_shape))
        beta, gamma = None, None
        collections = None
        if variables_collections:
            collections = [tf.GraphKeys.GLOBAL_VARIABLES] + _names(variables_collections)
        if center:
            beta = tf.get_variable('beta', shape=params_shape, dtype=dtype, initializer=tf.zeros_initializer(),
                                   collections=collections, trainable=trainable)
        if scale:
            gamma = tf.get_variable('gamma', shape=params_shape, dtype=dtype, initializer=tf.ones_initializer(),
                                    collections=collections, trainable=trainable)
        norm_axes = list(range(begin_norm_axis, inputs_rank))
        mean, variance = tf.nn.moments(inputs, norm_axes, keepdims=True)
        outputs = tf.nn.batch_normalization(inputs, mean, variance, offset=beta, scale=gamma,
                                            variance_epsilon=1e-12)
        outputs.set_shape(inputs_shape)
        if activation_fn is not None:
            outputs = activation_fn(outputs)
    for collection in _names(outputs_collections) if outputs_collections else []:
        tf.add_to_collection(collection, outputs)
    return outputs


def mlp(input_tensor: tf.Tensor, layers: Sequence[int], activ_fn: Callable = tf.nn.relu,
        layer_norm: bool = False) -> tf.Tensor:  # pylint: disable=redefined-outer-name
    """
    A stack of :func:`dense` layers named ``fc0``, ``fc1``, ..., each followed by the activation
    (and, with ``layer_norm``, by a :func:`layer_norm` before it).

    :param input_tensor: (tf.placeholder) the input, shape (batch, n_input)
    :param layers: ([int]) units of each layer
    :param activ_fn: (tf.function) the activation after each layer
    :param layer_norm: (bool) normalise each layer's output before the activation
    :return: (tf.Tensor) the output of the last layer
    """
    hidden = input_tensor
    for index, units in enumerate(layers):
        hidden = dense(hidden, units, name='fc{}'.format(index))
        if layer_norm:
            hidden = _layer_norm_fn(hidden, center=True, scale=True)
        hidden = activ_fn(hidden)
    return hidden


_layer_norm_fn = layer_norm
