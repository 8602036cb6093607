"""Twin Delayed DDPG (TD3): clipped double Q-learning, delayed policy updates and target policy smoothing."""
from typing import Any, Callable, Dict, List, Optional, Tuple, Union

import numpy as np

from stable_baselines.common import tf_util
from stable_baselines.common.math_util import unscale_action
from stable_baselines.common.model.squashed_actor import SQUASHED_SETTINGS_DOC, SquashedActorModel
from stable_baselines.common.engine.target_updates import hard_updates, mirrored_variables, polyak_updates
from stable_baselines.common.tf_compat import tf
from stable_baselines.td3.policies import TD3Policy


def _mse(first: tf.Tensor, second: tf.Tensor) -> tf.Tensor:
    """:return: (tf.Tensor) the mean squared difference of two tensors"""
    return tf.reduce_mean((first - second) ** 2)


class TD3(SquashedActorModel):
    __doc__ = """
    Twin Delayed DDPG: a deterministic actor and two Q-functions; the Bellman target takes the smaller of the two
    target Q-values at a noisy target action, and the actor and the target networks are updated less often than
    the Q-functions.
    Paper: https://arxiv.org/pdf/1802.09477.pdf (authors' code: https://github.com/sfujim/TD3); an introduction:
    https://spinningup.openai.com/en/latest/algorithms/td3.html

    :param policy: (TD3Policy or str) the policy (MlpPolicy, CnnPolicy, LnMlpPolicy, LnCnnPolicy or a subclass)
    :param env: (Gym environment or str) the environment to learn from (a registered id is made with gym)
    :param gamma: (float) discount factor
    :param learning_rate: (float or callable) Adam's learning rate of the actor and the Q-functions; a function
        of the remaining progress (1 at the start, 0 at the end) makes a schedule
    :param buffer_size: (int) capacity of the replay buffer
    :param learning_starts: (int) steps of uniform random actions before training begins
    :param train_freq: (int) train every ``train_freq`` steps
    :param gradient_steps: (int) gradient steps per training round
    :param batch_size: (int) minibatch size of a gradient step
    :param tau: (float) Polyak coefficient of the target networks (0: frozen, 1: copied)
    :param policy_delay: (int) the actor and the target networks are updated at one gradient step out of
        ``policy_delay``, the Q-functions at every one
    :param action_noise: (ActionNoise) noise added to the actor's actions for exploration (see DDPG's noises)
    :param target_policy_noise: (float) standard deviation of the Gaussian noise on the target action
    :param target_noise_clip: (float) bound of the absolute value of that noise
""" + SQUASHED_SETTINGS_DOC

    algorithm_name = "TD3"
    _saved_settings = ("learning_rate", "buffer_size", "learning_starts", "train_freq", "gradient_steps",
                       "batch_size", "tau", "policy_delay", "target_noise_clip", "target_policy_noise",
                       "gamma", "action_noise", "random_exploration")
    _no_probability_error = "Error: TD3 does not have action probabilities."
    _no_probability_warning = "Warning: action probability is meaningless for TD3. Returning None"

    def __init__(self, policy: Any, env: Any, gamma: float = 0.99, learning_rate: Union[float, Callable] = 3e-4,
                 buffer_size: int = 50000, learning_starts: int = 100, train_freq: int = 100,
                 gradient_steps: int = 100, batch_size: int = 128, tau: float = 0.005, policy_delay: int = 2,
                 action_noise: Any = None, target_policy_noise: float = 0.2, target_noise_clip: float = 0.5,
                 random_exploration: float = 0.0, verbose: int = 0, tensorboard_log: Optional[str] = None,
                 _init_setup_model: bool = True, policy_kwargs: Optional[Dict[str, Any]] = None,
                 full_tensorboard_log: bool = False, seed: Optional[int] = None,
                 n_cpu_tf_sess: Optional[int] = None) -> None:
        super(TD3, self).__init__(policy, env, TD3Policy, gamma, learning_rate, buffer_size, learning_starts,
                                  train_freq, batch_size, tau, gradient_steps, action_noise, random_exploration,
                                  verbose, tensorboard_log, policy_kwargs, full_tensorboard_log, seed, n_cpu_tf_sess,
                                  ("policy_delay", policy_delay))
        self.policy_delay = policy_delay
        self.target_policy_noise, self.target_noise_clip = target_policy_noise, target_noise_clip
        self.target_policy_tf: Optional[TD3Policy] = None
        self.policy_out: Any = None
        self.policy_loss: Any = None
        self.policy_train_op: Any = None
        self.target_ops: Optional[List[Any]] = None
        # the critics' update, run at every gradient step
        self._critics_update: Any = None

        self._check_action_space()
        if _init_setup_model:
            self.setup_model()

    def _delayed_update_interval(self) -> int:
        return self.policy_delay

    def _get_pretrain_placeholders(self) -> Tuple[tf.Tensor, tf.Tensor, tf.Tensor]:
        # the actor acts in [-1, 1]: pretraining compares its actions rescaled to the bounds of the expert's
        return self.policy_tf.obs_ph, self.actions_ph, unscale_action(self._built(self.action_space, "action_space"),
                                                                      self.policy_out)

    # ---------------------------------------------------------------------------------------------- graph
    def _build_graph(self, target_policy: TD3Policy) -> Tuple[List[tf.Tensor], Dict[bool, Tuple[dict, list]]]:
        self.target_policy_tf = target_policy
        with tf.variable_scope("model", reuse=False):
            self.policy_out = self.policy_tf.make_actor(self.processed_obs_ph)
            qf1, qf2 = self.policy_tf.make_critics(self.processed_obs_ph, self.actions_ph)
        with tf.variable_scope("target", reuse=False):
            qf_targets = self._build_smoothed_target_critics()
        with tf.variable_scope("loss", reuse=False):
            self._build_critics_training(qf1, qf2, qf_targets)
        self._build_actor_training()
        with tf.variable_scope("loss", reuse=False):
            target_init_op = self._build_target_updates()
            self.step_ops = [self._losses["qf1_loss"], self._losses["qf2_loss"], qf1, qf2, self._critics_update]
            tf.summary.scalar('policy_loss', self.policy_loss)
            for name, loss in self._losses.items():
                tf.summary.scalar(name, loss)
            tf.summary.scalar('learning_rate', tf.reduce_mean(self.learning_rate_ph))
        self.params = tf_util.get_trainable_vars("model")
        self.target_params = tf_util.get_trainable_vars("target/")
        # acting in NumPy (MLP actors), its weights fetched after each actor update; the single-call training
        # steps are built before the session first runs
        self.fast_path.enable(self.policy_tf)
        delayed_updates = [self._critics_update, self.policy_train_op] + self._built(self.target_ops, "target_ops")
        return target_init_op, {
            False: self._single_call_spec(self._losses, [self._critics_update], actor_changes=False),
            True: self._single_call_spec(self._losses, delayed_updates, actor_changes=True)}

    def _build_smoothed_target_critics(self) -> Tuple[tf.Tensor, tf.Tensor]:
        """
        In the scope ``target``: the target actor's action on the next observations plus clipped Gaussian noise
        (target policy smoothing), kept in [-1, 1], and the two target Q-values of it.

        :return: (tf.Tensor, tf.Tensor) the target Q-values
        """
        target_policy = self._built(self.target_policy_tf, "target_policy_tf")
        target_action = target_policy.make_actor(self.processed_next_obs_ph)
        noise = tf.random_normal(tf.shape(target_action), stddev=self.target_policy_noise)
        noise = tf.clip_by_value(noise, -self.target_noise_clip, self.target_noise_clip)
        smoothed_action = tf.clip_by_value(target_action + noise, -1, 1)
        return target_policy.make_critics(self.processed_next_obs_ph, smoothed_action)

    def _build_critics_training(self, qf1: tf.Tensor, qf2: tf.Tensor,
                                qf_targets: Tuple[tf.Tensor, tf.Tensor]) -> None:
        """In the scope ``loss``: the clipped double-Q target, the critics' losses and their update."""
        min_qf_target = tf.minimum(*qf_targets)
        q_backup = tf.stop_gradient(self.rewards_ph + (1 - self.terminals_ph) * self.gamma * min_qf_target)
        self._losses = dict(qf1_loss=_mse(q_backup, qf1), qf2_loss=_mse(q_backup, qf2))
        self.infos_names = list(self._losses)
        critics_loss = self._losses["qf1_loss"] + self._losses["qf2_loss"]
        optimizer = tf.train.AdamOptimizer(learning_rate=self.learning_rate_ph)
        self._critics_update = optimizer.minimize(critics_loss, var_list=tf_util.get_trainable_vars('model/values_fn/'))

    def _build_actor_training(self) -> None:
        """
        The actor's loss (minus the first Q-value of its action) and update, both after the critics' update of the
        same gradient step, as in the paper.
        """
        with tf.control_dependencies([self._critics_update]):
            with tf.variable_scope("model", reuse=True):
                qf1_pi, _ = self.policy_tf.make_critics(self.processed_obs_ph, self.policy_out, reuse=True)
            with tf.variable_scope("loss", reuse=False):
                self.policy_loss = -tf.reduce_mean(qf1_pi)
                optimizer = tf.train.AdamOptimizer(learning_rate=self.learning_rate_ph)
                self.policy_train_op = optimizer.minimize(self.policy_loss,
                                                          var_list=tf_util.get_trainable_vars('model/pi'))

    def _build_target_updates(self) -> List[tf.Tensor]:
        """
        The soft updates of every target network, after the actor's update (``self.target_ops``).

        :return: ([tf.Tensor]) the assignments copying the networks into their targets
        """
        sources, targets = mirrored_variables("model/", "target/")
        with tf.control_dependencies([self.policy_train_op]):
            self.target_ops = polyak_updates(sources, targets, self.tau)
        return hard_updates(sources, targets)

    def _train_step_with_run(self, step: int, writer: Any, learning_rate: float, batch: tuple,
                             delayed_update: bool) -> Dict[str, Any]:
        updates = [self._critics_update]
        if delayed_update:
            updates += [self.policy_train_op, self.target_ops]
        return self._run_train_ops(self._losses, updates, batch, learning_rate, writer, step)

    # ---------------------------------------------------------------------------------------------- use
    def learn(self, total_timesteps: int, callback: Any = None,  # type: ignore[override]
              log_interval: Optional[int] = 4, tb_log_name: str = "TD3", reset_num_timesteps: bool = True,
              replay_wrapper: Optional[Callable] = None, progress_bar: bool = False) -> "TD3":
        """Train the model (the arguments are those of :meth:`OffPolicyRLModel.learn`); return it."""
        return self._run_loop(total_timesteps, callback, log_interval, tb_log_name, reset_num_timesteps,
                              replay_wrapper, progress_bar)

    def _predict_action(self, observation: np.ndarray, deterministic: bool) -> np.ndarray:
        # deterministic: the actor's action, else with the model's action noise added
        if self.policy_tf is None:
            raise RuntimeError("The model has no network yet: call setup_model() (or construct it with "
                               "_init_setup_model=True) before predict()")
        noisy = self.action_noise is not None and not deterministic
        return self._predict_squashed(observation, not noisy, noisy)
