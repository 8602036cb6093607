"""
The discriminator of GAIL, which also hands out the policy's reward: a binary classifier over transitions
(observation, action), trained to answer 1 for the expert and 0 for the policy (Ho & Ermon, 2016,
https://arxiv.org/abs/1606.03476).
"""
from typing import Any, Callable, List, Optional, Tuple

import numpy as np
from gymnasium import spaces

from stable_baselines.common import tf_util
from stable_baselines.common.gym_compat import convert_space
from stable_baselines.common.mpi_running_mean_std import RunningMeanStd
from stable_baselines.common.tf_compat import tf
from stable_baselines.common.tf_layers import fully_connected

SUPPORTED_ACTION_SPACES = (spaces.Box, spaces.Discrete)
SUPPORTED_OBSERVATION_SPACES = (spaces.Box, spaces.Discrete, spaces.MultiDiscrete, spaces.MultiBinary)

# names of the entries of TransitionClassifier.losses, in that order (GAIL prints them as a table header)
LOSS_NAMES = ["generator_loss", "expert_loss", "entropy", "entropy_loss", "generator_acc", "expert_acc"]
# the three dense layers of the discriminator (the names TF 1.15 gave to unnamed contrib layers)
LAYER_SCOPES = ("fully_connected", "fully_connected_1", "fully_connected_2")


def logsigmoid(input_tensor: tf.Tensor) -> tf.Tensor:
    """
    log(sigmoid(x)), written as -softplus(-x) so that it stays finite for large negative x.

    :param input_tensor: (tf.Tensor) the input x
    :return: (tf.Tensor) log(sigmoid(x)), element-wise
    """
    return -tf.nn.softplus(-input_tensor)


def logit_bernoulli_entropy(logits: tf.Tensor) -> tf.Tensor:
    """
    Entropy of Bernoulli variables parametrised by their logits x: (1 - sigmoid(x)) * x - log(sigmoid(x))
    (the formula of OpenAI's ``imitation`` code).

    :param logits: (tf.Tensor) the logits x
    :return: (tf.Tensor) the entropy, element-wise
    """
    probability = tf.nn.sigmoid(logits)
    return (1. - probability) * logits - logsigmoid(logits)


def _check_spaces(observation_space: spaces.Space, action_space: spaces.Space, hidden_size: int) -> None:
    """Raise a ValueError for a space or a layer width the discriminator cannot handle."""
    if not isinstance(action_space, SUPPORTED_ACTION_SPACES):
        raise ValueError("Action space not supported: {}; the GAIL discriminator supports Box and Discrete "
                         "action spaces".format(action_space))
    if not isinstance(observation_space, SUPPORTED_OBSERVATION_SPACES):
        raise ValueError("Observation space not supported: {}; the GAIL discriminator supports Box, Discrete, "
                         "MultiDiscrete and MultiBinary observation spaces".format(observation_space))
    if int(hidden_size) <= 0:
        raise ValueError("hidden_size must be a positive int, got {!r}".format(hidden_size))


def _stable_sigmoid(logits: np.ndarray) -> np.ndarray:
    """Sigmoid in float32 that never overflows in exp."""
    exp_neg = np.exp(-np.abs(logits))
    return np.where(logits >= 0, 1.0 / (1.0 + exp_neg), exp_neg / (1.0 + exp_neg)).astype(np.float32)


