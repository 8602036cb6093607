"""
Actor-critic policies that carry a state from one step to the next: :class:`RecurrentActorCriticPolicy`
(the state and episode-start placeholders) and :class:`LstmPolicy` (one LSTM, scope ``model/lstm1``).
"""
import warnings
from typing import Any, Callable, List, Optional, Tuple, cast

import numpy as np
from gymnasium import spaces

from stable_baselines.common.policy_parts import public
from stable_baselines.common.policy_parts.base import ActorCriticPolicy
from stable_baselines.common.policy_parts.extractors import (NetArch, branch_sizes, branch_width, dense_layer,
                                                             is_layer_size, nature_cnn)
from stable_baselines.common.policy_parts.ready_made import BATCH, parameters_doc
from stable_baselines.common.tf_compat import tf
from stable_baselines.common.tf_layers import batch_to_seq, flatten, linear, lstm, seq_to_batch
from stable_baselines.common.engine.tf_run import session_run

# the layers before the LSTM of a legacy (``layers``) MLP policy that gives none
DEFAULT_LAYERS = (64, 64)


@public
class RecurrentActorCriticPolicy(ActorCriticPolicy):
    __doc__ = """
    An actor-critic policy whose step also reads and returns a state per environment (an LSTM's,
    or any other memory: see https://arxiv.org/abs/1905.12937). Adds the placeholders ``dones_ph``
    (episode starts, which reset the state) and ``states_ph`` in the ``input`` scope.

""" + parameters_doc(*BATCH[:6], "state_shape", "reuse", "scale",
                     state_shape="(tuple) shape of one environment's state",
                     scale="(bool) divide bounded Box observations (images) into [0, 1]")

    recurrent = True

    def __init__(self, sess: Optional[tf.Session], ob_space: spaces.Space, ac_space: spaces.Space, n_env: int,
                 n_steps: int, n_batch: int, state_shape: Tuple[int, ...], reuse: bool = False,
                 scale: bool = False) -> None:
        super().__init__(sess, ob_space, ac_space, n_env, n_steps, n_batch, reuse=reuse, scale=scale)
        states_shape = (self.n_env,) + tuple(state_shape)
        with tf.variable_scope("input", reuse=False):
            self._dones_ph = tf.placeholder(dtype=tf.float32, shape=(n_batch,), name="dones_ph")
            self._states_ph = tf.placeholder(dtype=tf.float32, shape=states_shape, name="states_ph")
        self._initial_state = np.zeros(states_shape, dtype=np.float32)

    @property
    def initial_state(self) -> np.ndarray:
        """np.ndarray: zeros, the state at the start of every episode, shape ``(n_env,) + state_shape``."""
        return self._initial_state

    @property
    def dones_ph(self) -> tf.Tensor:
        """tf.Tensor: 1.0 where an episode started at this step (its state is reset), shape (n_batch,)."""
        return self._dones_ph

    @property
    def states_ph(self) -> tf.Tensor:
        """tf.Tensor: the state before this batch, shape ``(n_env,) + state_shape``."""
        return self._states_ph

    def _recurrent_feed(self, obs: np.ndarray, state: Optional[np.ndarray], mask: Optional[np.ndarray]) -> dict:
        """The feed of one step; no state means the initial state, no mask means no episode start."""
        feed = {self.obs_ph: obs}
        feed.update(self._state_feed(state, mask))
        return feed

    def _state_feed(self, state: Optional[np.ndarray], mask: Optional[np.ndarray]) -> dict:
        """:return: (dict) the state and episode-start feeds of one step (the initial state, no episode start
            when not given)"""
        if state is None:
            state = self.initial_state
        if mask is None:
            mask = np.zeros((cast(int, self.n_batch),), dtype=np.float32)
        return {self.states_ph: state, self.dones_ph: mask}


def _check_batch(n_batch: Optional[int], n_env: Optional[int], n_steps: Optional[int]) -> None:
    if n_batch is None or n_env is None or n_steps is None or n_batch == n_env * n_steps:
        return
    raise ValueError("LstmPolicy needs n_batch == n_env * n_steps, got n_batch={}, n_env={}, n_steps={}"
                     .format(n_batch, n_env, n_steps))


