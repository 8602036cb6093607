"""
The off-policy models (DQN, SAC, TD3, DDPG) as the successor's policies: the Q-network and its target
(``q_net``/``q_net_target``), the squashed Gaussian actor and two critics of SAC, the actor, critics and their
targets of TD3. Our MLPs read observations unscaled; their layers become the successor's ``Sequential`` layers.
"""
from typing import Any, Dict, List, Tuple

import numpy as np

from stable_baselines.common.export.sb3.support import (constant, dense, has_parameter, nature_cnn_state,
                                                        torch_activation)


def _acting_policy(model: Any, attribute: str, what: str) -> Any:
    policy = getattr(model, attribute, None)
    if policy is None:
        raise ValueError("Cannot export {} to SB3: the model has no policy yet (build it first)".format(what))
    if getattr(policy, "layer_norm", False):
        raise ValueError("Cannot export {} to SB3: its policy normalises the layers (layer_norm=True), the "
                         "successor's policies have no layer normalisation".format(what))
    return policy


def _mlp(parameters: Dict[str, np.ndarray], scopes: List[str], target: str) -> Dict[str, np.ndarray]:
    """:return: (dict) the dense layers of our ``scopes`` as the layers 0, 2, 4 ... of the ``target`` Sequential"""
    values: Dict[str, np.ndarray] = {}
    for index, scope in enumerate(scopes):
        values["{}.{}.weight".format(target, 2 * index)], values["{}.{}.bias".format(target, 2 * index)] = \
            dense(parameters, scope, "kernel", "bias")
    return values


def _hidden_scopes(parameters: Dict[str, np.ndarray], prefix: str, n_layers: int, what: str) -> List[str]:
    scopes = ["{}fc{}".format(prefix, index) for index in range(n_layers)]
    if has_parameter(parameters, "{}fc{}/kernel".format(prefix, n_layers)):
        raise ValueError("Cannot export {} to SB3: {} has more hidden layers than the policy's layers say"
                         .format(what, prefix))
    return scopes


def _off_policy_kwargs(policy: Any, what: str, algorithm: str) -> Dict[str, Any]:
    if policy.feature_extraction != "mlp":
        raise ValueError("Cannot export {} to SB3: the export takes the MLP policies of {}, this one extracts "
                         "features with a {}".format(what, algorithm, policy.feature_extraction))
    return dict(net_arch=list(policy.layers), activation_fn=torch_activation(policy.activ_fn), normalize_images=False)


def _critics(parameters: Dict[str, np.ndarray], prefix: str, n_layers: int, target: str,
             what: str) -> Dict[str, np.ndarray]:
    """:return: (dict) our critics ``qf1``, ``qf2`` under ``prefix`` as the successor's ``qf0``, ``qf1``"""
    values: Dict[str, np.ndarray] = {}
    for ours, theirs in (("qf1", "qf0"), ("qf2", "qf1")):
        scopes = _hidden_scopes(parameters, "{}values_fn/{}/".format(prefix, ours), n_layers, what)
        scopes.append("{}values_fn/{}/{}".format(prefix, ours, ours))
        values.update(_mlp(parameters, scopes, "{}.{}".format(target, theirs)))
    return values


def _deterministic_actors(parameters: Dict[str, np.ndarray], n_layers: int, output: str,
                          what: str) -> Dict[str, np.ndarray]:
    """:return: (dict) our actor and its target (output layer ``pi/<output>``) as the successor's ``actor.mu``s"""
    values: Dict[str, np.ndarray] = {}
    for ours, theirs in (("model/", "actor"), ("target/", "actor_target")):
        scopes = _hidden_scopes(parameters, ours + "pi/", n_layers, what) + [ours + "pi/" + output]
        values.update(_mlp(parameters, scopes, theirs + ".mu"))
    return values


