"""The interface every vectorized environment implements (VecEnv), the base of their wrappers, and helpers."""
import inspect
import pickle
import warnings
from abc import ABC, abstractmethod
from typing import Any, Dict, Iterable, List, Optional, Sequence, Tuple, Union

import cloudpickle
import numpy as np

from stable_baselines.common import gym_compat
from stable_baselines.common.tile_images import tile_images
from stable_baselines.common.vec_env.single_env import has_env_attr

# Observations of all environments: an array with one row per environment, or a dict / tuple of such arrays for
# Dict / Tuple spaces. Any, so that code written for Box observations indexes it without narrowing the union.
VecEnvObs = Any
# one action per environment (an array, or any sequence of actions)
VecEnvActions = Union[np.ndarray, Sequence[Any]]
# what step() / step_wait() return: observations, rewards, dones, one info dict per environment
VecEnvStepReturn = Tuple[VecEnvObs, np.ndarray, np.ndarray, List[Dict[str, Any]]]
# which environments a call addresses: None (all), one index, or several
VecEnvIndices = Union[None, int, Iterable[int]]


def actions_per_env(actions: VecEnvActions, num_envs: int, owner: str) -> VecEnvActions:
    """
    :return: (VecEnvActions) the first ``num_envs`` of ``actions``: fewer is an error naming both numbers; more is
        warned about and the rest ignored, as the original library's VecEnvs ignored them
    """
    given = len(actions)
    if given < num_envs:
        raise ValueError("{}.step expected one action per environment ({}), got {} actions"
                         .format(owner, num_envs, given))
    if given > num_envs:
        warnings.warn("{}.step got {} actions for {} environment(s): the first {} are used, the rest ignored"
                      .format(owner, given, num_envs, num_envs))
        return actions[:num_envs]
    return actions


class AlreadySteppingError(Exception):
    """``step_async()`` was called while the previous asynchronous step has not been collected."""

    def __init__(self) -> None:
        super().__init__('already running an async step')


class NotSteppingError(Exception):
    """``step_wait()`` was called although no asynchronous step is running."""

    def __init__(self) -> None:
        super().__init__('not running an async step')


def _show_image(image: np.ndarray) -> None:
    """Put an RGB image on the screen, with OpenCV when it is installed, else with matplotlib."""
    try:
        import cv2  # pylint: disable=import-outside-toplevel
    except ImportError:
        pass
    else:
        cv2.imshow('vecenv', image[:, :, ::-1])  # OpenCV wants BGR
        cv2.waitKey(1)
        return
    try:
        import matplotlib.pyplot as plt  # pylint: disable=import-outside-toplevel
    except ImportError as err:
        raise ImportError("render(mode='human') of several environments needs opencv-python or matplotlib "
                          "to show the image") from err
    figure = plt.figure("vecenv")
    figure.clf()
    plt.imshow(image)
    plt.axis("off")
    plt.pause(0.001)


def render_env(env: Any, mode: str = "human") -> Any:
    """
    Render one environment of either API (see :func:`stable_baselines.common.gym_compat.render_env`);
    images that a gymnasium env makes in 'human' mode are put on the screen here.

    :param env: (gymnasium.Env) the environment
    :param mode: (str) 'human' or 'rgb_array'
    :return: (Any) what the environment's render returned (an image for 'rgb_array')
    """
    return gym_compat.render_env(env, mode, show=_show_image)


