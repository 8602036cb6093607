"""
The network body shared by the feed-forward policies of the off-policy algorithms (SAC, TD3, DDPG).

:class:`OffPolicyFeedForward` is mixed in front of an algorithm's policy base: it turns the constructor
arguments ``layers``, ``cnn_extractor``, ``feature_extraction``, ``layer_norm`` and ``act_fun`` into the
feature extraction (:meth:`OffPolicyFeedForward._features`) and the hidden layers (:func:`hidden_stack`,
dense layers ``fc0``, ``fc1``, ... each optionally followed by a layer normalisation). The algorithm keeps
its own heads. :class:`DeterministicActor` documents the actor of DDPG and TD3; :func:`presets` makes the
ready-made classes (``MlpPolicy``, ``LnCnnPolicy``, ...) of an algorithm; :func:`numpy_actor_variables` gathers
what a NumPy copy of an MLP actor needs.
"""
from typing import TYPE_CHECKING, Any, Callable, Dict, List, Optional, Sequence, Tuple

import numpy as np
from gymnasium import spaces

from stable_baselines.common.engine import numpy_forward as nf
from stable_baselines.common.policy_parts.base import BasePolicy
from stable_baselines.common.policy_parts.extractors import nature_cnn
from stable_baselines.common.policy_parts.ready_made import BATCH, four_presets, parameters_doc
from stable_baselines.common.policy_parts.registry import register_policy
from stable_baselines.common.safe_loading.classes import declare_loadable
from stable_baselines.common.tf_compat import tf
from stable_baselines.common.tf_layers import dense, flatten, layer_norm as layer_norm_layer

# the parameters of the feed-forward networks, and the action space of the off-policy policies
NETWORK = ("layers", "cnn_extractor", "feature_extraction", "layer_norm", "act_fun", "kwargs")
BOX = "(gym.spaces.Box) action space"


def hidden_stack(inputs: tf.Tensor, sizes: Sequence[int], act_fun: Callable, layer_norm: bool,
                 first_index: int = 0) -> tf.Tensor:
    """
    Fully connected hidden layers named ``fc<first_index>``, ``fc<first_index + 1>``, ... in the current
    variable scope, each one: dense, then (optionally) a layer normalisation, then the activation.

    :param inputs: (tf.Tensor) the input of the first layer
    :param sizes: ([int]) the width of each layer
    :param act_fun: (tf.function) the activation
    :param layer_norm: (bool) normalise each layer before its activation
    :param first_index: (int) the number in the name of the first layer
    :return: (tf.Tensor) the output of the last layer (``inputs`` itself if ``sizes`` is empty)
    """
    out = inputs
    for index, size in enumerate(sizes, start=first_index):
        out = dense(out, size, name="fc{}".format(index))
        if layer_norm:
            out = layer_norm_layer(out, center=True, scale=True)
        out = act_fun(out)
    return out


if TYPE_CHECKING:
    # to the type checker the mixin is the policy base it is put in front of
    _MixinBase = BasePolicy
else:
    _MixinBase = object


