"""
Policies of Soft Actor-Critic (SAC): a squashed Gaussian actor (scope ``pi``) and the critics
(scope ``values_fn``: a state value function ``vf`` and two Q-functions ``qf1`` / ``qf2``).

Variable names follow the original library (``model/pi/fc0/kernel``, ``model/pi/dense/kernel`` for
the mean, ``model/pi/dense_1/kernel`` for the log standard deviation, ``model/values_fn/vf/vf/kernel``,
``model/values_fn/qf1/qf1/kernel``, ...), so that model files saved by the original load into them.
"""
from typing import Any, Callable, List, Optional, Sequence, Tuple

import numpy as np
from gymnasium import spaces

from stable_baselines.common.engine import numpy_forward as nf
from stable_baselines.common.policy_parts.offpolicy_policy import (BOX, NETWORK, OffPolicyFeedForward,
                                                                   numpy_actor_variables, presets)
from stable_baselines.common.policy_parts.ready_made import BATCH, parameters_doc
from stable_baselines.common.policies import BasePolicy, nature_cnn, register_policy
from stable_baselines.common.policy_parts.multi_input import MultiInputFeatures, multi_input_doc
from stable_baselines.common.tf_compat import tf
from stable_baselines.common.engine.tf_run import session_run
from stable_baselines.common.tf_layers import dense

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
    __doc__ = """
    Base of the SAC policies: a stochastic actor squashed by tanh and the critics (a state value and
    two Q-values). Subclasses build the networks.

""" + parameters_doc(*BATCH, "scale", ac_space=BOX + " (SAC acts in continuous spaces only)")

    def __init__(self, sess: Optional[tf.Session], ob_space: spaces.Space, ac_space: spaces.Space, n_env: int = 1,
                 n_steps: int = 1, n_batch: Optional[int] = None, reuse: bool = False, scale: bool = False) -> None:
        super().__init__(sess, ob_space, ac_space, n_env, n_steps, n_batch, reuse=reuse, scale=scale)
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

    def make_actor(self, obs: Optional[tf.Tensor] = None, reuse: bool = False,
                   scope: str = "pi") -> Tuple[tf.Tensor, tf.Tensor, tf.Tensor]:
        """
        Build the actor.

        :param obs: (tf.Tensor) observations to act on (None: the policy's processed observations)
        :param reuse: (bool) reuse the variables of the scope
        :param scope: (str) variable scope of the actor
        :return: ((tf.Tensor, tf.Tensor, tf.Tensor)) deterministic action, sampled action, log probability
        """
        raise NotImplementedError

    def make_critics(self, obs: Optional[tf.Tensor] = None, action: Optional[tf.Tensor] = None, reuse: bool = False,
                     scope: str = "values_fn", create_vf: bool = True,
                     create_qf: bool = True) -> Tuple[tf.Tensor, tf.Tensor, tf.Tensor]:
        """
        Build the critics: the value function and/or the two Q-functions.

        :param obs: (tf.Tensor) observations (None: the policy's processed observations)
        :param action: (tf.Tensor) actions, needed for the Q-functions
        :param reuse: (bool) reuse the variables of the scope
        :param scope: (str) variable scope of the critics
        :param create_vf: (bool) build the state value function
        :param create_qf: (bool) build the two Q-functions
        :return: ((tf.Tensor, tf.Tensor, tf.Tensor)) Q-value 1, Q-value 2, state value (None if not built)
        """
        raise NotImplementedError

    # returns the actions alone, and takes `deterministic` (the original's interface of SAC policies)
    def step(self, obs: np.ndarray, state: Any = None, mask: Any = None,  # type: ignore[override]
             deterministic: bool = False) -> np.ndarray:
        """
        Actions for a batch of observations.

        :param obs: (np.ndarray) observations
        :param state: (np.ndarray) unused (no recurrent state)
        :param mask: (np.ndarray) unused (no recurrent state)
        :param deterministic: (bool) tanh of the mean instead of a sampled action
        :return: (np.ndarray) actions in [-1, 1]
        """
        raise NotImplementedError

    def proba_step(self, obs: np.ndarray, state: Any = None, mask: Any = None) -> List[np.ndarray]:
        """
        Parameters of the Gaussian before squashing, for a batch of observations.

        :param obs: (np.ndarray) observations
        :param state: (np.ndarray) unused (no recurrent state)
        :param mask: (np.ndarray) unused (no recurrent state)
        :return: ([np.ndarray]) mean and standard deviation
        """
        raise NotImplementedError


