"""Soft Actor-Critic (SAC): off-policy maximum-entropy actor-critic with a squashed Gaussian actor."""
import warnings
from typing import Any, List, Tuple

import numpy as np

from stable_baselines.common import tf_util
from stable_baselines.common.base_class import SetVerbosity, _predict_input
from stable_baselines.common.buffers import ReplayBuffer
from stable_baselines.common.math_util import unscale_action
from stable_baselines.common.model.squashed_actor import SquashedActorModel
from stable_baselines.common.target_updates import hard_updates, mirrored_variables, polyak_updates
from stable_baselines.common.tf_compat import tf
from stable_baselines.sac.policies import SACPolicy


def _parse_ent_coef(ent_coef: Any) -> Any:
    """
    Validate the ``ent_coef`` argument.

    :param ent_coef: (str or float) 'auto', 'auto_<initial value>' or a float
    :return: (float or None) the initial value when learned ('auto...'), else None; raises ValueError otherwise
    """
    if isinstance(ent_coef, str):
        if ent_coef == "auto":
            return 1.0
        if ent_coef.startswith("auto_"):
            try:
                init_value = float(ent_coef.split("_", 1)[1])
            except ValueError:
                init_value = None
            if init_value is None or not init_value > 0.0:
                raise ValueError("ent_coef='auto_<x>' needs a positive initial value x, got {!r}".format(ent_coef))
            return init_value
        try:
            float(ent_coef)
        except ValueError:
            raise ValueError("ent_coef must be a float, 'auto' or 'auto_<initial value>', got {!r}"
                             .format(ent_coef)) from None
        return None
    if isinstance(ent_coef, bool) or not isinstance(ent_coef, (int, float, np.number)):
        raise ValueError("ent_coef must be a float, 'auto' or 'auto_<initial value>', got {!r}".format(ent_coef))
    return None


