"""
Observation placeholders: :func:`observation_input` builds the placeholder a policy is fed with
and the processed (float32) tensor the network reads.
"""
from typing import Any, Optional, Tuple

import numpy as np
from gymnasium import spaces

from stable_baselines.common.gym_compat import convert_space
from stable_baselines.common.preprocessing import is_image_space
from stable_baselines.common.structured_obs import (entry_shape, is_structured_space, packed_width,
                                                    rebuild_from_columns, space_entries)
from stable_baselines.common.tf_compat import tf


def _discrete_input(ob_space: spaces.Discrete, batch_size: Optional[int],
                    name: str) -> Tuple[tf.Tensor, tf.Tensor]:
    """
    An int32 placeholder of indices, read as one-hot vectors.

    :param ob_space: (Discrete) the space
    :param batch_size: (int) the batch dimension (None: any)
    :param name: (str) name of the placeholder
    :return: (TensorFlow Tensor, TensorFlow Tensor) the placeholder and the one-hot float32 tensor
    """
    indices = tf.placeholder(shape=(batch_size,), dtype=tf.int32, name=name)
    first_value = int(getattr(ob_space, "start", 0) or 0)
    zero_based = indices - first_value if first_value != 0 else indices
    return indices, tf.cast(tf.one_hot(zero_based, int(ob_space.n)), tf.float32)


def _box_input(ob_space: spaces.Box, batch_size: Optional[int], name: str,
               scale: bool) -> Tuple[tf.Tensor, tf.Tensor]:
    """
    A placeholder of the space's dtype, read as float32, optionally mapped from [low, high] to [0, 1].

    :param ob_space: (Box) the space
    :param batch_size: (int) the batch dimension (None: any)
    :param name: (str) name of the placeholder
    :param scale: (bool) rescale when both bounds are finite and not all equal (images: divide by 255)
    :return: (TensorFlow Tensor, TensorFlow Tensor) the placeholder and the float32 tensor
    """
    values = tf.placeholder(shape=(batch_size,) + tuple(ob_space.shape),
                            dtype=tf.as_dtype(np.dtype(ob_space.dtype)), name=name)
    as_float = tf.cast(values, tf.float32)
    low = np.asarray(ob_space.low, dtype=np.float64)
    high = np.asarray(ob_space.high, dtype=np.float64)
    bounded = not (np.isinf(low).any() or np.isinf(high).any())
    if not (scale and bounded and (high != low).any()):
        return values, as_float
    width = high - low
    width = np.where(width == 0, 1.0, width)  # a constant dimension reads 0, not NaN
    return values, (as_float - low.astype(np.float32)) / width.astype(np.float32)


def _multi_binary_input(ob_space: spaces.MultiBinary, batch_size: Optional[int],
                        name: str) -> Tuple[tf.Tensor, tf.Tensor]:
    """
    A float32 placeholder of 0/1 values.

    :param ob_space: (MultiBinary) the space
    :param batch_size: (int) the batch dimension (None: any)
    :param name: (str) name of the placeholder
    :return: (TensorFlow Tensor, TensorFlow Tensor) the placeholder and the float32 tensor
    """
    bits = tf.placeholder(shape=(batch_size,) + tuple(ob_space.shape), dtype=tf.float32, name=name)
    return bits, tf.cast(bits, tf.float32)


def _multi_discrete_input(ob_space: spaces.MultiDiscrete, batch_size: Optional[int],
                          name: str) -> Tuple[tf.Tensor, tf.Tensor]:
    """
    An int32 placeholder with one index per dimension, read as the one-hot vectors of all the
    dimensions side by side.

    :param ob_space: (MultiDiscrete) the space (1-D)
    :param batch_size: (int) the batch dimension (None: any)
    :param name: (str) name of the placeholder
    :return: (TensorFlow Tensor, TensorFlow Tensor) the placeholder and the float32 tensor
    """
    sizes = np.asarray(ob_space.nvec)
    if sizes.ndim != 1:
        raise NotImplementedError("Error: only 1-D MultiDiscrete observation spaces are supported, got nvec of "
                                  "shape {}".format(sizes.shape))
    indices = tf.placeholder(shape=(batch_size, len(sizes)), dtype=tf.int32, name=name)
    offsets = np.asarray(getattr(ob_space, "start", np.zeros_like(sizes))).ravel()
    encoded = []
    for dim, column in enumerate(tf.unstack(indices, num=len(sizes), axis=-1)):
        offset = int(offsets[dim]) if offsets.size else 0
        if offset != 0:
            column = column - offset
        encoded.append(tf.cast(tf.one_hot(column, int(sizes[dim])), tf.float32))
    return indices, tf.concat(encoded, axis=-1)


def _unsupported(ob_space: Any) -> NotImplementedError:
    """
    The error for an observation space no policy can read.

    :param ob_space: (Any) the space
    :return: (NotImplementedError) the error to raise
    """
    return NotImplementedError("Error: the model does not support input space of type {} ({}); supported "
                               "observation spaces: Box, Discrete, MultiBinary, MultiDiscrete".format(
                                   type(ob_space).__name__, ob_space))


