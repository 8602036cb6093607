"""
Policies of DDPG: a deterministic actor (tanh output) and one Q-value critic.

DDPG does not use ``stable_baselines.common.policies``: its networks are built by ``make_actor`` (variable
scope ``pi``: ``fc0``, ``fc1``, ... then the tanh output layer ``pi``) and ``make_critic`` (variable scope
``qf``: ``fc0``, then the action is concatenated to the first hidden layer, ``fc1``, ..., then the linear
output ``qf_output``). With ``layer_norm=True`` each hidden layer is followed by a layer normalisation
(``LayerNorm``, ``LayerNorm_1``, ...). These are the variable names of the original library, so that its
model files load into them.
"""
from typing import Any, Optional

import numpy as np
from gymnasium import spaces

from stable_baselines.common.policies import BasePolicy, nature_cnn, register_policy
from stable_baselines.common.tf_compat import tf
from stable_baselines.common.tf_layers import dense, flatten
from stable_baselines.common.tf_layers import layer_norm as _layer_norm


class DDPGPolicy(BasePolicy):
    """
    Policy object that implements a DDPG-like actor critic

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
        if not isinstance(ac_space, spaces.Box) and type(ac_space).__name__ != "Box":
            raise ValueError("Error: DDPG only supports continuous action spaces (gym.spaces.Box), got {} ({})"
                             .format(type(ac_space).__name__, ac_space))
        super(DDPGPolicy, self).__init__(sess, ob_space, ac_space, n_env, n_steps, n_batch, reuse=reuse, scale=scale,
                                         add_action_ph=True)
        self.qvalue_fn = None
        self.policy = None

    def make_actor(self, obs: Optional[tf.Tensor] = None, reuse: bool = False, scope: str = "pi") -> tf.Tensor:
        """
        creates an actor object

        :param obs: (TensorFlow Tensor) The observation placeholder (can be None for default placeholder)
        :param reuse: (bool) whether or not to reuse parameters
        :param scope: (str) the scope name of the actor
        :return: (TensorFlow Tensor) the output tensor
        """
        raise NotImplementedError

    def make_critic(self, obs: Optional[tf.Tensor] = None, action: Optional[tf.Tensor] = None,
                    reuse: bool = False, scope: str = "qf") -> tf.Tensor:
        """
        creates a critic object

        :param obs: (TensorFlow Tensor) The observation placeholder (can be None for default placeholder)
        :param action: (TensorFlow Tensor) The action placeholder (can be None for default placeholder)
        :param reuse: (bool) whether or not to reuse parameters
        :param scope: (str) the scope name of the critic
        :return: (TensorFlow Tensor) the output tensor
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
        Returns the action probability for a single step

        :param obs: ([float] or [int]) The current observation of the environment
        :param state: ([float]) The last states (used in recurrent policies)
        :param mask: ([float]) The last masks (used in recurrent policies)
        :return: ([float]) the action probability
        """
        raise NotImplementedError

    def value(self, obs: np.ndarray, action: np.ndarray, state: Optional[np.ndarray] = None,
              mask: Optional[np.ndarray] = None) -> Any:
        """
        Returns the value for a single step

        :param obs: ([float] or [int]) The current observation of the environment
        :param action: ([float] or [int]) The taken action
        :param state: ([float]) The last states (used in recurrent policies)
        :param mask: ([float]) The last masks (used in recurrent policies)
        :return: ([float]) The associated value of the action
        """
        raise NotImplementedError


class FeedForwardPolicy(DDPGPolicy):
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

    def __init__(self, sess, ob_space, ac_space, n_env, n_steps, n_batch, reuse=False, layers=None,
                 cnn_extractor=nature_cnn, feature_extraction="cnn",
                 layer_norm=False, act_fun=tf.nn.relu, **kwargs):
        super(FeedForwardPolicy, self).__init__(sess, ob_space, ac_space, n_env, n_steps, n_batch, reuse=reuse,
                                                scale=(feature_extraction == "cnn"))
        self._kwargs_check(feature_extraction, kwargs)
        if feature_extraction not in ("cnn", "mlp"):
            raise ValueError("feature_extraction must be 'cnn' or 'mlp', got {!r}".format(feature_extraction))
        if layers is None:
            layers = [64, 64]
        layers = [int(size) for size in layers]
        if len(layers) < 1:
            raise ValueError("Error: must have at least one hidden layer for the policy, got layers={}"
                             .format(layers))
        self.layer_norm = layer_norm
        self.feature_extraction = feature_extraction
        self.cnn_kwargs = kwargs
        self.cnn_extractor = cnn_extractor
        self.reuse = reuse
        self._qvalue = None
        self.layers = layers
        self.activ = act_fun

    def _features(self, obs: tf.Tensor) -> tf.Tensor:
        """The CNN features (feature_extraction='cnn') or the flattened observation."""
        if self.feature_extraction == "cnn":
            return self.cnn_extractor(obs, **self.cnn_kwargs)
        return flatten(obs)

    def _hidden(self, hidden: tf.Tensor, index: int, size: int) -> tf.Tensor:
        """One hidden layer: dense ``fc<index>``, optional layer normalisation, activation."""
        hidden = dense(hidden, size, name="fc" + str(index))
        if self.layer_norm:
            hidden = _layer_norm(hidden, center=True, scale=True)
        return self.activ(hidden)

    def make_actor(self, obs: Optional[tf.Tensor] = None, reuse: bool = False, scope: str = "pi") -> tf.Tensor:
        if obs is None:
            obs = self.processed_obs

        with tf.variable_scope(scope, reuse=reuse):
            pi_h = self._features(obs)
            for i, layer_size in enumerate(self.layers):
                pi_h = self._hidden(pi_h, i, layer_size)
            n_actions = int(self.ac_space.shape[0])
            self.policy = tf.nn.tanh(dense(pi_h, n_actions, name=scope,
                                           kernel_initializer=tf.random_uniform_initializer(minval=-3e-3,
                                                                                            maxval=3e-3)))
        return self.policy

    def make_critic(self, obs: Optional[tf.Tensor] = None, action: Optional[tf.Tensor] = None,
                    reuse: bool = False, scope: str = "qf") -> tf.Tensor:
        if obs is None:
            obs = self.processed_obs
        if action is None:
            action = self.action_ph

        with tf.variable_scope(scope, reuse=reuse):
            qf_h = self._features(obs)
            for i, layer_size in enumerate(self.layers):
                qf_h = self._hidden(qf_h, i, layer_size)
                if i == 0:
                    # the action enters the network after the first hidden layer
                    qf_h = tf.concat([qf_h, tf.cast(action, qf_h.dtype)], axis=-1)

            qvalue_fn = dense(qf_h, 1, name="qf_output",
                              kernel_initializer=tf.random_uniform_initializer(minval=-3e-3, maxval=3e-3))

            self.qvalue_fn = qvalue_fn
            self._qvalue = qvalue_fn[:, 0]
        return self.qvalue_fn

    def step(self, obs: np.ndarray, state: Optional[np.ndarray] = None, mask: Optional[np.ndarray] = None) -> Any:
        if self.policy is None:
            raise RuntimeError("The actor has not been built: call make_actor() before step()")
        return self.sess.run(self.policy, {self.obs_ph: obs})

    def proba_step(self, obs: np.ndarray, state: Optional[np.ndarray] = None, mask: Optional[np.ndarray] = None) -> Any:
        return self.step(obs, state, mask)

    def value(self, obs: np.ndarray, action: np.ndarray, state: Optional[np.ndarray] = None,
              mask: Optional[np.ndarray] = None) -> Any:
        if self._qvalue is None:
            raise RuntimeError("The critic has not been built: call make_critic() before value()")
        return self.sess.run(self._qvalue, {self.obs_ph: obs, self.action_ph: action})


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

    def __init__(self, sess, ob_space, ac_space, n_env, n_steps, n_batch, reuse=False, **_kwargs):
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

    def __init__(self, sess, ob_space, ac_space, n_env, n_steps, n_batch, reuse=False, **_kwargs):
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

    def __init__(self, sess, ob_space, ac_space, n_env, n_steps, n_batch, reuse=False, **_kwargs):
        super(LnMlpPolicy, self).__init__(sess, ob_space, ac_space, n_env, n_steps, n_batch, reuse,
                                          feature_extraction="mlp", layer_norm=True, **_kwargs)


register_policy("CnnPolicy", CnnPolicy)
register_policy("LnCnnPolicy", LnCnnPolicy)
register_policy("MlpPolicy", MlpPolicy)
register_policy("LnMlpPolicy", LnMlpPolicy)

__all__ = ["DDPGPolicy", "FeedForwardPolicy", "CnnPolicy", "LnCnnPolicy", "MlpPolicy", "LnMlpPolicy"]
