"""
Callbacks: sets of functions called at given stages of the training procedure
(``learn(..., callback=...)``) to monitor, save, evaluate or stop the training.

Events, in the order a model triggers them::

    init_callback(model)            when learn() starts
    on_training_start(locals, globals)
        on_rollout_start()          before collecting new samples
            update_locals(locals); on_step() -> bool    after each env.step(); False stops training
        on_rollout_end()            before updating the policy
    on_training_end()               before learn() returns
"""
import os
import warnings
from abc import ABC, abstractmethod
from typing import TYPE_CHECKING, Any, Callable, Dict, List, Optional

import numpy as np

from stable_baselines import logger
from stable_baselines.common.evaluation import evaluate_policy

if TYPE_CHECKING:
    from stable_baselines.common.base_class import BaseRLModel  # noqa: F401


class BaseCallback(ABC):
    """
    Base class for callback.

    Attributes available in the hooks: ``model`` (the RL model), ``training_env``
    (``model.get_env()``), ``n_calls`` (number of calls of ``on_step``), ``num_timesteps``
    (the model's ``num_timesteps`` at the last ``on_step``), ``locals`` / ``globals`` (the
    variables of the training loop), ``logger`` (the :mod:`stable_baselines.logger` module) and
    ``parent`` (the event callback this callback is the child of, if any).

    :param verbose: (int)
    """

    def __init__(self, verbose: int = 0):
        super(BaseCallback, self).__init__()
        # The RL model
        self.model = None  # type: Optional[BaseRLModel]
        # An alias for self.model.get_env(), the environment used for training
        self.training_env = None  # type: Union[gym.Env, VecEnv, None]
        # Number of time the callback was called
        self.n_calls = 0  # type: int
        # n_envs * n times env.step() was called
        self.num_timesteps = 0  # type: int
        self.verbose = verbose
        self.locals = None  # type: Optional[Dict[str, Any]]
        self.globals = None  # type: Optional[Dict[str, Any]]
        self.logger = None
        # Sometimes, for event callback, it is useful
        # to have access to the parent object
        self.parent = None  # type: Optional[BaseCallback]

    # Type hint as string to avoid circular import
    def init_callback(self, model: "BaseRLModel") -> None:
        """
        Initialize the callback by saving references to the
        RL model and the training environment for convenience.

        :param model: (BaseRLModel)
        """
        self.model = model
        self.training_env = model.get_env()
        self.logger = logger
        self._init_callback()

    def _init_callback(self) -> None:
        pass

    def on_training_start(self, locals_: Dict[str, Any], globals_: Dict[str, Any]) -> None:
        """
        Called before the first rollout starts.

        :param locals_: (Dict[str, Any]) the local variables of the training process
        :param globals_: (Dict[str, Any]) the global variables of the training process
        """
        # Those are reference and will be updated automatically
        self.locals = locals_
        self.globals = globals_
        self._on_training_start()

    def _on_training_start(self) -> None:
        pass

    def on_rollout_start(self) -> None:
        """
        Called before collecting new samples (a rollout).
        """
        self._on_rollout_start()

    def _on_rollout_start(self) -> None:
        pass

    @abstractmethod
    def _on_step(self) -> bool:
        """
        :return: (bool) If the callback returns False, training is aborted early.
        """
        return True

    def on_step(self) -> bool:
        """
        This method will be called by the model after each call to `env.step()`.

        For child callback (of an `EventCallback`), this will be called
        when the event is triggered.

        :return: (bool) If the callback returns False, training is aborted early.
        """
        self.n_calls += 1
        self.num_timesteps = self.model.num_timesteps

        return self._on_step()

    def on_training_end(self) -> None:
        """
        Called before exiting the `learn()` method.
        """
        self._on_training_end()

    def _on_training_end(self) -> None:
        pass

    def on_rollout_end(self) -> None:
        """
        Called before updating the policy.
        """
        self._on_rollout_end()

    def _on_rollout_end(self) -> None:
        pass

    def update_locals(self, locals_: Dict[str, Any]) -> None:
        """
        Updates the local variables of the training process

        For reference to which variables are accessible,
        check each individual algorithm's documentation

        :param locals_: (Dict[str, Any]) current local variables
        """
        if self.locals is None:
            self.locals = {}
        self.locals.update(locals_)
        self.update_child_locals(locals_)

    def update_child_locals(self, locals_: Dict[str, Any]) -> None:
        """
        Update the references to the local variables on sub callbacks.

        :param locals_: (Dict[str, Any]) the local variables during rollout collection
        """
        pass


