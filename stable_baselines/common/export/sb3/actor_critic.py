"""
The actor-critic models (A2C, ACKTR, PPO1, PPO2, TRPO) as the successor's ActorCriticPolicy: the policy and
value MLPs (``pi_fc{i}``, ``vf_fc{i}``) or the Nature CNN both heads share, then ``action_net`` (our ``pi``) and
``value_net`` (our ``vf``); a Gaussian's ``logstd`` becomes ``log_std``. The ``q`` head only ACER reads is left.
PPO2's LSTM policies become sb3_contrib's RecurrentPPO policies where the LSTM reads the features directly.
"""
from typing import Any, Dict, List, Optional, Tuple

import numpy as np
from gymnasium import spaces

from stable_baselines.common.export.sb3.support import (algorithm_of, constant, dense, has_parameter,
                                                        nature_cnn_state, parameter, torch_activation)
from stable_baselines.common.preprocessing import is_image_space


def _acting_policy(model: Any) -> Any:
    policy = getattr(model, "acting_policy", None)
    name = type(model).__name__
    if policy is None:
        raise ValueError("Cannot export {} to SB3: the model has no policy yet (build it first)".format(name))
    if getattr(policy, "recurrent", False) and algorithm_of(model) != "PPO2":
        raise ValueError("Cannot export {} to SB3: its policy {} is recurrent; the successor's recurrent algorithm "
                         "is sb3_contrib's RecurrentPPO (the export carries PPO2's LSTM policies to it), {} with an "
                         "LSTM has no counterpart".format(name, type(policy).__name__, name))
    if not hasattr(policy, "feature_extraction"):
        raise ValueError("Cannot export {} to SB3: its policy {} is not a FeedForwardPolicy (MlpPolicy, CnnPolicy "
                         "and their variants), so its architecture is unknown".format(name, type(policy).__name__))
    return policy


def _branches(policy: Any, what: str) -> Tuple[List[int], List[int]]:
    """:return: ([int], [int]) the widths of the policy and value MLPs (a ValueError for shared layers)"""
    pi_widths: List[int] = []
    vf_widths: List[int] = []
    for entry in policy.net_arch:
        if isinstance(entry, dict):
            pi_widths, vf_widths = list(entry.get("pi", [])), list(entry.get("vf", []))
        else:
            raise ValueError("Cannot export {} to SB3: its net_arch {} has layers shared by the policy and the value "
                             "function, which the successor's ActorCriticPolicy no longer builds"
                             .format(what, policy.net_arch))
    return [int(width) for width in pi_widths], [int(width) for width in vf_widths]


def _head_values(parameters: Dict[str, np.ndarray], action_space: spaces.Space) -> Dict[str, np.ndarray]:
    """:return: (dict) ``action_net``, ``value_net`` (and ``log_std``) from our ``pi`` and ``vf`` layers"""
    values: Dict[str, np.ndarray] = {}
    values["action_net.weight"], values["action_net.bias"] = dense(parameters, "model/pi")
    values["value_net.weight"], values["value_net.bias"] = dense(parameters, "model/vf")
    if isinstance(action_space, spaces.Box):
        values["log_std"] = parameter(parameters, "model/pi/logstd").reshape(-1)
    return values


def is_recurrent(model: Any) -> bool:
    """:return: (bool) whether the model acts through a recurrent policy"""
    return bool(getattr(getattr(model, "acting_policy", None), "recurrent", False))


# our LSTM's gate blocks are (input, forget, output, candidate), PyTorch's (input, forget, candidate, output)
_TORCH_GATE_ORDER = (0, 1, 3, 2)


def _lstm_values(parameters: Dict[str, np.ndarray], n_lstm: int) -> Dict[str, np.ndarray]:
    """:return: (dict) our LSTM ``model/lstm1`` as the successor's one-layer ``lstm_actor``"""
    def reorder(matrix: np.ndarray) -> np.ndarray:
        blocks = np.split(matrix, 4, axis=-1)
        return np.concatenate([blocks[index] for index in _TORCH_GATE_ORDER], axis=-1)

    weight_x, weight_h = parameter(parameters, "model/lstm1/wx"), parameter(parameters, "model/lstm1/wh")
    bias = parameter(parameters, "model/lstm1/b")
    return {"lstm_actor.weight_ih_l0": np.ascontiguousarray(reorder(weight_x).T),
            "lstm_actor.weight_hh_l0": np.ascontiguousarray(reorder(weight_h).T),
            "lstm_actor.bias_ih_l0": reorder(bias), "lstm_actor.bias_hh_l0": np.zeros(4 * n_lstm, np.float32)}


