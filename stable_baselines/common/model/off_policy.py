"""
:class:`OffPolicyRLModel`, the base of the off-policy algorithms (DQN, DDPG, SAC, TD3).
"""
from abc import abstractmethod
from typing import Any, Callable, Dict, List, Optional, Tuple, TypeVar

import numpy as np
from gymnasium import spaces

from stable_baselines.common.storage.buffer_files import load_buffer, save_buffer
from stable_baselines.common.buffers import ReplayBufferWrapper
from stable_baselines.common.model.base import BaseRLModel
from stable_baselines.common.model.training_state import episode_from_plain, episode_to_plain
from stable_baselines.common.model.off_policy_loop import LearnArguments, LoopStateT, OffPolicyLoop
from stable_baselines.common.structured_obs import packed_width
from stable_baselines.common.tf_util import total_episode_reward_logger
from stable_baselines.common.vec_env import VecEnv


# the model itself (what learn returns)
_ModelT = TypeVar("_ModelT", bound="OffPolicyRLModel")


class OffPolicyRLModel(BaseRLModel, OffPolicyLoop[LoopStateT]):
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

    def __init__(self, policy: Any, env: Any, replay_buffer: Any = None, _init_setup_model: bool = False,
                 verbose: int = 0, *, requires_vec_env: bool = False, policy_base: Optional[type] = None,
                 policy_kwargs: Optional[Dict[str, Any]] = None, seed: Optional[int] = None,
                 n_cpu_tf_sess: Optional[int] = None) -> None:
        super().__init__(policy, env, verbose=verbose, requires_vec_env=requires_vec_env, policy_base=policy_base,
                         policy_kwargs=policy_kwargs, seed=seed, n_cpu_tf_sess=n_cpu_tf_sess)
        self.replay_buffer = replay_buffer
        self._policy_base = policy_base
        # the single-call training steps of DQN, SAC and TD3, built in setup_model when available
        # (a SessionCall for DQN; {delayed_update: SessionCall} for SAC and TD3)
        self._fused_train: Any = None
        # set by load_replay_buffer: the next learn() keeps the loaded buffer (DQN otherwise makes a new one)
        self._replay_buffer_loaded = False
        # the unfinished episode of HER's replay wrapper read from a training state, until HER wraps the buffer again
        self.restored_her_episode: Optional[List[tuple]] = None

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
                             .format(type(self).__name__, self._replay_buffer_made_in))
        save_buffer(buffer, path)

    # where the replay buffer is created, for the message of save_replay_buffer before there is one
    _replay_buffer_made_in = "setup_model()"

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
        expected = tuple(self.observation_space.shape or (packed_width(self.observation_space),))
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

    def is_using_her(self) -> bool:
        """
        :return: (bool) whether the replay buffer is a wrapper in front of the real one (HER's relabelling)
        """
        return isinstance(self.replay_buffer, ReplayBufferWrapper)

    def replay_buffer_add(self, obs_t: Any, action: Any, reward: float, obs_tp1: Any, done: Any,
                          info: Dict[str, Any]) -> None:
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

    def _store_transition(self, state: LoopStateT) -> Tuple[Any, float]:
        """
        Store the transition of the step just taken in the replay buffer, record Monitor's episode statistics and
        the tensorboard episode reward. With a VecNormalize env the unnormalized observation and reward are stored
        (as the original did); when the env is a VecEnv that already reset at the end of an episode, the stored
        next observation is its true last one (``info["terminal_observation"]``, where the original stored the
        reset observation).

        :param state: (OffPolicyLoopState) the loop state: ``obs_`` (the unnormalized observation in which the action
            was taken), ``action`` (as the replay buffer keeps it), the env's ``reward``, ``new_obs``, ``done`` and
            ``info``, and the tensorboard ``writer`` (or None)
        :return: (Any, float) the unnormalized new observation (``obs_`` of the next step) and reward
        """
        obs_, action, reward, new_obs, done, info = (state.obs_, state.action, state.reward, state.new_obs,
                                                     state.done, state.info)
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
            assert self.ep_info_buf is not None, "the learn frame prepares the episode statistics"
            self.ep_info_buf.extend([maybe_ep_info])
        if state.writer is not None:
            assert self.episode_reward is not None, "the learn frame prepares the episode returns"
            total_episode_reward_logger(self.episode_reward, np.array([reward_]).reshape((1, -1)),
                                        np.array([done]).reshape((1, -1)), state.writer, self.num_timesteps)
        return new_obs_, reward_

    # ---------------------------------------------------------------------------------------------- the loop
    def _run_loop(self: _ModelT, total_timesteps: int, callback: Any, log_interval: Optional[int], tb_log_name: str,
                  reset_num_timesteps: bool, replay_wrapper: Any, progress_bar: bool) -> _ModelT:
        """
        Train with the off-policy env-step loop (:class:`off_policy_loop.OffPolicyLoop`) and this model's hooks;
        the arguments are those of ``learn``.

        :return: (OffPolicyRLModel) the model
        """
        self._run_off_policy_loop(LearnArguments(total_timesteps, callback, log_interval, tb_log_name,
                                                 reset_num_timesteps, replay_wrapper, progress_bar))
        return self

    def _env_resets_itself(self) -> bool:
        """:return: (bool) whether the env starts a new episode by itself when one ends (a VecEnv does)"""
        return isinstance(self.env, VecEnv)

    @abstractmethod
    def setup_model(self) -> None:
        pass

    # replay_wrapper stands before progress_bar (the original's order), where BaseRLModel.learn has progress_bar
    @abstractmethod
    def learn(self, total_timesteps: int, callback: Any = None,  # type: ignore[override]
              log_interval: Optional[int] = 100, tb_log_name: str = "run", reset_num_timesteps: bool = True,
              replay_wrapper: Optional[Callable[[Any], Any]] = None,
              progress_bar: bool = False) -> "OffPolicyRLModel":
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
    def predict(self, observation: Any, state: Any = None, mask: Any = None,
                deterministic: bool = False) -> Tuple[Any, Optional[np.ndarray]]:
        pass

    @abstractmethod
    def action_probability(self, observation: Any, state: Any = None, mask: Any = None, actions: Any = None,
                           logp: bool = False) -> Optional[np.ndarray]:
        pass

    # exact resume (common/model/training_state.py): the replay buffer, and the unfinished episode HER's wrapper keeps
    keeps_replay_buffer = True

    def replay_buffer_state(self) -> Tuple[Dict[str, bool], Any]:
        """
        :return: (dict, ReplayBuffer) whether there is a replay buffer and whether it came from
            ``load_replay_buffer`` (the next ``learn`` keeps it), and the buffer itself (None: none yet)
        """
        inner = self._inner_replay_buffer() if self.replay_buffer is not None else None
        return {"present": inner is not None, "loaded": bool(self._replay_buffer_loaded)}, inner

    def restore_replay_buffer_state(self, buffer: Any, loaded: bool) -> None:
        """
        :param buffer: (ReplayBuffer) the replay buffer of a training state (checked to fit the model here)
        :param loaded: (bool) whether it came from ``load_replay_buffer`` in the saved model
        """
        self._check_buffer_fits(buffer, "the training state")
        self.replay_buffer = buffer
        self._replay_buffer_loaded = loaded

    def training_state_extras(self) -> Tuple[Dict[str, Any], Dict[str, np.ndarray]]:
        if not self.is_using_her():
            return {}, {}
        return episode_to_plain(self.replay_buffer.episode_transitions)

    def restore_training_state_extras(self, info: Dict[str, Any], arrays: Dict[str, np.ndarray]) -> None:
        if info or arrays:
            self.restored_her_episode = episode_from_plain(info, arrays)
