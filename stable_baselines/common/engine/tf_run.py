"""
Running graphs: sessions, a cheap repeated ``sess.run`` (:class:`FeedCallable`) and the Theano-style
:func:`function`. Re-exported by :mod:`stable_baselines.common.tf_util`, where the manual documents them.

Every session call of the library goes through :func:`session_run`, a :class:`FeedCallable` or a :func:`function`:
the one place that keeps the books of what a call changes besides its results (:class:`CallEffects`): it counts
the values drawn by the random ops it ran (:mod:`stable_baselines.common.engine.tf_random_draws`, for exact resume) and
tells the session's watchers (:func:`watch_writes`, the NumPy fast path) which variables it wrote.
"""
import functools
import os
import weakref
from collections import OrderedDict
from typing import Any, Callable, Dict, FrozenSet, List, MutableMapping, Optional, Sequence

import numpy as np

from stable_baselines.common.tf_compat import quiet_device_start, session_callable, tf
from stable_baselines.common.engine.tf_random_draws import count_draws, ops_behind, random_ops_among


# ------------------------------------------------------------------------------------------------
# sessions
# ------------------------------------------------------------------------------------------------
def _default_thread_count() -> int:
    return int(os.getenv('RCALL_NUM_CPU', os.cpu_count() or 1))


def make_session(num_cpu: Optional[int] = None, make_default: bool = False,
                 graph: Optional[tf.Graph] = None) -> tf.Session:
    """
    Open a session whose inter- and intra-op thread pools both hold ``num_cpu`` threads.
    GPU memory is claimed as needed, not all at once.

    :param num_cpu: (int) threads per pool; None reads ``RCALL_NUM_CPU``, else every core
    :param make_default: (bool) open an ``InteractiveSession`` (installed as the default one)
    :param graph: (TensorFlow Graph) the graph to run (None: the default graph)
    :return: (TensorFlow session)
    """
    if num_cpu is None:
        num_cpu = _default_thread_count()
    valid = isinstance(num_cpu, (int, np.integer)) and not isinstance(num_cpu, bool) and num_cpu >= 0
    if not valid:
        raise ValueError("num_cpu must be a non-negative int or None, got {!r}".format(num_cpu))
    threads = int(num_cpu)
    config = tf.ConfigProto(allow_soft_placement=True, inter_op_parallelism_threads=threads,
                            intra_op_parallelism_threads=threads)
    config.gpu_options.allow_growth = True
    session_class = tf.InteractiveSession if make_default else tf.Session
    with quiet_device_start():
        if not tf.config.list_physical_devices("GPU") and not tf_remapper_requested():
            unfused_dense_layers(config)
        return session_class(config=config, graph=graph)


def tf_remapper_requested() -> bool:
    """
    :return: (bool) whether the environment variable ``STABLE_BASELINES_TF_REMAPPER`` (``1``, ``true``, ``yes`` or
        ``on``) asks :func:`make_session` to keep TensorFlow's default graph optimisation on a CPU-only machine
        (the fused dense-layer kernels of the previous versions, and their numbers), see :func:`unfused_dense_layers`
    """
    return os.environ.get("STABLE_BASELINES_TF_REMAPPER", "").strip().lower() in ("1", "true", "yes", "on")


def unfused_dense_layers(config: Any) -> None:
    """
    Keep ``MatMul``, ``BiasAdd`` and the activation as separate kernels (turn off the graph optimizer's remapper).

    On a CPU with oneDNN the fused dense-layer kernel costs more per call than the separate ones on the small
    networks and batches of reinforcement learning (docs/misc/performance.rst). Results may differ from the fused
    kernel's in the last bits, as the bias is added separately (as TensorFlow 1.x did). Sessions made by
    :func:`make_session` on a machine without a GPU use this, unless ``STABLE_BASELINES_TF_REMAPPER=1`` is set
    (:func:`tf_remapper_requested`).

    :param config: (tf.ConfigProto) the session configuration to change
    """
    rewrite_options = config.graph_options.rewrite_options
    rewrite_options.remapping = type(rewrite_options).OFF


