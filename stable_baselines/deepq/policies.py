"""
The policies of DQN: Q-networks (optionally dueling, optionally layer-normalized) on MLP or CNN features.

Variables are created under ``tf.variable_scope("model", reuse=reuse)`` with the original library's names,
in the original order: ``model/action_value/fully_connected/weights``, ``model/action_value/LayerNorm/beta``,
..., then (dueling) ``model/state_value/...``; so parameter files saved by the original library load into them.

They do not build on the body the other off-policy policies share (``common/policy_parts/offpolicy_policy.py``): its hidden
layers are ``dense`` layers named ``fc0``, ``fc1``, ... (``kernel``/``bias``), DQN's are unnamed
``fully_connected`` layers (``weights``/``biases``) that DQN files of the original library hold; its
constructor does not take the shared observation placeholders (``obs_phs``) that DQN's network copies (target,
double-Q, parameter noise) are built on, and it refuses ``layers=[]``, which DQN accepts.
"""
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

import numpy as np
from gymnasium import spaces

from stable_baselines.common.engine import numpy_forward as nf
from stable_baselines.common.policies import BasePolicy, nature_cnn, register_policy
from stable_baselines.common.policy_parts.multi_input import (ENCODERS, STRUCTURED, GraphOnly, encode_entries,
                                                             encoder_settings, packed_observations)
from stable_baselines.common.policy_parts.ready_made import BATCH, four_presets, parameters_doc
from stable_baselines.common.safe_loading.classes import declare_loadable
from stable_baselines.common.tf_compat import tf
from stable_baselines.common.tf_layers import flatten, fully_connected, layer_norm as layer_norm_layer


# the wording of the parameters of the DQN policies
_WORDING = dict(
    ac_space="(gym.Space) action space (Discrete)",
    obs_phs="(tf.Tensor, tf.Tensor) existing observation placeholder and processed observation to build on (DQN's\n"
            "        networks share them), or None to create them (``obs_ph`` is accepted as another name for it)",
    dueling="(bool) split the network into a state value and centred action advantages (dueling architecture,\n"
            "        https://arxiv.org/abs/1511.06581)")


