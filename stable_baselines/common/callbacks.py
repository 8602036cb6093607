"""
Callbacks: objects whose methods a model calls at fixed points of ``learn(..., callback=...)``, to
watch, save, evaluate or stop the training.

A model triggers the events in this order::

    init_callback(model)            learn() begins
    on_training_start(locals, globals)
        on_rollout_start()          a new batch of experience is about to be collected
            update_locals(locals); on_step() -> bool    after every env.step(); False ends the training
        on_rollout_end()            the batch is complete, the policy is about to be updated
    on_training_end()               learn() is about to return

The model is seen through :class:`~stable_baselines.common.type_aliases.TrainedModel`, so this
module does not depend on the model classes.
"""
import contextlib
import os
import warnings
from abc import ABC, abstractmethod
from typing import Any, Callable, Dict, List, Optional, Tuple

import numpy as np

from stable_baselines import logger
from stable_baselines.common.evaluation import evaluate_policy
from stable_baselines.common.type_aliases import TrainedModel
from stable_baselines.common.vec_env import DummyVecEnv, VecEnv, sync_envs_normalization, vec_wrapper_types
from stable_baselines.common.vec_env.unvec_wrapper import user_vec_env
from stable_baselines.logging_parts.formats import TerminalGuard, set_terminal_guard

# the old functional callback: callback(locals_, globals_) -> bool or None
FunctionCallback = Callable[[Dict[str, Any], Dict[str, Any]], Optional[bool]]


class BaseCallback(ABC):
    """
    Base class of the callbacks. Subclasses override ``_on_step`` (and, as needed, ``_init_callback``,
    ``_on_training_start``, ``_on_rollout_start``, ``_on_rollout_end``, ``_on_training_end``).

    In those methods, ``self.model`` is the model being trained, ``self.training_env`` its environment,
    ``self.n_calls`` how many times ``on_step`` was called, ``self.num_timesteps`` the model's
    ``num_timesteps`` at that call, ``self.locals`` / ``self.globals`` the variables of the training
    loop, ``self.logger`` the :mod:`stable_baselines.logger` module and ``self.parent`` the event
    callback that owns this one, if any.

    :param verbose: (int) 0 prints nothing, 1 (or more) prints what the callback does
    """

    def __init__(self, verbose: int = 0) -> None:
        super().__init__()
        self.model: Optional[TrainedModel] = None
        self.training_env: Any = None  # the model's VecEnv (model.get_env())
        self.n_calls: int = 0
        self.num_timesteps: int = 0
        self.verbose = verbose
        # references to the training loop's namespaces, kept up to date by the model
        self.locals: Optional[Dict[str, Any]] = None
        self.globals: Optional[Dict[str, Any]] = None
        self.logger: Any = None  # the stable_baselines.logger module once initialised
        self.parent: Optional[BaseCallback] = None

    def init_callback(self, model: TrainedModel) -> None:
        """
        Attach the callback to the model that is about to train.

        :param model: (BaseRLModel) the model
        """
        self.model = model
        self.training_env = model.get_env()
        self.logger = logger
        self._init_callback()

    def _init_callback(self) -> None:
        pass

    def _attached_model(self) -> TrainedModel:
        """:return: (BaseRLModel) the model given to ``init_callback`` (AttributeError before)"""
        if self.model is None:
            raise AttributeError("{} is not attached to a model: learn() calls init_callback(model) first"
                                 .format(type(self).__name__))
        return self.model

    def _loop_namespaces(self) -> Tuple[Dict[str, Any], Dict[str, Any]]:
        """:return: (Dict[str, Any], Dict[str, Any]) the training loop's locals and globals (RuntimeError before
            ``on_training_start``)"""
        if self.locals is None or self.globals is None:
            raise RuntimeError("{} has no training loop variables: learn() calls on_training_start(locals, "
                               "globals) first".format(type(self).__name__))
        return self.locals, self.globals

    def on_training_start(self, locals_: Dict[str, Any], globals_: Dict[str, Any]) -> None:
        """
        Called once, before the first rollout.

        :param locals_: (Dict[str, Any]) the local variables of the training loop
        :param globals_: (Dict[str, Any]) the global variables of the training loop
        """
        # the dictionaries themselves are kept: the model updates them in place
        self.locals = locals_
        self.globals = globals_
        self._on_training_start()

    def _on_training_start(self) -> None:
        pass

    def on_rollout_start(self) -> None:
        """
        Called before the model collects a new rollout.
        """
        self._on_rollout_start()

    def _on_rollout_start(self) -> None:
        pass

    @abstractmethod
    def _on_step(self) -> bool:
        """
        :return: (bool) False ends the training
        """
        return True

    def on_step(self) -> bool:
        """
        Called by the model after every ``env.step()``; for the child of an :class:`EventCallback`,
        called when the event happens.

        :return: (bool) False ends the training
        """
        self.n_calls += 1
        self.num_timesteps = self._attached_model().num_timesteps
        return self._on_step()

    def on_training_end(self) -> None:
        """
        Called once, just before ``learn()`` returns.
        """
        self._on_training_end()

    def _on_training_end(self) -> None:
        pass

    def on_rollout_end(self) -> None:
        """
        Called after a rollout, before the policy is updated with it.
        """
        self._on_rollout_end()

    def _on_rollout_end(self) -> None:
        pass

    @property
    def reads_locals(self) -> bool:
        """
        (bool) whether this callback, or one it calls, may read the training loop's variables (``self.locals``);
        when none does, the loops skip gathering them at every step. True unless a class knows better.
        """
        return True

    def update_locals(self, locals_: Dict[str, Any]) -> None:
        """
        Merge fresh values of the training loop's variables into ``self.locals`` (and into those of
        the child callbacks). Which names exist depends on the algorithm.

        :param locals_: (Dict[str, Any]) the current values
        """
        if self.locals is None:
            self.locals = {}
        self.locals.update(locals_)
        self.update_child_locals(locals_)

    def update_child_locals(self, locals_: Dict[str, Any]) -> None:
        """
        Pass fresh values of the training loop's variables on to the child callbacks (none here).

        :param locals_: (Dict[str, Any]) the current values
        """
        pass


