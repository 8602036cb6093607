"""MPI building blocks: MpiAdam, mpi_moments, the TF RunningMeanStd, console helpers; one real `mpirun -np 2` run."""
import textwrap

import numpy as np
import pytest

pytest.importorskip("mpi4py", reason="mpi4py is not installed (the [mpi] extra)")

from stable_baselines.common import tf_util  # noqa: E402
from stable_baselines.common.console_util import colorize, fmt_item, fmt_row, timed  # noqa: E402
from stable_baselines.common.mpi_adam import MpiAdam  # noqa: E402
from stable_baselines.common.mpi_moments import _helper_runningmeanstd, mpi_mean, mpi_moments  # noqa: E402
from stable_baselines.common.mpi_running_mean_std import RunningMeanStd  # noqa: E402
from stable_baselines.common.tf_compat import tf  # noqa: E402
from mpi_helpers import NO_MPIRUN_REASON, find_mpirun, rank_results, run_worker_script  # noqa: E402  (tests/ helper)



def _numpy_adam(theta, grad_fn, learning_rate, n_steps, beta1=0.9, beta2=0.999, epsilon=1e-8):
    """Textbook Adam (Kingma & Ba, Algorithm 1, with the efficient bias correction of section 2)."""
    theta = theta.astype(np.float64).copy()
    m_t = np.zeros_like(theta)
    v_t = np.zeros_like(theta)
    trajectory = []
    for step in range(1, n_steps + 1):
        grad = grad_fn(theta)
        m_t = beta1 * m_t + (1 - beta1) * grad
        v_t = beta2 * v_t + (1 - beta2) * grad ** 2
        alpha_t = learning_rate * np.sqrt(1 - beta2 ** step) / (1 - beta1 ** step)
        theta = theta - alpha_t * m_t / (np.sqrt(v_t) + epsilon)
        trajectory.append(theta.copy())
    return trajectory