class DQNPolicy(BasePolicy):
    __doc__ = """
    Base of the DQN policies: a network giving one Q-value per discrete action (``q_values``) and their softmax
    (``policy_proba``).

""" + parameters_doc(*BATCH, "scale", "obs_phs", "dueling", **_WORDING)

    def __init__(self, sess: Optional[tf.Session], ob_space: spaces.Space, ac_space: spaces.Space, n_env: int,
                 n_steps: int, n_batch: Optional[int], reuse: bool = False, scale: bool = False,
                 obs_phs: Optional[Tuple[tf.Tensor, tf.Tensor]] = None, dueling: bool = True) -> None:
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
        Build ``policy_proba``, the softmax of ``q_values`` (which the subclass has built).
        """
        with tf.variable_scope("output", reuse=True):
            if self.q_values is None:
                raise RuntimeError("The policy must define self.q_values before calling _setup_init()")
            self.policy_proba = tf.nn.softmax(self.q_values)

    def step(self, obs: np.ndarray, state: Optional[np.ndarray] = None, mask: Optional[np.ndarray] = None,
             deterministic: bool = True) -> Tuple[np.ndarray, np.ndarray, None]:
        """
        Actions and Q-values for a batch of observations.

        :param obs: (np.ndarray float or int) the observations
        :param state: (np.ndarray float) unused (no recurrent DQN policy)
        :param mask: (np.ndarray float) unused
        :param deterministic: (bool) the greedy actions (True) or actions drawn from the softmax of the Q-values
        :return: (np.ndarray int, np.ndarray float, np.ndarray float) the actions, the Q-values, None (no state)
        """
        raise NotImplementedError

    def proba_step(self, obs: np.ndarray, state: Optional[np.ndarray] = None,
                   mask: Optional[np.ndarray] = None) -> np.ndarray:
        """
        The softmax of the Q-values for a batch of observations.

        :param obs: (np.ndarray float or int) the observations
        :param state: (np.ndarray float) unused
        :param mask: (np.ndarray float) unused
        :return: (np.ndarray float) one probability per action and observation
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
    __doc__ = """
    A feed-forward Q network: CNN features (``cnn_extractor``) or the flattened observation through ``layers``,
    then one linear output per action; with ``dueling``, a second stream of the same hidden layers gives the state
    value, and ``Q = V + (A - mean(A))``.

""" + parameters_doc(*BATCH, "layers", "cnn_extractor", "feature_extraction", "obs_phs", "layer_norm", "dueling",
                     "act_fun", "kwargs", layers="([int]) the sizes of the hidden layers (None: [64, 64]); with CNN "
                     "features only the state-value\n        stream uses them", **_WORDING)

    def __init__(self, sess: Optional[tf.Session], ob_space: spaces.Space, ac_space: spaces.Space, n_env: int,
                 n_steps: int, n_batch: Optional[int], reuse: bool = False, layers: Optional[List[int]] = None,
                 cnn_extractor: Callable = nature_cnn, feature_extraction: str = "cnn",
                 obs_phs: Optional[Tuple[tf.Tensor, tf.Tensor]] = None, layer_norm: bool = False,
                 dueling: bool = True, act_fun: Callable = tf.nn.relu, **kwargs: Any) -> None:
        if "obs_ph" in kwargs:  # the name the manual's headers use
            spelled_obs_ph = kwargs.pop("obs_ph")
            obs_phs = spelled_obs_ph if obs_phs is None else obs_phs
        if feature_extraction not in ("cnn", "mlp"):
            raise ValueError("feature_extraction must be 'cnn' or 'mlp', got {!r}".format(feature_extraction))
        super(FeedForwardPolicy, self).__init__(sess, ob_space, ac_space, n_env, n_steps, n_batch, dueling=dueling,
                                                reuse=reuse, scale=(feature_extraction == "cnn"), obs_phs=obs_phs)
        self._kwargs_check(feature_extraction, kwargs)
        hidden = [64, 64] if layers is None else list(layers)
        if not all(isinstance(size, (int, np.integer)) and not isinstance(size, bool) and size > 0
                   for size in hidden):
            raise ValueError("layers must be a list of positive ints, got {!r}".format(hidden))
        self.layers = hidden
        self.act_fun = act_fun
        self.layer_norm = layer_norm
        self.feature_extraction = feature_extraction
        with tf.variable_scope("model", reuse=reuse):
            self._model_scope = tf.get_variable_scope().name
            self.q_values = self._q_network(cnn_extractor, kwargs)
        self._setup_init()

    def _q_network(self, cnn_extractor: Callable, cnn_kwargs: dict) -> tf.Tensor:
        """The Q-values, built in the open ``model`` scope (variable names and order of the original)."""
        hidden, norm, activation = self.layers, self.layer_norm, self.act_fun
        with tf.variable_scope("action_value"):
            features, advantage_input = self._observation_features(cnn_extractor, cnn_kwargs)
            advantages = fully_connected(advantage_input, num_outputs=self.n_actions, activation_fn=None)
        if not self.dueling:
            return advantages
        with tf.variable_scope("state_value"):
            # the state-value stream has the hidden layers with CNN features too (as in the original)
            value_hidden = _hidden_stack(features, hidden, norm, activation)
            state_value = fully_connected(value_hidden, num_outputs=1, activation_fn=None)
        mean_advantage = tf.reduce_mean(advantages, axis=1)
        return state_value + (advantages - tf.expand_dims(mean_advantage, axis=1))

    def _observation_features(self, cnn_extractor: Callable, cnn_kwargs: dict) -> Tuple[tf.Tensor, tf.Tensor]:
        """
        :return: (tf.Tensor, tf.Tensor) the features the state-value stream starts from, and the input of the
            advantage layer (the CNN features themselves, or the MLP's hidden layers)
        """
        if self.feature_extraction == "cnn":
            features = cnn_extractor(self.processed_obs, **cnn_kwargs)
            return features, features
        features = flatten(self.processed_obs)
        return features, _hidden_stack(features, self.layers, self.layer_norm, self.act_fun)

    def step(self, obs: np.ndarray, state: Optional[np.ndarray] = None, mask: Optional[np.ndarray] = None,
             deterministic: bool = True) -> Tuple[np.ndarray, np.ndarray, None]:
        forward = self._numpy_forward
        q_values = None if forward is None else forward.q_values(obs)
        if q_values is None:
            q_values, probabilities = self.sess.run([self.q_values, self.policy_proba], {self.obs_ph: obs})
        else:
            probabilities = None if deterministic else nf.softmax(q_values)
        if deterministic:
            return np.argmax(q_values, axis=1), q_values, None
        # one uniform draw per row, located in the cumulated probabilities
        cumulative = np.cumsum(probabilities, axis=1)
        draws = np.random.uniform(size=(len(cumulative), 1)) * cumulative[:, -1:]
        sampled = np.minimum((cumulative < draws).sum(axis=1), self.n_actions - 1).astype(np.int64)
        return sampled, q_values, None

    def proba_step(self, obs: np.ndarray, state: Optional[np.ndarray] = None,
                   mask: Optional[np.ndarray] = None) -> np.ndarray:
        forward = self._numpy_forward
        q_values = None if forward is None else forward.q_values(obs)
        if q_values is not None:
            return nf.softmax(q_values)
        return self.sess.run(self.policy_proba, {self.obs_ph: obs})

    def enable_numpy_forward(self, rng: Optional[np.random.Generator] = None,
                             variables: Optional[Sequence[tf.Variable]] = None) -> bool:
        """
        Let ``step`` and ``proba_step`` compute the Q-values in NumPy from a copy of the weights instead of
        calling the session (see :mod:`stable_baselines.common.engine.numpy_forward`): MLP feature extraction with a
        supported activation, dueling or not, layer-normalized or not. The copy is read from the graph on first
        use and after :meth:`invalidate_numpy_forward`; DQN also hands it the weights fetched with every
        training step.

        :param rng: (np.random.Generator) unused (the Q-network is deterministic)
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
        activation = nf.numpy_activation(self.act_fun)
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

    def __init__(self, policy: "FeedForwardPolicy", variables: List[tf.Variable],
                 activation: Callable[[np.ndarray], np.ndarray]) -> None:
        super().__init__(policy, variables, activation)
        self.dueling = bool(policy.dueling)
        # per stream (action scores, then the state value when dueling): the dense layers and their layer norms
        self._streams: Optional[List[Tuple[list, Optional[list]]]] = None

    def _stream(self, index: int) -> Tuple[list, Optional[list]]:
        """:return: (list, list or None) the layers and layer norms of a stream (0: scores, 1: state value)"""
        if self._streams is None:
            raise RuntimeError("The NumPy Q-network has no weights yet: set_weights() must run first")
        return self._streams[index]

    def set_weights(self, values: List[np.ndarray]) -> None:
        values = list(values)
        streams, pos = [], 0
        for _ in range(2 if self.dueling else 1):
            layers, norms, pos = nf.dense_stack_weights(values, self.n_hidden, self.layer_norm, pos)
            layers.append((values[pos], values[pos + 1]))  # the output layer (no layer norm)
            pos += 2
            streams.append((layers, (list(norms or []) + [None]) if self.layer_norm else None))
        self._streams = streams
        self._row = None
        self.stale = False

    def row_layers(self) -> list:
        """
        :return: ([(np.ndarray, np.ndarray)]) the layers of the action scores: their argmax is the greedy action
            (the dueling combination adds the same amount, state value minus mean score, to every score of a row)
        """
        return self._stream(0)[0]

    def q_values(self, obs: np.ndarray) -> Optional[np.ndarray]:
        """
        :param obs: (np.ndarray) a batch of observations
        :return: (np.ndarray or None) float32 Q-values, shape (batch, n_actions)
        """
        features = self.features(obs)
        if features is None:
            return None
        layers, norms = self._stream(0)
        scores = nf.mlp_forward(features, layers, self.activation, activate_last=False, layer_norms=norms)
        if not self.dueling:
            return scores
        layers, norms = self._stream(1)
        state_score = nf.mlp_forward(features, layers, self.activation, activate_last=False, layer_norms=norms)
        return state_score + (scores - scores.mean(axis=1, keepdims=True))


class _PresetPolicy(FeedForwardPolicy):
    """A DQN :class:`FeedForwardPolicy` whose subclass fixes some constructor keywords (``_fixed``)."""

    _fixed: Dict[str, Any] = {}

    def __init__(self, sess, ob_space, ac_space, n_env, n_steps, n_batch,
                 reuse=False, obs_ph=None, dueling=True, **kwargs):
        other_spelling = kwargs.pop("obs_phs", None)
        super(_PresetPolicy, self).__init__(sess, ob_space, ac_space, n_env, n_steps, n_batch, reuse,
                                            obs_phs=other_spelling if obs_ph is None else obs_ph, dueling=dueling,
                                            **self._fixed, **kwargs)


CnnPolicy, LnCnnPolicy, MlpPolicy, LnMlpPolicy = four_presets(
    (_PresetPolicy,), "DQN", parameters_doc(*BATCH, "obs_ph=obs_phs", "dueling", "kwargs", **dict(
        _WORDING, kwargs="(dict) further arguments of :class:`FeedForwardPolicy` (``layers``, ``act_fun``, ...)")),
    always_layer_norm=True)
for _policy in (CnnPolicy, LnCnnPolicy, MlpPolicy, LnMlpPolicy):
    register_policy(_policy.__name__, _policy)
declare_loadable(FeedForwardPolicy, CnnPolicy, LnCnnPolicy, MlpPolicy, LnMlpPolicy)


class MultiInputPolicy(GraphOnly, FeedForwardPolicy):
    __doc__ = """
    DQN policy for Dict and Tuple observation spaces (nested too): every entry encoded by its kind (the Nature CNN
    for images, an MLP for vectors, one-hot for discrete entries, see
    :func:`~stable_baselines.common.policy_parts.multi_input.encode_entries`), the codes concatenated, then the
    hidden ``layers`` of the Q network (dueling or not). The encoders live in ``model/action_value/entry_<name>``.

