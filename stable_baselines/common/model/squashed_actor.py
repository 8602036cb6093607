"""
What SAC and TD3 share on top of :class:`OffPolicyRLModel`: an actor whose output lies in [-1, 1] (a tanh),
rescaled to the bounds of a Box action space, a policy with a target copy fed from a replay-buffer minibatch, and
their hooks of the off-policy loop (see :mod:`stable_baselines.common.model.off_policy`).
"""
import time
import warnings
from contextlib import contextmanager
from typing import Any, Callable, Dict, Iterator, List, Optional, Tuple, Union

import numpy as np

from stable_baselines import logger
from stable_baselines.common import tf_util
from stable_baselines.common.buffers import ReplayBuffer
from stable_baselines.common.export import UNSCALE, ExportSpec, box_spec
from stable_baselines.common.math_util import safe_mean, scale_action, unscale_action
from stable_baselines.common.model.arguments import check_gamma, check_learning_rate, check_positive_int
from stable_baselines.common.model.context import SetVerbosity
from stable_baselines.common.model.observations import batch_observation
from stable_baselines.common.noise import draw_action_noise
from stable_baselines.common.model.off_policy import (ABSENT, LOOP_NAMES, LearnArguments, OffPolicyLoopState,
                                                      OffPolicyRLModel)
from stable_baselines.common.policies import BasePolicy
from stable_baselines.common.schedules import get_schedule_fn
from stable_baselines.common.model.session_call import SessionCall
from stable_baselines.common.tf_compat import tf

# the constructor arguments SAC and TD3 share, for the end of their docstrings
SQUASHED_SETTINGS_DOC = """\
    :param random_exploration: (float) probability of a uniform random action at each step (useful with HER)
    :param verbose: (int) 0 quiet, 1 training information, 2 also TensorFlow's messages
    :param tensorboard_log: (str) folder of the tensorboard logs (None: no logs)
    :param _init_setup_model: (bool) build the graph when the model is created
    :param policy_kwargs: (dict) extra arguments of the policy's constructor
    :param full_tensorboard_log: (bool) log more to tensorboard (no effect on SAC and TD3)
    :param seed: (int) seed of Python's, NumPy's and TensorFlow's generators (None: unseeded); runs repeat
        exactly only with ``n_cpu_tf_sess=1``
    :param n_cpu_tf_sess: (int) TensorFlow's threads (None: one per core)
"""
# the name of the fetched actor weights in a single-call training step
_ACTOR_WEIGHTS = "actor_weights"


class SquashedActorLoopState(OffPolicyLoopState):
    """
    The loop state of SAC and TD3: the learning-rate and update counters and the training information shown in the
    logger table; those declared without a value exist once the run set them.

    :param args: (LearnArguments) the arguments of ``learn``
    :param callback: (BaseCallback) the callback made by the learn frame
    :param writer: (tf.summary.FileWriter) the tensorboard writer, or None
    :param auto_reset: (bool) whether the env resets itself at the end of an episode
    :param delayed_update_interval: (int) every how many gradient steps the delayed update runs
    :param step_kwargs: (dict) keyword arguments of ``policy.step`` when acting for exploration
    """

    # the last training round: its rows, the index of its last gradient step, the remaining progress of that step
    mb_infos_vals: List[tuple]
    grad_step: int
    frac: float
    # the last logger table: the finished episodes, the speed and the last (name, value) row of training
    # information
    episodes_done: int
    fps: int
    last_logged: Tuple[str, Any]

    def __init__(self, args: LearnArguments, callback: Any, writer: Any, auto_reset: bool,
                 delayed_update_interval: int, step_kwargs: Dict[str, Any]) -> None:
        super().__init__(args, callback, writer, auto_reset)
        self.delayed_update_interval = delayed_update_interval
        self.step_kwargs = step_kwargs
        self.current_lr: float = 0.0
        self.n_updates = 0
        # the training information of the last training round (a row of `infos_names`), [] after each table
        self.infos_values: Any = []
        self.mean_reward: Optional[float] = None


def _last_logged(index: int) -> Any:
    """:return: (callable) the reader of the name (0) or the value (1) of the last row of training information"""
    def read(model: Any, state: SquashedActorLoopState) -> Any:
        last = getattr(state, "last_logged", None)
        return ABSENT if last is None else last[index]
    return read


