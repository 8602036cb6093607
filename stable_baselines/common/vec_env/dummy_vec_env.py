"""DummyVecEnv: several environments stepped one after the other in the current process."""
import inspect
from collections import OrderedDict
from copy import deepcopy
from typing import Any, Callable, List, Optional, Sequence, Tuple

import numpy as np

from stable_baselines.common import gym_compat
from stable_baselines.common.vec_env.base_vec_env import VecEnv, render_env, _find_legacy_adapter
from stable_baselines.common.vec_env.util import copy_obs_dict, dict_to_obs, obs_space_info

_MISSING = object()


# ----------------------------------------------------------------------------------------------
# per-environment operations shared by DummyVecEnv and the SubprocVecEnv workers
# ----------------------------------------------------------------------------------------------
def _wrapper_chain(env: Any) -> List[Any]:
    """The env, then the objects it wraps (following ``.env`` of gymnasium wrappers and of the legacy adapter)."""
    chain = []
    while env is not None and len(chain) < 100 and not any(env is seen for seen in chain):
        chain.append(env)
        env = env.__dict__.get("env") if hasattr(env, "__dict__") else None
    return chain


def _owner_of(env: Any, name: str) -> Any:
    """The first object of the wrapper chain that defines ``name`` (without triggering ``__getattr__``)."""
    for obj in _wrapper_chain(env):
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


def set_env_attr(env: Any, name: str, value: Any) -> None:
    """
    Set an attribute of an environment: on the first wrapper that defines it, else on the innermost env.

    :param env: (gymnasium.Env) the environment
    :param name: (str) attribute name
    :param value: (Any) new value
    """
    owner = _owner_of(env, name)
    if owner is None:
        owner = _wrapper_chain(env)[-1]
    setattr(owner, name, value)


def call_env_method(env: Any, name: str, *args, **kwargs) -> Any:
    """
    Call a method of an environment, looking through gymnasium wrappers and the legacy adapter.

    :param env: (gymnasium.Env) the environment
    :param name: (str) method name
    :return: (Any) the method's return value
    """
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
    legacy = _find_legacy_adapter(env)
    if legacy is not None and callable(getattr(legacy.env, "seed", None)):
        return legacy.env.seed(seed), None
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


