"""
Observation placeholders: :func:`observation_input` builds the placeholder a policy is fed with
and the processed (float32) tensor the network reads.
"""
from typing import Optional, Tuple

import numpy as np
from gymnasium import spaces

from stable_baselines.common.tf_compat import tf


def observation_input(ob_space: spaces.Space, batch_size: Optional[int] = None, name: str = 'Ob',
                      scale: bool = False) -> Tuple[tf.Tensor, tf.Tensor]:
    """
    Build observation input with encoding depending on the observation space type

    When using Box ob_space, the input will be normalized between [1, 0] on the bounds ob_space.low
    and ob_space.high when ``scale`` is True and the bounds are finite (e.g. images in [0, 255]).

    - Discrete: int32 placeholder (batch,), processed: one-hot float32 (batch, n)
    - Box: placeholder of the space's dtype (batch,) + shape, processed: cast to float32 (and scaled)
    - MultiBinary: float32 placeholder (batch, n), processed: float32
    - MultiDiscrete: int32 placeholder (batch, len(nvec)), processed: concatenated one-hots (batch, sum(nvec))

    :param ob_space: (Gym Space) The observation space
    :param batch_size: (int) batch size for input
                       (default is None, so that resulting input placeholder can take tensors with any batch size)
    :param name: (str) tensorflow variable name for input placeholder
    :param scale: (bool) whether or not to scale the input
    :return: (TensorFlow Tensor, TensorFlow Tensor) input_placeholder, processed_input_tensor
    """
    if not isinstance(ob_space, spaces.Space):
        from stable_baselines.common.gym_compat import convert_space  # pylint: disable=import-outside-toplevel
        try:
            ob_space = convert_space(ob_space)
        except TypeError as err:
            raise NotImplementedError("Error: the model does not support input space of type {} ({!r}); "
                                      "supported: Box, Discrete, MultiBinary, MultiDiscrete".format(
                                          type(ob_space).__name__, ob_space)) from err

    if isinstance(ob_space, spaces.Discrete):
        observation_ph = tf.placeholder(shape=(batch_size,), dtype=tf.int32, name=name)
        index = observation_ph
        start = int(getattr(ob_space, "start", 0) or 0)
        if start != 0:
            index = observation_ph - start
        processed_observations = tf.cast(tf.one_hot(index, int(ob_space.n)), tf.float32)
        return observation_ph, processed_observations

    if isinstance(ob_space, spaces.Box):
        observation_ph = tf.placeholder(shape=(batch_size,) + tuple(ob_space.shape),
                                        dtype=tf.as_dtype(np.dtype(ob_space.dtype)), name=name)
        processed_observations = tf.cast(observation_ph, tf.float32)
        low = np.asarray(ob_space.low, dtype=np.float64)
        high = np.asarray(ob_space.high, dtype=np.float64)
        # rescale to [1, 0] if the bounds are defined
        if (scale and not np.any(np.isinf(low)) and not np.any(np.isinf(high))
                and np.any((high - low) != 0)):
            # equivalent to processed_observations / 255.0 when bounds are set to [255, 0]
            span = high - low
            span = np.where(span == 0, 1.0, span)  # constant dimensions map to 0 instead of NaN
            processed_observations = ((processed_observations - low.astype(np.float32))
                                      / span.astype(np.float32))
        return observation_ph, processed_observations

    if isinstance(ob_space, spaces.MultiBinary):
        shape = tuple(ob_space.shape)
        observation_ph = tf.placeholder(shape=(batch_size,) + shape, dtype=tf.float32, name=name)
        processed_observations = tf.cast(observation_ph, tf.float32)
        return observation_ph, processed_observations

    if isinstance(ob_space, spaces.MultiDiscrete):
        nvec = np.asarray(ob_space.nvec)
        if nvec.ndim != 1:
            raise NotImplementedError("Error: only 1-D MultiDiscrete observation spaces are supported, got nvec of "
                                      "shape {}".format(nvec.shape))
        observation_ph = tf.placeholder(shape=(batch_size, len(nvec)), dtype=tf.int32, name=name)
        starts = np.asarray(getattr(ob_space, "start", np.zeros_like(nvec)))
        one_hots = []
        for i, column in enumerate(tf.unstack(observation_ph, num=len(nvec), axis=-1)):
            if starts.size and int(starts.ravel()[i]) != 0:
                column = column - int(starts.ravel()[i])
            one_hots.append(tf.cast(tf.one_hot(column, int(nvec[i])), tf.float32))
        processed_observations = tf.concat(one_hots, axis=-1)
        return observation_ph, processed_observations

    raise NotImplementedError("Error: the model does not support input space of type {} ({}); supported "
                              "observation spaces: Box, Discrete, MultiBinary, MultiDiscrete".format(
                                  type(ob_space).__name__, ob_space))
