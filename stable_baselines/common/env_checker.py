"""
check_env: verify that a custom environment follows the gymnasium (or legacy gym) API and is
compatible with Stable Baselines. Problems that break the API raise an AssertionError whose message
says what was expected and what was given; problems that only hurt learning are warnings.
"""
import inspect
import warnings
from typing import TYPE_CHECKING, Any

import gymnasium
import numpy as np
from gymnasium import spaces

from stable_baselines.common import gym_compat
from stable_baselines.common.vec_env import DummyVecEnv, VecCheckNan

if TYPE_CHECKING:  # typing.TypeGuard needs Python 3.10; the annotation is only read by type checkers
    from typing import TypeGuard


def _is_numpy_array_space(space: spaces.Space) -> bool:
    """:return: (bool) whether the space's samples are numpy arrays (not Dict / Tuple)"""
    return not isinstance(space, (spaces.Dict, spaces.Tuple))


def _is_image_space(space: spaces.Space) -> "TypeGuard[spaces.Box]":
    return isinstance(space, spaces.Box) and len(space.shape) == 3


def _check_image_input(observation_space: spaces.Box, key: str = "") -> None:
    """Check that the input will be compatible with Stable-Baselines when the observation is apparently an image."""
    where = "" if not key else " (key '{}')".format(key)
    if observation_space.dtype != np.uint8:
        warnings.warn("It seems that your observation{} is an image but the `dtype` of your observation_space is "
                      "{} and not `np.uint8`. If your observation is not an image, we recommend you to flatten the "
                      "observation to have only a 1D vector".format(where, observation_space.dtype))

    if np.any(observation_space.low != 0) or np.any(observation_space.high != 255):
        warnings.warn("It seems that your observation space{} is an image but the upper and lower bounds are not in "
                      "[0, 255]. Because the CNN policy normalize automatically the observation you may encounter "
                      "issue if the values are not in that range.".format(where))

    if observation_space.shape[0] < 36 or observation_space.shape[1] < 36:
        warnings.warn("The minimal resolution for an image is 36x36 for the default CnnPolicy (the observation space"
                      "{} has shape {}). You might need to use a custom `cnn_extractor` "
                      "cf https://stable-baselines.readthedocs.io/en/master/guide/custom_policy.html"
                      .format(where, observation_space.shape))


def _check_unsupported_spaces(observation_space: spaces.Space, action_space: spaces.Space) -> None:
    """Emit warnings when the observation space or action space used is not supported by Stable-Baselines."""
    if isinstance(observation_space, (spaces.Dict, spaces.Tuple)):
        warnings.warn("The observation space is a {}: train on it with policy 'MultiInputPolicy' (MlpPolicy and "
                      "CnnPolicy do not read such spaces; HER takes a goal Dict with its own policies)"
                      .format(type(observation_space).__name__))
    if isinstance(action_space, (spaces.Dict, spaces.Tuple)):
        warnings.warn("The action space is a {} but Stable Baselines algorithms only support Box, Discrete, "
                      "MultiDiscrete and MultiBinary action spaces".format(type(action_space).__name__))


def _check_nan(env: Any, action_space: spaces.Space) -> None:
    """Check for NaN and inf in the observations and rewards of a few random steps (warnings)."""
    vec_env = VecCheckNan(DummyVecEnv([lambda: env]), raise_exception=False, warn_once=True)
    vec_env.reset()
    for _ in range(10):
        vec_env.step([action_space.sample()])


def _check_obs(obs: Any, observation_space: spaces.Space, method_name: str, warn: bool = True) -> None:
    """
    Check that the observation returned by the environment corresponds to the declared one.
    """
    if isinstance(observation_space, spaces.Dict):
        assert isinstance(obs, dict), ("The observation returned by `{}` must be a dict (the observation space is a "
                                       "Dict), got {}".format(method_name, type(obs).__name__))
        assert set(obs.keys()) == set(observation_space.spaces.keys()), (
            "The observation returned by `{}` has keys {} but the Dict observation space has keys {}"
            .format(method_name, sorted(map(str, obs.keys())), sorted(map(str, observation_space.spaces.keys()))))
        for key, subspace in observation_space.spaces.items():
            _check_obs(obs[key], subspace, "{}['{}']".format(method_name, key), warn)
        return
    if isinstance(observation_space, spaces.Tuple):
        assert isinstance(obs, tuple), ("The observation returned by `{}` must be a tuple (the observation space is "
                                        "a Tuple), got {}".format(method_name, type(obs).__name__))
        assert len(obs) == len(observation_space.spaces), (
            "The observation returned by `{}` has {} elements but the Tuple observation space has {}"
            .format(method_name, len(obs), len(observation_space.spaces)))
        for index, subspace in enumerate(observation_space.spaces):
            _check_obs(obs[index], subspace, "{}[{}]".format(method_name, index), warn)
        return

    if isinstance(observation_space, spaces.Discrete):
        is_int = isinstance(obs, (int, np.integer)) or (isinstance(obs, np.ndarray) and obs.shape == ()
                                                         and np.issubdtype(obs.dtype, np.integer))
        assert is_int and not isinstance(obs, bool), (
            "The observation returned by `{}` method must be an int (the observation space is {}), got {!r} of "
            "type {}".format(method_name, observation_space, obs, type(obs).__name__))
    elif _is_numpy_array_space(observation_space):
        assert isinstance(obs, np.ndarray), (
            "The observation returned by `{}` method must be a numpy array (the observation space is {}), got {} "
            "of type {}".format(method_name, observation_space, _short(obs), type(obs).__name__))
        expected_shape = tuple(observation_space.shape or ())
        assert obs.shape == expected_shape, (
            "The observation returned by the `{}` method has shape {} but the observation space expects shape {}"
            .format(method_name, obs.shape, expected_shape))
        if warn and observation_space.dtype is not None and obs.dtype != observation_space.dtype:
            warnings.warn("The observation returned by `{}` has dtype {} but the observation space has dtype {}"
                          .format(method_name, obs.dtype, observation_space.dtype))

    if not observation_space.contains(obs):
        detail = ""
        if isinstance(observation_space, spaces.Box):
            values = np.asarray(obs, dtype=np.float64)
            outside = (values < observation_space.low) | (values > observation_space.high)
            if np.any(outside):
                detail = ": values {} are outside the bounds".format(_short(values[outside]))
        raise AssertionError("The observation returned by the `{}` method does not match the given observation "
                             "space {}{} (got {})".format(method_name, observation_space, detail, _short(obs)))


