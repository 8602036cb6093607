"""
DQN on the shared off-policy loop: what callbacks see in ``self.locals`` (names and values), and the
order of the hooks around a training step.
"""
import numpy as np
import pytest

from stable_baselines import DQN
from stable_baselines.common.vec_env import VecEnv

from callback_helpers import HookRecorder  # pylint: disable=wrong-import-order

FIRST_STEP = {"_", "action", "callback", "done", "env_action", "episode_rewards", "episode_successes", "info",
              "is_vec_env", "kwargs", "last_eps", "log_interval", "mean_100ep_reward", "n_actions", "new_obs",
              "new_tb_log", "numpy_q", "obs", "obs_", "progress_bar", "q_values", "replay_wrapper", "reset",
              "reset_num_timesteps", "rew", "rng", "self", "tb_log_name", "terminated", "total_timesteps",
              "truncated", "update_eps", "update_param_noise_threshold", "writer"}
AFTER_TRAINING = FIRST_STEP | {"actions", "batch_idxes", "can_sample", "dones", "forward", "maybe_is_success",
                               "num_episodes", "obses_t", "obses_tp1", "out", "reward_", "rewards", "td_errors",
                               "weights"}
PRIORITIZED = {"experience", "new_priorities", "prioritized_replay_beta_iters"}


class Recorder(HookRecorder):
    def __init__(self):
        super().__init__(names=("training_start", "rollout_start", "rollout_end", None))
        self.first = None

    def _on_step(self):
        if self.first is None:
            self.first = dict(self.locals)
            assert self.locals["_"] == 0 and self.locals["self"].num_timesteps == 1
        assert self.locals["_"] == self.n_calls - 1
        self.events.append("step")
        return True


@pytest.mark.parametrize("prioritized", [False, True])
def test_callback_locals_keep_the_original_names(prioritized):
    model = DQN("MlpPolicy", "CartPole-v1", learning_starts=10, batch_size=8, prioritized_replay=prioritized,
                seed=0, n_cpu_tf_sess=1)
    recorder = Recorder()
    model.learn(60, callback=recorder)
    extra = PRIORITIZED if prioritized else set()
    assert set(recorder.first) == FIRST_STEP | (extra & {"prioritized_replay_beta_iters"})
    assert set(recorder.locals) == AFTER_TRAINING | extra
    last = recorder.locals
    assert last["total_timesteps"] == 60 and last["new_tb_log"] is True
    assert last["is_vec_env"] is isinstance(model.env, VecEnv)  # an env id is made into a VecEnv of one env
    assert isinstance(last["rew"], float) and last["obs"].shape == last["new_obs"].shape == (4,)
    # num_episodes counts the running episode, as the logger table's "episodes"
    assert last["num_episodes"] == len(last["episode_rewards"])
    assert last["obses_t"].shape == (8, 4) and last["td_errors"].shape == (8,)
    assert np.all(np.isfinite(last["td_errors"]))
    if prioritized:
        assert last["prioritized_replay_beta_iters"] == 60
        np.testing.assert_allclose(last["new_priorities"], np.abs(last["td_errors"]) + 1e-6)


def test_training_steps_are_framed_by_rollout_events():
    model = DQN("MlpPolicy", "CartPole-v1", learning_starts=10, batch_size=8, train_freq=4, seed=0,
                n_cpu_tf_sess=1)
    recorder = Recorder()
    model.learn(30, callback=recorder)
    events = recorder.events
    assert events[:2] == ["training_start", "rollout_start"]
    # a gradient step every 4 steps past learning_starts=10: after steps 12, 16, 20, 24, 28
    trained_after = [events[:idx].count("step") for idx, name in enumerate(events) if name == "rollout_end"]
    assert trained_after == [12, 16, 20, 24, 28]
    assert events.count("rollout_start") == 1 + len(trained_after)
