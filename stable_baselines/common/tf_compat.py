"""
The one module through which Stable Baselines uses TensorFlow.

The library is written against the TensorFlow 1.x graph API (placeholders, variable scopes,
sessions). On TensorFlow 2.x that API lives in ``tensorflow.compat.v1``; this module imports it
once, as ``tf``, and every other module does ``from stable_baselines.common.tf_compat import tf``.

Importing ``stable_baselines`` puts TensorFlow in TF-1 behaviour (``disable_v2_behavior``), as
TensorFlow 1.15 was, so that SB2-era user code (top-level placeholders, ``tf.Summary``,
``tf.get_default_session()``, custom policies) runs unchanged. The switch is declined when

- the environment variable ``STABLE_BASELINES_TF2_BEHAVIOR=1`` is set before the import, or
- TensorFlow's eager context is already in use (eager tensors exist: switching would break them);
  a warning says so, once.

The library itself works either way: each model builds its own ``tf.Graph`` and ``Session``.

``TF_USE_LEGACY_KERAS=1`` is set (if the user has not set it) before Keras first loads, so that
``tf.compat.v1.layers.dense`` & co. in user code keep working through the ``tf-keras`` package.

TensorFlow's start-up chatter (oneDNN, "Could not find cuda drivers", CPU instruction sets, absl's
"All log messages before absl::InitializeLog()") is kept off the console when this module is the first
to import TensorFlow and the user has not set ``TF_CPP_MIN_LOG_LEVEL``: the variable is set to ``2``
(C++ errors still print), and the informational and warning lines TensorFlow writes while it is imported
are dropped (any other output of that moment is written out unchanged); so are those of the first session,
which starts the devices, and CUDA's "failed call to cuInit ... (303)" on a machine without an NVIDIA driver
(:func:`quiet_device_start`). Set ``TF_CPP_MIN_LOG_LEVEL=0`` before importing to see all of it again.
"""
import contextlib
import logging
import os
import re
import sys
import tempfile
import warnings
from typing import Any, Callable, Dict, Iterator, Optional, Sequence

from stable_baselines.common import env_worker

# Must happen before Keras is first imported (TensorFlow imports it lazily, so setting it after
# ``import tensorflow`` still works as long as no Keras symbol was touched yet).
os.environ.setdefault("TF_USE_LEGACY_KERAS", "1")

LOG_LEVEL_ENV_VAR = "TF_CPP_MIN_LOG_LEVEL"

# informational (I) and warning (W) lines of absl / TensorFlow's C++ logging, and absl's preamble
_STARTUP_NOISE = re.compile(r"^(?:[IW]\d{4} [\d:.]+ +\d+ [^ \]]+\] .*"
                            r"|WARNING: All log messages before absl::InitializeLog\(\) is called are written "
                            r"to STDERR)$")


# what CUDA's start writes on a machine without an NVIDIA driver ("no device", error 303): not a problem there
_NO_DRIVER_NOTICE = re.compile(r"^E\d{4} [\d:.]+ +\d+ cuda_platform\.cc:\d+\] failed call to cuInit: .*"
                               r"UNKNOWN ERROR \(303\)$")

# whether this module set TensorFlow's C++ log level (then it keeps the start-up quiet), and whether the devices
# were started (by the first session) since
_QUIET: Dict[str, bool] = {"managed": False, "devices_started": False}


def _without_startup_noise(text: str, extra: Optional["re.Pattern[str]"] = None) -> str:
    """The lines of ``text`` that are not TensorFlow start-up information or warnings (nor match ``extra``)."""
    def noise(line: str) -> bool:
        line = line.rstrip("\n")
        return bool(_STARTUP_NOISE.match(line)) or (extra is not None and bool(extra.match(line)))
    return "".join(line for line in text.splitlines(keepends=True) if not noise(line))


