"""
How DDPG trains, as hooks of the off-policy loop (:mod:`stable_baselines.common.model.off_policy`): cycles
of ``nb_rollout_steps`` environment steps, each followed by ``nb_train_steps`` gradient steps (adapting the
parameter noise every ``param_noise_adaption_interval`` of them, a soft target update after each) and
``nb_eval_steps`` steps of the evaluation environment; after every ``log_interval`` cycles an epoch table, once
the replay buffer can give a batch.

:class:`DDPGRun` adds DDPG's values to the loop state, :data:`DDPG_NAMES` shows them to callbacks under the
names of the original's training loop; :class:`DDPGCycles` (a mixin of :class:`~stable_baselines.ddpg.ddpg.DDPG`)
holds the hooks.
"""
import time
from collections import deque
from contextlib import contextmanager
from typing import Any, Callable, Deque, Dict, Iterator, List, Optional, Tuple

import numpy as np
from mpi4py import MPI

from stable_baselines import logger
from stable_baselines.common.gym_compat import reset_env, step_env
from stable_baselines.common.math_util import safe_mean, scale_action, unscale_action
from stable_baselines.common.model.off_policy import (ABSENT, LOOP_NAMES, LearnArguments, OffPolicyLoopState,
                                                      OffPolicyRLModel)
from stable_baselines.common.vec_env import VecEnv
from stable_baselines.ddpg.statistics import as_scalar, epoch_rollout_stats, mpi_average, write_table


class DDPGRun(OffPolicyLoopState):
    """
    The loop state of one ``learn`` call of DDPG: the loop's values and DDPG's counters, epoch lists and
    evaluation values; those declared without a value exist once the run set them.

    :param args: (LearnArguments) the arguments of ``learn``
    :param callback: (BaseCallback) the callback made by the learn frame
    :param writer: (tf.summary.FileWriter) the tensorboard writer, or None
    :param auto_reset: (bool) whether the env resets itself at the end of an episode
    """

    # the critic's value of the rollout action, and the stored observation before an episode-end reset
    q_value: Any
    new_obs_: Any
    # the last training step: its index in the training phase, the distance of the parameter noise, the losses
    t_train: int
    distance: float
    critic_loss: float
    actor_loss: float
    # the last evaluation step: the running return, the action and its value, what the env returned
    eval_episode_reward: float
    eval_action: np.ndarray
    eval_q: Any
    eval_r: Any
    eval_terminated: bool
    eval_truncated: bool
    eval_done: bool

    def __init__(self, args: LearnArguments, callback: Any, writer: Any, auto_reset: bool) -> None:
        super().__init__(args, callback, writer, auto_reset)
        self.rank = MPI.COMM_WORLD.Get_rank()
        self.eval_env: Any = None
        self.eval_obs: Any = None
        self.eval_episode_rewards_history: Deque[float] = deque(maxlen=100)
        self.episode_rewards_history: Deque[float] = deque(maxlen=100)
        # steps of this call, steps of the running episode, and the step count of the table and of tensorboard
        # (set back to an estimate during each training phase, as the original did)
        self.total_steps = self.episode_step = self.log_step = 0
        # since the last table
        self.epoch = self.epoch_episodes = 0
        self.epoch_episode_rewards: List[float] = []
        self.epoch_episode_steps: List[int] = []
        self.epoch_actions: List[np.ndarray] = []
        self.epoch_qs: List[Any] = []
        # of the last cycle
        self.epoch_actor_losses: List[float] = []
        self.epoch_critic_losses: List[float] = []
        self.epoch_adaptive_distances: List[float] = []
        self.eval_episode_rewards: List[float] = []
        self.eval_qs: List[Any] = []
        # False when the last cycle met the end of training in its evaluation (no table, no new cycle then)
        self.cycle_completed = True
        # the last table: what its making left among the original's local variables
        self.table_values: Dict[str, Any] = {}

    def start_epoch(self) -> None:
        """Forget the rollout values of the epoch just written to the table."""
        self.epoch += 1
        self.epoch_episode_rewards, self.epoch_episode_steps = [], []
        self.epoch_actions, self.epoch_qs = [], []
        self.epoch_episodes = 0


