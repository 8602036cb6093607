"""Tests of common/distributions.py: numerics against numpy/scipy, shapes, names, errors."""
import numpy as np
import pytest
from gymnasium import spaces
from scipy import special, stats

from stable_baselines.common import tf_util
from stable_baselines.common.distributions import (BernoulliProbabilityDistribution,
                                                   BernoulliProbabilityDistributionType,
                                                   CategoricalProbabilityDistribution,
                                                   CategoricalProbabilityDistributionType,
                                                   DiagGaussianProbabilityDistribution,
                                                   DiagGaussianProbabilityDistributionType,
                                                   MultiCategoricalProbabilityDistribution,
                                                   MultiCategoricalProbabilityDistributionType,
                                                   make_proba_dist_type, shape_el)
from stable_baselines.common.tf_compat import tf


def _var(graph, name):
    """The variable called `name` (works in TF-1 and TF-2 behaviour, unlike get_tensor_by_name)."""
    matches = [var for var in graph.get_collection(tf.GraphKeys.GLOBAL_VARIABLES) if var.name == name]
    assert len(matches) == 1, name
    return matches[0]

BATCH = 6


@pytest.fixture
def sess():
    graph = tf.Graph()
    with graph.as_default():
        session = tf_util.make_session(num_cpu=1, graph=graph)
        tf.set_random_seed(0)
        yield session
        session.close()


def _evaluate(sess, pdtype, flat_a, flat_b, actions):
    """Run neglogp/logp/entropy/kl/mode of the distributions built by `pdtype` from two flat params."""
    param_a = pdtype.param_placeholder([None], name="a")
    param_b = pdtype.param_placeholder([None], name="b")
    action_ph = pdtype.sample_placeholder([None], name="act")
    dist_a = pdtype.proba_distribution_from_flat(param_a)
    dist_b = pdtype.proba_distribution_from_flat(param_b)
    ops = {"neglogp": dist_a.neglogp(action_ph), "logp": dist_a.logp(action_ph), "entropy": dist_a.entropy(),
           "kl": dist_a.kl(dist_b), "mode": dist_a.mode(), "flat": dist_a.flatparam(), "sample": dist_a.sample()}
    return sess.run(ops, {param_a: flat_a, param_b: flat_b, action_ph: actions}), dist_a


def _log_softmax(logits):
    return logits - special.logsumexp(logits, axis=-1, keepdims=True)


