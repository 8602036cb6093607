"""
Policies of TD3: a deterministic actor (tanh output) and two Q-value critics (clipped double Q-learning).

TD3 does not use ``stable_baselines.common.policies``: its networks are built by ``make_actor`` (variable
scope ``pi``: ``fc0``, ``fc1``, ..., then the tanh output layer ``dense``) and ``make_critics`` (variable
scope ``values_fn``, with ``qf1`` and ``qf2`` each taking the features concatenated with the action:
``qf1/fc0``, ..., ``qf1/qf1``), with the variable names of the original library so that its model files
load into them.
"""
from typing import Any, Optional, Tuple

import numpy as np
from gymnasium import spaces

from stable_baselines.common import numpy_forward as nf
from stable_baselines.common.policies import BasePolicy, nature_cnn, register_policy
from stable_baselines.common.tf_compat import tf
from stable_baselines.common.tf_layers import dense, flatten, mlp


class TD3Policy(BasePolicy):
    """
    Policy object that implements a TD3-like actor critic

    :param sess: (TensorFlow session) The current TensorFlow session
    :param ob_space: (Gym Space) The observation space of the environment
    :param ac_space: (Gym Space) The action space of the environment
    :param n_env: (int) The number of environments to run
    :param n_steps: (int) The number of steps to run for each environment
    :param n_batch: (int) The number of batch to run (n_envs * n_steps)
    :param reuse: (bool) If the policy is reusable or not
    :param scale: (bool) whether or not to scale the input
    """

    def __init__(self, sess, ob_space, ac_space, n_env=1, n_steps=1, n_batch=None, reuse=False, scale=False):
        super(TD3Policy, self).__init__(sess, ob_space, ac_space, n_env, n_steps, n_batch, reuse=reuse, scale=scale)
        if not isinstance(self.ac_space, spaces.Box):
            raise ValueError("Error: TD3 only supports continuous (Box) action spaces, got {} ({})"
                             .format(type(self.ac_space).__name__, self.ac_space))
        self.qf1 = None
        self.qf2 = None
        self.policy = None

    def make_actor(self, obs: Optional[tf.Tensor] = None, reuse: bool = False, scope: str = "pi") -> tf.Tensor:
        """
        Creates an actor object

        :param obs: (TensorFlow Tensor) The observation placeholder (can be None for default placeholder)
        :param reuse: (bool) whether or not to reuse parameters
        :param scope: (str) the scope name of the actor
        :return: (TensorFlow Tensor) the output tensor
        """
        raise NotImplementedError

    def make_critics(self, obs: Optional[tf.Tensor] = None, action: Optional[tf.Tensor] = None,
                     reuse: bool = False, scope: str = "values_fn") -> Tuple[tf.Tensor, tf.Tensor]:
        """
        Creates the two Q-Values approximator

        :param obs: (TensorFlow Tensor) The observation placeholder (can be None for default placeholder)
        :param action: (TensorFlow Tensor) The action placeholder
        :param reuse: (bool) whether or not to reuse parameters
        :param scope: (str) the scope name
        :return: ([tf.Tensor]) Mean, action and log probability
        """
        raise NotImplementedError

    def step(self, obs: np.ndarray, state: Optional[np.ndarray] = None, mask: Optional[np.ndarray] = None) -> Any:
        """
        Returns the policy for a single step

        :param obs: ([float] or [int]) The current observation of the environment
        :param state: ([float]) The last states (used in recurrent policies)
        :param mask: ([float]) The last masks (used in recurrent policies)
        :return: ([float]) actions
        """
        raise NotImplementedError

    def proba_step(self, obs: np.ndarray, state: Optional[np.ndarray] = None, mask: Optional[np.ndarray] = None) -> Any:
        """
        Returns the policy for a single step

        :param obs: ([float] or [int]) The current observation of the environment
        :param state: ([float]) The last states (used in recurrent policies)
        :param mask: ([float]) The last masks (used in recurrent policies)
        :return: ([float]) actions
        """
        return self.step(obs, state, mask)


