"""The off-policy env-step loop (common/model/off_policy.py): order of the hooks, checks of its input."""
import contextlib

import gymnasium as gym
import numpy as np
import pytest

from stable_baselines.common.model.arguments import check_positive_int
from stable_baselines.common.model.off_policy import (ABSENT, CallbackNames, LearnArguments, OffPolicyLoopState,
                                                      OffPolicyRLModel, check_finite_losses)


class _CountingEnv(gym.Env):
    """Observation = the step index within the episode; episodes of 3 steps; reward 1 per step."""

    observation_space = gym.spaces.Box(0, 10, shape=(1,), dtype=np.float32)
    action_space = gym.spaces.Discrete(2)

    def __init__(self):
        self.t = 0
        self.resets = 0

    def reset(self, *, seed=None, options=None):
        self.t = 0
        self.resets += 1
        return np.array([0.0], dtype=np.float32), {"reset": self.resets}

    def step(self, action):
        self.t += 1
        return np.array([self.t], dtype=np.float32), 1.0, self.t == 3, False, {"is_success": self.t == 3}


class _Callback:
    reads_locals = True

    def __init__(self, events, stop_at=None):
        self.events, self.stop_at, self.locals, self.n_steps = events, stop_at, None, 0

    def on_training_start(self, locals_, globals_):
        self.locals = locals_
        self.events.append("training_start")

    def on_rollout_start(self):
        self.events.append("rollout_start")

    def on_rollout_end(self):
        self.events.append("rollout_end")

    def update_locals(self, locals_):
        self.locals.update(locals_)

    def on_step(self):
        self.n_steps += 1
        self.events.append("on_step")
        return self.stop_at is None or self.n_steps < self.stop_at

    def on_training_end(self):
        self.events.append("training_end")


class _FakeModel(OffPolicyRLModel):
    """Just what the loop touches (no graph, no replay buffer), each hook recording its call."""

    _train_before_episode_end = True
    _callback_names = CallbackNames({"step": "state.step", "obs": "state.obs", "done": "state.done"})

    def __init__(self, train_first=True, losses=None):
        self._train_before_episode_end = train_first
        self.env = _CountingEnv()
        self.observation_space = self.env.observation_space  # the loop checks the observations against it
        self._vec_normalize_env = None
        self.num_timesteps = 0
        self.events = []
        self.stored = []
        self.losses = losses
        self.callback = None

    @contextlib.contextmanager
    def _learning(self, total_timesteps, callback, tb_log_name, reset_num_timesteps, replay_wrapper, progress_bar,
                  log_interval=None):
        # the check of the real learn frame (BaseRLModel._learning)
        if log_interval is not None:
            check_positive_int("log_interval", log_interval)
        self.callback = callback
        yield callback, None

    @contextlib.contextmanager
    def _training_run(self, args, callback, writer):
        self.events.append("begin")
        yield OffPolicyLoopState(args, callback, writer, auto_reset=False)
        self.events.append("end")

    def _choose_action(self, state):
        self.events.append("choose")
        return np.array([0.5]), 1

    def _store_transition(self, state):
        self.events.append("store")
        self.stored.append((float(state.obs_[0]), float(state.new_obs[0]), state.done))
        return state.new_obs, state.reward

    def _train_when_due(self, state):
        self.events.append("train")
        return self.losses

    def _on_episode_end(self, state):
        self.events.append("episode_end")

    def _end_step(self, state):
        self.events.append("end_step")

    def _callback_locals(self, state):
        self.last_state = state
        return super()._callback_locals(state)

    # the model's abstract methods, never called by the loop
    def setup_model(self):
        raise AssertionError("not called")

    learn = predict = action_probability = get_parameter_list = _get_pretrain_placeholders = setup_model


def _run(model, total=4, stop_at=None, log_interval=1):
    events = model.events
    callback = _Callback(events, stop_at)
    model._run_loop(total, callback, log_interval, "run", True, None, False)
    return model, callback


@pytest.mark.parametrize("train_first", [True, False])
def test_hook_order(train_first):
    model, _ = _run(_FakeModel(train_first=train_first), total=3)
    step = ["choose", "on_step", "store"]
    training = ["train"]
    head = ["begin", "training_start", "rollout_start"]
    plain = step + training + ["end_step"]
    last = step + (training + ["episode_end"] if train_first else ["episode_end"] + training) + ["end_step"]
    assert model.events == head + plain + plain + last + ["end", "training_end"]
    assert model.num_timesteps == 3
    # the env was reset at the start and after the episode end (it does not reset itself)
    assert model.env.resets == 2
    state = model.last_state
    assert state.episode_rewards == [3.0, 0.0]
    assert state.episode_successes == [1.0]
    assert state.num_episodes == 1
    assert [obs for obs, _, _ in model.stored] == [0.0, 1.0, 2.0]
    assert model.stored[-1] == (2.0, 3.0, True)


def test_callback_stop_skips_the_rest_of_the_step():
    model, callback = _run(_FakeModel(), total=10, stop_at=2)
    assert model.num_timesteps == 2
    assert model.events[-4:] == ["choose", "on_step", "end", "training_end"]
    assert len(model.stored) == 1
    # names appear once they have a value; the dict given at the start is the one updated later
    assert callback.locals["step"] == 1 and callback.locals["done"] is False


def test_callback_locals_leave_out_unset_values():
    model = _FakeModel()
    events = []
    callback = _Callback(events)
    args = LearnArguments(1, callback, 1, "run", True, None, False)
    state = OffPolicyLoopState(args, callback, None, auto_reset=True)
    assert model._callback_locals(state) == {"obs": None}
    assert not hasattr(state, "step") and repr(ABSENT) == "ABSENT"


def test_non_finite_losses_stop_training_with_the_timestep():
    model = _FakeModel(losses=[(0.5, float("nan"))])
    with pytest.raises(RuntimeError, match=r"timestep 1\b.*VecCheckNan"):
        _run(model, total=5)
    assert model.num_timesteps == 1
    check_finite_losses([(1.0, 2.0), (3.0, 4.0)], 7)
    with pytest.raises(RuntimeError, match="timestep 7"):
        check_finite_losses(np.array([1.0, np.inf], dtype=np.float32), 7)


@pytest.mark.parametrize("value", [0, -1, 2.5, "4", True])
def test_log_interval_goes_to_the_learn_frame(value):
    # the loop hands log_interval to the learn frame, which refuses it before any hook runs
    model = _FakeModel()
    with pytest.raises(ValueError, match=r"^log_interval must be a positive int, got {}$".format(
            repr(value).replace(".", r"\."))):
        _run(model, log_interval=value)
    assert model.events == []


@pytest.mark.parametrize("value", [None, 1, np.int64(3)])
def test_log_interval_accepted(value):
    model = _FakeModel()
    _run(model, total=2, log_interval=value)
    assert model.num_timesteps == 2
