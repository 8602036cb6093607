"""
NumPy helpers of the algorithms: logging means, explained variance, flattening parameter vectors,
discounted returns and the rescaling of continuous actions.
"""
from typing import Any, List, Sequence, Tuple

import numpy as np

_NO_VARIANCE = 1e-10


def safe_mean(arr: Sequence) -> float:
    """
    Mean of the values, or NaN when there are none (for logging episode statistics early on).

    :param arr: (np.ndarray or list) the values
    :return: (float) their mean, NaN for an empty input
    """
    if len(arr) == 0:
        return np.nan
    return np.mean(arr)


def _require_ndim(y_pred: np.ndarray, y_true: np.ndarray, ndim: int, caller: str) -> None:
    """
    Check that the prediction and the target both have ``ndim`` dimensions.

    :param y_pred: (np.ndarray) the prediction
    :param y_true: (np.ndarray) the target
    :param ndim: (int) the expected number of dimensions
    :param caller: (str) name of the function, for the message
    """
    if y_pred.ndim == ndim and y_true.ndim == ndim:
        return
    raise ValueError("{} expects {}-D arrays, got y_pred of shape {} and y_true of shape {}"
                     .format(caller, ndim, y_pred.shape, y_true.shape))


def explained_variance(y_pred: np.ndarray, y_true: np.ndarray) -> float:
    """
    Share of the variance of ``y_true`` that ``y_pred`` accounts for: ``1 - Var[y_true - y_pred] / Var[y_true]``.
    1 is a perfect prediction, 0 is no better than a constant, a negative value is worse than a constant.

    :param y_pred: (np.ndarray) the prediction (1-D)
    :param y_true: (np.ndarray) the target (1-D)
    :return: (float) the explained variance (NaN when ``y_true`` is constant)
    """
    y_pred = np.asarray(y_pred)
    y_true = np.asarray(y_true)
    _require_ndim(y_pred, y_true, 1, "explained_variance")
    target_variance = np.var(y_true)
    if target_variance == 0:
        return np.nan
    return 1 - np.var(y_true - y_pred) / target_variance


def explained_variance_2d(y_pred: np.ndarray, y_true: np.ndarray) -> np.ndarray:
    """
    :func:`explained_variance` of every column of 2-D arrays (0 for a column where ``y_true`` is constant).

    :param y_pred: (np.ndarray) the prediction (2-D)
    :param y_true: (np.ndarray) the target (2-D)
    :return: (np.ndarray) one explained variance per column
    """
    y_pred = np.asarray(y_pred)
    y_true = np.asarray(y_true)
    _require_ndim(y_pred, y_true, 2, "explained_variance_2d")
    target_variance = np.var(y_true, axis=0)
    constant_columns = target_variance < _NO_VARIANCE
    denominator = np.where(constant_columns, 1.0, target_variance)
    result = 1 - np.var(y_true - y_pred, axis=0) / denominator
    result[constant_columns] = 0
    return result


def flatten_arrays(arrs: Sequence[np.ndarray]) -> np.ndarray:
    """
    Concatenate arrays of any shapes into one 1-D vector.

    :param arrs: ([np.ndarray]) the arrays
    :return: (np.ndarray) their elements, one after the other
    """
    return np.concatenate([np.asarray(part).ravel() for part in arrs])


def unflatten_vector(vec: np.ndarray, shapes: Sequence[Tuple[int, ...]]) -> List[np.ndarray]:
    """
    Cut a 1-D vector back into arrays of the given shapes (the inverse of :func:`flatten_arrays`).

    :param vec: (np.ndarray) the 1-D vector
    :param shapes: ([tuple]) the shapes, in order
    :return: ([np.ndarray]) one array per shape (views of ``vec``)
    """
    vec = np.asarray(vec)
    sizes = [int(np.prod(shape)) for shape in shapes]
    expected = int(sum(sizes))
    if vec.ndim != 1 or vec.size != expected:
        raise ValueError("unflatten_vector expects a 1-D vector of {} elements for the shapes {}, got shape {}"
                         .format(expected, list(shapes), vec.shape))
    boundaries = np.cumsum([0] + sizes)
    return [vec[begin:end].reshape(shape) for begin, end, shape in zip(boundaries[:-1], boundaries[1:], shapes)]


def discount(vector: np.ndarray, gamma: float) -> np.ndarray:
    """
    Discounted sums along the first axis: ``out[t] = sum_k gamma^k * vector[t + k]`` up to the end.

    :param vector: (np.ndarray) the values (e.g. rewards), time on axis 0
    :param gamma: (float) the discount factor
    :return: (np.ndarray) the discounted sums, same shape
    """
    vector = np.asarray(vector)
    if vector.ndim < 1:
        raise ValueError("discount expects an array of at least 1 dimension, got a scalar")
    import scipy.signal  # pylint: disable=import-outside-toplevel
    # out[t] - gamma * out[t + 1] = vector[t]: a first-order filter run backwards in time
    backwards = scipy.signal.lfilter([1], [1, -gamma], vector[::-1], axis=0)
    return backwards[::-1]


def discount_with_boundaries(rewards: np.ndarray, episode_starts: np.ndarray, gamma: float) -> np.ndarray:
    """
    Like :func:`discount`, but a sum stops where a new episode starts.

    :param rewards: (np.ndarray) the rewards, time on axis 0
    :param episode_starts: (np.ndarray) 1 (True) where a step is the first of an episode, same length as rewards
    :param gamma: (float) the discount factor
    :return: (np.ndarray) the discounted returns
    """
    rewards = np.asarray(rewards)
    episode_starts = np.asarray(episode_starts)
    if rewards.shape[0] != episode_starts.shape[0]:
        raise ValueError("rewards and episode_starts must have the same length along axis 0, got shapes {} and {}"
                         .format(rewards.shape, episode_starts.shape))
    returns = np.zeros_like(rewards)
    length = rewards.shape[0]
    if length == 0:
        return returns
    returns[-1] = rewards[-1]
    for step in reversed(range(length - 1)):
        continues = 1 - episode_starts[step + 1]
        returns[step] = rewards[step] + gamma * returns[step + 1] * continues
    return returns


def scale_action(action_space: Any, action: np.ndarray) -> np.ndarray:
    """
    Map an action from the box ``[low, high]`` to ``[-1, 1]`` (the box need not be symmetric).

    :param action_space: (gym.spaces.Box) the action space
    :param action: (np.ndarray) the action, in the space's bounds
    :return: (np.ndarray) the action in [-1, 1]
    """
    low = action_space.low
    width = action_space.high - low
    return 2.0 * ((action - low) / width) - 1.0


def unscale_action(action_space: Any, scaled_action: np.ndarray) -> np.ndarray:
    """
    Map an action from ``[-1, 1]`` back to the box ``[low, high]`` (inverse of :func:`scale_action`).

    :param action_space: (gym.spaces.Box) the action space
    :param scaled_action: (np.ndarray) the action in [-1, 1]
    :return: (np.ndarray) the action in the space's bounds
    """
    low = action_space.low
    width = action_space.high - low
    return low + (0.5 * (scaled_action + 1.0) * width)


__all__ = ["safe_mean", "explained_variance", "explained_variance_2d", "flatten_arrays", "unflatten_vector",
           "discount", "discount_with_boundaries", "scale_action", "unscale_action"]
