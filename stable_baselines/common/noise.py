"""
Exploration noise for the continuous-action off-policy algorithms (DDPG, TD3, SAC).

Two kinds: noise added to the actions (:class:`NormalActionNoise`, uncorrelated Gaussian;
:class:`OrnsteinUhlenbeckActionNoise`, correlated in time) and the scale of the noise added to the policy's
parameters, adapted to a target distance in action space (:class:`AdaptiveParamNoiseSpec`, Plappert et al., 2017,
https://arxiv.org/abs/1706.01905).

Model files pickle these objects: their instance attributes (``_mu``, ``_sigma``, ``_theta``, ``_dt``,
``initial_noise``, ``noise_prev``, ``initial_stddev``, ``current_stddev``, ...) are exactly those of the original
classes, the ones the safe loader accepts (it reads the old ``stable_baselines.ddpg.noise`` paths too).
"""
from abc import ABC, abstractmethod
from typing import Any, Dict, Optional, cast

import numpy as np


def _check_positive_scalar(name: str, value: Any) -> None:
    if isinstance(value, bool) or not np.isscalar(value) or not np.isreal(value) or not cast(float, value) > 0:
        raise ValueError("{} must be a float > 0, got {!r}".format(name, value))


def _check_scale(sigma: Any, meaning: str) -> None:
    if np.any(np.asarray(sigma) < 0):
        raise ValueError("sigma ({}) must be >= 0, got {!r}".format(meaning, sigma))


class AdaptiveParamNoiseSpec(object):
    """
    The standard deviation of parameter-space noise, adapted so that the perturbed policy's actions stay about
    ``desired_action_stddev`` away from the unperturbed policy's.

    :param initial_stddev: (float) the standard deviation to start from
    :param desired_action_stddev: (float) the distance in action space aimed at
    :param adoption_coefficient: (float) the factor the standard deviation is multiplied or divided by at each
        adaptation
    """

    def __init__(self, initial_stddev: float = 0.1, desired_action_stddev: float = 0.1,
                 adoption_coefficient: float = 1.01) -> None:
        _check_positive_scalar("initial_stddev", initial_stddev)
        _check_positive_scalar("desired_action_stddev", desired_action_stddev)
        _check_positive_scalar("adoption_coefficient", adoption_coefficient)
        self.initial_stddev = initial_stddev
        self.desired_action_stddev = desired_action_stddev
        self.adoption_coefficient = adoption_coefficient
        self.current_stddev = initial_stddev

    def adapt(self, distance: float) -> None:
        """
        Shrink the standard deviation (divide by ``adoption_coefficient``) when the perturbed actions were
        further than ``desired_action_stddev``, grow it (multiply) otherwise.

        :param distance: (float) the measured distance between perturbed and unperturbed actions
        """
        too_far = distance > self.desired_action_stddev
        if too_far:
            self.current_stddev /= self.adoption_coefficient
        else:
            self.current_stddev *= self.adoption_coefficient

    def get_stats(self) -> Dict[str, float]:
        """
        :return: (dict) ``{'param_noise_stddev': current standard deviation}``, for the logger
        """
        return {"param_noise_stddev": self.current_stddev}

    def __repr__(self) -> str:
        return "AdaptiveParamNoiseSpec(initial_stddev={}, desired_action_stddev={}, adoption_coefficient={})".format(
            self.initial_stddev, self.desired_action_stddev, self.adoption_coefficient)


def draw_action_noise(noise: Any, action_space: Any) -> np.ndarray:
    """
    One draw of an action noise, shaped as one action of ``action_space`` (a single value stays a scalar, added to
    every dimension). A draw of another size is refused, naming the noise and the action space.

    :param noise: (ActionNoise) the noise (any callable returning an array)
    :param action_space: (gym.spaces.Box) the action space
    :return: (np.ndarray) the draw
    """
    sample = np.asarray(noise())
    shape = tuple(action_space.shape)
    if sample.size == int(np.prod(shape)):
        return sample.reshape(shape)
    if sample.size == 1:
        return sample.reshape(())
    raise ValueError("The action noise {} gave a sample of shape {} ({} values); the action space {} needs one value "
                     "per action dimension, shape {} (or a single value for all)".format(
                         type(noise).__name__, sample.shape, sample.size, action_space, shape))


