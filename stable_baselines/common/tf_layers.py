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
from typing import Any, Callable, List, Optional, Sequence, Tuple

import numpy as np

from stable_baselines.common.tf_compat import dim_value, tf


# ------------------------------------------------------------------------------------------------
# the original library's layers
# ------------------------------------------------------------------------------------------------
def ortho_init(scale: float = 1.0) -> Callable:
    """
    Orthogonal initialization for the policy weights

    :param scale: (float) Scaling factor for the weights.
    :return: (function) an initialization function for the weights
    """

    def _ortho_init(shape, *_, **_kwargs):
        """Intialize weights as Orthogonal matrix.

        Orthogonal matrix initialization [1]_. For n-dimensional shapes where
        n > 2, the n-1 trailing axes are flattened. For convolutional layers, this
        corresponds to the fan-in, so this makes the initialization usable for
        both dense and convolutional layers.

        References
        ----------
        .. [1] Saxe, Andrew M., James L. McClelland, and Surya Ganguli.
               "Exact solutions to the nonlinear"
        """
        # lasagne ortho init for tf
        shape = tuple(int(dim_value(dim)) for dim in shape)
        if len(shape) == 2:
            flat_shape = shape
        elif len(shape) == 4:  # assumes NHWC
            flat_shape = (int(np.prod(shape[:-1])), shape[-1])
        else:
            raise NotImplementedError("ortho_init supports 2-D and 4-D shapes only, got {}".format(shape))
        gaussian_noise = np.random.normal(0.0, 1.0, flat_shape)
        u, _, v = np.linalg.svd(gaussian_noise, full_matrices=False)
        weights = u if u.shape == flat_shape else v  # pick the one with the correct shape
        weights = weights.reshape(shape)
        return (scale * weights[:shape[0], :shape[1]]).astype(np.float32)

    return _ortho_init


def _static_dim(tensor: Any, axis: int, what: str) -> int:
    value = dim_value(tensor.get_shape()[axis])
    if value is None:
        raise ValueError("{} needs a known size on axis {} of its input, got shape {} for {}".format(
            what, axis, tensor.get_shape(), getattr(tensor, "name", tensor)))
    return int(value)


def conv(input_tensor: tf.Tensor, scope: str, *, n_filters: int, filter_size: Any, stride: int,
         pad: str = 'VALID', init_scale: float = 1.0, data_format: str = 'NHWC',
         one_dim_bias: bool = False) -> tf.Tensor:
    """
    Creates a 2d convolutional layer for TensorFlow

    :param input_tensor: (TensorFlow Tensor) The input tensor for the convolution
    :param scope: (str) The TensorFlow variable scope
    :param n_filters: (int) The number of filters
    :param filter_size:  (Union[int, [int], tuple<int, int>]) The filter size for the squared kernel matrix,
        or the height and width of kernel filter if the input is a list or tuple
    :param stride: (int) The stride of the convolution
    :param pad: (str) The padding type ('VALID' or 'SAME')
    :param init_scale: (int) The initialization scale
    :param data_format: (str) The data format for the convolution weights
    :param one_dim_bias: (bool) If the bias should be one dimentional or not
    :return: (TensorFlow Tensor) 2d convolutional layer
    """
    if isinstance(filter_size, (list, tuple)):
        if len(filter_size) != 2:
            raise ValueError("filter_size must be an int or a (height, width) pair, got {}".format(filter_size))
        filter_height, filter_width = filter_size
    else:
        filter_height = filter_width = filter_size
    if data_format == 'NHWC':
        channel_ax = 3
        strides = [1, stride, stride, 1]
        bshape = [1, 1, 1, n_filters]
    elif data_format == 'NCHW':
        channel_ax = 1
        strides = [1, 1, stride, stride]
        bshape = [1, n_filters, 1, 1]
    else:
        raise NotImplementedError("data_format must be 'NHWC' or 'NCHW', got {!r}".format(data_format))
    bias_var_shape = [n_filters] if one_dim_bias else [1, n_filters, 1, 1]
    n_input = _static_dim(input_tensor, channel_ax, "conv")
    wshape = [filter_height, filter_width, n_input, n_filters]
    with tf.variable_scope(scope):
        weight = tf.get_variable("w", wshape, initializer=ortho_init(init_scale))
        bias = tf.get_variable("b", bias_var_shape, initializer=tf.constant_initializer(0.0))
        if not one_dim_bias and data_format == 'NHWC':
            bias = tf.reshape(bias, bshape)
        return bias + tf.nn.conv2d(input_tensor, weight, strides=strides, padding=pad, data_format=data_format)