class FeedForwardPolicy(TD3Policy):
    """
    Policy object that implements a DDPG-like actor critic, using a feed forward neural network.

    :param sess: (TensorFlow session) The current TensorFlow session
    :param ob_space: (Gym Space) The observation space of the environment
    :param ac_space: (Gym Space) The action space of the environment
    :param n_env: (int) The number of environments to run
    :param n_steps: (int) The number of steps to run for each environment
    :param n_batch: (int) The number of batch to run (n_envs * n_steps)
    :param reuse: (bool) If the policy is reusable or not
    :param layers: ([int]) The size of the Neural network for the policy (if None, default to [64, 64])
    :param cnn_extractor: (function (TensorFlow Tensor, ``**kwargs``): (TensorFlow Tensor)) the CNN feature extraction
    :param feature_extraction: (str) The feature extraction type ("cnn" or "mlp")
    :param layer_norm: (bool) enable layer normalisation
    :param act_fun: (tf.func) the activation function to use in the neural network.
    :param kwargs: (dict) Extra keyword arguments for the nature CNN feature extraction
    """

    def __init__(self, sess, ob_space, ac_space, n_env=1, n_steps=1, n_batch=None, reuse=False, layers=None,
                 cnn_extractor=nature_cnn, feature_extraction="cnn",
                 layer_norm=False, act_fun=tf.nn.relu, **kwargs):
        super(FeedForwardPolicy, self).__init__(sess, ob_space, ac_space, n_env, n_steps, n_batch,
                                                reuse=reuse, scale=(feature_extraction == "cnn"))

        self._kwargs_check(feature_extraction, kwargs)
        if feature_extraction not in ("cnn", "mlp"):
            raise ValueError("feature_extraction must be 'cnn' or 'mlp', got {!r}".format(feature_extraction))
        self.layer_norm = layer_norm
        self.feature_extraction = feature_extraction
        self.cnn_kwargs = kwargs
        self.cnn_extractor = cnn_extractor
        self.reuse = reuse
        if layers is None:
            layers = [64, 64]
        layers = list(layers)
        if len(layers) < 1:
            raise ValueError("Error: must have at least one hidden layer for the policy, got layers={}"
                             .format(layers))
        self.layers = layers
        self.activ_fn = act_fun

    def _features(self, obs: tf.Tensor) -> tf.Tensor:
        """The CNN features (feature_extraction='cnn') or the flattened observation."""
        if self.feature_extraction == "cnn":
            return self.cnn_extractor(obs, **self.cnn_kwargs)
        return flatten(obs)

    def make_actor(self, obs: Optional[tf.Tensor] = None, reuse: bool = False, scope: str = "pi") -> tf.Tensor:
        if obs is None:
            obs = self.processed_obs

        with tf.variable_scope(scope, reuse=reuse):
            # the actor acting on the policy's own observations can be computed in NumPy (enable_numpy_forward)
            self._numpy_actor_scope = tf.get_variable_scope().name if obs is self.processed_obs else None
            pi_h = mlp(self._features(obs), self.layers, self.activ_fn, layer_norm=self.layer_norm)
            n_actions = int(self.ac_space.shape[0])
            self.policy = policy = dense(pi_h, n_actions, activation=tf.tanh)

        return policy

    def make_critics(self, obs: Optional[tf.Tensor] = None, action: Optional[tf.Tensor] = None,
                     reuse: bool = False, scope: str = "values_fn") -> Tuple[tf.Tensor, tf.Tensor]:
        if obs is None:
            obs = self.processed_obs
        if action is None:
            raise ValueError("make_critics needs the action tensor (got action=None)")

        with tf.variable_scope(scope, reuse=reuse):
            critics_h = self._features(obs)
            # Concatenate the preprocessed observation and the action
            qf_h = tf.concat([critics_h, tf.cast(action, critics_h.dtype)], axis=-1)

            # Double Q values to reduce overestimation
            with tf.variable_scope('qf1', reuse=reuse):
                qf1_h = mlp(qf_h, self.layers, self.activ_fn, layer_norm=self.layer_norm)
                qf1 = dense(qf1_h, 1, name="qf1")

            with tf.variable_scope('qf2', reuse=reuse):
                qf2_h = mlp(qf_h, self.layers, self.activ_fn, layer_norm=self.layer_norm)
                qf2 = dense(qf2_h, 1, name="qf2")

            self.qf1 = qf1
            self.qf2 = qf2

        return self.qf1, self.qf2

    def step(self, obs: np.ndarray, state: Optional[np.ndarray] = None, mask: Optional[np.ndarray] = None) -> Any:
        if self.policy is None:
            raise RuntimeError("The actor has not been built: call make_actor() before step()")
        forward = self._numpy_forward
        if forward is not None:
            out = forward.step(obs)
            if out is not None:
                return out
        return self.sess.run(self.policy, {self.obs_ph: obs})

    def enable_numpy_forward(self, rng=None) -> bool:
        """
        Let ``step`` compute the actor in NumPy from a copy of its weights instead of calling the session
        (see :mod:`stable_baselines.common.numpy_forward`): an MLP actor built by ``make_actor`` on the policy's
        own observations, with a supported activation. The copy is read from the graph on first use and after
        :meth:`invalidate_numpy_forward`; TD3 also hands it the weights fetched with every actor update.

        :param rng: (np.random.Generator) unused (the actor is deterministic), for a uniform interface
        :return: (bool) whether the NumPy path is active
        """
        del rng
        self._numpy_forward = None
        scope = getattr(self, "_numpy_actor_scope", None)
        if scope is None or self.feature_extraction != "mlp" or not nf.numpy_forward_enabled():
            return False
        cls = type(self)
        for method in ("step", "make_actor", "_features"):
            if getattr(cls, method) is not getattr(FeedForwardPolicy, method):
                return False
        activation = nf.numpy_activation(self.activ_fn)
        if activation is None or not isinstance(self.ob_space, (spaces.Box, spaces.Discrete, spaces.MultiBinary,
                                                                spaces.MultiDiscrete)):
            return False
        variables = self.sess.graph.get_collection(tf.GraphKeys.TRAINABLE_VARIABLES, scope=scope + "/")
        expected = []
        for idx in range(len(self.layers)):
            expected += ["fc{}/kernel:0".format(idx), "fc{}/bias:0".format(idx)]
            if self.layer_norm:
                norm = "LayerNorm" if idx == 0 else "LayerNorm_{}".format(idx)
                expected += [norm + "/beta:0", norm + "/gamma:0"]
        expected += ["dense/kernel:0", "dense/bias:0"]
        if [var.name[len(scope) + 1:] for var in variables] != expected:
            return False
        self._numpy_forward = _NumpyTD3Actor(self, variables, activation)
        return True

    def disable_numpy_forward(self) -> None:
        """Go back to computing ``step`` with the TensorFlow graph."""
        self._numpy_forward = None


