"""
The base classes of every model: :class:`BaseRLModel`, :class:`ActorCriticRLModel` (A2C, ACER, ACKTR,
PPO1, PPO2, TRPO) and :class:`OffPolicyRLModel` (DQN, DDPG, SAC, TD3), plus the context managers
:class:`SetVerbosity` and :class:`TensorboardWriter`.
"""
import glob
import os
import time
import warnings
from abc import ABC, abstractmethod
from collections import OrderedDict, deque
from contextlib import contextmanager
from typing import Any, Dict, Iterator, List, Optional, Tuple

import numpy as np
from gymnasium import spaces

from stable_baselines import logger
from stable_baselines.common import save_util
from stable_baselines.common.persistence import COMMON_SETTINGS, SettingKind, check_settings
from stable_baselines.common.safe_loading.errors import InvalidModelFileError
from stable_baselines.common.callbacks import BaseCallback, CallbackList, ConvertCallback, ProgressBarCallback
from stable_baselines.common.gym_compat import (as_gymnasium_env, convert_space, gymnasium, make_env, reset_env,
                                                 seed_on_next_reset, spaces_match, step_env)
from stable_baselines.common.math_util import safe_mean, scale_action, unscale_action
from stable_baselines.common.misc_util import set_global_seeds
from stable_baselines.common.numpy_forward import make_rng
from stable_baselines.common.policies import (ActorCriticPolicy, BasePolicy, RecurrentActorCriticPolicy,
                                              get_policy_from_name)
from stable_baselines.common.schedules import get_schedule_fn
from stable_baselines.common.tf_compat import tf
from stable_baselines.common import tf_util
from stable_baselines.common.tf_util import make_session, total_episode_reward_logger
from stable_baselines.common.vec_env import DummyVecEnv, VecEnv, VecEnvWrapper, unwrap_vec_normalize


def check_spaces_match(expected: spaces.Space, given: spaces.Space, what: str) -> None:
    """
    Raise a ValueError naming both spaces when ``given`` cannot replace ``expected``
    (type, shape, dtype kind, n / nvec differ; bounds are not compared, as the original did not).

    :param expected: (gymnasium.spaces.Space) the space the model was built for
    :param given: (gymnasium.spaces.Space) the space of the new environment
    :param what: (str) 'observation' or 'action'
    """
    if not spaces_match(expected, given, dtype_kind_only=True):
        raise ValueError("The {} space of the environment does not match the model's: expected {}, got {}"
                         .format(what, expected, given))