class EventCallback(BaseCallback):
    """
    A callback that calls another one (its child) when some event happens; subclasses decide when,
    and call ``self._on_event()`` then.

    :param callback: (Optional[BaseCallback]) the child, called at each event
    :param verbose: (int)
    """

    def __init__(self, callback: Optional[BaseCallback] = None, verbose: int = 0) -> None:
        super().__init__(verbose=verbose)
        if callback is not None:
            if not isinstance(callback, BaseCallback):
                raise TypeError("Expected the child callback to be a BaseCallback (or None), got {!r}"
                                .format(callback))
            callback.parent = self
        self.callback = callback

    def init_callback(self, model: TrainedModel) -> None:
        super().init_callback(model)
        if self.callback is not None:
            self.callback.init_callback(model)

    def _on_training_start(self) -> None:
        if self.callback is not None:
            self.callback.on_training_start(*self._loop_namespaces())

    def _on_event(self) -> bool:
        """:return: (bool) the child's answer (True when there is no child)"""
        return True if self.callback is None else self.callback.on_step()

    def _on_step(self) -> bool:
        return True

    def update_child_locals(self, locals_: Dict[str, Any]) -> None:
        if self.callback is not None:
            self.callback.update_locals(locals_)


class CallbackList(BaseCallback):
    """
    Several callbacks used as one: each event goes to all of them, in the list's order.

    :param callbacks: (List[BaseCallback]) the callbacks
    """

    def __init__(self, callbacks: List[BaseCallback]) -> None:
        super().__init__()
        if not isinstance(callbacks, (list, tuple)):
            raise TypeError("CallbackList expects a list of callbacks, got {!r}".format(callbacks))
        for member in callbacks:
            if not isinstance(member, BaseCallback):
                raise TypeError("CallbackList expects BaseCallback objects, got {!r} of type {}"
                                .format(member, type(member).__name__))
        self.callbacks = list(callbacks)

    def _broadcast(self, event: str, *args: Any) -> None:
        for member in self.callbacks:
            getattr(member, event)(*args)

    def _init_callback(self) -> None:
        self._broadcast("init_callback", self.model)

    def _on_training_start(self) -> None:
        self._broadcast("on_training_start", self.locals, self.globals)

    def _on_rollout_start(self) -> None:
        self._broadcast("on_rollout_start")

    def _on_step(self) -> bool:
        # every member sees the step, even after one of them asked to stop
        answers = [bool(member.on_step()) for member in self.callbacks]
        if not all(answers):
            for member in self.callbacks:
                if isinstance(member, ProgressBarCallback):
                    member.stopped_early = True
        return all(answers)

    def _on_rollout_end(self) -> None:
        self._broadcast("on_rollout_end")

    def _on_training_end(self) -> None:
        self._broadcast("on_training_end")

    @property
    def reads_locals(self) -> bool:
        return any(member.reads_locals for member in self.callbacks)

    def update_child_locals(self, locals_: Dict[str, Any]) -> None:
        self._broadcast("update_locals", locals_)


