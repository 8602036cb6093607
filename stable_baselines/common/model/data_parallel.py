"""
Data-parallel training over the MPI ranks of an ``mpirun -np N`` launch.

:func:`allreduce_gradient` combines the flat gradient of every rank; :class:`~stable_baselines.common.mpi_adam.MpiAdam`
(PPO1, TRPO, DDPG, GAIL) and the gradient op of PPO2 and A2C (:func:`averaged_gradients`) both call it.
:class:`DataParallel` holds what a model trained on several ranks needs around that: the agreement of the ranks at
the start of ``learn``, the broadcast of rank 0's variables, the check that the ranks stay identical, the agreed
stop of a callback and the end of all ranks when one fails; :func:`ranks_training` is what the training loop of a
model calls around its updates for all of that.

This module never imports ``mpi4py`` by itself: MPI is initialised only when a launcher started more than one
process (:func:`launcher_world_size`) and the model asks for it.
"""
import os
import sys
import time
import traceback
from contextlib import contextmanager
from typing import Any, Callable, Dict, Iterator, List, Optional, Sequence, Tuple

import numpy as np

from stable_baselines.common.callbacks import CallbackList, ConvertCallback, ProgressBarCallback
from stable_baselines.common.misc_util import mpi_size_or_one
from stable_baselines.common.tf_compat import tf
from stable_baselines.common.engine.tf_run import session_run

# "0" (or "false", "no", "off") makes every rank of an MPI launch train on its own
OPT_OUT_VARIABLE = "STABLE_BASELINES_DATA_PARALLEL"
# rank r of a data-parallel model seeds its generators with seed + SEED_STRIDE * r
SEED_STRIDE = 10000


class AllreduceStats:
    """
    What :func:`allreduce_gradient` did in this process (read by the benchmarks; ``reset`` zeroes it).
    """

    def __init__(self) -> None:
        self.calls = 0
        self.seconds = 0.0
        self.bytes = 0

    def reset(self) -> None:
        """Zero the counters."""
        self.calls, self.seconds, self.bytes = 0, 0.0, 0


ALLREDUCE_STATS = AllreduceStats()


def allreduce_gradient(local_grad: np.ndarray, comm: Any, average: bool = True) -> np.ndarray:
    """
    Sum a flat gradient over the ranks of ``comm`` (every rank receives the same result) and divide it by their
    number when ``average``.

    :param local_grad: (np.ndarray) this rank's flat gradient (contiguous)
    :param comm: (MPI communicator) the ranks
    :param average: (bool) divide the sum by the number of ranks
    :return: (np.ndarray) the combined gradient, of the dtype of ``local_grad``
    """
    from mpi4py import MPI  # the caller has MPI already: it holds a communicator

    local_grad = np.ascontiguousarray(local_grad)
    combined = np.zeros_like(local_grad)
    started = time.perf_counter()
    comm.Allreduce(local_grad, combined, op=MPI.SUM)
    ALLREDUCE_STATS.seconds += time.perf_counter() - started
    ALLREDUCE_STATS.calls += 1
    ALLREDUCE_STATS.bytes += local_grad.nbytes
    if average:
        combined /= comm.Get_size()
    return combined


def launcher_world_size() -> int:
    """
    :return: (int) the number of processes of the MPI launch this process belongs to (1 without one), found
        without initialising MPI (:func:`~stable_baselines.common.misc_util.mpi_size_or_one`)
    """
    return mpi_size_or_one()


def data_parallel_opted_out() -> bool:
    """:return: (bool) whether ``STABLE_BASELINES_DATA_PARALLEL`` asks every rank to train on its own"""
    return os.environ.get(OPT_OUT_VARIABLE, "1").strip().lower() in ("0", "false", "no", "off")


def data_parallel_launch() -> bool:
    """:return: (bool) whether PPO2 and A2C models made in this process train data-parallel (several MPI ranks)"""
    return launcher_world_size() > 1 and not data_parallel_opted_out()


def data_parallel_for(algorithm: str) -> Optional["DataParallel"]:
    """
    The data-parallel context of a new model: None in one process (or with the opt-out), else a
    :class:`DataParallel` over ``MPI.COMM_WORLD``.

    :param algorithm: (str) the algorithm's name (for the messages)
    :return: (DataParallel or None)
    """
    if not data_parallel_launch():
        return None
    data_parallel = DataParallel(algorithm)
    if data_parallel.available and data_parallel.size <= 1:
        return None
    return data_parallel


def _parameter_sizes(gradients: Sequence[Any]) -> List[int]:
    return [int(np.prod(gradient.shape.as_list())) for gradient in gradients]


