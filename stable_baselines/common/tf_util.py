"""
TensorFlow helpers shared by the algorithms: sessions, the Theano-like :func:`function`,
flat-gradient helpers, small losses and the tensorboard episode-reward logger.

TensorFlow is used through ``tensorflow.compat.v1`` (see ``stable_baselines.common.tf_compat``)
and everything here works in both TF-1 and TF-2 behaviour, as long as graphs are built inside
an explicit ``graph.as_default()``.
"""
import copy
import functools
import os
import sys
from collections import OrderedDict
from typing import Any, Callable, Dict, Iterable, List, Optional, Sequence

import numpy as np

from stable_baselines.common.tf_compat import dim_value, tf
# batch_to_seq / seq_to_batch live in tf_layers (with the recurrent layers); the manual also
# documents them here, so they are re-exported.
from stable_baselines.common.tf_layers import batch_to_seq, seq_to_batch  # noqa: F401


# ------------------------------------------------------------------------------------------------
# small tensor helpers
# ------------------------------------------------------------------------------------------------
def is_image(tensor: Any) -> bool:
    """
    Check if a tensor has the shape of a valid image for tensorboard logging.
    Valid image: RGB, RGBD, GrayScale

    :param tensor: (np.ndarray or tf.placeholder)
    :return: (bool)
    """
    shape = tensor.shape
    return len(shape) == 3 and dim_value(shape[-1]) in [1, 3, 4]


def float_input(name: str, batched: bool = True) -> tf.Tensor:
    """
    A float32 placeholder: one value per sample when ``batched``, a scalar otherwise.

    :param name: (str) name of the placeholder in the graph
    :param batched: (bool) shape ``[None]`` if True, ``[]`` if False
    :return: (TensorFlow Tensor) the placeholder
    """
    return tf.placeholder(tf.float32, [None] if batched else [], name=name)


def switch(condition: Any, then_expression: tf.Tensor, else_expression: tf.Tensor) -> tf.Tensor:
    """
    Switches between two operations depending on a scalar value (int or bool).
    Note that both `then_expression` and `else_expression` should be symbolic tensors of the *same shape*.

    :param condition: (TensorFlow Tensor) scalar tensor.
    :param then_expression: (TensorFlow Operation) the operation to take if the condition is true
    :param else_expression: (TensorFlow Operation) the operation to take if the condition is false
    :return: (TensorFlow Operation) the switch output
    """
    x_shape = copy.copy(then_expression.get_shape())
    out_tensor = tf.cond(tf.cast(condition, 'bool'), lambda: then_expression, lambda: else_expression)
    out_tensor.set_shape(x_shape)
    return out_tensor


def leaky_relu(tensor: tf.Tensor, leak: float = 0.2) -> tf.Tensor:
    """
    Leaky ReLU
    http://web.stanford.edu/~awni/papers/relu_hybrid_icml2013_final.pdf

    :param tensor: (float) the input value
    :param leak: (float) the leaking coeficient when the function is saturated
    :return: (float) Leaky ReLU output
    """
    f_1 = 0.5 * (1 + leak)
    f_2 = 0.5 * (1 - leak)
    return f_1 * tensor + f_2 * abs(tensor)


def huber_loss(tensor: tf.Tensor, delta: float = 1.0) -> tf.Tensor:
    """
    Reference: https://en.wikipedia.org/wiki/Huber_loss

    :param tensor: (TensorFlow Tensor) the input value
    :param delta: (float) Huber loss delta value
    :return: (TensorFlow Tensor) Huber loss output
    """
    return tf.where(tf.abs(tensor) < delta,
                    tf.square(tensor) * 0.5,
                    delta * (tf.abs(tensor) - 0.5 * delta))


