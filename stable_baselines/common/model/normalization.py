"""
The ``VecNormalize`` statistics inside a model file, so that one file is enough to run a model trained on
normalized observations.

``model.save`` of a model whose environment holds a ``VecNormalize`` adds two extra members (see
:mod:`stable_baselines.common.storage.extra_members`): ``vec_normalize.json`` (the settings: ``clip_obs``,
``clip_reward``, ``gamma``, ``epsilon``, ``norm_obs``, ``norm_reward`` and the layout ``format``) and
``vec_normalize.npz`` (``obs_mean``, ``obs_var``, ``obs_count``, ``ret_mean``, ``ret_var``, ``ret_count`` as
float64 arrays). With a Dict observation space normalized per key (``norm_obs_keys``), the settings also list
the keys and the observation arrays are ``obs_mean/<i>``, ``obs_var/<i>``, ``obs_count/<i>`` for the i-th key.
``ALGO.load(path, env=env)`` checks them against the model's observation space and, when
``env`` has no ``VecNormalize`` of its own, wraps it in one with those statistics, ``training=False`` and
``norm_reward=False``.
"""
import warnings
from typing import Any, Dict, Optional

from gymnasium import spaces

from stable_baselines.common.model.environment import user_env
from stable_baselines.common.storage.extra_members import register_member
from stable_baselines.common.safe_loading import limits
from stable_baselines.common.safe_loading.errors import InvalidModelFileError
from stable_baselines.common.vec_env import DummyVecEnv, VecEnv, VecNormalize
from stable_baselines.common.vec_env.obs_entries import box_entry_shapes
from stable_baselines.common.vec_env.vec_normalize import NormalizationStatistics

SETTINGS_MEMBER = register_member("vec_normalize.json", 1 << 20)
ARRAYS_MEMBER = register_member("vec_normalize.npz", limits.MAX_PARAMETER_BYTES)


def statistics_members(statistics: Optional[NormalizationStatistics]) -> Dict[str, Any]:
    """
    :param statistics: (NormalizationStatistics) what to store (None: nothing)
    :return: (dict) the extra members holding them
    """
    if statistics is None:
        return {}
    return {SETTINGS_MEMBER: statistics.to_json(), ARRAYS_MEMBER: statistics.to_arrays()}


def statistics_from_members(members: Dict[str, Any], observation_space: Any, what: str) -> \
        Optional[NormalizationStatistics]:
    """
    :param members: (dict) the decoded extra members of a model file
    :param observation_space: (gymnasium.spaces.Space) the model's observation space (None: not known)
    :param what: (str) the file, for messages
    :return: (NormalizationStatistics) the statistics stored in the file, checked (None: the file has none)
    :raises InvalidModelFileError: only one of the two members is present, or they are not valid statistics
    """
    present = [name for name in (SETTINGS_MEMBER, ARRAYS_MEMBER) if name in members]
    if not present:
        return None
    if len(present) == 1:
        raise InvalidModelFileError("{} has the {!r} member without {!r}: the VecNormalize statistics are "
                                    "incomplete".format(what, present[0], ARRAYS_MEMBER if present[0] ==
                                                        SETTINGS_MEMBER else SETTINGS_MEMBER))
    shape, entry_shapes = None, None
    if isinstance(observation_space, spaces.Dict):
        entry_shapes = dict(box_entry_shapes(observation_space))
    elif observation_space is not None:
        shape = tuple(observation_space.shape) if observation_space.shape is not None else ()
    where = "the VecNormalize statistics of {}".format(what)
    return NormalizationStatistics.from_stored(members[SETTINGS_MEMBER], members[ARRAYS_MEMBER], where, shape,
                                               entry_shapes)


def normalized_env(env: Any, vectorize_action: bool, current: Optional[VecNormalize],
                   statistics: NormalizationStatistics, what: str) -> Any:
    """
    The environment a loaded model runs in, given the statistics of its file.

    :param env: (gymnasium.Env or VecEnv) the environment as the model keeps it (``model.env``)
    :param vectorize_action: (bool) whether ``env`` is a one-env VecEnv seen as a single env (the model's
        ``_vectorize_action``): the VecEnv is then ``env.venv``
    :param current: (VecNormalize) the VecNormalize already in ``env`` (None: none)
    :param statistics: (NormalizationStatistics) the file's statistics
    :param what: (str) the file, for messages
    :return: (VecEnv) a new VecNormalize (``training=False``, ``norm_reward=False``) around the vectorized
        environment; ``env`` itself when it has a VecNormalize already (with a warning when that one normalizes
        observations differently)
    """
    if current is not None:
        if not statistics.matches(current.get_statistics()):
            warnings.warn("The environment given to load already has a VecNormalize whose statistics differ from "
                          "those stored in {}; the environment's statistics are used (give the environment "
                          "without VecNormalize to use the file's)".format(what))
        return env
    user = user_env(env)  # without the packing of Dict/Tuple observations: VecNormalize goes inside it
    if vectorize_action and user is env:
        venv = env.venv
    elif isinstance(user, VecEnv):
        venv = user
    else:
        venv = DummyVecEnv([lambda: user])
    return statistics.wrap(venv, training=False, norm_reward=False)
