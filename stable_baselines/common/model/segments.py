"""
What PPO1, TRPO and GAIL share: they learn from fixed-length segments of one environment, not from the rollouts
of a runner.

- :func:`traj_segment_generator` collects the segments and :func:`add_vtarg_and_adv` adds their advantages and
  value targets (public at :mod:`stable_baselines.common.runners`, as in the original);
- :func:`current_and_old_policies` builds the network being trained and the one that collected the batch;
- :class:`SegmentProgress` follows each iteration over the MPI workers and :func:`log_segment_rewards` writes the
  episode rewards of a segment to tensorboard.
"""
from collections import deque
import time
from typing import Any, Deque, Dict, Generator, List, Optional, Tuple

import numpy as np

from stable_baselines import logger
from stable_baselines.common.gym_compat import reset_env, step_env
from stable_baselines.common.misc_util import flatten_lists
from stable_baselines.common.model.on_policy import ActorCriticRLModel
from stable_baselines.common.model.env_values import check_observation, check_rewards_finite
from stable_baselines.common.model.rollouts import clip_to_space, gae_advantages, notify_step
from stable_baselines.common.policies import ActorCriticPolicy
from stable_baselines.common.policy_parts.action_masks import env_action_masks, mask_width
from stable_baselines.common.tf_compat import tf
from stable_baselines.common.tf_util import total_episode_reward_logger
from stable_baselines.common.vec_env import VecEnv


def current_and_old_policies(model: ActorCriticRLModel, graph_inputs: Tuple[Any, Any, int]
                             ) -> Tuple[ActorCriticPolicy, ActorCriticPolicy]:
    """
    For PPO1 and TRPO: the network being trained (in "model") and a second one in "oldpi" that holds the
    weights which collected the current batch, both of the model's policy class, one step per environment.

    :param model: (ActorCriticRLModel) the model
    :param graph_inputs: (Gym Space, Gym Space, int) the observation and action spaces and the number of envs
    :return: (ActorCriticPolicy, ActorCriticPolicy) the current and the old network
    """
    def make() -> ActorCriticPolicy:
        return model.policy(model.sess, *graph_inputs, 1, None, reuse=False, **model.policy_kwargs)

    current = make()
    with tf.variable_scope("oldpi", reuse=False):
        return current, make()


def log_segment_rewards(model: ActorCriticRLModel, segment: Dict[str, Any], writer: Any) -> None:
    """
    For PPO1, TRPO and GAIL: write the undiscounted episode rewards of a segment to tensorboard.

    :param model: (ActorCriticRLModel) the model
    :param segment: (dict) the segment of ``traj_segment_generator``
    :param writer: (tf.summary.FileWriter) the tensorboard writer, or None (nothing is written)
    """
    if writer is None:
        return
    assert model.episode_reward is not None, "made by _setup_learn"
    per_env = (model.n_envs, -1)
    total_episode_reward_logger(model.episode_reward, segment["true_rewards"].reshape(per_env),
                                segment["dones"].reshape(per_env), writer, model.num_timesteps)


