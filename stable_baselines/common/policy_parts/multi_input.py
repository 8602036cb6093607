"""
Policies for structured observations (``Dict`` and ``Tuple`` spaces, nested too): each entry is encoded by its
kind, the codes are concatenated, and the usual heads follow.

- images (``uint8`` boxes of shape HxWxC, see :func:`~stable_baselines.common.preprocessing.is_image_space`):
  scaled to [0, 1], then ``cnn_extractor`` (the Nature CNN unless told otherwise);
- other boxes: flattened, then an MLP of ``mlp_extractor_arch`` (one layer of 64 by default; ``[]``: as they are);
- Discrete and MultiDiscrete: one-hot vectors, MultiBinary: its 0/1 values, both as they are.

``extractors`` maps an entry's name (``"image"``, ``"robot/position"`` for nested Dicts, ``"[0]"`` for Tuple
entries) to a function ``f(tensor) -> features`` that replaces the default encoder of that entry. The variables of
entry ``name`` live in scope ``entry_<name>`` (``/`` and brackets replaced by ``_``).
"""
import re
from typing import Any, Callable, Dict, List, Optional, Sequence

import numpy as np
from gymnasium import spaces

from stable_baselines.common.policy_parts import public
from stable_baselines.common.policy_parts.base import ActorCriticPolicy
from stable_baselines.common.policy_parts.extractors import NetArch, dense_layer, mlp_extractor, nature_cnn
from stable_baselines.common.policy_parts.feedforward import DEFAULT_LAYERS, FeedForwardPolicy
from stable_baselines.common.policy_parts.ready_made import BATCH, PARAMETERS, parameters_doc
from stable_baselines.common.policy_parts.recurrent import LstmPolicy
from stable_baselines.common.preprocessing import is_image_space
from stable_baselines.common.structured_obs import (add_batch_axis, entry_name, is_batch, is_structured_space,
                                                    pack_batch, space_entries)
from stable_baselines.common.tf_compat import tf
from stable_baselines.common.tf_layers import flatten, linear
from stable_baselines.common.tf_util import FeedCallable

# the MLP of a vector entry when ``mlp_extractor_arch`` is not given
DEFAULT_ENTRY_MLP = (64,)
# the parameters of the entries' encoders, and the observation space of the policies for structured observations
ENCODERS = ("cnn_extractor=entry_cnn", "mlp_extractor_arch", "extractors")
STRUCTURED = "(gymnasium.spaces.Dict or gymnasium.spaces.Tuple) observation space"


def entry_scope(name: str) -> str:
    """
    :param name: (str) an entry's name (see :func:`~stable_baselines.common.structured_obs.entry_name`)
    :return: (str) the variable scope of its encoder
    """
    return "entry_" + re.sub(r"[^A-Za-z0-9_.\-]", "_", name)


def _processed_entry(processed: Any, path: Sequence[Any]) -> tf.Tensor:
    """:return: (tf.Tensor) the processed tensor of one entry, found by its path in the nested structure"""
    for key in path:
        processed = processed[key]
    return processed


def encode_entries(processed: Any, ob_space: spaces.Space, act_fun: Callable = tf.nn.relu,
                   cnn_extractor: Callable = nature_cnn, mlp_extractor_arch: Optional[Sequence[int]] = None,
                   extractors: Optional[Dict[str, Callable]] = None, **cnn_kwargs: Any) -> tf.Tensor:
    """
    Encode every entry of a structured observation by its kind and concatenate the codes (see the module's
    docstring). Call it inside the variable scope the encoders should live in.

    :param processed: (OrderedDict or tuple) the processed entries (see
        :func:`~stable_baselines.common.input.structured_observation_input`)
    :param ob_space: (gymnasium.spaces.Dict or gymnasium.spaces.Tuple) the observation space
    :param act_fun: (callable) activation of the MLPs of vector entries
    :param cnn_extractor: (callable) ``f(scaled_images, **cnn_kwargs) -> features`` for image entries
    :param mlp_extractor_arch: ([int]) hidden widths of the MLP of each vector entry (None: [64])
    :param extractors: ({str: callable}) encoders by entry name, replacing the default ones
    :param cnn_kwargs: (dict) passed on to ``cnn_extractor``
    :return: (tf.Tensor) the features, shape (batch, total width)
    """
    extractors = dict(extractors or {})
    widths = list(DEFAULT_ENTRY_MLP if mlp_extractor_arch is None else mlp_extractor_arch)
    entries = space_entries(ob_space)
    unknown = sorted(set(extractors) - {entry_name(path) for path, _ in entries})
    if unknown:
        raise ValueError("Error: `extractors` names entries the observation space does not have: {}; its entries "
                         "are {}".format(unknown, [entry_name(path) for path, _ in entries]))
    codes: List[tf.Tensor] = []
    for path, space in entries:
        name = entry_name(path)
        tensor = _processed_entry(processed, path)
        with tf.variable_scope(entry_scope(name)):
            if name in extractors:
                code = extractors[name](tensor)
            elif is_image_space(space):
                code = cnn_extractor(tensor, **cnn_kwargs)
            elif isinstance(space, spaces.Box):
                code = flatten(tensor)
                for index, width in enumerate(widths):
                    code = dense_layer(code, "fc{}".format(index), int(width), act_fun)
            else:
                code = flatten(tensor)
        codes.append(flatten(code))
    return tf.concat(codes, axis=-1)


