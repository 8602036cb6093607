"""
Feature extractors of the actor-critic policies and the reading of ``net_arch``.

Scope names are the original library's (``c1``/``c2``/``c3``/``fc1`` for the Nature CNN; ``shared_fc{i}``,
``pi_fc{i}`` and ``vf_fc{i}`` for the MLP), so saved parameters find their variables.
"""
from itertools import zip_longest
from typing import TYPE_CHECKING, Any, Callable, Dict, List, Optional, Tuple, Union

import numpy as np

from stable_baselines.common.policy_parts import public
from stable_baselines.common.tf_compat import tf
from stable_baselines.common.tf_layers import conv, conv_to_fc, linear

if TYPE_CHECKING:  # typing.TypeGuard needs Python 3.10; the annotation is only read by type checkers
    from typing import TypeGuard

# hidden layers are initialised orthogonally with this gain (ReLU/tanh networks)
HIDDEN_GAIN = np.sqrt(2)
# (scope, filters, kernel size, stride) of the three convolutions of the Nature CNN
_NATURE_CONVS = (("c1", 32, 8, 4), ("c2", 64, 4, 2), ("c3", 64, 3, 1))

NetArch = List[Union[int, str, Dict[str, List[int]]]]


@public
def nature_cnn(scaled_images: tf.Tensor, **kwargs: Any) -> tf.Tensor:
    """
    The convolutional torso of the DQN Nature paper (Mnih et al. 2015): three ReLU convolutions
    (32 filters 8x8 stride 4, 64 filters 4x4 stride 2, 64 filters 3x3 stride 1), then 512 ReLU units.

    :param scaled_images: (tf.Tensor) images, already scaled to [0, 1]
    :param kwargs: (dict) passed on to every convolution (``conv``), e.g. ``pad``
    :return: (tf.Tensor) the 512 features of each image
    """
    _check_image_batch(scaled_images, valid_padding=kwargs.get("pad", "VALID") == "VALID"
                       and kwargs.get("data_format", "NHWC") == "NHWC")
    hidden = scaled_images
    for scope, n_filters, size, stride in _NATURE_CONVS:
        hidden = tf.nn.relu(conv(hidden, scope, n_filters=n_filters, filter_size=size, stride=stride,
                                 init_scale=HIDDEN_GAIN, **kwargs))
    return tf.nn.relu(linear(conv_to_fc(hidden), "fc1", n_hidden=512, init_scale=HIDDEN_GAIN))


def _smallest_nature_image() -> int:
    """:return: (int) the smallest height (and width) the three unpadded convolutions of the Nature CNN accept"""
    size = 1
    for _, _, kernel, stride in reversed(_NATURE_CONVS):
        size = (size - 1) * stride + kernel
    return size


def _check_image_batch(images: tf.Tensor, valid_padding: bool) -> None:
    """
    Refuse observations that are not images before the convolutions fail on them with a message about tensors.

    :param images: (tf.Tensor) the (processed) observations given to the CNN
    :param valid_padding: (bool) whether the convolutions use their default, unpadded layout (then the images
        must be large enough for the kernels)
    """
    shape = images.shape.as_list()
    if len(shape) != 4:
        raise ValueError("The CNN policies (nature_cnn) need image observations of shape (height, width, channels), "
                         "got observations of shape {}: use an MlpPolicy for vector observations, or give a "
                         "cnn_extractor that fits them (policy_kwargs)".format(tuple(shape[1:])))
    smallest = _smallest_nature_image()
    if valid_padding and any(side is not None and side < smallest for side in shape[1:3]):
        raise ValueError("The CNN policies (nature_cnn) need images of at least {0}x{0} pixels, got observations of "
                         "shape {1}: use an MlpPolicy, or give a cnn_extractor for small images (policy_kwargs)"
                         .format(smallest, tuple(shape[1:])))


def dense_layer(inputs: tf.Tensor, scope: str, n_units: int, act_fun: Callable) -> tf.Tensor:
    """
    :param inputs: (tf.Tensor) a batch of flat features
    :param scope: (str) variable scope of the layer (``w`` and ``b`` inside)
    :param n_units: (int) width of the layer
    :param act_fun: (callable) activation
    :return: (tf.Tensor) ``act_fun(inputs @ w + b)``
    """
    return act_fun(linear(inputs, scope, n_units, init_scale=HIDDEN_GAIN))


