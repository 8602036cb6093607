import os

import numpy as np
import pytest
from gymnasium import spaces

from stable_baselines import logger
from stable_baselines.common.callbacks import (BaseCallback, CallbackList, CheckpointCallback, ConvertCallback,
                                               EvalCallback, EventCallback, EveryNTimesteps,
                                               StopTrainingOnRewardThreshold)
from stable_baselines.common.identity_env import IdentityEnv
from stable_baselines.common.vec_env import DummyVecEnv, VecNormalize


class FakePolicy:
    recurrent = False


class FakeModel:
    """
    Stand-in for an RL model: exposes get_env(), num_timesteps, save(), predict() and a learn() loop
    that drives the callback like the algorithms do.
    """
    policy = FakePolicy

    def __init__(self, env, answer_observation=True):
        self.env = env
        self.num_timesteps = 0
        self.verbose = 0
        self.saved = []
        self.answer_observation = answer_observation

    def get_env(self):
        return self.env

    def save(self, save_path):
        self.saved.append(save_path)
        with open(save_path + ".zip", "w") as file_handler:
            file_handler.write("model")

    def predict(self, observation, state=None, mask=None, deterministic=False):
        observation = np.asarray(observation)
        if self.answer_observation:
            return observation.copy(), state
        return (observation + 1) % 2, state

    def _init_callback(self, callback):
        if isinstance(callback, list):
            callback = CallbackList(callback)
        if not isinstance(callback, BaseCallback):
            callback = ConvertCallback(callback)
        callback.init_callback(self)
        return callback

    def learn(self, total_timesteps, callback=None, n_steps=5):
        """Rollouts of n_steps env steps; returns the number of on_step calls done."""
        callback = self._init_callback(callback)
        n_envs = getattr(self.env, "num_envs", 1)
        callback.on_training_start(locals(), globals())
        obs = self.env.reset()
        steps = 0
        stopped = False
        while self.num_timesteps < total_timesteps and not stopped:
            callback.on_rollout_start()
            for _ in range(n_steps):
                actions, _ = self.predict(obs)
                obs, rewards, dones, infos = self.env.step(actions)
                self.num_timesteps += n_envs
                steps += 1
                callback.update_locals(locals())
                if callback.on_step() is False:
                    stopped = True
                    break
            callback.on_rollout_end()
        callback.on_training_end()
        return steps


def make_vec_env(n_envs=1, ep_length=5):
    return DummyVecEnv([lambda: IdentityEnv(dim=2, ep_length=ep_length) for _ in range(n_envs)])


class RecorderCallback(BaseCallback):
    """Records every event in a shared list."""

    def __init__(self, name, events, stop_at=None):
        super(RecorderCallback, self).__init__()
        self.name = name
        self.events = events
        self.stop_at = stop_at

    def _init_callback(self):
        self.events.append((self.name, "init"))

    def _on_training_start(self):
        self.events.append((self.name, "training_start"))

    def _on_rollout_start(self):
        self.events.append((self.name, "rollout_start"))

    def _on_step(self):
        self.events.append((self.name, "step", self.num_timesteps))
        return self.stop_at is None or self.n_calls < self.stop_at

    def _on_rollout_end(self):
        self.events.append((self.name, "rollout_end"))

    def _on_training_end(self):
        self.events.append((self.name, "training_end"))


def test_base_callback_is_abstract_and_attributes():
    with pytest.raises(TypeError):
        BaseCallback()
    env = make_vec_env()
    model = FakeModel(env)
    callback = RecorderCallback("a", [])
    model.learn(10, callback)
    assert callback.model is model
    assert callback.training_env is env
    assert callback.logger is logger
    assert callback.n_calls == 10
    assert callback.num_timesteps == 10
    assert callback.locals["self"] is model
    assert "rewards" in callback.locals  # updated by update_locals
    assert callback.parent is None


