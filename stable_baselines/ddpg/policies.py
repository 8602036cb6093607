"""
Policies of DDPG: a deterministic actor with a tanh output and one Q-value critic.

``make_actor`` builds scope ``pi`` (hidden layers ``fc0``, ``fc1``, ..., then the tanh output layer named like
the scope, ``pi``); ``make_critic`` builds scope ``qf`` (``fc0``, then the action joins the first hidden
layer's output, ``fc1``, ..., then the linear output ``qf_output``). With ``layer_norm=True`` every hidden
layer is normalised (``LayerNorm``, ``LayerNorm_1``, ...). These are the variable names of the original
library, so its model files load into them.
"""
from typing import Any, Callable, List, Optional

import numpy as np
from gymnasium import spaces

from stable_baselines.common.policy_parts.offpolicy_policy import (BOX, NETWORK, DeterministicActor,
                                                                   OffPolicyFeedForward, presets)
from stable_baselines.common.policy_parts.ready_made import BATCH, parameters_doc
from stable_baselines.common.policies import BasePolicy, nature_cnn, register_policy
from stable_baselines.common.policy_parts.multi_input import MultiInputFeatures, multi_input_doc, packed_observations
from stable_baselines.common.tf_compat import tf
from stable_baselines.common.tf_layers import dense


def _small_uniform() -> Any:
    """:return: (tf initializer) uniform in [-3e-3, 3e-3], the initial weights of DDPG's output layers"""
    return tf.random_uniform_initializer(minval=-3e-3, maxval=3e-3)


class DDPGPolicy(DeterministicActor, BasePolicy):
    __doc__ = """
    Base of the DDPG policies: a deterministic actor and one Q-value critic. Subclasses build the networks.

""" + parameters_doc(*BATCH, "scale", ac_space=BOX + " (DDPG acts in continuous spaces only)")

    def __init__(self, sess: Optional[tf.Session], ob_space: spaces.Space, ac_space: spaces.Space, n_env: int,
                 n_steps: int, n_batch: Optional[int], reuse: bool = False, scale: bool = False) -> None:
        if not isinstance(ac_space, spaces.Box) and type(ac_space).__name__ != "Box":
            raise ValueError("Error: DDPG only supports continuous action spaces (gym.spaces.Box), got {} ({})"
                             .format(type(ac_space).__name__, ac_space))
        super().__init__(sess, ob_space, ac_space, n_env, n_steps, n_batch, reuse=reuse, scale=scale,
                         add_action_ph=True)
        self.qvalue_fn: Any = None
        self.policy = None

    def make_critic(self, obs: Optional[tf.Tensor] = None, action: Optional[tf.Tensor] = None,
                    reuse: bool = False, scope: str = "qf") -> tf.Tensor:
        """
        Build the critic.

        :param obs: (tf.Tensor) observations (None: the policy's processed observations)
        :param action: (tf.Tensor) actions (None: the policy's action placeholder)
        :param reuse: (bool) reuse the variables of the scope
        :param scope: (str) variable scope of the critic
        :return: (tf.Tensor) the Q-values, shape (batch, 1)
        """
        raise NotImplementedError

    def value(self, obs: np.ndarray, action: np.ndarray, state: Optional[np.ndarray] = None,
              mask: Optional[np.ndarray] = None) -> Any:
        """
        Q-values of observation-action pairs.

        :param obs: (np.ndarray) observations
        :param action: (np.ndarray) actions
        :param state: (np.ndarray) unused (no recurrent state)
        :param mask: (np.ndarray) unused (no recurrent state)
        :return: (np.ndarray) one Q-value per row
        """
        raise NotImplementedError


class FeedForwardPolicy(OffPolicyFeedForward, DDPGPolicy):
    __doc__ = """
    DDPG policy whose actor and critic are feed-forward networks over CNN features or flattened observations
    (each network has its own weights).

""" + parameters_doc(*BATCH, *NETWORK, ac_space=BOX)

    def __init__(self, sess: Optional[tf.Session], ob_space: spaces.Space, ac_space: spaces.Space, n_env: int,
                 n_steps: int, n_batch: Optional[int], reuse: bool = False,
                 layers: Optional[List[int]] = None, cnn_extractor: Callable = nature_cnn,
                 feature_extraction: str = "cnn", layer_norm: bool = False, act_fun: Callable = tf.nn.relu,
                 **kwargs: Any) -> None:
        super().__init__(sess, ob_space, ac_space, n_env, n_steps, n_batch, reuse=reuse, layers=layers,
                         cnn_extractor=cnn_extractor, feature_extraction=feature_extraction,
                         layer_norm=layer_norm, act_fun=act_fun, **kwargs)
        self.activ = act_fun
        self._qvalue: Any = None

    def make_actor(self, obs: Optional[tf.Tensor] = None, reuse: bool = False, scope: str = "pi") -> tf.Tensor:
        if obs is None:
            obs = self.processed_obs
        with tf.variable_scope(scope, reuse=reuse):
            latent = self._hidden(self._features(obs))
            action_shape = self.ac_space.shape
            assert action_shape is not None, "the constructor accepts Box action spaces only"
            out = dense(latent, int(action_shape[0]), name=scope, kernel_initializer=_small_uniform())
            self.policy = tf.nn.tanh(out)
        return self.policy

    def make_critic(self, obs: Optional[tf.Tensor] = None, action: Optional[tf.Tensor] = None,
                    reuse: bool = False, scope: str = "qf") -> tf.Tensor:
        if obs is None:
            obs = self.processed_obs
        if action is None:
            action = self.action_ph
        with tf.variable_scope(scope, reuse=reuse):
            first = self._hidden(self._features(obs), self.layers[:1])
            # the action joins after the first hidden layer
            joined = tf.concat([first, tf.cast(action, first.dtype)], axis=-1)
            latent = self._hidden(joined, self.layers[1:], first_index=1)
            self.qvalue_fn = dense(latent, 1, name="qf_output", kernel_initializer=_small_uniform())
            self._qvalue = self.qvalue_fn[:, 0]
        return self.qvalue_fn

    def step(self, obs: np.ndarray, state: Optional[np.ndarray] = None, mask: Optional[np.ndarray] = None) -> Any:
        if self.policy is None:
            raise RuntimeError("The actor has not been built: call make_actor() before step()")
        return self.sess.run(self.policy, {self.obs_ph: obs})

    def value(self, obs: np.ndarray, action: np.ndarray, state: Optional[np.ndarray] = None,
              mask: Optional[np.ndarray] = None) -> Any:
        if self._qvalue is None:
            raise RuntimeError("The critic has not been built: call make_critic() before value()")
        return self.sess.run(self._qvalue, {self.obs_ph: obs, self.action_ph: action})


CnnPolicy, LnCnnPolicy, MlpPolicy, LnMlpPolicy = presets(FeedForwardPolicy, "DDPG", batch_defaults=False)


class MultiInputPolicy(MultiInputFeatures, FeedForwardPolicy):
    __doc__ = multi_input_doc("DDPG", "critic", "DDPG's ``normalize_observations`` does not apply (use\n"
                                 "    ``VecNormalize``).")

    def value(self, obs: Any, action: np.ndarray, state: Optional[np.ndarray] = None,
              mask: Optional[np.ndarray] = None) -> Any:
        return super().value(packed_observations(obs, self.ob_space), action, state, mask)


register_policy("MultiInputPolicy", MultiInputPolicy)

__all__ = ["DDPGPolicy", "FeedForwardPolicy", "CnnPolicy", "LnCnnPolicy", "MlpPolicy", "LnMlpPolicy",
           "MultiInputPolicy"]
