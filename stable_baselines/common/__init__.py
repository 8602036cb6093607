"""
Pieces shared by two or more algorithms.

The names the original exported from ``stable_baselines.common`` are available here; they are
imported on first use so that importing a light submodule does not pull in TensorFlow models.
"""
import importlib

_EXPORTS = {
    "discount": "stable_baselines.common.math_util",
    "discount_with_boundaries": "stable_baselines.common.math_util",
    "explained_variance": "stable_baselines.common.math_util",
    "explained_variance_2d": "stable_baselines.common.math_util",
    "flatten_arrays": "stable_baselines.common.math_util",
    "unflatten_vector": "stable_baselines.common.math_util",
    "zipsame": "stable_baselines.common.misc_util",
    "set_global_seeds": "stable_baselines.common.misc_util",
    "boolean_flag": "stable_baselines.common.misc_util",
    "BaseRLModel": "stable_baselines.common.base_class",
    "ActorCriticRLModel": "stable_baselines.common.base_class",
    "OffPolicyRLModel": "stable_baselines.common.base_class",
    "SetVerbosity": "stable_baselines.common.base_class",
    "TensorboardWriter": "stable_baselines.common.base_class",
    # the manual imports it from here: ``from stable_baselines.common import make_vec_env``
    "make_vec_env": "stable_baselines.common.cmd_util",
}


def __getattr__(name: str):
    if name in _EXPORTS:
        value = getattr(importlib.import_module(_EXPORTS[name]), name)
        globals()[name] = value
        return value
    raise AttributeError("module 'stable_baselines.common' has no attribute '{}'".format(name))


def __dir__():
    return sorted(list(globals().keys()) + list(_EXPORTS))