class VecEnv(ABC):
    """
    Several environments driven as one: actions, observations, rewards and dones carry one entry per
    environment, and an environment whose episode ends is reset at once.

    :param num_envs: (int) how many environments
    :param observation_space: (Gym Space) the observation space of one environment
    :param action_space: (Gym Space) the action space of one environment
    """
    metadata: Dict[str, Any] = {
        'render.modes': ['human', 'rgb_array']
    }

    def __init__(self, num_envs: int, observation_space: Any, action_space: Any) -> None:
        self.num_envs = num_envs
        self.observation_space = gym_compat.convert_space(observation_space)
        self.action_space = gym_compat.convert_space(action_space)

    @abstractmethod
    def reset(self) -> VecEnvObs:
        """
        Start a new episode in every environment. A step started with ``step_async`` and not collected
        is abandoned (call ``step_async`` again before ``step_wait``).

        :return: ([int] or [float]) the first observations, one per environment (a dict or tuple of
            arrays for Dict / Tuple spaces)
        """
        raise NotImplementedError()

    @abstractmethod
    def step_async(self, actions: VecEnvActions) -> None:
        """
        Send one action to each environment; the results are collected by ``step_wait()``.
        Do not call it again before they were collected.

        :param actions: ([int] or [float]) one action per environment
        """
        raise NotImplementedError()

    @abstractmethod
    def step_wait(self) -> VecEnvStepReturn:
        """
        Collect the results of the step sent by ``step_async()``.

        :return: ([int] or [float], [float], [bool], dict) observation, reward, done, information
        """
        raise NotImplementedError()

    @abstractmethod
    def close(self) -> None:
        """
        Release what the environments hold (windows, processes, files).
        """
        raise NotImplementedError()

    @abstractmethod
    def get_attr(self, attr_name: str, indices: VecEnvIndices = None) -> List[Any]:
        """
        Read an attribute of the environments.

        :param attr_name: (str) the attribute
        :param indices: (list,int) which environments (default: all)
        :return: (list) its value in each of them
        """
        raise NotImplementedError()

    @abstractmethod
    def set_attr(self, attr_name: str, value: Any, indices: VecEnvIndices = None) -> None:
        """
        Assign an attribute of the environments.

        :param attr_name: (str) the attribute
        :param value: (obj) the value given to each environment
        :param indices: (list,int) which environments (default: all)
        :return: (NoneType)
        """
        raise NotImplementedError()

    @abstractmethod
    def env_method(self, method_name: str, *method_args: Any, indices: VecEnvIndices = None,
                   **method_kwargs: Any) -> List[Any]:
        """
        Call a method of the environments.

        :param method_name: (str) the method
        :param indices: (list,int) which environments (default: all)
        :param method_args: (tuple) positional arguments of the call
        :param method_kwargs: (dict) keyword arguments of the call
        :return: (list) what the method returned in each environment
        """
        raise NotImplementedError()

    def has_attr(self, attr_name: str) -> bool:
        """
        Whether the environments define an attribute or method (asked of the first one, through its wrappers and,
        for a SubprocVecEnv, in its worker process), without reading or calling it. A VecEnv class of its own that
        does not override this answers by reading the attribute with ``get_attr``.

        :param attr_name: (str) the attribute
        :return: (bool)
        """
        try:
            self.get_attr(attr_name, indices=[0])
        except AttributeError:
            return False
        return True

    def seed(self, seed: Optional[int] = None) -> List[Union[None, int]]:
        """
        Seed the environments: environment ``i`` gets ``seed + i``.

        :param seed: (Optional[int]) the base seed (None: a random one)
        :return: (List[Union[None, int]]) what seeding returned for each environment (entries may be None)
        """
        return [None] * self.num_envs

    def step(self, actions: VecEnvActions) -> VecEnvStepReturn:
        """
        ``step_async(actions)`` followed by ``step_wait()``.

        :param actions: ([int] or [float]) one action per environment
        :return: ([int] or [float], [float], [bool], dict) observation, reward, done, information
        """
        self.step_async(actions)
        return self.step_wait()

    def get_images(self) -> Sequence[np.ndarray]:
        """
        :return: ([np.ndarray]) one RGB image per environment
        """
        raise NotImplementedError

    def render(self, mode: str = 'human') -> Optional[np.ndarray]:
        """
        Draw the images of all environments side by side in one picture.

        :param mode: (str) 'human' puts the picture on the screen, 'rgb_array' returns it
        """
        if mode not in ('human', 'rgb_array'):
            raise NotImplementedError("render mode {!r} is not supported by {} (expected 'human' or 'rgb_array')"
                                      .format(mode, type(self).__name__))
        try:
            images = self.get_images()
        except NotImplementedError:
            warnings.warn('Render not defined for {}'.format(self))
            return None
        if any(image is None for image in images):
            raise ValueError("Some environments returned no image from render(); gymnasium environments must be "
                             "created with render_mode='rgb_array' to be rendered by a VecEnv")
        picture = tile_images(images)
        if mode == 'rgb_array':
            return picture
        _show_image(picture)
        return None

    @property
    def unwrapped(self) -> 'VecEnv':
        """:return: (VecEnv) the innermost VecEnv, below every VecEnvWrapper"""
        return self

    def getattr_depth_check(self, name: str, already_found: bool) -> Optional[str]:
        """
        Tell whether a wrapper above already found ``name`` that this VecEnv also has (an ambiguous lookup).

        :param name: (str) the attribute
        :param already_found: (bool) whether a wrapper above has it
        :return: (str or None) the class of this VecEnv when its attribute would be hidden, else None
        """
        if already_found and hasattr(self, name):
            return _qualified_name(self)
        return None

    def _get_indices(self, indices: VecEnvIndices) -> List[int]:
        """
        :param indices: (None,int,Iterable) None for all environments, one index, or several
        :return: (list) the indices as a list of ints (checked against the number of environments)
        """
        if indices is None:
            return list(range(self.num_envs))
        if isinstance(indices, (int, np.integer)):
            indices = [indices]
        checked = [int(index) for index in indices]
        for index in checked:
            if not -self.num_envs <= index < self.num_envs:
                raise IndexError("env index {} out of range: this VecEnv has {} environments"
                                 .format(index, self.num_envs))
        return checked


def env_has_attr(env: Any, name: str) -> bool:
    """
    THE way the library asks whether an environment defines a method or attribute (``action_masks``,
    ``compute_reward``, ...): through every gymnasium and VecEnv wrapper and into worker processes, without
    reading or calling it, so that an error the method raises when called reaches the user instead of reading as
    "not defined".

    :param env: (gymnasium.Env or VecEnv) the environment (None: nothing is defined)
    :param name: (str) the attribute or method
    :return: (bool)
    """
    if env is None:
        return False
    if isinstance(env, VecEnv):
        return bool(env.has_attr(name))
    return has_env_attr(env, name)


