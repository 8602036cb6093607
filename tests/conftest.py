"""Shared fixtures of the test suite."""
import os

import pytest

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
os.environ.setdefault("MPLBACKEND", "Agg")
# oneDNN's fused kernels round differently on some CPUs (seen: LayerNorm-LSTM probabilities 6e-4 off the original
# library's on a machine with AMX); the comparisons with the original's numbers use TensorFlow's reference kernels
os.environ.setdefault("TF_ENABLE_ONEDNN_OPTS", "0")
# CI runs as root; Open MPI refuses that unless told it is intended
os.environ.setdefault("OMPI_ALLOW_RUN_AS_ROOT", "1")
os.environ.setdefault("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")

DATA_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")
LEGACY_DIR = os.path.join(DATA_DIR, "legacy_models")


@pytest.fixture
def legacy_dir() -> str:
    """The folder of model files saved by the original library (copied from the rl-baselines-zoo)."""
    return LEGACY_DIR