def _cycle_index(model: Any, run: DDPGRun) -> Any:
    """:return: (Any) ``_`` of the original: the info of the first reset, then the step's index in its rollout"""
    return run.step % model.nb_rollout_steps if hasattr(run, "step") else run.reset_info


def _table_value(name: str) -> Any:
    """:return: (callable) the reader of a value the last epoch table left"""
    return lambda model, run: run.table_values.get(name, ABSENT)


# what DDPG's callbacks see: the names of the original's training loop
DDPG_NAMES = LOOP_NAMES.extended({
    "rank": "state.rank", "eval_episode_rewards_history": "state.eval_episode_rewards_history",
    "episode_rewards_history": "state.episode_rewards_history", "eval_env": "state.eval_env", "_": _cycle_index,
    "auto_reset": "state.auto_reset", "eval_obs": "state.eval_obs",
    "episode_reward": lambda model, run: run.episode_rewards[-1], "episode_step": "state.episode_step",
    "episodes": "state.num_episodes", "step": "state.log_step", "total_steps": "state.total_steps",
    "start_time": "state.start_time", "epoch_episode_rewards": "state.epoch_episode_rewards",
    "epoch_episode_steps": "state.epoch_episode_steps", "epoch_actor_losses": "state.epoch_actor_losses",
    "epoch_critic_losses": "state.epoch_critic_losses", "epoch_adaptive_distances": "state.epoch_adaptive_distances",
    "eval_episode_rewards": "state.eval_episode_rewards", "eval_qs": "state.eval_qs",
    "epoch_actions": "state.epoch_actions", "epoch_qs": "state.epoch_qs", "epoch_episodes": "state.epoch_episodes",
    "epoch": "state.epoch", "q_value": "state.q_value", "unscaled_action": "state.env_action",
    "new_obs_": "state.new_obs_", "maybe_is_success": "state.maybe_is_success", "t_train": "state.t_train",
    "distance": "state.distance", "critic_loss": "state.critic_loss", "actor_loss": "state.actor_loss",
    "eval_episode_reward": "state.eval_episode_reward", "eval_action": "state.eval_action",
    "eval_q": "state.eval_q", "eval_r": "state.eval_r", "eval_terminated": "state.eval_terminated",
    "eval_truncated": "state.eval_truncated", "eval_done": "state.eval_done",
    **{name: _table_value(name) for name in ("duration", "stats", "combined_stats", "combined_stats_sums", "keys",
                                             "key", "mpi_size", "as_scalar")},
}, without=("episode_rewards",))


