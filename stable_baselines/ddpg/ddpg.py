"""
Deep Deterministic Policy Gradient (DDPG): the model class, its hyper-parameters, acting, the training step and
saving. The graph is built by :mod:`stable_baselines.ddpg.graph`; training runs the off-policy loop shared with
DQN, SAC and TD3, whose hooks in :mod:`stable_baselines.ddpg.cycles` make DDPG's rollout, training and evaluation
cycles; the logged statistics come from :mod:`stable_baselines.ddpg.statistics`.

Data parallelism uses MPI: every worker steps its own environment, :class:`~stable_baselines.common.mpi_adam.MpiAdam`
averages the gradients and :class:`~stable_baselines.common.mpi_running_mean_std.RunningMeanStd` the observation
statistics, so all workers hold the same networks.
"""
import warnings
from typing import Any, Callable, Dict, List, Optional, Tuple

import numpy as np
from mpi4py import MPI

from stable_baselines.common import tf_util
from stable_baselines.common.base_class import SetVerbosity, _UnvecWrapper, _predict_input
from stable_baselines.common.model.arguments import check_gamma, check_learning_rate, check_positive_int
from stable_baselines.common.buffers import ReplayBuffer
from stable_baselines.common.export import UNSCALE, ExportSpec, box_spec
from stable_baselines.common.gym_compat import as_gymnasium_env
from stable_baselines.common.math_util import unscale_action
from stable_baselines.common.noise import draw_action_noise
from stable_baselines.common.storage.persistence import SettingKind
from stable_baselines.common.safe_loading.saved_objects import LegacyReplayMemory
from stable_baselines.common.structured_obs import packed_width
from stable_baselines.common.tf_compat import tf
from stable_baselines.common.vec_env import VecEnv
from stable_baselines.ddpg.cycles import DDPGCycles, DDPGRun
from stable_baselines.ddpg.graph import (DDPGGraph, denormalize, get_perturbable_vars,  # noqa: F401 (public)
                                         get_perturbed_actor_updates, get_target_updates, normalize, reduce_std,
                                         reduce_var)
from stable_baselines.ddpg.policies import DDPGPolicy
from stable_baselines.ddpg.statistics import reference_feed

__all__ = ["DDPG", "normalize", "denormalize", "reduce_std", "reduce_var", "get_target_updates",
           "get_perturbable_vars", "get_perturbed_actor_updates"]


