"""
The one-env VecEnv of a single-env algorithm (DQN, DDPG, SAC, TD3, PPO1, TRPO, GAIL, HER) seen as that env.
"""
from collections import OrderedDict
from typing import Any

from stable_baselines.common.vec_env.base_vec_env import VecEnv, VecEnvWrapper


class _UnvecWrapper(VecEnvWrapper):
    """
    A VecEnv of exactly one environment seen as that environment: observations, rewards, dones and infos
    without the batch dimension (what DQN, DDPG, SAC, TD3, PPO1 and TRPO step).

    :param venv: (VecEnv) a VecEnv with ``num_envs == 1``
    """

    def __init__(self, venv: VecEnv):
        super().__init__(venv)
        if venv.num_envs != 1:
            raise ValueError("Error: cannot unwrap a environment wrapper that has more than one environment "
                             "({} given).".format(venv.num_envs))

    def seed(self, seed=None):
        return self.venv.seed(seed)

    def compute_reward(self, achieved_goal, desired_goal, _info) -> float:
        return float(self.venv.env_method("compute_reward", achieved_goal, desired_goal, _info)[0])

    @staticmethod
    def unvec_obs(obs: Any) -> Any:
        """
        :param obs: (np.ndarray or dict) a batch of one observation (a dict of such batches for Dict spaces)
        :return: (np.ndarray or OrderedDict) the observation itself
        """
        if isinstance(obs, dict):
            return OrderedDict((key, value[0]) for key, value in obs.items())
        return obs[0]

    def reset(self):
        return self.unvec_obs(self.venv.reset())

    def step_async(self, actions) -> None:
        self.venv.step_async([actions])

    def step_wait(self):
        obs, rewards, dones, infos = self.venv.step_wait()
        return self.unvec_obs(obs), float(rewards[0]), dones[0], infos[0]

    def render(self, mode: str = "human"):
        return self.venv.render(mode=mode)


def user_vec_env(env: Any) -> Any:
    """
    :param env: (gymnasium.Env or VecEnv) an environment a model holds
    :return: (gymnasium.Env or VecEnv) the VecEnv the user gave, when the model holds it as :class:`_UnvecWrapper`;
        else ``env`` itself
    """
    return env.venv if isinstance(env, _UnvecWrapper) else env
