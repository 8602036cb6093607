"""
DQN: Q-learning with a neural network, a replay buffer and a target network, with the usual extensions
(double Q-learning, dueling networks, prioritized replay, parameter-space noise). :class:`DQNLoopState` holds the
values of a ``learn`` run that DQN's hooks of the off-policy loop share; :data:`DQN_NAMES` shows them to callbacks.
Acting outside ``learn`` (``predict``, ``action_probability``, export) is in :mod:`stable_baselines.deepq.acting`.
"""
from contextlib import contextmanager
from functools import partial
from typing import Any, Callable, Dict, Iterator, List, Optional, Tuple

import numpy as np
from gymnasium import spaces

from stable_baselines import logger
from stable_baselines.common import tf_util
from stable_baselines.common.policy_parts.action_masks import env_action_masks, env_has_action_masks
from stable_baselines.common.model.arguments import check_gamma, check_learning_rate, check_positive_int
from stable_baselines.common.model.context import SetVerbosity
from stable_baselines.common.model.off_policy import (ABSENT, LOOP_NAMES, LearnArguments, OffPolicyLoopState,
                                                      OffPolicyRLModel, check_finite_losses)
from stable_baselines.common.buffers import PrioritizedReplayBuffer, ReplayBuffer
from stable_baselines.common.schedules import LinearSchedule
from stable_baselines.common.model.session_call import SessionCall
from stable_baselines.common.tf_compat import tf
from stable_baselines.deepq.acting import DQNActing
from stable_baselines.deepq.build_graph import DQNGraph, build_dqn_graph
from stable_baselines.deepq.policies import DQNPolicy

# TensorBoard: every hundredth training step is traced (compute time, memory) into the run metadata
_TRACE_EVERY = 100
# the names of what the one-call training step returns
_TD_ERRORS, _Q_WEIGHTS = "td_errors", "q_weights"


class DQNLoopState(OffPolicyLoopState):
    """
    The loop state of a DQN run, with DQN's own values; those declared without a value exist once the run set them.

    :param args: (LearnArguments) the arguments of ``learn``
    :param callback: (BaseCallback) the callback made by the learn frame
    :param writer: (tf.summary.FileWriter) the TensorBoard writer, or None
    :param auto_reset: (bool) whether the env resets itself at the end of an episode (a VecEnv)
    :param new_tb_log: (bool) whether this ``learn`` starts a new TensorBoard run
    :param numpy_q: (Any) the NumPy Q-network acting without a session call (None: the act graph acts)
    :param rng: (np.random.Generator) the generator of the NumPy path's random actions
    :param n_actions: (int) the number of actions
    """

    # prioritized replay: the steps over which beta rises to 1
    prioritized_replay_beta_iters: int
    # the episodes counted in the logger table (the running one included)
    episodes_so_far: int
    # the last action choice: epsilon, the act graph's extra arguments, the NumPy Q-values (None when the NumPy
    # network could not take the observation)
    update_eps: float
    kwargs: Dict[str, Any]
    q_values: Optional[np.ndarray]
    # the last training step: whether the buffer held a batch, the minibatch (observations, actions, rewards, next
    # observations, dones, importance weights, indices or None), its TD errors, and what the session call returned
    # (the fused call's results and the NumPy network they went to; or the summary and the trace of TensorBoard)
    can_sample: bool
    batch: Tuple[Any, ...]
    td_errors: np.ndarray
    out: Dict[str, np.ndarray]
    forward: Any
    summary: Any
    run_options: Any
    run_metadata: Any

    def __init__(self, args: LearnArguments, callback: Any, writer: Any, auto_reset: bool, new_tb_log: bool,
                 numpy_q: Any, rng: np.random.Generator, n_actions: int) -> None:
        super().__init__(args, callback, writer, auto_reset)
        self.new_tb_log = new_tb_log
        self.mean_100ep_reward: Optional[float] = None
        self.numpy_q = numpy_q
        self.rng = rng
        self.n_actions = n_actions
        # the last epsilon of the NumPy path (None until it acted)
        self.last_eps: Optional[float] = None
        # parameter noise: a new perturbation at the next action
        self.reset = True
        # with action masks: the allowed actions after each transition of the minibatch
        self.next_action_masks: Optional[np.ndarray] = None


