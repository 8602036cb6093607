"""
The feed-forward actor-critic policy: a CNN or MLP torso, then the action distribution (scope
``model/pi``) and the value head ``model/vf``.
"""
import warnings
from typing import Any, Callable, Dict, List, NamedTuple, Optional, Sequence

import numpy as np
from gymnasium import spaces

from stable_baselines.common.engine.numpy_forward import numpy_forward_enabled
from stable_baselines.common.policy_parts import public
from stable_baselines.common.policy_parts.base import N_BATCH, ActorCriticPolicy
from stable_baselines.common.policy_parts.ready_made import BATCH, parameters_doc
from stable_baselines.common.policy_parts.extractors import NetArch, mlp_extractor, nature_cnn
from stable_baselines.common.policy_parts.numpy_actor_critic import NumpyActorCriticForward
from stable_baselines.common.tf_compat import tf
from stable_baselines.common.tf_layers import flatten, linear
from stable_baselines.common.engine.tf_random_draws import settle_draws
from stable_baselines.common.tf_util import FeedCallable, feed_callable

# the MLP of a policy built without ``layers`` or ``net_arch``
DEFAULT_LAYERS = (64, 64)


class _MlpSpec(NamedTuple):
    """What the NumPy copy needs to know of an MLP policy's graph."""
    scope: str
    net_arch: NetArch
    act_fun: Callable


def _architecture(layers: Optional[List[int]], net_arch: Optional[NetArch]) -> NetArch:
    """
    Resolve the deprecated ``layers`` against ``net_arch`` (warning about it).

    :return: ([int or dict]) the ``net_arch`` to build: ``layers`` become separate policy and value branches
    """
    if layers is not None:
        warnings.warn("Usage of the `layers` parameter is deprecated! Use net_arch instead "
                      "(it has a different semantics though).", DeprecationWarning)
        if net_arch is not None:
            warnings.warn("The new `net_arch` parameter overrides the deprecated `layers` parameter!",
                          DeprecationWarning)
    if net_arch is not None:
        return net_arch
    widths = list(DEFAULT_LAYERS if layers is None else layers)
    return [dict(vf=list(widths), pi=list(widths))]