def packed_observations(obs: Any, ob_space: spaces.Space) -> Any:
    """
    :param obs: (Any) observations given to a policy: packed rows already, or structured ones (one or a batch)
    :param ob_space: (gymnasium.spaces.Space) the policy's observation space
    :return: (np.ndarray) the packed rows
    """
    if not isinstance(obs, (dict, tuple, list)):
        return obs
    if not is_batch(obs, ob_space):
        obs = add_batch_axis(obs, ob_space)
    return pack_batch(obs, ob_space)


@public
class MultiInputPolicy(FeedForwardPolicy):
    __doc__ = """
    Actor-critic policy for Dict and Tuple observation spaces (nested too): every entry is encoded by its kind
    (the Nature CNN for images, an MLP for vectors, one-hot for discrete entries), the codes are concatenated and
    go through the MLP of ``net_arch`` to the policy and value heads. Its observation placeholder takes packed rows
    (see :mod:`stable_baselines.common.structured_obs`); ``step``, ``proba_step`` and ``value`` also accept the
    structured observations themselves.

""" + parameters_doc(*BATCH, "net_arch", "act_fun", *ENCODERS, "kwargs", ob_space=STRUCTURED,
                     net_arch="(list) the MLP after the concatenation (default: separate pi and vf branches of 64, 64)",
                     act_fun="(callable) activation of the MLPs", kwargs=PARAMETERS["cnn_kwargs"])

    reads_structured_observations = True

    def __init__(self, sess: Optional[tf.Session], ob_space: spaces.Space, ac_space: spaces.Space, n_env: int,
                 n_steps: int, n_batch: Optional[int], reuse: bool = False, net_arch: Optional[NetArch] = None,
                 act_fun: Callable = tf.tanh, cnn_extractor: Callable = nature_cnn,
                 mlp_extractor_arch: Optional[Sequence[int]] = None,
                 extractors: Optional[Dict[str, Callable]] = None, **kwargs: Any) -> None:
        if not is_structured_space(ob_space):
            raise ValueError("Error: MultiInputPolicy is for Dict and Tuple observation spaces, got {}; use MlpPolicy "
                             "or CnnPolicy".format(ob_space))
        ActorCriticPolicy.__init__(self, sess, ob_space, ac_space, n_env, n_steps, n_batch, reuse=reuse, scale=True)
        if net_arch is None:
            net_arch = [dict(vf=list(DEFAULT_LAYERS), pi=list(DEFAULT_LAYERS))]
        with tf.variable_scope("model", reuse=reuse):
            features = encode_entries(self.processed_obs, self.ob_space, act_fun, cnn_extractor, mlp_extractor_arch,
                                      extractors, **kwargs)
            pi_latent, vf_latent = mlp_extractor(features, net_arch, act_fun)
            self._value_fn = linear(vf_latent, "vf", 1)
            self._proba_distribution, self._policy, self.q_value = \
                self.pdtype.proba_distribution_from_latent(pi_latent, vf_latent, init_scale=0.01)
        self._setup_init()
        # no NumPy copy of this network: the fast path answers through the graph
        self.numpy_spec = None
        self._graph_calls: Dict[Any, FeedCallable] = {}

    def _graph_call(self, key: Any, fetches: list, obs: Any) -> list:
        return super()._graph_call(key, fetches, packed_observations(obs, self.ob_space))


