"""
The two base classes of every policy: :class:`BasePolicy` owns the input placeholders (scope ``input``),
:class:`ActorCriticPolicy` turns the tensors a subclass built (``_policy``, ``_proba_distribution``,
``_value_fn``) into the outputs the algorithms use (scope ``output``).
"""
from abc import ABC, abstractmethod
from typing import Any, Optional, Sequence, Tuple

import numpy as np
from gymnasium import spaces

from stable_baselines.common.distributions import (BernoulliProbabilityDistribution,
                                                   CategoricalProbabilityDistribution,
                                                   DiagGaussianProbabilityDistribution,
                                                   MultiCategoricalProbabilityDistribution,
                                                   ProbabilityDistribution, ProbabilityDistributionType,
                                                   make_proba_dist_type, masked_proba_distribution)
from stable_baselines.common.policy_parts.action_masks import masks_enabled
from stable_baselines.common.gym_compat import convert_space
from stable_baselines.common.input import observation_input
from stable_baselines.common.policy_parts import public
from stable_baselines.common.policy_parts.ready_made import BATCH, parameters_doc
from stable_baselines.common.safe_loading.classes import register_policy_base
from stable_baselines.common.tf_compat import tf
from stable_baselines.common.engine.tf_random_draws import settle_draws
from stable_baselines.common.engine.tf_run import session_run


# the wording of the base constructors' parameters that differs from the usual one
N_BATCH = "(int or None) rows of the placeholders (n_env * n_steps"
SCALE = "(bool) divide bounded Box observations (images) into [0, 1]"