class EventCallback(BaseCallback):
    """
    Base class for triggering callback on event.

    :param callback: (Optional[BaseCallback]) Callback that will be called
        when an event is triggered.
    :param verbose: (int)
    """

    def __init__(self, callback: Optional[BaseCallback] = None, verbose: int = 0):
        super(EventCallback, self).__init__(verbose=verbose)
        if callback is not None and not isinstance(callback, BaseCallback):
            raise TypeError("Expected the child callback to be a BaseCallback (or None), got {!r}".format(callback))
        self.callback = callback
        # Give access to the parent
        if callback is not None:
            self.callback.parent = self

    def init_callback(self, model: "BaseRLModel") -> None:
        super(EventCallback, self).init_callback(model)
        if self.callback is not None:
            self.callback.init_callback(self.model)

    def _on_training_start(self) -> None:
        if self.callback is not None:
            self.callback.on_training_start(self.locals, self.globals)

    def _on_event(self) -> bool:
        if self.callback is not None:
            return self.callback.on_step()
        return True

    def _on_step(self) -> bool:
        return True

    def update_child_locals(self, locals_: Dict[str, Any]) -> None:
        if self.callback is not None:
            self.callback.update_locals(locals_)


class CallbackList(BaseCallback):
    """
    Class for chaining callbacks.

    :param callbacks: (List[BaseCallback]) A list of callbacks that will be called
        sequentially.
    """

    def __init__(self, callbacks: List[BaseCallback]):
        super(CallbackList, self).__init__()
        if not isinstance(callbacks, (list, tuple)):
            raise TypeError("CallbackList expects a list of callbacks, got {!r}".format(callbacks))
        for callback in callbacks:
            if not isinstance(callback, BaseCallback):
                raise TypeError("CallbackList expects BaseCallback objects, got {!r} of type {}"
                                .format(callback, type(callback).__name__))
        self.callbacks = list(callbacks)

    def _init_callback(self) -> None:
        for callback in self.callbacks:
            callback.init_callback(self.model)

    def _on_training_start(self) -> None:
        for callback in self.callbacks:
            callback.on_training_start(self.locals, self.globals)

    def _on_rollout_start(self) -> None:
        for callback in self.callbacks:
            callback.on_rollout_start()

    def _on_step(self) -> bool:
        continue_training = True
        for callback in self.callbacks:
            # Return False (stop training) if at least one callback returns False;
            # every callback is still called
            continue_training = bool(callback.on_step()) and continue_training
        return continue_training

    def _on_rollout_end(self) -> None:
        for callback in self.callbacks:
            callback.on_rollout_end()

    def _on_training_end(self) -> None:
        for callback in self.callbacks:
            callback.on_training_end()

    def update_child_locals(self, locals_: Dict[str, Any]) -> None:
        for callback in self.callbacks:
            callback.update_locals(locals_)


class CheckpointCallback(BaseCallback):
    """
    Callback for saving a model every `save_freq` steps

    The files are ``<save_path>/<name_prefix>_<num_timesteps>_steps.zip``.

    :param save_freq: (int)
    :param save_path: (str) Path to the folder where the model will be saved.
    :param name_prefix: (str) Common prefix to the saved models
    :param verbose: (int)
    """

    def __init__(self, save_freq: int, save_path: str, name_prefix: str = 'rl_model', verbose: int = 0):
        super(CheckpointCallback, self).__init__(verbose)
        if int(save_freq) != save_freq or save_freq < 1:
            raise ValueError("save_freq must be a positive integer, got {!r}".format(save_freq))
        if save_path is None:
            raise ValueError("CheckpointCallback needs a save_path (the folder of the checkpoints), got None")
        self.save_freq = int(save_freq)
        self.save_path = save_path
        self.name_prefix = name_prefix

    def _init_callback(self) -> None:
        # Create folder if needed
        if self.save_path is not None:
            os.makedirs(self.save_path, exist_ok=True)

    def _on_step(self) -> bool:
        if self.n_calls % self.save_freq == 0:
            path = os.path.join(self.save_path, '{}_{}_steps'.format(self.name_prefix, self.num_timesteps))
            self.model.save(path)
            if self.verbose > 1:
                print("Saving model checkpoint to {}".format(path))
        return True


class ConvertCallback(BaseCallback):
    """
    Convert functional callback (old-style) to object.

    The function is called as ``callback(locals_, globals_)`` at each step; returning False stops
    the training (None, i.e. no return value, lets it continue).

    :param callback: (Callable)
    :param verbose: (int)
    """

    def __init__(self, callback: Optional[Callable[[Dict[str, Any], Dict[str, Any]], Optional[bool]]],
                 verbose: int = 0):
        super(ConvertCallback, self).__init__(verbose)
        if callback is not None and not callable(callback):
            raise TypeError("ConvertCallback expects a function callback(locals_, globals_) -> bool, got {!r}"
                            .format(callback))
        self.callback = callback

    def _on_step(self) -> bool:
        if self.callback is not None:
            result = self.callback(self.locals, self.globals)
            return True if result is None else bool(result)
        return True


