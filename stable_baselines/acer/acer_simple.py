"""Actor-Critic with Experience Replay (ACER), https://arxiv.org/abs/1611.01224"""
import warnings
from collections import deque
from typing import Any, Callable, Deque, Dict, List, Optional, Tuple, Type, Union

import numpy as np
from gymnasium import spaces

from stable_baselines import logger
from stable_baselines.acer.buffer import ACERBatch, Buffer
from stable_baselines.common import tf_util
from stable_baselines.common.base_class import SetVerbosity
from stable_baselines.common.callbacks import BaseCallback
from stable_baselines.common.model.arguments import check_rollout_arguments
from stable_baselines.common.model.on_policy import MODEL_SETTINGS_DOC, OnPolicyRLModel, UpdateClock
from stable_baselines.common.policies import ActorCriticPolicy, RecurrentActorCriticPolicy
from stable_baselines.common.model.rollouts import AbstractEnvRunner, collect_rollout, stopped_batch
from stable_baselines.common.model.summaries import input_info_summaries
from stable_baselines.common.tf_compat import quiet_deprecations, tf
from stable_baselines.common.tf_layers import batch_to_seq, seq_to_batch
from stable_baselines.common.tf_util import avg_norm, check_shape, gradient_add, q_explained_variance

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

    def __init__(self, n_steps: int, n_envs: int) -> None:
        self.episode_rewards: List[List[float]] = [[] for _ in range(n_envs)]
        self.len_buffer: Deque[int] = deque(maxlen=40)  # rolling buffer for episode lengths
        self.rewbuffer: Deque[float] = deque(maxlen=40)  # rolling buffer for episode rewards
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


