"""
The one module through which Stable Baselines talks to environments.

``gymnasium`` is the environment library. Users also bring legacy gym-style environments
(``reset()`` returning only the observation, ``step()`` returning ``(obs, reward, done, info)``,
spaces from the old ``gym`` package, ``env.seed()``), and old model files hold pickled
``gym.spaces`` objects. Everything that differs between the two APIs is handled here; the
rest of the library calls :func:`reset_env`, :func:`step_env`, :func:`convert_space` and
:func:`make_env` and never needs to know which API an environment speaks. A wrapper that must answer
in the API of the env it wraps (``Monitor``) uses :func:`reset_with_api` / :func:`step_with_api`,
whose results can be turned back into that API.
"""
import inspect
import warnings
import weakref
from typing import Any, Dict, List, NamedTuple, Optional, Tuple, overload

import gymnasium
import numpy as np
from gymnasium import spaces

# ids of the original library's era that gymnasium renamed (same dynamics for our purpose)
OLD_ENV_IDS = {
    "Pendulum-v0": "Pendulum-v1",
    "LunarLander-v2": "LunarLander-v3",
    "LunarLanderContinuous-v2": "LunarLanderContinuous-v3",
    "BipedalWalker-v2": "BipedalWalker-v3",
    "BipedalWalkerHardcore-v2": "BipedalWalkerHardcore-v3",
    "CarRacing-v0": "CarRacing-v3",
}

# MuJoCo tasks of the mujoco-py era: gymnasium still lists their ids, but they need mujoco-py, which does
# not install on today's Python; the same tasks on the maintained ``mujoco`` bindings are the -v5 ids.
MUJOCO_PY_ENV_IDS = {
    "{}-{}".format(name, version): "{}-v5".format(name)
    for name in ("Ant", "HalfCheetah", "Hopper", "Humanoid", "HumanoidStandup", "InvertedDoublePendulum",
                 "InvertedPendulum", "Pusher", "Reacher", "Swimmer", "Walker2d")
    for version in ("v1", "v2", "v3")
}


def make_env(env_id: str, **kwargs: Any) -> gymnasium.Env:
    """
    Create an environment from its id with ``gymnasium.make``. Ids of the original library's era
    that gymnasium renamed (``Pendulum-v0``, ``LunarLander-v2``, ...) are mapped, with a warning.

    :param env_id: (str) the environment id
    :param kwargs: passed to ``gymnasium.make``
    :return: (gymnasium.Env)
    """
    if not isinstance(env_id, str):
        raise TypeError("Expected an environment id (str), got {!r} of type {}".format(env_id, type(env_id).__name__))
    if env_id not in gymnasium.registry:
        _register_atari_games()
    if (env_id in OLD_ENV_IDS and env_id not in gymnasium.registry) or env_id in MUJOCO_PY_ENV_IDS:
        new_id = OLD_ENV_IDS.get(env_id) or MUJOCO_PY_ENV_IDS[env_id]
        warnings.warn("Environment id '{}' is not available in today's gymnasium (renamed, or it needs mujoco-py); "
                      "using '{}'".format(env_id, new_id))
        env_id = new_id
    try:
        return gymnasium.make(env_id, **kwargs)
    except gymnasium.error.Error as err:
        raise ValueError("Could not create environment '{}' with gymnasium.make: {}".format(env_id, err)) from err


def _register_atari_games() -> None:
    """
    Register ale-py's games (``PongNoFrameskip-v4``, ``ALE/Pong-v5``, ...) with gymnasium when ale-py
    is installed (the ``atari`` extra). Only called for an id gymnasium does not know yet.
    """
    try:
        import ale_py  # pylint: disable=import-outside-toplevel
    except ImportError:
        return
    if not any(name.startswith("ALE/") for name in gymnasium.registry):
        gymnasium.register_envs(ale_py)


# ----------------------------------------------------------------------------------------------
# spaces
# ----------------------------------------------------------------------------------------------
def _field(space: Any, name: str, default: Any = None) -> Any:
    value = getattr(space, name, default)
    if value is default and isinstance(getattr(space, "__dict__", None), dict):
        value = space.__dict__.get(name, default)
    return value