def test_convert_callback_stop_semantics():
    seen = []

    def continue_with_none(locals_, globals_):
        seen.append(locals_["self"].num_timesteps)

    model = FakeModel(make_vec_env())
    assert model.learn(10, continue_with_none) == 10
    assert seen == list(range(1, 11))

    def stop_at_3(locals_, globals_):
        return locals_["self"].num_timesteps < 3

    model = FakeModel(make_vec_env())
    assert model.learn(100, stop_at_3) == 3

    def always_true(locals_, globals_):
        return True

    model = FakeModel(make_vec_env())
    assert model.learn(10, always_true) == 10
    assert ConvertCallback(None)._on_step() is True
    with pytest.raises(TypeError, match="callback"):
        ConvertCallback(42)


def test_callback_list_order_and_stop():
    events = []
    first = RecorderCallback("first", events)
    second = RecorderCallback("second", events, stop_at=2)
    model = FakeModel(make_vec_env())
    assert model.learn(100, [first, second], n_steps=5) == 2
    assert events == [
        ("first", "init"), ("second", "init"),
        ("first", "training_start"), ("second", "training_start"),
        ("first", "rollout_start"), ("second", "rollout_start"),
        ("first", "step", 1), ("second", "step", 1),
        ("first", "step", 2), ("second", "step", 2),
        ("first", "rollout_end"), ("second", "rollout_end"),
        ("first", "training_end"), ("second", "training_end"),
    ]
    # both children got the locals of the training loop
    assert first.locals["self"] is model and second.locals["self"] is model
    with pytest.raises(TypeError, match="BaseCallback"):
        CallbackList([first, lambda a, b: True])


def test_every_n_timesteps():
    events = []
    child = RecorderCallback("child", events)
    event_callback = EveryNTimesteps(n_steps=10, callback=child)
    assert child.parent is event_callback
    model = FakeModel(make_vec_env(n_envs=4))  # num_timesteps grows by 4 per step
    model.learn(48, event_callback, n_steps=4)
    steps = [event[2] for event in events if event[1] == "step"]
    assert steps == [12, 24, 36, 48]
    assert child.n_calls == 4
    assert ("child", "training_start") in events

    events.clear()
    model = FakeModel(make_vec_env(n_envs=1))
    model.learn(20, EveryNTimesteps(n_steps=5, callback=RecorderCallback("c", events)))
    assert [event[2] for event in events if event[1] == "step"] == [5, 10, 15, 20]


def test_checkpoint_callback(tmp_path):
    save_path = str(tmp_path / "checkpoints")
    callback = CheckpointCallback(save_freq=3, save_path=save_path, name_prefix="ppo")
    model = FakeModel(make_vec_env(n_envs=2))
    model.learn(20, callback)
    assert model.saved == [os.path.join(save_path, "ppo_{}_steps".format(steps)) for steps in (6, 12, 18)]
    assert sorted(os.listdir(save_path)) == ["ppo_12_steps.zip", "ppo_18_steps.zip", "ppo_6_steps.zip"]
    assert CheckpointCallback(1, save_path).name_prefix == "rl_model"
    with pytest.raises(ValueError, match="save_freq"):
        CheckpointCallback(0, save_path)


def test_checkpoint_under_every_n_timesteps(tmp_path):
    checkpoint = CheckpointCallback(save_freq=1, save_path=str(tmp_path))
    model = FakeModel(make_vec_env())
    model.learn(10, EveryNTimesteps(n_steps=4, callback=checkpoint))
    assert sorted(os.listdir(str(tmp_path))) == ["rl_model_4_steps.zip", "rl_model_8_steps.zip"]


