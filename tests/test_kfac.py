"""
Our K-FAC optimizer (stable_baselines/acktr/kfac.py) computes the natural-gradient step.

Exactness: for a dense layer ``y = x W + b`` with a Gaussian output (unit covariance) and *sampled* targets
``t = y + eps``, the per-example gradient of the sampled log-likelihood w.r.t. the pre-activation is ``eps``.
When the batch is the Cartesian product of a set of inputs ``x_i`` and a set of noise vectors ``eps_j``,
the empirical Fisher ``(1/N) sum_r vec(a_r eps_r^T) vec(a_r eps_r^T)^T`` equals ``A (x) G`` EXACTLY
(``A = mean a a^T`` over the inputs with the homogeneous 1, ``G = mean eps eps^T``), so the K-FAC step must
equal ``-lr F^-1 grad`` computed directly from the per-example gradients, to float64 round-off
(tolerance: rtol 1e-8, atol 1e-10). With damping, it must equal the factored-Tikhonov formula.
"""
import numpy as np
import pytest

from stable_baselines.acktr.kfac import KfacOptimizer, find_layers
from stable_baselines.common.tf_compat import tf

D_IN, D_OUT = 3, 2


def _problem(seed: int = 0):
    rng = np.random.RandomState(seed)
    inputs = rng.randn(12, D_IN) * np.array([1.0, 3.0, 0.3]) + np.array([0.5, -1.0, 0.0])
    chol = np.array([[1.0, 0.0], [0.7, 0.5]])
    noise = np.concatenate([np.sqrt(D_OUT) * chol[:, j][None] * sign for j in range(D_OUT) for sign in (1, -1)])
    x_batch = np.repeat(inputs, len(noise), axis=0)
    eps_batch = np.tile(noise, (len(inputs), 1))
    targets = rng.randn(len(x_batch), D_OUT)
    return x_batch, eps_batch, targets, rng.randn(D_IN, D_OUT), rng.randn(D_OUT)


def _build(x_batch, eps_batch, targets, w_init, b_init, **kwargs):
    graph = tf.Graph()
    with graph.as_default():
        x_ph = tf.constant(x_batch)
        weight = tf.get_variable("layer/w", initializer=tf.constant(w_init))
        bias = tf.get_variable("layer/b", initializer=tf.constant(b_init))
        out = tf.matmul(x_ph, weight) + bias
        loss = tf.reduce_mean(0.5 * tf.reduce_sum(tf.square(out - targets), axis=1))
        sampled_targets = tf.stop_gradient(out) + eps_batch
        loss_sampled = -tf.reduce_mean(0.5 * tf.reduce_sum(tf.square(out - sampled_targets), axis=1))
        optimizer = KfacOptimizer(**kwargs)
        train_op, q_runner = optimizer.minimize(loss, loss_sampled, var_list=[weight, bias])
        assert q_runner is None
        sess = tf.Session(graph=graph)
        sess.run(tf.global_variables_initializer())
    return graph, sess, optimizer, train_op, weight, bias


def _exact_quantities(x_batch, eps_batch, targets, w_init, b_init):
    acts = np.concatenate([x_batch, np.ones((len(x_batch), 1))], axis=1)
    per_example = np.einsum("ni,nj->nij", acts, eps_batch).reshape(len(acts), -1)  # vec of [W; b] row-major
    fisher = per_example.T @ per_example / len(acts)
    out = x_batch @ w_init + b_init
    resid = (out - targets) / len(x_batch)
    grad = (acts.T @ resid).reshape(-1)
    factor_a = acts.T @ acts / len(acts)
    factor_g = eps_batch.T @ eps_batch / len(acts)
    return fisher, grad, factor_a, factor_g