def sample(logits: tf.Tensor) -> tf.Tensor:
    """
    Creates a sampling Tensor for non deterministic policies
    when using categorical distribution.
    It uses the Gumbel-max trick: http://amid.fish/humble-gumbel

    :param logits: (TensorFlow Tensor) The input probability for each action
    :return: (TensorFlow Tensor) The sampled action
    """
    noise = tf.random_uniform(tf.shape(logits), dtype=logits.dtype)
    return tf.argmax(logits - tf.log(-tf.log(noise)), 1)


def calc_entropy(logits: tf.Tensor) -> tf.Tensor:
    """
    Calculates the entropy of the output values of the network

    :param logits: (TensorFlow Tensor) The input probability for each action
    :return: (TensorFlow Tensor) The Entropy of the output values of the network
    """
    shifted = logits - tf.reduce_max(logits, 1, keepdims=True)
    exp_shifted = tf.exp(shifted)
    normalizer = tf.reduce_sum(exp_shifted, 1, keepdims=True)
    probs = exp_shifted / normalizer
    return tf.reduce_sum(probs * (tf.log(normalizer) - shifted), 1)


def mse(pred: tf.Tensor, target: tf.Tensor) -> tf.Tensor:
    """
    Returns the Mean squared error between prediction and target

    :param pred: (TensorFlow Tensor) The predicted value
    :param target: (TensorFlow Tensor) The target value
    :return: (TensorFlow Tensor) The Mean squared error between prediction and target
    """
    return tf.reduce_mean(tf.square(pred - target))


def avg_norm(tensor: tf.Tensor) -> tf.Tensor:
    """
    Return an average of the L2 normalization of the batch

    :param tensor: (TensorFlow Tensor) The input tensor
    :return: (TensorFlow Tensor) Average L2 normalization of the batch
    """
    return tf.reduce_mean(tf.sqrt(tf.reduce_sum(tf.square(tensor), axis=-1)))


def gradient_add(grad_1: Optional[tf.Tensor], grad_2: Optional[tf.Tensor], param: Any,
                 verbose: int = 0) -> Optional[tf.Tensor]:
    """
    Sum two gradients

    :param grad_1: (TensorFlow Tensor) The first gradient
    :param grad_2: (TensorFlow Tensor) The second gradient
    :param param: (TensorFlow parameters) The trainable parameters
    :param verbose: (int) verbosity level
    :return: (TensorFlow Tensor) the sum of the gradients
    """
    if verbose > 1:
        print([grad_1, grad_2, getattr(param, "name", param)])
    if grad_1 is None and grad_2 is None:
        return None
    if grad_1 is None:
        return grad_2
    if grad_2 is None:
        return grad_1
    return grad_1 + grad_2


def check_shape(tensors: Sequence[tf.Tensor], shapes: Sequence[list]) -> None:
    """
    Verifies the tensors match the given shape, will raise an error if the shapes do not match

    :param tensors: ([TensorFlow Tensor]) The tensors that should be checked
    :param shapes: ([list]) The list of shapes for each tensor
    """
    for idx, (tensor, shape) in enumerate(zip(tensors, shapes)):
        actual = tensor.get_shape().as_list()
        if actual != list(shape):
            raise AssertionError("id {}: expected shape {}, got {} for tensor {}".format(
                idx, list(shape), actual, getattr(tensor, "name", tensor)))


def q_explained_variance(q_pred: tf.Tensor, q_true: tf.Tensor) -> tf.Tensor:
    """
    Calculates the explained variance of the Q value

    :param q_pred: (TensorFlow Tensor) The predicted Q value
    :param q_true: (TensorFlow Tensor) The expected Q value
    :return: (TensorFlow Tensor) the explained variance of the Q value
    """
    _, var_y = tf.nn.moments(q_true, axes=[0, 1])
    _, var_pred = tf.nn.moments(q_true - q_pred, axes=[0, 1])
    check_shape([var_y, var_pred], [[]] * 2)
    return 1.0 - (var_pred / var_y)


