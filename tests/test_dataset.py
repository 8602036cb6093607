"""Minibatch helpers of PPO1 / TRPO / GAIL: Dataset and iterbatches."""
import numpy as np
import pytest

from stable_baselines.common.dataset import Dataset, iterbatches


def _data(n_samples=10):
    return {"ob": np.arange(n_samples * 2).reshape(n_samples, 2), "ac": np.arange(n_samples)}


def test_iterate_once_covers_full_batches_and_keeps_rows_aligned():
    np.random.seed(0)
    dataset = Dataset(_data(10), shuffle=True)
    batches = list(dataset.iterate_once(3))
    assert [len(batch["ac"]) for batch in batches] == [3, 3, 3]  # the final partial batch is dropped
    seen = np.concatenate([batch["ac"] for batch in batches])
    assert len(set(seen.tolist())) == 9
    for batch in batches:
        np.testing.assert_array_equal(batch["ob"], np.stack([2 * batch["ac"], 2 * batch["ac"] + 1], axis=1))
    assert seen.tolist() != sorted(seen.tolist())  # shuffled


def test_no_shuffle_keeps_order_and_next_batch_wraps_around():
    dataset = Dataset(_data(5), shuffle=False)
    assert [b["ac"].tolist() for b in dataset.iterate_once(2)] == [[0, 1], [2, 3]]
    assert dataset.next_batch(3)["ac"].tolist() == [0, 1, 2]
    assert dataset.next_batch(3)["ac"].tolist() == [3, 4]  # smaller at the end of the data
    assert dataset.next_batch(3)["ac"].tolist() == [0, 1, 2]  # starts again
    subset = dataset.subset(3)
    assert subset.n_samples == 3 and subset.data_map["ac"].tolist() == [0, 1, 2]


def test_dataset_errors():
    with pytest.raises(ValueError, match="same first dimension"):
        Dataset({"a": np.zeros(3), "b": np.zeros(4)})
    with pytest.raises(ValueError, match="non-empty dict"):
        Dataset({})
    with pytest.raises(ValueError, match="batch_size must be a positive int"):
        Dataset(_data(4)).next_batch(0)


def test_iterbatches():
    x_arr, y_arr = np.arange(10), np.arange(10) * 10
    batches = list(iterbatches((x_arr, y_arr), batch_size=4, shuffle=False))
    assert [b[0].tolist() for b in batches] == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]]
    assert all((b[1] == 10 * b[0]).all() for b in batches)
    batches = list(iterbatches((x_arr,), batch_size=4, include_final_partial_batch=False))
    assert [len(b[0]) for b in batches] == [4, 4]
    batches = list(iterbatches((x_arr,), num_batches=3, shuffle=False))
    assert [len(b[0]) for b in batches] == [4, 3, 3]
    with pytest.raises(ValueError, match="not both"):
        list(iterbatches((x_arr,), num_batches=2, batch_size=2))
    with pytest.raises(ValueError, match="same first dimension"):
        list(iterbatches((x_arr, np.zeros(3)), batch_size=2))