def space_from_state(kind: str, state: Dict[str, Any]) -> spaces.Space:
    """
    Build a gymnasium space from the attributes of a space of the old ``gym`` package
    (as found in the pickled state of model files written by the original library).

    :param kind: (str) the old class name: 'Box', 'Discrete', 'MultiDiscrete', 'MultiBinary', 'Tuple', 'Dict'
    :param state: (dict) the old object's attributes (``low``, ``high``, ``shape``, ``dtype``, ``n``, ...)
    :return: (gymnasium.spaces.Space)
    """
    if kind == "Box":
        dtype = np.dtype(state.get("dtype") or np.float32)
        low = np.asarray(state["low"], dtype=dtype)
        high = np.asarray(state["high"], dtype=dtype)
        shape = state.get("shape") or low.shape
        return spaces.Box(low=low.reshape(shape) if low.shape else low, high=high.reshape(shape) if high.shape else high,
                          shape=tuple(shape), dtype=dtype)
    if kind == "Discrete":
        return spaces.Discrete(int(state["n"]), start=int(state.get("start", 0) or 0))
    if kind == "MultiDiscrete":
        return spaces.MultiDiscrete(np.asarray(state["nvec"]))
    if kind == "MultiBinary":
        return spaces.MultiBinary(state["n"])
    if kind == "Tuple":
        return spaces.Tuple([convert_space(s) for s in state["spaces"]])
    if kind == "Dict":
        return spaces.Dict({key: convert_space(s) for key, s in dict(state["spaces"]).items()})
    raise ValueError("Cannot rebuild an old gym space of type '{}' (expected Box, Discrete, MultiDiscrete, "
                     "MultiBinary, Tuple or Dict)".format(kind))


@overload
def convert_space(space: spaces.Space) -> spaces.Space:
    ...


@overload
def convert_space(space: None) -> None:
    ...


@overload
def convert_space(space: Any) -> spaces.Space:
    ...


def convert_space(space: Any) -> Optional[spaces.Space]:
    """
    Return ``space`` as a gymnasium space. gymnasium spaces are returned unchanged; spaces of the
    old ``gym`` package (or any object with the same class name and fields) are rebuilt.

    :param space: (gymnasium.spaces.Space or gym.spaces.Space)
    :return: (gymnasium.spaces.Space)
    """
    if space is None or isinstance(space, spaces.Space):
        return space
    kind = type(space).__name__
    if kind in ("Box", "Discrete", "MultiDiscrete", "MultiBinary", "Tuple", "Dict"):
        state = {name: _field(space, name) for name in ("low", "high", "shape", "dtype", "n", "nvec", "start", "spaces")}
        if kind == "Box" and state["dtype"] is None:
            state["dtype"] = np.asarray(state["low"]).dtype
        return space_from_state(kind, state)
    raise TypeError("Expected a gymnasium (or gym) space, got {!r} of type {}".format(space, type(space).__name__))


_SPACE_KINDS = (spaces.Box, spaces.Discrete, spaces.MultiDiscrete, spaces.MultiBinary, spaces.Dict, spaces.Tuple)


def _space_kind(space: Any) -> Any:
    for kind in _SPACE_KINDS:
        if isinstance(space, kind):
            return kind
    return type(space)


def space_generator(space: Any) -> Optional[np.random.Generator]:
    """
    :param space: (gymnasium.spaces.Space) a space
    :return: (np.random.Generator) the generator the space has made so far (None: it has neither sampled nor been
        seeded yet; reading ``space.np_random`` would make one)
    """
    generator = getattr(space, "_np_random", None)
    return generator if isinstance(generator, np.random.Generator) else None


def spaces_match(space_a: Any, space_b: Any, dtype_kind_only: bool = False) -> bool:
    """
    Whether two spaces are interchangeable: same kind, shape, dtype and sizes (``n``, ``nvec``,
    ``start``, Dict keys / Tuple parts, recursively). Bounds are not compared, as the original did
    not (saved CartPole bounds are float32-max where gymnasium has inf).

    :param space_a: (gymnasium.spaces.Space)
    :param space_b: (gymnasium.spaces.Space)
    :param dtype_kind_only: (bool) compare only the kind of the dtypes (float / int / uint), e.g. a
        float64 env for a model saved with float32 observations
    :return: (bool)
    """
    if _space_kind(space_a) is not _space_kind(space_b):
        return False
    if isinstance(space_a, spaces.Dict):
        return (list(space_a.spaces.keys()) == list(space_b.spaces.keys())
                and all(spaces_match(space_a[k], space_b[k], dtype_kind_only) for k in space_a.spaces.keys()))
    if isinstance(space_a, spaces.Tuple):
        return (len(space_a.spaces) == len(space_b.spaces)
                and all(spaces_match(a, b, dtype_kind_only) for a, b in zip(space_a.spaces, space_b.spaces)))
    if getattr(space_a, "shape", None) != getattr(space_b, "shape", None):
        return False
    dtype_a, dtype_b = getattr(space_a, "dtype", None), getattr(space_b, "dtype", None)
    if dtype_kind_only and dtype_a is not None and dtype_b is not None:
        if np.dtype(dtype_a).kind != np.dtype(dtype_b).kind:
            return False
    elif dtype_a != dtype_b:
        return False
    if isinstance(space_a, spaces.Discrete):
        return int(space_a.n) == int(space_b.n) and int(space_a.start) == int(space_b.start)
    if isinstance(space_a, spaces.MultiDiscrete):
        return np.array_equal(space_a.nvec, space_b.nvec)
    return True


