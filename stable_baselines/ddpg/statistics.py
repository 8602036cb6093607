"""
What DDPG reports: the reference statistics of its networks (computed on one replay-buffer batch drawn once,
so that successive tables compare the same inputs) and the epoch table, averaged over the MPI workers.
"""
from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np
from mpi4py import MPI

from stable_baselines import logger
from stable_baselines.common.math_util import safe_mean
from stable_baselines.common.mpi_running_mean_std import RunningMeanStd
from stable_baselines.common.tf_compat import tf


def reduce_var(tensor: tf.Tensor, axis: Optional[int] = None, keepdims: bool = False) -> tf.Tensor:
    """
    :param tensor: (TensorFlow Tensor) the values
    :param axis: (int or [int]) the axes to reduce (None: all)
    :param keepdims: (bool) keep the reduced axes with length 1
    :return: (TensorFlow Tensor) the (biased) variance: the mean squared deviation from the mean
    """
    centred = tensor - tf.reduce_mean(tensor, axis=axis, keepdims=True)
    return tf.reduce_mean(tf.square(centred), axis=axis, keepdims=keepdims)


def reduce_std(tensor: tf.Tensor, axis: Optional[int] = None, keepdims: bool = False) -> tf.Tensor:
    """
    :param tensor: (TensorFlow Tensor) the values
    :param axis: (int or [int]) the axes to reduce (None: all)
    :param keepdims: (bool) keep the reduced axes with length 1
    :return: (TensorFlow Tensor) the standard deviation, the square root of :func:`reduce_var`
    """
    return tf.sqrt(reduce_var(tensor, axis=axis, keepdims=keepdims))


def _mean_and_std(tensor: tf.Tensor) -> List[tf.Tensor]:
    """:return: ([TensorFlow Tensor]) the mean and the standard deviation of all entries"""
    return [tf.reduce_mean(tensor), reduce_std(tensor)]


def stats_ops_and_names(critic: tf.Tensor, critic_with_actor: tf.Tensor, actor: tf.Tensor,
                        ret_rms: Optional[RunningMeanStd], obs_rms: Optional[RunningMeanStd],
                        perturbed_actor: Optional[tf.Tensor]) -> Tuple[List[tf.Tensor], List[str]]:
    """
    The reference statistics: mean and std of the critic on the batch's actions, of the critic on the actor's
    actions, of the actions, then the return and observation statistics and the perturbed actions when used.

    :param critic: (TensorFlow Tensor) Q(s, a) of the batch
    :param critic_with_actor: (TensorFlow Tensor) Q(s, mu(s))
    :param actor: (TensorFlow Tensor) mu(s)
    :param ret_rms: (RunningMeanStd) the return statistics (None: not normalised)
    :param obs_rms: (RunningMeanStd) the observation statistics (None: not normalised)
    :param perturbed_actor: (TensorFlow Tensor) the actions of the perturbed actor (None: no parameter noise)
    :return: ([TensorFlow Tensor], [str]) the tensors and their names in the table
    """
    ops = _mean_and_std(critic) + _mean_and_std(critic_with_actor) + _mean_and_std(actor)
    names = ['reference_Q_mean', 'reference_Q_std', 'reference_actor_Q_mean', 'reference_actor_Q_std',
             'reference_action_mean', 'reference_action_std']
    if ret_rms is not None:
        ops += [ret_rms.mean, ret_rms.std]
        names += ['ret_rms_mean', 'ret_rms_std']
    if obs_rms is not None:
        ops += [tf.reduce_mean(obs_rms.mean), tf.reduce_mean(obs_rms.std)]
        names += ['obs_rms_mean', 'obs_rms_std']
    if perturbed_actor is not None:
        ops += _mean_and_std(perturbed_actor)
        names += ['reference_perturbed_action_mean', 'reference_perturbed_action_std']
    return ops, names


def reference_feed(placeholders: Dict[str, Sequence[Any]], sample: Dict[str, np.ndarray]) -> Dict[Any, np.ndarray]:
    """
    :param placeholders: (dict) ``"obs"`` and ``"actions"`` -> the placeholders (None entries are skipped)
    :param sample: (dict) the fixed batch (``"obs"``, ``"actions"``, ...)
    :return: (dict) the feed dict of the reference statistics
    """
    return {placeholder: sample[kind] for kind in ("actions", "obs")
            for placeholder in placeholders[kind] if placeholder is not None}


def as_scalar(scalar: Any) -> Any:
    """
    :param scalar: (Any) a number or a one-element array
    :return: (Number) the number
    """
    if isinstance(scalar, np.ndarray):
        assert scalar.size == 1
        return scalar[0]
    if np.isscalar(scalar):
        return scalar
    raise ValueError('expected scalar, got %s' % scalar)


def mpi_average(values: Dict[str, Any]) -> Tuple[Dict[str, float], List[str], np.ndarray, int]:
    """
    Average scalars over the MPI workers (every worker must pass the same keys).

    :param values: (dict) name -> scalar
    :return: (dict, [str], np.ndarray, int) the averages, the sorted names, the sums, the number of workers
    """
    n_workers = MPI.COMM_WORLD.Get_size()
    keys = sorted(values.keys())
    sums = MPI.COMM_WORLD.allreduce(np.array([as_scalar(values[key]) for key in keys], dtype=np.float64))
    return {key: total / n_workers for key, total in zip(keys, sums)}, keys, sums, n_workers


def epoch_rollout_stats(state: Any, duration: float, param_noise_used: bool) -> Dict[str, Any]:
    """
    The rollout, training and timing entries of the epoch table (before the MPI average).

    :param state: (DDPGRun) the values of the running ``learn``
    :param duration: (float) seconds since ``learn`` started
    :param param_noise_used: (bool) whether the model has parameter noise
    :return: (dict) name -> value
    """
    return {
        'rollout/return': safe_mean(state.epoch_episode_rewards),
        'rollout/return_history': safe_mean(state.episode_rewards_history),
        'rollout/episode_steps': safe_mean(state.epoch_episode_steps),
        'rollout/actions_mean': safe_mean(state.epoch_actions),
        'rollout/Q_mean': safe_mean(state.epoch_qs),
        'train/loss_actor': safe_mean(state.epoch_actor_losses),
        'train/loss_critic': safe_mean(state.epoch_critic_losses),
        'train/param_noise_distance': safe_mean(state.epoch_adaptive_distances) if param_noise_used else 0.0,
        'total/duration': duration,
        'total/steps_per_second': float(state.log_step) / float(duration),
        'total/episodes': state.num_episodes,
        'rollout/episodes': state.epoch_episodes,
        'rollout/actions_std': np.std(state.epoch_actions) if len(state.epoch_actions) else np.nan,
    }


def write_table(table: Dict[str, Any], successes: List[float]) -> str:
    """
    Print the table (sorted by name), with the success rate of the last 100 episodes when the env reports one.

    :param table: (dict) name -> value
    :param successes: ([float]) the ``is_success`` of every finished episode
    :return: (str) the last name written
    """
    key = ''
    for key in sorted(table.keys()):
        logger.record_tabular(key, table[key])
    if len(successes) > 0:
        logger.logkv("success rate", np.mean(successes[-100:]))
    logger.dump_tabular()
    logger.info('')
    return key
