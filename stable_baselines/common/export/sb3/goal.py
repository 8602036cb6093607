"""
HER-wrapped models as the successor's off-policy models with its HER replay buffer and ``MultiInputPolicy``. Our
wrapped model reads the goal observation flattened in the order ``observation``, ``achieved_goal``,
``desired_goal``; the successor's extractor flattens the entries in the order of the Dict space's keys. The columns
of every first layer are reordered to match, so the policy computes the same function.
"""
from typing import Any, Dict, List

import numpy as np
from gymnasium import spaces

from stable_baselines.common.export.sb3.support import import_successor

# the order in which our HER wrapper concatenates the entries of a goal observation
OUR_KEY_ORDER = ("observation", "achieved_goal", "desired_goal")
# the first dense layer of each network of the successor's off-policy policies (they read the features first)
FIRST_LAYERS = ("q_net.q_net.0.weight", "q_net_target.q_net.0.weight", "actor.latent_pi.0.weight",
                "actor.mu.0.weight", "actor_target.mu.0.weight", "critic.qf0.0.weight", "critic.qf1.0.weight",
                "critic_target.qf0.0.weight", "critic_target.qf1.0.weight")
# the successor's names of our goal selection strategies (it has no "random")
STRATEGIES = {"future": "future", "final": "final", "episode": "episode"}


def feature_order(goal_space: spaces.Dict) -> np.ndarray:
    """:return: (np.ndarray) for each feature the successor reads, in its order, the index of our feature"""
    starts: Dict[str, int] = {}
    offset = 0
    for key in OUR_KEY_ORDER:
        starts[key] = offset
        offset += int(np.prod(goal_space.spaces[key].shape or (1,)))
    order: List[int] = []
    for key, space in goal_space.spaces.items():
        order += list(range(starts[key], starts[key] + int(np.prod(space.shape or (1,)))))
    return np.asarray(order)


def reorder_first_layers(values: Dict[str, np.ndarray], goal_space: spaces.Dict) -> Dict[str, np.ndarray]:
    """:return: (dict) the state dict with the feature columns of every first layer in the successor's order"""
    order = feature_order(goal_space)
    reordered = dict(values)
    for key in FIRST_LAYERS:
        if key in values:
            matrix = np.asarray(values[key])
            features = matrix[:, :len(order)][:, order]  # the critics read the action after the features
            reordered[key] = np.ascontiguousarray(np.concatenate([features, matrix[:, len(order):]], axis=1))
    return reordered


def her_arguments(model: Any, notes: List[str]) -> Dict[str, Any]:
    """:return: (dict) the successor's replay buffer arguments for our HER model's settings"""
    strategy = str(getattr(model.goal_selection_strategy, "name", model.goal_selection_strategy)).lower()
    if strategy not in STRATEGIES:
        notes.append("the successor's HER has no '{}' goal selection strategy: it continues with 'future'"
                     .format(strategy))
    buffers = import_successor("stable_baselines3.her.her_replay_buffer")
    return dict(replay_buffer_class=buffers.HerReplayBuffer,
                replay_buffer_kwargs=dict(n_sampled_goal=int(model.n_sampled_goal),
                                          goal_selection_strategy=STRATEGIES.get(strategy, "future")))
