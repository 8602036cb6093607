"""
The values of one DQN ``learn`` run that its hooks share, under the names callbacks see in ``self.locals``.
"""
from typing import Any, Optional

import numpy as np

from stable_baselines.common.model.off_policy_loop import UNSET, LearnArguments, OffPolicyLoopState


class DQNLoopState(OffPolicyLoopState):
    """
    The loop state of a DQN run, with DQN's own values. Their names are those of the local variables that
    callbacks have always found in ``self.locals`` (see ``DQN._callback_locals``).

    :param args: (LearnArguments) the arguments of ``learn``
    :param callback: (BaseCallback) the callback made by the learn frame
    :param writer: (tf.summary.FileWriter) the TensorBoard writer, or None
    :param auto_reset: (bool) whether the env resets itself at the end of an episode (a VecEnv)
    :param new_tb_log: (bool) whether this ``learn`` starts a new TensorBoard run
    """

    def __init__(self, args: LearnArguments, callback: Any, writer: Any, auto_reset: bool, new_tb_log: bool):
        super().__init__(args, callback, writer, auto_reset)
        self.new_tb_log = new_tb_log
        self.prioritized_replay_beta_iters: Any = UNSET
        self.mean_100ep_reward: Optional[float] = None
        # the episodes counted in the logger table (the running one included)
        self.episodes_so_far: Any = UNSET
        # acting
        self.numpy_q: Any = UNSET
        self.rng: Any = UNSET
        self.n_actions: Any = UNSET
        self.last_eps: Any = UNSET
        # with action masks: the allowed actions after the last env step, and those after each sampled transition
        self.next_action_mask: Optional[np.ndarray] = None
        self.next_action_masks: Optional[np.ndarray] = None
        self.reset: Any = UNSET
        self.kwargs: Any = UNSET
        self.update_eps: Any = UNSET
        self.update_param_noise_threshold: Any = UNSET
        self.q_values: Any = UNSET
        # training
        self.can_sample: Any = UNSET
        self.experience: Any = UNSET
        self.obses_t: Any = UNSET
        self.actions: Any = UNSET
        self.rewards: Any = UNSET
        self.obses_tp1: Any = UNSET
        self.dones: Any = UNSET
        self.weights: Any = UNSET
        self.batch_idxes: Any = UNSET
        self.summary: Any = UNSET
        self.run_options: Any = UNSET
        self.run_metadata: Any = UNSET
        self.out: Any = UNSET
        self.forward: Any = UNSET
        self.td_errors: Any = UNSET
        self.new_priorities: Any = UNSET


# the callback-visible values of a DQN run besides those of every off-policy run
DQN_NAMES = ("new_tb_log", "prioritized_replay_beta_iters", "mean_100ep_reward", "numpy_q", "rng", "n_actions",
              "last_eps", "reset", "kwargs", "update_eps", "update_param_noise_threshold", "q_values", "env_action",
              "maybe_is_success", "can_sample", "experience", "obses_t", "actions", "rewards", "obses_tp1", "dones",
              "weights", "batch_idxes", "summary", "run_options", "run_metadata", "out", "forward", "td_errors",
              "new_priorities")