class _NumpyTD3Actor(nf.NumpyNetworkCopy):
    """
    The TD3 actor of a :class:`FeedForwardPolicy` in NumPy: the graph's float32 arithmetic (dense stack,
    optional layer norm, tanh head). ``step`` returns None for inputs it cannot answer exactly (the policy then
    runs the graph).

    :param policy: (FeedForwardPolicy) the policy
    :param variables: ([tf.Variable]) the actor's variables in creation order
    :param activation: (callable) the NumPy activation
    """

    def __init__(self, policy, variables, activation):
        super().__init__(policy, variables, activation)
        self._layers, self._norms = None, None

    def set_weights(self, values) -> None:
        values = list(values)
        layers, norms, _ = nf.dense_stack_weights(values, self.n_hidden, self.layer_norm)
        layers.append((values[-2], values[-1]))
        self._layers = layers
        self._norms = (norms + [None]) if self.layer_norm else None
        self._row = None
        self.stale = False

    def row_layers(self):
        """:return: ([(np.ndarray, np.ndarray)]) the hidden layers and the output layer (before the tanh)"""
        return self._layers

    def step(self, obs: np.ndarray):
        """
        :param obs: (np.ndarray) a batch of observations
        :return: (np.ndarray or None) float32 actions in [-1, 1]
        """
        features = self.features(obs)
        if features is None:
            return None
        out = nf.mlp_forward(features, self._layers, self.activation, activate_last=False, layer_norms=self._norms)
        return np.tanh(out, out=out)


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

    def __init__(self, sess, ob_space, ac_space, n_env=1, n_steps=1, n_batch=None, reuse=False, **_kwargs):
        super(CnnPolicy, self).__init__(sess, ob_space, ac_space, n_env, n_steps, n_batch, reuse,
                                        feature_extraction="cnn", **_kwargs)