def test_eval_callback_writes_nothing_by_default(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    eval_callback = EvalCallback(IdentityEnv(dim=2, ep_length=5), n_eval_episodes=2, eval_freq=4)
    assert isinstance(eval_callback.eval_env, DummyVecEnv)
    model = FakeModel(make_vec_env())
    model.learn(10, eval_callback)
    assert os.listdir(str(tmp_path)) == []
    assert model.saved == []
    assert eval_callback.best_mean_reward == 5.0
    assert eval_callback.last_mean_reward == 5.0
    out = capsys.readouterr().out
    assert "Eval num_timesteps=4, episode_reward=5.00 +/- 0.00" in out
    assert "Episode length: 5.00 +/- 0.00" in out
    assert "New best mean reward!" in out


def test_eval_callback_log_and_best_model(tmp_path):
    log_path = str(tmp_path / "logs")
    best_path = str(tmp_path / "best")
    eval_callback = EvalCallback(make_vec_env(ep_length=4), n_eval_episodes=3, eval_freq=5,
                                 log_path=log_path, best_model_save_path=best_path, verbose=0)
    model = FakeModel(make_vec_env())
    model.learn(15, eval_callback)
    data = np.load(os.path.join(log_path, "evaluations.npz"))
    assert data["timesteps"].tolist() == [5, 10, 15]
    assert data["results"].shape == (3, 3)
    assert np.all(data["results"] == 4.0)
    assert data["ep_lengths"].tolist() == [[4, 4, 4]] * 3
    # saved only when the mean reward improves (first evaluation)
    assert model.saved == [os.path.join(best_path, "best_model")]
    assert os.listdir(best_path) == ["best_model.zip"]


def test_stop_training_on_reward_threshold():
    stop = StopTrainingOnRewardThreshold(reward_threshold=4.5, verbose=1)
    eval_callback = EvalCallback(IdentityEnv(dim=2, ep_length=5), callback_on_new_best=stop,
                                 n_eval_episodes=2, eval_freq=3, verbose=0)
    assert stop.parent is eval_callback
    model = FakeModel(make_vec_env())
    assert model.learn(100, eval_callback) == 3  # stopped at the first evaluation
    assert stop.n_calls == 1

    # not reached: training goes on
    stop = StopTrainingOnRewardThreshold(reward_threshold=10)
    eval_callback = EvalCallback(IdentityEnv(dim=2, ep_length=5), callback_on_new_best=stop,
                                 n_eval_episodes=2, eval_freq=3, verbose=0)
    model = FakeModel(make_vec_env())
    assert model.learn(20, eval_callback) == 20
    assert stop.n_calls == 1  # triggered only on a new best

    # a bad model never reaches it either
    stop = StopTrainingOnRewardThreshold(reward_threshold=0.5)
    eval_callback = EvalCallback(IdentityEnv(dim=2, ep_length=5), callback_on_new_best=stop,
                                 n_eval_episodes=2, eval_freq=3, verbose=0)
    model = FakeModel(make_vec_env(), answer_observation=False)
    assert model.learn(9, eval_callback) == 10
    assert eval_callback.best_mean_reward == 0.0


def test_stop_training_needs_eval_callback():
    stop = StopTrainingOnRewardThreshold(reward_threshold=1)
    model = FakeModel(make_vec_env())
    with pytest.raises(ValueError, match="EvalCallback"):
        model.learn(2, stop)


def test_eval_callback_errors_and_warning():
    # several evaluation environments, once refused, are accepted (tests/test_evaluation_multi_env.py)
    assert EvalCallback(make_vec_env(n_envs=2)).eval_env.num_envs == 2
    with pytest.raises(TypeError, match="BaseCallback"):
        EventCallback(callback=lambda a, b: True)
    # training env of another type than the eval env
    train_env = VecNormalize(make_vec_env(), norm_obs=False)
    eval_callback = EvalCallback(IdentityEnv(dim=2, ep_length=5), eval_freq=100, verbose=0)
    with pytest.warns(UserWarning, match="not of the same type"):
        eval_callback.init_callback(FakeModel(train_env))


def test_eval_callback_syncs_vec_normalize():
    box = spaces.Box(low=0, high=1, shape=(2,), dtype=np.float32)
    train_env = VecNormalize(DummyVecEnv([lambda: IdentityEnv(space=box, ep_length=5)]))
    eval_env = VecNormalize(DummyVecEnv([lambda: IdentityEnv(space=box, ep_length=5)]), training=False)
    eval_callback = EvalCallback(eval_env, n_eval_episodes=1, eval_freq=6, verbose=0)
    model = FakeModel(train_env)
    model.learn(6, eval_callback, n_steps=6)
    assert np.allclose(eval_env.obs_rms.mean, train_env.obs_rms.mean)
    assert np.allclose(eval_env.obs_rms.var, train_env.obs_rms.var)
    assert eval_env.obs_rms is not train_env.obs_rms
    assert not np.allclose(train_env.obs_rms.mean, 0.0)


def test_progress_bar_callback(capsys):
    from stable_baselines.common.callbacks import ProgressBarCallback
    events = []
    model = FakeModel(make_vec_env(n_envs=2))
    model.num_timesteps = 100  # e.g. learn(..., reset_num_timesteps=False)
    bar = ProgressBarCallback(total_timesteps=20)
    model.learn(120, [RecorderCallback("r", events), bar])
    assert bar.pbar is None  # closed at the end of training
    assert bar._shown == 20
    err = capsys.readouterr().err
    assert "20/20" in err


def test_callback_used_outside_learn_says_what_is_missing():
    # on_step before init_callback: no model to read num_timesteps from
    checkpoint = CheckpointCallback(save_freq=1, save_path="unused")
    with pytest.raises(AttributeError, match="CheckpointCallback is not attached to a model"):
        checkpoint.on_step()
    assert checkpoint.n_calls == 1 and checkpoint.num_timesteps == 0
    # a function callback needs the training loop's variables, given by on_training_start
    convert = ConvertCallback(lambda locals_, globals_: True)
    convert.model = type("DummyModel", (), {"num_timesteps": 7})()
    with pytest.raises(RuntimeError, match="ConvertCallback has no training loop variables"):
        convert.on_step()
    convert.on_training_start({"self": convert.model}, {})
    assert convert.on_step() is True and convert.num_timesteps == 7


def test_reads_locals_says_who_reads_the_loop_variables():
    """The loops gather their variables for callbacks only when one may read them (a cost of every env step)."""
    from stable_baselines.common.callbacks import CallbackList, ConvertCallback, ProgressBarCallback

    class Reader(BaseCallback):
        def _on_step(self):
            return True

    assert ConvertCallback(None).reads_locals is False
    assert ConvertCallback(lambda locals_, globals_: True).reads_locals is True
    assert ProgressBarCallback(10).reads_locals is False
    assert CallbackList([ConvertCallback(None), ProgressBarCallback(10)]).reads_locals is False
    assert CallbackList([ProgressBarCallback(10), Reader()]).reads_locals is True
    assert Reader().reads_locals is True


@pytest.mark.parametrize("progress_bar", [False, True])
def test_off_policy_loop_gathers_locals_only_for_readers(progress_bar, monkeypatch):
    """Without a reading callback the loop skips _callback_locals at every step; a function callback gets them."""
    from stable_baselines import DQN
    calls = []
    model = DQN("MlpPolicy", "CartPole-v1", learning_starts=10, seed=0, n_cpu_tf_sess=1)
    original = type(model)._callback_locals

    def counting(self, state):
        calls.append(getattr(state, "step", None))  # no step before the first one
        return original(self, state)

    monkeypatch.setattr(type(model), "_callback_locals", counting)
    model.learn(30, progress_bar=progress_bar)
    assert len(calls) == 1  # only the namespace given to on_training_start
    seen = []
    model.learn(30, callback=lambda locals_, globals_: seen.append(locals_["_"]) or True)
    assert seen == list(range(30))
    assert len(calls) == 1 + 1 + 30
