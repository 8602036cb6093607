"""
Action distributions of the policies, and the "types" that map an action space to one of them.

=====================  ===============================================  ==========================================
action space           distribution type                                distribution
=====================  ===============================================  ==========================================
``Discrete``           ``CategoricalProbabilityDistributionType``       ``CategoricalProbabilityDistribution``
``MultiDiscrete``      ``MultiCategoricalProbabilityDistributionType``  ``MultiCategoricalProbabilityDistribution``
``Box`` (1-D)          ``DiagGaussianProbabilityDistributionType``      ``DiagGaussianProbabilityDistribution``
``MultiBinary``        ``BernoulliProbabilityDistributionType``         ``BernoulliProbabilityDistribution``
=====================  ===============================================  ==========================================

A distribution is built from one tensor of parameters per sample (``flat``: logits, or mean and
log standard deviation side by side). A type builds that tensor from the policy's latent features
with a dense layer named ``pi`` (and the Q-value head ``q``); the layer and variable names are those of
the original library, so trained parameters keep loading.
"""
from typing import Any, List, Optional, Sequence, Tuple, Type, TypeVar, Union

import numpy as np
from gymnasium import spaces

from stable_baselines.common.gym_compat import convert_space
from stable_baselines.common.tf_compat import dim_value, tf
from stable_baselines.common.tf_layers import linear

_HALF_LOG_TWO_PI = 0.5 * np.log(2.0 * np.pi)
_GAUSSIAN_ENTROPY_PER_DIM = .5 * np.log(2.0 * np.pi * np.e)


class ProbabilityDistribution(object):
    """
    A distribution over actions, described by TensorFlow tensors. Subclasses give the
    negative log-likelihood; the log-likelihood follows from it.
    """

    def __init__(self) -> None:
        super().__init__()

    def flatparam(self) -> tf.Tensor:
        """
        The parameters this distribution was built from.

        :return: (TensorFlow Tensor) the flat parameters (logits, or mean and log std)
        """
        raise NotImplementedError

    def mode(self) -> tf.Tensor:
        """
        The most likely action (used for deterministic predictions).

        :return: (TensorFlow Tensor) the deterministic action
        """
        raise NotImplementedError

    def neglogp(self, x: tf.Tensor) -> tf.Tensor:
        """
        Negative log-likelihood of some actions.

        :param x: (TensorFlow Tensor) the actions
        :return: (TensorFlow Tensor) -log p(x), one value per sample
        """
        raise NotImplementedError

    def kl(self, other: "ProbabilityDistribution") -> tf.Tensor:
        """
        Kullback-Leibler divergence KL(self || other).

        :param other: (ProbabilityDistribution) a distribution of the same class
        :return: (TensorFlow Tensor) the divergence, one value per sample
        """
        raise NotImplementedError

    def entropy(self) -> tf.Tensor:
        """
        Shannon entropy of the distribution.

        :return: (TensorFlow Tensor) the entropy, one value per sample
        """
        raise NotImplementedError

    def sample(self) -> tf.Tensor:
        """
        Draw one action per sample.

        :return: (TensorFlow Tensor) the stochastic action
        """
        raise NotImplementedError

    def logp(self, x: tf.Tensor) -> tf.Tensor:
        """
        Log-likelihood of some actions.

        :param x: (TensorFlow Tensor) the actions
        :return: (TensorFlow Tensor) log p(x), one value per sample
        """
        return - self.neglogp(x)


