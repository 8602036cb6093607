"""
The replay buffer wrapper of Hindsight Experience Replay (Andrychowicz et al., 2017,
https://arxiv.org/abs/1707.01495).

The transitions of an episode are kept until the episode ends. Then each transition is stored, together with
``n_sampled_goal`` artificial copies whose desired goal is replaced by a goal the agent actually achieved
(chosen by the goal selection strategy) and whose reward is recomputed with ``env.compute_reward``.
"""
import numbers
from enum import Enum
from typing import Any, List, Tuple

import numpy as np


class GoalSelectionStrategy(Enum):
    """
    The strategies for selecting new goals when
    creating artificial transitions.

    - ``FUTURE``: a goal achieved later in the same episode (at or after the transition's step)
    - ``FINAL``: the goal achieved at the end of the episode
    - ``EPISODE``: a goal achieved anywhere in the same episode
    - ``RANDOM``: a goal achieved anywhere in the replay buffer
    """
    # Select a goal that was achieved
    # after the current step, in the same episode
    FUTURE = 0
    # Select the goal that was achieved
    # at the end of the episode
    FINAL = 1
    # Select a goal that was achieved in the episode
    EPISODE = 2
    # Select a goal that was achieved
    # at some point in the training procedure
    # (and that is present in the replay buffer)
    RANDOM = 3


# For convenience
# that way, we can use string to select a strategy
KEY_TO_GOAL_STRATEGY = {
    'future': GoalSelectionStrategy.FUTURE,
    'final': GoalSelectionStrategy.FINAL,
    'episode': GoalSelectionStrategy.EPISODE,
    'random': GoalSelectionStrategy.RANDOM,
}


def to_goal_selection_strategy(strategy: Any) -> GoalSelectionStrategy:
    """
    :param strategy: (GoalSelectionStrategy or str) a strategy or its name ('future', 'final', 'episode', 'random')
    :return: (GoalSelectionStrategy)
    """
    if isinstance(strategy, GoalSelectionStrategy):
        return strategy
    if isinstance(strategy, str) and strategy.lower() in KEY_TO_GOAL_STRATEGY:
        return KEY_TO_GOAL_STRATEGY[strategy.lower()]
    raise ValueError("Invalid goal selection strategy {!r}, please use one of {} or a GoalSelectionStrategy"
                     .format(strategy, list(KEY_TO_GOAL_STRATEGY.keys())))


def _as_reward(reward: Any) -> Any:
    """A one-element reward (array) becomes a float, as the replay buffer keeps scalars."""
    array = np.asarray(reward)
    if array.size == 1:
        return float(array.reshape(-1)[0])
    return reward


