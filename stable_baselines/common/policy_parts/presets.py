"""
The ready-made actor-critic policies: :class:`FeedForwardPolicy` and :class:`LstmPolicy` with the feature
extraction (and the LSTM's layer normalisation) fixed. Any other keyword reaches the base class (``net_arch``,
``act_fun``, ... or, for the CNN ones, the CNN extractor).
"""
from typing import Any, Dict, Optional

from gymnasium import spaces

from stable_baselines.common.policy_parts import public
from stable_baselines.common.policy_parts.feedforward import FeedForwardPolicy
from stable_baselines.common.policy_parts.recurrent import LstmPolicy
from stable_baselines.common.tf_compat import tf


class _FeedForwardPreset(FeedForwardPolicy):
    """A :class:`FeedForwardPolicy` whose subclass fixes some constructor keywords (``_fixed``)."""

    _fixed: Dict[str, Any] = {}

    def __init__(self, sess: Optional[tf.Session], ob_space: spaces.Space, ac_space: spaces.Space, n_env: int,
                 n_steps: int, n_batch: Optional[int], reuse: bool = False, **_kwargs):
        super().__init__(sess, ob_space, ac_space, n_env, n_steps, n_batch, reuse, **self._fixed, **_kwargs)


class _LstmPreset(LstmPolicy):
    """An :class:`LstmPolicy` whose subclass fixes some constructor keywords (``_fixed``)."""

    _fixed: Dict[str, Any] = {}

    def __init__(self, sess: Optional[tf.Session], ob_space: spaces.Space, ac_space: spaces.Space, n_env: int,
                 n_steps: int, n_batch: int, n_lstm: int = 256, reuse: bool = False, **_kwargs):
        super().__init__(sess, ob_space, ac_space, n_env, n_steps, n_batch, n_lstm, reuse, **self._fixed, **_kwargs)


@public
class MlpPolicy(_FeedForwardPreset):
    """
    Actor-critic policy with an MLP: two layers of 64 units for the policy, two for the value
    function (unless ``net_arch`` says otherwise).

    :param sess: (tf.Session) the session the policy runs in
    :param ob_space: (gym.Space) observation space
    :param ac_space: (gym.Space) action space
    :param n_env: (int) number of environments stepped together
    :param n_steps: (int) steps per environment in one batch
    :param n_batch: (int) rows of the placeholders (n_env * n_steps)
    :param reuse: (bool) reuse the variables of an earlier policy of the same graph
    :param _kwargs: (dict) more arguments of :class:`FeedForwardPolicy` (``net_arch``, ``act_fun``)
    """

    _fixed = {"feature_extraction": "mlp"}


@public
class CnnPolicy(_FeedForwardPreset):
    """
    Actor-critic policy on images, through the Nature CNN (:func:`nature_cnn`) both heads share.

    :param sess: (tf.Session) the session the policy runs in
    :param ob_space: (gym.Space) observation space
    :param ac_space: (gym.Space) action space
    :param n_env: (int) number of environments stepped together
    :param n_steps: (int) steps per environment in one batch
    :param n_batch: (int) rows of the placeholders (n_env * n_steps)
    :param reuse: (bool) reuse the variables of an earlier policy of the same graph
    :param _kwargs: (dict) arguments of the CNN extractor
    """

    _fixed = {"feature_extraction": "cnn"}


@public
class MlpLstmPolicy(_LstmPreset):
    """
    Actor-critic policy with an MLP (two layers of 64) then an LSTM.

    :param sess: (tf.Session) the session the policy runs in
    :param ob_space: (gym.Space) observation space
    :param ac_space: (gym.Space) action space
    :param n_env: (int) number of environments stepped together
    :param n_steps: (int) steps per environment in one batch
    :param n_batch: (int) rows of the placeholders (n_env * n_steps)
    :param n_lstm: (int) cells of the LSTM
    :param reuse: (bool) reuse the variables of an earlier policy of the same graph
    :param _kwargs: (dict) more arguments of :class:`LstmPolicy` (``net_arch``, ``act_fun``)
    """

    _fixed = {"layer_norm": False, "feature_extraction": "mlp"}


@public
class MlpLnLstmPolicy(_LstmPreset):
    """
    Actor-critic policy with an MLP (two layers of 64) then a layer-normalised LSTM.

    :param sess: (tf.Session) the session the policy runs in
    :param ob_space: (gym.Space) observation space
    :param ac_space: (gym.Space) action space
    :param n_env: (int) number of environments stepped together
    :param n_steps: (int) steps per environment in one batch
    :param n_batch: (int) rows of the placeholders (n_env * n_steps)
    :param n_lstm: (int) cells of the LSTM
    :param reuse: (bool) reuse the variables of an earlier policy of the same graph
    :param _kwargs: (dict) more arguments of :class:`LstmPolicy` (``net_arch``, ``act_fun``)
    """

    _fixed = {"layer_norm": True, "feature_extraction": "mlp"}


@public
class CnnLstmPolicy(_LstmPreset):
    """
    Actor-critic policy on images: the Nature CNN, then an LSTM.

    :param sess: (tf.Session) the session the policy runs in
    :param ob_space: (gym.Space) observation space
    :param ac_space: (gym.Space) action space
    :param n_env: (int) number of environments stepped together
    :param n_steps: (int) steps per environment in one batch
    :param n_batch: (int) rows of the placeholders (n_env * n_steps)
    :param n_lstm: (int) cells of the LSTM
    :param reuse: (bool) reuse the variables of an earlier policy of the same graph
    :param _kwargs: (dict) arguments of the CNN extractor
    """

    _fixed = {"layer_norm": False, "feature_extraction": "cnn"}


@public
class CnnLnLstmPolicy(_LstmPreset):
    """
    Actor-critic policy on images: the Nature CNN, then a layer-normalised LSTM.

    :param sess: (tf.Session) the session the policy runs in
    :param ob_space: (gym.Space) observation space
    :param ac_space: (gym.Space) action space
    :param n_env: (int) number of environments stepped together
    :param n_steps: (int) steps per environment in one batch
    :param n_batch: (int) rows of the placeholders (n_env * n_steps)
    :param n_lstm: (int) cells of the LSTM
    :param reuse: (bool) reuse the variables of an earlier policy of the same graph
    :param _kwargs: (dict) arguments of the CNN extractor
    """

    _fixed = {"layer_norm": True, "feature_extraction": "cnn"}