class ProbabilityDistributionType(object):
    """
    A family of distributions: it knows the shapes of the parameters and of the actions, and
    builds a distribution from flat parameters or from the latent features of a policy.
    """

    def probability_distribution_class(self) -> Type[ProbabilityDistribution]:
        """
        The class of the distributions this type builds.

        :return: (Type ProbabilityDistribution) the distribution class
        """
        raise NotImplementedError

    def proba_distribution_from_flat(self, flat: tf.Tensor) -> ProbabilityDistribution:
        """
        Build a distribution of this family from its flat parameters.

        :param flat: (TensorFlow Tensor) the parameters, shape (batch,) + param_shape()
        :return: (ProbabilityDistribution) the distribution
        """
        # the base class takes no parameters, each concrete distribution class takes its flat tensor
        return self.probability_distribution_class()(flat)  # type: ignore[call-arg]

    def _policy_output_size(self) -> int:
        """
        Number of units of the ``pi`` and ``q`` dense layers.

        :return: (int) the width of the two output layers
        """
        raise NotImplementedError

    def _flat_from_policy_output(self, policy_output: tf.Tensor) -> tf.Tensor:
        """
        Turn the output of the ``pi`` layer into the flat parameters (identity by default).

        :param policy_output: (TensorFlow Tensor) the ``pi`` layer's output
        :return: (TensorFlow Tensor) the flat parameters
        """
        return policy_output

    def proba_distribution_from_latent(self, pi_latent_vector: tf.Tensor, vf_latent_vector: tf.Tensor,
                                       init_scale: float = 1.0,
                                       init_bias: float = 0.0) -> Tuple[ProbabilityDistribution, tf.Tensor, tf.Tensor]:
        """
        Add the output layers ``pi`` and ``q`` on the latent features and build the distribution.

        :param pi_latent_vector: (TensorFlow Tensor) latent features of the policy
        :param vf_latent_vector: (TensorFlow Tensor) latent features of the value function
        :param init_scale: (float) scale of the orthogonal initialization of the layers' weights
        :param init_bias: (float) initial value of the layers' biases
        :return: (ProbabilityDistribution, TensorFlow Tensor, TensorFlow Tensor) the distribution,
            the output of the ``pi`` layer and the Q-values
        """
        n_units = self._policy_output_size()
        policy_output = linear(pi_latent_vector, 'pi', n_units, init_scale=init_scale, init_bias=init_bias)
        flat = self._flat_from_policy_output(policy_output)
        q_values = linear(vf_latent_vector, 'q', n_units, init_scale=init_scale, init_bias=init_bias)
        return self.proba_distribution_from_flat(flat), policy_output, q_values

    def param_shape(self) -> List[int]:
        """
        Shape of the flat parameters of one sample.

        :return: ([int]) the shape
        """
        raise NotImplementedError

    def sample_shape(self) -> List[int]:
        """
        Shape of one action.

        :return: ([int]) the shape
        """
        raise NotImplementedError

    def sample_dtype(self) -> tf.DType:
        """
        Data type of the actions.

        :return: (TensorFlow DType) the type
        """
        raise NotImplementedError

    def param_placeholder(self, prepend_shape: List[Optional[int]], name: Optional[str] = None) -> tf.Tensor:
        """
        A float32 placeholder for flat parameters.

        :param prepend_shape: ([int]) leading dimensions (e.g. ``[None]`` for the batch)
        :param name: (str) name of the placeholder
        :return: (TensorFlow Tensor) the placeholder
        """
        full_shape = list(prepend_shape) + self.param_shape()
        return tf.placeholder(dtype=tf.float32, shape=full_shape, name=name)

    def sample_placeholder(self, prepend_shape: List[Optional[int]], name: Optional[str] = None) -> tf.Tensor:
        """
        A placeholder for actions.

        :param prepend_shape: ([int]) leading dimensions (e.g. ``[None]`` for the batch)
        :param name: (str) name of the placeholder
        :return: (TensorFlow Tensor) the placeholder
        """
        full_shape = list(prepend_shape) + self.sample_shape()
        return tf.placeholder(dtype=self.sample_dtype(), shape=full_shape, name=name)


class CategoricalProbabilityDistributionType(ProbabilityDistributionType):
    """
    Distribution type of a ``Discrete`` action space.

    :param n_cat: (int) the number of categories
    """

    def __init__(self, n_cat: int) -> None:
        self.n_cat = int(n_cat)

    def probability_distribution_class(self) -> Type[ProbabilityDistribution]:
        return CategoricalProbabilityDistribution

    def _policy_output_size(self) -> int:
        return self.n_cat

    def param_shape(self) -> List[int]:
        return [self.n_cat]

    def sample_shape(self) -> List[int]:
        return []

    def sample_dtype(self) -> tf.DType:
        return tf.int64