@contextlib.contextmanager
def _quiet_native_stderr(extra: Optional["re.Pattern[str]"] = None) -> Iterator[None]:
    """
    Collect what is written to the process's stderr (file descriptor 2) meanwhile, then write it back
    without TensorFlow's start-up information and warnings (and the lines matching ``extra``). Errors and every
    other line go through.
    """
    try:
        sys.stderr.flush()
        saved_fd = os.dup(2)
    except (OSError, ValueError, AttributeError):  # no usable stderr: nothing to keep quiet
        saved_fd = None
    if saved_fd is None:
        yield
        return
    with tempfile.TemporaryFile() as collected:
        os.dup2(collected.fileno(), 2)
        try:
            yield
        finally:
            try:
                sys.stderr.flush()
            except (OSError, ValueError, AttributeError):
                pass
            os.dup2(saved_fd, 2)
            os.close(saved_fd)
            collected.seek(0)
            kept = _without_startup_noise(collected.read().decode("utf-8", "replace"), extra)
            if kept:
                os.write(2, kept.encode("utf-8"))


def _import_tensorflow():
    """Import TensorFlow; the first import is kept quiet unless the user configured its C++ logging."""
    if "tensorflow" in sys.modules or LOG_LEVEL_ENV_VAR in os.environ:
        import tensorflow  # pylint: disable=import-outside-toplevel
        return tensorflow
    os.environ[LOG_LEVEL_ENV_VAR] = "2"
    _QUIET["managed"] = True
    with _quiet_native_stderr():
        import tensorflow  # pylint: disable=import-outside-toplevel
    return tensorflow


@contextlib.contextmanager
def quiet_device_start() -> Iterator[None]:
    """
    Around the first TensorFlow session of the process (which starts the devices): drop the start-up notices
    as at import, and CUDA's "failed call to cuInit ... (303)" of a machine without an NVIDIA driver. Does
    nothing when the user configured TensorFlow's logging (``TF_CPP_MIN_LOG_LEVEL`` set before the import) or
    after the first session.
    """
    if not _QUIET["managed"] or _QUIET["devices_started"]:
        yield
        return
    _QUIET["devices_started"] = True
    with _quiet_native_stderr(_NO_DRIVER_NOTICE):
        yield


_tf2 = _import_tensorflow()

tf = _tf2.compat.v1
tf2 = _tf2

TF2_BEHAVIOR_ENV_VAR = "STABLE_BASELINES_TF2_BEHAVIOR"

_STATE: Dict[str, Optional[bool]] = {"tf1_behavior": None, "warned": False}


def _eager_context_in_use() -> bool:
    """Whether TensorFlow's eager context was already initialised (eager tensors may exist)."""
    try:
        from tensorflow.python.eager import context as _context
        return _context.context()._context_handle is not None  # pylint: disable=protected-access
    except Exception:  # pragma: no cover - private API moved: assume it is safe to switch
        return False


def _silently(func) -> None:
    """Call ``func`` with TensorFlow's deprecation chatter muted, restoring the log level."""
    tf_logger = logging.getLogger("tensorflow")
    level = tf_logger.level
    tf_logger.setLevel(logging.ERROR)
    try:
        func()
    finally:
        tf_logger.setLevel(level)


def enable_tf1_behavior() -> bool:
    """
    Put TensorFlow in TF-1 behaviour unless the user declined it (see the module docstring).
    Called once when ``stable_baselines`` is imported; calling it again does nothing.

    :return: (bool) whether TF-1 behaviour is active
    """
    if _STATE["tf1_behavior"] is not None:
        return _STATE["tf1_behavior"]
    if os.environ.get(TF2_BEHAVIOR_ENV_VAR, "").strip().lower() in ("1", "true", "yes"):
        _STATE["tf1_behavior"] = False
    elif not _tf2.executing_eagerly():
        # someone (the user) already switched to graph mode: nothing to do
        _STATE["tf1_behavior"] = True
    elif _eager_context_in_use():
        _STATE["tf1_behavior"] = False
        if not _STATE["warned"]:
            _STATE["warned"] = True
            warnings.warn("stable_baselines: TensorFlow eager tensors already exist, so TF-1 behaviour "
                          "was not enabled (it would break them). Stable Baselines models still work "
                          "(each builds its own graph), but SB2-era code that relies on TF-1 globals "
                          "(top-level placeholders, tf.Session without a graph) will not. Import "
                          "stable_baselines before creating tensors, or set {}=1 to silence this."
                          .format(TF2_BEHAVIOR_ENV_VAR), stacklevel=3)
    else:
        _silently(tf.disable_v2_behavior)
        _STATE["tf1_behavior"] = True
    return bool(_STATE["tf1_behavior"])


