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
"""
import logging
import os
import warnings

# Must happen before Keras is first imported (TensorFlow imports it lazily, so setting it after
# ``import tensorflow`` still works as long as no Keras symbol was touched yet).
os.environ.setdefault("TF_USE_LEGACY_KERAS", "1")

import tensorflow as _tf2  # noqa: E402  (the environment variable above must come first)

tf = _tf2.compat.v1
tf2 = _tf2

TF2_BEHAVIOR_ENV_VAR = "STABLE_BASELINES_TF2_BEHAVIOR"

_STATE = {"tf1_behavior": None, "warned": False}


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
    return _STATE["tf1_behavior"]


def tf1_behavior_enabled() -> bool:
    """:return: (bool) whether importing stable_baselines switched TensorFlow to TF-1 behaviour"""
    return bool(_STATE["tf1_behavior"])


def dim_value(dim) -> "int or None":
    """
    The integer value of a ``TensorShape`` entry, whichever TF behaviour is active
    (``Dimension`` objects in TF-1 behaviour, plain ints or None in TF-2 behaviour).

    :param dim: (Dimension or int or None)
    :return: (int or None)
    """
    return getattr(dim, "value", dim)


__all__ = ["tf", "tf2", "enable_tf1_behavior", "tf1_behavior_enabled", "dim_value", "TF2_BEHAVIOR_ENV_VAR"]