class BaseRLModel(ABC):
    """
    The base RL model

    :param policy: (BasePolicy) Policy object
    :param env: (Gym environment) The environment to learn from
                (if registered in Gym, can be str. Can be None for loading trained models)
    :param verbose: (int) the verbosity level: 0 none, 1 training information, 2 tensorflow debug
    :param requires_vec_env: (bool) Does this model require a vectorized environment
    :param policy_base: (BasePolicy) the base policy used by this method
    :param policy_kwargs: (dict) additional arguments to be passed to the policy on creation
    :param seed: (int) Seed for the pseudo-random generators (python, numpy, tensorflow).
        If None (default), use random seed. Note that if you want completely deterministic
        results, you must set `n_cpu_tf_sess` to 1.
    :param n_cpu_tf_sess: (int) The number of threads for TensorFlow operations
        If None, the number of cpu of the current machine will be used.
    """

    # the settings a model file holds for this algorithm (saved in this order, before COMMON_SETTINGS); names of
    # older versions' files that are read and dropped; kinds of the settings that the defaults do not tell
    # (see stable_baselines.common.persistence)
    _saved_settings: Tuple[str, ...] = ()
    _legacy_settings: Tuple[str, ...] = ()
    _setting_kinds: Dict[str, SettingKind] = {}

    def __init__(self, policy, env, verbose=0, *, requires_vec_env, policy_base,
                 policy_kwargs=None, seed=None, n_cpu_tf_sess=None):
        if isinstance(policy, str) and policy_base is not None:
            self.policy = get_policy_from_name(policy_base, policy)
        else:
            self.policy = policy
        self.env = env
        self.verbose = verbose
        self._requires_vec_env = requires_vec_env
        self.policy_kwargs = {} if policy_kwargs is None else policy_kwargs
        self.observation_space = None
        self.action_space = None
        self.n_envs = None
        self._vectorize_action = False
        self.num_timesteps = 0
        self.graph = None
        self.sess = None
        self.params = None
        self.seed = seed
        self._param_load_ops = None
        self.n_cpu_tf_sess = n_cpu_tf_sess
        self.episode_reward = None
        self.ep_info_buf = None

        if env is not None:
            if isinstance(env, str):
                if self.verbose >= 1:
                    print("Creating environment from the given name, wrapped in a DummyVecEnv.")
                env_id = env
                self.env = env = DummyVecEnv([lambda: make_env(env_id)])
            elif not isinstance(env, VecEnv):
                self.env = env = as_gymnasium_env(env)

            self.observation_space = convert_space(env.observation_space)
            self.action_space = convert_space(env.action_space)
            if requires_vec_env:
                if isinstance(env, VecEnv):
                    self.n_envs = env.num_envs
                else:
                    # The model requires a VecEnv: wrap the single env in a DummyVecEnv
                    single_env = env
                    self.env = DummyVecEnv([lambda: single_env])
                    if self.verbose >= 1:
                        print("Wrapping the env in a DummyVecEnv.")
                    self.n_envs = 1
            else:
                if isinstance(env, VecEnv):
                    if env.num_envs == 1:
                        self.env = _UnvecWrapper(env)
                        self._vectorize_action = True
                    else:
                        raise ValueError("Error: the model requires a non vectorized environment or a single "
                                         "vectorized environment, got a VecEnv with {} environments."
                                         .format(env.num_envs))
                self.n_envs = 1

        # Get VecNormalize object if it exists
        self._vec_normalize_env = unwrap_vec_normalize(self.env)

    # ------------------------------------------------------------------------------------------
    # environment
    # ------------------------------------------------------------------------------------------
    def get_env(self):
        """
        returns the current environment (can be None if not defined)

        :return: (Gym Environment) The current environment
        """
        return self.env

    def get_vec_normalize_env(self):
        """
        Return the ``VecNormalize`` wrapper of the training env if it exists.

        :return: Optional[VecNormalize] The ``VecNormalize`` env.
        """
        return self._vec_normalize_env

    def _session_callable(self, key: Any, fetches: list, feeds: list) -> Any:
        """
        ``tf_util.feed_callable(self.sess, fetches, feeds)``, made once per session and ``key``.

        :param key: (hashable) what distinguishes this callable from the model's others
        :param fetches: ([tf.Tensor or tf.Operation]) what to compute
        :param feeds: ([tf.Tensor]) the tensors fed, in the order of the call's arguments
        :return: (tf_util.FeedCallable)
        """
        cache = self.__dict__.get("_session_callables")
        if cache is None or cache[0] is not self.sess:
            cache = self._session_callables = (self.sess, {})
        call = cache[1].get(key)
        if call is None:
            call = cache[1][key] = tf_util.feed_callable(self.sess, fetches, feeds)
        return call

    def _graph_fixes_n_envs(self) -> bool:
        """
        Whether the graph already built bakes the number of environments into its shapes, so that ``set_env``
        cannot change it: true for recurrent policies (their state has one row per environment). A model
        whose graph is not built yet (``load`` sets the env before building) accepts any number.

        :return: (bool)
        """
        return getattr(self, "graph", None) is not None and getattr(self.policy, "recurrent", False)

    def set_env(self, env) -> None:
        """
        Checks the validity of the environment, and if it is coherent, set it as the current environment.

        :param env: (Gym Environment) The environment for learning a policy
        """
        if env is None and self.env is None:
            if self.verbose >= 1:
                print("Loading a model without an environment, this model cannot be trained until it has a valid "
                      "environment.")
            return
        if env is None:
            raise ValueError("Error: trying to replace the current environment with None")
        if isinstance(env, str):
            env_id = env
            env = DummyVecEnv([lambda: make_env(env_id)]) if self._requires_vec_env else make_env(env_id)
        elif not isinstance(env, VecEnv):
            env = as_gymnasium_env(env)

        # sanity checking the environment
        check_spaces_match(self.observation_space, convert_space(env.observation_space), "observation")
        check_spaces_match(self.action_space, convert_space(env.action_space), "action")
        if self._requires_vec_env:
            if not isinstance(env, VecEnv):
                env = _wrap_single(env)
            if env.num_envs != self.n_envs:
                if self._graph_fixes_n_envs():
                    raise ValueError("Error: the environment passed must have the same number of environments as "
                                     "the model was trained on (expected {}, got {}): the training graph of {} with "
                                     "{} has batch sizes fixed by the number of environments."
                                     .format(self.n_envs, env.num_envs, type(self).__name__,
                                             getattr(self.policy, "__name__", self.policy)))
                self.n_envs = env.num_envs
                if getattr(self, "n_batch", None) is not None and getattr(self, "n_steps", None) is not None:
                    self.n_batch = self.n_envs * self.n_steps
            self.n_envs = env.num_envs
        else:
            # for models that dont want vectorized environment, check if they make sense and adapt them.
            if isinstance(env, VecEnv):
                if env.num_envs == 1:
                    env = _UnvecWrapper(env)
                    self._vectorize_action = True
                else:
                    raise ValueError("Error: the model requires a non vectorized environment or a single "
                                     "vectorized environment, got a VecEnv with {} environments."
                                     .format(env.num_envs))
            else:
                self._vectorize_action = False
            self.n_envs = 1

        self.env = env
        self._vec_normalize_env = unwrap_vec_normalize(env)
        # Invalidate the environment loop (runner), it will be recreated with the new env
        self._runner = None

    # ------------------------------------------------------------------------------------------
    # training helpers
    # ------------------------------------------------------------------------------------------
    def _init_num_timesteps(self, reset_num_timesteps: bool = True) -> bool:
        """
        Initialize and resets num_timesteps (total timesteps since beginning of training)
        if needed. Mainly used logging and plotting (tensorboard).

        :param reset_num_timesteps: (bool) Set it to false when continuing training
            to not create new plotting curves in tensorboard.
        :return: (bool) Whether a new tensorboard log needs to be created
        """
        if reset_num_timesteps:
            self.num_timesteps = 0
        new_tb_log = self.num_timesteps == 0
        return new_tb_log

    @abstractmethod
    def setup_model(self):
        """
        Create all the functions and tensorflow graphs necessary to train the model
        """
        pass

    def _init_callback(self, callback, progress_bar: bool = False, total_timesteps: Optional[int] = None) -> BaseCallback:
        """
        :param callback: (Union[None, Callable, List[Callable], BaseCallback])
        :param progress_bar: (bool) add a tqdm progress bar over the timesteps
        :param total_timesteps: (int) the number of timesteps of this ``learn`` call (for the bar)
        :return: (BaseCallback)
        """
        # Convert a list of callbacks into a callback
        if isinstance(callback, list):
            callback = CallbackList([cb if isinstance(cb, BaseCallback) else ConvertCallback(cb) for cb in callback])
        # Convert functional callback to object
        if not isinstance(callback, BaseCallback):
            callback = ConvertCallback(callback)
        if progress_bar:
            callback = CallbackList([callback, ProgressBarCallback(total_timesteps)])
        callback.init_callback(self)
        return callback

    def set_random_seed(self, seed: Optional[int]) -> None:
        """
        :param seed: (Optional[int]) Seed for the pseudo-random generators. If None,
            do not change the seeds.
        """
        # Ignore if the seed is None
        if seed is None:
            return
        # Seed python, numpy and tf random generator
        set_global_seeds(seed)
        # and the generator of the stochastic actions computed in NumPy (reseeded in place: policies hold it)
        rng = self.__dict__.get("_numpy_forward_rng_")
        if rng is not None:
            rng.bit_generator.state = make_rng(seed).bit_generator.state
        if self.env is not None:
            if isinstance(self.env, VecEnv):
                self.env.seed(seed)
            else:
                # as gym's env.seed(seed): the next episode starts from the seeded state, nothing is reset now
                seed_on_next_reset(self.env, seed)
            # Seed the action space
            # useful when selecting random actions
            self.env.action_space.seed(seed)
        if self.action_space is not None:
            self.action_space.seed(seed)

    def _numpy_forward_rng(self) -> np.random.Generator:
        """
        :return: (np.random.Generator) the generator of the stochastic actions computed in NumPy by the
            policies of this model (seeded from ``seed``; reseeded by ``set_random_seed``)
        """
        rng = self.__dict__.get("_numpy_forward_rng_")
        if rng is None:
            rng = self._numpy_forward_rng_ = make_rng(self.seed)
        return rng

    def refresh_numpy_forward(self) -> None:
        """
        Make the policies read their weights from the TensorFlow graph again before their next step.

        Feed-forward MLP policies of A2C, ACER, ACKTR, PPO2, PPO1 and TRPO (and the networks of DQN, SAC and TD3) act
        from a NumPy copy of their weights (much cheaper than a session call). The library refreshes that
        copy itself whenever it changes the weights (``learn``, ``load``, ``load_parameters``, ``pretrain``,
        ``setup_model``). Call this method after changing the model's variables in any other way (for
        instance ``model.sess.run(var.assign(...))``).
        Setting the environment variable ``STABLE_BASELINES_NUMPY_FORWARD=0`` before creating a model
        disables the NumPy path.
        """
        for value in list(self.__dict__.values()):
            if isinstance(value, BasePolicy):
                value.invalidate_numpy_forward()

    def _enable_numpy_forward(self, *policies) -> None:
        """
        Let feed-forward policies of this model act in NumPy (see ``refresh_numpy_forward``). Policies
        that are not supported keep using the graph.

        :param policies: (BasePolicy) the acting policies
        """
        rng = self._numpy_forward_rng()
        for policy in policies:
            enable = getattr(policy, "enable_numpy_forward", None)
            if enable is not None:
                enable(rng)

    def _setup_learn(self):
        """
        Check the environment.
        """
        if self.env is None:
            raise ValueError("Error: cannot train the model without a valid environment, please set an environment "
                             "with set_env(self, env) method.")
        if self.episode_reward is None:
            self.episode_reward = np.zeros((self.n_envs,))
        if self.ep_info_buf is None:
            self.ep_info_buf = deque(maxlen=100)

    def _log_episode_stats(self) -> None:
        """Log the mean return and length of the last 100 episodes (from the Monitor infos), if there are any."""
        if self.ep_info_buf and len(self.ep_info_buf[0]) > 0:
            logger.logkv('ep_reward_mean', safe_mean([ep_info['r'] for ep_info in self.ep_info_buf]))
            logger.logkv('ep_len_mean', safe_mean([ep_info['l'] for ep_info in self.ep_info_buf]))

    # ------------------------------------------------------------------------------------------
    # parameters
    # ------------------------------------------------------------------------------------------
    @abstractmethod
    def get_parameter_list(self):
        """
        Get tensorflow Variables of model's parameters

        This includes all variables necessary for continuing training (saving / loading).

        :return: (list) List of tensorflow Variables
        """
        pass

    def get_parameters(self) -> "OrderedDict[str, np.ndarray]":
        """
        Get current model parameters as dictionary of variable name -> ndarray.

        :return: (OrderedDict) Dictionary of variable name -> ndarray of model's parameters.
        """
        parameters = self.get_parameter_list()
        parameter_values = self.sess.run(parameters)
        return OrderedDict((param.name, value) for param, value in zip(parameters, parameter_values))

    def _setup_load_operations(self):
        """
        Create tensorflow operations for loading model parameters
        """
        # Assume tensorflow graphs are static -> check
        # that we only call this function once
        if self._param_load_ops is not None:
            raise RuntimeError("Parameter load operations have already been created")
        # For each loadable parameter, create appropiate
        # placeholder and an assign op, and store them to
        # self.load_param_ops as dict of variable.name -> (placeholder, assign)
        loadable_parameters = self.get_parameter_list()
        # Use OrderedDict to store order for backwards compatibility with
        # list-based params
        self._param_load_ops = OrderedDict()
        with self.graph.as_default():
            for param in loadable_parameters:
                placeholder = tf.placeholder(dtype=param.dtype.base_dtype, shape=param.shape)
                # param.name is unique (tensorflow variables have unique names)
                self._param_load_ops[param.name] = (placeholder, param.assign(placeholder))

    @abstractmethod
    def _get_pretrain_placeholders(self):
        """
        Return the placeholders needed for the pretraining:
        - obs_ph: observation placeholder
        - actions_ph will be population with an action from the environment
            (from the expert dataset)
        - deterministic_actions_ph: e.g., in the case of a Gaussian policy,
            the mean.

        :return: ((tf.placeholder)) (obs_ph, actions_ph, deterministic_actions_ph)
        """
        pass

    def load_parameters(self, load_path_or_dict, exact_match: bool = True) -> None:
        """
        Load model parameters from a file or a dictionary

        Dictionary keys should be tensorflow variable names, which can be obtained
        with ``get_parameters`` function. If ``exact_match`` is True, dictionary
        should contain keys for all model's parameters, otherwise RunTimeError
        is raised. If False, only variables included in the dictionary will be updated.

        This does not load agent's hyper-parameters.

        .. warning::
            This function does not update trainer/optimizer variables (e.g. momentum).
            As such training after using this function may lead to less-than-optimal results.

        :param load_path_or_dict: (str or file-like or dict) Save parameter location
            or dict of parameters as variable.name -> ndarrays to be loaded.
        :param exact_match: (bool) If True, expects load dictionary to contain keys for
            all variables in the model. If False, loads parameters only for variables
            mentioned in the dictionary. Defaults to True.
        """
        # Make sure we have assign ops
        if self._param_load_ops is None:
            self._setup_load_operations()

        if isinstance(load_path_or_dict, dict):
            # Assume `load_path_or_dict` is dict of variable.name -> ndarrays we want to load
            params = load_path_or_dict
        elif isinstance(load_path_or_dict, list):
            params = self._params_from_list(load_path_or_dict)
        else:
            # a path, a file object, or the parameters of a file being loaded: read each array only after its
            # shape was compared with the model's variable of that name
            source = load_path_or_dict
            if not isinstance(source, save_util.ModelParameters):
                _, source = save_util.read_model_file(load_path_or_dict, load_data=False)
            expected = {name: tuple(placeholder.shape.as_list())
                        for name, (placeholder, _) in self._param_load_ops.items()}
            params = source.read(expected)
            if params is None:
                raise InvalidModelFileError("The model file {!r} holds no parameters".format(load_path_or_dict))
            if isinstance(params, list):
                params = self._params_from_list(params)
        params = dict(params)

        feed_dict = {}
        param_update_ops = []
        # Keep track of not-updated variables
        not_updated_variables = set(self._param_load_ops.keys())
        unknown = [name for name in params if name not in self._param_load_ops]
        if unknown and exact_match:
            raise RuntimeError("Load dictionary has parameters the model does not have: {}. The model's parameters "
                               "are: {}".format(", ".join(sorted(unknown)), ", ".join(self._param_load_ops)))
        for param_name, param_value in params.items():
            if param_name not in self._param_load_ops:
                continue
            placeholder, assign_op = self._param_load_ops[param_name]
            param_value = np.asarray(param_value)
            expected_shape = tuple(placeholder.shape.as_list())
            if tuple(param_value.shape) != expected_shape:
                raise ValueError("Parameter '{}' has shape {} in the load dictionary, the model expects {}"
                                 .format(param_name, param_value.shape, expected_shape))
            feed_dict[placeholder] = param_value
            # Create list of tf.assign operations for sess.run
            param_update_ops.append(assign_op)
            # Keep track which variables are updated
            not_updated_variables.remove(param_name)

        # Check that we updated all parameters if exact_match=True
        if exact_match and len(not_updated_variables) > 0:
            raise RuntimeError("Load dictionary did not contain all variables. Missing variables: {}"
                               .format(", ".join(sorted(not_updated_variables))))

        self.sess.run(param_update_ops, feed_dict=feed_dict)
        self.refresh_numpy_forward()

    def _params_from_list(self, params: List[np.ndarray]) -> "OrderedDict[str, np.ndarray]":
        """
        Map an unnamed list of arrays (model files of the library <= 2.7) onto the parameter list, in order.
        Files written before 2.6 by some algorithms hold every array twice: the first N are used.

        :param params: ([np.ndarray])
        :return: (OrderedDict)
        """
        names = list(self._param_load_ops.keys()) if self._param_load_ops is not None else \
            [param.name for param in self.get_parameter_list()]
        if len(params) < len(names):
            raise ValueError("The file holds {} parameter arrays, the model has {} parameters ({})"
                             .format(len(params), len(names), ", ".join(names)))
        return OrderedDict(zip(names, self._select_legacy_arrays(list(params), len(names))))

    def _select_legacy_arrays(self, params: List[np.ndarray], n_params: int) -> List[np.ndarray]:
        """
        Pick the arrays of a legacy unnamed parameter list that belong to the model (the first
        ``n_params``; algorithms with other duplication rules override this).

        :param params: ([np.ndarray]) the arrays of the file
        :param n_params: (int) the number of parameters of the model
        :return: ([np.ndarray])
        """
        return params[:n_params]

    # ------------------------------------------------------------------------------------------
    # learning / acting
    # ------------------------------------------------------------------------------------------
    @abstractmethod
    def learn(self, total_timesteps, callback=None, log_interval=100, tb_log_name="run",
              reset_num_timesteps=True, progress_bar=False):
        """
        Return a trained model.

        :param total_timesteps: (int) The total number of samples to train on
        :param callback: (Union[callable, [callable], BaseCallback])
            function called at every steps with state of the algorithm.
            It takes the local and global variables. If it returns False, training is aborted.
            When the callback inherits from BaseCallback, you will have access
            to additional stages of the training (training start/end),
            please read the documentation for more details.
        :param log_interval: (int) The number of timesteps before logging.
        :param tb_log_name: (str) the name of the run for tensorboard log
        :param reset_num_timesteps: (bool) whether or not to reset the current timestep number (used in logging)
        :param progress_bar: (bool) display a progress bar over the timesteps (needs tqdm)
        :return: (BaseRLModel) the trained model
        """
        pass

    @abstractmethod
    def predict(self, observation, state=None, mask=None, deterministic=False):
        """
        Get the model's action from an observation

        :param observation: (np.ndarray) the input observation
        :param state: (np.ndarray) The last states (can be None, used in recurrent policies)
        :param mask: (np.ndarray) The last masks (can be None, used in recurrent policies)
        :param deterministic: (bool) Whether or not to return deterministic actions.
        :return: (np.ndarray, np.ndarray) the model's action and the next state (used in recurrent policies)
        """
        pass

    @abstractmethod
    def action_probability(self, observation, state=None, mask=None, actions=None, logp=False):
        """
        If ``actions`` is ``None``, then get the model's action probability distribution from a given observation.

        Depending on the action space the output is:
            - Discrete: probability for each possible action
            - Box: mean and standard deviation of the action output

        However if ``actions`` is not ``None``, this function will return the probability that the given actions are
        taken with the given parameters (observation, state, ...) on this model. For discrete action spaces, it
        returns the probability mass; for continuous action spaces, the probability density. This is since the
        probability mass will always be zero in continuous spaces, see http://blog.christianperone.com/2019/01/
        for a good explanation

        :param observation: (np.ndarray) the input observation
        :param state: (np.ndarray) The last states (can be None, used in recurrent policies)
        :param mask: (np.ndarray) The last masks (can be None, used in recurrent policies)
        :param actions: (np.ndarray) (OPTIONAL) For calculating the likelihood that the given actions are chosen by
            the model for each of the given parameters. Must have the same number of actions and observations.
            (set to None to return the complete action probability distribution)
        :param logp: (bool) (OPTIONAL) When specified with actions, returns probability in log-space.
            This has no effect if actions is None.
        :return: (np.ndarray) the model's (log) action probability
        """
        pass

    def pretrain(self, dataset, n_epochs=10, learning_rate=1e-4, adam_epsilon=1e-8, val_interval=None):
        """
        Pretrain a model using behavior cloning:
        supervised learning given an expert dataset.

        NOTE: only Box and Discrete spaces are supported for now.

        :param dataset: (ExpertDataset) Dataset manager
        :param n_epochs: (int) Number of iterations on the training set
        :param learning_rate: (float) Learning rate
        :param adam_epsilon: (float) the epsilon value for the adam optimizer
        :param val_interval: (int) Report training and validation losses every n epochs.
            By default, every 10th of the maximum number of epochs.
        :return: (BaseRLModel) the pretrained model
        """
        continuous_actions = isinstance(self.action_space, spaces.Box)
        discrete_actions = isinstance(self.action_space, spaces.Discrete)
        if not (continuous_actions or discrete_actions):
            raise ValueError("pretrain: only Discrete and Box action spaces are supported, got {}"
                             .format(self.action_space))
        if isinstance(self.policy, type) and issubclass(self.policy, RecurrentActorCriticPolicy):
            raise ValueError("pretrain: recurrent policies ({}) are not supported, use a feed-forward policy"
                             .format(self.policy.__name__))
        if self.sess is None or self.graph is None:
            raise ValueError("pretrain: the model has no graph yet; create it with _init_setup_model=True "
                             "or call setup_model() first")
        for attribute in ("train_loader", "val_loader", "get_next_batch"):
            if not hasattr(dataset, attribute):
                raise TypeError("pretrain: dataset must be an ExpertDataset (from stable_baselines.gail), got {}"
                                .format(type(dataset).__name__))
        if dataset.train_loader is None or dataset.val_loader is None:
            raise ValueError("pretrain: the dataloaders of the dataset were released")
        n_epochs = int(n_epochs)
        # Validate the model every 10% of the total number of iteration
        if val_interval is None:
            val_interval = 1 if n_epochs < 10 else n_epochs // 10
        val_interval = max(int(val_interval), 1)

        # The behaviour-cloning graph is built once per model graph (and Adam epsilon) and reused by later
        # calls; only its optimizer variables are (re-)initialized, never the model's parameters.
        key = (self.graph, float(adam_epsilon))
        cache = getattr(self, "_pretrain_cache", None)
        if cache is None or cache["key"] != key:
            with self.graph.as_default():
                obs_ph, actions_ph, policy_out = self._get_pretrain_placeholders()
                with tf.variable_scope("pretrain", reuse=tf.AUTO_REUSE):
                    learning_rate_ph = tf.placeholder(tf.float32, [], name="pretrain_learning_rate")
                    if continuous_actions:
                        loss = tf.reduce_mean(tf.square(tf.cast(actions_ph, tf.float32) - policy_out))
                    else:
                        # policy_out holds the logits (or Q-values for DQN) of the discrete actions
                        loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(
                            labels=tf.cast(actions_ph, tf.int32), logits=policy_out))
                    trainable = self.params if self.params is not None else tf.trainable_variables()
                    grads = tf.gradients(loss, trainable)
                    var_list = [var for var, grad in zip(trainable, grads) if grad is not None]
                    if not var_list:
                        raise ValueError("pretrain: no model parameter influences the policy output")
                    optimizer = tf.train.AdamOptimizer(learning_rate=learning_rate_ph, epsilon=adam_epsilon,
                                                       name="PretrainAdam")
                    optim_op = optimizer.minimize(loss, var_list=var_list)
                    init_op = tf.variables_initializer(optimizer.variables())
            cache = {"key": key, "obs_ph": obs_ph, "actions_ph": actions_ph, "loss": loss, "optim_op": optim_op,
                     "init_op": init_op, "learning_rate_ph": learning_rate_ph}
            self._pretrain_cache = cache
        obs_ph, actions_ph, loss, optim_op = cache["obs_ph"], cache["actions_ph"], cache["loss"], cache["optim_op"]
        # a fresh Adam state for this call
        self.sess.run(cache["init_op"])

        obs_shape = tuple(dim if dim is not None else -1 for dim in obs_ph.shape.as_list()[1:])
        action_shape = tuple(actions_ph.shape.as_list()[1:])

        def feed(expert_obs, expert_actions):
            expert_obs = np.asarray(expert_obs)
            try:
                expert_obs = expert_obs.reshape((len(expert_obs),) + obs_shape)
            except ValueError as error:
                raise ValueError("pretrain: expert observations of shape {} do not fit the observation space {}"
                                 .format(expert_obs.shape[1:], self.observation_space)) from error
            expert_actions = np.asarray(expert_actions)
            if len(expert_actions) != len(expert_obs):
                raise ValueError("pretrain: the dataset gave {} observations and {} actions in a minibatch"
                                 .format(len(expert_obs), len(expert_actions)))
            try:
                expert_actions = expert_actions.reshape((len(expert_obs),) + action_shape)
            except ValueError as error:
                raise ValueError("pretrain: expert actions of shape {} do not fit the action space {}"
                                 .format(expert_actions.shape[1:], self.action_space)) from error
            return {obs_ph: expert_obs, actions_ph: expert_actions}

        if self.verbose > 0:
            print("Pretraining with Behavior Cloning...")

        for epoch_idx in range(n_epochs):
            train_loss = 0.0
            # Full pass on the training set
            for _ in range(len(dataset.train_loader)):
                expert_obs, expert_actions = dataset.get_next_batch('train')
                feed_dict = feed(expert_obs, expert_actions)
                feed_dict[cache["learning_rate_ph"]] = learning_rate
                train_loss_, _ = self.sess.run([loss, optim_op], feed_dict)
                train_loss += train_loss_
            train_loss /= max(len(dataset.train_loader), 1)

            if self.verbose > 0 and (epoch_idx + 1) % val_interval == 0:
                val_loss = 0.0
                # Full pass on the validation set
                for _ in range(len(dataset.val_loader)):
                    expert_obs, expert_actions = dataset.get_next_batch('val')
                    val_loss_, = self.sess.run([loss], feed(expert_obs, expert_actions))
                    val_loss += val_loss_
                val_loss /= max(len(dataset.val_loader), 1)
                print("==== Training progress {:.2f}% ====".format(100 * (epoch_idx + 1) / n_epochs))
                print('Epoch {}'.format(epoch_idx + 1))
                print("Training loss: {:.6f}, Validation loss: {:.6f}".format(train_loss, val_loss))
                print()
        self.refresh_numpy_forward()
        if self.verbose > 0:
            print("Pretraining done.")
        return self

    # ------------------------------------------------------------------------------------------
    # saving / loading
    # ------------------------------------------------------------------------------------------
    @abstractmethod
    def save(self, save_path, cloudpickle=False):
        """
        Save the current parameters to file

        :param save_path: (str or file-like) The save location
        :param cloudpickle: (bool) Use older cloudpickle format instead of zip-archives.
        """
        raise NotImplementedError()

    @classmethod
    def load(cls, load_path, env=None, custom_objects=None, **kwargs):
        """
        Load the model from file

        Loading never runs code from the file: its entries must be the settings this algorithm saves, each of
        the expected kind (see :mod:`stable_baselines.common.persistence` and the manual's page on saving).

        :param load_path: (str or file-like) the saved parameter location
        :param env: (Gym Environment) the new environment to run the loaded model on
            (can be None if you only need prediction from a trained model)
        :param custom_objects: (dict) Dictionary of objects to replace
            upon loading. If a variable is present in this dictionary as a
            key, it will not be deserialized and the corresponding item
            will be used instead. Similar to custom_objects in
            `keras.models.load_model`. Useful when you have an object in
            file that can not be deserialized.
        :param kwargs: extra arguments to change the model when loading; they also replace the file's entries
            of the same name without reading them (e.g. ``policy=CustomPolicy`` for a policy class that the file
            stores by value, which the safe loader does not run), except ``policy_kwargs``, which must equal the
            stored ones
        """
        return cls._load_checked(load_path, env, custom_objects, kwargs)

    @classmethod
    def _load_checked(cls, load_path, env, custom_objects: Optional[dict], kwargs: Dict[str, Any],
                      extra_settings: Optional[Dict[str, SettingKind]] = None) -> "BaseRLModel":
        """
        :meth:`load`, accepting ``extra_settings`` (names and kinds) besides the algorithm's own settings
        (HER's entries in a HER file read by the wrapped model); those are checked and not set.
        """
        if custom_objects is not None and not isinstance(custom_objects, dict):
            raise ValueError("custom_objects argument must be a dict or None, got {!r}".format(
                type(custom_objects).__name__))
        replacements = {key: value for key, value in kwargs.items() if key != "policy_kwargs"}
        replacements.update(custom_objects or {})
        data, params = save_util.read_model_file(load_path, custom_objects=replacements or None)
        what = "the model file {!r}".format(load_path) if isinstance(load_path, (str, os.PathLike)) else \
            "the model file"
        if data is None:
            raise InvalidModelFileError("{} has no 'data' member: it holds parameters only (load them into a model "
                                        "with model.load_parameters(path))".format(what))
        if "policy_kwargs" in kwargs and kwargs["policy_kwargs"] != data.get("policy_kwargs", {}):
            raise ValueError("The specified policy kwargs do not equal the stored policy kwargs. "
                             "Stored kwargs: {}, specified kwargs: {}".format(data.get("policy_kwargs"),
                                                                              kwargs["policy_kwargs"]))
        if "policy" not in data:
            raise InvalidModelFileError("{} has no 'policy' entry: it is not a Stable Baselines model file"
                                        .format(what))
        settings = check_settings(cls, data, what, trusted=replacements, extra=extra_settings)
        for key in ("observation_space", "action_space"):
            if settings.get(key) is not None:
                settings[key] = convert_space(settings[key])
        if settings.get("policy_kwargs") is None:
            settings["policy_kwargs"] = {}

        model = cls(policy=settings["policy"], env=None, _init_setup_model=False)  # pytype: disable=not-instantiable
        for name, value in settings.items():
            setattr(model, name, value)
        model.__dict__.update(kwargs)
        model.set_env(env)
        model.setup_model()
        model.load_parameters(params)
        return model

    def _setting_to_save(self, name: str) -> Any:
        """
        :param name: (str) one of the algorithm's saved settings
        :return: (Any) the value to save for it (algorithms whose attribute differs from the setting override this)
        """
        return getattr(self, name)

    def _settings_to_save(self) -> Dict[str, Any]:
        """
        :return: (dict) the algorithm's settings (:attr:`_saved_settings`), then the entries every model saves
        """
        data = {name: self._setting_to_save(name) for name in self._saved_settings}
        data.update(self._common_save_data())
        return data

    def _common_save_data(self) -> Dict[str, Any]:
        """
        :return: (dict) the entries every model saves after its own hyper-parameters
        """
        return {name: getattr(self, name) for name in COMMON_SETTINGS}

    @staticmethod
    def _save_to_file(save_path, data=None, params=None, cloudpickle=False) -> None:
        """
        Save model to a zip archive (or the older cloudpickle format). Writes to a path are atomic.

        :param save_path: (str or file-like) Where to store the model
        :param data: (OrderedDict) Class parameters being stored
        :param params: (OrderedDict) Model parameters being stored
        :param cloudpickle: (bool) Use old cloudpickle format
        """
        if cloudpickle:
            save_util.save_to_pkl(save_path, data, params)
        else:
            save_util.save_to_zip(save_path, data, params)

    @staticmethod
    def _load_from_file(load_path, load_data=True, custom_objects=None) -> Tuple[dict, Any]:
        """
        Load model data from a .zip archive or an old .pkl file.

        :param load_path: (str or file-like) Where to load model from
        :param load_data: (bool) Whether we should load and return data (class parameters).
        :param custom_objects: (dict) Dictionary of objects to replace upon loading.
        :return: (dict, OrderedDict or list) Class parameters and model parameters
        """
        data, params = save_util.load_model_file(load_path, custom_objects=custom_objects, load_data=load_data)
        for key in ("observation_space", "action_space"):
            if data is not None and data.get(key) is not None:
                data[key] = convert_space(data[key])
        return data, params

    @staticmethod
    def _softmax(x_input):
        """
        An implementation of softmax.

        :param x_input: (numpy float) input vector
        :return: (numpy float) output vector
        """
        x_exp = np.exp(x_input.T - np.max(x_input.T, axis=0))
        return (x_exp / x_exp.sum(axis=0)).T

    @staticmethod
    def _is_vectorized_observation(observation, observation_space) -> bool:
        """
        For every observation type, detects and validates the shape,
        then returns whether or not the observation is vectorized.

        :param observation: (np.ndarray) the input observation to validate
        :param observation_space: (gym.spaces) the observation space
        :return: (bool) whether the given observation is vectorized or not
        """
        observation = np.asarray(observation)
        if isinstance(observation_space, spaces.Box):
            expected = observation_space.shape
            what = "Box"
        elif isinstance(observation_space, spaces.Discrete):
            expected = ()
            what = "Discrete"
        elif isinstance(observation_space, spaces.MultiDiscrete):
            expected = (len(observation_space.nvec),)
            what = "MultiDiscrete"
        elif isinstance(observation_space, spaces.MultiBinary):
            expected = tuple(np.atleast_1d(observation_space.n).tolist())
            what = "MultiBinary"
        else:
            raise ValueError("Error: Cannot determine if the observation is vectorized with the space type {}."
                             .format(observation_space))
        if observation.shape == expected:
            return False
        if observation.shape[1:] == expected:
            return True
        if isinstance(observation_space, spaces.Discrete):
            raise ValueError("Error: Unexpected observation shape {} for Discrete environment, please use () or "
                             "(n_env,) for the observation shape.".format(observation.shape))
        raise ValueError("Error: Unexpected observation shape {} for {} environment, please use {} or "
                         "(n_env, {}) for the observation shape."
                         .format(observation.shape, what, expected, ", ".join(str(dim) for dim in expected)))


