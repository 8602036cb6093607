"""
Hindsight Experience Replay (HER), https://arxiv.org/abs/1707.01495: a method wrapper around an off-policy
model (DQN, SAC, TD3, DDPG) for goal-conditioned environments.
"""
from collections.abc import Mapping
from typing import Any, Optional

import numpy as np

from stable_baselines.common import save_util
from stable_baselines.common.base_class import BaseRLModel, OffPolicyRLModel, _UnvecWrapper, check_spaces_match
from stable_baselines.common.gym_compat import as_gymnasium_env, convert_space, make_env
from stable_baselines.common.persistence import NONE, NUMBER, SIZED_SPACE, SettingKind
from stable_baselines.common.safe_loading.errors import InvalidModelFileError
from stable_baselines.common.vec_env import VecEnv, VecEnvWrapper
from stable_baselines.her.replay_buffer import (GoalSelectionStrategy, HERReplayWrapperFactory,
                                                to_goal_selection_strategy)
from stable_baselines.her.utils import GoalObservationLayout, HERGoalEnvWrapper

# attributes that belong to the wrapped model: HER reads them from it (see __getattr__)
_DELEGATED = ("graph", "sess", "params", "_param_load_ops", "episode_reward", "ep_info_buf", "policy_kwargs",
              "num_timesteps", "n_cpu_tf_sess", "seed", "_vec_normalize_env")
# the entries HER adds to the wrapped model's file
# the entries HER adds to the wrapped model's file, and their kinds
_HER_SETTINGS = {
    "n_sampled_goal": NUMBER,
    "goal_selection_strategy": SettingKind("a goal selection strategy",
                                           lambda value: isinstance(value, (GoalSelectionStrategy, str, int))),
    "model_class": SettingKind("an off-policy model class", lambda value: isinstance(value, type) and
                               issubclass(value, OffPolicyRLModel)),
    "her_obs_space": SIZED_SPACE | NONE,
    "her_action_space": SIZED_SPACE | NONE,
}



class HERVecEnvWrapperError(ValueError, AssertionError):
    """
    HER was given a VecEnvWrapper (VecNormalize, VecFrameStack, ...), which it cannot see through. The original
    library raised an AssertionError here; this is one too (and a ValueError, as our other argument errors).
    """

