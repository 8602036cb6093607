"""
Actor-critic policies (A2C, ACER, ACKTR, PPO1, PPO2, TRPO, GAIL): feed-forward and recurrent,
MLP and CNN feature extraction, and the registry of policy names.

Variables are created under ``tf.variable_scope("model", reuse=reuse)`` with the original
library's names (``model/pi_fc0/w``, ``model/vf/b``, ``model/pi/logstd``, ...), in the same order,
so that parameter files saved by the original library load into them. Placeholders are created
under the ``input`` scope.
"""
import warnings
from abc import ABC, abstractmethod
from itertools import zip_longest
from typing import Any, Callable, Dict, List, Optional, Tuple, Type, Union

import numpy as np
from gymnasium import spaces

from stable_baselines.common.distributions import (BernoulliProbabilityDistribution,
                                                   CategoricalProbabilityDistribution,
                                                   DiagGaussianProbabilityDistribution,
                                                   MultiCategoricalProbabilityDistribution,
                                                   make_proba_dist_type)
from stable_baselines.common.gym_compat import convert_space
from stable_baselines.common.input import observation_input
from stable_baselines.common import numpy_forward as nf
from stable_baselines.common.numpy_forward import numpy_forward_enabled
from stable_baselines.common.tf_compat import tf
from stable_baselines.common.tf_util import feed_callable
from stable_baselines.common.tf_layers import (batch_to_seq, conv, conv_to_fc, flatten, linear, lstm,
                                               seq_to_batch)


def nature_cnn(scaled_images: tf.Tensor, **kwargs) -> tf.Tensor:
    """
    CNN from Nature paper: conv 32x8 stride 4, conv 64x4 stride 2, conv 64x3 stride 1, fully connected 512,
    all with ReLU (variables ``c1``, ``c2``, ``c3``, ``fc1``).

    :param scaled_images: (TensorFlow Tensor) Image input placeholder
    :param kwargs: (dict) Extra keywords parameters for the convolutional layers of the CNN
    :return: (TensorFlow Tensor) The CNN output layer
    """
    activ = tf.nn.relu
    layer_1 = activ(conv(scaled_images, 'c1', n_filters=32, filter_size=8, stride=4, init_scale=np.sqrt(2), **kwargs))
    layer_2 = activ(conv(layer_1, 'c2', n_filters=64, filter_size=4, stride=2, init_scale=np.sqrt(2), **kwargs))
    layer_3 = activ(conv(layer_2, 'c3', n_filters=64, filter_size=3, stride=1, init_scale=np.sqrt(2), **kwargs))
    layer_3 = conv_to_fc(layer_3)
    return activ(linear(layer_3, 'fc1', n_hidden=512, init_scale=np.sqrt(2)))


def mlp_extractor(flat_observations: tf.Tensor, net_arch: List[Union[int, Dict[str, List[int]]]],
                  act_fun: Callable) -> Tuple[tf.Tensor, tf.Tensor]:
    """
    Constructs an MLP that receives observations as an input and outputs a latent representation for the policy and
    a value network. The ``net_arch`` parameter allows to specify the amount and size of the hidden layers and how many
    of them are shared between the policy network and the value network. It is assumed to be a list with the following
    structure:

    1. An arbitrary length (zero allowed) number of integers each specifying the number of units in a shared layer.
       If the number of ints is zero, there will be no shared layers.
    2. An optional dict, to specify the following non-shared layers for the value network and the policy network.
       It is formatted like ``dict(vf=[<value layer sizes>], pi=[<policy layer sizes>])``.
       If it is missing any of the keys (pi or vf), no non-shared layers (empty list) is assumed.

    For example to construct a network with one shared layer of size 55 followed by two non-shared layers for the value
    network of size 255 and a single non-shared layer of size 128 for the policy network, the following layers_spec
    would be used: ``[55, dict(vf=[255, 255], pi=[128])]``. A simple shared network topology with two layers of size 128
    would be specified as [128, 128].

    Layers are named ``shared_fc{i}``, then ``pi_fc{i}`` and ``vf_fc{i}`` (built interleaved, layer by layer).

    :param flat_observations: (tf.Tensor) The observations to base policy and value function on.
    :param net_arch: ([int or dict]) The specification of the policy and value networks.
        See above for details on its formatting.
    :param act_fun: (tf function) The activation function to use for the networks.
    :return: (tf.Tensor, tf.Tensor) latent_policy, latent_value of the specified network.
        If all layers are shared, then ``latent_policy == latent_value``
    """
    latent = flat_observations
    policy_only_layers = []  # Layer sizes of the network that only belongs to the policy network
    value_only_layers = []  # Layer sizes of the network that only belongs to the value network

    # Iterate through the shared layers and build the shared parts of the network
    for idx, layer in enumerate(net_arch):
        if isinstance(layer, (int, np.integer)) and not isinstance(layer, bool):
            layer_size = int(layer)
            latent = act_fun(linear(latent, "shared_fc{}".format(idx), layer_size, init_scale=np.sqrt(2)))
        else:
            if not isinstance(layer, dict):
                raise ValueError("Error: the net_arch list can only contain ints and dicts, got {!r} in {!r}".format(
                    layer, net_arch))
            if 'pi' in layer:
                if not isinstance(layer['pi'], list):
                    raise ValueError("Error: net_arch[-1]['pi'] must contain a list of integers, got {!r}".format(
                        layer['pi']))
                policy_only_layers = layer['pi']

            if 'vf' in layer:
                if not isinstance(layer['vf'], list):
                    raise ValueError("Error: net_arch[-1]['vf'] must contain a list of integers, got {!r}".format(
                        layer['vf']))
                value_only_layers = layer['vf']
            break  # From here on the network splits up in policy and value network

    # Build the non-shared part of the network
    latent_policy = latent
    latent_value = latent
    for idx, (pi_layer_size, vf_layer_size) in enumerate(zip_longest(policy_only_layers, value_only_layers)):
        if pi_layer_size is not None:
            if not isinstance(pi_layer_size, (int, np.integer)):
                raise ValueError("Error: net_arch[-1]['pi'] must only contain integers, got {!r}".format(
                    pi_layer_size))
            latent_policy = act_fun(linear(latent_policy, "pi_fc{}".format(idx), int(pi_layer_size),
                                           init_scale=np.sqrt(2)))

        if vf_layer_size is not None:
            if not isinstance(vf_layer_size, (int, np.integer)):
                raise ValueError("Error: net_arch[-1]['vf'] must only contain integers, got {!r}".format(
                    vf_layer_size))
            latent_value = act_fun(linear(latent_value, "vf_fc{}".format(idx), int(vf_layer_size),
                                          init_scale=np.sqrt(2)))

    return latent_policy, latent_value