def linear(input_tensor: tf.Tensor, scope: str, n_hidden: int, *, init_scale: float = 1.0,
           init_bias: float = 0.0) -> tf.Tensor:
    """
    Creates a fully connected layer for TensorFlow (variables ``<scope>/w`` and ``<scope>/b``)

    :param input_tensor: (TensorFlow Tensor) The input tensor for the fully connected layer
    :param scope: (str) The TensorFlow variable scope
    :param n_hidden: (int) The number of hidden neurons
    :param init_scale: (int) The initialization scale
    :param init_bias: (int) The initialization offset bias
    :return: (TensorFlow Tensor) fully connected layer
    """
    with tf.variable_scope(scope):
        n_input = _static_dim(input_tensor, 1, "linear")
        weight = tf.get_variable("w", [n_input, n_hidden], initializer=ortho_init(init_scale))
        bias = tf.get_variable("b", [n_hidden], initializer=tf.constant_initializer(init_bias))
        return tf.matmul(input_tensor, weight) + bias


def conv_to_fc(input_tensor: tf.Tensor) -> tf.Tensor:
    """
    Reshapes a Tensor from a convolutional network to a Tensor for a fully connected network

    :param input_tensor: (TensorFlow Tensor) The convolutional input tensor
    :return: (TensorFlow Tensor) The fully connected output tensor
    """
    dims = [dim_value(v) for v in input_tensor.get_shape()[1:]]
    if any(dim is None for dim in dims):
        raise ValueError("conv_to_fc needs known non-batch dimensions, got shape {}".format(input_tensor.get_shape()))
    n_hidden = int(np.prod(dims))
    return tf.reshape(input_tensor, [-1, n_hidden])


def batch_to_seq(tensor_batch: tf.Tensor, n_batch: int, n_steps: int, flat: bool = False) -> List[tf.Tensor]:
    """
    Transform a batch of Tensors, into a sequence of Tensors for recurrent policies

    :param tensor_batch: (TensorFlow Tensor) The input tensor to unroll
    :param n_batch: (int) The number of batch to run (n_envs * n_steps)
    :param n_steps: (int) The number of steps to run for each environment
    :param flat: (bool) If the input Tensor is flat
    :return: (TensorFlow Tensor) sequence of Tensors for recurrent policies
    """
    if flat:
        tensor_batch = tf.reshape(tensor_batch, [n_batch, n_steps])
    else:
        tensor_batch = tf.reshape(tensor_batch, [n_batch, n_steps, -1])
    return [tf.squeeze(v, [1]) for v in tf.split(axis=1, num_or_size_splits=n_steps, value=tensor_batch)]


def seq_to_batch(tensor_sequence: Sequence[tf.Tensor], flat: bool = False) -> tf.Tensor:
    """
    Transform a sequence of Tensors, into a batch of Tensors for recurrent policies

    :param tensor_sequence: (TensorFlow Tensor) The input tensor to batch
    :param flat: (bool) If the input Tensor is flat
    :return: (TensorFlow Tensor) batch of Tensors for recurrent policies
    """
    shape = tensor_sequence[0].get_shape().as_list()
    if not flat:
        if len(shape) <= 1:
            raise ValueError("seq_to_batch(flat=False) expects tensors of rank > 1, got shape {}".format(shape))
        n_hidden = shape[-1]
        return tf.reshape(tf.concat(axis=1, values=list(tensor_sequence)), [-1, n_hidden])
    return tf.reshape(tf.stack(values=list(tensor_sequence), axis=1), [-1])