class HindsightExperienceReplayWrapper(object):
    """
    Wrapper around a replay buffer in order to use HER.
    This implementation is inspired by to the one found in https://github.com/NervanaSystems/coach/.

    The goals given to the artificial transitions are the achieved goals of *next* observations (the states
    the agent reached): for a transition at step ``t`` of an episode of ``T`` steps, ``future`` picks one of
    steps ``t..T-1``, ``final`` step ``T-1``, ``episode`` any step, ``random`` any transition of the replay
    buffer (the current episode while the buffer is still empty).

    :param replay_buffer: (ReplayBuffer)
    :param n_sampled_goal: (int) The number of artificial transitions to generate for each actual transition
    :param goal_selection_strategy: (GoalSelectionStrategy) The method that will be used to generate
        the goals for the artificial transitions.
    :param wrapped_env: (HERGoalEnvWrapper) the GoalEnv wrapped using HERGoalEnvWrapper,
        that enables to convert observation to dict, and vice versa
    """

    def __init__(self, replay_buffer, n_sampled_goal, goal_selection_strategy, wrapped_env):
        super(HindsightExperienceReplayWrapper, self).__init__()
        if isinstance(n_sampled_goal, bool) or not isinstance(n_sampled_goal, numbers.Integral) or n_sampled_goal < 0:
            raise ValueError("n_sampled_goal must be an int >= 0, got {!r}".format(n_sampled_goal))
        for method in ("convert_obs_to_dict", "convert_dict_to_obs", "compute_reward"):
            if not callable(getattr(wrapped_env, method, None)):
                raise TypeError("wrapped_env must be a HERGoalEnvWrapper (it needs {}()), got {!r}"
                                .format(method, wrapped_env))
        if replay_buffer is None:
            raise ValueError("HindsightExperienceReplayWrapper needs a replay buffer to wrap, got None")
        self.n_sampled_goal = int(n_sampled_goal)
        self.goal_selection_strategy = to_goal_selection_strategy(goal_selection_strategy)
        self.env = wrapped_env
        # Buffer for storing transitions of the current episode
        self.episode_transitions: List[Tuple[Any, Any, Any, Any, Any, Any]] = []
        self.replay_buffer = replay_buffer

    # ------------------------------------------------------------------------------------------
    # the replay buffer interface
    # ------------------------------------------------------------------------------------------
    def add(self, obs_t, action, reward, obs_tp1, done, info):
        """
        add a new transition to the buffer

        :param obs_t: (np.ndarray) the last observation
        :param action: ([float]) the action
        :param reward: (float) the reward of the transition
        :param obs_tp1: (np.ndarray) the new observation
        :param done: (bool) is the episode done
        :param info: (dict) extra values used to compute reward
        """
        # copies: environments may modify in place the arrays they returned
        self.episode_transitions.append((np.array(obs_t), np.array(action), reward, np.array(obs_tp1), done, info))
        if done:
            # Add transitions (and imagined ones) to buffer only when an episode is over
            self._store_episode()
            # Reset episode buffer
            self.episode_transitions = []

    def sample(self, *args, **kwargs):
        """
        Sample a batch from the wrapped replay buffer (same arguments as its ``sample``).
        """
        return self.replay_buffer.sample(*args, **kwargs)

    def can_sample(self, n_samples):
        """
        Check if n_samples samples can be sampled
        from the buffer.

        :param n_samples: (int)
        :return: (bool)
        """
        return self.replay_buffer.can_sample(n_samples)

    def __len__(self):
        return len(self.replay_buffer)

    @property
    def storage(self):
        """list: the transitions of the wrapped replay buffer"""
        return self.replay_buffer.storage

    @property
    def buffer_size(self) -> int:
        """int: the capacity of the wrapped replay buffer"""
        return self.replay_buffer.buffer_size

    def is_full(self) -> bool:
        """
        :return: (bool) whether the wrapped replay buffer is full
        """
        return self.replay_buffer.is_full()

    def flush(self) -> None:
        """
        Store the transitions of the unfinished episode (with their artificial transitions), e.g. when training
        stops in the middle of an episode.
        """
        if self.episode_transitions:
            self._store_episode()
            self.episode_transitions = []

    def __repr__(self) -> str:
        return "HindsightExperienceReplayWrapper({!r}, n_sampled_goal={}, goal_selection_strategy={})".format(
            self.replay_buffer, self.n_sampled_goal, self.goal_selection_strategy)

    # ------------------------------------------------------------------------------------------
    # goal sampling
    # ------------------------------------------------------------------------------------------
    def _achieved_goal(self, observation: np.ndarray) -> Any:
        return self.env.convert_obs_to_dict(observation)["achieved_goal"]

    def _sample_achieved_goal(self, episode_transitions, transition_idx, achieved_goals=None):
        """
        Sample an achieved goal according to the sampling strategy.

        :param episode_transitions: ([tuple]) a list of all the transitions in the current episode
        :param transition_idx: (int) the transition to start sampling from
        :param achieved_goals: ([Any]) the achieved goals of the next observations of the episode
            (computed from ``episode_transitions`` when None)
        :return: (np.ndarray) an achieved goal
        """
        n_transitions = len(episode_transitions)
        if achieved_goals is None:
            achieved_goals = [self._achieved_goal(transition[3]) for transition in episode_transitions]
        strategy = self.goal_selection_strategy
        if strategy == GoalSelectionStrategy.FUTURE:
            # Sample a goal that was achieved in the same episode, at this step or later
            return achieved_goals[np.random.randint(transition_idx, n_transitions)]
        if strategy == GoalSelectionStrategy.FINAL:
            # Choose the goal achieved at the end of the episode
            return achieved_goals[-1]
        if strategy == GoalSelectionStrategy.EPISODE:
            # Random goal achieved during the episode
            return achieved_goals[np.random.randint(0, n_transitions)]
        if strategy == GoalSelectionStrategy.RANDOM:
            # Random goal achieved, from the entire replay buffer
            if len(self.replay_buffer) == 0:
                return achieved_goals[np.random.randint(0, n_transitions)]
            selected = self.replay_buffer.storage[np.random.randint(0, len(self.replay_buffer))]
            return self._achieved_goal(selected[3])
        raise ValueError("Invalid goal selection strategy {!r}, please use one of {}"
                         .format(strategy, list(GoalSelectionStrategy)))

    def _sample_achieved_goals(self, episode_transitions, transition_idx, achieved_goals=None):
        """
        Sample a batch of achieved goals according to the sampling strategy.

        :param episode_transitions: ([tuple]) list of the transitions in the current episode
        :param transition_idx: (int) the transition to start sampling from
        :param achieved_goals: ([Any]) the achieved goals of the next observations of the episode
        :return: (list) an achieved goal per artificial transition (``n_sampled_goal`` of them)
        """
        if achieved_goals is None:
            achieved_goals = [self._achieved_goal(transition[3]) for transition in episode_transitions]
        return [self._sample_achieved_goal(episode_transitions, transition_idx, achieved_goals)
                for _ in range(self.n_sampled_goal)]

    def _store_episode(self):
        """
        Sample artificial goals and store transition of the current
        episode in the replay buffer.
        This method is called only after each end of episode.
        """
        episode = self.episode_transitions
        achieved_goals = [self._achieved_goal(transition[3]) for transition in episode]
        # For each transition in the last episode,
        # create a set of artificial transitions
        for transition_idx, transition in enumerate(episode):
            obs_t, action, reward, obs_tp1, done, info = transition
            # the real transition
            self.replay_buffer.add(obs_t, action, reward, obs_tp1, done)
            if self.n_sampled_goal == 0:
                continue
            obs_dict = self.env.convert_obs_to_dict(obs_t)
            next_obs_dict = self.env.convert_obs_to_dict(obs_tp1)
            # Sampled n goals per transition, where n is `n_sampled_goal`
            # this is called k in the paper
            for goal in self._sample_achieved_goals(episode, transition_idx, achieved_goals):
                goal = np.array(goal) if isinstance(goal, np.ndarray) else goal
                # Update the desired goal in the transition
                obs_dict["desired_goal"] = goal
                next_obs_dict["desired_goal"] = goal
                # Update the reward according to the new desired goal
                new_reward = _as_reward(self.env.compute_reward(next_obs_dict["achieved_goal"], goal, info))
                # The artificial goals are not terminal (as the original library did)
                self.replay_buffer.add(self.env.convert_dict_to_obs(obs_dict), action, new_reward,
                                       self.env.convert_dict_to_obs(next_obs_dict), False)