class OffPolicyFeedForward(_MixinBase):
    __doc__ = """
    Mixin of the feed-forward off-policy policies; put it before the algorithm's policy base class, whose
    constructor receives ``scale=True`` for CNN features.

""" + parameters_doc(*BATCH, *NETWORK, ac_space=BOX)

    def __init__(self, sess: Optional[tf.Session], ob_space: spaces.Space, ac_space: spaces.Space, n_env: int = 1,
                 n_steps: int = 1, n_batch: Optional[int] = None, reuse: bool = False,
                 layers: Optional[List[int]] = None, cnn_extractor: Callable = nature_cnn,
                 feature_extraction: str = "cnn", layer_norm: bool = False, act_fun: Callable = tf.nn.relu,
                 **kwargs: Any) -> None:
        super().__init__(sess, ob_space, ac_space, n_env, n_steps, n_batch, reuse=reuse,
                         scale=(feature_extraction == "cnn"))
        if feature_extraction not in ("cnn", "mlp"):
            raise ValueError("Error: feature_extraction must be 'cnn' or 'mlp', got {!r}".format(feature_extraction))
        self._kwargs_check(feature_extraction, kwargs)
        sizes = [64, 64] if layers is None else [int(size) for size in layers]
        if not sizes:
            raise ValueError("Error: must have at least one hidden layer for the policy, got layers={!r}"
                             .format(layers))
        self.layers = sizes
        self.layer_norm = layer_norm
        self.feature_extraction = feature_extraction
        self.cnn_extractor = cnn_extractor
        self.cnn_kwargs = kwargs
        self.reuse = reuse
        self.activ_fn = act_fun
        self._numpy_actor_scope: Optional[str] = None

    def _features(self, obs: tf.Tensor) -> tf.Tensor:
        """
        :param obs: (tf.Tensor) processed observations
        :return: (tf.Tensor) the CNN features ('cnn') or the flattened observations ('mlp')
        """
        if self.feature_extraction == "cnn":
            return self.cnn_extractor(obs, **self.cnn_kwargs)
        return flatten(obs)

    def _hidden(self, inputs: tf.Tensor, sizes: Optional[Sequence[int]] = None, first_index: int = 0) -> tf.Tensor:
        """
        :param inputs: (tf.Tensor) the input of the hidden layers
        :param sizes: ([int]) the widths (None: all of ``layers``)
        :param first_index: (int) the number in the name of the first layer
        :return: (tf.Tensor) :func:`hidden_stack` with this policy's activation and layer normalisation
        """
        sizes = self.layers if sizes is None else sizes
        return hidden_stack(inputs, sizes, self.activ_fn, self.layer_norm, first_index)

    def _scalar_head(self, inputs: tf.Tensor, name: str, reuse: bool) -> tf.Tensor:
        """
        A scalar output in its own variable scope ``name``: the hidden layers, then a linear unit ``name``.

        :param inputs: (tf.Tensor) the input of the hidden layers
        :param name: (str) the scope and output layer name (e.g. 'qf1' gives 'qf1/fc0', ..., 'qf1/qf1')
        :param reuse: (bool) reuse the variables
        :return: (tf.Tensor) shape (batch, 1)
        """
        with tf.variable_scope(name, reuse=reuse):
            return dense(self._hidden(inputs), 1, name=name)

    def _note_actor_scope(self, obs: tf.Tensor) -> None:
        """
        Call inside the actor's variable scope: an actor on the policy's own observations may get a NumPy copy.

        :param obs: (tf.Tensor) the observations the actor is built on
        """
        self._numpy_actor_scope = tf.get_variable_scope().name if obs is self.processed_obs else None

    @property
    def numpy_actor_scope(self) -> Optional[str]:
        """(str) the variable scope of the actor when it was built on the policy's own observations (None: not)"""
        return self._numpy_actor_scope


class DeterministicActor(_MixinBase):
    """Mixin of the DDPG and TD3 policy bases: what their deterministic actor answers."""

    def make_actor(self, obs: Optional[tf.Tensor] = None, reuse: bool = False, scope: str = "pi") -> tf.Tensor:
        """
        Build the actor.

        :param obs: (tf.Tensor) observations to act on (None: the policy's processed observations)
        :param reuse: (bool) reuse the variables of the scope
        :param scope: (str) variable scope of the actor
        :return: (tf.Tensor) the actions, in [-1, 1]
        """
        raise NotImplementedError

    def step(self, obs: np.ndarray, state: Optional[np.ndarray] = None, mask: Optional[np.ndarray] = None) -> Any:
        """
        Actions for a batch of observations.

        :param obs: (np.ndarray) observations
        :param state: (np.ndarray) unused (no recurrent state)
        :param mask: (np.ndarray) unused (no recurrent state)
        :return: (np.ndarray) actions in [-1, 1]
        """
        raise NotImplementedError

    def proba_step(self, obs: np.ndarray, state: Optional[np.ndarray] = None, mask: Optional[np.ndarray] = None) -> Any:
        """
        The actor is deterministic: the actions of :meth:`step`.

        :param obs: (np.ndarray) observations
        :param state: (np.ndarray) unused (no recurrent state)
        :param mask: (np.ndarray) unused (no recurrent state)
        :return: (np.ndarray) actions in [-1, 1]
        """
        return self.step(obs, state, mask)


class _Preset(_MixinBase):
    """Constructor of a preset: the keywords of ``_fixed`` reach the ``FeedForwardPolicy`` it is put before."""

    _fixed: Dict[str, Any] = {}

    def __init__(self, sess: Optional[tf.Session], ob_space: spaces.Space, ac_space: spaces.Space, n_env: int = 1,
                 n_steps: int = 1, n_batch: Optional[int] = None, reuse: bool = False, **_kwargs: Any) -> None:
        super().__init__(sess, ob_space, ac_space, n_env, n_steps, n_batch, reuse,
                         **self._fixed, **_kwargs)


