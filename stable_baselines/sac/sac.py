"""Soft Actor-Critic (SAC): off-policy maximum-entropy actor-critic with a squashed Gaussian actor."""
from typing import Any, Callable, Dict, List, Optional, Tuple, Union

import numpy as np

from stable_baselines.common import tf_util
from stable_baselines.common.math_util import unscale_action
from stable_baselines.common.model.squashed_actor import SQUASHED_SETTINGS_DOC, SquashedActorModel
from stable_baselines.common.engine.target_updates import hard_updates, mirrored_variables, polyak_updates
from stable_baselines.common.tf_compat import tf
from stable_baselines.sac.policies import SACPolicy

_ENT_COEF_FORMS = "a float, 'auto' or 'auto_<initial value>'"


def _parse_ent_coef(ent_coef: Any) -> Optional[float]:
    """
    Validate ``ent_coef``.

    :param ent_coef: (str or float) 'auto', 'auto_<initial value>' or a number
    :return: (float or None) the initial value of a learned coefficient ('auto...'), None for a fixed one;
        raises a ValueError for anything else
    """
    if isinstance(ent_coef, str):
        if ent_coef == "auto":
            return 1.0
        if ent_coef.startswith("auto_"):
            try:
                start = float(ent_coef[len("auto_"):])
            except ValueError:
                start = None
            if start is None or not start > 0.0:
                raise ValueError("ent_coef='auto_<x>' needs a positive initial value x, got {!r}".format(ent_coef))
            return start
        try:
            float(ent_coef)
        except ValueError:
            raise ValueError("ent_coef must be {}, got {!r}".format(_ENT_COEF_FORMS, ent_coef)) from None
        return None
    if isinstance(ent_coef, bool) or not isinstance(ent_coef, (int, float, np.number)):
        raise ValueError("ent_coef must be {}, got {!r}".format(_ENT_COEF_FORMS, ent_coef))
    return None


def _half_mse(first: tf.Tensor, second: tf.Tensor) -> tf.Tensor:
    """:return: (tf.Tensor) half the mean squared difference of two tensors"""
    return 0.5 * tf.reduce_mean((first - second) ** 2)


