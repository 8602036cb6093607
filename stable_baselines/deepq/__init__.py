"""
Deep Q Network (DQN) and its extensions (Double-DQN, Dueling-DQN, Prioritized Experience Replay,
parameter-space noise), with its own policies: :class:`MlpPolicy`, :class:`LnMlpPolicy`, :class:`CnnPolicy`,
:class:`LnCnnPolicy`.
"""
from stable_baselines.deepq.policies import MlpPolicy, CnnPolicy, LnMlpPolicy, LnCnnPolicy  # noqa: F401
from stable_baselines.deepq.build_graph import build_act, build_train  # noqa: F401
from stable_baselines.deepq.dqn import DQN  # noqa: F401
from stable_baselines.common.buffers import ReplayBuffer, PrioritizedReplayBuffer  # noqa: F401


def wrap_atari_dqn(env):
    """
    wrap the environment in atari wrappers for DQN

    :param env: (Gym Environment) the environment
    :return: (Gym Environment) the wrapped environment
    """
    from stable_baselines.common.atari_wrappers import wrap_deepmind  # imported on use: Atari support is optional
    return wrap_deepmind(env, frame_stack=True, scale=False)


__all__ = ["DQN", "MlpPolicy", "CnnPolicy", "LnMlpPolicy", "LnCnnPolicy", "build_act", "build_train",
           "ReplayBuffer", "PrioritizedReplayBuffer", "wrap_atari_dqn"]
