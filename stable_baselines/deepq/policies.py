"""
The policies of DQN: Q-networks (optionally dueling, optionally layer-normalized) on MLP or CNN features.

Variables are created under ``tf.variable_scope("model", reuse=reuse)`` with the original library's names,
in the original order: ``model/action_value/fully_connected/weights``, ``model/action_value/LayerNorm/beta``,
..., then (dueling) ``model/state_value/...``; so parameter files saved by the original library load into them.
"""
from typing import Any, Callable, List, Optional, Tuple

import numpy as np
from gymnasium import spaces

from stable_baselines.common import numpy_forward as nf
from stable_baselines.common.policies import BasePolicy, nature_cnn, register_policy
from stable_baselines.common.tf_compat import tf
from stable_baselines.common.tf_layers import flatten, fully_connected, layer_norm as layer_norm_layer


class DQNPolicy(BasePolicy):
    """
    Policy object that implements a DQN policy

    :param sess: (TensorFlow session) The current TensorFlow session
    :param ob_space: (Gym Space) The observation space of the environment
    :param ac_space: (Gym Space) The action space of the environment
    :param n_env: (int) The number of environments to run
    :param n_steps: (int) The number of steps to run for each environment
    :param n_batch: (int) The number of batch to run (n_envs * n_steps)
    :param reuse: (bool) If the policy is reusable or not
    :param scale: (bool) whether or not to scale the input
    :param obs_phs: (TensorFlow Tensor, TensorFlow Tensor) a tuple containing an override for observation placeholder
        and the processed observation placeholder respectively
    :param dueling: (bool) if true double the output MLP to compute a baseline for action scores
    """

    def __init__(self, sess, ob_space, ac_space, n_env, n_steps, n_batch, reuse=False, scale=False,
                 obs_phs=None, dueling=True):
        # DQN policies need an override for the obs placeholder, due to the architecture of the code
        super(DQNPolicy, self).__init__(sess, ob_space, ac_space, n_env, n_steps, n_batch, reuse=reuse, scale=scale,
                                        obs_ph=obs_phs)
        if not isinstance(self.ac_space, spaces.Discrete):
            raise ValueError("Error: the action space for DQN must be of type gymnasium.spaces.Discrete, got {}"
                             .format(self.ac_space))
        self.n_actions = int(self.ac_space.n)
        self.value_fn = None
        self.q_values = None
        self.policy_proba = None
        self.dueling = dueling

    def _setup_init(self) -> None:
        """
        Set up action probability (the softmax of the q-values)
        """
        with tf.variable_scope("output", reuse=True):
            if self.q_values is None:
                raise RuntimeError("The policy must define self.q_values before calling _setup_init()")
            self.policy_proba = tf.nn.softmax(self.q_values)

    def step(self, obs: np.ndarray, state: Optional[np.ndarray] = None, mask: Optional[np.ndarray] = None,
             deterministic: bool = True) -> Tuple[np.ndarray, np.ndarray, None]:
        """
        Returns the q_values for a single step

        :param obs: (np.ndarray float or int) The current observation of the environment
        :param state: (np.ndarray float) The last states (used in recurrent policies)
        :param mask: (np.ndarray float) The last masks (used in recurrent policies)
        :param deterministic: (bool) Whether or not to return deterministic actions.
        :return: (np.ndarray int, np.ndarray float, np.ndarray float) actions, q_values, states
        """
        raise NotImplementedError

    def proba_step(self, obs: np.ndarray, state: Optional[np.ndarray] = None,
                   mask: Optional[np.ndarray] = None) -> np.ndarray:
        """
        Returns the action probability for a single step

        :param obs: (np.ndarray float or int) The current observation of the environment
        :param state: (np.ndarray float) The last states (used in recurrent policies)
        :param mask: (np.ndarray float) The last masks (used in recurrent policies)
        :return: (np.ndarray float) the action probability
        """
        raise NotImplementedError


def _hidden_stack(features: tf.Tensor, layers: List[int], layer_norm: bool, act_fun: Callable) -> tf.Tensor:
    """fully_connected (+ LayerNorm) + activation for every hidden layer, in the original creation order."""
    out = features
    for layer_size in layers:
        out = fully_connected(out, num_outputs=int(layer_size), activation_fn=None)
        if layer_norm:
            out = layer_norm_layer(out, center=True, scale=True)
        out = act_fun(out)
    return out