class CheckpointCallback(BaseCallback):
    """
    Save the model every ``save_freq`` calls, as ``<save_path>/<name_prefix>_<num_timesteps>_steps.zip``.

    :param save_freq: (int) how many calls between two saves
    :param save_path: (str) the folder of the checkpoints (created when training starts)
    :param name_prefix: (str) the start of the file names
    :param verbose: (int) 2 prints the path of each checkpoint
    :param save_training_state: (bool) write each checkpoint with the model's training state
        (``save(path, include_training_state=True)``), to resume training from it exactly
    """

    def __init__(self, save_freq: int, save_path: str, name_prefix: str = 'rl_model', verbose: int = 0,
                 save_training_state: bool = False) -> None:
        super().__init__(verbose)
        if int(save_freq) != save_freq or save_freq < 1:
            raise ValueError("save_freq must be a positive integer, got {!r}".format(save_freq))
        if save_path is None:
            raise ValueError("CheckpointCallback needs a save_path (the folder of the checkpoints), got None")
        self.save_freq = int(save_freq)
        self.save_path = save_path
        self.name_prefix = name_prefix
        self.save_training_state = bool(save_training_state)

    def _init_callback(self) -> None:
        os.makedirs(self.save_path, exist_ok=True)

    def _checkpoint_path(self) -> str:
        file_name = "{}_{}_steps".format(self.name_prefix, self.num_timesteps)
        return os.path.join(self.save_path, file_name)

    def _on_step(self) -> bool:
        if self.n_calls % self.save_freq != 0:
            return True
        path = self._checkpoint_path()
        model = self._attached_model()
        if self.save_training_state:
            model.save(path, include_training_state=True)
        else:
            model.save(path)
        if self.verbose > 1:
            print("Saving model checkpoint to {}".format(path))
        return True


class ConvertCallback(BaseCallback):
    """
    Wrap a callback function of the older style, ``callback(locals_, globals_)``, called at every step;
    it stops the training by returning False (returning nothing lets it go on).

    :param callback: (Callable) the function
    :param verbose: (int)
    """

    def __init__(self, callback: Optional[FunctionCallback], verbose: int = 0) -> None:
        super().__init__(verbose)
        if callback is not None and not callable(callback):
            raise TypeError("ConvertCallback expects a function callback(locals_, globals_) -> bool, got {!r}"
                            .format(callback))
        self.callback = callback

    @property
    def reads_locals(self) -> bool:
        return self.callback is not None

    def _on_step(self) -> bool:
        if self.callback is None:
            return True
        answer = self.callback(*self._loop_namespaces())
        return answer is None or bool(answer)


class _ExistingEnv(object):
    """
    An environment factory for DummyVecEnv that hands out an environment created beforehand
    (picklable, unlike a lambda).

    :param env: (gym.Env) the environment
    """

    def __init__(self, env: Any) -> None:
        self.env = env

    def __call__(self) -> Any:
        return self.env


def _as_vec_env(env: Any) -> Any:
    """The evaluation environment as a VecEnv (a single environment becomes a DummyVecEnv of one)."""
    return env if isinstance(env, VecEnv) else DummyVecEnv([_ExistingEnv(env)])


