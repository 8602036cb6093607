"""
The ready-made actor-critic policies: :class:`FeedForwardPolicy` and :class:`LstmPolicy` with the feature
extraction (and the LSTM's layer normalisation) fixed. Any other keyword reaches the base class (``net_arch``,
``act_fun``, ... or, for the CNN ones, the CNN extractor).
"""
from typing import Any, Dict, Optional

from gymnasium import spaces

from stable_baselines.common.policy_parts import public
from stable_baselines.common.policy_parts.feedforward import FeedForwardPolicy
from stable_baselines.common.policy_parts.ready_made import BATCH, parameters_doc, preset
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


# the last parameter of the MLP presets, and of the CNN ones
_MORE = "(dict) more arguments of :class:`{}` (``net_arch``, ``act_fun``)"
_CNN_KWARGS = "(dict) arguments of the CNN extractor"
_MLP_DOC = parameters_doc(*BATCH, "_kwargs", _kwargs=_MORE.format("FeedForwardPolicy"))
_CNN_DOC = parameters_doc(*BATCH, "_kwargs", _kwargs=_CNN_KWARGS)
_LSTM = BATCH[:6] + ("n_lstm", "reuse", "_kwargs")
_MLP_LSTM_DOC = parameters_doc(*_LSTM, _kwargs=_MORE.format("LstmPolicy"))
_CNN_LSTM_DOC = parameters_doc(*_LSTM, _kwargs=_CNN_KWARGS)

MlpPolicy = public(preset(
    (_FeedForwardPreset,), "MlpPolicy", "Actor-critic policy with an MLP: two layers of 64 units for the policy, two "
    "for the value\n    function (unless ``net_arch`` says otherwise).", _MLP_DOC, feature_extraction="mlp"))
CnnPolicy = public(preset(
    (_FeedForwardPreset,), "CnnPolicy", "Actor-critic policy on images, through the Nature CNN (:func:`nature_cnn`) "
    "both heads share.", _CNN_DOC, feature_extraction="cnn"))
MlpLstmPolicy = public(preset(
    (_LstmPreset,), "MlpLstmPolicy", "Actor-critic policy with an MLP (two layers of 64) then an LSTM.",
    _MLP_LSTM_DOC, layer_norm=False, feature_extraction="mlp"))
MlpLnLstmPolicy = public(preset(
    (_LstmPreset,), "MlpLnLstmPolicy", "Actor-critic policy with an MLP (two layers of 64) then a layer-normalised "
    "LSTM.", _MLP_LSTM_DOC, layer_norm=True, feature_extraction="mlp"))
CnnLstmPolicy = public(preset(
    (_LstmPreset,), "CnnLstmPolicy", "Actor-critic policy on images: the Nature CNN, then an LSTM.", _CNN_LSTM_DOC,
    layer_norm=False, feature_extraction="cnn"))
CnnLnLstmPolicy = public(preset(
    (_LstmPreset,), "CnnLnLstmPolicy", "Actor-critic policy on images: the Nature CNN, then a layer-normalised LSTM.",
    _CNN_LSTM_DOC, layer_norm=True, feature_extraction="cnn"))