class SegmentProgress:
    """
    The bookkeeping of the segment loop of PPO1, TRPO and GAIL, over all MPI workers: the means of the latest
    episodes, the timesteps done in this ``learn``, and the rows they give the logger table after each iteration.

    :param comm: (MPI communicator) the workers
    :param window: (int) how many of the latest episodes the means cover
    :param true_returns: (bool) also average the environment's own returns (GAIL trains on the discriminator's)
    """

    def __init__(self, comm: Any, window: int, true_returns: bool = False) -> None:
        self.comm = comm
        self.keys = ("ep_lens", "ep_rets", "ep_true_rets") if true_returns else ("ep_lens", "ep_rets")
        self.recent: Dict[str, Deque[float]] = {key: deque(maxlen=window) for key in self.keys}
        self.n_episodes = 0
        self.steps_done = 0
        self.iterations = 0
        self.started = time.time()

    def end_iteration(self, model: Any, segment: Dict[str, Any]) -> None:
        """
        Gather the episodes that ended in every worker's segment, count the timesteps of all workers, record the
        rows and (``verbose >= 1``, on the first worker) write the table.

        :param model: (BaseRLModel) the model (its ``num_timesteps`` is advanced)
        :param segment: (dict) this worker's segment (``ep_lens``, ``ep_rets``, ``total_timestep``, ...)
        """
        gathered = self.comm.allgather(tuple(segment[key] for key in self.keys))
        columns = [flatten_lists(column) for column in zip(*gathered)]
        for key, column in zip(self.keys, columns):
            self.recent[key].extend(column)
        if self.recent["ep_lens"]:
            logger.record_tabular("EpLenMean", np.mean(self.recent["ep_lens"]))
            logger.record_tabular("EpRewMean", np.mean(self.recent["ep_rets"]))
        if self.recent.get("ep_true_rets"):
            logger.record_tabular("EpTrueRewMean", np.mean(self.recent["ep_true_rets"]))
        logger.record_tabular("EpThisIter", len(columns[0]))
        self.n_episodes += len(columns[0])
        steps = self.comm.allreduce(segment["total_timestep"])
        self.steps_done += steps
        model.num_timesteps += steps
        self.iterations += 1
        logger.record_tabular("EpisodesSoFar", self.n_episodes)
        logger.record_tabular("TimestepsSoFar", model.num_timesteps)
        logger.record_tabular("TimeElapsed", time.time() - self.started)
        if model.verbose >= 1 and self.comm.Get_rank() == 0:
            logger.dump_tabular()


def _policy_input(observation: Any) -> np.ndarray:
    """One observation as a batch of one row."""
    return np.asarray(observation).reshape(-1, *np.shape(observation))


class _SegmentState:
    """
    What :func:`traj_segment_generator` keeps between steps: the arrays of the segment being filled and the
    running sums of the current episode.

    :param horizon: (int) steps per segment
    :param observation: (np.ndarray) an observation (gives the shape and dtype)
    :param action: (np.ndarray) an action (gives the shape and dtype)
    """

    def __init__(self, horizon: int, observation: Any, action: Any) -> None:
        self.observations = np.array([observation] * horizon)
        self.actions = np.array([action] * horizon)
        self.rewards = np.zeros(horizon, 'float32')
        self.true_rewards = np.zeros(horizon, 'float32')
        self.vpreds = np.zeros(horizon, 'float32')
        self.episode_starts = np.zeros(horizon, 'bool')
        self.dones = np.zeros(horizon, 'bool')
        self.cur_ep_ret: Any = 0
        self.cur_ep_true_ret: Any = 0
        self.current_ep_len = 0
        self.current_it_len = 0
        self.ep_rets: List[Any] = []
        self.ep_true_rets: List[Any] = []
        self.ep_lens: List[int] = []
        # the allowed actions at each step (allocated only for a policy that uses action masks)
        self.action_masks: Optional[np.ndarray] = None

    def new_segment(self) -> None:
        """Forget the episodes of the segment that was handed out (the arrays are refilled in place)."""
        self.ep_rets, self.ep_true_rets, self.ep_lens = [], [], []
        self.current_it_len = 0

    def end_episode(self, info: dict, gail: bool) -> Optional[dict]:
        """
        Close the current episode; the Monitor's undiscounted return replaces the sums when available (for
        GAIL only the true return: its learning return is the discriminator's).

        :param info: (dict) the info of the last step
        :param gail: (bool) whether the rewards come from a discriminator
        :return: (dict or None) the Monitor's episode record
        """
        episode = info.get('episode')
        if episode is not None:
            self.cur_ep_true_ret = episode['r']
            if not gail:
                self.cur_ep_ret = episode['r']
        self.ep_rets.append(self.cur_ep_ret)
        self.ep_true_rets.append(self.cur_ep_true_ret)
        self.ep_lens.append(self.current_ep_len)
        self.cur_ep_ret = self.cur_ep_true_ret = self.current_ep_len = 0
        return episode

    def segment(self, next_value: Any, continue_training: bool) -> Dict[str, Any]:
        """
        :param next_value: (float) value estimate after the last step (0 at an episode start)
        :param continue_training: (bool) False when the callback stopped the training
        :return: (dict) the segment, see :func:`traj_segment_generator`
        """
        segment = {"observations": self.observations, "rewards": self.rewards, "dones": self.dones,
                   "episode_starts": self.episode_starts, "true_rewards": self.true_rewards, "vpred": self.vpreds,
                   "actions": self.actions, "nextvpred": next_value, "ep_rets": self.ep_rets,
                   "ep_lens": self.ep_lens, "ep_true_rets": self.ep_true_rets,
                   "total_timestep": self.current_it_len, "continue_training": continue_training}
        if self.action_masks is not None:
            segment["action_masks"] = self.action_masks
        return segment

    def visible(self) -> Dict[str, Any]:
        """
        :return: (dict) the segment's variables under the names a callback sees them
        """
        names = ("observations", "actions", "rewards", "true_rewards", "vpreds", "episode_starts", "dones",
                 "cur_ep_ret", "cur_ep_true_ret", "current_ep_len", "current_it_len", "ep_rets",
                 "ep_true_rets", "ep_lens")
        return {name: getattr(self, name) for name in names}


