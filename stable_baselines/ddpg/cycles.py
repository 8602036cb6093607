"""
How DDPG trains: cycles of ``nb_rollout_steps`` environment steps, then ``nb_train_steps`` gradient steps
(adapting the parameter noise every ``param_noise_adaption_interval`` of them), then ``nb_eval_steps`` steps of
the evaluation environment; every ``log_interval`` cycles an epoch table, once the replay buffer can give a batch.

:class:`DDPGRun` holds the values of one ``learn`` call under the names callbacks have always seen in
``self.locals``; :class:`DDPGCycles` (a mixin of :class:`~stable_baselines.ddpg.ddpg.DDPG`) runs the cycles.
"""
import time
from collections import deque
from typing import Any, Dict

import numpy as np
from mpi4py import MPI

from stable_baselines.common.gym_compat import reset_env, step_env
from stable_baselines.common.math_util import safe_mean, scale_action, unscale_action
from stable_baselines.common.vec_env import VecEnv
from stable_baselines.ddpg.statistics import as_scalar, epoch_rollout_stats, mpi_average, write_table

# a name callbacks do not see yet (it appears in ``self.locals`` once the loop first assigns it)
_UNSET = object()


class DDPGRun:
    """
    The values of one ``learn`` call of DDPG. The attribute names are the names of the local variables of the
    original training loop, which callbacks read from ``self.locals``; the ones the loop assigns later (after the
    first step, the first training phase, the first evaluation or the first table) are hidden until then.

    :param arguments: (dict) the arguments of ``learn`` (with ``self``) and the tensorboard ``writer``
    """

    def __init__(self, arguments: Dict[str, Any]):
        self.self = arguments["self"]
        self.total_timesteps = arguments["total_timesteps"]
        self.callback = arguments["callback"]
        self.log_interval = arguments["log_interval"]
        self.tb_log_name = arguments["tb_log_name"]
        self.reset_num_timesteps = arguments["reset_num_timesteps"]
        self.replay_wrapper = arguments["replay_wrapper"]
        self.progress_bar = arguments["progress_bar"]
        self.writer = arguments["writer"]
        self.rank = MPI.COMM_WORLD.Get_rank()
        self.eval_episode_rewards_history = deque(maxlen=100)
        self.episode_rewards_history = deque(maxlen=100)
        self.episode_successes = []
        self.eval_env = None
        # the current observation as the env returned it, and as the replay buffer stores it (unnormalized)
        self.obs = self.obs_ = self.eval_obs = None
        self._ = None
        self.auto_reset = False
        self.episode_reward = 0.
        self.episode_step = self.episodes = self.step = self.total_steps = 0
        self.start_time = time.time()
        self.epoch_episode_rewards, self.epoch_episode_steps = [], []
        self.epoch_actor_losses, self.epoch_critic_losses, self.epoch_adaptive_distances = [], [], []
        self.eval_episode_rewards, self.eval_qs = [], []
        self.epoch_actions, self.epoch_qs = [], []
        self.epoch_episodes = self.epoch = 0
        # a rollout step
        self.action = self.q_value = self.unscaled_action = _UNSET
        self.new_obs = self.reward = self.terminated = self.truncated = self.info = self.done = _UNSET
        self.new_obs_ = self.reward_ = self.maybe_is_success = _UNSET
        # a training phase
        self.t_train = self.distance = self.critic_loss = self.actor_loss = _UNSET
        # an evaluation
        self.eval_episode_reward = self.eval_action = self.eval_q = self.eval_r = _UNSET
        self.eval_terminated = self.eval_truncated = self.eval_done = _UNSET
        # an epoch table
        self.mpi_size = self.duration = self.stats = self.combined_stats = _UNSET
        self.combined_stats_sums = self.keys = self.key = self.as_scalar = _UNSET

    def callback_locals(self) -> Dict[str, Any]:
        """:return: (dict) what callbacks see in ``self.locals``: every value assigned so far, by name"""
        return {name: value for name, value in vars(self).items() if value is not _UNSET}

    def start_epoch(self) -> None:
        """Forget the rollout values of the epoch just written to the table."""
        self.epoch += 1
        self.epoch_episode_rewards, self.epoch_episode_steps = [], []
        self.epoch_actions, self.epoch_qs = [], []
        self.epoch_episodes = 0