# ----------------------------------------------------------------------------------------------
# reset / step in either API
# ----------------------------------------------------------------------------------------------
def _accepts_kwarg(func: Any, name: str) -> bool:
    try:
        params = inspect.signature(func).parameters
    except (TypeError, ValueError):
        return False
    return name in params or any(p.kind == inspect.Parameter.VAR_KEYWORD for p in params.values())


def _is_new_style_reset(result: Any, env: Any) -> bool:
    if not (isinstance(result, tuple) and len(result) == 2 and isinstance(result[1], dict)):
        return False
    # The one ambiguous case: a 2-element Tuple observation space whose second part is a Dict.
    # Ask the space which reading is a valid observation.
    obs_space = getattr(env, "observation_space", None)
    if isinstance(obs_space, spaces.Tuple) and len(obs_space.spaces) == 2:
        try:
            whole_is_obs = obs_space.contains(result)
            first_is_obs = obs_space.contains(result[0])
        except Exception:  # pylint: disable=broad-except
            return isinstance(env, gymnasium.Env)
        if whole_is_obs != first_is_obs:
            return first_is_obs
        return isinstance(env, gymnasium.Env)
    return True


# Seeds given to gymnasium envs the legacy way (``env.seed(seed)``), waiting for the env's next reset_env.
_PENDING_SEEDS: "weakref.WeakKeyDictionary[Any, int]" = weakref.WeakKeyDictionary()


def seed_on_next_reset(env: Any, seed: int) -> None:
    """
    Seed an environment the way gym's ``env.seed(seed)`` did: nothing is reset now, and the next episode starts
    as after ``reset(seed=seed)``. A legacy env with a ``seed()`` method gets it called at once; a gymnasium env
    (which has no ``seed()``) keeps the seed until its next reset through :func:`reset_env` (the library resets
    envs only through it). An env that cannot be weakly referenced is reset with the seed at once.

    :param env: (gymnasium.Env or legacy gym-style env)
    :param seed: (int) the seed
    """
    if callable(getattr(env, "seed", None)):
        env.seed(int(seed))
        return
    try:
        _PENDING_SEEDS[env] = int(seed)
    except TypeError:
        reset_env(env, seed=seed)


class ResetResult(NamedTuple):
    """
    What an environment's ``reset()`` returned, whichever API it speaks.

    :param obs: the first observation
    :param info: (dict) the reset info (empty for a legacy env)
    :param legacy: (bool) whether the env answered in the legacy API (the observation alone)
    """
    obs: Any
    info: dict
    legacy: bool

    def in_own_api(self) -> Any:
        """:return: the answer in the API the env spoke: ``obs`` (legacy) or ``(obs, info)`` (gymnasium)"""
        return self.obs if self.legacy else (self.obs, self.info)


class StepResult(NamedTuple):
    """
    What an environment's ``step()`` returned, whichever API it speaks, read as gymnasium's five values.

    :param obs: the next observation
    :param reward: the reward, as the env gave it
    :param terminated: (bool) the episode reached a terminal state
    :param truncated: (bool) the episode was cut (time limit)
    :param info: (dict) the step info
    :param legacy: (bool) whether the env answered in the legacy API (four values)
    """
    obs: Any
    reward: Any
    terminated: bool
    truncated: bool
    info: dict
    legacy: bool

    def in_gymnasium_api(self) -> Tuple[Any, Any, bool, bool, dict]:
        """:return: ``(obs, reward, terminated, truncated, info)``"""
        return self.obs, self.reward, self.terminated, self.truncated, self.info

    def in_legacy_api(self) -> Tuple[Any, Any, bool, dict]:
        """
        :return: ``(obs, reward, done, info)``; a truncation is marked with ``info["TimeLimit.truncated"]``
            as gym's TimeLimit did (a copy of ``info`` is made only when the key has to be added)
        """
        info = self.info
        if self.truncated and not self.terminated and "TimeLimit.truncated" not in info:
            info = dict(info, **{"TimeLimit.truncated": True})
        return self.obs, self.reward, self.terminated or self.truncated, info

    def in_own_api(self) -> tuple:
        """:return: the answer in the API the env spoke (four or five values)"""
        return self.in_legacy_api() if self.legacy else self.in_gymnasium_api()