# what the callbacks of SAC and TD3 see: the names of the original's local variables
SQUASHED_ACTOR_NAMES = LOOP_NAMES.extended({
    "delayed_update_interval": "state.delayed_update_interval", "step_kwargs": "state.step_kwargs",
    "current_lr": "state.current_lr", "start_time": "state.start_time", "_": "state.reset_info",
    "auto_reset": "state.auto_reset", "n_updates": "state.n_updates", "infos_values": "state.infos_values",
    "mean_reward": "state.mean_reward", "unscaled_action": "state.env_action",
    "mb_infos_vals": "state.mb_infos_vals", "grad_step": "state.grad_step", "frac": "state.frac",
    "maybe_is_success": "state.maybe_is_success", "num_episodes": "state.episodes_done", "fps": "state.fps",
    "name": _last_logged(0), "val": _last_logged(1),
})


class SquashedActorModel(OffPolicyRLModel[SquashedActorLoopState]):
    """
    The base of SAC and TD3 (their constructor arguments are documented there). Subclasses define
    :meth:`_build_graph` (their networks, losses and updates, and the single-call training steps of
    :meth:`_single_call_spec`), :meth:`_delayed_update_interval` and :meth:`_train_step_with_run`.
    """

    # the hyper-parameters the constructors of SAC and TD3 set (learning_rate: a number, or a function of the
    # remaining progress, replaced by a function when learn starts; action_noise: an ActionNoise or None)
    learning_rate: Any
    buffer_size: int
    batch_size: int
    learning_starts: int
    train_freq: int
    gradient_steps: int
    action_noise: Any
    random_exploration: float
    # made by setup_model: the acting policy, and the names of the values a training step returns
    policy_tf: Any
    infos_names: Optional[List[str]]
    # the losses of a training step, by name (its random draws are counted from them)
    _losses: Dict[str, tf.Tensor]

    # SAC and TD3 train before the episode bookkeeping of a step
    _train_before_episode_end = True
    _callback_names = SQUASHED_ACTOR_NAMES
    # the keyword arguments of ``policy_tf.step`` when the actor explores
    _exploration_step_kwargs: Dict[str, Any] = {}
    # the policy's output that export writes (rescaled to the bounds), and the texts of action_probability
    _exported_output = "policy"
    _no_probability_error = ""
    _no_probability_warning = ""

    def __init__(self, policy: Any, env: Any, policy_base: type, gamma: float,
                 learning_rate: Union[float, Callable], buffer_size: int, learning_starts: int, train_freq: int,
                 batch_size: int, tau: float, gradient_steps: int, action_noise: Any, random_exploration: float,
                 verbose: int, tensorboard_log: Optional[str], policy_kwargs: Optional[Dict[str, Any]],
                 full_tensorboard_log: bool, seed: Optional[int], n_cpu_tf_sess: Optional[int],
                 other_positive_int: Tuple[str, int]) -> None:
        """
        Check and set the hyper-parameters SAC and TD3 share (given in this order), and declare the graph's
        attributes both have.

        :param other_positive_int: ((str, int)) the algorithm's own hyper-parameter that must be a positive int
        """
        check_gamma(gamma)
        check_learning_rate(learning_rate)
        for name, value in (("buffer_size", buffer_size), ("train_freq", train_freq), ("batch_size", batch_size),
                            ("gradient_steps", gradient_steps), other_positive_int):
            check_positive_int(name, value)
        super().__init__(policy=policy, env=env, replay_buffer=None, verbose=verbose, policy_base=policy_base,
                         requires_vec_env=False, policy_kwargs=policy_kwargs, seed=seed, n_cpu_tf_sess=n_cpu_tf_sess)
        self.gamma, self.learning_rate, self.tau = gamma, learning_rate, tau
        self.buffer_size, self.batch_size = buffer_size, batch_size
        self.learning_starts, self.train_freq, self.gradient_steps = learning_starts, train_freq, gradient_steps
        self.action_noise, self.random_exploration = action_noise, random_exploration
        self.tensorboard_log, self.full_tensorboard_log = tensorboard_log, full_tensorboard_log
        # the graph (built by setup_model)
        self.graph = self.sess = self.replay_buffer = self.summary = None
        self.params: Any = None
        self.target_params: Optional[List[tf.Variable]] = None
        self.policy_tf = None
        self.observations_ph = self.processed_obs_ph = self.next_observations_ph = None
        self.processed_next_obs_ph = self.obs_target = None
        self.actions_ph = self.action_target = None
        self.rewards_ph: Any = None
        self.terminals_ph: Any = None
        self.learning_rate_ph = None
        self.step_ops: Optional[List[Any]] = None
        self.infos_names = None
        # the losses a training step returns, by name
        self._losses = {}

    def _delayed_update_interval(self) -> int:
        """:return: (int) every how many gradient steps the delayed update runs"""
        raise NotImplementedError

    # ---------------------------------------------------------------------------------------------- graph
    def setup_model(self) -> None:
        with SetVerbosity(self.verbose):
            self._check_policy_class()
            self._check_action_space()
            self.graph = tf.Graph()
            with self.graph.as_default():
                self.set_random_seed(self.seed)
                self.sess = sess = tf_util.make_session(num_cpu=self.n_cpu_tf_sess, graph=self.graph)
                self.replay_buffer = ReplayBuffer(self.buffer_size)
                _, target_policy = self._setup_policy_and_target_inputs()
                target_init_op, specs = self._build_graph(target_policy)
                with sess.as_default():
                    sess.run(tf.global_variables_initializer())
                    sess.run(target_init_op)
                self.summary = tf.summary.merge_all()
                self._make_single_calls(specs)

    def _build_graph(self, target_policy: Any) -> Tuple[List[tf.Tensor], Dict[bool, Tuple[dict, list]]]:
        """
        Build the algorithm's networks, losses, updates and summaries (``self.params``, ``self.target_params``),
        after the policies and the placeholders, in the model's graph.

        :param target_policy: (BasePolicy) the target copy of ``self.policy_tf`` (of the algorithm's policy class)
        :return: ([tf.Tensor], dict) the assignments initialising the target networks, and the single-call training
            steps by ``delayed_update`` (see :meth:`_single_call_spec`)
        """
        raise NotImplementedError

    def _setup_policy_and_target_inputs(self) -> Tuple[BasePolicy, BasePolicy]:
        """
        In the variable scope ``input``: the policy ``self.policy_tf``, its target copy, and the placeholders of a
        minibatch (``observations_ph``, ``next_observations_ph`` and their processed tensors, ``action_target``,
        ``terminals_ph``, ``rewards_ph``, ``actions_ph``, ``learning_rate_ph``). Call inside the model's graph.

        :return: (BasePolicy, BasePolicy) the policy and the target policy
        """
        obs_space = self._built(self.observation_space, "observation_space")
        act_space = self._built(self.action_space, "action_space")
        with tf.variable_scope("input", reuse=False):
            self.policy_tf = self.policy(self.sess, obs_space, act_space, **self.policy_kwargs)
            target_policy = self.policy(self.sess, obs_space, act_space, **self.policy_kwargs)
            self.observations_ph, self.processed_obs_ph = self.policy_tf.obs_ph, self.policy_tf.processed_obs
            self.next_observations_ph = target_policy.obs_ph
            self.processed_next_obs_ph = target_policy.processed_obs
            self.action_target = target_policy.action_ph
            self.terminals_ph = tf.placeholder(tf.float32, shape=(None, 1), name='terminals')
            self.rewards_ph = tf.placeholder(tf.float32, shape=(None, 1), name='rewards')
            self.actions_ph = tf.placeholder(tf.float32, shape=(None,) + tuple(act_space.shape), name='actions')
            self.learning_rate_ph = tf.placeholder(tf.float32, [], name="learning_rate_ph")
        return self.policy_tf, target_policy

    def _minibatch_feeds(self) -> list:
        """:return: ([tf.Tensor]) the placeholders of a training step, in the order of :meth:`_minibatch_values`"""
        return [self.observations_ph, self.actions_ph, self.next_observations_ph, self.rewards_ph,
                self.terminals_ph, self.learning_rate_ph]

    def _minibatch_values(self, batch: tuple, learning_rate: float) -> list:
        """
        :param batch: (tuple) a replay-buffer minibatch (obs, actions, rewards, next obs, dones)
        :param learning_rate: (float) the current learning rate
        :return: ([Any]) the values of :meth:`_minibatch_feeds`
        """
        obs, actions, rewards, next_obs, dones = batch
        column = (self.batch_size, -1)
        return [obs, actions, next_obs, np.asarray(rewards, dtype=np.float32).reshape(column),
                np.asarray(dones, dtype=np.float32).reshape(column), learning_rate]

    def _run_train_ops(self, fetches: Dict[str, Any], updates: list, batch: tuple, learning_rate: float,
                       writer: Any, step: int) -> Dict[str, Any]:
        """
        A training step with ``sess.run`` (the path taken with a tensorboard writer, whose summary it writes).

        :param fetches: ({str: tf.Tensor}) what to return, by name
        :param updates: ([tf.Operation]) what to run too
        :param batch: (tuple) a replay-buffer minibatch
        :param learning_rate: (float) the current learning rate
        :param writer: (tf.summary.FileWriter) the tensorboard writer, or None
        :param step: (int) the x axis of tensorboard
        :return: ({str: Any}) the values of ``fetches``
        """
        feed_dict = dict(zip(self._minibatch_feeds(), self._minibatch_values(batch, learning_rate)))
        sess = self._built(self.sess, "sess")
        if writer is None:
            return tf_util.session_run(sess, [fetches, updates], feed_dict)[0]
        values, _, summary = tf_util.session_run(sess, [fetches, updates, self.summary], feed_dict)
        writer.add_summary(summary, step)
        return values

    def _single_call_spec(self, losses: Dict[str, tf.Tensor], updates: list,
                          actor_changes: bool) -> Tuple[Dict[str, tf.Tensor], list]:
        """
        Describe a training step done in one session call; build it in the graph before the session first runs.

        :param losses: ({str: tf.Tensor}) the values to return, by their name in ``infos_names``
        :param updates: ([tf.Operation]) the updates of the step
        :param actor_changes: (bool) whether the updates change the actor: its new weights are then fetched too,
            for the NumPy copy of the actor (when it has one)
        :return: ({str: tf.Tensor}, [tf.Operation]) the fetches and the updates of the call
        """
        fetches = dict(losses)
        weights = self.fast_path.weights_after(self.policy_tf, updates) if actor_changes else None
        if weights is not None:
            fetches[_ACTOR_WEIGHTS] = weights
        return fetches, updates

    def _make_single_calls(self, specs: Dict[bool, Tuple[Dict[str, tf.Tensor], list]]) -> None:
        """
        :param specs: ({bool: (fetches, updates)}) by ``delayed_update``, the results of :meth:`_single_call_spec`
        """
        feeds = self._minibatch_feeds()
        self._fused_train = {delayed: SessionCall(self.sess, feeds, fetches, updates)
                             for delayed, (fetches, updates) in specs.items()}

    def _train_step(self, step: int, writer: Any, learning_rate: float, delayed_update: bool) -> tuple:
        """
        One gradient step on a minibatch of the replay buffer.

        :param step: (int) the index of the current step in this ``learn`` call (x axis of tensorboard)
        :param writer: (tf.summary.FileWriter) the tensorboard writer, or None
        :param learning_rate: (float) the current learning rate
        :param delayed_update: (bool) whether the delayed update runs with this gradient step
        :return: (tuple) the values of ``self.infos_names``
        """
        batch = self.replay_buffer.sample(self.batch_size, env=self._vec_normalize_env)
        if writer is None and self._fused_train is not None:
            named = self._fused_train[bool(delayed_update)](*self._minibatch_values(batch, learning_rate))
            weights = named.pop(_ACTOR_WEIGHTS, None)
            if weights is not None:
                self.fast_path.receive_weights(self.policy_tf, weights)
        else:
            named = self._train_step_with_run(step, writer, learning_rate, batch, delayed_update)
        return tuple(named[name] for name in self._built(self.infos_names, "infos_names"))

    def _train_step_with_run(self, step: int, writer: Any, learning_rate: float, batch: tuple,
                             delayed_update: bool) -> Dict[str, Any]:
        """
        The training step through ``sess.run`` (with a tensorboard writer, or without single-call steps).

        :param step: (int) the x axis of tensorboard
        :param writer: (tf.summary.FileWriter) the tensorboard writer, or None
        :param learning_rate: (float) the current learning rate
        :param batch: (tuple) a replay-buffer minibatch
        :param delayed_update: (bool) whether the delayed update runs with this gradient step
        :return: ({str: Any}) at least the values of ``self.infos_names``
        """
        raise NotImplementedError

    # ---------------------------------------------------------------------------------------------- acting
    def predict(self, observation: np.ndarray, state: Any = None, mask: Any = None,
                deterministic: bool = True) -> Tuple[np.ndarray, None]:
        """
        The model's action for an observation (or a batch of them).

        :param observation: (np.ndarray) the observation
        :param state: (np.ndarray) unused (recurrent policies only)
        :param mask: (np.ndarray) unused (recurrent policies only)
        :param deterministic: (bool) the actor's action (True), or an exploring one (SAC samples it from the actor,
            TD3 adds the model's action noise)
        :return: (np.ndarray, None) the action, rescaled to the action space, and no state
        """
        return self._predict_action(observation, deterministic), None

    def _predict_action(self, observation: np.ndarray, deterministic: bool) -> np.ndarray:
        """
        :param observation: (np.ndarray) the observation(s) given to ``predict``
        :param deterministic: (bool) the argument of ``predict``
        :return: (np.ndarray) the action(s), rescaled to the action space
        """
        raise NotImplementedError

    def action_probability(self, observation: np.ndarray, state: Any = None, mask: Any = None,
                           actions: Any = None, logp: bool = False) -> None:
        """
        Not available: the actor's action has no distribution to return. Warns and returns None (a ValueError when
        ``actions`` is given), as the original did.

        :param observation: (np.ndarray) the observation
        :param state: (np.ndarray) unused (recurrent policies only)
        :param mask: (np.ndarray) unused (recurrent policies only)
        :param actions: (np.ndarray) not supported
        :param logp: (bool) not supported
        :return: (None)
        """
        if actions is not None:
            raise ValueError(self._no_probability_error)
        warnings.warn(self._no_probability_warning)
        return None

    def get_parameter_list(self) -> List[Any]:
        return self._built(self.params, "params") + self._built(self.target_params, "target_params")

    def _export_spec(self, batch_size: Optional[int] = None) -> ExportSpec:
        """:return: (ExportSpec) the actor's tanh output, rescaled to the bounds of the action space"""
        policy = self._built(self.policy_tf, "policy_tf")
        return box_spec(self.sess, policy.obs_ph, getattr(policy, self._exported_output), self.observation_space,
                        self.action_space, UNSCALE)

    def _predict_squashed(self, observation: Any, one_row: bool, noisy: bool, **step_kwargs: Any) -> np.ndarray:
        """
        ``predict``'s action for an observation (or a batch of them), rescaled to the action space.

        :param observation: (Any) what the user passed to ``predict``
        :param one_row: (bool) whether the NumPy copy of the actor may answer for a single observation
        :param noisy: (bool) add the model's action noise to the actor's action
        :param step_kwargs: (dict) keyword arguments of ``policy_tf.step``
        :return: (np.ndarray) the action (a batch of them for a batch of observations)
        """
        self._check_numeric_observation(observation)
        if one_row:
            action = self._predict_one_squashed(observation)
            if action is not None:
                return action
        action_space = self._built(self.action_space, "action_space")
        observation, vectorized_env = batch_observation(observation, self._built(self.observation_space,
                                                                                 "observation_space"))
        squashed = self.policy_tf.step(observation, **step_kwargs)
        if noisy:
            squashed = np.clip(squashed + draw_action_noise(self.action_noise, action_space), -1, 1)
        actions = unscale_action(action_space, squashed.reshape((-1,) + tuple(action_space.shape)))
        return actions if vectorized_env else actions[0]

    def _check_numeric_observation(self, observation: Any) -> None:
        """
        Raise a ValueError when ``predict`` was given text (a string or an array of strings) for an observation.

        :param observation: (Any) what the user passed to ``predict``
        """
        if isinstance(observation, (str, bytes)):
            given = type(observation).__name__
        else:
            try:
                dtype = np.asarray(observation).dtype
            except ValueError:  # ragged nesting: the general path explains the shape
                return
            if dtype.kind not in "US":
                return
            given = "an array of dtype {}".format(dtype)
        space = self._built(self.observation_space, "observation_space")
        raise ValueError("{}.predict expects numeric observations of the observation space {} (shape {} or "
                         "(n_env,) + {}), got {}: {!r}".format(type(self).__name__, space, space.shape, space.shape,
                                                             given, observation))

    def _predict_one_squashed(self, observation: Any) -> Optional[np.ndarray]:
        """
        ``predict``'s fast path for one observation: the NumPy copy of the actor, tanh, rescaled to the bounds.

        :param observation: (Any) what the user passed to ``predict``
        :return: (np.ndarray or None) the action; None when the general path must answer
        """
        out = self.fast_path.single_row(self.policy_tf, observation, self.observation_space)
        if out is None:
            return None
        action_space = self._built(self.action_space, "action_space")
        return unscale_action(action_space, np.tanh(out).reshape(action_space.shape))

    # ---------------------------------------------------------------------------------------------- loop hooks
    @contextmanager
    def _training_run(self, args: LearnArguments, callback: Any, writer: Any) -> Iterator[SquashedActorLoopState]:
        state = SquashedActorLoopState(args, callback, writer, self._env_resets_itself(),
                                       self._delayed_update_interval(), dict(self._exploration_step_kwargs))
        self.learning_rate = get_schedule_fn(self.learning_rate)
        state.current_lr = self.learning_rate(1)
        if self.action_noise is not None:
            self.action_noise.reset()
        yield state

    def _choose_action(self, state: SquashedActorLoopState) -> Tuple[np.ndarray, np.ndarray]:
        # uniform random actions while warming up or when exploring at random, else the actor's (plus noise)
        action_space = self._built(self.action_space, "action_space")
        warming_up = self.num_timesteps < self.learning_starts
        if warming_up or np.random.rand() < self.random_exploration:
            # the model's own space: its generator is part of the training state (the env's may be unseeded)
            env_action = action_space.sample()
            action = scale_action(action_space, env_action)
        else:
            action = np.asarray(self.policy_tf.step(np.asarray(state.obs)[None], **state.step_kwargs)).flatten()
            if self.action_noise is not None:
                noise = draw_action_noise(self.action_noise, action_space).reshape(-1)
                action = np.minimum(np.maximum(action + noise, -1), 1)  # np.clip's values
            env_action = unscale_action(action_space, action)
        return np.asarray(action, dtype=np.float32).reshape(action_space.shape), env_action

    def _train_when_due(self, state: SquashedActorLoopState) -> Optional[List[tuple]]:
        if self.num_timesteps % self.train_freq != 0:
            return None
        state.callback.on_rollout_end()
        rows = state.mb_infos_vals = []
        for grad_step in range(self.gradient_steps):
            state.grad_step = grad_step
            if self.num_timesteps < self.learning_starts or not self.replay_buffer.can_sample(self.batch_size):
                break
            state.n_updates += 1
            state.frac = 1.0 - state.step / state.total_timesteps
            state.current_lr = self.learning_rate(state.frac)
            delayed = (state.step + grad_step) % state.delayed_update_interval == 0
            rows.append(self._train_step(state.step, state.writer, state.current_lr, delayed))
        if len(rows) == 1:
            state.infos_values = np.asarray(rows[0])
        elif rows:
            state.infos_values = np.mean(rows, axis=0)
        state.callback.on_rollout_start()
        return rows or None

    def _on_episode_end(self, state: SquashedActorLoopState) -> None:
        if self.action_noise is not None:
            self.action_noise.reset()

    def _end_step(self, state: SquashedActorLoopState) -> None:
        if state.done or state.mean_reward is None:
            finished = state.episode_rewards[-101:-1]
            state.mean_reward = round(float(np.mean(finished)), 1) if finished else -np.inf
        state.episodes_done = state.num_episodes
        interval = state.log_interval
        if self.verbose >= 1 and state.done and interval is not None and state.episodes_done % interval == 0:
            self._dump_logger_table(state)

    def _dump_logger_table(self, state: SquashedActorLoopState) -> None:
        """Write the logger table of SAC and TD3 (its keys are the original's)."""
        state.fps = int(state.step / max(time.time() - state.start_time, 1e-8))
        logger.logkv("episodes", state.episodes_done)
        logger.logkv("mean 100 episode reward", state.mean_reward)
        if self.ep_info_buf and len(self.ep_info_buf[0]) > 0:
            logger.logkv('ep_rewmean', safe_mean([ep_info['r'] for ep_info in self.ep_info_buf]))
            logger.logkv('eplenmean', safe_mean([ep_info['l'] for ep_info in self.ep_info_buf]))
        logger.logkv("n_updates", state.n_updates)
        logger.logkv("current_lr", state.current_lr)
        logger.logkv("fps", state.fps)
        logger.logkv('time_elapsed', int(time.time() - state.start_time))
        if state.episode_successes:
            logger.logkv("success rate", np.mean(state.episode_successes[-100:]))
        for pair in zip(self._built(self.infos_names, "infos_names"), state.infos_values):
            state.last_logged = pair
            logger.logkv(*pair)
        logger.logkv("total timesteps", self.num_timesteps)
        logger.dumpkvs()
        state.infos_values = []
