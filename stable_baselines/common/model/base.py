"""
:class:`BaseRLModel`, what every algorithm is: its environment and spaces, seeding, its own TF graph and
session, the frame of ``learn``, the front door of ``predict`` and ``pretrain``. Its parameters, ``save``,
``load`` and ``export`` are in :class:`~stable_baselines.common.model.model_files.ModelFiles`, which it inherits.
"""
from abc import ABC, abstractmethod
from collections import OrderedDict, deque
from contextlib import contextmanager
from typing import Any, Callable, Deque, Dict, Iterator, List, Optional, Tuple, TypeVar, Union

import numpy as np
from gymnasium import spaces

from stable_baselines import logger
from stable_baselines.common import tf_util
from stable_baselines.common.callbacks import BaseCallback, CallbackList, ConvertCallback, ProgressBarCallback
from stable_baselines.common.model.data_parallel import DataParallel
from stable_baselines.common.model.fast_path import FastPath
from stable_baselines.common.gym_compat import as_gymnasium_env, convert_space, seed_on_next_reset
from stable_baselines.common.math_util import safe_mean
from stable_baselines.common.misc_util import set_global_seeds
from stable_baselines.common.model.arguments import check_positive_int, check_total_timesteps
from stable_baselines.common.model.context import SetVerbosity, TensorboardWriter
from stable_baselines.common.model.environment import (check_spaces_match, env_from_id, fit_env_to_model,
                                                        model_vec_normalize, user_env, user_vec_normalize,
                                                        vec_env_from_id)
from stable_baselines.common.model.graph_rebuild import rebuild_keeping_values
from stable_baselines.common.model.model_files import ModelFiles
from stable_baselines.common.model.observations import is_vectorized_observation, softmax
from stable_baselines.common.model.pretraining import behaviour_cloning, build_cloning_graph, check_pretrain_inputs
from stable_baselines.common.policies import get_policy_from_name
from stable_baselines.common.vec_env import VecEnv, VecNormalize
from stable_baselines.common.vec_env.vec_normalize import NormalizationStatistics

_PartT = TypeVar("_PartT")

# the default of _init_callback's total_timesteps (None is a value that learn() may be given, and refuses)
_NOT_GIVEN = object()