class EvalCallback(EventCallback):
    """
    Evaluate the agent on a separate environment every ``eval_freq`` calls; optionally keep the
    results (``evaluations.npz`` with the arrays ``timesteps``, ``results``, ``ep_lengths``) and the
    best model so far (``best_model.zip``), and call a child callback on each new best mean return.

    :param eval_env: (Union[gym.Env, VecEnv]) the evaluation environment (a VecEnv may hold several)
    :param callback_on_new_best: (Optional[BaseCallback]) called when the mean return beats the best so far
    :param n_eval_episodes: (int) episodes per evaluation, in total over the environments (see
        :func:`~stable_baselines.common.evaluation.evaluate_policy`)
    :param eval_freq: (int) calls between two evaluations (0 or less: never evaluate)
    :param log_path: (str) folder for ``evaluations.npz``, rewritten after each evaluation (None: no file)
    :param best_model_save_path: (str) folder for ``best_model.zip`` (None: not saved)
    :param deterministic: (bool) evaluate with deterministic actions instead of sampled ones
    :param render: (bool) render the evaluation environment
    :param verbose: (int) 1 prints the result of each evaluation
    """

    def __init__(self, eval_env: Any,
                 callback_on_new_best: Optional[BaseCallback] = None,
                 n_eval_episodes: int = 5,
                 eval_freq: int = 10000,
                 log_path: Optional[str] = None,
                 best_model_save_path: Optional[str] = None,
                 deterministic: bool = True,
                 render: bool = False,
                 verbose: int = 1) -> None:
        super().__init__(callback_on_new_best, verbose=verbose)
        self.eval_env = _as_vec_env(eval_env)
        self.eval_freq = eval_freq
        self.n_eval_episodes = n_eval_episodes
        self.deterministic, self.render = deterministic, render
        self.best_model_save_path = best_model_save_path
        # np.savez adds the '.npz' extension
        self.log_path = None if log_path is None else os.path.join(log_path, 'evaluations')
        # the best and the latest mean return (the latter for subclasses)
        self.best_mean_reward = self.last_mean_reward = -np.inf
        self.evaluations_timesteps: List[int] = []
        self.evaluations_results: List[List[float]] = []
        self.evaluations_length: List[List[int]] = []

    def _init_callback(self) -> None:
        # the envs as the user gave them (not the view of one env that the single-env algorithms step, nor the
        # DummyVecEnv this callback put around a single eval env): their VecEnv wrappers must be alike, else the
        # policy is evaluated on observations unlike those it trains on (a VecNormalize missing, ...)
        training_env = user_vec_env(self.training_env)
        if vec_wrapper_types(training_env) != vec_wrapper_types(self.eval_env):
            warnings.warn("Training and eval env are not of the same type "
                          "{} != {}".format(training_env, self.eval_env))
        for folder in (self.best_model_save_path, None if self.log_path is None else os.path.dirname(self.log_path)):
            if folder is not None:
                os.makedirs(folder, exist_ok=True)

    def _run_evaluation(self) -> Any:
        """:return: ([float], [int]) the return and the length of each evaluation episode"""
        if self.training_env is not None:
            # the evaluation must see observations normalised like the training ones
            sync_envs_normalization(self.training_env, self.eval_env)
        return evaluate_policy(self._attached_model(), self.eval_env, n_eval_episodes=self.n_eval_episodes, render=self.render,
                               deterministic=self.deterministic, return_episode_rewards=True)

    def _save_evaluations(self, log_path: str, episode_rewards: List[float], episode_lengths: List[int]) -> None:
        self.evaluations_timesteps.append(self.num_timesteps)
        self.evaluations_results.append(episode_rewards)
        self.evaluations_length.append(episode_lengths)
        np.savez(log_path, timesteps=self.evaluations_timesteps, results=self.evaluations_results,
                 ep_lengths=self.evaluations_length)

    def _on_step(self) -> bool:
        if self.eval_freq <= 0 or self.n_calls % self.eval_freq != 0:
            return True
        episode_rewards, episode_lengths = self._run_evaluation()
        if self.log_path is not None:
            self._save_evaluations(self.log_path, episode_rewards, episode_lengths)

        mean_reward = self.last_mean_reward = np.mean(episode_rewards)
        std_reward = np.std(episode_rewards)
        if self.verbose > 0:
            print("Eval num_timesteps={}, episode_reward={:.2f} +/- {:.2f}"
                  .format(self.num_timesteps, mean_reward, std_reward))
            print("Episode length: {:.2f} +/- {:.2f}".format(np.mean(episode_lengths), np.std(episode_lengths)))

        if not mean_reward > self.best_mean_reward:
            return True
        if self.verbose > 0:
            print("New best mean reward!")
        if self.best_model_save_path is not None:
            self._attached_model().save(os.path.join(self.best_model_save_path, 'best_model'))
        self.best_mean_reward = mean_reward
        return True if self.callback is None else self._on_event()


class StopTrainingOnRewardThreshold(BaseCallback):
    """
    Child callback of an :class:`EvalCallback` (as its ``callback_on_new_best``) that ends the training
    once the best mean return reaches a threshold.

    :param reward_threshold: (float) the mean episode return at which the training stops
    :param verbose: (int) 1 prints a message when the training stops
    """

    def __init__(self, reward_threshold: float, verbose: int = 0) -> None:
        super().__init__(verbose=verbose)
        self.reward_threshold = reward_threshold

    def _on_step(self) -> bool:
        if self.parent is None or not hasattr(self.parent, "best_mean_reward"):
            raise ValueError("`StopTrainingOnRewardThreshold` callback must be used "
                             "with an `EvalCallback` (as its callback_on_new_best), got parent {!r}"
                             .format(self.parent))
        best = self.parent.best_mean_reward
        # a plain bool: callers test `is False`, which an np.bool_ would not pass
        keep_training = bool(best < self.reward_threshold)
        if not keep_training and self.verbose > 0:
            print("Stopping training because the mean reward {:.2f} "
                  " is above the threshold {}".format(best, self.reward_threshold))
        return keep_training