def single_threaded_session(make_default: bool = False, graph: Optional[tf.Graph] = None) -> tf.Session:
    """
    :func:`make_session` with one thread per pool.

    :param make_default: (bool) open an ``InteractiveSession`` (installed as the default one)
    :param graph: (TensorFlow Graph) the graph to run (None: the default graph)
    :return: (TensorFlow session)
    """
    return make_session(num_cpu=1, make_default=make_default, graph=graph)


def in_session(func: Callable) -> Callable:
    """
    Decorator: each call of ``func`` runs inside a fresh graph with its own session as defaults.

    :param func: (function) the function to decorate
    :return: (function)
    """

    @functools.wraps(func)
    def run_in_fresh_session(*args, **kwargs):
        graph = tf.Graph()
        with graph.as_default(), tf.Session(graph=graph):
            return func(*args, **kwargs)

    return run_in_fresh_session


def initialize(sess: Optional[tf.Session] = None) -> None:
    """
    Run the initializers of those global variables of the session's graph that have no value yet.

    :param sess: (TensorFlow Session) the session (None: the default session)
    """
    sess = sess if sess is not None else tf.get_default_session()
    if sess is None:
        raise ValueError("initialize() needs a session: pass sess=... or call it inside `with sess.as_default():`")
    with sess.graph.as_default():
        candidates = sess.graph.get_collection(tf.GraphKeys.GLOBAL_VARIABLES)
        if not candidates:
            return
        ready = sess.run([tf.is_variable_initialized(var) for var in candidates])
        missing = [var for var, done in zip(candidates, ready) if not done]
        if missing:
            sess.run(tf.variables_initializer(missing))


# ------------------------------------------------------------------------------------------------
# what a session call changes: random draws and written variables
# ------------------------------------------------------------------------------------------------
# the op types that write the variable (or resource) of their first input
_WRITE_PREFIXES = ("Assign", "Apply", "ResourceApply", "SparseApply", "ResourceSparseApply", "Scatter",
                   "ResourceScatter")
_VARIABLE_TYPES = ("VariableV2", "Variable", "VarHandleOp")

# session -> the objects told of the variables its calls write (``variables_written(names)``)
_WATCHERS: "MutableMapping[Any, weakref.WeakSet]" = weakref.WeakKeyDictionary()
# session -> {ids of the fetches (graph elements live as long as the session's graph): their effects}
_EFFECTS: "MutableMapping[Any, Dict[tuple, CallEffects]]" = weakref.WeakKeyDictionary()


def _written_variable(op: Any) -> Optional[str]:
    """:return: (str or None) the name of the variable a writing op writes (None: not found)"""
    source = op.inputs[0].op if op.inputs else None
    while source is not None and source.type == "Identity" and source.inputs:
        source = source.inputs[0].op
    return source.name if source is not None and source.type in _VARIABLE_TYPES else None


class CallEffects:
    """
    What running a fixed set of fetches does besides computing them, found once by walking the graph back from
    them: the random ops it draws from and the variables it writes.

    :param fetches: ([tf.Tensor or tf.Operation]) what the call runs
    """

    __slots__ = ("drawn", "written", "active")

    def __init__(self, fetches: Sequence[Any]) -> None:
        ops = ops_behind(fetches)
        #: (dict) the random ops behind the fetches (see ``tf_random_draws.random_ops_behind``)
        self.drawn = random_ops_among(ops)
        names = [_written_variable(op) for op in ops if op.type.startswith(_WRITE_PREFIXES)]
        known = frozenset(name for name in names if name is not None)
        #: (frozenset or None) the names of the variable ops written; None: some write whose variable is unknown
        self.written: Optional[FrozenSet[str]] = known if len(known) == len(set(names)) else None
        #: (bool) whether a call has anything to report
        self.active = bool(self.drawn) or self.written is None or bool(self.written)

    def report(self, sess: Any, fed: Any) -> None:
        """
        Count the draws of one call and tell the session's watchers what it wrote.

        :param sess: (tf.Session) the session that ran the call
        :param fed: (iterable) the fed values in order; the first one with a first dimension gives the number of
            rows drawn by the random ops whose first dimension is known only when running
        """
        if self.drawn:
            count_draws(sess, self.drawn, _leading_dimension(fed))
        if self.written is None or self.written:
            variables_written(sess, self.written)


