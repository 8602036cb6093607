"""
Hindsight Experience Replay (HER): :class:`HER` wraps an off-policy model (DQN, SAC, TD3, DDPG) for
goal-conditioned environments; :class:`HERGoalEnvWrapper` flattens their dict observations;
:class:`HindsightExperienceReplayWrapper` creates the artificial transitions.
"""
from stable_baselines.her.replay_buffer import (GoalSelectionStrategy, HindsightExperienceReplayWrapper,  # noqa: F401
                                                KEY_TO_GOAL_STRATEGY)
from stable_baselines.her.utils import HERGoalEnvWrapper  # noqa: F401
from stable_baselines.her.her import HER  # noqa: F401
from stable_baselines.common.safe_loading.classes import declare_loadable

declare_loadable(GoalSelectionStrategy)  # HER files hold one

__all__ = ["HER", "GoalSelectionStrategy", "KEY_TO_GOAL_STRATEGY", "HERGoalEnvWrapper",
           "HindsightExperienceReplayWrapper"]