def _pop_pending_seed(env: Any) -> Optional[int]:
    if not _PENDING_SEEDS:  # the common case, checked without making a weak reference to ``env``
        return None
    try:
        return _PENDING_SEEDS.pop(env, None)
    except TypeError:  # not weakly referenceable: never pending
        return None


def reset_with_api(env: Any, seed: Optional[int] = None, options: Optional[dict] = None,
                   **kwargs: Any) -> ResetResult:
    """
    Reset an environment of either API and tell which API it answered in.

    :param env: (gymnasium.Env or legacy gym-style env)
    :param seed: (int) seed for the environment's random generator (None: the seed left by
        :func:`seed_on_next_reset`, if any, else do not reseed); a legacy env gets ``env.seed(seed)``
    :param options: (dict) gymnasium reset options (ignored by envs whose ``reset`` does not take them)
    :param kwargs: other keywords, passed to ``env.reset`` as they are
    :return: (ResetResult) observation, info and whether the answer was in the legacy API
    """
    pending = _pop_pending_seed(env)
    if seed is None:
        seed = pending
    if isinstance(env, LegacyEnvAdapter):
        obs, info = env.reset(seed=seed, options=options, **kwargs)
        return ResetResult(obs, info, env.speaks_legacy_api)
    if seed is not None:
        if _accepts_kwarg(env.reset, "seed"):
            kwargs["seed"] = int(seed)
        elif hasattr(env, "seed"):
            env.seed(int(seed))
    if options is not None and _accepts_kwarg(env.reset, "options"):
        kwargs["options"] = options
    answer = env.reset(**kwargs)
    if _is_new_style_reset(answer, env):
        return ResetResult(answer[0], answer[1], False)
    return ResetResult(answer, {}, True)


def step_with_api(env: Any, action: Any) -> StepResult:
    """
    Step an environment of either API and tell which API it answered in.

    For a legacy 4-value answer, ``truncated`` is ``info.get("TimeLimit.truncated", False)`` when the episode
    is done, and ``terminated`` is ``done`` without it.

    :param env: (gymnasium.Env or legacy gym-style env)
    :param action: the action
    :return: (StepResult)
    """
    if isinstance(env, LegacyEnvAdapter):
        obs, reward, terminated, truncated, info = env.step(action)
        return StepResult(obs, reward, terminated, truncated, info, env.speaks_legacy_api)
    return read_step_answer(env.step(action))


def read_step_answer(answer: Any) -> StepResult:
    """
    Read what the ``step()`` of an environment (not a :class:`LegacyEnvAdapter`) returned, in either API.

    :param answer: (tuple) five gymnasium values or the four legacy ones
    :return: (StepResult) see :func:`step_with_api`
    """
    if not isinstance(answer, tuple) or len(answer) not in (4, 5):
        given = "a tuple of length {}".format(len(answer)) if isinstance(answer, tuple) else type(answer).__name__
        raise ValueError("env.step() must return (obs, reward, terminated, truncated, info) or the legacy "
                         "(obs, reward, done, info); got {}".format(given))
    if len(answer) == 5:
        obs, reward, terminated, truncated, info = answer
        return StepResult(obs, reward, bool(terminated), bool(truncated), info if info is not None else {}, False)
    obs, reward, done, info = answer
    info = info if info is not None else {}
    truncated = bool(done) and bool(info.get("TimeLimit.truncated", False))
    return StepResult(obs, reward, bool(done) and not truncated, truncated, info, True)


def reset_env(env: Any, seed: Optional[int] = None, options: Optional[dict] = None) -> Tuple[Any, dict]:
    """
    Reset an environment of either API.

    :param env: (gymnasium.Env or legacy gym-style env)
    :param seed: (int) seed for the environment's random generator (None: the seed left by
        :func:`seed_on_next_reset`, if any, else do not reseed)
    :param options: (dict) gymnasium reset options (ignored by legacy envs)
    :return: (Any, dict) the first observation and the reset info (empty for legacy envs)
    """
    result = reset_with_api(env, seed=seed, options=options)
    return result.obs, result.info