def _batch_field(index: int) -> Any:
    """:return: (callable) the reader of one column of the last minibatch"""
    def read(model: Any, state: DQNLoopState) -> Any:
        batch = getattr(state, "batch", None)
        return ABSENT if batch is None else batch[index]
    return read


def _prioritized(read: Any) -> Any:
    """:return: (callable) ``read``, left out without prioritized replay or before the first training step"""
    def read_prioritized(model: Any, state: DQNLoopState) -> Any:
        return read(model, state) if model.prioritized_replay and hasattr(state, "td_errors") else ABSENT
    return read_prioritized


# what callbacks see: the names of the original's local variables (``_`` the step index, ``rew`` the reward,
# ``num_episodes`` counting the running episode) and those of the NumPy acting path
DQN_NAMES = LOOP_NAMES.extended({
    "_": "state.step", "rew": "state.reward", "is_vec_env": "state.auto_reset", "new_tb_log": "state.new_tb_log",
    "prioritized_replay_beta_iters": "state.prioritized_replay_beta_iters",
    "mean_100ep_reward": "state.mean_100ep_reward", "numpy_q": "state.numpy_q", "rng": "state.rng",
    "n_actions": "state.n_actions", "last_eps": "state.last_eps", "reset": "state.reset", "kwargs": "state.kwargs",
    "update_eps": "state.update_eps",
    "update_param_noise_threshold": lambda model, state: (state.kwargs.get("update_param_noise_threshold", 0.)
                                                          if hasattr(state, "kwargs") else ABSENT),
    "q_values": "state.q_values", "env_action": "state.env_action", "maybe_is_success": "state.maybe_is_success",
    "can_sample": "state.can_sample", "experience": _prioritized(lambda model, state: state.batch),
    "obses_t": _batch_field(0), "actions": _batch_field(1), "rewards": _batch_field(2), "obses_tp1": _batch_field(3),
    "dones": _batch_field(4), "weights": _batch_field(5), "batch_idxes": _batch_field(6), "summary": "state.summary",
    "run_options": "state.run_options", "run_metadata": "state.run_metadata", "out": "state.out",
    "forward": "state.forward", "td_errors": "state.td_errors",
    "new_priorities": _prioritized(lambda model, state: np.abs(state.td_errors) + model.prioritized_replay_eps),
    "num_episodes": "state.episodes_so_far",
}, without=("step", "reward"))


def _check_discrete_action_space(action_space: Optional[spaces.Space]) -> None:
    """DQN acts in Discrete action spaces only (the manual's "Can I use?" table)."""
    if action_space is not None and not isinstance(action_space, spaces.Discrete):
        raise ValueError("Error: DQN only supports a Discrete action space, got {} ({}). Use SAC, TD3 or DDPG "
                         "for Box actions.".format(action_space, type(action_space).__name__))