class ACER(OnPolicyRLModel):
    __doc__ = """
    ACER, Actor-Critic with Experience Replay (Wang et al. 2016, https://arxiv.org/abs/1611.01224): an
    off-policy actor-critic for discrete actions. Every on-policy segment is learned from once and stored;
    segments drawn from the replay buffer (``replay_ratio`` of them on average per segment) are learned from
    with truncated importance weights and bias correction, the Q values regressed on Retrace targets, and,
    with ``trust_region``, the policy gradient projected so that the policy stays close to an exponential moving
    average of itself.

    :param policy: (ActorCriticPolicy or str) policy class, or the registered name of one (MlpPolicy, CnnPolicy,
        CnnLstmPolicy, ...)
    :param env: (Gym environment or str) environment to train on, or a registered environment id
    :param gamma: (float) discount factor
    :param n_steps: (int) steps taken in every environment per segment (a batch holds n_steps * n_envs
        transitions)
    :param num_procs: (int) former name of ``n_cpu_tf_sess``

        .. deprecated:: 2.9.0
            Use `n_cpu_tf_sess` instead.

    :param q_coef: (float) weight of the Q-value regression in the loss
    :param ent_coef: (float) weight of the entropy bonus in the loss
    :param max_grad_norm: (float) the gradients are rescaled so that their global norm stays below this value
    :param learning_rate: (float) initial step size of RMSProp
    :param lr_schedule: (str) how the learning rate evolves during training: 'linear', 'constant',
        'double_linear_con', 'middle_drop' or 'double_middle_drop'
    :param rprop_epsilon: (float) RMSProp epsilon, added under the square root of the denominator (default: 1e-5)
    :param rprop_alpha: (float) RMSProp decay of the squared-gradient average (default: 0.99)
    :param buffer_size: (int) capacity of the replay buffer, in steps per environment
    :param replay_ratio: (float) mean of the Poisson-distributed number of replayed segments per on-policy segment
    :param replay_start: (int) steps per environment the buffer must hold before replay starts
    :param correction_term: (float) bound ``c`` of the truncated importance weights (default: 10)
    :param trust_region: (bool) project the policy gradient so that the KL divergence from the average policy
        stays bounded (default: True)
    :param alpha: (float) decay of the exponential moving average of the parameters (the average policy)
    :param delta: (float) bound of the KL divergence between the average policy and the updated one (default: 1)
""" + MODEL_SETTINGS_DOC

    algorithm_name = "ACER"
    _supports_action_masks = True
    _saved_settings = ("gamma", "n_steps", "q_coef", "ent_coef", "max_grad_norm", "learning_rate",
                       "lr_schedule", "rprop_alpha", "rprop_epsilon", "buffer_size", "replay_ratio",
                       "replay_start", "correction_term", "trust_region", "alpha", "delta")

    def __init__(self, policy: Union[Type[ActorCriticPolicy], str], env: Any, gamma: float = 0.99, n_steps: int = 20,
                 num_procs: Optional[int] = None, q_coef: float = 0.5, ent_coef: float = 0.01,
                 max_grad_norm: Optional[float] = 10, learning_rate: float = 7e-4, lr_schedule: str = 'linear',
                 rprop_alpha: float = 0.99, rprop_epsilon: float = 1e-5, buffer_size: int = 5000,
                 replay_ratio: float = 4, replay_start: int = 1000, correction_term: float = 10.0,
                 trust_region: bool = True, alpha: float = 0.99, delta: float = 1, verbose: int = 0,
                 tensorboard_log: Optional[str] = None, _init_setup_model: bool = True,
                 policy_kwargs: Optional[Dict[str, Any]] = None, full_tensorboard_log: bool = False,
                 seed: Optional[int] = None, n_cpu_tf_sess: Optional[int] = 1) -> None:
        check_rollout_arguments("n_steps", n_steps, gamma, learning_rate)
        # hyperparameters (these are also what `save` writes)
        self.gamma, self.n_steps = gamma, n_steps
        self.q_coef, self.ent_coef, self.max_grad_norm = q_coef, ent_coef, max_grad_norm
        self.learning_rate, self.lr_schedule = learning_rate, lr_schedule
        self.rprop_alpha, self.rprop_epsilon = rprop_alpha, rprop_epsilon
        self.buffer_size, self.replay_ratio, self.replay_start = buffer_size, replay_ratio, replay_start
        self.correction_term, self.trust_region, self.alpha, self.delta = correction_term, trust_region, alpha, delta
        self.tensorboard_log, self.full_tensorboard_log = tensorboard_log, full_tensorboard_log
        if num_procs is not None:
            warnings.warn("num_procs will be removed in a future version (v3.x.x) "
                          "use n_cpu_tf_sess instead", DeprecationWarning)
            n_cpu_tf_sess = num_procs

        # graph handles, filled in by setup_model()
        for attribute in ("action_ph", "done_ph", "reward_ph", "mu_ph", "learning_rate_ph", "polyak_model",
                          "learning_rate_schedule", "run_ops", "names_ops", "train_model", "step_model",
                          "proba_step", "n_act", "n_batch", "summary", "average_params", "_sync_average_op"):
            setattr(self, attribute, None)
        # the variables of the update loop while learn runs (the callback sees each segment through them)
        self._learn_loop: Optional[Dict[str, Any]] = None

        super().__init__(policy, env, verbose, _init_setup_model, policy_kwargs, seed, n_cpu_tf_sess)
        if self.action_space is not None:
            self._check_action_space(self.action_space)
        if _init_setup_model:
            self.setup_model()

    @staticmethod
    def _check_action_space(action_space: Any) -> spaces.Discrete:
        """
        Raise a clear error for anything but a Discrete action space.

        :param action_space: (Any) the action space of the model
        :return: (gymnasium.spaces.Discrete) the same space
        """
        if not isinstance(action_space, spaces.Discrete):
            raise ValueError("Error: ACER only supports a Discrete action space, got {} ({}). Use A2C, PPO2 or "
                             "ACKTR for {} actions.".format(type(action_space).__name__, action_space,
                                                            type(action_space).__name__))
        return action_space

    def _graph_fixes_n_envs(self) -> bool:
        """
        Once built, the training graph of ACER has batch sizes fixed by the number of environments (the
        placeholders of the loss, the Retrace recursion along each environment's segment, the replay buffer
        layout): ``set_env`` with another number of environments builds it again, whatever the policy.

        :return: (bool)
        """
        return self.graph is not None

    def _make_runner(self) -> AbstractEnvRunner:
        return _Runner(env=self.env, model=self, n_steps=self.n_steps, show_segment=self._show_segment)

    def _get_pretrain_placeholders(self) -> Tuple[Any, Any, Any]:
        policy = self.step_model
        self._check_action_space(self.action_space)
        with self.graph.as_default():
            action_ph = policy.pdtype.sample_placeholder([None])
        return policy.obs_ph, action_ph, policy.policy

    # ------------------------------------------------------------------ graph construction

    def _build_networks(self) -> Tuple[ActorCriticPolicy, ActorCriticPolicy, ActorCriticPolicy]:
        """
        Create the acting network (one step per environment), the training network (``n_steps + 1``
        observations per environment, the last one for bootstrapping) and the average policy network, which
        reads an exponential moving average of every parameter (kept under "moving_average", not saved, as in
        the original).

        :return: (ActorCriticPolicy, ActorCriticPolicy, ActorCriticPolicy) acting, training and average networks
        """
        acting, training = self._build_policies(bootstrap_step=True)
        self.params = tf_util.get_trainable_vars("model")

        with tf.variable_scope("moving_average"):
            self.average_params = [tf.get_variable(param.op.name, shape=param.shape, dtype=param.dtype.base_dtype,
                                                   initializer=tf.zeros_initializer(), trainable=False)
                                   for param in self.params]
        averages = dict(zip((param.op.name for param in self.params), self.average_params))
        self._sync_average_op = tf.group(*[average.assign(param)
                                           for param, average in zip(self.params, self.average_params)])

        def read_average(getter: Any, name: str, *args: Any, **kwargs: Any) -> Any:  # pylint: disable=unused-argument
            name = name.replace("polyak_model/", "", 1)
            if name not in averages:
                raise ValueError("The policy asked for the variable {!r}, which is not a trainable variable "
                                 "of the step model: ACER cannot build its average policy network".format(name))
            return averages[name]

        with tf.variable_scope("polyak_model", reuse=True, custom_getter=read_average):
            # the shapes of the training network
            average = self.policy(self.sess, *self._graph_inputs(), self.n_steps + 1, training.n_batch, reuse=True,
                                  **self.policy_kwargs)
        return acting, training, average

    def _build_loss(self, net: ActorCriticPolicy, average_net: ActorCriticPolicy) -> Dict[str, Any]:
        """
        Create the inputs of an update and the ACER loss (truncated importance-weighted policy gradient with
        bias correction, Retrace regression of Q, entropy bonus). Called inside the "loss" variable scope.

        :param net: (ActorCriticPolicy) the training network
        :param average_net: (ActorCriticPolicy) the average policy network
        :return: (dict) the tensors the gradients and the logged values are made of
        """
        n_envs, n_steps, n_batch = self._known_n_envs(), self.n_steps, self.n_batch
        self.done_ph = tf.placeholder(tf.float32, [n_batch], name="done_ph")
        self.reward_ph = tf.placeholder(tf.float32, [n_batch], name="reward_ph")
        self.mu_ph = tf.placeholder(tf.float32, [n_batch, self.n_act], name="mu_ph")
        self.action_ph = net.pdtype.sample_placeholder([n_batch], name="action_ph")
        self.learning_rate_ph = tf.placeholder(tf.float32, [], name="learning_rate_ph")

        # V(s) = sum_a pi(a|s) Q(s, a) for every observation, bootstrap ones included
        state_values = tf.reduce_sum(net.policy_proba * net.q_value, axis=-1)
        # without the bootstrap rows: [n_batch, n_act]
        pi, average_pi, q_values = [strip(tensor, n_envs, n_steps)
                                    for tensor in (net.policy_proba, average_net.policy_proba, net.q_value)]
        pi_taken = get_by_index(pi, self.action_ph)
        q_taken = get_by_index(q_values, self.action_ph)
        values = strip(state_values, n_envs, n_steps, True)

        # importance weights pi / mu of every action, and of the actions taken
        ratios = pi / (self.mu_ph + EPS)
        ratio_taken = get_by_index(ratios, self.action_ph)
        q_targets = q_retrace(self.reward_ph, self.done_ph, q_taken, state_values, ratio_taken, n_envs, n_steps,
                              self.gamma)

        # the entropy of the whole batch is SUMMED (bootstrap observations included), as the original does: with
        # trust_region=False the bonus is ent_coef times this sum. Under the trust region the policy gradient goes
        # through the probabilities pi, which this entropy (a function of the logits) does not: ent_coef then
        # only changes the logged loss, as in the original.
        entropy = tf.reduce_sum(net.proba_distribution.entropy())

        # min(c, rho) (Q_ret - V) grad log pi(a_taken)
        advantages = q_targets - values
        log_pi_taken = tf.log(pi_taken + EPS)
        truncated_term = log_pi_taken * tf.stop_gradient(advantages * tf.minimum(self.correction_term, ratio_taken))
        truncated_loss = -tf.reduce_mean(truncated_term)
        # bias correction, over all actions weighted by pi: [1 - c / rho(a)]_+ (Q(a) - V) grad log pi(a)
        action_advantages = q_values - tf.reshape(values, [n_batch, 1])
        log_pi = tf.log(pi + EPS)
        correction_weights = action_advantages * tf.nn.relu(1.0 - (self.correction_term / (ratios + EPS))) * pi
        correction_term = tf.reduce_sum(log_pi * tf.stop_gradient(correction_weights), axis=1)
        correction_loss = -tf.reduce_mean(correction_term)
        policy_loss = truncated_loss + correction_loss

        check_shape([q_targets, q_taken], [[n_batch]] * 2)
        explained = q_explained_variance(tf.reshape(q_taken, [n_envs, n_steps]),
                                         tf.reshape(q_targets, [n_envs, n_steps]))
        q_loss = tf.reduce_mean(tf.square(tf.stop_gradient(q_targets) - q_taken) * 0.5)
        check_shape([policy_loss, q_loss, entropy], [[]] * 3)
        loss = policy_loss + self.q_coef * q_loss - self.ent_coef * entropy

        for tag, tensor in (('entropy_loss', entropy), ('policy_gradient_loss', policy_loss),
                            ('value_function_loss', q_loss), ('loss', loss)):
            tf.summary.scalar(tag, tensor)
        return dict(pi=pi, average_pi=average_pi, advantages=advantages, entropy=entropy, loss=loss,
                    truncated_loss=truncated_loss, correction_loss=correction_loss, policy_loss=policy_loss,
                    q_loss=q_loss, explained=explained)

    def _trust_region_gradients(self, terms: Dict[str, Any],
                                params: List[Any]) -> Tuple[List[Any], List[Any], List[str]]:
        """
        The gradients of the loss with the policy part projected (ACER paper, eq. 13): the gradient with respect to
        the probabilities pi loses its component along the gradient of KL(average policy || pi) beyond ``delta``.

        :param terms: (dict) the tensors of :meth:`_build_loss`
        :param params: ([TensorFlow Variable]) the trainable parameters
        :return: ([TensorFlow Tensor], [TensorFlow Tensor], [str]) gradients per parameter, and the logged
            statistics with their names
        """
        pi, n_batch = terms["pi"], self.n_batch
        # gradient of the per-sample objective with respect to pi (the entropy term has no path to pi)
        objective_grad = tf.gradients(- (terms["policy_loss"] - self.ent_coef * terms["entropy"]) * n_batch, pi)[0]
        kl_grad = - terms["average_pi"] / (pi + EPS)
        kl_dot_grad = tf.reduce_sum(kl_grad * objective_grad, axis=-1)
        excess = tf.maximum(0.0, (kl_dot_grad - self.delta) / (tf.reduce_sum(tf.square(kl_grad), axis=-1) + EPS))

        stats = [avg_norm(kl_grad), avg_norm(objective_grad), tf.reduce_mean(tf.abs(kl_dot_grad)),
                 tf.reduce_mean(tf.abs(excess))]
        projected = objective_grad - tf.reshape(excess, [n_batch, 1]) * kl_grad
        pi_grads = -projected / n_batch
        policy_grads = tf.gradients(pi, params, pi_grads)
        q_grads = tf.gradients(terms["q_loss"] * self.q_coef, params)
        grads = [gradient_add(policy_grad, q_grad, param, verbose=self.verbose)
                 for (policy_grad, q_grad, param) in zip(policy_grads, q_grads, params)]

        pi_grads_norm = avg_norm(pi_grads) * n_batch
        stats = [tf.global_norm([grad for grad in q_grads if grad is not None]),
                 tf.global_norm([grad for grad in policy_grads if grad is not None]), pi_grads_norm] + stats
        return grads, stats, ['norm_grads_q', 'norm_grads_policy', 'avg_norm_grads_f', 'avg_norm_k', 'avg_norm_g',
                              'avg_norm_k_dot_g', 'avg_norm_adj']

    def setup_model(self) -> None:
        with SetVerbosity(self.verbose):
            self._check_policy_class()
            self.n_act = self._check_action_space(self.action_space).n
            observation_space, _, n_envs = self._graph_inputs()
            self.n_batch = n_envs * self.n_steps
            self._new_graph_and_session()

            with self.graph.as_default():
                step_model, train_model, self.polyak_model = self._build_networks()
                params = self.params
                assert params is not None, "collected by _build_networks"
                with tf.variable_scope("loss", reuse=False):
                    terms = self._build_loss(train_model, self.polyak_model)
                    if self.trust_region:
                        grads, extra_ops, extra_names = self._trust_region_gradients(terms, params)
                    else:
                        grads, extra_ops, extra_names = tf.gradients(terms["loss"], params), [], []
                    if self.max_grad_norm is not None:
                        grads, norm_grads = tf.clip_by_global_norm(grads, self.max_grad_norm)
                    else:
                        norm_grads = tf.global_norm([grad for grad in grads if grad is not None])

                input_info_summaries([('rewards', self.reward_ph), ('learning_rate', self.learning_rate_ph),
                                      ('advantage', terms["advantages"]), ('action_probability', self.mu_ph)],
                                     train_model.obs_ph, observation_space, self.full_tensorboard_log)

                optimizer = tf.train.RMSPropOptimizer(learning_rate=self.learning_rate_ph, decay=self.rprop_alpha,
                                                      epsilon=self.rprop_epsilon)
                with quiet_deprecations():  # TF's RMSProp builds its slots with a deprecated initializer
                    gradient_step = optimizer.apply_gradients(list(zip(grads, params)))
                # the moving average follows the parameters after the gradient step
                with tf.control_dependencies([gradient_step]):
                    train_op = tf.group(*[average.assign(self.alpha * average + (1.0 - self.alpha) * param.read_value())
                                          for param, average in zip(params, self.average_params)])

                self.run_ops = [train_op] + [terms[key] for key in ("loss", "q_loss", "entropy", "policy_loss",
                                                                     "truncated_loss", "correction_loss",
                                                                     "explained")] + [norm_grads] + extra_ops
                self.names_ops = ['loss', 'loss_q', 'entropy', 'loss_policy', 'loss_f', 'loss_bc',
                                  'explained_variance', 'norm_grads'] + extra_names

                self.train_model, self.step_model = train_model, step_model
                self._act_with(step_model)
                self.initial_state = step_model.initial_state
                tf.global_variables_initializer().run(session=self.sess)
                self.sess.run(self._sync_average_op)
                # acting runs in NumPy where possible; the copy of the weights is refreshed after each update
                self.fast_path.enable(step_model)

                self.summary = tf.summary.merge_all()

    def load_parameters(self, load_path_or_dict: Any, exact_match: bool = True) -> None:
        super(ACER, self).load_parameters(load_path_or_dict, exact_match=exact_match)
        # the average policy network starts from the loaded parameters
        if self._sync_average_op is not None:
            self.sess.run(self._sync_average_op)

    def _train_step(self, obs: np.ndarray, actions: np.ndarray, rewards: np.ndarray, dones: np.ndarray,
                    mus: np.ndarray, states: Optional[np.ndarray], masks: np.ndarray, steps: int,
                    writer: Any = None, action_masks: Optional[np.ndarray] = None) -> Tuple[List[str], List[Any]]:
        """
        Make one gradient update from a batch of segments (just collected, or replayed).

        :param obs: ([float]) observations, ``n_steps + 1`` per environment
        :param actions: ([float]) actions that were taken
        :param rewards: ([float]) rewards received
        :param dones: ([bool]) per step, whether the episode ended with it (aligned with the rewards)
        :param mus: ([float]) probabilities of every action under the policy that acted
        :param states: ([float]) recurrent states at the start of the segments (None for feed-forward policies)
        :param masks: ([bool]) per observation, whether it starts an episode (used by recurrent policies)
        :param steps: (int) timesteps done in this ``learn`` (the learning-rate schedule and tensorboard step)
        :param writer: (TensorFlow Summary.writer) tensorboard writer, or None
        :param action_masks: ([bool]) the allowed actions of every observation, ``n_steps + 1`` per environment
            (None: the model uses no masks)
        :return: ([str], [float]) names and values of the logged statistics
        """
        feed_dict = {self.action_ph: actions, self.reward_ph: rewards, self.done_ph: dones, self.mu_ph: mus,
                     self.learning_rate_ph: self.learning_rate_schedule.value_steps(steps)}
        for net in (self.train_model, self.polyak_model):
            feed_dict[net.obs_ph] = obs
            if states is not None:
                assert isinstance(net, RecurrentActorCriticPolicy), "a policy with a state is recurrent"
                feed_dict[net.states_ph] = states
                feed_dict[net.dones_ph] = masks
            if action_masks is not None:
                feed_dict[net.action_mask_ph] = action_masks.reshape(len(obs), -1)

        if writer is None:
            results = tf_util.session_run(self.sess, self.run_ops, feed_dict)
        else:
            run_kwargs: Dict[str, Any] = {}
            trace = self.full_tensorboard_log and (1 + (steps // self.n_batch)) % 10 == 0
            if trace:
                run_kwargs = dict(options=tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE),
                                  run_metadata=tf.RunMetadata())
            summary, *results = tf_util.session_run(self.sess, [self.summary] + self.run_ops, feed_dict, **run_kwargs)
            if trace:
                writer.add_run_metadata(run_kwargs["run_metadata"], 'step%d' % steps)
            writer.add_summary(summary, steps)
        # the first result is the train op's
        return self.names_ops, results[1:]

    def _reshape_segment(self, obs: np.ndarray, actions: np.ndarray, rewards: np.ndarray, mus: np.ndarray,
                         dones: np.ndarray, masks: np.ndarray) -> Tuple[np.ndarray, ...]:
        """Flatten [n_envs, n_steps(+1), ...] arrays to the batches the graph expects."""
        n_envs = self._known_n_envs()
        return (obs.reshape((n_envs * (self.n_steps + 1),) + obs.shape[2:]),
                actions.reshape([self.n_batch]),
                rewards.reshape([self.n_batch]),
                mus.reshape([self.n_batch, self.n_act]),
                dones.reshape([self.n_batch]).astype(np.float32),
                masks.reshape([n_envs * (self.n_steps + 1)]).astype(np.float32))

    def _start_training(self, total_timesteps: int, started: float) -> Dict[str, Any]:
        self._check_action_space(self.action_space)
        if self.replay_ratio > 0 and self.buffer_size // self.n_steps < 1:
            raise ValueError("ACER needs buffer_size >= n_steps to replay experience, got buffer_size={} and "
                             "n_steps={}".format(self.buffer_size, self.n_steps))
        self._start_rate_schedule(total_timesteps)
        self._learn_loop = {"recurrent": issubclass(self.policy, RecurrentActorCriticPolicy),
                            "start_timesteps": self.num_timesteps,
                            "episode_stats": EpisodeStats(self.n_steps, self._known_n_envs()),
                            "buffer": Buffer(env=self.env, n_steps=self.n_steps, size=self.buffer_size)
                            if self.replay_ratio > 0 else None,
                            "t_start": started}
        return self._learn_loop

    def _n_updates(self, total_timesteps: int) -> int:
        # a last, partial batch of timesteps still gets a rollout
        return -(-total_timesteps // self.n_batch)

    def _logs_update(self, update: int, log_interval: int) -> bool:
        return (update - 1) % log_interval == 0

    def _show_segment(self, segment: ACERBatch, timesteps_before: int, callback: Optional[BaseCallback]) -> None:
        """
        While learning, the callback sees a segment just collected (before ``on_rollout_end``) under the names the
        original's learn gave it: the batch's field names, and ``steps`` of this learn before the segment.

        :param segment: (ACERBatch) the segment
        :param timesteps_before: (int) ``num_timesteps`` when its collection began
        :param callback: (BaseCallback) the runner's callback
        """
        loop = self._learn_loop
        if loop is None or callback is None:
            return
        loop.update(segment._asdict(), steps=timesteps_before - loop["start_timesteps"])
        callback.update_locals(loop)

    def _train_on_rollout(self, rollout: ACERBatch, update: int, writer: Any,
                          loop: Dict[str, Any]) -> Tuple[List[str], List[Any]]:
        enc_obs, obs, actions, rewards, mus, dones, masks, states, _ = rollout
        loop["episode_stats"].feed(rewards, dones)
        action_masks = self.runner.segment_action_masks
        if loop["buffer"] is not None:
            loop["buffer"].put(enc_obs, actions, rewards, mus, dones, masks,
                               states=states if loop["recurrent"] else None, action_masks=action_masks)
        obs, actions, rewards, mus, dones, masks = self._reshape_segment(obs, actions, rewards, mus, dones, masks)
        loop["masks"] = masks
        names_ops, values_ops = self._train_step(obs, actions, rewards, dones, mus, states, masks,
                                                 self.num_timesteps - loop["start_timesteps"], writer,
                                                 action_masks=action_masks)
        loop.update(names_ops=names_ops, values_ops=values_ops)
        self._replay(loop)
        return names_ops, values_ops

    def _replay(self, loop: Dict[str, Any]) -> None:
        """
        Train on a Poisson(``replay_ratio``) number of segments drawn from the buffer, once it holds
        ``replay_start`` transitions.

        :param loop: (dict) the variables of the update loop
        """
        buffer = loop["buffer"]
        if buffer is None or not buffer.has_atleast(self.replay_start):
            return
        loop["samples_number"] = np.random.poisson(self.replay_ratio)
        for _ in range(loop["samples_number"]):
            obs, actions, rewards, mus, dones, masks, states, action_masks = buffer.get(return_states=True,
                                                                                        return_action_masks=True)
            obs, actions, rewards, mus, dones, masks = self._reshape_segment(obs, actions, rewards, mus, dones,
                                                                              masks)
            if loop["recurrent"] and states is None:
                states = self.initial_state
            loop["masks"] = masks
            self._train_step(obs, actions, rewards, dones, mus, states, masks,
                             self.num_timesteps - loop["start_timesteps"], action_masks=action_masks)

    def _record_update(self, update: int, stats: Any, loop: Dict[str, Any], clock: UpdateClock) -> None:
        episode_stats = loop["episode_stats"]
        logger.record_tabular("total_timesteps", self.num_timesteps)
        logger.record_tabular("fps", clock.fps(update * self.n_batch))
        # these count from one done to the next: with an EpisodicLife wrapper that is one life, not one game
        # (the Monitor's records have whole episodes)
        logger.record_tabular("mean_episode_length", episode_stats.mean_length())
        logger.record_tabular("mean_episode_reward", episode_stats.mean_reward())
        self._log_episode_stats()
        for name, val in zip(*stats):
            logger.record_tabular(name, float(val))
            loop.update(name=name, val=val)

    def learn(self, total_timesteps: int, callback: Any = None, log_interval: int = 100, tb_log_name: str = "ACER",
              reset_num_timesteps: bool = True, progress_bar: bool = False) -> "ACER":
        try:
            return self._learn_on_policy(total_timesteps, callback, log_interval, tb_log_name, reset_num_timesteps,
                                         progress_bar)
        finally:
            self._learn_loop = None


class _Runner(AbstractEnvRunner):
    # the behaviour policy's probabilities are kept for the importance weights
    recorded_outputs = ("mus",)
    start_states_name = "start_states"

    def __init__(self, env: Any, model: ACER, n_steps: int,
                 show_segment: Optional[Callable[[ACERBatch, int, Optional[BaseCallback]], None]] = None) -> None:
        """
        Collects the segments of an ACER model: per environment ``n_steps`` transitions and ``n_steps + 1``
        observations, with the behaviour policy's action probabilities.

        :param env: (VecEnv) the environment to step
        :param model: (ACER) the model whose acting network chooses the actions
        :param n_steps: (int) steps per environment in one segment
        :param show_segment: (callable) ``(segment, num_timesteps before it, callback)``, called with every segment
            collected (the model shows it to the callback); None: nothing is called
        """
        super().__init__(env=env, model=model, n_steps=n_steps)
        self.show_segment = show_segment
        self.n_env = self.n_envs
        self.n_act = env.action_space.n
        self.n_batch = self.n_env * n_steps
        self.batch_ob_shape = (self.n_env * (n_steps + 1),) + env.observation_space.shape
        # the allowed actions of the n_steps + 1 observations of the last segment [n_envs, n_steps + 1, width]
        # (None: the model uses no action masks)
        self.segment_action_masks: Optional[np.ndarray] = None

    def policy_step(self) -> Tuple[np.ndarray, Any, Dict[str, np.ndarray]]:
        """
        :return: (np.ndarray, Any, dict) actions, next recurrent states and the probabilities of all actions
            (``mus``), in one session call where the policy allows it
        """
        obs, states, dones = self.obs, self.states, self.dones
        policy = self.model.step_model
        if not policy.recurrent:
            feed = {policy.obs_ph: obs}
            if self.action_masks is not None:
                feed[policy.action_mask_ph] = self.action_masks
            actions, mus = tf_util.session_run(policy.sess, [policy.action, policy.policy_proba], feed)
        elif hasattr(policy, "snew"):
            feed = {policy.obs_ph: obs, policy.states_ph: states, policy.dones_ph: np.asarray(dones, np.float32)}
            if self.action_masks is not None:
                feed[policy.action_mask_ph] = self.action_masks
            actions, mus, states = tf_util.session_run(
                policy.sess, [policy.action, policy.policy_proba, policy.snew], feed)
        else:
            actions, _, new_states, _ = self.model.step(obs, states, dones)
            mus = self.model.proba_step(obs, states, dones)
            states = new_states
        return actions, states, {"mus": mus}

    def extra_columns(self) -> Dict[str, List[np.ndarray]]:
        # the observations of the segment as the replay buffer stores them: the first one and the one after
        # every step
        return {"enc_obs": [np.copy(self.obs)]}

    def after_step(self, columns: Dict[str, List[np.ndarray]], obs: np.ndarray) -> None:
        columns["enc_obs"].append(np.copy(obs))

    def _run(self) -> ACERBatch:
        """
        Collect one segment of ``n_steps`` steps in every env; while the model learns, the callback sees it.

        :return: (ACERBatch) the segment, arrays [n_envs, n_steps (+ 1), ...] (every field None when the callback
            stopped the rollout)
        """
        timesteps_before = self.model.num_timesteps
        segment = self._collect_segment()
        if self.show_segment is not None:
            self.show_segment(segment, timesteps_before, self.callback)
        return segment

    def _collect_segment(self) -> ACERBatch:
        """:return: (ACERBatch) one segment (as :meth:`_run` returns it)"""
        rollout = collect_rollout(self)
        if rollout is None:
            return stopped_batch(ACERBatch)
        # observations and episode-start flags of the n_steps + 1 positions (the last one bootstraps)
        rollout["mb_obs"].append(np.copy(self.obs))
        rollout["mb_dones"].append(self.dones)
        if self.action_masks is not None and self.rollout_action_masks is not None:
            per_env = self.rollout_action_masks.reshape(self.n_env, self.n_steps, -1)
            self.segment_action_masks = np.concatenate([per_env, self.action_masks[:, None]], axis=1)

        def env_major(name: str, dtype: Any) -> np.ndarray:
            return np.asarray(rollout[name], dtype=dtype).swapaxes(1, 0)

        masks = env_major("mb_dones", bool)
        # every array is [n_envs, n_steps (+ 1 for observations and masks), ...]; the dones (episode ends
        # aligned with the rewards) are the start flags shifted by one
        return ACERBatch(env_major("enc_obs", self.obs.dtype), env_major("mb_obs", self.obs.dtype),
                         env_major("mb_actions", np.int64), env_major("mb_rewards", np.float32),
                         env_major("mb_mus", np.float32), masks[:, 1:], masks, rollout["start_states"],
                         rollout["ep_infos"])