def _leading_dimension(values: Any) -> Optional[int]:
    """:return: (int or None) the first dimension of the first value that has one"""
    for value in values:
        shape = getattr(value, "shape", None)
        if shape is None and isinstance(value, (list, tuple)):
            return len(value)
        if shape is not None and len(shape) > 0:
            return int(shape[0])
    return None


def watch_writes(sess: Any, watcher: Any) -> None:
    """
    Have ``watcher.variables_written(names)`` called after every call of the session that writes variables.

    :param sess: (tf.Session) the session
    :param watcher: (Any) the object told (kept as a weak reference)
    """
    watchers = _WATCHERS.get(sess)
    if watchers is None:
        watchers = _WATCHERS[sess] = weakref.WeakSet()
    watchers.add(watcher)


def variables_written(sess: Any, names: Optional[FrozenSet[str]] = None) -> None:
    """
    Tell the session's watchers that variables changed.

    :param sess: (tf.Session) the session holding them
    :param names: (frozenset) the names of their variable ops (None: any variable may have changed)
    """
    watchers = _WATCHERS.get(sess) if sess is not None else None
    if watchers:
        for watcher in list(watchers):
            watcher.variables_written(names)


def _effects_of(sess: Any, fetches: Any) -> CallEffects:
    """
    :return: (CallEffects) those of ``fetches`` (a fetch, or a list, tuple or dict of fetches) in the session's
        graph, found once
    """
    flat = _flat_fetches(fetches)
    cached = _EFFECTS.get(sess)
    if cached is None:
        cached = _EFFECTS[sess] = {}
    ids = tuple(map(id, flat))
    effects = cached.get(ids)
    if effects is None:
        effects = cached[ids] = CallEffects(flat)
    return effects


_ELEMENT_TYPES = (tf.Tensor, tf.Operation)


def _flat_fetches(fetches: Any) -> List[Any]:
    """:return: ([tf.Tensor or tf.Operation]) the graph elements of a fetch structure (lists, tuples, dicts)"""
    if isinstance(fetches, _ELEMENT_TYPES):
        return [fetches]
    if isinstance(fetches, (list, tuple)):
        flat: List[Any] = []
        for fetch in fetches:
            if isinstance(fetch, _ELEMENT_TYPES):
                flat.append(fetch)
            else:
                flat.extend(_flat_fetches(fetch))
        return flat
    if isinstance(fetches, dict):
        return _flat_fetches(list(fetches.values()))
    op = getattr(fetches, "op", None)  # a variable (a resource variable's assignment gives one): its op
    if isinstance(op, tf.Operation):
        return [op]
    return []  # anything else (a name, for one) is not followed


def session_run(sess: tf.Session, fetches: Any, feed_dict: Optional[Dict[Any, Any]] = None,
                **run_kwargs: Any) -> Any:
    """
    ``sess.run(fetches, feed_dict, **run_kwargs)``, keeping the books of what it changed (:class:`CallEffects`,
    found once per set of fetches): the values its random ops drew are counted (rows: the first dimension of the
    first fed value that has one) and the watchers of the session are told which variables it wrote.

    :param sess: (tf.Session) the session
    :param fetches: (Any) what to compute, as for ``Session.run`` (tensors, operations, variables, in lists,
        tuples or dicts)
    :param feed_dict: (dict) the fed values
    :param run_kwargs: ``options`` and ``run_metadata``, for ``Session.run``
    :return: (Any) the results of ``Session.run``
    """
    results = sess.run(fetches, feed_dict, **run_kwargs)
    effects = _effects_of(sess, fetches)
    if effects.active:
        effects.report(sess, () if feed_dict is None else feed_dict.values())
    return results