def test_mpi_adam_matches_numpy_adam_on_a_quadratic():
    # loss = 0.5 * sum(scale * (theta - target)^2), gradient scale * (theta - target)
    target = np.array([1.0, -2.0, 0.5, 3.0, -1.0], dtype=np.float32)
    scale = np.array([1.0, 10.0, 0.1, 2.0, 5.0], dtype=np.float32)
    start = np.zeros(5, dtype=np.float32)
    graph = tf.Graph()
    with graph.as_default():
        var_a = tf.get_variable("a", initializer=start[:2])
        var_b = tf.get_variable("b", initializer=start[2:].reshape(1, 3))
        flat = tf.concat([tf.reshape(var_a, [-1]), tf.reshape(var_b, [-1])], axis=0)
        loss = 0.5 * tf.reduce_sum(scale * tf.square(flat - target))
        grad = tf_util.flatgrad(loss, [var_a, var_b])
        sess = tf_util.single_threaded_session(graph=graph)
        sess.run(tf.global_variables_initializer())
        adam = MpiAdam([var_a, var_b], sess=sess)
        adam.sync()
        ours = []
        for _ in range(200):
            adam.update(sess.run(grad), learning_rate=0.05)
            ours.append(sess.run(flat))
        sess.close()
    expected = _numpy_adam(start, lambda theta: scale * (theta - target), 0.05, 200)
    np.testing.assert_allclose(ours[0], expected[0], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(ours[-1], expected[-1], rtol=1e-4, atol=1e-4)
    # and it actually minimizes the quadratic
    np.testing.assert_allclose(ours[-1], target, atol=0.05)
    assert adam.step == 200


def test_mpi_adam_rejects_bad_gradients_and_empty_var_lists():
    graph = tf.Graph()
    with graph.as_default():
        var = tf.get_variable("v", shape=(2, 3), initializer=tf.zeros_initializer())
        sess = tf_util.single_threaded_session(graph=graph)
        sess.run(tf.global_variables_initializer())
        adam = MpiAdam([var], sess=sess)
        with pytest.raises(ValueError, match=r"shape \(6,\).*got shape \(2, 3\)"):
            adam.update(np.zeros((2, 3), dtype=np.float32), 1e-3)
        with pytest.raises(ValueError, match="non-empty list"):
            MpiAdam([])
        adam.check_synced()  # a single worker is always in sync
        sess.close()


def test_mpi_mean_and_moments_on_one_worker():
    rng = np.random.RandomState(1)
    arr = rng.randn(7, 3)
    mean, count = mpi_mean(arr)
    np.testing.assert_allclose(mean, arr.mean(axis=0))
    assert count == 7
    mean, std, count = mpi_moments(arr, axis=1)
    np.testing.assert_allclose(mean, arr.mean(axis=1))
    np.testing.assert_allclose(std, arr.std(axis=1))
    assert count == 3 and mean.shape == (7,)
    mean, std, _ = mpi_moments(arr, keepdims=True)
    assert mean.shape == (1, 3) and std.shape == (1, 3)
    # the losses of PPO1: a list of per-minibatch loss vectors
    mean, _, _ = mpi_moments([np.array([1.0, 2.0]), np.array([3.0, 6.0])], axis=0)
    np.testing.assert_allclose(mean, [2.0, 4.0])
    with pytest.raises(ValueError, match="axis"):
        mpi_moments(arr, axis=-1)


def test_mpi_moments_self_test_helper():
    # the module's own check against numpy (run under mpirun it splits the data between the workers)
    assert _helper_runningmeanstd() == 5


def test_mpi_running_mean_std_values_and_variables():
    rng = np.random.RandomState(2)
    data = [rng.randn(10, 3) * [1.0, 2.0, 5.0] + [0.0, 1.0, -3.0] for _ in range(4)]
    graph = tf.Graph()
    with graph.as_default(), tf_util.single_threaded_session(graph=graph) as sess:
        with tf.variable_scope("input"):
            with tf.variable_scope("obs_rms"):
                rms = RunningMeanStd(shape=(3,))
        tf_util.initialize(sess)
        names = [(v.name, v.dtype.base_dtype, v.shape.as_list()) for v in tf.global_variables()]
        assert names == [("input/obs_rms/runningsum:0", tf.float64, [3]),
                         ("input/obs_rms/runningsumsq:0", tf.float64, [3]),
                         ("input/obs_rms/count:0", tf.float64, [])]
        assert tf.trainable_variables() == []
        # initial values: sum 0, sumsq = count = epsilon (1e-2)
        np.testing.assert_allclose(sess.run(rms._count), 1e-2)
        for chunk in data:
            rms.update(chunk)
        mean, std, count = sess.run([rms.mean, rms.std, rms._count])
        with pytest.raises(ValueError, match=r"\(n_samples,\) \+ \(3,\)"):
            rms.update(np.zeros((4, 2)))
    everything = np.concatenate(data)
    eps = 1e-2
    expected_mean = everything.sum(axis=0) / (40 + eps)
    expected_var = (np.square(everything).sum(axis=0) + eps) / (40 + eps) - expected_mean ** 2
    np.testing.assert_allclose(count, 40 + eps)
    np.testing.assert_allclose(mean, expected_mean, rtol=1e-5)
    np.testing.assert_allclose(std, np.sqrt(np.maximum(expected_var, 1e-2)), rtol=1e-5)
    np.testing.assert_allclose(std, everything.std(axis=0), rtol=2e-2)


def test_console_util(capsys):
    assert fmt_item(1.5, 8) == " 1.50000"
    assert fmt_item(np.float32(123456.0), 10) == "  1.23e+05"
    assert fmt_item(np.array(3), 4) == "   3"
    assert fmt_row(6, ["a", 2], header=True) == "     a |      2\n" + "-" * 15
    assert colorize("hi", "red", bold=True) == "\x1b[31;1mhi\x1b[0m"
    assert colorize("hi", "green", highlight=True) == "\x1b[42mhi\x1b[0m"
    with pytest.raises(ValueError, match="Unknown color 'pink'"):
        colorize("hi", "pink")
    with timed("computing", verbose=True):
        pass
    with timed("silent", verbose=False):
        pass
    out = capsys.readouterr().out
    assert "computing" in out and "done in" in out and "silent" not in out


MPI_SCRIPT = textwrap.dedent("""
    import json, sys
    import numpy as np
    from mpi4py import MPI
    from stable_baselines.common import tf_util
    from stable_baselines.common.tf_compat import tf
    from stable_baselines.common.mpi_adam import MpiAdam
    from stable_baselines.common.mpi_moments import mpi_moments
    from stable_baselines.common.mpi_running_mean_std import RunningMeanStd

    comm = MPI.COMM_WORLD
    rank = comm.Get_rank()
    graph = tf.Graph()
    with graph.as_default(), tf_util.single_threaded_session(graph=graph) as sess:
        # every rank starts from different parameters: sync() must copy rank 0's
        var = tf.get_variable("w", initializer=np.full(3, 10.0 * (rank + 1), dtype=np.float32))
        with tf.variable_scope("rms"):
            rms = RunningMeanStd(epsilon=0.0, shape=(2,))
        tf_util.initialize(sess)
        adam = MpiAdam([var], sess=sess)
        adam.sync()
        after_sync = sess.run(var).tolist()
        # rank-dependent gradients: the update must use their average
        grad = np.array([1.0, -1.0, 2.0], dtype=np.float32) * (rank + 1)
        adam.update(grad, learning_rate=0.1)
        after_update = sess.run(var).tolist()
        adam.check_synced()
        local = np.arange(6, dtype=np.float64).reshape(3, 2) + 10 * rank
        mean, std, count = mpi_moments(local, axis=0)
        rms.update(local)
        rms_mean, rms_std = sess.run([rms.mean, rms.std])
    from stable_baselines.common.mpi_moments import _helper_runningmeanstd
    n_checked = _helper_runningmeanstd()
    out = dict(n_checked=n_checked, rank=rank, size=comm.Get_size(), after_sync=after_sync, after_update=after_update,
               exp_avg=adam.exp_avg.tolist(), mean=mean.tolist(), std=std.tolist(), count=float(count),
               rms_mean=rms_mean.tolist(), rms_std=rms_std.tolist())
    with open(sys.argv[1] + "." + str(rank), "w") as file_handler:
        json.dump(out, file_handler)
""")


@pytest.mark.mpi
@pytest.mark.skipif(find_mpirun() is None, reason=NO_MPIRUN_REASON)
def test_mpirun_two_workers_average_gradients_and_stay_synced(tmp_path):
    results = rank_results(run_worker_script(MPI_SCRIPT, tmp_path, "worker.py", "result", timeout=300))
    assert [res["size"] for res in results] == [2, 2]
    for res in results:
        # sync broadcasts rank 0's parameters
        np.testing.assert_allclose(res["after_sync"], [10.0] * 3)
        # average gradient = 1.5 * [1, -1, 2]; first Adam step moves each coordinate by lr * sign
        np.testing.assert_allclose(res["exp_avg"], np.array([1.0, -1.0, 2.0]) * 1.5 * 0.1, rtol=1e-6)
        np.testing.assert_allclose(res["after_update"], [9.9, 10.1, 9.9], rtol=1e-6)
        # moments of the concatenation of both ranks' data
        both = np.concatenate([np.arange(6).reshape(3, 2) + 10 * rank for rank in range(2)])
        np.testing.assert_allclose(res["mean"], both.mean(axis=0))
        np.testing.assert_allclose(res["std"], both.std(axis=0))
        assert res["count"] == 6
        assert res["n_checked"] == 5  # mpi_moments' self-test passed on both workers
        np.testing.assert_allclose(res["rms_mean"], both.mean(axis=0), rtol=1e-5)
        np.testing.assert_allclose(res["rms_std"], both.std(axis=0), rtol=1e-5)
    assert results[0]["after_update"] == results[1]["after_update"]
