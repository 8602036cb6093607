"""
Deep Q Network (DQN) and its extensions (Double-DQN, Dueling-DQN, Prioritized Experience Replay,
parameter-space noise), with its own policies: :class:`MlpPolicy`, :class:`LnMlpPolicy`, :class:`CnnPolicy`,
:class:`LnCnnPolicy`.
"""
from typing import Any

from stable_baselines.deepq.policies import MlpPolicy, CnnPolicy, LnMlpPolicy, LnCnnPolicy  # noqa: F401
from stable_baselines.deepq.build_graph import build_act, build_train  # noqa: F401
from stable_baselines.deepq.dqn import DQN  # noqa: F401
from stable_baselines.common.buffers import ReplayBuffer, PrioritizedReplayBuffer  # noqa: F401
from stable_baselines.common.safe_loading.classes import declare_loadable

declare_loadable(DQN)  # HER files name it


def wrap_atari_dqn(env: Any) -> Any:
    """
    The DeepMind Atari preprocessing DQN was trained with: 84x84 grey frames, the last four stacked (kept as
    uint8; the CNN policies scale them), rewards clipped to their sign, an episode per life, FIRE at reset where
    the game needs it.

    :param env: (Gym Environment) an Atari environment (NoFrameskip variant, e.g. from ``make_atari``)
    :return: (Gym Environment) the preprocessed game
    """
    from stable_baselines.common.atari_wrappers import wrap_deepmind  # imported on use: Atari support is optional
    return wrap_deepmind(env, episode_life=True, clip_rewards=True, frame_stack=True, scale=False)


__all__ = ["DQN", "MlpPolicy", "CnnPolicy", "LnMlpPolicy", "LnCnnPolicy", "build_act", "build_train",
           "ReplayBuffer", "PrioritizedReplayBuffer", "wrap_atari_dqn"]
