"""Playing a trained model and counting what it earns: on a freshly seeded env, or on a VecEnv (recurrent policies
included)."""
from typing import Any, Tuple

import numpy as np

from stable_baselines.common.evaluation import evaluate_policy
from stable_baselines.common.gym_compat import make_env


def seeded_evaluation(model: Any, env_id: str, seed: int, **evaluate_kwargs: Any) -> Tuple[float, float]:
    """
    ``evaluate_policy`` on a new ``make_env(env_id)`` reset once with ``seed`` first, so the evaluation episodes
    are the same from run to run.

    :param model: (BaseRLModel) the model
    :param env_id: (str) the id of the evaluation env
    :param seed: (int) the seed of its first reset
    :param evaluate_kwargs: passed to ``evaluate_policy`` (``n_eval_episodes``, ``deterministic``, ...)
    :return: (float, float) the mean and standard deviation of the episode returns
    """
    eval_env = make_env(env_id)
    eval_env.reset(seed=seed)
    return evaluate_policy(model, eval_env, **evaluate_kwargs)


def vec_mean_return(model: Any, env: Any, n_episodes: int, deterministic: bool = True) -> float:
    """
    The mean return of the first ``n_episodes`` episodes that end, all the envs of ``env`` playing together.
    The recurrent state travels from step to step and ``mask`` is the last step's ``dones``, as a user's loop does.

    :param model: (BaseRLModel) the model
    :param env: (VecEnv) the environment, reset here first
    :param n_episodes: (int) how many finished episodes to average
    :param deterministic: (bool) passed to ``predict``
    :return: (float) the mean return
    """
    n_envs = env.num_envs
    obs, state, dones = env.reset(), None, np.zeros(n_envs, dtype=bool)
    returns, totals = [], np.zeros(n_envs)
    while len(returns) < n_episodes:
        actions, state = model.predict(obs, state=state, mask=dones, deterministic=deterministic)
        obs, rewards, dones, _ = env.step(actions)
        totals += rewards
        for i in np.where(dones)[0]:
            returns.append(totals[i])
            totals[i] = 0.0
    return float(np.mean(returns))