@public
class LstmPolicy(RecurrentActorCriticPolicy):
    __doc__ = """
    Actor-critic policy with an LSTM of ``n_lstm`` cells (state: cell and hidden vectors, ``2 * n_lstm``).
    Without ``net_arch``, the torso (Nature CNN, or the MLP ``layers`` named ``pi_fc{i}``) feeds the
    LSTM, whose output feeds both heads. With ``net_arch`` (MLP only), ``'lstm'`` marks where the LSTM
    sits among the shared layers: ``[64, 'lstm', dict(pi=[32], vf=[32])]``.

""" + parameters_doc(*BATCH[:6], "n_lstm", "reuse") + """\
    :param layers: ([int]) deprecated: MLP widths before the LSTM (default [64, 64])
    :param net_arch: (list) the network, with one ``'lstm'`` among the shared layers; overrides ``layers``
    :param act_fun: (callable) activation of the MLP
    :param cnn_extractor: (callable) ``f(scaled_images, **kwargs) -> features`` for ``feature_extraction="cnn"``
    :param layer_norm: (bool) layer-normalised LSTM
    :param feature_extraction: (str) "cnn" or "mlp"
    :param kwargs: (dict) passed on to ``cnn_extractor``
    """

    recurrent = True

    def __init__(self, sess: Optional[tf.Session], ob_space: spaces.Space, ac_space: spaces.Space, n_env: int,
                 n_steps: int, n_batch: int, n_lstm: int = 256, reuse: bool = False,
                 layers: Optional[List[int]] = None, net_arch: Optional[NetArch] = None, act_fun: Callable = tf.tanh,
                 cnn_extractor: Callable = nature_cnn, layer_norm: bool = False, feature_extraction: str = "cnn",
                 **kwargs: Any) -> None:
        super().__init__(sess, ob_space, ac_space, n_env, n_steps, n_batch, state_shape=(2 * n_lstm,),
                         reuse=reuse, scale=feature_extraction == "cnn")
        self._kwargs_check(feature_extraction, kwargs)
        _check_batch(n_batch, n_env, n_steps)
        # what was built, for readers of the architecture (model.export(format="sb3"))
        self.n_lstm, self.layer_norm = n_lstm, layer_norm
        self.feature_extraction, self.net_arch, self.act_fun = feature_extraction, net_arch, act_fun
        self.layers = list(DEFAULT_LAYERS) if layers is None else list(layers)
        self.cnn_extractor, self.cnn_kwargs = cnn_extractor, dict(kwargs)
        self.snew = None  # the state after the batch (tf.Tensor), set when the LSTM is built
        if net_arch is None:
            self._build_legacy(layers, act_fun, cnn_extractor, feature_extraction, kwargs)
        else:
            if layers is not None:
                warnings.warn("The new net_arch parameter overrides the deprecated layers parameter.",
                              DeprecationWarning)
            if feature_extraction == "cnn":
                raise NotImplementedError("LstmPolicy: net_arch is only supported with feature_extraction='mlp'")
            self._build_from_net_arch(net_arch, act_fun)
        self._setup_init()

    def _lstm_layer(self, features: tf.Tensor) -> tf.Tensor:
        """Run the LSTM ``lstm1`` over the batch, one sequence per environment; the next state goes to ``snew``."""
        sequence = batch_to_seq(features, self.n_env, self.n_steps)
        starts = batch_to_seq(self.dones_ph, self.n_env, self.n_steps)
        outputs, self.snew = lstm(sequence, starts, self.states_ph, 'lstm1', n_hidden=self.n_lstm,
                                  layer_norm=self.layer_norm)
        return seq_to_batch(outputs)

    def _heads(self, pi_latent: tf.Tensor, vf_latent: tf.Tensor, **head_kwargs) -> None:
        self._value_fn = linear(vf_latent, 'vf', 1)
        self._proba_distribution, self._policy, self.q_value = \
            self.pdtype.proba_distribution_from_latent(pi_latent, vf_latent, **head_kwargs)

    def _build_legacy(self, layers: Optional[List[int]], act_fun: Callable, cnn_extractor: Callable,
                      feature_extraction: str, cnn_kwargs: dict) -> None:
        """Torso (CNN, or the MLP ``layers``), the LSTM, and both heads on its output."""
        if layers is None:
            layers = list(DEFAULT_LAYERS)
        else:
            warnings.warn("The layers parameter is deprecated. Use the net_arch parameter instead.",
                          DeprecationWarning)
        with tf.variable_scope("model", reuse=self.reuse):
            if feature_extraction == "cnn":
                features = cnn_extractor(self.processed_obs, **cnn_kwargs)
            else:
                features = flatten(self.processed_obs)
                for idx, width in enumerate(layers):
                    features = dense_layer(features, 'pi_fc' + str(idx), width, act_fun)
            latent = self._lstm_layer(features)
            self._heads(latent, latent)

    def _build_from_net_arch(self, net_arch: NetArch, act_fun: Callable) -> None:
        """Shared layers around one LSTM, then the policy's layers, then the value function's."""
        with tf.variable_scope("model", reuse=self.reuse):
            latent = flatten(self.processed_obs)
            pi_widths: List[int] = []
            vf_widths: List[int] = []
            has_lstm = False
            for idx, entry in enumerate(net_arch):
                if is_layer_size(entry):
                    latent = dense_layer(latent, "shared_fc{}".format(idx), int(entry), act_fun)
                elif entry == "lstm":
                    if has_lstm:
                        raise ValueError("The net_arch parameter must only contain one occurrence of 'lstm'!")
                    latent = self._lstm_layer(latent)
                    has_lstm = True
                elif isinstance(entry, dict):
                    pi_widths, vf_widths = branch_sizes(entry)
                    break
                else:
                    raise ValueError("Error: the net_arch list can only contain ints, 'lstm' and dicts, got "
                                     "{!r}".format(entry))
            pi_latent = _branch(latent, pi_widths, "pi", "policy network", act_fun)
            vf_latent = _branch(latent, vf_widths, "vf", "value function network", act_fun)
            if not has_lstm:
                raise ValueError("The net_arch parameter must contain at least one occurrence of 'lstm'!")
            self._heads(pi_latent, vf_latent)

    def _state_output(self) -> Optional[tf.Tensor]:
        """:return: (tf.Tensor) the state after the step (``snew``)"""
        return self.snew

    def step(self, obs: np.ndarray, state: Optional[np.ndarray] = None, mask: Optional[np.ndarray] = None,
             deterministic: bool = False) -> tuple:
        chosen = self.deterministic_action if deterministic else self.action
        fetches = [chosen, self.value_flat, self.snew, self.neglogp]
        # the negative log-likelihood is that of a sampled action: a deterministic step draws one too
        return session_run(self.sess, fetches, self._recurrent_feed(obs, state, mask))

    def proba_step(self, obs: np.ndarray, state: Optional[np.ndarray] = None, mask: Optional[np.ndarray] = None) -> Any:
        return self.sess.run(self.policy_proba, self._recurrent_feed(obs, state, mask))

    def value(self, obs: np.ndarray, state: Optional[np.ndarray] = None,
              mask: Optional[np.ndarray] = None) -> np.ndarray:
        return self.sess.run(self.value_flat, self._recurrent_feed(obs, state, mask))


def _branch(latent: tf.Tensor, widths: list, key: str, what: str, act_fun: Callable) -> tf.Tensor:
    """The layers of one head after the shared part (``pi_fc{i}`` or ``vf_fc{i}``); no LSTM allowed there."""
    for idx, width in enumerate(widths):
        if width == "lstm":
            raise NotImplementedError("LSTMs are only supported in the shared part of the {}.".format(what))
        latent = dense_layer(latent, "{}_fc{}".format(key, idx), branch_width(width, key), act_fun)
    return latent