class ActionNoise(ABC):
    """
    Base of the action noises: calling the object gives the noise of the next step.
    """

    def __init__(self) -> None:
        super(ActionNoise, self).__init__()

    def reset(self) -> None:
        """
        Called at the end of every episode (stateless noises do nothing).
        """

    def get_state(self) -> Dict[str, np.ndarray]:
        """
        :return: (dict) what the next values depend on besides NumPy's global generator, as arrays by name
            (empty for a noise drawn independently at every step)
        """
        return {}

    def set_state(self, state: Dict[str, np.ndarray]) -> None:
        """
        Continue from a state returned by :meth:`get_state` of a noise of the same kind and shape.

        :param state: (dict) the arrays by name
        """
        if state:
            raise ValueError("{} keeps no state, got {}".format(type(self).__name__, sorted(state)))

    @abstractmethod
    def __call__(self) -> np.ndarray:
        raise NotImplementedError()


class NormalActionNoise(ActionNoise):
    """
    Gaussian noise, drawn independently at every step.

    :param mean: (float) the mean (scalar or one per action dimension)
    :param sigma: (float) the standard deviation (scalar or one per action dimension)
    """

    def __init__(self, mean: Any, sigma: Any) -> None:
        super(NormalActionNoise, self).__init__()
        _check_scale(sigma, "the standard deviation of the noise")
        try:
            np.broadcast(np.asarray(mean), np.asarray(sigma))
        except ValueError:
            raise ValueError("mean and sigma must have compatible shapes, got {} and {}"
                             .format(np.shape(mean), np.shape(sigma)))
        self._mu = mean
        self._sigma = sigma

    def __call__(self) -> np.ndarray:
        return np.random.normal(self._mu, self._sigma)

    def __repr__(self) -> str:
        return "NormalActionNoise(mu={}, sigma={})".format(self._mu, self._sigma)


class OrnsteinUhlenbeckActionNoise(ActionNoise):
    """
    Ornstein-Uhlenbeck noise: a random walk pulled back towards ``mean``, so consecutive values are correlated
    (useful for physical control with inertia). Each call takes one Euler-Maruyama step
    ``x <- x + theta * (mean - x) * dt + sigma * sqrt(dt) * N(0, 1)``.

    :param mean: (float) the value the process reverts to (its shape is the noise's shape)
    :param sigma: (float) the scale of the random increments
    :param theta: (float) the strength of the pull towards ``mean``
    :param dt: (float) the time step
    :param initial_noise: ([float]) the value after a reset (None: zeros)
    """

    def __init__(self, mean: Any, sigma: Any, theta: float = .15, dt: float = 1e-2,
                 initial_noise: Optional[Any] = None) -> None:
        super(OrnsteinUhlenbeckActionNoise, self).__init__()
        _check_scale(sigma, "the scale of the noise")
        if not dt > 0:
            raise ValueError("dt (the timestep of the noise) must be > 0, got {!r}".format(dt))
        if initial_noise is not None and np.shape(initial_noise) != np.shape(mean):
            raise ValueError("initial_noise must have the shape of mean {}, got shape {}"
                             .format(np.shape(mean), np.shape(initial_noise)))
        self._theta = theta
        self._mu = mean
        self._sigma = sigma
        self._dt = dt
        self.initial_noise = initial_noise
        self.noise_prev: np.ndarray = np.zeros_like(mean)  # the value reset() gives it just below
        self.reset()

    def __call__(self) -> np.ndarray:
        previous = self.noise_prev
        pull = self._theta * (self._mu - previous) * self._dt
        shock = self._sigma * np.sqrt(self._dt) * np.random.normal(size=np.shape(self._mu))
        self.noise_prev = previous + pull + shock
        return self.noise_prev

    def reset(self) -> None:
        """
        Put the process back at ``initial_noise`` (zeros when it is None).
        """
        if self.initial_noise is None:
            self.noise_prev = np.zeros_like(self._mu)
        else:
            self.noise_prev = self.initial_noise

    def get_state(self) -> Dict[str, np.ndarray]:
        return {"noise_prev": np.array(self.noise_prev)}

    def set_state(self, state: Dict[str, np.ndarray]) -> None:
        if set(state) != {"noise_prev"}:
            raise ValueError("the state of OrnsteinUhlenbeckActionNoise is its 'noise_prev', got {}"
                             .format(sorted(state)))
        value = np.asarray(state["noise_prev"])
        if value.shape != np.shape(self._mu) or value.dtype.kind != "f":
            raise ValueError("noise_prev must be a float array of shape {}, got {} of shape {}".format(
                np.shape(self._mu), value.dtype, value.shape))
        self.noise_prev = value.copy()

    def __repr__(self) -> str:
        return "OrnsteinUhlenbeckActionNoise(mu={}, sigma={})".format(self._mu, self._sigma)
