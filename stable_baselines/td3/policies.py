"""
Policies of TD3: a deterministic actor with a tanh output and two Q-value critics (clipped double Q-learning).

The networks are built by ``make_actor`` (scope ``pi``: hidden layers ``fc0``, ``fc1``, ..., then the tanh
output layer ``dense``) and ``make_critics`` (scope ``values_fn``: ``qf1`` and ``qf2``, each on the features
next to the action, ``qf1/fc0``, ..., ``qf1/qf1``). These are the variable names of the original library,
so its model files load into them.
"""
from typing import Any, Callable, List, Optional, Sequence, Tuple

import numpy as np
from gymnasium import spaces

from stable_baselines.common.engine import numpy_forward as nf
from stable_baselines.common.policy_parts.offpolicy_policy import (BOX, NETWORK, DeterministicActor,
                                                                   OffPolicyFeedForward, numpy_actor_variables, presets)
from stable_baselines.common.policy_parts.ready_made import BATCH, parameters_doc
from stable_baselines.common.policies import BasePolicy, nature_cnn, register_policy  # noqa: F401 (public here too)
from stable_baselines.common.policy_parts.multi_input import MultiInputFeatures, multi_input_doc
from stable_baselines.common.tf_compat import tf
from stable_baselines.common.tf_layers import dense


class TD3Policy(DeterministicActor, BasePolicy):
    __doc__ = """
    Base of the TD3 policies: a deterministic actor and two Q-value critics. Subclasses build the networks.

""" + parameters_doc(*BATCH, "scale", ac_space=BOX + " (TD3 acts in continuous spaces only)")

    def __init__(self, sess: Optional[tf.Session], ob_space: spaces.Space, ac_space: spaces.Space, n_env: int = 1,
                 n_steps: int = 1, n_batch: Optional[int] = None, reuse: bool = False, scale: bool = False) -> None:
        super().__init__(sess, ob_space, ac_space, n_env, n_steps, n_batch, reuse=reuse, scale=scale)
        if not isinstance(self.ac_space, spaces.Box):
            raise ValueError("Error: TD3 only supports continuous (Box) action spaces, got {} ({})"
                             .format(type(self.ac_space).__name__, self.ac_space))
        self.qf1 = None
        self.qf2 = None
        self.policy = None

    def make_critics(self, obs: Optional[tf.Tensor] = None, action: Optional[tf.Tensor] = None,
                     reuse: bool = False, scope: str = "values_fn") -> Tuple[tf.Tensor, tf.Tensor]:
        """
        Build the two Q-functions.

        :param obs: (tf.Tensor) observations (None: the policy's processed observations)
        :param action: (tf.Tensor) actions
        :param reuse: (bool) reuse the variables of the scope
        :param scope: (str) variable scope of the critics
        :return: ((tf.Tensor, tf.Tensor)) the two Q-values
        """
        raise NotImplementedError


