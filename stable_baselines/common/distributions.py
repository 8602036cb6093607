"""
Probability distributions over actions, and the types that build them from a policy's latent
features.

- CategoricalProbabilityDistribution -> Discrete
- DiagGaussianProbabilityDistribution -> Box (continuous actions)
- MultiCategoricalProbabilityDistribution -> MultiDiscrete
- BernoulliProbabilityDistribution -> MultiBinary

The policy networks output parameters for the distributions (named ``flat`` in the methods).
Actions are then sampled from those distributions.
"""
from typing import Any, List, Optional, Sequence, Tuple, Type

import numpy as np
from gymnasium import spaces

from stable_baselines.common.tf_compat import dim_value, tf
from stable_baselines.common.tf_layers import linear


class ProbabilityDistribution(object):
    """
    Base class for describing a probability distribution.
    """

    def __init__(self):
        super(ProbabilityDistribution, self).__init__()

    def flatparam(self) -> tf.Tensor:
        """
        Return the direct probabilities

        :return: ([float]) the probabilities
        """
        raise NotImplementedError

    def mode(self) -> tf.Tensor:
        """
        Returns the probability

        :return: (Tensorflow Tensor) the deterministic action
        """
        raise NotImplementedError

    def neglogp(self, x: tf.Tensor) -> tf.Tensor:
        """
        returns the of the negative log likelihood

        :param x: (str) the labels of each index
        :return: ([float]) The negative log likelihood of the distribution
        """
        # Usually it's easier to define the negative logprob
        raise NotImplementedError

    def kl(self, other: "ProbabilityDistribution") -> tf.Tensor:
        """
        Calculates the Kullback-Leibler divergence from the given probability distribution

        :param other: ([float]) the distribution to compare with
        :return: (float) the KL divergence of the two distributions
        """
        raise NotImplementedError

    def entropy(self) -> tf.Tensor:
        """
        Returns Shannon's entropy of the probability

        :return: (float) the entropy
        """
        raise NotImplementedError

    def sample(self) -> tf.Tensor:
        """
        returns a sample from the probability distribution

        :return: (Tensorflow Tensor) the stochastic action
        """
        raise NotImplementedError

    def logp(self, x: tf.Tensor) -> tf.Tensor:
        """
        returns the of the log likelihood

        :param x: (str) the labels of each index
        :return: ([float]) The log likelihood of the distribution
        """
        return - self.neglogp(x)


class ProbabilityDistributionType(object):
    """
    Parametrized family of probability distributions
    """

    def probability_distribution_class(self) -> Type[ProbabilityDistribution]:
        """
        returns the ProbabilityDistribution class of this type

        :return: (Type ProbabilityDistribution) the probability distribution class associated
        """
        raise NotImplementedError

    def proba_distribution_from_flat(self, flat: tf.Tensor) -> ProbabilityDistribution:
        """
        Returns the probability distribution from flat probabilities
        flat: flattened vector of parameters of probability distribution

        :param flat: ([float]) the flat probabilities
        :return: (ProbabilityDistribution) the instance of the ProbabilityDistribution associated
        """
        return self.probability_distribution_class()(flat)

    def proba_distribution_from_latent(self, pi_latent_vector: tf.Tensor, vf_latent_vector: tf.Tensor,
                                       init_scale: float = 1.0,
                                       init_bias: float = 0.0) -> Tuple[ProbabilityDistribution, tf.Tensor, tf.Tensor]:
        """
        returns the probability distribution from latent values

        :param pi_latent_vector: ([float]) the latent pi values
        :param vf_latent_vector: ([float]) the latent vf values
        :param init_scale: (float) the initial scale of the distribution
        :param init_bias: (float) the initial bias of the distribution
        :return: (ProbabilityDistribution, TensorFlow Tensor, TensorFlow Tensor) the distribution,
            its parameters (policy output) and the q values
        """
        raise NotImplementedError

    def param_shape(self) -> List[int]:
        """
        returns the shape of the input parameters

        :return: ([int]) the shape
        """
        raise NotImplementedError

    def sample_shape(self) -> List[int]:
        """
        returns the shape of the sampling

        :return: ([int]) the shape
        """
        raise NotImplementedError

    def sample_dtype(self) -> tf.DType:
        """
        returns the type of the sampling

        :return: (type) the type
        """
        raise NotImplementedError

    def param_placeholder(self, prepend_shape: List[Optional[int]], name: Optional[str] = None) -> tf.Tensor:
        """
        returns the TensorFlow placeholder for the input parameters

        :param prepend_shape: ([int]) the prepend shape
        :param name: (str) the placeholder name
        :return: (TensorFlow Tensor) the placeholder
        """
        return tf.placeholder(dtype=tf.float32, shape=list(prepend_shape) + self.param_shape(), name=name)

    def sample_placeholder(self, prepend_shape: List[Optional[int]], name: Optional[str] = None) -> tf.Tensor:
        """
        returns the TensorFlow placeholder for the sampling

        :param prepend_shape: ([int]) the prepend shape
        :param name: (str) the placeholder name
        :return: (TensorFlow Tensor) the placeholder
        """
        return tf.placeholder(dtype=self.sample_dtype(), shape=list(prepend_shape) + self.sample_shape(), name=name)


