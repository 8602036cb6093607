"""PPO2: proximal policy optimization with the clipped surrogate objective, GAE and minibatch epochs."""
from typing import Any, Callable, Dict, Iterator, List, NamedTuple, Optional, Tuple, Type, Union

import numpy as np

from stable_baselines import logger
from stable_baselines.common import tf_util
from stable_baselines.common.base_class import SetVerbosity
from stable_baselines.common.model.data_parallel import averaged_gradients, data_parallel_for
from stable_baselines.common.math_util import explained_variance
from stable_baselines.common.model.arguments import (check_gamma, check_learning_rate, check_minibatches,
                                                      check_positive_int)
from stable_baselines.common.model.pretraining import pretrain_placeholders
from stable_baselines.common.model.on_policy import MODEL_SETTINGS_DOC, OnPolicyRLModel, UpdateClock
from stable_baselines.common.policies import ActorCriticPolicy, RecurrentActorCriticPolicy
from stable_baselines.common.model.rollouts import (AbstractEnvRunner, collect_rollout, gae_advantages, stopped_batch,
                                                     swap_and_flatten)
from stable_baselines.common.schedules import get_schedule_fn
from stable_baselines.common.tf_compat import tf
from stable_baselines.common.tf_util import float_input
from stable_baselines.ppo2.fused_update import FusedUpdate, normalised_advantages, run_indices