def test_kfac_step_equals_exact_natural_gradient():
    problem = _problem()
    lr = 0.5
    _, sess, optimizer, train_op, weight, bias = _build(*problem, learning_rate=lr, momentum=0.0, clip_kl=None,
                                                        epsilon=0.0, kfac_update=1)
    assert len(optimizer.layers) == 1 and optimizer.layers[0].bias is bias and optimizer.other_vars == []
    fisher, grad, factor_a, factor_g = _exact_quantities(*problem)
    np.testing.assert_allclose(fisher, np.kron(factor_a, factor_g), rtol=1e-10, atol=1e-12)  # the design is exact
    before = np.concatenate([sess.run(weight), sess.run(bias)[None]]).reshape(-1)
    sess.run(train_op)
    after = np.concatenate([sess.run(weight), sess.run(bias)[None]]).reshape(-1)
    expected = -lr * np.linalg.solve(fisher, grad)
    np.testing.assert_allclose(after - before, expected, rtol=1e-8, atol=1e-10)
    # the stored factors are the batch factors (first statistics update is an exact average)
    np.testing.assert_allclose(sess.run(optimizer._factors[0]["A"]), factor_a, rtol=1e-10)
    np.testing.assert_allclose(sess.run(optimizer._factors[0]["G"]), factor_g, rtol=1e-10)


def test_kfac_damping_is_factored_tikhonov():
    problem = _problem(1)
    damping = 0.1
    _, sess, _, train_op, weight, bias = _build(*problem, learning_rate=1.0, momentum=0.0, clip_kl=None,
                                                epsilon=damping, kfac_update=1)
    _, grad, factor_a, factor_g = _exact_quantities(*problem)
    pi = np.sqrt((np.trace(factor_a) / len(factor_a)) / (np.trace(factor_g) / len(factor_g)))
    damped = np.kron(factor_a + pi * np.sqrt(damping) * np.eye(len(factor_a)),
                     factor_g + np.sqrt(damping) / pi * np.eye(len(factor_g)))
    before = np.concatenate([sess.run(weight), sess.run(bias)[None]]).reshape(-1)
    sess.run(train_op)
    after = np.concatenate([sess.run(weight), sess.run(bias)[None]]).reshape(-1)
    np.testing.assert_allclose(after - before, -np.linalg.solve(damped, grad), rtol=1e-8, atol=1e-10)


def test_trust_region_scaling_and_momentum():
    problem = _problem(2)
    lr, clip_kl, momentum = 1.0, 1e-4, 0.9
    _, sess, optimizer, train_op, weight, bias = _build(*problem, learning_rate=lr, momentum=momentum,
                                                        clip_kl=clip_kl, epsilon=0.0, kfac_update=1)
    fisher, grad, _, _ = _exact_quantities(*problem)
    natural = np.linalg.solve(fisher, grad)
    before = np.concatenate([sess.run(weight), sess.run(bias)[None]]).reshape(-1)
    _, scale, g_f_g = sess.run([train_op, optimizer.scale, optimizer.natural_gradient_norm])
    after = np.concatenate([sess.run(weight), sess.run(bias)[None]]).reshape(-1)
    np.testing.assert_allclose(g_f_g, grad @ natural, rtol=1e-5)
    expected_scale = min(1.0, np.sqrt(clip_kl / (lr ** 2 * grad @ natural)))  # the original ACKTR formula
    assert expected_scale < 1.0
    np.testing.assert_allclose(scale, expected_scale, rtol=1e-5)
    # first momentum step: (1 - momentum) * step; step^T F step of the full step is clip_kl (KL clip_kl / 2)
    step = -(after - before) / (1 - momentum)
    np.testing.assert_allclose(step, lr * expected_scale * natural, rtol=1e-5)
    np.testing.assert_allclose(step @ fisher @ step, clip_kl, rtol=1e-4)



