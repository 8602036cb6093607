"""Shared fixtures of the test suite."""
import os

import pytest

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
os.environ.setdefault("MPLBACKEND", "Agg")
# oneDNN's fused kernels round differently on some CPUs (seen: LayerNorm-LSTM probabilities 6e-4 off the original
# library's on a machine with AMX); the comparisons with the original's numbers use TensorFlow's reference kernels
os.environ.setdefault("TF_ENABLE_ONEDNN_OPTS", "0")
# the two workers of ``pytest -n 2`` (and the processes tests start) share the machine's cores: a session made with
# n_cpu_tf_sess=None gets one thread per pool (make_session reads RCALL_NUM_CPU for its default, as the original's did)
# instead of pools as large as the machine in every process
os.environ.setdefault("RCALL_NUM_CPU", "1")
# likewise one thread for NumPy's BLAS and LAPACK (OpenBLAS) and for OpenMP pools (PyTorch, in the SB3 tests): their
# threads spin while they wait, and two such pools on two cores (one per worker) made an SVD of a CNN layer's weights
# more than ten times slower than one thread each
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")
# CI runs as root; Open MPI refuses that unless told it is intended
os.environ.setdefault("OMPI_ALLOW_RUN_AS_ROOT", "1")
os.environ.setdefault("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")

DATA_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")
LEGACY_DIR = os.path.join(DATA_DIR, "legacy_models")


@pytest.fixture
def legacy_dir() -> str:
    """The folder of model files saved by the original library (copied from the rl-baselines-zoo)."""
    return LEGACY_DIR


# ------------------------------------------------------------------------------------------------
# learning tests on several seeds
# ------------------------------------------------------------------------------------------------
def pytest_addoption(parser) -> None:
    parser.addoption(
        "--seeds", default=None,
        help="comma-separated seeds for the learning tests (those taking ``learning_seed``), e.g. --seeds 0,1,2; "
             "without it each runs on the seed its @pytest.mark.seeds marker names first")


def pytest_configure(config) -> None:
    config.addinivalue_line("markers", "seeds(*seeds): the seeds a learning test holds for; the first runs by default")


def pytest_collection_modifyitems(items) -> None:
    """
    The long tests (marked ``slow`` or ``mpi``) run first, each file's in their order: under ``pytest -n 2`` the
    workers share them out at the start and end together on short tests, instead of one worker finishing a long
    test collected last while the other waits.
    """
    items.sort(key=lambda item: item.get_closest_marker("slow") is None and item.get_closest_marker("mpi") is None)


def pytest_generate_tests(metafunc) -> None:
    """A test that takes ``learning_seed`` runs on its default seed, or on each of ``--seeds``."""
    if "learning_seed" not in metafunc.fixturenames:
        return
    marker = metafunc.definition.get_closest_marker("seeds")
    if marker is None or not marker.args:
        raise pytest.UsageError("{} takes learning_seed but has no @pytest.mark.seeds(...)".format(
            metafunc.definition.nodeid))
    option = metafunc.config.getoption("--seeds")
    seeds = [int(seed) for seed in option.split(",")] if option else [marker.args[0]]
    metafunc.parametrize("learning_seed", seeds, ids=["seed{}".format(seed) for seed in seeds])


@pytest.fixture
def learning_score(request):
    """``learning_score(value)`` records a learning test's score; the run's summary lists the scores."""
    def record(value: float) -> None:
        request.node.user_properties.append(("learning score", float(value)))
    return record


def pytest_terminal_summary(terminalreporter) -> None:
    rows = []
    for outcome in ("passed", "failed"):
        for report in terminalreporter.getreports(outcome):
            if report.when != "call":
                continue
            for key, value in report.user_properties:
                if key == "learning score":
                    rows.append("{:.1f}  {}  {}".format(value, outcome, report.nodeid))
    if rows:
        terminalreporter.write_sep("-", "learning scores")
        for row in sorted(rows, key=lambda row: row.split("  ")[-1]):
            terminalreporter.write_line(row)

