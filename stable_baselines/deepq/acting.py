"""
How a DQN model acts outside ``learn``: ``predict``, ``action_probability`` and the export of its greedy policy, from
the Q-values of the step model (its NumPy copy when it has one).
"""
from typing import TYPE_CHECKING, Any, Callable, Optional, Tuple

import numpy as np

from stable_baselines.common.export import ARGMAX, ExportSpec
from stable_baselines.common.model.observations import batch_observation as _predict_input
from stable_baselines.common.policy_parts.action_masks import checked_masks, masked_actions, masked_probabilities
from stable_baselines.common.model.off_policy import OffPolicyRLModel
from stable_baselines.deepq.policies import DQNPolicy

if TYPE_CHECKING:
    # to the type checker the mixin is the model base it is put in front of
    _MixinBase = OffPolicyRLModel
else:
    _MixinBase = object


class DQNActing(_MixinBase):
    """Mixin of :class:`stable_baselines.deepq.DQN` (put before its model base): acting with a built model."""

    step_model: Optional[DQNPolicy]
    proba_step: Optional[Callable]

    def _n_actions(self) -> int:
        """:return: (int) the number of actions"""
        return int(self._built(self.action_space, "action_space").n)

    def _q_values(self, obs: np.ndarray, numpy_q: Any = None) -> np.ndarray:
        """:return: (np.ndarray) the online network's Q-values of a batch of observations"""
        q_values = None if numpy_q is None else numpy_q.q_values(obs)
        if q_values is None:
            step_model = self._built(self.step_model, "step_model")
            q_values = self._built(self.sess, "sess").run(step_model.q_values, {step_model.obs_ph: obs})
        return q_values

    def _predict_masked(self, observation: np.ndarray, deterministic: bool, action_masks: Any) -> Tuple[Any, None]:
        """``predict`` among the allowed actions only."""
        observation, vectorized_env = _predict_input(observation, self._built(self.observation_space,
                                                                              "observation_space"))
        masks = checked_masks(action_masks, len(observation), self._n_actions())
        if deterministic:
            numpy_q = self.fast_path.copy_of(self._built(self.step_model, "step_model"))
            scores = np.where(masks, self._q_values(observation, numpy_q), -np.inf)
            if not masks.any(axis=1).all():
                raise ValueError("Each observation's action mask must allow at least one action")
            actions = np.argmax(scores, axis=1)
        else:
            probabilities = self._built(self.proba_step, "proba_step")(observation)
            actions = masked_actions(self._built(self.action_space, "action_space"), probabilities, masks, False)
        return (actions if vectorized_env else actions[0]), None

    def predict(self, observation: np.ndarray, state: Optional[np.ndarray] = None, mask: Optional[np.ndarray] = None,
                deterministic: bool = True, action_masks: Optional[np.ndarray] = None) -> Tuple[Any, None]:
        """
        The greedy action (``deterministic``), or one drawn from the softmax of the Q-values.

        :param observation: (np.ndarray) one observation or a batch of them
        :param state: (np.ndarray) unused (DQN has no recurrent policy)
        :param mask: (np.ndarray) unused
        :param deterministic: (bool) the greedy action (True) or a sampled one
        :param action_masks: (np.ndarray) the allowed actions, bool, shape (n_actions,) or (batch, n_actions)
            (None: all actions)
        :return: (np.ndarray, None) the action(s), and no state
        """
        if action_masks is not None:
            return self._predict_masked(observation, deterministic, action_masks)
        step_model = self._built(self.step_model, "step_model")
        if deterministic:
            # one observation: the NumPy single-row path
            scores = self.fast_path.single_row(step_model, observation, self.observation_space)
            if scores is not None:
                return scores.argmax(), None
        observation, vectorized_env = _predict_input(observation, self._built(self.observation_space,
                                                                              "observation_space"))
        with self._built(self.sess, "sess").as_default():
            actions, _, _ = step_model.step(observation, deterministic=deterministic)
        return (actions if vectorized_env else actions[0]), None

    def action_probability(self, observation: np.ndarray, state: Optional[np.ndarray] = None,
                           mask: Optional[np.ndarray] = None, actions: Optional[np.ndarray] = None,
                           logp: bool = False, action_masks: Optional[np.ndarray] = None) -> np.ndarray:
        """
        The softmax of the Q-values, or (``actions`` given) the probability of each given action under it.

        :param observation: (np.ndarray) one observation or a batch of them
        :param state: (np.ndarray) unused (DQN has no recurrent policy)
        :param mask: (np.ndarray) unused
        :param actions: (np.ndarray) one action per observation (None: the whole distribution)
        :param logp: (bool) with ``actions``: the log-probabilities
        :param action_masks: (np.ndarray) the allowed actions (None: all): the softmax over them only
        :return: (np.ndarray) the probabilities, shape (n_actions,) or (batch, n_actions); with ``actions``
            shape (1,) or (batch, 1)
        """
        observation, vectorized_env = _predict_input(observation, self._built(self.observation_space,
                                                                              "observation_space"))
        probabilities = self._built(self.proba_step, "proba_step")(observation, state, mask)
        if action_masks is not None:
            probabilities = masked_probabilities(self._built(self.action_space, "action_space"), probabilities,
                                                 checked_masks(action_masks, len(observation), self._n_actions()))
        if actions is not None:
            probabilities = self._probability_of(probabilities, actions, observation.shape[0], logp)
        if vectorized_env:
            return probabilities
        if state is not None:
            raise ValueError("Error: The environment must be vectorized when using recurrent policies.")
        return probabilities[0]

    def _probability_of(self, probabilities: np.ndarray, actions: Any, n_obs: int, logp: bool) -> np.ndarray:
        """
        :return: (np.ndarray) column of the (log-)probabilities of ``actions``, one per observation
        """
        n_actions = self._built(self.action_space, "action_space").n
        actions = np.array([actions]).reshape((-1,))
        if actions.shape[0] != n_obs:
            raise ValueError("Error: batch sizes differ for actions ({}) and observations ({})."
                             .format(actions.shape[0], n_obs))
        if not np.issubdtype(actions.dtype, np.integer) or np.any(actions < 0) \
                or np.any(actions >= n_actions):
            raise ValueError("Error: actions must be ints in [0, {}), got {}".format(n_actions, actions))
        chosen = probabilities[np.arange(n_obs), actions].reshape((-1, 1))
        return np.log(chosen) if logp else chosen

    def _export_spec(self, batch_size: Optional[int] = None) -> ExportSpec:
        """:return: (ExportSpec) the greedy action: the argmax of the step model's Q-values"""
        step_model = self._built(self.step_model, "step_model")
        observation_space, _ = self._model_spaces()
        return ExportSpec(self.sess, step_model.obs_ph, step_model.q_values, ARGMAX,
                          observation_dtype=observation_space.dtype)
