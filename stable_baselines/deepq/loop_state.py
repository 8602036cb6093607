"""
The values of one DQN ``learn`` run that its hooks share, and the names under which callbacks see them in
``self.locals`` (those of the original's ``learn``).
"""
from typing import Any, Dict, Optional, Tuple

import numpy as np

from stable_baselines.common.model.off_policy import ABSENT, LOOP_NAMES, LearnArguments, OffPolicyLoopState


class DQNLoopState(OffPolicyLoopState):
    """
    The loop state of a DQN run, with DQN's own values; those declared without a value exist once the run set them.

    :param args: (LearnArguments) the arguments of ``learn``
    :param callback: (BaseCallback) the callback made by the learn frame
    :param writer: (tf.summary.FileWriter) the TensorBoard writer, or None
    :param auto_reset: (bool) whether the env resets itself at the end of an episode (a VecEnv)
    :param new_tb_log: (bool) whether this ``learn`` starts a new TensorBoard run
    :param numpy_q: (Any) the NumPy Q-network acting without a session call (None: the act graph acts)
    :param rng: (np.random.Generator) the generator of the NumPy path's random actions
    :param n_actions: (int) the number of actions
    """

    # prioritized replay: the steps over which beta rises to 1
    prioritized_replay_beta_iters: int
    # the episodes counted in the logger table (the running one included)
    episodes_so_far: int
    # the last action choice: epsilon, the act graph's extra arguments, the NumPy Q-values (None when the NumPy
    # network could not take the observation)
    update_eps: float
    kwargs: Dict[str, Any]
    q_values: Optional[np.ndarray]
    # the last training step: whether the buffer held a batch, the minibatch (observations, actions, rewards, next
    # observations, dones, importance weights, indices or None), its TD errors, and what the session call returned
    # (the fused call's results and the NumPy network they went to; or the summary and the trace of TensorBoard)
    can_sample: bool
    batch: Tuple[Any, ...]
    td_errors: np.ndarray
    out: Dict[str, np.ndarray]
    forward: Any
    summary: Any
    run_options: Any
    run_metadata: Any

    def __init__(self, args: LearnArguments, callback: Any, writer: Any, auto_reset: bool, new_tb_log: bool,
                 numpy_q: Any, rng: np.random.Generator, n_actions: int) -> None:
        super().__init__(args, callback, writer, auto_reset)
        self.new_tb_log = new_tb_log
        self.mean_100ep_reward: Optional[float] = None
        self.numpy_q = numpy_q
        self.rng = rng
        self.n_actions = n_actions
        # the last epsilon of the NumPy path (None until it acted)
        self.last_eps: Optional[float] = None
        # parameter noise: a new perturbation at the next action
        self.reset = True
        # with action masks: the allowed actions after each transition of the minibatch
        self.next_action_masks: Optional[np.ndarray] = None


def _batch_field(index: int) -> Any:
    """:return: (callable) the reader of one column of the last minibatch"""
    def read(model: Any, state: DQNLoopState) -> Any:
        batch = getattr(state, "batch", None)
        return ABSENT if batch is None else batch[index]
    return read


def _prioritized(read: Any) -> Any:
    """:return: (callable) ``read``, left out without prioritized replay or before the first training step"""
    def read_prioritized(model: Any, state: DQNLoopState) -> Any:
        return read(model, state) if model.prioritized_replay and hasattr(state, "td_errors") else ABSENT
    return read_prioritized


# what callbacks see: the names of the original's local variables (``_`` the step index, ``rew`` the reward,
# ``num_episodes`` counting the running episode) and those of the NumPy acting path
DQN_NAMES = LOOP_NAMES.extended({
    "_": "state.step", "rew": "state.reward", "is_vec_env": "state.auto_reset", "new_tb_log": "state.new_tb_log",
    "prioritized_replay_beta_iters": "state.prioritized_replay_beta_iters",
    "mean_100ep_reward": "state.mean_100ep_reward", "numpy_q": "state.numpy_q", "rng": "state.rng",
    "n_actions": "state.n_actions", "last_eps": "state.last_eps", "reset": "state.reset", "kwargs": "state.kwargs",
    "update_eps": "state.update_eps",
    "update_param_noise_threshold": lambda model, state: (state.kwargs.get("update_param_noise_threshold", 0.)
                                                          if hasattr(state, "kwargs") else ABSENT),
    "q_values": "state.q_values", "env_action": "state.env_action", "maybe_is_success": "state.maybe_is_success",
    "can_sample": "state.can_sample", "experience": _prioritized(lambda model, state: state.batch),
    "obses_t": _batch_field(0), "actions": _batch_field(1), "rewards": _batch_field(2), "obses_tp1": _batch_field(3),
    "dones": _batch_field(4), "weights": _batch_field(5), "batch_idxes": _batch_field(6), "summary": "state.summary",
    "run_options": "state.run_options", "run_metadata": "state.run_metadata", "out": "state.out",
    "forward": "state.forward", "td_errors": "state.td_errors",
    "new_priorities": _prioritized(lambda model, state: np.abs(state.td_errors) + model.prioritized_replay_eps),
    "num_episodes": "state.episodes_so_far",
}, without=("step", "reward"))
