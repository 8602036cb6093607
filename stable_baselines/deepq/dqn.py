"""Deep Q Network (DQN) and its extensions: Double-DQN, Dueling-DQN, Prioritized Experience Replay, parameter noise."""
from functools import partial
from typing import Any, Callable, Optional, Tuple

import numpy as np
from gymnasium import spaces

from stable_baselines import logger
from stable_baselines.common import tf_util
from stable_baselines.common.model.arguments import check_total_timesteps
from stable_baselines.common.base_class import OffPolicyRLModel, SetVerbosity, TensorboardWriter, _predict_input
from stable_baselines.common.buffers import PrioritizedReplayBuffer, ReplayBuffer
from stable_baselines.common.gym_compat import reset_env, step_env
from stable_baselines.common.schedules import LinearSchedule
from stable_baselines.common.tf_compat import tf
from stable_baselines.common.vec_env import VecEnv
from stable_baselines.deepq.build_graph import build_train
from stable_baselines.deepq.policies import DQNPolicy


def _check_discrete_action_space(action_space: Optional[spaces.Space]) -> None:
    """DQN acts in Discrete action spaces only (the manual's "Can I use?" table)."""
    if action_space is not None and not isinstance(action_space, spaces.Discrete):
        raise ValueError("Error: DQN only supports a Discrete action space, got {} ({}). Use SAC, TD3 or DDPG "
                         "for Box actions.".format(action_space, type(action_space).__name__))


