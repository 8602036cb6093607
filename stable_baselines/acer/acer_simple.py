"""Actor-Critic with Experience Replay (ACER), https://arxiv.org/abs/1611.01224"""
import time
import warnings
from collections import deque
import numpy as np
from gymnasium import spaces

from stable_baselines import logger
from stable_baselines.acer.buffer import Buffer
from stable_baselines.common import tf_util
from stable_baselines.common.base_class import ActorCriticRLModel, SetVerbosity, TensorboardWriter
from stable_baselines.common.policies import RecurrentActorCriticPolicy
from stable_baselines.common.rollouts import collect_rollout
from stable_baselines.common.runners import AbstractEnvRunner
from stable_baselines.common.schedules import Scheduler
from stable_baselines.common.summaries import input_info_summaries
from stable_baselines.common.tf_compat import tf
from stable_baselines.common.tf_layers import batch_to_seq, seq_to_batch
from stable_baselines.common.tf_util import (avg_norm, check_shape, gradient_add, q_explained_variance,
                                             total_episode_reward_logger)

EPS = 1e-6


def strip(var: tf.Tensor, n_envs: int, n_steps: int, flat: bool = False) -> tf.Tensor:
    """
    Remove the last step of every environment from a batch of ``n_envs * (n_steps + 1)`` rows.

    :param var: (TensorFlow Tensor) the batch, environment-major
    :param n_envs: (int) the number of environments
    :param n_steps: (int) the number of steps kept per environment
    :param flat: (bool) whether the tensor is flat (one value per row)
    :return: (TensorFlow Tensor) the batch of ``n_envs * n_steps`` rows
    """
    out_vars = batch_to_seq(var, n_envs, n_steps + 1, flat)
    return seq_to_batch(out_vars[:-1], flat)


def get_by_index(input_tensor: tf.Tensor, idx: tf.Tensor) -> tf.Tensor:
    """
    For every row of a [n_rows, n_act] tensor, the entry of the chosen action.

    :param input_tensor: (TensorFlow Tensor) [n_rows, n_act]
    :param idx: (TensorFlow Tensor) [n_rows] integer actions
    :return: (TensorFlow Tensor) [n_rows]
    """
    n_act = input_tensor.shape.as_list()[-1]
    return tf.reduce_sum(input_tensor * tf.one_hot(idx, n_act, dtype=input_tensor.dtype), axis=-1)


def q_retrace(rewards: tf.Tensor, dones: tf.Tensor, q_i: tf.Tensor, values: tf.Tensor, rho_i: tf.Tensor,
              n_envs: int, n_steps: int, gamma: float) -> tf.Tensor:
    """
    The Retrace targets of the Q values (ACER paper, eq. 5), computed backwards along each segment:
    ``Q_ret(t) = r_t + gamma * (1 - done_t) * (min(1, rho_{t+1}) (Q_ret(t+1) - Q(t+1)) + V(t+1))``,
    bootstrapped on the value of the last observation.

    :param rewards: (TensorFlow Tensor) [n_envs * n_steps] rewards
    :param dones: (TensorFlow Tensor) [n_envs * n_steps] episode ends
    :param q_i: (TensorFlow Tensor) [n_envs * n_steps] Q values of the actions taken
    :param values: (TensorFlow Tensor) [n_envs * (n_steps + 1)] state values
    :param rho_i: (TensorFlow Tensor) [n_envs * n_steps] importance weights of the actions taken
    :param n_envs: (int) the number of environments
    :param n_steps: (int) the number of steps per environment
    :param gamma: (float) the discount
    :return: (TensorFlow Tensor) [n_envs * n_steps] the Q_ret targets
    """
    rho_bar = batch_to_seq(tf.minimum(1.0, rho_i), n_envs, n_steps, True)  # n_steps tensors of shape [n_envs]
    reward_seq = batch_to_seq(rewards, n_envs, n_steps, True)
    done_seq = batch_to_seq(dones, n_envs, n_steps, True)
    q_is = batch_to_seq(q_i, n_envs, n_steps, True)
    value_sequence = batch_to_seq(values, n_envs, n_steps + 1, True)
    qret = value_sequence[-1]
    qrets = []
    for i in range(n_steps - 1, -1, -1):
        check_shape([qret, done_seq[i], reward_seq[i], rho_bar[i], q_is[i], value_sequence[i]], [[n_envs]] * 6)
        qret = reward_seq[i] + gamma * qret * (1.0 - done_seq[i])
        qrets.append(qret)
        qret = (rho_bar[i] * (qret - q_is[i])) + value_sequence[i]
    return seq_to_batch(qrets[::-1], flat=True)