def _ln(input_tensor: tf.Tensor, gain: tf.Tensor, bias: tf.Tensor, epsilon: float = 1e-5,
        axes: Optional[List[int]] = None) -> tf.Tensor:
    """
    Apply layer normalisation.

    :param input_tensor: (TensorFlow Tensor) The input tensor for the Layer normalization
    :param gain: (TensorFlow Tensor) The scale tensor for the Layer normalization
    :param bias: (TensorFlow Tensor) The bias tensor for the Layer normalization
    :param epsilon: (float) The epsilon value for floating point calculations
    :param axes: (tuple, list or int) The axes to apply the mean and variance calculation
    :return: (TensorFlow Tensor) a normalizing layer
    """
    if axes is None:
        axes = [1]
    mean, variance = tf.nn.moments(input_tensor, axes=axes, keepdims=True)
    input_tensor = (input_tensor - mean) / tf.sqrt(variance + epsilon)
    return input_tensor * gain + bias


def lstm(input_tensor: Sequence[tf.Tensor], mask_tensor: Sequence[tf.Tensor], cell_state_hidden: tf.Tensor,
         scope: str, n_hidden: int, init_scale: float = 1.0,
         layer_norm: bool = False) -> Tuple[List[tf.Tensor], tf.Tensor]:
    """
    Creates an Long Short Term Memory (LSTM) cell for TensorFlow

    Variables (in creation order): ``wx``, ``wh``, ``b`` and, with ``layer_norm``,
    ``gx``, ``bx``, ``gh``, ``bh``, ``gc``, ``bc``.

    :param input_tensor: ([TensorFlow Tensor]) The input tensor sequence for the LSTM cell
        (one tensor of shape (n_env, n_input) per step, see :func:`batch_to_seq`)
    :param mask_tensor: ([TensorFlow Tensor]) The mask tensor sequence for the LSTM cell (1 where an episode starts)
    :param cell_state_hidden: (TensorFlow Tensor) The state tensor for the LSTM cell, shape (n_env, 2 * n_hidden)
    :param scope: (str) The TensorFlow variable scope
    :param n_hidden: (int) The number of hidden neurons
    :param init_scale: (int) The initialization scale
    :param layer_norm: (bool) Whether to apply Layer Normalization or not
    :return: ([TensorFlow Tensor], TensorFlow Tensor) LSTM outputs (one per step) and the new cell state
    """
    input_tensor = list(input_tensor)
    n_input = _static_dim(input_tensor[0], 1, "lstm")
    with tf.variable_scope(scope):
        weight_x = tf.get_variable("wx", [n_input, n_hidden * 4], initializer=ortho_init(init_scale))
        weight_h = tf.get_variable("wh", [n_hidden, n_hidden * 4], initializer=ortho_init(init_scale))
        bias = tf.get_variable("b", [n_hidden * 4], initializer=tf.constant_initializer(0.0))

        if layer_norm:
            # Gain and bias of layer norm
            gain_x = tf.get_variable("gx", [n_hidden * 4], initializer=tf.constant_initializer(1.0))
            bias_x = tf.get_variable("bx", [n_hidden * 4], initializer=tf.constant_initializer(0.0))

            gain_h = tf.get_variable("gh", [n_hidden * 4], initializer=tf.constant_initializer(1.0))
            bias_h = tf.get_variable("bh", [n_hidden * 4], initializer=tf.constant_initializer(0.0))

            gain_c = tf.get_variable("gc", [n_hidden], initializer=tf.constant_initializer(1.0))
            bias_c = tf.get_variable("bc", [n_hidden], initializer=tf.constant_initializer(0.0))

    cell_state, hidden = tf.split(axis=1, num_or_size_splits=2, value=cell_state_hidden)
    # The input projection does not depend on the recurrence: one matmul for the whole sequence
    # (same maths as one per step, far fewer ops to run and differentiate).
    input_gates = tf.matmul(tf.concat(input_tensor, axis=0), weight_x)
    if layer_norm:
        input_gates = _ln(input_gates, gain_x, bias_x)
    input_gates = tf.split(input_gates, len(input_tensor), axis=0)
    outputs = []
    for input_gate, mask in zip(input_gates, mask_tensor):
        cell_state = cell_state * (1 - mask)
        hidden = hidden * (1 - mask)
        if layer_norm:
            gates = input_gate + _ln(tf.matmul(hidden, weight_h), gain_h, bias_h) + bias
        else:
            gates = input_gate + tf.matmul(hidden, weight_h) + bias
        in_gate, forget_gate, out_gate, cell_candidate = tf.split(axis=1, num_or_size_splits=4, value=gates)
        in_gate = tf.nn.sigmoid(in_gate)
        forget_gate = tf.nn.sigmoid(forget_gate)
        out_gate = tf.nn.sigmoid(out_gate)
        cell_candidate = tf.tanh(cell_candidate)
        cell_state = forget_gate * cell_state + in_gate * cell_candidate
        if layer_norm:
            hidden = out_gate * tf.tanh(_ln(cell_state, gain_c, bias_c))
        else:
            hidden = out_gate * tf.tanh(cell_state)
        outputs.append(hidden)
    cell_state_hidden = tf.concat(axis=1, values=[cell_state, hidden])
    return outputs, cell_state_hidden