class EveryNTimesteps(EventCallback):
    """
    Call a child callback each time at least ``n_steps`` more timesteps have passed.

    :param n_steps: (int) the number of timesteps between two calls
    :param callback: (BaseCallback) the child callback
    """

    def __init__(self, n_steps: int, callback: BaseCallback) -> None:
        super().__init__(callback)
        if n_steps <= 0:
            raise ValueError("EveryNTimesteps needs n_steps > 0, got {!r}".format(n_steps))
        self.n_steps = n_steps
        self.last_time_trigger = 0

    def _on_step(self) -> bool:
        if self.num_timesteps - self.last_time_trigger < self.n_steps:
            return True
        self.last_time_trigger = self.num_timesteps
        return self._on_event()


class ProgressBarCallback(BaseCallback):
    """
    Display a tqdm progress bar over the timesteps of a ``learn`` call
    (what ``learn(..., progress_bar=True)`` adds; an addition to the original library).

    The bar counts the timesteps done since the training started, so it also works when
    ``reset_num_timesteps=False`` and for algorithms that update ``num_timesteps`` once per rollout.
    While it is drawn, the logger's tables (``verbose=1``) are written above it, and the bar below them.
    When ``learn`` ends without a callback stopping it, the bar is filled to ``total_timesteps``: the on-policy
    algorithms train whole rollouts and may stop up to one rollout short of the total (25 000 timesteps of
    PPO2 with ``n_steps=128`` are 195 rollouts, 24 960 steps). A training stopped by a callback leaves the bar
    where it was.

    :param total_timesteps: (int) the number of timesteps of the ``learn`` call (None: unknown length)
    :param verbose: (int)
    """

    @property
    def reads_locals(self) -> bool:
        return False

    def __init__(self, total_timesteps: Optional[int] = None, verbose: int = 0) -> None:
        super().__init__(verbose)
        try:
            import tqdm  # noqa: F401  pylint: disable=unused-import,import-outside-toplevel
        except ImportError as err:
            raise ImportError("The progress bar needs the tqdm package: pip install tqdm") from err
        self.total_timesteps = None if total_timesteps is None else int(total_timesteps)
        self.pbar: Any = None  # the tqdm bar while training
        self.stopped_early = False  # set when another callback ends the training
        self._start_timesteps = 0
        self._shown = 0
        self._previous_guard: Optional[TerminalGuard] = None

    def _on_training_start(self) -> None:
        from tqdm.auto import tqdm  # pylint: disable=import-outside-toplevel
        self._start_timesteps = int(self._attached_model().num_timesteps)
        self._shown = 0
        self.stopped_early = False
        self.pbar = tqdm(total=self.total_timesteps, unit="steps", dynamic_ncols=True)
        self._previous_guard = set_terminal_guard(self._lift_bar)

    def _lift_bar(self, stream: Any) -> Any:
        """:return: (context manager) clears the bar while ``stream`` is written, then draws it again"""
        if self.pbar is None:
            return contextlib.nullcontext()
        return type(self.pbar).external_write_mode(file=stream)

    def _show(self, done: int) -> None:
        if self.total_timesteps is not None:
            done = min(done, self.total_timesteps)
        if done > self._shown:
            self.pbar.update(done - self._shown)
            self._shown = done

    def _refresh(self) -> None:
        if self.pbar is not None:
            self._show(int(self._attached_model().num_timesteps) - self._start_timesteps)

    def _on_step(self) -> bool:
        self._refresh()
        return True

    def _on_rollout_end(self) -> None:
        self._refresh()

    def _on_training_end(self) -> None:
        if self.pbar is None:
            return
        self._refresh()
        if not self.stopped_early and self.total_timesteps is not None:
            self._show(self.total_timesteps)
        set_terminal_guard(self._previous_guard)
        self._previous_guard = None
        self.pbar.close()
        self.pbar = None


__all__ = ["BaseCallback", "EventCallback", "CallbackList", "CheckpointCallback", "ConvertCallback",
           "EvalCallback", "StopTrainingOnRewardThreshold", "EveryNTimesteps", "ProgressBarCallback"]
