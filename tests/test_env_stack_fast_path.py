"""
The cheap per-step path of the environment stack (issue 23): ``gym_compat.step_env``, ``Monitor.step`` and
``DummyVecEnv.step`` read a gymnasium answer without building a StepResult. What they return must stay what
the general path (``gym_compat.step_with_api``) gives, for gymnasium and legacy answers, terminal steps included.
"""
import gymnasium
import numpy as np
import pytest
from gymnasium import spaces

from stable_baselines.bench import Monitor
from stable_baselines.common import gym_compat
from stable_baselines.common.vec_env import DummyVecEnv

from vec_env_helpers import DictObsEnv, LegacyCounterEnv


class ScriptedEnv(gymnasium.Env):
    """Answers every step() with the next of the given answers (the same objects, so identity can be checked)."""
    observation_space = spaces.Box(-10, 10, shape=(1,), dtype=np.float32)
    action_space = spaces.Discrete(2)

    def __init__(self, answers):
        self.answers = list(answers)
        self.index = 0

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        return np.zeros(1, dtype=np.float32), {}

    def step(self, action):
        answer = self.answers[self.index % len(self.answers)]
        self.index += 1
        return answer


class NumpyTypedEnv(gymnasium.Env):
    """A gymnasium env answering with numpy flags, rewards of several types and a None info on some steps."""
    observation_space = spaces.Box(-10, 10, shape=(2,), dtype=np.float32)
    action_space = spaces.Discrete(2)

    def __init__(self):
        self.t = 0

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        self.t = 0
        return self.np_random.uniform(-1, 1, size=2).astype(np.float32), {}

    def step(self, action):
        self.t += 1
        reward = (np.float64(0.1 * self.t), np.float32(0.3), 2, np.array(0.7), 1e-7 * self.t)[self.t % 5]
        terminated = np.bool_(int(action) == 1 and self.np_random.random() < 0.3)
        truncated = np.bool_(self.t >= 7)
        info = None if self.t % 3 else {"t3": self.t}
        return self.np_random.uniform(-1, 1, size=2).astype(np.float32), reward, terminated, truncated, info


def _obs(value):
    return np.array([value], dtype=np.float32)


ANSWERS = {
    "gymnasium, numpy flags, no info": (_obs(1), np.float32(0.5), np.bool_(False), np.bool_(True), None),
    "gymnasium, plain values": (_obs(2), 1.0, True, False, {"k": 1}),
    "legacy, running, no info": (_obs(3), 2.0, False, None),
    "legacy, time limit": (_obs(4), 1.0, np.bool_(True), {"TimeLimit.truncated": True}),
    "legacy, terminal": (_obs(5), -1, True, {"why": "end"}),
}


@pytest.mark.parametrize("name", sorted(ANSWERS))
def test_step_env_reads_every_answer_as_step_with_api(name):
    answer = ANSWERS[name]
    fast = gym_compat.step_env(ScriptedEnv([answer]), 0)
    general = gym_compat.step_with_api(ScriptedEnv([answer]), 0).in_gymnasium_api()
    assert len(fast) == 5
    assert fast[0] is general[0] is answer[0] and fast[1] is general[1] is answer[1]
    assert type(fast[2]) is bool and type(fast[3]) is bool and fast[2:4] == general[2:4]
    assert fast[4] == general[4] and type(fast[4]) is dict
    if isinstance(answer[-1], dict) and len(answer) == 5:
        assert fast[4] is answer[-1]


def test_step_env_through_the_legacy_adapter_and_bad_answers():
    env = gym_compat.as_gymnasium_env(LegacyCounterEnv(ep_length=2))
    gym_compat.reset_env(env)
    assert gym_compat.step_env(env, 0)[2:] == (False, False, {})
    obs, reward, terminated, truncated, info = gym_compat.step_env(env, 0)
    np.testing.assert_array_equal(obs, [2, 0])
    assert (reward, terminated, truncated, info) == (1.0, False, True, {"TimeLimit.truncated": True})
    for bad in [(1, 2, 3), [_obs(0), 1.0, False, False, {}], None]:
        with pytest.raises(ValueError, match="env.step.. must return"):
            gym_compat.step_env(ScriptedEnv([bad]), 0)
        with pytest.raises(ValueError, match="env.step.. must return"):
            monitor = Monitor(ScriptedEnv([bad]), None)
            monitor.reset()
            monitor.step(0)