class BasePolicy(ABC):
    """
    The base policy object

    :param sess: (TensorFlow session) The current TensorFlow session
    :param ob_space: (Gym Space) The observation space of the environment
    :param ac_space: (Gym Space) The action space of the environment
    :param n_env: (int) The number of environments to run
    :param n_steps: (int) The number of steps to run for each environment
    :param n_batch: (int) The number of batches to run (n_envs * n_steps)
    :param reuse: (bool) If the policy is reusable or not
    :param scale: (bool) whether or not to scale the input
    :param obs_ph: (TensorFlow Tensor, TensorFlow Tensor) a tuple containing an override for observation placeholder
        and the processed observation placeholder respectively
    :param add_action_ph: (bool) whether or not to create an action placeholder
    """

    recurrent = False

    def __init__(self, sess, ob_space, ac_space, n_env, n_steps, n_batch, reuse=False, scale=False,
                 obs_ph=None, add_action_ph=False):
        ob_space = convert_space(ob_space)
        ac_space = convert_space(ac_space)
        self.n_env = n_env
        self.n_steps = n_steps
        self.n_batch = n_batch
        with tf.variable_scope("input", reuse=False):
            if obs_ph is None:
                self._obs_ph, self._processed_obs = observation_input(ob_space, n_batch, scale=scale)
            else:
                if not isinstance(obs_ph, (tuple, list)) or len(obs_ph) != 2:
                    raise ValueError("obs_ph must be a tuple (observation placeholder, processed observation), "
                                     "got {!r}".format(obs_ph))
                self._obs_ph, self._processed_obs = obs_ph

            self._action_ph = None
            if add_action_ph:
                self._action_ph = tf.placeholder(dtype=tf.as_dtype(np.dtype(ac_space.dtype)),
                                                 shape=(n_batch,) + tuple(ac_space.shape),
                                                 name="action_ph")
        self.sess = sess
        self.reuse = reuse
        self.ob_space = ob_space
        self.ac_space = ac_space

    # NumPy inference copy of the network (see FeedForwardPolicy.enable_numpy_forward); None: use the graph
    _numpy_forward = None

    def invalidate_numpy_forward(self) -> None:
        """
        Tell the policy that its weights in the graph have changed, so that a NumPy copy of them
        (if the policy keeps one) is read again before the next use. Policies without such a copy
        ignore this.
        """
        forward = getattr(self, "_numpy_forward", None)
        if forward is not None and hasattr(forward, "stale"):
            forward.stale = True

    @property
    def is_discrete(self) -> bool:
        """bool: is action space discrete."""
        return isinstance(self.ac_space, spaces.Discrete)

    @property
    def initial_state(self) -> Optional[np.ndarray]:
        """
        The initial state of the policy. For feedforward policies, None. For a recurrent policy,
        a NumPy array of shape (self.n_env, ) + state_shape.
        """
        if self.recurrent:
            raise NotImplementedError("When using recurrent policies, you must overwrite `initial_state()` method")
        return None

    @property
    def obs_ph(self) -> tf.Tensor:
        """tf.Tensor: placeholder for observations, shape (self.n_batch, ) + self.ob_space.shape."""
        return self._obs_ph

    @property
    def processed_obs(self) -> tf.Tensor:
        """tf.Tensor: processed observations, shape (self.n_batch, ) + self.ob_space.shape.

        The form of processing depends on the type of the observation space, and the parameters
        whether scale is passed to the constructor; see observation_input for more information."""
        return self._processed_obs

    @property
    def action_ph(self) -> Optional[tf.Tensor]:
        """tf.Tensor: placeholder for actions, shape (self.n_batch, ) + self.ac_space.shape."""
        return self._action_ph

    @staticmethod
    def _kwargs_check(feature_extraction: str, kwargs: dict) -> None:
        """
        Ensure that the user is not passing wrong keywords
        when using policy_kwargs.

        :param feature_extraction: (str)
        :param kwargs: (dict)
        """
        # When using policy_kwargs parameter on model creation,
        # all keywords arguments must be consumed by the policy constructor except
        # the ones for the cnn_extractor network (cf nature_cnn()), where the keywords arguments
        # are not passed explicitly (using **kwargs to forward the arguments)
        # that's why there should be not kwargs left when using the mlp_extractor
        # (in that case the keywords arguments are passed explicitly)
        if feature_extraction == 'mlp' and len(kwargs) > 0:
            raise ValueError("Unknown keywords for policy: {}".format(kwargs))

    @abstractmethod
    def step(self, obs: np.ndarray, state: Optional[np.ndarray] = None, mask: Optional[np.ndarray] = None) -> tuple:
        """
        Returns the policy for a single step

        :param obs: ([float] or [int]) The current observation of the environment
        :param state: ([float]) The last states (used in recurrent policies)
        :param mask: ([float]) The last masks (used in recurrent policies)
        :return: ([float], [float], [float], [float]) actions, values, states, neglogp
        """
        raise NotImplementedError

    @abstractmethod
    def proba_step(self, obs: np.ndarray, state: Optional[np.ndarray] = None, mask: Optional[np.ndarray] = None) -> Any:
        """
        Returns the action probability for a single step

        :param obs: ([float] or [int]) The current observation of the environment
        :param state: ([float]) The last states (used in recurrent policies)
        :param mask: ([float]) The last masks (used in recurrent policies)
        :return: ([float]) the action probability
        """
        raise NotImplementedError


class ActorCriticPolicy(BasePolicy):
    """
    Policy object that implements actor critic

    :param sess: (TensorFlow session) The current TensorFlow session
    :param ob_space: (Gym Space) The observation space of the environment
    :param ac_space: (Gym Space) The action space of the environment
    :param n_env: (int) The number of environments to run
    :param n_steps: (int) The number of steps to run for each environment
    :param n_batch: (int) The number of batch to run (n_envs * n_steps)
    :param reuse: (bool) If the policy is reusable or not
    :param scale: (bool) whether or not to scale the input
    """

    def __init__(self, sess, ob_space, ac_space, n_env, n_steps, n_batch, reuse=False, scale=False):
        super(ActorCriticPolicy, self).__init__(sess, ob_space, ac_space, n_env, n_steps, n_batch, reuse=reuse,
                                                scale=scale)
        self._pdtype = make_proba_dist_type(self.ac_space)
        self._policy = None
        self._proba_distribution = None
        self._value_fn = None
        self._action = None
        self._deterministic_action = None
        self._neglogp = None
        self._policy_proba = None
        self._value_flat = None
        self.q_value = None

    def _setup_init(self) -> None:
        """Sets up the distributions, actions, and value."""
        with tf.variable_scope("output", reuse=True):
            if self.policy is None or self.proba_distribution is None or self.value_fn is None:
                raise ValueError("_setup_init() needs self._policy, self._proba_distribution and self._value_fn to be "
                                 "set first (got policy={}, proba_distribution={}, value_fn={})".format(
                                     self.policy, self.proba_distribution, self.value_fn))
            self._action = self.proba_distribution.sample()
            self._deterministic_action = self.proba_distribution.mode()
            self._neglogp = self.proba_distribution.neglogp(self.action)
            if isinstance(self.proba_distribution, CategoricalProbabilityDistribution):
                self._policy_proba = tf.nn.softmax(self.policy)
            elif isinstance(self.proba_distribution, DiagGaussianProbabilityDistribution):
                self._policy_proba = [self.proba_distribution.mean, self.proba_distribution.std]
            elif isinstance(self.proba_distribution, BernoulliProbabilityDistribution):
                self._policy_proba = tf.nn.sigmoid(self.policy)
            elif isinstance(self.proba_distribution, MultiCategoricalProbabilityDistribution):
                self._policy_proba = [tf.nn.softmax(categorical.flatparam())
                                      for categorical in self.proba_distribution.categoricals]
            else:
                self._policy_proba = []  # it will return nothing, as it is not implemented
            self._value_flat = self.value_fn[:, 0]

    @property
    def pdtype(self):
        """ProbabilityDistributionType: type of the distribution for stochastic actions."""
        return self._pdtype

    @property
    def policy(self):
        """tf.Tensor: policy output, e.g. logits."""
        return self._policy

    @property
    def proba_distribution(self):
        """ProbabilityDistribution: distribution of stochastic actions."""
        return self._proba_distribution

    @property
    def value_fn(self):
        """tf.Tensor: value estimate, of shape (self.n_batch, 1)"""
        return self._value_fn

    @property
    def value_flat(self):
        """tf.Tensor: value estimate, of shape (self.n_batch, )"""
        return self._value_flat

    @property
    def action(self):
        """tf.Tensor: stochastic action, of shape (self.n_batch, ) + self.ac_space.shape."""
        return self._action

    @property
    def deterministic_action(self):
        """tf.Tensor: deterministic action, of shape (self.n_batch, ) + self.ac_space.shape."""
        return self._deterministic_action

    @property
    def neglogp(self):
        """tf.Tensor: negative log likelihood of the action sampled by self.action."""
        return self._neglogp

    @property
    def policy_proba(self):
        """tf.Tensor: parameters of the probability distribution. Depends on pdtype."""
        return self._policy_proba

    @abstractmethod
    def step(self, obs: np.ndarray, state: Optional[np.ndarray] = None, mask: Optional[np.ndarray] = None,
             deterministic: bool = False) -> tuple:
        """
        Returns the policy for a single step

        :param obs: ([float] or [int]) The current observation of the environment
        :param state: ([float]) The last states (used in recurrent policies)
        :param mask: ([float]) The last masks (used in recurrent policies)
        :param deterministic: (bool) Whether or not to return deterministic actions.
        :return: ([float], [float], [float], [float]) actions, values, states, neglogp
        """
        raise NotImplementedError

    @abstractmethod
    def value(self, obs: np.ndarray, state: Optional[np.ndarray] = None,
              mask: Optional[np.ndarray] = None) -> np.ndarray:
        """
        Returns the value for a single step

        :param obs: ([float] or [int]) The current observation of the environment
        :param state: ([float]) The last states (used in recurrent policies)
        :param mask: ([float]) The last masks (used in recurrent policies)
        :return: ([float]) The associated value of the action
        """
        raise NotImplementedError