class MultiCategoricalProbabilityDistributionType(ProbabilityDistributionType):
    """
    Distribution type of a ``MultiDiscrete`` action space: one categorical per dimension.

    :param n_vec: ([int]) the number of categories of each dimension
    """

    def __init__(self, n_vec: Union[Sequence[int], np.ndarray]) -> None:
        counts = np.asarray(n_vec)
        is_valid = counts.ndim == 1 and bool((counts > 0).all()) and not (counts > np.iinfo(np.int32).max).any()
        if not is_valid:
            raise ValueError("MultiCategorical needs a 1-D vector of positive category counts, got {}".format(counts))
        # tf.split wants int32 sizes
        self.n_vec = counts.astype(np.int32)

    def probability_distribution_class(self) -> Type[ProbabilityDistribution]:
        return MultiCategoricalProbabilityDistribution

    def proba_distribution_from_flat(self, flat: tf.Tensor) -> ProbabilityDistribution:
        return MultiCategoricalProbabilityDistribution(self.n_vec, flat)

    def _policy_output_size(self) -> int:
        return int(sum(self.n_vec))

    def param_shape(self) -> List[int]:
        return [self._policy_output_size()]

    def sample_shape(self) -> List[int]:
        return [len(self.n_vec)]

    def sample_dtype(self) -> tf.DType:
        return tf.int64


class DiagGaussianProbabilityDistributionType(ProbabilityDistributionType):
    """
    Distribution type of a 1-D ``Box`` action space: a Gaussian with a diagonal covariance whose
    log standard deviation is a free variable (``pi/logstd``), independent of the observation.

    :param size: (int) the number of action dimensions
    """

    def __init__(self, size: int) -> None:
        self.size = int(size)

    def probability_distribution_class(self) -> Type[ProbabilityDistribution]:
        return DiagGaussianProbabilityDistribution

    def _policy_output_size(self) -> int:
        return self.size

    def _flat_from_policy_output(self, policy_output: tf.Tensor) -> tf.Tensor:
        # the pi layer gives the mean; the log std is broadcast over the batch
        log_std = tf.get_variable(name='pi/logstd', shape=[1, self.size], initializer=tf.zeros_initializer())
        return tf.concat([policy_output, policy_output * 0.0 + log_std], axis=1)

    def param_shape(self) -> List[int]:
        return [2 * self.size]

    def sample_shape(self) -> List[int]:
        return [self.size]

    def sample_dtype(self) -> tf.DType:
        return tf.float32


class BernoulliProbabilityDistributionType(ProbabilityDistributionType):
    """
    Distribution type of a ``MultiBinary`` action space: independent Bernoulli variables.

    :param size: (int) the number of binary action dimensions
    """

    def __init__(self, size: int) -> None:
        self.size = int(size)

    def probability_distribution_class(self) -> Type[ProbabilityDistribution]:
        return BernoulliProbabilityDistribution

    def _policy_output_size(self) -> int:
        return self.size

    def param_shape(self) -> List[int]:
        return [self.size]

    def sample_shape(self) -> List[int]:
        return [self.size]

    def sample_dtype(self) -> tf.DType:
        return tf.int32


_Distribution = TypeVar("_Distribution", bound=ProbabilityDistribution)


def _require_same_kind(other: Any, expected: Type[_Distribution]) -> _Distribution:
    """
    Refuse a KL divergence between distributions of different classes.

    :param other: (Any) the second operand of the divergence
    :param expected: (type) the class it must have
    :return: (ProbabilityDistribution) ``other``, known to be of class ``expected``
    """
    if not isinstance(other, expected):
        raise TypeError("kl: expected a {}, got {}".format(expected.__name__, type(other).__name__))
    return other


def _stable_softmax(logits: tf.Tensor) -> Tuple[tf.Tensor, tf.Tensor, tf.Tensor]:
    """
    Softmax pieces computed after subtracting the largest logit.

    :param logits: (TensorFlow Tensor) the logits
    :return: (TensorFlow Tensor, TensorFlow Tensor, TensorFlow Tensor) the shifted logits, the sum of
        their exponentials and the probabilities
    """
    centred = logits - tf.reduce_max(logits, axis=-1, keepdims=True)
    exponentials = tf.exp(centred)
    partition = tf.reduce_sum(exponentials, axis=-1, keepdims=True)
    return centred, partition, exponentials / partition