def _recurrent_architecture(model: Any, policy: Any, what: str) -> Tuple[Dict[str, Any], Dict[str, np.ndarray]]:
    """
    Our LSTM policies whose LSTM reads the features directly (the Nature CNN, or an MLP net_arch that starts with
    ``'lstm'``) as sb3_contrib's RecurrentPPO policy with one LSTM that both heads share.
    """
    if policy.layer_norm:
        raise ValueError("Cannot export {} to SB3: its LSTM is layer-normalised, sb3_contrib's RecurrentPPO has no "
                         "layer-normalised LSTM".format(what))
    parameters = model.get_parameters()
    values = _head_values(parameters, model.action_space)
    values.update(_lstm_values(parameters, policy.n_lstm))
    policy_kwargs: Dict[str, Any] = dict(lstm_hidden_size=policy.n_lstm, n_lstm_layers=1, shared_lstm=True,
                                         enable_critic_lstm=False)
    if policy.net_arch is None and policy.feature_extraction == "cnn":
        _check_cnn(policy, model.observation_space, what)
        values.update(nature_cnn_state(parameters, "model/", model.observation_space.shape, "features_extractor"))
        return dict(policy="CnnLstmPolicy", policy_kwargs=dict(policy_kwargs, net_arch=dict(pi=[], vf=[]))), values
    if policy.net_arch is None:
        if policy.layers:
            raise ValueError("Cannot export {} to SB3: its MLP layers {} come before the LSTM, sb3_contrib's "
                             "RecurrentPPO puts its MLP after the LSTM (a policy of net_arch=['lstm', dict(pi=[...], "
                             "vf=[...])] carries over)".format(what, policy.layers))
        pi_widths: List[int] = []
        vf_widths: List[int] = []
    else:
        if policy.net_arch[0] != "lstm" or any(not isinstance(entry, dict) for entry in policy.net_arch[1:]):
            raise ValueError("Cannot export {} to SB3: its net_arch {} has layers shared around the LSTM, "
                             "sb3_contrib's RecurrentPPO has the LSTM first and separate policy and value layers "
                             "after it (net_arch=['lstm', dict(pi=[...], vf=[...])])".format(what, policy.net_arch))
        branches = policy.net_arch[1] if len(policy.net_arch) > 1 else {}
        pi_widths, vf_widths = [int(w) for w in branches.get("pi", [])], [int(w) for w in branches.get("vf", [])]
    values.update(_branch_values(parameters, pi_widths, vf_widths, what))
    return dict(policy="MlpLstmPolicy", policy_kwargs=dict(
        policy_kwargs, net_arch=dict(pi=pi_widths, vf=vf_widths), activation_fn=torch_activation(policy.act_fun),
        normalize_images=False)), values


def _branch_values(parameters: Dict[str, np.ndarray], pi_widths: List[int], vf_widths: List[int],
                   what: str) -> Dict[str, np.ndarray]:
    """:return: (dict) our ``pi_fc{i}`` and ``vf_fc{i}`` layers as the successor's ``mlp_extractor``"""
    values: Dict[str, np.ndarray] = {}
    for branch, widths, ours in (("policy_net", pi_widths, "pi_fc"), ("value_net", vf_widths, "vf_fc")):
        for index in range(len(widths)):
            weight, bias = dense(parameters, "model/{}{}".format(ours, index))
            values["mlp_extractor.{}.{}.weight".format(branch, 2 * index)] = weight
            values["mlp_extractor.{}.{}.bias".format(branch, 2 * index)] = bias
        if has_parameter(parameters, "model/{}{}/w".format(ours, len(widths))):
            raise ValueError("Cannot export {} to SB3: its {} branch has more layers than its net_arch says"
                             .format(what, ours))
    return values


def _check_cnn(policy: Any, observation_space: spaces.Space, what: str) -> None:
    if policy.cnn_extractor.__name__ != "nature_cnn" or policy.cnn_kwargs:
        raise ValueError("Cannot export {} to SB3: its CNN is {}{}, the successor's CNN policies have the Nature CNN "
                         "without options".format(what, policy.cnn_extractor.__name__,
                                                  " with {}".format(policy.cnn_kwargs) if policy.cnn_kwargs else ""))
    _check_images(observation_space, what)