class RecurrentActorCriticPolicy(ActorCriticPolicy):
    """
    Actor critic policy object uses a previous state in the computation for the current step.
    NOTE: this class is not limited to recurrent neural network policies,
    see https://arxiv.org/abs/1905.12937 for an example of a non-recurrent policy
    with state information.

    :param sess: (TensorFlow session) The current TensorFlow session
    :param ob_space: (Gym Space) The observation space of the environment
    :param ac_space: (Gym Space) The action space of the environment
    :param n_env: (int) The number of environments to run
    :param n_steps: (int) The number of steps to run for each environment
    :param n_batch: (int) The number of batch to run (n_envs * n_steps)
    :param state_shape: (tuple<int>) shape of the per-environment state space.
    :param reuse: (bool) If the policy is reusable or not
    :param scale: (bool) whether or not to scale the input
    """

    recurrent = True

    def __init__(self, sess, ob_space, ac_space, n_env, n_steps, n_batch,
                 state_shape, reuse=False, scale=False):
        super(RecurrentActorCriticPolicy, self).__init__(sess, ob_space, ac_space, n_env, n_steps,
                                                         n_batch, reuse=reuse, scale=scale)

        with tf.variable_scope("input", reuse=False):
            self._dones_ph = tf.placeholder(tf.float32, (n_batch, ), name="dones_ph")  # (done t-1)
            state_ph_shape = (self.n_env, ) + tuple(state_shape)
            self._states_ph = tf.placeholder(tf.float32, state_ph_shape, name="states_ph")

        initial_state_shape = (self.n_env, ) + tuple(state_shape)
        self._initial_state = np.zeros(initial_state_shape, dtype=np.float32)

    @property
    def initial_state(self):
        return self._initial_state

    @property
    def dones_ph(self):
        """tf.Tensor: placeholder for whether episode has terminated (done), shape (self.n_batch, ).
        Internally used to reset the state before the next episode starts."""
        return self._dones_ph

    @property
    def states_ph(self):
        """tf.Tensor: placeholder for states, shape (self.n_env, ) + state_shape."""
        return self._states_ph

    def _recurrent_feed(self, obs, state, mask) -> dict:
        """The feed dict of a step: missing states are the initial state, missing masks are zeros."""
        if state is None:
            state = self.initial_state
        if mask is None:
            mask = np.zeros((self.n_batch,), dtype=np.float32)
        return {self.obs_ph: obs, self.states_ph: state, self.dones_ph: mask}

    @abstractmethod
    def value(self, obs: np.ndarray, state: Optional[np.ndarray] = None,
              mask: Optional[np.ndarray] = None) -> np.ndarray:
        """
        Cf base class doc.
        """
        raise NotImplementedError