class _SingleTensorDistribution(ProbabilityDistribution):
    """
    A distribution fully described by its one flat tensor, hence ``fromflat``.
    """

    @classmethod
    def fromflat(cls, flat: tf.Tensor) -> "ProbabilityDistribution":
        """
        Build a distribution of this class from flat parameters.

        :param flat: (TensorFlow Tensor) the flat parameters
        :return: (ProbabilityDistribution) the distribution
        """
        return cls(flat)  # type: ignore[call-arg]  # each concrete subclass takes its one flat tensor


class CategoricalProbabilityDistribution(_SingleTensorDistribution):
    """
    Categorical distribution over ``n`` actions.

    :param logits: (TensorFlow Tensor) the unnormalized log-probabilities, shape (batch, n)
    """

    def __init__(self, logits: tf.Tensor) -> None:
        self.logits = logits
        super().__init__()

    def flatparam(self) -> tf.Tensor:
        return self.logits

    def mode(self) -> tf.Tensor:
        return tf.argmax(self.logits, axis=-1)

    def neglogp(self, x: tf.Tensor) -> tf.Tensor:
        # a dense cross-entropy on one-hot labels (the sparse op has no second derivative)
        depth = dim_value(self.logits.get_shape()[-1])
        targets = tf.stop_gradient(tf.one_hot(x, depth))
        return tf.nn.softmax_cross_entropy_with_logits_v2(logits=self.logits, labels=targets)

    def kl(self, other: ProbabilityDistribution) -> tf.Tensor:
        same = _require_same_kind(other, CategoricalProbabilityDistribution)
        own_centred, own_partition, own_probs = _stable_softmax(self.logits)
        other_centred, other_partition, _ = _stable_softmax(same.logits)
        log_ratio = own_centred - tf.log(own_partition) - other_centred + tf.log(other_partition)
        return tf.reduce_sum(own_probs * log_ratio, axis=-1)

    def entropy(self) -> tf.Tensor:
        centred, partition, probs = _stable_softmax(self.logits)
        return tf.reduce_sum(probs * (tf.log(partition) - centred), axis=-1)

    def sample(self) -> tf.Tensor:
        # Gumbel-max: argmax(logits + Gumbel noise), the noise being -log(-log(U))
        noise_source = tf.random_uniform(tf.shape(self.logits), dtype=self.logits.dtype)
        return tf.argmax(self.logits - tf.log(-tf.log(noise_source)), axis=-1)


class MultiCategoricalProbabilityDistribution(ProbabilityDistribution):
    """
    Independent categorical distributions, one per action dimension.

    :param nvec: ([int]) the number of categories of each dimension
    :param flat: (TensorFlow Tensor) the logits of all the dimensions side by side, shape (batch, sum(nvec))
    """

    def __init__(self, nvec: Union[Sequence[int], np.ndarray], flat: tf.Tensor) -> None:
        self.flat = flat
        split_sizes = [int(count) for count in nvec]
        self.categoricals = [CategoricalProbabilityDistribution(part)
                             for part in tf.split(flat, split_sizes, axis=-1)]
        super().__init__()

    def flatparam(self) -> tf.Tensor:
        return self.flat

    def mode(self) -> tf.Tensor:
        return tf.stack([part.mode() for part in self.categoricals], axis=-1)

    def neglogp(self, x: tf.Tensor) -> tf.Tensor:
        columns = tf.unstack(x, axis=-1)
        return tf.add_n([part.neglogp(column) for part, column in zip(self.categoricals, columns)])

    def kl(self, other: ProbabilityDistribution) -> tf.Tensor:
        same = _require_same_kind(other, MultiCategoricalProbabilityDistribution)
        return tf.add_n([mine.kl(theirs) for mine, theirs in zip(self.categoricals, same.categoricals)])

    def entropy(self) -> tf.Tensor:
        return tf.add_n([part.entropy() for part in self.categoricals])

    def sample(self) -> tf.Tensor:
        return tf.stack([part.sample() for part in self.categoricals], axis=-1)

    @classmethod
    def fromflat(cls, flat: tf.Tensor) -> "MultiCategoricalProbabilityDistribution":
        """
        Not available: the flat logits alone do not say how many categories each dimension has.

        :param flat: (TensorFlow Tensor) the flat logits
        :return: (ProbabilityDistribution) never returns
        """
        raise NotImplementedError("MultiCategoricalProbabilityDistribution needs nvec: use "
                                  "MultiCategoricalProbabilityDistributionType(nvec).proba_distribution_from_flat(flat)")


