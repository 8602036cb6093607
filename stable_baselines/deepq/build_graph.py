"""
The TensorFlow graph of DQN: acting, the Q-learning update and the target network copy.

:func:`build_train` builds everything and returns three callables and the evaluation policy:

- ``act(obs, stochastic=True, update_eps=-1)``: the greedy actions (int64, one per observation) or, when
  ``stochastic``, epsilon-greedy ones; ``update_eps >= 0`` first stores a new epsilon. With parameter noise,
  ``act(obs, reset, update_param_noise_threshold, update_param_noise_scale, stochastic=True, update_eps=-1)`` acts
  with a perturbed copy of the network (``reset`` draws a new perturbation, ``update_param_noise_threshold`` is the
  KL divergence aimed at, ``update_param_noise_scale`` adapts the noise scale to it first).
- ``train(obs_t, action, reward, obs_tp1, obs_tp1, done, weight)``: one gradient step on the importance-weighted
  Huber loss of the temporal-difference error ``Q(s, a) - (r + gamma * (1 - done) * Q'(s', a*))``, with
  ``a* = argmax_a Q(s', a)`` (double Q-learning) or the maximum of the target network ``Q'``; returns the merged
  summary and the TD errors (float32, one per transition).
- ``update_target()``: copy the online network's variables into the target network (the target lags behind so
  that the regression target does not move at every step).

Scopes, and so variable and operation names, are those of the original library: ``input/``, then ``deepq/eps``,
``deepq/model/...`` (the online network), with parameter noise ``deepq/perturbed_model/model/...`` and
``deepq/adaptive_model/model/...``, then ``deepq/target_q_func/model/...``, ``loss/`` and ``input_info/``.
"""
from typing import Any, Callable, List, NamedTuple, Optional, Tuple

from gymnasium import spaces

from stable_baselines.common import tf_util
from stable_baselines.common.distributions import masked_logits
from stable_baselines.common.tf_compat import tf

ObsPlaceholders = Tuple[tf.Tensor, tf.Tensor]


def scope_vars(scope: str, trainable_only: bool = False) -> List[tf.Variable]:
    """
    :param scope: (str or VariableScope) a variable scope, by name or object
    :param trainable_only: (bool) only the trainable variables
    :return: ([TensorFlow Variable]) the variables under ``scope``, in creation order
    """
    collection = tf.GraphKeys.TRAINABLE_VARIABLES if trainable_only else tf.GraphKeys.GLOBAL_VARIABLES
    return tf.get_collection(collection, scope=scope if isinstance(scope, str) else scope.name)


def scope_name() -> str:
    """
    :return: (str) the name of the variable scope open now (e.g. ``deepq``)
    """
    return tf.get_variable_scope().name


def absolute_scope_name(relative_scope_name: str) -> str:
    """
    :param relative_scope_name: (str) a scope name relative to the variable scope open now
    :return: (str) the full name, ``<current scope>/<relative_scope_name>``
    """
    return "{}/{}".format(scope_name(), relative_scope_name)


def default_param_noise_filter(var: tf.Variable) -> bool:
    """
    Which variables parameter noise perturbs by default: the trainable variables of fully-connected layers. Others
    (convolutions, which extract features, and layer normalisation) are copied unperturbed; a custom network may
    need another filter.

    :param var: (TensorFlow Tensor) a variable of the Q network
    :return: (bool) whether to perturb it
    """
    return var in tf.trainable_variables() and "fully_connected" in var.name


def _n_actions(ac_space: spaces.Space) -> int:
    if not isinstance(ac_space, spaces.Discrete):
        raise ValueError("Error: DQN needs a Discrete action space, got {}".format(ac_space))
    return int(ac_space.n)


def _network(q_func: Callable, sess: tf.Session, ob_space: spaces.Space, ac_space: spaces.Space,
             **kwargs) -> Any:
    """One copy of the Q network (a DQNPolicy for one environment, one step)."""
    return q_func(sess, ob_space, ac_space, 1, 1, None, **kwargs)