@public
class MultiInputLstmPolicy(LstmPolicy):
    __doc__ = """
    Recurrent actor-critic policy for Dict and Tuple observation spaces (nested too): every entry is encoded by its
    kind, as in :class:`MultiInputPolicy`; the concatenated codes feed an LSTM of ``n_lstm`` cells whose output
    feeds the policy and value heads. ``step``, ``proba_step`` and ``value`` take packed rows or the structured
    observations themselves.

""" + parameters_doc(*BATCH[:6], "n_lstm", "reuse", "act_fun", "layer_norm", *ENCODERS, "kwargs", ob_space=STRUCTURED,
                     act_fun="(callable) activation of the entries' MLPs", layer_norm="(bool) a layer-normalised LSTM",
                     kwargs=PARAMETERS["cnn_kwargs"])

    reads_structured_observations = True

    def __init__(self, sess: Optional[tf.Session], ob_space: spaces.Space, ac_space: spaces.Space, n_env: int,
                 n_steps: int, n_batch: int, n_lstm: int = 256, reuse: bool = False, act_fun: Callable = tf.tanh,
                 layer_norm: bool = False, cnn_extractor: Callable = nature_cnn,
                 mlp_extractor_arch: Optional[Sequence[int]] = None, extractors: Optional[Dict[str, Callable]] = None,
                 **kwargs: Any) -> None:
        settings = encoder_settings(ob_space, cnn_extractor, mlp_extractor_arch, extractors, kwargs)

        def encode(processed: Any) -> tf.Tensor:
            return encode_entries(processed, ob_space, act_fun, **settings)

        # the encoders take the place of the CNN torso of the LSTM policy
        super().__init__(sess, ob_space, ac_space, n_env, n_steps, n_batch, n_lstm=n_lstm, reuse=reuse,
                         act_fun=act_fun, cnn_extractor=encode, layer_norm=layer_norm, feature_extraction="cnn")

    def _recurrent_feed(self, obs: Any, state: Optional[np.ndarray], mask: Optional[np.ndarray]) -> Dict[Any, Any]:
        return super()._recurrent_feed(packed_observations(obs, self.ob_space), state, mask)


class GraphOnly:
    """Mixin of the policies for structured observations: no NumPy copy of their networks, the graph answers."""

    _numpy_forward: Any

    def enable_numpy_forward(self, rng: Optional[Any] = None, variables: Optional[Sequence[Any]] = None) -> bool:
        """
        No NumPy copy of these networks: the policy always answers through the graph.

        :param rng: (np.random.Generator) unused
        :param variables: ([tf.Variable]) unused
        :return: (bool) False
        """
        del rng, variables
        self._numpy_forward = None
        return False