class DDPG(DDPGGraph, DDPGCycles):
    """
    Deep Deterministic Policy Gradient (DDPG), https://arxiv.org/pdf/1509.02971.pdf

    :param policy: (DDPGPolicy or str) the policy class, or its name (MlpPolicy, CnnPolicy, LnMlpPolicy, ...)
    :param env: (Gym environment or str) the environment to learn from (a registered id is made with gym)
    :param gamma: (float) the discount factor of future rewards
    :param memory_policy: (ReplayBuffer) ignored; a ReplayBuffer is always used

        .. deprecated:: 2.6.0
            Ignored, and to be removed.

    :param eval_env: (Gym Environment) an environment for evaluation steps after each cycle (None: no evaluation)
    :param nb_train_steps: (int) gradient steps per cycle
    :param nb_rollout_steps: (int) environment steps per cycle
    :param nb_eval_steps: (int) evaluation steps per cycle
    :param param_noise: (AdaptiveParamNoiseSpec) parameter-space noise of the actor (None: none)
    :param action_noise: (ActionNoise) noise added to the actions while exploring (None: none)
    :param param_noise_adaption_interval: (int) gradient steps between two adaptations of the parameter noise
    :param tau: (float) weight of the network in the soft update of its target network (between 0 and 1)
    :param normalize_returns: (bool) learn a critic of standardised returns
    :param enable_popart: (bool) keep the critic's outputs when the return statistics change (Pop-Art,
        https://arxiv.org/pdf/1602.07714.pdf); needs normalize_returns=True
    :param normalize_observations: (bool) standardise the observations with running statistics
    :param batch_size: (int) minibatch size of a gradient step
    :param observation_range: (tuple) (low, high) the observations are clipped to
    :param return_range: (tuple) (low, high) the critic outputs are clipped to
    :param critic_l2_reg: (float) weight of the L2 penalty on the critic's weights
    :param actor_lr: (float) learning rate of the actor
    :param critic_lr: (float) learning rate of the critic
    :param clip_norm: (float) clip the gradients to this global norm (None: no clipping)
    :param reward_scale: (float) factor applied to the rewards stored in the replay buffer
    :param render: (bool) render the environment at every step
    :param render_eval: (bool) render the evaluation environment at every evaluation step
    :param memory_limit: (int) the size of the replay buffer

        .. deprecated:: 2.6.0
            Use `buffer_size` instead.

    :param buffer_size: (int) the size of the replay buffer (number of transitions)
    :param random_exploration: (float) probability of a uniformly random action instead of the actor's (an
        epsilon-greedy exploration; not usual for DDPG, it helps with HER as in the original OpenAI Baselines)
    :param verbose: (int) 0 quiet, 1 training information, 2 also TensorFlow's and the graph construction messages
    :param tensorboard_log: (str) folder of the tensorboard logs (None: no logs)
    :param _init_setup_model: (bool) build the network when the model is created
    :param policy_kwargs: (dict) extra arguments of the policy's constructor
    :param full_tensorboard_log: (bool) also log histograms and run metadata to tensorboard (takes a lot of space)
    :param seed: (int) seed of Python's, NumPy's and TensorFlow's generators (None: not seeded); runs are
        only reproducible with ``n_cpu_tf_sess=1``
    :param n_cpu_tf_sess: (int) TensorFlow's number of threads (None: as many as the machine has)
    """

    algorithm_name = "DDPG"
    _saved_settings = ("observation_space", "action_space", "nb_eval_steps", "param_noise_adaption_interval",
                       "nb_train_steps", "nb_rollout_steps", "verbose", "param_noise", "action_noise",
                       "gamma", "tau", "normalize_returns", "enable_popart", "normalize_observations",
                       "batch_size", "observation_range", "return_range", "critic_l2_reg", "actor_lr",
                       "critic_lr", "clip_norm", "reward_scale", "memory_limit", "buffer_size",
                       "random_exploration", "render", "render_eval")
    # files of library versions before 2.6 name the removed replay memory class (ignored)
    _setting_kinds = {"memory_policy": SettingKind("the replay memory class of library versions before 2.6",
                                                   lambda value: value is None or value is LegacyReplayMemory)}

    def __init__(self, policy: Any, env: Any, gamma: float = 0.99, memory_policy: Any = None, eval_env: Any = None,
                 nb_train_steps: int = 50, nb_rollout_steps: int = 100, nb_eval_steps: int = 100,
                 param_noise: Any = None, action_noise: Any = None, normalize_observations: bool = False,
                 tau: float = 0.001, batch_size: int = 128, param_noise_adaption_interval: int = 50,
                 normalize_returns: bool = False, enable_popart: bool = False,
                 observation_range: Tuple[float, float] = (-5., 5.), critic_l2_reg: float = 0.,
                 return_range: Tuple[float, float] = (-np.inf, np.inf), actor_lr: float = 1e-4,
                 critic_lr: float = 1e-3, clip_norm: Optional[float] = None, reward_scale: float = 1.,
                 render: bool = False, render_eval: bool = False, memory_limit: Optional[int] = None,
                 buffer_size: int = 50000, random_exploration: float = 0.0, verbose: int = 0,
                 tensorboard_log: Optional[str] = None, _init_setup_model: bool = True,
                 policy_kwargs: Optional[Dict[str, Any]] = None, full_tensorboard_log: bool = False,
                 seed: Optional[int] = None, n_cpu_tf_sess: Optional[int] = 1) -> None:
        check_gamma(gamma)
        check_learning_rate(actor_lr, name="actor_lr", schedule_allowed=False)
        check_learning_rate(critic_lr, name="critic_lr", schedule_allowed=False)
        for name, value in (("nb_rollout_steps", nb_rollout_steps), ("batch_size", batch_size),
                            ("param_noise_adaption_interval", param_noise_adaption_interval)):
            check_positive_int(name, value)
        super(DDPG, self).__init__(policy=policy, env=env, replay_buffer=None, verbose=verbose,
                                   policy_base=DDPGPolicy, requires_vec_env=False, policy_kwargs=policy_kwargs,
                                   seed=seed, n_cpu_tf_sess=n_cpu_tf_sess)
        if memory_policy is not None:
            warnings.warn("memory_policy will be removed in a future version (v3.x.x) "
                          "it is now ignored and replaced with ReplayBuffer", stacklevel=2)
        if memory_limit is not None:
            warnings.warn("memory_limit will be removed in a future version (v3.x.x) "
                          "use buffer_size instead", stacklevel=2)
            buffer_size = memory_limit

        # hyper-parameters
        self.gamma, self.tau = gamma, tau
        self.normalize_observations, self.normalize_returns = normalize_observations, normalize_returns
        self.enable_popart, self.random_exploration = enable_popart, random_exploration
        self.action_noise, self.param_noise = action_noise, param_noise
        self.observation_range, self.return_range = observation_range, return_range
        self.actor_lr, self.critic_lr, self.clip_norm = actor_lr, critic_lr, clip_norm
        self.reward_scale, self.batch_size, self.critic_l2_reg = reward_scale, batch_size, critic_l2_reg
        self.eval_env, self.render, self.render_eval = eval_env, render, render_eval
        self.nb_eval_steps, self.nb_train_steps, self.nb_rollout_steps = nb_eval_steps, nb_train_steps, nb_rollout_steps
        self.param_noise_adaption_interval, self.buffer_size = param_noise_adaption_interval, buffer_size
        self.memory_limit = memory_limit
        self.tensorboard_log, self.full_tensorboard_log = tensorboard_log, full_tensorboard_log

        # the graph (built by setup_model, see stable_baselines.ddpg.graph)
        self.graph = self.sess = self.summary = None
        self.policy_tf = self.target_policy = self.param_noise_actor = self.adaptive_param_noise_actor = None
        self.obs_rms = self.ret_rms = None
        self.obs_train = self.action_train_ph = self.obs_target = self.action_target = None
        self.obs_noise = self.action_noise_ph = self.obs_adapt_noise = self.action_adapt_noise = None
        self.terminals_ph = self.rewards = self.actions = self.critic_target = self.param_noise_stddev = None
        self.actor_tf = self.normalized_critic_tf = self.normalized_critic_with_actor_tf = None
        self.critic_tf = self.critic_with_actor_tf = self.target_q = None
        self.perturbed_actor_tf = self.adaptive_policy_distance = None
        self.perturb_policy_ops = self.perturb_adaptive_policy_ops = None
        self.old_std = self.old_mean = self.renormalize_q_outputs_op = None
        self.stats_ops = self.stats_names = None
        self.target_init_updates = self.target_soft_updates = None
        self.actor_loss = self.actor_grads = self.actor_optimizer = None
        self.critic_loss = self.critic_grads = self.critic_optimizer = None
        self.params = self.target_params = self.obs_rms_params = self.ret_rms_params = None
        # training
        self.replay_buffer = None
        # the replay-buffer batch of the reference statistics (drawn once)
        self.stats_sample: Optional[Dict[str, np.ndarray]] = None
        self.tb_seen_steps = None  # the steps whose run metadata went to tensorboard

        self._check_action_space()
        if _init_setup_model:
            self.setup_model()

    # ------------------------------------------------------------------------------------------------- checks
    def _check_hyper_parameters(self) -> None:
        """Raise a ValueError naming the hyper-parameter that cannot work, and what it got."""
        if self.enable_popart and not self.normalize_returns:
            raise ValueError("Error: enable_popart=True needs normalize_returns=True (Pop-Art rescales the "
                             "normalized critic output), got normalize_returns={!r}".format(self.normalize_returns))
        for name in ("observation_range", "return_range"):
            bounds = getattr(self, name)
            if bounds is None or len(bounds) != 2 or not bounds[0] <= bounds[1]:
                raise ValueError("Error: {} must be a (low, high) pair with low <= high, got {!r}".format(name,
                                                                                                        bounds))
        # nb_train_steps=0 collects experience without training, as in the original (the other counts are
        # checked by the constructor)
        value = self.nb_train_steps
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 0:
            raise ValueError("Error: nb_train_steps must be an int >= 0, got {!r}".format(value))

    def _get_pretrain_placeholders(self) -> Tuple[tf.Tensor, tf.Tensor, tf.Tensor]:
        """:return: (tf.Tensor, tf.Tensor, tf.Tensor) observations, expert actions, the actor's rescaled actions"""
        return self.policy_tf.obs_ph, self.actions, unscale_action(self.action_space, self.actor_tf)

    # ------------------------------------------------------------------------------------------------- graph
    def setup_model(self) -> None:
        with SetVerbosity(self.verbose):
            self._check_policy_class()
            self._check_action_space()
            self._check_hyper_parameters()
            self.graph = tf.Graph()
            with self.graph.as_default():
                self.set_random_seed(self.seed)
                self.sess = tf_util.make_session(num_cpu=self.n_cpu_tf_sess, graph=self.graph)
                self.replay_buffer = ReplayBuffer(self.buffer_size)
                self._build_graph()
                with self.sess.as_default():
                    self._initialize(self.sess)
                self.summary = tf.summary.merge_all()

    def _initialize(self, sess: tf.Session) -> None:
        """
        Initialise the variables, give every MPI worker the parameters of rank 0 and copy the networks into
        their targets.

        :param sess: (TensorFlow Session) the model's session
        """
        self.sess = sess
        sess.run(tf.global_variables_initializer())
        for optimizer in (self.actor_optimizer, self.critic_optimizer):
            self._built(optimizer, "optimizer").sync()
        sess.run(self.target_init_updates)

    # ------------------------------------------------------------------------------------------------- acting
    def _add_action_noise(self, action: np.ndarray) -> None:
        """
        Add one draw of ``action_noise`` to every row of ``action`` (in place).

        :param action: (np.ndarray) the actions, shape (n_batch,) + action shape
        """
        action += draw_action_noise(self.action_noise, self._built(self.action_space, "action_space"))

    def _policy(self, obs: np.ndarray, apply_noise: bool = True, compute_q: bool = True) -> Tuple[np.ndarray, Any]:
        """
        The actor's actions, and optionally the critic's value of them.

        :param obs: ([float] or [int]) one observation, or a batch
        :param apply_noise: (bool) act with the perturbed actor (parameter noise) and add the action noise
        :param compute_q: (bool) also compute the critic's value
        :return: (np.ndarray, np.ndarray) the actions in [-1, 1], shape (n_batch,) + action shape, and their
            values (None when ``compute_q`` is False)
        """
        space = self._built(self.observation_space, "observation_space")
        # structured spaces: the packed rows of common.structured_obs
        obs_shape: Tuple[int, ...] = tuple(space.shape or (packed_width(space),))
        obs = np.array(obs).reshape((-1,) + obs_shape)
        perturbed = apply_noise and self.param_noise is not None
        fetches = [self.perturbed_actor_tf if perturbed else self.actor_tf]
        if compute_q:
            fetches.append(self.critic_with_actor_tf)
        feeds = [self.obs_train, self.obs_noise] if perturbed else [self.obs_train]
        values = self._session_callable(("act", perturbed, compute_q), fetches, feeds)(*[obs] * len(feeds))
        action, q_value = values[0], values[1] if compute_q else None
        if apply_noise and self.action_noise is not None:
            self._add_action_noise(action)
        return np.clip(action, -1, 1), q_value

    def _reset(self) -> None:
        """At the start of an episode: reset the action noise and draw a new perturbation of the actor."""
        noise, spec = self.action_noise, self.param_noise
        if noise is not None:
            noise.reset()
        if spec is not None:
            tf_util.session_run(self._built(self.sess, "sess"), self.perturb_policy_ops,
                                {self.param_noise_stddev: spec.current_stddev})

    def _eval_env(self) -> Any:
        """:return: (gymnasium.Env) the evaluation env seen as one env (a one-env VecEnv unwrapped), or None"""
        if self.eval_env is None:
            return None
        if not isinstance(self.eval_env, VecEnv):
            self.eval_env = as_gymnasium_env(self.eval_env)
        elif not isinstance(self.eval_env, _UnvecWrapper):
            self.eval_env = _UnvecWrapper(self.eval_env)
        return self.eval_env

    # ------------------------------------------------------------------------------------------------- training
    def _store_transition(self, state: DDPGRun, reward_scale: Optional[float] = None) -> Tuple[Any, float]:
        """
        Count the step in the rollout, store its transition as the other off-policy models do (the reward
        multiplied by ``reward_scale``), and count its observation in the observation statistics.

        :param state: (DDPGRun) the loop state, with the step just taken (its action in [-1, 1])
        :param reward_scale: (float) unused: DDPG's own ``reward_scale`` applies
        :return: (Any, float) the unnormalized new observation and reward
        """
        self._count_step(state)
        new_obs_, reward_ = super()._store_transition(state, self.reward_scale)
        if self.obs_rms is not None:
            self.obs_rms.update(np.array([state.obs_]))
        return new_obs_, reward_

    def _sample(self) -> tuple:
        """:return: (tuple) a minibatch of the replay buffer: observations, actions, rewards, next obs, dones"""
        return self.replay_buffer.sample(batch_size=self.batch_size, env=self._vec_normalize_env)

    def _target_q_values(self, next_obs: np.ndarray, rewards: np.ndarray, terminals: np.ndarray) -> np.ndarray:
        """
        The TD targets of a minibatch; with Pop-Art, first update the return statistics with them and rescale
        the critics' output layers.

        :return: (np.ndarray) the targets, shape (n_batch, 1)
        """
        if not (self.enable_popart and self.normalize_returns):
            target_q = self._session_callable("target_q", [self.target_q],
                                              [self.obs_target, self.rewards, self.terminals_ph])
            return target_q(next_obs, rewards, terminals)[0]
        feeds = {self.obs_target: next_obs, self.rewards: rewards, self.terminals_ph: terminals}
        sess = self._built(self.sess, "sess")
        stats = self._built(self.ret_rms, "ret_rms")
        mean_before, std_before, target_q = sess.run([stats.mean, stats.std, self.target_q], feed_dict=feeds)
        stats.update(target_q.reshape(-1))
        # it rewrites the critics' output layers: through the choke point that reports written variables
        tf_util.session_run(sess, self.renormalize_q_outputs_op,
                            {self.old_std: np.array([std_before]), self.old_mean: np.array([mean_before])})
        return target_q

    def _train_step(self, step: int, writer: Any, log: bool = False) -> Tuple[float, float]:
        """
        One gradient step of the actor and the critic on a minibatch (gradients averaged over the MPI workers).

        :param step: (int) the tensorboard step
        :param writer: (TensorFlow Summary.writer) the tensorboard writer, or None
        :param log: (bool) with ``full_tensorboard_log``, also record the run metadata (once per step value)
        :return: (float, float) the critic loss and the actor loss
        """
        obs, actions, rewards, next_obs, terminals = self._sample()
        rewards = np.asarray(rewards, dtype=np.float32).reshape(-1, 1)
        terminals = np.asarray(terminals, dtype=np.float32).reshape(-1, 1)
        target_q = self._target_q_values(next_obs, rewards, terminals)

        actor_optimizer = self._built(self.actor_optimizer, "actor_optimizer")
        critic_optimizer = self._built(self.critic_optimizer, "critic_optimizer")
        # the networks' weights read with the gradients: the optimizers need not read them again
        fetches = [self.actor_grads, self.actor_loss, self.critic_grads, self.critic_loss,
                   actor_optimizer.getflat.operation, critic_optimizer.getflat.operation]
        feeds = {self.obs_train: obs, self.actions: actions, self.action_train_ph: actions,
                 self.rewards: rewards, self.critic_target: target_q,
                 self.param_noise_stddev: 0 if self.param_noise is None else self.param_noise.current_stddev}
        # the step is an estimate: the run metadata of a step value is recorded once
        seen = self._built(self.tb_seen_steps, "tb_seen_steps")
        trace = writer is not None and self.full_tensorboard_log and log and step not in seen
        actor_grads, actor_loss, critic_grads, critic_loss, actor_weights, critic_weights = self._run_with_summary(
            fetches, feeds, writer, step, trace)
        actor_optimizer.update(actor_grads, self.actor_lr, current=actor_weights)
        critic_optimizer.update(critic_grads, self.critic_lr, current=critic_weights)
        return critic_loss, actor_loss

    def _run_with_summary(self, fetches: list, feeds: dict, writer: Any, step: int, trace: bool) -> list:
        """
        Run ``fetches``; with a writer, also write the tensorboard summary (and, when ``trace``, the run metadata)
        of ``step``.

        :return: ([Any]) the values of ``fetches``
        """
        if writer is None:
            return self._session_callable("gradients", fetches, list(feeds))(*feeds.values())
        sess = self._built(self.sess, "sess")
        options = metadata = None
        if trace:
            options, metadata = tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE), tf.RunMetadata()
        summary, *values = sess.run([self.summary] + fetches, feeds, options=options, run_metadata=metadata)
        if trace:
            writer.add_run_metadata(metadata, 'step%d' % step)
            self._built(self.tb_seen_steps, "tb_seen_steps").append(step)
        writer.add_summary(summary, step)
        return values

    def _update_target_net(self) -> None:
        """Move the target networks towards the networks (soft update with ``tau``)."""
        self._session_callable("soft_update", [self.target_soft_updates], [])()

    def _adapt_param_noise(self) -> float:
        """
        Perturb the spare copy of the actor with the current noise scale, measure how far its actions move on a
        minibatch (averaged over the MPI workers) and adapt the scale to it.

        :return: (float) the mean distance (0 without parameter noise)
        """
        if self.param_noise is None:
            return 0.
        obs = self._sample()[0]
        spec, comm, sess = self.param_noise, MPI.COMM_WORLD, self._built(self.sess, "sess")
        tf_util.session_run(sess, self.perturb_adaptive_policy_ops, {self.param_noise_stddev: spec.current_stddev})
        local_distance = sess.run(self.adaptive_policy_distance, feed_dict={
            self.obs_adapt_noise: obs, self.obs_train: obs, self.param_noise_stddev: spec.current_stddev})
        mean_distance = comm.allreduce(local_distance, op=MPI.SUM) / comm.Get_size()
        spec.adapt(mean_distance)
        return mean_distance

    def _get_stats(self) -> Dict[str, float]:
        """
        The reference statistics (see :func:`~stable_baselines.ddpg.statistics.stats_ops_and_names`) on a
        minibatch drawn the first time and kept, plus the parameter-noise statistics.

        :return: (dict) name -> value
        """
        if self.stats_sample is None:
            self.stats_sample = dict(zip(('obs', 'actions', 'rewards', 'next_obs', 'terminals'), self._sample()))
        feeds = reference_feed({
            "actions": [self.actions, self.action_train_ph, self.action_target, self.action_adapt_noise,
                        self.action_noise_ph],
            "obs": [self.obs_train, self.obs_target, self.obs_adapt_noise, self.obs_noise]}, self.stats_sample)
        stats = dict(zip(self._built(self.stats_names, "stats_names"),
                         self._built(self.sess, "sess").run(self.stats_ops, feed_dict=feeds)))
        if self.param_noise is not None:
            stats.update(self.param_noise.get_stats())
        return stats

    def learn(self, total_timesteps: int, callback: Any = None,  # type: ignore[override]
              log_interval: Optional[int] = 100, tb_log_name: str = "DDPG", reset_num_timesteps: bool = True,
              replay_wrapper: Optional[Callable] = None, progress_bar: bool = False) -> "DDPG":
        """
        Train the model.

        :param total_timesteps: (int) the number of environment steps to train for
        :param callback: (callable, [callable] or BaseCallback) called at every step with the training loop's
            variables (a function), or at each stage of training (a BaseCallback); returning False stops training
        :param log_interval: (int) the number of cycles (of ``nb_rollout_steps`` steps) between two tables
        :param tb_log_name: (str) the name of the tensorboard run
        :param reset_num_timesteps: (bool) count the timesteps from 0 again (False: continue the count)
        :param replay_wrapper: (ReplayBuffer -> ReplayBuffer) wraps the replay buffer first (e.g. HER's wrapper)
        :param progress_bar: (bool) draw a progress bar over the timesteps (needs tqdm)
        :return: (DDPG) the model, trained
        """
        if log_interval is None:
            # DDPG's log_interval counts rollout cycles and has no "never" (the learn frame checks other values)
            check_positive_int("log_interval", log_interval)
        # the running statistics update through the default session
        with self._built(self.graph, "graph").as_default(), self._built(self.sess, "sess").as_default():
            return self._run_loop(total_timesteps, callback, log_interval, tb_log_name, reset_num_timesteps,
                                  replay_wrapper, progress_bar)

    # ------------------------------------------------------------------------------------------------- predict
    def predict(self, observation: np.ndarray, state: Any = None, mask: Any = None,
                deterministic: bool = True) -> Tuple[np.ndarray, None]:
        """
        The actor's action for an observation (or a batch of them).

        :param observation: (np.ndarray) one observation, or a batch of them
        :param state: (np.ndarray) unused (no recurrent state)
        :param mask: (np.ndarray) unused (no recurrent state)
        :param deterministic: (bool) False adds the model's action noise and acts with the perturbed actor
            (parameter noise), if it has them
        :return: (np.ndarray, None) the action(s) in the bounds of the action space, and no state
        """
        if self.actor_tf is None:
            raise RuntimeError("The model has no network yet: call setup_model() (or construct it with "
                               "_init_setup_model=True) before predict()")
        action_space = self._built(self.action_space, "action_space")
        action_shape: Tuple[int, ...] = tuple(action_space.shape)
        observation, vectorized_env = _predict_input(observation, self._built(self.observation_space,
                                                                              "observation_space"))
        actions, _ = self._policy(observation, apply_noise=not deterministic, compute_q=False)
        actions = unscale_action(action_space, actions.reshape((-1,) + action_shape))
        return (actions if vectorized_env else actions[0]), None

    def action_probability(self, observation: np.ndarray, state: Any = None, mask: Any = None,
                           actions: Any = None, logp: bool = False) -> None:
        """DDPG's actor is deterministic: there is no probability; warns and returns None."""
        _ = np.array(observation)
        if actions is not None:
            raise ValueError("Error: DDPG does not have action probabilities.")
        warnings.warn("Warning: action probability is meaningless for DDPG. Returning None")
        return None

    # ------------------------------------------------------------------------------------------------- saving
    def get_parameter_list(self) -> List[tf.Variable]:
        """:return: ([tf.Variable]) networks (and perturbed actors), targets, then the running statistics"""
        return (self._built(self.params, "params") + self._built(self.target_params, "target_params")
                + self._built(self.obs_rms_params, "obs_rms_params")
                + self._built(self.ret_rms_params, "ret_rms_params"))

    def _select_legacy_arrays(self, params: List[np.ndarray], n_params: int) -> List[np.ndarray]:
        """
        Files written before 2.6 list the network and target arrays twice, the normalisation arrays once:
        from ``2 * (n_network + n_target) + n_norm`` arrays, keep the first ``n_network + n_target`` and the last
        ``n_norm``.

        :param params: ([np.ndarray]) the arrays of the file
        :param n_params: (int) the number of parameters of the model
        :return: ([np.ndarray]) one array per parameter
        """
        if len(params) == n_params:
            return params
        networks = self._built(self.params, "params")
        targets = self._built(self.target_params, "target_params")
        n_nets = len(networks) + len(targets)
        n_norm = len(self._built(self.obs_rms_params, "obs_rms_params")) + len(self._built(self.ret_rms_params,
                                                                                         "ret_rms_params"))
        expected = 2 * n_nets + n_norm
        if len(params) != expected:
            raise ValueError("The file holds {} parameter arrays, the model has {} ({} network, {} target, {} "
                             "normalization); only files with exactly {} arrays (the duplicated lists of "
                             "library versions < 2.6) can be read".format(
                                 len(params), n_params, len(networks), len(targets), n_norm,
                                 expected))
        return list(params[:n_nets]) + (list(params[-n_norm:]) if n_norm > 0 else [])

    @classmethod
    def load(cls, load_path: Any, env: Any = None, custom_objects: Optional[Dict[str, Any]] = None,
             **kwargs: Any) -> "DDPG":
        """
        Load a model from a file.

        :param load_path: (str or file-like) the file
        :param env: (Gym Environment) the environment to run on (None: only for prediction)
        :param custom_objects: (dict) name -> object used instead of the stored value of that name
        :param kwargs: attributes of the model to change on loading
        :return: (DDPG) the model
        """
        model = super(DDPG, cls).load(load_path, env=env, custom_objects=custom_objects, **kwargs)
        # files of library versions < 2.6 hold the buffer size in memory_limit only
        if model.memory_limit is not None and model.buffer_size != model.memory_limit:
            model.buffer_size = model.memory_limit
            model.replay_buffer = ReplayBuffer(model.buffer_size)
        return model

    def _export_spec(self, batch_size: Optional[int] = None) -> ExportSpec:
        """:return: (ExportSpec) the actor's output (without noise), rescaled to the bounds of the action space"""
        return box_spec(self.sess, self.obs_train, self._built(self.actor_tf, "actor_tf"), self.observation_space,
                        self.action_space, UNSCALE)