class SAC(SquashedActorModel):
    __doc__ = """
    Soft Actor-Critic: an off-policy actor-critic that maximises the return plus the entropy of its stochastic
    actor (a Gaussian squashed by a tanh), with two Q-functions and a state-value function whose target copy
    follows by Polyak averaging.
    Paper: https://arxiv.org/abs/1801.01290 (the learned entropy coefficient: https://arxiv.org/abs/1812.05905);
    an introduction: https://spinningup.openai.com/en/latest/algorithms/sac.html

    :param policy: (SACPolicy or str) the policy (MlpPolicy, CnnPolicy, LnMlpPolicy, LnCnnPolicy or a subclass)
    :param env: (Gym environment or str) the environment to learn from (a registered id is made with gym)
    :param gamma: (float) discount factor
    :param learning_rate: (float or callable) Adam's learning rate, the same for every network; a function of
        the remaining progress (1 at the start, 0 at the end) makes a schedule
    :param buffer_size: (int) capacity of the replay buffer
    :param learning_starts: (int) steps of uniform random actions before training begins
    :param train_freq: (int) train every ``train_freq`` steps
    :param batch_size: (int) minibatch size of a gradient step
    :param tau: (float) Polyak coefficient of the target value network (0: frozen, 1: copied)
    :param ent_coef: (str or float) weight of the entropy in the objective (the inverse of the reward scale of
        the paper); 'auto' learns it starting from 1, 'auto_0.1' starting from 0.1
    :param target_update_interval: (int) gradient steps between two updates of the target value network
    :param gradient_steps: (int) gradient steps per training round
    :param target_entropy: (str or float) the entropy the learned coefficient aims at ('auto': minus the
        dimension of the action space)
    :param action_noise: (ActionNoise) noise added to the actor's actions (None by default; see DDPG's noises)
""" + SQUASHED_SETTINGS_DOC

    algorithm_name = "SAC"
    _saved_settings = ("learning_rate", "buffer_size", "learning_starts", "train_freq", "batch_size", "tau",
                       "ent_coef", "target_entropy", "gamma", "action_noise", "random_exploration",
                       "target_update_interval", "gradient_steps")
    _exploration_step_kwargs = {"deterministic": False}
    _exported_output = "deterministic_policy"
    _no_probability_error = "Error: SAC does not have action probabilities."
    _no_probability_warning = ("Even though SAC has a Gaussian policy, it cannot return a distribution as it "
                               "is squashed by a tanh before being scaled and outputed.")

    def __init__(self, policy: Any, env: Any, gamma: float = 0.99, learning_rate: Union[float, Callable] = 3e-4,
                 buffer_size: int = 50000, learning_starts: int = 100, train_freq: int = 1, batch_size: int = 64,
                 tau: float = 0.005, ent_coef: Union[str, float] = 'auto', target_update_interval: int = 1,
                 gradient_steps: int = 1, target_entropy: Union[str, float] = 'auto', action_noise: Any = None,
                 random_exploration: float = 0.0, verbose: int = 0, tensorboard_log: Optional[str] = None,
                 _init_setup_model: bool = True, policy_kwargs: Optional[Dict[str, Any]] = None,
                 full_tensorboard_log: bool = False, seed: Optional[int] = None,
                 n_cpu_tf_sess: Optional[int] = None) -> None:
        super(SAC, self).__init__(policy, env, SACPolicy, gamma, learning_rate, buffer_size, learning_starts,
                                  train_freq, batch_size, tau, gradient_steps, action_noise, random_exploration,
                                  verbose, tensorboard_log, policy_kwargs, full_tensorboard_log, seed, n_cpu_tf_sess,
                                  ("target_update_interval", target_update_interval))
        # ent_coef becomes a tensor when learned; _ent_coef_spec keeps what was asked
        self.ent_coef, self._ent_coef_spec, self.target_entropy = ent_coef, ent_coef, target_entropy
        self.target_update_interval = target_update_interval
        self.target_policy: Optional[SACPolicy] = None
        self.deterministic_action: Any = None
        self.entropy = self.value_fn = self.value_target = None
        self.log_ent_coef = None
        self.target_update_op: Any = None
        # the updates of the training step through sess.run
        self._updates: List[Any] = []

        _parse_ent_coef(ent_coef)
        self._check_action_space()
        if _init_setup_model:
            self.setup_model()

    def _delayed_update_interval(self) -> int:
        return self.target_update_interval

    def _get_pretrain_placeholders(self) -> Tuple[tf.Tensor, tf.Tensor, tf.Tensor]:
        # pretraining compares expert actions with the deterministic action, rescaled to the action bounds
        return self.policy_tf.obs_ph, self.actions_ph, unscale_action(self._built(self.action_space, "action_space"),
                                                                      self.deterministic_action)

    # ---------------------------------------------------------------------------------------------- graph
    def setup_model(self) -> None:
        # ent_coef is a tensor after a first setup: the specification is what was asked for
        if isinstance(self.ent_coef, (str, int, float, np.number)):
            self._ent_coef_spec = self.ent_coef
        _parse_ent_coef(self._ent_coef_spec)
        super().setup_model()

    def _build_graph(self, target_policy: SACPolicy) -> Tuple[List[tf.Tensor], Dict[bool, Tuple[dict, list]]]:
        self.target_policy = target_policy
        with tf.variable_scope("model", reuse=False):
            nets = self._build_actor_and_critics()
            self._build_entropy_coefficient(_parse_ent_coef(self._ent_coef_spec))
        with tf.variable_scope("target", reuse=False):
            _, _, self.value_target = target_policy.make_critics(self.processed_next_obs_ph, create_qf=False,
                                                                 create_vf=True)
        with tf.variable_scope("loss", reuse=False):
            sources, targets, target_init_op = self._build_training(nets)
        self.params = tf_util.get_trainable_vars("model")
        self.target_params = tf_util.get_trainable_vars("target/values_fn/vf")
        # acting in NumPy (MLP actors), its weights fetched by each training step: built, as the single-call
        # training steps, before the session first runs
        self.fast_path.enable(self.policy_tf)
        return target_init_op, self._single_call_specs(sources, targets)

    def _build_actor_and_critics(self) -> Dict[str, tf.Tensor]:
        """
        In the scope ``model``: the actor and the critics on the minibatch's observations.

        :return: ({str: tf.Tensor}) ``qf1``, ``qf2`` and ``value_fn`` (on the minibatch's actions), ``qf1_pi`` and
            ``qf2_pi`` (on the actor's actions), ``logp_pi`` (their log-likelihood)
        """
        policy, obs = self.policy_tf, self.processed_obs_ph
        self.deterministic_action, sampled_action, logp_pi = policy.make_actor(obs)
        self.entropy = tf.reduce_mean(policy.entropy)  # monitored only
        qf1, qf2, self.value_fn = policy.make_critics(obs, self.actions_ph, create_qf=True, create_vf=True)
        qf1_pi, qf2_pi, _ = policy.make_critics(obs, sampled_action, create_qf=True, create_vf=False, reuse=True)
        return dict(qf1=qf1, qf2=qf2, value_fn=self.value_fn, qf1_pi=qf1_pi, qf2_pi=qf2_pi, logp_pi=logp_pi)

    def _resolve_target_entropy(self) -> float:
        """:return: (float) the target entropy ('auto': minus the dimension of the action space)"""
        if isinstance(self.target_entropy, str) and self.target_entropy == 'auto':
            return -float(np.prod(self._built(self.action_space, "action_space").shape))
        try:
            return float(self.target_entropy)
        except (TypeError, ValueError):
            raise ValueError("target_entropy must be 'auto' or a float, got {!r}"
                             .format(self.target_entropy)) from None

    def _build_entropy_coefficient(self, initial_value: Optional[float]) -> None:
        """
        The entropy coefficient: ``exp(log_ent_coef)`` of a variable when learned (``initial_value`` given), else
        the fixed number of ``ent_coef``.
        """
        self.target_entropy = self._resolve_target_entropy()
        if initial_value is None:
            self.log_ent_coef, self.ent_coef = None, float(self._ent_coef_spec)
            return
        self.log_ent_coef = tf.get_variable('log_ent_coef', dtype=tf.float32,
                                            initializer=np.log(initial_value).astype(np.float32))
        self.ent_coef = tf.exp(self.log_ent_coef)

    def _build_training(self, nets: Dict[str, tf.Tensor]) -> Tuple[list, list, list]:
        """
        In the scope ``loss``: the losses, the optimizers, the target-network updates and the summaries. The actor
        is updated first (the value targets and the logged values read it before), then the critics, then the
        entropy coefficient.

        :param nets: ({str: tf.Tensor}) the result of :meth:`_build_actor_and_critics`
        :return: ([tf.Variable], [tf.Variable], [tf.Tensor]) the value network's variables, those of its target,
            and the assignments copying the first into the second
        """
        logp_pi, ent_coef = nets["logp_pi"], self.ent_coef
        min_qf_pi = tf.minimum(nets["qf1_pi"], nets["qf2_pi"])
        # soft Bellman target of the Q-functions, through the target value network
        q_backup = tf.stop_gradient(self.rewards_ph + (1 - self.terminals_ph) * self.gamma * self.value_target)
        qf1_loss = _half_mse(q_backup, nets["qf1"])
        qf2_loss = _half_mse(q_backup, nets["qf2"])
        ent_coef_loss = ent_coef_optimizer = None
        if self.log_ent_coef is not None:
            ent_coef_loss = -tf.reduce_mean(self.log_ent_coef * tf.stop_gradient(logp_pi + self.target_entropy))
            ent_coef_optimizer = tf.train.AdamOptimizer(learning_rate=self.learning_rate_ph)
        policy_loss = tf.reduce_mean(ent_coef * logp_pi - nets["qf1_pi"])
        # the value network regresses on the smaller Q-value minus the entropy term
        v_backup = tf.stop_gradient(min_qf_pi - ent_coef * logp_pi)
        value_loss = _half_mse(nets["value_fn"], v_backup)
        critics_loss = qf1_loss + qf2_loss + value_loss

        actor_optimizer = tf.train.AdamOptimizer(learning_rate=self.learning_rate_ph)
        with tf.control_dependencies([v_backup, policy_loss, logp_pi, self.entropy]):
            actor_update = actor_optimizer.minimize(policy_loss, var_list=tf_util.get_trainable_vars('model/pi'))
        critics_optimizer = tf.train.AdamOptimizer(learning_rate=self.learning_rate_ph)
        critics_params = tf_util.get_trainable_vars('model/values_fn')
        sources, targets = mirrored_variables("model/values_fn/vf", "target/values_fn/vf")
        self.target_update_op = polyak_updates(sources, targets, self.tau)
        target_init_op = hard_updates(sources, targets)

        losses = dict(policy_loss=policy_loss, qf1_loss=qf1_loss, qf2_loss=qf2_loss, value_loss=value_loss,
                      entropy=self.entropy)
        with tf.control_dependencies([actor_update]):
            critics_update = critics_optimizer.minimize(critics_loss, var_list=critics_params)
            self._updates = [actor_update, critics_update]
            self.step_ops = [policy_loss, qf1_loss, qf2_loss, value_loss, nets["qf1"], nets["qf2"],
                             nets["value_fn"], logp_pi, self.entropy] + self._updates
            if ent_coef_loss is not None and ent_coef_optimizer is not None:
                with tf.control_dependencies([critics_update]):
                    ent_coef_update = ent_coef_optimizer.minimize(ent_coef_loss, var_list=self.log_ent_coef)
                    losses.update(ent_coef_loss=ent_coef_loss, ent_coef=ent_coef)
                    self._updates.append(ent_coef_update)
                    self.step_ops += [ent_coef_update, ent_coef_loss, ent_coef]
        self._losses = losses
        self.infos_names = list(losses)
        for name, value in losses.items():
            tf.summary.scalar(name, value)
        tf.summary.scalar('learning_rate', tf.reduce_mean(self.learning_rate_ph))
        return sources, targets, target_init_op

    def _single_call_specs(self, sources: list, targets: list) -> dict:
        """
        The training steps in one session call (without a tensorboard writer): the updates, then, when it is
        due, the soft update of the target value network reading the updated weights.

        :param sources: ([tf.Variable]) the value network
        :param targets: ([tf.Variable]) its target copy
        :return: ({bool: (fetches, updates)}) by ``delayed_update``
        """
        with tf.control_dependencies(self._updates):
            target_update = polyak_updates(sources, targets, self.tau, fresh_reads=True)
        return {delayed: self._single_call_spec(self._losses, self._updates + (target_update if delayed else []),
                                                actor_changes=True)
                for delayed in (False, True)}

    def _train_step_with_run(self, step: int, writer: Any, learning_rate: float, batch: tuple,
                             delayed_update: bool) -> Dict[str, Any]:
        values = self._run_train_ops(self._losses, self._updates, batch, learning_rate, writer, step)
        if delayed_update:
            tf_util.session_run(self._built(self.sess, "sess"), self.target_update_op)
        return values

    # ---------------------------------------------------------------------------------------------- use
    def learn(self, total_timesteps: int, callback: Any = None,  # type: ignore[override]
              log_interval: Optional[int] = 4, tb_log_name: str = "SAC", reset_num_timesteps: bool = True,
              replay_wrapper: Optional[Callable] = None, progress_bar: bool = False) -> "SAC":
        """Train the model (the arguments are those of :meth:`OffPolicyRLModel.learn`); return it."""
        return self._run_loop(total_timesteps, callback, log_interval, tb_log_name, reset_num_timesteps,
                              replay_wrapper, progress_bar)

    def _predict_action(self, observation: np.ndarray, deterministic: bool) -> np.ndarray:
        # deterministic: the mean action, else one sampled from the actor
        if self.policy_tf is None:
            raise ValueError("The model is not set up: call setup_model() (or create it with "
                             "_init_setup_model=True) before predict()")
        return self._predict_squashed(observation, deterministic, False, deterministic=deterministic)

    def _setting_to_save(self, name: str) -> Any:
        # ent_coef is a tensor when learned: save what was asked for ('auto...' or the number)
        value = self._ent_coef_spec if name == "ent_coef" else getattr(self, name)
        if name in ("ent_coef", "target_entropy") and not isinstance(value, str):
            value = float(value)
        return value