# ------------------------------------------------------------------------------------------------
# types
# ------------------------------------------------------------------------------------------------
class CategoricalProbabilityDistributionType(ProbabilityDistributionType):
    """
    The probability distribution type for categorical input

    :param n_cat: (int) the number of categories
    """

    def __init__(self, n_cat: int):
        self.n_cat = int(n_cat)

    def probability_distribution_class(self) -> Type[ProbabilityDistribution]:
        return CategoricalProbabilityDistribution

    def proba_distribution_from_latent(self, pi_latent_vector, vf_latent_vector, init_scale=1.0, init_bias=0.0):
        pdparam = linear(pi_latent_vector, 'pi', self.n_cat, init_scale=init_scale, init_bias=init_bias)
        q_values = linear(vf_latent_vector, 'q', self.n_cat, init_scale=init_scale, init_bias=init_bias)
        return self.proba_distribution_from_flat(pdparam), pdparam, q_values

    def param_shape(self):
        return [self.n_cat]

    def sample_shape(self):
        return []

    def sample_dtype(self):
        return tf.int64


class MultiCategoricalProbabilityDistributionType(ProbabilityDistributionType):
    """
    The probability distribution type for multiple categorical input

    :param n_vec: ([int]) the vectors
    """

    def __init__(self, n_vec: Sequence[int]):
        n_vec = np.asarray(n_vec)
        if n_vec.ndim != 1 or not (n_vec > 0).all() or (n_vec > np.iinfo(np.int32).max).any():
            raise ValueError("MultiCategorical needs a 1-D vector of positive category counts, got {}".format(n_vec))
        # Casting into an int32 makes the tensorflow split happy
        self.n_vec = n_vec.astype(np.int32)

    def probability_distribution_class(self) -> Type[ProbabilityDistribution]:
        return MultiCategoricalProbabilityDistribution

    def proba_distribution_from_flat(self, flat):
        return MultiCategoricalProbabilityDistribution(self.n_vec, flat)

    def proba_distribution_from_latent(self, pi_latent_vector, vf_latent_vector, init_scale=1.0, init_bias=0.0):
        n_total = int(sum(self.n_vec))
        pdparam = linear(pi_latent_vector, 'pi', n_total, init_scale=init_scale, init_bias=init_bias)
        q_values = linear(vf_latent_vector, 'q', n_total, init_scale=init_scale, init_bias=init_bias)
        return self.proba_distribution_from_flat(pdparam), pdparam, q_values

    def param_shape(self):
        return [int(sum(self.n_vec))]

    def sample_shape(self):
        return [len(self.n_vec)]

    def sample_dtype(self):
        return tf.int64