""" + parameters_doc(*BATCH, "obs_phs", "dueling", *ENCODERS, "cnn_kwargs", "kwargs", **dict(
        _WORDING, ob_space=STRUCTURED,
        kwargs="(dict) further arguments of :class:`FeedForwardPolicy` (``layers``, ``act_fun``, ``layer_norm``)"))

    reads_structured_observations = True

    def __init__(self, sess: Optional[tf.Session], ob_space: spaces.Space, ac_space: spaces.Space, n_env: int,
                 n_steps: int, n_batch: Optional[int], reuse: bool = False,
                 obs_phs: Optional[Tuple[tf.Tensor, tf.Tensor]] = None, dueling: bool = True,
                 cnn_extractor: Callable = nature_cnn, mlp_extractor_arch: Optional[Sequence[int]] = None,
                 extractors: Optional[Dict[str, Callable]] = None, cnn_kwargs: Optional[Dict[str, Any]] = None,
                 **kwargs: Any) -> None:
        self._encoder_settings = encoder_settings(ob_space, cnn_extractor, mlp_extractor_arch, extractors, cnn_kwargs)
        if "obs_ph" in kwargs:
            spelled_obs_ph = kwargs.pop("obs_ph")
            obs_phs = spelled_obs_ph if obs_phs is None else obs_phs
        super().__init__(sess, ob_space, ac_space, n_env, n_steps, n_batch, reuse=reuse, feature_extraction="mlp",
                         obs_phs=obs_phs, dueling=dueling, **kwargs)

    def _observation_features(self, cnn_extractor: Callable, cnn_kwargs: dict) -> Tuple[tf.Tensor, tf.Tensor]:
        features = encode_entries(self.processed_obs, self.ob_space, self.act_fun, **self._encoder_settings)
        return features, _hidden_stack(features, self.layers, self.layer_norm, self.act_fun)

    def step(self, obs: Any, state: Optional[np.ndarray] = None, mask: Optional[np.ndarray] = None,
             deterministic: bool = True) -> Tuple[np.ndarray, np.ndarray, None]:
        return super().step(packed_observations(obs, self.ob_space), state, mask, deterministic)

    def proba_step(self, obs: Any, state: Optional[np.ndarray] = None,
                   mask: Optional[np.ndarray] = None) -> np.ndarray:
        return super().proba_step(packed_observations(obs, self.ob_space), state, mask)


register_policy("MultiInputPolicy", MultiInputPolicy)