class FeedForwardPolicy(OffPolicyFeedForward, TD3Policy):
    __doc__ = """
    TD3 policy whose actor and critics are feed-forward networks over CNN features or flattened observations
    (each network has its own weights).

""" + parameters_doc(*BATCH, *NETWORK, ac_space=BOX)

    def make_actor(self, obs: Optional[tf.Tensor] = None, reuse: bool = False, scope: str = "pi") -> tf.Tensor:
        if obs is None:
            obs = self.processed_obs
        with tf.variable_scope(scope, reuse=reuse):
            self._note_actor_scope(obs)
            latent = self._hidden(self._features(obs))
            action_shape = self.ac_space.shape
            assert action_shape is not None, "the constructor accepts Box action spaces only"
            self.policy = dense(latent, int(action_shape[0]), activation=tf.tanh)
        return self.policy

    def make_critics(self, obs: Optional[tf.Tensor] = None, action: Optional[tf.Tensor] = None,
                     reuse: bool = False, scope: str = "values_fn") -> Tuple[tf.Tensor, tf.Tensor]:
        if obs is None:
            obs = self.processed_obs
        if action is None:
            raise ValueError("make_critics needs the action tensor (got action=None)")
        with tf.variable_scope(scope, reuse=reuse):
            features = self._features(obs)
            state_action = tf.concat([features, tf.cast(action, features.dtype)], axis=-1)
            # twin critics: the target takes the smaller of the two
            self.qf1 = self._scalar_head(state_action, "qf1", reuse)
            self.qf2 = self._scalar_head(state_action, "qf2", reuse)
        return self.qf1, self.qf2

    def step(self, obs: np.ndarray, state: Optional[np.ndarray] = None, mask: Optional[np.ndarray] = None) -> Any:
        if self.policy is None:
            raise RuntimeError("The actor has not been built: call make_actor() before step()")
        if self._numpy_forward is not None:
            actions = self._numpy_forward.step(obs)
            if actions is not None:
                return actions
        return self.sess.run(self.policy, {self.obs_ph: obs})

    def enable_numpy_forward(self, rng: Optional[np.random.Generator] = None,
                             variables: Optional[Sequence[tf.Variable]] = None) -> bool:
        """
        Compute ``step`` in NumPy from a copy of the actor's weights instead of running the session (see
        :mod:`stable_baselines.common.engine.numpy_forward`). Only an MLP actor built by ``make_actor`` on the policy's
        own observations, with a supported activation, qualifies. The copy is refreshed from the graph after
        :meth:`invalidate_numpy_forward`; TD3 also passes it the weights it fetches at each actor update.

        :param rng: (np.random.Generator) ignored (the actor is deterministic)
        :param variables: ([tf.Variable]) ignored (the actor's variables are found by scope)
        :return: (bool) True if the NumPy path is on
        """
        del rng, variables
        self._numpy_forward = None
        found = numpy_actor_variables(self, FeedForwardPolicy, ("step", "make_actor", "_features"), ["dense"])
        if found is None:
            return False
        self._numpy_forward = _NumpyTD3Actor(self, found[0], found[1])
        return True


class _NumpyTD3Actor(nf.NumpyNetworkCopy):
    """
    NumPy twin of the actor of :class:`FeedForwardPolicy`, with the graph's float32 arithmetic (hidden layers,
    optional layer norm, tanh output). ``step`` answers None where it cannot match the graph exactly, and the
    policy falls back to the session.

    :param policy: (FeedForwardPolicy) the policy
    :param variables: ([tf.Variable]) the actor's variables in creation order
    :param activation: (callable) the NumPy activation
    """

    def __init__(self, policy: "FeedForwardPolicy", variables: List[tf.Variable],
                 activation: Callable[[np.ndarray], np.ndarray]) -> None:
        super().__init__(policy, variables, activation)
        # the weights (set_weights): the dense layers (the output one last) and their layer norms
        self._layers: Optional[list] = None
        self._norms: Optional[list] = None

    def set_weights(self, values: List[np.ndarray]) -> None:
        values = list(values)
        layers, norms, _ = nf.dense_stack_weights(values, self.n_hidden, self.layer_norm)
        self._layers = layers + [(values[-2], values[-1])]
        self._norms = (list(norms or []) + [None]) if self.layer_norm else None
        self._row = None
        self.stale = False

    def row_layers(self) -> list:
        """:return: ([(np.ndarray, np.ndarray)]) hidden layers then the output layer (before the tanh)"""
        if self._layers is None:
            raise RuntimeError("The NumPy actor has no weights yet: set_weights() must run first")
        return self._layers

    def step(self, obs: np.ndarray) -> Optional[np.ndarray]:
        """
        :param obs: (np.ndarray) observations
        :return: (np.ndarray or None) float32 actions in [-1, 1]
        """
        features = self.features(obs)
        if features is None:
            return None
        out = nf.mlp_forward(features, self.row_layers(), self.activation, activate_last=False,
                             layer_norms=self._norms)
        return np.tanh(out, out=out)


CnnPolicy, LnCnnPolicy, MlpPolicy, LnMlpPolicy = presets(FeedForwardPolicy, "TD3")

__all__ = ["TD3Policy", "FeedForwardPolicy", "CnnPolicy", "LnCnnPolicy", "MlpPolicy", "LnMlpPolicy"]


class MultiInputPolicy(MultiInputFeatures, FeedForwardPolicy):
    __doc__ = multi_input_doc("TD3")


register_policy("MultiInputPolicy", MultiInputPolicy)
