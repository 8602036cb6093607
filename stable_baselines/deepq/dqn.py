"""
DQN: Q-learning with a neural network, a replay buffer and a target network, with the usual extensions
(double Q-learning, dueling networks, prioritized replay, parameter-space noise).
"""
from functools import partial
from numbers import Real
from typing import Any, Callable, Dict, List, Optional, Tuple

import numpy as np
from gymnasium import spaces

from stable_baselines import logger
from stable_baselines.common import tf_util
from stable_baselines.common.base_class import OffPolicyRLModel, SetVerbosity, _predict_input
from stable_baselines.common.buffers import PrioritizedReplayBuffer, ReplayBuffer
from stable_baselines.common.gym_compat import reset_env, step_env
from stable_baselines.common.schedules import LinearSchedule
from stable_baselines.common.tf_compat import tf
from stable_baselines.common.vec_env import VecEnv
from stable_baselines.deepq.build_graph import DQNGraph, build_dqn_graph
from stable_baselines.deepq.policies import DQNPolicy

# TensorBoard: every hundredth training step is traced (compute time, memory) into the run metadata
_TRACE_EVERY = 100


def _check_discrete_action_space(action_space: Optional[spaces.Space]) -> None:
    """DQN acts in Discrete action spaces only (the manual's "Can I use?" table)."""
    if action_space is not None and not isinstance(action_space, spaces.Discrete):
        raise ValueError("Error: DQN only supports a Discrete action space, got {} ({}). Use SAC, TD3 or DDPG "
                         "for Box actions.".format(action_space, type(action_space).__name__))


def _check_positive_period(name: str, value: Any) -> None:
    """A number of steps between two events (training, target copy) must be > 0: ``step % value`` follows."""
    if isinstance(value, bool) or not isinstance(value, Real) or not value > 0:
        raise ValueError("{} must be a positive number of steps, got {!r}".format(name, value))


class _Unset:
    """The value of a run attribute that has not been assigned yet (callbacks do not see it)."""

    def __repr__(self) -> str:
        return "<unset>"


_UNSET: Any = _Unset()


class _DQNRun:
    """
    What the steps of one ``learn`` call share. Attribute names are those of the local variables that callbacks
    have always found in ``self.locals`` (``step`` is shown as ``_``); an attribute is shown once it is set.

    :param frame: (dict) the arguments of ``learn`` and the values of its frame (``self``, ``callback``,
        ``writer``, ``new_tb_log``, ...)
    """

    def __init__(self, frame: Dict[str, Any]):
        self.frame = frame
        self.episode_rewards: List[float] = [0.0]
        self.episode_successes: List[float] = []
        self.mean_100ep_reward: Optional[float] = None
        self.num_episodes: Any = _UNSET
        self.maybe_is_success: Any = _UNSET
        # acting
        self.is_vec_env: Any = _UNSET
        self.numpy_q: Any = _UNSET
        self.rng: Any = _UNSET
        self.n_actions: Any = _UNSET
        self.last_eps: Any = _UNSET
        self.reset: Any = _UNSET
        self.obs: Any = _UNSET
        self.obs_: Any = _UNSET
        self.step: Any = _UNSET
        self.kwargs: Any = _UNSET
        self.update_eps: Any = _UNSET
        self.update_param_noise_threshold: Any = _UNSET
        self.action: Any = _UNSET
        self.q_values: Any = _UNSET
        self.env_action: Any = _UNSET
        self.new_obs: Any = _UNSET
        self.rew: Any = _UNSET
        self.terminated: Any = _UNSET
        self.truncated: Any = _UNSET
        self.info: Any = _UNSET
        self.done: Any = _UNSET
        self.reward_: Any = _UNSET
        # training
        self.can_sample: Any = _UNSET
        self.experience: Any = _UNSET
        self.obses_t: Any = _UNSET
        self.actions: Any = _UNSET
        self.rewards: Any = _UNSET
        self.obses_tp1: Any = _UNSET
        self.dones: Any = _UNSET
        self.weights: Any = _UNSET
        self.batch_idxes: Any = _UNSET
        self.summary: Any = _UNSET
        self.run_options: Any = _UNSET
        self.run_metadata: Any = _UNSET
        self.out: Any = _UNSET
        self.forward: Any = _UNSET
        self.td_errors: Any = _UNSET
        self.new_priorities: Any = _UNSET

    def visible(self) -> Dict[str, Any]:
        """
        :return: (dict) the callback-visible values, by their local variable names
        """
        shown = dict(self.frame)
        for name, value in vars(self).items():
            if name != "frame" and value is not _UNSET:
                shown["_" if name == "step" else name] = value
        return shown