def test_unclipped_vars_take_the_plain_natural_step_outside_the_trust_region():
    """Two independent layers on the same inputs: the trust region (``g^T F^-1 g`` and the rescaling) concerns only
    the first; the second, given as ``unclipped_vars`` (ACKTR: the value-only variables), takes ``-lr F^-1 g``."""
    x_batch, eps_batch, targets, w_a, b_a = _problem(3)
    rng = np.random.RandomState(7)
    w_b, b_b = rng.randn(D_IN, D_OUT), rng.randn(D_OUT)
    lr, clip_kl = 1.0, 1e-4
    graph = tf.Graph()
    with graph.as_default():
        x_ph = tf.constant(x_batch)
        losses, sampled_losses, variables = [], [], []
        for name, w_init, b_init in (("first", w_a, b_a), ("second", w_b, b_b)):
            weight = tf.get_variable(name + "/w", initializer=tf.constant(w_init))
            bias = tf.get_variable(name + "/b", initializer=tf.constant(b_init))
            out = tf.matmul(x_ph, weight) + bias
            losses.append(tf.reduce_mean(0.5 * tf.reduce_sum(tf.square(out - targets), axis=1)))
            sampled_targets = tf.stop_gradient(out) + eps_batch
            sampled_losses.append(-tf.reduce_mean(0.5 * tf.reduce_sum(tf.square(out - sampled_targets), axis=1)))
            variables += [weight, bias]
        optimizer = KfacOptimizer(learning_rate=lr, momentum=0.0, clip_kl=clip_kl, epsilon=0.0, kfac_update=1,
                                  unclipped_vars=variables[2:])
        train_op, _ = optimizer.minimize(tf.add_n(losses), tf.add_n(sampled_losses), var_list=variables)
        sess = tf.Session(graph=graph)
        sess.run(tf.global_variables_initializer())
    fisher, grad_a, _, _ = _exact_quantities(x_batch, eps_batch, targets, w_a, b_a)
    _, grad_b, _, _ = _exact_quantities(x_batch, eps_batch, targets, w_b, b_b)
    natural_a, natural_b = np.linalg.solve(fisher, grad_a), np.linalg.solve(fisher, grad_b)
    before = [sess.run(var) for var in variables]
    _, scale, g_f_g = sess.run([train_op, optimizer.scale, optimizer.natural_gradient_norm])
    steps = [sess.run(var) - value for var, value in zip(variables, before)]
    np.testing.assert_allclose(g_f_g, grad_a @ natural_a, rtol=1e-5)  # the second layer does not count
    expected_scale = np.sqrt(clip_kl / (lr ** 2 * grad_a @ natural_a))
    assert expected_scale < 1.0
    np.testing.assert_allclose(scale, expected_scale, rtol=1e-5)
    np.testing.assert_allclose(np.concatenate([steps[0], steps[1][None]]).reshape(-1),
                               -lr * expected_scale * natural_a, rtol=1e-5)
    np.testing.assert_allclose(np.concatenate([steps[2], steps[3][None]]).reshape(-1), -lr * natural_b, rtol=1e-5)


def test_conv_factors_use_patches_consistent_with_the_weight_layout():
    rng = np.random.RandomState(0)
    images = rng.randn(2, 5, 5, 2).astype(np.float32)
    graph = tf.Graph()
    with graph.as_default():
        from stable_baselines.common.tf_layers import conv, linear, conv_to_fc
        inp = tf.constant(images)
        hidden = tf.nn.relu(conv(inp, "c1", n_filters=3, filter_size=3, stride=2))
        logits = linear(conv_to_fc(hidden), "fc", 2)
        labels = tf.stop_gradient(tf.squeeze(tf.multinomial(logits, 1), axis=1))
        loss_sampled = -tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits))
        params = tf.trainable_variables()
        layers, others = find_layers([loss_sampled], params)
        assert [(layer.kind, layer.weight.name, layer.bias.name) for layer in layers] == [
            ("conv", "c1/w:0", "c1/b:0"), ("dense", "fc/w:0", "fc/b:0")]
        assert others == []
        optimizer = KfacOptimizer(learning_rate=0.1)
        stats_op = optimizer.compute_and_apply_stats(loss_sampled, params)
        conv_out = layers[0].uses[0].outputs[0]
        grad_out = tf.gradients(loss_sampled, conv_out)[0]
        grad_w = tf.gradients(loss_sampled, layers[0].weight)[0]
        sess = tf.Session(graph=graph)
        sess.run(tf.global_variables_initializer())
        tf.set_random_seed(0)
        # one run, so that the sampled labels are the same for every fetch
        _, d_out, g_w, factor_a, factor_g = sess.run([stats_op, grad_out, grad_w, optimizer._factors[0]["A"],
                                                      optimizer._factors[0]["G"]])
    # numpy patches in (kh, kw, c_in) order, VALID padding, stride 2 -> 2x2 positions
    patches = []
    for n in range(2):
        for row in range(2):
            for col in range(2):
                patches.append(images[n, 2 * row:2 * row + 3, 2 * col:2 * col + 3, :].reshape(-1))
    patches = np.array(patches)
    deltas = d_out.reshape(-1, 3)
    # the gradient of the weight is sum over positions of patch x delta: same layout as the weight
    np.testing.assert_allclose(patches.T @ deltas, g_w.reshape(-1, 3), rtol=1e-4, atol=1e-6)
    homogeneous = np.concatenate([patches, np.ones((len(patches), 1))], axis=1)
    np.testing.assert_allclose(factor_a, homogeneous.T @ homogeneous / len(patches), rtol=1e-4, atol=1e-6)
    # G = N * sum_r (dL/ds_r)(dL/ds_r)^T with N = 2 images
    np.testing.assert_allclose(factor_g, 2 * deltas.T @ deltas, rtol=1e-4, atol=1e-8)