def observation_input(ob_space: spaces.Space, batch_size: Optional[int] = None, name: str = 'Ob',
                      scale: bool = False) -> Tuple[tf.Tensor, tf.Tensor]:
    """
    The placeholder a policy is fed observations through, and the float32 tensor its network reads.

    - Discrete: int32 placeholder (batch,), read as one-hot vectors (batch, n)
    - Box: placeholder of the space's dtype (batch,) + shape, read as float32; with ``scale`` and
      finite bounds, mapped from [low, high] to [0, 1] (images in [0, 255] are divided by 255)
    - MultiBinary: float32 placeholder (batch, n)
    - MultiDiscrete: int32 placeholder (batch, len(nvec)), read as the concatenated one-hot vectors
      (batch, sum(nvec))
    - Dict, Tuple (nested too): see :func:`structured_observation_input`

    :param ob_space: (Gym Space) the observation space
    :param batch_size: (int) the batch dimension of the placeholder (None: any batch size)
    :param name: (str) the name of the placeholder
    :param scale: (bool) rescale a bounded Box space to [0, 1]
    :return: (TensorFlow Tensor, TensorFlow Tensor) the placeholder and the processed tensor
    """
    if not isinstance(ob_space, spaces.Space):
        try:
            ob_space = convert_space(ob_space)
        except TypeError as err:
            raise NotImplementedError("Error: the model does not support input space of type {} ({!r}); "
                                      "supported: Box, Discrete, MultiBinary, MultiDiscrete".format(
                                          type(ob_space).__name__, ob_space)) from err
    if isinstance(ob_space, spaces.Discrete):
        return _discrete_input(ob_space, batch_size, name)
    if isinstance(ob_space, spaces.Box):
        return _box_input(ob_space, batch_size, name, scale)
    if isinstance(ob_space, spaces.MultiBinary):
        return _multi_binary_input(ob_space, batch_size, name)
    if isinstance(ob_space, spaces.MultiDiscrete):
        return _multi_discrete_input(ob_space, batch_size, name)
    if is_structured_space(ob_space):
        return structured_observation_input(ob_space, batch_size, name)
    raise _unsupported(ob_space)


def _decoded_entry(block: tf.Tensor, space: spaces.Space) -> tf.Tensor:
    """
    One entry of a packed observation row as the network reads it.

    :param block: (tf.Tensor) the entry's float32 columns, shape (batch, width)
    :param space: (gymnasium.spaces.Space) the entry's plain space
    :return: (tf.Tensor) float32: one-hot vectors (Discrete, MultiDiscrete), the values in the entry's shape (Box;
        images mapped from [0, 255] to [0, 1]), 0/1 values (MultiBinary)
    """
    if isinstance(space, spaces.Discrete):
        index = tf.cast(tf.round(block[:, 0]), tf.int32) - int(space.start)
        return tf.one_hot(index, int(space.n), dtype=tf.float32)
    if isinstance(space, spaces.MultiDiscrete):
        sizes = np.asarray(space.nvec).ravel()
        starts = np.asarray(space.start).ravel()
        indices = tf.cast(tf.round(block), tf.int32) - starts.astype(np.int32)
        return tf.concat([tf.one_hot(indices[:, dim], int(size), dtype=tf.float32)
                          for dim, size in enumerate(sizes)], axis=-1)
    values = tf.reshape(block, (-1,) + entry_shape(space))
    if is_image_space(space):
        return values / 255.0
    return values


def structured_observation_input(ob_space: spaces.Space, batch_size: Optional[int] = None,
                                 name: str = 'Ob') -> Tuple[tf.Tensor, Any]:
    """
    The placeholder of a Dict or Tuple observation space (nested ones too) and its entries as the network reads
    them. The placeholder takes packed rows (float32, every entry flattened and laid side by side, see
    :mod:`stable_baselines.common.structured_obs`); the processed observation has the structure of the space:
    an OrderedDict (Dict) or tuple (Tuple) whose plain entries are float32 tensors, processed as
    :func:`observation_input` does (one-hot for Discrete and MultiDiscrete).
    Image entries (see :func:`~stable_baselines.common.preprocessing.is_image_space`) are always mapped from
    [0, 255] to [0, 1] (``observation_input``'s ``scale`` does not apply); other entries are never rescaled.

    :param ob_space: (gymnasium.spaces.Dict or gymnasium.spaces.Tuple) the observation space
    :param batch_size: (int) the batch dimension of the placeholder (None: any batch size)
    :param name: (str) the name of the placeholder
    :return: (TensorFlow Tensor, OrderedDict or tuple) the placeholder and the processed entries
    """
    packed = tf.placeholder(shape=(batch_size, packed_width(ob_space)), dtype=tf.float32, name=name)
    space_entries(ob_space)  # refuses entries no policy can read, naming them
    with tf.name_scope(name + "_entries"):
        return packed, rebuild_from_columns(
            ob_space, lambda space, start, end: _decoded_entry(packed[:, start:end], space))
