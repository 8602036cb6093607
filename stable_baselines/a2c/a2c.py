"""A2C: synchronous advantage actor-critic (the batched, single-learner form of A3C)."""
from typing import Any, Dict, List, Optional, Tuple, Type, Union

import numpy as np

from stable_baselines.common import tf_util
from stable_baselines.common.base_class import SetVerbosity
from stable_baselines.common.model.data_parallel import averaged_gradients, data_parallel_for, rank_count
from stable_baselines.common.math_util import explained_variance
from stable_baselines.common.model.arguments import check_rollout_arguments
from stable_baselines.common.model.on_policy import MODEL_SETTINGS_DOC, OnPolicyRLModel, UpdateClock
from stable_baselines.common.policies import ActorCriticPolicy
from stable_baselines.common.model.rollouts import (AbstractEnvRunner, ReturnsBatch, collect_rollout, discounted_returns,
                                                     stopped_batch, swap_and_flatten)
from stable_baselines.common.model.rollouts import discount_with_dones  # noqa: F401 (public here)
from stable_baselines.common.tf_compat import quiet_deprecations, tf
from stable_baselines.common.tf_util import float_input, mse


class A2C(OnPolicyRLModel):
    __doc__ = """
    Advantage Actor Critic, the synchronous counterpart of A3C (Mnih et al. 2016,
    https://arxiv.org/abs/1602.01783): ``n_envs`` environment copies are stepped together, and every
    ``n_steps`` steps one RMSProp update is made from the whole batch, combining the policy gradient
    (weighted by the n-step advantage), the value regression and an entropy bonus.

    :param policy: (ActorCriticPolicy or str) policy class, or the registered name of one
        (MlpPolicy, CnnPolicy, MlpLstmPolicy, CnnLstmPolicy, ...)
    :param env: (Gym environment or str) environment to train on, or a registered environment id
    :param gamma: (float) discount factor
    :param n_steps: (int) steps taken in every environment copy between two updates; the batch of one
        update therefore holds n_steps * n_envs transitions
    :param vf_coef: (float) weight of the value-function term in the loss
    :param ent_coef: (float) weight of the entropy bonus in the loss
    :param max_grad_norm: (float) the gradients are rescaled so that their global norm stays below this value
        (None disables the rescaling)
    :param learning_rate: (float) initial step size of RMSProp
    :param alpha: (float) RMSProp decay of the squared-gradient average (default: 0.99)
    :param momentum: (float) RMSProp momentum (default: 0.0)
    :param epsilon: (float) RMSProp epsilon, added under the square root of the denominator for numerical
        stability (default: 1e-5)
    :param lr_schedule: (str) how the learning rate evolves during training: 'linear', 'constant',
        'double_linear_con', 'middle_drop' or 'double_middle_drop'
""" + MODEL_SETTINGS_DOC

    algorithm_name = "A2C"
    _supports_action_masks = True
    _saved_settings = ("gamma", "n_steps", "vf_coef", "ent_coef", "max_grad_norm", "learning_rate", "alpha",
                       "momentum", "epsilon", "lr_schedule")

    def __init__(self, policy: Union[Type[ActorCriticPolicy], str], env: Any, gamma: float = 0.99, n_steps: int = 5,
                 vf_coef: float = 0.25, ent_coef: float = 0.01, max_grad_norm: Optional[float] = 0.5,
                 learning_rate: float = 7e-4, alpha: float = 0.99, momentum: float = 0.0, epsilon: float = 1e-5,
                 lr_schedule: str = 'constant', verbose: int = 0, tensorboard_log: Optional[str] = None,
                 _init_setup_model: bool = True, policy_kwargs: Optional[Dict[str, Any]] = None,
                 full_tensorboard_log: bool = False, seed: Optional[int] = None,
                 n_cpu_tf_sess: Optional[int] = None) -> None:
        check_rollout_arguments("n_steps", n_steps, gamma, learning_rate)
        # hyperparameters (these are also what `save` writes)
        self.gamma, self.n_steps = gamma, n_steps
        self.vf_coef, self.ent_coef, self.max_grad_norm = vf_coef, ent_coef, max_grad_norm
        self.learning_rate, self.lr_schedule = learning_rate, lr_schedule
        self.alpha, self.momentum, self.epsilon = alpha, momentum, epsilon
        self.tensorboard_log, self.full_tensorboard_log = tensorboard_log, full_tensorboard_log

        # graph handles, filled in by setup_model()
        for attribute in ("learning_rate_ph", "n_batch", "actions_ph", "advs_ph", "rewards_ph", "pg_loss",
                          "vf_loss", "entropy", "apply_backprop", "train_model", "step_model", "proba_step",
                          "value", "initial_state", "learning_rate_schedule", "summary"):
            setattr(self, attribute, None)
        # the weights of the NumPy copy after an update, fetched with it (None: no copy)
        self._weights_after_update: Optional[Any] = None

        super().__init__(policy, env, verbose, _init_setup_model, policy_kwargs, seed, n_cpu_tf_sess)

        # when loading, the spaces are known even without an environment, so the graph can be built
        if _init_setup_model:
            self.setup_model()

    def _make_runner(self) -> AbstractEnvRunner:
        return A2CRunner(self.env, self, n_steps=self.n_steps, gamma=self.gamma)

    # ------------------------------------------------------------------ graph construction

    def _build_loss(self, train_model: ActorCriticPolicy) -> List[Tuple[Any, Any]]:
        """
        Create the inputs of an update, the three loss terms and their summaries, and the (clipped) gradients
        of the combined loss. Called inside the "loss" variable scope.

        :param train_model: (ActorCriticPolicy) the training network
        :return: ([(TensorFlow Tensor, TensorFlow Variable)]) gradient and variable pairs
        """
        self.actions_ph = train_model.pdtype.sample_placeholder([None], name="action_ph")
        self.advs_ph = float_input("advs_ph")
        self.rewards_ph = float_input("rewards_ph")
        self.learning_rate_ph = float_input("learning_rate_ph", batched=False)

        distribution = train_model.proba_distribution
        action_nll = distribution.neglogp(self.actions_ph)
        self.entropy = tf.reduce_mean(distribution.entropy())
        # policy gradient: minimising advantage * (-log pi) raises the probability of advantageous actions
        self.pg_loss = tf.reduce_mean(self.advs_ph * action_nll)
        self.vf_loss = mse(tf.squeeze(train_model.value_flat), self.rewards_ph)
        # the entropy bonus keeps the policy from collapsing too early (exploration)
        entropy_bonus = self.entropy * self.ent_coef
        total_loss = self.pg_loss - entropy_bonus + self.vf_loss * self.vf_coef

        for tag, tensor in (('entropy_loss', self.entropy), ('policy_gradient_loss', self.pg_loss),
                            ('value_function_loss', self.vf_loss), ('loss', total_loss)):
            tf.summary.scalar(tag, tensor)

        self.params = tf_util.get_trainable_vars("model")
        gradients = averaged_gradients(tf.gradients(total_loss, self.params), self._data_parallel)
        if self.max_grad_norm is not None:
            gradients, _ = tf.clip_by_global_norm(gradients, self.max_grad_norm)
        return list(zip(gradients, self.params))

    def setup_model(self) -> None:
        with SetVerbosity(self.verbose):
            self._check_policy_class()
            self.n_batch = self._graph_inputs()[2] * self.n_steps
            self._data_parallel = data_parallel_for("A2C")
            self._new_graph_and_session()

            with self.graph.as_default():
                step_model, train_model = self._build_policies()
                with tf.variable_scope("loss", reuse=False):
                    grads_and_vars = self._build_loss(train_model)

                self._summarise_returns_inputs(train_model)

                optimizer = tf.train.RMSPropOptimizer(learning_rate=self.learning_rate_ph, decay=self.alpha,
                                                      epsilon=self.epsilon, momentum=self.momentum)
                with quiet_deprecations():  # TF's RMSProp builds its slots with a deprecated initializer
                    self.apply_backprop = optimizer.apply_gradients(grads_and_vars)

                self.train_model, self.step_model = train_model, step_model
                self._act_and_initialise(step_model)
                # the copy's new weights come back with the update itself (None: no copy, the graph acts)
                self._weights_after_update = self.fast_path.weights_after(step_model, [self.apply_backprop])

    # ------------------------------------------------------------------ training

    def _train_step(self, obs: np.ndarray, states: Optional[np.ndarray], rewards: np.ndarray, masks: np.ndarray,
                    actions: np.ndarray, values: np.ndarray, update: int,
                    writer: Any = None, action_masks: Optional[np.ndarray] = None) -> Tuple[float, float, float]:
        """
        Make one gradient update from a rollout. The arguments are those of :meth:`_update_feed`, but ``update`` (the
        index of the update, the tensorboard step) and ``writer`` (the tensorboard writer, or None).

        :return: (float, float, float) policy loss, value loss and policy entropy
        """
        # the schedule ticks once per transition of every rank
        feed = self._update_feed(obs, states, rewards, masks, actions, values,
                                 self._advance_learning_rate(len(obs) * rank_count(self._data_parallel)), action_masks)
        feeds, feed_values = list(feed), list(feed.values())

        fetches = [self.pg_loss, self.vf_loss, self.entropy, self.apply_backprop]
        if writer is None and self._weights_after_update is not None:
            # a session callable per feed list, created once (much less overhead than sess.run), which also
            # returns the weights after the update for the NumPy copy (no second call to read them)
            run_update = self._session_callable(("train_and_weights", len(feeds)),
                                                fetches[:3] + [self._weights_after_update], feeds)
            policy_loss, value_loss, policy_entropy, weights = run_update(*feed_values)
            self.fast_path.receive_weights(self.step_model, weights)
            return policy_loss, value_loss, policy_entropy
        if writer is None:
            run_update = self._session_callable(("train", len(feeds)), fetches, feeds)
            policy_loss, value_loss, policy_entropy, _ = run_update(*feed_values)
        else:
            policy_loss, value_loss, policy_entropy = self._train_step_logged(
                feed, fetches, update, update * self.n_batch, writer)
        return policy_loss, value_loss, policy_entropy

    def _start_training(self, total_timesteps: int, started: float) -> Dict[str, Any]:
        self._start_rate_schedule(total_timesteps)
        return {"t_start": started}

    def _train_on_rollout(self, rollout: ReturnsBatch, update: int, writer: Any,
                          loop: Dict[str, Any]) -> Tuple[np.ndarray, np.ndarray, float, float]:
        _, value_loss, policy_entropy = self._train_step(rollout.observations, rollout.states, rollout.returns,
                                                         rollout.masks, rollout.actions, rollout.values,
                                                         self.num_timesteps // self._global_batch(), writer,
                                                         action_masks=self.runner.rollout_action_masks)
        return rollout.values, rollout.returns, value_loss, policy_entropy

    def _record_update(self, update: int, stats: Any, loop: Dict[str, Any], clock: UpdateClock) -> None:
        values, returns, value_loss, policy_entropy = stats
        self._record_rows(update, clock.fps(update * self._global_batch()), [
            ("policy_entropy", float(policy_entropy)), ("value_loss", float(value_loss)),
            ("explained_variance", float(explained_variance(values, returns)))])

    def learn(self, total_timesteps: int, callback: Any = None, log_interval: int = 100, tb_log_name: str = "A2C",
              reset_num_timesteps: bool = True, progress_bar: bool = False) -> "A2C":
        return self._learn_on_policy(total_timesteps, callback, log_interval, tb_log_name, reset_num_timesteps,
                                     progress_bar)