class LstmPolicy(RecurrentActorCriticPolicy):
    """
    Policy object that implements actor critic, using LSTMs.

    :param sess: (TensorFlow session) The current TensorFlow session
    :param ob_space: (Gym Space) The observation space of the environment
    :param ac_space: (Gym Space) The action space of the environment
    :param n_env: (int) The number of environments to run
    :param n_steps: (int) The number of steps to run for each environment
    :param n_batch: (int) The number of batch to run (n_envs * n_steps)
    :param n_lstm: (int) The number of LSTM cells (for recurrent policies)
    :param reuse: (bool) If the policy is reusable or not
    :param layers: ([int]) The size of the Neural network before the LSTM layer  (if None, default to [64, 64])
    :param net_arch: (list) Specification of the actor-critic policy network architecture. Notation similar to the
        format described in mlp_extractor but with additional support for a 'lstm' entry in the shared network part.
    :param act_fun: (tf.func) the activation function to use in the neural network.
    :param cnn_extractor: (function (TensorFlow Tensor, ``**kwargs``): (TensorFlow Tensor)) the CNN feature extraction
    :param layer_norm: (bool) Whether or not to use layer normalizing LSTMs
    :param feature_extraction: (str) The feature extraction type ("cnn" or "mlp")
    :param kwargs: (dict) Extra keyword arguments for the nature CNN feature extraction
    """

    recurrent = True

    def __init__(self, sess, ob_space, ac_space, n_env, n_steps, n_batch, n_lstm=256, reuse=False, layers=None,
                 net_arch=None, act_fun=tf.tanh, cnn_extractor=nature_cnn, layer_norm=False, feature_extraction="cnn",
                 **kwargs):
        # state_shape = [n_lstm * 2] dim because of the cell and hidden states of the LSTM
        super(LstmPolicy, self).__init__(sess, ob_space, ac_space, n_env, n_steps, n_batch,
                                         state_shape=(2 * n_lstm, ), reuse=reuse,
                                         scale=(feature_extraction == "cnn"))

        self._kwargs_check(feature_extraction, kwargs)
        if n_batch is not None and n_env is not None and n_steps is not None and n_batch != n_env * n_steps:
            raise ValueError("LstmPolicy needs n_batch == n_env * n_steps, got n_batch={}, n_env={}, n_steps={}"
                             .format(n_batch, n_env, n_steps))

        if net_arch is None:  # Legacy mode
            if layers is None:
                layers = [64, 64]
            else:
                warnings.warn("The layers parameter is deprecated. Use the net_arch parameter instead.",
                              DeprecationWarning)

            with tf.variable_scope("model", reuse=reuse):
                if feature_extraction == "cnn":
                    extracted_features = cnn_extractor(self.processed_obs, **kwargs)
                else:
                    extracted_features = flatten(self.processed_obs)
                    for i, layer_size in enumerate(layers):
                        extracted_features = act_fun(linear(extracted_features, 'pi_fc' + str(i), n_hidden=layer_size,
                                                            init_scale=np.sqrt(2)))
                input_sequence = batch_to_seq(extracted_features, self.n_env, n_steps)
                masks = batch_to_seq(self.dones_ph, self.n_env, n_steps)
                rnn_output, self.snew = lstm(input_sequence, masks, self.states_ph, 'lstm1', n_hidden=n_lstm,
                                             layer_norm=layer_norm)
                rnn_output = seq_to_batch(rnn_output)
                value_fn = linear(rnn_output, 'vf', 1)

                self._proba_distribution, self._policy, self.q_value = \
                    self.pdtype.proba_distribution_from_latent(rnn_output, rnn_output)

            self._value_fn = value_fn
        else:  # Use the new net_arch parameter
            if layers is not None:
                warnings.warn("The new net_arch parameter overrides the deprecated layers parameter.",
                              DeprecationWarning)
            if feature_extraction == "cnn":
                raise NotImplementedError("LstmPolicy: net_arch is only supported with feature_extraction='mlp'")

            with tf.variable_scope("model", reuse=reuse):
                latent = flatten(self.processed_obs)
                policy_only_layers = []  # Layer sizes of the network that only belongs to the policy network
                value_only_layers = []  # Layer sizes of the network that only belongs to the value network

                # Iterate through the shared layers and build the shared parts of the network
                lstm_layer_constructed = False
                for idx, layer in enumerate(net_arch):
                    if isinstance(layer, (int, np.integer)) and not isinstance(layer, bool):  # a shared layer
                        layer_size = int(layer)
                        latent = act_fun(linear(latent, "shared_fc{}".format(idx), layer_size, init_scale=np.sqrt(2)))
                    elif layer == "lstm":
                        if lstm_layer_constructed:
                            raise ValueError("The net_arch parameter must only contain one occurrence of 'lstm'!")
                        input_sequence = batch_to_seq(latent, self.n_env, n_steps)
                        masks = batch_to_seq(self.dones_ph, self.n_env, n_steps)
                        rnn_output, self.snew = lstm(input_sequence, masks, self.states_ph, 'lstm1', n_hidden=n_lstm,
                                                     layer_norm=layer_norm)
                        latent = seq_to_batch(rnn_output)
                        lstm_layer_constructed = True
                    else:
                        if not isinstance(layer, dict):
                            raise ValueError("Error: the net_arch list can only contain ints, 'lstm' and dicts, got "
                                             "{!r}".format(layer))
                        if 'pi' in layer:
                            if not isinstance(layer['pi'], list):
                                raise ValueError("Error: net_arch[-1]['pi'] must contain a list of integers, got "
                                                 "{!r}".format(layer['pi']))
                            policy_only_layers = layer['pi']

                        if 'vf' in layer:
                            if not isinstance(layer['vf'], list):
                                raise ValueError("Error: net_arch[-1]['vf'] must contain a list of integers, got "
                                                 "{!r}".format(layer['vf']))
                            value_only_layers = layer['vf']
                        break  # From here on the network splits up in policy and value network

                # Build the non-shared part of the policy-network
                latent_policy = latent
                for idx, pi_layer_size in enumerate(policy_only_layers):
                    if pi_layer_size == "lstm":
                        raise NotImplementedError("LSTMs are only supported in the shared part of the policy network.")
                    if not isinstance(pi_layer_size, (int, np.integer)):
                        raise ValueError("Error: net_arch[-1]['pi'] must only contain integers, got {!r}".format(
                            pi_layer_size))
                    latent_policy = act_fun(
                        linear(latent_policy, "pi_fc{}".format(idx), int(pi_layer_size), init_scale=np.sqrt(2)))

                # Build the non-shared part of the value-network
                latent_value = latent
                for idx, vf_layer_size in enumerate(value_only_layers):
                    if vf_layer_size == "lstm":
                        raise NotImplementedError("LSTMs are only supported in the shared part of the value function "
                                                  "network.")
                    if not isinstance(vf_layer_size, (int, np.integer)):
                        raise ValueError("Error: net_arch[-1]['vf'] must only contain integers, got {!r}".format(
                            vf_layer_size))
                    latent_value = act_fun(
                        linear(latent_value, "vf_fc{}".format(idx), int(vf_layer_size), init_scale=np.sqrt(2)))

                if not lstm_layer_constructed:
                    raise ValueError("The net_arch parameter must contain at least one occurrence of 'lstm'!")

                self._value_fn = linear(latent_value, 'vf', 1)
                self._proba_distribution, self._policy, self.q_value = \
                    self.pdtype.proba_distribution_from_latent(latent_policy, latent_value)
        self._setup_init()

    def step(self, obs: np.ndarray, state: Optional[np.ndarray] = None, mask: Optional[np.ndarray] = None,
             deterministic: bool = False) -> tuple:
        action_op = self.deterministic_action if deterministic else self.action
        return self.sess.run([action_op, self.value_flat, self.snew, self.neglogp],
                             self._recurrent_feed(obs, state, mask))

    def proba_step(self, obs: np.ndarray, state: Optional[np.ndarray] = None, mask: Optional[np.ndarray] = None) -> Any:
        return self.sess.run(self.policy_proba, self._recurrent_feed(obs, state, mask))

    def value(self, obs: np.ndarray, state: Optional[np.ndarray] = None,
              mask: Optional[np.ndarray] = None) -> np.ndarray:
        return self.sess.run(self.value_flat, self._recurrent_feed(obs, state, mask))