@contextlib.contextmanager
def quiet_deprecations() -> Iterator[None]:
    """
    Mute TensorFlow's deprecation notices meanwhile. For the library's own calls into TF-1 code paths
    that TensorFlow itself implements with deprecated pieces (e.g. the RMSProp optimizer's slots);
    user code keeps its warnings.
    """
    try:
        from tensorflow.python.util import deprecation  # pylint: disable=import-outside-toplevel
        silence = deprecation.silence
    except (ImportError, AttributeError):  # pragma: no cover - private module moved
        silence = contextlib.nullcontext
    with silence():
        yield


def tf1_behavior_enabled() -> bool:
    """:return: (bool) whether importing stable_baselines switched TensorFlow to TF-1 behaviour"""
    return bool(_STATE["tf1_behavior"])


def dim_value(dim: Any) -> Optional[int]:
    """
    The integer value of a ``TensorShape`` entry, whichever TF behaviour is active
    (``Dimension`` objects in TF-1 behaviour, plain ints or None in TF-2 behaviour).

    :param dim: (Dimension or int or None)
    :return: (int or None)
    """
    return getattr(dim, "value", dim)


# ---------------------------------------------------------------------------------- graph internals, in one place
# The repeated training step (common/engine/repeated_step.py, common/engine/shape_folding.py) builds inside a tf.while_loop and
# needs what TensorFlow's public API does not offer; these are the only uses of its private names.
def control_flow_context(owner: Any) -> Any:
    """
    :param owner: (tf.Graph or tf.Operation) a graph (the context operations are being made in) or an operation
    :return: (Any) its control-flow context (a while loop's body, or None at the top level)
    """
    return owner._get_control_flow_context()  # pylint: disable=protected-access


def set_control_flow_context(graph: Any, context: Any) -> None:
    """
    :param graph: (tf.Graph) the graph
    :param context: (Any) the control-flow context its next operations are made in (see :func:`control_flow_context`)
    """
    graph._set_control_flow_context(context)  # pylint: disable=protected-access


def is_ref_dtype(dtype: Any) -> bool:
    """
    :param dtype: (tf.DType) a dtype
    :return: (bool) whether it is the reference dtype of a TF-1 variable (``float32_ref``, ...)
    """
    return bool(dtype._is_ref_dtype)  # pylint: disable=protected-access


def replace_input(op: Any, index: int, tensor: Any) -> None:
    """
    Make ``tensor`` input ``index`` of the existing operation ``op``.

    :param op: (tf.Operation) the operation
    :param index: (int) which input
    :param tensor: (tf.Tensor) its new value
    """
    op._update_input(index, tensor)  # pylint: disable=protected-access


def session_callable(sess: Any, feeds: Sequence[str], fetches: Sequence[str],
                     targets: Sequence[str]) -> Optional[Callable]:
    """
    A callable running ``sess`` on named tensors, made by the session method behind ``Session.make_callable``
    (``_make_callable_from_options``) without its processing of the fetch and feed structures at every call.

    :param sess: (tf.Session) the session
    :param feeds: ([str]) the names of the fed tensors, in the order of the call's arguments
    :param fetches: ([str]) the names of the tensors whose values a call returns, in order
    :param targets: ([str]) the names of the operations a call runs
    :return: (callable or None) ``f(*arrays) -> [values]``; None when the session has no such method
    """
    make = getattr(sess, "_make_callable_from_options", None)
    if make is None:
        return None
    # CallableOptions lives in the protobuf module that also defines RunOptions
    protos = sys.modules[type(tf.RunOptions()).__module__]
    options = protos.CallableOptions()
    options.feed.extend(feeds)
    options.fetch.extend(fetches)
    options.target.extend(targets)
    return make(options)


if env_worker.is_env_worker():
    # a SubprocVecEnv worker skipped the switch when stable_baselines was imported; TensorFlow is needed now
    enable_tf1_behavior()

__all__ = ["tf", "tf2", "enable_tf1_behavior", "tf1_behavior_enabled", "quiet_deprecations", "dim_value",
           "control_flow_context", "set_control_flow_context", "is_ref_dtype", "replace_input", "session_callable",
           "TF2_BEHAVIOR_ENV_VAR", "LOG_LEVEL_ENV_VAR"]