class DQN(DQNActing, OffPolicyRLModel):
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

    algorithm_name = "DQN"
    _saved_settings = ("double_q", "param_noise", "learning_starts", "train_freq", "prioritized_replay",
                       "prioritized_replay_eps", "batch_size", "target_network_update_freq",
                       "prioritized_replay_alpha", "prioritized_replay_beta0",
                       "prioritized_replay_beta_iters", "exploration_final_eps", "exploration_fraction",
                       "exploration_initial_eps", "learning_rate", "gamma", "buffer_size")
    # settings in DQN files of library versions before 2.4, no longer used
    _legacy_settings = ("checkpoint_freq", "checkpoint_path", "print_freq")

    def __init__(self, policy: Any, env: Any, gamma: float = 0.99, learning_rate: float = 5e-4,
                 buffer_size: int = 50000, exploration_fraction: float = 0.1, exploration_final_eps: float = 0.02,
                 exploration_initial_eps: float = 1.0, train_freq: int = 1, batch_size: int = 32,
                 double_q: bool = True, learning_starts: int = 1000, target_network_update_freq: int = 500,
                 prioritized_replay: bool = False, prioritized_replay_alpha: float = 0.6,
                 prioritized_replay_beta0: float = 0.4, prioritized_replay_beta_iters: Optional[int] = None,
                 prioritized_replay_eps: float = 1e-6, param_noise: bool = False, n_cpu_tf_sess: Optional[int] = None,
                 verbose: int = 0, tensorboard_log: Optional[str] = None, _init_setup_model: bool = True,
                 policy_kwargs: Optional[Dict[str, Any]] = None, full_tensorboard_log: bool = False,
                 seed: Optional[int] = None) -> None:
        check_gamma(gamma)
        # DQN hands the rate to Adam as it is: no schedule
        check_learning_rate(learning_rate, schedule_allowed=False)
        for name, value in (("buffer_size", buffer_size), ("train_freq", train_freq), ("batch_size", batch_size),
                            ("target_network_update_freq", target_network_update_freq)):
            check_positive_int(name, value)
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
        # DQN makes its replay buffer in learn (a new one each time, unless one was loaded)
        self._replay_buffer_made_in = "learn()"

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
        # self._fused_train (OffPolicyRLModel) does it in one call that also gives the NumPy Q-network, when there
        # is one, its new weights
        self._summarised_train: Optional[Callable] = None
        # (placeholder, assign op) storing an exploration rate in the variable deepq/eps
        self._eps_store: Optional[Tuple[tf.Tensor, tf.Operation]] = None
        # made by learn
        self.beta_schedule: Optional[LinearSchedule] = None
        self.exploration: Optional[LinearSchedule] = None
        # whether the env's action_masks() restrict acting and the TD targets (decided by setup_model), and the
        # allowed actions after each transition of the replay buffer, by slot
        self.uses_action_masks = False
        self._next_masks: Optional[np.ndarray] = None

        if _init_setup_model:
            self.setup_model()

    def _get_pretrain_placeholders(self) -> Tuple[tf.Tensor, tf.Tensor, tf.Tensor]:
        step_model = self._built(self.step_model, "step_model")
        with self._built(self.graph, "graph").as_default():
            expert_actions = tf.placeholder(tf.int32, [None], name="pretrain_action_ph")
        return step_model.obs_ph, expert_actions, step_model.q_values

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
            self.uses_action_masks = env_has_action_masks(self.env)
            if self.uses_action_masks and self.param_noise:
                raise ValueError("DQN does not support action masks (the env has action_masks()) together with "
                                 "param_noise=True")
            self.graph = tf.Graph()
            with self.graph.as_default():
                self.set_random_seed(self.seed)
                self.sess = sess = tf_util.make_session(num_cpu=self.n_cpu_tf_sess, graph=self.graph)
                parts = build_dqn_graph(partial(self.policy, **self.policy_kwargs),
                                        self._built(self.observation_space, "observation_space"),
                                        self._built(self.action_space, "action_space"),
                                        tf.train.AdamOptimizer(learning_rate=self.learning_rate),
                                        sess, grad_norm_clipping=10, gamma=self.gamma, double_q=self.double_q,
                                        param_noise=self.param_noise, full_tensorboard_log=self.full_tensorboard_log,
                                        action_masks=self.uses_action_masks)
                self.act, self.update_target, self.step_model = parts.act, parts.update_target, parts.step_model
                self._summarised_train = parts.train
                self.proba_step = parts.step_model.proba_step
                self.params = tf_util.get_trainable_vars("deepq")
                # all of the graph exists before the session first runs it
                self._fused_train = self._fused_train_call(sess, parts)
                self._eps_store = self._exploration_rate_store()
                self.summary = tf.summary.merge_all()
                sess.run(tf.global_variables_initializer())
                parts.update_target(sess=sess)

    def _fused_train_call(self, sess: tf.Session, parts: DQNGraph) -> SessionCall:
        """
        The training step in one session call, returning the TD errors and, when the Q-network also runs in NumPy
        (MLP policies; then acting needs no session call), handing its new weights to the NumPy copy.

        :param sess: (tf.Session) the session
        :param parts: (DQNGraph) the graph
        :return: (SessionCall) the call, its results named
        """
        trainable = set(var.name for var in tf.trainable_variables())
        self.fast_path.enable(parts.step_model, variables=[var for var in parts.q_func_vars if var.name in trainable])
        return SessionCall(sess, parts.train_inputs, {_TD_ERRORS: parts.td_error}, [parts.train_op],
                           refresh=(_Q_WEIGHTS, parts.step_model))

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
        self._next_masks = None
        if self.uses_action_masks:
            self._next_masks = np.ones((self.replay_buffer.buffer_size, self._n_actions()), dtype=bool)

    def _beta_schedule(self, total_timesteps: int) -> Tuple[Optional[LinearSchedule], Optional[int]]:
        """
        :param total_timesteps: (int) the number of steps of the ``learn`` call
        :return: (LinearSchedule or None, int or None) the importance-sampling exponent beta (rising linearly from
            ``prioritized_replay_beta0`` to 1) and its number of steps; None and None without prioritized replay
        """
        if not self.prioritized_replay:
            return None, None
        n_steps = total_timesteps if self.prioritized_replay_beta_iters is None \
            else self.prioritized_replay_beta_iters
        return LinearSchedule(max(1, int(n_steps)), initial_p=self.prioritized_replay_beta0, final_p=1.0), n_steps

    # ------------------------------------------------------------------------------------------------------
    # learn: the off-policy loop with DQN's hooks
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
        if replay_wrapper is not None and self.prioritized_replay:
            raise ValueError("Prioritized replay buffer is not supported by HER (replay_wrapper given with "
                             "prioritized_replay=True)")
        if replay_wrapper is not None and self.uses_action_masks:
            raise ValueError("DQN keeps the action masks of the next states beside its own replay buffer: a "
                             "replay_wrapper (HER) cannot be used with an env that has action_masks()")
        # the buffer exists before the learn frame wraps it
        self._prepare_replay_buffer()
        return self._run_loop(total_timesteps, callback, log_interval, tb_log_name, reset_num_timesteps,
                              replay_wrapper, progress_bar)

    # the variables callbacks see
    _callback_names = DQN_NAMES

    @contextmanager
    def _training_run(self, args: LearnArguments, callback: Any, writer: Any) -> Iterator[DQNLoopState]:
        """
        The schedules of this run and how to act (NumPy Q-network or act graph); at its end, the last epsilon of
        the NumPy path goes into ``deepq/eps``, as the act graph puts it there when it acts.
        """
        new_tb_log = self.num_timesteps == 0
        self.beta_schedule, beta_iters = self._beta_schedule(args.total_timesteps)
        self.exploration = self._exploration_schedule(args.total_timesteps)
        # the NumPy Q-network acts epsilon-greedily without a session call (MLP policies, no parameter noise)
        numpy_q = None if self.param_noise else self.fast_path.copy_of(self._built(self.step_model, "step_model"))
        state = DQNLoopState(args, callback, writer, self._env_resets_itself(), new_tb_log, numpy_q,
                             self.fast_path.generator, self._n_actions())
        if beta_iters is not None:
            state.prioritized_replay_beta_iters = beta_iters
        yield state
        if state.last_eps is not None and self._eps_store is not None:
            value_ph, assign = self._eps_store
            self._built(self.sess, "sess").run(assign, {value_ph: state.last_eps})

    def _choose_action(self, state: DQNLoopState) -> Tuple[Any, Any]:
        """
        Epsilon-greedy (epsilon from the exploration schedule) or, with parameter noise, the greedy action of the
        perturbed network, whose noise is adapted so that its divergence from the unperturbed policy matches
        epsilon-greedy's (Plappert et al. 2017, appendix C.1).

        :return: (np.int64, np.int64) the action, for the replay buffer and for the env
        """
        epsilon = self._built(self.exploration, "exploration").value(self.num_timesteps)
        # (callbacks see the threshold, 0 without parameter noise, inside the act graph's arguments)
        state.kwargs = {}
        if self.param_noise:
            state.update_eps = 0.
            state.kwargs.update(reset=state.reset,
                                update_param_noise_threshold=-np.log(1. - epsilon + epsilon / float(state.n_actions)),
                                update_param_noise_scale=True)
        else:
            state.update_eps = epsilon
        action: Optional[np.int64] = None
        if self.uses_action_masks:
            action = self._masked_epsilon_greedy(state)
        else:
            action = None if state.numpy_q is None else self._numpy_epsilon_greedy(state)
        if action is None:
            act = self._built(self.act, "act")
            with self._built(self.sess, "sess").as_default():
                action = act(np.array(state.obs)[None], update_eps=state.update_eps, **state.kwargs)[0]
        state.reset = False
        return action, action

    def _numpy_epsilon_greedy(self, state: DQNLoopState) -> Optional[np.int64]:
        """
        :return: (np.int64 or None) the epsilon-greedy action of the NumPy Q-network (None when it cannot take
            this observation: then the act graph decides)
        """
        state.q_values = state.numpy_q.q_values(np.array(state.obs)[None])
        if state.q_values is None:
            return None
        state.last_eps = state.update_eps
        if state.rng.random() < state.update_eps:
            return np.int64(state.rng.integers(state.n_actions))
        return np.int64(np.argmax(state.q_values[0]))

    def _masked_epsilon_greedy(self, state: DQNLoopState) -> np.int64:
        """
        :return: (np.int64) with probability epsilon an allowed action drawn uniformly, else the allowed action of
            the largest Q-value
        """
        allowed = np.flatnonzero(env_action_masks(self.env, self._n_actions())[0])
        if allowed.size == 0:
            raise ValueError("The environment's action_masks() allows no action")
        state.q_values = self._q_values(np.array(state.obs)[None], state.numpy_q)
        state.last_eps = state.update_eps
        if state.rng.random() < state.update_eps:
            return np.int64(state.rng.choice(allowed))
        return np.int64(allowed[np.argmax(state.q_values[0][allowed])])

    def replay_buffer_add(self, obs_t: Any, action: Any, reward: float, obs_tp1: Any, done: Any,
                          info: Dict[str, Any]) -> None:
        if self._next_masks is None:
            super().replay_buffer_add(obs_t, action, reward, obs_tp1, done, info)
            return
        # the slot written is kept with the allowed actions of the next state
        slot = self.replay_buffer.extend([obs_t], [action], [reward], [obs_tp1], [float(done)])[0]
        self._next_masks[slot] = env_action_masks(self.env, self._n_actions())[0]

    def _on_episode_end(self, state: DQNLoopState) -> None:
        state.reset = True  # parameter noise: a new perturbation for the next episode

    def _learning_due(self, state: DQNLoopState, period: int) -> bool:
        """:return: (bool) past the warm-up, with a batch in the buffer, at a multiple of ``period`` steps"""
        return state.can_sample and self.num_timesteps > self.learning_starts and self.num_timesteps % period == 0

    def _train_when_due(self, state: DQNLoopState) -> None:
        """
        A gradient step every ``train_freq`` steps, its TD errors checked to be finite (before the target network
        copies the weights); then the target network's update every ``target_network_update_freq`` steps.
        """
        state.can_sample = self.replay_buffer.can_sample(self.batch_size)
        td_errors = self._gradient_step_when_due(state)
        if td_errors is not None:
            check_finite_losses(td_errors, self.num_timesteps)
        if self._learning_due(state, self.target_network_update_freq):
            self._built(self.update_target, "update_target")(sess=self.sess)

    def _gradient_step_when_due(self, state: DQNLoopState) -> Optional[np.ndarray]:
        """
        A gradient step every ``train_freq`` steps; with prioritized replay, its transitions get new priorities.

        :return: (np.ndarray or None) the TD errors, None when it was not time to train
        """
        if not self._learning_due(state, self.train_freq):
            return None
        state.callback.on_rollout_end()
        self._sample(state)
        obses_t, actions, rewards, obses_tp1, dones, weights, _ = state.batch
        batch: Tuple[Any, ...] = (obses_t, actions, rewards, obses_tp1, obses_tp1, dones, weights)
        if state.next_action_masks is not None:
            batch += (state.next_action_masks,)
        if state.writer is None:
            state.td_errors = self._fused_gradient_step(state, batch)
        else:
            state.td_errors = self._gradient_step_with_summary(state, batch)
        if self.prioritized_replay:
            check_finite_losses(state.td_errors, self.num_timesteps)  # before they become priorities
            self.replay_buffer.update_priorities(state.batch[6], np.abs(state.td_errors) + self.prioritized_replay_eps)
        state.callback.on_rollout_start()
        return state.td_errors

    def _sample(self, state: DQNLoopState) -> None:
        """
        Draw a minibatch (with importance weights and indices under prioritized replay; else weights of 1), and
        with action masks the allowed actions after each of its transitions.
        """
        if self.prioritized_replay:
            beta_schedule = self._built(self.beta_schedule, "beta_schedule")
            state.batch = self.replay_buffer.sample(self.batch_size, beta=beta_schedule.value(self.num_timesteps),
                                                    env=self._vec_normalize_env)
            slots = state.batch[6]
        elif self._next_masks is not None:
            # drawn here, as ReplayBuffer.sample does, to know which slots (hence which stored masks) were taken
            slots = np.random.randint(0, len(self.replay_buffer), size=self.batch_size)
            sample = self.replay_buffer.transitions_at(slots, env=self._vec_normalize_env)
            state.batch = tuple(sample) + (np.ones_like(sample[2]), None)
        else:
            sample = self.replay_buffer.sample(self.batch_size, env=self._vec_normalize_env)
            state.batch = tuple(sample) + (np.ones_like(sample[2]), None)
        if self._next_masks is not None:
            state.next_action_masks = self._next_masks[slots]

    def _fused_gradient_step(self, state: DQNLoopState, batch: tuple) -> np.ndarray:
        """
        The gradient step in one session call, which also gives the NumPy Q-network its new weights.

        :return: (np.ndarray) the TD errors
        """
        state.out = self._built(self._fused_train, "_fused_train")(*batch)
        if _Q_WEIGHTS in state.out:
            state.forward = self.fast_path.copy_of(self._built(self.step_model, "step_model"))
        return state.out[_TD_ERRORS]

    def _gradient_step_with_summary(self, state: DQNLoopState, batch: tuple) -> np.ndarray:
        """
        The gradient step when TensorBoard logs: also computes the merged summary (and every hundredth step the
        run metadata); the NumPy Q-network reads its weights from the graph again.

        :return: (np.ndarray) the TD errors
        """
        trace = {}
        if (1 + self.num_timesteps) % _TRACE_EVERY == 0:
            state.run_options = tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE)
            state.run_metadata = tf.RunMetadata()
            trace = dict(options=state.run_options, run_metadata=state.run_metadata)
        summarised_train = self._built(self._summarised_train, "_summarised_train")
        state.summary, td_errors = summarised_train(*batch, sess=self.sess, **trace)
        if trace:
            state.writer.add_run_metadata(state.run_metadata, "step%d" % self.num_timesteps)
        state.writer.add_summary(state.summary, self.num_timesteps)
        return td_errors

    def _end_step(self, state: DQNLoopState) -> None:
        """Update the mean return of the last 100 episodes; print the table every ``log_interval`` episodes."""
        if state.done or state.mean_100ep_reward is None:
            last_100 = state.episode_rewards[-101:-1]
            state.mean_100ep_reward = round(float(np.mean(last_100)), 1) if last_100 else -np.inf
        state.episodes_so_far = len(state.episode_rewards)
        if self.verbose < 1 or not state.done or state.log_interval is None \
                or state.episodes_so_far % state.log_interval != 0:
            return
        logger.record_tabular("steps", self.num_timesteps)
        logger.record_tabular("episodes", state.episodes_so_far)
        if state.episode_successes:
            logger.logkv("success rate", np.mean(state.episode_successes[-100:]))
        logger.record_tabular("mean 100 episode reward", state.mean_100ep_reward)
        exploration = self._built(self.exploration, "exploration")
        logger.record_tabular("% time spent exploring", int(100 * exploration.value(self.num_timesteps)))
        logger.dump_tabular()

    def get_parameter_list(self) -> list:
        """
        The variables saved and loaded with the model: the trainable variables under ``deepq`` in creation order
        (``deepq/eps``, the Q-network, the parameter-noise copies, the target network).

        :return: ([tf.Variable]) the variables
        """
        return self._built(self.params, "params")