class LnCnnPolicy(FeedForwardPolicy):
    """
    Policy object that implements actor critic, using a CNN (the nature CNN), with layer normalisation

    :param sess: (TensorFlow session) The current TensorFlow session
    :param ob_space: (Gym Space) The observation space of the environment
    :param ac_space: (Gym Space) The action space of the environment
    :param n_env: (int) The number of environments to run
    :param n_steps: (int) The number of steps to run for each environment
    :param n_batch: (int) The number of batch to run (n_envs * n_steps)
    :param reuse: (bool) If the policy is reusable or not
    :param _kwargs: (dict) Extra keyword arguments for the nature CNN feature extraction
    """

    def __init__(self, sess, ob_space, ac_space, n_env=1, n_steps=1, n_batch=None, reuse=False, **_kwargs):
        super(LnCnnPolicy, self).__init__(sess, ob_space, ac_space, n_env, n_steps, n_batch, reuse,
                                          feature_extraction="cnn", layer_norm=True, **_kwargs)


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

    def __init__(self, sess, ob_space, ac_space, n_env=1, n_steps=1, n_batch=None, reuse=False, **_kwargs):
        super(MlpPolicy, self).__init__(sess, ob_space, ac_space, n_env, n_steps, n_batch, reuse,
                                        feature_extraction="mlp", **_kwargs)


class LnMlpPolicy(FeedForwardPolicy):
    """
    Policy object that implements actor critic, using a MLP (2 layers of 64), with layer normalisation

    :param sess: (TensorFlow session) The current TensorFlow session
    :param ob_space: (Gym Space) The observation space of the environment
    :param ac_space: (Gym Space) The action space of the environment
    :param n_env: (int) The number of environments to run
    :param n_steps: (int) The number of steps to run for each environment
    :param n_batch: (int) The number of batch to run (n_envs * n_steps)
    :param reuse: (bool) If the policy is reusable or not
    :param _kwargs: (dict) Extra keyword arguments for the nature CNN feature extraction
    """

    def __init__(self, sess, ob_space, ac_space, n_env=1, n_steps=1, n_batch=None, reuse=False, **_kwargs):
        super(LnMlpPolicy, self).__init__(sess, ob_space, ac_space, n_env, n_steps, n_batch, reuse,
                                          feature_extraction="mlp", layer_norm=True, **_kwargs)


register_policy("CnnPolicy", CnnPolicy)
register_policy("LnCnnPolicy", LnCnnPolicy)
register_policy("MlpPolicy", MlpPolicy)
register_policy("LnMlpPolicy", LnMlpPolicy)

__all__ = ["TD3Policy", "FeedForwardPolicy", "CnnPolicy", "LnCnnPolicy", "MlpPolicy", "LnMlpPolicy"]
