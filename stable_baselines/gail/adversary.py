"""
The GAIL discriminator (reward giver): a classifier of transitions (observation, action) that tells
expert transitions from the policy's. Reference: https://arxiv.org/abs/1606.03476 (Ho & Ermon, 2016).
"""

import numpy as np
from gymnasium import spaces

from stable_baselines.common import tf_util
from stable_baselines.common.gym_compat import convert_space
from stable_baselines.common.mpi_running_mean_std import RunningMeanStd
from stable_baselines.common.tf_compat import tf
from stable_baselines.common.tf_layers import fully_connected

SUPPORTED_ACTION_SPACES = (spaces.Box, spaces.Discrete)
SUPPORTED_OBSERVATION_SPACES = (spaces.Box, spaces.Discrete, spaces.MultiDiscrete, spaces.MultiBinary)


def logsigmoid(input_tensor: tf.Tensor) -> tf.Tensor:
    """
    Equivalent to tf.log(tf.sigmoid(a))

    :param input_tensor: (tf.Tensor)
    :return: (tf.Tensor)
    """
    return -tf.nn.softplus(-input_tensor)


def logit_bernoulli_entropy(logits: tf.Tensor) -> tf.Tensor:
    """
    Reference:
    https://github.com/openai/imitation/blob/99fbccf3e060b6e6c739bdf209758620fcdefd3c/policyopt/thutil.py#L48-L51

    The entropy of a Bernoulli distribution given by its logits:
    (1 - sigmoid(x)) * x - log(sigmoid(x)).

    :param logits: (tf.Tensor) the logits
    :return: (tf.Tensor) the Bernoulli entropy
    """
    ent = (1. - tf.nn.sigmoid(logits)) * logits - logsigmoid(logits)
    return ent