def _scalar_variable(name: str, initial: float, **kwargs) -> tf.Variable:
    return tf.get_variable(name, (), initializer=tf.constant_initializer(initial), **kwargs)


def _given_or_kept(value_ph: tf.Tensor, variable: tf.Variable) -> tf.Tensor:
    """``value_ph`` when it is >= 0, else the variable's current value."""
    return tf.where(value_ph >= 0, value_ph, tf.identity(variable))


def _random_choices(obs_ph: tf.Tensor, n_actions: int, eps_value: tf.Tensor) -> Tuple[tf.Tensor, tf.Tensor]:
    """A uniformly random action per observation, and per observation whether to take it (probability eps)."""
    n_obs = tf.shape(obs_ph)[0]
    random_actions = tf.random_uniform(tf.stack([n_obs]), minval=0, maxval=n_actions, dtype=tf.int64)
    take_random = tf.random_uniform(tf.stack([n_obs]), minval=0, maxval=1, dtype=tf.float32) < eps_value
    return random_actions, take_random


def _act_function(obs_ph: tf.Tensor, stochastic_ph: tf.Tensor, update_eps_ph: tf.Tensor, actions: tf.Tensor,
                  store_eps: tf.Operation) -> Callable:
    """
    The session callable ``(obs, stochastic, update_eps) -> actions`` that also stores the epsilon (its random
    draws are counted by the session call, see ``tf_util.session_run``).
    """
    return tf_util.function(inputs=[obs_ph, stochastic_ph, update_eps_ph], outputs=actions,
                            givens={update_eps_ph: -1.0, stochastic_ph: True}, updates=[store_eps])


def build_act(q_func: Callable, ob_space: spaces.Space, ac_space: spaces.Space, stochastic_ph: tf.Tensor,
              update_eps_ph: tf.Tensor, sess: tf.Session) -> Tuple[Callable, ObsPlaceholders]:
    """
    Build the epsilon-greedy act function (see the module's description).

    :param q_func: (DQNPolicy) the policy class
    :param ob_space: (Gym Space) the observation space
    :param ac_space: (Gym Space) the action space (Discrete)
    :param stochastic_ph: (TensorFlow Tensor) the placeholder choosing epsilon-greedy (True) or greedy actions
    :param update_eps_ph: (TensorFlow Tensor) the placeholder of a new epsilon (negative: keep the current one)
    :param sess: (TensorFlow session) the session
    :return: (function (TensorFlow Tensor, bool, float): TensorFlow Tensor, (TensorFlow Tensor, TensorFlow Tensor))
        the act function, and the observation placeholder with its processed version
    """
    n_actions = _n_actions(ac_space)
    eps = _scalar_variable("eps", 0)
    online = _network(q_func, sess, ob_space, ac_space)
    greedy = tf.argmax(online.q_values, axis=1)
    eps_now = _given_or_kept(update_eps_ph, eps)
    store_eps = eps.assign(eps_now)
    random_actions, take_random = _random_choices(online.obs_ph, n_actions, eps_now)
    exploring = tf.where(take_random, random_actions, greedy)
    actions = tf.cond(stochastic_ph, lambda: exploring, lambda: greedy)
    act_call = _act_function(online.obs_ph, stochastic_ph, update_eps_ph, actions, store_eps)

    def act(obs, stochastic=True, update_eps=-1):
        return act_call(obs, stochastic, update_eps, sess=sess)

    return act, (online.obs_ph, online.processed_obs)


def _perturbation(source_scope: str, copy_scope: str, noise_scale: tf.Variable, noise_filter: Callable
                  ) -> tf.Operation:
    """
    The op setting every variable of ``copy_scope`` to its counterpart in ``source_scope`` plus Gaussian noise
    of standard deviation ``noise_scale`` (only where ``noise_filter`` accepts the variable: plain copy elsewhere).
    Both scopes are relative to the variable scope open now.
    """
    sources = scope_vars(absolute_scope_name(source_scope) + "/")
    copies = scope_vars(absolute_scope_name(copy_scope) + "/")
    if len(sources) != len(copies):
        raise RuntimeError("Cannot perturb {}: it has {} variables, {} has {}".format(
            copy_scope, len(copies), source_scope, len(sources)))
    assignments = []
    for source, copy in zip(sources, copies):
        if noise_filter(copy):
            noisy = source + tf.random_normal(shape=tf.shape(source), mean=0., stddev=noise_scale)
            assignments.append(tf.assign(copy, noisy))
        else:
            assignments.append(tf.assign(copy, source))
    return tf.group(*assignments)