def _qualified_name(obj: Any) -> str:
    return "{}.{}".format(type(obj).__module__, type(obj).__name__)


class VecEnvWrapper(VecEnv):
    """
    Base of the wrappers of a VecEnv. Everything the wrapper does not define is read from the wrapped
    VecEnv, however deep, as long as only one level of the stack has it.

    :param venv: (VecEnv) the VecEnv to wrap
    :param observation_space: (Gym Space) the observation space after wrapping (None: the wrapped one)
    :param action_space: (Gym Space) the action space after wrapping (None: the wrapped one)
    """

    def __init__(self, venv: VecEnv, observation_space: Any = None, action_space: Any = None) -> None:
        if not isinstance(venv, VecEnv):
            raise TypeError("{} expected a VecEnv to wrap (e.g. DummyVecEnv([lambda: env])), got {!r}"
                            .format(type(self).__name__, venv))
        self.venv = venv
        if observation_space is None:
            observation_space = venv.observation_space
        if action_space is None:
            action_space = venv.action_space
        VecEnv.__init__(self, num_envs=venv.num_envs, observation_space=observation_space, action_space=action_space)
        self.class_attributes = dict(inspect.getmembers(self.__class__))

    @property
    def unwrapped(self) -> VecEnv:
        return self.venv.unwrapped

    def step_async(self, actions: VecEnvActions) -> None:
        self.venv.step_async(actions)

    @abstractmethod
    def reset(self) -> VecEnvObs:
        pass

    @abstractmethod
    def step_wait(self) -> VecEnvStepReturn:
        pass

    def seed(self, seed: Optional[int] = None) -> List[Union[None, int]]:
        return self.venv.seed(seed)

    def close(self) -> None:
        return self.venv.close()

    def render(self, mode: str = 'human') -> Optional[np.ndarray]:
        return self.venv.render(mode=mode)

    def get_images(self) -> Sequence[np.ndarray]:
        return self.venv.get_images()

    def get_attr(self, attr_name: str, indices: VecEnvIndices = None) -> List[Any]:
        return self.venv.get_attr(attr_name, indices)

    def set_attr(self, attr_name: str, value: Any, indices: VecEnvIndices = None) -> None:
        return self.venv.set_attr(attr_name, value, indices)

    def has_attr(self, attr_name: str) -> bool:
        return self.venv.has_attr(attr_name)

    def env_method(self, method_name: str, *method_args: Any, indices: VecEnvIndices = None,
                   **method_kwargs: Any) -> List[Any]:
        return self.venv.env_method(method_name, *method_args, indices=indices, **method_kwargs)

    def __getattr__(self, name: str) -> Any:
        """Attributes this wrapper lacks come from the wrapped VecEnvs (an error if two levels have them)."""
        if name.startswith("__") or name in ("venv", "class_attributes"):
            raise AttributeError(name)
        hidden = self.getattr_depth_check(name, already_found=False)
        if hidden is not None:
            raise AttributeError("Error: Recursive attribute lookup for {} from {} is ambiguous and hides attribute "
                                 "from {}".format(name, _qualified_name(self), hidden))
        return self.getattr_recursive(name)

    def _get_all_attributes(self) -> Dict[str, Any]:
        """
        :return: (dict<str, object>) the attributes of this wrapper: its own and those of its class
        """
        attributes = dict(self.__dict__)
        attributes.update(self.__dict__.get("class_attributes", {}))
        return attributes

    def getattr_recursive(self, name: str) -> Any:
        """
        Look ``name`` up in this wrapper, then down the stack of wrapped VecEnvs.

        :param name: (str) the attribute
        :return: (object) its value
        """
        if name in self._get_all_attributes():
            return getattr(self, name)
        inner = self.__dict__.get("venv")
        if inner is None:
            raise AttributeError("'{}' object has no attribute '{}' (and it wraps no VecEnv)"
                                 .format(type(self).__name__, name))
        if isinstance(inner, VecEnvWrapper):
            return inner.getattr_recursive(name)  # skips a second ambiguity check
        return getattr(inner, name)

    def getattr_depth_check(self, name: str, already_found: bool) -> Optional[str]:
        """
        See :meth:`VecEnv.getattr_depth_check`; the check continues down the stack.

        :return: (str or None) the class whose attribute would be hidden, if any
        """
        here = name in self._get_all_attributes()
        if here and already_found:
            return _qualified_name(self)
        inner = self.__dict__.get("venv")
        if inner is None:
            return None
        return inner.getattr_depth_check(name, already_found or here)


class CloudpickleWrapper(object):
    """
    Makes an object travel to a subprocess with cloudpickle (lambdas and closures included), where
    multiprocessing alone would use pickle.

    :param var: (Any) the object to send
    """

    def __init__(self, var: Any) -> None:
        self.var = var

    def __getstate__(self) -> bytes:
        return cloudpickle.dumps(self.var)

    def __setstate__(self, obs: bytes) -> None:
        self.var = pickle.loads(obs)