def test_monitor_step_keeps_the_answer_and_its_types():
    running = ANSWERS["gymnasium, numpy flags, no info"][:3] + (np.bool_(False), None)
    ending = (_obs(9), 2, np.bool_(True), np.bool_(False), {"k": "v"})
    monitor = Monitor(ScriptedEnv([running, ending]), None)
    with pytest.raises(RuntimeError, match="needs reset"):
        monitor.step(0)
    monitor.reset()
    obs, reward, terminated, truncated, info = monitor.step(0)
    assert obs is running[0] and reward is running[1]
    assert (terminated, truncated) == (False, False) and type(terminated) is bool and type(truncated) is bool
    assert info == {} and monitor.rewards == [0.5] and type(monitor.rewards[0]) is float
    obs, reward, terminated, truncated, info = monitor.step(1)
    assert reward is ending[1] and terminated is True and truncated is False
    assert info["k"] == "v" and info["episode"]["r"] == 2.5 and info["episode"]["l"] == 2
    assert "episode" not in ending[4]  # the summary goes on a copy
    assert monitor.needs_reset and monitor.get_total_steps() == 2 and monitor.get_episode_rewards() == [2.5]
    with pytest.raises(RuntimeError, match="needs reset"):
        monitor.step(0)

    legacy = Monitor(ScriptedEnv([ANSWERS["legacy, running, no info"], ANSWERS["legacy, time limit"]]), None)
    legacy.reset()
    assert legacy.step(0)[1:] == (2.0, False, {})
    obs, reward, done, info = legacy.step(0)
    assert done is True and info["TimeLimit.truncated"] is True and info["episode"] == {
        "r": 3.0, "l": 2, "t": info["episode"]["t"]}


def _reference_steps(env, actions):
    """
    What a DummyVecEnv of ``Monitor(env)`` must give for one env, computed with the general path
    (step_with_api) on a twin env: obs, reward, done and the info with the episode summary and the auto-reset keys.
    """
    steps, rewards = [], []
    for action in actions:
        obs, reward, terminated, truncated, info = gym_compat.step_with_api(env, action).in_gymnasium_api()
        rewards.append(float(np.sum(reward)))
        done = terminated or truncated
        info = dict(info)
        if done:
            info["episode"] = {"r": round(sum(rewards), 6), "l": len(rewards)}
            info["terminal_observation"] = obs
            if truncated and not terminated:
                info["TimeLimit.truncated"] = True
            obs, _ = gym_compat.reset_env(env)
            rewards = []
        steps.append((obs, np.float32(reward), done, info))
    return steps


def _same(value, expected):
    if isinstance(expected, dict):
        assert isinstance(value, dict) and value.keys() == expected.keys()
        for key in expected:
            _same(value[key], expected[key])
    elif isinstance(expected, np.ndarray):
        np.testing.assert_array_equal(value, expected)
    else:
        assert value == expected


def _obs_of(obs, index):
    """The observation of env ``index`` in a batch (dict batches hold one array per key)."""
    if isinstance(obs, dict):
        return {key: value[index] for key, value in obs.items()}
    return obs[index]


def _flat(space, obs):
    return spaces.utils.flatten(space, obs)


@pytest.mark.parametrize("make", [lambda: gym_compat.make_env("CartPole-v1", max_episode_steps=9),
                                  lambda: LegacyCounterEnv(ep_length=4), NumpyTypedEnv, DictObsEnv],
                         ids=["cartpole", "legacy", "numpy-typed", "dict-obs"])
def test_dummy_vec_env_of_monitors_matches_the_general_path(make):
    n_envs, n_steps = 2, 40
    venv = DummyVecEnv([lambda: Monitor(make(), None) for _ in range(n_envs)])
    venv.seed(7)
    first_obs = venv.reset()
    twins = [gym_compat.as_gymnasium_env(make()) for _ in range(n_envs)]
    twin_first = [gym_compat.reset_env(twin, seed=7 + index)[0] for index, twin in enumerate(twins)]
    actions = np.random.default_rng(0).integers(0, 2, size=(n_steps, n_envs))
    expected = [_reference_steps(twin, actions[:, index]) for index, twin in enumerate(twins)]
    dones_seen = 0
    space = venv.observation_space
    for index in range(n_envs):
        _same(_flat(space, _obs_of(first_obs, index)), _flat(space, twin_first[index]))
    for step in range(n_steps):
        obs, rewards, dones, infos = venv.step(actions[step])
        assert rewards.dtype == np.float32 and dones.dtype == bool
        for index in range(n_envs):
            exp_obs, exp_reward, exp_done, exp_info = expected[index][step]
            _same(_flat(space, _obs_of(obs, index)), _flat(space, exp_obs))
            assert rewards[index] == exp_reward and bool(dones[index]) == exp_done
            if exp_done:
                dones_seen += 1
                elapsed = infos[index]["episode"].pop("t")
                assert isinstance(elapsed, float) and elapsed >= 0
                terminal = infos[index].pop("terminal_observation")
                _same(_flat(space, terminal), _flat(space, exp_info.pop("terminal_observation")))
            _same(infos[index], exp_info)
    assert dones_seen >= 4


def test_dummy_vec_env_infos_are_copies():
    shared = {"nested": {"value": 1}}
    venv = DummyVecEnv([lambda: ScriptedEnv([(_obs(1), 1.0, False, False, shared)])])
    venv.reset()
    _, _, _, infos = venv.step([0])
    assert infos[0] == shared and infos[0] is not shared and infos[0]["nested"] is not shared["nested"]
    venv = DummyVecEnv([lambda: ScriptedEnv([(_obs(1), 1.0, False, False, None)])])
    venv.reset()
    assert venv.step([0])[3] == [{}]