class A2CRunner(AbstractEnvRunner):
    def __init__(self, env: Any, model: "A2C", n_steps: int = 5, gamma: float = 0.99) -> None:
        """
        Collects the rollouts of an A2C model and turns the rewards into n-step returns.

        :param env: (Gym environment) the (vectorized) environment to step
        :param model: (Model) the model whose acting network chooses the actions
        :param n_steps: (int) steps per environment copy in one rollout
        :param gamma: (float) discount factor
        """
        super().__init__(env=env, model=model, n_steps=n_steps)
        self.gamma = gamma

    def policy_step(self) -> Tuple[np.ndarray, Any, Dict[str, Any]]:
        # the feed-forward MLP policies draw their actions from the NumPy copy of the acting network
        actions, values, states, neglogp = self.sampled_model_step()
        return actions, states, {"values": values, "_": neglogp}

    def _run(self) -> ReturnsBatch:
        """
        Step all environment copies ``n_steps`` times with the acting network.

        :return: (ReturnsBatch) observations, recurrent states at the start, n-step returns, episode-start masks,
            actions, values, episode infos and undiscounted rewards, each flattened with the environment index
            first (every field None when the callback stopped the rollout)
        """
        rollout = collect_rollout(self)
        if rollout is None:
            return stopped_batch(ReturnsBatch)
        # the flags before every step (masks) and after the last one: n_steps + 1 rows
        rollout["mb_dones"].append(self.dones)
        rewards = np.asarray(rollout["mb_rewards"], dtype=np.float32)
        flags = np.asarray(rollout["mb_dones"], dtype=bool)
        # the returns are discounted in float64 and stored as float32
        last_values = np.asarray(self.model.value(self.obs, self.states, self.dones), dtype=np.float64)
        bootstrap = np.where(flags[-1], 0.0, last_values)
        returns = discounted_returns(rewards.astype(np.float64), flags[1:], bootstrap, self.gamma)

        observations = np.asarray(rollout["mb_obs"], dtype=self.obs.dtype).swapaxes(0, 1).reshape(self.batch_ob_shape)
        flat = [swap_and_flatten(arr) for arr in (returns.astype(np.float32), flags[:-1],
                                                  np.asarray(rollout["mb_actions"]),
                                                  np.asarray(rollout["mb_values"], dtype=np.float32))]
        returns, masks, actions, values = flat
        return ReturnsBatch(observations, rollout["mb_states"], returns, masks, actions, values, rollout["ep_infos"],
                            swap_and_flatten(rewards))
