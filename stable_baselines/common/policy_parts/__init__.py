"""
The pieces behind :mod:`stable_baselines.common.policies`, one concern per module:

- ``base``: :class:`BasePolicy` (input placeholders) and :class:`ActorCriticPolicy` (distribution and value heads);
- ``extractors``: ``nature_cnn``, ``mlp_extractor`` and the reading of ``net_arch``;
- ``feedforward``: :class:`FeedForwardPolicy`;
- ``recurrent``: :class:`RecurrentActorCriticPolicy` and :class:`LstmPolicy`;
- ``numpy_actor_critic``: the NumPy copy of a feed-forward MLP policy;
- ``presets``: ``MlpPolicy``, ``CnnPolicy``, ``MlpLstmPolicy`` ... (fixed constructor arguments);
- ``registry``: ``register_policy`` and ``get_policy_from_name``;
- ``ready_made``: the making of ready-made classes (``preset``) and the wording of the usual constructor parameters;
- ``offpolicy_policy``: the feed-forward base of the DDPG, SAC and TD3 policies (public at their algorithms'
  ``policies`` modules);
- ``action_masks``: invalid-action masks, from the environment's ``action_masks()`` to the masked choice of an
  action (also at :mod:`stable_baselines.common.action_masks`).

Import them from :mod:`stable_baselines.common.policies`. The public classes and functions say they live there
(``__module__``): model files name them by that path, and the original library reads our files.
"""
from typing import TypeVar

PUBLIC_MODULE = "stable_baselines.common.policies"

_Named = TypeVar("_Named")


def public(obj: _Named) -> _Named:
    """
    Decorator: give a class or function the public module path it is imported (and pickled) from.

    :param obj: (type or function) an object re-exported by :mod:`stable_baselines.common.policies`
    :return: (type or function) the same object
    """
    obj.__module__ = PUBLIC_MODULE
    return obj