class SAC(SquashedActorModel):
    """
    Soft Actor-Critic (SAC)
    Off-Policy Maximum Entropy Deep Reinforcement Learning with a Stochastic Actor,
    This implementation borrows code from original implementation (https://github.com/haarnoja/sac)
    from OpenAI Spinning Up (https://github.com/openai/spinningup) and from the Softlearning repo
    (https://github.com/rail-berkeley/softlearning/)
    Paper: https://arxiv.org/abs/1801.01290
    Introduction to SAC: https://spinningup.openai.com/en/latest/algorithms/sac.html

    :param policy: (SACPolicy or str) The policy model to use (MlpPolicy, CnnPolicy, LnMlpPolicy, ...)
    :param env: (Gym environment or str) The environment to learn from (if registered in Gym, can be str)
    :param gamma: (float) the discount factor
    :param learning_rate: (float or callable) learning rate for adam optimizer,
        the same learning rate will be used for all networks (Q-Values, Actor and Value function)
        it can be a function of the current progress (from 1 to 0)
    :param buffer_size: (int) size of the replay buffer
    :param batch_size: (int) Minibatch size for each gradient update
    :param tau: (float) the soft update coefficient ("polyak update", between 0 and 1)
    :param ent_coef: (str or float) Entropy regularization coefficient. (Equivalent to
        inverse of reward scale in the original SAC paper.)  Controlling exploration/exploitation trade-off.
        Set it to 'auto' to learn it automatically (and 'auto_0.1' for using 0.1 as initial value)
    :param train_freq: (int) Update the model every `train_freq` steps.
    :param learning_starts: (int) how many steps of the model to collect transitions for before learning starts
    :param target_update_interval: (int) update the target network every `target_network_update_freq` steps.
    :param gradient_steps: (int) How many gradient update after each step
    :param target_entropy: (str or float) target entropy when learning ent_coef (ent_coef = 'auto')
    :param action_noise: (ActionNoise) the action noise type (None by default), this can help
        for hard exploration problem. Cf DDPG for the different action noise type.
    :param random_exploration: (float) Probability of taking a random action (as in an epsilon-greedy strategy)
        This is not needed for SAC normally but can help exploring when using HER + SAC.
        This hack was present in the original OpenAI Baselines repo (DDPG + HER)
    :param verbose: (int) the verbosity level: 0 none, 1 training information, 2 tensorflow debug
    :param tensorboard_log: (str) the log location for tensorboard (if None, no logging)
    :param _init_setup_model: (bool) Whether or not to build the network at the creation of the instance
    :param policy_kwargs: (dict) additional arguments to be passed to the policy on creation
    :param full_tensorboard_log: (bool) enable additional logging when using tensorboard
        Note: this has no effect on SAC logging for now
    :param seed: (int) Seed for the pseudo-random generators (python, numpy, tensorflow).
        If None (default), use random seed. Note that if you want completely deterministic
        results, you must set `n_cpu_tf_sess` to 1.
    :param n_cpu_tf_sess: (int) The number of threads for TensorFlow operations
        If None, the number of cpu of the current machine will be used.
    """

    _saved_settings = ("learning_rate", "buffer_size", "learning_starts", "train_freq", "batch_size", "tau",
                       "ent_coef", "target_entropy", "gamma", "action_noise", "random_exploration",
                       "target_update_interval", "gradient_steps")

    def __init__(self, policy, env, gamma=0.99, learning_rate=3e-4, buffer_size=50000,
                 learning_starts=100, train_freq=1, batch_size=64,
                 tau=0.005, ent_coef='auto', target_update_interval=1,
                 gradient_steps=1, target_entropy='auto', action_noise=None,
                 random_exploration=0.0, verbose=0, tensorboard_log=None,
                 _init_setup_model=True, policy_kwargs=None, full_tensorboard_log=False,
                 seed=None, n_cpu_tf_sess=None):

        super(SAC, self).__init__(policy=policy, env=env, replay_buffer=None, verbose=verbose,
                                  policy_base=SACPolicy, requires_vec_env=False, policy_kwargs=policy_kwargs,
                                  seed=seed, n_cpu_tf_sess=n_cpu_tf_sess)

        self.buffer_size = buffer_size
        self.learning_rate = learning_rate
        self.learning_starts = learning_starts
        self.train_freq = train_freq
        self.batch_size = batch_size
        self.tau = tau
        # In the original paper, same learning rate is used for all networks
        # self.policy_lr = learning_rate
        # self.qf_lr = learning_rate
        # self.vf_lr = learning_rate
        # Entropy coefficient / Entropy temperature
        # Inverse of the reward scale
        self.ent_coef = ent_coef
        self.target_update_interval = target_update_interval
        self.gradient_steps = gradient_steps
        self.gamma = gamma
        self.action_noise = action_noise
        self.random_exploration = random_exploration

        self.value_fn = None
        self.graph = None
        self.replay_buffer = None
        self.sess = None
        self.tensorboard_log = tensorboard_log
        self.verbose = verbose
        self.params = None
        self.summary = None
        self.policy_tf = None
        self.target_entropy = target_entropy
        self.full_tensorboard_log = full_tensorboard_log

        self.obs_target = None
        self.target_policy = None
        self.actions_ph = None
        self.rewards_ph = None
        self.terminals_ph = None
        self.observations_ph = None
        self.action_target = None
        self.next_observations_ph = None
        self.value_target = None
        self.step_ops = None
        self.target_update_op = None
        self.infos_names = None
        self.entropy = None
        self.target_params = None
        self.learning_rate_ph = None
        self.processed_obs_ph = None
        self.processed_next_obs_ph = None
        self.log_ent_coef = None
        self.deterministic_action = None
        self._ent_coef_spec = ent_coef

        _parse_ent_coef(ent_coef)
        self._check_action_space()

        if _init_setup_model:
            self.setup_model()

    _exploration_step_kwargs = {"deterministic": False}
    _delayed_update_argument = "target_update_interval"

    def _delayed_update_interval(self) -> int:
        return self.target_update_interval

    def _get_pretrain_placeholders(self):
        policy = self.policy_tf
        # Rescale
        deterministic_action = unscale_action(self.action_space, self.deterministic_action)
        return policy.obs_ph, self.actions_ph, deterministic_action

    def setup_model(self) -> None:
        with SetVerbosity(self.verbose):
            self._check_policy_class()
            self._check_action_space()
            # the ent_coef attribute becomes a tensor when learned: keep the user's specification
            if isinstance(self.ent_coef, (str, int, float, np.number)):
                self._ent_coef_spec = self.ent_coef
            ent_coef_spec = self._ent_coef_spec
            ent_coef_init = _parse_ent_coef(ent_coef_spec)

            self.graph = tf.Graph()
            with self.graph.as_default():
                self.set_random_seed(self.seed)
                self.sess = tf_util.make_session(num_cpu=self.n_cpu_tf_sess, graph=self.graph)

                self.replay_buffer = ReplayBuffer(self.buffer_size)

                # the policy, its target copy and the placeholders (scope "input")
                self.policy_tf, self.target_policy = self._setup_policy_and_target_inputs()

                with tf.variable_scope("model", reuse=False):
                    # Create the policy
                    # first return value corresponds to deterministic actions
                    # policy_out corresponds to stochastic actions, used for training
                    # logp_pi is the log probability of actions taken by the policy
                    self.deterministic_action, policy_out, logp_pi = self.policy_tf.make_actor(self.processed_obs_ph)
                    # Monitor the entropy of the policy,
                    # this is not used for training
                    self.entropy = tf.reduce_mean(self.policy_tf.entropy)
                    #  Use two Q-functions to improve performance by reducing overestimation bias.
                    qf1, qf2, value_fn = self.policy_tf.make_critics(self.processed_obs_ph, self.actions_ph,
                                                                     create_qf=True, create_vf=True)
                    qf1_pi, qf2_pi, _ = self.policy_tf.make_critics(self.processed_obs_ph,
                                                                    policy_out, create_qf=True, create_vf=False,
                                                                    reuse=True)

                    # Target entropy is used when learning the entropy coefficient
                    if isinstance(self.target_entropy, str) and self.target_entropy == 'auto':
                        # automatically set target entropy if needed: -dim(A)
                        self.target_entropy = -float(np.prod(self.action_space.shape))
                    else:
                        try:
                            self.target_entropy = float(self.target_entropy)
                        except (TypeError, ValueError):
                            raise ValueError("target_entropy must be 'auto' or a float, got {!r}"
                                             .format(self.target_entropy)) from None

                    # The entropy coefficient or entropy can be learned automatically
                    # see Automating Entropy Adjustment for Maximum Entropy RL section
                    # of https://arxiv.org/abs/1812.05905
                    if ent_coef_init is not None:
                        self.log_ent_coef = tf.get_variable('log_ent_coef', dtype=tf.float32,
                                                            initializer=np.log(ent_coef_init).astype(np.float32))
                        self.ent_coef = tf.exp(self.log_ent_coef)
                    else:
                        self.log_ent_coef = None
                        self.ent_coef = float(ent_coef_spec)

                with tf.variable_scope("target", reuse=False):
                    # Create the value network
                    _, _, value_target = self.target_policy.make_critics(self.processed_next_obs_ph,
                                                                         create_qf=False, create_vf=True)
                    self.value_target = value_target

                with tf.variable_scope("loss", reuse=False):
                    # Take the min of the two Q-Values (Double-Q Learning)
                    min_qf_pi = tf.minimum(qf1_pi, qf2_pi)

                    # Target for Q value regression
                    q_backup = tf.stop_gradient(
                        self.rewards_ph +
                        (1 - self.terminals_ph) * self.gamma * self.value_target
                    )

                    # Compute Q-Function loss
                    qf1_loss = 0.5 * tf.reduce_mean((q_backup - qf1) ** 2)
                    qf2_loss = 0.5 * tf.reduce_mean((q_backup - qf2) ** 2)

                    # Compute the entropy temperature loss
                    # it is used when the entropy coefficient is learned
                    ent_coef_loss, entropy_optimizer = None, None
                    if self.log_ent_coef is not None:
                        ent_coef_loss = -tf.reduce_mean(
                            self.log_ent_coef * tf.stop_gradient(logp_pi + self.target_entropy))
                        entropy_optimizer = tf.train.AdamOptimizer(learning_rate=self.learning_rate_ph)

                    # Compute the policy loss
                    # Alternative: policy_kl_loss = tf.reduce_mean(logp_pi - min_qf_pi)
                    policy_kl_loss = tf.reduce_mean(self.ent_coef * logp_pi - qf1_pi)

                    # NOTE: in the original implementation, they have an additional
                    # regularization loss for the Gaussian parameters
                    # this is not used for now
                    policy_loss = policy_kl_loss

                    # Target for value fn regression
                    # We update the vf towards the min of two Q-functions in order to
                    # reduce overestimation bias from function approximation error.
                    v_backup = tf.stop_gradient(min_qf_pi - self.ent_coef * logp_pi)
                    value_loss = 0.5 * tf.reduce_mean((value_fn - v_backup) ** 2)

                    values_losses = qf1_loss + qf2_loss + value_loss

                    # Policy train op
                    # (has to be separate from value train op, because min_qf_pi appears in policy_loss)
                    policy_optimizer = tf.train.AdamOptimizer(learning_rate=self.learning_rate_ph)
                    # The value targets and the logged values read the actor's parameters: compute them
                    # before the actor is updated, always (otherwise the order depends on thread scheduling
                    # and two seeded runs can differ)
                    with tf.control_dependencies([v_backup, policy_loss, logp_pi, self.entropy]):
                        policy_train_op = policy_optimizer.minimize(policy_loss,
                                                                    var_list=tf_util.get_trainable_vars('model/pi'))

                    # Value train op
                    value_optimizer = tf.train.AdamOptimizer(learning_rate=self.learning_rate_ph)
                    values_params = tf_util.get_trainable_vars('model/values_fn')

                    source_params, target_params = mirrored_variables("model/values_fn/vf", "target/values_fn/vf")
                    self.target_update_op = polyak_updates(source_params, target_params, self.tau)
                    target_init_op = hard_updates(source_params, target_params)

                    # Control flow is used because sess.run otherwise evaluates in nondeterministic order
                    # and we first need to compute the policy action before computing q values losses
                    with tf.control_dependencies([policy_train_op]):
                        train_values_op = value_optimizer.minimize(values_losses, var_list=values_params)

                        self.infos_names = ['policy_loss', 'qf1_loss', 'qf2_loss', 'value_loss', 'entropy']
                        # All ops to call during one training step
                        self.step_ops = [policy_loss, qf1_loss, qf2_loss,
                                         value_loss, qf1, qf2, value_fn, logp_pi,
                                         self.entropy, policy_train_op, train_values_op]

                        # Add entropy coefficient optimization operation if needed
                        if ent_coef_loss is not None:
                            with tf.control_dependencies([train_values_op]):
                                ent_coef_op = entropy_optimizer.minimize(ent_coef_loss, var_list=self.log_ent_coef)
                                self.infos_names += ['ent_coef_loss', 'ent_coef']
                                self.step_ops += [ent_coef_op, ent_coef_loss, self.ent_coef]

                    # Monitor losses and entropy in tensorboard
                    tf.summary.scalar('policy_loss', policy_loss)
                    tf.summary.scalar('qf1_loss', qf1_loss)
                    tf.summary.scalar('qf2_loss', qf2_loss)
                    tf.summary.scalar('value_loss', value_loss)
                    tf.summary.scalar('entropy', self.entropy)
                    if ent_coef_loss is not None:
                        tf.summary.scalar('ent_coef_loss', ent_coef_loss)
                        tf.summary.scalar('ent_coef', self.ent_coef)

                    tf.summary.scalar('learning_rate', tf.reduce_mean(self.learning_rate_ph))

                # Retrieve parameters that must be saved
                self.params = tf_util.get_trainable_vars("model")
                self.target_params = tf_util.get_trainable_vars("target/values_fn/vf")

                # Acting without a session call: the actor in NumPy (MLP policies), its weights handed over
                # by every training step; built (as everything) before the session first runs the graph
                self.policy_tf.enable_numpy_forward(self._numpy_forward_rng())
                fused_train = self._setup_fused_train(train_ops=self.step_ops[9:12],
                                                      source_params=source_params, target_params=target_params)

                # Initialize Variables and target network
                with self.sess.as_default():
                    self.sess.run(tf.global_variables_initializer())
                    self.sess.run(target_init_op)

                self.summary = tf.summary.merge_all()
                self._fused_train = {key: self._fast_callable(self.sess, *args) for key, args in fused_train.items()}

    def _setup_fused_train(self, train_ops: list, source_params: list, target_params: list) -> dict:
        """
        Build the graph of the single-session-call training steps, used when no tensorboard writer is active:
        the losses of ``infos_names``, all the updates, optionally the soft update of the target value network
        after them, and (if the actor acts in NumPy) the updated actor weights, all in one call.

        :param train_ops: ([tf.Operation]) the update ops of one gradient step
        :param source_params: ([tf.Variable]) the value network
        :param target_params: ([tf.Variable]) the target value network
        :return: (dict) for ``update_target`` False and True, the (feeds, fetches, targets) of the callable
        """
        policy_loss, qf1_loss, qf2_loss, value_loss = self.step_ops[:4]
        losses = [policy_loss, qf1_loss, qf2_loss, value_loss, self.entropy]
        if self.log_ent_coef is not None:
            losses += [self.step_ops[12], self.step_ops[13]]
        with tf.control_dependencies(train_ops):
            target_update = polyak_updates(source_params, target_params, self.tau, fresh_reads=True)
        forward = self.policy_tf._numpy_forward
        feeds = self._minibatch_feeds()
        fused = {}
        for with_target in (False, True):
            updates = train_ops + (target_update if with_target else [])
            fetches = list(losses)
            if forward is not None:
                fetches.append(self._flat_after(updates, forward.variables))
            fused[with_target] = (feeds, fetches, updates)
        return fused

    def _train_step(self, step: int, writer, learning_rate: float, update_target: bool = False) -> tuple:
        """
        One gradient step on a minibatch of the replay buffer.

        :param step: (int) the current step (x axis of tensorboard)
        :param writer: (TensorFlow Summary.writer) the writer for tensorboard (can be None)
        :param learning_rate: (float) the learning rate
        :param update_target: (bool) also update the target network (after the gradient step)
        :return: (tuple) the values of ``self.infos_names``
        """
        # Sample a batch from the replay buffer
        batch = self.replay_buffer.sample(self.batch_size, env=self._vec_normalize_env)

        if writer is None:
            # one session call: losses, updates (and target update), updated actor weights
            infos = self._fused_train_step(batch, learning_rate, update_target)
            if infos is not None:
                return infos
        self.policy_tf.invalidate_numpy_forward()
        infos = self._train_step_graph(step, writer, learning_rate, batch)
        if update_target:
            self.sess.run(self.target_update_op)
        return infos

    def _train_step_graph(self, step: int, writer, learning_rate: float, batch: tuple) -> tuple:
        """The training step with ``sess.run`` (and the tensorboard summary when ``writer`` is given)."""
        # out  = [policy_loss, qf1_loss, qf2_loss,
        #         value_loss, qf1, qf2, value_fn, logp_pi,
        #         self.entropy, policy_train_op, train_values_op]

        # Do one gradient step
        # and optionally compute log for tensorboard
        out = self._run_train_ops(self.step_ops, batch, learning_rate, writer, step)

        # Unpack to monitor losses and entropy
        policy_loss, qf1_loss, qf2_loss, value_loss, *values = out
        # qf1, qf2, value_fn, logp_pi, entropy, *_ = values
        entropy = values[4]

        if self.log_ent_coef is not None:
            ent_coef_loss, ent_coef = values[-2:]
            return policy_loss, qf1_loss, qf2_loss, value_loss, entropy, ent_coef_loss, ent_coef

        return policy_loss, qf1_loss, qf2_loss, value_loss, entropy

    def learn(self, total_timesteps: int, callback=None,
              log_interval: int = 4, tb_log_name: str = "SAC", reset_num_timesteps: bool = True, replay_wrapper=None,
              progress_bar: bool = False) -> "SAC":
        """
        Return a trained model.

        :param total_timesteps: (int) The total number of samples to train on
        :param callback: (Union[callable, [callable], BaseCallback])
            function called at every steps with state of the algorithm.
            It takes the local and global variables. If it returns False, training is aborted.
            When the callback inherits from BaseCallback, you will have access
            to additional stages of the training (training start/end),
            please read the documentation for more details.
        :param log_interval: (int) The number of episodes before logging.
        :param tb_log_name: (str) the name of the run for tensorboard log
        :param reset_num_timesteps: (bool) whether or not to reset the current timestep number (used in logging)
        :param replay_wrapper: (ReplayBuffer -> ReplayBuffer) optional wrapper of the replay buffer (e.g. HER)
        :param progress_bar: (bool) display a progress bar over the timesteps (needs tqdm)
        :return: (BaseRLModel) the trained model
        """
        return self._run_loop(total_timesteps, callback, log_interval, tb_log_name, reset_num_timesteps,
                              replay_wrapper, progress_bar)

    def action_probability(self, observation: np.ndarray, state=None, mask=None, actions=None,
                           logp: bool = False) -> None:
        """
        SAC's policy is a Gaussian squashed by a tanh and rescaled: it has no closed-form action
        distribution to return. Warns and returns None (raises a ValueError when ``actions`` is given),
        as the original did.

        :param observation: (np.ndarray) the input observation
        :param state: (np.ndarray) The last states (can be None, used in recurrent policies)
        :param mask: (np.ndarray) The last masks (can be None, used in recurrent policies)
        :param actions: (np.ndarray) (OPTIONAL) not supported by SAC
        :param logp: (bool) (OPTIONAL) not supported by SAC
        :return: (None)
        """
        if actions is not None:
            raise ValueError("Error: SAC does not have action probabilities.")

        warnings.warn("Even though SAC has a Gaussian policy, it cannot return a distribution as it "
                      "is squashed by a tanh before being scaled and outputed.")

        return None

    def predict(self, observation: np.ndarray, state=None, mask=None,
                deterministic: bool = True) -> Tuple[np.ndarray, None]:
        """
        Get the model's action from an observation

        :param observation: (np.ndarray) the input observation
        :param state: (np.ndarray) The last states (can be None, used in recurrent policies)
        :param mask: (np.ndarray) The last masks (can be None, used in recurrent policies)
        :param deterministic: (bool) Whether or not to return deterministic actions.
        :return: (np.ndarray, np.ndarray) the model's action and the next state (used in recurrent policies)
        """
        if self.policy_tf is None:
            raise ValueError("The model is not set up: call setup_model() (or create it with "
                             "_init_setup_model=True) before predict()")
        if deterministic:
            action = self._predict_one_squashed(observation)
            if action is not None:
                return action, None
        observation, vectorized_env = _predict_input(observation, self.observation_space)

        actions = self.policy_tf.step(observation, deterministic=deterministic)
        actions = actions.reshape((-1,) + self.action_space.shape)  # reshape to the correct action shape
        actions = unscale_action(self.action_space, actions)  # scale the output for the prediction

        if not vectorized_env:
            actions = actions[0]

        return actions, None

    def get_parameter_list(self) -> List[Any]:
        return self.params + self.target_params

    def save(self, save_path, cloudpickle: bool = False) -> None:
        # the replay buffer is not saved (it may hold many transitions)
        self._save_to_file(save_path, data=self._settings_to_save(), params=self.get_parameters(),
                           cloudpickle=cloudpickle)

    def _setting_to_save(self, name: str) -> Any:
        # ent_coef becomes a tensor when it is learned: save what was asked for ('auto...' or the number)
        value = self._ent_coef_spec if name == "ent_coef" else getattr(self, name)
        if name in ("ent_coef", "target_entropy") and not isinstance(value, str):
            value = float(value)
        return value