class DiagGaussianProbabilityDistribution(_SingleTensorDistribution):
    """
    Gaussian with a diagonal covariance. Actions are not clipped here: the model clips them to the
    action space's bounds when it steps the environment.

    :param flat: (TensorFlow Tensor) the mean and the log standard deviation, concatenated on the last axis
    """

    def __init__(self, flat: tf.Tensor) -> None:
        self.flat = flat
        last_axis = len(flat.shape) - 1
        self.mean, self.logstd = tf.split(axis=last_axis, num_or_size_splits=2, value=flat)
        self.std = tf.exp(self.logstd)
        super().__init__()

    def flatparam(self) -> tf.Tensor:
        return self.flat

    def mode(self) -> tf.Tensor:
        return self.mean

    def neglogp(self, x: tf.Tensor) -> tf.Tensor:
        half_squared_z = 0.5 * tf.reduce_sum(tf.square((x - self.mean) / self.std), axis=-1)
        normalizer = _HALF_LOG_TWO_PI * tf.cast(tf.shape(x)[-1], tf.float32)
        return half_squared_z + normalizer + tf.reduce_sum(self.logstd, axis=-1)

    def kl(self, other: ProbabilityDistribution) -> tf.Tensor:
        same = _require_same_kind(other, DiagGaussianProbabilityDistribution)
        log_std_gap = same.logstd - self.logstd
        spread = tf.square(self.std) + tf.square(self.mean - same.mean)
        per_dim = log_std_gap + spread / (2.0 * tf.square(same.std)) - 0.5
        return tf.reduce_sum(per_dim, axis=-1)

    def entropy(self) -> tf.Tensor:
        return tf.reduce_sum(self.logstd + _GAUSSIAN_ENTROPY_PER_DIM, axis=-1)

    def sample(self) -> tf.Tensor:
        standard_normal = tf.random_normal(tf.shape(self.mean), dtype=self.mean.dtype)
        return self.mean + self.std * standard_normal


class BernoulliProbabilityDistribution(_SingleTensorDistribution):
    """
    Independent Bernoulli variables.

    :param logits: (TensorFlow Tensor) the log-odds of each variable being 1
    """

    def __init__(self, logits: tf.Tensor) -> None:
        self.logits = logits
        self.probabilities = tf.sigmoid(logits)
        super().__init__()

    def _summed_cross_entropy(self, logits: tf.Tensor, labels: tf.Tensor) -> tf.Tensor:
        """
        Sigmoid cross-entropy of ``labels`` against ``logits``, summed over the variables.

        :param logits: (TensorFlow Tensor) log-odds
        :param labels: (TensorFlow Tensor) target probabilities
        :return: (TensorFlow Tensor) one value per sample
        """
        return tf.reduce_sum(tf.nn.sigmoid_cross_entropy_with_logits(logits=logits, labels=labels), axis=-1)

    def flatparam(self) -> tf.Tensor:
        return self.logits

    def mode(self) -> tf.Tensor:
        return tf.round(self.probabilities)

    def neglogp(self, x: tf.Tensor) -> tf.Tensor:
        return self._summed_cross_entropy(self.logits, tf.cast(x, tf.float32))

    def kl(self, other: ProbabilityDistribution) -> tf.Tensor:
        same = _require_same_kind(other, BernoulliProbabilityDistribution)
        cross_entropy = self._summed_cross_entropy(same.logits, self.probabilities)
        return cross_entropy - self.entropy()

    def entropy(self) -> tf.Tensor:
        return self._summed_cross_entropy(self.logits, self.probabilities)

    def sample(self) -> tf.Tensor:
        uniform = tf.random_uniform(tf.shape(self.probabilities), dtype=self.probabilities.dtype)
        return tf.cast(tf.less(uniform, self.probabilities), tf.float32)