class EvalCallback(EventCallback):
    """
    Callback for evaluating an agent.

    :param eval_env: (Union[gym.Env, VecEnv]) The environment used for initialization
    :param callback_on_new_best: (Optional[BaseCallback]) Callback to trigger
        when there is a new best model according to the `mean_reward`
    :param n_eval_episodes: (int) The number of episodes to test the agent
    :param eval_freq: (int) Evaluate the agent every eval_freq call of the callback.
    :param log_path: (str) Path to a folder where the evaluations (`evaluations.npz`)
        will be saved. It will be updated at each evaluation.
    :param best_model_save_path: (str) Path to a folder where the best model
        according to performance on the eval env will be saved.
    :param deterministic: (bool) Whether the evaluation should
        use a stochastic or deterministic actions.
    :param render: (bool) Whether to render or not the environment during evaluation
    :param verbose: (int)
    """

    def __init__(self, eval_env: Any,
                 callback_on_new_best: Optional[BaseCallback] = None,
                 n_eval_episodes: int = 5,
                 eval_freq: int = 10000,
                 log_path: Optional[str] = None,
                 best_model_save_path: Optional[str] = None,
                 deterministic: bool = True,
                 render: bool = False,
                 verbose: int = 1):
        super(EvalCallback, self).__init__(callback_on_new_best, verbose=verbose)
        from stable_baselines.common.vec_env import DummyVecEnv, VecEnv

        self.n_eval_episodes = n_eval_episodes
        self.eval_freq = eval_freq
        self.best_mean_reward = -np.inf
        self.last_mean_reward = -np.inf
        self.deterministic = deterministic
        self.render = render

        # Convert to VecEnv for consistency
        if not isinstance(eval_env, VecEnv):
            eval_env = DummyVecEnv([_ReturnEnv(eval_env)])

        if eval_env.num_envs != 1:
            raise ValueError("EvalCallback needs an evaluation environment with exactly one environment, got a {} "
                             "with num_envs={}".format(type(eval_env).__name__, eval_env.num_envs))

        self.eval_env = eval_env
        self.best_model_save_path = best_model_save_path
        # Logs will be written in `evaluations.npz`
        if log_path is not None:
            log_path = os.path.join(log_path, 'evaluations')
        self.log_path = log_path
        self.evaluations_results = []  # type: List[List[float]]
        self.evaluations_timesteps = []  # type: List[int]
        self.evaluations_length = []  # type: List[List[int]]

    def _init_callback(self) -> None:
        # Does not work in some corner cases, where the wrapper is not the same
        if not isinstance(self.training_env, type(self.eval_env)):
            warnings.warn("Training and eval env are not of the same type "
                          "{} != {}".format(self.training_env, self.eval_env))

        # Create folders if needed
        if self.best_model_save_path is not None:
            os.makedirs(self.best_model_save_path, exist_ok=True)
        if self.log_path is not None:
            os.makedirs(os.path.dirname(self.log_path), exist_ok=True)

    def _on_step(self) -> bool:

        if self.eval_freq > 0 and self.n_calls % self.eval_freq == 0:
            from stable_baselines.common.vec_env import sync_envs_normalization

            # Sync training and eval env if there is VecNormalize
            if self.training_env is not None:
                sync_envs_normalization(self.training_env, self.eval_env)

            episode_rewards, episode_lengths = evaluate_policy(self.model, self.eval_env,
                                                               n_eval_episodes=self.n_eval_episodes,
                                                               render=self.render,
                                                               deterministic=self.deterministic,
                                                               return_episode_rewards=True)

            if self.log_path is not None:
                self.evaluations_timesteps.append(self.num_timesteps)
                self.evaluations_results.append(episode_rewards)
                self.evaluations_length.append(episode_lengths)
                np.savez(self.log_path, timesteps=self.evaluations_timesteps,
                         results=self.evaluations_results, ep_lengths=self.evaluations_length)

            mean_reward, std_reward = np.mean(episode_rewards), np.std(episode_rewards)
            mean_ep_length, std_ep_length = np.mean(episode_lengths), np.std(episode_lengths)
            # Keep track of the last evaluation, useful for classes that derive from this callback
            self.last_mean_reward = mean_reward

            if self.verbose > 0:
                print("Eval num_timesteps={}, "
                      "episode_reward={:.2f} +/- {:.2f}".format(self.num_timesteps, mean_reward, std_reward))
                print("Episode length: {:.2f} +/- {:.2f}".format(mean_ep_length, std_ep_length))

            if mean_reward > self.best_mean_reward:
                if self.verbose > 0:
                    print("New best mean reward!")
                if self.best_model_save_path is not None:
                    self.model.save(os.path.join(self.best_model_save_path, 'best_model'))
                self.best_mean_reward = mean_reward
                # Trigger callback if needed
                if self.callback is not None:
                    return self._on_event()

        return True


