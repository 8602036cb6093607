"""
:class:`ExportSpec`: what a model tells the exporter about its acting graph (which placeholder takes the
observations, which tensor is the deterministic action, how ``predict`` maps it into the action space).
"""
from dataclasses import dataclass
from typing import Any, Optional, Tuple

import numpy as np
from gymnasium import spaces

from stable_baselines.common.tf_compat import tf

# how the deterministic action tensor becomes what ``predict`` returns
AS_IS = "as_is"  # discrete actions (argmax), or an output already in the action space
CLIP = "clip"  # an unbounded Gaussian mean, clipped to the bounds of the Box
UNSCALE = "unscale"  # an actor output in [-1, 1] (tanh), clipped to it and mapped linearly to the bounds
ARGMAX = "argmax"  # one score per discrete action (Q-values): the index of the highest


@dataclass
class ExportSpec:
    """
    The acting graph of a model, as the exporter needs it.

    :param session: (tf.Session) the model's session (the variables are read from it)
    :param observations: (tf.Tensor) the observation placeholder of the acting policy
    :param action: (tf.Tensor) the deterministic action of the acting policy, batch first
    :param transform: (str) ``AS_IS``, ``CLIP``, ``UNSCALE`` or ``ARGMAX``: what ``predict`` does to ``action``
    :param low: (np.ndarray) the lower bound of a Box action space (``CLIP`` and ``UNSCALE``)
    :param high: (np.ndarray) the upper bound of a Box action space (``CLIP`` and ``UNSCALE``)
    :param state: (tf.Tensor) the recurrent state placeholder (recurrent policies only)
    :param mask: (tf.Tensor) the episode-start placeholder (recurrent policies only)
    :param new_state: (tf.Tensor) the state after the step (recurrent policies only)
    """

    session: Any
    observations: tf.Tensor
    action: tf.Tensor
    transform: str = AS_IS
    low: Optional[np.ndarray] = None
    high: Optional[np.ndarray] = None
    state: Optional[tf.Tensor] = None
    mask: Optional[tf.Tensor] = None
    new_state: Optional[tf.Tensor] = None

    def bounds(self) -> Tuple[np.ndarray, np.ndarray]:
        """:return: (np.ndarray, np.ndarray) the bounds of the Box action space, as float32"""
        if self.low is None or self.high is None:
            raise ValueError("The transform {!r} needs the bounds of a Box action space".format(self.transform))
        return self.low.astype(np.float32), self.high.astype(np.float32)

    @property
    def recurrent(self) -> bool:
        """(bool) whether the policy carries a state from one step to the next"""
        return self.new_state is not None


def box_spec(session: Any, observations: tf.Tensor, action: tf.Tensor, action_space: Any, transform: str,
             **recurrent: Any) -> ExportSpec:
    """
    :param session: (tf.Session) the model's session
    :param observations: (tf.Tensor) the observation placeholder
    :param action: (tf.Tensor) the deterministic action
    :param action_space: (gymnasium.spaces.Space) the action space (its bounds are used when it is a Box)
    :param transform: (str) the transform for a Box action space (other spaces: ``AS_IS``)
    :param recurrent: (tf.Tensor) ``state``, ``mask`` and ``new_state`` of a recurrent policy
    :return: (ExportSpec) the spec, with the bounds of a Box action space
    """
    if not isinstance(action_space, spaces.Box):
        return ExportSpec(session, observations, action, **recurrent)
    return ExportSpec(session, observations, action, transform, np.asarray(action_space.low),
                      np.asarray(action_space.high), **recurrent)
