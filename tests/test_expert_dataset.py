"""Expert datasets: ExpertDataset, DataLoader, generate_expert_traj (incl. image observations), import without MPI."""
import os
import pickle
import subprocess
import sys
import textwrap

import gymnasium
import numpy as np
import pytest
from gymnasium import spaces

from stable_baselines.gail import DataLoader, ExpertDataset, generate_expert_traj

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATASET_DIR = os.path.join(REPO_ROOT, "stable_baselines", "gail", "dataset")
EXPERT_KEYS = {"actions", "episode_returns", "rewards", "obs", "episode_starts"}


def _fake_traj(n_episodes=4, ep_len=10, obs_dim=3):
    n = n_episodes * ep_len
    starts = np.zeros(n, dtype=bool)
    starts[::ep_len] = True
    return {
        "obs": np.arange(n * obs_dim, dtype=np.float32).reshape(n, obs_dim),
        "actions": (np.arange(n) % 2).reshape(n, 1),
        "rewards": np.ones(n, dtype=np.float32),
        "episode_returns": np.arange(n_episodes, dtype=np.float64) + 1.0,
        "episode_starts": starts,
    }


class _ImageEnv(gymnasium.Env):
    """Tiny env with uint8 image observations; the pixels encode the step index; episodes of 5 steps."""

    def __init__(self, channels=3):
        self.observation_space = spaces.Box(0, 255, (6, 5, channels), dtype=np.uint8)
        self.action_space = spaces.Discrete(2)
        self.t = 0

    def _obs(self):
        return np.full(self.observation_space.shape, 10 * self.t + 1, dtype=np.uint8)

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        self.t = 0
        return self._obs(), {}

    def step(self, action):
        self.t += 1
        return self._obs(), float(action), self.t >= 5, False, {}


# importing the expert datasets without mpi4py: tests/test_import_and_global_state.py


@pytest.mark.parametrize("name, n_obs, n_act, act_dtype_kind", [("expert_cartpole.npz", 4, 1, "i"),
                                                                 ("expert_pendulum.npz", 3, 1, "f")])
def test_bundled_datasets(name, n_obs, n_act, act_dtype_kind):
    path = os.path.join(DATASET_DIR, name)
    assert os.path.getsize(path) < 1024 * 1024
    with np.load(path, allow_pickle=False) as data:
        assert set(data.files) == EXPERT_KEYS
        n = len(data["obs"])
        assert data["obs"].shape == (n, n_obs)
        assert data["actions"].shape == (n, n_act) and data["actions"].dtype.kind == act_dtype_kind
        assert data["rewards"].shape == (n,) and data["episode_starts"].shape == (n,)
        assert data["episode_starts"][0] and data["episode_starts"].sum() == len(data["episode_returns"])
        # the returns are those of the recorded rewards
        bounds = np.append(np.flatnonzero(data["episode_starts"]), n)
        sums = [data["rewards"][a:b].sum() for a, b in zip(bounds[:-1], bounds[1:])]
        np.testing.assert_allclose(sums, data["episode_returns"], rtol=1e-4)
    dataset = ExpertDataset(expert_path=path, verbose=0, traj_limitation=2, batch_size=32)
    assert dataset.num_traj == 2 and len(dataset.returns) == 2


