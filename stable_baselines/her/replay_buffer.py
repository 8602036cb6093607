"""
Relabelling of experience for Hindsight Experience Replay (Andrychowicz et al., 2017,
https://arxiv.org/abs/1707.01495).

A finished episode is written to the replay buffer transition by transition; after each real transition
come ``n_sampled_goal`` imagined ones, identical except that their desired goal is a goal the agent did reach
(picked by a :class:`GoalSelectionStrategy`) and that their reward is asked again from ``compute_reward``.
"""
import numbers
from enum import Enum
from typing import Any, Dict, List, Sequence, Tuple, Union

import numpy as np

from stable_baselines.common.buffers import ReplayBufferWrapper

# one stored step of the running episode: obs_t, action, reward, obs_tp1, done, info
Transition = Tuple[np.ndarray, np.ndarray, Any, np.ndarray, Any, Any]


class GoalSelectionStrategy(Enum):
    """
    Where the substitute goals of the imagined transitions come from.

    - ``FUTURE``: a goal reached by the same episode, at the step of the transition or later
    - ``FINAL``: the goal reached by the last step of the episode
    - ``EPISODE``: a goal reached at any step of the same episode
    - ``RANDOM``: a goal reached by any transition already in the replay buffer
    """
    FUTURE = 0
    FINAL = 1
    EPISODE = 2
    RANDOM = 3


# the names accepted wherever a strategy is expected: 'future', 'final', 'episode', 'random'
KEY_TO_GOAL_STRATEGY = {strategy.name.lower(): strategy for strategy in GoalSelectionStrategy}


def to_goal_selection_strategy(strategy: Any) -> GoalSelectionStrategy:
    """
    :param strategy: (GoalSelectionStrategy or str) a strategy, or its name in any case
    :return: (GoalSelectionStrategy) the strategy (ValueError naming the known ones when there is none)
    """
    if isinstance(strategy, GoalSelectionStrategy):
        return strategy
    if isinstance(strategy, str) and strategy.lower() in KEY_TO_GOAL_STRATEGY:
        return KEY_TO_GOAL_STRATEGY[strategy.lower()]
    raise ValueError("Invalid goal selection strategy {!r}, please use one of {} or a GoalSelectionStrategy"
                     .format(strategy, list(KEY_TO_GOAL_STRATEGY)))


def check_n_sampled_goal(n_sampled_goal: Any) -> int:
    """
    :param n_sampled_goal: (Any) the requested number of imagined transitions per real one
    :return: (int) the number (ValueError unless it is an integer >= 0)
    """
    if isinstance(n_sampled_goal, bool) or not isinstance(n_sampled_goal, numbers.Integral) or n_sampled_goal < 0:
        raise ValueError("n_sampled_goal must be an int >= 0, got {!r}".format(n_sampled_goal))
    return int(n_sampled_goal)


def _scalar_reward(reward: Any) -> Any:
    """
    :param reward: (Any) what compute_reward returned for one transition
    :return: (Any) a float when it holds one value (the replay buffer stores scalars), else unchanged
    """
    values = np.asarray(reward)
    return float(values.reshape(-1)[0]) if values.size == 1 else reward