def _softmax_problem():
    rng = np.random.RandomState(0)
    n_samples, n_features, n_classes = 512, 8, 3
    scales = np.logspace(-1.5, 1.5, n_features)
    inputs = rng.randn(n_samples, n_features) * scales + 0.5 * scales
    true_w = rng.randn(n_features, n_classes) / scales[:, None]
    labels = np.argmax(inputs @ true_w + 0.5 * rng.randn(n_samples, n_classes), axis=1)
    return inputs.astype(np.float32), labels.astype(np.int64)


def _iterations_to_threshold(make_train_op, threshold: float, max_iter: int) -> int:
    inputs, labels = _softmax_problem()
    graph = tf.Graph()
    with graph.as_default():
        tf.set_random_seed(0)
        weight = tf.get_variable("w", [inputs.shape[1], 3], initializer=tf.zeros_initializer())
        bias = tf.get_variable("b", [3], initializer=tf.zeros_initializer())
        logits = tf.matmul(tf.constant(inputs), weight) + bias
        loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits))
        sampled = tf.stop_gradient(tf.squeeze(tf.multinomial(logits, 1), axis=1))
        loss_sampled = -tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=sampled, logits=logits))
        train_op = make_train_op(loss, loss_sampled, [weight, bias])
        sess = tf.Session(graph=graph)
        sess.run(tf.global_variables_initializer())
        for iteration in range(1, max_iter + 1):
            _, value = sess.run([train_op, loss])
            if value < threshold:
                return iteration
    return max_iter + 1


def test_kfac_converges_faster_than_sgd_on_ill_conditioned_softmax_regression():
    threshold, max_iter = 0.45, 300

    def kfac(loss, loss_sampled, var_list):
        return KfacOptimizer(learning_rate=0.5, momentum=0.9, clip_kl=0.01, epsilon=1e-3, kfac_update=1,
                             stats_decay=0.95).minimize(loss, loss_sampled, var_list)[0]

    kfac_iters = _iterations_to_threshold(kfac, threshold, max_iter)
    sgd_iters = []
    for learning_rate in (0.003, 0.01, 0.03, 0.1, 0.3):  # momentum SGD over a range of rates

        def sgd(loss, _loss_sampled, var_list, learning_rate=learning_rate):
            return tf.train.MomentumOptimizer(learning_rate, 0.9).minimize(loss, var_list=var_list)

        sgd_iters.append(_iterations_to_threshold(sgd, threshold, max_iter))
    # measured: K-FAC 36 iterations, momentum SGD > 300 at every rate
    assert kfac_iters <= 60, kfac_iters
    assert kfac_iters * 3 <= min(sgd_iters), (kfac_iters, sgd_iters)


def test_bad_arguments_raise_clear_errors():
    with pytest.raises(ValueError, match="kfac_update"):
        KfacOptimizer(kfac_update=0)
    with pytest.raises(ValueError, match="stats_decay"):
        KfacOptimizer(stats_decay=1.0)
    with pytest.raises(RuntimeError, match="compute_and_apply_stats"):
        graph = tf.Graph()
        with graph.as_default():
            var = tf.get_variable("v", [2, 2])
            KfacOptimizer().apply_gradients([(tf.ones([2, 2]), var)])


