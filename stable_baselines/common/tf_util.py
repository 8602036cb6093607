"""
TensorFlow helpers every algorithm uses: small tensor expressions (losses, entropy, sampling),
variable lookup by scope, and the tensorboard episode-reward logger.

Running graphs (sessions, :func:`function`, :class:`FeedCallable`) lives in
:mod:`stable_baselines.common.engine.tf_run`, flat parameter vectors in :mod:`stable_baselines.common.engine.tf_flat`,
the recurrent batch/sequence reshaping in :mod:`stable_baselines.common.tf_layers`; all are
importable from here too, where the manual documents them.
"""
import copy
from typing import Any, Callable, List, Optional, Sequence

import numpy as np

from stable_baselines.common.tf_compat import dim_value, tf
from stable_baselines.common.engine.tf_flat import (  # noqa: F401
    GetFlat, SetFromFlat, flatgrad, intprod, numel, var_shape)
from stable_baselines.common.tf_layers import batch_to_seq, seq_to_batch  # noqa: F401
from stable_baselines.common.engine.tf_run import (  # noqa: F401
    FeedCallable, feed_callable, function, in_session, initialize, make_session, session_run,
    single_threaded_session, variables_written)


# ------------------------------------------------------------------------------------------------
# tensor expressions
# ------------------------------------------------------------------------------------------------
def is_image(tensor: Any) -> bool:
    """
    Whether an array or tensor could be shown as a tensorboard image: rank 3 with 1, 3 or 4 channels last.

    :param tensor: (np.ndarray or tf.placeholder) the value (anything with a ``shape``)
    :return: (bool)
    """
    shape = tensor.shape
    return len(shape) == 3 and dim_value(shape[-1]) in (1, 3, 4)


def float_input(name: str, batched: bool = True) -> tf.Tensor:
    """
    A float32 placeholder: one value per sample when ``batched``, a scalar otherwise.

    :param name: (str) name of the placeholder in the graph
    :param batched: (bool) shape ``[None]`` if True, ``[]`` if False
    :return: (TensorFlow Tensor) the placeholder
    """
    return tf.placeholder(tf.float32, [None] if batched else [], name=name)


def switch(condition: Any, then_expression: tf.Tensor, else_expression: tf.Tensor) -> tf.Tensor:
    """
    Pick one of two tensors of the same shape by a scalar condition evaluated in the graph.

    :param condition: (TensorFlow Tensor) scalar (bool or int) deciding
    :param then_expression: (TensorFlow Tensor) the result when the condition holds
    :param else_expression: (TensorFlow Tensor) the result otherwise
    :return: (TensorFlow Tensor) the chosen value, with the static shape of ``then_expression``
    """
    static_shape = copy.copy(then_expression.get_shape())
    chosen = tf.cond(tf.cast(condition, 'bool'), lambda: then_expression, lambda: else_expression)
    chosen.set_shape(static_shape)
    return chosen


def leaky_relu(tensor: tf.Tensor, leak: float = 0.2) -> tf.Tensor:
    """
    Leaky rectifier ``max(x, leak * x)``, written as ``a * x + b * |x|``.

    :param tensor: (TensorFlow Tensor) the input
    :param leak: (float) slope for negative inputs
    :return: (TensorFlow Tensor) the activation
    """
    positive_slope, absolute_slope = 0.5 * (1 + leak), 0.5 * (1 - leak)
    return positive_slope * tensor + absolute_slope * abs(tensor)


def huber_loss(tensor: tf.Tensor, delta: float = 1.0) -> tf.Tensor:
    """
    Element-wise Huber loss: quadratic for ``|x| < delta``, linear beyond.

    :param tensor: (TensorFlow Tensor) the error
    :param delta: (float) where the loss turns from quadratic to linear
    :return: (TensorFlow Tensor) the loss, same shape as the error
    """
    small = tf.abs(tensor) < delta
    quadratic = tf.square(tensor) * 0.5
    linear = delta * (tf.abs(tensor) - 0.5 * delta)
    return tf.where(small, quadratic, linear)