@public
class FeedForwardPolicy(ActorCriticPolicy):
    __doc__ = """
    Actor-critic policy with a feed-forward network: the Nature CNN (``feature_extraction="cnn"``)
    or an MLP described by ``net_arch`` (see :func:`mlp_extractor`).

""" + parameters_doc(*BATCH, n_batch=N_BATCH + ")") + """\
    :param layers: ([int]) deprecated: widths of separate policy and value MLPs (default [64, 64])
    :param net_arch: (list) the MLP, shared layers then ``dict(pi=[...], vf=[...])``; overrides ``layers``
    :param act_fun: (callable) activation of the MLP
    :param cnn_extractor: (callable) ``f(scaled_images, **kwargs) -> features`` for ``feature_extraction="cnn"``
    :param feature_extraction: (str) "cnn" or "mlp"
    :param kwargs: (dict) passed on to ``cnn_extractor``
"""

    def __init__(self, sess: Optional[tf.Session], ob_space: spaces.Space, ac_space: spaces.Space, n_env: int,
                 n_steps: int, n_batch: Optional[int], reuse: bool = False, layers: Optional[List[int]] = None,
                 net_arch: Optional[NetArch] = None, act_fun: Callable = tf.tanh, cnn_extractor: Callable = nature_cnn,
                 feature_extraction: str = "cnn", **kwargs: Any) -> None:
        use_cnn = feature_extraction == "cnn"
        super().__init__(sess, ob_space, ac_space, n_env, n_steps, n_batch, reuse=reuse, scale=use_cnn)
        self._kwargs_check(feature_extraction, kwargs)
        net_arch = _architecture(layers, net_arch)
        # what was built, for readers of the architecture (model.export(format="sb3"))
        self.feature_extraction, self.net_arch, self.act_fun = feature_extraction, net_arch, act_fun
        self.cnn_extractor, self.cnn_kwargs = cnn_extractor, dict(kwargs)
        # a custom getter (e.g. parameter noise) changes the weights the graph uses: the NumPy copy would be wrong
        plain_variables = tf.get_variable_scope().custom_getter is None
        with tf.variable_scope("model", reuse=reuse) as model_scope:
            if use_cnn:
                pi_latent = vf_latent = cnn_extractor(self.processed_obs, **kwargs)
            else:
                pi_latent, vf_latent = mlp_extractor(flatten(self.processed_obs), net_arch, act_fun)
            self._value_fn = linear(vf_latent, "vf", 1)
            self._proba_distribution, self._policy, self.q_value = \
                self.pdtype.proba_distribution_from_latent(pi_latent, vf_latent, init_scale=0.01)
        self._setup_init()
        # the network the NumPy copy of the policy reproduces (None: it has none)
        self.numpy_spec = None
        if feature_extraction == "mlp" and plain_variables:
            self.numpy_spec = _MlpSpec(model_scope.name, net_arch, act_fun)
        self._graph_calls: Dict[Any, FeedCallable] = {}

    def step(self, obs: np.ndarray, state: Optional[np.ndarray] = None, mask: Optional[np.ndarray] = None,
             deterministic: bool = False) -> tuple:
        # Sampled actions come from the graph here; the rollouts of A2C and PPO2 draw theirs from the NumPy copy
        # through the model's fast path (FastPath.sampled_step).
        if self._numpy_forward is not None and deterministic:
            answer = self._numpy_forward.step(obs, deterministic)
            if answer is not None:
                return answer
        chosen = self.deterministic_action if deterministic else self.action
        settle_draws(self.sess)  # the NumPy rollouts may have drawn in the sampling op's place
        fetches = [chosen, self.value_flat, self.neglogp]
        # the draws are counted by the session callable; the negative log-likelihood is that of a sampled action:
        # a deterministic step draws one too
        action, value, neglogp = self._graph_call(("step", bool(deterministic)), fetches, obs)
        return action, value, self.initial_state, neglogp

    def proba_step(self, obs: np.ndarray, state: Optional[np.ndarray] = None, mask: Optional[np.ndarray] = None) -> Any:
        if self._numpy_forward is not None:
            answer = self._numpy_forward.proba(obs)
            if answer is not None:
                return answer
        if isinstance(self.policy_proba, list):
            return self._graph_call("proba", self.policy_proba, obs)
        return self._graph_call("proba", [self.policy_proba], obs)[0]

    def value(self, obs: np.ndarray, state: Optional[np.ndarray] = None,
              mask: Optional[np.ndarray] = None) -> np.ndarray:
        if self._numpy_forward is not None:
            answer = self._numpy_forward.value(obs)
            if answer is not None:
                return answer
        return self._graph_call("value", [self.value_flat], obs)[0]

    def _graph_call(self, key: Any, fetches: list, obs: Any) -> list:
        """Run ``fetches`` for these observations through a session callable made once per ``key``."""
        call = self._graph_calls.get(key)
        if call is None or call.sess is not self.sess:
            call = self._graph_calls[key] = feed_callable(self.sess, fetches, [self.obs_ph])
        return call(obs)

    def enable_numpy_forward(self, rng: Optional[np.random.Generator] = None,
                             variables: Optional[Sequence[tf.Variable]] = None) -> bool:
        """
        Answer ``step`` (deterministic), ``proba_step`` and ``value`` in NumPy, from a copy of the weights
        read on first use and after each :meth:`invalidate_numpy_forward`
        (see :mod:`stable_baselines.common.engine.numpy_forward`). Only MLP policies whose three methods are
        this class's qualify; the graph still answers whatever the copy cannot reproduce exactly.

        :param rng: (np.random.Generator) generator of sampled actions (None: unseeded)
        :param variables: ([tf.Variable]) ignored (the copy finds its variables by the policy's scope)
        :return: (bool) whether the NumPy copy is now in use
        """
        del variables
        self._numpy_forward = None
        if self.numpy_spec is None or not numpy_forward_enabled():
            return False
        if any(getattr(type(self), name) is not getattr(FeedForwardPolicy, name)
               for name in ("step", "proba_step", "value")):
            return False
        self._numpy_forward = NumpyActorCriticForward.from_policy(self, rng)
        return self._numpy_forward is not None