@public
class BasePolicy(ABC):
    __doc__ = """
    What all policies share: the spaces, the session, and the placeholders of observations (and
    optionally of actions), created in the ``input`` scope.

""" + parameters_doc(*BATCH, "scale", n_batch=N_BATCH + "; None for any)", scale=SCALE) + """\
    :param obs_ph: ((tf.Tensor, tf.Tensor) or None) existing observation placeholder and its processed
        version, used instead of new ones
    :param add_action_ph: (bool) also create ``action_ph``
"""

    recurrent = False
    #: whether the network reads Dict and Tuple observations (their processed form is a dict or tuple of tensors)
    reads_structured_observations = False

    def __init__(self, sess: Optional[tf.Session], ob_space: spaces.Space, ac_space: spaces.Space, n_env: int,
                 n_steps: int, n_batch: Optional[int], reuse: bool = False, scale: bool = False,
                 obs_ph: Optional[Tuple[tf.Tensor, tf.Tensor]] = None, add_action_ph: bool = False) -> None:
        ob_space, ac_space = convert_space(ob_space), convert_space(ac_space)
        if isinstance(ob_space, (spaces.Dict, spaces.Tuple)) and not self.reads_structured_observations:
            raise ValueError("Error: {} does not read {} observation spaces ({}): use MultiInputPolicy".format(
                type(self).__name__, type(ob_space).__name__, ob_space))
        self.n_env = n_env
        self.n_steps = n_steps
        self.n_batch = n_batch
        with tf.variable_scope("input", reuse=False):
            self._obs_ph, self._processed_obs = self._observation_tensors(ob_space, n_batch, scale, obs_ph)
            self._action_ph = self._new_action_ph(ac_space, n_batch) if add_action_ph else None
        # a tf.Session; None only for a policy built to be given a session later
        self.sess: Any = sess
        self.reuse = reuse
        self.ob_space = ob_space
        self.ac_space = ac_space
        # NumPy copy of the network answering instead of the session (see enable_numpy_forward); None: the graph
        self._numpy_forward: Any = None

    @staticmethod
    def _observation_tensors(ob_space: spaces.Space, n_batch: Optional[int], scale: bool,
                             given: Optional[Tuple[tf.Tensor, tf.Tensor]]) -> Tuple[tf.Tensor, tf.Tensor]:
        if given is None:
            return observation_input(ob_space, n_batch, scale=scale)
        if not isinstance(given, (tuple, list)) or len(given) != 2:
            raise ValueError("obs_ph must be a tuple (observation placeholder, processed observation), "
                             "got {!r}".format(given))
        return given[0], given[1]

    @staticmethod
    def _new_action_ph(ac_space: spaces.Space, n_batch: Optional[int]) -> tf.Tensor:
        rows = (n_batch,) + tuple(ac_space.shape or ())
        return tf.placeholder(dtype=tf.as_dtype(np.dtype(ac_space.dtype)), shape=rows, name="action_ph")

    @property
    def numpy_forward(self) -> Any:
        """(Any) the NumPy copy of the network that answers instead of the session, or None (the graph answers)"""
        return self._numpy_forward

    def enable_numpy_forward(self, rng: Optional[np.random.Generator] = None,
                             variables: Optional[Sequence[tf.Variable]] = None) -> bool:
        """
        Act from a NumPy copy of the network instead of the session, where the policy's kind allows it (the models
        call this through their ``fast_path``). This base class keeps no copy; policies that can, override it.

        :param rng: (np.random.Generator) the generator of actions drawn in NumPy (None: a new unseeded one)
        :param variables: ([tf.Variable]) the network's variables in creation order, for a policy that cannot
            find them by its own scope; ignored by the others
        :return: (bool) whether the NumPy copy is now in use
        """
        del rng, variables
        self._numpy_forward = None
        return False

    def disable_numpy_forward(self) -> None:
        """Answer through the TensorFlow graph again."""
        self._numpy_forward = None

    def invalidate_numpy_forward(self) -> None:
        """
        Mark the NumPy copy of the weights (if this policy keeps one) as outdated, so that it is read
        again from the graph before its next use. Call it after changing the weights.
        """
        if self._numpy_forward is not None:
            self._numpy_forward.stale = True

    @property
    def is_discrete(self) -> bool:
        """bool: whether the action space is Discrete."""
        return isinstance(self.ac_space, spaces.Discrete)

    @property
    def initial_state(self) -> Optional[np.ndarray]:
        """
        (np.ndarray or None) the state to start an episode with: None for a feed-forward policy;
        recurrent policies override it (shape ``(n_env,) + state_shape``).
        """
        if self.recurrent:
            raise NotImplementedError("{} is recurrent and must define initial_state".format(type(self).__name__))
        return None

    @property
    def obs_ph(self) -> tf.Tensor:
        """tf.Tensor: observations fed to the policy, shape ``(n_batch,) + ob_space.shape``."""
        return self._obs_ph

    @property
    def processed_obs(self) -> tf.Tensor:
        """
        tf.Tensor: the observations as the network reads them (float; one-hot for discrete spaces;
        scaled when ``scale``), see :func:`stable_baselines.common.input.observation_input`.
        """
        return self._processed_obs

    @property
    def action_ph(self) -> Optional[tf.Tensor]:
        """tf.Tensor or None: actions fed to the policy, shape ``(n_batch,) + ac_space.shape``."""
        return self._action_ph

    @staticmethod
    def _kwargs_check(feature_extraction: str, kwargs: dict) -> None:
        """
        Refuse keyword arguments nobody consumes. A CNN policy hands its extra keywords to the CNN
        extractor; an MLP policy has no such receiver, so any left over is a mistake.

        :param feature_extraction: (str) 'cnn' or 'mlp'
        :param kwargs: (dict) the keywords left over by the constructor
        """
        if feature_extraction == 'mlp' and len(kwargs) > 0:
            raise ValueError("Unknown keywords for policy: {}".format(kwargs))

    @abstractmethod
    def step(self, obs: np.ndarray, state: Optional[np.ndarray] = None, mask: Optional[np.ndarray] = None) -> tuple:
        """
        One step of the policy.

        :param obs: (np.ndarray) a batch of observations
        :param state: (np.ndarray) states of a recurrent policy
        :param mask: (np.ndarray) episode starts, for a recurrent policy
        :return: (tuple) actions, values, next states, negative log-likelihoods of the actions
        """
        raise NotImplementedError

    @abstractmethod
    def proba_step(self, obs: np.ndarray, state: Optional[np.ndarray] = None, mask: Optional[np.ndarray] = None) -> Any:
        """
        The action distribution at these observations.

        :param obs: (np.ndarray) a batch of observations
        :param state: (np.ndarray) states of a recurrent policy
        :param mask: (np.ndarray) episode starts, for a recurrent policy
        :return: (np.ndarray or [np.ndarray]) its parameters (see ``policy_proba``)
        """
        raise NotImplementedError


# a model file may name our policy classes, and its user's, by reference: those deriving from BasePolicy
register_policy_base(BasePolicy)


