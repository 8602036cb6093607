"""VecExtractDictObs: keep one entry of Dict observations."""
from typing import Any, Dict, List

from gymnasium import spaces

from stable_baselines.common.vec_env.base_vec_env import VecEnv, VecEnvObs, VecEnvStepReturn, VecEnvWrapper


class VecExtractDictObs(VecEnvWrapper):
    """
    Turn the Dict observations of a VecEnv into the array of one of their keys (also in the
    ``terminal_observation`` of the infos); the observation space becomes that key's space.

    :param venv: (VecEnv) a vectorized environment with a ``Dict`` observation space
    :param key: (str) the entry to keep
    """

    def __init__(self, venv: VecEnv, key: str) -> None:
        space = venv.observation_space
        if not isinstance(space, spaces.Dict):
            raise TypeError("VecExtractDictObs expected a VecEnv with a Dict observation space, got {}"
                            .format(space))
        if key not in space.spaces:
            raise KeyError("VecExtractDictObs: the key {!r} is not in the Dict observation space; expected one of {}"
                           .format(key, list(space.spaces.keys())))
        self.key = key
        super().__init__(venv, observation_space=space.spaces[key])

    def reset(self) -> VecEnvObs:
        return self.venv.reset()[self.key]

    def step_wait(self) -> VecEnvStepReturn:
        observations, rewards, dones, infos = self.venv.step_wait()
        return observations[self.key], rewards, dones, [self._extract_terminal(info) for info in infos]

    def _extract_terminal(self, info: Dict[str, Any]) -> Dict[str, Any]:
        """:return: (dict) ``info``, or a copy whose ``terminal_observation`` is reduced to the key"""
        if "terminal_observation" not in info:
            return info
        extracted = dict(info)
        extracted["terminal_observation"] = info["terminal_observation"][self.key]
        return extracted


__all__: List[str] = ["VecExtractDictObs"]
