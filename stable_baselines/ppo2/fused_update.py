"""
The whole update of PPO2 (every epoch, every minibatch) in one session call, for feed-forward policies.

The minibatch order (:func:`run_indices`, which the minibatch loop draws too) comes from NumPy, the per-minibatch
advantage normalisation is computed in NumPy as there, and the Adam steps run in a graph loop made by
:class:`stable_baselines.common.engine.repeated_step.RepeatedStep` from the model's own training step, so the parameters
and the statistics are those of the loop of session calls.
"""
from typing import Any, Dict, List, Optional, Tuple

import numpy as np

from stable_baselines.common.engine.repeated_step import RepeatedStep, optional_repeated_step
from stable_baselines.common.tf_util import FeedCallable, feed_callable


def run_indices(n_rows: int, n_passes: int, rows_per_step: int, shuffle: Any) -> np.ndarray:
    """
    The rows of every step of ``n_passes`` shuffled passes over ``n_rows`` rows, cut in steps of
    ``rows_per_step``: for every pass ``shuffle`` reorders the running order in place, as minibatch loops do.

    :param n_rows: (int) rows of the whole batch
    :param n_passes: (int) passes (epochs)
    :param rows_per_step: (int) rows of one step (the last step of a pass may be shorter only if it divides)
    :param shuffle: (callable) shuffles an array in place (e.g. ``np.random.shuffle``)
    :return: (np.ndarray) int32 array (n_passes * steps per pass, rows_per_step)
    """
    order = np.arange(n_rows)
    steps: List[np.ndarray] = []
    for _ in range(n_passes):
        shuffle(order)
        steps.extend(order[first:first + rows_per_step].copy() for first in range(0, n_rows, rows_per_step))
    return np.asarray(steps, dtype=np.int32)


def normalised_advantages(returns: np.ndarray, values: np.ndarray) -> np.ndarray:
    """
    :param returns: (np.ndarray) the value targets of a minibatch
    :param values: (np.ndarray) the value predictions made while acting
    :return: (np.ndarray) their difference, standardised within the minibatch
    """
    advantages = returns - values
    return (advantages - advantages.mean()) / (advantages.std() + 1e-8)


def _normalised_per_step(returns: np.ndarray, values: np.ndarray, indices: np.ndarray) -> np.ndarray:
    """
    :func:`normalised_advantages` of the rows of every step at once (the reductions run along each row as they
    run on a single minibatch: the same numbers).

    :param returns: (np.ndarray) the value targets of the rollout
    :param values: (np.ndarray) the value predictions made while acting
    :param indices: (np.ndarray) the rows of each step, shape (steps, rows per step)
    :return: (np.ndarray) the standardised advantages of each step, shape (steps, rows per step)
    """
    advantages = returns[indices] - values[indices]
    return (advantages - advantages.mean(axis=1, keepdims=True)) / (advantages.std(axis=1, keepdims=True) + 1e-8)


