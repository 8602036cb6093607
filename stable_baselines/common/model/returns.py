"""
Return and advantage estimators of the on-policy algorithms, as pure functions of NumPy arrays.

All arrays are time-major: axis 0 is the step of the rollout, further axes (if any) are the environments.
The arithmetic follows NumPy's type promotion of the inputs, so a caller chooses the precision by the
dtypes it passes (episode flags given as booleans are promoted to float64 when subtracted from 1.0;
flags given as float32 keep a float32 computation).
"""
from typing import List, Sequence

import numpy as np


def discount_with_dones(rewards: Sequence[float], dones: Sequence[float], gamma: float) -> List[float]:
    """
    Discounted returns of one environment's reward sequence; the sum restarts after every step that ended
    an episode. Nothing is bootstrapped after the last step.

    :param rewards: ([float]) rewards of consecutive steps
    :param dones: ([bool]) per step, True when the episode ended with that step
    :param gamma: (float) discount factor
    :return: ([float]) the discounted return of every step, in the order of ``rewards``
    """
    returns = [0.0] * len(rewards)
    running = 0.0
    for idx in range(len(rewards) - 1, -1, -1):
        running = rewards[idx] + gamma * running * (1. - dones[idx])
        returns[idx] = running
    return returns


def discounted_returns(rewards: np.ndarray, dones: np.ndarray, last_values: np.ndarray,
                       gamma: float) -> np.ndarray:
    """
    n-step discounted returns, bootstrapped on the value of the observation that follows the rollout:
    ``R_t = r_t + gamma * (1 - done_t) * R_{t+1}`` with ``R_T = last_values``.

    :param rewards: (np.ndarray) rewards, shape (n_steps, ...)
    :param dones: (np.ndarray) per step, whether the episode ended with that step, shape (n_steps, ...)
    :param last_values: (np.ndarray) value estimates of the observations after the last step
    :param gamma: (float) discount factor
    :return: (np.ndarray) the returns, in the dtype of ``rewards``
    """
    returns = np.zeros_like(rewards)
    running = last_values
    for step in range(len(rewards) - 1, -1, -1):
        running = rewards[step] + gamma * running * (1.0 - dones[step])
        returns[step] = running
    return returns


def gae_advantages(rewards: np.ndarray, values: np.ndarray, episode_starts: np.ndarray,
                   last_values: np.ndarray, last_episode_starts: np.ndarray, gamma: float,
                   lam: float) -> np.ndarray:
    """
    Generalized Advantage Estimation (Schulman et al. 2015, https://arxiv.org/abs/1506.02438):
    ``A_t = delta_t + gamma * lam * (1 - start_{t+1}) * A_{t+1}`` with the TD error
    ``delta_t = r_t + gamma * (1 - start_{t+1}) * V_{t+1} - V_t``.

    :param rewards: (np.ndarray) rewards, shape (n_steps, ...)
    :param values: (np.ndarray) value estimates of the observations of every step, shape (n_steps, ...)
    :param episode_starts: (np.ndarray) per step, whether its observation starts an episode
    :param last_values: (np.ndarray) value estimates of the observations after the last step
    :param last_episode_starts: (np.ndarray) whether the observations after the last step start an episode
    :param gamma: (float) discount factor
    :param lam: (float) GAE lambda, trade-off of bias (0: one-step TD) against variance (1: Monte-Carlo)
    :return: (np.ndarray) the advantages as float64 (each exactly the value of the recursion)
    """
    n_steps = len(rewards)
    advantages = np.zeros(np.shape(rewards), dtype=np.float64)
    if n_steps == 0:
        return advantages
    # the TD errors of all steps at once, each with the same operations (hence the same rounding) as one by one;
    # the last step bootstraps on the values after the rollout, in the dtypes the caller gave them
    continues = 1.0 - np.asarray(episode_starts[1:])
    td_errors = rewards[:-1] + gamma * values[1:] * continues - values[:-1]
    last_continues = 1.0 - last_episode_starts
    last_td_error = rewards[-1] + gamma * last_values * last_continues - values[-1]
    carry = last_td_error + gamma * lam * last_continues * 0
    advantages[-1] = carry
    for step in range(n_steps - 2, -1, -1):
        carry = td_errors[step] + gamma * lam * continues[step] * carry
        advantages[step] = carry
    return advantages