class _PresetNoDefaults(_Preset):
    """:class:`_Preset` whose batch arguments have no defaults (DDPG's presets)."""

    def __init__(self, sess, ob_space, ac_space, n_env, n_steps, n_batch, reuse=False, **_kwargs):
        super().__init__(sess, ob_space, ac_space, n_env, n_steps, n_batch, reuse, **_kwargs)


def presets(base: type, algorithm: str, batch_defaults: bool = True) -> Tuple[type, type, type, type]:
    """
    The ready-made classes ``CnnPolicy``, ``LnCnnPolicy``, ``MlpPolicy``, ``LnMlpPolicy`` of an algorithm: ``base``
    (its ``FeedForwardPolicy``) with the feature extraction (and the layer normalisation) fixed, any other keyword
    passed on. They belong to the module of ``base`` and are registered under their names; model files may name
    them and ``base`` (:func:`~stable_baselines.common.safe_loading.classes.declare_loadable`).

    :param base: (type) the algorithm's feed-forward policy class
    :param algorithm: (str) the algorithm's name, for the docstrings
    :param batch_defaults: (bool) ``n_env=1, n_steps=1, n_batch=None`` (False: the three are required)
    :return: ((type, type, type, type)) the four classes, to be bound to their names in the module of ``base``
    """
    more = ("(dict) more arguments of the algorithm's ``FeedForwardPolicy`` (``layers``, ``act_fun``, ...) or of "
            "the CNN extractor")
    made = four_presets((_Preset if batch_defaults else _PresetNoDefaults, base), algorithm,
                        parameters_doc(*BATCH, "_kwargs", ac_space=BOX, _kwargs=more))
    for policy in made:
        register_policy(policy.__name__, policy)
    declare_loadable(base, *made)
    return made


def _dense_stack_names(n_hidden: int, layer_norm: bool, heads: List[str]) -> List[str]:
    """Names (relative to the actor scope, creation order) of the variables of :func:`hidden_stack` + heads."""
    names = []
    for idx in range(n_hidden):
        names += ["fc{}/kernel:0".format(idx), "fc{}/bias:0".format(idx)]
        if layer_norm:
            norm = "LayerNorm" if idx == 0 else "LayerNorm_{}".format(idx)
            names += [norm + "/beta:0", norm + "/gamma:0"]
    for head in heads:
        names += [head + "/kernel:0", head + "/bias:0"]
    return names


def numpy_actor_variables(policy: OffPolicyFeedForward, reference: type, methods: Sequence[str],
                          heads: List[str]) -> Optional[Tuple[list, Callable]]:
    """
    Check that the actor of ``policy`` can be copied to NumPy: built by ``make_actor`` on the policy's own
    observations, MLP features, NumPy forward enabled, none of ``methods`` overridden below ``reference``,
    a supported activation and observation space, and exactly the variables of the hidden layers and ``heads``.

    :param policy: (OffPolicyFeedForward) the policy
    :param reference: (type) the class whose methods the NumPy copy reproduces
    :param methods: ([str]) the methods a subclass must not override
    :param heads: ([str]) names of the dense output layers after the hidden ones
    :return: (([tf.Variable], callable) or None) the actor's variables and the NumPy activation
    """
    scope = policy.numpy_actor_scope
    if scope is None or policy.feature_extraction != "mlp" or not nf.numpy_forward_enabled():
        return None
    cls = type(policy)
    if any(getattr(cls, method) is not getattr(reference, method) for method in methods):
        return None
    activation = nf.numpy_activation(policy.activ_fn)
    supported = (spaces.Box, spaces.Discrete, spaces.MultiBinary, spaces.MultiDiscrete)
    if activation is None or not isinstance(policy.ob_space, supported):
        return None
    variables = policy.sess.graph.get_collection(tf.GraphKeys.TRAINABLE_VARIABLES, scope=scope + "/")
    expected = _dense_stack_names(len(policy.layers), policy.layer_norm, heads)
    if [var.name[len(scope) + 1:] for var in variables] != expected:
        return None
    return variables, activation