class FeedForwardPolicy(ActorCriticPolicy):
    """
    Policy object that implements actor critic, using a feed forward neural network.

    :param sess: (TensorFlow session) The current TensorFlow session
    :param ob_space: (Gym Space) The observation space of the environment
    :param ac_space: (Gym Space) The action space of the environment
    :param n_env: (int) The number of environments to run
    :param n_steps: (int) The number of steps to run for each environment
    :param n_batch: (int) The number of batch to run (n_envs * n_steps)
    :param reuse: (bool) If the policy is reusable or not
    :param layers: ([int]) (deprecated, use net_arch instead) The size of the Neural network for the policy
        (if None, default to [64, 64])
    :param net_arch: (list) Specification of the actor-critic policy network architecture (see mlp_extractor
        documentation for details).
    :param act_fun: (tf.func) the activation function to use in the neural network.
    :param cnn_extractor: (function (TensorFlow Tensor, ``**kwargs``): (TensorFlow Tensor)) the CNN feature extraction
    :param feature_extraction: (str) The feature extraction type ("cnn" or "mlp")
    :param kwargs: (dict) Extra keyword arguments for the nature CNN feature extraction
    """

    def __init__(self, sess, ob_space, ac_space, n_env, n_steps, n_batch, reuse=False, layers=None, net_arch=None,
                 act_fun=tf.tanh, cnn_extractor=nature_cnn, feature_extraction="cnn", **kwargs):
        super(FeedForwardPolicy, self).__init__(sess, ob_space, ac_space, n_env, n_steps, n_batch, reuse=reuse,
                                                scale=(feature_extraction == "cnn"))

        self._kwargs_check(feature_extraction, kwargs)

        if layers is not None:
            warnings.warn("Usage of the `layers` parameter is deprecated! Use net_arch instead "
                          "(it has a different semantics though).", DeprecationWarning)
            if net_arch is not None:
                warnings.warn("The new `net_arch` parameter overrides the deprecated `layers` parameter!",
                              DeprecationWarning)

        if net_arch is None:
            if layers is None:
                layers = [64, 64]
            net_arch = [dict(vf=list(layers), pi=list(layers))]

        custom_getter = tf.get_variable_scope().custom_getter
        with tf.variable_scope("model", reuse=reuse) as model_scope:
            if feature_extraction == "cnn":
                pi_latent = vf_latent = cnn_extractor(self.processed_obs, **kwargs)
            else:
                pi_latent, vf_latent = mlp_extractor(flatten(self.processed_obs), net_arch, act_fun)

            self._value_fn = linear(vf_latent, 'vf', 1)

            self._proba_distribution, self._policy, self.q_value = \
                self.pdtype.proba_distribution_from_latent(pi_latent, vf_latent, init_scale=0.01)

        self._setup_init()
        # what the NumPy inference path needs to rebuild this network (None: not supported, use the graph)
        self._numpy_spec = None
        if feature_extraction == "mlp" and custom_getter is None:
            self._numpy_spec = {"scope": model_scope.name, "net_arch": net_arch, "act_fun": act_fun,
                                "scale": False}
        self._step_fetches = {}

    def step(self, obs: np.ndarray, state: Optional[np.ndarray] = None, mask: Optional[np.ndarray] = None,
             deterministic: bool = False) -> tuple:
        forward = self._numpy_forward
        # Stochastic steps (the rollouts of training) stay on the graph: with NumPy sampling, PPO2 reached the
        # maximum score of the Box identity task less often (seeds 0-29: 19 and 22 of 30 with float32 and float64
        # NumPy normals, 27 of 30 with the graph's sampling), although every value the rollout stores matched the
        # graph to float32 precision and the noise is uncorrelated with the states. Only deterministic steps use
        # the NumPy copy until that is understood.
        if forward is not None and deterministic:
            out = forward.step(obs, deterministic)
            if out is not None:
                return out
        action_op = self.deterministic_action if deterministic else self.action
        action, value, neglogp = self._graph_call(("step", bool(deterministic)),
                                                  [action_op, self.value_flat, self.neglogp], obs)
        return action, value, self.initial_state, neglogp

    def proba_step(self, obs: np.ndarray, state: Optional[np.ndarray] = None, mask: Optional[np.ndarray] = None) -> Any:
        forward = self._numpy_forward
        if forward is not None:
            out = forward.proba(obs)
            if out is not None:
                return out
        if isinstance(self.policy_proba, list):
            return self._graph_call("proba", self.policy_proba, obs)
        return self._graph_call("proba", [self.policy_proba], obs)[0]

    def value(self, obs: np.ndarray, state: Optional[np.ndarray] = None,
              mask: Optional[np.ndarray] = None) -> np.ndarray:
        forward = self._numpy_forward
        if forward is not None:
            out = forward.value(obs)
            if out is not None:
                return out
        return self._graph_call("value", [self.value_flat], obs)[0]

    def _graph_call(self, key: Any, fetches: list, obs: Any) -> list:
        """``sess.run(fetches, {obs_ph: obs})`` through a callable made once (see ``tf_util.feed_callable``)."""
        calls = self.__dict__.setdefault("_graph_calls", {})
        call = calls.get(key)
        if call is None or call.sess is not self.sess:
            call = calls[key] = feed_callable(self.sess, fetches, [self.obs_ph])
        return call(obs)

    def enable_numpy_forward(self, rng: Optional[np.random.Generator] = None) -> bool:
        """
        Let ``step``, ``proba_step`` and ``value`` compute in NumPy from a copy of the weights instead of
        calling the session (see :mod:`stable_baselines.common.numpy_forward`). The copy is read from the
        graph on first use and again after every :meth:`invalidate_numpy_forward`. Policies whose
        network is not recognised (CNN feature extraction, custom getters, subclasses that change
        ``step``) keep using the graph; so does every call the NumPy path cannot answer exactly.

        :param rng: (np.random.Generator) the generator of stochastic actions (None: a fresh unseeded one)
        :return: (bool) whether the NumPy path is active
        """
        self._numpy_forward = None
        if self._numpy_spec is None or not numpy_forward_enabled():
            return False
        cls = type(self)
        for method in ("step", "proba_step", "value"):
            if getattr(cls, method) is not getattr(FeedForwardPolicy, method):
                return False
        forward = NumpyActorCriticForward.from_policy(self, rng)
        if forward is None:
            return False
        self._numpy_forward = forward
        return True

    def disable_numpy_forward(self) -> None:
        """Go back to computing ``step``, ``proba_step`` and ``value`` with the TensorFlow graph."""
        self._numpy_forward = None



class CnnPolicy(FeedForwardPolicy):
    """
    Policy object that implements actor critic, using a CNN (the nature CNN)

    :param sess: (TensorFlow session) The current TensorFlow session
    :param ob_space: (Gym Space) The observation space of the environment
    :param ac_space: (Gym Space) The action space of the environment
    :param n_env: (int) The number of environments to run
    :param n_steps: (int) The number of steps to run for each environment
    :param n_batch: (int) The number of batch to run (n_envs * n_steps)
    :param reuse: (bool) If the policy is reusable or not
    :param _kwargs: (dict) Extra keyword arguments for the nature CNN feature extraction
    """

    def __init__(self, sess, ob_space, ac_space, n_env, n_steps, n_batch, reuse=False, **_kwargs):
        super(CnnPolicy, self).__init__(sess, ob_space, ac_space, n_env, n_steps, n_batch, reuse,
                                        feature_extraction="cnn", **_kwargs)


class CnnLstmPolicy(LstmPolicy):
    """
    Policy object that implements actor critic, using LSTMs with a CNN feature extraction

    :param sess: (TensorFlow session) The current TensorFlow session
    :param ob_space: (Gym Space) The observation space of the environment
    :param ac_space: (Gym Space) The action space of the environment
    :param n_env: (int) The number of environments to run
    :param n_steps: (int) The number of steps to run for each environment
    :param n_batch: (int) The number of batch to run (n_envs * n_steps)
    :param n_lstm: (int) The number of LSTM cells (for recurrent policies)
    :param reuse: (bool) If the policy is reusable or not
    :param kwargs: (dict) Extra keyword arguments for the nature CNN feature extraction
    """

    def __init__(self, sess, ob_space, ac_space, n_env, n_steps, n_batch, n_lstm=256, reuse=False, **_kwargs):
        super(CnnLstmPolicy, self).__init__(sess, ob_space, ac_space, n_env, n_steps, n_batch, n_lstm, reuse,
                                            layer_norm=False, feature_extraction="cnn", **_kwargs)


class CnnLnLstmPolicy(LstmPolicy):
    """
    Policy object that implements actor critic, using a layer normalized LSTMs with a CNN feature extraction

    :param sess: (TensorFlow session) The current TensorFlow session
    :param ob_space: (Gym Space) The observation space of the environment
    :param ac_space: (Gym Space) The action space of the environment
    :param n_env: (int) The number of environments to run
    :param n_steps: (int) The number of steps to run for each environment
    :param n_batch: (int) The number of batch to run (n_envs * n_steps)
    :param n_lstm: (int) The number of LSTM cells (for recurrent policies)
    :param reuse: (bool) If the policy is reusable or not
    :param kwargs: (dict) Extra keyword arguments for the nature CNN feature extraction
    """

    def __init__(self, sess, ob_space, ac_space, n_env, n_steps, n_batch, n_lstm=256, reuse=False, **_kwargs):
        super(CnnLnLstmPolicy, self).__init__(sess, ob_space, ac_space, n_env, n_steps, n_batch, n_lstm, reuse,
                                              layer_norm=True, feature_extraction="cnn", **_kwargs)


