"""
What a vectorized environment does to ONE of its environments: create it, step it with auto-reset, seed it,
read and write its attributes, call its methods. DummyVecEnv runs these in the current process, the
workers of SubprocVecEnv in theirs, so both behave alike.
"""
import inspect
from typing import Any, Callable, Optional, Sequence, Tuple

import numpy as np

from stable_baselines.common import gym_compat

_MISSING = object()

def _owner_of(env: Any, name: str) -> Any:
    """The first object of the wrapper chain that defines ``name`` (without triggering ``__getattr__``)."""
    for obj in gym_compat.env_layers(env):
        if inspect.getattr_static(obj, name, _MISSING) is not _MISSING:
            return obj
    return None


def get_env_attr(env: Any, name: str) -> Any:
    """
    Read an attribute of an environment, looking through gymnasium wrappers and the legacy adapter.

    :param env: (gymnasium.Env) the environment
    :param name: (str) attribute name
    :return: (Any) the value
    """
    owner = _owner_of(env, name)
    if owner is None:
        raise AttributeError("The environment {} has no attribute '{}' (looked through all its wrappers)"
                             .format(env, name))
    return getattr(owner, name)


def has_env_attr(env: Any, name: str) -> bool:
    """
    Whether an environment, or one of its gymnasium wrappers or the legacy adapter, defines an attribute or method.
    Nothing is read or called: a method that only works after ``reset`` (or a property that would raise) counts.

    :param env: (gymnasium.Env) the environment
    :param name: (str) attribute name
    :return: (bool)
    """
    return _owner_of(env, name) is not None


def set_env_attr(env: Any, name: str, value: Any) -> None:
    """
    Set an attribute of an environment: on the first wrapper that defines it, else on the innermost env.

    :param env: (gymnasium.Env) the environment
    :param name: (str) attribute name
    :param value: (Any) new value
    """
    owner = _owner_of(env, name)
    if owner is None:
        owner = gym_compat.env_layers(env)[-1]
    setattr(owner, name, value)


def call_env_method(env: Any, name: str, *args: Any, **kwargs: Any) -> Any:
    """
    Call a method of an environment, looking through gymnasium wrappers and the legacy adapter.

    :param env: (gymnasium.Env) the environment
    :param name: (str) method name
    :return: (Any) the method's return value
    """
    if name == "render":
        # an old-API env chooses the mode per call: pass it through the gymnasium wrappers around it
        render = gym_compat.render_taking_mode(env)
        if render is not None:
            return render(*args, **kwargs)
    method = get_env_attr(env, name)
    if not callable(method):
        raise TypeError("Attribute '{}' of the environment {} is not callable (it is {!r})".format(name, env, method))
    return method(*args, **kwargs)


def seed_env(env: Any, seed: Optional[int]) -> Tuple[Any, Optional[int]]:
    """
    Seed one environment. The action space is seeded at once. A legacy env with a ``seed()`` method gets it
    called now; a gymnasium env is seeded through its next ``reset(seed=...)``.

    :param env: (gymnasium.Env) the environment
    :param seed: (int or None) the seed
    :return: (Any, int or None) the value to report for this env, and the seed to pass to the next reset
    """
    if seed is not None:
        try:
            env.action_space.seed(int(seed))
        except (AttributeError, TypeError):
            pass
    legacy = gym_compat.legacy_env_of(env)
    if legacy is not None and callable(getattr(legacy, "seed", None)):
        return legacy.seed(seed), None
    return seed, seed


def step_env_auto_reset(env: Any, action: Any) -> Tuple[Any, float, bool, dict]:
    """
    Step one environment, resetting it when the episode ends (SB2 semantics).

    :param env: (gymnasium.Env) the environment
    :param action: the action
    :return: (obs, reward, done, info); when done, ``info["terminal_observation"]`` holds the last observation,
        ``info["TimeLimit.truncated"]`` is True for a truncation, and ``obs`` is the first observation of the next
        episode.
    """
    obs, reward, terminated, truncated, info = gym_compat.step_env(env, action)
    done = terminated or truncated
    if done:
        info = dict(info)
        info["terminal_observation"] = obs
        if truncated and not terminated:
            info["TimeLimit.truncated"] = True
        obs, _ = gym_compat.reset_env(env)
    return obs, reward, done, info


def make_vec_env_member(env_fn: Callable[[], Any], index: int) -> Any:
    """Call an env factory and adapt its result to the gymnasium API (clear error if it is not a function)."""
    if not callable(env_fn):
        raise TypeError("Vectorized environments take a list of functions that create environments "
                        "(e.g. [lambda: gym.make('CartPole-v1')]); element {} is {!r}".format(index, env_fn))
    return gym_compat.as_gymnasium_env(env_fn())


def check_same_spaces(envs_spaces: Sequence[Tuple[Any, Any]]) -> None:
    """Raise a clear error if the environments of a VecEnv do not all have compatible spaces."""
    obs_space, act_space = envs_spaces[0]
    for index, (other_obs, other_act) in enumerate(envs_spaces[1:], start=1):
        if not (gym_compat.spaces_match(obs_space, other_obs) and gym_compat.spaces_match(act_space, other_act)):
            raise ValueError("All environments of a VecEnv must have the same spaces: env 0 has observation space {} "
                             "and action space {}, env {} has {} and {}"
                             .format(obs_space, act_space, index, other_obs, other_act))


def random_seed() -> int:
    """A seed drawn from numpy's global generator (so that set_global_seeds makes it reproducible)."""
    return int(np.random.randint(0, 2 ** 31 - 1))
