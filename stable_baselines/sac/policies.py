"""
Policies of Soft Actor-Critic (SAC): a squashed Gaussian actor (scope ``pi``) and the critics
(scope ``values_fn``: a state value function ``vf`` and two Q-functions ``qf1`` / ``qf2``).

Variable names follow the original library (``model/pi/fc0/kernel``, ``model/pi/dense/kernel`` for
the mean, ``model/pi/dense_1/kernel`` for the log standard deviation, ``model/values_fn/vf/vf/kernel``,
``model/values_fn/qf1/qf1/kernel``, ...), so that model files saved by the original load into them.
"""
from typing import List, Tuple

import numpy as np
from gymnasium import spaces

from stable_baselines.common import numpy_forward as nf
from stable_baselines.common.policies import BasePolicy, nature_cnn, register_policy
from stable_baselines.common.tf_compat import tf
from stable_baselines.common.tf_layers import dense, flatten, mlp

EPS = 1e-6  # Avoid NaN (prevents division by zero or log of zero)
# Bounds of the log standard deviation of the actor (original implementation)
LOG_STD_MAX = 2
LOG_STD_MIN = -20


def gaussian_likelihood(input_: tf.Tensor, mu_: tf.Tensor, log_std: tf.Tensor) -> tf.Tensor:
    """
    Helper to compute the log likelihood of a diagonal Gaussian.

    :param input_: (tf.Tensor) the sample, shape (batch, n_act)
    :param mu_: (tf.Tensor) the mean
    :param log_std: (tf.Tensor) the log of the standard deviation
    :return: (tf.Tensor) the log likelihood, shape (batch,)
    """
    normalized = (input_ - mu_) / (tf.exp(log_std) + EPS)
    per_dim = -0.5 * (tf.square(normalized) + 2.0 * log_std + np.log(2.0 * np.pi))
    return tf.reduce_sum(per_dim, axis=1)


def gaussian_entropy(log_std: tf.Tensor) -> tf.Tensor:
    """
    Compute the entropy of a diagonal Gaussian distribution.

    :param log_std: (tf.Tensor) the log of the standard deviation
    :return: (tf.Tensor) the entropy, shape (batch,)
    """
    return tf.reduce_sum(log_std + 0.5 * np.log(2.0 * np.pi * np.e), axis=-1)


def clip_but_pass_gradient(input_: tf.Tensor, lower: float = -1., upper: float = 1.) -> tf.Tensor:
    """
    Clip the values of a tensor in the forward pass while letting the gradient through unchanged.

    :param input_: (tf.Tensor)
    :param lower: (float) lower bound
    :param upper: (float) upper bound
    :return: (tf.Tensor)
    """
    clip_up = tf.cast(input_ > upper, tf.float32)
    clip_low = tf.cast(input_ < lower, tf.float32)
    return input_ + tf.stop_gradient((upper - input_) * clip_up + (lower - input_) * clip_low)


def apply_squashing_func(mu_: tf.Tensor, pi_: tf.Tensor, logp_pi: tf.Tensor) -> Tuple[tf.Tensor, tf.Tensor, tf.Tensor]:
    """
    Squash the output of the Gaussian distribution with a tanh and account for it in the log
    probability (change of variables: log pi(a) = log mu(u) - sum log(1 - tanh(u)^2)).

    :param mu_: (tf.Tensor) Mean of the gaussian
    :param pi_: (tf.Tensor) Output of the policy before squashing (a sample)
    :param logp_pi: (tf.Tensor) Log probability of the sample before squashing
    :return: ([tf.Tensor]) the deterministic action tanh(mu), the squashed sample, its log probability
    """
    deterministic_policy = tf.tanh(mu_)
    policy = tf.tanh(pi_)
    # Squash correction (as in the original SAC implementation)
    logp_pi -= tf.reduce_sum(tf.log(1 - policy ** 2 + EPS), axis=1)
    return deterministic_policy, policy, logp_pi