def _policy_divergence(online: Any, perturbed: Any) -> tf.Tensor:
    """Mean over the batch of KL(softmax(Q) || softmax(Q perturbed))."""
    probabilities = tf.nn.softmax(online.q_values)
    log_online = tf.log(tf.nn.softmax(online.q_values))
    log_perturbed = tf.log(tf.nn.softmax(perturbed.q_values))
    return tf.reduce_mean(tf.reduce_sum(probabilities * (log_online - log_perturbed), axis=-1))


class _ParamNoiseAct:
    """
    The act function of parameter-noise exploration: ``act(obs, reset=None, update_param_noise_threshold=None,
    update_param_noise_scale=None, stochastic=True, update_eps=-1)``.

    Without all three noise arguments it acts greedily / epsilon-greedily with the unperturbed network. With
    them it first stores the threshold, then draws a new perturbation if ``reset``, then adapts the scale if
    ``update_param_noise_scale`` (each its own session call, in this order, so that a seeded run is
    reproducible), and acts with the perturbed network.

    :param sess: (TensorFlow session) the session
    :param plain: (callable) the act call of the unperturbed network
    :param perturbed: (callable) the act call of the perturbed network
    :param obs_ph: (TensorFlow Tensor) the observation placeholder
    :param threshold_ph: (TensorFlow Tensor) the placeholder of a new divergence threshold
    :param store_threshold: (TensorFlow Operation) stores ``threshold_ph``
    :param perturb_rollout: (TensorFlow Operation) draws the perturbation of the acting copy
    :param perturb_probe: (TensorFlow Operation) draws the perturbation of the copy that measures the divergence
    :param adapt_scale: (TensorFlow Operation) grows or shrinks the noise scale after the divergence
    :param noise_scale: (TensorFlow Variable) the standard deviation of the perturbations (``param_noise_scale``)
    :param threshold: (TensorFlow Variable) the divergence aimed at (``param_noise_threshold``)
    """

    def __init__(self, sess: tf.Session, *, plain: Callable, perturbed: Callable, obs_ph: tf.Tensor,
                 threshold_ph: tf.Tensor, store_threshold: tf.Operation, perturb_rollout: tf.Operation,
                 perturb_probe: tf.Operation, adapt_scale: tf.Operation, noise_scale: tf.Variable,
                 threshold: tf.Variable):
        self.sess = sess
        self._plain = plain
        self._perturbed = perturbed
        self._obs_ph = obs_ph
        self._threshold_ph = threshold_ph
        self._store_threshold = store_threshold
        self._perturb_rollout = perturb_rollout
        self._perturb_probe = perturb_probe
        self._adapt_scale = adapt_scale
        # the noise state, for tensorboard and tests
        self.param_noise_scale = noise_scale
        self.param_noise_threshold = threshold

    def __call__(self, obs: Any, reset: Optional[bool] = None, update_param_noise_threshold: Optional[float] = None,
                 update_param_noise_scale: Optional[bool] = None, stochastic: bool = True,
                 update_eps: float = -1) -> Any:
        if reset is None or update_param_noise_threshold is None or update_param_noise_scale is None:
            return self._plain(obs, stochastic, update_eps, sess=self.sess)
        self.sess.run(self._store_threshold, {self._threshold_ph: float(update_param_noise_threshold)})
        if reset:
            tf_util.session_run(self.sess, self._perturb_rollout)
        if update_param_noise_scale:
            tf_util.session_run(self.sess, self._perturb_probe)
            self.sess.run(self._adapt_scale, {self._obs_ph: obs})
        return self._perturbed(obs, stochastic, update_eps, sess=self.sess)