class HER(BaseRLModel):
    """
    Hindsight Experience Replay (HER) https://arxiv.org/abs/1707.01495

    :param policy: (BasePolicy or str) The policy model to use (MlpPolicy, CnnPolicy, CnnLstmPolicy, ...)
    :param env: (Gym environment or str) The environment to learn from
        (if registered in Gym, can be str). It must be goal-conditioned: a Dict observation space with the keys
        observation, achieved_goal, desired_goal and a method compute_reward(achieved_goal, desired_goal, info)
        (the interface of gym.GoalEnv; a HERGoalEnvWrapper is accepted too)
    :param model_class: (OffPolicyRLModel) The off policy RL model to apply Hindsight Experience Replay
        currently supported: DQN, DDPG, SAC, TD3
    :param n_sampled_goal: (int) the number of artificial transitions per real transition (k in the paper)
    :param goal_selection_strategy: (GoalSelectionStrategy or str) 'future', 'final', 'episode' or 'random'
    :param args: positional arguments of the wrapped model's constructor (after policy and env)
    :param kwargs: keyword arguments of the wrapped model's constructor (verbose, buffer_size, ...)
    """

    def __init__(self, policy, env, model_class, n_sampled_goal=4,
                 goal_selection_strategy='future', *args, **kwargs):
        if not (isinstance(model_class, type) and issubclass(model_class, OffPolicyRLModel)):
            raise ValueError("HER needs an off-policy model class (a subclass of OffPolicyRLModel: DQN, SAC, TD3, "
                             "DDPG) as model_class, got {!r}".format(model_class))
        if isinstance(n_sampled_goal, bool) or not isinstance(n_sampled_goal, (int, np.integer)) or n_sampled_goal < 0:
            raise ValueError("n_sampled_goal must be an int >= 0, got {!r}".format(n_sampled_goal))

        her_env = self._wrap_env(env) if env is not None else None
        super(HER, self).__init__(policy=policy, env=her_env, verbose=kwargs.get('verbose', 0),
                                  policy_base=None, requires_vec_env=False)
        self.model_class = model_class
        self.n_sampled_goal = int(n_sampled_goal)
        self.goal_selection_strategy = to_goal_selection_strategy(goal_selection_strategy)
        self.replay_wrapper = None
        self.env = her_env
        # HER's spaces are the goal-conditioned Dict observation space and the action space of the env
        if her_env is not None:
            self.observation_space = her_env.dict_observation_space
            self.action_space = her_env.action_space
            self._create_replay_wrapper(her_env)
        for name in _DELEGATED:
            self.__dict__.pop(name, None)

        self.model = self.model_class(policy, self.env, *args, **kwargs)

    # ------------------------------------------------------------------------------------------
    # environment
    # ------------------------------------------------------------------------------------------
    @staticmethod
    def _wrap_env(env: Any) -> HERGoalEnvWrapper:
        """
        :param env: (Any) a goal-conditioned env (gymnasium or legacy), an env id, a one-env VecEnv or a
            HERGoalEnvWrapper
        :return: (HERGoalEnvWrapper)
        """
        if isinstance(env, HERGoalEnvWrapper):
            return env
        if isinstance(env, str):
            env = make_env(env)
        elif isinstance(env, VecEnvWrapper):
            raise HERVecEnvWrapperError("HER does not support VecEnvWrapper (got {}): give it the environment itself, "
                                        "or a DummyVecEnv of one".format(type(env).__name__))
        elif isinstance(env, VecEnv):
            if env.num_envs != 1:
                raise ValueError("HER needs a single environment (or a VecEnv with one environment), got a VecEnv "
                                 "with {} environments".format(env.num_envs))
            env = _UnvecWrapper(env)
        else:
            env = as_gymnasium_env(env)
        return HERGoalEnvWrapper(env)

    def _create_replay_wrapper(self, env: HERGoalEnvWrapper) -> None:
        """
        Wrap the environment in a HERGoalEnvWrapper
        if needed and create the replay buffer wrapper.
        """
        if not isinstance(env, HERGoalEnvWrapper):
            env = self._wrap_env(env)
        self.env = env
        # The function that wraps the replay buffer of the model at the start of each learn call
        self.replay_wrapper = HERReplayWrapperFactory(self.n_sampled_goal, self.goal_selection_strategy, env)

    def get_env(self):
        """
        returns the current environment (can be None if not defined)

        :return: (HERGoalEnvWrapper) The current environment (the goal env wrapped in a HERGoalEnvWrapper)
        """
        return self.env

    def set_env(self, env):
        """
        Checks the validity of the environment, and if it is coherent, set it as the current environment.

        :param env: (Gym Environment) The environment for learning a policy
        """
        if env is None:
            if self.env is None:
                self.model.set_env(None)
                return
            raise ValueError("Error: trying to replace the current environment with None")
        self._set_env_checked(env)
        self.model.set_env(self.env)

    def get_vec_normalize_env(self):
        """
        :return: (None) HER's env is never a VecNormalize
        """
        return self.model.get_vec_normalize_env()

    # ------------------------------------------------------------------------------------------
    # the wrapped model
    # ------------------------------------------------------------------------------------------
    def __getattr__(self, attr: str) -> Any:
        """
        Attributes that HER does not define are read from the wrapped model (``sess``, ``graph``,
        ``replay_buffer``, ``num_timesteps``, hyper-parameters, ...).
        """
        if attr.startswith("__") or "model" not in self.__dict__:
            raise AttributeError("'{}' object has no attribute '{}'".format(type(self).__name__, attr))
        return getattr(self.__dict__["model"], attr)

    def setup_model(self):
        """
        Create all the functions and tensorflow graphs necessary to train the model
        (the wrapped model builds its own graph: nothing to do here).
        """
        pass

    def set_random_seed(self, seed: Optional[int]) -> None:
        """
        :param seed: (Optional[int]) Seed for the pseudo-random generators (of the wrapped model and its env).
        """
        self.model.set_random_seed(seed)

    def _get_pretrain_placeholders(self):
        return self.model._get_pretrain_placeholders()  # pylint: disable=protected-access

    def pretrain(self, dataset, n_epochs=10, learning_rate=1e-4, adam_epsilon=1e-8, val_interval=None):
        """
        Pretrain the wrapped model with behavior cloning (the dataset holds flat observations, as
        ``HERGoalEnvWrapper.convert_dict_to_obs`` gives them).

        :param dataset: (ExpertDataset) Dataset manager
        :param n_epochs: (int) Number of iterations on the training set
        :param learning_rate: (float) Learning rate
        :param adam_epsilon: (float) the epsilon value for the adam optimizer
        :param val_interval: (int) Report training and validation losses every n epochs.
        :return: (HER) the pretrained model
        """
        self.model.pretrain(dataset, n_epochs=n_epochs, learning_rate=learning_rate, adam_epsilon=adam_epsilon,
                            val_interval=val_interval)
        return self

    def get_parameter_list(self):
        """
        Get tensorflow Variables of model's parameters

        This includes all variables necessary for continuing training (saving / loading).

        :return: (list) List of tensorflow Variables
        """
        return self.model.get_parameter_list()

    def get_parameters(self):
        """
        Get current model parameters as dictionary of variable name -> ndarray.

        :return: (OrderedDict) Dictionary of variable name -> ndarray of model's parameters.
        """
        return self.model.get_parameters()

    def load_parameters(self, load_path_or_dict, exact_match=True):
        """
        Load model parameters (of the wrapped model) from a file or a dictionary.

        :param load_path_or_dict: (str or file-like or dict) Save parameter location
            or dict of parameters as variable.name -> ndarrays to be loaded.
        :param exact_match: (bool) If True, expects load dictionary to contain keys for
            all variables in the model.
        """
        self.model.load_parameters(load_path_or_dict, exact_match=exact_match)

    def learn(self, total_timesteps, callback=None, log_interval=100, tb_log_name="HER",
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
        :return: (BaseRLModel) the trained model (this HER object)
        """
        if self.env is None or self.replay_wrapper is None:
            raise ValueError("Error: cannot train the model without a valid environment, please set an environment "
                             "with set_env(self, env) method.")
        self.model.learn(total_timesteps, callback=callback, log_interval=log_interval, tb_log_name=tb_log_name,
                         reset_num_timesteps=reset_num_timesteps, replay_wrapper=self.replay_wrapper,
                         progress_bar=progress_bar)
        return self

    # ------------------------------------------------------------------------------------------
    # acting
    # ------------------------------------------------------------------------------------------
    def _check_obs(self, observation: Any) -> Any:
        """
        Flatten a goal-conditioned dict observation (or a dict of batches) for the wrapped model;
        flat observations pass unchanged.
        """
        if isinstance(observation, tuple) and len(observation) == 2 and isinstance(observation[1], dict) \
                and isinstance(observation[0], Mapping):
            raise ValueError("predict() got a (observation, info) tuple, which is what gymnasium's env.reset() "
                             "returns: pass only the observation, e.g. `obs, info = env.reset()`")
        if isinstance(observation, Mapping):
            if isinstance(self.env, HERGoalEnvWrapper):
                return self.env.convert_dict_to_obs(observation)
            if self.observation_space is None:
                raise ValueError("You must either pass an env to HER or wrap your env using HERGoalEnvWrapper")
            return GoalObservationLayout(self.observation_space).convert_dict_to_obs(observation)
        return observation

    def predict(self, observation, state=None, mask=None, deterministic=True):
        """
        Get the model's action from an observation

        :param observation: (dict or np.ndarray) the input observation: the env's dict observation (or a dict of
            batches), or the flat vector of HERGoalEnvWrapper
        :param state: (np.ndarray) The last states (can be None, used in recurrent policies)
        :param mask: (np.ndarray) The last masks (can be None, used in recurrent policies)
        :param deterministic: (bool) Whether or not to return deterministic actions.
        :return: (np.ndarray, np.ndarray) the model's action and the next state (used in recurrent policies)
        """
        return self.model.predict(self._check_obs(observation), state, mask, deterministic)

    def action_probability(self, observation, state=None, mask=None, actions=None, logp=False):
        """
        Get the model's action probability distribution from an observation (see the wrapped model's
        ``action_probability``).

        :param observation: (dict or np.ndarray) the input observation (dict or flat, as for predict)
        :param state: (np.ndarray) The last states (can be None, used in recurrent policies)
        :param mask: (np.ndarray) The last masks (can be None, used in recurrent policies)
        :param actions: (np.ndarray) (OPTIONAL) For calculating the likelihood that the given actions are chosen by
            the model for each of the given parameters. Must have the same number of actions and observations.
            (set to None to return the complete action probability distribution)
        :param logp: (bool) (OPTIONAL) When specified with actions, returns probability in log-space.
            This has no effect if actions is None.
        :return: (np.ndarray) the model's (log) action probability
        """
        return self.model.action_probability(self._check_obs(observation), state, mask, actions, logp)

    # ------------------------------------------------------------------------------------------
    # saving / loading
    # ------------------------------------------------------------------------------------------
    def _her_save_data(self) -> dict:
        return {
            "n_sampled_goal": self.n_sampled_goal,
            "goal_selection_strategy": self.goal_selection_strategy,
            "model_class": self.model_class,
            "her_obs_space": self.observation_space,
            "her_action_space": self.action_space,
        }

    def save(self, save_path, cloudpickle=False):
        """
        Save the current parameters to file: the wrapped model's file, plus HER's settings
        (n_sampled_goal, goal_selection_strategy, model_class, her_obs_space, her_action_space).

        :param save_path: (str or file-like) The save location
        :param cloudpickle: (bool) Use older cloudpickle format instead of zip-archives.
        """
        her_data = self._her_save_data()

        def _save_to_file(save_path_, data=None, params=None, cloudpickle=False):
            data = dict(data) if data is not None else {}
            data.update(her_data)
            BaseRLModel._save_to_file(save_path_, data=data, params=params, cloudpickle=cloudpickle)

        # the wrapped model builds its data and parameters, HER adds its entries
        self.model.__dict__["_save_to_file"] = _save_to_file
        try:
            self.model.save(save_path, cloudpickle=cloudpickle)
        finally:
            self.model.__dict__.pop("_save_to_file", None)

    @classmethod
    def load(cls, load_path, env=None, custom_objects=None, **kwargs):
        """
        Load the model from file

        :param load_path: (str or file-like) the saved parameter location
        :param env: (Gym Environment) the new environment to run the loaded model on
            (can be None if you only need prediction from a trained model)
        :param custom_objects: (dict) Dictionary of objects to replace
            upon loading. If a variable is present in this dictionary as a
            key, it will not be deserialized and the corresponding item
            will be used instead. Similar to custom_objects in
            `keras.models.load_model`. Useful when you have an object in
            file that can not be deserialized.
        :param kwargs: extra arguments to change the model when loading (n_sampled_goal and
            goal_selection_strategy change HER's settings, the others the wrapped model's)
        """
        start = load_path.tell() if hasattr(load_path, "seek") and hasattr(load_path, "tell") else None
        data, _ = save_util.read_model_file(load_path, custom_objects=custom_objects)
        if data is None:
            raise InvalidModelFileError("The file {!r} has no 'data' member: it is not a HER model file".format(
                load_path))
        missing = [key for key in ("model_class", "n_sampled_goal", "goal_selection_strategy") if key not in data]
        if missing:
            raise InvalidModelFileError("The file {!r} is not a HER model file (it has no {} entry); load it with its "
                                        "model class (e.g. DQN.load)".format(load_path, ", ".join(repr(key) for key
                                                                                                in missing)))
        for key, kind in _HER_SETTINGS.items():
            if key in data and not (custom_objects and key in custom_objects) and not kind.test(data[key]):
                raise InvalidModelFileError("Entry {!r} of the HER model file {!r} must be {}, got a {}".format(
                    key, load_path, kind.description, type(data[key]).__name__))
        if "policy_kwargs" in kwargs and kwargs["policy_kwargs"] != data.get("policy_kwargs", {}):
            raise ValueError("The specified policy kwargs do not equal the stored policy kwargs. "
                             "Stored kwargs: {}, specified kwargs: {}".format(data.get("policy_kwargs"),
                                                                              kwargs["policy_kwargs"]))
        model_class = data["model_class"]
        n_sampled_goal = kwargs.pop("n_sampled_goal", data["n_sampled_goal"])
        goal_selection_strategy = kwargs.pop("goal_selection_strategy", data["goal_selection_strategy"])
        if isinstance(goal_selection_strategy, int) and not isinstance(goal_selection_strategy, GoalSelectionStrategy):
            goal_selection_strategy = GoalSelectionStrategy(goal_selection_strategy)

        model = cls(policy=data["policy"], env=None, model_class=model_class, n_sampled_goal=n_sampled_goal,
                    goal_selection_strategy=goal_selection_strategy, _init_setup_model=False)
        model.verbose = kwargs.get("verbose", data.get("verbose", 0))
        model.observation_space = convert_space(data.get("her_obs_space"))
        model.action_space = convert_space(data.get("her_action_space", data.get("action_space")))
        if env is not None:
            model._set_env_checked(env)  # pylint: disable=protected-access
        if start is not None:
            load_path.seek(start)
        # the wrapped model reads its own settings from the same file; HER's entries are checked, not set on it
        model.model = model_class._load_checked(load_path, model.env, custom_objects,  # pylint: disable=protected-access
                                                kwargs, extra_settings=_HER_SETTINGS)
        return model

    def _set_env_checked(self, env: Any) -> None:
        """
        Wrap ``env`` for HER after checking its spaces against the model's (used when loading).

        :param env: (Gym Environment) a goal-conditioned environment
        """
        her_env = self._wrap_env(env)
        if self.observation_space is not None:
            check_spaces_match(self.observation_space, her_env.dict_observation_space, "observation")
        if self.action_space is not None:
            check_spaces_match(self.action_space, convert_space(her_env.action_space), "action")
        self._create_replay_wrapper(her_env)