class MlpPolicy(FeedForwardPolicy):
    """
    Policy object that implements actor critic, using a MLP (2 layers of 64)

    :param sess: (TensorFlow session) The current TensorFlow session
    :param ob_space: (Gym Space) The observation space of the environment
    :param ac_space: (Gym Space) The action space of the environment
    :param n_env: (int) The number of environments to run
    :param n_steps: (int) The number of steps to run for each environment
    :param n_batch: (int) The number of batch to run (n_envs * n_steps)
    :param reuse: (bool) If the policy is reusable or not
    :param _kwargs: (dict) Extra keyword arguments for the nature CNN feature extraction
    """

    def __init__(self, sess, ob_space, ac_space, n_env, n_steps, n_batch, reuse=False, **_kwargs):
        super(MlpPolicy, self).__init__(sess, ob_space, ac_space, n_env, n_steps, n_batch, reuse,
                                        feature_extraction="mlp", **_kwargs)


class MlpLstmPolicy(LstmPolicy):
    """
    Policy object that implements actor critic, using LSTMs with a MLP feature extraction

    :param sess: (TensorFlow session) The current TensorFlow session
    :param ob_space: (Gym Space) The observation space of the environment
    :param ac_space: (Gym Space) The action space of the environment
    :param n_env: (int) The number of environments to run
    :param n_steps: (int) The number of steps to run for each environment
    :param n_batch: (int) The number of batch to run (n_envs * n_steps)
    :param n_lstm: (int) The number of LSTM cells (for recurrent policies)
    :param reuse: (bool) If the policy is reusable or not
    :param kwargs: (dict) Extra keyword arguments for the nature CNN feature extraction
    """

    def __init__(self, sess, ob_space, ac_space, n_env, n_steps, n_batch, n_lstm=256, reuse=False, **_kwargs):
        super(MlpLstmPolicy, self).__init__(sess, ob_space, ac_space, n_env, n_steps, n_batch, n_lstm, reuse,
                                            layer_norm=False, feature_extraction="mlp", **_kwargs)


class MlpLnLstmPolicy(LstmPolicy):
    """
    Policy object that implements actor critic, using a layer normalized LSTMs with a MLP feature extraction

    :param sess: (TensorFlow session) The current TensorFlow session
    :param ob_space: (Gym Space) The observation space of the environment
    :param ac_space: (Gym Space) The action space of the environment
    :param n_env: (int) The number of environments to run
    :param n_steps: (int) The number of steps to run for each environment
    :param n_batch: (int) The number of batch to run (n_envs * n_steps)
    :param n_lstm: (int) The number of LSTM cells (for recurrent policies)
    :param reuse: (bool) If the policy is reusable or not
    :param kwargs: (dict) Extra keyword arguments for the nature CNN feature extraction
    """

    def __init__(self, sess, ob_space, ac_space, n_env, n_steps, n_batch, n_lstm=256, reuse=False, **_kwargs):
        super(MlpLnLstmPolicy, self).__init__(sess, ob_space, ac_space, n_env, n_steps, n_batch, n_lstm, reuse,
                                              layer_norm=True, feature_extraction="mlp", **_kwargs)


_policy_registry = {
    ActorCriticPolicy: {
        "CnnPolicy": CnnPolicy,
        "CnnLstmPolicy": CnnLstmPolicy,
        "CnnLnLstmPolicy": CnnLnLstmPolicy,
        "MlpPolicy": MlpPolicy,
        "MlpLstmPolicy": MlpLstmPolicy,
        "MlpLnLstmPolicy": MlpLnLstmPolicy,
    }
}


def get_policy_from_name(base_policy_type: Type[BasePolicy], name: str) -> Type[BasePolicy]:
    """
    returns the registed policy from the base type and name

    :param base_policy_type: (BasePolicy) the base policy object
    :param name: (str) the policy name
    :return: (base_policy_type) the policy
    """
    if base_policy_type not in _policy_registry:
        raise ValueError("Error: the policy type {} is not registered! Registered base types: {}".format(
            getattr(base_policy_type, "__name__", base_policy_type),
            [cls.__name__ for cls in _policy_registry]))
    if name not in _policy_registry[base_policy_type]:
        raise ValueError("Error: unknown policy type {}, the only registed policy type are: {}!"
                         .format(name, list(_policy_registry[base_policy_type].keys())))
    return _policy_registry[base_policy_type][name]


def register_policy(name: str, policy: Type[BasePolicy]) -> None:
    """
    Register a policy under a name, so that models accept the name instead of the class
    (e.g. ``A2C('CustomPolicy', env)``). Registering the same class twice under one name is allowed;
    another class under a taken name raises a ValueError.

    :param name: (str) the policy name
    :param policy: (subclass of BasePolicy) the policy
    """
    sub_class = None
    if isinstance(policy, type):
        for cls in BasePolicy.__subclasses__():
            if issubclass(policy, cls):
                sub_class = cls
                break
    if sub_class is None:
        raise ValueError("Error: the policy {} is not of any known subclasses of BasePolicy!".format(policy))

    if sub_class not in _policy_registry:
        _policy_registry[sub_class] = {}
    if name in _policy_registry[sub_class]:
        # Registering the very same class twice (e.g. a module imported twice) is harmless
        if _policy_registry[sub_class][name] is policy:
            return
        raise ValueError("Error: the name {} is alreay registered for a different policy, will not override."
                         .format(name))
    _policy_registry[sub_class][name] = policy


def _mlp_layer_names(net_arch: list) -> Optional[Tuple[List[str], List[str], List[str]]]:
    """
    The variable scopes :func:`mlp_extractor` creates for ``net_arch``: shared, policy-only and value-only layers.

    :param net_arch: (list) the network specification
    :return: (([str], [str], [str]) or None) None if ``net_arch`` is not understood
    """
    shared, pi_layers, vf_layers = [], [], []
    for idx, layer in enumerate(net_arch):
        if isinstance(layer, (int, np.integer)) and not isinstance(layer, bool):
            shared.append("shared_fc{}".format(idx))
        elif isinstance(layer, dict):
            pi_layers = ["pi_fc{}".format(i) for i in range(len(layer.get("pi", [])))]
            vf_layers = ["vf_fc{}".format(i) for i in range(len(layer.get("vf", [])))]
            break
        else:
            return None
    return shared, pi_layers, vf_layers