# ------------------------------------------------------------------------------------------------
# sessions
# ------------------------------------------------------------------------------------------------
def make_session(num_cpu: Optional[int] = None, make_default: bool = False,
                 graph: Optional[tf.Graph] = None) -> tf.Session:
    """
    Returns a session that will use <num_cpu> CPU's only

    :param num_cpu: (int) number of CPUs to use for TensorFlow (None: all of them, ``os.cpu_count()``)
    :param make_default: (bool) if this should return an InteractiveSession or a normal Session
    :param graph: (TensorFlow Graph) the graph of the session
    :return: (TensorFlow session)
    """
    if num_cpu is None:
        num_cpu = int(os.getenv('RCALL_NUM_CPU', os.cpu_count() or 1))
    if not isinstance(num_cpu, (int, np.integer)) or isinstance(num_cpu, bool) or num_cpu < 0:
        raise ValueError("num_cpu must be a non-negative int or None, got {!r}".format(num_cpu))
    tf_config = tf.ConfigProto(
        allow_soft_placement=True,
        inter_op_parallelism_threads=int(num_cpu),
        intra_op_parallelism_threads=int(num_cpu))
    # Prevent tensorflow from taking all the gpu memory
    tf_config.gpu_options.allow_growth = True
    if make_default:
        return tf.InteractiveSession(config=tf_config, graph=graph)
    return tf.Session(config=tf_config, graph=graph)


def single_threaded_session(make_default: bool = False, graph: Optional[tf.Graph] = None) -> tf.Session:
    """
    Returns a session which will only use a single CPU

    :param make_default: (bool) if this should return an InteractiveSession or a normal Session
    :param graph: (TensorFlow Graph) the graph of the session
    :return: (TensorFlow session)
    """
    return make_session(num_cpu=1, make_default=make_default, graph=graph)


def in_session(func: Callable) -> Callable:
    """
    Wraps a function so that it is in a TensorFlow Session

    :param func: (function) the function to wrap
    :return: (function)
    """

    @functools.wraps(func)
    def newfunc(*args, **kwargs):
        graph = tf.Graph()
        with graph.as_default(), tf.Session(graph=graph):
            return func(*args, **kwargs)

    return newfunc


def initialize(sess: Optional[tf.Session] = None) -> None:
    """
    Initialize all the uninitialized variables in the global scope.

    :param sess: (TensorFlow Session) (default: the default session)
    """
    if sess is None:
        sess = tf.get_default_session()
    if sess is None:
        raise ValueError("initialize() needs a session: pass sess=... or call it inside `with sess.as_default():`")
    with sess.graph.as_default():
        variables = sess.graph.get_collection(tf.GraphKeys.GLOBAL_VARIABLES)
        if not variables:
            return
        flags = sess.run([tf.is_variable_initialized(var) for var in variables])
        uninitialized = [var for var, flag in zip(variables, flags) if not flag]
        if uninitialized:
            sess.run(tf.variables_initializer(uninitialized))


