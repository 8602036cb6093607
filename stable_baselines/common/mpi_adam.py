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
from stable_baselines.common.model.data_parallel import allreduce_gradient
from stable_baselines.common.tf_compat import tf


class MpiAdam(object):
    """
    Adam (https://arxiv.org/abs/1412.6980) over TensorFlow variables, the gradient being summed over
    the MPI workers (and divided by their number when ``scale_grad_by_procs``).

    :param var_list: ([TensorFlow Variable]) the variables to optimize
    :param beta1: (float) decay rate of the running mean of the gradient
    :param beta2: (float) decay rate of the running mean of the squared gradient
    :param epsilon: (float) added to the denominator of the step, against a division by zero
    :param scale_grad_by_procs: (bool) average the workers' gradients instead of summing them
    :param comm: (MPI Communicators) the workers, MPI.COMM_WORLD when None
    :param sess: (TensorFlow Session) the session holding the variables, the default session when None
    """

    def __init__(self, var_list: Sequence[Any], *, beta1: float = 0.9, beta2: float = 0.999, epsilon: float = 1e-08,
                 scale_grad_by_procs: bool = True, comm: Optional[Any] = None, sess: Optional[Any] = None) -> None:
        var_list = list(var_list)
        if not var_list:
            raise ValueError("MpiAdam needs a non-empty list of TensorFlow variables, got an empty list")
        if not (0.0 <= beta1 < 1.0 and 0.0 <= beta2 < 1.0):
            raise ValueError("MpiAdam expects 0 <= beta1 < 1 and 0 <= beta2 < 1, got beta1={}, beta2={}"
                             .format(beta1, beta2))
        self.var_list = var_list
        self.beta1 = beta1
        self.beta2 = beta2
        self.epsilon = epsilon
        self.scale_grad_by_procs = scale_grad_by_procs
        self.size = sum(tf_util.numel(variable) for variable in var_list)
        # running means of the gradient (first moment) and of its square (second moment)
        self.exp_avg = np.zeros(self.size, 'float32')
        self.exp_avg_sq = np.zeros(self.size, 'float32')
        self.step = 0
        self.setfromflat = tf_util.SetFromFlat(var_list, sess=sess)
        self.getflat = tf_util.GetFlat(var_list, sess=sess)
        self.comm = MPI.COMM_WORLD if comm is None else comm

    def _workers_gradient(self, local_grad: np.ndarray) -> np.ndarray:
        """
        Sum (or average) this worker's gradient with those of the other workers.

        :param local_grad: (np.ndarray) this worker's flat gradient, float32
        :return: (np.ndarray) the combined gradient, float32
        """
        return allreduce_gradient(local_grad, self.comm, average=self.scale_grad_by_procs)

    def update(self, local_grad: np.ndarray, learning_rate: float, current: Optional[np.ndarray] = None) -> None:
        """
        Apply one Adam step with the gradient of all the workers.

        :param local_grad: (numpy float) this worker's gradient, flattened over all the variables
        :param learning_rate: (float) the learning rate of this step
        :param current: (numpy float) the variables' values as ``getflat`` reads them now, when the caller fetched
            them with the gradient (None: read here)
        """
        local_grad = np.asarray(local_grad)
        if local_grad.shape != (self.size,):
            raise ValueError("MpiAdam.update expects a flat gradient of shape ({},) (one entry per parameter), "
                             "got shape {}".format(self.size, local_grad.shape))
        if self.step % 100 == 0:
            self.check_synced()
        gradient = self._workers_gradient(local_grad.astype('float32'))
        self.step += 1
        beta1, beta2 = self.beta1, self.beta2
        # bias correction of both moments folded into the step size
        corrected_rate = learning_rate * np.sqrt(1 - beta2 ** self.step) / (1 - beta1 ** self.step)
        self.exp_avg = beta1 * self.exp_avg + (1 - beta1) * gradient
        self.exp_avg_sq = beta2 * self.exp_avg_sq + (1 - beta2) * (gradient * gradient)
        change = (- corrected_rate) * self.exp_avg / (np.sqrt(self.exp_avg_sq) + self.epsilon)
        values = self.getflat() if current is None else current
        self.setfromflat((values + change).astype('float32'))

    def sync(self) -> None:
        """
        Give every worker the parameters of the rank-0 worker.
        """
        parameters = self.getflat().astype('float32')
        self.comm.Bcast(parameters, root=0)
        self.setfromflat(parameters)

    def check_synced(self) -> None:
        """
        Check that every worker holds the parameters of the rank-0 worker.

        :raises RuntimeError: when a worker's parameters differ from the rank-0 ones
        """
        if self.comm.Get_size() == 1:
            return
        own = self.getflat().astype('float32')
        if self.comm.Get_rank() == 0:
            self.comm.Bcast(own, root=0)
            return
        reference = np.empty_like(own)
        self.comm.Bcast(reference, root=0)
        if (reference != own).any():
            raise RuntimeError("MpiAdam: the parameters of rank {} differ from those of rank 0 "
                               "(max abs difference {}); call sync() after creating the variables"
                               .format(self.comm.Get_rank(), np.max(np.abs(reference - own))))


def _self_test(n_steps: int = 10, learning_rate: float = 1e-2) -> None:
    """
    Run ``tf.train.AdamOptimizer`` and :class:`MpiAdam` from the same start on the same loss and check
    that the losses agree step by step (under ``mpirun`` all workers compute the same gradient, so
    their average is that gradient again).

    :param n_steps: (int) number of optimization steps
    :param learning_rate: (float) the learning rate of both optimizers
    """
    rng = np.random.RandomState(0)
    graph = tf.Graph()
    with graph.as_default():
        vector = tf.Variable(rng.randn(4).astype('float32'))
        matrix = tf.Variable(rng.randn(3, 2).astype('float32'))
        variables = [vector, matrix]
        objective = tf.reduce_sum(tf.cos(matrix)) + tf.reduce_sum(tf.square(vector - 1.0))
        reference_step = tf.train.AdamOptimizer(learning_rate).minimize(objective)
        gradient = tf_util.flatgrad(objective, variables)
        with tf_util.single_threaded_session(graph=graph) as sess:
            sess.run(tf.global_variables_initializer())
            initial_values = sess.run(variables)
            reference_losses = []
            for _ in range(n_steps):
                reference_losses.append(sess.run(objective))
                sess.run(reference_step)
            for variable, value in zip(variables, initial_values):
                variable.load(value, sess)
            optimizer = MpiAdam(variables, sess=sess)
            optimizer.sync()
            our_losses = []
            for _ in range(n_steps):
                loss_value, gradient_value = sess.run([objective, gradient])
                our_losses.append(loss_value)
                optimizer.update(gradient_value, learning_rate)
    np.testing.assert_allclose(our_losses, reference_losses, rtol=1e-4)
    if MPI.COMM_WORLD.Get_rank() == 0:
        print("MpiAdam self-test passed on {} worker(s): losses {}".format(MPI.COMM_WORLD.Get_size(),
                                                                          np.round(our_losses, 5).tolist()))


if __name__ == "__main__":
    _self_test()