def test_added_variable_block_is_the_gaussian_logstd_fisher():
    """A per-dimension variable added over the batch (a diagonal Gaussian's ``logstd``) gets a Fisher block of its
    own: ``G`` = second moment of the per-example gradients of the sampled loss (about 2 per dimension for the
    log-likelihood of actions sampled from the Gaussian), and its step is ``lr (G + epsilon I)^-1 grad``."""
    n_samples, dim, lr, epsilon = 20000, 2, 0.1, 0.01
    rng = np.random.RandomState(0)
    noise = rng.randn(n_samples, dim)
    graph = tf.Graph()
    with graph.as_default():
        mean = tf.zeros([n_samples, dim], tf.float64)
        logstd = tf.get_variable("pi/logstd", initializer=tf.constant(np.array([[0.3, -0.2]])))
        logstd_batch = mean * 0.0 + logstd
        actions = tf.stop_gradient(mean + tf.exp(logstd_batch) * noise)

        def neglogp(act):
            return tf.reduce_sum(0.5 * tf.square((act - mean) / tf.exp(logstd_batch)) + logstd_batch, axis=1)

        loss = tf.reduce_mean(neglogp(actions) * np.linspace(-1.0, 1.0, n_samples))
        optimizer = KfacOptimizer(learning_rate=lr, momentum=0.0, clip_kl=None, epsilon=epsilon, kfac_update=1)
        train_op, _ = optimizer.minimize(loss, -tf.reduce_mean(neglogp(actions)), var_list=[logstd])
        grad_op = tf.gradients(loss, logstd)[0]
        sess = tf.Session(graph=graph)
        sess.run(tf.global_variables_initializer())
    assert optimizer.layers == [] and optimizer.added_vars == [logstd] and optimizer.other_vars == []
    before, grad = sess.run([logstd, grad_op])
    sess.run(train_op)
    after = sess.run(logstd)
    factor_g = sess.run(optimizer._added_factors[0])
    per_example = noise ** 2 - 1.0  # d log p / d logstd of each sample
    np.testing.assert_allclose(factor_g, per_example.T @ per_example / n_samples, rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(np.diag(factor_g), [2.0, 2.0], atol=0.1)
    expected = before - lr * np.linalg.solve(factor_g + epsilon * np.eye(dim), grad.reshape(dim)).reshape(1, dim)
    np.testing.assert_allclose(after, expected, rtol=1e-8, atol=1e-10)


def test_cold_phase_decomposes_only_what_the_first_kfac_steps_read():
    """With ``cold_iter=3`` and ``kfac_update=2`` the decomposition due at call 0 is skipped (call 2 replaces it
    before any K-FAC step reads it); the one of call 2 (still cold) is what the first K-FAC step (call 3) uses."""
    problem = _problem(4)
    lr = 0.5
    _, sess, optimizer, train_op, weight, bias = _build(*problem, learning_rate=lr, momentum=0.0, clip_kl=None,
                                                        epsilon=0.0, kfac_update=2, cold_iter=3, cold_lr=0.01)
    eigen = optimizer._eigen[0]
    initial = sess.run(eigen)
    for _ in range(2):
        sess.run(train_op)
        for key, value in sess.run(eigen).items():
            np.testing.assert_array_equal(value, initial[key], err_msg=key)
    sess.run(train_op)  # call 2: cold, but its decomposition is read by call 3
    q_a, e_a = sess.run([eigen["QA"], eigen["eA"]])
    factor_a = sess.run(optimizer._factors[0]["A"])
    np.testing.assert_allclose(q_a @ np.diag(e_a) @ q_a.T, factor_a, rtol=1e-8, atol=1e-10)
    x_batch, eps_batch, targets = problem[:3]
    w_now, b_now = sess.run([weight, bias])
    fisher, grad, _, _ = _exact_quantities(x_batch, eps_batch, targets, w_now, b_now)
    before = np.concatenate([w_now, b_now[None]]).reshape(-1)
    sess.run(train_op)  # call 3: the first K-FAC step, no decomposition of its own (3 % 2 != 0)
    after = np.concatenate([sess.run(weight), sess.run(bias)[None]]).reshape(-1)
    np.testing.assert_allclose(after - before, -lr * np.linalg.solve(fisher, grad), rtol=1e-8, atol=1e-10)