class FeedForwardPolicy(DQNPolicy):
    """
    Policy object that implements a DQN policy, using a feed forward neural network.

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
    :param obs_phs: (TensorFlow Tensor, TensorFlow Tensor) a tuple containing an override for observation placeholder
        and the processed observation placeholder respectively (``obs_ph`` is accepted as an alias)
    :param layer_norm: (bool) enable layer normalisation
    :param dueling: (bool) if true double the output MLP to compute a baseline for action scores
    :param act_fun: (tf.func) the activation function to use in the neural network.
    :param kwargs: (dict) Extra keyword arguments for the nature CNN feature extraction
    """

    def __init__(self, sess, ob_space, ac_space, n_env, n_steps, n_batch, reuse=False, layers=None,
                 cnn_extractor=nature_cnn, feature_extraction="cnn",
                 obs_phs=None, layer_norm=False, dueling=True, act_fun=tf.nn.relu, **kwargs):
        if "obs_ph" in kwargs:
            # the manual names this argument obs_ph in the policies' headers; both spellings work
            alias = kwargs.pop("obs_ph")
            if obs_phs is None:
                obs_phs = alias
        if feature_extraction not in ("cnn", "mlp"):
            raise ValueError("feature_extraction must be 'cnn' or 'mlp', got {!r}".format(feature_extraction))
        super(FeedForwardPolicy, self).__init__(sess, ob_space, ac_space, n_env, n_steps, n_batch, dueling=dueling,
                                                reuse=reuse, scale=(feature_extraction == "cnn"), obs_phs=obs_phs)

        self._kwargs_check(feature_extraction, kwargs)

        if layers is None:
            layers = [64, 64]
        layers = list(layers)
        for layer_size in layers:
            if not isinstance(layer_size, (int, np.integer)) or isinstance(layer_size, bool) or layer_size <= 0:
                raise ValueError("layers must be a list of positive ints, got {!r}".format(layers))
        self.layers = layers
        self.act_fun = act_fun
        self.layer_norm = layer_norm
        self.feature_extraction = feature_extraction

        with tf.variable_scope("model", reuse=reuse):
            self._model_scope = tf.get_variable_scope().name
            with tf.variable_scope("action_value"):
                if feature_extraction == "cnn":
                    extracted_features = cnn_extractor(self.processed_obs, **kwargs)
                    action_out = extracted_features
                else:
                    extracted_features = flatten(self.processed_obs)
                    action_out = _hidden_stack(extracted_features, layers, layer_norm, act_fun)
                action_scores = fully_connected(action_out, num_outputs=self.n_actions, activation_fn=None)

            if self.dueling:
                with tf.variable_scope("state_value"):
                    # as in the original, the state-value stream has the hidden layers for CNN features too
                    state_out = _hidden_stack(extracted_features, layers, layer_norm, act_fun)
                    state_score = fully_connected(state_out, num_outputs=1, activation_fn=None)
                action_scores_mean = tf.reduce_mean(action_scores, axis=1)
                action_scores_centered = action_scores - tf.expand_dims(action_scores_mean, axis=1)
                q_out = state_score + action_scores_centered
            else:
                q_out = action_scores

        self.q_values = q_out
        self._setup_init()

    def step(self, obs: np.ndarray, state: Optional[np.ndarray] = None, mask: Optional[np.ndarray] = None,
             deterministic: bool = True) -> Tuple[np.ndarray, np.ndarray, None]:
        """
        Returns the q_values for a single step

        :param obs: (np.ndarray float or int) The current observation of the environment
        :param state: (np.ndarray float) The last states (used in recurrent policies)
        :param mask: (np.ndarray float) The last masks (used in recurrent policies)
        :param deterministic: (bool) Whether or not to return deterministic actions.
        :return: (np.ndarray int, np.ndarray float, np.ndarray float) actions, q_values, states
        """
        forward = self._numpy_forward
        q_values = forward.q_values(obs) if forward is not None else None
        if q_values is not None:
            actions_proba = None if deterministic else nf.softmax(q_values)
        else:
            q_values, actions_proba = self.sess.run([self.q_values, self.policy_proba], {self.obs_ph: obs})
        if deterministic:
            actions = np.argmax(q_values, axis=1)
        else:
            # sample from the softmax of the q-values (inverse-CDF sampling, one uniform per row)
            cumulative = np.cumsum(actions_proba, axis=1)
            draws = np.random.uniform(size=(len(cumulative), 1)) * cumulative[:, -1:]
            actions = np.minimum((cumulative < draws).sum(axis=1), self.n_actions - 1).astype(np.int64)
        return actions, q_values, None

    def proba_step(self, obs: np.ndarray, state: Optional[np.ndarray] = None,
                   mask: Optional[np.ndarray] = None) -> np.ndarray:
        """
        Returns the action probability for a single step

        :param obs: (np.ndarray float or int) The current observation of the environment
        :param state: (np.ndarray float) The last states (used in recurrent policies)
        :param mask: (np.ndarray float) The last masks (used in recurrent policies)
        :return: (np.ndarray float) the action probability
        """
        forward = self._numpy_forward
        if forward is not None:
            q_values = forward.q_values(obs)
            if q_values is not None:
                return nf.softmax(q_values)
        return self.sess.run(self.policy_proba, {self.obs_ph: obs})

    def enable_numpy_forward(self, rng=None, variables=None) -> bool:
        """
        Let ``step`` and ``proba_step`` compute the Q-values in NumPy from a copy of the weights instead of
        calling the session (see :mod:`stable_baselines.common.numpy_forward`): MLP feature extraction with a
        supported activation, dueling or not, layer-normalized or not. The copy is read from the graph on first
        use and after :meth:`invalidate_numpy_forward`; DQN also hands it the weights fetched with every
        training step.

        :param rng: (np.random.Generator) unused (the Q-network is deterministic), for a uniform interface
        :param variables: ([tf.Variable]) the Q-network's variables in creation order (default: the trainable
            variables under this policy's ``model`` scope; give them when the policy reuses another's)
        :return: (bool) whether the NumPy path is active
        """
        del rng
        self._numpy_forward = None
        if self.feature_extraction != "mlp" or not nf.numpy_forward_enabled():
            return False
        cls = type(self)
        for method in ("step", "proba_step"):
            if getattr(cls, method) is not getattr(FeedForwardPolicy, method):
                return False
        activation = nf.numpy_activation(getattr(self, "act_fun", None))
        if activation is None or not isinstance(self.ob_space, (spaces.Box, spaces.Discrete, spaces.MultiBinary,
                                                                spaces.MultiDiscrete)):
            return False
        if variables is None:
            variables = self.sess.graph.get_collection(tf.GraphKeys.TRAINABLE_VARIABLES,
                                                       scope=self._model_scope + "/")
        variables = list(variables)
        if not variables:
            return False
        prefix = variables[0].name[:variables[0].name.index("action_value/")] \
            if "action_value/" in variables[0].name else None
        expected = _q_network_names(len(self.layers), self.layer_norm, self.dueling)
        if prefix is None or [var.name[len(prefix):] for var in variables] != expected:
            return False
        self._numpy_forward = _NumpyQNetwork(self, variables, activation)
        return True

    def disable_numpy_forward(self) -> None:
        """Go back to computing ``step`` and ``proba_step`` with the TensorFlow graph."""
        self._numpy_forward = None


