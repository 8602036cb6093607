"""
Compare a model's training with the original library's (tests/data/legacy_models/original_2_10_training/):
the original's parameters before and after ``learn`` with the same arguments and seed.
"""
import os

import numpy as np

ORIGINAL_TRAINING_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "legacy_models",
                                     "original_2_10_training")


def assert_trains_like_the_original(model, total_timesteps: int, file_name: str, atol: float = 0.0) -> None:
    """
    :param model: (BaseRLModel) a freshly built model, with the seed and arguments the file was made with
    :param total_timesteps: (int) the ``learn`` budget the file was made with
    :param file_name: (str) the file in original_2_10_training/
    :param atol: (float) the absolute tolerance on the trained parameters (0: bit for bit)
    """
    expected = np.load(os.path.join(ORIGINAL_TRAINING_DIR, file_name))
    initial = model.get_parameters()
    assert sorted("initial/" + name for name in initial) == sorted(k for k in expected.files if k.startswith("initial/"))
    for name, value in initial.items():
        np.testing.assert_array_equal(value, expected["initial/" + name], err_msg=name)
    model.learn(total_timesteps)
    trained = model.get_parameters()
    assert max(float(np.abs(trained[name] - initial[name]).max()) for name in trained) > 1e-2, "training moved nothing"
    for name, value in trained.items():
        np.testing.assert_allclose(value, expected["trained/" + name], rtol=0, atol=atol, err_msg=name)