class DQN(OffPolicyRLModel):
    """
    Deep Q-Network (Mnih et al. 2013, https://arxiv.org/abs/1312.5602): a network estimates the value of each
    discrete action, trained on transitions drawn from a replay buffer towards targets computed by a lagging copy
    of itself. Options: double Q-learning (https://arxiv.org/abs/1509.06461), the dueling architecture of the
    policies (https://arxiv.org/abs/1511.06581), prioritized replay (https://arxiv.org/abs/1511.05952) and
    exploration by parameter-space noise (https://arxiv.org/abs/1706.01905).

    :param policy: (DQNPolicy or str) the Q-network: a DQNPolicy subclass or its registered name (MlpPolicy,
        LnMlpPolicy, CnnPolicy, LnCnnPolicy)
    :param env: (Gym environment or str) the environment to learn from (a registered id is made for you)
    :param gamma: (float) the discount factor
    :param learning_rate: (float) Adam's learning rate
    :param buffer_size: (int) how many transitions the replay buffer keeps
    :param exploration_fraction: (float) the share of ``total_timesteps`` over which epsilon (the probability of
        a random action) falls from its initial to its final value
    :param exploration_final_eps: (float) epsilon at the end of the decay, and after it
    :param exploration_initial_eps: (float) epsilon at the start
    :param train_freq: (int) one gradient step every ``train_freq`` environment steps
    :param batch_size: (int) how many transitions one gradient step uses
    :param double_q: (bool) double Q-learning: the online network picks the next action, the target network
        values it
    :param learning_starts: (int) the number of steps collected before the first gradient step
    :param target_network_update_freq: (int) copy the online network into the target network every
        ``target_network_update_freq`` steps
    :param prioritized_replay: (bool) sample transitions in proportion to their TD error (prioritized replay)
    :param prioritized_replay_alpha: (float) how strongly priorities shape the sampling (0: uniform)
    :param prioritized_replay_beta0: (float) the first value of beta, the exponent of the importance weights
    :param prioritized_replay_beta_iters: (int) the number of steps over which beta rises to 1.0 (None: the
        ``total_timesteps`` of ``learn``)
    :param prioritized_replay_eps: (float) added to the absolute TD errors to make the new priorities
    :param param_noise: (bool) explore by perturbing the network's weights instead of epsilon-greedy actions
    :param verbose: (int) 0 quiet, 1 the training table, 2 also TensorFlow's messages
    :param tensorboard_log: (str) the folder of the TensorBoard logs (None: no logs)
    :param _init_setup_model: (bool) build the graph now (False: the caller builds it, e.g. ``load``)
    :param full_tensorboard_log: (bool) also log histograms and images to TensorBoard (takes much disk space)
    :param seed: (int) the seed of Python's, NumPy's and TensorFlow's generators (None: no seeding); a run is
        only reproducible with ``n_cpu_tf_sess=1`` as well
    :param n_cpu_tf_sess: (int) TensorFlow's number of threads (None: as many as the machine has)
    """

    _saved_settings = ("double_q", "param_noise", "learning_starts", "train_freq", "prioritized_replay",
                       "prioritized_replay_eps", "batch_size", "target_network_update_freq",
                       "prioritized_replay_alpha", "prioritized_replay_beta0",
                       "prioritized_replay_beta_iters", "exploration_final_eps", "exploration_fraction",
                       "exploration_initial_eps", "learning_rate", "gamma", "buffer_size")
    # settings in DQN files of library versions before 2.4, no longer used
    _legacy_settings = ("checkpoint_freq", "checkpoint_path", "print_freq")

    def __init__(self, policy, env, gamma=0.99, learning_rate=5e-4, buffer_size=50000, exploration_fraction=0.1,
                 exploration_final_eps=0.02, exploration_initial_eps=1.0, train_freq=1, batch_size=32,
                 double_q=True, learning_starts=1000, target_network_update_freq=500, prioritized_replay=False,
                 prioritized_replay_alpha=0.6, prioritized_replay_beta0=0.4,
                 prioritized_replay_beta_iters=None, prioritized_replay_eps=1e-6, param_noise=False,
                 n_cpu_tf_sess=None, verbose=0, tensorboard_log=None, _init_setup_model=True,
                 policy_kwargs=None, full_tensorboard_log=False, seed=None):
        super().__init__(policy=policy, env=env, replay_buffer=None, verbose=verbose, policy_base=DQNPolicy,
                         requires_vec_env=False, policy_kwargs=policy_kwargs, seed=seed, n_cpu_tf_sess=n_cpu_tf_sess)
        _check_discrete_action_space(self.action_space)

        self.gamma: float = gamma
        self.learning_rate: float = learning_rate
        self.buffer_size: int = buffer_size
        self.batch_size: int = batch_size
        self.learning_starts: int = learning_starts
        self.train_freq: int = train_freq
        self.target_network_update_freq: int = target_network_update_freq
        self.double_q: bool = double_q
        self.exploration_fraction: float = exploration_fraction
        self.exploration_initial_eps: float = exploration_initial_eps
        self.exploration_final_eps: float = exploration_final_eps
        self.param_noise: bool = param_noise
        self.prioritized_replay: bool = prioritized_replay
        self.prioritized_replay_alpha: float = prioritized_replay_alpha
        self.prioritized_replay_beta0: float = prioritized_replay_beta0
        self.prioritized_replay_beta_iters: Optional[int] = prioritized_replay_beta_iters
        self.prioritized_replay_eps: float = prioritized_replay_eps
        self.tensorboard_log: Optional[str] = tensorboard_log
        self.full_tensorboard_log: bool = full_tensorboard_log

        # built by setup_model
        self.graph: Optional[tf.Graph] = None
        self.sess: Optional[tf.Session] = None
        self.step_model: Optional[DQNPolicy] = None
        self.act: Optional[Callable] = None
        self.update_target: Optional[Callable] = None
        self.proba_step: Optional[Callable] = None
        self.params: Optional[List[tf.Variable]] = None
        self.summary: Optional[tf.Tensor] = None
        # the training step with the merged summary (when a TensorBoard writer is open); without one,
        # self._fused_train (OffPolicyRLModel) does it in one call that also fetches the new weights of the NumPy
        # Q-network when there is one
        self._summarised_train: Optional[Callable] = None
        # (placeholder, assign op) storing an exploration rate in the variable deepq/eps
        self._eps_store: Optional[Tuple[tf.Tensor, tf.Operation]] = None
        # made by learn
        self.beta_schedule: Optional[LinearSchedule] = None
        self.exploration: Optional[LinearSchedule] = None

        if _init_setup_model:
            self.setup_model()

    def _get_pretrain_placeholders(self) -> Tuple[tf.Tensor, tf.Tensor, tf.Tensor]:
        with self.graph.as_default():
            expert_actions = tf.placeholder(tf.int32, [None], name="pretrain_action_ph")
        return self.step_model.obs_ph, expert_actions, self.step_model.q_values

    def _policy_class(self) -> Any:
        """The policy class (unwrapping a functools.partial, e.g. used to disable dueling)."""
        return self.policy.func if isinstance(self.policy, partial) else self.policy

    def _check_dqn_policy(self) -> None:
        policy_class = self._policy_class()
        if not (isinstance(policy_class, type) and issubclass(policy_class, DQNPolicy)):
            raise ValueError("Error: the input policy for the DQN model must be a subclass of "
                             "stable_baselines.deepq.policies.DQNPolicy (DQN has its own policies: MlpPolicy, "
                             "LnMlpPolicy, CnnPolicy, LnCnnPolicy), got {!r}".format(self.policy))

    def setup_model(self) -> None:
        """Build the graph and the session, initialise the variables and copy them into the target network."""
        with SetVerbosity(self.verbose):
            _check_discrete_action_space(self.action_space)
            self._check_dqn_policy()
            self.graph = tf.Graph()
            with self.graph.as_default():
                self.set_random_seed(self.seed)
                self.sess = tf_util.make_session(num_cpu=self.n_cpu_tf_sess, graph=self.graph)
                parts = build_dqn_graph(partial(self.policy, **self.policy_kwargs), self.observation_space,
                                        self.action_space, tf.train.AdamOptimizer(learning_rate=self.learning_rate),
                                        self.sess, grad_norm_clipping=10, gamma=self.gamma, double_q=self.double_q,
                                        param_noise=self.param_noise, full_tensorboard_log=self.full_tensorboard_log)
                self.act, self.update_target, self.step_model = parts.act, parts.update_target, parts.step_model
                self._summarised_train = parts.train
                self.proba_step = self.step_model.proba_step
                self.params = tf_util.get_trainable_vars("deepq")
                # all of the graph exists before the session first runs it
                fused_fetches = self._fused_fetches(parts)
                self._eps_store = self._exploration_rate_store()
                self.summary = tf.summary.merge_all()
                self.sess.run(tf.global_variables_initializer())
                self.update_target(sess=self.sess)
                self._fused_train = self._fast_callable(self.sess, parts.train_inputs, fused_fetches,
                                                        [parts.train_op])

    def _fused_fetches(self, parts: DQNGraph) -> List[tf.Tensor]:
        """
        What the one-call training step returns: the TD errors, and the updated weights of the Q-network when it
        also runs in NumPy (MLP policies; then acting needs no session call).

        :param parts: (DQNGraph) the graph
        :return: ([tf.Tensor]) the fetches
        """
        trainable = set(var.name for var in tf.trainable_variables())
        q_weights = [var for var in parts.q_func_vars if var.name in trainable]
        if not self.step_model.enable_numpy_forward(variables=q_weights):
            return [parts.td_error]
        numpy_copy = self.step_model._numpy_forward
        return [parts.td_error, self._flat_after([parts.optimize_expr], numpy_copy.variables)]

    @staticmethod
    def _exploration_rate_store() -> Optional[Tuple[tf.Tensor, tf.Operation]]:
        """
        :return: ((tf.Tensor, tf.Operation) or None) a placeholder and the op assigning it to ``deepq/eps``
            (which is saved with the parameters), or None without that variable
        """
        for var in tf.global_variables():
            if var.name == "deepq/eps:0":
                value_ph = tf.placeholder(tf.float32, (), name="deepq/eps_value")
                return value_ph, var.assign(value_ph)
        return None

    # ------------------------------------------------------------------------------------------------------
    # schedules and buffer of a learn call
    # ------------------------------------------------------------------------------------------------------
    def _exploration_schedule(self, total_timesteps: int) -> LinearSchedule:
        """
        :param total_timesteps: (int) the number of steps of the ``learn`` call
        :return: (LinearSchedule) epsilon: from ``exploration_initial_eps`` down to ``exploration_final_eps``
            over the first ``exploration_fraction * total_timesteps`` steps, constant afterwards
        """
        decay_steps = max(1, int(self.exploration_fraction * total_timesteps))
        return LinearSchedule(schedule_timesteps=decay_steps, initial_p=self.exploration_initial_eps,
                              final_p=self.exploration_final_eps)

    def _prepare_replay_buffer(self) -> None:
        """A fresh replay buffer for this learn, unless load_replay_buffer gave one (it must be of the same kind)."""
        if self._take_loaded_replay_buffer():
            if self.prioritized_replay != isinstance(self.replay_buffer, PrioritizedReplayBuffer):
                raise ValueError("The loaded replay buffer is a {}, this DQN has prioritized_replay={}"
                                 .format(type(self.replay_buffer).__name__, self.prioritized_replay))
        elif self.prioritized_replay:
            self.replay_buffer = PrioritizedReplayBuffer(self.buffer_size, alpha=self.prioritized_replay_alpha)
        else:
            self.replay_buffer = ReplayBuffer(self.buffer_size)

    def _beta_schedule(self, total_timesteps: int) -> Tuple[Optional[LinearSchedule], Any]:
        """
        :param total_timesteps: (int) the number of steps of the ``learn`` call
        :return: (LinearSchedule or None, int) the importance-sampling exponent beta (rising linearly from
            ``prioritized_replay_beta0`` to 1), None without prioritized replay; and its number of steps
        """
        if not self.prioritized_replay:
            return None, _UNSET
        n_steps = total_timesteps if self.prioritized_replay_beta_iters is None \
            else self.prioritized_replay_beta_iters
        return LinearSchedule(max(1, int(n_steps)), initial_p=self.prioritized_replay_beta0, final_p=1.0), n_steps

    def _wrap_replay_buffer(self, replay_wrapper: Optional[Callable]) -> None:
        if replay_wrapper is None:
            return
        if self.prioritized_replay:
            raise ValueError("Prioritized replay buffer is not supported by HER (replay_wrapper given with "
                             "prioritized_replay=True)")
        self.replay_buffer = replay_wrapper(self.replay_buffer)

    # ------------------------------------------------------------------------------------------------------
    # learn
    # ------------------------------------------------------------------------------------------------------
    def learn(self, total_timesteps: int, callback: Any = None,  # type: ignore[override]
              log_interval: Optional[int] = 100, tb_log_name: str = "DQN", reset_num_timesteps: bool = True,
              replay_wrapper: Optional[Callable] = None, progress_bar: bool = False) -> "DQN":
        """
        Train the model.

        :param total_timesteps: (int) the number of environment steps to train for
        :param callback: (callable, [callable] or BaseCallback) called at every step; returning False stops the
            training (a BaseCallback also hears of the start and end of the training and of each rollout)
        :param log_interval: (int) the number of episodes between two logger tables
        :param tb_log_name: (str) the name of the TensorBoard run
        :param reset_num_timesteps: (bool) count the timesteps from 0 again (False: continue the count)
        :param replay_wrapper: (ReplayBuffer -> ReplayBuffer) wraps the replay buffer (e.g. HER's)
        :param progress_bar: (bool) draw a progress bar over the timesteps (needs tqdm)
        :return: (DQN) the trained model
        """
        _check_positive_period("train_freq", self.train_freq)
        _check_positive_period("target_network_update_freq", self.target_network_update_freq)
        with self._learning(total_timesteps, callback, tb_log_name, reset_num_timesteps, None, progress_bar) \
                as (callback, writer):
            self._prepare_replay_buffer()
            self.beta_schedule, beta_steps = self._beta_schedule(total_timesteps)
            self._wrap_replay_buffer(replay_wrapper)
            self.exploration = self._exploration_schedule(total_timesteps)

            run = _DQNRun(dict(self=self, total_timesteps=total_timesteps, callback=callback,
                               log_interval=log_interval, tb_log_name=tb_log_name,
                               reset_num_timesteps=reset_num_timesteps, replay_wrapper=replay_wrapper,
                               progress_bar=progress_bar, new_tb_log=self.num_timesteps == 0, writer=writer))
            if beta_steps is not _UNSET:
                run.frame["prioritized_replay_beta_iters"] = beta_steps
            callback.on_training_start(run.visible(), globals())
            callback.on_rollout_start()
            self._begin_acting(run)
            for run.step in range(total_timesteps):
                if not self._one_step(run, callback, writer, log_interval):
                    break
            self._store_exploration_rate(run.last_eps)
        callback.on_training_end()
        return self

    def _begin_acting(self, run: _DQNRun) -> None:
        """Choose how to act (NumPy Q-network or act graph) and take the first observation."""
        run.is_vec_env = isinstance(self.env, VecEnv)
        # the NumPy Q-network acts epsilon-greedily without a session call (MLP policies, no parameter noise)
        run.numpy_q = None if self.param_noise else self.step_model._numpy_forward
        run.rng = self._numpy_forward_rng()
        run.n_actions = int(self.action_space.n)
        run.last_eps = None
        run.reset = True
        obs, _ = reset_env(self.env)
        run.obs = self._checked_observation(obs, "reset()")
        # the replay buffer keeps observations without VecNormalize's normalisation
        run.obs_ = run.obs if self._vec_normalize_env is None else self._vec_normalize_env.get_original_obs()[0]

    def _checked_observation(self, obs: Any, source: str) -> Any:
        """
        :param obs: (Any) an observation of the environment
        :param source: (str) where it comes from, for the message
        :return: (Any) ``obs``, when its shape is the one of the observation space (else a ValueError)
        """
        expected = self.observation_space.shape
        if expected is not None and np.shape(obs) != tuple(expected):
            raise ValueError("The environment returned an observation of shape {} from {}, but the observation "
                             "space {} expects shape {}".format(np.shape(obs), source, self.observation_space,
                                                                tuple(expected)))
        return obs

    def _one_step(self, run: _DQNRun, callback: Any, writer: Any, log_interval: Optional[int]) -> bool:
        """
        One environment step, then (when due) a gradient step, a target update and the logger table.

        :return: (bool) False when the callback stops the training
        """
        self._choose_action(run)
        run.env_action = run.action
        run.reset = False
        new_obs, run.rew, run.terminated, run.truncated, run.info = step_env(self.env, run.env_action)
        run.new_obs = self._checked_observation(new_obs, "step()")
        run.done = bool(run.terminated or run.truncated)
        self.num_timesteps += 1

        callback.update_locals(run.visible())
        if callback.on_step() is False:
            return False

        run.obs_, run.reward_ = self._store_transition(run.obs_, run.action, run.rew, run.new_obs, run.done,
                                                       run.info, writer)
        run.obs = run.new_obs
        self._end_of_step_episode(run)

        run.can_sample = self.replay_buffer.can_sample(self.batch_size)
        learning = run.can_sample and self.num_timesteps > self.learning_starts
        if learning and self.num_timesteps % self.train_freq == 0:
            callback.on_rollout_end()
            self._train(run, writer)
            callback.on_rollout_start()
        if learning and self.num_timesteps % self.target_network_update_freq == 0:
            self.update_target(sess=self.sess)

        self._log_when_due(run, log_interval)
        return True

    # ------------------------------------------------------------------------------------------------------
    # the hooks of a step
    # ------------------------------------------------------------------------------------------------------
    def _choose_action(self, run: _DQNRun) -> None:
        """
        Epsilon-greedy (epsilon from the exploration schedule) or, with parameter noise, the greedy action of the
        perturbed network, whose noise is adapted so that its divergence from the unperturbed policy matches
        epsilon-greedy's (Plappert et al. 2017, appendix C.1).
        """
        epsilon = self.exploration.value(self.num_timesteps)
        run.kwargs = {}
        if self.param_noise:
            run.update_eps = 0.
            run.update_param_noise_threshold = -np.log(1. - epsilon + epsilon / float(self.action_space.n))
            run.kwargs.update(reset=run.reset, update_param_noise_threshold=run.update_param_noise_threshold,
                              update_param_noise_scale=True)
        else:
            run.update_eps = epsilon
            run.update_param_noise_threshold = 0.
        run.action = None
        if run.numpy_q is not None:
            run.q_values = run.numpy_q.q_values(np.array(run.obs)[None])
            if run.q_values is not None:
                explore = run.rng.random() < run.update_eps
                run.action = np.int64(run.rng.integers(run.n_actions) if explore else np.argmax(run.q_values[0]))
                run.last_eps = run.update_eps
        if run.action is None:
            with self.sess.as_default():
                run.action = self.act(np.array(run.obs)[None], update_eps=run.update_eps, **run.kwargs)[0]

    def _end_of_step_episode(self, run: _DQNRun) -> None:
        """Add the reward to the episode's return; at the episode's end, note the success and start a new one."""
        run.episode_rewards[-1] += float(run.reward_)
        if not run.done:
            return
        run.maybe_is_success = run.info.get("is_success")
        if run.maybe_is_success is not None:
            run.episode_successes.append(float(run.maybe_is_success))
        if not run.is_vec_env:
            obs, _ = reset_env(self.env)
            run.obs = run.obs_ = self._checked_observation(obs, "reset()")
        run.episode_rewards.append(0.0)
        run.reset = True

    def _sample(self, run: _DQNRun) -> None:
        """Draw a minibatch (with importance weights and indices under prioritized replay; else weights of 1)."""
        if self.prioritized_replay:
            run.experience = self.replay_buffer.sample(self.batch_size, beta=self.beta_schedule.value(
                self.num_timesteps), env=self._vec_normalize_env)
            run.obses_t, run.actions, run.rewards, run.obses_tp1, run.dones, run.weights, run.batch_idxes = \
                run.experience
        else:
            run.obses_t, run.actions, run.rewards, run.obses_tp1, run.dones = self.replay_buffer.sample(
                self.batch_size, env=self._vec_normalize_env)
            run.weights, run.batch_idxes = np.ones_like(run.rewards), None

    def _train(self, run: _DQNRun, writer: Any) -> None:
        """A gradient step on a minibatch; with prioritized replay, its transitions get new priorities."""
        self._sample(run)
        batch = (run.obses_t, run.actions, run.rewards, run.obses_tp1, run.obses_tp1, run.dones, run.weights)
        if writer is None:
            run.out = self._fused_train(*batch)
            run.td_errors = run.out[0]
            if len(run.out) > 1:
                run.forward = self.step_model._numpy_forward
                run.forward.set_weights(self._unflatten(run.out[1], run.forward))
        else:
            run.td_errors = self._train_with_summary(run, batch, writer)
        if not np.all(np.isfinite(run.td_errors)):
            raise ValueError("DQN's TD errors must be finite, got {} at step {}: the Q-network diverged (lower the "
                             "learning rate, or check the rewards and observations for NaN/inf, e.g. with "
                             "VecCheckNan)".format(run.td_errors, self.num_timesteps))
        if self.prioritized_replay:
            run.new_priorities = np.abs(run.td_errors) + self.prioritized_replay_eps
            self.replay_buffer.update_priorities(run.batch_idxes, run.new_priorities)

    def _train_with_summary(self, run: _DQNRun, batch: tuple, writer: Any) -> np.ndarray:
        """
        The gradient step when TensorBoard logs: also computes the merged summary (and every hundredth step the
        run metadata); the NumPy Q-network reads its weights from the graph again.

        :return: (np.ndarray) the TD errors
        """
        trace = {}
        if (1 + self.num_timesteps) % _TRACE_EVERY == 0:
            run.run_options = tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE)
            run.run_metadata = tf.RunMetadata()
            trace = dict(options=run.run_options, run_metadata=run.run_metadata)
        run.summary, td_errors = self._summarised_train(*batch, sess=self.sess, **trace)
        if trace:
            writer.add_run_metadata(run.run_metadata, "step%d" % self.num_timesteps)
        writer.add_summary(run.summary, self.num_timesteps)
        self.step_model.invalidate_numpy_forward()
        return td_errors

    def _log_when_due(self, run: _DQNRun, log_interval: Optional[int]) -> None:
        """Update the mean return of the last 100 episodes; print the table every ``log_interval`` episodes."""
        if run.done or run.mean_100ep_reward is None:
            last_100 = run.episode_rewards[-101:-1]
            run.mean_100ep_reward = round(float(np.mean(last_100)), 1) if last_100 else -np.inf
        run.num_episodes = len(run.episode_rewards)
        if self.verbose < 1 or not run.done or log_interval is None or run.num_episodes % log_interval != 0:
            return
        logger.record_tabular("steps", self.num_timesteps)
        logger.record_tabular("episodes", run.num_episodes)
        if run.episode_successes:
            logger.logkv("success rate", np.mean(run.episode_successes[-100:]))
        logger.record_tabular("mean 100 episode reward", run.mean_100ep_reward)
        logger.record_tabular("% time spent exploring", int(100 * self.exploration.value(self.num_timesteps)))
        logger.dump_tabular()

    def _store_exploration_rate(self, epsilon: Optional[float]) -> None:
        """Put the last epsilon of the NumPy path into ``deepq/eps``, as the act graph does when it acts."""
        if epsilon is not None and self._eps_store is not None:
            value_ph, assign = self._eps_store
            self.sess.run(assign, {value_ph: epsilon})

    # ------------------------------------------------------------------------------------------------------
    # acting
    # ------------------------------------------------------------------------------------------------------
    def predict(self, observation: np.ndarray, state: Optional[np.ndarray] = None, mask: Optional[np.ndarray] = None,
                deterministic: bool = True) -> Tuple[np.ndarray, None]:
        """
        The greedy action (``deterministic``), or one drawn from the softmax of the Q-values.

        :param observation: (np.ndarray) one observation or a batch of them
        :param state: (np.ndarray) unused (DQN has no recurrent policy)
        :param mask: (np.ndarray) unused
        :param deterministic: (bool) the greedy action (True) or a sampled one
        :return: (np.ndarray, None) the action(s), and no state
        """
        if deterministic:
            scores = self._single_row_output(self.step_model, observation)  # one observation: NumPy, single row
            if scores is not None:
                return scores.argmax(), None
        observation, vectorized_env = _predict_input(observation, self.observation_space)
        with self.sess.as_default():
            actions, _, _ = self.step_model.step(observation, deterministic=deterministic)
        return (actions if vectorized_env else actions[0]), None

    def action_probability(self, observation: np.ndarray, state: Optional[np.ndarray] = None,
                           mask: Optional[np.ndarray] = None, actions: Optional[np.ndarray] = None,
                           logp: bool = False) -> np.ndarray:
        """
        The softmax of the Q-values, or (``actions`` given) the probability of each given action under it.

        :param observation: (np.ndarray) one observation or a batch of them
        :param state: (np.ndarray) unused (DQN has no recurrent policy)
        :param mask: (np.ndarray) unused
        :param actions: (np.ndarray) one action per observation (None: the whole distribution)
        :param logp: (bool) with ``actions``: the log-probabilities
        :return: (np.ndarray) the probabilities, shape (n_actions,) or (batch, n_actions); with ``actions``
            shape (1,) or (batch, 1)
        """
        observation, vectorized_env = _predict_input(observation, self.observation_space)
        probabilities = self.proba_step(observation, state, mask)
        if actions is not None:
            probabilities = self._probability_of(probabilities, actions, observation.shape[0], logp)
        if vectorized_env:
            return probabilities
        if state is not None:
            raise ValueError("Error: The environment must be vectorized when using recurrent policies.")
        return probabilities[0]

    def _probability_of(self, probabilities: np.ndarray, actions: Any, n_obs: int, logp: bool) -> np.ndarray:
        """
        :return: (np.ndarray) column of the (log-)probabilities of ``actions``, one per observation
        """
        actions = np.array([actions]).reshape((-1,))
        if actions.shape[0] != n_obs:
            raise ValueError("Error: batch sizes differ for actions ({}) and observations ({})."
                             .format(actions.shape[0], n_obs))
        if not np.issubdtype(actions.dtype, np.integer) or np.any(actions < 0) \
                or np.any(actions >= self.action_space.n):
            raise ValueError("Error: actions must be ints in [0, {}), got {}".format(self.action_space.n, actions))
        chosen = probabilities[np.arange(n_obs), actions].reshape((-1, 1))
        return np.log(chosen) if logp else chosen

    def get_parameter_list(self) -> list:
        """
        The variables saved and loaded with the model: the trainable variables under ``deepq`` in creation order
        (``deepq/eps``, the Q-network, the parameter-noise copies, the target network).

        :return: ([tf.Variable]) the variables
        """
        return self.params

    def save(self, save_path: Any, cloudpickle: bool = False) -> None:
        self._save_to_file(save_path, data=self._settings_to_save(), params=self.get_parameters(),
                           cloudpickle=cloudpickle)
