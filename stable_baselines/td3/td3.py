"""Twin Delayed DDPG (TD3): clipped double Q-learning, delayed policy updates and target policy smoothing."""
import warnings
from typing import Tuple

import numpy as np

from stable_baselines.common import tf_util
from stable_baselines.common.base_class import SetVerbosity, _predict_input
from stable_baselines.common.buffers import ReplayBuffer
from stable_baselines.common.math_util import unscale_action
from stable_baselines.common.model.squashed_actor import SquashedActorModel
from stable_baselines.common.target_updates import hard_updates, mirrored_variables, polyak_updates
from stable_baselines.common.tf_compat import tf
from stable_baselines.td3.policies import TD3Policy


class TD3(SquashedActorModel):
    """
    Twin Delayed DDPG (TD3)
    Addressing Function Approximation Error in Actor-Critic Methods.

    Original implementation: https://github.com/sfujim/TD3
    Paper: https://arxiv.org/pdf/1802.09477.pdf
    Introduction to TD3: https://spinningup.openai.com/en/latest/algorithms/td3.html

    :param policy: (TD3Policy or str) The policy model to use (MlpPolicy, CnnPolicy, LnMlpPolicy, ...)
    :param env: (Gym environment or str) The environment to learn from (if registered in Gym, can be str)
    :param gamma: (float) the discount factor
    :param learning_rate: (float or callable) learning rate for adam optimizer,
        the same learning rate will be used for all networks (Q-Values and Actor networks)
        it can be a function of the current progress (from 1 to 0)
    :param buffer_size: (int) size of the replay buffer
    :param batch_size: (int) Minibatch size for each gradient update
    :param tau: (float) the soft update coefficient ("polyak update" of the target networks, between 0 and 1)
    :param policy_delay: (int) Policy and target networks will only be updated once every policy_delay steps
        per training steps. The Q values will be updated policy_delay more often (update every training step).
    :param action_noise: (ActionNoise) the action noise type. Cf DDPG for the different action noise type.
    :param target_policy_noise: (float) Standard deviation of Gaussian noise added to target policy
        (smoothing noise)
    :param target_noise_clip: (float) Limit for absolute value of target policy smoothing noise.
    :param train_freq: (int) Update the model every `train_freq` steps.
    :param learning_starts: (int) how many steps of the model to collect transitions for before learning starts
    :param gradient_steps: (int) How many gradient update after each step
    :param random_exploration: (float) Probability of taking a random action (as in an epsilon-greedy strategy)
        This is not needed for TD3 normally but can help exploring when using HER + TD3.
        This hack was present in the original OpenAI Baselines repo (DDPG + HER)
    :param verbose: (int) the verbosity level: 0 none, 1 training information, 2 tensorflow debug
    :param tensorboard_log: (str) the log location for tensorboard (if None, no logging)
    :param _init_setup_model: (bool) Whether or not to build the network at the creation of the instance
    :param policy_kwargs: (dict) additional arguments to be passed to the policy on creation
    :param full_tensorboard_log: (bool) enable additional logging when using tensorboard
        Note: this has no effect on TD3 logging for now
    :param seed: (int) Seed for the pseudo-random generators (python, numpy, tensorflow).
        If None (default), use random seed. Note that if you want completely deterministic
        results, you must set `n_cpu_tf_sess` to 1.
    :param n_cpu_tf_sess: (int) The number of threads for TensorFlow operations
        If None, the number of cpu of the current machine will be used.
    """

    _saved_settings = ("learning_rate", "buffer_size", "learning_starts", "train_freq", "gradient_steps",
                       "batch_size", "tau", "policy_delay", "target_noise_clip", "target_policy_noise",
                       "gamma", "action_noise", "random_exploration")

    def __init__(self, policy, env, gamma=0.99, learning_rate=3e-4, buffer_size=50000,
                 learning_starts=100, train_freq=100, gradient_steps=100, batch_size=128,
                 tau=0.005, policy_delay=2, action_noise=None,
                 target_policy_noise=0.2, target_noise_clip=0.5,
                 random_exploration=0.0, verbose=0, tensorboard_log=None,
                 _init_setup_model=True, policy_kwargs=None,
                 full_tensorboard_log=False, seed=None, n_cpu_tf_sess=None):

        super(TD3, self).__init__(policy=policy, env=env, replay_buffer=None, verbose=verbose,
                                  policy_base=TD3Policy, requires_vec_env=False, policy_kwargs=policy_kwargs,
                                  seed=seed, n_cpu_tf_sess=n_cpu_tf_sess)

        self.buffer_size = buffer_size
        self.learning_rate = learning_rate
        self.learning_starts = learning_starts
        self.train_freq = train_freq
        self.batch_size = batch_size
        self.tau = tau
        self.gradient_steps = gradient_steps
        self.gamma = gamma
        self.action_noise = action_noise
        self.random_exploration = random_exploration
        self.policy_delay = policy_delay
        self.target_noise_clip = target_noise_clip
        self.target_policy_noise = target_policy_noise

        self.graph = None
        self.replay_buffer = None
        self.sess = None
        self.tensorboard_log = tensorboard_log
        self.verbose = verbose
        self.params = None
        self.summary = None
        self.policy_tf = None
        self.full_tensorboard_log = full_tensorboard_log

        self.obs_target = None
        self.target_policy_tf = None
        self.actions_ph = None
        self.rewards_ph = None
        self.terminals_ph = None
        self.observations_ph = None
        self.action_target = None
        self.next_observations_ph = None
        self.step_ops = None
        self.target_ops = None
        self.infos_names = None
        self.target_params = None
        self.learning_rate_ph = None
        self.processed_obs_ph = None
        self.processed_next_obs_ph = None
        self.policy_out = None
        self.policy_train_op = None
        self.policy_loss = None

        self._check_action_space()

        if _init_setup_model:
            self.setup_model()

    _delayed_update_argument = "policy_delay"

    def _delayed_update_interval(self) -> int:
        return self.policy_delay

    def _get_pretrain_placeholders(self):
        policy = self.policy_tf
        # The actor outputs actions in [-1, 1]: rescale them to the action space of the expert actions
        policy_out = unscale_action(self.action_space, self.policy_out)
        return policy.obs_ph, self.actions_ph, policy_out

    def setup_model(self):
        with SetVerbosity(self.verbose):
            self._check_policy_class()
            self._check_action_space()
            self.graph = tf.Graph()
            with self.graph.as_default():
                self.set_random_seed(self.seed)
                self.sess = tf_util.make_session(num_cpu=self.n_cpu_tf_sess, graph=self.graph)

                self.replay_buffer = ReplayBuffer(self.buffer_size)

                # the policy, its target copy and the placeholders (scope "input")
                self.policy_tf, self.target_policy_tf = self._setup_policy_and_target_inputs()

                with tf.variable_scope("model", reuse=False):
                    # Create the policy (actor), output in [-1, 1]
                    self.policy_out = policy_out = self.policy_tf.make_actor(self.processed_obs_ph)
                    # Use two Q-functions to improve performance by reducing overestimation bias
                    qf1, qf2 = self.policy_tf.make_critics(self.processed_obs_ph, self.actions_ph)

                with tf.variable_scope("target", reuse=False):
                    # Create target networks
                    target_policy_out = self.target_policy_tf.make_actor(self.processed_next_obs_ph)
                    # Target policy smoothing, by adding clipped noise to target actions
                    target_noise = tf.random_normal(tf.shape(target_policy_out), stddev=self.target_policy_noise)
                    target_noise = tf.clip_by_value(target_noise, -self.target_noise_clip, self.target_noise_clip)
                    # Clip the noisy action to remain in the bounds [-1, 1] (output of a tanh)
                    noisy_target_action = tf.clip_by_value(target_policy_out + target_noise, -1, 1)
                    # Q values when following the target policy
                    qf1_target, qf2_target = self.target_policy_tf.make_critics(self.processed_next_obs_ph,
                                                                                noisy_target_action)

                with tf.variable_scope("loss", reuse=False):
                    # Take the min of the two target Q-Values (clipped Double-Q Learning)
                    min_qf_target = tf.minimum(qf1_target, qf2_target)

                    # Targets for Q value regression
                    q_backup = tf.stop_gradient(
                        self.rewards_ph +
                        (1 - self.terminals_ph) * self.gamma * min_qf_target
                    )

                    # Compute Q-Function loss
                    qf1_loss = tf.reduce_mean((q_backup - qf1) ** 2)
                    qf2_loss = tf.reduce_mean((q_backup - qf2) ** 2)
                    qvalues_losses = qf1_loss + qf2_loss

                    # Q Values optimizer
                    qvalues_optimizer = tf.train.AdamOptimizer(learning_rate=self.learning_rate_ph)
                    qvalues_params = tf_util.get_trainable_vars('model/values_fn/')
                    train_values_op = qvalues_optimizer.minimize(qvalues_losses, var_list=qvalues_params)

                # The delayed actor update runs after the critic update of the same gradient step
                # (as in the paper), and the target networks follow after both: an explicit order
                # instead of the race of a single unordered session run.
                with tf.control_dependencies([train_values_op]):
                    with tf.variable_scope("model", reuse=True):
                        # Q value when following the current policy
                        qf1_pi, _ = self.policy_tf.make_critics(self.processed_obs_ph, policy_out, reuse=True)

                    with tf.variable_scope("loss", reuse=False):
                        # Policy loss: maximise q value
                        self.policy_loss = policy_loss = -tf.reduce_mean(qf1_pi)

                        # Policy train op
                        # will be called only every n training steps,
                        # where n is the policy delay
                        policy_optimizer = tf.train.AdamOptimizer(learning_rate=self.learning_rate_ph)
                        policy_train_op = policy_optimizer.minimize(policy_loss,
                                                                    var_list=tf_util.get_trainable_vars('model/pi'))
                        self.policy_train_op = policy_train_op

                with tf.variable_scope("loss", reuse=False):
                    # Q Values and policy target params
                    source_params, target_params = mirrored_variables("model/", "target/")
                    with tf.control_dependencies([policy_train_op]):
                        self.target_ops = polyak_updates(source_params, target_params, self.tau)
                    target_init_op = hard_updates(source_params, target_params)

                    self.infos_names = ['qf1_loss', 'qf2_loss']
                    # All ops to call during one training step
                    self.step_ops = [qf1_loss, qf2_loss, qf1, qf2, train_values_op]

                    # Monitor losses and entropy in tensorboard
                    tf.summary.scalar('policy_loss', policy_loss)
                    tf.summary.scalar('qf1_loss', qf1_loss)
                    tf.summary.scalar('qf2_loss', qf2_loss)
                    tf.summary.scalar('learning_rate', tf.reduce_mean(self.learning_rate_ph))

                # Retrieve parameters that must be saved
                self.params = tf_util.get_trainable_vars("model")
                self.target_params = tf_util.get_trainable_vars("target/")

                # Acting without a session call: the actor in NumPy (MLP policies), its weights handed over by
                # every actor update; the single-call training steps (built before the session first runs)
                forward = None
                if self.policy_tf.enable_numpy_forward():
                    forward = self.policy_tf._numpy_forward
                feeds = self._minibatch_feeds()
                fused_train = {False: (feeds, [qf1_loss, qf2_loss], [train_values_op])}
                policy_updates = [train_values_op, policy_train_op] + self.target_ops
                policy_fetches = [qf1_loss, qf2_loss]
                if forward is not None:
                    policy_fetches.append(self._flat_after(policy_updates, forward.variables))
                fused_train[True] = (feeds, policy_fetches, policy_updates)

                # Initialize Variables and target network
                with self.sess.as_default():
                    self.sess.run(tf.global_variables_initializer())
                    self.sess.run(target_init_op)

                self.summary = tf.summary.merge_all()
                self._fused_train = {key: self._fast_callable(self.sess, *args) for key, args in fused_train.items()}

    def _train_step(self, step: int, writer, learning_rate: float, update_policy: bool) -> Tuple[float, float]:
        """
        One gradient step on the critics, and on the actor and the target networks when ``update_policy``.

        :param step: (int) the current step (x-axis of the tensorboard summaries)
        :param writer: (TensorFlow Summary.writer) the writer for tensorboard (None: no summary)
        :param learning_rate: (float) the current learning rate
        :param update_policy: (bool) whether to update the actor and the target networks too
        :return: (float, float) the losses of the two Q-functions
        """
        # Sample a batch from the replay buffer
        batch = self.replay_buffer.sample(self.batch_size, env=self._vec_normalize_env)

        if writer is None:
            # one session call: the updates, the losses and (after an actor update) the new actor weights
            infos = self._fused_train_step(batch, learning_rate, update_policy)
            if infos is not None:
                return infos

        if update_policy:
            self.policy_tf.invalidate_numpy_forward()
        step_ops = self.step_ops
        if update_policy:
            # Update policy and target networks
            step_ops = step_ops + [self.policy_train_op, self.target_ops, self.policy_loss]

        # Do one gradient step
        # and optionally compute log for tensorboard
        out = self._run_train_ops(step_ops, batch, learning_rate, writer, step)

        # Unpack to monitor losses
        qf1_loss, qf2_loss, *_values = out

        return qf1_loss, qf2_loss

    def learn(self, total_timesteps, callback=None, log_interval=4, tb_log_name="TD3",
              reset_num_timesteps=True, replay_wrapper=None, progress_bar=False):
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
        :param replay_wrapper: (ReplayBuffer -> ReplayBuffer) a function that wraps the replay buffer
            (e.g. the HER wrapper)
        :param progress_bar: (bool) display a progress bar over the timesteps (needs tqdm)
        :return: (BaseRLModel) the trained model
        """
        return self._run_loop(total_timesteps, callback, log_interval, tb_log_name, reset_num_timesteps,
                              replay_wrapper, progress_bar)

    def action_probability(self, observation, state=None, mask=None, actions=None, logp=False):
        _ = np.array(observation)

        if actions is not None:
            raise ValueError("Error: TD3 does not have action probabilities.")

        # here there are no action probabilities, as TD3 does not use a probability distribution
        warnings.warn("Warning: action probability is meaningless for TD3. Returning None")
        return None

    def predict(self, observation, state=None, mask=None, deterministic=True):
        """
        Get the model's action from an observation

        :param observation: (np.ndarray) the input observation
        :param state: (np.ndarray) The last states (can be None, used in recurrent policies)
        :param mask: (np.ndarray) The last masks (can be None, used in recurrent policies)
        :param deterministic: (bool) Whether or not to return deterministic actions
            (when False, the action noise of the model, if any, is added)
        :return: (np.ndarray, np.ndarray) the model's action and the next state (used in recurrent policies)
        """
        if self.policy_tf is None:
            raise RuntimeError("The model has no network yet: call setup_model() (or construct it with "
                               "_init_setup_model=True) before predict()")
        if deterministic or self.action_noise is None:
            action = self._predict_one_squashed(observation)
            if action is not None:
                return action, None
        observation, vectorized_env = _predict_input(observation, self.observation_space)
        actions = self.policy_tf.step(observation)

        if self.action_noise is not None and not deterministic:
            actions = np.clip(actions + self.action_noise(), -1, 1)

        actions = actions.reshape((-1,) + tuple(self.action_space.shape))  # reshape to the correct action shape
        actions = unscale_action(self.action_space, actions)  # scale the output for the prediction

        if not vectorized_env:
            actions = actions[0]

        return actions, None

    def get_parameter_list(self):
        return (self.params +
                self.target_params)

    def save(self, save_path, cloudpickle=False):
        self._save_to_file(save_path, data=self._settings_to_save(), params=self.get_parameters(),
                           cloudpickle=cloudpickle)