class DDPGCycles(OffPolicyRLModel[DDPGRun]):
    """
    The hooks of the off-policy loop that make DDPG's training cycles (a mixin of DDPG, which sets the attributes
    and defines the methods declared below).
    """

    # hyper-parameters (DDPG's constructor arguments)
    nb_rollout_steps: int
    nb_train_steps: int
    nb_eval_steps: int
    batch_size: int
    param_noise_adaption_interval: int
    random_exploration: float
    render: bool
    render_eval: bool
    param_noise: Any
    # the steps whose run metadata went to tensorboard (None before the first learn)
    tb_seen_steps: Optional[List[int]]

    # the loop trains after the episode bookkeeping
    _train_before_episode_end = False
    _callback_names = DDPG_NAMES

    @contextmanager
    def _training_run(self, args: LearnArguments, callback: Any, writer: Any) -> Iterator[DDPGRun]:
        """The state of a run; the action noise is reset and the actor perturbed anew before the first episode."""
        self.tb_seen_steps = []
        run = DDPGRun(args, callback, writer, self._env_resets_itself())
        if self.verbose >= 2:
            logger.log('Using agent with the following configuration:')
            logger.log(str(self.__dict__.items()))
        run.eval_env = self._eval_env()
        self._reset()
        yield run

    # defined by DDPG (ddpg/ddpg.py): the actor's actions in [-1, 1] and the critic's values (or None); a new
    # episode (reset the action noise, perturb the actor anew); the evaluation env or None; a gradient step (the
    # critic and actor losses); the soft target update; the parameter-noise adaption (the distance measured); the
    # reference statistics of the table
    _policy: Callable[..., Tuple[np.ndarray, Any]]
    _reset: Callable[[], None]
    _eval_env: Callable[[], Any]
    _train_step: Callable[..., Tuple[float, float]]
    _update_target_net: Callable[[], None]
    _adapt_param_noise: Callable[[], float]
    _get_stats: Callable[[], Dict[str, float]]

    # ------------------------------------------------------------------------------------------- rollout steps
    def _choose_action(self, run: DDPGRun) -> Tuple[np.ndarray, np.ndarray]:
        """
        The action of a rollout step: the (perturbed) actor's with action noise or, with probability
        ``random_exploration``, a uniform sample of the action space. (The evaluation env is reset here, before
        the first step: the original reset it after the env.)

        :param run: (DDPGRun) the loop state
        :return: (np.ndarray, np.ndarray) the action in [-1, 1], and in the bounds of the action space
        """
        if run.step == 0 and run.eval_env is not None:
            run.eval_obs, _ = reset_env(run.eval_env)
        action_space = self._built(self.action_space, "action_space")
        action, run.q_value = self._policy(run.obs, apply_noise=True, compute_q=True)
        action = action.reshape(action_space.shape)
        self._render_rollout(run)
        if np.random.rand() < self.random_exploration:
            env_action = action_space.sample()
            return scale_action(action_space, env_action), env_action
        return action, unscale_action(action_space, action)

    def _render_rollout(self, run: DDPGRun) -> None:
        """Render the env when asked (on rank 0 only)."""
        if run.rank == 0 and self.render:
            self.env.render()

    def _count_step(self, run: DDPGRun) -> None:
        """The counts of a step the callback accepted, before its transition is stored."""
        run.log_step += 1
        run.total_steps += 1
        self._render_rollout(run)
        run.epoch_actions.append(run.action)
        run.epoch_qs.append(run.q_value)
        run.episode_step += 1

    def _on_episode_end(self, run: DDPGRun) -> None:
        """Count the finished episode, then reset the action noise and perturb the actor anew."""
        episode_reward = run.episode_rewards[-1]
        run.epoch_episode_rewards.append(episode_reward)
        run.episode_rewards_history.append(episode_reward)
        run.epoch_episode_steps.append(run.episode_step)
        run.episode_step = 0
        run.epoch_episodes += 1
        run.new_obs_ = run.obs_
        self._reset()

    # ------------------------------------------------------------------------------------------- cycle ends
    def _cycle_ended(self, run: DDPGRun) -> bool:
        """:return: (bool) whether the step just taken was the last of a rollout"""
        return run.total_steps % self.nb_rollout_steps == 0

    def _train_when_due(self, run: DDPGRun) -> Optional[List[Tuple[float, float]]]:
        """
        At the end of a rollout: the training phase, then the evaluation.

        :param run: (DDPGRun) the loop state
        :return: ([(float, float)]) the critic and actor losses of the gradient steps (None: there were none)
        """
        if not run.done:
            run.new_obs_ = run.obs_
        if not self._cycle_ended(run):
            return None
        run.callback.on_rollout_end()
        losses = self._train_phase(run)
        run.cycle_completed = self._evaluate(run)
        return losses or None

    def _end_step(self, run: DDPGRun) -> None:
        """After every ``log_interval`` rollouts the epoch table (when a batch can be drawn); then a new rollout."""
        if not self._cycle_ended(run) or not run.cycle_completed:
            return
        assert run.log_interval is not None, "DDPG.learn refuses log_interval=None"
        if (run.total_steps // self.nb_rollout_steps) % run.log_interval == 0:
            run.table_values["mpi_size"] = MPI.COMM_WORLD.Get_size()
            if self.replay_buffer.can_sample(self.batch_size):
                self._log_epoch(run)
        run.callback.on_rollout_start()

    def _train_phase(self, run: DDPGRun) -> List[Tuple[float, float]]:
        """
        Up to ``nb_train_steps`` gradient steps (none while the replay buffer is smaller than a batch), each
        followed by a soft update of the target networks. The tensorboard step of a gradient step spreads the
        training phase over the timesteps of the rollout before it.

        :param run: (DDPGRun) the loop state
        :return: ([(float, float)]) the critic and actor losses of each gradient step
        """
        run.epoch_actor_losses, run.epoch_critic_losses, run.epoch_adaptive_distances = [], [], []
        steps_per_update = self.nb_rollout_steps / self.nb_train_steps if self.nb_train_steps else 0
        losses = []
        for t_train in range(self.nb_train_steps):
            run.t_train = t_train
            if not self.replay_buffer.can_sample(self.batch_size):
                break
            if len(self.replay_buffer) >= self.batch_size and t_train % self.param_noise_adaption_interval == 0:
                run.distance = self._adapt_param_noise()
                run.epoch_adaptive_distances.append(run.distance)
            run.log_step = int(t_train * steps_per_update) + self.num_timesteps - self.nb_rollout_steps
            run.critic_loss, run.actor_loss = self._train_step(run.log_step, run.writer, log=t_train == 0)
            run.epoch_critic_losses.append(run.critic_loss)
            run.epoch_actor_losses.append(run.actor_loss)
            losses.append((run.critic_loss, run.actor_loss))
            self._update_target_net()
        return losses

    def _evaluate(self, run: DDPGRun) -> bool:
        """
        ``nb_eval_steps`` deterministic steps of the evaluation env (when there is one); its episodes go on
        from one cycle to the next.

        :param run: (DDPGRun) the loop state
        :return: (bool) False when the training ended instead (``total_timesteps`` reached)
        """
        run.eval_episode_rewards, run.eval_qs = [], []
        eval_env = run.eval_env
        if eval_env is None:
            return True
        run.eval_episode_reward = 0.
        action_space = self._built(self.action_space, "action_space")
        for _ in range(self.nb_eval_steps):
            if run.total_steps >= run.total_timesteps:
                return False
            run.eval_action, run.eval_q = self._policy(run.eval_obs, apply_noise=False, compute_q=True)
            run.env_action = unscale_action(action_space, run.eval_action.reshape(action_space.shape))
            run.eval_obs, run.eval_r, run.eval_terminated, run.eval_truncated, _ = step_env(eval_env,
                                                                                            run.env_action)
            run.eval_done = bool(run.eval_terminated or run.eval_truncated)
            if self.render_eval:
                eval_env.render()
            run.eval_episode_reward += float(run.eval_r)
            run.eval_qs.append(run.eval_q)
            if run.eval_done:
                if not isinstance(eval_env, VecEnv):
                    run.eval_obs, _ = reset_env(eval_env)
                run.eval_episode_rewards.append(run.eval_episode_reward)
                run.eval_episode_rewards_history.append(run.eval_episode_reward)
                run.eval_episode_reward = 0.
        return True

    def _log_epoch(self, run: DDPGRun) -> None:
        """
        Write the epoch table: the reference statistics and the rollout and training values averaged over the
        MPI workers, this worker's evaluation values, the epoch and step counts.

        :param run: (DDPGRun) the loop state
        """
        duration = time.time() - run.start_time
        stats = self._get_stats()
        table = dict(stats)
        table.update(epoch_rollout_stats(run, duration, self.param_noise is not None))
        table, keys, sums, mpi_size = mpi_average(table)
        if run.eval_env is not None:
            table['eval/return'] = safe_mean(run.eval_episode_rewards)
            table['eval/return_history'] = safe_mean(run.eval_episode_rewards_history)
            table['eval/Q'] = safe_mean(run.eval_qs)
            table['eval/episodes'] = len(run.eval_episode_rewards)
        table['total/epochs'] = run.epoch + 1
        table['total/steps'] = run.log_step
        key = write_table(table, run.episode_successes)
        # what the original's table code left among its local variables
        run.table_values.update(duration=duration, stats=stats, combined_stats=table, combined_stats_sums=sums,
                                keys=keys, key=key, mpi_size=mpi_size, as_scalar=as_scalar)
        run.start_epoch()