def build_act_with_param_noise(q_func: Callable, ob_space: spaces.Space, ac_space: spaces.Space,
                               stochastic_ph: tf.Tensor, update_eps_ph: tf.Tensor, sess: tf.Session,
                               param_noise_filter_func: Optional[Callable] = None
                               ) -> Tuple[Callable, ObsPlaceholders]:
    """
    Build the act function exploring with parameter-space noise (https://arxiv.org/abs/1706.01905): actions come
    from a perturbed copy of the network; a second perturbed copy measures the KL divergence a perturbation of the
    current scale causes, and the scale grows (x1.01) below the threshold and shrinks (/1.01) above. The first
    arguments are those of :func:`build_act`.

    :param param_noise_filter_func: (function (TensorFlow Tensor): bool) which variables to perturb (None:
        :func:`default_param_noise_filter`)
    :return: (function (TensorFlow Tensor, bool, float): TensorFlow Tensor, (TensorFlow Tensor, TensorFlow Tensor))
        the act function, and the observation placeholder with its processed version
    """
    noise_filter = default_param_noise_filter if param_noise_filter_func is None else param_noise_filter_func
    n_actions = _n_actions(ac_space)
    threshold_ph = tf.placeholder(tf.float32, (), name="update_param_noise_threshold")
    eps = _scalar_variable("eps", 0)
    noise_scale = _scalar_variable("param_noise_scale", 0.01, trainable=False)
    threshold = _scalar_variable("param_noise_threshold", 0.05, trainable=False)

    online = _network(q_func, sess, ob_space, ac_space)
    obs_phs = (online.obs_ph, online.processed_obs)
    with tf.variable_scope("perturbed_model", reuse=False):
        rollout_copy = _network(q_func, sess, ob_space, ac_space, obs_phs=obs_phs)
    with tf.variable_scope("adaptive_model", reuse=False):
        probe_copy = _network(q_func, sess, ob_space, ac_space, obs_phs=obs_phs)
    perturb_probe = _perturbation("model", "adaptive_model/model", noise_scale, noise_filter)
    divergence = _policy_divergence(online, probe_copy)
    adapt_scale = noise_scale.assign(tf.where(divergence < threshold, noise_scale * 1.01, noise_scale / 1.01))
    perturb_rollout = _perturbation("model", "perturbed_model/model", noise_scale, noise_filter)
    store_threshold = threshold.assign(_given_or_kept(threshold_ph, threshold))

    perturbed_greedy = tf.argmax(rollout_copy.q_values, axis=1)
    greedy = tf.argmax(online.q_values, axis=1)
    eps_now = _given_or_kept(update_eps_ph, eps)
    store_eps = eps.assign(eps_now)
    random_actions, take_random = _random_choices(online.obs_ph, n_actions, eps_now)
    perturbed_exploring = tf.where(take_random, random_actions, perturbed_greedy)
    exploring = tf.where(take_random, random_actions, greedy)
    perturbed_actions = tf.cond(stochastic_ph, lambda: perturbed_exploring, lambda: greedy)
    actions = tf.cond(stochastic_ph, lambda: exploring, lambda: greedy)
    act_call = _act_function(online.obs_ph, stochastic_ph, update_eps_ph, actions, store_eps)
    perturbed_act_call = _act_function(online.obs_ph, stochastic_ph, update_eps_ph, perturbed_actions, store_eps)

    act = _ParamNoiseAct(sess, plain=act_call, perturbed=perturbed_act_call, obs_ph=online.obs_ph,
                         threshold_ph=threshold_ph, store_threshold=store_threshold, perturb_rollout=perturb_rollout,
                         perturb_probe=perturb_probe, adapt_scale=adapt_scale, noise_scale=noise_scale,
                         threshold=threshold)
    return act, obs_phs