class FeedCallable(object):
    """
    A cheap repeated ``sess.run(fetches, {feeds[0]: args[0], ...})``.

    ``Session.run`` spends most of its time in Python (analysing fetches and feeds at every call);
    a callable made once from ``CallableOptions`` does that work once. Values are converted to the
    placeholder dtypes and checked against the placeholder shapes as ``Session.run`` does, so the
    results and the errors are those of ``sess.run``. Operations in ``fetches`` are run and give None.
    If the session does not offer callables, every call goes through ``sess.run``.

    :param sess: (tf.Session) the session
    :param fetches: ([tf.Tensor or tf.Operation]) what to compute (a list)
    :param feeds: ([tf.Tensor]) the tensors fed, in the order of the call's arguments
    """

    def __init__(self, sess: tf.Session, fetches: Sequence[Any], feeds: Sequence[tf.Tensor]):
        self.sess = sess
        self.fetches = list(fetches)
        self.n_args = len(feeds)
        # a tensor given twice is fed once, with the last value (as in a feed dict)
        last_position = {}
        for position, feed in enumerate(feeds):
            last_position[feed] = position
        self._positions = sorted(last_position.values())
        self.feeds = [feeds[position] for position in self._positions]
        self._all_positions = len(self._positions) == self.n_args
        self._dtypes = [np.dtype(feed.dtype.as_numpy_dtype) for feed in self.feeds]
        self._shapes = []
        for feed in self.feeds:
            shape = feed.get_shape()
            self._shapes.append(None if shape.ndims is None else tuple(shape.as_list()))
        self._tensor_slots = [idx for idx, fetch in enumerate(self.fetches) if isinstance(fetch, tf.Tensor)]
        self._callable = None
        make = getattr(sess, "_make_callable_from_options", None)
        if make is not None:
            try:
                # the protobuf module of RunOptions also defines CallableOptions (TF only through tf_compat)
                config_pb2 = sys.modules[type(tf.RunOptions()).__module__]
                options = config_pb2.CallableOptions()
                for feed in self.feeds:
                    options.feed.append(feed.name)
                for fetch in self.fetches:
                    if isinstance(fetch, tf.Tensor):
                        options.fetch.append(fetch.name)
                    else:
                        options.target.append(fetch.name)
                self._callable = make(options)
            except Exception:  # pylint: disable=broad-except
                self._callable = None

    def _check(self, idx: int, value: Any) -> np.ndarray:
        value = np.asarray(value, dtype=self._dtypes[idx])
        shape = self._shapes[idx]
        if shape is not None:
            given = value.shape
            if len(given) != len(shape) or any(dim is not None and dim != size for dim, size in zip(shape, given)):
                raise ValueError("Cannot feed value of shape {} for Tensor {}, which has shape {}".format(
                    given, self.feeds[idx].name, self.feeds[idx].get_shape()))
        return value

    def __call__(self, *args: Any) -> list:
        if len(args) != self.n_args:
            raise TypeError("expected {} feed values ({}), got {}".format(
                self.n_args, ", ".join(feed.name for feed in self.feeds), len(args)))
        if not self._all_positions:
            args = [args[position] for position in self._positions]
        if self._callable is None or not self.fetches:
            return self.sess.run(self.fetches, dict(zip(self.feeds, args)))
        values = [self._check(idx, value) for idx, value in enumerate(args)]
        out = self._callable(*values)
        if len(self._tensor_slots) == len(self.fetches):
            return list(out)
        result = [None] * len(self.fetches)
        for slot, value in zip(self._tensor_slots, out):
            result[slot] = value
        return result


def feed_callable(sess: tf.Session, fetches: Sequence[Any], feeds: Sequence[tf.Tensor]) -> FeedCallable:
    """
    :param sess: (tf.Session) the session
    :param fetches: ([tf.Tensor or tf.Operation]) what to compute
    :param feeds: ([tf.Tensor]) the tensors fed, in the order of the call's arguments
    :return: (FeedCallable) ``f(*values) -> list`` equivalent to ``sess.run(fetches, dict(zip(feeds, values)))``
    """
    return FeedCallable(sess, fetches, feeds)


