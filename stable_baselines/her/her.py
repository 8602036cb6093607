"""
Hindsight Experience Replay (HER), https://arxiv.org/abs/1707.01495, as a wrapper around an off-policy
model (DQN, SAC, TD3 or DDPG) trained on a goal-conditioned environment.

The wrapped model sees the environment through :class:`HERGoalEnvWrapper` (flat observations) and receives,
at each ``learn``, a ``replay_wrapper`` that puts a :class:`HindsightExperienceReplayWrapper` in front of its
replay buffer. Everything else (graph, session, parameters, hyper-parameters) belongs to the wrapped model.
"""
from collections import OrderedDict
from collections.abc import Mapping
from typing import Any, Dict, Optional, Tuple, Union

import numpy as np

from stable_baselines.common import save_util
from stable_baselines.common.base_class import BaseRLModel, OffPolicyRLModel, _UnvecWrapper, check_spaces_match
from stable_baselines.common.gym_compat import as_gymnasium_env, convert_space, make_env
from stable_baselines.common.model.observations import reject_reset_tuple
from stable_baselines.common.storage.persistence import NONE, NUMBER, SIZED_SPACE, SettingKind
from stable_baselines.common.safe_loading.errors import InvalidModelFileError
from stable_baselines.common.vec_env import VecEnv, VecEnvWrapper
from stable_baselines.her.replay_buffer import (GoalSelectionStrategy, HERReplayWrapperFactory,
                                                check_n_sampled_goal, to_goal_selection_strategy)
from stable_baselines.her.utils import KEY_ORDER, GoalObservationLayout, HERGoalEnvWrapper

# what BaseRLModel.__init__ sets but HER leaves to the wrapped model: reading them goes through __getattr__
_MODEL_ATTRIBUTES = ("graph", "sess", "params", "_param_load_ops", "episode_reward", "ep_info_buf",
                     "policy_kwargs", "num_timesteps", "n_cpu_tf_sess", "seed", "_vec_normalize_env",
                     "_file_normalization")

# the entries HER writes into the wrapped model's file, with the kind each must have when read back
_HER_SETTINGS = {
    "n_sampled_goal": NUMBER,
    "goal_selection_strategy": SettingKind("a goal selection strategy",
                                           lambda value: isinstance(value, (GoalSelectionStrategy, str, int))),
    "model_class": SettingKind("an off-policy model class", lambda value: isinstance(value, type) and
                               issubclass(value, OffPolicyRLModel)),
    "her_obs_space": SIZED_SPACE | NONE,
    "her_action_space": SIZED_SPACE | NONE,
}
# the entries without which a file is not HER's
_REQUIRED_SETTINGS = ("model_class", "n_sampled_goal", "goal_selection_strategy")


class HERVecEnvWrapperError(ValueError, AssertionError):
    """
    Raised when HER is given a VecEnvWrapper (VecNormalize, VecFrameStack, ...): it cannot look through one.
    An AssertionError, as in the original library, and a ValueError, as our other argument errors.
    """


def _check_model_class(model_class: Any) -> None:
    """
    :param model_class: (Any) what was given as ``model_class``; a ValueError unless an off-policy model class
    """
    if not (isinstance(model_class, type) and issubclass(model_class, OffPolicyRLModel)):
        raise ValueError("HER needs an off-policy model class (a subclass of OffPolicyRLModel: DQN, SAC, TD3, "
                         "DDPG) as model_class, got {!r}".format(model_class))