def sac(model: Any, what: str, notes: List[str]) -> Tuple[Dict[str, Any], Dict[str, np.ndarray], Dict[str, Any]]:
    """:return: (dict, dict, dict) the successor's SAC arguments, its policy's state dict, its other variables"""
    policy = _acting_policy(model, "policy_tf", what)
    parameters = model.get_parameters()
    n_layers = len(policy.layers)
    values = _mlp(parameters, _hidden_scopes(parameters, "model/pi/", n_layers, what), "actor.latent_pi")
    values["actor.mu.weight"], values["actor.mu.bias"] = dense(parameters, "model/pi/dense", "kernel", "bias")
    values["actor.log_std.weight"], values["actor.log_std.bias"] = dense(parameters, "model/pi/dense_1", "kernel",
                                                                         "bias")
    critics = _critics(parameters, "model/", n_layers, "critic", what)
    values.update(critics)
    values.update({"critic_target." + key[len("critic."):]: value for key, value in critics.items()})
    notes.append("SAC's state-value network and its target have no counterpart in the successor's SAC: they are "
                 "dropped, and its target critics start as copies of the critics")
    extra: Dict[str, Any] = {}
    ent_coef: Any = constant(model.ent_coef, "ent_coef", notes) if not isinstance(model.ent_coef, str) else "auto"
    if has_parameter(parameters, "model/log_ent_coef"):
        ent_coef = "auto"
        extra["log_ent_coef"] = float(np.asarray(parameters.get("model/log_ent_coef:0",
                                                                parameters.get("model/log_ent_coef"))))
    kwargs = dict(learning_rate=constant(model.learning_rate, "learning_rate", notes), buffer_size=model.buffer_size,
                  learning_starts=model.learning_starts, batch_size=model.batch_size, tau=model.tau,
                  gamma=model.gamma, train_freq=model.train_freq, gradient_steps=model.gradient_steps,
                  target_update_interval=model.target_update_interval, ent_coef=ent_coef,
                  policy_kwargs=_off_policy_kwargs(policy, what, "SAC"))
    if model.target_entropy != "auto":
        kwargs["target_entropy"] = float(model.target_entropy)
    return kwargs, values, extra


def td3(model: Any, what: str, notes: List[str]) -> Tuple[Dict[str, Any], Dict[str, np.ndarray], Dict[str, Any]]:
    """:return: (dict, dict, dict) the successor's TD3 arguments, its policy's state dict, its other variables"""
    policy = _acting_policy(model, "policy_tf", what)
    parameters = model.get_parameters()
    n_layers = len(policy.layers)
    values = _deterministic_actors(parameters, n_layers, "dense", what)
    for ours, theirs in (("model/", "critic"), ("target/", "critic_target")):
        values.update(_critics(parameters, ours, n_layers, theirs, what))
    if getattr(model, "action_noise", None) is not None:
        notes.append("the action noise {!r} is not carried over: give the successor's TD3 an action_noise of its "
                     "own".format(model.action_noise))
    kwargs = dict(learning_rate=constant(model.learning_rate, "learning_rate", notes), buffer_size=model.buffer_size,
                  learning_starts=model.learning_starts, batch_size=model.batch_size, tau=model.tau,
                  gamma=model.gamma, train_freq=model.train_freq, gradient_steps=model.gradient_steps,
                  policy_delay=model.policy_delay, target_policy_noise=model.target_policy_noise,
                  target_noise_clip=model.target_noise_clip,
                  policy_kwargs=_off_policy_kwargs(policy, what, "TD3"))
    return kwargs, values, {}


def _q_network(parameters: Dict[str, np.ndarray], prefix: str, policy: Any, target: str,
               observation_shape: Tuple[int, ...], what: str) -> Dict[str, np.ndarray]:
    """:return: (dict) our Q-network under ``prefix`` as the successor's ``target`` QNetwork"""
    values: Dict[str, np.ndarray] = {}
    if policy.feature_extraction == "cnn":
        values.update(nature_cnn_state(parameters, prefix, observation_shape, target + ".features_extractor"))
        scopes = [prefix + "fully_connected"]
    else:
        scopes = [prefix + ("fully_connected" if index == 0 else "fully_connected_{}".format(index))
                  for index in range(len(policy.layers) + 1)]
        if has_parameter(parameters, prefix + "fully_connected_{}/weights".format(len(policy.layers) + 1)):
            raise ValueError("Cannot export {} to SB3: its Q-network has more layers than its policy says"
                             .format(what))
    for index, scope in enumerate(scopes):
        weight, bias = dense(parameters, scope, "weights", "biases")
        values["{}.q_net.{}.weight".format(target, 2 * index)] = weight
        values["{}.q_net.{}.bias".format(target, 2 * index)] = bias
    return values