class NumpyActorCriticForward(object):
    """
    The inference of a feed-forward MLP actor-critic policy in NumPy (see
    :mod:`stable_baselines.common.numpy_forward`), from a copy of the weights that is read from the
    graph (one session call) whenever :attr:`stale` is set. Every method returns None when it cannot
    answer exactly like the graph (unexpected input), and the policy then runs the graph.

    :param policy: (FeedForwardPolicy) the policy
    :param variables: ([tf.Variable]) the variables to read, in the order of the plan
    :param plan: (dict) layer structure (see :meth:`from_policy`)
    :param rng: (np.random.Generator) the generator of stochastic actions
    """

    def __init__(self, policy, variables, plan, rng):
        self.policy = policy
        self.sess = policy.sess
        self.variables = variables
        self.plan = plan
        self.rng = rng if rng is not None else nf.make_rng(None)
        self.stale = True
        self.ob_space = policy.ob_space
        self.n_batch = policy.n_batch
        self.activation = plan["activation"]
        self.kind = plan["kind"]
        self._fetch = None
        self._box_obs = isinstance(policy.ob_space, spaces.Box)
        self._n_in = plan["n_in"]
        self._obs_shape = tuple(policy.ob_space.shape)
        # filled by refresh()
        self._shared = []
        self._fused = None
        self._pi = None
        self._vf = None
        self._n_param = plan["n_param"]
        self._logstd = None
        self._std = None
        # the policy branch for one Box observation (what ``predict`` runs), with preallocated buffers
        self._row = None
        self._row_possible = self._box_obs and self.n_batch in (None, 1) and self.kind != "multicategorical"

    # ------------------------------------------------------------------------------------------
    @classmethod
    def from_policy(cls, policy, rng=None) -> Optional["NumpyActorCriticForward"]:
        """
        :param policy: (FeedForwardPolicy) a policy built with an MLP feature extraction
        :param rng: (np.random.Generator) the generator of stochastic actions
        :return: (NumpyActorCriticForward or None) None when the network or the spaces are not supported
        """
        spec = getattr(policy, "_numpy_spec", None)
        if spec is None:
            return None
        activation = nf.numpy_activation(spec["act_fun"])
        names = _mlp_layer_names(spec["net_arch"])
        if activation is None or names is None:
            return None
        dist = policy.proba_distribution
        if isinstance(dist, CategoricalProbabilityDistribution):
            kind = "categorical"
        elif isinstance(dist, DiagGaussianProbabilityDistribution):
            kind = "gaussian"
        elif isinstance(dist, BernoulliProbabilityDistribution):
            kind = "bernoulli"
        elif isinstance(dist, MultiCategoricalProbabilityDistribution):
            kind = "multicategorical"
        else:
            return None
        if not isinstance(policy.ob_space, (spaces.Box, spaces.Discrete, spaces.MultiBinary, spaces.MultiDiscrete)):
            return None
        graph = policy.sess.graph
        by_name = {var.name: var for var in graph.get_collection(tf.GraphKeys.GLOBAL_VARIABLES)}
        scope = spec["scope"]

        def layer(name):
            weight = by_name.get("{}/{}/w:0".format(scope, name))
            bias = by_name.get("{}/{}/b:0".format(scope, name))
            if weight is None or bias is None:
                return None
            return weight, bias

        shared_names, pi_names, vf_names = names
        layers = {}
        for name in shared_names + pi_names + vf_names + ["pi", "vf"]:
            pair = layer(name)
            if pair is None:
                return None
            layers[name] = pair
        variables = []
        for name in shared_names + pi_names + vf_names + ["pi", "vf"]:
            variables.extend(layers[name])
        if kind == "gaussian":
            logstd = by_name.get("{}/pi/logstd:0".format(scope))
            if logstd is None:
                return None
            variables.append(logstd)
        probe_obs = nf.preprocess_observation(_probe_observation(policy.ob_space, 1), policy.ob_space)
        if probe_obs is None:
            return None
        plan = {"shared": shared_names, "pi": pi_names, "vf": vf_names, "kind": kind, "activation": activation,
                "n_in": probe_obs.shape[1], "n_param": int(layers["pi"][0].shape.as_list()[1]),
                "nvec": getattr(policy.pdtype, "n_vec", None)}
        forward = cls(policy, variables, plan, rng)
        try:
            if not forward.matches_graph():
                return None
        except Exception:  # pylint: disable=broad-except
            return None
        return forward

    def refresh(self) -> None:
        """Read the weights from the graph (one session call) and build the fused layer matrices."""
        if self._fetch is None:
            self._fetch = self.sess.make_callable(self.variables)
        values = [np.ascontiguousarray(value, dtype=np.float32) for value in self._fetch()]
        plan = self.plan
        pos = 0

        def take():
            nonlocal pos
            pair = (values[pos], values[pos + 1])
            pos += 2
            return pair

        self._shared = [take() for _ in plan["shared"]]
        pi_layers = [take() for _ in plan["pi"]]
        vf_layers = [take() for _ in plan["vf"]]
        self._pi = take()
        self._vf = take()
        self._pi_layers, self._vf_layers = pi_layers, vf_layers
        self._row = None  # rebuilt from these weights when ``act`` next needs it
        if self.kind == "gaussian":
            self._logstd = values[pos].reshape(1, -1)
            self._std = np.exp(self._logstd)
        # Fuse the policy and value branches into one matrix per depth (block-diagonal after the first),
        # so that a step is one matmul per layer.
        self._fused = None
        if len(pi_layers) == len(vf_layers):
            fused = []
            for depth, ((w_pi, b_pi), (w_vf, b_vf)) in enumerate(zip(pi_layers + [self._pi], vf_layers + [self._vf])):
                if depth == 0:
                    weight = np.concatenate([w_pi, w_vf], axis=1)
                else:
                    weight = np.zeros((w_pi.shape[0] + w_vf.shape[0], w_pi.shape[1] + w_vf.shape[1]),
                                      dtype=np.float32)
                    weight[:w_pi.shape[0], :w_pi.shape[1]] = w_pi
                    weight[w_pi.shape[0]:, w_pi.shape[1]:] = w_vf
                fused.append((weight, np.concatenate([b_pi, b_vf])))
            self._fused = fused
        self.stale = False

    # ------------------------------------------------------------------------------------------
    def _inputs(self, obs) -> Optional[np.ndarray]:
        if self.stale:
            self.refresh()
        if self._box_obs:
            obs = np.asarray(obs)
            if obs.shape[1:] != self._obs_shape or obs.dtype.kind not in "fiub":
                return None
            x = obs.astype(np.float32, copy=False).reshape(obs.shape[0], self._n_in)
        else:
            x = nf.preprocess_observation(obs, self.ob_space)
            if x is None or x.ndim != 2 or x.shape[1] != self._n_in:
                return None
        if self.n_batch is not None and x.shape[0] != self.n_batch:
            return None
        return x

    def _forward(self, x: np.ndarray) -> Tuple[np.ndarray, np.ndarray]:
        """:return: (np.ndarray, np.ndarray) distribution parameters (batch, n_param), values (batch,)"""
        activation = self.activation
        for weight, bias in self._shared:
            x = activation(x @ weight + bias)
        fused = self._fused
        if fused is not None:
            last = len(fused) - 1
            for depth, (weight, bias) in enumerate(fused):
                x = x @ weight + bias
                if depth < last:
                    x = activation(x)
            return x[:, :self._n_param], x[:, self._n_param]
        latent_pi = latent_vf = x
        for weight, bias in self._pi_layers:
            latent_pi = activation(latent_pi @ weight + bias)
        for weight, bias in self._vf_layers:
            latent_vf = activation(latent_vf @ weight + bias)
        return latent_pi @ self._pi[0] + self._pi[1], (latent_vf @ self._vf[0] + self._vf[1])[:, 0]

    def step(self, obs, deterministic: bool = False) -> Optional[tuple]:
        """
        :return: ((np.ndarray, np.ndarray, None, np.ndarray) or None) actions, values, states, neglogp
        """
        x = self._inputs(obs)
        if x is None:
            return None
        param, value = self._forward(x)
        kind = self.kind
        if kind == "categorical":
            logp = nf.log_softmax(param)
            if deterministic:
                action = param.argmax(axis=-1)
            else:
                action = nf.categorical_sample(param, self.rng)
            neglogp = -logp[np.arange(logp.shape[0]), action]
        elif kind == "gaussian":
            if deterministic:
                action = param
            else:
                action = nf.gaussian_sample(param, self._std, self.rng)
            neglogp = nf.diag_gaussian_neglogp(param, self._logstd, action)
        elif kind == "bernoulli":
            probs = nf.sigmoid(param)
            if deterministic:
                action = np.round(probs).astype(np.float32)
            else:
                action = nf.bernoulli_sample(param, self.rng, probs)
            neglogp = nf.bernoulli_neglogp(param, action)
        else:  # multicategorical
            actions, neglogp = [], 0
            start = 0
            for n_cat in self.plan["nvec"]:
                logits = param[:, start:start + n_cat]
                start += n_cat
                logp = nf.log_softmax(logits)
                if deterministic:
                    act = logits.argmax(axis=-1)
                else:
                    act = nf.categorical_sample(logits, self.rng)
                actions.append(act)
                neglogp = neglogp - logp[np.arange(logp.shape[0]), act]
            action = np.stack(actions, axis=-1)
        return action, value, None, np.asarray(neglogp, dtype=np.float32)

    def act(self, obs: np.ndarray, deterministic: bool = False) -> Optional[np.ndarray]:
        """
        The actions only (the policy branch alone): what ``predict`` needs.

        :param obs: (np.ndarray) a batch of observations
        :param deterministic: (bool) the mode of the distribution instead of a sample
        :return: (np.ndarray or None) the actions, None if the graph must answer
        """
        kind = self.kind
        if kind == "multicategorical":
            out = self.step(obs, deterministic)
            return None if out is None else out[0]
        if self.stale:
            self.refresh()
        param = None
        if self._row_possible and type(obs) is np.ndarray and obs.shape[:1] == (1,) \
                and obs.shape[1:] == self._obs_shape and obs.dtype.kind in "fiub":  # pylint: disable=unidiomatic-typecheck
            row = self._row
            if row is None:
                row = self._row = nf.SingleRowStack(self._shared + self._pi_layers + [self._pi], self.activation)
            param = row(obs)  # a buffer the next call overwrites: nothing below returns it
        if param is None:
            x = self._inputs(obs)
            if x is None:
                return None
            activation = self.activation
            for weight, bias in self._shared:
                x = activation(x @ weight + bias)
            for weight, bias in self._pi_layers:
                x = activation(x @ weight + bias)
            param = x @ self._pi[0] + self._pi[1]
        if kind == "categorical":
            if deterministic:
                return param.argmax(axis=-1)
            if param.shape[0] == 1 and param.shape[1] <= 16:
                return np.array([nf.categorical_sample_row(param, self.rng)], dtype=np.int64)
            return nf.categorical_sample(param, self.rng)
        if kind == "gaussian":
            if deterministic:
                return param.copy()
            return nf.gaussian_sample(param, self._std, self.rng)
        probs = nf.sigmoid(param)
        if deterministic:
            return np.round(probs).astype(np.float32)
        return nf.bernoulli_sample(param, self.rng, probs)

    def proba(self, obs) -> Any:
        """:return: the ``policy_proba`` of the graph, or None"""
        x = self._inputs(obs)
        if x is None:
            return None
        param, _ = self._forward(x)
        kind = self.kind
        if kind == "categorical":
            return nf.softmax(param)
        if kind == "gaussian":
            return [param, np.broadcast_to(self._std, param.shape).copy()]
        if kind == "bernoulli":
            return nf.sigmoid(param)
        probas, start = [], 0
        for n_cat in self.plan["nvec"]:
            probas.append(nf.softmax(param[:, start:start + n_cat]))
            start += n_cat
        return probas

    def value(self, obs) -> Optional[np.ndarray]:
        """:return: (np.ndarray or None) the values, shape (batch,)"""
        x = self._inputs(obs)
        if x is None:
            return None
        return self._forward(x)[1]

    def matches_graph(self, n_rows: int = 5, rtol: float = 1e-4, atol: float = 1e-5) -> bool:
        """
        Compare the NumPy forward with the graph on random observations (deterministic actions,
        values, probabilities and neg-log-likelihoods).

        :return: (bool) whether they agree to float32 precision
        """
        policy = self.policy
        n_rows = n_rows if self.n_batch is None else self.n_batch
        obs = _probe_observation(policy.ob_space, n_rows)
        graph_out = policy.sess.run([policy.deterministic_action, policy.value_flat, policy.policy_proba],
                                    {policy.obs_ph: obs})
        numpy_step = self.step(obs, deterministic=True)
        numpy_proba = self.proba(obs)
        if numpy_step is None or numpy_proba is None:
            return False
        if numpy_step[0].shape != graph_out[0].shape or numpy_step[0].dtype != graph_out[0].dtype:
            return False
        if not np.allclose(numpy_step[1], graph_out[1], rtol=rtol, atol=atol):
            return False
        graph_probas = graph_out[2] if isinstance(graph_out[2], list) else [graph_out[2]]
        numpy_probas = numpy_proba if isinstance(numpy_proba, list) else [numpy_proba]
        if len(graph_probas) != len(numpy_probas):
            return False
        for left, right in zip(graph_probas, numpy_probas):
            if np.shape(left) != np.shape(right) or not np.allclose(left, right, rtol=rtol, atol=atol):
                return False
        graph_neglogp = policy.sess.run(policy.neglogp, {policy.obs_ph: obs, policy.action: numpy_step[0]})
        return bool(np.allclose(graph_neglogp, numpy_step[3], rtol=rtol, atol=1e-4))