class DQN(OffPolicyRLModel):
    """
    The DQN model class.
    DQN paper: https://arxiv.org/abs/1312.5602
    Dueling DQN: https://arxiv.org/abs/1511.06581
    Double-Q Learning: https://arxiv.org/abs/1509.06461
    Prioritized Experience Replay: https://arxiv.org/abs/1511.05952

    :param policy: (DQNPolicy or str) The policy model to use (MlpPolicy, CnnPolicy, LnMlpPolicy, ...)
    :param env: (Gym environment or str) The environment to learn from (if registered in Gym, can be str)
    :param gamma: (float) discount factor
    :param learning_rate: (float) learning rate for adam optimizer
    :param buffer_size: (int) size of the replay buffer
    :param exploration_fraction: (float) fraction of entire training period over which the exploration rate is
            annealed
    :param exploration_final_eps: (float) final value of random action probability
    :param exploration_initial_eps: (float) initial value of random action probability
    :param train_freq: (int) update the model every `train_freq` steps. set to None to disable printing
    :param batch_size: (int) size of a batched sampled from replay buffer for training
    :param double_q: (bool) Whether to enable Double-Q learning or not.
    :param learning_starts: (int) how many steps of the model to collect transitions for before learning starts
    :param target_network_update_freq: (int) update the target network every `target_network_update_freq` steps.
    :param prioritized_replay: (bool) if True prioritized replay buffer will be used.
    :param prioritized_replay_alpha: (float)alpha parameter for prioritized replay buffer.
        It determines how much prioritization is used, with alpha=0 corresponding to the uniform case.
    :param prioritized_replay_beta0: (float) initial value of beta for prioritized replay buffer
    :param prioritized_replay_beta_iters: (int) number of iterations over which beta will be annealed from initial
            value to 1.0. If set to None equals to max_timesteps.
    :param prioritized_replay_eps: (float) epsilon to add to the TD errors when updating priorities.
    :param param_noise: (bool) Whether or not to apply noise to the parameters of the policy.
    :param verbose: (int) the verbosity level: 0 none, 1 training information, 2 tensorflow debug
    :param tensorboard_log: (str) the log location for tensorboard (if None, no logging)
    :param _init_setup_model: (bool) Whether or not to build the network at the creation of the instance
    :param full_tensorboard_log: (bool) enable additional logging when using tensorboard
        WARNING: this logging can take a lot of space quickly
    :param seed: (int) Seed for the pseudo-random generators (python, numpy, tensorflow).
        If None (default), use random seed. Note that if you want completely deterministic
        results, you must set `n_cpu_tf_sess` to 1.
    :param n_cpu_tf_sess: (int) The number of threads for TensorFlow operations
        If None, the number of cpu of the current machine will be used.
    """

    _saved_settings = ("double_q", "param_noise", "learning_starts", "train_freq", "prioritized_replay",
                       "prioritized_replay_eps", "batch_size", "target_network_update_freq",
                       "prioritized_replay_alpha", "prioritized_replay_beta0",
                       "prioritized_replay_beta_iters", "exploration_final_eps", "exploration_fraction",
                       "exploration_initial_eps", "learning_rate", "gamma", "buffer_size")
    # DQN files of library versions before 2.4 also hold these (unused) settings
    _legacy_settings = ("checkpoint_freq", "checkpoint_path", "print_freq")

    def __init__(self, policy, env, gamma=0.99, learning_rate=5e-4, buffer_size=50000, exploration_fraction=0.1,
                 exploration_final_eps=0.02, exploration_initial_eps=1.0, train_freq=1, batch_size=32, double_q=True,
                 learning_starts=1000, target_network_update_freq=500, prioritized_replay=False,
                 prioritized_replay_alpha=0.6, prioritized_replay_beta0=0.4, prioritized_replay_beta_iters=None,
                 prioritized_replay_eps=1e-6, param_noise=False,
                 n_cpu_tf_sess=None, verbose=0, tensorboard_log=None,
                 _init_setup_model=True, policy_kwargs=None, full_tensorboard_log=False, seed=None):

        # TODO: replay_buffer refactoring
        super(DQN, self).__init__(policy=policy, env=env, replay_buffer=None, verbose=verbose, policy_base=DQNPolicy,
                                  requires_vec_env=False, policy_kwargs=policy_kwargs, seed=seed,
                                  n_cpu_tf_sess=n_cpu_tf_sess)
        _check_discrete_action_space(self.action_space)

        self.param_noise = param_noise
        self.learning_starts = learning_starts
        self.train_freq = train_freq
        self.prioritized_replay = prioritized_replay
        self.prioritized_replay_eps = prioritized_replay_eps
        self.batch_size = batch_size
        self.target_network_update_freq = target_network_update_freq
        self.prioritized_replay_alpha = prioritized_replay_alpha
        self.prioritized_replay_beta0 = prioritized_replay_beta0
        self.prioritized_replay_beta_iters = prioritized_replay_beta_iters
        self.exploration_final_eps = exploration_final_eps
        self.exploration_initial_eps = exploration_initial_eps
        self.exploration_fraction = exploration_fraction
        self.buffer_size = buffer_size
        self.learning_rate = learning_rate
        self.gamma = gamma
        self.tensorboard_log = tensorboard_log
        self.full_tensorboard_log = full_tensorboard_log
        self.double_q = double_q

        self.graph = None
        self.sess = None
        self._train_step = None
        self.step_model = None
        self.update_target = None
        self.act = None
        self.proba_step = None
        self.replay_buffer = None
        self.beta_schedule = None
        self.exploration = None
        self.params = None
        self.summary = None
        self._fused_train = None
        self._eps_var = None

        if _init_setup_model:
            self.setup_model()

    def _get_pretrain_placeholders(self):
        policy = self.step_model
        with self.graph.as_default():
            actions_ph = tf.placeholder(tf.int32, [None], name="pretrain_action_ph")
        return policy.obs_ph, actions_ph, policy.q_values

    def _policy_class(self) -> Any:
        """The policy class (unwrapping a functools.partial, e.g. used to disable dueling)."""
        return self.policy.func if isinstance(self.policy, partial) else self.policy

    def setup_model(self) -> None:
        with SetVerbosity(self.verbose):
            _check_discrete_action_space(self.action_space)
            test_policy = self._policy_class()
            if not (isinstance(test_policy, type) and issubclass(test_policy, DQNPolicy)):
                raise ValueError("Error: the input policy for the DQN model must be a subclass of "
                                 "stable_baselines.deepq.policies.DQNPolicy (DQN has its own policies: MlpPolicy, "
                                 "LnMlpPolicy, CnnPolicy, LnCnnPolicy), got {!r}".format(self.policy))

            self.graph = tf.Graph()
            with self.graph.as_default():
                self.set_random_seed(self.seed)
                self.sess = tf_util.make_session(num_cpu=self.n_cpu_tf_sess, graph=self.graph)

                optimizer = tf.train.AdamOptimizer(learning_rate=self.learning_rate)

                self.act, self._train_step, self.update_target, self.step_model = build_train(
                    q_func=partial(self.policy, **self.policy_kwargs),
                    ob_space=self.observation_space,
                    ac_space=self.action_space,
                    optimizer=optimizer,
                    gamma=self.gamma,
                    grad_norm_clipping=10,
                    param_noise=self.param_noise,
                    sess=self.sess,
                    full_tensorboard_log=self.full_tensorboard_log,
                    double_q=self.double_q
                )
                self.proba_step = self.step_model.proba_step
                self.params = tf_util.get_trainable_vars("deepq")

                # Acting without a session call: the Q-network in NumPy (MLP policies), its weights handed over
                # by every training step (one session call: update, TD errors, updated weights); all built
                # before the session first runs the graph
                train_inputs, td_error, optimize_expr, q_func_vars = self._train_step.parts
                trainable_names = {var.name for var in tf.trainable_variables()}
                q_trainable = [var for var in q_func_vars if var.name in trainable_names]
                forward = None
                if self.step_model.enable_numpy_forward(variables=q_trainable):
                    forward = self.step_model._numpy_forward
                fetches = [td_error]
                if forward is not None:
                    fetches.append(self._flat_after([optimize_expr], forward.variables))
                eps_vars = [var for var in tf.global_variables() if var.name == "deepq/eps:0"]
                self._eps_var = None
                if eps_vars:
                    eps_ph = tf.placeholder(tf.float32, (), name="deepq/eps_value")
                    self._eps_var = (eps_ph, eps_vars[0].assign(eps_ph))

                # Initialize the parameters and copy them to the target network.
                self.summary = tf.summary.merge_all()
                self.sess.run(tf.global_variables_initializer())
                self.update_target(sess=self.sess)
                self._fused_train = self._fast_callable(self.sess, train_inputs, fetches, [optimize_expr])

    def _exploration_schedule(self, total_timesteps: int) -> LinearSchedule:
        """
        The exploration rate: linear from ``exploration_initial_eps`` to ``exploration_final_eps`` over
        ``exploration_fraction * total_timesteps`` steps, then constant.

        :param total_timesteps: (int) the number of steps of the ``learn`` call
        :return: (LinearSchedule)
        """
        return LinearSchedule(schedule_timesteps=max(1, int(self.exploration_fraction * total_timesteps)),
                              initial_p=self.exploration_initial_eps,
                              final_p=self.exploration_final_eps)

    def _prepare_replay_buffer(self) -> None:
        """A new replay buffer for this learn, unless load_replay_buffer gave one (of the same kind)."""
        if not self._take_loaded_replay_buffer():
            self.replay_buffer = PrioritizedReplayBuffer(self.buffer_size, alpha=self.prioritized_replay_alpha) \
                if self.prioritized_replay else ReplayBuffer(self.buffer_size)
        elif self.prioritized_replay != isinstance(self.replay_buffer, PrioritizedReplayBuffer):
            raise ValueError("The loaded replay buffer is a {}, this DQN has prioritized_replay={}"
                             .format(type(self.replay_buffer).__name__, self.prioritized_replay))

    def learn(self, total_timesteps: int, callback: Any = None,  # type: ignore[override]
              log_interval: Optional[int] = 100,
              tb_log_name: str = "DQN", reset_num_timesteps: bool = True, replay_wrapper: Optional[Callable] = None,
              progress_bar: bool = False) -> "DQN":
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
        :param replay_wrapper: (ReplayBuffer -> ReplayBuffer) a wrapper of the replay buffer (e.g. HER's)
        :param progress_bar: (bool) display a progress bar over the timesteps (needs tqdm)
        :return: (BaseRLModel) the trained model
        """
        total_timesteps = check_total_timesteps(total_timesteps)
        new_tb_log = self._init_num_timesteps(reset_num_timesteps)
        callback = self._init_callback(callback, progress_bar=progress_bar, total_timesteps=total_timesteps)

        with SetVerbosity(self.verbose), TensorboardWriter(self.graph, self.tensorboard_log, tb_log_name, new_tb_log) \
                as writer:
            self._setup_learn()

            # Create the replay buffer (or keep the one load_replay_buffer gave)
            self._prepare_replay_buffer()
            if self.prioritized_replay:
                if self.prioritized_replay_beta_iters is None:
                    prioritized_replay_beta_iters = total_timesteps
                else:
                    prioritized_replay_beta_iters = self.prioritized_replay_beta_iters
                self.beta_schedule = LinearSchedule(max(1, int(prioritized_replay_beta_iters)),
                                                    initial_p=self.prioritized_replay_beta0,
                                                    final_p=1.0)
            else:
                self.beta_schedule = None

            if replay_wrapper is not None:
                if self.prioritized_replay:
                    raise ValueError("Prioritized replay buffer is not supported by HER (replay_wrapper given with "
                                     "prioritized_replay=True)")
                self.replay_buffer = replay_wrapper(self.replay_buffer)

            # Create the schedule for exploration starting from 1.
            self.exploration = self._exploration_schedule(total_timesteps)

            episode_rewards = [0.0]
            episode_successes = []

            mean_100ep_reward = None
            callback.on_training_start(locals(), globals())
            callback.on_rollout_start()

            is_vec_env = isinstance(self.env, VecEnv)
            # NumPy acting (epsilon-greedy without parameter noise, MLP Q-network), else the act graph
            numpy_q = self.step_model._numpy_forward if not self.param_noise else None
            rng = self._numpy_forward_rng()
            n_actions = int(self.action_space.n)
            last_eps = None
            reset = True
            obs, _ = reset_env(self.env)
            # Retrieve unnormalized observation for saving into the buffer
            obs_ = obs
            if self._vec_normalize_env is not None:
                obs_ = self._vec_normalize_env.get_original_obs()[0]

            for _ in range(total_timesteps):
                # Take action and update exploration to the newest value
                kwargs = {}
                if not self.param_noise:
                    update_eps = self.exploration.value(self.num_timesteps)
                    update_param_noise_threshold = 0.
                else:
                    update_eps = 0.
                    # Compute the threshold such that the KL divergence between perturbed and non-perturbed
                    # policy is comparable to eps-greedy exploration with eps = exploration.value(t).
                    # See Appendix C.1 in Parameter Space Noise for Exploration, Plappert et al., 2017
                    # for detailed explanation.
                    update_param_noise_threshold = \
                        -np.log(1. - self.exploration.value(self.num_timesteps) +
                                self.exploration.value(self.num_timesteps) / float(self.action_space.n))
                    kwargs['reset'] = reset
                    kwargs['update_param_noise_threshold'] = update_param_noise_threshold
                    kwargs['update_param_noise_scale'] = True
                action = None
                if numpy_q is not None:
                    # epsilon-greedy on the Q-values computed in NumPy (no session call)
                    q_values = numpy_q.q_values(np.array(obs)[None])
                    if q_values is not None:
                        if rng.random() < update_eps:
                            action = np.int64(rng.integers(n_actions))
                        else:
                            action = np.int64(np.argmax(q_values[0]))
                        last_eps = update_eps
                if action is None:
                    with self.sess.as_default():
                        action = self.act(np.array(obs)[None], update_eps=update_eps, **kwargs)[0]
                env_action = action
                reset = False
                new_obs, rew, terminated, truncated, info = step_env(self.env, env_action)
                done = bool(terminated or truncated)

                self.num_timesteps += 1

                # Stop training if return value is False
                callback.update_locals(locals())
                if callback.on_step() is False:
                    break

                # Store the (unnormalized) transition in the replay buffer, and the episode statistics
                obs_, reward_ = self._store_transition(obs_, action, rew, new_obs, done, info, writer)
                obs = new_obs

                episode_rewards[-1] += float(reward_)
                if done:
                    maybe_is_success = info.get('is_success')
                    if maybe_is_success is not None:
                        episode_successes.append(float(maybe_is_success))
                    if not is_vec_env:
                        obs, _ = reset_env(self.env)
                        obs_ = obs
                    episode_rewards.append(0.0)
                    reset = True

                # Do not train if the warmup phase is not over
                # or if there are not enough samples in the replay buffer
                can_sample = self.replay_buffer.can_sample(self.batch_size)
                if can_sample and self.num_timesteps > self.learning_starts \
                        and self.num_timesteps % self.train_freq == 0:

                    callback.on_rollout_end()
                    # Minimize the error in Bellman's equation on a batch sampled from replay buffer.
                    if self.prioritized_replay:
                        experience = self.replay_buffer.sample(self.batch_size,
                                                               beta=self.beta_schedule.value(self.num_timesteps),
                                                               env=self._vec_normalize_env)
                        (obses_t, actions, rewards, obses_tp1, dones, weights, batch_idxes) = experience
                    else:
                        obses_t, actions, rewards, obses_tp1, dones = self.replay_buffer.sample(
                            self.batch_size, env=self._vec_normalize_env)
                        weights, batch_idxes = np.ones_like(rewards), None

                    if writer is not None:
                        # run loss backprop with summary, but once every 100 steps save the metadata
                        # (memory, compute time, ...)
                        if (1 + self.num_timesteps) % 100 == 0:
                            run_options = tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE)
                            run_metadata = tf.RunMetadata()
                            summary, td_errors = self._train_step(obses_t, actions, rewards, obses_tp1, obses_tp1,
                                                                  dones, weights, sess=self.sess, options=run_options,
                                                                  run_metadata=run_metadata)
                            writer.add_run_metadata(run_metadata, 'step%d' % self.num_timesteps)
                        else:
                            summary, td_errors = self._train_step(obses_t, actions, rewards, obses_tp1, obses_tp1,
                                                                  dones, weights, sess=self.sess)
                        writer.add_summary(summary, self.num_timesteps)
                    elif self._fused_train is not None:
                        # one session call: the update, the TD errors and the updated Q-network weights
                        out = self._fused_train(obses_t, actions, rewards, obses_tp1, obses_tp1, dones, weights)
                        td_errors = out[0]
                        if len(out) > 1:
                            forward = self.step_model._numpy_forward
                            forward.set_weights(self._unflatten(out[1], forward))
                    else:
                        train_fn = getattr(self._train_step, "td_errors_only", None)
                        if train_fn is not None:
                            td_errors = train_fn(obses_t, actions, rewards, obses_tp1, obses_tp1, dones, weights,
                                                 sess=self.sess)
                        else:
                            _, td_errors = self._train_step(obses_t, actions, rewards, obses_tp1, obses_tp1, dones,
                                                            weights, sess=self.sess)
                    if writer is not None or self._fused_train is None:
                        self.step_model.invalidate_numpy_forward()

                    if self.prioritized_replay:
                        new_priorities = np.abs(td_errors) + self.prioritized_replay_eps
                        self.replay_buffer.update_priorities(batch_idxes, new_priorities)

                    callback.on_rollout_start()

                if can_sample and self.num_timesteps > self.learning_starts and \
                        self.num_timesteps % self.target_network_update_freq == 0:
                    # Update target network periodically.
                    self.update_target(sess=self.sess)

                # the mean of the last 100 finished episodes (only changes when an episode ends)
                if done or mean_100ep_reward is None:
                    if len(episode_rewards[-101:-1]) == 0:
                        mean_100ep_reward = -np.inf
                    else:
                        mean_100ep_reward = round(float(np.mean(episode_rewards[-101:-1])), 1)

                num_episodes = len(episode_rewards)
                if self.verbose >= 1 and done and log_interval is not None and len(episode_rewards) % log_interval == 0:
                    logger.record_tabular("steps", self.num_timesteps)
                    logger.record_tabular("episodes", num_episodes)
                    if len(episode_successes) > 0:
                        logger.logkv("success rate", np.mean(episode_successes[-100:]))
                    logger.record_tabular("mean 100 episode reward", mean_100ep_reward)
                    logger.record_tabular("% time spent exploring",
                                          int(100 * self.exploration.value(self.num_timesteps)))
                    logger.dump_tabular()

            if last_eps is not None and self._eps_var is not None:
                # the exploration rate the act graph would have stored (saved with the parameters)
                eps_ph, eps_assign = self._eps_var
                self.sess.run(eps_assign, {eps_ph: last_eps})

        callback.on_training_end()
        return self

    def predict(self, observation: np.ndarray, state: Optional[np.ndarray] = None, mask: Optional[np.ndarray] = None,
                deterministic: bool = True) -> Tuple[np.ndarray, None]:
        """
        Get the model's action from an observation

        :param observation: (np.ndarray) the input observation
        :param state: (np.ndarray) The last states (can be None, used in recurrent policies)
        :param mask: (np.ndarray) The last masks (can be None, used in recurrent policies)
        :param deterministic: (bool) Whether or not to return deterministic actions.
        :return: (np.ndarray, np.ndarray) the model's action and the next state (used in recurrent policies)
        """
        if deterministic:
            scores = self._single_row_output(self.step_model, observation)  # one observation: NumPy, single row
            if scores is not None:
                return scores.argmax(), None
        observation, vectorized_env = _predict_input(observation, self.observation_space)
        with self.sess.as_default():
            actions, _, _ = self.step_model.step(observation, deterministic=deterministic)

        if not vectorized_env:
            actions = actions[0]

        return actions, None

    def action_probability(self, observation: np.ndarray, state: Optional[np.ndarray] = None,
                           mask: Optional[np.ndarray] = None, actions: Optional[np.ndarray] = None,
                           logp: bool = False) -> np.ndarray:
        """
        If ``actions`` is ``None``, then get the model's action probability distribution from a given observation
        (for DQN: the softmax of the q-values).

        However if ``actions`` is not ``None``, this function will return the probability that the given actions are
        taken with the given parameters (observation, state, ...) on this model.

        :param observation: (np.ndarray) the input observation
        :param state: (np.ndarray) The last states (can be None, used in recurrent policies)
        :param mask: (np.ndarray) The last masks (can be None, used in recurrent policies)
        :param actions: (np.ndarray) (OPTIONAL) For calculating the likelihood that the given actions are chosen by
            the model for each of the given parameters. Must have the same number of actions and observations.
            (set to None to return the complete action probability distribution)
        :param logp: (bool) (OPTIONAL) When specified with actions, returns probability in log-space.
            This has no effect if actions is None.
        :return: (np.ndarray) the model's (log) action probability
        """
        observation, vectorized_env = _predict_input(observation, self.observation_space)
        actions_proba = self.proba_step(observation, state, mask)

        if actions is not None:  # comparing the action distribution, to given actions
            actions = np.array([actions]).reshape((-1,))
            if observation.shape[0] != actions.shape[0]:
                raise ValueError("Error: batch sizes differ for actions ({}) and observations ({})."
                                 .format(actions.shape[0], observation.shape[0]))
            if not np.issubdtype(actions.dtype, np.integer) or np.any(actions < 0) \
                    or np.any(actions >= self.action_space.n):
                raise ValueError("Error: actions must be ints in [0, {}), got {}".format(self.action_space.n, actions))
            actions_proba = actions_proba[np.arange(actions.shape[0]), actions]
            # normalize action proba shape
            actions_proba = actions_proba.reshape((-1, 1))
            if logp:
                actions_proba = np.log(actions_proba)

        if not vectorized_env:
            if state is not None:
                raise ValueError("Error: The environment must be vectorized when using recurrent policies.")
            actions_proba = actions_proba[0]

        return actions_proba

    def get_parameter_list(self) -> list:
        """
        Get tensorflow Variables of model's parameters

        This includes all variables necessary for continuing training (saving / loading): the trainable
        variables under ``deepq`` in creation order (``deepq/eps``, the Q network, the parameter-noise copies,
        the target network).

        :return: (list) List of tensorflow Variables
        """
        return self.params

    def save(self, save_path: Any, cloudpickle: bool = False) -> None:
        self._save_to_file(save_path, data=self._settings_to_save(), params=self.get_parameters(),
                           cloudpickle=cloudpickle)