class EpisodeStats:
    """
    Running statistics of the episodes seen in the training segments (length and undiscounted return).

    :param n_steps: (int) the number of steps per segment and environment
    :param n_envs: (int) the number of environments
    """

    def __init__(self, n_steps: int, n_envs: int):
        self.episode_rewards = [[] for _ in range(n_envs)]
        self.len_buffer = deque(maxlen=40)  # rolling buffer for episode lengths
        self.rewbuffer = deque(maxlen=40)  # rolling buffer for episode rewards
        self.n_steps = n_steps
        self.n_envs = n_envs

    def feed(self, rewards: np.ndarray, masks: np.ndarray) -> None:
        """
        Update the statistics with a segment.

        :param rewards: (np.ndarray) [n_envs, n_steps] rewards
        :param masks: (np.ndarray) [n_envs, n_steps] episode ends (aligned with the rewards)
        """
        rewards = np.reshape(rewards, [self.n_envs, self.n_steps])
        masks = np.reshape(masks, [self.n_envs, self.n_steps])
        for i in range(self.n_envs):
            for j in range(self.n_steps):
                self.episode_rewards[i].append(rewards[i][j])
                if masks[i][j]:
                    reward_length = len(self.episode_rewards[i])
                    reward_sum = sum(self.episode_rewards[i])
                    self.len_buffer.append(reward_length)
                    self.rewbuffer.append(reward_sum)
                    self.episode_rewards[i] = []

    def mean_length(self) -> float:
        """
        :return: (float) the mean length of the last 40 episodes (0 if none ended yet)
        """
        return float(np.mean(self.len_buffer)) if self.len_buffer else 0.

    def mean_reward(self) -> float:
        """
        :return: (float) the mean return of the last 40 episodes (0 if none ended yet)
        """
        return float(np.mean(self.rewbuffer)) if self.rewbuffer else 0.