def test_expert_dataset_split_limitation_and_batches():
    traj = _fake_traj(n_episodes=4, ep_len=10)
    np.random.seed(0)
    dataset = ExpertDataset(traj_data=traj, traj_limitation=3, batch_size=4, train_fraction=0.7, verbose=0)
    assert dataset.num_traj == 3 and dataset.num_transition == 30
    np.testing.assert_array_equal(dataset.returns, [1.0, 2.0, 3.0])
    assert dataset.avg_ret == pytest.approx(2.0)
    train, val = dataset.train_loader.indices, dataset.val_loader.indices
    assert len(train) == 21 and len(val) == 9 and not set(train) & set(val)
    assert set(train) | set(val) == set(range(30))
    assert len(dataset.train_loader) == 6  # 5 full minibatches + 1 partial
    seen = []
    for _ in range(len(dataset.train_loader)):
        obs, actions = dataset.get_next_batch("train")
        assert obs.shape[1:] == (3,) and len(obs) == len(actions)
        # pairs stay aligned: obs row i goes with action i % 2
        np.testing.assert_array_equal(actions[:, 0], (obs[:, 0] // 3) % 2)
        seen.extend((obs[:, 0] // 3).astype(int).tolist())
    assert sorted(seen) == sorted(train.tolist())
    # the next call starts a new epoch
    obs, _ = dataset.get_next_batch("train")
    assert len(obs) == 4
    dataset.init_dataloader(8)
    obs, actions = dataset.get_next_batch()
    assert obs.shape == (8, 3)
    dataset.prepare_pickling()
    clone = pickle.loads(pickle.dumps(dataset))
    assert clone.get_next_batch("val")[0].shape[1:] == (3,)
    assert dataset.get_next_batch("val")[0].shape[1:] == (3,)


def test_expert_dataset_from_file_and_randomize_false(tmp_path):
    traj = _fake_traj()
    np.savez(str(tmp_path / "expert"), **traj)
    dataset = ExpertDataset(expert_path=str(tmp_path / "expert.npz"), randomize=False, batch_size=5,
                            sequential_preprocessing=True, verbose=0)
    np.testing.assert_array_equal(dataset.train_loader.indices, np.arange(28))
    obs, _ = dataset.get_next_batch("train")
    np.testing.assert_array_equal(obs, traj["obs"][:5])


def test_expert_dataset_errors(tmp_path):
    traj = _fake_traj()
    with pytest.raises(ValueError, match="not both"):
        ExpertDataset(expert_path="x.npz", traj_data=traj)
    with pytest.raises(ValueError, match="expert_path"):
        ExpertDataset()
    with pytest.raises(FileNotFoundError, match="missing.npz"):
        ExpertDataset(expert_path=str(tmp_path / "missing.npz"))
    bad = dict(traj)
    del bad["episode_starts"]
    bad["observations"] = bad.pop("obs")
    with pytest.raises(KeyError, match="episode_starts") as info:
        ExpertDataset(traj_data=bad, verbose=0)
    assert "obs" in str(info.value) and "observations" in str(info.value)
    short = dict(traj, actions=traj["actions"][:-3])
    with pytest.raises(ValueError, match="40, 37 and 40"):
        ExpertDataset(traj_data=short, verbose=0)
    with pytest.raises(ValueError, match="train_fraction"):
        ExpertDataset(traj_data=traj, train_fraction=1.0, verbose=0)
    with pytest.raises(TypeError, match="dict"):
        ExpertDataset(traj_data=[1, 2, 3], verbose=0)
    dataset = ExpertDataset(traj_data=traj, verbose=0)
    with pytest.raises(ValueError, match="init_dataloader"):
        dataset.get_next_batch()
    with pytest.raises(ValueError, match="'train' or 'val'"):
        dataset.get_next_batch("test")


@pytest.mark.parametrize("sequential", [False, True])
def test_dataloader_iteration(sequential):
    observations = np.arange(10, dtype=np.float32).reshape(10, 1)
    actions = np.arange(10).reshape(10, 1) * 10
    loader = DataLoader(np.arange(10), observations, actions, batch_size=4, shuffle=False, sequential=sequential,
                        infinite_loop=False)
    assert len(loader) == 3
    batches = list(loader)
    assert [len(obs) for obs, _ in batches] == [4, 4, 2]
    np.testing.assert_array_equal(np.concatenate([obs for obs, _ in batches])[:, 0], np.arange(10))
    np.testing.assert_array_equal(np.concatenate([act for _, act in batches])[:, 0], np.arange(10) * 10)
    # iterating again gives a new pass
    assert sum(len(obs) for obs, _ in loader) == 10
    # no partial minibatch, shuffled
    np.random.seed(1)
    loader = DataLoader(np.arange(10), observations, actions, batch_size=4, shuffle=True, sequential=sequential,
                        partial_minibatch=False, infinite_loop=False)
    assert len(loader) == 2
    batches = list(loader)
    assert [len(obs) for obs, _ in batches] == [4, 4]
    got = np.concatenate([obs for obs, _ in batches])[:, 0]
    assert len(set(got.tolist())) == 8 and not np.array_equal(got, np.arange(8))
    for obs, act in batches:
        np.testing.assert_array_equal(act[:, 0], obs[:, 0] * 10)
    loader.close()


def test_dataloader_needs_start_and_checks_input():
    loader = DataLoader(np.arange(4), np.zeros((4, 1)), np.zeros((4, 1)), 2, start_process=False)
    with pytest.raises(ValueError, match="start_process"):
        next(loader)
    loader.start_process()
    assert next(loader)[0].shape == (2, 1)
    loader.close()
    with pytest.raises(ValueError, match="same length"):
        DataLoader(np.arange(4), np.zeros((4, 1)), np.zeros((3, 1)), 2)
    with pytest.raises(ValueError, match=r"indices must lie in \[0, 4\)"):
        DataLoader(np.arange(5), np.zeros((4, 1)), np.zeros((4, 1)), 2)
    with pytest.raises(ValueError, match="backend"):
        DataLoader(np.arange(4), np.zeros((4, 1)), np.zeros((4, 1)), 2, backend="dask")


def test_generate_expert_traj_callable_round_trip(tmp_path):
    env = gymnasium.make("CartPole-v1")
    env.reset(seed=0)
    calls = []

    def dummy_expert(obs):
        calls.append(np.shape(obs))
        return int(obs[2] > 0)  # push the cart under the pole

    save_path = str(tmp_path / "dummy_expert_cartpole")
    traj = generate_expert_traj(dummy_expert, save_path, env, n_episodes=3)
    assert calls[0] == (4,)
    with np.load(save_path + ".npz") as data:
        assert set(data.files) == EXPERT_KEYS
        n = len(calls)
        assert data["obs"].shape == (n, 4) and data["actions"].shape == (n, 1)
        assert data["rewards"].shape == (n,) and data["episode_starts"].shape == (n,)
        assert data["episode_returns"].shape == (3,) and data["episode_starts"].sum() == 3
        np.testing.assert_allclose(data["episode_returns"].sum(), data["rewards"].sum())
        np.testing.assert_array_equal(data["actions"][:, 0], (data["obs"][:, 2] > 0).astype(int))
        for key in EXPERT_KEYS:
            np.testing.assert_array_equal(data[key], traj[key])
    # the same data from memory
    dataset = ExpertDataset(traj_data=traj, verbose=0, batch_size=8)
    assert dataset.num_traj == 3 and dataset.num_transition == len(calls)


def test_generate_expert_traj_model_vec_env_and_training():
    from stable_baselines import PPO2
    from stable_baselines.common.vec_env import DummyVecEnv
    env = DummyVecEnv([lambda: gymnasium.make("CartPole-v1") for _ in range(2)])
    model = PPO2("MlpPolicy", env, n_steps=16, nminibatches=1, noptepochs=1, seed=0, n_cpu_tf_sess=1)
    with pytest.warns(UserWarning, match="first one"):
        traj = generate_expert_traj(model, n_timesteps=64, n_episodes=2)
    assert model.num_timesteps == 64
    n = len(traj["obs"])
    assert traj["obs"].shape == (n, 4) and traj["actions"].shape == (n, 1) and traj["rewards"].shape == (n,)
    assert traj["actions"].dtype.kind == "i" and set(np.unique(traj["actions"])) <= {0, 1}
    assert traj["episode_starts"].sum() == 2 and traj["episode_starts"][0]
    # CartPole gives 1 per step: the returns are the episode lengths
    assert traj["episode_returns"].sum() == n


def test_generate_expert_traj_errors():
    with pytest.raises(ValueError, match="environment"):
        generate_expert_traj(lambda obs: 0, n_episodes=1)
    with pytest.raises(TypeError, match="callable"):
        generate_expert_traj(42, env=gymnasium.make("CartPole-v1"))

    class TextEnv(_ImageEnv):
        def __init__(self, tuple_space=False):
            super().__init__()
            self.observation_space = spaces.Tuple([spaces.Discrete(2), spaces.Text(5)]) if tuple_space \
                else spaces.Text(5)

    with pytest.raises(ValueError, match="observation space type not supported: expected Box or Discrete, got Text"):
        generate_expert_traj(lambda obs: 0, env=TextEnv(), n_episodes=1)
    # Dict and Tuple observations are recorded (tests/test_structured_expert_data.py), not their other entries
    with pytest.raises(NotImplementedError, match=r"the entry \[1\] of the observation space is a Text"):
        generate_expert_traj(lambda obs: 0, env=TextEnv(tuple_space=True), n_episodes=1)
    env = _ImageEnv()
    env.action_space = spaces.MultiDiscrete([2, 2])
    with pytest.raises(ValueError, match="action space type not supported.*MultiDiscrete"):
        generate_expert_traj(lambda obs: 0, env=env, n_episodes=1)


@pytest.mark.parametrize("channels, ext", [(3, ".png"), (1, ".png"), (2, ".npy")])
def test_generate_expert_traj_images(tmp_path, channels, ext):
    save_path = str(tmp_path / "data" / "expert_images")
    os.makedirs(os.path.dirname(save_path))
    traj = generate_expert_traj(lambda obs: 1, save_path, _ImageEnv(channels), n_episodes=2,
                                image_folder="imgs")
    paths = traj["obs"]
    assert paths.shape == (10,) and paths.dtype.kind == "U"
    assert all(path.endswith(ext) and os.path.isfile(path) for path in paths)
    assert os.path.dirname(paths[0]) == str(tmp_path / "data" / "imgs")
    # images are loaded back by the dataset (also when run from another directory)
    cwd = os.getcwd()
    try:
        os.chdir(str(tmp_path / "data"))
        dataset = ExpertDataset(expert_path="expert_images.npz", batch_size=3, verbose=0, randomize=False,
                                train_fraction=0.6)
    finally:
        os.chdir(cwd)
    obs, actions = dataset.get_next_batch("train")
    assert obs.shape == (3, 6, 5, channels) and obs.dtype == np.uint8
    np.testing.assert_array_equal(obs[:, 0, 0, 0], [1, 11, 21])
    np.testing.assert_array_equal(actions[:, 0], [1, 1, 1])
    # several image workers through the DataLoader
    loader = DataLoader(np.arange(10), dataset.observations, dataset.actions, 4, n_workers=2, infinite_loop=False)
    assert sorted(int(v) for obs, _ in loader for v in obs[:, 0, 0, 0]) == sorted([1, 11, 21, 31, 41] * 2)


def test_generate_expert_traj_images_without_path_warns():
    with pytest.warns(UserWarning, match="no save path"):
        traj = generate_expert_traj(lambda obs: 0, env=_ImageEnv(3), n_episodes=1)
    assert traj["obs"].shape == (5, 6, 5, 3) and traj["obs"].dtype == np.uint8
