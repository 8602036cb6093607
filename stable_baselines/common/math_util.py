"""
Numpy helpers shared by the algorithms: means, explained variance, discounting, action scaling.
"""
from typing import List, Sequence, Tuple

import numpy as np


def safe_mean(arr: Sequence) -> float:
    """
    Compute the mean of an array if there is at least one element.
    For empty array, return nan. It is used for logging only.

    :param arr: (np.ndarray or list)
    :return: (float)
    """
    return np.nan if len(arr) == 0 else np.mean(arr)


def _check_same_shape(y_pred: np.ndarray, y_true: np.ndarray, ndim: int, name: str) -> None:
    if y_true.ndim != ndim or y_pred.ndim != ndim:
        raise ValueError("{} expects {}-D arrays, got y_pred of shape {} and y_true of shape {}"
                         .format(name, ndim, y_pred.shape, y_true.shape))


def explained_variance(y_pred: np.ndarray, y_true: np.ndarray) -> float:
    """
    Computes fraction of variance that ypred explains about y.
    Returns 1 - Var[y-ypred] / Var[y]

    interpretation:
        ev=0  =>  might as well have predicted zero
        ev=1  =>  perfect prediction
        ev<0  =>  worse than just predicting zero

    :param y_pred: (np.ndarray) the prediction (1-D)
    :param y_true: (np.ndarray) the expected value (1-D)
    :return: (float) explained variance of ypred and y (nan when y_true has no variance)
    """
    y_pred, y_true = np.asarray(y_pred), np.asarray(y_true)
    _check_same_shape(y_pred, y_true, 1, "explained_variance")
    var_y = np.var(y_true)
    return np.nan if var_y == 0 else 1 - np.var(y_true - y_pred) / var_y


def explained_variance_2d(y_pred: np.ndarray, y_true: np.ndarray) -> np.ndarray:
    """
    Computes fraction of variance that ypred explains about y, for 2D arrays: one value per
    column. Returns 1 - Var[y-ypred] / Var[y] (0 for the columns where y has no variance).

    interpretation:
        ev=0  =>  might as well have predicted zero
        ev=1  =>  perfect prediction
        ev<0  =>  worse than just predicting zero

    :param y_pred: (np.ndarray) the prediction (2-D)
    :param y_true: (np.ndarray) the expected value (2-D)
    :return: (np.ndarray) explained variance of ypred and y, per column
    """
    y_pred, y_true = np.asarray(y_pred), np.asarray(y_true)
    _check_same_shape(y_pred, y_true, 2, "explained_variance_2d")
    var_y = np.var(y_true, axis=0)
    safe_var = np.where(var_y < 1e-10, 1.0, var_y)
    explained_var = 1 - np.var(y_true - y_pred, axis=0) / safe_var
    explained_var[var_y < 1e-10] = 0
    return explained_var


def flatten_arrays(arrs: Sequence[np.ndarray]) -> np.ndarray:
    """
    flattens a list of arrays down to 1D

    :param arrs: ([np.ndarray]) arrays
    :return: (np.ndarray) 1D flattened array
    """
    return np.concatenate([np.asarray(arr).ravel() for arr in arrs])


def unflatten_vector(vec: np.ndarray, shapes: Sequence[Tuple[int, ...]]) -> List[np.ndarray]:
    """
    reshape a flattened array

    :param vec: (np.ndarray) 1D arrays
    :param shapes: (tuple)
    :return: ([np.ndarray]) reshaped array
    """
    vec = np.asarray(vec)
    total = int(sum(int(np.prod(shape)) for shape in shapes))
    if vec.ndim != 1 or vec.size != total:
        raise ValueError("unflatten_vector expects a 1-D vector of {} elements for the shapes {}, got shape {}"
                         .format(total, list(shapes), vec.shape))
    i = 0
    arrs = []
    for shape in shapes:
        size = int(np.prod(shape))
        arrs.append(vec[i:i + size].reshape(shape))
        i += size
    return arrs


def discount(vector: np.ndarray, gamma: float) -> np.ndarray:
    """
    computes discounted sums along 0th dimension of vector x.
        y[t] = x[t] + gamma*x[t+1] + gamma^2*x[t+2] + ... + gamma^k x[t+k],
                where k = len(x) - t - 1

    :param vector: (np.ndarray) the input vector
    :param gamma: (float) the discount value
    :return: (np.ndarray) the output vector
    """
    vector = np.asarray(vector)
    if vector.ndim < 1:
        raise ValueError("discount expects an array of at least 1 dimension, got a scalar")
    import scipy.signal
    return scipy.signal.lfilter([1], [1, -gamma], vector[::-1], axis=0)[::-1]


def discount_with_boundaries(rewards: np.ndarray, episode_starts: np.ndarray, gamma: float) -> np.ndarray:
    """
    computes discounted sums along 0th dimension of x (reward), while taking into account the start of each episode.
        y[t] = x[t] + gamma*x[t+1] + gamma^2*x[t+2] + ... + gamma^k x[t+k],
                where k = len(x) - t - 1

    :param rewards: (np.ndarray) the input vector (rewards)
    :param episode_starts: (np.ndarray) 2d array of bools, indicating when a new episode has started
    :param gamma: (float) the discount factor
    :return: (np.ndarray) the output vector (discounted rewards)
    """
    rewards = np.asarray(rewards)
    episode_starts = np.asarray(episode_starts)
    if rewards.shape[0] != episode_starts.shape[0]:
        raise ValueError("rewards and episode_starts must have the same length along axis 0, got shapes {} and {}"
                         .format(rewards.shape, episode_starts.shape))
    discounted_rewards = np.zeros_like(rewards)
    n_samples = rewards.shape[0]
    if n_samples == 0:
        return discounted_rewards
    discounted_rewards[n_samples - 1] = rewards[n_samples - 1]
    for step in range(n_samples - 2, -1, -1):
        discounted_rewards[step] = rewards[step] + gamma * discounted_rewards[step + 1] * (1 - episode_starts[step + 1])
    return discounted_rewards


def scale_action(action_space, action: np.ndarray) -> np.ndarray:
    """
    Rescale the action from [low, high] to [-1, 1]
    (no need for symmetric action space)

    :param action_space: (gym.spaces.box.Box)
    :param action: (np.ndarray)
    :return: (np.ndarray)
    """
    low, high = action_space.low, action_space.high
    return 2.0 * ((action - low) / (high - low)) - 1.0


def unscale_action(action_space, scaled_action: np.ndarray) -> np.ndarray:
    """
    Rescale the action from [-1, 1] to [low, high]
    (no need for symmetric action space)

    :param action_space: (gym.spaces.box.Box)
    :param scaled_action: (np.ndarray)
    :return: (np.ndarray)
    """
    low, high = action_space.low, action_space.high
    return low + (0.5 * (scaled_action + 1.0) * (high - low))


__all__ = ["safe_mean", "explained_variance", "explained_variance_2d", "flatten_arrays", "unflatten_vector",
           "discount", "discount_with_boundaries", "scale_action", "unscale_action"]