def _wrap_single(env) -> VecEnv:
    """Wrap one (gymnasium) env in a DummyVecEnv."""
    return DummyVecEnv([lambda: env])


def _predict_input(observation, observation_space) -> Tuple[np.ndarray, bool]:
    """
    Validate an observation given to ``predict``/``action_probability`` and batch it.

    :return: (np.ndarray, bool) the batched observation and whether the input was batched
    """
    if isinstance(observation, tuple) and len(observation) == 2 and isinstance(observation[1], dict):
        raise ValueError("predict() got a (observation, info) tuple, which is what gymnasium's env.reset() "
                         "returns: pass only the observation, e.g. `obs, info = env.reset()`")
    observation = np.asarray(observation)
    vectorized_env = BaseRLModel._is_vectorized_observation(observation, observation_space)
    observation = observation.reshape((-1,) + tuple(observation_space.shape))
    return observation, vectorized_env


class ActorCriticRLModel(BaseRLModel):
    """
    The base class for Actor critic model

    :param policy: (BasePolicy) Policy object
    :param env: (Gym environment) The environment to learn from
                (if registered in Gym, can be str. Can be None for loading trained models)
    :param verbose: (int) the verbosity level: 0 none, 1 training information, 2 tensorflow debug
    :param policy_base: (BasePolicy) the base policy used by this method (default=ActorCriticPolicy)
    :param requires_vec_env: (bool) Does this model require a vectorized environment
    :param policy_kwargs: (dict) additional arguments to be passed to the policy on creation
    :param seed: (int) Seed for the pseudo-random generators (python, numpy, tensorflow).
        If None (default), use random seed. Note that if you want completely deterministic
        results, you must set `n_cpu_tf_sess` to 1.
    :param n_cpu_tf_sess: (int) The number of threads for TensorFlow operations
        If None, the number of cpu of the current machine will be used.
    """

    def __init__(self, policy, env, _init_setup_model, verbose=0, policy_base=ActorCriticPolicy,
                 requires_vec_env=False, policy_kwargs=None, seed=None, n_cpu_tf_sess=None):
        super(ActorCriticRLModel, self).__init__(policy, env, verbose=verbose, requires_vec_env=requires_vec_env,
                                                 policy_base=policy_base, policy_kwargs=policy_kwargs,
                                                 seed=seed, n_cpu_tf_sess=n_cpu_tf_sess)
        self.sess = None
        self.initial_state = None
        self.step = None
        self.proba_step = None
        self.params = None
        self._runner = None

    def _make_runner(self):
        """Builds a new Runner. Lazily called whenever ``self.runner`` is accessed and is None."""
        raise NotImplementedError("This model is not configured to use a Runner")

    @property
    def runner(self):
        if self._runner is None:
            self._runner = self._make_runner()
        return self._runner

    def set_env(self, env) -> None:
        self._runner = None  # New environment invalidates the runner
        super().set_env(env)

    @abstractmethod
    def setup_model(self):
        pass

    @abstractmethod
    def learn(self, total_timesteps, callback=None, log_interval=100, tb_log_name="run",
              reset_num_timesteps=True, progress_bar=False):
        pass

    def _check_policy_class(self) -> None:
        """Raise a clear error when the policy is not an actor-critic policy class."""
        if not (isinstance(self.policy, type) and issubclass(self.policy, ActorCriticPolicy)):
            raise ValueError("Error: the input policy for the {} model must be an instance of "
                             "common.policies.ActorCriticPolicy, got {!r}".format(type(self).__name__, self.policy))

    def _new_graph_and_session(self):
        """Create the model's own graph and session, seeding the graph when a seed is set."""
        self.graph = tf.Graph()
        with self.graph.as_default():
            self.set_random_seed(self.seed)
            self.sess = make_session(num_cpu=self.n_cpu_tf_sess, graph=self.graph)

    def _recurrent_batch(self, observation: np.ndarray, state, mask):
        """
        Recurrent step models have a fixed batch of ``n_envs`` rows: pad a smaller batch (and its mask)
        with zeros so that a single observation can be given to ``predict``.

        :return: (np.ndarray, np.ndarray, np.ndarray, int) observation, state, mask, number of real rows
        """
        n_rows = observation.shape[0]
        if not issubclass(self.policy, RecurrentActorCriticPolicy) or n_rows == self.n_envs:
            return observation, state, mask, n_rows
        if n_rows > self.n_envs:
            raise ValueError("This recurrent model was built for {} environments; got {} observations at once"
                             .format(self.n_envs, n_rows))
        padding = np.zeros((self.n_envs - n_rows,) + observation.shape[1:], dtype=observation.dtype)
        observation = np.concatenate([observation, padding])
        mask = np.concatenate([np.asarray(mask, dtype=bool).reshape(-1)[:n_rows],
                               np.zeros(self.n_envs - n_rows, dtype=bool)])
        return observation, state, mask, n_rows

    def predict(self, observation, state=None, mask=None, deterministic=False):
        # fast path: a feed-forward policy computing in NumPy, an array observation of the right shape
        forward = getattr(getattr(self.step, "__self__", None), "_numpy_forward", None)
        if forward is not None and type(observation) is np.ndarray:  # pylint: disable=unidiomatic-typecheck
            space_shape = forward._obs_shape  # pylint: disable=protected-access
            shape = observation.shape
            if shape == space_shape:
                vectorized_env = False
            elif shape[1:] == space_shape and shape[0] > 0:
                vectorized_env = True
            else:
                vectorized_env = None
            if vectorized_env is not None and isinstance(self.observation_space, spaces.Box):
                actions = forward.act(observation.reshape((-1,) + space_shape), deterministic)
                if actions is not None:
                    action_space = self.action_space
                    if isinstance(action_space, spaces.Box):
                        actions = np.minimum(np.maximum(actions, action_space.low), action_space.high)
                    return (actions if vectorized_env else actions[0]), None
        if state is None:
            state = self.initial_state
        if mask is None:
            mask = [False for _ in range(self.n_envs)]
        observation, vectorized_env = _predict_input(observation, self.observation_space)
        observation, state, mask, n_rows = self._recurrent_batch(observation, state, mask)

        actions, _, states, _ = self.step(observation, state, mask, deterministic=deterministic)
        actions = actions[:n_rows]

        clipped_actions = actions
        # Clip the actions to avoid out of bound error
        if isinstance(self.action_space, spaces.Box):
            clipped_actions = np.clip(actions, self.action_space.low, self.action_space.high)

        if not vectorized_env:
            clipped_actions = clipped_actions[0]
        return clipped_actions, states

    def action_probability(self, observation, state=None, mask=None, actions=None, logp=False):
        if state is None:
            state = self.initial_state
        if mask is None:
            mask = [False for _ in range(self.n_envs)]
        observation, vectorized_env = _predict_input(observation, self.observation_space)
        observation, state, mask, n_rows = self._recurrent_batch(observation, state, mask)
        actions_proba = self.proba_step(observation, state, mask)
        if isinstance(actions_proba, list):
            actions_proba = [np.asarray(part)[:n_rows] for part in actions_proba]
        else:
            actions_proba = np.asarray(actions_proba)[:n_rows]

        if len(actions_proba) == 0:  # empty list means not implemented
            warnings.warn("Warning: action probability is not implemented for {} action space. Returning None."
                          .format(type(self.action_space).__name__))
            return None

        if actions is not None:  # comparing the action distribution, to given actions
            prob = None
            logprob = None
            actions = np.array([actions])
            if isinstance(self.action_space, spaces.Discrete):
                actions = actions.reshape((-1,))
                if observation[:n_rows].shape[0] != actions.shape[0]:
                    raise ValueError("Error: batch sizes differ for actions ({}) and observations ({})."
                                     .format(actions.shape[0], n_rows))
                prob = actions_proba[np.arange(actions.shape[0]), actions]
            elif isinstance(self.action_space, spaces.MultiDiscrete):
                actions = actions.reshape((-1, len(self.action_space.nvec)))
                if n_rows != actions.shape[0]:
                    raise ValueError("Error: batch sizes differ for actions ({}) and observations ({})."
                                     .format(actions.shape[0], n_rows))
                # Discrete action probability, over multiple categories
                actions = np.swapaxes(actions, 0, 1)  # swap axis for easier categorical split
                prob = np.prod([proba[np.arange(act.shape[0]), act]
                                for proba, act in zip(actions_proba, actions)], axis=0)
            elif isinstance(self.action_space, spaces.MultiBinary):
                actions = actions.reshape((-1, self.action_space.n))
                if n_rows != actions.shape[0]:
                    raise ValueError("Error: batch sizes differ for actions ({}) and observations ({})."
                                     .format(actions.shape[0], n_rows))
                # Bernoulli action probability, for every action
                prob = np.prod(actions_proba * actions + (1 - actions_proba) * (1 - actions), axis=1)
            elif isinstance(self.action_space, spaces.Box):
                actions = actions.reshape((-1,) + self.action_space.shape)
                mean, std = actions_proba
                # density of the diagonal Gaussian: the product over the action's dimensions (2.10.0 read the
                # std as a log std here, and half the log std entered the normaliser)
                per_dim = -np.square(actions - mean) / (2 * np.square(std)) - np.log(std) - 0.5 * np.log(2 * np.pi)
                logprob = np.sum(per_dim.reshape((len(per_dim), -1)), axis=1)
            else:
                warnings.warn("Warning: action_probability not implemented for {} actions space. Returning None."
                              .format(type(self.action_space).__name__))
                return None

            # Return in space (log or normal) requested by user, converting if necessary
            if logp:
                if logprob is None:
                    logprob = np.log(prob)
                ret = logprob
            else:
                if prob is None:
                    prob = np.exp(logprob)
                ret = prob

            # normalize action proba shape for the different gym spaces
            ret = ret.reshape((-1, 1))
        else:
            ret = actions_proba

        if not vectorized_env:
            ret = ret[0]

        return ret

    def get_parameter_list(self):
        return self.params

    @abstractmethod
    def save(self, save_path, cloudpickle=False):
        pass