def _q_network_names(n_hidden: int, layer_norm: bool, dueling: bool) -> List[str]:
    """Variable names (after the ``model/`` scope) of the MLP Q-network, in creation order."""
    names = []
    for stream in (["action_value", "state_value"] if dueling else ["action_value"]):
        for idx in range(n_hidden + 1):
            layer = "fully_connected" if idx == 0 else "fully_connected_{}".format(idx)
            names += ["{}/{}/weights:0".format(stream, layer), "{}/{}/biases:0".format(stream, layer)]
            if layer_norm and idx < n_hidden:
                norm = "LayerNorm" if idx == 0 else "LayerNorm_{}".format(idx)
                names += ["{}/{}/beta:0".format(stream, norm), "{}/{}/gamma:0".format(stream, norm)]
    return names


class _NumpyQNetwork(nf.NumpyNetworkCopy):
    """
    The MLP Q-network of a DQN :class:`FeedForwardPolicy` in NumPy (the graph's float32 arithmetic: dense
    stacks, optional layer norm, dueling combination). ``q_values`` returns None for inputs it cannot answer
    exactly (the policy then runs the graph).

    :param policy: (FeedForwardPolicy) the policy
    :param variables: ([tf.Variable]) the Q-network's variables in creation order
    :param activation: (callable) the NumPy activation
    """

    def __init__(self, policy, variables, activation):
        super().__init__(policy, variables, activation)
        self.dueling = bool(policy.dueling)
        self._streams = None

    def set_weights(self, values: List[np.ndarray]) -> None:
        values = list(values)
        streams, pos = [], 0
        for _ in range(2 if self.dueling else 1):
            layers, norms, pos = nf.dense_stack_weights(values, self.n_hidden, self.layer_norm, pos)
            layers.append((values[pos], values[pos + 1]))  # the output layer (no layer norm)
            pos += 2
            streams.append((layers, (norms + [None]) if self.layer_norm else None))
        self._streams = streams
        self._row = None
        self.stale = False

    def row_layers(self):
        """
        :return: ([(np.ndarray, np.ndarray)]) the layers of the action scores: their argmax is the greedy action
            (the dueling combination adds the same amount, state value minus mean score, to every score of a row)
        """
        return self._streams[0][0]

    def q_values(self, obs: np.ndarray):
        """
        :param obs: (np.ndarray) a batch of observations
        :return: (np.ndarray or None) float32 Q-values, shape (batch, n_actions)
        """
        features = self.features(obs)
        if features is None:
            return None
        layers, norms = self._streams[0]
        scores = nf.mlp_forward(features, layers, self.activation, activate_last=False, layer_norms=norms)
        if not self.dueling:
            return scores
        layers, norms = self._streams[1]
        state_score = nf.mlp_forward(features, layers, self.activation, activate_last=False, layer_norms=norms)
        return state_score + (scores - scores.mean(axis=1, keepdims=True))