class TransitionClassifier(object):
    """
    Reward regression from observations and transitions

    Build, in the current (default) graph, a discriminator ``D(s, a)`` (two tanh layers of
    ``hidden_size`` units, one logit) trained to output 1 on expert transitions and 0 on the
    policy's, and the reward given to the policy, ``-log(1 - D(s, a) + 1e-8)``.
    Variables: ``<scope>/fully_connected{,_1,_2}/{weights,biases}`` (trainable) and, with
    ``normalize``, the observation statistics ``<scope>/obfilter/{runningsum,runningsumsq,count}``.

    :param observation_space: (gym.spaces) the observation space
    :param action_space: (gym.spaces) the action space (Box or Discrete)
    :param hidden_size: ([int]) the hidden dimension for the MLP
    :param entcoeff: (float) the entropy loss weight
    :param scope: (str) tensorflow variable scope
    :param normalize: (bool) Whether to normalize the reward or not
    """

    def __init__(self, observation_space, action_space, hidden_size, entcoeff=0.001, scope="adversary",
                 normalize=True):
        observation_space = convert_space(observation_space)
        action_space = convert_space(action_space)
        if not isinstance(action_space, SUPPORTED_ACTION_SPACES):
            raise ValueError("Action space not supported: {}; the GAIL discriminator supports Box and Discrete "
                             "action spaces".format(action_space))
        if not isinstance(observation_space, SUPPORTED_OBSERVATION_SPACES):
            raise ValueError("Observation space not supported: {}; the GAIL discriminator supports Box, Discrete, "
                             "MultiDiscrete and MultiBinary observation spaces".format(observation_space))
        if int(hidden_size) <= 0:
            raise ValueError("hidden_size must be a positive int, got {!r}".format(hidden_size))
        self.scope = scope
        self.observation_space = observation_space
        self.observation_shape = observation_space.shape
        self.actions_shape = action_space.shape
        self.discrete_observations = isinstance(observation_space, spaces.Discrete)

        if isinstance(action_space, spaces.Box):
            # Continuous action space
            self.discrete_actions = False
            self.n_actions = int(np.prod(action_space.shape))
        else:
            self.n_actions = int(action_space.n)
            self.discrete_actions = True

        self.hidden_size = int(hidden_size)
        # a Discrete observation is one-hot encoded: nothing to normalize
        self.normalize = bool(normalize) and not self.discrete_observations
        self.obs_rms = None
        # the session used by get_reward when no default session is set (GAIL sets it)
        self.sess = None

        # the graph the classifier is built in (the default graph at construction)
        self.graph = tf.get_default_graph()
        # Placeholders
        self.generator_obs_ph = tf.placeholder(observation_space.dtype, (None,) + self.observation_shape,
                                               name="observations_ph")
        self.generator_acs_ph = tf.placeholder(action_space.dtype, (None,) + self.actions_shape,
                                               name="actions_ph")
        self.expert_obs_ph = tf.placeholder(observation_space.dtype, (None,) + self.observation_shape,
                                            name="expert_observations_ph")
        self.expert_acs_ph = tf.placeholder(action_space.dtype, (None,) + self.actions_shape,
                                            name="expert_actions_ph")
        # Build graph
        generator_logits = self.build_graph(self.generator_obs_ph, self.generator_acs_ph, reuse=False)
        expert_logits = self.build_graph(self.expert_obs_ph, self.expert_acs_ph, reuse=True)
        # Build accuracy
        generator_acc = tf.reduce_mean(tf.cast(tf.nn.sigmoid(generator_logits) < 0.5, tf.float32))
        expert_acc = tf.reduce_mean(tf.cast(tf.nn.sigmoid(expert_logits) > 0.5, tf.float32))
        # Build regression loss
        # let x = logits, z = targets.
        # z * -log(sigmoid(x)) + (1 - z) * -log(1 - sigmoid(x))
        generator_loss = tf.nn.sigmoid_cross_entropy_with_logits(logits=generator_logits,
                                                                 labels=tf.zeros_like(generator_logits))
        generator_loss = tf.reduce_mean(generator_loss)
        expert_loss = tf.nn.sigmoid_cross_entropy_with_logits(logits=expert_logits,
                                                              labels=tf.ones_like(expert_logits))
        expert_loss = tf.reduce_mean(expert_loss)
        # Build entropy loss
        logits = tf.concat([generator_logits, expert_logits], 0)
        entropy = tf.reduce_mean(logit_bernoulli_entropy(logits))
        entropy_loss = -entcoeff * entropy
        # Loss + Accuracy terms
        self.losses = [generator_loss, expert_loss, entropy, entropy_loss, generator_acc, expert_acc]
        self.loss_name = ["generator_loss", "expert_loss", "entropy", "entropy_loss", "generator_acc", "expert_acc"]
        self.total_loss = generator_loss + expert_loss + entropy_loss
        # Build Reward for policy
        self.reward_op = -tf.log(1 - tf.nn.sigmoid(generator_logits) + 1e-8)
        var_list = self.get_trainable_variables()
        self.lossandgrad = tf_util.function(
            [self.generator_obs_ph, self.generator_acs_ph, self.expert_obs_ph, self.expert_acs_ph],
            self.losses + [tf_util.flatgrad(self.total_loss, var_list)])

    def build_graph(self, obs_ph, acs_ph, reuse=False):
        """
        build the graph

        :param obs_ph: (tf.Tensor) the observation placeholder
        :param acs_ph: (tf.Tensor) the action placeholder
        :param reuse: (bool)
        :return: (tf.Tensor) the graph output (the logits of D(s, a))
        """
        with tf.variable_scope(self.scope):
            if reuse:
                tf.get_variable_scope().reuse_variables()

            if self.discrete_observations:
                obs = tf.one_hot(obs_ph, int(self.observation_space.n))
            else:
                obs = tf.cast(obs_ph, tf.float32)
                if self.normalize:
                    with tf.variable_scope("obfilter"):
                        self.obs_rms = RunningMeanStd(shape=self.observation_shape)
                    obs = (obs - self.obs_rms.mean) / self.obs_rms.std
                n_inputs = int(np.prod(self.observation_shape))
                obs = tf.reshape(obs, [-1, n_inputs])

            if self.discrete_actions:
                one_hot_actions = tf.one_hot(tf.reshape(acs_ph, [-1]), self.n_actions)
                actions_ph = tf.cast(one_hot_actions, tf.float32)
            else:
                actions_ph = tf.reshape(tf.cast(acs_ph, tf.float32), [-1, self.n_actions])

            _input = tf.concat([obs, actions_ph], axis=1)  # concatenate the two input -> form a transition
            # explicit scopes: the names TF 1.15 gave to the three unnamed contrib layers
            p_h1 = fully_connected(_input, self.hidden_size, activation_fn=tf.nn.tanh, scope="fully_connected")
            p_h2 = fully_connected(p_h1, self.hidden_size, activation_fn=tf.nn.tanh, scope="fully_connected_1")
            logits = fully_connected(p_h2, 1, activation_fn=tf.identity, scope="fully_connected_2")
        return logits

    def get_trainable_variables(self):
        """
        Get all the trainable variables from the graph (the one the classifier was built in)

        :return: ([tf.Tensor]) the variables
        """
        return self.graph.get_collection(tf.GraphKeys.TRAINABLE_VARIABLES, self.scope + "/")

    def get_reward(self, obs, actions):
        """
        Predict the reward using the observation and action

        :param obs: (tf.Tensor or np.ndarray) the observation
        :param actions: (tf.Tensor or np.ndarray) the action
        :return: (np.ndarray) the reward, shape (n_samples, 1) for a batch of transitions, a 0-d array
            for a single (unbatched) observation
        """
        sess = self._session()
        obs, actions, single = self._prepare_inputs(obs, actions)
        feed_dict = {self.generator_obs_ph: obs, self.generator_acs_ph: actions}
        reward = sess.run(self.reward_op, feed_dict)
        if single:
            # one transition: a 0-d array (numpy 2 no longer stores a (1, 1) array into a scalar slot)
            return reward.reshape(())
        return reward

    def _session(self, sess=None):
        if sess is None:
            sess = tf.get_default_session()
        if sess is None:
            sess = self.sess
        if sess is None:
            raise ValueError("TransitionClassifier needs a session: call it inside "
                             "`with sess.as_default():` or set `.sess`")
        return sess

    def _prepare_inputs(self, obs, actions):
        """
        :return: (np.ndarray, np.ndarray, bool) the batched observations and actions, and whether a single
            (unbatched) transition was given
        """
        obs = np.asarray(obs)
        actions = np.asarray(actions)
        single = obs.ndim == len(self.observation_shape)
        if single:
            obs = np.expand_dims(obs, 0)
        if len(actions.shape) == 1 and not self.discrete_actions:
            actions = np.expand_dims(actions, 0)
        elif len(actions.shape) == 0:
            # one discrete action
            actions = np.expand_dims(actions, 0)
        if self.discrete_actions:
            actions = actions.reshape(-1)
        return obs, actions, single

    def numpy_reward_function(self, sess=None):
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
            fetches += [self.obs_rms.mean, self.obs_rms.std]
        values = sess.run(fetches)
        layers = [(np.asarray(values[i], np.float32), np.asarray(values[i + 1], np.float32))
                  for i in range(0, len(variables), 2)]
        if len(layers) != 3:
            raise ValueError("TransitionClassifier.numpy_reward_function expects 3 dense layers under the scope "
                             "{!r}, found {} variables".format(self.scope, len(variables)))
        mean = std = None
        if self.normalize:
            mean, std = np.asarray(values[-2], np.float32), np.asarray(values[-1], np.float32)
        n_inputs = int(np.prod(self.observation_shape)) if not self.discrete_observations else None
        eye_actions = np.eye(self.n_actions, dtype=np.float32) if self.discrete_actions else None
        eye_obs = np.eye(int(self.observation_space.n), dtype=np.float32) if self.discrete_observations else None

        def reward_fn(obs, actions):
            obs, actions, single = self._prepare_inputs(obs, actions)
            if self.discrete_observations:
                obs_in = eye_obs[obs.reshape(-1).astype(np.int64)]
            else:
                obs_in = obs.astype(np.float32)
                if self.normalize:
                    obs_in = (obs_in - mean) / std
                obs_in = obs_in.reshape(-1, n_inputs)
            if self.discrete_actions:
                act_in = eye_actions[actions.astype(np.int64)]
            else:
                act_in = actions.astype(np.float32).reshape(-1, self.n_actions)
            hidden = np.concatenate([obs_in, act_in], axis=1)
            hidden = np.tanh(hidden @ layers[0][0] + layers[0][1])
            hidden = np.tanh(hidden @ layers[1][0] + layers[1][1])
            logits = hidden @ layers[2][0] + layers[2][1]
            # -log(1 - sigmoid(logits) + 1e-8), sigmoid without overflow
            exp_neg = np.exp(-np.abs(logits))
            prob = np.where(logits >= 0, 1.0 / (1.0 + exp_neg), exp_neg / (1.0 + exp_neg)).astype(np.float32)
            reward = -np.log(np.float32(1.0) - prob + np.float32(1e-8))
            if single:
                return reward.reshape(())
            return reward

        return reward_fn