def architecture(model: Any, what: str, parameters: Optional[Dict[str, np.ndarray]] = None
                 ) -> Tuple[Dict[str, Any], Dict[str, np.ndarray]]:
    """
    :param model: (ActorCriticRLModel) the model
    :param what: (str) what is being exported (for the messages)
    :param parameters: (dict) values to place instead of the model's parameters, by variable name (e.g. an
        optimizer's moments, which the successor's layout takes alike); None: ``model.get_parameters()``
    :return: (dict, dict) the successor's ``policy`` and ``policy_kwargs`` as keyword arguments, and the values of
        its policy's state dict without the keys of shared feature extractors (filled by :func:`policy_values`)
    """
    policy = _acting_policy(model)
    if is_recurrent(model):
        return _recurrent_architecture(model, policy, what)
    if parameters is None:
        parameters = model.get_parameters()
    observation_space = model.observation_space
    values = _head_values(parameters, model.action_space)
    if policy.feature_extraction == "cnn":
        _check_cnn(policy, observation_space, what)
        values.update(nature_cnn_state(parameters, "model/", observation_space.shape, "features_extractor"))
        return dict(policy="CnnPolicy", policy_kwargs=dict(net_arch=dict(pi=[], vf=[]))), values

    pi_widths, vf_widths = _branches(policy, what)
    values.update(_branch_values(parameters, pi_widths, vf_widths, what))
    policy_kwargs = dict(net_arch=dict(pi=pi_widths, vf=vf_widths), activation_fn=torch_activation(policy.act_fun),
                         normalize_images=False)  # our MLPs read observations unscaled
    return dict(policy="MlpPolicy", policy_kwargs=policy_kwargs), values


def _check_images(observation_space: spaces.Space, what: str) -> None:
    """The successor's CNN divides uint8 images by 255, as ours scales images of bounds [0, 255]: refuse others."""
    if not is_image_space(observation_space):
        raise ValueError("Cannot export {} to SB3: its CNN reads {}, the successor's CnnPolicy takes uint8 images "
                         "of bounds [0, 255] (height, width, channels)".format(what, observation_space))


def policy_values(sb3_policy: Any, values: Dict[str, np.ndarray]) -> Dict[str, np.ndarray]:
    """:return: (dict) ``values`` with the extractor's tensors under each name the successor's policy gives them"""
    filled = dict(values)
    for key in sb3_policy.state_dict():
        for alias in ("pi_features_extractor.", "vf_features_extractor."):
            if key.startswith(alias):
                filled[key] = values["features_extractor." + key[len(alias):]]
    return filled


def hyperparameters(model: Any, algorithm: str, notes: List[str]) -> Dict[str, Any]:
    """:return: (dict) the successor's keyword arguments for our model's training settings"""
    if algorithm in ("PPO", "RecurrentPPO") and hasattr(model, "nminibatches"):  # PPO2
        n_batch = model.n_steps * model.n_envs
        clip_vf = model.cliprange_vf
        if clip_vf is None:  # the original's PPO2 clipped the value function as the policy by default
            clip_vf = model.cliprange
        elif not callable(clip_vf) and clip_vf < 0:
            clip_vf = None
        return dict(learning_rate=constant(model.learning_rate, "learning_rate", notes), n_steps=model.n_steps,
                    batch_size=max(1, n_batch // model.nminibatches), n_epochs=model.noptepochs, gamma=model.gamma,
                    gae_lambda=model.lam, clip_range=constant(model.cliprange, "cliprange", notes),
                    clip_range_vf=None if clip_vf is None else constant(clip_vf, "cliprange_vf", notes),
                    ent_coef=model.ent_coef, vf_coef=model.vf_coef, max_grad_norm=model.max_grad_norm)
    if algorithm == "PPO":  # PPO1: one Adam step size, the value loss weighs 1
        return dict(learning_rate=model.optim_stepsize, n_steps=model.timesteps_per_actorbatch,
                    batch_size=model.optim_batchsize, n_epochs=model.optim_epochs, gamma=model.gamma,
                    gae_lambda=model.lam, clip_range=model.clip_param, ent_coef=model.entcoeff, vf_coef=1.0)
    if algorithm == "TRPO":
        return dict(learning_rate=model.vf_stepsize, n_steps=model.timesteps_per_batch, gamma=model.gamma,
                    gae_lambda=model.lam, target_kl=model.max_kl, cg_max_steps=model.cg_iters,
                    cg_damping=model.cg_damping, n_critic_updates=model.vf_iters)
    kwargs = dict(learning_rate=constant(model.learning_rate, "learning_rate", notes), n_steps=model.n_steps,
                  gamma=model.gamma, gae_lambda=1.0, ent_coef=model.ent_coef, vf_coef=model.vf_coef,
                  max_grad_norm=model.max_grad_norm)
    if algorithm_of(model) == "ACKTR" or hasattr(model, "kfac_clip"):
        notes.append("ACKTR's K-FAC optimizer has no counterpart in the successor: its A2C continues with RMSprop "
                     "and the K-FAC statistics are dropped")
        kwargs.update(gae_lambda=model.gae_lambda if getattr(model, "gae_lambda", None) is not None else 1.0)
    else:
        kwargs.update(use_rms_prop=True, rms_prop_eps=model.epsilon)
    if getattr(model, "lr_schedule", "constant") != "constant":
        notes.append("the '{}' learning-rate schedule continues as the constant {}".format(model.lr_schedule,
                                                                                          kwargs["learning_rate"]))
    return kwargs