def _q_target(target_q: tf.Tensor, online_next_q: Optional[tf.Tensor], n_actions: int) -> tf.Tensor:
    """The value of the next state: the target network's value of the online network's best action (double Q),
    or the target network's largest value."""
    if online_next_q is None:
        return tf.reduce_max(target_q, axis=1)
    best_next_action = tf.argmax(online_next_q, axis=1)
    return tf.reduce_sum(target_q * tf.one_hot(best_next_action, n_actions), axis=1)


def _masked_q_target(target_q: tf.Tensor, online_next_q: Optional[tf.Tensor], n_actions: int,
                     next_allowed: tf.Tensor) -> tf.Tensor:
    """:func:`_q_target` maximising over the actions allowed in the next state only."""
    if online_next_q is None:
        return tf.reduce_max(masked_logits(target_q, next_allowed), axis=1)
    return _q_target(target_q, masked_logits(online_next_q, next_allowed), n_actions)


def _copy_variables(sources: List[tf.Variable], targets: List[tf.Variable]) -> tf.Operation:
    """One op assigning each source variable to the target of the same name (both lists sorted by name)."""
    by_name = lambda variable: variable.name  # noqa: E731
    copies = [target.assign(source) for source, target in zip(sorted(sources, key=by_name),
                                                              sorted(targets, key=by_name))]
    return tf.group(*copies)


def _clip_gradients(gradients: list, max_norm: Optional[float]) -> list:
    """
    Scale each gradient whose L2 norm exceeds ``max_norm`` down to that norm (every gradient on its own, as
    ``tf.clip_by_norm`` does, with the same float operations, so the same bits). The norms of the dense gradients
    go through one square root and one maximum together; sparse gradients (IndexedSlices) use ``tf.clip_by_norm``.

    :param gradients: ([(tf.Tensor, tf.Variable)]) the pairs of ``compute_gradients``
    :param max_norm: (float) the largest norm a gradient keeps (None: no clipping)
    :return: ([(tf.Tensor, tf.Variable)]) the clipped pairs, in the same order
    """
    if max_norm is None:
        return gradients
    result = [(grad if grad is None or isinstance(grad, tf.Tensor) else tf.clip_by_norm(grad, max_norm), var)
              for grad, var in gradients]
    dense = [position for position, (grad, _) in enumerate(gradients) if isinstance(grad, tf.Tensor)]
    if not dense:
        return result
    with tf.name_scope("clip_by_norm"):
        grads = [gradients[position][0] for position in dense]
        limit = tf.constant(max_norm, dtype=grads[0].dtype)
        # sqrt(0) is 0 and sqrt(NaN) NaN: the guarded square root of tf.clip_by_norm gives the same values
        norms = tf.sqrt(tf.stack([tf.reduce_sum(tf.square(grad)) for grad in grads]))
        divisors = tf.unstack(tf.maximum(norms, limit), num=len(grads))
        for position, grad, divisor in zip(dense, grads, divisors):
            result[position] = ((grad * limit) / divisor, gradients[position][1])
    return result


def _input_summaries(rew_t_ph: tf.Tensor, weights_ph: tf.Tensor, obs_ph: tf.Tensor, full: bool) -> None:
    with tf.variable_scope("input_info", reuse=False):
        tf.summary.scalar('rewards', tf.reduce_mean(rew_t_ph))
        tf.summary.scalar('importance_weights', tf.reduce_mean(weights_ph))
        if not full:
            return
        tf.summary.histogram('rewards', rew_t_ph)
        tf.summary.histogram('importance_weights', weights_ph)
        if tf_util.is_image(obs_ph):
            tf.summary.image('observation', obs_ph)
        elif len(obs_ph.shape) == 1:
            tf.summary.histogram('observation', obs_ph)