# ------------------------------------------------------------------------------------------------
# Theano-like function
# ------------------------------------------------------------------------------------------------
def function(inputs: Sequence[Any], outputs: Any, updates: Optional[Any] = None,
             givens: Optional[Dict[Any, Any]] = None) -> Callable:
    """
    Take a bunch of tensorflow placeholders and expressions
    computed based on those placeholders and produces f(inputs) -> outputs. Function f takes
    values to be fed to the input's placeholders and produces the values of the expressions
    in outputs. Just like a Theano function.

    Input values can be passed in the same order as inputs or can be provided as kwargs based
    on placeholder name (passed to constructor or accessible via placeholder.op.name).
    The keyword arguments ``sess``, ``options`` and ``run_metadata`` are passed to ``Session.run``.

    Example:
       >>> x = tf.placeholder(tf.int32, (), name="x")
       >>> y = tf.placeholder(tf.int32, (), name="y")
       >>> z = 3 * x + 2 * y
       >>> lin = function([x, y], z, givens={y: 0})
       >>> with single_threaded_session():
       >>>     initialize()
       >>>     assert lin(2) == 6
       >>>     assert lin(x=3) == 9
       >>>     assert lin(2, 2) == 10

    :param inputs: (TensorFlow Tensor or Object with make_feed_dict) list of input arguments
    :param outputs: (TensorFlow Tensor) list (or tuple, or dict) of outputs or a single output to be
        returned from function. Returned value will also have the same shape.
    :param updates: ([tf.Operation] or tf.Operation) list of update functions or single update function
        that will be run whenever the function is called. The return is ignored.
    :param givens: (dict) the values known for the output
    :return: (function)
    """
    if isinstance(outputs, list):
        return _Function(inputs, outputs, updates, givens=givens)
    if isinstance(outputs, tuple):
        func = _Function(inputs, list(outputs), updates, givens=givens)
        return lambda *args, **kwargs: tuple(func(*args, **kwargs))
    if isinstance(outputs, (dict, OrderedDict)):
        keys = list(outputs.keys())
        func = _Function(inputs, [outputs[key] for key in keys], updates, givens=givens)
        return lambda *args, **kwargs: type(outputs)(zip(keys, func(*args, **kwargs)))
    func = _Function(inputs, [outputs], updates, givens=givens)
    return lambda *args, **kwargs: func(*args, **kwargs)[0]


class _Function(object):
    """
    Theano like function (see :func:`function`).

    :param inputs: (TensorFlow Tensor or Object with make_feed_dict) list of input arguments
    :param outputs: ([TensorFlow Tensor]) list of outputs
    :param updates: ([tf.Operation] or tf.Operation) update operations run at every call
    :param givens: (dict) the values known for the output
    """

    _RUN_KWARGS = ("options", "run_metadata")

    def __init__(self, inputs: Sequence[Any], outputs: Sequence[Any], updates: Optional[Any], givens: Optional[dict]):
        inputs = list(inputs)
        for inpt in inputs:
            if not hasattr(inpt, 'make_feed_dict') and not (isinstance(inpt, tf.Tensor) and len(inpt.op.inputs) == 0):
                raise TypeError("inputs should all be placeholders, constants, or have a make_feed_dict method; "
                                "got {!r}".format(inpt))
        self.inputs = inputs
        if updates is None:
            updates = []
        elif not isinstance(updates, (list, tuple)):
            updates = [updates]
        self.update_group = tf.group(*updates)
        self.outputs_update = list(outputs) + [self.update_group]
        self.givens = {} if givens is None else givens
        self._by_name = {}
        for inpt in inputs:
            if isinstance(inpt, tf.Tensor):
                full_name = inpt.op.name
                self._by_name.setdefault(full_name, inpt)
                self._by_name.setdefault(full_name.split('/')[-1], inpt)

    @classmethod
    def _feed_input(cls, feed_dict: dict, inpt: Any, value: Any) -> None:
        if hasattr(inpt, 'make_feed_dict'):
            feed_dict.update(inpt.make_feed_dict(value))
        else:
            feed_dict[inpt] = value

    def __call__(self, *args, sess: Optional[tf.Session] = None, **kwargs) -> list:
        if len(args) > len(self.inputs):
            raise TypeError("Too many arguments provided: the function takes {} inputs, got {}".format(
                len(self.inputs), len(args)))
        if sess is None:
            sess = tf.get_default_session()
        if sess is None:
            raise ValueError("No session: pass sess=... or call the function inside `with sess.as_default():`")
        run_kwargs = {key: kwargs.pop(key) for key in self._RUN_KWARGS if key in kwargs}
        feed_dict = {}
        for inpt, value in zip(self.inputs, args):
            self._feed_input(feed_dict, inpt, value)
        for name, value in kwargs.items():
            if name not in self._by_name:
                raise TypeError("Unknown input '{}': the inputs are named {}".format(
                    name, sorted(key for key in self._by_name if '/' not in key)))
            self._feed_input(feed_dict, self._by_name[name], value)
        for inpt in self.givens:
            feed_dict[inpt] = feed_dict.get(inpt, self.givens[inpt])
        results = sess.run(self.outputs_update, feed_dict=feed_dict, **run_kwargs)[:-1]
        return results