def _proba_outputs(distribution: ProbabilityDistribution, policy_output: tf.Tensor) -> Any:
    """
    :param distribution: (ProbabilityDistribution) the action distribution
    :param policy_output: (tf.Tensor) the flat parameters the network produced
    :return: (tf.Tensor or [tf.Tensor]) probabilities (categorical, Bernoulli), [mean, std] (Gaussian),
        one probability tensor per sub-space (multi-categorical), [] for other distributions
    """
    if isinstance(distribution, CategoricalProbabilityDistribution):
        return tf.nn.softmax(policy_output)
    if isinstance(distribution, DiagGaussianProbabilityDistribution):
        return [distribution.mean, distribution.std]
    if isinstance(distribution, BernoulliProbabilityDistribution):
        return tf.nn.sigmoid(policy_output)
    if isinstance(distribution, MultiCategoricalProbabilityDistribution):
        return [tf.nn.softmax(part.flatparam()) for part in distribution.categoricals]
    return []


@public
class ActorCriticPolicy(BasePolicy):
    __doc__ = """
    A policy with an action distribution and a value function. A subclass builds, in its constructor,
    ``self._policy`` (the distribution's flat parameters), ``self._proba_distribution``,
    ``self._value_fn`` (shape (n_batch, 1)) and usually ``self.q_value``, then calls
    ``self._setup_init()``, which adds the sampled and deterministic actions, their negative
    log-likelihood, ``policy_proba`` and ``value_flat``.

""" + parameters_doc(*BATCH, "scale", n_batch=N_BATCH + ")", scale=SCALE)

    def __init__(self, sess: Optional[tf.Session], ob_space: spaces.Space, ac_space: spaces.Space, n_env: int,
                 n_steps: int, n_batch: Optional[int], reuse: bool = False, scale: bool = False) -> None:
        super().__init__(sess, ob_space, ac_space, n_env, n_steps, n_batch, reuse=reuse, scale=scale)
        self._pdtype = make_proba_dist_type(self.ac_space)
        self._policy = None
        # set by the subclass that builds the network, before _setup_init
        self._proba_distribution: Any = None
        self._value_fn = None
        self._action = None
        self._deterministic_action = None
        self._neglogp = None
        self._policy_proba = None
        self._value_flat = None
        self.q_value = None
        # bool input of the allowed actions (default: all), only in a graph built for action masks
        self._action_mask_ph: Optional[tf.Tensor] = None

    def _setup_init(self) -> None:
        """Build the outputs (scope ``output``) from ``_policy``, ``_proba_distribution`` and ``_value_fn``."""
        built = {"policy": self.policy, "proba_distribution": self.proba_distribution, "value_fn": self.value_fn}
        missing = [name for name, tensor in built.items() if tensor is None]
        with tf.variable_scope("output", reuse=True):
            if missing:
                raise ValueError("_setup_init() needs self._policy, self._proba_distribution and self._value_fn to be "
                                 "set first (missing: {})".format(", ".join(missing)))
            if masks_enabled(tf.get_default_graph()):
                self._mask_distribution()
                built.update(policy=self._policy, proba_distribution=self._proba_distribution)
            distribution = built["proba_distribution"]
            self._action = distribution.sample()
            self._deterministic_action = distribution.mode()
            self._neglogp = distribution.neglogp(self.action)
            self._policy_proba = _proba_outputs(distribution, built["policy"])
            self._value_flat = built["value_fn"][:, 0]

    def _mask_distribution(self) -> None:
        """Replace the distribution and its logits by those restricted to the actions of ``action_mask_ph``."""
        logits = self._proba_distribution.flatparam()
        self._action_mask_ph = tf.placeholder_with_default(tf.ones_like(logits, dtype=tf.bool), logits.shape,
                                                           name="action_mask_ph")
        self._proba_distribution, self._policy = masked_proba_distribution(self.pdtype, logits,
                                                                           self._action_mask_ph)

    @property
    def action_mask_ph(self) -> Optional[tf.Tensor]:
        """
        tf.Tensor or None: the allowed actions, bool, shape ``(n_batch, mask width)`` (all allowed when not fed);
        None when the policy was built without action masks.
        """
        return self._action_mask_ph

    def step_with_action_masks(self, obs: np.ndarray, action_masks: np.ndarray, state: Optional[np.ndarray] = None,
                               mask: Optional[np.ndarray] = None, deterministic: bool = False) -> tuple:
        """
        :meth:`step` with only the allowed actions: needs a policy built with action masks (``action_mask_ph``).

        :param obs: (np.ndarray) a batch of observations
        :param action_masks: (np.ndarray) bool, shape (n_batch, mask width): the allowed actions
        :param state: (np.ndarray) states of a recurrent policy
        :param mask: (np.ndarray) episode starts, for a recurrent policy
        :param deterministic: (bool) take the most likely allowed action instead of a sample
        :return: (tuple) actions, values, next states, negative log-likelihoods of the actions
        """
        if self._action_mask_ph is None:
            raise ValueError("This policy was built without action masks (its environment had no action_masks())")
        feed = {self.obs_ph: obs, self._action_mask_ph: action_masks}
        fetches = [self.deterministic_action if deterministic else self.action, self.value_flat, self.neglogp]
        next_state = self._state_output()
        if next_state is not None:
            feed.update(self._state_feed(state, mask))
            fetches.append(next_state)
        settle_draws(self.sess)  # the NumPy rollouts may have drawn in the sampling op's place
        # the negative log-likelihood is that of a sampled action, which a deterministic step draws too
        results = session_run(self.sess, fetches, feed)
        states = results[3] if next_state is not None else self.initial_state
        return results[0], results[1], states, results[2]

    @classmethod
    def declares_state_output(cls) -> bool:
        """
        :return: (bool) whether the class says which tensor is its next recurrent state (it overrides
            ``_state_output``), which :meth:`step_with_action_masks` of a recurrent policy needs
        """
        return cls._state_output is not vars(ActorCriticPolicy)["_state_output"]

    def _state_output(self) -> Optional[tf.Tensor]:
        """:return: (tf.Tensor or None) the next recurrent state (None: a feed-forward policy)"""
        if self.recurrent:
            raise NotImplementedError("Action masks with a recurrent policy ({}) are not supported yet"
                                      .format(type(self).__name__))
        return None

    def _state_feed(self, state: Optional[np.ndarray], mask: Optional[np.ndarray]) -> dict:
        """:return: (dict) what a recurrent policy feeds besides the observations (nothing here)"""
        del state, mask
        return {}

    @property
    def pdtype(self) -> ProbabilityDistributionType:
        """ProbabilityDistributionType: builds the action distribution from latent features."""
        return self._pdtype

    @property
    def policy(self) -> tf.Tensor:
        """tf.Tensor: the distribution's flat parameters (logits, or the Gaussian mean)."""
        return self._policy

    @property
    def proba_distribution(self) -> ProbabilityDistribution:
        """ProbabilityDistribution: the action distribution."""
        return self._proba_distribution

    @property
    def value_fn(self) -> tf.Tensor:
        """tf.Tensor: state values, shape (n_batch, 1)."""
        return self._value_fn

    @property
    def value_flat(self) -> tf.Tensor:
        """tf.Tensor: state values, shape (n_batch,)."""
        return self._value_flat

    @property
    def action(self) -> tf.Tensor:
        """tf.Tensor: actions sampled from the distribution, shape ``(n_batch,) + ac_space.shape``."""
        return self._action

    @property
    def deterministic_action(self) -> tf.Tensor:
        """tf.Tensor: the distribution's mode, shape ``(n_batch,) + ac_space.shape``."""
        return self._deterministic_action

    @property
    def neglogp(self) -> tf.Tensor:
        """tf.Tensor: negative log-likelihood of ``action``."""
        return self._neglogp

    @property
    def policy_proba(self) -> Any:
        """tf.Tensor or [tf.Tensor]: the distribution's parameters, in a form that depends on its type."""
        return self._policy_proba

    @abstractmethod
    def step(self, obs: np.ndarray, state: Optional[np.ndarray] = None, mask: Optional[np.ndarray] = None,
             deterministic: bool = False) -> tuple:
        """
        One step of the policy.

        :param obs: (np.ndarray) a batch of observations
        :param state: (np.ndarray) states of a recurrent policy
        :param mask: (np.ndarray) episode starts, for a recurrent policy
        :param deterministic: (bool) take the distribution's mode instead of a sample
        :return: (tuple) actions, values, next states, negative log-likelihoods of the actions
        """
        raise NotImplementedError

    @abstractmethod
    def value(self, obs: np.ndarray, state: Optional[np.ndarray] = None,
              mask: Optional[np.ndarray] = None) -> np.ndarray:
        """
        The value function at these observations.

        :param obs: (np.ndarray) a batch of observations
        :param state: (np.ndarray) states of a recurrent policy
        :param mask: (np.ndarray) episode starts, for a recurrent policy
        :return: (np.ndarray) the values, shape (n_batch,)
        """
        raise NotImplementedError