def dqn(model: Any, what: str, notes: List[str]) -> Tuple[Dict[str, Any], Dict[str, np.ndarray], Dict[str, Any]]:
    """:return: (dict, dict, dict) the successor's DQN arguments, its policy's state dict, its other variables"""
    policy = _acting_policy(model, "step_model", what)
    if policy.dueling:
        raise ValueError("Cannot export {} to SB3: its Q-network is dueling (the default of DQN's policies), the "
                         "successor's DQN has no dueling network; train with policy_kwargs=dict(dueling=False) to "
                         "carry it over".format(what))
    if model.param_noise:
        raise ValueError("Cannot export {} to SB3: it explores with parameter noise (param_noise=True), which the "
                         "successor's DQN does not have".format(what))
    parameters = model.get_parameters()
    shape = tuple(model.observation_space.shape or ())
    values = _q_network(parameters, "deepq/model/action_value/", policy, "q_net", shape, what)
    values.update(_q_network(parameters, "deepq/target_q_func/model/action_value/", policy, "q_net_target", shape,
                             what))
    if model.double_q:
        notes.append("the successor's DQN has no double Q-learning: it continues with the plain target")
    if model.prioritized_replay:
        notes.append("the successor's DQN has no prioritized replay: it continues with a uniform buffer")
    policy_kwargs: Dict[str, Any] = dict(normalize_images=policy.feature_extraction == "cnn")
    if policy.feature_extraction == "cnn":
        policy_kwargs["net_arch"] = []
    else:
        policy_kwargs.update(net_arch=list(policy.layers), activation_fn=torch_activation(policy.act_fun))
    kwargs = dict(learning_rate=constant(model.learning_rate, "learning_rate", notes), buffer_size=model.buffer_size,
                  learning_starts=model.learning_starts, batch_size=model.batch_size, gamma=model.gamma,
                  train_freq=model.train_freq, target_update_interval=model.target_network_update_freq,
                  exploration_fraction=model.exploration_fraction,
                  exploration_initial_eps=model.exploration_initial_eps,
                  exploration_final_eps=model.exploration_final_eps, policy_kwargs=policy_kwargs,
                  policy="CnnPolicy" if policy.feature_extraction == "cnn" else "MlpPolicy")
    return kwargs, values, {}


def ddpg(model: Any, what: str, notes: List[str]) -> Tuple[Dict[str, Any], Dict[str, np.ndarray], Dict[str, Any]]:
    """
    :return: (dict, dict, dict) the successor's DDPG arguments, its policy's state dict (the actor and its target;
        our critic takes the action after its first layer, the successor's at its input, so the successor's own
        critic is kept, as the third item says)
    """
    policy = _acting_policy(model, "policy_tf", what)
    if model.normalize_observations:
        raise ValueError("Cannot export {} to SB3: it normalises observations inside the model "
                         "(normalize_observations=True, with a standard deviation floor of 0.01 and clipping to {}), "
                         "which neither the successor's DDPG nor its VecNormalize compute".format(
                             what, model.observation_range))
    parameters = model.get_parameters()
    n_layers = len(policy.layers)
    values = _deterministic_actors(parameters, n_layers, "pi", what)
    notes.append("DDPG's critic takes the action after its first layer, the successor's at its input: the policy "
                 "is carried over exactly, the critic and its target start afresh")
    low, high = model.observation_range
    space = model.observation_space
    if not (np.all(np.asarray(space.low) >= low) and np.all(np.asarray(space.high) <= high)):
        notes.append("our DDPG clips observations to [{}, {}] before its actor, the successor's does not: "
                     "observations outside that range are acted on differently (clip them in an observation "
                     "wrapper to keep the policy)".format(low, high))
    if model.param_noise is not None or model.action_noise is not None:
        notes.append("the exploration noise is not carried over: give the successor's DDPG an action_noise")
    kwargs = dict(learning_rate=model.actor_lr, buffer_size=model.buffer_size, learning_starts=0,
                  batch_size=model.batch_size, tau=model.tau, gamma=model.gamma,
                  policy_kwargs=_off_policy_kwargs(policy, what, "DDPG"))
    return kwargs, values, {"successor_keeps": ("critic.", "critic_target.")}