def _short(value: Any, limit: int = 200) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + "..."


def _check_returned_values(env: Any, observation_space: spaces.Space, action_space: spaces.Space,
                           warn: bool, legacy_api_warnings: bool = False) -> None:
    """
    Call ``reset()`` and one ``step()`` with a random action, and check the types of what they return
    (``legacy_api_warnings``: say where a gymnasium.Env answers in the legacy gym API).
    """
    is_gymnasium = isinstance(env, gymnasium.Env)
    result = env.reset()
    is_tuple_obs = isinstance(observation_space, spaces.Tuple)
    looks_new = isinstance(result, tuple) and len(result) == 2 and isinstance(result[1], dict)
    if is_gymnasium:
        if looks_new:
            obs = result[0]
        else:
            if legacy_api_warnings:
                warnings.warn("`reset()` of a gymnasium.Env should return a tuple (obs, info); it returned only the "
                              "observation (the legacy gym API). Stable Baselines accepts it, other gymnasium tools "
                              "will not.")
            obs = result
    else:
        obs = result[0] if (looks_new and not is_tuple_obs) else result
    _check_obs(obs, observation_space, 'reset()', warn)

    data = env.step(action_space.sample())

    assert isinstance(data, tuple) and len(data) in (4, 5), (
        "The `step()` method must return (obs, reward, terminated, truncated, info) (gymnasium API) or "
        "(obs, reward, done, info) (legacy gym API); got {}".format(
            "a tuple of {} values".format(len(data)) if isinstance(data, tuple) else type(data).__name__))

    if len(data) == 5:
        obs, reward, terminated, truncated, info = data
        flags = [("terminated", terminated), ("truncated", truncated)]
    else:
        obs, reward, done, info = data
        flags = [("done", done)]
        if is_gymnasium and legacy_api_warnings:
            warnings.warn("`step()` of a gymnasium.Env should return 5 values (obs, reward, terminated, truncated, "
                          "info); it returned the 4 values of the legacy gym API. Stable Baselines accepts it, other "
                          "gymnasium tools will not.")

    _check_obs(obs, observation_space, 'step()', warn)
    # an integer reward is fine too: the algorithms turn rewards into floats
    assert isinstance(reward, (float, int, np.floating, np.integer)) and not isinstance(reward, bool), (
        "The reward returned by `step()` must be a float, got {!r} of type {}".format(reward, type(reward).__name__))
    for name, flag in flags:
        assert isinstance(flag, (bool, np.bool_)), (
            "The `{}` signal returned by `step()` must be a boolean, got {!r} of type {}"
            .format(name, flag, type(flag).__name__))
    assert isinstance(info, dict), ("The `info` returned by `step()` must be a python dictionary, got {} of type {}"
                                    .format(_short(info), type(info).__name__))


def _check_spaces(env: Any) -> None:
    """
    Both spaces must exist and be gymnasium spaces (or spaces of the legacy gym package).
    """
    gym_env = " cf https://gymnasium.farama.org/api/env/"  # where the error messages send the user

    assert hasattr(env, 'observation_space'), "You must specify an observation space (observation_space)" + gym_env
    assert hasattr(env, 'action_space'), "You must specify an action space (action_space)" + gym_env

    for name in ("observation_space", "action_space"):
        space = getattr(env, name)
        try:
            gym_compat.convert_space(space)
        except (TypeError, ValueError) as err:
            raise AssertionError("The {} must be a gymnasium space (gymnasium.spaces.Box, Discrete, ...), got {!r} "
                                 "of type {}".format(name, space, type(space).__name__) + gym_env) from err
        assert space is not None, "The {} must be a gymnasium space, got None".format(name) + gym_env