def wrap_goal_env(env: Any) -> HERGoalEnvWrapper:
    """
    Put a goal-conditioned environment into the flattening wrapper HER trains through.

    :param env: (Any) a goal env (gymnasium or legacy gym), its registered id, a VecEnv holding one env,
        or a HERGoalEnvWrapper (returned as is)
    :return: (HERGoalEnvWrapper) the wrapped env
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


def _checked_goal_env(env: Any, observation_space: Any, action_space: Any) -> HERGoalEnvWrapper:
    """
    :param env: (Any) a goal-conditioned environment (see :func:`wrap_goal_env`)
    :param observation_space: (gymnasium.spaces.Dict) the model's goal observation space (None: not checked)
    :param action_space: (gymnasium.spaces.Space) the model's action space (None: not checked)
    :return: (HERGoalEnvWrapper) the wrapped env, once its spaces match the model's
    """
    goal_env = wrap_goal_env(env)
    if observation_space is not None:
        check_spaces_match(observation_space, goal_env.dict_observation_space, "observation")
    if action_space is not None:
        check_spaces_match(action_space, convert_space(goal_env.action_space), "action")
    return goal_env


def _attach_goal_env(her: "HER", env: Any) -> None:
    """
    Make ``env`` the current env of ``her``, with the ``replay_wrapper`` passed to the wrapped model's learn for it.

    :param her: (HER) the model
    :param env: (HERGoalEnvWrapper or Any) the goal env (wrapped here when it is not yet)
    """
    her.env = wrap_goal_env(env)
    her.replay_wrapper = HERReplayWrapperFactory(her.n_sampled_goal, her.goal_selection_strategy, her.env)


def _rewrap_restored_episode(her: "HER") -> None:
    """
    Put the unfinished episode of a training state back in front of the wrapped model's replay buffer, in a
    replay wrapper, so that the next ``learn`` stores it first, as the saved model's would have.

    :param her: (HER) the model, its wrapped model just loaded
    """
    episode, her.model.restored_her_episode = her.model.restored_her_episode, None
    if episode and her.replay_wrapper is not None:
        wrapper = her.replay_wrapper(her.model.replay_buffer)
        wrapper.episode_transitions = episode
        her.model.replay_buffer = wrapper


def _check_flat_observation(observation: Any, layout: GoalObservationLayout) -> None:
    """
    :param observation: (Any) a non-dict observation given to predict
    :param layout: (GoalObservationLayout) the layout of the model's goal observations
    """
    try:
        shape = np.shape(observation)
    except ValueError as error:  # nested sequences of different lengths
        raise ValueError("HER expects a goal observation: a dict with the keys {} or its flat vector of length {}, "
                         "or a batch of either; got a ragged nesting of sequences ({})".format(
                             ", ".join(repr(key) for key in KEY_ORDER), layout.total_dim, error)) from None
    if shape[-1:] != (layout.total_dim,) or len(shape) > 2:
        raise ValueError("HER expects a goal observation: a dict with the keys {} or its flat vector of length {} "
                         "(observation {} + achieved_goal {} + desired_goal {}), or a batch of either; got {} of "
                         "shape {}".format(", ".join(repr(key) for key in KEY_ORDER), layout.total_dim,
                                           layout.obs_dim, layout.goal_dim, layout.goal_dim,
                                           type(observation).__name__, shape))


class HER(BaseRLModel):
    """
    Hindsight Experience Replay (HER) https://arxiv.org/abs/1707.01495

    :param policy: (BasePolicy or str) the policy of the wrapped model (MlpPolicy, ...)
    :param env: (Gym environment or str) the goal-conditioned environment, or its registered id: a Dict
        observation space with the keys observation, achieved_goal, desired_goal and a method
        compute_reward(achieved_goal, desired_goal, info), the gym.GoalEnv interface (a HERGoalEnvWrapper too)
    :param model_class: (OffPolicyRLModel) the class of the wrapped model: DQN, DDPG, SAC or TD3
    :param n_sampled_goal: (int) imagined transitions stored per real one (k in the paper)
    :param goal_selection_strategy: (GoalSelectionStrategy or str) 'future', 'final', 'episode' or 'random'
    :param args: further positional arguments of the wrapped model's constructor
    :param kwargs: keyword arguments of the wrapped model's constructor (verbose, buffer_size, ...)
    """

    algorithm_name = "HER"

    def __init__(self, policy: Any, env: Any, model_class: type, n_sampled_goal: int = 4,
                 goal_selection_strategy: Union[str, GoalSelectionStrategy] = 'future', *args: Any,
                 **kwargs: Any) -> None:
        _check_model_class(model_class)
        n_sampled_goal = check_n_sampled_goal(n_sampled_goal)
        strategy = to_goal_selection_strategy(goal_selection_strategy)
        goal_env = None if env is None else wrap_goal_env(env)
        super(HER, self).__init__(policy=policy, env=goal_env, verbose=kwargs.get('verbose', 0),
                                  policy_base=None, requires_vec_env=False)
        self.model_class = model_class
        self.n_sampled_goal = n_sampled_goal
        self.goal_selection_strategy = strategy
        self.replay_wrapper: Optional[HERReplayWrapperFactory] = None
        self.env = goal_env
        if goal_env is not None:
            self._use_env(goal_env)
        for name in _MODEL_ATTRIBUTES:
            self.__dict__.pop(name, None)
        self.model = self.model_class(policy, self.env, *args, **kwargs)
        self.model.wrapped_by(self)

    # environment ----------------------------------------------------------------------------------
    def _use_env(self, goal_env: HERGoalEnvWrapper) -> None:
        """
        Make ``goal_env`` the current env: HER's spaces are its Dict observation space and its action space.

        :param goal_env: (HERGoalEnvWrapper) the wrapped goal env
        """
        self.env = goal_env
        self.observation_space = goal_env.dict_observation_space
        self.action_space = goal_env.action_space
        _attach_goal_env(self, goal_env)

    def get_env(self) -> Optional[HERGoalEnvWrapper]:
        """
        :return: (HERGoalEnvWrapper) the goal env in its flattening wrapper (None when there is none)
        """
        return self.env

    def set_env(self, env: Any) -> None:
        """
        Replace the environment, after checking that its spaces are those the model was built for.

        :param env: (Gym Environment) a goal-conditioned environment
        """
        if env is None:
            if self.env is not None:
                raise ValueError("Error: trying to replace the current environment with None")
            self.model.set_env(None)
            return
        _attach_goal_env(self, _checked_goal_env(env, self.observation_space, self.action_space))
        self.model.set_env(self.env)

    def get_vec_normalize_env(self) -> None:
        """
        :return: (None) what the wrapped model answers: HER never runs behind a VecNormalize
        """
        return self.model.get_vec_normalize_env()

    # the wrapped model ----------------------------------------------------------------------------
    def __getattr__(self, attr: str) -> Any:
        """
        Attributes HER does not have are those of the wrapped model (``sess``, ``graph``, ``replay_buffer``,
        ``num_timesteps``, its hyper-parameters, ...).
        """
        if attr.startswith("__") or "model" not in self.__dict__:
            raise AttributeError("'{}' object has no attribute '{}'".format(type(self).__name__, attr))
        return getattr(self.__dict__["model"], attr)

    def setup_model(self) -> None:
        """
        Nothing to build: the wrapped model creates its own graph.
        """

    def set_random_seed(self, seed: Optional[int]) -> None:
        """
        :param seed: (Optional[int]) seed of the wrapped model's generators and of its env
        """
        self.model.set_random_seed(seed)

    def _get_pretrain_placeholders(self):
        return self.model.get_pretrain_placeholders()

    def pretrain(self, dataset: Any, n_epochs: int = 10, learning_rate: float = 1e-4, adam_epsilon: float = 1e-8,
                 val_interval: Optional[int] = None) -> "HER":
        """
        Behaviour cloning of the wrapped model; the dataset holds flat observations, as produced by
        ``HERGoalEnvWrapper.convert_dict_to_obs``.

        :param dataset: (ExpertDataset) the expert transitions
        :param n_epochs: (int) passes over the training part of the dataset
        :param learning_rate: (float) step size of Adam
        :param adam_epsilon: (float) epsilon of Adam
        :param val_interval: (int) epochs between two reports of the losses
        :return: (HER) this model
        """
        self.model.pretrain(dataset, n_epochs=n_epochs, learning_rate=learning_rate, adam_epsilon=adam_epsilon,
                            val_interval=val_interval)
        return self

    def get_parameter_list(self) -> list:
        """
        :return: (list) the wrapped model's TF variables, all that saving and resuming training need
        """
        return self.model.get_parameter_list()

    def get_parameters(self) -> "OrderedDict[str, np.ndarray]":
        """
        :return: (OrderedDict) the wrapped model's parameter values, by variable name
        """
        return self.model.get_parameters()

    def load_parameters(self, load_path_or_dict: Any, exact_match: bool = True) -> None:
        """
        Set the wrapped model's parameters.

        :param load_path_or_dict: (str or file-like or dict) a model file, or values by variable name
        :param exact_match: (bool) demand a value for every variable of the model
        """
        self.model.load_parameters(load_path_or_dict, exact_match=exact_match)

    def learn(self, total_timesteps: int, callback: Any = None, log_interval: Optional[int] = 100,
              tb_log_name: str = "HER", reset_num_timesteps: bool = True, progress_bar: bool = False) -> "HER":
        """
        Train the wrapped model, its replay buffer behind HER's relabelling.

        :param total_timesteps: (int) environment steps to take
        :param callback: (Union[callable, [callable], BaseCallback]) called at each step with the locals and
            globals of the training loop (False stops it); a BaseCallback also sees start and end of training
        :param log_interval: (int) episodes between two logger tables
        :param tb_log_name: (str) name of the tensorboard run
        :param reset_num_timesteps: (bool) count timesteps from 0 again (False: go on counting)
        :param progress_bar: (bool) draw a progress bar over the timesteps (needs tqdm)
        :return: (BaseRLModel) this HER model
        """
        if self.env is None or self.replay_wrapper is None:
            raise ValueError("Error: cannot train the model without a valid environment, please set an environment "
                             "with set_env(self, env) method.")
        self.model.learn(total_timesteps, callback=callback, log_interval=log_interval, tb_log_name=tb_log_name,
                         reset_num_timesteps=reset_num_timesteps, replay_wrapper=self.replay_wrapper,
                         progress_bar=progress_bar)
        return self

    # acting ---------------------------------------------------------------------------------------
    def _goal_layout(self) -> Optional[GoalObservationLayout]:
        """
        :return: (GoalObservationLayout) how goal observations are flattened (None without env nor spaces)
        """
        if isinstance(self.env, HERGoalEnvWrapper):
            return self.env.layout
        if self.observation_space is None:
            return None
        return GoalObservationLayout(self.observation_space)

    def _check_obs(self, observation: Any) -> Any:
        """
        :param observation: (dict or np.ndarray) a goal observation (or a batch), as a dict or already flat
        :return: (np.ndarray) the flat observation(s) the wrapped model acts on
        """
        reject_reset_tuple(observation)
        layout = self._goal_layout()
        if isinstance(observation, Mapping):
            if layout is None:
                raise ValueError("You must either pass an env to HER or wrap your env using HERGoalEnvWrapper")
            return layout.convert_dict_to_obs(observation)
        if layout is not None:
            _check_flat_observation(observation, layout)
        return observation

    def predict(self, observation: Any, state: Any = None, mask: Any = None,
                deterministic: bool = True) -> Tuple[Any, Optional[np.ndarray]]:
        """
        The wrapped model's action for a goal observation.

        :param observation: (dict or np.ndarray) the env's dict observation (or a dict of batches), or the flat
            vector of HERGoalEnvWrapper (or a batch of them)
        :param state: (np.ndarray) recurrent state (None: HER's models are not recurrent)
        :param mask: (np.ndarray) episode-start mask of recurrent policies (None here)
        :param deterministic: (bool) the most likely action rather than a sampled one
        :return: (np.ndarray, np.ndarray) the action(s), and the next recurrent state (None)
        """
        return self.model.predict(self._check_obs(observation), state, mask, deterministic)

    def action_probability(self, observation: Any, state: Any = None, mask: Any = None, actions: Any = None,
                           logp: bool = False) -> Optional[np.ndarray]:
        """
        The wrapped model's action distribution (or likelihood of ``actions``) for a goal observation.

        :param observation: (dict or np.ndarray) a goal observation, dict or flat, as for predict
        :param state: (np.ndarray) recurrent state (None here)
        :param mask: (np.ndarray) episode-start mask of recurrent policies (None here)
        :param actions: (np.ndarray) actions whose probability is wanted, one per observation (None: the whole
            distribution)
        :param logp: (bool) with actions: return log-probabilities
        :return: (np.ndarray) the (log) probabilities
        """
        return self.model.action_probability(self._check_obs(observation), state, mask, actions, logp)

    # saving and loading ---------------------------------------------------------------------------
    def _her_save_data(self) -> Dict[str, Any]:
        """
        :return: (dict) HER's entries of the model file, added to the wrapped model's own
        """
        return {
            "n_sampled_goal": self.n_sampled_goal,
            "goal_selection_strategy": self.goal_selection_strategy,
            "model_class": self.model_class,
            "her_obs_space": self.observation_space,
            "her_action_space": self.action_space,
        }

    def save(self, save_path: Any, cloudpickle: bool = False, include_training_state: bool = False) -> None:
        """
        Write the wrapped model's file, with HER's settings added to its ``data`` (n_sampled_goal,
        goal_selection_strategy, model_class, her_obs_space, her_action_space).

        :param save_path: (str or file-like) where to write
        :param cloudpickle: (bool) the older cloudpickle format instead of the zip archive
        :param include_training_state: (bool) also store the wrapped model's training state (see
            :meth:`BaseRLModel.save`)
        """
        with self.model.saving_with(self._her_save_data()):
            self.model.save(save_path, cloudpickle=cloudpickle, include_training_state=include_training_state)

    @staticmethod
    def _check_her_data(data: Optional[dict], load_path: Any, custom_objects: Optional[dict]) -> dict:
        """
        :param data: (dict) the ``data`` read from a model file
        :param load_path: (str or file-like) the file, for the messages
        :param custom_objects: (dict) entries replaced by the caller, not checked
        :return: (dict) ``data``, once it is known to hold valid HER settings (InvalidModelFileError otherwise)
        """
        if data is None:
            raise InvalidModelFileError("The file {!r} has no 'data' member: it is not a HER model file"
                                        .format(load_path))
        missing = [repr(key) for key in _REQUIRED_SETTINGS if key not in data]
        if missing:
            raise InvalidModelFileError("The file {!r} is not a HER model file (it has no {} entry); load it with its "
                                        "model class (e.g. DQN.load)".format(load_path, ", ".join(missing)))
        for key, kind in _HER_SETTINGS.items():
            replaced = custom_objects is not None and key in custom_objects
            if key in data and not replaced and not kind.test(data[key]):
                raise InvalidModelFileError("Entry {!r} of the HER model file {!r} must be {}, got a {}".format(
                    key, load_path, kind.description, type(data[key]).__name__))
        return data

    @classmethod
    def load(cls, load_path: Any, env: Any = None, custom_objects: Optional[Dict[str, Any]] = None,
             **kwargs: Any) -> "HER":
        """
        Rebuild a HER model from a file written by :meth:`save`.

        :param load_path: (str or file-like) the model file
        :param env: (Gym Environment) the goal env to go on with (None: prediction only)
        :param custom_objects: (dict) entries of the file to replace by these objects instead of reading them,
            as ``custom_objects`` of ``keras.models.load_model``
        :param kwargs: settings to change: n_sampled_goal and goal_selection_strategy are HER's, the others go
            to the wrapped model
        :return: (HER) the model
        """
        start = load_path.tell() if hasattr(load_path, "seek") and hasattr(load_path, "tell") else None
        data, _ = save_util.read_model_file(load_path, custom_objects=custom_objects)
        data = cls._check_her_data(data, load_path, custom_objects)
        if "policy_kwargs" in kwargs and kwargs["policy_kwargs"] != data.get("policy_kwargs", {}):
            raise ValueError("The specified policy kwargs do not equal the stored policy kwargs. "
                             "Stored kwargs: {}, specified kwargs: {}".format(data.get("policy_kwargs"),
                                                                              kwargs["policy_kwargs"]))
        strategy = kwargs.pop("goal_selection_strategy", data["goal_selection_strategy"])
        if isinstance(strategy, int) and not isinstance(strategy, GoalSelectionStrategy):
            strategy = GoalSelectionStrategy(strategy)
        model = cls(policy=data["policy"], env=None, model_class=data["model_class"],
                    n_sampled_goal=kwargs.pop("n_sampled_goal", data["n_sampled_goal"]),
                    goal_selection_strategy=strategy, _init_setup_model=False)
        model.verbose = kwargs.get("verbose", data.get("verbose", 0))
        model.observation_space = convert_space(data.get("her_obs_space"))
        model.action_space = convert_space(data.get("her_action_space", data.get("action_space")))
        if env is not None:
            _attach_goal_env(model, _checked_goal_env(env, model.observation_space, model.action_space))
        if start is not None:
            load_path.seek(start)
        # the wrapped model reads its own settings from the same file; HER's entries are only checked there
        model.model = data["model_class"].load_with_extra_settings(load_path, model.env, custom_objects, kwargs,
                                                                   _HER_SETTINGS)
        model.model.wrapped_by(model)
        _rewrap_restored_episode(model)
        return model

    def export(self, path: str, format: str = "savedmodel",  # pylint: disable=redefined-builtin
               batch_size: Optional[int] = None) -> None:
        """
        The wrapped model's export (see :meth:`BaseRLModel.export`): the function takes the flat goal observation
        (observation, achieved goal and desired goal concatenated, as HERGoalEnvWrapper gives it); "sb3" writes
        the successor's model with its HER replay buffer.
        """
        if format == "sb3":
            super().export(path, format, batch_size)
        else:
            self.model.export(path, format, batch_size)

