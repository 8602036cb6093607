"""DDPG on the off-policy loop: the callback events of its cycles, the names callbacks see, log_interval checks,
and the epoch table's cadence."""
import gymnasium
import numpy as np
import pytest
from gymnasium import spaces

pytest.importorskip("mpi4py", reason="DDPG needs mpi4py")

from stable_baselines import logger  # noqa: E402
from stable_baselines.ddpg import DDPG, MlpPolicy  # noqa: E402

from callback_helpers import HookRecorder  # noqa: E402  (tests/ helper)

# the names the original's training loop had at the first on_step (without an evaluation env)
FIRST_STEP_NAMES = {
    "self", "total_timesteps", "callback", "log_interval", "tb_log_name", "reset_num_timesteps", "replay_wrapper",
    "progress_bar", "writer", "rank", "eval_episode_rewards_history", "episode_rewards_history",
    "episode_successes", "eval_env", "obs", "_", "auto_reset", "obs_", "eval_obs", "episode_reward", "episode_step",
    "episodes", "step", "total_steps", "start_time", "epoch_episode_rewards", "epoch_episode_steps",
    "epoch_actor_losses", "epoch_critic_losses", "epoch_adaptive_distances", "eval_episode_rewards", "eval_qs",
    "epoch_actions", "epoch_qs", "epoch_episodes", "epoch", "action", "q_value", "unscaled_action", "new_obs",
    "reward", "terminated", "truncated", "info", "done"}
AFTER_TRAINING_NAMES = {"new_obs_", "reward_", "t_train", "distance", "critic_loss", "actor_loss"}
AFTER_TABLE_NAMES = {"mpi_size", "duration", "stats", "combined_stats", "combined_stats_sums", "keys", "key",
                     "as_scalar"}
EVAL_NAMES = {"eval_episode_reward", "eval_action", "eval_q", "eval_r", "eval_terminated", "eval_truncated",
              "eval_done"}


class CountingEnv(gymnasium.Env):
    """obs = [t / 10], action Box(-1, 1, (1,)); episodes of ``ep_len`` steps ending by termination."""

    observation_space = spaces.Box(-10.0, 10.0, shape=(1,), dtype=np.float32)
    action_space = spaces.Box(-1.0, 1.0, shape=(1,), dtype=np.float32)

    def __init__(self, ep_len=7):
        self.ep_len = ep_len
        self.t = 0
        self.n_steps = 0

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        self.t = 0
        return np.array([0.0], dtype=np.float32), {}

    def step(self, action):
        self.t += 1
        self.n_steps += 1
        return np.array([self.t / 10], dtype=np.float32), -float(np.abs(action).sum()), self.t >= self.ep_len, False, {}


class Recorder(HookRecorder):
    def __init__(self):
        super().__init__()
        self.names = []
        self.episode_ends = []

    def _on_step(self):
        self.events.append("step")
        self.names.append(set(self.locals))
        if self.locals["done"]:
            self.episode_ends.append(np.array(self.locals["new_obs"]))
        return True


def _model(eval_env=None, **kwargs):
    params = dict(nb_rollout_steps=10, nb_train_steps=3, nb_eval_steps=4, batch_size=8, seed=0)
    params.update(kwargs)
    return DDPG(MlpPolicy, CountingEnv(), eval_env=eval_env, **params)


def _cycle(n_steps=10):
    return ["rollout_start"] + ["step"] * n_steps + ["rollout_end"]


def test_events_without_evaluation_env():
    """After the last full rollout a new one starts (the original's loop began it before it noticed the end)."""
    recorder = Recorder()
    _model().learn(20, callback=recorder)
    assert recorder.events == ["start"] + _cycle() + _cycle() + ["rollout_start", "end"]
    # a run that ends within a rollout
    recorder = Recorder()
    _model().learn(15, callback=recorder)
    assert recorder.events == ["start"] + _cycle() + ["rollout_start"] + ["step"] * 5 + ["end"]


def test_events_with_evaluation_env():
    """With an evaluation env, the end of training is noticed in the evaluation: no new rollout then."""
    eval_env = CountingEnv()
    recorder = Recorder()
    _model(eval_env=eval_env).learn(20, callback=recorder)
    assert recorder.events == ["start"] + _cycle() + _cycle() + ["end"]
    assert eval_env.n_steps == 4  # only after the first rollout


def test_callback_names_appear_as_in_the_original():
    recorder = Recorder()
    _model(eval_env=CountingEnv(), batch_size=16).learn(25, callback=recorder, log_interval=1)
    assert recorder.names[0] == FIRST_STEP_NAMES
    assert recorder.names[1] == FIRST_STEP_NAMES | {"new_obs_", "reward_"}
    # after the first rollout (10 transitions, less than a batch: no gradient step, no table), an episode end
    # (7 steps) and the evaluation
    assert recorder.names[10] == FIRST_STEP_NAMES | EVAL_NAMES | {"new_obs_", "reward_", "t_train",
                                                                  "maybe_is_success", "mpi_size"}
    # after the second rollout: gradient steps and the first table
    assert recorder.names[20] == recorder.names[10] | AFTER_TRAINING_NAMES | AFTER_TABLE_NAMES
    assert recorder.names[-1] == recorder.names[20]


def test_step_counts_and_stored_terminal_observation():
    class Values(Recorder):
        def _on_step(self):
            self.names.append((self.locals["_"], self.locals["total_steps"], self.locals["episode_step"],
                               self.locals["episodes"], self.locals.get("new_obs_")))
            return True

    recorder = Values()
    _model().learn(12, callback=recorder)
    # "_" counts within the rollout, total_steps within the call, episode_step within the episode
    assert [entry[0] for entry in recorder.names] == list(range(10)) + [0, 1]
    assert [entry[1] for entry in recorder.names] == list(range(12))
    assert [entry[2] for entry in recorder.names] == list(range(7)) + list(range(5))
    assert [entry[3] for entry in recorder.names] == [0] * 7 + [1] * 5
    # after the episode end (step 7) new_obs_ is the last observation of the episode, not the reset one
    np.testing.assert_allclose(recorder.names[7][4], [0.7])


@pytest.mark.parametrize("value", [0, -1, 1.5, None])
def test_log_interval_must_count_cycles(value):
    env = CountingEnv()
    model = DDPG(MlpPolicy, env, seed=0)
    with pytest.raises(ValueError, match=r"^log_interval must be a positive int, got {}$".format(value)):
        model.learn(10, log_interval=value)
    assert env.n_steps == 0


def test_the_epoch_table_every_log_interval_cycles(tmp_path):
    logger.configure(str(tmp_path), ["csv"])
    try:
        model = _model(nb_rollout_steps=5, verbose=1)
        model.learn(40, log_interval=2)
    finally:
        logger.reset()
    rows = (tmp_path / "progress.csv").read_text().strip().splitlines()
    header = rows[0].split(",")
    epochs = [float(row.split(",")[header.index("total/epochs")]) for row in rows[1:]]
    episodes = [float(row.split(",")[header.index("total/episodes")]) for row in rows[1:]]
    # 8 cycles of 5 steps, a table after every 2nd one (the buffer has a batch of 8 from the 2nd cycle on)
    assert epochs == [1, 2, 3, 4]
    assert episodes == [1, 2, 4, 5]  # episodes of 7 steps finished by steps 10, 20, 30, 40