def _check_render(env: Any, warn: bool = True) -> None:
    """
    Render the environment in each mode it declares (gymnasium envs: in their own mode), then close it.

    :param env: (gym.Env) the environment under test
    :param warn: (bool) warn when no render mode is declared
    """
    metadata = getattr(env, "metadata", None) or {}
    render_modes = metadata.get("render_modes", metadata.get("render.modes"))
    if render_modes is None:
        if warn:
            warnings.warn("No render modes was declared in the environment "
                          " (env.metadata['render_modes'] is None or not defined), "
                          "you may have trouble when calling `.render()`")
        return
    if isinstance(env, gymnasium.Env):
        # gymnasium envs render in the mode they were created with
        env.render()
    else:
        for mode in render_modes:
            env.render(mode=mode)
    env.close()


def check_env(env: Any, warn: bool = True, skip_render_check: bool = True, legacy_api_warnings: bool = False) -> None:
    """
    Verify that a (custom) environment keeps the environment API (https://gymnasium.farama.org/api/env/):
    its spaces, and what ``reset()`` and ``step()`` return. An AssertionError says what is wrong.

    The gymnasium API (``reset() -> (obs, info)``, ``step() -> (obs, reward, terminated, truncated, info)``)
    and the legacy gym API (``reset() -> obs``, ``step() -> (obs, reward, done, info)``) both pass.
    With ``warn``, things that run but may hurt learning with Stable Baselines (unusual spaces, images
    that are not uint8, an unnormalised Box action space, NaN or inf values, ...) are reported as warnings.
    An env written the legacy way passes as quietly as it did with the original library; with
    ``legacy_api_warnings`` (an addition), the check also says what to change to follow the gymnasium API.

    :param env: (gym.Env) the environment to check
    :param warn: (bool) also warn about what may not work well with Stable Baselines
    :param skip_render_check: (bool) leave ``render()`` out of the check (the default: rendering often
        needs a display)
    :param legacy_api_warnings: (bool) warn where the env follows the legacy gym API (not a gymnasium.Env,
        ``reset()`` returning only the observation or taking no seed, a 4-value ``step()``)
    """
    for method in ("reset", "step"):
        assert callable(getattr(env, method, None)), (
            "The environment must have a `{}()` method (it should inherit from gymnasium.Env), got {!r}"
            .format(method, env))
    if legacy_api_warnings and not isinstance(env, gymnasium.Env):
        warnings.warn("Your environment does not inherit from gymnasium.Env: it will be used through the legacy gym "
                      "adapter of Stable Baselines. Consider porting it to gymnasium "
                      "(cf https://gymnasium.farama.org/introduction/migration_guide/)")

    _check_spaces(env)

    observation_space = gym_compat.convert_space(env.observation_space)
    action_space = gym_compat.convert_space(env.action_space)

    if warn:
        _check_unsupported_spaces(observation_space, action_space)

        if _is_image_space(observation_space):
            _check_image_input(observation_space)
        if isinstance(observation_space, spaces.Dict):
            for key, subspace in observation_space.spaces.items():
                if _is_image_space(subspace):
                    _check_image_input(subspace, key)

        if _is_image_space(observation_space) is False and isinstance(observation_space, spaces.Box) \
                and len(observation_space.shape) not in (1, 3):
            warnings.warn("Your observation has an unconventional shape {} (neither an image, nor a 1D vector). We "
                          "recommend you to flatten the observation to have only a 1D vector"
                          .format(observation_space.shape))

        if isinstance(action_space, spaces.Box) and (
                np.any(np.abs(action_space.low) != np.abs(action_space.high))
                or np.any(np.abs(action_space.low) > 1) or np.any(np.abs(action_space.high) > 1)):
            warnings.warn("We recommend you to use a symmetric and normalized Box action space (range=[-1, 1]), got "
                          "low={} high={} cf https://stable-baselines.readthedocs.io/en/master/guide/rl_tips.html"
                          .format(_short(action_space.low), _short(action_space.high)))

        if legacy_api_warnings and isinstance(env, gymnasium.Env) and not _accepts_seed(env):
            warnings.warn("`reset()` of a gymnasium.Env should accept the keyword arguments `seed` and `options` "
                          "(and call `super().reset(seed=seed)`); seeding this environment will not work")

    _check_returned_values(env, observation_space, action_space, warn, legacy_api_warnings)
    if not skip_render_check:
        _check_render(env, warn=warn)
    # feeding NaN actions needs array spaces on both sides
    if warn and _is_numpy_array_space(observation_space) and _is_numpy_array_space(action_space):
        _check_nan(env, action_space)


def _accepts_seed(env: Any) -> bool:
    try:
        params = inspect.signature(env.reset).parameters
    except (TypeError, ValueError):
        return True
    return "seed" in params or any(p.kind == inspect.Parameter.VAR_KEYWORD for p in params.values())