# ------------------------------------------------------------------------------------------------
# a session callable with a fixed list of feeds
# ------------------------------------------------------------------------------------------------
def _static_shape(tensor: tf.Tensor) -> Optional[tuple]:
    shape = tensor.get_shape()
    return None if shape.ndims is None else tuple(shape.as_list())


def _shape_fits(expected: Optional[tuple], given: tuple) -> bool:
    if expected is None:
        return True
    if len(expected) != len(given):
        return False
    return all(want is None or want == got for want, got in zip(expected, given))


_NOT_BUILT = object()


class FeedCallable(object):
    """
    ``f(*values)`` computing ``sess.run(fetches, dict(zip(feeds, values)))`` at a fraction of the cost.

    ``Session.run`` re-analyses its fetches and feeds at each call; a session callable built once from
    ``CallableOptions`` skips that. Values are cast to the dtype of their placeholder and their shapes
    checked as ``Session.run`` would, so results and errors match it. Operations among the fetches give
    None. Sessions without callables fall back to ``sess.run``. What a call changes is reported as by
    :func:`session_run` (rows of the random ops: the first dimension of the first argument that has one).

    :param sess: (tf.Session) the session
    :param fetches: ([tf.Tensor or tf.Operation]) what to compute (a list)
    :param feeds: ([tf.Tensor]) the fed tensors, in the order of the call's arguments
    """

    def __init__(self, sess: tf.Session, fetches: Sequence[Any], feeds: Sequence[tf.Tensor]) -> None:
        self.sess = sess
        self.fetches = list(fetches)
        self.n_args = len(feeds)
        # a tensor listed more than once takes the value of its last position, as in a feed dict
        last_seen = {feed: position for position, feed in enumerate(feeds)}
        self._positions = sorted(last_seen.values())
        self._all_positions = len(self._positions) == self.n_args
        self.feeds = [feeds[position] for position in self._positions]
        self._dtypes = [np.dtype(feed.dtype.as_numpy_dtype) for feed in self.feeds]
        self._shapes = [_static_shape(feed) for feed in self.feeds]
        self._tensor_slots = [slot for slot, fetch in enumerate(self.fetches) if isinstance(fetch, tf.Tensor)]
        # when the tensors come first, the operations' None values are appended after them
        n_tensors = len(self._tensor_slots)
        self._op_padding: Optional[List[None]] = None
        if self._tensor_slots == list(range(n_tensors)):
            self._op_padding = [None] * (len(self.fetches) - n_tensors)
        # per feed, the shape of the last array accepted as it was (exact ndarray of the feed's dtype): an array of
        # that type and shape is passed on without a new check
        self._accepted: List[Optional[tuple]] = [None] * len(self.feeds)
        # built at the first call: TensorFlow prepares the subgraph then, as Session.run would at its first call, and
        # a call that is never made (a variant of a training step the settings do not use) costs nothing
        self._callable: Any = _NOT_BUILT
        self._effects = CallEffects(self.fetches)

    def _build_callable(self) -> Optional[Callable]:
        try:
            return session_callable(self.sess, [feed.name for feed in self.feeds],
                                    [fetch.name for fetch in self.fetches if isinstance(fetch, tf.Tensor)],
                                    [fetch.name for fetch in self.fetches if not isinstance(fetch, tf.Tensor)])
        except Exception:  # pylint: disable=broad-except
            return None

    def _check(self, idx: int, value: Any) -> np.ndarray:
        array = np.asarray(value, dtype=self._dtypes[idx])
        if not _shape_fits(self._shapes[idx], array.shape):
            feed = self.feeds[idx]
            raise ValueError("Cannot feed value of shape {} for Tensor {}, which has shape {}".format(
                array.shape, feed.name, feed.get_shape()))
        return array

    def _checked(self, args: Sequence[Any]) -> List[np.ndarray]:
        """
        :param args: ([Any]) the values of the feeds, in order
        :return: ([np.ndarray]) the values as arrays of their placeholder's dtype, shapes checked (:meth:`_check`);
            an ndarray of that dtype and of the shape last accepted for its feed is taken as it is
        """
        dtypes, accepted = self._dtypes, self._accepted
        arrays = []
        for idx, value in enumerate(args):
            if type(value) is np.ndarray and value.dtype is dtypes[idx] \
                    and value.shape == accepted[idx]:  # pylint: disable=unidiomatic-typecheck
                arrays.append(value)
                continue
            array = self._check(idx, value)
            accepted[idx] = array.shape
            arrays.append(array)
        return arrays

    def __call__(self, *args: Any) -> list:
        if len(args) != self.n_args:
            raise TypeError("expected {} feed values ({}), got {}".format(
                self.n_args, ", ".join(feed.name for feed in self.feeds), len(args)))
        if not self._all_positions:
            args = tuple(args[position] for position in self._positions)
        if self._callable is _NOT_BUILT:
            self._callable = self._build_callable()
        if self._callable is None or not self.fetches:
            values = self.sess.run(self.fetches, dict(zip(self.feeds, args)))
        else:
            values = self._callable(*self._checked(args))
        if self._effects.active:
            self._effects.report(self.sess, args)
        if self._callable is None or not self.fetches:
            return values
        if self._op_padding is not None:
            return list(values) + self._op_padding
        results = [None] * len(self.fetches)
        for slot, value in zip(self._tensor_slots, values):
            results[slot] = value
        return results


