"""
``model.export`` of MultiInputPolicy models: the exported function takes the packed observation row (every entry
of the Dict/Tuple observation flattened and laid side by side in the space's order, float32: what
``structured_obs.pack_batch`` makes) and answers as ``predict`` does on the dict observations.
"""
from typing import Any

import numpy as np
import pytest

from stable_baselines import A2C, DQN, PPO2, SAC
from stable_baselines.common.structured_obs import pack_batch, packed_width
from stable_baselines.common.vec_env import DummyVecEnv
from test_export import check_all_formats, perturb_parameters
from test_multi_input import NestedEnv, ShiftedTargetEnv, ShiftedThresholdEnv


def dict_batch(space: Any, n_obs: int = 500, seed: int = 0) -> Any:
    """:return: (dict) ``n_obs`` observations of a Dict space, every entry stacked (batch axis first)"""
    space.seed(seed)
    samples = [space.sample() for _ in range(n_obs)]

    def stack(values: list) -> Any:
        first = values[0]
        if isinstance(first, dict):
            return {key: stack([value[key] for value in values]) for key in first}
        if isinstance(first, tuple):
            return tuple(stack([value[index] for value in values]) for index in range(len(first)))
        return np.stack([np.asarray(value) for value in values])

    return stack(samples)


@pytest.mark.parametrize("make_model", [
    lambda: PPO2("MultiInputPolicy", DummyVecEnv([ShiftedThresholdEnv]), n_steps=8, seed=0),
    lambda: A2C("MultiInputPolicy", NestedEnv(), n_steps=4, seed=0,
                policy_kwargs=dict(cnn_extractor=lambda images, **_: images[:, ::6, ::6, 0])),
    lambda: DQN("MultiInputPolicy", ShiftedThresholdEnv(), seed=0),
    lambda: SAC("MultiInputPolicy", ShiftedTargetEnv(), seed=0),
], ids=["PPO2", "A2C-nested", "DQN", "SAC"])
def test_export_takes_the_packed_row(make_model: Any, tmp_path: Any) -> None:
    model = make_model()
    perturb_parameters(model)
    batch = dict_batch(model.observation_space)
    rows = pack_batch(batch, model.observation_space)
    assert rows.dtype == np.float32 and rows.shape == (500, packed_width(model.observation_space))
    expected, _ = model.predict(batch, deterministic=True)
    check_all_formats(model, tmp_path, rows, expected=expected)