def sample(logits: tf.Tensor) -> tf.Tensor:
    """
    Draw one category per row of unnormalised log-probabilities (Gumbel-max trick).

    :param logits: (TensorFlow Tensor) shape (batch, n_categories)
    :return: (TensorFlow Tensor) the sampled indices, shape (batch,)
    """
    uniform = tf.random_uniform(tf.shape(logits), dtype=logits.dtype)
    minus_gumbel = tf.log(-tf.log(uniform))
    return tf.argmax(logits - minus_gumbel, 1)


def calc_entropy(logits: tf.Tensor) -> tf.Tensor:
    """
    Entropy of the categorical distributions given by rows of logits.

    :param logits: (TensorFlow Tensor) shape (batch, n_categories)
    :return: (TensorFlow Tensor) one entropy per row
    """
    shifted = logits - tf.reduce_max(logits, 1, keepdims=True)
    exp_shifted = tf.exp(shifted)
    partition = tf.reduce_sum(exp_shifted, 1, keepdims=True)
    probs = exp_shifted / partition
    return tf.reduce_sum(probs * (tf.log(partition) - shifted), 1)


def mse(pred: tf.Tensor, target: tf.Tensor) -> tf.Tensor:
    """
    Mean of the squared differences.

    :param pred: (TensorFlow Tensor) the prediction
    :param target: (TensorFlow Tensor) the target
    :return: (TensorFlow Tensor) a scalar
    """
    return tf.reduce_mean(tf.square(pred - target))


def avg_norm(tensor: tf.Tensor) -> tf.Tensor:
    """
    Mean over the batch of the L2 norm along the last axis.

    :param tensor: (TensorFlow Tensor) the batch
    :return: (TensorFlow Tensor) a scalar
    """
    return tf.reduce_mean(tf.sqrt(tf.reduce_sum(tf.square(tensor), axis=-1)))


def gradient_add(grad_1: Optional[tf.Tensor], grad_2: Optional[tf.Tensor], param: Any,
                 verbose: int = 0) -> Optional[tf.Tensor]:
    """
    Add two gradients of the same parameter, either of which may be None (no dependence).

    :param grad_1: (TensorFlow Tensor) a gradient or None
    :param grad_2: (TensorFlow Tensor) a gradient or None
    :param param: (TensorFlow Variable) the parameter (printed when ``verbose > 1``)
    :param verbose: (int) verbosity level
    :return: (TensorFlow Tensor) the sum, the one given, or None when both are None
    """
    if verbose > 1:
        print([grad_1, grad_2, getattr(param, "name", param)])
    present = [grad for grad in (grad_1, grad_2) if grad is not None]
    if len(present) == 2:
        return present[0] + present[1]
    return present[0] if present else None


def check_shape(tensors: Sequence[tf.Tensor], shapes: Sequence[list]) -> None:
    """
    Raise an AssertionError unless each tensor has the static shape given for it.

    :param tensors: ([TensorFlow Tensor]) the tensors
    :param shapes: ([list]) one expected shape per tensor
    """
    for idx, (tensor, expected) in enumerate(zip(tensors, shapes)):
        actual = tensor.get_shape().as_list()
        if actual == list(expected):
            continue
        raise AssertionError("id {}: expected shape {}, got {} for tensor {}".format(
            idx, list(expected), actual, getattr(tensor, "name", tensor)))


def q_explained_variance(q_pred: tf.Tensor, q_true: tf.Tensor) -> tf.Tensor:
    """
    ``1 - Var[q_true - q_pred] / Var[q_true]`` over both axes of a (batch, n_actions) pair.

    :param q_pred: (TensorFlow Tensor) the predicted Q values
    :param q_true: (TensorFlow Tensor) the target Q values
    :return: (TensorFlow Tensor) a scalar (1: perfect, 0: no better than a constant)
    """
    _, target_variance = tf.nn.moments(q_true, axes=[0, 1])
    _, residual_variance = tf.nn.moments(q_true - q_pred, axes=[0, 1])
    check_shape([target_variance, residual_variance], [[], []])
    return 1.0 - (residual_variance / target_variance)