class TransitionClassifier(object):
    """
    GAIL's discriminator D(s, a) and the reward it gives to the policy.

    Built in the default graph at construction: two tanh layers of ``hidden_size`` units and one logit,
    trained towards 1 on expert transitions and 0 on the policy's; the policy's reward is
    ``-log(1 - D(s, a) + 1e-8)``. Variables: ``<scope>/fully_connected{,_1,_2}/{weights,biases}``
    (trainable) and, with ``normalize``, ``<scope>/obfilter/{runningsum,runningsumsq,count}``.

    :param observation_space: (gym.spaces) the observation space
    :param action_space: (gym.spaces) the action space (Box or Discrete)
    :param hidden_size: ([int]) width of the two hidden layers
    :param entcoeff: (float) weight of the entropy bonus in the discriminator's loss
    :param scope: (str) the TensorFlow variable scope
    :param normalize: (bool) whether to normalise observations with running statistics
    """

    def __init__(self, observation_space: Any, action_space: Any, hidden_size: int, entcoeff: float = 0.001,
                 scope: str = "adversary", normalize: bool = True) -> None:
        observation_space = convert_space(observation_space)
        action_space = convert_space(action_space)
        _check_spaces(observation_space, action_space, hidden_size)
        self.scope = scope
        self.observation_space = observation_space
        self.observation_shape = observation_space.shape
        self.actions_shape = action_space.shape
        self.discrete_observations = isinstance(observation_space, spaces.Discrete)
        self.discrete_actions = isinstance(action_space, spaces.Discrete)
        if self.discrete_actions:
            self.n_actions = int(action_space.n)
        else:
            self.n_actions = int(np.prod(action_space.shape))
        self.hidden_size = int(hidden_size)
        # one-hot encoded Discrete observations have nothing to normalise
        self.normalize = bool(normalize) and not self.discrete_observations
        # running statistics of the observations (made by build_graph when normalize)
        self.obs_rms: Optional[RunningMeanStd] = None
        # fallback session of get_reward when none is the default (GAIL sets it)
        self.sess: Any = None
        self.graph = tf.get_default_graph()

        def placeholder(space: spaces.Space, shape: Tuple[int, ...], name: str) -> tf.Tensor:
            return tf.placeholder(space.dtype, (None,) + shape, name=name)

        self.generator_obs_ph = placeholder(observation_space, self.observation_shape, "observations_ph")
        self.generator_acs_ph = placeholder(action_space, self.actions_shape, "actions_ph")
        self.expert_obs_ph = placeholder(observation_space, self.observation_shape, "expert_observations_ph")
        self.expert_acs_ph = placeholder(action_space, self.actions_shape, "expert_actions_ph")

        policy_logits = self.build_graph(self.generator_obs_ph, self.generator_acs_ph, reuse=False)
        expert_logits = self.build_graph(self.expert_obs_ph, self.expert_acs_ph, reuse=True)
        self.losses = self._loss_terms(policy_logits, expert_logits, entcoeff)
        self.loss_name = list(LOSS_NAMES)
        policy_loss, expert_loss, _, entropy_loss = self.losses[:4]
        self.total_loss = policy_loss + expert_loss + entropy_loss
        self.reward_op = -tf.log(1 - tf.nn.sigmoid(policy_logits) + 1e-8)
        gradient = tf_util.flatgrad(self.total_loss, self.get_trainable_variables())
        inputs = [self.generator_obs_ph, self.generator_acs_ph, self.expert_obs_ph, self.expert_acs_ph]
        self.lossandgrad = tf_util.function(inputs, self.losses + [gradient])

    @staticmethod
    def _loss_terms(policy_logits: tf.Tensor, expert_logits: tf.Tensor, entcoeff: float) -> list:
        """
        :return: ([tf.Tensor]) the scalars named by LOSS_NAMES: cross-entropy on each source (targets 0 for
            the policy, 1 for the expert), mean Bernoulli entropy, its weighted bonus, and both accuracies
        """
        policy_accuracy = tf.reduce_mean(tf.cast(tf.nn.sigmoid(policy_logits) < 0.5, tf.float32))
        expert_accuracy = tf.reduce_mean(tf.cast(tf.nn.sigmoid(expert_logits) > 0.5, tf.float32))

        def cross_entropy(logits: tf.Tensor, make_targets: Callable[[tf.Tensor], tf.Tensor]) -> tf.Tensor:
            targets = make_targets(logits)
            return tf.reduce_mean(tf.nn.sigmoid_cross_entropy_with_logits(logits=logits, labels=targets))

        policy_loss = cross_entropy(policy_logits, tf.zeros_like)
        expert_loss = cross_entropy(expert_logits, tf.ones_like)
        both_logits = tf.concat([policy_logits, expert_logits], 0)
        entropy = tf.reduce_mean(logit_bernoulli_entropy(both_logits))
        entropy_loss = -entcoeff * entropy
        return [policy_loss, expert_loss, entropy, entropy_loss, policy_accuracy, expert_accuracy]

    def build_graph(self, obs_ph: tf.Tensor, acs_ph: tf.Tensor, reuse: bool = False) -> tf.Tensor:
        """
        Build the discriminator's logits for a batch of transitions.

        :param obs_ph: (tf.Tensor) the observations
        :param acs_ph: (tf.Tensor) the actions
        :param reuse: (bool) whether to reuse the variables of an earlier call
        :return: (tf.Tensor) the logits of D(s, a), shape (batch, 1)
        """
        with tf.variable_scope(self.scope):
            if reuse:
                tf.get_variable_scope().reuse_variables()
            transition = tf.concat([self._observation_features(obs_ph), self._action_features(acs_ph)], axis=1)
            hidden = transition
            for layer_scope in LAYER_SCOPES[:2]:
                hidden = fully_connected(hidden, self.hidden_size, activation_fn=tf.nn.tanh, scope=layer_scope)
            return fully_connected(hidden, 1, activation_fn=tf.identity, scope=LAYER_SCOPES[2])

    def _observation_features(self, obs_ph: tf.Tensor) -> tf.Tensor:
        """Observations as a float matrix: one-hot (Discrete) or flattened, normalised when asked."""
        if self.discrete_observations:
            return tf.one_hot(obs_ph, int(self.observation_space.n))
        features = tf.cast(obs_ph, tf.float32)
        if self.normalize:
            with tf.variable_scope("obfilter"):
                self.obs_rms = obs_rms = RunningMeanStd(shape=self.observation_shape)
            features = (features - obs_rms.mean) / obs_rms.std
        return tf.reshape(features, [-1, int(np.prod(self.observation_shape))])

    def _action_features(self, acs_ph: tf.Tensor) -> tf.Tensor:
        """Actions as a float matrix: one-hot (Discrete) or flattened (Box)."""
        if self.discrete_actions:
            return tf.cast(tf.one_hot(tf.reshape(acs_ph, [-1]), self.n_actions), tf.float32)
        return tf.reshape(tf.cast(acs_ph, tf.float32), [-1, self.n_actions])

    def get_trainable_variables(self) -> List[tf.Variable]:
        """
        The discriminator's trainable variables (those under its scope in its own graph).

        :return: ([tf.Variable]) the variables
        """
        return self.graph.get_collection(tf.GraphKeys.TRAINABLE_VARIABLES, self.scope + "/")

    def get_reward(self, obs: np.ndarray, actions: np.ndarray) -> np.ndarray:
        """
        The reward the discriminator gives to transitions.

        :param obs: (np.ndarray) one observation or a batch of them
        :param actions: (np.ndarray) the matching action(s)
        :return: (np.ndarray) shape (n_samples, 1) for a batch, a 0-d array for one unbatched observation
        """
        sess = self._session()
        obs, actions, single = self._prepare_inputs(obs, actions)
        reward = sess.run(self.reward_op, {self.generator_obs_ph: obs, self.generator_acs_ph: actions})
        # numpy 2 refuses to store a (1, 1) array into a scalar slot: hand back a 0-d array
        return reward.reshape(()) if single else reward

    def _session(self, sess: Any = None) -> Any:
        """The given session, else the default one, else ``.sess``."""
        for candidate in (sess, tf.get_default_session(), self.sess):
            if candidate is not None:
                return candidate
        raise ValueError("TransitionClassifier needs a session: call it inside "
                         "`with sess.as_default():` or set `.sess`")

    def _prepare_inputs(self, obs: Any, actions: Any) -> Tuple[np.ndarray, np.ndarray, bool]:
        """
        :return: (np.ndarray, np.ndarray, bool) observations and actions with a batch axis, and whether the
            observation came without one
        """
        obs = np.asarray(obs)
        actions = np.asarray(actions)
        single = obs.ndim == len(self.observation_shape)
        if single:
            obs = obs[np.newaxis]
        if actions.ndim == 0 or (actions.ndim == 1 and not self.discrete_actions):
            actions = actions[np.newaxis]
        if self.discrete_actions:
            actions = actions.reshape(-1)
        return obs, actions, single

    def numpy_reward_function(self, sess: Any = None) -> Callable[[np.ndarray, np.ndarray], np.ndarray]:
        """
        A NumPy copy of :meth:`get_reward`: the discriminator's weights and observation statistics are
        read once, and the returned function computes the same float32 arithmetic as the graph without a
        session call (GAIL's rollouts ask for one reward per step). The copy does not follow later
        updates of the variables: take a new one after each discriminator update.

        :param sess: (tf.Session) the session holding the variables (default: the default session, then ``.sess``)
        :return: (callable) ``reward_fn(obs, actions) -> np.ndarray``, with the shapes of :meth:`get_reward`
        """
        sess = self._session(sess)
        variables = self.get_trainable_variables()
        fetches = list(variables)
        if self.normalize:
            assert self.obs_rms is not None, "build_graph made the statistics of normalised observations"
            fetches += [self.obs_rms.mean, self.obs_rms.std]
        values = [np.asarray(value, np.float32) for value in sess.run(fetches)]
        layers = [(values[i], values[i + 1]) for i in range(0, len(variables), 2)]
        if len(layers) != len(LAYER_SCOPES):
            raise ValueError("TransitionClassifier.numpy_reward_function expects 3 dense layers under the scope "
                             "{!r}, found {} variables".format(self.scope, len(variables)))
        if self.discrete_observations:
            obs_eye = np.eye(int(self.observation_space.n), dtype=np.float32)

            def observation_features(obs: np.ndarray) -> np.ndarray:
                return obs_eye[obs.reshape(-1).astype(np.int64)]
        else:
            n_inputs = int(np.prod(self.observation_shape))
            if self.normalize:
                mean, std = values[-2], values[-1]

                def observation_features(obs: np.ndarray) -> np.ndarray:
                    return ((obs.astype(np.float32) - mean) / std).reshape(-1, n_inputs)
            else:
                def observation_features(obs: np.ndarray) -> np.ndarray:
                    return obs.astype(np.float32).reshape(-1, n_inputs)

        if self.discrete_actions:
            action_eye = np.eye(self.n_actions, dtype=np.float32)

            def action_features(actions: np.ndarray) -> np.ndarray:
                return action_eye[actions.astype(np.int64)]
        else:
            def action_features(actions: np.ndarray) -> np.ndarray:
                return actions.astype(np.float32).reshape(-1, self.n_actions)

        def reward_fn(obs: np.ndarray, actions: np.ndarray) -> np.ndarray:
            obs, actions, single = self._prepare_inputs(obs, actions)
            hidden = np.concatenate([observation_features(obs), action_features(actions)], axis=1)
            for weights, biases in layers[:-1]:
                hidden = np.tanh(hidden @ weights + biases)
            logits = hidden @ layers[-1][0] + layers[-1][1]
            reward = -np.log(np.float32(1.0) - _stable_sigmoid(logits) + np.float32(1e-8))
            return reward.reshape(()) if single else reward

        return reward_fn