class DiagGaussianProbabilityDistributionType(ProbabilityDistributionType):
    """
    The probability distribution type for multivariate Gaussian input

    :param size: (int) the number of dimensions of the multivariate gaussian
    """

    def __init__(self, size: int):
        self.size = int(size)

    def probability_distribution_class(self) -> Type[ProbabilityDistribution]:
        return DiagGaussianProbabilityDistribution

    def proba_distribution_from_flat(self, flat):
        """
        returns the probability distribution from flat probabilities

        :param flat: ([float]) the flat probabilities
        :return: (ProbabilityDistribution) the instance of the ProbabilityDistribution associated
        """
        return self.probability_distribution_class()(flat)

    def proba_distribution_from_latent(self, pi_latent_vector, vf_latent_vector, init_scale=1.0, init_bias=0.0):
        mean = linear(pi_latent_vector, 'pi', self.size, init_scale=init_scale, init_bias=init_bias)
        logstd = tf.get_variable(name='pi/logstd', shape=[1, self.size], initializer=tf.zeros_initializer())
        pdparam = tf.concat([mean, mean * 0.0 + logstd], axis=1)
        q_values = linear(vf_latent_vector, 'q', self.size, init_scale=init_scale, init_bias=init_bias)
        return self.proba_distribution_from_flat(pdparam), mean, q_values

    def param_shape(self):
        return [2 * self.size]

    def sample_shape(self):
        return [self.size]

    def sample_dtype(self):
        return tf.float32


class BernoulliProbabilityDistributionType(ProbabilityDistributionType):
    """
    The probability distribution type for Bernoulli input

    :param size: (int) the number of dimensions of the Bernoulli distribution
    """

    def __init__(self, size: int):
        self.size = int(size)

    def probability_distribution_class(self) -> Type[ProbabilityDistribution]:
        return BernoulliProbabilityDistribution

    def proba_distribution_from_latent(self, pi_latent_vector, vf_latent_vector, init_scale=1.0, init_bias=0.0):
        pdparam = linear(pi_latent_vector, 'pi', self.size, init_scale=init_scale, init_bias=init_bias)
        q_values = linear(vf_latent_vector, 'q', self.size, init_scale=init_scale, init_bias=init_bias)
        return self.proba_distribution_from_flat(pdparam), pdparam, q_values

    def param_shape(self):
        return [self.size]

    def sample_shape(self):
        return [self.size]

    def sample_dtype(self):
        return tf.int32


# ------------------------------------------------------------------------------------------------
# distributions
# ------------------------------------------------------------------------------------------------
def _log_softmax_parts(logits: tf.Tensor) -> Tuple[tf.Tensor, tf.Tensor, tf.Tensor]:
    """shifted logits, their normalizer and the probabilities (numerically stable softmax)"""
    shifted = logits - tf.reduce_max(logits, axis=-1, keepdims=True)
    exp_shifted = tf.exp(shifted)
    normalizer = tf.reduce_sum(exp_shifted, axis=-1, keepdims=True)
    return shifted, normalizer, exp_shifted / normalizer


class CategoricalProbabilityDistribution(ProbabilityDistribution):
    """
    Probability distributions from categorical input

    :param logits: ([float]) the categorical logits input
    """

    def __init__(self, logits: tf.Tensor):
        self.logits = logits
        super(CategoricalProbabilityDistribution, self).__init__()

    def flatparam(self):
        return self.logits

    def mode(self):
        return tf.argmax(self.logits, axis=-1)

    def neglogp(self, x):
        # Note: we can't use sparse_softmax_cross_entropy_with_logits because
        #       the implementation does not allow second-order derivatives...
        n_cat = dim_value(self.logits.get_shape()[-1])
        one_hot_actions = tf.one_hot(x, n_cat)
        return tf.nn.softmax_cross_entropy_with_logits_v2(
            logits=self.logits,
            labels=tf.stop_gradient(one_hot_actions))

    def kl(self, other):
        if not isinstance(other, CategoricalProbabilityDistribution):
            raise TypeError("kl: expected a CategoricalProbabilityDistribution, got {}".format(type(other).__name__))
        shifted_0, norm_0, probs_0 = _log_softmax_parts(self.logits)
        shifted_1, norm_1, _ = _log_softmax_parts(other.logits)
        return tf.reduce_sum(probs_0 * (shifted_0 - tf.log(norm_0) - shifted_1 + tf.log(norm_1)), axis=-1)

    def entropy(self):
        shifted, normalizer, probs = _log_softmax_parts(self.logits)
        return tf.reduce_sum(probs * (tf.log(normalizer) - shifted), axis=-1)

    def sample(self):
        # Gumbel-max trick to sample
        # a categorical distribution (see http://amid.fish/humble-gumbel)
        uniform = tf.random_uniform(tf.shape(self.logits), dtype=self.logits.dtype)
        return tf.argmax(self.logits - tf.log(-tf.log(uniform)), axis=-1)

    @classmethod
    def fromflat(cls, flat: tf.Tensor) -> "CategoricalProbabilityDistribution":
        """
        Create an instance of this from new logits values

        :param flat: ([float]) the categorical logits input
        :return: (ProbabilityDistribution) the instance from the given categorical input
        """
        return cls(flat)


