"""
Tensorboard summaries that several models create the same way.
"""
from typing import Sequence, Tuple

from gymnasium import spaces

from stable_baselines.common import tf_util
from stable_baselines.common.tf_compat import tf


def input_info_summaries(inputs: Sequence[Tuple[str, tf.Tensor]], observation: tf.Tensor,
                         observation_space: spaces.Space, full_tensorboard_log: bool = False) -> None:
    """
    Create the summaries of the training inputs, in the variable scope ``input_info`` of the current graph, in the
    order the original library created them: the mean of every input (``tf.summary.scalar``), then, with
    ``full_tensorboard_log``, the histogram of every input and the observation (an image summary for image
    observations, a histogram otherwise).

    :param inputs: ([(str, TensorFlow Tensor)]) the name and the tensor of each input (e.g. the discounted
        rewards, the learning rate, the advantage)
    :param observation: (TensorFlow Tensor) the observation placeholder
    :param observation_space: (Gym Space) the observation space (decides between image and histogram)
    :param full_tensorboard_log: (bool) also create the histograms and the observation summary
    """
    with tf.variable_scope("input_info", reuse=False):
        for name, tensor in inputs:
            tf.summary.scalar(name, tf.reduce_mean(tensor))

        if full_tensorboard_log:
            for name, tensor in inputs:
                tf.summary.histogram(name, tensor)
            if tf_util.is_image(observation_space):
                tf.summary.image('observation', observation)
            else:
                tf.summary.histogram('observation', observation)
