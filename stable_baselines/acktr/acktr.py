"""ACKTR: Actor Critic using Kronecker-Factored Trust Region (A2C with our K-FAC optimizer)."""
import warnings
from typing import Any, Dict, List, Optional, Tuple, Type, Union

import numpy as np
from gymnasium import spaces

from stable_baselines.acktr.kfac import KfacOptimizer
from stable_baselines.common import tf_util
from stable_baselines.common.base_class import SetVerbosity
from stable_baselines.common.math_util import explained_variance
from stable_baselines.common.model.arguments import check_gamma, check_learning_rate, check_positive_int
from stable_baselines.common.model.on_policy import MODEL_SETTINGS_DOC, OnPolicyRLModel, UpdateClock
from stable_baselines.common.policies import ActorCriticPolicy
from stable_baselines.common.model.rollouts import (AbstractEnvRunner, ReturnsBatch, collect_rollout, discounted_returns,
                                                     gae_advantages, stopped_batch, swap_and_flatten)
from stable_baselines.common.tf_compat import tf
from stable_baselines.common.tf_util import float_input, mse


class ACKTR(OnPolicyRLModel):
    __doc__ = """
    ACKTR, Actor Critic using Kronecker-Factored Trust Region (Wu et al. 2017, https://arxiv.org/abs/1708.05144):
    A2C's rollouts and losses, optimised by natural-gradient steps whose curvature is approximated per layer by
    Kronecker factors (K-FAC) and whose size is bounded by a trust region.

    The optimizer is ours (:mod:`stable_baselines.acktr.kfac`). Its Fisher blocks are estimated from a sampled
    loss: the log-likelihood of actions drawn from the policy, plus ``vf_fisher_coef`` times a Gaussian regression
    of the value on targets drawn around it. Settings: factored Tikhonov damping 0.01, momentum 0.9, statistics
    decay 0.95 (the original: 0.99), eigen-decompositions every ``kfac_update`` updates, 10 plain SGD updates while
    the factors warm up. The trust region (``step^T F step <= kfac_clip``, a predicted KL divergence of at most
    ``kfac_clip / 2``) applies to the parameters the policy depends on; those only the value function uses take
    the plain natural-gradient step. Why these choices: docs/misc/performance.rst and docs/modules/acktr.rst.

    :param policy: (ActorCriticPolicy or str) policy class, or the registered name of one (MlpPolicy, CnnPolicy,
        CnnLstmPolicy, ...)
    :param env: (Gym environment or str) environment to train on, or a registered environment id
    :param gamma: (float) discount factor
    :param nprocs: (int) former name of ``n_cpu_tf_sess``

        .. deprecated:: 2.9.0
            Use `n_cpu_tf_sess` instead.

    :param n_steps: (int) steps taken in every environment between two updates
    :param ent_coef: (float) weight of the entropy bonus in the loss
    :param vf_coef: (float) weight of the value regression in the loss
    :param vf_fisher_coef: (float) weight of the value's sampled loss in the Fisher estimate
    :param learning_rate: (float) initial step size
    :param max_grad_norm: (float) global-norm bound of the gradients of the warm-up SGD updates
    :param kfac_clip: (float) trust-region radius of the policy's natural-gradient step
    :param lr_schedule: (str) how the step size evolves: 'linear', 'constant', 'double_linear_con',
        'middle_drop' or 'double_middle_drop'
    :param async_eigen_decomp: (bool) kept for compatibility; our K-FAC always decomposes inside the train op
    :param kfac_update: (int) number of updates between two eigen-decompositions of the factors
    :param gae_lambda: (float) lambda of the Generalized Advantage Estimator; None (default): the n-step
        discounted returns of A2C
""" + MODEL_SETTINGS_DOC

    algorithm_name = "ACKTR"
    _supports_action_masks = True
    _saved_settings = ("gamma", "gae_lambda", "n_steps", "vf_coef", "ent_coef", "vf_fisher_coef",
                       "max_grad_norm", "learning_rate", "kfac_clip", "lr_schedule", "kfac_update",
                       "async_eigen_decomp")
    # files of library versions before 2.8 hold the unused setting "lam"
    _legacy_settings = ("lam",)

    def __init__(self, policy: Union[Type[ActorCriticPolicy], str], env: Any, gamma: float = 0.99,
                 nprocs: Optional[int] = None, n_steps: int = 20, ent_coef: float = 0.01, vf_coef: float = 0.25,
                 vf_fisher_coef: float = 1.0, learning_rate: float = 0.25, max_grad_norm: Optional[float] = 0.5,
                 kfac_clip: float = 0.001, lr_schedule: str = 'linear', verbose: int = 0,
                 tensorboard_log: Optional[str] = None, _init_setup_model: bool = True,
                 async_eigen_decomp: bool = False, kfac_update: int = 1, gae_lambda: Optional[float] = None,
                 policy_kwargs: Optional[Dict[str, Any]] = None, full_tensorboard_log: bool = False,
                 seed: Optional[int] = None, n_cpu_tf_sess: Optional[int] = 1) -> None:
        if nprocs is not None:
            warnings.warn("nprocs will be removed in a future version (v3.x.x) use n_cpu_tf_sess instead",
                          DeprecationWarning)
            n_cpu_tf_sess = nprocs
        check_positive_int("n_steps", n_steps)
        check_positive_int("kfac_update", kfac_update)
        check_gamma(gamma)
        check_learning_rate(learning_rate, schedule_allowed=False)
        # hyperparameters (these are also what `save` writes)
        self.gamma, self.gae_lambda, self.n_steps = gamma, gae_lambda, n_steps
        self.ent_coef, self.vf_coef, self.vf_fisher_coef = ent_coef, vf_coef, vf_fisher_coef
        self.learning_rate, self.lr_schedule = learning_rate, lr_schedule
        self.max_grad_norm, self.kfac_clip, self.kfac_update = max_grad_norm, kfac_clip, kfac_update
        self.async_eigen_decomp = async_eigen_decomp
        self.tensorboard_log, self.full_tensorboard_log = tensorboard_log, full_tensorboard_log
        # files of old versions may name the number of threads "nprocs"
        self.nprocs = nprocs

        # graph handles, filled in by setup_model()
        for attribute in ("actions_ph", "advs_ph", "rewards_ph", "learning_rate_ph", "step_model", "train_model",
                          "entropy", "pg_loss", "vf_loss", "pg_fisher", "vf_fisher", "joint_fisher", "grads_check",
                          "optim", "train_op", "q_runner", "learning_rate_schedule", "proba_step", "value",
                          "initial_state", "n_batch", "summary"):
            setattr(self, attribute, None)

        super().__init__(policy, env, verbose, _init_setup_model, policy_kwargs, seed, n_cpu_tf_sess)
        if _init_setup_model:
            self.setup_model()

    def _make_runner(self) -> AbstractEnvRunner:
        return ACKTRRunner(self.env, self, n_steps=self.n_steps, gamma=self.gamma, lam=self.gae_lambda)

    def _check_spaces(self) -> None:
        """Raise a clear error for the action and observation spaces ACKTR cannot handle."""
        if not isinstance(self.action_space, (spaces.Discrete, spaces.Box)):
            raise ValueError("ACKTR supports Discrete and Box action spaces, got {!r}: MultiDiscrete and MultiBinary "
                             "actions are not supported by ACKTR".format(self.action_space))
        if not isinstance(self.observation_space, (spaces.Box, spaces.Discrete, spaces.MultiDiscrete,
                                                   spaces.MultiBinary, spaces.Dict, spaces.Tuple)):
            raise ValueError("ACKTR supports Box, Discrete, MultiDiscrete and MultiBinary observation spaces (Dict and "
                             "Tuple with MultiInputPolicy), got {!r}".format(self.observation_space))

    # ------------------------------------------------------------------ graph construction

    def _build_losses(self, net: ActorCriticPolicy) -> Any:
        """
        Create the inputs of an update, the training loss (policy gradient with entropy bonus, value
        regression) and the sampled loss the Fisher blocks are estimated from. Called inside the "loss" scope.

        :param net: (ActorCriticPolicy) the training network
        :return: (TensorFlow Tensor) the training loss
        """
        self.advs_ph = float_input("advs_ph")
        self.rewards_ph = float_input("rewards_ph")
        self.learning_rate_ph = float_input("learning_rate_ph", batched=False)
        self.actions_ph = net.pdtype.sample_placeholder([None], name="action_ph")
        distribution = net.proba_distribution

        action_nll = distribution.neglogp(self.actions_ph)
        advantage_weighted = tf.reduce_mean(self.advs_ph * action_nll)
        self.entropy = tf.reduce_mean(distribution.entropy())
        self.pg_loss = advantage_weighted - self.ent_coef * self.entropy
        self.vf_loss = mse(tf.squeeze(net.value_fn, axis=1), self.rewards_ph)
        train_loss = self.pg_loss + self.vf_coef * self.vf_loss

        # the model's own predictive distributions, with targets drawn from them: actions sampled from the
        # policy, values drawn from a unit-variance Gaussian around the prediction
        drawn_actions = tf.stop_gradient(distribution.sample())
        self.pg_fisher = -tf.reduce_mean(distribution.neglogp(drawn_actions))
        drawn_values = net.value_fn + tf.random_normal(tf.shape(net.value_fn))
        value_error = net.value_fn - tf.stop_gradient(drawn_values)
        self.vf_fisher = -self.vf_fisher_coef * tf.reduce_mean(tf.pow(value_error, 2))
        self.joint_fisher = self.pg_fisher + self.vf_fisher

        for tag, tensor in (('entropy_loss', self.entropy), ('policy_gradient_loss', self.pg_loss),
                            ('policy_gradient_fisher_loss', self.pg_fisher), ('value_function_loss', self.vf_loss),
                            ('value_function_fisher_loss', self.vf_fisher), ('loss', train_loss)):
            tf.summary.scalar(tag, tensor)
        self.grads_check = tf.gradients(train_loss, self.params)
        return train_loss

    def _value_only_params(self, params: List[Any]) -> List[Any]:
        """
        The parameters the action distribution does not depend on (those only the value function uses): they
        take the plain natural-gradient step, outside the trust region. Without a value Fisher
        (``vf_fisher_coef <= 0``) their curvature would be the damping alone: they then stay inside it, as in
        the original.

        :param params: ([TensorFlow Variable]) the trainable parameters of the model
        :return: ([TensorFlow Variable])
        """
        policy_grads = tf.gradients(self.pg_fisher, params)
        if self.vf_fisher_coef <= 0:
            return []
        return [param for param, policy_grad, grad in zip(params, policy_grads, self.grads_check)
                if policy_grad is None and grad is not None]

    def setup_model(self) -> None:
        with SetVerbosity(self.verbose):
            self._check_policy_class()
            self._check_spaces()
            if self.n_cpu_tf_sess is None and self.nprocs is not None:
                self.n_cpu_tf_sess = self.nprocs
            self.n_batch = self._graph_inputs()[2] * self.n_steps
            self._new_graph_and_session()

            with self.graph.as_default():
                step_model, train_model = self._build_policies()
                self.params = params = tf_util.get_trainable_vars("model")
                with tf.variable_scope("loss", reuse=False, custom_getter=tf_util.outer_scope_getter("loss")):
                    train_loss = self._build_losses(train_model)

                self._summarise_returns_inputs(train_model)

                self.optim = KfacOptimizer(
                    learning_rate=self.learning_rate_ph, clip_kl=self.kfac_clip, momentum=0.9,
                    kfac_update=self.kfac_update, epsilon=0.01, stats_decay=0.95,
                    async_eigen_decomp=self.async_eigen_decomp, cold_iter=10, cold_lr=0.01,
                    max_grad_norm=self.max_grad_norm, verbose=self.verbose, name="kfac",
                    unclipped_vars=self._value_only_params(params))
                self.optim.compute_and_apply_stats(self.joint_fisher, var_list=params,
                                                   extra_loss_tensors=[train_loss])
                self.train_op, self.q_runner = self.optim.apply_gradients(list(zip(self.grads_check, params)))

                self.train_model, self.step_model = train_model, step_model
                self._act_and_initialise(step_model)

    # ------------------------------------------------------------------ training

    def _train_step(self, obs: np.ndarray, states: Optional[np.ndarray], rewards: np.ndarray, masks: np.ndarray,
                    actions: np.ndarray, values: np.ndarray, update: int,
                    writer: Any, action_masks: Optional[np.ndarray] = None) -> Tuple[float, float, float]:
        """
        Make one K-FAC update from a rollout. The arguments are those of :meth:`_update_feed`, but ``update`` (the
        index of the update, the base of the tensorboard step) and ``writer`` (the tensorboard writer, or None).

        :return: (float, float, float) policy loss, value loss and policy entropy
        """
        feed_dict = self._update_feed(obs, states, rewards, masks, actions, values, self._advance_learning_rate(len(obs)),
                                      action_masks)

        fetches = [self.pg_loss, self.vf_loss, self.entropy, self.train_op]
        if writer is None:
            policy_loss, value_loss, policy_entropy, _ = tf_util.session_run(self.sess, fetches, feed_dict)
        else:
            policy_loss, value_loss, policy_entropy = self._train_step_logged(feed_dict, fetches, update,
                                                                              update * (self.n_batch + 1), writer)
        return policy_loss, value_loss, policy_entropy

    def _start_training(self, total_timesteps: int, started: float) -> Dict[str, Any]:
        self.n_batch = self._known_n_envs() * self.n_steps
        self._start_rate_schedule(total_timesteps)
        return {"t_start": started}

    def _train_on_rollout(self, rollout: ReturnsBatch, update: int, writer: Any,
                          loop: Dict[str, Any]) -> Tuple[np.ndarray, np.ndarray, Tuple[float, float, float]]:
        # the tensorboard step of the original: timesteps // (n_batch + 1)
        losses = self._train_step(rollout.observations, rollout.states, rollout.returns, rollout.masks,
                                  rollout.actions, rollout.values, self.num_timesteps // (self.n_batch + 1), writer,
                                  action_masks=self.runner.rollout_action_masks)
        return rollout.values, rollout.returns, losses

    def _record_update(self, update: int, stats: Any, loop: Dict[str, Any], clock: UpdateClock) -> None:
        values, returns, (policy_loss, value_loss, policy_entropy) = stats
        self._record_rows(update, clock.fps(update * self.n_batch), [
            ("policy_entropy", float(policy_entropy)), ("policy_loss", float(policy_loss)),
            ("value_loss", float(value_loss)), ("explained_variance", float(explained_variance(values, returns)))])

    def learn(self, total_timesteps: int, callback: Any = None, log_interval: int = 100, tb_log_name: str = "ACKTR",
              reset_num_timesteps: bool = True, progress_bar: bool = False) -> "ACKTR":
        return self._learn_on_policy(total_timesteps, callback, log_interval, tb_log_name, reset_num_timesteps,
                                     progress_bar)


class ACKTRRunner(AbstractEnvRunner):
    def __init__(self, env: Any, model: ACKTR, n_steps: int = 20, gamma: float = 0.99,
                 lam: Optional[float] = None) -> None:
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

    def _run(self) -> ReturnsBatch:
        """
        Run a rollout of ``n_steps`` in every environment.

        :return: (ReturnsBatch) observations, initial states, returns, masks, actions, values, episode infos, true
            rewards, flattened as [n_envs * n_steps, ...] in env-major order (every field None when the callback
            stopped the rollout)
        """
        rollout = collect_rollout(self)
        if rollout is None:
            return stopped_batch(ReturnsBatch)
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
        return ReturnsBatch(observations, rollout["mb_states"], returns, masks, actions, values, rollout["ep_infos"],
                            rewards)