def _pop_obs_phs(obs_ph: Any, kwargs: dict) -> Any:
    """The placeholders override given as ``obs_ph`` (manual) or ``obs_phs`` (original code)."""
    obs_phs = kwargs.pop("obs_phs", None)
    return obs_ph if obs_ph is not None else obs_phs


class CnnPolicy(FeedForwardPolicy):
    """
    Policy object that implements DQN policy, using a CNN (the nature CNN)

    :param sess: (TensorFlow session) The current TensorFlow session
    :param ob_space: (Gym Space) The observation space of the environment
    :param ac_space: (Gym Space) The action space of the environment
    :param n_env: (int) The number of environments to run
    :param n_steps: (int) The number of steps to run for each environment
    :param n_batch: (int) The number of batch to run (n_envs * n_steps)
    :param reuse: (bool) If the policy is reusable or not
    :param obs_ph: (TensorFlow Tensor, TensorFlow Tensor) a tuple containing an override for observation placeholder
        and the processed observation placeholder respectively
    :param dueling: (bool) if true double the output MLP to compute a baseline for action scores
    :param kwargs: (dict) Extra keyword arguments for the nature CNN feature extraction
    """

    def __init__(self, sess, ob_space, ac_space, n_env, n_steps, n_batch,
                 reuse=False, obs_ph=None, dueling=True, **kwargs):
        obs_phs = _pop_obs_phs(obs_ph, kwargs)
        super(CnnPolicy, self).__init__(sess, ob_space, ac_space, n_env, n_steps, n_batch, reuse,
                                        feature_extraction="cnn", obs_phs=obs_phs, dueling=dueling,
                                        layer_norm=False, **kwargs)