def step_env(env: Any, action: Any) -> Tuple[Any, float, bool, bool, dict]:
    """
    Step an environment of either API.

    :param env: (gymnasium.Env or legacy gym-style env)
    :param action: the action
    :return: (obs, reward, terminated, truncated, info) as in gymnasium. For a legacy 4-tuple env,
        ``truncated`` is ``info.get("TimeLimit.truncated", False)`` and ``terminated`` is ``done``
        without it.
    """
    answer = env.step(action)
    # the common case first: five values (a LegacyEnvAdapter always answers so, with bools and a dict)
    if type(answer) is tuple and len(answer) == 5:  # noqa: E721
        obs, reward, terminated, truncated, info = answer
        return obs, reward, bool(terminated), bool(truncated), {} if info is None else info
    return read_step_answer(answer).in_gymnasium_api()


class LegacyEnvAdapter(gymnasium.Env):
    """
    Present any environment (legacy gym-style or gymnasium) through the gymnasium API:
    ``reset(seed=, options=) -> (obs, info)``, ``step(a) -> (obs, reward, terminated, truncated, info)``,
    gymnasium spaces. Attributes not defined here are read from the wrapped env.

    :param env: (Any) the environment to adapt
    """

    def __init__(self, env: Any) -> None:
        self.env = env
        self.observation_space = convert_space(env.observation_space)
        self.action_space = convert_space(env.action_space)
        self.metadata = getattr(env, "metadata", {}) or {}
        self.render_mode = getattr(env, "render_mode", None)
        self.reward_range = getattr(env, "reward_range", (-float("inf"), float("inf")))
        spec = getattr(env, "spec", None)
        self.spec = spec if isinstance(spec, gymnasium.envs.registration.EnvSpec) else None
        # whether the wrapped env answered its last reset() / step() in the legacy API
        self.speaks_legacy_api = True

    def reset(self, *, seed: Optional[int] = None, options: Optional[dict] = None,
              **kwargs: Any) -> Tuple[Any, Dict[str, Any]]:
        if seed is not None:
            self.action_space.seed(seed)
        result = reset_with_api(self.env, seed=seed, options=options, **kwargs)
        self.speaks_legacy_api = result.legacy
        return result.obs, result.info

    def step(self, action: Any) -> Tuple[Any, Any, bool, bool, dict]:
        result = step_with_api(self.env, action)
        self.speaks_legacy_api = result.legacy
        return result.in_gymnasium_api()

    def render(self, *args: Any, **kwargs: Any) -> Any:
        return self.env.render(*args, **kwargs)

    def close(self) -> None:
        if hasattr(self.env, "close"):
            self.env.close()

    def seed(self, seed: Optional[int] = None) -> Any:
        """Legacy seeding: forwarded to the wrapped env if it has ``seed()``."""
        if hasattr(self.env, "seed"):
            return self.env.seed(seed)
        return [seed]

    @property
    def unwrapped(self) -> Any:
        return getattr(self.env, "unwrapped", self.env)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") or name == "env":
            raise AttributeError(name)
        return getattr(self.env, name)

    def __repr__(self) -> str:
        return "<LegacyEnvAdapter{}>".format(self.env)


def is_legacy_env(env: Any) -> bool:
    """:return: (bool) whether ``env`` is not a gymnasium.Env or has spaces that are not gymnasium spaces"""
    if not isinstance(env, gymnasium.Env):
        return True
    return not (isinstance(env.observation_space, spaces.Space) and isinstance(env.action_space, spaces.Space))


def as_gymnasium_env(env: Any) -> gymnasium.Env:
    """
    Return an environment that follows the gymnasium API: a string id is created with
    :func:`make_env`; a gymnasium env is returned as it is; anything else (a legacy gym-style env)
    is wrapped in a :class:`LegacyEnvAdapter`.

    :param env: (str or gymnasium.Env or legacy env)
    :return: (gymnasium.Env)
    """
    if isinstance(env, str):
        return make_env(env)
    for method in ("reset", "step"):
        if not callable(getattr(env, method, None)):
            raise TypeError("Expected an environment with reset() and step() (or an env id string), got {!r}"
                            .format(env))
    if not (hasattr(env, "observation_space") and hasattr(env, "action_space")):
        raise TypeError("The environment {!r} must define observation_space and action_space".format(env))
    if is_legacy_env(env):
        return LegacyEnvAdapter(env)
    return env