class PPO2(OnPolicyRLModel):
    __doc__ = """
    Proximal Policy Optimization (Schulman et al. 2017, https://arxiv.org/abs/1707.06347), in the
    single-process ("GPU") form: rollouts of ``n_steps`` from every environment copy, advantages by GAE, then
    ``noptepochs`` passes of Adam over ``nminibatches`` minibatches of the clipped surrogate loss.

    :param policy: (ActorCriticPolicy or str) policy class, or the registered name of one
        (MlpPolicy, CnnPolicy, MlpLstmPolicy, CnnLstmPolicy, ...)
    :param env: (Gym environment or str) environment to train on, or a registered environment id
    :param gamma: (float) discount factor
    :param n_steps: (int) steps taken in every environment copy per rollout; a rollout therefore holds
        n_steps * n_envs transitions
    :param ent_coef: (float) weight of the entropy bonus in the loss
    :param learning_rate: (float or callable) Adam step size; a callable receives the fraction of training
        still to go (1 at the start, towards 0 at the end) and returns the rate
    :param vf_coef: (float) weight of the value-function term in the loss
    :param max_grad_norm: (float) the gradients are rescaled so that their global norm stays below this value
        (None disables the rescaling)
    :param lam: (float) GAE lambda: 0 gives the one-step TD advantage (low variance, more bias), 1 the
        Monte-Carlo one (no bias, high variance)
    :param nminibatches: (int) number of minibatches each rollout is cut into. To train a recurrent policy,
        the number of environment copies must be a multiple of it (acting and loading take any number).
    :param noptepochs: (int) passes over the rollout per update
    :param cliprange: (float or callable) how far the probability ratio may move from 1 before the surrogate
        stops rewarding the change; a callable is evaluated like ``learning_rate``
    :param cliprange_vf: (float or callable) clipping of the new value prediction around the old one (an
        addition of OpenAI's implementation, absent from the paper). None (default) reuses ``cliprange``; a
        negative number switches the value clipping off, as in the paper. The right scale depends on the
        scale of the rewards.
""" + MODEL_SETTINGS_DOC

    algorithm_name = "PPO2"
    _supports_action_masks = True
    _saved_settings = ("gamma", "n_steps", "vf_coef", "ent_coef", "max_grad_norm", "learning_rate", "lam",
                       "nminibatches", "noptepochs", "cliprange", "cliprange_vf")
    _rank_agreed = ("nminibatches", "noptepochs")

    def __init__(self, policy: Union[Type[ActorCriticPolicy], str], env: Any, gamma: float = 0.99, n_steps: int = 128,
                 ent_coef: float = 0.01, learning_rate: Union[float, Callable[[float], float]] = 2.5e-4,
                 vf_coef: float = 0.5, max_grad_norm: Optional[float] = 0.5, lam: float = 0.95,
                 nminibatches: int = 4, noptepochs: int = 4, cliprange: Union[float, Callable[[float], float]] = 0.2,
                 cliprange_vf: Union[None, float, Callable[[float], float]] = None, verbose: int = 0,
                 tensorboard_log: Optional[str] = None, _init_setup_model: bool = True,
                 policy_kwargs: Optional[Dict[str, Any]] = None, full_tensorboard_log: bool = False,
                 seed: Optional[int] = None, n_cpu_tf_sess: Optional[int] = None) -> None:
        check_positive_int("n_steps", n_steps)
        check_positive_int("nminibatches", nminibatches)
        check_positive_int("noptepochs", noptepochs)
        check_gamma(gamma)
        check_learning_rate(learning_rate)
        # hyperparameters (these are also what `save` writes)
        self.learning_rate, self.cliprange, self.cliprange_vf = learning_rate, cliprange, cliprange_vf
        self.n_steps, self.gamma, self.lam = n_steps, gamma, lam
        self.ent_coef, self.vf_coef, self.max_grad_norm = ent_coef, vf_coef, max_grad_norm
        self.nminibatches, self.noptepochs = nminibatches, noptepochs
        self.tensorboard_log, self.full_tensorboard_log = tensorboard_log, full_tensorboard_log

        # graph handles, filled in by setup_model()
        for attribute in ("action_ph", "advs_ph", "rewards_ph", "old_neglog_pac_ph", "old_vpred_ph",
                          "learning_rate_ph", "clip_range_ph", "clip_range_vf_ph", "entropy", "vf_loss",
                          "pg_loss", "approxkl", "clipfrac", "_train", "loss_names", "train_model", "act_model",
                          "value", "n_batch", "summary"):
            setattr(self, attribute, None)
        # every epoch and minibatch of an update in one session call (feed-forward policies, no tensorboard)
        self._fused_update = FusedUpdate(self)

        super().__init__(policy, env, verbose, _init_setup_model, policy_kwargs, seed, n_cpu_tf_sess)

        if _init_setup_model:
            if self.env is not None:
                self._check_recurrent_minibatches(self._known_n_envs())
            self.setup_model()

    def _make_runner(self) -> "Runner":
        return Runner(env=self.env, model=self, n_steps=self.n_steps, gamma=self.gamma, lam=self.lam)

    def _get_pretrain_placeholders(self) -> Tuple[Any, Any, Any]:
        return pretrain_placeholders(self.act_model, self.action_ph, self.action_space)

    # ------------------------------------------------------------------ graph construction

    def _value_clip_input(self) -> Any:
        """
        Decide how the value prediction is clipped, following ``cliprange_vf``.

        :return: (TensorFlow Tensor) the clipping range input, or None when the value is not clipped
        """
        if self.cliprange_vf is None:
            # OpenAI's default: the value uses the policy's clipping range
            self.cliprange_vf = self.cliprange
            return self.clip_range_ph
        if isinstance(self.cliprange_vf, (float, int)) and self.cliprange_vf < 0:
            return None
        return float_input("clip_range_vf_ph", batched=False)

    def _build_loss(self, train_model: ActorCriticPolicy) -> List[Tuple[Any, Any]]:
        """
        Create the inputs of an update, the clipped surrogate, the value and entropy terms, their summaries
        and the (clipped) gradients of the combined loss. Called inside the "loss" variable scope.

        :param train_model: (ActorCriticPolicy) the training network
        :return: ([(TensorFlow Tensor, TensorFlow Variable)]) gradient and variable pairs
        """
        self.action_ph = train_model.pdtype.sample_placeholder([None], name="action_ph")
        self.advs_ph = float_input("advs_ph")
        self.rewards_ph = float_input("rewards_ph")
        self.old_neglog_pac_ph = float_input("old_neglog_pac_ph")
        self.old_vpred_ph = float_input("old_vpred_ph")
        self.learning_rate_ph = float_input("learning_rate_ph", batched=False)
        self.clip_range_ph = float_input("clip_range_ph", batched=False)

        distribution = train_model.proba_distribution
        action_nll = distribution.neglogp(self.action_ph)
        self.entropy = tf.reduce_mean(distribution.entropy())

        new_value = train_model.value_flat
        self.clip_range_vf_ph = self._value_clip_input()
        if self.clip_range_vf_ph is None:
            value_for_loss = train_model.value_flat
        else:
            # the new prediction may only move clip_range_vf away from the one made during the rollout
            value_for_loss = self.old_vpred_ph + tf.clip_by_value(train_model.value_flat - self.old_vpred_ph,
                                                                  -self.clip_range_vf_ph, self.clip_range_vf_ph)
        # pessimistic value loss: the larger of the unclipped and the clipped squared error
        unclipped_sq_err = tf.square(new_value - self.rewards_ph)
        clipped_sq_err = tf.square(value_for_loss - self.rewards_ph)
        self.vf_loss = .5 * tf.reduce_mean(tf.maximum(unclipped_sq_err, clipped_sq_err))

        # probability ratio new / old, from the negative log-likelihoods
        ratio = tf.exp(self.old_neglog_pac_ph - action_nll)
        surrogate = -self.advs_ph * ratio
        surrogate_clipped = -self.advs_ph * tf.clip_by_value(ratio, 1.0 - self.clip_range_ph,
                                                             1.0 + self.clip_range_ph)
        # minimising the larger of the two negated objectives = maximising the pessimistic surrogate
        self.pg_loss = tf.reduce_mean(tf.maximum(surrogate, surrogate_clipped))
        # diagnostics: a quadratic estimate of the KL divergence, and the share of clipped ratios
        self.approxkl = .5 * tf.reduce_mean(tf.square(action_nll - self.old_neglog_pac_ph))
        self.clipfrac = tf.reduce_mean(tf.cast(tf.greater(tf.abs(ratio - 1.0), self.clip_range_ph), tf.float32))
        entropy_bonus = self.entropy * self.ent_coef
        total_loss = self.pg_loss - entropy_bonus + self.vf_loss * self.vf_coef

        for tag, tensor in (('entropy_loss', self.entropy), ('policy_gradient_loss', self.pg_loss),
                            ('value_function_loss', self.vf_loss), ('approximate_kullback-leibler', self.approxkl),
                            ('clip_factor', self.clipfrac), ('loss', total_loss)):
            tf.summary.scalar(tag, tensor)

        with tf.variable_scope('model'):
            self.params = tf_util.get_trainable_vars("model")
            if self.full_tensorboard_log:
                for variable in self.params:
                    tf.summary.histogram(variable.name, variable)
        gradients = averaged_gradients(tf.gradients(total_loss, self.params), self._data_parallel)
        if self.max_grad_norm is not None:
            gradients, _ = tf.clip_by_global_norm(gradients, self.max_grad_norm)
        return list(zip(gradients, self.params))

    def _build_input_summaries(self, train_model: ActorCriticPolicy) -> None:
        """
        Summaries of what is fed to an update, in the "input_info" variable scope: the mean of every input
        and, with ``full_tensorboard_log``, histograms (and the observations).

        :param train_model: (ActorCriticPolicy) the training network (for its observation input)
        """
        inputs = [('discounted_rewards', self.rewards_ph), ('learning_rate', self.learning_rate_ph),
                  ('advantage', self.advs_ph), ('clip_range', self.clip_range_ph)]
        means = list(inputs)
        if self.clip_range_vf_ph is not None:
            means.append(('clip_range_vf', self.clip_range_vf_ph))
        old_predictions = [('old_neglog_action_probability', self.old_neglog_pac_ph),
                           ('old_value_pred', self.old_vpred_ph)]
        with tf.variable_scope("input_info", reuse=False):
            for tag, tensor in means + old_predictions:
                tf.summary.scalar(tag, tf.reduce_mean(tensor))
            if not self.full_tensorboard_log:
                return
            for tag, tensor in inputs + old_predictions:
                tf.summary.histogram(tag, tensor)
            if tf_util.is_image(self.observation_space):
                tf.summary.image('observation', train_model.obs_ph)
            else:
                tf.summary.histogram('observation', train_model.obs_ph)

    def setup_model(self) -> None:
        with SetVerbosity(self.verbose):
            self._check_policy_class()
            n_envs = self._known_n_envs()
            if self.env is not None:  # without one (a model loaded to predict) the number of envs may not fit
                check_minibatches(self.nminibatches, n_envs, self.n_steps)
            self.n_batch = n_envs * self.n_steps
            self._data_parallel = data_parallel_for("PPO2")
            if self._data_parallel is not None:
                # every minibatch step is one session call: the graph loop of the fused update does run with the
                # allreduce inside (same numbers), but slower than the calls one by one
                self._fused_update.enabled = False
            self._new_graph_and_session()

            with self.graph.as_default():
                act_model, train_model = self._build_policies(self.nminibatches)
                with tf.variable_scope("loss", reuse=False):
                    grads_and_vars = self._build_loss(train_model)
                optimizer = tf.train.AdamOptimizer(learning_rate=self.learning_rate_ph, epsilon=1e-5)
                self._train = optimizer.apply_gradients(grads_and_vars)
                self.loss_names = ['policy_loss', 'value_loss', 'policy_entropy', 'approxkl', 'clipfrac']
                self._build_input_summaries(train_model)

                self.train_model, self.act_model = train_model, act_model
                self._act_and_initialise(act_model)

    # ------------------------------------------------------------------ training

    def _update_factor(self, recurrent: bool) -> int:
        """
        Divisor turning the timestep count into the tensorboard step of a minibatch update.

        :param recurrent: (bool) whether minibatches are made of whole environment sequences
        :return: (int) the divisor (at least 1)
        """
        per_epoch = self.n_batch // self.nminibatches // self.noptepochs
        if recurrent:
            per_epoch //= self.n_steps
        return max(per_epoch, 1)

    def _train_step(self, learning_rate: float, cliprange: float, obs: np.ndarray, returns: np.ndarray,
                    masks: np.ndarray, actions: np.ndarray, values: np.ndarray, neglogpacs: np.ndarray, update: int,
                    writer: Any, states: Optional[np.ndarray] = None,
                    cliprange_vf: Optional[float] = None, action_masks: Optional[np.ndarray] = None) -> Tuple[float, ...]:
        """
        One Adam step on one minibatch.

        :param learning_rate: (float) learning rate of this step
        :param cliprange: (float) clipping range of the probability ratio
        :param obs: (np.ndarray) observations
        :param returns: (np.ndarray) GAE returns (the value targets)
        :param masks: (np.ndarray) episode-start flags (used by recurrent policies)
        :param actions: (np.ndarray) actions that were taken
        :param values: (np.ndarray) value estimates made while acting
        :param neglogpacs: (np.ndarray) negative log-likelihood of the actions under the acting policy
        :param update: (int) index of this minibatch update, the base of the tensorboard step
        :param writer: (TensorFlow Summary.writer) tensorboard writer, or None
        :param states: (np.ndarray) recurrent states at the start of the sequences (None for feed-forward
            policies)
        :param cliprange_vf: (float) clipping range of the value prediction (negative or None: none fed)
        :param action_masks: (np.ndarray) the allowed actions of each transition (None: the model uses no masks)
        :return: (float, float, float, float, float) policy loss, value loss, policy entropy, approximate KL
            divergence and fraction of clipped ratios
        """
        advantages = normalised_advantages(returns, values)

        feeds = [self.train_model.obs_ph, self.action_ph, self.advs_ph, self.rewards_ph, self.learning_rate_ph,
                 self.clip_range_ph, self.old_neglog_pac_ph, self.old_vpred_ph]
        feed_values = [obs, actions, advantages, returns, learning_rate, cliprange, neglogpacs, values]
        if states is not None:
            recurrent = self.train_model
            assert isinstance(recurrent, RecurrentActorCriticPolicy), "a policy with a state is recurrent"
            feeds.extend([recurrent.states_ph, recurrent.dones_ph])
            feed_values.extend([states, masks])
        if cliprange_vf is not None and cliprange_vf >= 0:
            feeds.append(self.clip_range_vf_ph)
            feed_values.append(cliprange_vf)
        callable_key: Tuple[Any, ...] = ("train", len(feeds))
        if action_masks is not None:
            feeds.append(self.train_model.action_mask_ph)
            feed_values.append(action_masks)
            callable_key = ("train", "masked", len(feeds))

        fetches = [self.pg_loss, self.vf_loss, self.entropy, self.approxkl, self.clipfrac, self._train]
        if writer is None:
            # a session callable per feed list, created once: much less overhead than sess.run
            run_update = self._session_callable(callable_key, fetches, feeds)
            losses = run_update(*feed_values)[:-1]
        else:
            global_step = update * self._update_factor(states is not None)
            losses = self._train_step_logged(dict(zip(feeds, feed_values)), fetches, update, global_step, writer)
        return tuple(losses)

    def _minibatches(self, batch_size: int,
                     recurrent: bool) -> Iterator[Tuple[int, np.ndarray, Optional[np.ndarray]]]:
        """
        Yield the minibatches of all epochs of one update, reshuffling at the start of every epoch. Without
        recurrence single transitions are shuffled; with it whole environment sequences are.

        :param batch_size: (int) transitions per minibatch
        :param recurrent: (bool) whether the policy is recurrent
        :return: (generator) tuples (position of the minibatch in the update, transition indices,
            environment indices or None)
        """
        if not recurrent:
            # the order the fused update draws too (one place for it)
            for position, rows in enumerate(run_indices(self.n_batch, self.noptepochs, batch_size,
                                                        np.random.shuffle)):
                yield position, rows, None
        else:
            n_envs = self._known_n_envs()
            env_order = np.arange(n_envs)
            transitions_of_env = np.arange(n_envs * self.n_steps).reshape(n_envs, self.n_steps)
            envs_per_batch = batch_size // self.n_steps
            for epoch in range(self.noptepochs):
                np.random.shuffle(env_order)
                for first in range(0, n_envs, envs_per_batch):
                    chosen = env_order[first:first + envs_per_batch]
                    yield ((epoch * n_envs + first) // envs_per_batch, transitions_of_env[chosen].ravel(),
                           chosen)

    def _optimise_rollout(self, rollout: "PPO2Batch", batch_size: int, lr_now: float, cliprange_now: float,
                          cliprange_vf_now: Optional[float], writer: Any) -> np.ndarray:
        """
        Run all epochs of minibatch updates on one rollout.

        :return: (np.ndarray) the five loss values, averaged over the minibatches
        """
        obs, returns, masks, actions, values, neglogpacs, states = rollout[:7]
        action_masks = self.runner.rollout_action_masks
        recurrent = states is not None
        if writer is None and not recurrent:
            fused = self._fused_update.run(rollout, action_masks, batch_size, lr_now, cliprange_now,
                                           cliprange_vf_now, self._train)
            if fused is not None:
                return np.mean(fused, axis=0)
        first_step = self.num_timesteps // self._update_factor(recurrent)
        losses = []
        for position, samples, envs in self._minibatches(batch_size, recurrent):
            obs_b, returns_b, masks_b, actions_b, values_b, neglogpacs_b = (
                arr[samples] for arr in (obs, returns, masks, actions, values, neglogpacs))
            losses.append(self._train_step(lr_now, cliprange_now, obs_b, returns_b, masks_b, actions_b, values_b,
                                           neglogpacs_b, update=first_step + position, writer=writer,
                                           states=None if envs is None else states[envs],
                                           cliprange_vf=cliprange_vf_now,
                                           action_masks=None if action_masks is None else action_masks[samples]))
        return np.mean(losses, axis=0)

    def _check_recurrent_minibatches(self, n_envs: int) -> None:
        """
        Raise a clear error when a recurrent policy cannot be trained on ``n_envs`` environments: its minibatches
        are made of whole environment sequences, ``n_envs / nminibatches`` of them (acting, ``predict`` and
        ``load`` take any number of environments).

        :param n_envs: (int) the number of environments to train on
        """
        if issubclass(self.policy, RecurrentActorCriticPolicy) and n_envs % self.nminibatches != 0:
            raise ValueError("PPO2 with a recurrent policy trains on minibatches of whole environment sequences, "
                             "so the number of environments run in parallel ({}) must be a multiple of "
                             "nminibatches ({}): change nminibatches (e.g. model.nminibatches = {}) or the number "
                             "of environments. predict() takes any number of observations."
                             .format(n_envs, self.nminibatches, _largest_divisor(n_envs, self.nminibatches)))

    def _start_training(self, total_timesteps: int, started: float) -> Dict[str, Any]:
        check_minibatches(self.nminibatches, self._known_n_envs(), self.n_steps)
        self._check_recurrent_minibatches(self._known_n_envs())
        # constants become constant schedules of the remaining progress
        self.learning_rate = get_schedule_fn(self.learning_rate)
        self.cliprange = get_schedule_fn(self.cliprange)
        assert self.cliprange_vf is not None, "setup_model replaced None by the policy's clipping range"
        return {"cliprange_vf": get_schedule_fn(self.cliprange_vf), "n_updates": self._n_updates(total_timesteps),
                "t_first_start": started}

    def _train_on_rollout(self, rollout: "PPO2Batch", update: int, writer: Any,
                          loop: Dict[str, Any]) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
        # 1 at the first update, towards 0 at the last
        remaining = 1.0 - (update - 1.0) / loop["n_updates"]
        learning_rate, cliprange = self.learning_rate, self.cliprange
        assert callable(learning_rate) and callable(cliprange), "made schedules by _start_training"
        loss_vals = self._optimise_rollout(rollout, self.n_batch // self.nminibatches, learning_rate(remaining),
                                           cliprange(remaining), loop["cliprange_vf"](remaining), writer)
        return rollout.values, rollout.returns, loss_vals

    def _record_update(self, update: int, stats: Any, loop: Dict[str, Any], clock: UpdateClock) -> None:
        values, returns, loss_vals = stats
        rows = [("serial_timesteps", update * self.n_steps), ("n_updates", update),
                ("total_timesteps", self.num_timesteps), ("fps", clock.fps(self._global_batch(), since_update=True)),
                ("explained_variance", float(explained_variance(values, returns)))]
        for key, value in rows:
            logger.logkv(key, value)
        self._log_episode_stats()
        logger.logkv('time_elapsed', clock.update_started - clock.started)
        for name, value in zip(self.loss_names, loss_vals):
            logger.logkv(name, value)

    def learn(self, total_timesteps: int, callback: Any = None, log_interval: int = 1, tb_log_name: str = "PPO2",
              reset_num_timesteps: bool = True, progress_bar: bool = False) -> "PPO2":
        return self._learn_on_policy(total_timesteps, callback, log_interval, tb_log_name, reset_num_timesteps,
                                     progress_bar)