def test_categorical_numerics(sess):
    rng = np.random.RandomState(0)
    n_cat = 4
    pdtype = CategoricalProbabilityDistributionType(n_cat)
    assert pdtype.param_shape() == [4] and pdtype.sample_shape() == [] and pdtype.sample_dtype() == tf.int64
    logits_a = rng.randn(BATCH, n_cat).astype(np.float32) * 2
    logits_b = rng.randn(BATCH, n_cat).astype(np.float32) * 2
    actions = rng.randint(n_cat, size=BATCH)
    out, dist = _evaluate(sess, pdtype, logits_a, logits_b, actions)
    assert isinstance(dist, CategoricalProbabilityDistribution)
    logp_a, logp_b = _log_softmax(logits_a), _log_softmax(logits_b)
    probs_a = np.exp(logp_a)
    np.testing.assert_allclose(out["neglogp"], -logp_a[np.arange(BATCH), actions], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(out["logp"], -out["neglogp"])
    np.testing.assert_allclose(out["entropy"], [stats.entropy(p) for p in probs_a], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(out["kl"], (probs_a * (logp_a - logp_b)).sum(-1), rtol=1e-4, atol=1e-6)
    np.testing.assert_array_equal(out["mode"], logits_a.argmax(-1))
    np.testing.assert_allclose(out["flat"], logits_a)
    assert out["sample"].shape == (BATCH,) and out["sample"].dtype == np.int64


def test_categorical_sample_frequencies(sess):
    logits = np.log(np.array([[0.1, 0.2, 0.7]], np.float32))
    dist = CategoricalProbabilityDistribution(tf.constant(np.repeat(logits, 20000, axis=0)))
    samples = sess.run(dist.sample())
    freq = np.bincount(samples, minlength=3) / len(samples)
    np.testing.assert_allclose(freq, [0.1, 0.2, 0.7], atol=0.015)


def test_diag_gaussian_numerics(sess):
    rng = np.random.RandomState(1)
    size = 3
    pdtype = DiagGaussianProbabilityDistributionType(size)
    assert pdtype.param_shape() == [6] and pdtype.sample_shape() == [3] and pdtype.sample_dtype() == tf.float32
    mean_a, logstd_a = rng.randn(BATCH, size), rng.randn(BATCH, size) * 0.3
    mean_b, logstd_b = rng.randn(BATCH, size), rng.randn(BATCH, size) * 0.3
    flat_a = np.concatenate([mean_a, logstd_a], axis=1).astype(np.float32)
    flat_b = np.concatenate([mean_b, logstd_b], axis=1).astype(np.float32)
    actions = rng.randn(BATCH, size).astype(np.float32)
    out, dist = _evaluate(sess, pdtype, flat_a, flat_b, actions)
    assert isinstance(dist, DiagGaussianProbabilityDistribution)
    std_a, std_b = np.exp(logstd_a), np.exp(logstd_b)
    expected_logp = stats.norm.logpdf(actions, mean_a, std_a).sum(-1)
    np.testing.assert_allclose(out["neglogp"], -expected_logp, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(out["entropy"], stats.norm.entropy(mean_a, std_a).sum(-1), rtol=1e-5, atol=1e-5)
    expected_kl = (np.log(std_b / std_a) + (std_a ** 2 + (mean_a - mean_b) ** 2) / (2 * std_b ** 2) - 0.5).sum(-1)
    np.testing.assert_allclose(out["kl"], expected_kl, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(out["mode"], mean_a, rtol=1e-6)
    assert out["sample"].shape == (BATCH, size)


def test_diag_gaussian_sample_statistics(sess):
    flat = np.tile(np.array([[1.0, -2.0, np.log(0.5), np.log(2.0)]], np.float32), (20000, 1))
    dist = DiagGaussianProbabilityDistribution(tf.constant(flat))
    samples = sess.run(dist.sample())
    np.testing.assert_allclose(samples.mean(0), [1.0, -2.0], atol=0.05)
    np.testing.assert_allclose(samples.std(0), [0.5, 2.0], rtol=0.03)


def test_multi_categorical_numerics(sess):
    rng = np.random.RandomState(2)
    nvec = np.array([2, 3, 4])
    pdtype = MultiCategoricalProbabilityDistributionType(nvec)
    assert pdtype.param_shape() == [9] and pdtype.sample_shape() == [3] and pdtype.sample_dtype() == tf.int64
    flat_a = rng.randn(BATCH, 9).astype(np.float32)
    flat_b = rng.randn(BATCH, 9).astype(np.float32)
    actions = np.stack([rng.randint(n, size=BATCH) for n in nvec], axis=1)
    out, dist = _evaluate(sess, pdtype, flat_a, flat_b, actions)
    assert isinstance(dist, MultiCategoricalProbabilityDistribution) and len(dist.categoricals) == 3
    bounds = np.cumsum([0] + list(nvec))
    neglogp = np.zeros(BATCH)
    entropy = np.zeros(BATCH)
    kl_div = np.zeros(BATCH)
    modes = []
    for i in range(3):
        part_a = _log_softmax(flat_a[:, bounds[i]:bounds[i + 1]])
        part_b = _log_softmax(flat_b[:, bounds[i]:bounds[i + 1]])
        neglogp -= part_a[np.arange(BATCH), actions[:, i]]
        entropy -= (np.exp(part_a) * part_a).sum(-1)
        kl_div += (np.exp(part_a) * (part_a - part_b)).sum(-1)
        modes.append(part_a.argmax(-1))
    np.testing.assert_allclose(out["neglogp"], neglogp, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(out["entropy"], entropy, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(out["kl"], kl_div, rtol=1e-4, atol=1e-5)
    np.testing.assert_array_equal(out["mode"], np.stack(modes, axis=1))
    assert out["sample"].shape == (BATCH, 3)
    assert np.all(out["sample"] < nvec) and np.all(out["sample"] >= 0)
    with pytest.raises(NotImplementedError, match="nvec"):
        MultiCategoricalProbabilityDistribution.fromflat(tf.constant(flat_a))
    with pytest.raises(ValueError, match="positive"):
        MultiCategoricalProbabilityDistributionType([2, 0])


def test_bernoulli_numerics(sess):
    rng = np.random.RandomState(3)
    size = 5
    pdtype = BernoulliProbabilityDistributionType(size)
    assert pdtype.param_shape() == [5] and pdtype.sample_shape() == [5] and pdtype.sample_dtype() == tf.int32
    logits_a = rng.randn(BATCH, size).astype(np.float32) * 2
    logits_b = rng.randn(BATCH, size).astype(np.float32) * 2
    actions = rng.randint(2, size=(BATCH, size)).astype(np.int32)
    out, dist = _evaluate(sess, pdtype, logits_a, logits_b, actions)
    assert isinstance(dist, BernoulliProbabilityDistribution)
    p_a, p_b = special.expit(logits_a), special.expit(logits_b)
    np.testing.assert_allclose(out["neglogp"], -stats.bernoulli.logpmf(actions, p_a).sum(-1), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(out["entropy"], stats.bernoulli.entropy(p_a).sum(-1), rtol=1e-5, atol=1e-5)
    expected_kl = (p_a * np.log(p_a / p_b) + (1 - p_a) * np.log((1 - p_a) / (1 - p_b))).sum(-1)
    np.testing.assert_allclose(out["kl"], expected_kl, rtol=1e-4, atol=1e-5)
    np.testing.assert_array_equal(out["mode"], np.round(p_a))
    assert out["sample"].shape == (BATCH, size) and set(np.unique(out["sample"])) <= {0.0, 1.0}


def test_bernoulli_sample_frequencies(sess):
    logits = np.tile(special.logit(np.array([[0.2, 0.9]], np.float32)), (20000, 1))
    samples = sess.run(BernoulliProbabilityDistribution(tf.constant(logits)).sample())
    np.testing.assert_allclose(samples.mean(0), [0.2, 0.9], atol=0.015)


def test_make_proba_dist_type():
    assert isinstance(make_proba_dist_type(spaces.Discrete(3)), CategoricalProbabilityDistributionType)
    assert make_proba_dist_type(spaces.Discrete(3)).n_cat == 3
    box_type = make_proba_dist_type(spaces.Box(-1, 1, (2,)))
    assert isinstance(box_type, DiagGaussianProbabilityDistributionType) and box_type.size == 2
    multi = make_proba_dist_type(spaces.MultiDiscrete([3, 5]))
    assert isinstance(multi, MultiCategoricalProbabilityDistributionType)
    assert multi.n_vec.tolist() == [3, 5] and multi.n_vec.dtype == np.int32
    bern = make_proba_dist_type(spaces.MultiBinary(4))
    assert isinstance(bern, BernoulliProbabilityDistributionType) and bern.size == 4
    with pytest.raises(ValueError, match="vector"):
        make_proba_dist_type(spaces.Box(-1, 1, (2, 2)))
    with pytest.raises(NotImplementedError, match="Dict"):
        make_proba_dist_type(spaces.Dict({"a": spaces.Discrete(2)}))


@pytest.mark.parametrize("space, expected", [
    (spaces.Discrete(3), [('pi/w:0', [8, 3]), ('pi/b:0', [3]), ('q/w:0', [8, 3]), ('q/b:0', [3])]),
    (spaces.Box(-1, 1, (2,)), [('pi/w:0', [8, 2]), ('pi/b:0', [2]), ('pi/logstd:0', [1, 2]),
                               ('q/w:0', [8, 2]), ('q/b:0', [2])]),
    (spaces.MultiDiscrete([2, 3]), [('pi/w:0', [8, 5]), ('pi/b:0', [5]), ('q/w:0', [8, 5]), ('q/b:0', [5])]),
    (spaces.MultiBinary(4), [('pi/w:0', [8, 4]), ('pi/b:0', [4]), ('q/w:0', [8, 4]), ('q/b:0', [4])]),
])
def test_proba_distribution_from_latent_variables(space, expected):
    graph = tf.Graph()
    with graph.as_default():
        pi_latent = tf.placeholder(tf.float32, (None, 8))
        vf_latent = tf.placeholder(tf.float32, (None, 8))
        pdtype = make_proba_dist_type(space)
        dist, policy, q_values = pdtype.proba_distribution_from_latent(pi_latent, vf_latent, init_scale=0.01,
                                                                       init_bias=0.5)
        names = [(var.name, var.shape.as_list()) for var in graph.get_collection(tf.GraphKeys.GLOBAL_VARIABLES)]
        assert names == expected
        assert dist.flatparam().shape.as_list() == [None] + pdtype.param_shape()
        assert q_values.shape.as_list()[-1] == expected[-1][1][0]
        with tf_util.make_session(num_cpu=1, graph=graph) as sess:
            sess.run(tf.global_variables_initializer())
            latent = np.random.RandomState(0).randn(3, 8)
            policy_value, flat_value = sess.run([policy, dist.flatparam()], {pi_latent: latent})
            bias = sess.run(_var(graph, 'pi/b:0'))
            np.testing.assert_allclose(bias, 0.5)
            if isinstance(space, spaces.Box):
                # policy is the mean; the flat parameters are [mean, logstd (zeros)]
                np.testing.assert_allclose(flat_value[:, :2], policy_value)
                np.testing.assert_allclose(flat_value[:, 2:], 0.0)
            else:
                np.testing.assert_allclose(flat_value, policy_value)


def test_shape_el():
    graph = tf.Graph()
    with graph.as_default():
        tensor = tf.placeholder(tf.float32, (None, 3))
        assert shape_el(tensor, 1) == 3
        dynamic = shape_el(tensor, 0)
        assert isinstance(dynamic, tf.Tensor)
        with tf_util.make_session(num_cpu=1, graph=graph) as sess:
            assert sess.run(dynamic, {tensor: np.zeros((7, 3))}) == 7
