"""
Policy names: models accept ``"MlpPolicy"`` instead of a class, and each algorithm family (the direct
subclasses of :class:`BasePolicy`: actor-critic, DQN, SAC, TD3, DDPG) has its own table of names.
"""
from typing import Dict, Optional, Type

from stable_baselines.common.policy_parts import public
from stable_baselines.common.policy_parts.base import ActorCriticPolicy, BasePolicy
from stable_baselines.common.policy_parts.multi_input import MultiInputLstmPolicy, MultiInputPolicy
from stable_baselines.common.policy_parts.presets import (CnnLnLstmPolicy, CnnLstmPolicy, CnnPolicy, MlpLnLstmPolicy,
                                                          MlpLstmPolicy, MlpPolicy)

# family (direct subclass of BasePolicy) -> name -> policy class
_policy_registry: Dict[type, Dict[str, type]] = {
    ActorCriticPolicy: {cls.__name__: cls for cls in (CnnPolicy, CnnLstmPolicy, CnnLnLstmPolicy, MlpPolicy,
                                                      MlpLstmPolicy, MlpLnLstmPolicy, MultiInputPolicy,
                                                      MultiInputLstmPolicy)},
}


def _family(policy: object) -> Optional[type]:
    """:return: (type or None) the direct subclass of BasePolicy that ``policy`` (a class) descends from"""
    if not isinstance(policy, type):
        return None
    return next((family for family in BasePolicy.__subclasses__() if issubclass(policy, family)), None)


@public
def get_policy_from_name(base_policy_type: Type[BasePolicy], name: str) -> Type[BasePolicy]:
    """
    Look a policy class up by name.

    :param base_policy_type: (type) the family, e.g. ``ActorCriticPolicy`` or ``DQNPolicy``
    :param name: (str) the registered name, e.g. "MlpPolicy"
    :return: (type) the policy class
    """
    if base_policy_type not in _policy_registry:
        raise ValueError("Error: the policy type {} is not registered! Registered base types: {}".format(
            getattr(base_policy_type, "__name__", base_policy_type), [family.__name__ for family in _policy_registry]))
    names = _policy_registry[base_policy_type]
    if name not in names:
        raise ValueError("Error: unknown policy type {}, the only registed policy type are: {}!".format(
            name, list(names.keys())))
    return names[name]


@public
def register_policy(name: str, policy: Type[BasePolicy]) -> None:
    """
    Make a policy class available by name to the models of its family (``A2C('CustomPolicy', env)``).
    Registering the same class again under its name does nothing; another class under a taken name
    raises a ValueError.

    :param name: (str) the name
    :param policy: (type) a subclass of an algorithm family's policy class
    """
    family = _family(policy)
    if family is None:
        raise ValueError("Error: the policy {} is not of any known subclasses of BasePolicy!".format(policy))
    names = _policy_registry.setdefault(family, {})
    if names.get(name, policy) is not policy:
        raise ValueError("Error: the name {} is alreay registered for a different policy, will not override."
                         .format(name))
    names[name] = policy
