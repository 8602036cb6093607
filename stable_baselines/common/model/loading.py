"""
``ALGO.load``: a model rebuilt from a model file, taking from the file only the settings the algorithm saves
(checked by :mod:`stable_baselines.common.storage.persistence`) and the parameter arrays (read against the shapes of
the rebuilt model's variables); last, the model restores what it wants from the file's extra members
(:mod:`stable_baselines.common.storage.extra_members`).
"""
import inspect
import os
import random
from typing import Any, Dict, Optional, cast

import numpy as np

from stable_baselines.common import save_util
from stable_baselines.common.gym_compat import convert_space
from stable_baselines.common.model.training_state import has_training_state
from stable_baselines.common.storage.persistence import SettingKind, check_settings
from stable_baselines.common.safe_loading.errors import InvalidModelFileError


# constructor arguments load gives itself (or that are not settings)
_NOT_CONSTRUCTOR_ARGUMENTS = ("self", "policy", "env", "_init_setup_model", "args", "kwargs")


def _describe(load_path: Any) -> str:
    if isinstance(load_path, (str, os.PathLike)):
        return "the model file {!r}".format(load_path)
    return "the model file"


def load_model(cls: type, load_path: Any, env: Any, custom_objects: Optional[dict], kwargs: Dict[str, Any],
               extra_settings: Optional[Dict[str, SettingKind]] = None) -> Any:
    """
    :param cls: (type) the algorithm class
    :param load_path: (str or file-like) the model file
    :param env: (gymnasium.Env or VecEnv) the environment of the loaded model, or None
    :param custom_objects: (dict) entries used instead of the file's (not read from it)
    :param kwargs: (dict) attributes to set on the model; they also stand in for the file's entries of the same
        name, except ``policy_kwargs``, which must equal the stored ones
    :param extra_settings: (dict) names and kinds of entries besides the algorithm's own that are checked and
        not set (HER's entries, read by the model it wraps)
    :return: (BaseRLModel) the loaded model
    """
    if custom_objects is not None and not isinstance(custom_objects, dict):
        raise ValueError("custom_objects argument must be a dict or None, got {!r}".format(
            type(custom_objects).__name__))
    trusted = {key: value for key, value in kwargs.items() if key != "policy_kwargs"}
    trusted.update(custom_objects or {})
    contents = save_util.read_model_contents(load_path, custom_objects=trusted or None)
    data = contents.data
    what = _describe(load_path)
    if data is None:
        raise InvalidModelFileError("{} has no 'data' member: it holds parameters only (load them into a model "
                                    "with model.load_parameters(path))".format(what))
    if "policy_kwargs" in kwargs and kwargs["policy_kwargs"] != data.get("policy_kwargs", {}):
        raise ValueError("The specified policy kwargs do not equal the stored policy kwargs. "
                         "Stored kwargs: {}, specified kwargs: {}".format(data.get("policy_kwargs"),
                                                                          kwargs["policy_kwargs"]))
    if "policy" not in data:
        raise InvalidModelFileError("{} has no 'policy' entry: it is not a Stable Baselines model file"
                                    .format(what))
    settings = check_settings(cls, data, what, trusted=trusted, extra=extra_settings)
    for key in ("observation_space", "action_space"):
        if settings.get(key) is not None:
            settings[key] = convert_space(settings[key])
    if settings.get("policy_kwargs") is None:
        settings["policy_kwargs"] = {}

    # building the model seeds the global generators (as the original's load did): a file refused on the way
    # leaves them as they were
    generators = (random.getstate(), np.random.get_state())
    try:
        return _build_model(cls, settings, kwargs, env, contents, what, trusted)
    except BaseException:
        random.setstate(generators[0])
        np.random.set_state(generators[1])
        raise


def _constructed(cls: type, settings: Dict[str, Any], trusted: Dict[str, Any], what: str) -> Any:
    """
    :return: (BaseRLModel) a model of ``cls`` made by its constructor from the file's settings that are constructor
        arguments, so that they pass the checks a user's arguments pass (``nminibatches=0`` gets the constructor's
        message, in an InvalidModelFileError naming the file)
    """
    parameters = inspect.signature(cast(Any, cls).__init__).parameters
    arguments = {name: value for name, value in settings.items()
                 if name in parameters and name not in _NOT_CONSTRUCTOR_ARGUMENTS and name not in trusted}
    try:
        return cls(policy=settings["policy"], env=None, _init_setup_model=False, **arguments)
    except (ValueError, TypeError) as err:
        raise InvalidModelFileError("The settings of {} do not make a valid {} model: {}".format(
            what, cls.__name__, err)) from err


def _build_model(cls: type, settings: Dict[str, Any], kwargs: Dict[str, Any], env: Any, contents: Any,
                 what: str, trusted: Dict[str, Any]) -> Any:
    model = _constructed(cls, settings, trusted, what)
    for name, value in settings.items():
        setattr(model, name, value)
    model.__dict__.update(kwargs)
    model.set_env(env)
    # a model that resumes its training leaves its new env as the user seeded it (or not), as the saved model's
    # would have been: the seed only restarts the graph's random streams, whose positions the state then restores
    with model.seeding_env(not has_training_state(contents.members)):
        try:
            model.setup_model()
        except (ValueError, TypeError) as err:
            # the spaces were checked against the env by set_env: what fails now is what the file describes
            raise InvalidModelFileError("The model {} describes cannot be built: {}".format(what, err)) from err
    model.load_parameters(contents.params)
    model.restore_extra_members(contents.members, what)
    return model