def averaged_gradients(gradients: Sequence[Any], data_parallel: Optional["DataParallel"]) -> List[Any]:
    """
    Put the averaging of the gradients over the ranks into the graph: the gradients are flattened into one
    vector, an op calls :func:`allreduce_gradient` on it, and the result is split back into the variables'
    shapes. Without data parallelism the gradients are returned as they are (the graph is unchanged).

    :param gradients: ([tf.Tensor or None]) the gradients of the variables (None: the loss does not depend on one)
    :param data_parallel: (DataParallel or None) the model's context
    :return: ([tf.Tensor or None]) the averaged gradients, in the same order
    """
    if data_parallel is None or not data_parallel.available:
        return list(gradients)
    present = [index for index, gradient in enumerate(gradients) if gradient is not None]
    tensors = [tf.convert_to_tensor(gradients[index]) for index in present]
    with tf.name_scope("data_parallel"):
        flat = tf.concat([tf.reshape(tensor, [-1]) for tensor in tensors], axis=0)
        averaged = tf.numpy_function(data_parallel.average, [flat], flat.dtype, stateful=True,
                                     name="allreduce_gradient")
        averaged.set_shape(flat.shape)
        pieces = tf.split(averaged, _parameter_sizes(tensors))
    result = list(gradients)
    for index, tensor, piece in zip(present, tensors, pieces):
        result[index] = tf.reshape(piece, tf.shape(tensor))
    return result


def _callback_can_stop(callback: Any) -> bool:
    """:return: (bool) False when ``callback`` certainly never asks to stop (no callback given, progress bar)"""
    if isinstance(callback, CallbackList):
        return any(_callback_can_stop(inner) for inner in callback.callbacks)
    if type(callback) is ConvertCallback:  # pylint: disable=unidiomatic-typecheck
        return callback.callback is not None
    return type(callback) is not ProgressBarCallback  # pylint: disable=unidiomatic-typecheck


class DataParallel:
    """
    A model trained on all the ranks of ``MPI.COMM_WORLD``, each rank stepping its own environments.

    :param algorithm: (str) the algorithm's name (for the messages)
    """

    def __init__(self, algorithm: str) -> None:
        self.algorithm = algorithm
        self.comm: Any = None
        self.import_error: Optional[str] = None
        self.agree_on_steps = True
        try:
            from mpi4py import MPI
        except ImportError as error:
            self.import_error = str(error)
            self.rank, self.size = 0, launcher_world_size()
            return
        self.comm = MPI.COMM_WORLD
        self.rank, self.size = self.comm.Get_rank(), self.comm.Get_size()

    @property
    def available(self) -> bool:
        """:return: (bool) whether mpi4py imported (the graph then averages the gradients)"""
        return self.comm is not None

    @property
    def is_root(self) -> bool:
        """:return: (bool) whether this is rank 0 (the rank that logs and writes files)"""
        return self.rank == 0

    def rank_seed(self, seed: int) -> int:
        """:return: (int) the seed of this rank: ``seed + 10000 * rank``"""
        return seed + SEED_STRIDE * self.rank

    def average(self, flat: np.ndarray) -> np.ndarray:
        """
        :param flat: (np.ndarray) this rank's flat gradient
        :return: (np.ndarray) the mean of the ranks' gradients
        """
        return allreduce_gradient(flat, self.comm, average=True)

    def require_mpi(self) -> None:
        """
        :raises ImportError: when the process was started by an MPI launcher with several processes but mpi4py
            is missing
        """
        if self.comm is None:
            raise ImportError("{} was started by an MPI launcher with {} processes, which trains data-parallel, but "
                              "mpi4py does not import ({}): pip install stable-baselines[mpi], or set {}=0 to train "
                              "every process on its own".format(self.algorithm, self.size, self.import_error,
                                                                OPT_OUT_VARIABLE))

    def check_agreement(self, settings: Dict[str, Any], callback: Any) -> None:
        """
        Check that every rank starts the same training (one allgather); decide whether the callbacks' answers
        must be agreed at every step (when any rank's callback may ask to stop).

        :param settings: (dict) what must be equal on every rank, by name
        :param callback: (BaseCallback) this rank's callback
        :raises ValueError: on every rank, when the ranks differ
        """
        gathered = self.comm.allgather((settings, _callback_can_stop(callback)))
        self.agree_on_steps = any(can_stop for _, can_stop in gathered)
        first = gathered[0][0]
        names = sorted(set().union(*(rank_settings for rank_settings, _ in gathered)))
        differing = [name for name in names
                     if any(rank_settings.get(name) != first.get(name) for rank_settings, _ in gathered)]
        if differing:
            details = "; ".join("{}: {}".format(name, [other.get(name) for other, _ in gathered])
                                for name in differing)
            raise ValueError("{} trains data-parallel on {} MPI ranks, which must all call learn with the same "
                             "settings, but they differ (values by rank) in {}".format(self.algorithm, self.size,
                                                                                     details))

    def broadcast_variables(self, sess: Any, variables: Sequence[Any]) -> None:
        """
        Give every rank the values of rank 0's variables.

        :param sess: (tf.Session) the session holding them
        :param variables: ([tf.Variable]) the variables (parameters and optimizer slots)
        """
        values = sess.run(list(variables)) if self.is_root else None
        values = self.comm.bcast(values, root=0)
        if not self.is_root:
            # fed through the initializers (as Variable.load does): no new op in the graph
            initializers = [variable.initializer for variable in variables]
            session_run(sess, initializers, {init.inputs[1]: value for init, value in zip(initializers, values)})

    def check_synced(self, parameters: Sequence[np.ndarray]) -> None:
        """
        Check that every rank holds rank 0's parameters (collective: every rank raises the same error).

        :param parameters: ([np.ndarray]) this rank's parameter values
        :raises RuntimeError: when some rank's parameters differ from rank 0's
        """
        own = np.concatenate([np.asarray(value, dtype=np.float64).ravel() for value in parameters])
        reference = self.comm.bcast(own if self.is_root else None, root=0)
        differs = bool(reference.shape != own.shape or np.any(reference != own))
        flags = self.comm.allgather(differs)
        bad = [rank for rank, flag in enumerate(flags) if flag]
        if bad:
            raise RuntimeError("{} data-parallel: the parameters of rank(s) {} differ from those of rank 0 (every "
                               "rank must run the same updates)".format(self.algorithm, bad))

    def agreed(self, go_on: bool) -> bool:
        """
        :param go_on: (bool) this rank's callback answer at this step
        :return: (bool) True when no rank's callback asked to stop
        """
        if not self.agree_on_steps:
            return go_on
        from mpi4py import MPI

        return bool(self.comm.allreduce(int(go_on), op=MPI.MIN))

    def gather(self, items: List[Any]) -> List[Any]:
        """
        :param items: ([Any]) this rank's items (e.g. the episodes that ended)
        :return: ([Any]) the items of all ranks, rank 0's first
        """
        return [item for rank_items in self.comm.allgather(items) for item in rank_items]

    def abort(self, error: BaseException) -> None:
        """
        End every rank after ``error`` on this one: the traceback goes to stderr as
        "rank r of N failed: ...", then MPI aborts the launch (non-zero exit).

        :param error: (BaseException) the exception
        """
        text = "".join(traceback.format_exception(type(error), error, error.__traceback__))
        sys.stderr.write("{} data-parallel: rank {} of {} failed: {}".format(self.algorithm, self.rank, self.size,
                                                                            text))
        sys.stderr.flush()
        sys.stdout.flush()
        self.comm.Abort(1)


