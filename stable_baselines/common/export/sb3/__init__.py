"""
``model.export(path, format="sb3")``: a model of ours as a Stable-Baselines3 model file, built through the
successor's own public API — its model constructed for the same spaces, architecture and training settings, its
policy's state dict filled from our parameters, its ``save`` — so that ``stable_baselines3`` (or ``sb3_contrib``)
loads it with its own ``load`` and acts as our ``predict(obs, deterministic=True)`` does.

What the successor cannot represent is refused with an error naming it; what it represents only in part (a
schedule, an optimizer's state, SAC's value network) is exported with a warning that says what is dropped.
"""
import os
import tempfile
import warnings
from typing import Any, Callable, Dict, List, Optional, Tuple

import numpy as np

from stable_baselines.common.export.sb3 import actor_critic, goal, off_policy, optimizer
from stable_baselines.common.export.sb3.support import (INSTALL_HINT, algorithm_of, fill_state_dict,
                                                        import_successor, spaces_only_vec_env)

# our algorithm -> (the successor's module, its class)
SUCCESSORS: Dict[str, Tuple[str, str]] = {
    "A2C": ("stable_baselines3", "A2C"),
    "ACKTR": ("stable_baselines3", "A2C"),
    "PPO1": ("stable_baselines3", "PPO"),
    "PPO2": ("stable_baselines3", "PPO"),
    "TRPO": ("sb3_contrib", "TRPO"),
    "DQN": ("stable_baselines3", "DQN"),
    "SAC": ("stable_baselines3", "SAC"),
    "TD3": ("stable_baselines3", "TD3"),
    "DDPG": ("stable_baselines3", "DDPG"),
}
# PPO2 with an LSTM policy
RECURRENT_PPO = ("sb3_contrib", "RecurrentPPO")
# what the successor has no counterpart of
NO_SUCCESSOR = {
    "ACER": "ACER (its Retrace targets and trust region with an average policy network)",
    "GAIL": "GAIL (give the successor's imitation library the expert data; the policy itself is TRPO's)",
}
_OFF_POLICY: Dict[str, Callable[..., Tuple[Dict[str, Any], Dict[str, np.ndarray], Dict[str, Any]]]] = {
    "DQN": off_policy.dqn, "SAC": off_policy.sac, "TD3": off_policy.td3, "DDPG": off_policy.ddpg}

VEC_NORMALIZE_SUFFIX = "_vecnormalize.pkl"


def vec_normalize_path(path: str) -> str:
    """:return: (str) where the export of a model to ``path`` writes its VecNormalize statistics"""
    stem = path[:-len(".zip")] if path.endswith(".zip") else path
    return stem + VEC_NORMALIZE_SUFFIX