def _probe_observation(ob_space: spaces.Space, n_rows: int) -> np.ndarray:
    """
    Random observations of a space from a private generator (no global or space RNG is touched).

    :param ob_space: (gymnasium.spaces.Space)
    :param n_rows: (int)
    :return: (np.ndarray) a batch of ``n_rows`` observations
    """
    rng = np.random.RandomState(1234)
    if isinstance(ob_space, spaces.Box):
        low = np.broadcast_to(np.asarray(ob_space.low, dtype=np.float64), ob_space.shape)
        high = np.broadcast_to(np.asarray(ob_space.high, dtype=np.float64), ob_space.shape)
        low = np.clip(np.where(np.isfinite(low), low, -2.0), -2.0, 2.0)
        high = np.maximum(np.clip(np.where(np.isfinite(high), high, 2.0), -2.0, 2.0), low)
        sample = rng.uniform(size=(n_rows,) + tuple(ob_space.shape)) * (high - low) + low
        return sample.astype(ob_space.dtype)
    if isinstance(ob_space, spaces.Discrete):
        return (rng.randint(0, int(ob_space.n), size=(n_rows,)) + int(getattr(ob_space, "start", 0) or 0))
    if isinstance(ob_space, spaces.MultiBinary):
        return rng.randint(0, 2, size=(n_rows,) + tuple(np.atleast_1d(ob_space.n))).astype(np.float32)
    if isinstance(ob_space, spaces.MultiDiscrete):
        nvec = np.asarray(ob_space.nvec).reshape(-1)
        start = np.asarray(getattr(ob_space, "start", np.zeros_like(nvec))).reshape(-1)
        return (rng.randint(0, 1 << 30, size=(n_rows, nvec.shape[0])) % nvec + start).astype(np.int64)
    raise NotImplementedError("no probe observation for {}".format(ob_space))
