"""
Files saved by the original library (Stable Baselines 2.10, its own code run once under tf.compat.v1 to make
them) for configurations that are not among the zoo agents: recurrent, CNN and custom ``net_arch`` policies,
other action spaces, both the zip format and the older cloudpickle format. Each ``NAME.npz`` holds what the
original computed on fixed observations; our ``load`` must give the same parameter list, probabilities,
values and actions. See ``tests/data/legacy_models/original_2_10/README.md`` for how they were made.

A recurrent configuration builds a graph unrolled over its ``n_steps`` (as the original's did), which costs tens of
seconds: its ``.pkl`` twin is read and compared with the ``.zip`` (same settings, same parameters, so ``load`` builds
the same model from both); the other ``.pkl`` files go through ``load`` and the computation as the ``.zip`` files do.
"""
import glob
import os

import numpy as np
import pytest

import stable_baselines

ORIGINAL_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "legacy_models", "original_2_10")

MODEL_CLASS_NAMES = {
    "a2c": "A2C", "acer": "ACER", "acktr": "ACKTR", "ppo2": "PPO2", "dqn": "DQN", "sac": "SAC", "td3": "TD3",
    "ppo1": "PPO1", "trpo": "TRPO", "ddpg": "DDPG",
}


def _is_read_only(path: str) -> bool:
    """:return: (bool) whether the file is the ``.pkl`` twin of a recurrent configuration (compared, not built)"""
    return path.endswith(".pkl") and "Lstm" in os.path.basename(path) and os.path.exists(path[:-4] + ".zip")


def _model_files(read_only: bool) -> list:
    files = []
    for expected in sorted(glob.glob(os.path.join(ORIGINAL_DIR, "*", "*.npz"))):
        base = expected[:-len(".npz")]
        files.extend(base + ext for ext in (".zip", ".pkl") if os.path.exists(base + ext))
    return [path for path in files if _is_read_only(path) == read_only]


MODEL_FILES = _model_files(read_only=False)
TWIN_FILES = _model_files(read_only=True)


def _case_id(path: str) -> str:
    return os.path.relpath(path, ORIGINAL_DIR)


def _model_class(path: str):
    algo = os.path.basename(os.path.dirname(path))
    name = MODEL_CLASS_NAMES[algo]
    if not hasattr(stable_baselines, name):
        pytest.skip("{} needs mpi4py (pip install stable-baselines[mpi])".format(name))
    return getattr(stable_baselines, name)


def _as_array(output) -> np.ndarray:
    """action_probability of a Gaussian policy is the list [mean, std]: stack it as the recording did."""
    return np.stack(output) if isinstance(output, list) else np.asarray(output)


def test_every_algorithm_has_original_files():
    assert TWIN_FILES and all(path.endswith(".pkl") for path in TWIN_FILES)
    algos = {os.path.basename(os.path.dirname(path)) for path in MODEL_FILES}
    assert {"acer", "acktr"} <= algos
    assert algos <= set(MODEL_CLASS_NAMES)


@pytest.mark.parametrize("path", MODEL_FILES, ids=_case_id)
def test_original_file_computes_what_the_original_computed(path):
    model_class = _model_class(path)
    expected = np.load(path[:-4] + ".npz")
    model = model_class.load(path)
    assert [param.name for param in model.get_parameter_list()] == list(expected["parameter_names"])

    observations, masks = expected["obs"], expected["masks"]
    state = getattr(model, "initial_state", None)  # off-policy models have none, as in the original
    for step, (obs, mask) in enumerate(zip(observations, masks)):
        if "proba" in expected.files:
            proba = _as_array(model.action_probability(obs, state, mask))
            np.testing.assert_allclose(proba, expected["proba"][step], rtol=1e-4, atol=1e-5,
                                       err_msg="action_probability at step {}".format(step))
        if "value" in expected.files:
            value = model.step_model.value(obs, state, mask)
            np.testing.assert_allclose(value, expected["value"][step], rtol=1e-4, atol=1e-4,
                                       err_msg="value at step {}".format(step))
        action, state = model.predict(obs, state, mask, deterministic=True)
        if np.issubdtype(expected["action"].dtype, np.floating):
            np.testing.assert_allclose(action, expected["action"][step], rtol=1e-4, atol=1e-5,
                                       err_msg="action at step {}".format(step))
        else:
            np.testing.assert_array_equal(action, expected["action"][step], err_msg="action at step {}".format(step))


def _same_setting(first, second) -> bool:
    if isinstance(first, np.ndarray) or isinstance(second, np.ndarray):
        return np.array_equal(first, second)
    try:
        return bool(first == second) or repr(first) == repr(second)
    except (TypeError, ValueError):  # objects without a comparison
        return repr(first) == repr(second)


@pytest.mark.parametrize("path", TWIN_FILES, ids=_case_id)
def test_original_pkl_holds_what_its_zip_twin_holds(path):
    model_class = _model_class(path)
    data, params = model_class._load_from_file(path)
    zip_data, zip_params = model_class._load_from_file(path[:-4] + ".zip")
    assert sorted(data) == sorted(zip_data)
    different = [key for key in data if not _same_setting(data[key], zip_data[key])]
    assert not different, {key: (data[key], zip_data[key]) for key in different}
    assert list(params) == list(zip_params) == list(np.load(path[:-4] + ".npz")["parameter_names"])
    for name in params:
        np.testing.assert_array_equal(params[name], zip_params[name], err_msg=name)