def export_sb3(model: Any, path: str) -> List[str]:
    """
    Write ``model`` as a Stable-Baselines3 model file (and, when the model normalises its observations, the
    statistics as the successor's VecNormalize file beside it, see :func:`vec_normalize_path`).

    :param model: (BaseRLModel) the model
    :param path: (str) the file to write (``.zip`` is added by the successor when missing)
    :return: ([str]) what the successor's model does not carry over (also issued as one warning)
    """
    path = os.fspath(path)
    name = algorithm_of(model)
    her = None
    if name == "HER":  # the wrapped model, with the goal observation and the HER replay settings
        her, model = model, model.model
        name = algorithm_of(model)
        if name not in _OFF_POLICY:
            raise ValueError("Cannot export HER wrapping {} to SB3: the successor's HER serves DQN, SAC, TD3 and "
                             "DDPG".format(name))
    what = "{}{} ({})".format("HER-" if her is not None else "", name, getattr(model.policy, "__name__", model.policy))
    if name in NO_SUCCESSOR:
        raise ValueError("Cannot export {} to SB3: the successor has no counterpart of {}".format(name,
                                                                                                 NO_SUCCESSOR[name]))
    if name not in SUCCESSORS:
        raise ValueError("Cannot export {} to SB3: the export covers {} and HER wrapping DQN, SAC, TD3 or DDPG"
                         .format(name, ", ".join(sorted(SUCCESSORS))))
    if her is None:
        _check_spaces(model, what)
    module, class_name = RECURRENT_PPO if name == "PPO2" and actor_critic.is_recurrent(model) else SUCCESSORS[name]
    successor = getattr(import_successor(module), class_name)
    notes: List[str] = []
    if name in _OFF_POLICY:
        kwargs, values, extra = _OFF_POLICY[name](model, what, notes)
        policy = kwargs.pop("policy", "MlpPolicy")
    else:
        layout, values = actor_critic.architecture(model, what)
        kwargs = dict(actor_critic.hyperparameters(model, class_name, notes), policy_kwargs=layout["policy_kwargs"])
        policy, extra = layout["policy"], {}
    kwargs.update(seed=model.seed if isinstance(model.seed, int) else None, device="cpu", verbose=0)
    observation_space = today_space(model.observation_space)
    if her is not None:
        observation_space, policy = her.observation_space, "MultiInputPolicy"
        kwargs.update(goal.her_arguments(her, notes))
        values = goal.reorder_first_layers(values, observation_space)
    env = spaces_only_vec_env(observation_space, today_space(model.action_space), getattr(model, "n_envs", 1) or 1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the successor's remarks on the hyper-parameters of a spaces-only env
        sb3_model = successor(policy, env, **kwargs)
    if name not in _OFF_POLICY:
        values = actor_critic.policy_values(sb3_model.policy, values)
    for prefix in extra.get("successor_keeps", ()):  # parts of ours that do not map: the successor's own
        values.update({key: tensor.detach().cpu().numpy() for key, tensor in sb3_model.policy.state_dict().items()
                       if key.startswith(prefix)})
    fill_state_dict(sb3_model.policy, values, what)
    if "log_ent_coef" in extra:
        torch = import_successor("torch")
        with torch.no_grad():
            sb3_model.log_ent_coef.fill_(extra["log_ent_coef"])
    notes.append(_carry_optimizer(model, sb3_model, what, name, her is None and name not in _OFF_POLICY))
    path = final_path(path)
    statistics = model.get_normalization_statistics()
    _atomically(path, sb3_model.save)
    if statistics is not None:
        target = vec_normalize_path(path)
        write_vec_normalize(statistics, model.observation_space, model.action_space, target)
        notes.append("the VecNormalize statistics are in {} (load them with the successor's VecNormalize.load)"
                     .format(target))
    warnings.warn("Exported {} to {} for {}.{}: {}.".format(what, path, module, class_name, "; ".join(notes)),
                  UserWarning)
    return notes


def _carry_optimizer(model: Any, sb3_model: Any, what: str, name: str, actor_critic_layout: bool) -> str:
    """
    Carry the Adam moments of a feed-forward PPO2 policy into the successor's optimizer.

    :return: (str) the note saying what became of the optimizer's state
    """
    if actor_critic_layout and name == "PPO2" and not actor_critic.is_recurrent(model):
        policy = sb3_model.policy

        def layout(values: Dict[str, np.ndarray]) -> Dict[str, np.ndarray]:
            return actor_critic.policy_values(policy, actor_critic.architecture(model, what, values)[1])
        steps = optimizer.carry_adam_moments(model, policy.optimizer, dict(policy.named_parameters()), layout)
        if steps:
            return ("the Adam moments are carried over ({} steps; PyTorch adds Adam's epsilon after the bias "
                    "correction, TensorFlow before it)".format(steps))
    return "the optimizer starts afresh (its moments are not carried over)"


def today_space(space: Any) -> Any:
    """
    :param space: (gymnasium.spaces.Space) a space of a model (maybe read from an old file)
    :return: (gymnasium.spaces.Space) the same space as today's envs write it: the old gym's float32 bounds of
        +-3.4e38 meant unbounded, as +-inf does now (the successor compares the spaces of a model and its env)
    """
    from gymnasium import spaces

    if not isinstance(space, spaces.Box) or not np.issubdtype(space.dtype, np.floating):
        return space
    limit = np.finfo(np.float32).max
    low = np.where(np.asarray(space.low) <= -limit, -np.inf, space.low)
    high = np.where(np.asarray(space.high) >= limit, np.inf, space.high)
    if np.array_equal(low, space.low) and np.array_equal(high, space.high):
        return space
    return spaces.Box(low=low.astype(space.dtype), high=high.astype(space.dtype), dtype=space.dtype)


def _check_spaces(model: Any, what: str) -> None:
    from gymnasium import spaces

    for role, space in (("observation", model.observation_space), ("action", model.action_space)):
        if space is None:
            raise ValueError("Cannot export {} to SB3: the model has no {} space".format(what, role))
        if isinstance(space, (spaces.Dict, spaces.Tuple)):
            raise ValueError("Cannot export {} to SB3: its {} space {} is structured; the export takes Box, "
                             "Discrete, MultiDiscrete and MultiBinary spaces".format(what, role, space))


def write_vec_normalize(statistics: Any, observation_space: Any, action_space: Any, path: str) -> None:
    """
    Write VecNormalize statistics of ours as the successor's ``VecNormalize`` file (its ``save``: a pickle of its own
    classes, holding no env).

    :param statistics: (NormalizationStatistics) the statistics
    :param observation_space: (gymnasium.spaces.Space) the observation space
    :param action_space: (gymnasium.spaces.Space) the action space
    :param path: (str) the file to write
    """
    vec_env = import_successor("stable_baselines3.common.vec_env")
    if isinstance(statistics.obs_rms, dict):
        raise ValueError("Cannot export the VecNormalize statistics per key of a Dict observation to SB3")
    normalizer = vec_env.VecNormalize(spaces_only_vec_env(observation_space, action_space, 1), training=False,
                                      norm_obs=bool(statistics.norm_obs), norm_reward=bool(statistics.norm_reward),
                                      clip_obs=float(statistics.clip_obs), clip_reward=float(statistics.clip_reward),
                                      gamma=float(statistics.gamma), epsilon=float(statistics.epsilon))
    for ours, theirs in ((statistics.obs_rms, normalizer.obs_rms), (statistics.ret_rms, normalizer.ret_rms)):
        theirs.mean = np.array(ours.mean, dtype=np.float64).reshape(np.shape(theirs.mean))
        theirs.var = np.array(ours.var, dtype=np.float64).reshape(np.shape(theirs.var))
        theirs.count = float(ours.count)
    _atomically(path, normalizer.save)


def final_path(path: str) -> str:
    """:return: (str) the file the successor's ``save`` writes for ``path`` (``.zip`` added when there is no suffix)"""
    return path if os.path.splitext(path)[1] else path + ".zip"


def _atomically(path: str, save: Callable[[str], None]) -> None:
    """Write through ``save`` into a temporary file beside ``path``, then rename it: an old file survives a crash."""
    directory = os.path.dirname(os.path.abspath(path))
    os.makedirs(directory, exist_ok=True)
    handle, temporary = tempfile.mkstemp(prefix=".sb3-export-", suffix=os.path.splitext(path)[1], dir=directory)
    os.close(handle)
    try:
        save(temporary)
        os.replace(temporary, path)
    finally:
        if os.path.exists(temporary):
            os.remove(temporary)


def load_for_check(path: str, algorithm: str, env: Optional[Any] = None, recurrent: bool = False) -> Any:
    """
    :param path: (str) an exported file
    :param algorithm: (str) our algorithm it was exported from
    :param env: (gymnasium.Env or VecEnv) the env to load it with (None: none)
    :param recurrent: (bool) whether it was exported from PPO2 with an LSTM policy
    :return: (stable_baselines3 model) the file loaded by the successor (the class our ``algorithm`` maps to)
    """
    module, class_name = RECURRENT_PPO if recurrent else SUCCESSORS[algorithm]
    return getattr(import_successor(module), class_name).load(path, env=env, device="cpu")


__all__ = ["INSTALL_HINT", "NO_SUCCESSOR", "SUCCESSORS", "VEC_NORMALIZE_SUFFIX", "algorithm_of", "export_sb3", "final_path",
           "load_for_check", "vec_normalize_path", "write_vec_normalize"]