class MultiCategoricalProbabilityDistribution(ProbabilityDistribution):
    """
    Probability distributions from multicategorical input

    :param nvec: ([int]) the sizes of the different categorical inputs
    :param flat: ([float]) the categorical logits input
    """

    def __init__(self, nvec: Sequence[int], flat: tf.Tensor):
        self.flat = flat
        self.categoricals = list(map(CategoricalProbabilityDistribution,
                                     tf.split(flat, [int(n) for n in nvec], axis=-1)))
        super(MultiCategoricalProbabilityDistribution, self).__init__()

    def flatparam(self):
        return self.flat

    def mode(self):
        return tf.stack([p.mode() for p in self.categoricals], axis=-1)

    def neglogp(self, x):
        return tf.add_n([p.neglogp(px) for p, px in zip(self.categoricals, tf.unstack(x, axis=-1))])

    def kl(self, other):
        if not isinstance(other, MultiCategoricalProbabilityDistribution):
            raise TypeError("kl: expected a MultiCategoricalProbabilityDistribution, got {}".format(
                type(other).__name__))
        return tf.add_n([p.kl(q) for p, q in zip(self.categoricals, other.categoricals)])

    def entropy(self):
        return tf.add_n([p.entropy() for p in self.categoricals])

    def sample(self):
        return tf.stack([p.sample() for p in self.categoricals], axis=-1)

    @classmethod
    def fromflat(cls, flat):
        """
        Create an instance of this from new logits values

        :param flat: ([float]) the multi categorical logits input
        :return: (ProbabilityDistribution) the instance from the given multi categorical input
        """
        raise NotImplementedError("MultiCategoricalProbabilityDistribution needs nvec: use "
                                  "MultiCategoricalProbabilityDistributionType(nvec).proba_distribution_from_flat(flat)")


class DiagGaussianProbabilityDistribution(ProbabilityDistribution):
    """
    Probability distributions from multivariate Gaussian input

    :param flat: ([float]) the multivariate Gaussian input data (mean and log std concatenated)
    """

    def __init__(self, flat: tf.Tensor):
        self.flat = flat
        mean, logstd = tf.split(axis=len(flat.shape) - 1, num_or_size_splits=2, value=flat)
        self.mean = mean
        self.logstd = logstd
        self.std = tf.exp(logstd)
        super(DiagGaussianProbabilityDistribution, self).__init__()

    def flatparam(self):
        return self.flat

    def mode(self):
        # Bounds are taken into account outside this class (during training only)
        return self.mean

    def neglogp(self, x):
        return 0.5 * tf.reduce_sum(tf.square((x - self.mean) / self.std), axis=-1) \
            + 0.5 * np.log(2.0 * np.pi) * tf.cast(tf.shape(x)[-1], tf.float32) \
            + tf.reduce_sum(self.logstd, axis=-1)

    def kl(self, other):
        if not isinstance(other, DiagGaussianProbabilityDistribution):
            raise TypeError("kl: expected a DiagGaussianProbabilityDistribution, got {}".format(type(other).__name__))
        return tf.reduce_sum(other.logstd - self.logstd + (tf.square(self.std) + tf.square(self.mean - other.mean)) /
                             (2.0 * tf.square(other.std)) - 0.5, axis=-1)

    def entropy(self):
        return tf.reduce_sum(self.logstd + .5 * np.log(2.0 * np.pi * np.e), axis=-1)

    def sample(self):
        # Bounds are taken into acount outside this class (during training only)
        # Otherwise, it changes the distribution and breaks PPO2 for instance
        return self.mean + self.std * tf.random_normal(tf.shape(self.mean), dtype=self.mean.dtype)

    @classmethod
    def fromflat(cls, flat: tf.Tensor) -> "DiagGaussianProbabilityDistribution":
        """
        Create an instance of this from new multivariate Gaussian input

        :param flat: ([float]) the multivariate Gaussian input data
        :return: (ProbabilityDistribution) the instance from the given multivariate Gaussian input data
        """
        return cls(flat)


