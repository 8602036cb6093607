"""
Exploration noise of the off-policy continuous-control algorithms (DDPG, TD3, SAC).

- :class:`AdaptiveParamNoiseSpec`: the adaptive scale of parameter-space noise (Plappert et al., 2017,
  https://arxiv.org/abs/1706.01905);
- :class:`NormalActionNoise`: independent Gaussian action noise;
- :class:`OrnsteinUhlenbeckActionNoise`: temporally correlated action noise (Uhlenbeck & Ornstein, 1930).

These classes were in ``stable_baselines.ddpg.noise`` before 2.8; model files that reference the old module are
loaded through :mod:`stable_baselines.common.safe_pickle`, which maps it here. The attribute names (``_mu``,
``_sigma``, ``_theta``, ``_dt``, ``initial_noise``, ``noise_prev``, ``current_stddev``, ...) are those of the
original classes, so pickled objects from the original library restore their state.
"""
from abc import ABC, abstractmethod
from typing import Any, Dict, Optional

import numpy as np


class AdaptiveParamNoiseSpec(object):
    """
    Implements adaptive parameter noise

    :param initial_stddev: (float) the initial value for the standard deviation of the noise
    :param desired_action_stddev: (float) the desired value for the standard deviation of the noise
    :param adoption_coefficient: (float) the update coefficient for the standard deviation of the noise
    """

    def __init__(self, initial_stddev: float = 0.1, desired_action_stddev: float = 0.1,
                 adoption_coefficient: float = 1.01):
        for name, value in (("initial_stddev", initial_stddev), ("desired_action_stddev", desired_action_stddev),
                            ("adoption_coefficient", adoption_coefficient)):
            if isinstance(value, bool) or not np.isscalar(value) or not np.isreal(value) or not value > 0:
                raise ValueError("{} must be a float > 0, got {!r}".format(name, value))
        self.initial_stddev = initial_stddev
        self.desired_action_stddev = desired_action_stddev
        self.adoption_coefficient = adoption_coefficient

        self.current_stddev = initial_stddev

    def adapt(self, distance: float) -> None:
        """
        update the standard deviation for the parameter noise

        The standard deviation shrinks (divided by ``adoption_coefficient``) when the distance between the
        perturbed and the unperturbed policy is larger than ``desired_action_stddev``, and grows (multiplied by
        ``adoption_coefficient``) otherwise.

        :param distance: (float) the noise distance applied to the parameters
        """
        if distance > self.desired_action_stddev:
            # Decrease stddev.
            self.current_stddev /= self.adoption_coefficient
        else:
            # Increase stddev.
            self.current_stddev *= self.adoption_coefficient

    def get_stats(self) -> Dict[str, float]:
        """
        return the standard deviation for the parameter noise

        :return: (dict) the stats of the noise
        """
        return {'param_noise_stddev': self.current_stddev}

    def __repr__(self) -> str:
        fmt = 'AdaptiveParamNoiseSpec(initial_stddev={}, desired_action_stddev={}, adoption_coefficient={})'
        return fmt.format(self.initial_stddev, self.desired_action_stddev, self.adoption_coefficient)


class ActionNoise(ABC):
    """
    The action noise base class
    """

    def __init__(self):
        super(ActionNoise, self).__init__()

    def reset(self) -> None:
        """
        call end of episode reset for the noise
        """
        pass

    @abstractmethod
    def __call__(self) -> np.ndarray:
        raise NotImplementedError()


class NormalActionNoise(ActionNoise):
    """
    A Gaussian action noise

    :param mean: (float) the mean value of the noise
    :param sigma: (float) the scale of the noise (std here)
    """

    def __init__(self, mean: Any, sigma: Any):
        super(NormalActionNoise, self).__init__()
        if np.any(np.asarray(sigma) < 0):
            raise ValueError("sigma (the standard deviation of the noise) must be >= 0, got {!r}".format(sigma))
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
        return 'NormalActionNoise(mu={}, sigma={})'.format(self._mu, self._sigma)


class OrnsteinUhlenbeckActionNoise(ActionNoise):
    """
    A Ornstein Uhlenbeck action noise, this is designed to approximate brownian motion with friction.

    Based on http://math.stackexchange.com/questions/1287634/implementing-ornstein-uhlenbeck-in-matlab

    Each call advances the process by one Euler-Maruyama step:
    ``x <- x + theta * (mean - x) * dt + sigma * sqrt(dt) * N(0, 1)``.

    :param mean: (float) the mean of the noise
    :param sigma: (float) the scale of the noise
    :param theta: (float) the rate of mean reversion
    :param dt: (float) the timestep for the noise
    :param initial_noise: ([float]) the initial value for the noise output, (if None: 0)
    """

    def __init__(self, mean: Any, sigma: Any, theta: float = .15, dt: float = 1e-2,
                 initial_noise: Optional[Any] = None):
        super(OrnsteinUhlenbeckActionNoise, self).__init__()
        if np.any(np.asarray(sigma) < 0):
            raise ValueError("sigma (the scale of the noise) must be >= 0, got {!r}".format(sigma))
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
        self.noise_prev = None
        self.reset()

    def __call__(self) -> np.ndarray:
        noise = self.noise_prev + self._theta * (self._mu - self.noise_prev) * self._dt + \
            self._sigma * np.sqrt(self._dt) * np.random.normal(size=np.shape(self._mu))
        self.noise_prev = noise
        return noise

    def reset(self) -> None:
        """
        reset the Ornstein Uhlenbeck noise, to the initial position
        """
        self.noise_prev = self.initial_noise if self.initial_noise is not None else np.zeros_like(self._mu)

    def __repr__(self) -> str:
        return 'OrnsteinUhlenbeckActionNoise(mu={}, sigma={})'.format(self._mu, self._sigma)