class MultiInputFeatures(GraphOnly):
    __doc__ = """
    Mixin of the off-policy ``MultiInputPolicy`` classes (SAC, TD3, DDPG): put it before the algorithm's
    ``FeedForwardPolicy``; its constructor takes the encoder settings (``cnn_extractor``, ``mlp_extractor_arch``,
    ``extractors``, ``cnn_kwargs``) and builds that policy with ``feature_extraction="mlp"``. Every network
    (actor, critics, their targets) gets its own encoders, as it gets its own CNN with CNN features; the NumPy
    copy of the actor is not available (the graph answers). ``step`` and ``proba_step`` take the observations as
    the environment gives them (dicts or tuples, one or a batch) and pack them for the algorithm's policy.

""" + parameters_doc(*BATCH, *ENCODERS, "cnn_kwargs", "kwargs", ob_space=STRUCTURED,
                     ac_space="(gym.spaces.Box) action space", kwargs="(dict) further arguments of the algorithm's "
                     "``FeedForwardPolicy`` (``layers``, ``act_fun``, ``layer_norm``)")

    reads_structured_observations = True
    ob_space: spaces.Space
    activ_fn: Callable

    def __init__(self, sess: Any, ob_space: spaces.Space, ac_space: spaces.Space, n_env: int = 1, n_steps: int = 1,
                 n_batch: Optional[int] = None, reuse: bool = False, cnn_extractor: Callable = nature_cnn,
                 mlp_extractor_arch: Optional[Sequence[int]] = None, extractors: Optional[Dict[str, Callable]] = None,
                 cnn_kwargs: Optional[Dict[str, Any]] = None, **kwargs: Any) -> None:
        # read by _features while the algorithm's FeedForwardPolicy builds its networks
        self._encoder_settings = encoder_settings(ob_space, cnn_extractor, mlp_extractor_arch, extractors, cnn_kwargs)
        super().__init__(sess, ob_space, ac_space, n_env, n_steps, n_batch,  # type: ignore[call-arg]
                         reuse=reuse, cnn_extractor=cnn_extractor, feature_extraction="mlp", **kwargs)

    def _features(self, obs: Any) -> tf.Tensor:
        """
        :param obs: (OrderedDict or tuple) the processed entries of the observations
        :return: (tf.Tensor) their concatenated codes (see :func:`encode_entries`)
        """
        return encode_entries(obs, self.ob_space, self.activ_fn, **self._encoder_settings)

    def step(self, obs: Any, *args: Any, **kwargs: Any) -> Any:
        """The algorithm policy's ``step`` (same further arguments) on the packed observations."""
        return super().step(packed_observations(obs, self.ob_space), *args, **kwargs)  # type: ignore[misc]

    def proba_step(self, obs: Any, *args: Any, **kwargs: Any) -> Any:
        """The algorithm policy's ``proba_step`` (same further arguments) on the packed observations."""
        return super().proba_step(packed_observations(obs, self.ob_space), *args, **kwargs)  # type: ignore[misc]


def multi_input_doc(algorithm: str, networks: str = "critics",
                    note: str = "The encoders live in ``<network>/entry_<name>`` (e.g. ``pi/entry_position``).") -> str:
    """
    :param algorithm: (str) the algorithm's name
    :param networks: (str) its networks beside the actor ('critic', 'critics')
    :param note: (str) the last sentence of the first paragraph
    :return: (str) the docstring of the algorithm's ``MultiInputPolicy`` (built on :class:`MultiInputFeatures`)
    """
    return """
    {} policy for Dict and Tuple observation spaces (nested too): in the actor and in the {}, every entry is
    encoded by its kind (the Nature CNN for images, an MLP for vectors, one-hot for discrete entries, see
    :func:`~stable_baselines.common.policy_parts.multi_input.encode_entries`), the codes are concatenated, then the
    hidden ``layers`` follow. {}

    Parameters: those of :class:`~stable_baselines.common.policy_parts.multi_input.MultiInputFeatures`.
""".format(algorithm, networks, note)


def encoder_settings(ob_space: spaces.Space, cnn_extractor: Callable, mlp_extractor_arch: Optional[Sequence[int]],
                     extractors: Optional[Dict[str, Callable]], cnn_kwargs: Optional[Dict[str, Any]]) -> Dict[str, Any]:
    """
    Check that a ``MultiInputPolicy`` is built for a structured space and gather the keywords of its encoders.

    :param ob_space: (gymnasium.spaces.Space) the observation space
    :param cnn_extractor: (callable) the CNN of image entries
    :param mlp_extractor_arch: ([int]) hidden widths of the MLP of vector entries (None: [64])
    :param extractors: ({str: callable}) encoders by entry name
    :param cnn_kwargs: (dict) keywords of ``cnn_extractor``
    :return: (dict) the keywords of :func:`encode_entries` after ``act_fun``
    """
    if not is_structured_space(ob_space):
        raise ValueError("Error: MultiInputPolicy is for Dict and Tuple observation spaces, got {}; use MlpPolicy "
                         "or CnnPolicy".format(ob_space))
    return dict(cnn_extractor=cnn_extractor, mlp_extractor_arch=mlp_extractor_arch, extractors=extractors,
                **(cnn_kwargs or {}))


__all__ = ["MultiInputPolicy", "MultiInputLstmPolicy", "MultiInputFeatures", "GraphOnly", "encode_entries", "encoder_settings",
           "entry_scope", "multi_input_doc", "packed_observations"]