class BaseRLModel(ModelFiles, ABC):
    """
    The base of every algorithm.

    :param policy: (BasePolicy or str) the policy class, or its registered name
    :param env: (gymnasium.Env, VecEnv or str) the environment to learn from (an id is made with
        ``gymnasium.make``); None to build a model for ``load``
    :param verbose: (int) 0 quiet, 1 training information, 2 also TensorFlow's messages
    :param requires_vec_env: (bool) whether the algorithm steps a VecEnv
    :param policy_base: (BasePolicy) the class the policy must derive from (to find registered names)
    :param policy_kwargs: (dict) extra arguments of the policy's constructor
    :param seed: (int) the seed of Python's, NumPy's and TensorFlow's generators (None: not seeded); runs are
        only reproducible with ``n_cpu_tf_sess=1``
    :param n_cpu_tf_sess: (int) TensorFlow's number of threads (None: as many as the machine has)
    """

    #: the algorithm of the library this class is (inherited by a user's subclass; the SB3 export reads it); None
    #: for a model class of the user's own
    algorithm_name: Optional[str] = None
    # set by every algorithm (some before this class's __init__ runs, so it is only declared here): the folder of
    # the tensorboard runs (None: no logs); the replay buffer of the off-policy algorithms
    tensorboard_log: Optional[str]
    replay_buffer: Any

    # the ranks a data-parallel model (PPO2, A2C under mpirun) trains on; None: this process alone
    _data_parallel: Optional[DataParallel] = None

    def __init__(self, policy: Union[type, str], env: Any, verbose: int = 0, *, requires_vec_env: bool,
                 policy_base: Optional[type], policy_kwargs: Optional[Dict[str, Any]] = None,
                 seed: Optional[int] = None, n_cpu_tf_sess: Optional[int] = None) -> None:
        # the policy class (Any: algorithms read class attributes of their own policy families from it)
        self.policy: Any = get_policy_from_name(policy_base, policy) \
            if isinstance(policy, str) and policy_base is not None else policy
        # gymnasium.Env or VecEnv, None without one (Any: the algorithms step the kind they were built for)
        self.env: Any = env
        self.verbose = verbose
        self._requires_vec_env = requires_vec_env
        self.policy_kwargs: Dict[str, Any] = {} if policy_kwargs is None else policy_kwargs
        # gymnasium spaces, known from the env or from the file in ``load``; None before (``_model_spaces`` returns
        # them checked). Optional[Any]: each algorithm reads the attributes of the space kinds it accepts (n, low, ...)
        self.observation_space: Optional[Any] = None
        self.action_space: Optional[Any] = None
        self.n_envs: Optional[int] = None
        self._vectorize_action = False
        self.num_timesteps = 0
        # tf.Graph and tf.Session, None until setup_model built them. TensorFlow has no type information, so to
        # mypy they are Any either way; the code tests them against None where a model may have none yet.
        self.graph: Any = None
        self.sess: Any = None
        self.params: Optional[List[Any]] = None
        self.seed = seed
        # variable name -> (placeholder, assign op) of load_parameters
        self._param_load_ops: Optional["OrderedDict[str, Tuple[Any, Any]]"] = None
        self.n_cpu_tf_sess = n_cpu_tf_sess
        # created by the first learn (_setup_learn)
        self.episode_reward: Optional[np.ndarray] = None
        self.ep_info_buf: Optional[Deque[Dict[str, Any]]] = None
        # (session, {key: callable}) of _session_callable; the generator of actions drawn in NumPy; the
        # behaviour-cloning graph of pretrain
        self._session_callables: Optional[Tuple[Any, Dict[Any, Any]]] = None
        # the NumPy copies of the acting networks and the generator of their random draws
        self.fast_path = FastPath(lambda: self.seed)
        self._pretrain_graph: Optional[Dict[str, Any]] = None
        # the VecNormalize statistics stored in the file the model was loaded from (None: none)
        self._file_normalization: Optional[NormalizationStatistics] = None
        # False while ``load`` rebuilds a model that resumes from a training state: the env it is given goes on as
        # the user prepared it, as the saved model's env would have (set_random_seed then seeds all but the env)
        self._seed_env = True
        # the model the user holds when this one is trained inside another (HER's wrapped model): the callbacks of
        # ``learn`` are attached to it, so that they evaluate, save and count what the user trains
        self._callback_model: Optional["BaseRLModel"] = None

        if env is not None:
            if isinstance(env, str):
                if self.verbose >= 1:
                    print("Creating environment from the given name, wrapped in a DummyVecEnv.")
                env_id = env
                env = vec_env_from_id(env_id)
            elif not isinstance(env, VecEnv):
                env = as_gymnasium_env(env)
            self.observation_space = convert_space(env.observation_space)
            self.action_space = convert_space(env.action_space)
            self.env, self.n_envs, self._vectorize_action = fit_env_to_model(env, requires_vec_env, self.verbose)
        self._vec_normalize_env = model_vec_normalize(self.env)

    # ------------------------------------------------------------------ environment
    def get_env(self) -> Any:
        """
        :return: (gymnasium.Env or VecEnv) the environment the model trains on (None when it has none)
        """
        return user_env(self.env)

    def get_vec_normalize_env(self) -> Optional[VecNormalize]:
        """
        :return: (VecNormalize) the ``VecNormalize`` wrapper inside the training environment, or None
        """
        return user_vec_normalize(self._vec_normalize_env)

    def get_normalization_statistics(self) -> Optional[NormalizationStatistics]:
        """
        :return: (NormalizationStatistics) a copy of the observation and return statistics and the settings of
            the ``VecNormalize`` in the model's environment, or else of those its model file stored (a model
            loaded without an environment); None when there are neither
        """
        if self._vec_normalize_env is not None:
            return self._vec_normalize_env.get_statistics()
        return None if self._file_normalization is None else self._file_normalization.copy()

    def _graph_fixes_n_envs(self) -> bool:
        """
        :return: (bool) whether the built graph has the number of environments in its shapes, so that
            ``set_env`` with another number builds it again, keeping every variable's value (recurrent policies
            keep one state row per env; before the graph exists, as during ``load``, nothing is rebuilt)
        """
        return self.graph is not None and getattr(self.policy, "recurrent", False)

    def set_env(self, env: Any) -> None:
        """
        Train on another environment from now on; its spaces must match the model's.

        :param env: (gymnasium.Env, VecEnv or str) the new environment
        """
        if env is None:
            if self.env is not None:
                raise ValueError("Error: trying to replace the current environment with None")
            if self.verbose >= 1:
                print("Loading a model without an environment, this model cannot be trained until it has a valid "
                      "environment.")
            return
        if isinstance(env, str):
            env_id = env
            env = env_from_id(env_id, self._requires_vec_env)
        elif not isinstance(env, VecEnv):
            env = as_gymnasium_env(env)
        observation_space, action_space = self._model_spaces()
        check_spaces_match(observation_space, convert_space(env.observation_space), "observation")
        check_spaces_match(action_space, convert_space(env.action_space), "action")
        env, n_envs, self._vectorize_action = fit_env_to_model(env, self._requires_vec_env)
        rebuild = False
        if n_envs != self.n_envs and self._requires_vec_env:
            rebuild = self._graph_fixes_n_envs()
            self._n_envs_changed(n_envs)
        self.n_envs = n_envs
        self.env = env
        self._vec_normalize_env = model_vec_normalize(env)
        if rebuild:
            rebuild_keeping_values(self)

    def _model_spaces(self) -> Tuple[spaces.Space, spaces.Space]:
        """
        :return: (gymnasium.spaces.Space, gymnasium.spaces.Space) the observation and action spaces of the model
            (known from its first environment, or from its file)
        """
        if self.observation_space is None or self.action_space is None:
            raise ValueError("Error: {} has no observation and action spaces yet: give it an environment, or load "
                             "it from a file".format(type(self).__name__))
        return self.observation_space, self.action_space

    def _graph_inputs(self) -> Tuple[spaces.Space, spaces.Space, int]:
        """
        What ``setup_model`` builds the graph for.

        :return: (gymnasium.spaces.Space, gymnasium.spaces.Space, int) the observation space, the action space and
            the number of environments
        """
        observation_space, action_space = self._model_spaces()
        return observation_space, action_space, self._known_n_envs()

    def _known_n_envs(self) -> int:
        """
        :return: (int) the number of environments the model steps (known from its env, or from its file)
        """
        if self.n_envs is None:
            raise ValueError("Error: {} does not know its number of environments yet: give it an environment, or "
                             "load it from a file".format(type(self).__name__))
        return self.n_envs

    def _n_envs_changed(self, n_envs: int) -> None:
        """
        Called by ``set_env`` before a VecEnv with another number of envs replaces the current one.

        :param n_envs: (int) the new number of envs
        """

    # ------------------------------------------------------------------ graph, session, seeds
    @abstractmethod
    def setup_model(self) -> None:
        """
        Build the model's graph: its policy, losses and optimizers (and the session running them).
        """

    @property
    def data_parallel(self) -> Optional[DataParallel]:
        """(DataParallel) the MPI ranks the model trains on, data-parallel (PPO2, A2C under mpirun); None: this process"""
        return self._data_parallel

    def _session_callable(self, key: Any, fetches: list, feeds: list) -> Any:
        """
        ``tf_util.feed_callable(self.sess, fetches, feeds)``, built once per session and ``key``.

        :param key: (hashable) tells this callable from the model's others
        :param fetches: ([tf.Tensor or tf.Operation]) what a call computes
        :param feeds: ([tf.Tensor]) the fed tensors, in the order of the call's arguments
        :return: (tf_util.FeedCallable)
        """
        if self._session_callables is None or self._session_callables[0] is not self.sess:
            self._session_callables = (self.sess, {})
        callables = self._session_callables[1]
        if key not in callables:
            callables[key] = tf_util.feed_callable(self.sess, fetches, feeds)
        return callables[key]

    def set_random_seed(self, seed: Optional[int]) -> None:
        """
        Seed Python's, NumPy's and TensorFlow's generators, the generator of the actions drawn in NumPy, the
        environment and the action spaces.

        :param seed: (int) the seed; None leaves every generator as it is (a data-parallel model's rank r uses
            ``seed + 10000 * r``)
        """
        if seed is None:
            return
        if self._data_parallel is not None:
            seed = self._data_parallel.rank_seed(seed)
        set_global_seeds(seed)
        self.fast_path.reseed(seed)
        if self.env is not None and self._seed_env:
            if isinstance(self.env, VecEnv):
                self.env.seed(seed)
            else:
                # like gym's env.seed(seed): the next episode starts from the seeded state, nothing resets now
                seed_on_next_reset(self.env, seed)
            self.env.action_space.seed(seed)
        if self.action_space is not None:
            self.action_space.seed(seed)

    def refresh_numpy_forward(self) -> None:
        """
        Have the policies copy their weights from the TensorFlow graph again before their next step.

        The feed-forward MLP policies of A2C, ACER, ACKTR, PPO2, PPO1 and TRPO (and the networks of DQN, SAC and
        TD3) act with a NumPy copy of their weights, far cheaper than a session call. The library renews the copy
        whenever it changes the weights itself (``learn``, ``load``, ``load_parameters``, ``pretrain``,
        ``setup_model``); call this after changing the variables some other way, e.g.
        ``model.sess.run(var.assign(...))``. ``STABLE_BASELINES_NUMPY_FORWARD=0`` in the environment before a
        model is created turns the NumPy path off.
        """
        tf_util.variables_written(self.sess)

    # ------------------------------------------------------------------ the frame of learn
    def _init_num_timesteps(self, reset_num_timesteps: bool = True) -> bool:
        """
        :param reset_num_timesteps: (bool) count the timesteps from 0 again (False: continue the count, and the
            tensorboard curves, of the previous ``learn``)
        :return: (bool) whether this ``learn`` starts a new tensorboard run
        """
        if reset_num_timesteps:
            self.num_timesteps = 0
        return self.num_timesteps == 0

    def _init_callback(self, callback: Any, progress_bar: bool = False,
                       total_timesteps: Any = _NOT_GIVEN) -> BaseCallback:
        """
        :param callback: (None, callable, [callable or BaseCallback] or BaseCallback) what ``learn`` was given
        :param progress_bar: (bool) add a tqdm bar over the timesteps
        :param total_timesteps: (int) the length of the bar
        :return: (BaseCallback) one callback, initialised with this model
        """
        if total_timesteps is _NOT_GIVEN:
            total_timesteps = None
        else:  # every learn() passes its total_timesteps here before its first step
            check_total_timesteps(total_timesteps)
        if isinstance(callback, list):
            callback = CallbackList([one if isinstance(one, BaseCallback) else ConvertCallback(one)
                                     for one in callback])
        if not isinstance(callback, BaseCallback):
            callback = ConvertCallback(callback)
        if progress_bar:
            callback = CallbackList([callback, ProgressBarCallback(total_timesteps)])
        callback.init_callback(self if self._callback_model is None else self._callback_model)
        return callback

    def _built(self, part: Optional[_PartT], name: str) -> _PartT:
        """
        :param part: (Any) an attribute that ``setup_model`` (or the environment) gives a value
        :param name: (str) its name, for the message
        :return: (Any) the attribute, when it has a value (a RuntimeError saying what is missing otherwise)
        """
        if part is None:
            raise RuntimeError("{} has no {} yet: it is made by setup_model() (called by the constructor unless "
                               "_init_setup_model=False) and needs an environment or a loaded model"
                               .format(type(self).__name__, name))
        return part

    def _setup_learn(self) -> None:
        """
        Refuse to train without an environment; create the episode statistics on the first ``learn``.
        """
        if self.env is None:
            raise ValueError("Error: cannot train the model without a valid environment, please set an environment "
                             "with set_env(self, env) method.")
        if self.episode_reward is None:
            assert self.n_envs is not None, "the number of envs is known once the model has an env"
            self.episode_reward = np.zeros((self.n_envs,))
        if self.ep_info_buf is None:
            self.ep_info_buf = deque(maxlen=100)

    @contextmanager
    def _learning(self, total_timesteps: int, callback: Any, tb_log_name: str, reset_num_timesteps: bool,
                  replay_wrapper: Optional[Callable[[Any], Any]] = None, progress_bar: bool = False,
                  log_interval: Optional[int] = None) -> Iterator[Tuple[BaseCallback, Any]]:
        """
        The frame of ``learn``: checks ``total_timesteps`` (and ``log_interval``), counts the timesteps, makes the
        callback (and the progress bar), and for the body of the block sets the verbosity, opens the tensorboard
        writer and prepares the episode statistics.

        :param total_timesteps: (int) the number of timesteps of this call
        :param callback: (None, callable, list or BaseCallback) what ``learn`` was given
        :param tb_log_name: (str) the name of the tensorboard run
        :param reset_num_timesteps: (bool) count from 0 again (False: continue)
        :param replay_wrapper: (ReplayBuffer -> ReplayBuffer) wraps ``self.replay_buffer`` first (e.g. HER's)
        :param progress_bar: (bool) draw a tqdm bar over the timesteps
        :param log_interval: (int) the ``log_interval`` of ``learn``, which must be >= 1 (None: not checked)
        :return: (BaseCallback, tf.summary.FileWriter) the callback and the tensorboard writer (or None)
        """
        check_total_timesteps(total_timesteps)
        if log_interval is not None:
            check_positive_int("log_interval", log_interval)
        new_tb_log = self._init_num_timesteps(reset_num_timesteps)
        callback = self._init_callback(callback, progress_bar=progress_bar, total_timesteps=total_timesteps)
        if replay_wrapper is not None:
            self.replay_buffer = replay_wrapper(self.replay_buffer)
        with SetVerbosity(self.verbose), \
                TensorboardWriter(self.graph, self._tensorboard_folder(), tb_log_name, new_tb_log) as writer:
            self._setup_learn()
            yield callback, writer

    def _tensorboard_folder(self) -> Optional[str]:
        """:return: (str) where ``learn`` writes tensorboard files (None: nowhere; only rank 0 of a data-parallel model)"""
        if self._data_parallel is not None and not self._data_parallel.is_root:
            return None
        return self.tensorboard_log

    def _log_episode_stats(self) -> None:
        """Log the mean return and length of the last 100 episodes reported by Monitor, if there are any."""
        if self.ep_info_buf and len(self.ep_info_buf[0]) > 0:
            logger.logkv('ep_reward_mean', safe_mean([ep_info['r'] for ep_info in self.ep_info_buf]))
            logger.logkv('ep_len_mean', safe_mean([ep_info['l'] for ep_info in self.ep_info_buf]))

    @abstractmethod
    def learn(self, total_timesteps: int, callback: Any = None, log_interval: int = 100, tb_log_name: str = "run",
              reset_num_timesteps: bool = True, progress_bar: bool = False) -> "BaseRLModel":
        """
        Train the model.

        :param total_timesteps: (int) the number of environment steps to train for
        :param callback: (callable, [callable] or BaseCallback) called at every step with the algorithm's locals
            and globals (a function), or at each stage of training (a BaseCallback, see the callbacks page);
            returning False stops the training
        :param log_interval: (int) how often the logger table is written
        :param tb_log_name: (str) the name of the tensorboard run
        :param reset_num_timesteps: (bool) count the timesteps from 0 again (False: continue the count)
        :param progress_bar: (bool) draw a progress bar over the timesteps (needs tqdm)
        :return: (BaseRLModel) the model
        """

    # ------------------------------------------------------------------ acting
    @abstractmethod
    def predict(self, observation: np.ndarray, state: Optional[np.ndarray] = None, mask: Optional[np.ndarray] = None,
                deterministic: bool = False) -> Tuple[np.ndarray, Optional[np.ndarray]]:
        """
        The model's action for an observation (or a batch of them).

        :param observation: (np.ndarray) one observation, or a batch of them
        :param state: (np.ndarray) the recurrent state returned by the previous call, one row per observation
            (recurrent policies; None: the initial state, zeros)
        :param mask: (np.ndarray) which envs started a new episode at this step, one flag per observation
            (recurrent policies)
        :param deterministic: (bool) the most likely action instead of a sampled one
        :return: (np.ndarray, np.ndarray) the action(s), and the next recurrent state (None if not recurrent)
        """

    @abstractmethod
    def action_probability(self, observation: np.ndarray, state: Optional[np.ndarray] = None,
                           mask: Optional[np.ndarray] = None, actions: Optional[np.ndarray] = None,
                           logp: bool = False) -> Optional[np.ndarray]:
        """
        The policy's action distribution for an observation, or how likely given actions are under it.

        Without ``actions``: for Discrete spaces the probability of each action, for Box spaces the mean and
        standard deviation of the Gaussian. With ``actions``: the probability (Discrete, MultiDiscrete,
        MultiBinary) or the probability density (Box) of those actions, one per observation.

        :param observation: (np.ndarray) one observation, or a batch of them
        :param state: (np.ndarray) the recurrent state, one row per observation (recurrent policies)
        :param mask: (np.ndarray) the episode-start mask, one flag per observation (recurrent policies)
        :param actions: (np.ndarray) actions to evaluate, one per observation (None: the whole distribution)
        :param logp: (bool) with ``actions``, return the log of the probability (density)
        :return: (np.ndarray) the distribution or the (log) probabilities
        """

    _softmax = staticmethod(softmax)
    _is_vectorized_observation = staticmethod(is_vectorized_observation)

    # ------------------------------------------------------------------ behaviour cloning
    def get_pretrain_placeholders(self) -> Tuple[Any, Any, Any]:
        """
        :return: ((tf.Tensor, tf.Tensor, tf.Tensor)) what ``pretrain`` trains on: the observation placeholder, the
            placeholder of the expert's actions and the policy output compared with them (each algorithm gives them
            in ``_get_pretrain_placeholders``, which a custom algorithm overrides)
        """
        return self._get_pretrain_placeholders()

    @abstractmethod
    def _get_pretrain_placeholders(self) -> Tuple[Any, Any, Any]:
        """
        :return: ((tf.Tensor, tf.Tensor, tf.Tensor)) for ``pretrain``: the observation placeholder, the placeholder
            of the expert's actions, and the policy output compared with them (the Gaussian's mean, or the logits
            or Q-values of the discrete actions)
        """

    def pretrain(self, dataset: Any, n_epochs: int = 10, learning_rate: float = 1e-4, adam_epsilon: float = 1e-8,
                 val_interval: Optional[int] = None) -> "BaseRLModel":
        """
        Behaviour cloning: train the policy to give the expert's actions for the expert's observations.
        Box and Discrete action spaces, feed-forward policies.

        :param dataset: (ExpertDataset) the expert's observations and actions
        :param n_epochs: (int) passes over the training split
        :param learning_rate: (float) Adam's learning rate
        :param adam_epsilon: (float) Adam's epsilon
        :param val_interval: (int) epochs between two reports of the training and validation losses (default:
            a tenth of ``n_epochs``)
        :return: (BaseRLModel) the model
        """
        check_pretrain_inputs(self, dataset)
        n_epochs = int(n_epochs)
        if val_interval is None:
            val_interval = 1 if n_epochs < 10 else n_epochs // 10
        # built once per graph and epsilon; later calls reset only the optimizer's variables
        if self._pretrain_graph is None or self._pretrain_graph["key"] != (self.graph, float(adam_epsilon)):
            self._pretrain_graph = build_cloning_graph(self, adam_epsilon)
        behaviour_cloning(self, self._pretrain_graph, dataset, n_epochs, learning_rate, max(int(val_interval), 1))
        return self

    # ------------------------------------------------------------------ models held by others, seeding on load
    def wrapped_by(self, outer: "BaseRLModel") -> None:
        """
        Declare that the user holds this model inside ``outer`` (HER): the callbacks of ``learn`` are attached to
        ``outer``, so that they evaluate, save and count what the user trains.

        :param outer: (BaseRLModel) the model that holds this one
        """
        self._callback_model = outer

    @contextmanager
    def seeding_env(self, seed_env: bool) -> Iterator[None]:
        """
        Within the block, :meth:`set_random_seed` seeds the env and its action space only when ``seed_env``
        (``load`` builds a model that resumes its training with its new env as the user prepared it).

        :param seed_env: (bool) whether the env is seeded
        """
        previous, self._seed_env = self._seed_env, seed_env
        try:
            yield
        finally:
            self._seed_env = previous