class LnCnnPolicy(FeedForwardPolicy):
    """
    Policy object that implements DQN policy, using a CNN (the nature CNN), with layer normalisation

    :param sess: (TensorFlow session) The current TensorFlow session
    :param ob_space: (Gym Space) The observation space of the environment
    :param ac_space: (Gym Space) The action space of the environment
    :param n_env: (int) The number of environments to run
    :param n_steps: (int) The number of steps to run for each environment
    :param n_batch: (int) The number of batch to run (n_envs * n_steps)
    :param reuse: (bool) If the policy is reusable or not
    :param obs_ph: (TensorFlow Tensor, TensorFlow Tensor) a tuple containing an override for observation placeholder
        and the processed observation placeholder respectively
    :param dueling: (bool) if true double the output MLP to compute a baseline for action scores
    :param kwargs: (dict) Extra keyword arguments for the nature CNN feature extraction
    """

    def __init__(self, sess, ob_space, ac_space, n_env, n_steps, n_batch,
                 reuse=False, obs_ph=None, dueling=True, **kwargs):
        obs_phs = _pop_obs_phs(obs_ph, kwargs)
        super(LnCnnPolicy, self).__init__(sess, ob_space, ac_space, n_env, n_steps, n_batch, reuse,
                                          feature_extraction="cnn", obs_phs=obs_phs, dueling=dueling,
                                          layer_norm=True, **kwargs)


class MlpPolicy(FeedForwardPolicy):
    """
    Policy object that implements DQN policy, using a MLP (2 layers of 64)

    :param sess: (TensorFlow session) The current TensorFlow session
    :param ob_space: (Gym Space) The observation space of the environment
    :param ac_space: (Gym Space) The action space of the environment
    :param n_env: (int) The number of environments to run
    :param n_steps: (int) The number of steps to run for each environment
    :param n_batch: (int) The number of batch to run (n_envs * n_steps)
    :param reuse: (bool) If the policy is reusable or not
    :param obs_ph: (TensorFlow Tensor, TensorFlow Tensor) a tuple containing an override for observation placeholder
        and the processed observation placeholder respectively
    :param dueling: (bool) if true double the output MLP to compute a baseline for action scores
    :param kwargs: (dict) Extra keyword arguments for the nature CNN feature extraction
    """

    def __init__(self, sess, ob_space, ac_space, n_env, n_steps, n_batch,
                 reuse=False, obs_ph=None, dueling=True, **kwargs):
        obs_phs = _pop_obs_phs(obs_ph, kwargs)
        super(MlpPolicy, self).__init__(sess, ob_space, ac_space, n_env, n_steps, n_batch, reuse,
                                        feature_extraction="mlp", obs_phs=obs_phs, dueling=dueling,
                                        layer_norm=False, **kwargs)


class LnMlpPolicy(FeedForwardPolicy):
    """
    Policy object that implements DQN policy, using a MLP (2 layers of 64), with layer normalisation

    :param sess: (TensorFlow session) The current TensorFlow session
    :param ob_space: (Gym Space) The observation space of the environment
    :param ac_space: (Gym Space) The action space of the environment
    :param n_env: (int) The number of environments to run
    :param n_steps: (int) The number of steps to run for each environment
    :param n_batch: (int) The number of batch to run (n_envs * n_steps)
    :param reuse: (bool) If the policy is reusable or not
    :param obs_ph: (TensorFlow Tensor, TensorFlow Tensor) a tuple containing an override for observation placeholder
        and the processed observation placeholder respectively
    :param dueling: (bool) if true double the output MLP to compute a baseline for action scores
    :param kwargs: (dict) Extra keyword arguments for the nature CNN feature extraction
    """

    def __init__(self, sess, ob_space, ac_space, n_env, n_steps, n_batch,
                 reuse=False, obs_ph=None, dueling=True, **kwargs):
        obs_phs = _pop_obs_phs(obs_ph, kwargs)
        super(LnMlpPolicy, self).__init__(sess, ob_space, ac_space, n_env, n_steps, n_batch, reuse,
                                          feature_extraction="mlp", obs_phs=obs_phs, dueling=dueling,
                                          layer_norm=True, **kwargs)


register_policy("CnnPolicy", CnnPolicy)
register_policy("LnCnnPolicy", LnCnnPolicy)
register_policy("MlpPolicy", MlpPolicy)
register_policy("LnMlpPolicy", LnMlpPolicy)