class SACPolicy(BasePolicy):
    """
    Policy object that implements a SAC-like actor critic

    :param sess: (TensorFlow session) The current TensorFlow session
    :param ob_space: (Gym Space) The observation space of the environment
    :param ac_space: (Gym Space) The action space of the environment (must be a Box)
    :param n_env: (int) The number of environments to run
    :param n_steps: (int) The number of steps to run for each environment
    :param n_batch: (int) The number of batch to run (n_envs * n_steps)
    :param reuse: (bool) If the policy is reusable or not
    :param scale: (bool) whether or not to scale the input
    """

    def __init__(self, sess, ob_space, ac_space, n_env=1, n_steps=1, n_batch=None, reuse=False, scale=False):
        super(SACPolicy, self).__init__(sess, ob_space, ac_space, n_env, n_steps, n_batch, reuse=reuse, scale=scale)
        if not isinstance(self.ac_space, spaces.Box):
            raise ValueError("Error: SAC policies need a continuous action space of type gymnasium.spaces.Box, "
                             "got {}".format(self.ac_space))
        self.qf1 = None
        self.qf2 = None
        self.value_fn = None
        self.policy = None
        self.deterministic_policy = None
        self.act_mu = None
        self.std = None

    def make_actor(self, obs=None, reuse=False, scope="pi"):
        """
        Creates an actor object

        :param obs: (TensorFlow Tensor) The observation placeholder (can be None for default placeholder)
        :param reuse: (bool) whether or not to reuse parameters
        :param scope: (str) the scope name of the actor
        :return: (TensorFlow Tensor) the output tensor
        """
        raise NotImplementedError

    def make_critics(self, obs=None, action=None, reuse=False,
                     scope="values_fn", create_vf=True, create_qf=True):
        """
        Creates the two Q-Values approximator along with the Value function

        :param obs: (TensorFlow Tensor) The observation placeholder (can be None for default placeholder)
        :param action: (TensorFlow Tensor) The action placeholder
        :param reuse: (bool) whether or not to reuse parameters
        :param scope: (str) the scope name
        :param create_vf: (bool) Whether to create Value fn or not
        :param create_qf: (bool) Whether to create Q-Values fn or not
        :return: ([tf.Tensor]) Mean, action and log probability
        """
        raise NotImplementedError

    def step(self, obs, state=None, mask=None, deterministic=False):
        """
        Returns the policy for a single step

        :param obs: ([float] or [int]) The current observation of the environment
        :param state: ([float]) The last states (used in recurrent policies)
        :param mask: ([float]) The last masks (used in recurrent policies)
        :param deterministic: (bool) Whether or not to return deterministic actions.
        :return: ([float]) actions
        """
        raise NotImplementedError

    def proba_step(self, obs, state=None, mask=None):
        """
        Returns the action probability params (mean, std) for a single step

        :param obs: ([float] or [int]) The current observation of the environment
        :param state: ([float]) The last states (used in recurrent policies)
        :param mask: ([float]) The last masks (used in recurrent policies)
        :return: ([float], [float])
        """
        raise NotImplementedError