class HindsightExperienceReplayWrapper(ReplayBufferWrapper):
    """
    A replay buffer that adds imagined transitions with substitute goals, in front of an ordinary one.
    Modelled on the HER of https://github.com/NervanaSystems/coach/.

    Substitute goals are the achieved goals of *next* observations, the states the agent came to: for step
    ``t`` of an episode of ``T`` steps ``future`` draws among steps ``t..T-1``, ``final`` takes step ``T-1``,
    ``episode`` draws among all steps and ``random`` among the transitions of the replay buffer (among the
    episode's own steps while the buffer is empty).

    :param replay_buffer: (ReplayBuffer) the buffer that receives real and imagined transitions
    :param n_sampled_goal: (int) imagined transitions per real one (k in the paper)
    :param goal_selection_strategy: (GoalSelectionStrategy or str) how substitute goals are chosen
    :param wrapped_env: (HERGoalEnvWrapper) converts flat observations to dicts and back, computes rewards
    """

    def __init__(self, replay_buffer: Any, n_sampled_goal: int,
                 goal_selection_strategy: Union[str, GoalSelectionStrategy], wrapped_env: Any) -> None:
        if replay_buffer is None:
            raise ValueError("HindsightExperienceReplayWrapper needs a replay buffer to wrap, got None")
        for needed in ("convert_obs_to_dict", "convert_dict_to_obs", "compute_reward"):
            if not callable(getattr(wrapped_env, needed, None)):
                raise TypeError("wrapped_env must be a HERGoalEnvWrapper (it needs {}()), got {!r}"
                                .format(needed, wrapped_env))
        self.replay_buffer = replay_buffer
        self.n_sampled_goal = check_n_sampled_goal(n_sampled_goal)
        self.goal_selection_strategy = to_goal_selection_strategy(goal_selection_strategy)
        self.env = wrapped_env
        # the steps of the episode in progress, written to the buffer when it ends
        self.episode_transitions: List[Transition] = []

    # the replay buffer interface ------------------------------------------------------------------
    def add(self, obs_t: Any, action: Any, reward: float, obs_tp1: Any, done: Any, info: Dict[str, Any]) -> None:
        """
        Remember one step; at the end of an episode, store all its steps and their imagined copies.

        :param obs_t: (np.ndarray) the flat observation the action was taken in
        :param action: ([float]) the action
        :param reward: (float) the reward the env gave
        :param obs_tp1: (np.ndarray) the flat observation that followed
        :param done: (bool) whether the episode ended with this step
        :param info: (dict) the step's info, passed to compute_reward
        """
        # copies, since an env may reuse the arrays it returns
        self.episode_transitions.append((np.array(obs_t), np.array(action), reward, np.array(obs_tp1), done, info))
        if done:
            self.flush()

    def sample(self, *args: Any, **kwargs: Any) -> Any:
        """
        :return: (tuple) a batch drawn by the wrapped buffer's ``sample`` (same arguments)
        """
        return self.replay_buffer.sample(*args, **kwargs)

    def can_sample(self, n_samples: int) -> bool:
        """
        :param n_samples: (int) a batch size
        :return: (bool) whether the wrapped buffer holds that many transitions
        """
        return self.replay_buffer.can_sample(n_samples)

    def __len__(self) -> int:
        return len(self.replay_buffer)

    @property
    def storage(self) -> list:
        """list: the wrapped buffer's transitions"""
        return self.replay_buffer.storage

    @property
    def buffer_size(self) -> int:
        """int: the wrapped buffer's capacity"""
        return self.replay_buffer.buffer_size

    def is_full(self) -> bool:
        """
        :return: (bool) whether the wrapped buffer reached its capacity
        """
        return self.replay_buffer.is_full()

    def flush(self) -> None:
        """
        Store the remembered steps (and their imagined copies) now, e.g. when training stops mid-episode.
        """
        if self.episode_transitions:
            self._store_episode()
            self.episode_transitions = []

    def __repr__(self) -> str:
        return "HindsightExperienceReplayWrapper({!r}, n_sampled_goal={}, goal_selection_strategy={})".format(
            self.replay_buffer, self.n_sampled_goal, self.goal_selection_strategy)

    # substitute goals -----------------------------------------------------------------------------
    def _achieved_goal(self, observation: np.ndarray) -> Any:
        """
        :param observation: (np.ndarray) a flat observation
        :return: (Any) its achieved goal
        """
        return self.env.convert_obs_to_dict(observation)["achieved_goal"]

    def _reached_goals(self, episode_transitions: Sequence[Transition]) -> list:
        """
        :param episode_transitions: ([tuple]) the steps of an episode
        :return: (list) the goal achieved after each step
        """
        return [self._achieved_goal(transition[3]) for transition in episode_transitions]

    def _sample_achieved_goal(self, episode_transitions, transition_idx, achieved_goals=None):
        """
        Draw one substitute goal for a step, as the strategy says.

        :param episode_transitions: ([tuple]) the steps of the episode
        :param transition_idx: (int) the index of the step being relabelled
        :param achieved_goals: ([Any]) the goals achieved after each step (None: computed here)
        :return: (np.ndarray) a goal the agent reached
        """
        if achieved_goals is None:
            achieved_goals = self._reached_goals(episode_transitions)
        episode_length = len(episode_transitions)
        strategy = self.goal_selection_strategy
        if strategy == GoalSelectionStrategy.FUTURE:
            return achieved_goals[np.random.randint(transition_idx, episode_length)]
        if strategy == GoalSelectionStrategy.FINAL:
            return achieved_goals[-1]
        if strategy == GoalSelectionStrategy.RANDOM and len(self.replay_buffer) > 0:
            stored = self.replay_buffer.storage[np.random.randint(0, len(self.replay_buffer))]
            return self._achieved_goal(stored[3])
        # EPISODE, and RANDOM while the buffer is still empty
        return achieved_goals[np.random.randint(0, episode_length)]

    def _sample_achieved_goals(self, episode_transitions, transition_idx, achieved_goals=None):
        """
        Draw the ``n_sampled_goal`` substitute goals of one step.

        :param episode_transitions: ([tuple]) the steps of the episode
        :param transition_idx: (int) the index of the step being relabelled
        :param achieved_goals: ([Any]) the goals achieved after each step (None: computed here)
        :return: (list) the goals, all drawn before any imagined transition is stored
        """
        if achieved_goals is None:
            achieved_goals = self._reached_goals(episode_transitions)
        return [self._sample_achieved_goal(episode_transitions, transition_idx, achieved_goals)
                for _ in range(self.n_sampled_goal)]

    def _store_imagined(self, transition: Transition, goals: list) -> None:
        """
        Store copies of a step whose desired goal is each of ``goals``, with the reward recomputed.
        Imagined transitions never end an episode.

        :param transition: (tuple) the real step
        :param goals: (list) the substitute goals
        """
        obs_t, action, _, obs_tp1, _, info = transition
        before = self.env.convert_obs_to_dict(obs_t)
        after = self.env.convert_obs_to_dict(obs_tp1)
        for goal in goals:
            if isinstance(goal, np.ndarray):
                goal = goal.copy()
            before["desired_goal"] = goal
            after["desired_goal"] = goal
            reward = _scalar_reward(self.env.compute_reward(after["achieved_goal"], goal, info))
            self.replay_buffer.add(self.env.convert_dict_to_obs(before), action, reward,
                                   self.env.convert_dict_to_obs(after), False)

    def _store_episode(self) -> None:
        """
        Write the remembered episode to the buffer: each real step, then its imagined copies.
        """
        episode = self.episode_transitions
        achieved_goals = self._reached_goals(episode)
        for index, transition in enumerate(episode):
            obs_t, action, reward, obs_tp1, done, _ = transition
            self.replay_buffer.add(obs_t, action, reward, obs_tp1, done)
            if self.n_sampled_goal > 0:
                self._store_imagined(transition, self._sample_achieved_goals(episode, index, achieved_goals))


class HERReplayWrapperFactory(object):
    """
    The ``replay_wrapper`` that HER hands to the wrapped model's ``learn``: called with the model's replay
    buffer, it returns a :class:`HindsightExperienceReplayWrapper` around it. A buffer wrapped by an earlier
    ``learn`` is unwrapped first (its unfinished episode stored), so wrappers never pile up.

    :param n_sampled_goal: (int) imagined transitions per real one
    :param goal_selection_strategy: (GoalSelectionStrategy or str) how substitute goals are chosen
    :param wrapped_env: (HERGoalEnvWrapper) the goal env in its flattening wrapper
    """

    def __init__(self, n_sampled_goal: int, goal_selection_strategy: GoalSelectionStrategy,
                 wrapped_env: Any) -> None:
        self.n_sampled_goal = check_n_sampled_goal(n_sampled_goal)
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