# ----------------------------------------------------------------------------------------------
# rendering in either API
# ----------------------------------------------------------------------------------------------
def env_layers(env: Any) -> List[Any]:
    """``env``, then what it wraps (the ``env`` attribute of gymnasium wrappers and of the legacy adapter)."""
    layers: List[Any] = []
    while env is not None and len(layers) < 100 and not any(env is seen for seen in layers):
        layers.append(env)
        env = env.__dict__.get("env") if hasattr(env, "__dict__") else None
    return layers


def _takes_mode(render: Any, any_keyword: bool) -> bool:
    try:
        params = inspect.signature(render).parameters
    except (TypeError, ValueError):
        return False
    if "mode" in params:
        return True
    return any_keyword and any(p.kind == inspect.Parameter.VAR_KEYWORD for p in params.values())


def legacy_env_of(env: Any) -> Optional[Any]:
    """
    :param env: (gymnasium.Env) an environment, possibly wrapped
    :return: (Any) the legacy gym-style env adapted somewhere in the wrappers of ``env``, or None
    """
    for layer in env_layers(env):
        if isinstance(layer, LegacyEnvAdapter):
            return layer.env
    return None


def render_taking_mode(env: Any) -> Optional[Any]:
    """
    Old-API environments choose the render mode per call (``render(mode='rgb_array')``); gymnasium
    environments render in the ``render_mode`` they were created with.

    :param env: (gymnasium.Env) an environment, possibly wrapped
    :return: (callable or None) the ``render`` method of the outermost layer that takes the mode as an
        argument, None if no layer does
    """
    outer = None
    for layer in env_layers(env):
        adapted, outer = isinstance(outer, LegacyEnvAdapter), layer
        if isinstance(layer, LegacyEnvAdapter):
            continue  # its render forwards anything: look at the env it adapts
        render = getattr(layer, "render", None)
        # a legacy env whose render takes **kwargs got the mode before: it still does
        if callable(render) and _takes_mode(render, any_keyword=adapted):
            return render
    return None


def render_env(env: Any, mode: str = "human", show: Optional[Any] = None) -> Any:
    """
    Render one environment of either API.

    An environment whose ``render`` takes the mode (the old gym API) is called with ``mode=mode``. A
    gymnasium environment renders in the ``render_mode`` it was created with: ``mode='rgb_array'`` needs
    ``render_mode='rgb_array'`` (or ``'rgb_array_list'``, whose last frame is returned), and
    ``mode='human'`` on an environment that only makes images hands the image to ``show``.

    :param env: (gymnasium.Env) the environment (possibly wrapping a legacy env)
    :param mode: (str) 'human' or 'rgb_array'
    :param show: (callable) displays an image (``show(image)``), for 'human' on an image-only env
    :return: (Any) what the environment's render returned (an image for 'rgb_array'), None when shown
    """
    render = render_taking_mode(env)
    if render is not None:
        return render(mode=mode)
    legacy = legacy_env_of(env)
    if legacy is not None:
        if mode != "human":
            raise TypeError("Cannot render {} in mode {!r}: its render() takes no mode argument".format(legacy, mode))
        return legacy.render()
    render_mode = getattr(env, "render_mode", None)
    if mode == "rgb_array" and render_mode not in ("rgb_array", "rgb_array_list"):
        raise ValueError("Cannot get an 'rgb_array' image from {}: gymnasium environments render in the mode they "
                         "were created with, and this one has render_mode={!r}. Create it with "
                         "gymnasium.make(env_id, render_mode='rgb_array').".format(env, render_mode))
    image = env.render()
    if render_mode == "rgb_array_list" and isinstance(image, list):
        image = image[-1] if image else None
    if mode == "human" and render_mode in ("rgb_array", "rgb_array_list") and image is not None and show is not None:
        show(np.asarray(image))
        return None
    return image


__all__ = ["OLD_ENV_IDS", "make_env", "space_from_state", "convert_space", "spaces_match", "reset_env",
           "seed_on_next_reset", "step_env", "ResetResult", "StepResult", "reset_with_api", "step_with_api",
           "read_step_answer",
           "LegacyEnvAdapter", "is_legacy_env", "as_gymnasium_env", "env_layers", "legacy_env_of",
           "render_taking_mode", "render_env", "gymnasium", "spaces"]
