"""The DeepMind Atari preprocessing: each wrapper on a scripted fake game, then on a real ale-py game."""
import gymnasium
import numpy as np
import pytest
from gymnasium import spaces

from stable_baselines.common.atari_wrappers import (ClipRewardEnv, EpisodicLifeEnv, FireResetEnv, FrameStack,
                                                    LazyFrames, MaxAndSkipEnv, NoopResetEnv, ScaledFloatFrame,
                                                    WarpFrame, make_atari, wrap_deepmind)


class _FakeAle:
    def __init__(self):
        self.lives_left = 3

    def lives(self):
        return self.lives_left


class FakeAtari(gymnasium.Env):
    """
    A scripted game: frame t is filled with the value t (mod 256) in the red channel; each step records its
    action; reward is the step's index; a life is lost every `life_every` steps, the game ends with the last life.
    """
    metadata = {"render_modes": []}

    def __init__(self, life_every=5, reward_fn=None):
        self.observation_space = spaces.Box(0, 255, (210, 160, 3), np.uint8)
        self.action_space = spaces.Discrete(4)
        self.ale = _FakeAle()
        self.life_every = life_every
        self.reward_fn = reward_fn or (lambda t: float(t))
        self.t = 0
        self.actions = []
        self.n_resets = 0

    def get_action_meanings(self):
        return ["NOOP", "FIRE", "RIGHT", "LEFT"]

    def _frame(self):
        frame = np.zeros((210, 160, 3), dtype=np.uint8)
        frame[..., 0] = self.t % 256
        return frame

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        self.t = 0
        self.ale.lives_left = 3
        self.n_resets += 1
        return self._frame(), {}

    def step(self, action):
        self.t += 1
        self.actions.append(int(action))
        if self.t % self.life_every == 0:
            self.ale.lives_left -= 1
        terminated = self.ale.lives_left == 0
        return self._frame(), self.reward_fn(self.t), terminated, False, {}


def test_noop_reset_takes_between_1_and_noop_max_noops():
    counts = []
    for seed in range(20):
        fake = FakeAtari(life_every=10 ** 6)
        env = NoopResetEnv(fake, noop_max=30)
        env.reset(seed=seed)
        counts.append(len(fake.actions))
        assert set(fake.actions) == {0}
    assert min(counts) >= 1 and max(counts) <= 30 and len(set(counts)) > 3
    fake = FakeAtari(life_every=10 ** 6)
    env = NoopResetEnv(fake, noop_max=30)
    env.override_num_noops = 7
    env.reset(seed=0)
    assert fake.actions == [0] * 7


def test_fire_reset_presses_fire_then_action_2():
    fake = FakeAtari(life_every=10 ** 6)
    FireResetEnv(fake).reset(seed=0)
    assert fake.actions == [1, 2]


def test_fire_reset_refuses_games_without_fire():
    class NoFire(FakeAtari):
        def get_action_meanings(self):
            return ["NOOP", "RIGHT", "LEFT", "DOWN"]

    with pytest.raises(ValueError, match="FIRE"):
        FireResetEnv(NoFire())


def test_max_and_skip_repeats_the_action_sums_rewards_and_maxes_the_last_two_frames():
    fake = FakeAtari(life_every=10 ** 6)
    env = MaxAndSkipEnv(fake, skip=4)
    env.reset(seed=0)
    obs, reward, terminated, truncated, _ = env.step(3)
    assert fake.actions == [3, 3, 3, 3]
    assert reward == 1 + 2 + 3 + 4
    assert obs.shape == (210, 160, 3)
    assert np.all(obs[..., 0] == 4)  # max of frames 3 and 4
    assert not terminated and not truncated


def test_max_and_skip_max_pools_flickering_frames():
    class Flicker(FakeAtari):
        def _frame(self):
            frame = np.zeros((210, 160, 3), dtype=np.uint8)
            # a sprite drawn on odd frames only (the flicker the max pooling removes)
            if self.t % 2 == 1:
                frame[10:20, 10:20] = 200
            return frame

    env = MaxAndSkipEnv(Flicker(life_every=10 ** 6), skip=4)
    env.reset(seed=0)
    obs = env.step(0)[0]
    assert np.all(obs[10:20, 10:20] == 200)


