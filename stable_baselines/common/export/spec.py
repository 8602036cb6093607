"""
:class:`ExportSpec`: what a model tells the exporter about its acting graph (which placeholder takes the
observations, which tensor is the deterministic action, how ``predict`` maps it into the action space).
"""
from dataclasses import dataclass
from typing import Any, Dict, Optional, Tuple

import numpy as np
from gymnasium import spaces

from stable_baselines.common.policies import RecurrentActorCriticPolicy
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
    :param owns_session: (bool) whether the session was made for the export (closed after it)
    :param observation_dtype: (np.dtype) the dtype of the observation space, which the exported function takes
        (None: the placeholder's)
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
    owns_session: bool = False
    observation_dtype: Any = None

    def bounds(self) -> Tuple[np.ndarray, np.ndarray]:
        """:return: (np.ndarray, np.ndarray) the bounds of the Box action space, as float32"""
        if self.low is None or self.high is None:
            raise ValueError("The transform {!r} needs the bounds of a Box action space".format(self.transform))
        return self.low.astype(np.float32), self.high.astype(np.float32)

    @property
    def recurrent(self) -> bool:
        """(bool) whether the policy carries a state from one step to the next"""
        return self.new_state is not None


def box_spec(session: Any, observations: tf.Tensor, action: tf.Tensor, observation_space: Any, action_space: Any,
             transform: str, **recurrent: Any) -> ExportSpec:
    """
    :param session: (tf.Session) the model's session
    :param observations: (tf.Tensor) the observation placeholder
    :param action: (tf.Tensor) the deterministic action
    :param observation_space: (gymnasium.spaces.Space) the observation space (the dtype of the exported input)
    :param action_space: (gymnasium.spaces.Space) the action space (its bounds are used when it is a Box)
    :param transform: (str) the transform for a Box action space (other spaces: ``AS_IS``)
    :param recurrent: (tf.Tensor) ``state``, ``mask`` and ``new_state`` of a recurrent policy
    :return: (ExportSpec) the spec, with the bounds of a Box action space
    """
    spec = ExportSpec(session, observations, action, observation_dtype=observation_space.dtype, **recurrent)
    if isinstance(action_space, spaces.Box):
        spec.transform, spec.low, spec.high = transform, np.asarray(action_space.low), np.asarray(action_space.high)
    return spec


def actor_critic_spec(policy: Any, session: Any, observation_space: Any, action_space: Any,
                      owns_session: bool = False) -> ExportSpec:
    """
    :param policy: (ActorCriticPolicy) the acting policy (feed-forward or recurrent)
    :param session: (tf.Session) the session holding its variables
    :param observation_space: (gymnasium.spaces.Space) the observation space
    :param action_space: (gymnasium.spaces.Space) the action space
    :param owns_session: (bool) whether the session was made for the export
    :return: (ExportSpec) the policy's mode, clipped to a Box action space (and its state, mask and new state)
    """
    recurrent: Dict[str, Any] = {}
    if isinstance(policy, RecurrentActorCriticPolicy):
        # `snew`, the state after the step, is what recurrent policies (LstmPolicy and custom ones) define
        new_state = getattr(policy, "snew", None)
        if new_state is None:
            raise ValueError("Cannot export the recurrent policy {}: it has no `snew` tensor (the state after the "
                             "step)".format(type(policy).__name__))
        recurrent = dict(state=policy.states_ph, mask=policy.dones_ph, new_state=new_state)
    spec = box_spec(session, policy.obs_ph, policy.deterministic_action, observation_space, action_space, CLIP,
                    **recurrent)
    spec.owns_session = owns_session
    return spec


def policy_for_batch(policy_class: type, observation_space: Any, action_space: Any,
                     policy_kwargs: Optional[Dict[str, Any]], batch_size: int,
                     parameters: Dict[str, np.ndarray]) -> Tuple[Any, Any]:
    """
    Build the acting policy of an actor-critic model again, for another batch size (one step of
    ``batch_size`` sequences), in a graph and session of its own, with the model's parameter values.

    :param policy_class: (type) the model's policy class
    :param observation_space: (gymnasium.spaces.Space) the observation space
    :param action_space: (gymnasium.spaces.Space) the action space
    :param policy_kwargs: (dict) the model's policy arguments
    :param batch_size: (int) the number of sequences stepped at once
    :param parameters: ({str: np.ndarray}) the model's parameters by variable name (``get_parameters()``)
    :return: (ActorCriticPolicy, tf.Session) the policy and its session (to close after use)
    """
    if not isinstance(batch_size, (int, np.integer)) or isinstance(batch_size, bool) or batch_size < 1:
        raise ValueError("batch_size must be a positive integer, got {!r}".format(batch_size))
    graph = tf.Graph()
    session = tf.Session(graph=graph)
    try:
        with graph.as_default():
            policy = policy_class(session, observation_space, action_space, int(batch_size), 1, int(batch_size),
                                  reuse=False, **(policy_kwargs or {}))
            variables = graph.get_collection(tf.GraphKeys.GLOBAL_VARIABLES)
            missing = [var.name for var in variables if var.name not in parameters]
            if missing:
                raise ValueError("Cannot rebuild the policy for batch_size={}: the model has no parameters named {}"
                                 .format(batch_size, missing))
            session.run([var.assign(parameters[var.name]) for var in variables])
    except BaseException:
        session.close()
        raise
    return policy, session