class FusedUpdate:
    """
    The epochs of minibatch steps of a PPO2 model with a feed-forward policy, one graph loop per kind of feed
    (with or without action masks and value clipping input), built the first time it is needed.

    :param model: (PPO2) the model, its graph built
    """

    def __init__(self, model: Any) -> None:
        self.model = model
        # False: every update runs its minibatches one session call at a time
        self.enabled = True
        # (masked, value clipping fed, rows per minibatch) -> the loop, or None when the step cannot run in a loop;
        # for the graph they were built in (a new graph, e.g. after loading parameters into a rebuilt model,
        # starts afresh)
        self._loops: Dict[Tuple[bool, bool, int], Optional[RepeatedStep]] = {}
        self._graph: Any = None
        # the session calls running the loops, for the session they were made in
        self._calls: Dict[Tuple[bool, bool, int], FeedCallable] = {}
        self._session: Any = None

    def _loop(self, masked: bool, vf_clip_fed: bool, rows: int, train_op: Any) -> Optional[RepeatedStep]:
        """
        :param masked: (bool) the steps feed action masks
        :param vf_clip_fed: (bool) the steps feed the value clipping range
        :param rows: (int) transitions per minibatch (the copies of the step are built for this size)
        :param train_op: (tf.Operation) the model's training step (Adam on the clipped gradients)
        :return: (RepeatedStep) the loop for these feeds (None: not possible for this model)
        """
        key = (masked, vf_clip_fed, rows)
        model = self.model
        if self._graph is not model.graph:
            self._loops, self._graph = {}, model.graph
        if key not in self._loops:
            gathered = [model.train_model.obs_ph, model.action_ph, model.rewards_ph, model.old_neglog_pac_ph,
                        model.old_vpred_ph]
            if masked:
                gathered.append(model.train_model.action_mask_ph)
            constants = loop_constants(model, vf_clip_fed)
            with model.graph.as_default():
                self._loops[key] = optional_repeated_step(
                    [model.pg_loss, model.vf_loss, model.entropy, model.approxkl, model.clipfrac], train_op,
                    gathered=gathered, stacked=[model.advs_ph], constants=constants, name="fused_update",
                    rows_per_step=rows)
        return self._loops[key]

    def _call(self, key: Tuple[bool, bool, int], loop: RepeatedStep, vf_clip_fed: bool) -> FeedCallable:
        """:return: (FeedCallable) the session call running ``loop`` (made once per session)"""
        sess = self.model.sess
        if self._session is not sess:
            self._calls, self._session = {}, sess
        if key not in self._calls:
            self._calls[key] = feed_callable(sess, [loop.stats], loop.feeds + loop_constants(self.model, vf_clip_fed))
        return self._calls[key]

    def run(self, rollout: Any, action_masks: Optional[np.ndarray], batch_size: int, learning_rate: float,
            cliprange: float, cliprange_vf: Optional[float], train_op: Any) -> Optional[np.ndarray]:
        """
        Train on one rollout: ``noptepochs`` shuffled passes of ``batch_size`` minibatches (the order drawn from
        ``np.random`` as the minibatch loop draws it).

        :param rollout: (PPO2Batch) the rollout (feed-forward: no states)
        :param action_masks: (np.ndarray) the allowed actions of every transition (None: no masks)
        :param batch_size: (int) transitions per minibatch
        :param learning_rate: (float) Adam's step size for this update
        :param cliprange: (float) clipping range of the probability ratio
        :param cliprange_vf: (float) clipping range of the value prediction (None or negative: not fed)
        :param train_op: (tf.Operation) the model's training step, repeated in the loop
        :return: (np.ndarray) the five statistics of every minibatch, shape (steps, 5); None (and nothing drawn
            or trained) when the update cannot run in one call
        """
        if not self.enabled or self.model.max_grad_norm is None:
            # without the global-norm clipping an Adam update of one layer may run, in the session step, before
            # the backward product through that layer's weights has read them; the loop waits for every gradient,
            # which would change the numbers, so such models keep their minibatch loop
            return None
        vf_clip_fed = cliprange_vf is not None and cliprange_vf >= 0
        if batch_size <= 0 or self.model.n_batch % batch_size != 0:
            return None
        loop = self._loop(action_masks is not None, vf_clip_fed, batch_size, train_op)
        if loop is None or not isinstance(rollout.observations, np.ndarray):
            return None
        model = self.model
        indices = run_indices(model.n_batch, model.noptepochs, batch_size, np.random.shuffle)
        advantages = _normalised_per_step(rollout.returns, rollout.values, indices)
        values: List[Any] = [indices, rollout.observations, rollout.actions, rollout.returns, rollout.neglogpacs,
                             rollout.values]
        if action_masks is not None:
            values.append(action_masks)
        values.append(advantages)
        values.extend([learning_rate, cliprange])
        if vf_clip_fed:
            values.append(cliprange_vf)
        call = self._call((action_masks is not None, vf_clip_fed, batch_size), loop, vf_clip_fed)
        return call(*values)[0]


def loop_constants(model: Any, vf_clip_fed: bool) -> List[Any]:
    """:return: ([tf.Tensor]) the placeholders fed once per update, in the order :meth:`FusedUpdate.run` feeds"""
    constants = [model.learning_rate_ph, model.clip_range_ph]
    if vf_clip_fed:
        constants.append(model.clip_range_vf_ph)
    return constants