class FeedForwardPolicy(OffPolicyFeedForward, SACPolicy):
    __doc__ = """
    SAC policy whose actor and critics are feed-forward networks over shared-shape features (CNN or
    flattened observations; the actor and the critics have their own weights).

""" + parameters_doc(*BATCH, *NETWORK[:3], "reg_weight", *NETWORK[3:], ac_space=BOX,
                     reg_weight="(float) weight of the regularisation loss of the actor's parameters")

    def __init__(self, sess: Optional[tf.Session], ob_space: spaces.Space, ac_space: spaces.Space, n_env: int = 1,
                 n_steps: int = 1, n_batch: Optional[int] = None, reuse: bool = False,
                 layers: Optional[List[int]] = None, cnn_extractor: Callable = nature_cnn,
                 feature_extraction: str = "cnn", reg_weight: float = 0.0, layer_norm: bool = False,
                 act_fun: Callable = tf.nn.relu, **kwargs: Any) -> None:
        super().__init__(sess, ob_space, ac_space, n_env, n_steps, n_batch, reuse=reuse, layers=layers,
                         cnn_extractor=cnn_extractor, feature_extraction=feature_extraction,
                         layer_norm=layer_norm, act_fun=act_fun, **kwargs)
        self.reg_loss = None
        self.reg_weight = reg_weight
        self.entropy = None

    def make_actor(self, obs: Optional[tf.Tensor] = None, reuse: bool = False,
                   scope: str = "pi") -> Tuple[tf.Tensor, tf.Tensor, tf.Tensor]:
        if obs is None:
            obs = self.processed_obs
        action_shape = self.ac_space.shape
        assert action_shape is not None, "the constructor accepts Box action spaces only"
        n_act = int(action_shape[0])
        with tf.variable_scope(scope, reuse=reuse):
            self._note_actor_scope(obs)
            latent = self._hidden(self._features(obs))
            # two heads: the mean (`dense`) and a state-dependent log std (`dense_1`)
            self.act_mu = mean = dense(latent, n_act, activation=None)
            log_std = dense(latent, n_act, activation=None)
        log_std = tf.clip_by_value(log_std, LOG_STD_MIN, LOG_STD_MAX)
        self.std = std = tf.exp(log_std)
        # reparameterised sample: mean + std * N(0, 1)
        sample = mean + tf.random_normal(tf.shape(mean)) * std
        logp_sample = gaussian_likelihood(sample, mean, log_std)
        self.entropy = gaussian_entropy(log_std)
        self.deterministic_policy, self.policy, logp_pi = apply_squashing_func(mean, sample, logp_sample)
        return self.deterministic_policy, self.policy, logp_pi

    def make_critics(self, obs: Optional[tf.Tensor] = None, action: Optional[tf.Tensor] = None, reuse: bool = False,
                     scope: str = "values_fn", create_vf: bool = True,
                     create_qf: bool = True) -> Tuple[tf.Tensor, tf.Tensor, tf.Tensor]:
        if obs is None:
            obs = self.processed_obs
        if create_qf and action is None:
            raise ValueError("make_critics(create_qf=True) needs the action tensor, got action=None")
        with tf.variable_scope(scope, reuse=reuse):
            features = self._features(obs)
            if create_vf:
                self.value_fn = self._scalar_head(features, "vf", reuse)
            if create_qf:
                # both Q-functions see the features next to the action; the smaller one is used (double Q)
                state_action = tf.concat([features, action], axis=-1)
                self.qf1 = self._scalar_head(state_action, "qf1", reuse)
                self.qf2 = self._scalar_head(state_action, "qf2", reuse)
        return self.qf1, self.qf2, self.value_fn

    def step(self, obs: np.ndarray, state: Any = None, mask: Any = None,  # type: ignore[override]
             deterministic: bool = False) -> np.ndarray:
        if self._numpy_forward is not None:
            actions = self._numpy_forward.step(obs, deterministic)
            if actions is not None:
                return actions
        output: Any = self.deterministic_policy if deterministic else self.policy
        return session_run(self.sess, output, {self.obs_ph: obs})

    def proba_step(self, obs: np.ndarray, state: Any = None, mask: Any = None) -> List[np.ndarray]:
        if self._numpy_forward is not None:
            params = self._numpy_forward.proba(obs)
            if params is not None:
                return params
        return self.sess.run([self.act_mu, self.std], {self.obs_ph: obs})

    def enable_numpy_forward(self, rng: Optional[np.random.Generator] = None,
                             variables: Optional[Sequence[tf.Variable]] = None) -> bool:
        """
        Compute ``step`` and ``proba_step`` in NumPy from a copy of the actor's weights instead of running the
        session (see :mod:`stable_baselines.common.engine.numpy_forward`). Only an MLP actor built by ``make_actor``
        on the policy's own observations, with a supported activation, qualifies. The copy is refreshed
        from the graph after :meth:`invalidate_numpy_forward`; SAC also passes it the weights it fetches at
        each training step.

        :param rng: (np.random.Generator) noise source of stochastic actions (None: a new unseeded one)
        :param variables: ([tf.Variable]) ignored (the actor's variables are found by scope)
        :return: (bool) True if the NumPy path is on
        """
        del variables
        self._numpy_forward = None
        found = numpy_actor_variables(self, FeedForwardPolicy, ("step", "proba_step", "make_actor", "_features"),
                                      ["dense", "dense_1"])
        if found is None:
            return False
        self._numpy_forward = _NumpySACActor(self, found[0], found[1], rng)
        return True