class FeedForwardPolicy(SACPolicy):
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
    :param reg_weight: (float) Regularization loss weight for the policy parameters
    :param act_fun: (tf.func) the activation function to use in the neural network.
    :param kwargs: (dict) Extra keyword arguments for the nature CNN feature extraction
    """

    def __init__(self, sess, ob_space, ac_space, n_env=1, n_steps=1, n_batch=None, reuse=False, layers=None,
                 cnn_extractor=nature_cnn, feature_extraction="cnn", reg_weight=0.0,
                 layer_norm=False, act_fun=tf.nn.relu, **kwargs):
        super(FeedForwardPolicy, self).__init__(sess, ob_space, ac_space, n_env, n_steps, n_batch,
                                                reuse=reuse, scale=(feature_extraction == "cnn"))
        if feature_extraction not in ("cnn", "mlp"):
            raise ValueError("Error: feature_extraction must be 'cnn' or 'mlp', got {!r}".format(feature_extraction))
        self._kwargs_check(feature_extraction, kwargs)
        self.layer_norm = layer_norm
        self.feature_extraction = feature_extraction
        self.cnn_kwargs = kwargs
        self.cnn_extractor = cnn_extractor
        self.reuse = reuse
        if layers is None:
            layers = [64, 64]
        self.layers = list(layers)
        self.reg_loss = None
        self.reg_weight = reg_weight
        self.entropy = None
        if len(self.layers) < 1:
            raise ValueError("Error: must have at least one hidden layer for the policy, got layers={!r}"
                             .format(layers))
        self.activ_fn = act_fun

    def _features(self, obs: tf.Tensor) -> tf.Tensor:
        """Feature extraction shared by the actor and the critics (CNN or flattening)."""
        if self.feature_extraction == "cnn":
            return self.cnn_extractor(obs, **self.cnn_kwargs)
        return flatten(obs)

    def make_actor(self, obs=None, reuse=False, scope="pi"):
        if obs is None:
            obs = self.processed_obs

        n_act = int(self.ac_space.shape[0])
        with tf.variable_scope(scope, reuse=reuse):
            # the actor acting on the policy's own observations can be computed in NumPy (enable_numpy_forward)
            self._numpy_actor_scope = tf.get_variable_scope().name if obs is self.processed_obs else None
            pi_h = self._features(obs)
            pi_h = mlp(pi_h, self.layers, self.activ_fn, layer_norm=self.layer_norm)
            # mean: `dense`, log std: `dense_1` (the std depends on the state, unlike PPO's
            # state-independent logstd, so common.distributions is not used here)
            self.act_mu = mu_ = dense(pi_h, n_act, activation=None)
            log_std = dense(pi_h, n_act, activation=None)

        # Original implementation: hard clipping of the log std
        log_std = tf.clip_by_value(log_std, LOG_STD_MIN, LOG_STD_MAX)
        self.std = std = tf.exp(log_std)
        # Reparameterization trick
        pi_ = mu_ + tf.random_normal(tf.shape(mu_)) * std
        logp_pi = gaussian_likelihood(pi_, mu_, log_std)
        self.entropy = gaussian_entropy(log_std)
        # Apply squashing and account for it in the probability
        deterministic_policy, policy, logp_pi = apply_squashing_func(mu_, pi_, logp_pi)
        self.policy = policy
        self.deterministic_policy = deterministic_policy
        return deterministic_policy, policy, logp_pi

    def make_critics(self, obs=None, action=None, reuse=False, scope="values_fn",
                     create_vf=True, create_qf=True):
        if obs is None:
            obs = self.processed_obs
        if create_qf and action is None:
            raise ValueError("make_critics(create_qf=True) needs the action tensor, got action=None")

        with tf.variable_scope(scope, reuse=reuse):
            critics_h = self._features(obs)

            if create_vf:
                # Value function
                with tf.variable_scope('vf', reuse=reuse):
                    vf_h = mlp(critics_h, self.layers, self.activ_fn, layer_norm=self.layer_norm)
                    value_fn = dense(vf_h, 1, name="vf")
                self.value_fn = value_fn

            if create_qf:
                # Concatenate preprocessed state and action
                qf_h = tf.concat([critics_h, action], axis=-1)

                # Double Q values to reduce overestimation
                with tf.variable_scope('qf1', reuse=reuse):
                    qf1_h = mlp(qf_h, self.layers, self.activ_fn, layer_norm=self.layer_norm)
                    qf1 = dense(qf1_h, 1, name="qf1")

                with tf.variable_scope('qf2', reuse=reuse):
                    qf2_h = mlp(qf_h, self.layers, self.activ_fn, layer_norm=self.layer_norm)
                    qf2 = dense(qf2_h, 1, name="qf2")

                self.qf1 = qf1
                self.qf2 = qf2

        return self.qf1, self.qf2, self.value_fn

    def step(self, obs: np.ndarray, state=None, mask=None, deterministic: bool = False) -> np.ndarray:
        forward = self._numpy_forward
        if forward is not None:
            out = forward.step(obs, deterministic)
            if out is not None:
                return out
        if deterministic:
            return self.sess.run(self.deterministic_policy, {self.obs_ph: obs})
        return self.sess.run(self.policy, {self.obs_ph: obs})

    def proba_step(self, obs: np.ndarray, state=None, mask=None) -> List[np.ndarray]:
        forward = self._numpy_forward
        if forward is not None:
            out = forward.proba(obs)
            if out is not None:
                return out
        return self.sess.run([self.act_mu, self.std], {self.obs_ph: obs})

    def enable_numpy_forward(self, rng=None) -> bool:
        """
        Let ``step`` and ``proba_step`` compute the actor in NumPy from a copy of its weights instead of
        calling the session (see :mod:`stable_baselines.common.numpy_forward`): an MLP actor built by
        ``make_actor`` on the policy's own observations, with a supported activation. The copy is read from
        the graph on first use and after :meth:`invalidate_numpy_forward`; SAC also hands it the weights
        fetched with every training step. Stochastic actions draw their noise from ``rng``.

        :param rng: (np.random.Generator) the generator of stochastic actions (None: a fresh unseeded one)
        :return: (bool) whether the NumPy path is active
        """
        self._numpy_forward = None
        scope = getattr(self, "_numpy_actor_scope", None)
        if scope is None or self.feature_extraction != "mlp" or not nf.numpy_forward_enabled():
            return False
        cls = type(self)
        for method in ("step", "proba_step", "make_actor", "_features"):
            if getattr(cls, method) is not getattr(FeedForwardPolicy, method):
                return False
        activation = nf.numpy_activation(self.activ_fn)
        if activation is None or not _numpy_obs_supported(self.ob_space):
            return False
        variables = self.sess.graph.get_collection(tf.GraphKeys.TRAINABLE_VARIABLES, scope=scope + "/")
        expected = _dense_stack_names(len(self.layers), self.layer_norm, ["dense", "dense_1"])
        if [var.name[len(scope) + 1:] for var in variables] != expected:
            return False
        self._numpy_forward = _NumpySACActor(self, variables, activation, rng)
        return True

    def disable_numpy_forward(self) -> None:
        """Go back to computing ``step`` and ``proba_step`` with the TensorFlow graph."""
        self._numpy_forward = None


def _numpy_obs_supported(ob_space) -> bool:
    return isinstance(ob_space, (spaces.Box, spaces.Discrete, spaces.MultiBinary, spaces.MultiDiscrete))


def _dense_stack_names(n_hidden: int, layer_norm: bool, heads: List[str]) -> List[str]:
    """Variable names (relative to the actor scope) of ``tf_layers.mlp`` + dense heads, in creation order."""
    names = []
    for idx in range(n_hidden):
        names += ["fc{}/kernel:0".format(idx), "fc{}/bias:0".format(idx)]
        if layer_norm:
            norm = "LayerNorm" if idx == 0 else "LayerNorm_{}".format(idx)
            names += [norm + "/beta:0", norm + "/gamma:0"]
    for head in heads:
        names += [head + "/kernel:0", head + "/bias:0"]
    return names


class _NumpySACActor(nf.NumpyNetworkCopy):
    """
    The SAC actor of a :class:`FeedForwardPolicy` in NumPy: the same float32 arithmetic as the graph
    (dense stack, optional layer norm, mean and clipped log std heads, tanh squashing). Methods return
    None for inputs they cannot answer exactly (the policy then runs the graph).

    :param policy: (FeedForwardPolicy) the policy
    :param variables: ([tf.Variable]) the actor's variables in creation order
    :param activation: (callable) the NumPy activation
    :param rng: (np.random.Generator) the generator of the Gaussian noise of stochastic actions
    """

    def __init__(self, policy, variables, activation, rng=None):
        super().__init__(policy, variables, activation)
        self.rng = rng if rng is not None else nf.make_rng(None)
        self._hidden, self._norms, self._mean, self._log_std = None, None, None, None

    def set_weights(self, values: List[np.ndarray]) -> None:
        values = list(values)
        self._hidden, self._norms, pos = nf.dense_stack_weights(values, self.n_hidden, self.layer_norm)
        self._mean, self._log_std = (values[pos], values[pos + 1]), (values[pos + 2], values[pos + 3])
        self._row = None
        self.stale = False

    def row_layers(self):
        """:return: ([(np.ndarray, np.ndarray)]) the hidden layers and the mean head (deterministic actions)"""
        return self._hidden + [self._mean]

    def _latent(self, obs: np.ndarray):
        features = self.features(obs)
        if features is None:
            return None
        return nf.mlp_forward(features, self._hidden, self.activation, layer_norms=self._norms)

    def _heads(self, obs: np.ndarray):
        latent = self._latent(obs)
        if latent is None:
            return None
        mean = nf.dense(latent, *self._mean)
        log_std = np.clip(nf.dense(latent, *self._log_std), LOG_STD_MIN, LOG_STD_MAX)
        return mean, log_std

    def step(self, obs: np.ndarray, deterministic: bool = False):
        """
        :param obs: (np.ndarray) a batch of observations
        :param deterministic: (bool) tanh of the mean, else tanh of a Gaussian sample
        :return: (np.ndarray or None) float32 actions in [-1, 1]
        """
        if deterministic:
            latent = self._latent(obs)
            if latent is None:
                return None
            mean = nf.dense(latent, *self._mean)
            return np.tanh(mean, out=mean)
        heads = self._heads(obs)
        if heads is None:
            return None
        mean, log_std = heads
        noise = self.rng.standard_normal(mean.shape, dtype=np.float32)
        return np.tanh(mean + np.exp(log_std) * noise)

    def proba(self, obs: np.ndarray):
        """
        :param obs: (np.ndarray) a batch of observations
        :return: ([np.ndarray] or None) the mean and the std of the Gaussian before squashing
        """
        heads = self._heads(obs)
        if heads is None:
            return None
        mean, log_std = heads
        return [mean, np.exp(log_std)]


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