class DQNGraph(NamedTuple):
    """
    Everything :func:`build_dqn_graph` builds.

    :param act: (callable) chooses actions for observations (see the module's description)
    :param train: (callable) one optimisation step of the TD loss, returning the merged summary and the TD errors
    :param update_target: (callable) copies the online network into the target network
    :param step_model: (DQNPolicy) the online network, for evaluation
    :param train_inputs: ([TensorFlow Tensor]) the placeholders ``train`` feeds, in the order of its arguments
    :param td_error: (TensorFlow Tensor) the TD errors of a batch
    :param optimize_expr: (TensorFlow Operation) the gradient step
    :param train_op: (TensorFlow Operation) the gradient step as one op: what a training step without a summary runs
    :param q_func_vars: ([TensorFlow Variable]) the online network's variables, in creation order
    """
    act: Callable
    train: Callable
    update_target: Callable
    step_model: Any
    train_inputs: List[tf.Tensor]
    td_error: tf.Tensor
    optimize_expr: tf.Operation
    train_op: tf.Operation
    q_func_vars: List[tf.Variable]


def build_train(q_func: Callable, ob_space: spaces.Space, ac_space: spaces.Space, optimizer: Any,
                sess: tf.Session, grad_norm_clipping: Optional[float] = None, gamma: float = 1.0,
                double_q: bool = True, scope: str = "deepq", reuse: Optional[bool] = None,
                param_noise: bool = False, param_noise_filter_func: Optional[Callable] = None,
                full_tensorboard_log: bool = False) -> Tuple[Callable, Callable, Callable, Any]:
    """
    Build the whole DQN graph: act function, training step and target update (see the module's description).

    :param q_func: (DQNPolicy) the policy class
    :param ob_space: (Gym Space) the observation space
    :param ac_space: (Gym Space) the action space (Discrete)
    :param optimizer: (tf.train.Optimizer) the optimizer of the Q-learning loss
    :param sess: (TensorFlow session) the session
    :param grad_norm_clipping: (float) clip each gradient to this norm (None: no clipping)
    :param gamma: (float) the discount factor
    :param double_q: (bool) evaluate the next state's best action, chosen by the online network, with the target
        network (double Q-learning, https://arxiv.org/abs/1509.06461); recommended
    :param scope: (str or VariableScope) the variable scope of the networks
    :param reuse: (bool) reuse the variables of ``scope`` (then the scope must be given)
    :param param_noise: (bool) explore with parameter-space noise (https://arxiv.org/abs/1706.01905)
    :param param_noise_filter_func: (function (TensorFlow Tensor): bool) which variables parameter noise
        perturbs (None: :func:`default_param_noise_filter`)
    :param full_tensorboard_log: (bool) also log histograms (and images) to tensorboard; takes a lot of space
    :return: (tuple) ``act`` (function (TensorFlow Tensor, bool, float): TensorFlow Tensor), choosing actions
        for observations; ``train`` (function (Any, numpy float, numpy float, Any, numpy bool, numpy float):
        numpy float), one optimisation step of the TD loss; ``update_target`` (function), copying the online
        network into the target network; ``step_model`` (DQNPolicy), the online network, for evaluation
    """
    graph = build_dqn_graph(q_func, ob_space, ac_space, optimizer, sess, grad_norm_clipping=grad_norm_clipping,
                            gamma=gamma, double_q=double_q, scope=scope, reuse=reuse, param_noise=param_noise,
                            param_noise_filter_func=param_noise_filter_func,
                            full_tensorboard_log=full_tensorboard_log)
    return graph.act, graph.train, graph.update_target, graph.step_model