class OffPolicyRLModel(BaseRLModel):
    """
    The base class for off policy RL model

    :param policy: (BasePolicy) Policy object
    :param env: (Gym environment) The environment to learn from
                (if registered in Gym, can be str. Can be None for loading trained models)
    :param replay_buffer: (ReplayBuffer) the type of replay buffer
    :param verbose: (int) the verbosity level: 0 none, 1 training information, 2 tensorflow debug
    :param requires_vec_env: (bool) Does this model require a vectorized environment
    :param policy_base: (BasePolicy) the base policy used by this method
    :param policy_kwargs: (dict) additional arguments to be passed to the policy on creation
    :param seed: (int) Seed for the pseudo-random generators (python, numpy, tensorflow).
        If None (default), use random seed. Note that if you want completely deterministic
        results, you must set `n_cpu_tf_sess` to 1.
    :param n_cpu_tf_sess: (int) The number of threads for TensorFlow operations
        If None, the number of cpu of the current machine will be used.
    """

    def __init__(self, policy, env, replay_buffer=None, _init_setup_model=False, verbose=0, *,
                 requires_vec_env=False, policy_base=None,
                 policy_kwargs=None, seed=None, n_cpu_tf_sess=None):
        super(OffPolicyRLModel, self).__init__(policy, env, verbose=verbose, requires_vec_env=requires_vec_env,
                                               policy_base=policy_base, policy_kwargs=policy_kwargs,
                                               seed=seed, n_cpu_tf_sess=n_cpu_tf_sess)
        self.replay_buffer = replay_buffer
        self._policy_base = policy_base

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

    @staticmethod
    def _unflatten(flat: np.ndarray, forward: Any) -> List[np.ndarray]:
        """
        Split a vector of :meth:`_flat_after` into the arrays of ``forward.variables`` (views, no copy).

        :param flat: (np.ndarray) the fetched vector
        :param forward: (Any) an object with the list ``variables`` (a NumPy policy forward)
        :return: ([np.ndarray]) one array per variable
        """
        layout = getattr(forward, "_flat_layout", None)
        if layout is None:
            layout, start = [], 0
            for var in forward.variables:
                shape = tuple(var.shape.as_list())
                size = int(np.prod(shape, dtype=np.int64))
                layout.append((start, start + size, shape))
                start += size
            forward._flat_layout = layout
        return [flat[start:end].reshape(shape) for start, end, shape in layout]

    def is_using_her(self) -> bool:
        """
        Check if is using HER

        :return: (bool) Whether is using HER or not
        """
        # Avoid circular import
        return type(self.replay_buffer).__name__ == "HindsightExperienceReplayWrapper"

    def replay_buffer_add(self, obs_t, action, reward, obs_tp1, done, info):
        """
        Add a new transition to the replay buffer

        :param obs_t: (np.ndarray) the last observation
        :param action: ([float]) the action
        :param reward: (float) the reward of the transition
        :param obs_tp1: (np.ndarray) the new observation
        :param done: (bool) is the episode done
        :param info: (dict) extra values used to compute the reward when using HER
        """
        # Pass info dict when using HER, as it can be used to compute the reward
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
            # Create policy and target TF objects
            self.policy_tf = self.policy(self.sess, self.observation_space, self.action_space, **self.policy_kwargs)
            target_policy = self.policy(self.sess, self.observation_space, self.action_space, **self.policy_kwargs)

            # Initialize Placeholders
            self.observations_ph = self.policy_tf.obs_ph
            # Normalized observation for pixels
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
        fused = getattr(self, "_fused_train", None)
        if fused is None:
            return None
        out = fused[bool(delayed_update)](*self._minibatch_values(batch, learning_rate))
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

    @contextmanager
    def _learning(self, total_timesteps: int, callback, tb_log_name: str, reset_num_timesteps: bool,
                  replay_wrapper, progress_bar: bool) -> Iterator[Tuple[BaseCallback, Any]]:
        """
        The frame of an off-policy ``learn``: counts the timesteps, makes the callback, wraps the replay buffer (e.g.
        with HER's wrapper), and, for the body of the ``with`` block, sets the verbosity, opens the tensorboard
        writer and prepares the episode statistics (``_setup_learn``).

        :param total_timesteps: (int) The total number of samples to train on
        :param callback: (Union[callable, [callable], BaseCallback]) the callback given to ``learn``
        :param tb_log_name: (str) the name of the run for tensorboard log
        :param reset_num_timesteps: (bool) whether or not to reset the current timestep number (used in logging)
        :param replay_wrapper: (ReplayBuffer -> ReplayBuffer) optional wrapper of the replay buffer
        :param progress_bar: (bool) display a progress bar over the timesteps (needs tqdm)
        :return: (BaseCallback, TensorFlow Summary.writer) the callback and the tensorboard writer (or None)
        """
        new_tb_log = self._init_num_timesteps(reset_num_timesteps)
        callback = self._init_callback(callback, progress_bar=progress_bar, total_timesteps=total_timesteps)

        if replay_wrapper is not None:
            self.replay_buffer = replay_wrapper(self.replay_buffer)

        with SetVerbosity(self.verbose), TensorboardWriter(self.graph, self.tensorboard_log, tb_log_name, new_tb_log) \
                as writer:
            self._setup_learn()
            yield callback, writer

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
            # Transform to callable if needed
            self.learning_rate = get_schedule_fn(self.learning_rate)
            # Initial learning rate
            current_lr = self.learning_rate(1)

            start_time = time.time()
            episode_rewards = [0.0]
            episode_successes = []
            if self.action_noise is not None:
                self.action_noise.reset()
            obs, _ = reset_env(self.env)
            # Whether the env resets itself at the end of an episode (a one-env VecEnv behind _UnvecWrapper)
            auto_reset = isinstance(self.env, VecEnv)
            # Retrieve unnormalized observation for saving into the buffer
            obs_ = obs
            if self._vec_normalize_env is not None:
                obs_ = self._vec_normalize_env.get_original_obs()[0]

            n_updates = 0
            infos_values = []

            mean_reward = None
            callback.on_training_start(locals(), globals())
            callback.on_rollout_start()

            for step in range(total_timesteps):
                # Before training starts, randomly sample actions
                # from a uniform distribution for better exploration.
                # Afterwards, use the learned policy
                # if random_exploration is set to 0 (normal setting)
                if self.num_timesteps < self.learning_starts or np.random.rand() < self.random_exploration:
                    # actions sampled from action space are from range specific to the environment
                    # but algorithm operates on tanh-squashed actions therefore simple scaling is used
                    unscaled_action = self.env.action_space.sample()
                    action = scale_action(self.action_space, unscaled_action)
                else:
                    action = self.policy_tf.step(np.asarray(obs)[None], **step_kwargs).flatten()
                    # Add noise to the action (exploration: required for a deterministic actor)
                    if self.action_noise is not None:
                        action = np.clip(action + self.action_noise(), -1, 1)
                    # inferred actions need to be transformed to environment action_space before stepping
                    unscaled_action = unscale_action(self.action_space, action)

                action = np.asarray(action, dtype=np.float32).reshape(self.action_space.shape)

                new_obs, reward, terminated, truncated, info = step_env(self.env, unscaled_action)
                # As the original: the episode end (termination or time limit) is the stored `done`
                done = bool(terminated or truncated)

                self.num_timesteps += 1

                # Only stop training if return value is False, not when it is None. This is for backwards
                # compatibility with callbacks that have no return statement.
                callback.update_locals(locals())
                if callback.on_step() is False:
                    break

                # Store the (unnormalized) transition in the replay buffer, and the episode statistics
                obs_, reward_ = self._store_transition(obs_, action, reward, new_obs, done, info, writer)
                obs = new_obs

                if self.num_timesteps % self.train_freq == 0:
                    callback.on_rollout_end()

                    mb_infos_vals = []
                    # Update policy, critics and target networks
                    for grad_step in range(self.gradient_steps):
                        # Break if the warmup phase is not over
                        # or if there are not enough samples in the replay buffer
                        if not self.replay_buffer.can_sample(self.batch_size) \
                                or self.num_timesteps < self.learning_starts:
                            break
                        n_updates += 1
                        # Compute current learning_rate
                        frac = 1.0 - step / total_timesteps
                        current_lr = self.learning_rate(frac)
                        # Update the critics (q functions), and the delayed part when due
                        mb_infos_vals.append(self._train_step(
                            step, writer, current_lr, (step + grad_step) % delayed_update_interval == 0))
                    # Log losses and entropy, useful for monitor training
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
                        # Retrieve unnormalized observation for saving into the buffer
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

                # substract 1 as we appended a new term just now
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
                    # Reset infos:
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
        Return a trained model.

        :param total_timesteps: (int) The total number of samples to train on
        :param callback: (Union[callable, [callable], BaseCallback])
            function called at every steps with state of the algorithm.
            It takes the local and global variables. If it returns False, training is aborted.
            When the callback inherits from BaseCallback, you will have access
            to additional stages of the training (training start/end),
            please read the documentation for more details.
        :param log_interval: (int) The number of episodes before logging.
        :param tb_log_name: (str) the name of the run for tensorboard log
        :param reset_num_timesteps: (bool) whether or not to reset the current timestep number (used in logging)
        :param replay_wrapper: (ReplayBuffer -> ReplayBuffer) optional function that wraps the replay buffer
            (e.g. HER's HindsightExperienceReplayWrapper) before training starts
        :param progress_bar: (bool) display a progress bar over the timesteps (needs tqdm); give it to
            ``self._init_callback(callback, progress_bar=progress_bar, total_timesteps=total_timesteps)``
        :return: (BaseRLModel) the trained model
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


class _UnvecWrapper(VecEnvWrapper):
    def __init__(self, venv):
        """
        Unvectorize a vectorized environment, for vectorized environment that only have one environment

        :param venv: (VecEnv) the vectorized environment to wrap
        """
        super().__init__(venv)
        if venv.num_envs != 1:
            raise ValueError("Error: cannot unwrap a environment wrapper that has more than one environment "
                             "({} given).".format(venv.num_envs))

    def seed(self, seed=None):
        return self.venv.seed(seed)

    def compute_reward(self, achieved_goal, desired_goal, _info):
        return float(self.venv.env_method("compute_reward", achieved_goal, desired_goal, _info)[0])

    @staticmethod
    def unvec_obs(obs):
        """
        :param obs: (Union[np.ndarray, dict])
        :return: (Union[np.ndarray, dict])
        """
        if not isinstance(obs, dict):
            return obs[0]
        obs_ = OrderedDict()
        for key in obs.keys():
            obs_[key] = obs[key][0]
        del obs
        return obs_

    def reset(self):
        return self.unvec_obs(self.venv.reset())

    def step_async(self, actions):
        self.venv.step_async([actions])

    def step_wait(self):
        obs, rewards, dones, information = self.venv.step_wait()
        return self.unvec_obs(obs), float(rewards[0]), dones[0], information[0]

    def render(self, mode='human'):
        return self.venv.render(mode=mode)


class SetVerbosity:
    def __init__(self, verbose=0):
        """
        define a region of code for certain level of verbosity

        :param verbose: (int) the verbosity level: 0 none, 1 training information, 2 tensorflow debug
        """
        self.verbose = verbose

    def __enter__(self):
        self.tf_level = os.environ.get('TF_CPP_MIN_LOG_LEVEL', None)
        self.log_level = logger.get_level()
        self.gym_level = gymnasium.logger.min_level

        if self.verbose <= 1:
            os.environ['TF_CPP_MIN_LOG_LEVEL'] = '2'

        if self.verbose <= 0:
            logger.set_level(logger.DISABLED)
            gymnasium.logger.min_level = gymnasium.logger.DISABLED if hasattr(gymnasium.logger, "DISABLED") else 50

    def __exit__(self, exc_type, exc_val, exc_tb):
        if self.verbose <= 1:
            if self.tf_level is None:
                os.environ.pop('TF_CPP_MIN_LOG_LEVEL', None)
            else:
                os.environ['TF_CPP_MIN_LOG_LEVEL'] = self.tf_level

        if self.verbose <= 0:
            logger.set_level(self.log_level)
            gymnasium.logger.min_level = self.gym_level


class TensorboardWriter:
    def __init__(self, graph, tensorboard_log_path, tb_log_name, new_tb_log=True):
        """
        Create a Tensorboard writer for a code segment, and saves it to the log directory as its own run

        :param graph: (Tensorflow Graph) the model graph
        :param tensorboard_log_path: (str) the save path for the log (can be None for no logging)
        :param tb_log_name: (str) the name of the run for tensorboard log
        :param new_tb_log: (bool) whether or not to create a new logging folder for tensorbaord
        """
        self.graph = graph
        self.tensorboard_log_path = tensorboard_log_path
        self.tb_log_name = tb_log_name
        self.writer = None
        self.new_tb_log = new_tb_log

    def __enter__(self):
        if self.tensorboard_log_path is not None:
            latest_run_id = self._get_latest_run_id()
            if self.new_tb_log:
                latest_run_id = latest_run_id + 1
            save_path = os.path.join(self.tensorboard_log_path, "{}_{}".format(self.tb_log_name, latest_run_id))
            with self.graph.as_default():
                self.writer = tf.summary.FileWriter(save_path, graph=self.graph)
        return self.writer

    def _get_latest_run_id(self):
        """
        returns the latest run number for the given log name and log path,
        by finding the greatest number in the directories.

        :return: (int) latest run number
        """
        max_run_id = 0
        for path in glob.glob("{}/{}_[0-9]*".format(glob.escape(self.tensorboard_log_path),
                                                     glob.escape(self.tb_log_name))):
            file_name = path.split(os.sep)[-1]
            ext = file_name.split("_")[-1]
            if self.tb_log_name == "_".join(file_name.split("_")[:-1]) and ext.isdigit() and int(ext) > max_run_id:
                max_run_id = int(ext)
        return max_run_id

    def __exit__(self, exc_type, exc_val, exc_tb):
        if self.writer is not None:
            self.writer.add_graph(self.graph)
            self.writer.flush()