# ------------------------------------------------------------------------------------------------
# flat parameter helpers
# ------------------------------------------------------------------------------------------------
def var_shape(tensor: Any) -> List[int]:
    """
    get TensorFlow Tensor shape

    :param tensor: (TensorFlow Tensor) the input tensor
    :return: ([int]) the shape
    """
    out = tensor.get_shape().as_list()
    if not all(isinstance(a, int) for a in out):
        raise ValueError("var_shape assumes that the shape is fully known, got {} for {}".format(
            out, getattr(tensor, "name", tensor)))
    return out


def numel(tensor: Any) -> int:
    """
    get TensorFlow Tensor's number of elements

    :param tensor: (TensorFlow Tensor) the input tensor
    :return: (int) the number of elements
    """
    return intprod(var_shape(tensor))


def intprod(tensor: Iterable) -> int:
    """
    calculates the product of all the elements in a list

    :param tensor: ([Number]) the list of elements
    :return: (int) the product truncated
    """
    return int(np.prod(list(tensor)))


def flatgrad(loss: tf.Tensor, var_list: Sequence[tf.Variable], clip_norm: Optional[float] = None) -> tf.Tensor:
    """
    calculates the gradient and flattens it

    :param loss: (float) the loss value
    :param var_list: ([TensorFlow Tensor]) the variables
    :param clip_norm: (float) clip the gradients (disabled if None)
    :return: ([TensorFlow Tensor]) flattened gradient
    """
    grads = tf.gradients(loss, var_list)
    if clip_norm is not None:
        grads = [tf.clip_by_norm(grad, clip_norm=clip_norm) if grad is not None else None for grad in grads]
    return tf.concat(axis=0, values=[
        tf.reshape(grad if grad is not None else tf.zeros_like(v), [numel(v)])
        for (v, grad) in zip(var_list, grads)
    ])


class SetFromFlat(object):
    """
    Set the parameters from a flat vector

    :param var_list: ([TensorFlow Tensor]) the variables
    :param dtype: (type) the type for the placeholder
    :param sess: (TensorFlow Session)
    """

    def __init__(self, var_list: Sequence[tf.Variable], dtype: Any = tf.float32, sess: Optional[tf.Session] = None):
        shapes = list(map(var_shape, var_list))
        total_size = int(np.sum([intprod(shape) for shape in shapes]))
        self.theta = theta = tf.placeholder(dtype, [total_size])
        start = 0
        assigns = []
        for (shape, _var) in zip(shapes, var_list):
            size = intprod(shape)
            assigns.append(tf.assign(_var, tf.reshape(theta[start:start + size], shape)))
            start += size
        self.operation = tf.group(*assigns)
        self.sess = sess

    def __call__(self, theta: np.ndarray) -> Any:
        sess = self.sess if self.sess is not None else tf.get_default_session()
        return sess.run(self.operation, feed_dict={self.theta: theta})


class GetFlat(object):
    """
    Get the parameters as a flat vector

    :param var_list: ([TensorFlow Tensor]) the variables
    :param sess: (TensorFlow Session)
    """

    def __init__(self, var_list: Sequence[tf.Variable], sess: Optional[tf.Session] = None):
        self.operation = tf.concat(axis=0, values=[tf.reshape(v, [numel(v)]) for v in var_list])
        self.sess = sess

    def __call__(self) -> np.ndarray:
        sess = self.sess if self.sess is not None else tf.get_default_session()
        return sess.run(self.operation)