class DummyVecEnv(VecEnv):
    """
    Creates a simple vectorized wrapper for multiple environments, calling each environment in sequence on the current
    Python process. This is useful for computationally simple environment such as ``cartpole-v1``, as the overhead of
    multiprocess or multithread outweighs the environment computation time. This can also be used for RL methods that
    require a vectorized environment, but that you want a single environments to train with.

    Environments may follow the gymnasium API or the legacy gym API (``reset()`` returning only the observation,
    ``step()`` returning 4 values); both are adapted by ``stable_baselines.common.gym_compat``.

    :param env_fns: ([callable]) A list of functions that will create the environments
        (each callable returns a `Gym.Env` instance when called).
    """

    def __init__(self, env_fns: List[Callable[[], Any]]):
        if callable(env_fns) or not hasattr(env_fns, "__len__") or len(env_fns) == 0:
            raise TypeError("DummyVecEnv expected a non-empty list of functions that create environments "
                            "(e.g. [lambda: env]), got {!r}".format(env_fns))
        self.envs = [make_vec_env_member(env_fn, index) for index, env_fn in enumerate(env_fns)]
        check_same_spaces([(env.observation_space, env.action_space) for env in self.envs])
        env = self.envs[0]
        VecEnv.__init__(self, len(env_fns), env.observation_space, env.action_space)
        obs_space = self.observation_space
        self.keys, shapes, dtypes = obs_space_info(obs_space)

        self.buf_obs = OrderedDict([
            (k, np.zeros((self.num_envs,) + tuple(shapes[k]), dtype=dtypes[k]))
            for k in self.keys])
        self.buf_dones = np.zeros((self.num_envs,), dtype=bool)
        self.buf_rews = np.zeros((self.num_envs,), dtype=np.float32)
        self.buf_infos = [{} for _ in range(self.num_envs)]
        self.reset_infos = [{} for _ in range(self.num_envs)]
        self.actions = None
        self.metadata = env.metadata
        self._seeds = [None] * self.num_envs

    def step_async(self, actions):
        if len(actions) != self.num_envs:
            raise ValueError("DummyVecEnv.step expected one action per environment ({}), got {} actions"
                             .format(self.num_envs, len(actions)))
        self.actions = actions

    def step_wait(self):
        if self.actions is None:
            raise RuntimeError("DummyVecEnv.step_wait() called without a pending step_async(actions)")
        single = self._single_obs_buf
        buf_rews, buf_dones, buf_infos, actions = self.buf_rews, self.buf_dones, self.buf_infos, self.actions
        for env_idx, env in enumerate(self.envs):
            obs, reward, done, info = step_env_auto_reset(env, actions[env_idx])
            buf_rews[env_idx] = reward
            buf_dones[env_idx] = done
            buf_infos[env_idx] = info
            # plain array observations of the right shape go straight into the buffer
            if single is not None and type(obs) is np.ndarray and obs.shape == single.shape[1:]:  # noqa: E721
                single[env_idx] = obs
            else:
                self._save_obs(env_idx, obs)
        self.actions = None
        # infos are deep-copied (empty ones need no copy machinery)
        infos = [deepcopy(info) if info else {} for info in buf_infos]
        return self._obs_from_buf(), np.copy(buf_rews), np.copy(buf_dones), infos

    def seed(self, seed: Optional[int] = None) -> List[Any]:
        if seed is None:
            seed = random_seed()
        results = []
        for idx, env in enumerate(self.envs):
            result, pending = seed_env(env, seed + idx)
            self._seeds[idx] = pending
            results.append(result)
        return results

    def reset(self):
        for env_idx in range(self.num_envs):
            obs, self.reset_infos[env_idx] = gym_compat.reset_env(self.envs[env_idx], seed=self._seeds[env_idx])
            self._save_obs(env_idx, obs)
        self._seeds = [None] * self.num_envs
        return self._obs_from_buf()

    def close(self):
        for env in self.envs:
            env.close()

    def get_images(self) -> Sequence[np.ndarray]:
        return [render_env(env, 'rgb_array') for env in self.envs]

    def render(self, mode: str = 'human'):
        """
        Gym environment rendering. If there are multiple environments then
        they are tiled together in one image via `BaseVecEnv.render()`.
        Otherwise (if `self.num_envs == 1`), we pass the render call directly to the
        underlying environment.

        Therefore, some arguments such as `mode` will have values that are valid
        only when `num_envs == 1`.

        :param mode: The rendering type.
        """
        if self.num_envs == 1:
            return render_env(self.envs[0], mode)
        return super().render(mode=mode)

    def _save_obs(self, env_idx: int, obs: Any) -> None:
        for key in self.keys:
            value = obs if key is None else obs[key]
            target = self.buf_obs[key]
            value = np.asarray(value)
            if value.shape != target.shape[1:]:
                if value.size != int(np.prod(target.shape[1:])):
                    raise ValueError("Environment {} returned an observation{} of shape {}, but the observation space "
                                     "{} expects shape {}".format(env_idx, "" if key is None else " [{!r}]".format(key),
                                                                  value.shape, self.observation_space,
                                                                  target.shape[1:]))
                value = value.reshape(target.shape[1:])
            target[env_idx] = value

    @property
    def _single_obs_buf(self) -> Optional[np.ndarray]:
        """The observation buffer when the observation space is not a Dict/Tuple space (else None)."""
        if self.keys == [None]:
            return self.buf_obs[None]
        return None

    def _obs_from_buf(self):
        single = self._single_obs_buf
        if single is not None:
            return np.copy(single)
        return dict_to_obs(self.observation_space, copy_obs_dict(self.buf_obs))

    def get_attr(self, attr_name, indices=None):
        """Return attribute from vectorized environment (see base class)."""
        target_envs = self._get_target_envs(indices)
        return [get_env_attr(env_i, attr_name) for env_i in target_envs]

    def set_attr(self, attr_name, value, indices=None):
        """Set attribute inside vectorized environments (see base class)."""
        target_envs = self._get_target_envs(indices)
        for env_i in target_envs:
            set_env_attr(env_i, attr_name, value)

    def env_method(self, method_name, *method_args, indices=None, **method_kwargs):
        """Call instance methods of vectorized environments."""
        target_envs = self._get_target_envs(indices)
        return [call_env_method(env_i, method_name, *method_args, **method_kwargs) for env_i in target_envs]

    def _get_target_envs(self, indices):
        indices = self._get_indices(indices)
        return [self.envs[i] for i in indices]