class DDPGCycles:
    """The training loop of DDPG, one method per part of a cycle."""

    def _start_run(self, arguments: Dict[str, Any]) -> DDPGRun:
        """
        Reset the exploration noise and the environments, and start the clock.

        :param arguments: (dict) see :class:`DDPGRun`
        :return: (DDPGRun) the values of the new run
        """
        run = DDPGRun(arguments)
        run.eval_env = self._eval_env()
        self._reset()
        run.obs, run._ = reset_env(self.env)
        # a one-env VecEnv (behind _UnvecWrapper) starts its next episode by itself
        run.auto_reset = isinstance(self.env, VecEnv)
        run.obs_ = self._unnormalized_obs(run.obs)
        if run.eval_env is not None:
            run.eval_obs, run._ = reset_env(run.eval_env)
        run.start_time = time.time()
        return run

    def _run_cycles(self, run: DDPGRun) -> None:
        """
        Cycle until ``total_timesteps`` steps are done or a callback stops the training; write the epoch table
        after every ``log_interval`` cycles once the replay buffer holds a batch.

        :param run: (DDPGRun) the values of the run
        """
        while True:
            for _ in range(run.log_interval):
                if not self._cycle(run):
                    return
            run.mpi_size = MPI.COMM_WORLD.Get_size()
            if self.replay_buffer.can_sample(self.batch_size):
                self._log_epoch(run)

    def _cycle(self, run: DDPGRun) -> bool:
        """
        One rollout, training phase and evaluation.

        :param run: (DDPGRun) the values of the run
        :return: (bool) False when the training is over
        """
        run.callback.on_rollout_start()
        for index in range(self.nb_rollout_steps):
            run._ = index
            if run.total_steps >= run.total_timesteps or not self._rollout_step(run):
                return False
        run.callback.on_rollout_end()
        self._train_phase(run)
        return self._evaluate(run)

    def _exploring_action(self, run: DDPGRun) -> tuple:
        """
        The action of a rollout step: the (perturbed) actor's with action noise, or, with probability
        ``random_exploration``, a uniform sample of the action space.

        :param run: (DDPGRun) the values of the run (its current observation)
        :return: (np.ndarray, np.ndarray, np.ndarray) the action in [-1, 1], the critic's value of the actor's
            action, the action in the bounds of the action space
        """
        action, q_value = self._policy(run.obs, apply_noise=True, compute_q=True)
        action = action.reshape(self.action_space.shape)
        if run.rank == 0 and self.render:
            self.env.render()
        if np.random.rand() < self.random_exploration:
            env_action = self.action_space.sample()
            return scale_action(self.action_space, env_action), q_value, env_action
        return action, q_value, unscale_action(self.action_space, action)

    def _rollout_step(self, run: DDPGRun) -> bool:
        """
        Act, step the env, tell the callback, store the transition.

        :param run: (DDPGRun) the values of the run
        :return: (bool) False when the callback stops the training
        """
        run.action, run.q_value, run.unscaled_action = self._exploring_action(run)
        run.new_obs, run.reward, run.terminated, run.truncated, run.info = step_env(self.env, run.unscaled_action)
        # the stored `done` marks the end of an episode, by termination or by time limit
        run.done = bool(run.terminated or run.truncated)
        self.num_timesteps += 1
        run.callback.update_locals(run.callback_locals())
        if run.callback.on_step() is False:
            return False
        run.step += 1
        run.total_steps += 1
        if run.rank == 0 and self.render:
            self.env.render()
        run.epoch_actions.append(run.action)
        run.epoch_qs.append(run.q_value)
        run.new_obs_, run.reward_ = self._store_transition(run.obs_, run.action, run.reward, run.new_obs, run.done,
                                                           run.info, run.writer)
        run.obs, run.obs_ = run.new_obs, run.new_obs_
        run.episode_reward += float(run.reward_)
        run.episode_step += 1
        if run.done:
            self._end_episode(run)
        return True

    def _end_episode(self, run: DDPGRun) -> None:
        """
        Count the finished episode, reset the noise (a new perturbation of the actor) and, unless it does so
        itself, the env.

        :param run: (DDPGRun) the values of the run
        """
        run.epoch_episode_rewards.append(run.episode_reward)
        run.episode_rewards_history.append(run.episode_reward)
        run.epoch_episode_steps.append(run.episode_step)
        run.episode_reward, run.episode_step = 0., 0
        run.epoch_episodes += 1
        run.episodes += 1
        run.maybe_is_success = run.info.get('is_success')
        if run.maybe_is_success is not None:
            run.episode_successes.append(float(run.maybe_is_success))
        self._reset()
        if not run.auto_reset:
            run.obs, run._ = reset_env(self.env)
            run.obs_ = self._unnormalized_obs(run.obs)

    def _train_phase(self, run: DDPGRun) -> None:
        """
        Up to ``nb_train_steps`` gradient steps (none while the replay buffer is smaller than a batch), each
        followed by a soft update of the target networks. The tensorboard step of a gradient step spreads the
        training phase over the timesteps of the rollout that preceded it.

        :param run: (DDPGRun) the values of the run
        """
        run.epoch_actor_losses, run.epoch_critic_losses, run.epoch_adaptive_distances = [], [], []
        steps_per_update = self.nb_rollout_steps / self.nb_train_steps if self.nb_train_steps else 0
        for t_train in range(self.nb_train_steps):
            run.t_train = t_train
            if not self.replay_buffer.can_sample(self.batch_size):
                break
            if len(self.replay_buffer) >= self.batch_size and t_train % self.param_noise_adaption_interval == 0:
                run.distance = self._adapt_param_noise()
                run.epoch_adaptive_distances.append(run.distance)
            run.step = int(t_train * steps_per_update) + self.num_timesteps - self.nb_rollout_steps
            run.critic_loss, run.actor_loss = self._train_step(run.step, run.writer, log=t_train == 0)
            run.epoch_critic_losses.append(run.critic_loss)
            run.epoch_actor_losses.append(run.actor_loss)
            self._update_target_net()

    def _evaluate(self, run: DDPGRun) -> bool:
        """
        ``nb_eval_steps`` deterministic steps of the evaluation env (when there is one); its episodes go on
        from one cycle to the next.

        :param run: (DDPGRun) the values of the run
        :return: (bool) False when ``total_timesteps`` was reached
        """
        run.eval_episode_rewards, run.eval_qs = [], []
        eval_env = run.eval_env
        if eval_env is None:
            return True
        run.eval_episode_reward = 0.
        for index in range(self.nb_eval_steps):
            run._ = index
            if run.total_steps >= run.total_timesteps:
                return False
            run.eval_action, run.eval_q = self._policy(run.eval_obs, apply_noise=False, compute_q=True)
            run.unscaled_action = unscale_action(self.action_space, run.eval_action.reshape(self.action_space.shape))
            run.eval_obs, run.eval_r, run.eval_terminated, run.eval_truncated, run._ = step_env(
                eval_env, run.unscaled_action)
            run.eval_done = bool(run.eval_terminated or run.eval_truncated)
            if self.render_eval:
                eval_env.render()
            run.eval_episode_reward += float(run.eval_r)
            run.eval_qs.append(run.eval_q)
            if run.eval_done:
                if not isinstance(eval_env, VecEnv):
                    run.eval_obs, run._ = reset_env(eval_env)
                run.eval_episode_rewards.append(run.eval_episode_reward)
                run.eval_episode_rewards_history.append(run.eval_episode_reward)
                run.eval_episode_reward = 0.
        return True

    def _log_epoch(self, run: DDPGRun) -> None:
        """
        Write the epoch table: the reference statistics and the rollout and training values averaged over the
        MPI workers, this worker's evaluation values, the epoch and step counts.

        :param run: (DDPGRun) the values of the run
        """
        run.duration = time.time() - run.start_time
        run.stats = self._get_stats()
        table = dict(run.stats)
        table.update(epoch_rollout_stats(run, run.duration, self.param_noise is not None))
        run.as_scalar = as_scalar
        table, run.keys, run.combined_stats_sums, run.mpi_size = mpi_average(table)
        if run.eval_env is not None:
            table['eval/return'] = safe_mean(run.eval_episode_rewards)
            table['eval/return_history'] = safe_mean(run.eval_episode_rewards_history)
            table['eval/Q'] = safe_mean(run.eval_qs)
            table['eval/episodes'] = len(run.eval_episode_rewards)
        table['total/epochs'] = run.epoch + 1
        table['total/steps'] = run.step
        run.combined_stats = table
        run.key = write_table(table, run.episode_successes)
        run.start_epoch()