class _NumpySACActor(nf.NumpyNetworkCopy):
    """
    NumPy twin of the actor of :class:`FeedForwardPolicy`, with the graph's float32 arithmetic (hidden layers,
    optional layer norm, mean head, clipped log std head, tanh). It answers None where it cannot match the
    graph exactly, and the policy falls back to the session.

    :param policy: (FeedForwardPolicy) the policy
    :param variables: ([tf.Variable]) the actor's variables in creation order
    :param activation: (callable) the NumPy activation
    :param rng: (np.random.Generator) noise source of stochastic actions
    """

    def __init__(self, policy: "FeedForwardPolicy", variables: List[tf.Variable],
                 activation: Callable[[np.ndarray], np.ndarray], rng: Optional[np.random.Generator] = None) -> None:
        super().__init__(policy, variables, activation)
        self.rng = rng if rng is not None else nf.make_rng(None)
        # the weights (set_weights): hidden layers, their layer norms, the mean head, the log std head
        self._hidden: Optional[list] = None
        self._norms: Optional[list] = None
        self._mean: Optional[Tuple[np.ndarray, np.ndarray]] = None
        self._log_std: Optional[Tuple[np.ndarray, np.ndarray]] = None

    def _weights(self) -> Tuple[list, Optional[list], Tuple[np.ndarray, np.ndarray], Tuple[np.ndarray, np.ndarray]]:
        """:return: (list, list or None, tuple, tuple) the hidden layers, their layer norms and the two heads"""
        if self._hidden is None or self._mean is None or self._log_std is None:
            raise RuntimeError("The NumPy actor has no weights yet: set_weights() must run first")
        return self._hidden, self._norms, self._mean, self._log_std

    def set_weights(self, values: List[np.ndarray]) -> None:
        values = list(values)
        self._hidden, self._norms, pos = nf.dense_stack_weights(values, self.n_hidden, self.layer_norm)
        self._mean, self._log_std = (values[pos], values[pos + 1]), (values[pos + 2], values[pos + 3])
        self._row = None
        self.stale = False

    def row_layers(self) -> list:
        """:return: ([(np.ndarray, np.ndarray)]) hidden layers then the mean head (deterministic actions)"""
        hidden, _, mean_head, _ = self._weights()
        return hidden + [mean_head]

    def _latent(self, obs: np.ndarray) -> Optional[np.ndarray]:
        features = self.features(obs)
        if features is None:
            return None
        hidden, norms, _, _ = self._weights()
        return nf.mlp_forward(features, hidden, self.activation, layer_norms=norms)

    def _heads(self, obs: np.ndarray) -> Optional[Tuple[np.ndarray, np.ndarray]]:
        latent = self._latent(obs)
        if latent is None:
            return None
        _, _, mean_head, log_std_head = self._weights()
        mean = nf.dense(latent, *mean_head)
        log_std = np.clip(nf.dense(latent, *log_std_head), LOG_STD_MIN, LOG_STD_MAX)
        return mean, log_std

    def step(self, obs: np.ndarray, deterministic: bool = False) -> Optional[np.ndarray]:
        """
        :param obs: (np.ndarray) observations
        :param deterministic: (bool) tanh of the mean instead of tanh of a Gaussian sample
        :return: (np.ndarray or None) float32 actions in [-1, 1]
        """
        if deterministic:
            latent = self._latent(obs)
            if latent is None:
                return None
            mean = nf.dense(latent, *self._weights()[2])
            return np.tanh(mean, out=mean)
        heads = self._heads(obs)
        if heads is None:
            return None
        mean, log_std = heads
        noise = self.rng.standard_normal(mean.shape, dtype=np.float32)
        return np.tanh(mean + np.exp(log_std) * noise)

    def proba(self, obs: np.ndarray) -> Optional[List[np.ndarray]]:
        """
        :param obs: (np.ndarray) observations
        :return: ([np.ndarray] or None) mean and standard deviation of the Gaussian before squashing
        """
        heads = self._heads(obs)
        if heads is None:
            return None
        mean, log_std = heads
        return [mean, np.exp(log_std)]


CnnPolicy, LnCnnPolicy, MlpPolicy, LnMlpPolicy = presets(FeedForwardPolicy, "SAC")


class MultiInputPolicy(MultiInputFeatures, FeedForwardPolicy):
    __doc__ = multi_input_doc("SAC")


register_policy("MultiInputPolicy", MultiInputPolicy)