class _ReturnEnv(object):
    """
    An env factory returning an already created environment (for wrapping it in a DummyVecEnv);
    unlike a lambda it can be pickled.

    :param env: (gym.Env) the environment
    """

    def __init__(self, env: Any):
        self.env = env

    def __call__(self) -> Any:
        return self.env


class StopTrainingOnRewardThreshold(BaseCallback):
    """
    Stop the training once a threshold in episodic reward
    has been reached (i.e. when the model is good enough).

    It must be used with the `EvalCallback`.

    :param reward_threshold: (float)  Minimum expected reward per episode
        to stop training.
    :param verbose: (int)
    """

    def __init__(self, reward_threshold: float, verbose: int = 0):
        super(StopTrainingOnRewardThreshold, self).__init__(verbose=verbose)
        self.reward_threshold = reward_threshold

    def _on_step(self) -> bool:
        if self.parent is None or not hasattr(self.parent, "best_mean_reward"):
            raise ValueError("`StopTrainingOnRewardThreshold` callback must be used "
                             "with an `EvalCallback` (as its callback_on_new_best), got parent {!r}"
                             .format(self.parent))
        # Convert np.bool_ to bool, otherwise callback() is False won't work
        continue_training = bool(self.parent.best_mean_reward < self.reward_threshold)
        if self.verbose > 0 and not continue_training:
            print("Stopping training because the mean reward {:.2f} "
                  " is above the threshold {}".format(self.parent.best_mean_reward, self.reward_threshold))
        return continue_training


class EveryNTimesteps(EventCallback):
    """
    Trigger a callback every `n_steps` timesteps

    :param n_steps: (int) Number of timesteps between two trigger.
    :param callback: (BaseCallback) Callback that will be called
        when the event is triggered.
    """

    def __init__(self, n_steps: int, callback: BaseCallback):
        super(EveryNTimesteps, self).__init__(callback)
        if n_steps <= 0:
            raise ValueError("EveryNTimesteps needs n_steps > 0, got {!r}".format(n_steps))
        self.n_steps = n_steps
        self.last_time_trigger = 0

    def _on_step(self) -> bool:
        if (self.num_timesteps - self.last_time_trigger) >= self.n_steps:
            self.last_time_trigger = self.num_timesteps
            return self._on_event()
        return True


class ProgressBarCallback(BaseCallback):
    """
    Display a tqdm progress bar over the timesteps of a ``learn`` call
    (what ``learn(..., progress_bar=True)`` adds; an addition to the original library).

    The bar counts the timesteps done since the training started, so it also works when
    ``reset_num_timesteps=False`` and for algorithms that update ``num_timesteps`` once per rollout.

    :param total_timesteps: (int) the number of timesteps of the ``learn`` call (None: unknown length)
    :param verbose: (int)
    """

    def __init__(self, total_timesteps: Optional[int] = None, verbose: int = 0):
        super(ProgressBarCallback, self).__init__(verbose)
        try:
            import tqdm  # noqa: F401  pylint: disable=unused-import,import-outside-toplevel
        except ImportError as err:
            raise ImportError("The progress bar needs the tqdm package: pip install tqdm") from err
        self.total_timesteps = None if total_timesteps is None else int(total_timesteps)
        self.pbar = None
        self._start_timesteps = 0
        self._shown = 0

    def _on_training_start(self) -> None:
        from tqdm.auto import tqdm
        self._start_timesteps = int(self.model.num_timesteps)
        self._shown = 0
        self.pbar = tqdm(total=self.total_timesteps, unit="steps", dynamic_ncols=True)

    def _refresh(self) -> None:
        if self.pbar is None:
            return
        done = int(self.model.num_timesteps) - self._start_timesteps
        if self.total_timesteps is not None:
            done = min(done, self.total_timesteps)
        if done > self._shown:
            self.pbar.update(done - self._shown)
            self._shown = done

    def _on_step(self) -> bool:
        self._refresh()
        return True

    def _on_rollout_end(self) -> None:
        self._refresh()

    def _on_training_end(self) -> None:
        self._refresh()
        if self.pbar is not None:
            self.pbar.close()
            self.pbar = None


__all__ = ["BaseCallback", "EventCallback", "CallbackList", "CheckpointCallback", "ConvertCallback",
           "EvalCallback", "StopTrainingOnRewardThreshold", "EveryNTimesteps", "ProgressBarCallback"]