def build_dqn_graph(q_func: Callable, ob_space: spaces.Space, ac_space: spaces.Space, optimizer: Any,
                    sess: tf.Session, grad_norm_clipping: Optional[float] = None, gamma: float = 1.0,
                    double_q: bool = True, scope: str = "deepq", reuse: Optional[bool] = None,
                    param_noise: bool = False, param_noise_filter_func: Optional[Callable] = None,
                    full_tensorboard_log: bool = False, action_masks: bool = False) -> DQNGraph:
    """
    :func:`build_train`, returning all its parts (what the DQN model needs to fuse a training step into one
    session call too). Same parameters as :func:`build_train`, and:

    :param action_masks: (bool) the value of the next state maximises over its allowed actions only: ``train``
        takes, last, a bool array of shape (batch, n_actions) (placeholder ``loss/next_action_mask``)

    :return: (DQNGraph) the parts of the graph
    """
    n_actions = _n_actions(ac_space)
    with tf.variable_scope("input", reuse=reuse):
        stochastic_ph = tf.placeholder(tf.bool, (), name="stochastic")
        update_eps_ph = tf.placeholder(tf.float32, (), name="update_eps")

    with tf.variable_scope(scope, reuse=reuse):
        if param_noise:
            act_f, obs_phs = build_act_with_param_noise(q_func, ob_space, ac_space, stochastic_ph, update_eps_ph,
                                                        sess, param_noise_filter_func=param_noise_filter_func)
        else:
            act_f, obs_phs = build_act(q_func, ob_space, ac_space, stochastic_ph, update_eps_ph, sess)
        outer = scope_name()
        with tf.variable_scope("step_model", reuse=True, custom_getter=tf_util.outer_scope_getter("step_model")):
            step_model = _network(q_func, sess, ob_space, ac_space, reuse=True, obs_phs=obs_phs)
        online_vars = tf.get_collection(tf.GraphKeys.GLOBAL_VARIABLES, scope=outer + "/model/")
        with tf.variable_scope("target_q_func", reuse=False):
            target_policy = _network(q_func, sess, ob_space, ac_space, reuse=False)
        target_vars = tf.get_collection(tf.GraphKeys.GLOBAL_VARIABLES, scope=outer + "/target_q_func/")
        online_next_q, next_obs_ph = None, target_policy.obs_ph
        if double_q:
            with tf.variable_scope("double_q", reuse=True, custom_getter=tf_util.outer_scope_getter("double_q")):
                online_next = _network(q_func, sess, ob_space, ac_space, reuse=True)
            online_next_q, next_obs_ph = online_next.q_values, online_next.obs_ph

    with tf.variable_scope("loss", reuse=reuse):
        act_t_ph = tf.placeholder(tf.int32, [None], name="action")
        rew_t_ph = tf.placeholder(tf.float32, [None], name="reward")
        done_mask_ph = tf.placeholder(tf.float32, [None], name="done")
        weights_ph = tf.placeholder(tf.float32, [None], name="weight")

        q_taken = tf.reduce_sum(step_model.q_values * tf.one_hot(act_t_ph, n_actions), axis=1)
        next_mask_ph = tf.placeholder(tf.bool, [None, n_actions], name="next_action_mask") if action_masks else None
        if next_mask_ph is None:
            next_value = _q_target(target_policy.q_values, online_next_q, n_actions)
        else:
            next_value = _masked_q_target(target_policy.q_values, online_next_q, n_actions, next_mask_ph)
        bellman_target = rew_t_ph + gamma * ((1.0 - done_mask_ph) * next_value)
        td_error = q_taken - tf.stop_gradient(bellman_target)
        loss = tf.reduce_mean(weights_ph * tf_util.huber_loss(td_error))

        tf.summary.scalar("td_error", tf.reduce_mean(td_error))
        tf.summary.scalar("loss", loss)
        if full_tensorboard_log:
            tf.summary.histogram("td_error", td_error)

        update_target_expr = _copy_variables(online_vars, target_vars)
        gradients = _clip_gradients(optimizer.compute_gradients(loss, var_list=online_vars), grad_norm_clipping)

    _input_summaries(rew_t_ph, weights_ph, obs_phs[0], full_tensorboard_log)
    optimize_expr = optimizer.apply_gradients(gradients)
    summary = tf.summary.merge_all()

    train_inputs = [obs_phs[0], act_t_ph, rew_t_ph, target_policy.obs_ph, next_obs_ph, done_mask_ph, weights_ph]
    if next_mask_ph is not None:
        train_inputs.append(next_mask_ph)
    train = tf_util.function(inputs=train_inputs, outputs=[summary, td_error], updates=[optimize_expr])
    train_op = tf.group(optimize_expr)
    update_target = tf_util.function([], [], updates=[update_target_expr])
    return DQNGraph(act=act_f, train=train, update_target=update_target, step_model=step_model,
                    train_inputs=train_inputs, td_error=td_error, optimize_expr=optimize_expr, train_op=train_op,
                    q_func_vars=list(online_vars))