class BernoulliProbabilityDistribution(ProbabilityDistribution):
    """
    Probability distributions from Bernoulli input

    :param logits: ([float]) the Bernoulli input data
    """

    def __init__(self, logits: tf.Tensor):
        self.logits = logits
        self.probabilities = tf.sigmoid(logits)
        super(BernoulliProbabilityDistribution, self).__init__()

    def flatparam(self):
        return self.logits

    def mode(self):
        return tf.round(self.probabilities)

    def neglogp(self, x):
        return tf.reduce_sum(tf.nn.sigmoid_cross_entropy_with_logits(logits=self.logits,
                                                                     labels=tf.cast(x, tf.float32)),
                             axis=-1)

    def kl(self, other):
        if not isinstance(other, BernoulliProbabilityDistribution):
            raise TypeError("kl: expected a BernoulliProbabilityDistribution, got {}".format(type(other).__name__))
        return tf.reduce_sum(tf.nn.sigmoid_cross_entropy_with_logits(logits=other.logits,
                                                                     labels=self.probabilities), axis=-1) - \
            tf.reduce_sum(tf.nn.sigmoid_cross_entropy_with_logits(logits=self.logits,
                                                                  labels=self.probabilities), axis=-1)

    def entropy(self):
        return tf.reduce_sum(tf.nn.sigmoid_cross_entropy_with_logits(logits=self.logits,
                                                                     labels=self.probabilities), axis=-1)

    def sample(self):
        samples_from_uniform = tf.random_uniform(tf.shape(self.probabilities), dtype=self.probabilities.dtype)
        return tf.cast(tf.less(samples_from_uniform, self.probabilities), tf.float32)

    @classmethod
    def fromflat(cls, flat: tf.Tensor) -> "BernoulliProbabilityDistribution":
        """
        Create an instance of this from new Bernoulli input

        :param flat: ([float]) the Bernoulli input data
        :return: (ProbabilityDistribution) the instance from the given Bernoulli input data
        """
        return cls(flat)


def make_proba_dist_type(ac_space: spaces.Space) -> ProbabilityDistributionType:
    """
    return an instance of ProbabilityDistributionType for the correct type of action space

    :param ac_space: (Gym Space) the input action space
    :return: (ProbabilityDistributionType) the appropriate instance of a ProbabilityDistributionType
    """
    if not isinstance(ac_space, spaces.Space):
        from stable_baselines.common.gym_compat import convert_space  # pylint: disable=import-outside-toplevel
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
        n = ac_space.n
        if not isinstance(n, (int, np.integer)):
            if len(tuple(n)) != 1:
                raise ValueError("Error: the MultiBinary action space must be 1-D, got shape {}".format(tuple(n)))
            n = tuple(n)[0]
        return BernoulliProbabilityDistributionType(int(n))
    raise NotImplementedError("Error: probability distribution, not implemented for action space of type {}. "
                              "Must be of type Gym Spaces: Box, Discrete, MultiDiscrete or MultiBinary."
                              .format(type(ac_space).__name__))


def shape_el(tensor: tf.Tensor, index: int) -> Any:
    """
    get the shape of a TensorFlow Tensor element

    :param tensor: (TensorFlow Tensor) the input tensor
    :param index: (int) the element
    :return: ([int]) the shape
    """
    maybe = dim_value(tensor.get_shape()[index])
    if maybe is not None:
        return maybe
    return tf.shape(tensor)[index]