def is_layer_size(entry: Any) -> "TypeGuard[int]":
    """
    :param entry: an entry of ``net_arch``
    :return: (bool) whether it is a shared layer's width (an integer, not a bool)
    """
    return isinstance(entry, (int, np.integer)) and not isinstance(entry, bool)


def branch_sizes(head: Dict[str, Any]) -> Tuple[list, list]:
    """
    The two branches of the dictionary that ends the shared part of ``net_arch``.

    :param head: (dict) ``dict(pi=[...], vf=[...])``, a missing key meaning no layer
    :return: (list, list) layer widths of the policy branch and of the value branch
    """
    branches = []
    for key in ("pi", "vf"):
        widths = head.get(key, [])
        if not isinstance(widths, list):
            raise ValueError("Error: net_arch[-1]['{}'] must contain a list of integers, got {!r}".format(key, widths))
        branches.append(widths)
    return branches[0], branches[1]


def branch_width(entry: Any, key: str) -> int:
    """
    :param entry: an entry of the ``pi`` or ``vf`` list of ``net_arch``
    :param key: (str) 'pi' or 'vf', for the message
    :return: (int) the layer width
    """
    if not isinstance(entry, (int, np.integer)):
        raise ValueError("Error: net_arch[-1]['{}'] must only contain integers, got {!r}".format(key, entry))
    return int(entry)


@public
def mlp_extractor(flat_observations: tf.Tensor, net_arch: NetArch, act_fun: Callable) -> Tuple[tf.Tensor, tf.Tensor]:
    """
    The fully-connected torso of an actor-critic policy. ``net_arch`` lists the widths of the layers
    both heads share, optionally followed by one dict giving the layers of each head alone:
    ``[128, dict(pi=[64], vf=[64, 32])]`` is one shared layer of 128, then 64 for the policy and
    64, 32 for the value function; ``[64, 64]`` shares everything.

    Shared layers are ``shared_fc{i}`` (``i`` their position in ``net_arch``); the heads' layers
    ``pi_fc{i}`` and ``vf_fc{i}`` are created depth by depth, policy first.

    :param flat_observations: (tf.Tensor) flattened observations
    :param net_arch: ([int or dict]) the architecture, as above
    :param act_fun: (callable) activation of every layer
    :return: (tf.Tensor, tf.Tensor) the policy's and the value function's latent features (one tensor
        twice when everything is shared)
    """
    latent = flat_observations
    pi_widths: List[int] = []
    vf_widths: List[int] = []
    for idx, entry in enumerate(net_arch):
        if is_layer_size(entry):
            latent = dense_layer(latent, "shared_fc{}".format(idx), int(entry), act_fun)
            continue
        if not isinstance(entry, dict):
            raise ValueError("Error: the net_arch list can only contain ints and dicts, got {!r} in {!r}".format(
                entry, net_arch))
        pi_widths, vf_widths = branch_sizes(entry)
        break
    pi_latent = vf_latent = latent
    for depth, (pi_width, vf_width) in enumerate(zip_longest(pi_widths, vf_widths)):
        if pi_width is not None:
            pi_latent = dense_layer(pi_latent, "pi_fc{}".format(depth), branch_width(pi_width, "pi"), act_fun)
        if vf_width is not None:
            vf_latent = dense_layer(vf_latent, "vf_fc{}".format(depth), branch_width(vf_width, "vf"), act_fun)
    return pi_latent, vf_latent


def mlp_layer_scopes(net_arch: NetArch) -> Optional[Tuple[List[str], List[str], List[str]]]:
    """
    The layer scopes :func:`mlp_extractor` creates for ``net_arch``, without building anything.

    :param net_arch: ([int or dict]) the architecture
    :return: (([str], [str], [str]) or None) shared, policy-only and value-only scopes; None if
        ``net_arch`` is not understood
    """
    shared = []
    for idx, entry in enumerate(net_arch):
        if is_layer_size(entry):
            shared.append("shared_fc{}".format(idx))
        elif isinstance(entry, dict):
            return (shared, ["pi_fc{}".format(i) for i in range(len(entry.get("pi", [])))],
                    ["vf_fc{}".format(i) for i in range(len(entry.get("vf", [])))])
        else:
            return None
    return shared, [], []