def test_episodic_life_ends_episode_on_life_loss_but_resets_only_on_game_over():
    fake = FakeAtari(life_every=3)
    env = EpisodicLifeEnv(fake)
    env.reset(seed=0)
    assert fake.n_resets == 1
    dones = [env.step(0)[2] for _ in range(3)]
    assert dones == [False, False, True]  # life lost at step 3
    env.reset()
    assert fake.n_resets == 1  # no real reset: a no-op step instead
    assert fake.ale.lives() == 2
    steps = 0
    while True:
        steps += 1
        obs, _, terminated, _, _ = env.step(0)
        if terminated:
            break
    assert fake.ale.lives() in (0, 1)
    # play to the real game over, then reset really resets
    while fake.ale.lives() > 0:
        env.reset()
        while not env.step(0)[2]:
            pass
    env.reset()
    assert fake.n_resets == 2 and fake.ale.lives() == 3


def test_clip_reward_is_the_sign():
    env = ClipRewardEnv(FakeAtari(life_every=10 ** 6, reward_fn=lambda t: [-7.5, 0.0, 3.0][t % 3]))
    env.reset(seed=0)
    assert [env.step(0)[1] for _ in range(3)] == [0.0, 1.0, -1.0]


def test_warp_frame_gives_84x84_grey_uint8():
    env = WarpFrame(FakeAtari(life_every=10 ** 6))
    assert env.observation_space.shape == (84, 84, 1) and env.observation_space.dtype == np.uint8
    env.reset(seed=0)
    obs = env.step(0)[0]
    assert obs.shape == (84, 84, 1) and obs.dtype == np.uint8
    # OpenCV's grey is 0.299 R + 0.587 G + 0.114 B: frame 1 has R = 1 everywhere -> 0
    fake = env.unwrapped
    fake.t = 99
    obs = env.step(0)[0]
    assert np.all(obs == round(0.299 * 100))


def test_frame_stack_lazy_frames_and_scaling():
    env = FrameStack(WarpFrame(FakeAtari(life_every=10 ** 6)), 4)
    assert env.observation_space.shape == (84, 84, 4)
    obs, _ = env.reset(seed=0)
    assert isinstance(obs, LazyFrames)
    assert np.asarray(obs).shape == (84, 84, 4)
    for _ in range(2):
        obs = env.step(0)[0]
    stacked = np.asarray(obs)
    # oldest first: the reset frame twice, then frames 1 and 2 (values scaled by the grey conversion)
    assert stacked[0, 0, 0] == stacked[0, 0, 1] and stacked[0, 0, 1] < stacked[0, 0, 3]
    assert obs.count() == 4 and obs.frame(3).shape == (84, 84)
    scaled = ScaledFloatFrame(env)
    value = scaled.step(0)[0]
    assert value.dtype == np.float32 and 0.0 <= value.min() and value.max() <= 1.0


def test_wrap_deepmind_on_the_fake_game():
    env = wrap_deepmind(FakeAtari(life_every=10 ** 6), frame_stack=True, scale=True)
    obs, _ = env.reset(seed=0)
    assert np.asarray(obs).shape == (84, 84, 4)
    assert env.step(0)[1] == 1.0  # clipped


def test_make_atari_rejects_frameskipping_ids():
    pytest.importorskip("ale_py", reason="needs the atari extra (ale-py)")
    with pytest.raises(ValueError, match="NoFrameskip"):
        make_atari("ALE/Pong-v5")


def test_real_game_with_the_deepmind_preprocessing():
    pytest.importorskip("ale_py", reason="needs the atari extra (ale-py)")
    pytest.importorskip("cv2", reason="needs the atari extra (opencv-python-headless)")
    env = wrap_deepmind(make_atari("BreakoutNoFrameskip-v4"), frame_stack=True)
    obs, _ = env.reset(seed=0)
    assert np.asarray(obs).shape == (84, 84, 4) and np.asarray(obs).dtype == np.uint8
    rewards, lives_lost = set(), 0
    for _ in range(300):
        obs, reward, terminated, truncated, info = env.step(env.action_space.sample())
        rewards.add(reward)
        if terminated or truncated:
            lives_lost += 1
            obs, _ = env.reset()
    assert rewards <= {-1.0, 0.0, 1.0}
    assert lives_lost >= 1  # a lost life ends the learner's episode