class HERReplayWrapperFactory(object):
    """
    The ``replay_wrapper`` HER gives to the ``learn`` method of the wrapped model: a callable that wraps a
    replay buffer in a :class:`HindsightExperienceReplayWrapper`. A buffer that is already wrapped (a model
    that keeps its buffer between ``learn`` calls) is re-wrapped around the same underlying buffer, after its
    unfinished episode is stored.

    :param n_sampled_goal: (int)
    :param goal_selection_strategy: (GoalSelectionStrategy)
    :param wrapped_env: (HERGoalEnvWrapper)
    """

    def __init__(self, n_sampled_goal: int, goal_selection_strategy: GoalSelectionStrategy, wrapped_env: Any):
        self.n_sampled_goal = n_sampled_goal
        self.goal_selection_strategy = to_goal_selection_strategy(goal_selection_strategy)
        self.wrapped_env = wrapped_env

    def __call__(self, replay_buffer: Any) -> HindsightExperienceReplayWrapper:
        while isinstance(replay_buffer, HindsightExperienceReplayWrapper):
            replay_buffer.flush()
            replay_buffer = replay_buffer.replay_buffer
        return HindsightExperienceReplayWrapper(replay_buffer, self.n_sampled_goal, self.goal_selection_strategy,
                                                self.wrapped_env)

    def __repr__(self) -> str:
        return "HERReplayWrapperFactory(n_sampled_goal={}, goal_selection_strategy={})".format(
            self.n_sampled_goal, self.goal_selection_strategy)