def ln_lstm(input_tensor: Sequence[tf.Tensor], mask_tensor: Sequence[tf.Tensor], cell_state_hidden: tf.Tensor,
            scope: str, n_hidden: int, init_scale: float = 1.0) -> Tuple[List[tf.Tensor], tf.Tensor]:
    """
    Layer-normalised LSTM: :func:`lstm` with ``layer_norm=True``.

    :param input_tensor: ([TensorFlow Tensor]) The input tensor sequence for the LSTM cell
    :param mask_tensor: ([TensorFlow Tensor]) The mask tensor sequence for the LSTM cell
    :param cell_state_hidden: (TensorFlow Tensor) The state tensor for the LSTM cell
    :param scope: (str) The TensorFlow variable scope
    :param n_hidden: (int) The number of hidden neurons
    :param init_scale: (int) The initialization scale
    :return: ([TensorFlow Tensor], TensorFlow Tensor) LSTM outputs and the new cell state
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
                for collection in (variables_collections if isinstance(variables_collections, (list, tuple))
                                   else [variables_collections]):
                    if var not in tf.get_collection(collection):
                        tf.add_to_collection(collection, var)
        if normalizer_fn is not None:
            outputs = normalizer_fn(outputs, **(normalizer_params or {}))
        if activation_fn is not None:
            outputs = activation_fn(outputs)
    if outputs_collections:
        for collection in (outputs_collections if isinstance(outputs_collections, (list, tuple))
                           else [outputs_collections]):
            tf.add_to_collection(collection, outputs)
    return outputs


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
            collections = [tf.GraphKeys.GLOBAL_VARIABLES] + list(
                variables_collections if isinstance(variables_collections, (list, tuple)) else [variables_collections])
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
    if outputs_collections:
        for collection in (outputs_collections if isinstance(outputs_collections, (list, tuple))
                           else [outputs_collections]):
            tf.add_to_collection(collection, outputs)
    return outputs


def mlp(input_tensor: tf.Tensor, layers: Sequence[int], activ_fn: Callable = tf.nn.relu,
        layer_norm: bool = False) -> tf.Tensor:  # pylint: disable=redefined-outer-name
    """
    Create a multi-layer fully connected neural network (the layers are :func:`dense` named
    ``fc0``, ``fc1``, ...; with ``layer_norm``, each is followed by a :func:`layer_norm`).

    :param input_tensor: (tf.placeholder)
    :param layers: ([int]) Network architecture
    :param activ_fn: (tf.function) Activation function
    :param layer_norm: (bool) Whether to apply layer normalization or not
    :return: (tf.Tensor)
    """
    output = input_tensor
    for i, layer_size in enumerate(layers):
        output = dense(output, layer_size, name='fc' + str(i))
        if layer_norm:
            output = _layer_norm_fn(output, center=True, scale=True)
        output = activ_fn(output)
    return output


_layer_norm_fn = layer_norm