def _multi_binary_size(action_space: spaces.MultiBinary) -> int:
    """
    Number of variables of a 1-D ``MultiBinary`` space.

    :param action_space: (MultiBinary) the space
    :return: (int) its size
    """
    size = action_space.n
    if isinstance(size, (int, np.integer)):
        return int(size)
    dims = tuple(size)
    if len(dims) != 1:
        raise ValueError("Error: the MultiBinary action space must be 1-D, got shape {}".format(dims))
    return int(dims[0])


def make_proba_dist_type(ac_space: spaces.Space) -> ProbabilityDistributionType:
    """
    Choose the distribution type matching an action space.

    :param ac_space: (Gym Space) the action space (Box, Discrete, MultiDiscrete or MultiBinary)
    :return: (ProbabilityDistributionType) the distribution type
    """
    if not isinstance(ac_space, spaces.Space):
        ac_space = convert_space(ac_space)
    if isinstance(ac_space, spaces.Box):
        if len(ac_space.shape) != 1:
            raise ValueError("Error: the action space must be a vector (a Box of shape (n,)), got a Box of shape "
                             "{}".format(ac_space.shape))
        return DiagGaussianProbabilityDistributionType(ac_space.shape[0])
    if isinstance(ac_space, spaces.Discrete):
        return CategoricalProbabilityDistributionType(ac_space.n)
    if isinstance(ac_space, spaces.MultiDiscrete):
        return MultiCategoricalProbabilityDistributionType(np.asarray(ac_space.nvec).ravel())
    if isinstance(ac_space, spaces.MultiBinary):
        return BernoulliProbabilityDistributionType(_multi_binary_size(ac_space))
    raise NotImplementedError("Error: probability distribution, not implemented for action space of type {}. "
                              "Must be of type Gym Spaces: Box, Discrete, MultiDiscrete or MultiBinary."
                              .format(type(ac_space).__name__))


def shape_el(tensor: tf.Tensor, index: int) -> Any:
    """
    One dimension of a tensor: the static size when known, else the dynamic one.

    :param tensor: (TensorFlow Tensor) the tensor
    :param index: (int) which dimension
    :return: (int or TensorFlow Tensor) the size of that dimension
    """
    static_size = dim_value(tensor.get_shape()[index])
    return tf.shape(tensor)[index] if static_size is None else static_size


#: The logit a forbidden action gets. Its softmax weight is exactly 0 in float32, yet it stays finite, so that the
#: ``p * log p`` terms of entropies and divergences are ``0 * finite = 0`` (never ``0 * inf = nan``).
MASKED_LOGIT = -1e8


def masked_logits(logits: tf.Tensor, allowed: tf.Tensor) -> tf.Tensor:
    """
    Give every forbidden action the logit :data:`MASKED_LOGIT`; allowed ones keep theirs (and their gradients).

    :param logits: (TensorFlow Tensor) logits, shape (batch, n)
    :param allowed: (TensorFlow Tensor) bool of the same shape, True where the action may be taken
    :return: (TensorFlow Tensor) the masked logits
    """
    return tf.where(allowed, logits, tf.fill(tf.shape(logits), tf.constant(MASKED_LOGIT, dtype=logits.dtype)))


def masked_proba_distribution(pdtype: ProbabilityDistributionType, flat: tf.Tensor,
                              allowed: tf.Tensor) -> Tuple[ProbabilityDistribution, tf.Tensor]:
    """
    The distribution of a categorical or multi-categorical type restricted to the allowed actions: sampling, mode,
    log-likelihoods, entropy and KL divergence are all those of the renormalised distribution.

    :param pdtype: (ProbabilityDistributionType) a categorical or multi-categorical type
    :param flat: (TensorFlow Tensor) the unmasked logits (all sub-spaces side by side for MultiDiscrete)
    :param allowed: (TensorFlow Tensor) bool, the same shape as ``flat``
    :return: (ProbabilityDistribution, TensorFlow Tensor) the masked distribution and its logits
    """
    if not isinstance(pdtype, (CategoricalProbabilityDistributionType, MultiCategoricalProbabilityDistributionType)):
        raise ValueError("Action masks need a Discrete or MultiDiscrete action space (a categorical distribution), "
                         "got the distribution type {}".format(type(pdtype).__name__))
    logits = masked_logits(flat, allowed)
    return pdtype.proba_distribution_from_flat(logits), logits