def traj_segment_generator(policy: Any, env: Any, horizon: int, reward_giver: Any = None, gail: bool = False,
                           callback: Any = None) -> Generator[Dict[str, Any], None, None]:
    """
    Endless generator of trajectory segments of ``horizon`` steps of one environment (PPO1, TRPO, GAIL).
    Episodes run on across segments; after each segment the policy may change before the next is collected (a
    model whose policy acts from a NumPy copy tells its ``fast_path`` before asking for the next segment).
    The callback is told after every step (see the manual's "Callbacks - Accessible Variables").

    :param policy: (MLPPolicy) the policy (any object with a ``step(obs, states, dones)`` method)
    :param env: (Gym Environment) a gymnasium or legacy gym environment, or a one-environment VecEnv
        (which resets by itself)
    :param horizon: (int) the number of steps of a segment
    :param reward_giver: (TransitionClassifier) the discriminator rewarding (observation, action) pairs (GAIL)
    :param gail: (bool) learn from the discriminator's reward instead of the environment's
    :param callback: (BaseCallback) the callback (None: no callback)
    :return: (dict) generator of segments, with the keys:

        - observations: (np.ndarray) the observations
        - rewards: (numpy float) the rewards learned from (the discriminator's with GAIL)
        - true_rewards: (numpy float) the environment's rewards
        - vpred: (numpy float) the value estimates
        - dones: (numpy bool) whether the episode ended with the step
        - episode_starts: (numpy bool) whether the step is the first of an episode (for GAE)
        - actions: (np.ndarray) the actions
        - nextvpred: (numpy float) the value estimate after the last step (0 at an episode start)
        - ep_rets: (float) returns of the episodes that ended in the segment
        - ep_lens: (int) their lengths
        - ep_true_rets: (float) their environment returns
        - total_timestep: (int) the number of steps of the segment
        - continue_training: (bool) False when the callback stopped the training (last segment)
        - action_masks: (numpy bool) the allowed actions at each step, only for a policy built with action masks
          (``action_mask_ph``), which then acts among the actions the env's ``action_masks()`` allows
    """
    if gail and reward_giver is None:
        raise ValueError("You must pass a reward giver (reward_giver=...) when using GAIL (gail=True)")
    if not isinstance(horizon, (int, np.integer)) or horizon <= 0:
        raise ValueError("horizon must be a positive int (timesteps per segment), got {!r}".format(horizon))

    observation, _ = reset_env(env)
    check_observation(observation, env.observation_space, "reset()")
    record = _SegmentState(horizon, observation, env.action_space.sample())
    states = policy.initial_state
    episode_start, done = True, False
    if callback is not None:
        callback.on_rollout_start()
    visible: Dict[str, Any] = {"env": env, "policy": policy, "horizon": horizon, "reward_giver": reward_giver,
                               "gail": gail, "callback": callback}

    masked = getattr(policy, "action_mask_ph", None) is not None
    if masked:
        record.action_masks = np.ones((horizon, mask_width(env.action_space)), dtype=bool)
    step = 0
    while True:
        if masked:
            allowed = env_action_masks(env, mask_width(env.action_space))
            action, vpred, states, last_output = policy.step_with_action_masks(
                _policy_input(observation), allowed, states, np.array([done]))
        else:
            action, vpred, states, last_output = policy.step(_policy_input(observation), states, np.array([done]))
        if step > 0 and step % horizon == 0:
            # the value of the observation after the segment is known only now
            if callback is not None:
                callback.on_rollout_end()
            yield record.segment(vpred[0] * (1 - episode_start), True)
            # the update may have changed the policy: estimate the current value again
            _, vpred, _, last_output = policy.step(_policy_input(observation))
            record.new_segment()
            if callback is not None:
                callback.on_rollout_start()
        i = step % horizon
        record.observations[i] = observation
        record.vpreds[i] = vpred[0]
        record.actions[i] = action[0]
        record.episode_starts[i] = episode_start
        if record.action_masks is not None:
            record.action_masks[i] = allowed[0]

        clipped_action = clip_to_space(action, env.action_space)
        if gail:
            # the discriminator's reward for this transition, as a plain float
            reward = float(np.asarray(reward_giver.get_reward(observation, clipped_action[0])).reshape(-1)[0])
            observation, true_reward, terminated, truncated, info = step_env(env, clipped_action[0])
        else:
            observation, reward, terminated, truncated, info = step_env(env, clipped_action[0])
            true_reward = reward
        done = terminated or truncated
        check_observation(observation, env.observation_space, "step()")
        check_rewards_finite(true_reward, step + 1)

        if callback is not None and callback.reads_locals:
            visible.update(record.visible())
            visible.update({"_": last_output, "action": action, "clipped_action": clipped_action, "vpred": vpred,
                            "states": states, "step": step, "i": i, "observation": observation,
                            "reward": reward, "true_reward": true_reward, "terminated": terminated,
                            "truncated": truncated, "info": info, "done": done, "episode_start": episode_start})
        if callback is not None and not notify_step(callback, visible):
            yield record.segment(vpred[0] * (1 - episode_start), False)
            return

        record.rewards[i] = reward
        record.true_rewards[i] = true_reward
        record.dones[i] = done
        episode_start = done
        record.cur_ep_ret += reward
        record.cur_ep_true_ret += true_reward
        record.current_it_len += 1
        record.current_ep_len += 1
        if done:
            visible["maybe_ep_info"] = record.end_episode(info, gail)
            # a VecEnv (wrapper) resets by itself and already returned the first observation
            if not isinstance(env, VecEnv):
                observation, _ = reset_env(env)
                check_observation(observation, env.observation_space, "reset()")
        step += 1


def add_vtarg_and_adv(seg: Dict[str, Any], gamma: float, lam: float) -> None:
    """
    Add to a segment of :func:`traj_segment_generator` its GAE(lambda) advantages (key ``"adv"``) and
    TD(lambda) value targets (key ``"tdlamret"``, advantages plus value estimates).

    :param seg: (dict) the segment
    :param gamma: (float) discount factor
    :param lam: (float) GAE lambda
    """
    # with the value after the segment appended, the value estimates take their common dtype
    values = np.append(seg["vpred"], seg["nextvpred"])
    # the episode flags in that dtype keep the recursion in the precision of the values
    starts = np.asarray(seg["episode_starts"], dtype=values.dtype)
    advantages = gae_advantages(seg["rewards"], values[:-1], starts, values[-1], values.dtype.type(0), gamma, lam)
    seg["adv"] = advantages.astype(np.float32)
    seg["tdlamret"] = seg["adv"] + seg["vpred"]