# ------------------------------------------------------------------------------------------------
# variables and scopes
# ------------------------------------------------------------------------------------------------
def get_trainable_vars(name: str) -> list:
    """
    The trainable variables of the default graph whose names start with a scope, in creation order.

    :param name: (str) the scope
    :return: ([TensorFlow Variable])
    """
    return tf.get_collection(tf.GraphKeys.TRAINABLE_VARIABLES, scope=name)


def get_globals_vars(name: str) -> list:
    """
    All global variables of the default graph whose names start with a scope, in creation order.

    :param name: (str) the scope
    :return: ([TensorFlow Variable])
    """
    return tf.get_collection(tf.GraphKeys.GLOBAL_VARIABLES, scope=name)


def outer_scope_getter(scope: str, new_scope: str = "") -> Callable:
    """
    A custom getter for ``tf.variable_scope`` that drops (or renames) one scope level, so that
    variables created inside ``scope`` are looked up as if they were not.

    :param scope: (str) the scope level to drop
    :param new_scope: (str) what replaces ``scope + "/"`` (default: nothing)
    :return: (function (function, str, ``*args``, ``**kwargs``): Tensorflow Tensor)
    """

    def _getter(getter, name, *args, **kwargs):
        return getter(name.replace(scope + "/", new_scope, 1), *args, **kwargs)

    return _getter


def get_available_gpus() -> List[str]:
    """
    The GPU devices TensorFlow can place operations on, e.g. ``['/device:GPU:0']``.

    :return: ([str])
    """
    try:
        devices = tf.config.experimental.list_physical_devices('GPU')
    except Exception:  # pragma: no cover - no device API
        return []
    return [device.name.replace("/physical_device:", "/device:", 1) for device in devices]


# ------------------------------------------------------------------------------------------------
# tensorboard
# ------------------------------------------------------------------------------------------------
def _add_episode_reward(writer: Any, value: float, step: int) -> None:
    summary = tf.Summary(value=[tf.Summary.Value(tag="episode_reward", simple_value=float(value))])
    writer.add_summary(summary, int(step))


def _accumulate_env(rew_acc: np.ndarray, env_idx: int, rewards: np.ndarray, ends: np.ndarray, writer: Any,
                    steps: int) -> None:
    """Add one environment's rewards to its running return, writing each return completed on the way."""
    if ends.size == 0:
        rew_acc[env_idx] += sum(rewards)
        return
    rew_acc[env_idx] += sum(rewards[:ends[0]])
    _add_episode_reward(writer, rew_acc[env_idx], steps + ends[0])
    for start, end in zip(ends[:-1], ends[1:]):
        rew_acc[env_idx] = sum(rewards[start:end])
        _add_episode_reward(writer, rew_acc[env_idx], steps + end)
    rew_acc[env_idx] = sum(rewards[ends[-1]:])


def total_episode_reward_logger(rew_acc: np.ndarray, rewards: np.ndarray, masks: np.ndarray, writer: Any,
                                steps: int) -> np.ndarray:
    """
    Keep running episode returns across rollouts and write each finished one to tensorboard
    (tag ``episode_reward``, at the timestep where the episode ended).

    :param rew_acc: (np.array float) the running return of each environment, updated in place
    :param rewards: (np.array float) the rollout's rewards, shape (n_envs, n_steps)
    :param masks: (np.array bool) the episode ends of the rollout, shape (n_envs, n_steps)
    :param writer: (TensorFlow Session.writer) the summary writer
    :param steps: (int) the timestep of the rollout's first step
    :return: (np.array float) ``rew_acc``
    """
    rewards = np.asarray(rewards)
    masks = np.asarray(masks)
    if rewards.ndim != 2 or masks.shape != rewards.shape:
        raise ValueError("rewards and masks must both have shape (n_envs, n_steps), got {} and {}".format(
            rewards.shape, masks.shape))
    for env_idx in range(rewards.shape[0]):
        _accumulate_env(rew_acc, env_idx, rewards[env_idx], np.flatnonzero(masks[env_idx]), writer, steps)
    return rew_acc
