"""
Adam whose gradients are averaged over the MPI workers.

Every worker computes a flat gradient locally; :meth:`MpiAdam.update` sums it over the
communicator (``Allreduce``), divides by the number of workers, and applies the Adam step to the
TensorFlow variables. Started from the same parameters (:meth:`MpiAdam.sync`), all workers then
stay identical.

Run ``python -m stable_baselines.common.mpi_adam`` (optionally under ``mpirun -np N``) for a
self-test against ``tf.train.AdamOptimizer``.
"""
from typing import Any, Optional, Sequence

import numpy as np
from mpi4py import MPI

from stable_baselines.common import tf_util
from stable_baselines.common.tf_compat import tf


class MpiAdam(object):
    """
    A parallel MPI implementation of the Adam optimizer for TensorFlow
    https://arxiv.org/abs/1412.6980

    :param var_list: ([TensorFlow Tensor]) the variables
    :param beta1: (float) Adam beta1 parameter
    :param beta2: (float) Adam beta1 parameter
    :param epsilon: (float) to help with preventing arithmetic issues
    :param scale_grad_by_procs: (bool) if the scaling should be done by processes
    :param comm: (MPI Communicators) if None, MPI.COMM_WORLD
    :param sess: (TensorFlow Session) if None, tf.get_default_session()
    """

    def __init__(self, var_list: Sequence[Any], *, beta1: float = 0.9, beta2: float = 0.999, epsilon: float = 1e-08,
                 scale_grad_by_procs: bool = True, comm: Optional[Any] = None, sess: Optional[Any] = None):
        var_list = list(var_list)
        if len(var_list) == 0:
            raise ValueError("MpiAdam needs a non-empty list of TensorFlow variables, got an empty list")
        if not 0.0 <= beta1 < 1.0 or not 0.0 <= beta2 < 1.0:
            raise ValueError("MpiAdam expects 0 <= beta1 < 1 and 0 <= beta2 < 1, got beta1={}, beta2={}"
                             .format(beta1, beta2))
        self.var_list = var_list
        self.beta1 = beta1
        self.beta2 = beta2
        self.epsilon = epsilon
        self.scale_grad_by_procs = scale_grad_by_procs
        size = sum(tf_util.numel(v) for v in var_list)
        self.size = size
        # Exponential moving averages of the gradient and of its square
        self.exp_avg = np.zeros(size, 'float32')
        self.exp_avg_sq = np.zeros(size, 'float32')
        self.step = 0
        self.setfromflat = tf_util.SetFromFlat(var_list, sess=sess)
        self.getflat = tf_util.GetFlat(var_list, sess=sess)
        self.comm = MPI.COMM_WORLD if comm is None else comm

    def update(self, local_grad: np.ndarray, learning_rate: float) -> None:
        """
        update the values of the graph

        :param local_grad: (numpy float) the gradient (flat vector of all the variables)
        :param learning_rate: (float) the learning_rate for the update
        """
        local_grad = np.asarray(local_grad)
        if local_grad.shape != (self.size,):
            raise ValueError("MpiAdam.update expects a flat gradient of shape ({},) (one entry per parameter), "
                             "got shape {}".format(self.size, local_grad.shape))
        if self.step % 100 == 0:
            self.check_synced()
        local_grad = local_grad.astype('float32')
        global_grad = np.zeros_like(local_grad)
        self.comm.Allreduce(local_grad, global_grad, op=MPI.SUM)
        if self.scale_grad_by_procs:
            global_grad /= self.comm.Get_size()

        self.step += 1
        # Bias-corrected step size
        step_size = learning_rate * np.sqrt(1 - self.beta2 ** self.step) / (1 - self.beta1 ** self.step)
        self.exp_avg = self.beta1 * self.exp_avg + (1 - self.beta1) * global_grad
        self.exp_avg_sq = self.beta2 * self.exp_avg_sq + (1 - self.beta2) * (global_grad * global_grad)
        step = (- step_size) * self.exp_avg / (np.sqrt(self.exp_avg_sq) + self.epsilon)
        self.setfromflat((self.getflat() + step).astype('float32'))

    def sync(self) -> None:
        """
        Broadcast the parameters of the rank-0 worker to all the others.
        """
        theta = self.getflat().astype('float32')
        self.comm.Bcast(theta, root=0)
        self.setfromflat(theta)

    def check_synced(self) -> None:
        """
        Check that the parameters are identical on all the workers.

        :raises RuntimeError: when a worker's parameters differ from the rank-0 ones
        """
        if self.comm.Get_size() == 1:
            return
        if self.comm.Get_rank() == 0:  # this is root
            theta = self.getflat().astype('float32')
            self.comm.Bcast(theta, root=0)
        else:
            thetalocal = self.getflat().astype('float32')
            thetaroot = np.empty_like(thetalocal)
            self.comm.Bcast(thetaroot, root=0)
            if not (thetaroot == thetalocal).all():
                raise RuntimeError("MpiAdam: the parameters of rank {} differ from those of rank 0 "
                                   "(max abs difference {}); call sync() after creating the variables"
                                   .format(self.comm.Get_rank(), np.max(np.abs(thetaroot - thetalocal))))


def _self_test() -> None:
    """
    Minimize the same loss with ``tf.train.AdamOptimizer`` and with :class:`MpiAdam` and check that
    both follow the same trajectory (on one worker; under ``mpirun`` every worker computes the same
    gradient, so the average is that gradient too).
    """
    graph = tf.Graph()
    with graph.as_default():
        tf.set_random_seed(0)
        np.random.seed(0)
        a_var = tf.Variable(np.random.randn(3).astype('float32'))
        b_var = tf.Variable(np.random.randn(2, 5).astype('float32'))
        loss = tf.reduce_sum(tf.square(a_var)) + tf.reduce_sum(tf.sin(b_var))
        learning_rate = 1e-2
        update_op = tf.train.AdamOptimizer(learning_rate).minimize(loss)
        var_list = [a_var, b_var]
        flat_grad = tf_util.flatgrad(loss, var_list)
        with tf_util.single_threaded_session(graph=graph) as sess:
            sess.run(tf.global_variables_initializer())
            start = sess.run(var_list)
            losses_tf = []
            for _ in range(10):
                losses_tf.append(sess.run(loss))
                sess.run(update_op)

            for var, value in zip(var_list, start):
                var.load(value, sess)
            adam = MpiAdam(var_list, sess=sess)
            adam.sync()
            losses_mpi = []
            for _ in range(10):
                loss_value, grad = sess.run([loss, flat_grad])
                losses_mpi.append(loss_value)
                adam.update(grad, learning_rate)
    np.testing.assert_allclose(losses_tf, losses_mpi, rtol=1e-4)
    if MPI.COMM_WORLD.Get_rank() == 0:
        print("MpiAdam self-test passed on {} worker(s): losses {}".format(MPI.COMM_WORLD.Get_size(),
                                                                          np.round(losses_mpi, 5).tolist()))


if __name__ == "__main__":
    _self_test()