class Runner(AbstractEnvRunner):
    # the negative log-likelihoods of the actions are kept for the clipped objective; the environment's
    # answer is stored in the runner before the callback is told, as in the original
    recorded_outputs = ("values", "neglogpacs")
    advance_before_callback = True

    def __init__(self, *, env: Any, model: PPO2, n_steps: int, gamma: float, lam: float) -> None:
        """
        Collects the rollouts of a PPO2 model and computes their GAE advantages and returns.

        :param env: (Gym environment) the (vectorized) environment to step
        :param model: (Model) the model whose acting network chooses the actions
        :param n_steps: (int) steps per environment copy in one rollout
        :param gamma: (float) discount factor
        :param lam: (float) GAE lambda (bias / variance trade-off of the advantage)
        """
        super().__init__(env=env, model=model, n_steps=n_steps)
        self.gamma, self.lam = gamma, lam

    def policy_step(self) -> Tuple[np.ndarray, Optional[np.ndarray], Dict[str, np.ndarray]]:
        actions, values, states, neglogpacs = self.sampled_model_step()
        return actions, states, {"values": values, "neglogpacs": neglogpacs}

    def _run(self) -> "PPO2Batch":
        """
        Step all environment copies ``n_steps`` times with the acting network.

        :return: (PPO2Batch) the rollout, its arrays flattened with the environment index first (every field None
            when the callback stopped the rollout)
        """
        rollout = collect_rollout(self)
        if rollout is None:
            return stopped_batch(PPO2Batch)
        rewards = np.asarray(rollout["mb_rewards"], dtype=np.float32)
        values = np.asarray(rollout["mb_values"], dtype=np.float32)
        starts = np.asarray(rollout["mb_dones"], dtype=bool)
        last_values = self.model.value(self.obs, self.states, self.dones)
        advantages = gae_advantages(rewards, values, starts, last_values, np.asarray(self.dones, dtype=np.float32),
                                    self.gamma, self.lam)
        returns = advantages.astype(np.float32) + values

        arrays = (np.asarray(rollout["mb_obs"], dtype=self.obs.dtype), returns, starts,
                  np.asarray(rollout["mb_actions"]), values, np.asarray(rollout["mb_neglogpacs"], dtype=np.float32))
        observations, returns, starts, actions, values, neglogpacs = [swap_and_flatten(arr) for arr in arrays]
        return PPO2Batch(observations, returns, starts, actions, values, neglogpacs, rollout["mb_states"],
                         rollout["ep_infos"], swap_and_flatten(rewards))


class PPO2Batch(NamedTuple):
    """A rollout of PPO2 (a tuple in the order of the original runner's return value)."""

    observations: Any  # (np.ndarray) the observations
    returns: Any  # (np.ndarray) advantages plus value estimates: the value targets
    masks: Any  # (np.ndarray) episode-start flags
    actions: Any  # (np.ndarray) the actions
    values: Any  # (np.ndarray) the value estimates made while acting
    neglogpacs: Any  # (np.ndarray) the negative log-probabilities of the actions
    states: Any  # (np.ndarray) recurrent states at the start of the rollout (None for feed-forward policies)
    ep_infos: Any  # ([dict]) the Monitor records of the episodes that ended
    true_rewards: Any  # (np.ndarray) the rewards as the environment gave them

    @property
    def episode_flags(self) -> Any:
        """(np.ndarray) the flags of the tensorboard reward curve: the episode starts"""
        return self.masks


def _largest_divisor(number: int, at_most: int) -> int:
    """:return: (int) the largest divisor of ``number`` that is not above ``at_most``"""
    return max(divisor for divisor in range(1, min(number, at_most) + 1) if number % divisor == 0)