def feed_callable(sess: tf.Session, fetches: Sequence[Any], feeds: Sequence[tf.Tensor]) -> FeedCallable:
    """
    :param sess: (tf.Session) the session
    :param fetches: ([tf.Tensor or tf.Operation]) what to compute
    :param feeds: ([tf.Tensor]) the fed tensors, in the order of the call's arguments
    :return: (FeedCallable) ``f(*values)``, the same as ``sess.run(fetches, dict(zip(feeds, values)))``
    """
    return FeedCallable(sess, fetches, feeds)


# ------------------------------------------------------------------------------------------------
# the Theano-style function
# ------------------------------------------------------------------------------------------------
def function(inputs: Sequence[Any], outputs: Any, updates: Optional[Any] = None,
             givens: Optional[Dict[Any, Any]] = None) -> Callable:
    """
    Turn a graph into a Python function: ``f(values...)`` feeds the values to ``inputs`` and returns
    the values of ``outputs``, in their container (a list, tuple or dict, or a single value).

    Arguments go by position, or by keyword with the placeholder's name (full ``op.name`` or its last
    component). ``sess=`` chooses the session (default: the default session); ``options`` and
    ``run_metadata`` go to ``Session.run``. What a call changes is reported as by :func:`session_run`.

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

    :param inputs: ([TensorFlow Tensor or object with make_feed_dict]) placeholders (or constants) fed in order
    :param outputs: (TensorFlow Tensor or list, tuple, dict of them) what the function returns
    :param updates: ([tf.Operation] or tf.Operation) operations run at every call, their values dropped
    :param givens: (dict) default values of tensors, used when a call does not feed them
    :return: (function)
    """
    if isinstance(outputs, list):
        return _Function(inputs, outputs, updates, givens=givens)
    if isinstance(outputs, tuple):
        as_list = _Function(inputs, list(outputs), updates, givens=givens)
        return lambda *args, **kwargs: tuple(as_list(*args, **kwargs))
    if isinstance(outputs, (dict, OrderedDict)):
        keys = list(outputs.keys())
        as_list = _Function(inputs, [outputs[key] for key in keys], updates, givens=givens)
        return lambda *args, **kwargs: type(outputs)(zip(keys, as_list(*args, **kwargs)))
    as_list = _Function(inputs, [outputs], updates, givens=givens)
    return lambda *args, **kwargs: as_list(*args, **kwargs)[0]