class ACER(ActorCriticRLModel):
    """
    The ACER (Actor-Critic with Experience Replay) model class, https://arxiv.org/abs/1611.01224

    :param policy: (ActorCriticPolicy or str) The policy model to use (MlpPolicy, CnnPolicy, CnnLstmPolicy, ...)
    :param env: (Gym environment or str) The environment to learn from (if registered in Gym, can be str)
    :param gamma: (float) The discount value
    :param n_steps: (int) The number of steps to run for each environment per update
        (i.e. batch size is n_steps * n_env where n_env is number of environment copies running in parallel)
    :param num_procs: (int) The number of threads for TensorFlow operations

        .. deprecated:: 2.9.0
            Use `n_cpu_tf_sess` instead.

    :param q_coef: (float) The weight for the loss on the Q value
    :param ent_coef: (float) The weight for the entropy loss
    :param max_grad_norm: (float) The clipping value for the maximum gradient
    :param learning_rate: (float) The initial learning rate for the RMS prop optimizer
    :param lr_schedule: (str) The type of scheduler for the learning rate update ('linear', 'constant',
        'double_linear_con', 'middle_drop' or 'double_middle_drop')
    :param rprop_epsilon: (float) RMSProp epsilon (stabilizes square root computation in denominator
        of RMSProp update) (default: 1e-5)
    :param rprop_alpha: (float) RMSProp decay parameter (default: 0.99)
    :param buffer_size: (int) The buffer size in number of steps
    :param replay_ratio: (float) The number of replay learning per on policy learning on average,
        using a poisson distribution
    :param replay_start: (int) The minimum number of steps in the buffer, before learning replay
    :param correction_term: (float) Importance weight clipping factor (default: 10)
    :param trust_region: (bool) Whether or not algorithms estimates the gradient KL divergence
        between the old and updated policy and uses it to determine step size  (default: True)
    :param alpha: (float) The decay rate for the Exponential moving average of the parameters
    :param delta: (float) max KL divergence between the old policy and updated policy (default: 1)
    :param verbose: (int) the verbosity level: 0 none, 1 training information, 2 tensorflow debug
    :param tensorboard_log: (str) the log location for tensorboard (if None, no logging)
    :param _init_setup_model: (bool) Whether or not to build the network at the creation of the instance
    :param policy_kwargs: (dict) additional arguments to be passed to the policy on creation
    :param full_tensorboard_log: (bool) also write histograms of the inputs and of every parameter to
        tensorboard (the event files grow fast)
    :param seed: (int) seed of Python's, NumPy's and TensorFlow's generators (None: not seeded); runs repeat
        exactly only with ``n_cpu_tf_sess=1``
    :param n_cpu_tf_sess: (int) number of threads TensorFlow may use (None: one per CPU)
    """

    _saved_settings = ("gamma", "n_steps", "q_coef", "ent_coef", "max_grad_norm", "learning_rate",
                       "lr_schedule", "rprop_alpha", "rprop_epsilon", "buffer_size", "replay_ratio",
                       "replay_start", "correction_term", "trust_region", "alpha", "delta")

    def __init__(self, policy, env, gamma=0.99, n_steps=20, num_procs=None, q_coef=0.5, ent_coef=0.01,
                 max_grad_norm=10, learning_rate=7e-4, lr_schedule='linear', rprop_alpha=0.99, rprop_epsilon=1e-5,
                 buffer_size=5000, replay_ratio=4, replay_start=1000, correction_term=10.0, trust_region=True,
                 alpha=0.99, delta=1, verbose=0, tensorboard_log=None, _init_setup_model=True, policy_kwargs=None,
                 full_tensorboard_log=False, seed=None, n_cpu_tf_sess=1):

        self.n_steps = n_steps
        self.replay_ratio = replay_ratio
        self.buffer_size = buffer_size
        self.replay_start = replay_start
        self.gamma = gamma
        self.alpha = alpha
        self.correction_term = correction_term
        self.q_coef = q_coef
        self.ent_coef = ent_coef
        self.trust_region = trust_region
        self.delta = delta
        self.max_grad_norm = max_grad_norm
        self.rprop_alpha = rprop_alpha
        self.rprop_epsilon = rprop_epsilon
        self.learning_rate = learning_rate
        self.lr_schedule = lr_schedule
        self.tensorboard_log = tensorboard_log
        self.full_tensorboard_log = full_tensorboard_log

        if num_procs is not None:
            warnings.warn("num_procs will be removed in a future version (v3.x.x) "
                          "use n_cpu_tf_sess instead", DeprecationWarning)
            n_cpu_tf_sess = num_procs

        self.action_ph = None
        self.done_ph = None
        self.reward_ph = None
        self.mu_ph = None
        self.learning_rate_ph = None
        self.polyak_model = None
        self.learning_rate_schedule = None
        self.run_ops = None
        self.names_ops = None
        self.train_model = None
        self.step_model = None
        self.proba_step = None
        self.n_act = None
        self.n_batch = None
        self.summary = None
        self.average_params = None
        self._sync_average_op = None

        super(ACER, self).__init__(policy=policy, env=env, verbose=verbose, requires_vec_env=True,
                                   _init_setup_model=_init_setup_model, policy_kwargs=policy_kwargs,
                                   seed=seed, n_cpu_tf_sess=n_cpu_tf_sess)

        if self.action_space is not None:
            self._check_action_space(self.action_space)

        if _init_setup_model:
            self.setup_model()

    @staticmethod
    def _check_action_space(action_space) -> None:
        """Raise a clear error for anything but a Discrete action space."""
        if not isinstance(action_space, spaces.Discrete):
            raise ValueError("Error: ACER only supports a Discrete action space, got {} ({}). Use A2C, PPO2 or "
                             "ACKTR for {} actions.".format(type(action_space).__name__, action_space,
                                                            type(action_space).__name__))

    def _graph_fixes_n_envs(self) -> bool:
        """
        Once built, the training graph of ACER has batch sizes fixed by the number of environments (the
        placeholders of the loss, the Retrace recursion along each environment's segment, the replay buffer
        layout): ``set_env`` then refuses another number of environments, whatever the policy.

        :return: (bool)
        """
        return getattr(self, "graph", None) is not None

    def _make_runner(self) -> AbstractEnvRunner:
        return _Runner(env=self.env, model=self, n_steps=self.n_steps)

    def _get_pretrain_placeholders(self):
        policy = self.step_model
        self._check_action_space(self.action_space)
        with self.graph.as_default():
            action_ph = policy.pdtype.sample_placeholder([None])
        return policy.obs_ph, action_ph, policy.policy

    def setup_model(self):
        with SetVerbosity(self.verbose):
            self._check_policy_class()
            self._check_action_space(self.action_space)
            self.n_act = self.action_space.n
            self.n_batch = self.n_envs * self.n_steps
            self._new_graph_and_session()

            with self.graph.as_default():
                n_batch_step = None
                if issubclass(self.policy, RecurrentActorCriticPolicy):
                    n_batch_step = self.n_envs
                n_batch_train = self.n_envs * (self.n_steps + 1)

                step_model = self.policy(self.sess, self.observation_space, self.action_space, self.n_envs, 1,
                                         n_batch_step, reuse=False, **self.policy_kwargs)

                self.params = tf_util.get_trainable_vars("model")

                with tf.variable_scope("train_model", reuse=True,
                                       custom_getter=tf_util.outer_scope_getter("train_model")):
                    train_model = self.policy(self.sess, self.observation_space, self.action_space, self.n_envs,
                                              self.n_steps + 1, n_batch_train, reuse=True, **self.policy_kwargs)

                # The average policy network of the efficient trust region: one exponential moving
                # average of every parameter (not part of the saved parameters, as in the original)
                with tf.variable_scope("moving_average"):
                    self.average_params = [tf.get_variable(param.op.name, shape=param.shape,
                                                           dtype=param.dtype.base_dtype,
                                                           initializer=tf.zeros_initializer(), trainable=False)
                                           for param in self.params]
                average_of = {param.op.name: average for param, average in zip(self.params, self.average_params)}
                self._sync_average_op = tf.group(*[average.assign(param)
                                                   for param, average in zip(self.params, self.average_params)])

                def average_getter(getter, name, *args, **kwargs):  # pylint: disable=unused-argument
                    name = name.replace("polyak_model/", "", 1)
                    if name not in average_of:
                        raise ValueError("The policy asked for the variable {!r}, which is not a trainable variable "
                                         "of the step model: ACER cannot build its average policy network"
                                         .format(name))
                    return average_of[name]

                with tf.variable_scope("polyak_model", reuse=True, custom_getter=average_getter):
                    self.polyak_model = polyak_model = self.policy(self.sess, self.observation_space,
                                                                   self.action_space, self.n_envs, self.n_steps + 1,
                                                                   n_batch_train, reuse=True, **self.policy_kwargs)

                with tf.variable_scope("loss", reuse=False):
                    self.done_ph = tf.placeholder(tf.float32, [self.n_batch], name="done_ph")
                    self.reward_ph = tf.placeholder(tf.float32, [self.n_batch], name="reward_ph")
                    self.mu_ph = tf.placeholder(tf.float32, [self.n_batch, self.n_act], name="mu_ph")
                    self.action_ph = train_model.pdtype.sample_placeholder([self.n_batch], name="action_ph")
                    self.learning_rate_ph = tf.placeholder(tf.float32, [], name="learning_rate_ph")

                    # value of every observation (the last one of each env included): sum_a pi(a|s) Q(s, a)
                    value = tf.reduce_sum(train_model.policy_proba * train_model.q_value, axis=-1)

                    # strip off the last step: [n_envs * n_steps, n_act]
                    distribution_f, f_polyak, q_value = \
                        [strip(variables, self.n_envs, self.n_steps)
                         for variables in (train_model.policy_proba, polyak_model.policy_proba,
                                           train_model.q_value)]

                    # pi and Q of the actions taken
                    f_i = get_by_index(distribution_f, self.action_ph)
                    q_i = get_by_index(q_value, self.action_ph)
                    stripped_value = strip(value, self.n_envs, self.n_steps, True)

                    # importance weights of the current policy against the behaviour policy mu
                    rho = distribution_f / (self.mu_ph + EPS)
                    rho_i = get_by_index(rho, self.action_ph)

                    # Retrace targets
                    qret = q_retrace(self.reward_ph, self.done_ph, q_i, value, rho_i, self.n_envs, self.n_steps,
                                     self.gamma)

                    # entropy of the policy distribution SUMMED over every observation of the batch (the
                    # n_envs * (n_steps + 1) observations, bootstrap ones included), as the original computes
                    # it: with trust_region=False the entropy bonus is ent_coef times this sum (not a mean).
                    # Under the trust region the policy gradient is taken with respect to the probabilities
                    # pi (distribution_f), which this entropy (a function of the logits) does not go through:
                    # as in the original, ent_coef then only changes the logged loss.
                    entropy = tf.reduce_sum(train_model.proba_distribution.entropy())

                    # Policy gradient with truncated importance weights: min(c, rho) (Q_ret - V) grad log pi
                    adv = qret - stripped_value
                    log_f = tf.log(f_i + EPS)
                    gain_f = log_f * tf.stop_gradient(adv * tf.minimum(self.correction_term, rho_i))
                    loss_f = -tf.reduce_mean(gain_f)

                    # Bias correction for the truncation: sum over all actions, weighted by pi,
                    # of [1 - c / rho(a)]_+ (Q(a) - V) grad log pi(a)
                    adv_bc = q_value - tf.reshape(stripped_value, [self.n_batch, 1])
                    log_f_bc = tf.log(distribution_f + EPS)
                    gain_bc = tf.reduce_sum(log_f_bc * tf.stop_gradient(
                        adv_bc * tf.nn.relu(1.0 - (self.correction_term / (rho + EPS))) * distribution_f), axis=1)
                    loss_bc = -tf.reduce_mean(gain_bc)

                    loss_policy = loss_f + loss_bc

                    # Q loss and explained variance
                    check_shape([qret, q_i], [[self.n_batch]] * 2)
                    explained_variance = q_explained_variance(tf.reshape(q_i, [self.n_envs, self.n_steps]),
                                                              tf.reshape(qret, [self.n_envs, self.n_steps]))
                    loss_q = tf.reduce_mean(tf.square(tf.stop_gradient(qret) - q_i) * 0.5)

                    check_shape([loss_policy, loss_q, entropy], [[]] * 3)
                    loss = loss_policy + self.q_coef * loss_q - self.ent_coef * entropy

                    tf.summary.scalar('entropy_loss', entropy)
                    tf.summary.scalar('policy_gradient_loss', loss_policy)
                    tf.summary.scalar('value_function_loss', loss_q)
                    tf.summary.scalar('loss', loss)

                    extra_ops, extra_names = [], []
                    if self.trust_region:
                        # gradient of the (per-sample) objective with respect to the policy statistics phi = pi
                        # (the entropy term has no path to pi: see above)
                        grad = tf.gradients(- (loss_policy - self.ent_coef * entropy) * self.n_batch,
                                            distribution_f)[0]
                        # gradient of KL(average policy || pi) with respect to pi
                        kl_grad = - f_polyak / (distribution_f + EPS)
                        k_dot_g = tf.reduce_sum(kl_grad * grad, axis=-1)
                        # the closed-form solution of the linearised KL constraint (ACER paper, eq. 13)
                        adj = tf.maximum(0.0, (k_dot_g - self.delta) /
                                         (tf.reduce_sum(tf.square(kl_grad), axis=-1) + EPS))

                        avg_norm_k = avg_norm(kl_grad)
                        avg_norm_g = avg_norm(grad)
                        avg_norm_k_dot_g = tf.reduce_mean(tf.abs(k_dot_g))
                        avg_norm_adj = tf.reduce_mean(tf.abs(adj))

                        grad = grad - tf.reshape(adj, [self.n_batch, 1]) * kl_grad
                        # trust-region adjusted gradient of the loss with respect to pi, back-propagated
                        grads_f = -grad / self.n_batch
                        grads_policy = tf.gradients(distribution_f, self.params, grads_f)
                        grads_q = tf.gradients(loss_q * self.q_coef, self.params)
                        grads = [gradient_add(g1, g2, param, verbose=self.verbose)
                                 for (g1, g2, param) in zip(grads_policy, grads_q, self.params)]

                        avg_norm_grads_f = avg_norm(grads_f) * self.n_batch
                        norm_grads_q = tf.global_norm([g for g in grads_q if g is not None])
                        norm_grads_policy = tf.global_norm([g for g in grads_policy if g is not None])
                        extra_ops = [norm_grads_q, norm_grads_policy, avg_norm_grads_f, avg_norm_k, avg_norm_g,
                                     avg_norm_k_dot_g, avg_norm_adj]
                        extra_names = ['norm_grads_q', 'norm_grads_policy', 'avg_norm_grads_f', 'avg_norm_k',
                                       'avg_norm_g', 'avg_norm_k_dot_g', 'avg_norm_adj']
                    else:
                        grads = tf.gradients(loss, self.params)

                    if self.max_grad_norm is not None:
                        grads, norm_grads = tf.clip_by_global_norm(grads, self.max_grad_norm)
                    else:
                        norm_grads = tf.global_norm([g for g in grads if g is not None])
                    grads = list(zip(grads, self.params))

                input_info_summaries([('rewards', self.reward_ph), ('learning_rate', self.learning_rate_ph),
                                      ('advantage', adv), ('action_probability', self.mu_ph)],
                                     train_model.obs_ph, self.observation_space, self.full_tensorboard_log)

                trainer = tf.train.RMSPropOptimizer(learning_rate=self.learning_rate_ph, decay=self.rprop_alpha,
                                                    epsilon=self.rprop_epsilon)
                opt_op = trainer.apply_gradients(grads)

                # first the gradient step, then the moving average of the parameters
                with tf.control_dependencies([opt_op]):
                    average_updates = [average.assign(self.alpha * average + (1.0 - self.alpha) * param.read_value())
                                       for param, average in zip(self.params, self.average_params)]
                    train_op = tf.group(*average_updates)

                self.run_ops = [train_op, loss, loss_q, entropy, loss_policy, loss_f, loss_bc, explained_variance,
                                norm_grads] + extra_ops
                self.names_ops = ['loss', 'loss_q', 'entropy', 'loss_policy', 'loss_f', 'loss_bc',
                                  'explained_variance', 'norm_grads'] + extra_names

                self.train_model = train_model
                self.step_model = step_model
                self.step = step_model.step
                self.proba_step = step_model.proba_step
                self.initial_state = step_model.initial_state

                tf.global_variables_initializer().run(session=self.sess)
                self.sess.run(self._sync_average_op)
                # predict computes in NumPy when it can (refreshed after every update)
                self._enable_numpy_forward(step_model)

                self.summary = tf.summary.merge_all()

    def load_parameters(self, load_path_or_dict, exact_match=True):
        super(ACER, self).load_parameters(load_path_or_dict, exact_match=exact_match)
        # the average policy network starts from the loaded parameters
        if self._sync_average_op is not None:
            self.sess.run(self._sync_average_op)

    def _train_step(self, obs, actions, rewards, dones, mus, states, masks, steps, writer=None):
        """
        One gradient step on a segment (on-policy or replayed).

        :param obs: ([float]) The input observations, [n_envs * (n_steps + 1), ...]
        :param actions: ([float]) The actions taken
        :param rewards: ([float]) The rewards from the environment
        :param dones: ([bool]) Whether or not the episode is over (aligned with reward)
        :param mus: ([float]) The probabilities of the behaviour policy
        :param states: ([float]) The states of the recurrent policy at the start of the segments
        :param masks: ([bool]) Whether or not an observation starts an episode (used for recurrent policies)
        :param steps: (int) the number of steps done (for the learning rate schedule and tensorboard)
        :param writer: (TensorFlow Summary.writer) the writer for tensorboard
        :return: ([str], [float]) the names of the values, and the values
        """
        cur_lr = self.learning_rate_schedule.value_steps(steps)
        td_map = {self.train_model.obs_ph: obs, self.polyak_model.obs_ph: obs, self.action_ph: actions,
                  self.reward_ph: rewards, self.done_ph: dones, self.mu_ph: mus, self.learning_rate_ph: cur_lr}

        if states is not None:
            td_map[self.train_model.states_ph] = states
            td_map[self.train_model.dones_ph] = masks
            td_map[self.polyak_model.states_ph] = states
            td_map[self.polyak_model.dones_ph] = masks

        if writer is not None:
            # with full_tensorboard_log, every 10th step also records TensorFlow's run metadata
            if self.full_tensorboard_log and (1 + (steps // self.n_batch)) % 10 == 0:
                run_options = tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE)
                run_metadata = tf.RunMetadata()
                step_return = self.sess.run([self.summary] + self.run_ops, td_map, options=run_options,
                                            run_metadata=run_metadata)
                writer.add_run_metadata(run_metadata, 'step%d' % steps)
            else:
                step_return = self.sess.run([self.summary] + self.run_ops, td_map)
            writer.add_summary(step_return[0], steps)
            step_return = step_return[1:]
        else:
            step_return = self.sess.run(self.run_ops, td_map)
        self.step_model.invalidate_numpy_forward()

        return self.names_ops, step_return[1:]  # strip off the train op

    def _reshape_segment(self, obs, actions, rewards, mus, dones, masks):
        """Flatten [n_envs, n_steps(+1), ...] arrays to the batches the graph expects."""
        return (obs.reshape((self.n_envs * (self.n_steps + 1),) + obs.shape[2:]),
                actions.reshape([self.n_batch]),
                rewards.reshape([self.n_batch]),
                mus.reshape([self.n_batch, self.n_act]),
                dones.reshape([self.n_batch]).astype(np.float32),
                masks.reshape([self.n_envs * (self.n_steps + 1)]).astype(np.float32))

    def learn(self, total_timesteps, callback=None, log_interval=100, tb_log_name="ACER",
              reset_num_timesteps=True, progress_bar=False):

        new_tb_log = self._init_num_timesteps(reset_num_timesteps)
        callback = self._init_callback(callback, progress_bar=progress_bar, total_timesteps=total_timesteps)

        with SetVerbosity(self.verbose), TensorboardWriter(self.graph, self.tensorboard_log, tb_log_name, new_tb_log) \
                as writer:
            self._setup_learn()
            self._check_action_space(self.action_space)
            if self.replay_ratio > 0 and self.buffer_size // self.n_steps < 1:
                raise ValueError("ACER needs buffer_size >= n_steps to replay experience, got buffer_size={} and "
                                 "n_steps={}".format(self.buffer_size, self.n_steps))

            self.learning_rate_schedule = Scheduler(initial_value=self.learning_rate,
                                                    n_values=max(int(total_timesteps), 1),
                                                    schedule=self.lr_schedule)
            recurrent = issubclass(self.policy, RecurrentActorCriticPolicy)
            start_timesteps = self.num_timesteps

            episode_stats = EpisodeStats(self.n_steps, self.n_envs)

            if self.replay_ratio > 0:
                buffer = Buffer(env=self.env, n_steps=self.n_steps, size=self.buffer_size)
            else:
                buffer = None

            t_start = time.time()
            callback.on_training_start(locals(), globals())

            for steps in range(0, total_timesteps, self.n_batch):

                callback.on_rollout_start()
                enc_obs, obs, actions, rewards, mus, dones, masks, states, ep_infos = self.runner.run(callback)
                callback.update_locals(locals())
                callback.on_rollout_end()

                # a callback returned False
                if not self.runner.continue_training:
                    break

                self.ep_info_buf.extend(ep_infos)
                episode_stats.feed(rewards, dones)

                if buffer is not None:
                    buffer.put(enc_obs, actions, rewards, mus, dones, masks, states=states if recurrent else None)

                if writer is not None:
                    total_episode_reward_logger(self.episode_reward,
                                                rewards.reshape((self.n_envs, self.n_steps)),
                                                dones.reshape((self.n_envs, self.n_steps)),
                                                writer, self.num_timesteps)

                # reshape stuff correctly
                obs, actions, rewards, mus, dones, masks = self._reshape_segment(obs, actions, rewards, mus, dones,
                                                                                  masks)

                names_ops, values_ops = self._train_step(obs, actions, rewards, dones, mus, states, masks,
                                                         self.num_timesteps - start_timesteps, writer)

                if self.verbose >= 1 and (int(steps / self.n_batch) % log_interval == 0):
                    logger.record_tabular("total_timesteps", self.num_timesteps)
                    logger.record_tabular("fps", int((steps + self.n_batch) / (time.time() - t_start)))
                    # these count from one done to the next: with an EpisodicLife wrapper that is one life,
                    # not one game (the Monitor's records have whole episodes)
                    logger.record_tabular("mean_episode_length", episode_stats.mean_length())
                    logger.record_tabular("mean_episode_reward", episode_stats.mean_reward())
                    self._log_episode_stats()
                    for name, val in zip(names_ops, values_ops):
                        logger.record_tabular(name, float(val))
                    logger.dump_tabular()

                if buffer is not None and buffer.has_atleast(self.replay_start):
                    samples_number = np.random.poisson(self.replay_ratio)
                    for _ in range(samples_number):
                        obs, actions, rewards, mus, dones, masks, states = buffer.get(return_states=True)
                        obs, actions, rewards, mus, dones, masks = self._reshape_segment(obs, actions, rewards, mus,
                                                                                          dones, masks)
                        if recurrent and states is None:
                            states = self.initial_state
                        self._train_step(obs, actions, rewards, dones, mus, states, masks,
                                         self.num_timesteps - start_timesteps)

        callback.on_training_end()

        return self

    def save(self, save_path, cloudpickle=False):
        self._save_to_file(save_path, data=self._settings_to_save(), params=self.get_parameters(),
                           cloudpickle=cloudpickle)


class _Runner(AbstractEnvRunner):
    # the behaviour policy's probabilities are kept for the importance weights
    recorded_outputs = ("mus",)
    start_states_name = "start_states"

    def __init__(self, env, model, n_steps):
        """
        A runner to collect the segments of an ACER model

        :param env: (Gym environment) The environment to learn from
        :param model: (Model) The model to learn
        :param n_steps: (int) The number of steps to run for each environment
        """
        super(_Runner, self).__init__(env=env, model=model, n_steps=n_steps)
        self.n_env = self.n_envs
        self.n_act = env.action_space.n
        self.n_batch = self.n_env * n_steps
        self.batch_ob_shape = (self.n_env * (n_steps + 1),) + env.observation_space.shape

    def policy_step(self):
        """
        :return: (np.ndarray, Any, dict) actions, next recurrent states and the probabilities of all actions
            (``mus``), in one session call where the policy allows it
        """
        obs, states, dones = self.obs, self.states, self.dones
        policy = self.model.step_model
        if not policy.recurrent:
            actions, mus = policy.sess.run([policy.action, policy.policy_proba], {policy.obs_ph: obs})
        elif hasattr(policy, "snew"):
            feed = {policy.obs_ph: obs, policy.states_ph: states, policy.dones_ph: np.asarray(dones, np.float32)}
            actions, mus, states = policy.sess.run([policy.action, policy.policy_proba, policy.snew], feed)
        else:
            actions, _, new_states, _ = self.model.step(obs, states, dones)
            mus = self.model.proba_step(obs, states, dones)
            states = new_states
        return actions, states, {"mus": mus}

    def extra_columns(self):
        # the observations of the segment as the replay buffer stores them: the first one and the one after
        # every step
        return {"enc_obs": [np.copy(self.obs)]}

    def after_step(self, columns, obs):
        columns["enc_obs"].append(np.copy(obs))

    def _run(self):
        """
        Collect one segment of ``n_steps`` steps in every env.

        :return: ([float], [float], [int64], [float], [float], [bool], [bool], [float], [dict])
            encoded observation, observations, actions, rewards, mus, dones, masks, states at the start of the
            segment, episode infos
        """
        rollout = collect_rollout(self)
        if rollout is None:
            return [None] * 9
        # observations and episode-start flags of the n_steps + 1 positions (the last one bootstraps)
        rollout["mb_obs"].append(np.copy(self.obs))
        rollout["mb_dones"].append(self.dones)

        def env_major(name, dtype):
            return np.asarray(rollout[name], dtype=dtype).swapaxes(1, 0)

        masks = env_major("mb_dones", bool)
        # every array is [n_envs, n_steps (+ 1 for observations and masks), ...]; the dones (episode ends
        # aligned with the rewards) are the start flags shifted by one
        return (env_major("enc_obs", self.obs.dtype), env_major("mb_obs", self.obs.dtype),
                env_major("mb_actions", np.int64), env_major("mb_rewards", np.float32),
                env_major("mb_mus", np.float32), masks[:, 1:], masks, rollout["start_states"], rollout["ep_infos"])
