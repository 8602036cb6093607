"""
:class:`OffPolicyRLModel`, the base of the off-policy algorithms (DQN, DDPG, SAC, TD3).
"""
import time
from abc import abstractmethod
from typing import Any, Dict, List, Optional, Tuple

import numpy as np
from gymnasium import spaces

from stable_baselines import logger
from stable_baselines.common import tf_util
from stable_baselines.common.buffer_files import load_buffer, save_buffer
from stable_baselines.common.gym_compat import reset_env, step_env
from stable_baselines.common.math_util import safe_mean, scale_action, unscale_action
from stable_baselines.common.model.base import BaseRLModel
from stable_baselines.common.policies import BasePolicy
from stable_baselines.common.schedules import get_schedule_fn
from stable_baselines.common.tf_compat import tf
from stable_baselines.common.tf_util import total_episode_reward_logger
from stable_baselines.common.vec_env import VecEnv


class OffPolicyRLModel(BaseRLModel):
    """
    The base of the off-policy algorithms (DQN, DDPG, SAC, TD3): a replay buffer, the transitions stored in it,
    the fused single-call training steps, and the env-step loop of SAC and TD3.

    :param policy: (BasePolicy or str) the policy class, or its registered name
    :param env: (gymnasium.Env, VecEnv or str) the environment to learn from (None to build a model for ``load``)
    :param replay_buffer: (ReplayBuffer) the replay buffer (the algorithms create theirs in ``learn``)
    :param _init_setup_model: (bool) build the graph now (the algorithm does it)
    :param verbose: (int) 0 quiet, 1 training information, 2 also TensorFlow's messages
    :param requires_vec_env: (bool) whether the algorithm steps a VecEnv
    :param policy_base: (BasePolicy) the class the policy must derive from
    :param policy_kwargs: (dict) extra arguments of the policy's constructor
    :param seed: (int) the seed of Python's, NumPy's and TensorFlow's generators (None: not seeded); runs are
        only reproducible with ``n_cpu_tf_sess=1``
    :param n_cpu_tf_sess: (int) TensorFlow's number of threads (None: as many as the machine has)
    """

    def __init__(self, policy, env, replay_buffer=None, _init_setup_model=False, verbose=0, *,
                 requires_vec_env=False, policy_base=None,
                 policy_kwargs=None, seed=None, n_cpu_tf_sess=None):
        super().__init__(policy, env, verbose=verbose, requires_vec_env=requires_vec_env, policy_base=policy_base,
                         policy_kwargs=policy_kwargs, seed=seed, n_cpu_tf_sess=n_cpu_tf_sess)
        self.replay_buffer = replay_buffer
        self._policy_base = policy_base
        # the single-call training steps of DQN, SAC and TD3 (built in setup_model when available), and the layouts
        # of the flat weight vectors they fetch for the NumPy networks (by id of the NumPy forward)
        self._fused_train = None
        self._flat_layouts: Dict[int, List[Tuple[int, int, Tuple[int, ...]]]] = {}
        # set by load_replay_buffer: the next learn() keeps the loaded buffer (DQN otherwise makes a new one)
        self._replay_buffer_loaded = False

    def _inner_replay_buffer(self) -> Any:
        """:return: (ReplayBuffer) the replay buffer itself (inside HER's wrapper when there is one), or None"""
        return self.replay_buffer.replay_buffer if self.is_using_her() else self.replay_buffer

    def save_replay_buffer(self, path: str) -> None:
        """
        Write the replay buffer's transitions (and priorities) to a file, an ``.npz`` archive of plain arrays
        with a JSON header (no pickle); the transitions of HER's current, unfinished episode are not included.

        :param path: (str) the file to write (replaced atomically)
        """
        buffer = self._inner_replay_buffer()
        if buffer is None:
            raise ValueError("{} has no replay buffer yet: it is created by {}, save it after training"
                             .format(type(self).__name__, "learn()" if type(self).__name__ == "DQN" else
                                     "setup_model()"))
        save_buffer(buffer, path)

    def load_replay_buffer(self, path: str) -> None:
        """
        Replace the replay buffer with one written by :meth:`save_replay_buffer` (read without pickle, its sizes
        checked before anything is allocated); the next ``learn`` continues with it.

        :param path: (str) the file
        """
        buffer = load_buffer(path)
        self._check_buffer_fits(buffer, path)
        if self.is_using_her():
            self.replay_buffer.replay_buffer = buffer
        else:
            self.replay_buffer = buffer
        self._replay_buffer_loaded = True

    def _check_buffer_fits(self, buffer: Any, path: str) -> None:
        """Raise a ValueError when the stored observations do not have the model's observation shape."""
        if len(buffer) == 0 or self.observation_space is None or self.is_using_her():
            return
        stored = np.asarray(buffer.storage[0][0]).shape
        expected = tuple(self.observation_space.shape)
        if stored != expected:
            raise ValueError("The replay buffer in {!r} holds observations of shape {}, the model's observation "
                             "space has shape {}".format(path, stored, expected))

    def _take_loaded_replay_buffer(self) -> bool:
        """
        :return: (bool) whether a buffer was loaded since the last ``learn`` (then it is kept, once)
        """
        loaded, self._replay_buffer_loaded = self._replay_buffer_loaded, False
        return loaded and self.replay_buffer is not None

    def _check_action_space(self) -> None:
        """
        Raise a clear error when the action space is known and is not continuous: for the models that support
        ``gym.spaces.Box`` actions only (DDPG, SAC, TD3).
        """
        if self.action_space is not None and not isinstance(self.action_space, spaces.Box):
            raise ValueError("Error: {} only supports continuous action spaces (gym.spaces.Box), got {} ({})"
                             .format(type(self).__name__, type(self.action_space).__name__, self.action_space))

    def _check_policy_class(self) -> None:
        """Raise a clear error when the policy is not a subclass of the model's base policy class."""
        policy_base = self._policy_base
        if policy_base is not None and not (isinstance(self.policy, type) and issubclass(self.policy, policy_base)):
            raise ValueError("Error: the input policy for the {} model must be a subclass of {}.{} (MlpPolicy, "
                             "LnMlpPolicy, CnnPolicy, LnCnnPolicy or a FeedForwardPolicy subclass), got {!r}"
                             .format(type(self).__name__, policy_base.__module__, policy_base.__name__,
                                     self.policy))

    def _single_row_output(self, policy: Any, observation: Any) -> Optional[np.ndarray]:
        """
        The fast path of ``predict`` for ONE observation: the output of the policy's NumPy network copy through
        its preallocated single-row stack (see ``NumpyNetworkCopy.row_forward``).

        :param policy: (BasePolicy) the acting policy
        :param observation: (Any) what the user passed to ``predict``
        :return: (np.ndarray or None) float32, shape (1, n_out), overwritten by the next call; None when the
            general path must answer (a batch, another type or shape, no NumPy copy)
        """
        forward = getattr(policy, "_numpy_forward", None)
        if forward is None or type(observation) is not np.ndarray \
                or observation.shape != self.observation_space.shape:  # pylint: disable=unidiomatic-typecheck
            return None
        return forward.row_forward(observation)

    def _predict_one_squashed(self, observation: Any) -> Optional[np.ndarray]:
        """
        The fast path of ``predict`` for ONE observation of a tanh-squashed actor (SAC's deterministic action,
        TD3's action): :meth:`_single_row_output`, then the rescaling to the action bounds, as the general path
        computes it.

        :param observation: (Any) what the user passed to ``predict``
        :return: (np.ndarray or None) the action, shape of the action space; None when the general path must answer
        """
        out = self._single_row_output(self.policy_tf, observation)
        if out is None:
            return None
        return unscale_action(self.action_space, np.tanh(out).reshape(self.action_space.shape))

    @staticmethod
    def _flat_after(ops: list, variables: list) -> tf.Tensor:
        """
        The values of ``variables`` after ``ops`` ran, as one new float32 vector (to fetch updated weights in the
        same session call as the training step; call inside the model's graph).

        :param ops: ([tf.Operation or tf.Tensor]) the ops to wait for
        :param variables: ([tf.Variable]) the variables to read
        :return: (tf.Tensor) the concatenation of the flattened variables
        """
        with tf.control_dependencies(ops):
            return tf.concat([tf.reshape(var.read_value(), [-1]) for var in variables], axis=0)

    @staticmethod
    def _fast_callable(sess: tf.Session, feeds: list, fetches: list, targets: list):
        """
        A session callable with a fixed feed list (see ``tf_util.feed_callable``: no per-call fetch/feed
        processing in Python, unlike ``sess.run``).

        :param sess: (tf.Session) the session
        :param feeds: ([tf.Tensor]) the placeholders, in the order of the call arguments
        :param fetches: ([tf.Tensor]) the tensors to return (a list of arrays, in this order)
        :param targets: ([tf.Operation or tf.Tensor]) what to run without returning it
        :return: (callable) ``f(*feed_values) -> [np.ndarray]``
        """
        run = tf_util.feed_callable(sess, list(fetches) + list(targets), feeds)
        n_fetches = len(fetches)

        def call(*values):
            return run(*values)[:n_fetches]

        return call

    def _unflatten(self, flat: np.ndarray, forward: Any) -> List[np.ndarray]:
        """
        Cut a vector of :meth:`_flat_after` into the arrays of ``forward.variables`` (views, no copy).

        :param flat: (np.ndarray) the fetched vector
        :param forward: (Any) a NumPy network copy (with its list ``variables``)
        :return: ([np.ndarray]) one array per variable
        """
        layout = self._flat_layouts.get(id(forward))
        if layout is None:
            layout, start = [], 0
            for var in forward.variables:
                shape = tuple(var.shape.as_list())
                size = int(np.prod(shape, dtype=np.int64))
                layout.append((start, start + size, shape))
                start += size
            self._flat_layouts[id(forward)] = layout
        return [flat[start:end].reshape(shape) for start, end, shape in layout]

    def is_using_her(self) -> bool:
        """
        :return: (bool) whether the replay buffer is HER's wrapper (told by class name: common/ never imports an
            algorithm)
        """
        return type(self.replay_buffer).__name__ == "HindsightExperienceReplayWrapper"

    def replay_buffer_add(self, obs_t, action, reward, obs_tp1, done, info):
        """
        Store one transition in the replay buffer.

        :param obs_t: (np.ndarray) the observation the action was taken in
        :param action: ([float]) the action
        :param reward: (float) its reward
        :param obs_tp1: (np.ndarray) the observation that followed
        :param done: (bool) whether the episode ended with it
        :param info: (dict) the step's info (HER's wrapper computes rewards with it)
        """
        kwargs = dict(info=info) if self.is_using_her() else {}
        self.replay_buffer.add(obs_t, action, reward, obs_tp1, float(done), **kwargs)

    def _store_transition(self, obs_, action, reward, new_obs, done: bool, info: dict, writer=None):
        """
        Store one transition in the replay buffer, record Monitor's episode statistics and the
        tensorboard episode reward. With a VecNormalize env the unnormalized observation and reward
        are stored (as the original did); when the env is a VecEnv that already reset at the end of an
        episode, the stored next observation is its true last one (``info["terminal_observation"]``,
        where the original stored the reset observation).

        :param obs_: (Any) the unnormalized observation in which the action was taken
        :param action: (Any) the action, as the replay buffer keeps it
        :param reward: (float) the reward returned by the env
        :param new_obs: (Any) the observation returned by the env
        :param done: (bool) whether the episode ended (termination or truncation)
        :param info: (dict) the info dict returned by the env
        :param writer: (TensorFlow Summary.writer) the tensorboard writer, or None
        :return: (Any, float) the unnormalized new observation (``obs_`` of the next step) and reward
        """
        if self._vec_normalize_env is not None:
            new_obs_ = self._vec_normalize_env.get_original_obs()[0]
            reward_ = float(np.asarray(self._vec_normalize_env.get_original_reward()).reshape(-1)[0])
        else:
            new_obs_, reward_ = new_obs, reward
        stored_next_obs = new_obs_
        if done and isinstance(self.env, VecEnv) and info.get("terminal_observation") is not None:
            stored_next_obs = info["terminal_observation"]
        self.replay_buffer_add(obs_, action, reward_, stored_next_obs, done, info)

        maybe_ep_info = info.get("episode")
        if maybe_ep_info is not None:
            self.ep_info_buf.extend([maybe_ep_info])
        if writer is not None:
            total_episode_reward_logger(self.episode_reward, np.array([reward_]).reshape((1, -1)),
                                        np.array([done]).reshape((1, -1)), writer, self.num_timesteps)
        return new_obs_, reward_

    def _setup_policy_and_target_inputs(self) -> Tuple[BasePolicy, BasePolicy]:
        """
        Create, in the variable scope ``input`` (inside the model's graph, once ``self.sess`` exists), the policy
        ``self.policy_tf`` and its target copy, and the placeholders of a replay-buffer minibatch: the
        observations of the policy (``observations_ph``, ``processed_obs_ph``), the next observations of the target
        policy (``next_observations_ph``, ``processed_next_obs_ph``; ``action_target``), ``terminals_ph``,
        ``rewards_ph``, ``actions_ph`` and ``learning_rate_ph`` (SAC, TD3).

        :return: (BasePolicy, BasePolicy) the policy and the target policy
        """
        with tf.variable_scope("input", reuse=False):
            self.policy_tf = self.policy(self.sess, self.observation_space, self.action_space, **self.policy_kwargs)
            target_policy = self.policy(self.sess, self.observation_space, self.action_space, **self.policy_kwargs)

            self.observations_ph = self.policy_tf.obs_ph
            self.processed_obs_ph = self.policy_tf.processed_obs
            self.next_observations_ph = target_policy.obs_ph
            self.processed_next_obs_ph = target_policy.processed_obs
            self.action_target = target_policy.action_ph
            self.terminals_ph = tf.placeholder(tf.float32, shape=(None, 1), name='terminals')
            self.rewards_ph = tf.placeholder(tf.float32, shape=(None, 1), name='rewards')
            self.actions_ph = tf.placeholder(tf.float32, shape=(None,) + tuple(self.action_space.shape),
                                             name='actions')
            self.learning_rate_ph = tf.placeholder(tf.float32, [], name="learning_rate_ph")
        return self.policy_tf, target_policy

    def _minibatch_feeds(self) -> list:
        """
        :return: ([tf.Tensor]) the placeholders of a training step of SAC and TD3, in the order of
            :meth:`_minibatch_values` (the feed list of their single-call training steps)
        """
        return [self.observations_ph, self.actions_ph, self.next_observations_ph, self.rewards_ph,
                self.terminals_ph, self.learning_rate_ph]

    def _minibatch_values(self, batch: tuple, learning_rate: float) -> list:
        """
        :param batch: (tuple) a minibatch of the replay buffer (obs, actions, rewards, next obs, dones)
        :param learning_rate: (float) the current learning rate
        :return: ([Any]) the values of :meth:`_minibatch_feeds`, in the same order
        """
        batch_obs, batch_actions, batch_rewards, batch_next_obs, batch_dones = batch
        return [batch_obs, batch_actions, batch_next_obs,
                np.asarray(batch_rewards, dtype=np.float32).reshape(self.batch_size, -1),
                np.asarray(batch_dones, dtype=np.float32).reshape(self.batch_size, -1), learning_rate]

    def _fused_train_step(self, batch: tuple, learning_rate: float, delayed_update: bool) -> Optional[tuple]:
        """
        One training step of SAC or TD3 in a single session call (``self._fused_train[delayed_update]``): the
        updates, the values of ``self.infos_names``, and the new actor weights, handed to the NumPy actor, when
        the callable fetches them.

        :param batch: (tuple) a minibatch of the replay buffer
        :param learning_rate: (float) the current learning rate
        :param delayed_update: (bool) which of the two callables to run (with the delayed update or without)
        :return: (tuple or None) the values of ``self.infos_names``; None when there is no such callable
        """
        if self._fused_train is None:
            return None
        out = self._fused_train[bool(delayed_update)](*self._minibatch_values(batch, learning_rate))
        n_infos = len(self.infos_names)
        if len(out) > n_infos:
            forward = self.policy_tf._numpy_forward
            forward.set_weights(self._unflatten(out[n_infos], forward))
        return tuple(out[:n_infos])

    def _run_train_ops(self, ops: list, batch: tuple, learning_rate: float, writer, step: int) -> list:
        """
        Run ``ops`` with ``sess.run`` on a minibatch, and write the tensorboard summary when ``writer`` is given.

        :param ops: ([tf.Tensor or tf.Operation]) what to run
        :param batch: (tuple) a minibatch of the replay buffer
        :param learning_rate: (float) the current learning rate
        :param writer: (TensorFlow Summary.writer) the writer for tensorboard (None: no summary)
        :param step: (int) the current step (x axis of tensorboard)
        :return: ([Any]) the values of ``ops``
        """
        feed_dict = dict(zip(self._minibatch_feeds(), self._minibatch_values(batch, learning_rate)))
        if writer is not None:
            out = self.sess.run([self.summary] + list(ops), feed_dict)
            writer.add_summary(out.pop(0), step)
            return out
        return self.sess.run(ops, feed_dict)

    def _learn_continuous(self, total_timesteps: int, callback, log_interval: Optional[int], tb_log_name: str,
                          reset_num_timesteps: bool, replay_wrapper, progress_bar: bool, delayed_update_interval: int,
                          step_kwargs: Optional[Dict[str, Any]] = None) -> "OffPolicyRLModel":
        """
        The training loop of the continuous-action models whose actor acts in [-1, 1] (SAC, TD3): one env step at a
        time (uniform random actions until ``learning_starts``, or with probability ``random_exploration``), the
        transition stored in the replay buffer, ``gradient_steps`` calls of ``self._train_step`` every ``train_freq``
        steps, and the logger table every ``log_interval`` episodes.

        :param total_timesteps: (int) The total number of samples to train on
        :param callback: (Union[callable, [callable], BaseCallback]) as for ``learn``
        :param log_interval: (int) The number of episodes before logging.
        :param tb_log_name: (str) the name of the run for tensorboard log
        :param reset_num_timesteps: (bool) whether or not to reset the current timestep number (used in logging)
        :param replay_wrapper: (ReplayBuffer -> ReplayBuffer) optional wrapper of the replay buffer (e.g. HER)
        :param progress_bar: (bool) display a progress bar over the timesteps (needs tqdm)
        :param delayed_update_interval: (int) a gradient step at ``step + grad_step`` divisible by it also does the
            delayed update (SAC: the target network, TD3: the actor and the target networks): the fourth argument of
            ``self._train_step(step, writer, learning_rate, delayed_update)``, which returns the values of
            ``self.infos_names``
        :param step_kwargs: (dict) extra keyword arguments of ``self.policy_tf.step`` when exploring
        :return: (OffPolicyRLModel) the trained model
        """
        step_kwargs = {} if step_kwargs is None else step_kwargs
        with self._learning(total_timesteps, callback, tb_log_name, reset_num_timesteps, replay_wrapper,
                            progress_bar) as (callback, writer):
            self.learning_rate = get_schedule_fn(self.learning_rate)
            current_lr = self.learning_rate(1)

            start_time = time.time()
            episode_rewards = [0.0]
            episode_successes = []
            if self.action_noise is not None:
                self.action_noise.reset()
            obs, _ = reset_env(self.env)
            # Whether the env resets itself at the end of an episode (a one-env VecEnv behind _UnvecWrapper)
            auto_reset = isinstance(self.env, VecEnv)
            obs_ = obs
            if self._vec_normalize_env is not None:
                obs_ = self._vec_normalize_env.get_original_obs()[0]

            n_updates = 0
            infos_values = []

            mean_reward = None
            callback.on_training_start(locals(), globals())
            callback.on_rollout_start()

            for step in range(total_timesteps):
                # uniform random actions (rescaled to the actor's [-1, 1]) while warming up or exploring at random;
                # otherwise the actor's action, rescaled to the env's bounds
                if self.num_timesteps < self.learning_starts or np.random.rand() < self.random_exploration:
                    unscaled_action = self.env.action_space.sample()
                    action = scale_action(self.action_space, unscaled_action)
                else:
                    action = self.policy_tf.step(np.asarray(obs)[None], **step_kwargs).flatten()
                    # Add noise to the action (exploration: required for a deterministic actor)
                    if self.action_noise is not None:
                        action = np.clip(action + self.action_noise(), -1, 1)
                    unscaled_action = unscale_action(self.action_space, action)

                action = np.asarray(action, dtype=np.float32).reshape(self.action_space.shape)

                new_obs, reward, terminated, truncated, info = step_env(self.env, unscaled_action)
                # As the original: the episode end (termination or time limit) is the stored `done`
                done = bool(terminated or truncated)

                self.num_timesteps += 1

                callback.update_locals(locals())
                if callback.on_step() is False:  # None (a callback without return) continues
                    break

                # Store the (unnormalized) transition in the replay buffer, and the episode statistics
                obs_, reward_ = self._store_transition(obs_, action, reward, new_obs, done, info, writer)
                obs = new_obs

                if self.num_timesteps % self.train_freq == 0:
                    callback.on_rollout_end()

                    mb_infos_vals = []
                    for grad_step in range(self.gradient_steps):
                        if not self.replay_buffer.can_sample(self.batch_size) \
                                or self.num_timesteps < self.learning_starts:
                            break
                        n_updates += 1
                        frac = 1.0 - step / total_timesteps
                        current_lr = self.learning_rate(frac)
                        # Update the critics (q functions), and the delayed part when due
                        mb_infos_vals.append(self._train_step(
                            step, writer, current_lr, (step + grad_step) % delayed_update_interval == 0))
                    if len(mb_infos_vals) == 1:
                        infos_values = np.asarray(mb_infos_vals[0])  # the mean of one row, without np.mean
                    elif len(mb_infos_vals) > 0:
                        infos_values = np.mean(mb_infos_vals, axis=0)

                    callback.on_rollout_start()

                episode_rewards[-1] += float(reward_)
                if done:
                    if self.action_noise is not None:
                        self.action_noise.reset()
                    if not auto_reset:
                        obs, _ = reset_env(self.env)
                        obs_ = obs
                        if self._vec_normalize_env is not None:
                            obs_ = self._vec_normalize_env.get_original_obs()[0]
                    episode_rewards.append(0.0)

                    maybe_is_success = info.get('is_success')
                    if maybe_is_success is not None:
                        episode_successes.append(float(maybe_is_success))

                # the mean of the last 100 finished episodes (only changes when an episode ends)
                if done or mean_reward is None:
                    if len(episode_rewards[-101:-1]) == 0:
                        mean_reward = -np.inf
                    else:
                        mean_reward = round(float(np.mean(episode_rewards[-101:-1])), 1)

                num_episodes = len(episode_rewards) - 1
                # Display training infos
                if self.verbose >= 1 and done and log_interval is not None and num_episodes % log_interval == 0:
                    fps = int(step / max(time.time() - start_time, 1e-8))
                    logger.logkv("episodes", num_episodes)
                    logger.logkv("mean 100 episode reward", mean_reward)
                    if len(self.ep_info_buf) > 0 and len(self.ep_info_buf[0]) > 0:
                        logger.logkv('ep_rewmean', safe_mean([ep_info['r'] for ep_info in self.ep_info_buf]))
                        logger.logkv('eplenmean', safe_mean([ep_info['l'] for ep_info in self.ep_info_buf]))
                    logger.logkv("n_updates", n_updates)
                    logger.logkv("current_lr", current_lr)
                    logger.logkv("fps", fps)
                    logger.logkv('time_elapsed', int(time.time() - start_time))
                    if len(episode_successes) > 0:
                        logger.logkv("success rate", np.mean(episode_successes[-100:]))
                    if len(infos_values) > 0:
                        for (name, val) in zip(self.infos_names, infos_values):
                            logger.logkv(name, val)
                    logger.logkv("total timesteps", self.num_timesteps)
                    logger.dumpkvs()
                    infos_values = []
            callback.on_training_end()
            return self

    @abstractmethod
    def setup_model(self):
        pass

    @abstractmethod
    def learn(self, total_timesteps, callback=None, log_interval=100, tb_log_name="run",
              reset_num_timesteps=True, replay_wrapper=None, progress_bar=False):
        """
        Train the model.

        :param total_timesteps: (int) the number of environment steps to train for
        :param callback: (callable, [callable] or BaseCallback) see :meth:`BaseRLModel.learn`
        :param log_interval: (int) the number of episodes between two logger tables
        :param tb_log_name: (str) the name of the tensorboard run
        :param reset_num_timesteps: (bool) count the timesteps from 0 again (False: continue the count)
        :param replay_wrapper: (ReplayBuffer -> ReplayBuffer) wraps the replay buffer before training (e.g. HER's
            HindsightExperienceReplayWrapper)
        :param progress_bar: (bool) draw a progress bar over the timesteps (needs tqdm)
        :return: (OffPolicyRLModel) the model
        """
        pass

    @abstractmethod
    def predict(self, observation, state=None, mask=None, deterministic=False):
        pass

    @abstractmethod
    def action_probability(self, observation, state=None, mask=None, actions=None, logp=False):
        pass

    @abstractmethod
    def save(self, save_path, cloudpickle=False):
        pass