def rank_count(data_parallel: Optional[DataParallel]) -> int:
    """:return: (int) the number of MPI ranks training with ``data_parallel`` (a model's context; 1 for None)"""
    return 1 if data_parallel is None else data_parallel.size


def learn_settings(model: Any, total_timesteps: int, agreed: Tuple[str, ...] = ()) -> Dict[str, Any]:
    """
    :param model: (OnPolicyRLModel) the model, its graph built
    :param total_timesteps: (int) the argument of ``learn``
    :param agreed: (tuple) names of further attributes of the model that every rank must share
    :return: (dict) what every rank of a data-parallel ``learn`` must have in common
    """
    assert model.params is not None, "made by setup_model"
    settings = {"algorithm": type(model).__name__, "policy": getattr(model.policy, "__name__", str(model.policy)),
                "n_envs": model.n_envs, "n_steps": model.n_steps, "total_timesteps": int(total_timesteps),
                "num_timesteps": model.num_timesteps, "action masks": bool(getattr(model, "uses_action_masks", False)),
                "parameters": [(variable.name, tuple(variable.shape.as_list())) for variable in model.params]}
    settings.update((name, getattr(model, name)) for name in agreed)
    return settings


@contextmanager
def ranks_training(model: Any, total_timesteps: int, callback: Any,
                   agreed: Tuple[str, ...] = ()) -> Iterator[Callable[[int], None]]:
    """
    Around the updates of a ``learn`` (in one process: nothing). Before, check that every rank starts the same
    training and give every rank rank 0's variables (parameters and optimizer state); during, an exception on one
    rank ends every rank (MPI abort, its traceback on stderr) instead of leaving the others waiting; after, check
    that the ranks hold the same parameters.

    :param model: (OnPolicyRLModel) the model (its ``data_parallel`` context, session and parameters)
    :param total_timesteps: (int) the argument of ``learn``
    :param callback: (BaseCallback) this rank's callback
    :param agreed: (tuple) names of further attributes of the model that every rank must share
    :return: (callable) to call with the index of every update done: every hundredth checks the parameters again
    """
    data_parallel = model.data_parallel
    if data_parallel is None:
        yield lambda update: None
        return
    data_parallel.require_mpi()
    data_parallel.check_agreement(learn_settings(model, total_timesteps, agreed), callback)
    data_parallel.broadcast_variables(model.sess, model.graph.get_collection(tf.GraphKeys.GLOBAL_VARIABLES))

    def after_update(update: int) -> None:
        if update % 100 == 0:
            data_parallel.check_synced(model.sess.run(model.params))

    try:
        yield after_update
    except BaseException as error:  # pylint: disable=broad-except
        data_parallel.abort(error)
        raise
    data_parallel.check_synced(model.sess.run(model.params))