def _is_feedable(inpt: Any) -> bool:
    if hasattr(inpt, 'make_feed_dict'):
        return True
    # a placeholder with a default value has that default as its input
    return isinstance(inpt, tf.Tensor) and (len(inpt.op.inputs) == 0 or inpt.op.type == "PlaceholderWithDefault")


def _as_op_list(updates: Optional[Any]) -> list:
    if updates is None:
        return []
    if isinstance(updates, (list, tuple)):
        return list(updates)
    return [updates]


class _Function(object):
    """
    The list-returning callable behind :func:`function`.

    :param inputs: ([TensorFlow Tensor or object with make_feed_dict]) the inputs
    :param outputs: ([TensorFlow Tensor]) the outputs
    :param updates: ([tf.Operation] or tf.Operation) operations run at every call
    :param givens: (dict) default values of tensors
    """

    _RUN_KWARGS = ("options", "run_metadata")

    def __init__(self, inputs: Sequence[Any], outputs: Sequence[Any], updates: Optional[Any], givens: Optional[dict]) -> None:
        inputs = list(inputs)
        for inpt in inputs:
            if not _is_feedable(inpt):
                raise TypeError("inputs should all be placeholders, constants, or have a make_feed_dict method; "
                                "got {!r}".format(inpt))
        self.inputs = inputs
        self.update_group = tf.group(*_as_op_list(updates))
        self.outputs_update = list(outputs) + [self.update_group]
        self._effects = CallEffects(self.outputs_update)
        self.givens = {} if givens is None else givens
        self._by_name: Dict[str, Any] = {}
        for inpt in inputs:
            if isinstance(inpt, tf.Tensor):
                self._by_name.setdefault(inpt.op.name, inpt)
                self._by_name.setdefault(inpt.op.name.split('/')[-1], inpt)

    @classmethod
    def _feed_input(cls, feed_dict: dict, inpt: Any, value: Any) -> None:
        if hasattr(inpt, 'make_feed_dict'):
            feed_dict.update(inpt.make_feed_dict(value))
        else:
            feed_dict[inpt] = value

    def _feed_dict(self, args: tuple, kwargs: dict) -> dict:
        feed_dict: Dict[Any, Any] = {}
        for inpt, value in zip(self.inputs, args):
            self._feed_input(feed_dict, inpt, value)
        for name, value in kwargs.items():
            if name not in self._by_name:
                short_names = sorted(key for key in self._by_name if '/' not in key)
                raise TypeError("Unknown input '{}': the inputs are named {}".format(name, short_names))
            self._feed_input(feed_dict, self._by_name[name], value)
        for tensor, default in self.givens.items():
            feed_dict.setdefault(tensor, default)
        return feed_dict

    def __call__(self, *args, sess: Optional[tf.Session] = None, **kwargs) -> List[Any]:
        if len(args) > len(self.inputs):
            raise TypeError("Too many arguments provided: the function takes {} inputs, got {}".format(
                len(self.inputs), len(args)))
        sess = sess if sess is not None else tf.get_default_session()
        if sess is None:
            raise ValueError("No session: pass sess=... or call the function inside `with sess.as_default():`")
        run_kwargs = {key: kwargs.pop(key) for key in self._RUN_KWARGS if key in kwargs}
        feed_dict = self._feed_dict(args, kwargs)
        results = sess.run(self.outputs_update, feed_dict=feed_dict, **run_kwargs)[:-1]
        if self._effects.active:
            self._effects.report(sess, feed_dict.values())
        return results
