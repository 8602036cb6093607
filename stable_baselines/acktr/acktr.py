"""ACKTR: Actor Critic using Kronecker-Factored Trust Region (A2C with our K-FAC optimizer)."""
import time
import warnings

import numpy as np
from gymnasium import spaces

from stable_baselines import logger
from stable_baselines.acktr.kfac import KfacOptimizer
from stable_baselines.common import tf_util
from stable_baselines.common.base_class import ActorCriticRLModel, SetVerbosity, TensorboardWriter
from stable_baselines.common.math_util import explained_variance
from stable_baselines.common.policies import RecurrentActorCriticPolicy
from stable_baselines.common.returns import discounted_returns, gae_advantages
from stable_baselines.common.rollouts import collect_rollout
from stable_baselines.common.runners import AbstractEnvRunner, swap_and_flatten
from stable_baselines.common.schedules import Scheduler
from stable_baselines.common.summaries import input_info_summaries
from stable_baselines.common.tf_compat import tf
from stable_baselines.common.tf_util import mse, total_episode_reward_logger


class ACKTR(ActorCriticRLModel):
    """
    The ACKTR (Actor Critic using Kronecker-Factored Trust Region) model class, https://arxiv.org/abs/1708.05144

    The K-FAC optimizer is our own implementation (:mod:`stable_baselines.acktr.kfac`): Kronecker factors of the
    dense and conv layers of the policy, estimated with the sampled Fisher loss (log-likelihood of actions
    sampled from the policy plus ``vf_fisher_coef`` times a Gaussian value regression on sampled targets), a
    one-factor Fisher block for the ``logstd`` of a Gaussian policy,
    factored Tikhonov damping 0.01, momentum 0.9, statistics decay 0.95 (the original passed 0.99: on CartPole
    the faster-tracking factors learned clearly better, see docs/modules/acktr.rst), eigen-decompositions
    refreshed every ``kfac_update`` updates, 10 cold-start SGD updates, and the original's trust-region step
    size ``step^T F step <= kfac_clip`` (predicted KL divergence at most ``kfac_clip / 2``), applied to the
    parameters the policy depends on. The parameters that only the value function uses take the plain
    natural-gradient step (the original put them in the same trust region, where the value could move by only
    about 0.016 per update and stayed far below the returns; outside it, ACKTR solves CartPole with the zoo
    settings in every one of 10 seeds, see docs/modules/acktr.rst).

    :param policy: (ActorCriticPolicy or str) The policy model to use (MlpPolicy, CnnPolicy, CnnLstmPolicy, ...)
    :param env: (Gym environment or str) The environment to learn from (if registered in Gym, can be str)
    :param gamma: (float) Discount factor
    :param nprocs: (int) The number of threads for TensorFlow operations

        .. deprecated:: 2.9.0
            Use `n_cpu_tf_sess` instead.

    :param n_steps: (int) The number of steps to run for each environment
    :param ent_coef: (float) The weight for the entropy loss
    :param vf_coef: (float) The weight for the loss on the value function
    :param vf_fisher_coef: (float) The weight for the fisher loss on the value function
    :param learning_rate: (float) The initial learning rate for the RMS prop optimizer
    :param max_grad_norm: (float) The clipping value for the maximum gradient
    :param kfac_clip: (float) gradient clipping for Kullback-Leibler
    :param lr_schedule: (str) The type of scheduler for the learning rate update ('linear', 'constant',
        'double_linear_con', 'middle_drop' or 'double_middle_drop')
    :param verbose: (int) the verbosity level: 0 none, 1 training information, 2 tensorflow debug
    :param tensorboard_log: (str) the log location for tensorboard (if None, no logging)
    :param _init_setup_model: (bool) Whether or not to build the network at the creation of the instance
    :param async_eigen_decomp: (bool) Use async eigen decomposition (accepted for compatibility: our K-FAC
        always decomposes synchronously, inside the train op)
    :param kfac_update: (int) update kfac after kfac_update steps
    :param policy_kwargs: (dict) additional arguments to be passed to the policy on creation
    :param gae_lambda: (float) Factor for trade-off of bias vs variance for Generalized Advantage Estimator
        If None (default), then the classic advantage will be used instead of GAE
    :param full_tensorboard_log: (bool) also write histograms of the inputs and of every parameter to
        tensorboard (the event files grow fast)
    :param seed: (int) seed of Python's, NumPy's and TensorFlow's generators (None: not seeded); runs repeat
        exactly only with ``n_cpu_tf_sess=1``
    :param n_cpu_tf_sess: (int) number of threads TensorFlow may use (None: one per CPU)
    """

    _saved_settings = ("gamma", "gae_lambda", "n_steps", "vf_coef", "ent_coef", "vf_fisher_coef",
                       "max_grad_norm", "learning_rate", "kfac_clip", "lr_schedule", "kfac_update",
                       "async_eigen_decomp")
    # ACKTR files of library versions before 2.8 hold the unused setting "lam"
    _legacy_settings = ("lam",)

    def __init__(self, policy, env, gamma=0.99, nprocs=None, n_steps=20, ent_coef=0.01, vf_coef=0.25,
                 vf_fisher_coef=1.0, learning_rate=0.25, max_grad_norm=0.5, kfac_clip=0.001, lr_schedule='linear',
                 verbose=0, tensorboard_log=None, _init_setup_model=True, async_eigen_decomp=False, kfac_update=1,
                 gae_lambda=None, policy_kwargs=None, full_tensorboard_log=False, seed=None, n_cpu_tf_sess=1):

        if nprocs is not None:
            warnings.warn("nprocs will be removed in a future version (v3.x.x) use n_cpu_tf_sess instead",
                          DeprecationWarning)
            n_cpu_tf_sess = nprocs

        self.n_steps = n_steps
        self.gamma = gamma
        self.ent_coef = ent_coef
        self.vf_coef = vf_coef
        self.vf_fisher_coef = vf_fisher_coef
        self.kfac_clip = kfac_clip
        self.max_grad_norm = max_grad_norm
        self.learning_rate = learning_rate
        self.lr_schedule = lr_schedule
        self.tensorboard_log = tensorboard_log
        self.async_eigen_decomp = async_eigen_decomp
        self.full_tensorboard_log = full_tensorboard_log
        self.kfac_update = kfac_update
        self.gae_lambda = gae_lambda

        self.actions_ph = None
        self.advs_ph = None
        self.rewards_ph = None
        self.learning_rate_ph = None
        self.step_model = None
        self.train_model = None
        self.entropy = None
        self.pg_loss = None
        self.vf_loss = None
        self.pg_fisher = None
        self.vf_fisher = None
        self.joint_fisher = None
        self.grads_check = None
        self.optim = None
        self.train_op = None
        self.q_runner = None
        self.learning_rate_schedule = None
        self.proba_step = None
        self.value = None
        self.initial_state = None
        self.n_batch = None
        self.summary = None

        super(ACKTR, self).__init__(policy=policy, env=env, verbose=verbose, requires_vec_env=True,
                                    _init_setup_model=_init_setup_model, policy_kwargs=policy_kwargs,
                                    seed=seed, n_cpu_tf_sess=n_cpu_tf_sess)

        if _init_setup_model:
            self.setup_model()

    def _make_runner(self) -> AbstractEnvRunner:
        gae_lambda = self.gae_lambda
        return ACKTRRunner(self.env, self, n_steps=self.n_steps, gamma=self.gamma, lam=gae_lambda)

    def _get_pretrain_placeholders(self):
        policy = self.train_model
        if isinstance(self.action_space, spaces.Discrete):
            return policy.obs_ph, self.actions_ph, policy.policy
        return policy.obs_ph, self.actions_ph, policy.deterministic_action

    def _check_spaces(self) -> None:
        if not isinstance(self.action_space, (spaces.Discrete, spaces.Box)):
            raise ValueError("ACKTR supports Discrete and Box action spaces, got {!r}: MultiDiscrete and MultiBinary "
                             "actions are not supported by ACKTR".format(self.action_space))
        if not isinstance(self.observation_space, (spaces.Box, spaces.Discrete, spaces.MultiDiscrete,
                                                   spaces.MultiBinary)):
            raise ValueError("ACKTR supports Box, Discrete, MultiDiscrete and MultiBinary observation spaces, "
                             "got {!r}".format(self.observation_space))

    def setup_model(self):
        with SetVerbosity(self.verbose):
            self._check_policy_class()
            self._check_spaces()
            # files of older versions: 'nprocs' may be stored instead of n_cpu_tf_sess
            if getattr(self, "n_cpu_tf_sess", None) is None and getattr(self, "nprocs", None) is not None:
                self.n_cpu_tf_sess = self.nprocs
            self.n_batch = self.n_envs * self.n_steps
            self._new_graph_and_session()

            with self.graph.as_default():
                n_batch_step = None
                n_batch_train = None
                if issubclass(self.policy, RecurrentActorCriticPolicy):
                    n_batch_step = self.n_envs
                    n_batch_train = self.n_envs * self.n_steps

                step_model = self.policy(self.sess, self.observation_space, self.action_space, self.n_envs,
                                         1, n_batch_step, reuse=False, **self.policy_kwargs)

                self.params = params = tf_util.get_trainable_vars("model")

                with tf.variable_scope("train_model", reuse=True,
                                       custom_getter=tf_util.outer_scope_getter("train_model")):
                    train_model = self.policy(self.sess, self.observation_space, self.action_space,
                                              self.n_envs, self.n_steps, n_batch_train,
                                              reuse=True, **self.policy_kwargs)

                with tf.variable_scope("loss", reuse=False, custom_getter=tf_util.outer_scope_getter("loss")):
                    self.advs_ph = advs_ph = tf.placeholder(tf.float32, [None], name="advs_ph")
                    self.rewards_ph = rewards_ph = tf.placeholder(tf.float32, [None], name="rewards_ph")
                    self.learning_rate_ph = learning_rate_ph = tf.placeholder(tf.float32, [],
                                                                              name="learning_rate_ph")
                    self.actions_ph = train_model.pdtype.sample_placeholder([None], name="action_ph")

                    neg_log_prob = train_model.proba_distribution.neglogp(self.actions_ph)

                    # training loss
                    pg_loss = tf.reduce_mean(advs_ph * neg_log_prob)
                    self.entropy = entropy = tf.reduce_mean(train_model.proba_distribution.entropy())
                    self.pg_loss = pg_loss = pg_loss - self.ent_coef * entropy
                    self.vf_loss = vf_loss = mse(tf.squeeze(train_model.value_fn, axis=1), rewards_ph)
                    train_loss = pg_loss + self.vf_coef * vf_loss

                    # Fisher loss: log-likelihood of actions sampled from the current policy, and of value
                    # targets sampled from a unit-variance Gaussian around the current value
                    sampled_actions = tf.stop_gradient(train_model.proba_distribution.sample())
                    self.pg_fisher = pg_fisher_loss = \
                        -tf.reduce_mean(train_model.proba_distribution.neglogp(sampled_actions))
                    sample_net = train_model.value_fn + tf.random_normal(tf.shape(train_model.value_fn))
                    self.vf_fisher = vf_fisher_loss = - self.vf_fisher_coef * tf.reduce_mean(
                        tf.pow(train_model.value_fn - tf.stop_gradient(sample_net), 2))
                    self.joint_fisher = pg_fisher_loss + vf_fisher_loss

                    tf.summary.scalar('entropy_loss', self.entropy)
                    tf.summary.scalar('policy_gradient_loss', pg_loss)
                    tf.summary.scalar('policy_gradient_fisher_loss', pg_fisher_loss)
                    tf.summary.scalar('value_function_loss', self.vf_loss)
                    tf.summary.scalar('value_function_fisher_loss', vf_fisher_loss)
                    tf.summary.scalar('loss', train_loss)

                    self.grads_check = tf.gradients(train_loss, params)

                input_info_summaries([('discounted_rewards', self.rewards_ph), ('learning_rate', self.learning_rate_ph),
                                      ('advantage', self.advs_ph)],
                                     train_model.obs_ph, self.observation_space, self.full_tensorboard_log)

                # the trust region bounds the change of the policy: the parameters that only the value function
                # uses (the action distribution does not depend on them) take the plain natural-gradient step.
                # Without a value Fisher (vf_fisher_coef <= 0) their curvature would be the damping alone: they
                # then stay in the trust region, as in the original.
                policy_grads = tf.gradients(pg_fisher_loss, params)
                value_only = [param for param, policy_grad, grad in zip(params, policy_grads, self.grads_check)
                              if policy_grad is None and grad is not None] if self.vf_fisher_coef > 0 else []
                self.optim = optim = KfacOptimizer(
                    learning_rate=learning_rate_ph, clip_kl=self.kfac_clip, momentum=0.9,
                    kfac_update=self.kfac_update, epsilon=0.01, stats_decay=0.95,
                    async_eigen_decomp=self.async_eigen_decomp, cold_iter=10, cold_lr=0.01,
                    max_grad_norm=self.max_grad_norm, verbose=self.verbose, name="kfac",
                    unclipped_vars=value_only)
                optim.compute_and_apply_stats(self.joint_fisher, var_list=params, extra_loss_tensors=[train_loss])
                self.train_op, self.q_runner = optim.apply_gradients(list(zip(self.grads_check, params)))

                self.train_model = train_model
                self.step_model = step_model
                self.step = step_model.step
                self.proba_step = step_model.proba_step
                self.value = step_model.value
                self.initial_state = step_model.initial_state
                tf.global_variables_initializer().run(session=self.sess)
                # predict computes in NumPy when it can (refreshed after every update)
                self._enable_numpy_forward(step_model)

                self.summary = tf.summary.merge_all()

    def _train_step(self, obs, states, rewards, masks, actions, values, update, writer):
        """
        One K-FAC update on a rollout.

        :param obs: ([float]) The input observations
        :param states: ([float]) The states (used for recurrent policies)
        :param rewards: ([float]) The rewards (discounted returns) from the environment
        :param masks: ([bool]) Whether or not the episode is over (used for recurrent policies)
        :param actions: ([float]) The actions taken
        :param values: ([float]) The logits values
        :param update: (int) the current step iteration
        :param writer: (TensorFlow Summary.writer) the writer for tensorboard
        :return: (float, float, float) policy loss, value loss, policy entropy
        """
        advs = rewards - values
        cur_lr = None
        for _ in range(len(obs)):
            cur_lr = self.learning_rate_schedule.value()
        assert cur_lr is not None, "Error: the observation input array cannot be empty"

        td_map = {self.train_model.obs_ph: obs, self.actions_ph: actions, self.advs_ph: advs,
                  self.rewards_ph: rewards, self.learning_rate_ph: cur_lr}

        if states is not None:
            td_map[self.train_model.states_ph] = states
            td_map[self.train_model.dones_ph] = masks

        fetches = [self.pg_loss, self.vf_loss, self.entropy, self.train_op]
        if writer is not None:
            # with full_tensorboard_log, every 10th update also records TensorFlow's run metadata
            if self.full_tensorboard_log and (1 + update) % 10 == 0:
                run_options = tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE)
                run_metadata = tf.RunMetadata()
                summary, policy_loss, value_loss, policy_entropy, _ = self.sess.run(
                    [self.summary] + fetches, td_map, options=run_options, run_metadata=run_metadata)
                writer.add_run_metadata(run_metadata, 'step%d' % (update * (self.n_batch + 1)))
            else:
                summary, policy_loss, value_loss, policy_entropy, _ = self.sess.run([self.summary] + fetches, td_map)
            writer.add_summary(summary, update * (self.n_batch + 1))
        else:
            policy_loss, value_loss, policy_entropy, _ = self.sess.run(fetches, td_map)
        self.step_model.invalidate_numpy_forward()

        return policy_loss, value_loss, policy_entropy

    def learn(self, total_timesteps, callback=None, log_interval=100, tb_log_name="ACKTR",
              reset_num_timesteps=True, progress_bar=False):

        new_tb_log = self._init_num_timesteps(reset_num_timesteps)
        callback = self._init_callback(callback, progress_bar=progress_bar, total_timesteps=total_timesteps)

        with SetVerbosity(self.verbose), TensorboardWriter(self.graph, self.tensorboard_log, tb_log_name, new_tb_log) \
                as writer:
            self._setup_learn()
            self.n_batch = self.n_envs * self.n_steps

            self.learning_rate_schedule = Scheduler(initial_value=self.learning_rate, n_values=total_timesteps,
                                                    schedule=self.lr_schedule)

            t_start = time.time()
            callback.on_training_start(locals(), globals())

            for update in range(1, total_timesteps // self.n_batch + 1):

                callback.on_rollout_start()
                # pytype:disable=bad-unpacking
                # returns: discounted n-step returns; true_reward: the rewards as the env gave them
                rollout = self.runner.run(callback)
                obs, states, returns, masks, actions, values, ep_infos, true_reward = rollout
                # pytype:enable=bad-unpacking
                callback.on_rollout_end()

                # a callback returned False
                if not self.runner.continue_training:
                    break

                self.ep_info_buf.extend(ep_infos)
                policy_loss, value_loss, policy_entropy = self._train_step(obs, states, returns, masks, actions,
                                                                           values, self.num_timesteps // (self.n_batch + 1),
                                                                           writer)
                n_seconds = time.time() - t_start
                fps = int((update * self.n_batch) / n_seconds)

                if writer is not None:
                    total_episode_reward_logger(self.episode_reward,
                                                true_reward.reshape((self.n_envs, self.n_steps)),
                                                masks.reshape((self.n_envs, self.n_steps)),
                                                writer, self.num_timesteps)

                if self.verbose >= 1 and (update % log_interval == 0 or update == 1):
                    explained_var = explained_variance(values, returns)
                    logger.record_tabular("nupdates", update)
                    logger.record_tabular("total_timesteps", self.num_timesteps)
                    logger.record_tabular("fps", fps)
                    logger.record_tabular("policy_entropy", float(policy_entropy))
                    logger.record_tabular("policy_loss", float(policy_loss))
                    logger.record_tabular("value_loss", float(value_loss))
                    logger.record_tabular("explained_variance", float(explained_var))
                    self._log_episode_stats()
                    logger.dump_tabular()

        callback.on_training_end()
        return self

    def save(self, save_path, cloudpickle=False):
        self._save_to_file(save_path, data=self._settings_to_save(), params=self.get_parameters(),
                           cloudpickle=cloudpickle)


class ACKTRRunner(AbstractEnvRunner):
    def __init__(self, env, model, n_steps=20, gamma=0.99, lam=None):
        """
        Collects experience for ACKTR: n-step discounted returns (as A2C) when ``lam`` is None,
        otherwise lambda-returns of the Generalized Advantage Estimator.

        :param env: (VecEnv) The environment to learn from
        :param model: (ACKTR) The model to learn
        :param n_steps: (int) The number of steps to run for each environment
        :param gamma: (float) Discount factor
        :param lam: (float or None) GAE lambda; None: classic n-step advantage
        """
        super(ACKTRRunner, self).__init__(env=env, model=model, n_steps=n_steps)
        self.gamma = gamma
        self.lam = lam

    def _run(self):
        """
        Run a rollout of ``n_steps`` in every environment.

        :return: (np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, [dict], np.ndarray)
            observations, initial states, returns, masks, actions, values, episode infos, true rewards,
            flattened as [n_envs * n_steps, ...] in env-major order
        """
        rollout = collect_rollout(self)
        if rollout is None:
            return [None] * 8
        rewards = np.asarray(rollout["mb_rewards"], dtype=np.float32)
        values = np.asarray(rollout["mb_values"], dtype=np.float32)
        masks = np.asarray(rollout["mb_dones"], dtype=bool)
        last_dones = np.asarray(self.dones, dtype=bool)
        last_values = np.asarray(self.model.value(self.obs, self.states, self.dones), dtype=np.float32)
        if self.lam is None:
            # episode ends of every step: the start flags shifted by one
            ends = np.concatenate([masks[1:], last_dones[None]], axis=0)
            returns = discounted_returns(rewards, ends, last_values, self.gamma)
        else:
            advantages = gae_advantages(rewards, values, masks, last_values, last_dones, self.gamma, self.lam)
            returns = (advantages + values).astype(np.float32)

        arrays = (np.asarray(rollout["mb_obs"], dtype=self.obs.dtype), returns, masks,
                  np.asarray(rollout["mb_actions"]), values, rewards)
        observations, returns, masks, actions, values, rewards = [swap_and_flatten(arr) for arr in arrays]
        return observations, rollout["mb_states"], returns, masks, actions, values, rollout["ep_infos"], rewards