# ------------------------------------------------------------------------------------------------
# scopes and variables
# ------------------------------------------------------------------------------------------------
def get_trainable_vars(name: str) -> list:
    """
    returns the trainable variables (of the default graph), in creation order

    :param name: (str) the scope
    :return: ([TensorFlow Variable])
    """
    return tf.get_collection(tf.GraphKeys.TRAINABLE_VARIABLES, scope=name)


def get_globals_vars(name: str) -> list:
    """
    returns the global variables (of the default graph), in creation order

    :param name: (str) the scope
    :return: ([TensorFlow Variable])
    """
    return tf.get_collection(tf.GraphKeys.GLOBAL_VARIABLES, scope=name)


def outer_scope_getter(scope: str, new_scope: str = "") -> Callable:
    """
    remove a scope layer for the getter

    :param scope: (str) the layer to remove
    :param new_scope: (str) optional replacement name
    :return: (function (function, str, ``*args``, ``**kwargs``): Tensorflow Tensor)
    """

    def _getter(getter, name, *args, **kwargs):
        name = name.replace(scope + "/", new_scope, 1)
        return getter(name, *args, **kwargs)

    return _getter


def get_available_gpus() -> List[str]:
    """
    Return the names of the GPU devices TensorFlow can use (e.g. ``['/device:GPU:0']``).

    :return: ([str])
    """
    try:
        devices = tf.config.experimental.list_physical_devices('GPU')
    except Exception:  # pragma: no cover - no device API
        return []
    names = []
    for device in devices:
        name = device.name
        names.append(name.replace("/physical_device:", "/device:", 1))
    return names


# ------------------------------------------------------------------------------------------------
# tensorboard
# ------------------------------------------------------------------------------------------------
def _add_episode_reward(writer: Any, value: float, step: int) -> None:
    summary = tf.Summary(value=[tf.Summary.Value(tag="episode_reward", simple_value=float(value))])
    writer.add_summary(summary, int(step))


def total_episode_reward_logger(rew_acc: np.ndarray, rewards: np.ndarray, masks: np.ndarray, writer: Any,
                                steps: int) -> np.ndarray:
    """
    calculates the cumulated episode reward, and prints to tensorflow log the output

    :param rew_acc: (np.array float) the total running reward
    :param rewards: (np.array float) the rewards, shape (n_envs, n_steps)
    :param masks: (np.array bool) the end of episodes, shape (n_envs, n_steps)
    :param writer: (TensorFlow Session.writer) the writer to log to
    :param steps: (int) the current timestep
    :return: (np.array float) the updated total running reward
    """
    rewards = np.asarray(rewards)
    masks = np.asarray(masks)
    if rewards.ndim != 2 or masks.shape != rewards.shape:
        raise ValueError("rewards and masks must both have shape (n_envs, n_steps), got {} and {}".format(
            rewards.shape, masks.shape))
    for env_idx in range(rewards.shape[0]):
        dones_idx = np.sort(np.argwhere(masks[env_idx]), axis=0)
        if len(dones_idx) == 0:
            rew_acc[env_idx] += sum(rewards[env_idx])
        else:
            rew_acc[env_idx] += sum(rewards[env_idx, :dones_idx[0, 0]])
            _add_episode_reward(writer, rew_acc[env_idx], steps + dones_idx[0, 0])
            for k in range(1, len(dones_idx[:, 0])):
                rew_acc[env_idx] = sum(rewards[env_idx, dones_idx[k - 1, 0]:dones_idx[k, 0]])
                _add_episode_reward(writer, rew_acc[env_idx], steps + dones_idx[k, 0])
            rew_acc[env_idx] = sum(rewards[env_idx, dones_idx[-1, 0]:])
    return rew_acc
