"""
Execute every notebook of ``notebooks/`` top to bottom, with small budgets.

Each notebook keeps its budgets (timesteps, episodes, file locations) in one code cell tagged
``parameters``. The test rewrites the assignments of that cell to small values, runs the notebook in
a fresh kernel of the current interpreter inside a temporary working directory (nothing is written
into the repository), and checks the outputs that matter.

The first code cell of every notebook is the install cell a Colab user runs
(``%pip install "stable-baselines[...]>=2.11.0a0"``). Here the package is already installed from
the checkout, so that cell must be a no-op: it runs with ``PIP_NO_INDEX=1`` (pip may not contact
any index) and must report the requirement as already satisfied without installing anything.
"""
import ast
import os
import re
import shutil

# nbformat, nbclient and ipykernel are part of the `tests` extra: a missing one must fail, not skip
import ipykernel  # noqa: F401
import nbclient
import nbformat
import pytest
from jupyter_client.kernelspec import KernelSpecManager
from jupyter_client.manager import KernelManager

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NOTEBOOK_DIR = os.path.join(REPO, "notebooks")
LEGACY_DIR = os.path.join(REPO, "tests", "data", "legacy_models")
CELL_TIMEOUT = 600  # seconds per cell; generous because CI machines are shared

# a URL that fails at once if a notebook tried to download in the test
NO_DOWNLOAD = "file:///nonexistent/the-test-provides-this-file"

NOTEBOOKS = {
    "01_getting_started.ipynb": {
        "TOTAL_TIMESTEPS": 20_000, "A2C_TIMESTEPS": 1_000, "N_EVAL_EPISODES": 3,
    },
    "02_saving_loading.ipynb": {
        "TOTAL_TIMESTEPS": 2_000, "EXTRA_TIMESTEPS": 1_000, "NORMALIZED_TIMESTEPS": 2_048,
        "N_EVAL_EPISODES": 2,
    },
    "03_atari.ipynb": {
        "N_ENVS": 2, "TOTAL_TIMESTEPS": 256, "N_EVAL_EPISODES": 2,
    },
    "04_custom_env.ipynb": {
        "TOTAL_TIMESTEPS": 10_000, "N_EVAL_EPISODES": 10,
    },
    "05_load_original_models.ipynb": {
        "PPO2_URL": NO_DOWNLOAD, "DQN_URL": NO_DOWNLOAD, "N_EVAL_EPISODES": 2, "EXTRA_TIMESTEPS": 2_048,
    },
    "06_callbacks_and_plotting.ipynb": {
        "TOTAL_TIMESTEPS": 5_000, "CHECK_FREQ": 500, "EVAL_FREQ": 1_000, "N_EVAL_EPISODES": 2,
    },
}


# ------------------------------------------------------------------------------------------------
# helpers

def _parameters_cell(nb):
    cells = [cell for cell in nb.cells if "parameters" in cell.metadata.get("tags", [])]
    assert len(cells) == 1, "expected exactly one cell tagged 'parameters', found {}".format(len(cells))
    assert cells[0].cell_type == "code"
    return cells[0]


def shrink_parameters(nb, overrides):
    """Rewrite the assignments of the ``parameters`` cell named in ``overrides`` (in place)."""
    cell = _parameters_cell(nb)
    tree = ast.parse(cell.source)
    lines = cell.source.splitlines()
    found = set()
    # replace from the bottom so that earlier line numbers stay valid
    for node in sorted(tree.body, key=lambda n: n.lineno, reverse=True):
        assert isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name), \
            "the parameters cell must hold simple assignments only, got: {}".format(ast.dump(node)[:80])
        name = node.targets[0].id
        if name in overrides:
            lines[node.lineno - 1:node.end_lineno] = ["{} = {!r}  # shrunk by the test".format(name, overrides[name])]
            found.add(name)
    missing = set(overrides) - found
    assert not missing, "parameters not found in the notebook's parameters cell: {}".format(sorted(missing))
    cell.source = "\n".join(lines)


def _stream_text(cell, name="stdout"):
    return "".join(out.get("text", "") for out in cell.get("outputs", [])
                   if out.output_type == "stream" and out.name == name)


def _all_stdout(nb):
    return "".join(_stream_text(cell) for cell in nb.cells if cell.cell_type == "code")


def _number_after(text, label):
    match = re.search(re.escape(label) + r"\s*([-+0-9.eE]+)", text)
    assert match, "{!r} not printed; stdout was:\n{}".format(label, text[-3000:])
    return float(match.group(1))


def run_notebook(name, workdir):
    """Execute notebook ``name`` with shrunk budgets in ``workdir``; return the executed notebook."""
    nb = nbformat.read(os.path.join(NOTEBOOK_DIR, name), as_version=4)
    nbformat.validate(nb)
    shrink_parameters(nb, NOTEBOOKS[name])

    env = dict(os.environ)
    env.pop("MPLBACKEND", None)  # tests/conftest.py sets Agg; the notebooks show inline figures as in Jupyter
    env.update({
        "PIP_NO_INDEX": "1",                   # the install cell must not need the network
        "PIP_DISABLE_PIP_VERSION_CHECK": "1",
        "OMP_NUM_THREADS": env.get("OMP_NUM_THREADS", "1"),
        "TF_CPP_MIN_LOG_LEVEL": env.get("TF_CPP_MIN_LOG_LEVEL", "2"),
    })
    # a kernel spec manager without kernel directories falls back to ipykernel's own spec, which
    # runs the kernel with this very interpreter (sys.executable), whatever kernels are registered
    kernel_manager = KernelManager(kernel_name="python3", kernel_spec_manager=KernelSpecManager(kernel_dirs=[]))
    client = nbclient.NotebookClient(nb, km=kernel_manager, timeout=CELL_TIMEOUT, allow_errors=False,
                                     resources={"metadata": {"path": str(workdir)}})
    try:
        client.execute(env=env)
    finally:
        # nbclient shuts down only the kernels it created itself
        if kernel_manager.has_kernel:
            kernel_manager.shutdown_kernel(now=True)
        keep = os.environ.get("SB_NOTEBOOK_OUTPUT_DIR")  # to look at the executed notebooks
        if keep:
            os.makedirs(keep, exist_ok=True)
            nbformat.write(nb, os.path.join(keep, name))
    return nb


def check_common(nb, workdir):
    code_cells = [cell for cell in nb.cells if cell.cell_type == "code"]
    # 1. the install cell comes first, is the only one, and was a no-op
    install = code_cells[0]
    assert install.source.startswith("%pip install \"stable-baselines["), install.source
    assert sum("pip install" in cell.source for cell in code_cells) == 1
    pip_output = _stream_text(install) + _stream_text(install, "stderr")
    assert "Requirement already satisfied: stable-baselines" in pip_output, pip_output[-2000:]
    assert "Successfully installed" not in pip_output, pip_output[-2000:]
    assert "ERROR" not in pip_output, pip_output[-2000:]
    # 2. no cell failed
    for cell in code_cells:
        for out in cell.get("outputs", []):
            assert out.output_type != "error", "{}: {}".format(out.get("ename"), out.get("evalue"))
            if out.output_type == "stream":
                assert "Traceback (most recent call last)" not in out.text, out.text[-3000:]
    # 3. the kernel ran in the temporary directory and the committed notebook has no outputs
    assert os.path.isdir(workdir)


def _run_checked(name, workdir):
    """Run the notebook, check what every notebook must satisfy; :return: (the executed notebook, its stdout)"""
    nb = run_notebook(name, workdir)
    check_common(nb, workdir)
    return nb, _all_stdout(nb)


def _png_outputs(nb):
    """:return: ([output]) the images (display_data with image/png) the code cells showed"""
    return [out for cell in nb.cells if cell.cell_type == "code" for out in cell.outputs
            if out.output_type == "display_data" and "image/png" in out.get("data", {})]


@pytest.fixture
def workdir(tmp_path):
    return tmp_path


def test_committed_notebooks_are_clean():
    names = sorted(name for name in os.listdir(NOTEBOOK_DIR) if name.endswith(".ipynb"))
    assert names == sorted(NOTEBOOKS), "every notebook needs an entry (and a test) here: {}".format(names)
    for name in names:
        nb = nbformat.read(os.path.join(NOTEBOOK_DIR, name), as_version=4)
        nbformat.validate(nb)
        for cell in nb.cells:
            if cell.cell_type == "code":
                assert not cell.outputs and cell.execution_count is None, "{}: stored outputs".format(name)
        first_code = next(cell for cell in nb.cells if cell.cell_type == "code")
        assert re.fullmatch(r'%pip install "stable-baselines\[mpi(,atari)?\]>=2\.11\.0a0"', first_code.source), \
            first_code.source
        _parameters_cell(nb)


def test_shrink_parameters_rewrites_only_named_assignments():
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell("A = 1_000  # comment\nB = (\n    2,\n)\nC = 'x'")]
    nb.cells[0].metadata["tags"] = ["parameters"]
    shrink_parameters(nb, {"B": 5, "C": "y"})
    namespace = {}
    exec(nb.cells[0].source, namespace)  # noqa: S102  (our own test source)
    assert (namespace["A"], namespace["B"], namespace["C"]) == (1000, 5, "y")
    with pytest.raises(AssertionError, match="not found"):
        shrink_parameters(nb, {"D": 1})


# ------------------------------------------------------------------------------------------------
# one test per notebook, so that pytest-xdist spreads them over the workers

@pytest.mark.slow
def test_getting_started(workdir):
    nb, text = _run_checked("01_getting_started.ipynb", workdir)
    # the untrained agent of seed 2 scores about 9; 20k steps of PPO2 (4 envs) take it to about 300
    before = _number_after(text, "before training: mean_reward=")
    after = _number_after(text, "after training: mean_reward=")
    assert after >= 150 and after >= before + 100, (before, after)
    assert _number_after(text, "episode return:") > 0
    _number_after(text, "A2C: mean_reward=")


@pytest.mark.slow
def test_saving_loading(workdir):
    nb, text = _run_checked("02_saving_loading.ipynb", workdir)
    assert "same actions after loading: True" in text
    assert "copied model acts the same: True" in text
    extra = NOTEBOOKS["02_saving_loading.ipynb"]["EXTRA_TIMESTEPS"]
    # the step counter is not part of the file (as in the original); it restarts at every learn call
    # unless reset_num_timesteps=False
    assert _number_after(text, "timesteps counted by the loaded model:") == 0
    first = _number_after(text, "timesteps after one more run:")
    second = _number_after(text, "timesteps after a run with reset_num_timesteps=False:")
    assert extra <= first < 2 * extra and second >= first + extra, (first, second)
    _number_after(text, "with restored statistics: mean_reward=")
    saved_mean = re.search(r"running mean of the observations: (.*)", text).group(1)
    assert saved_mean == re.search(r"restored running mean: (.*)", text).group(1)
    for name in ["a2c_cartpole.zip", "a2c_cartpole_continued.zip", "ppo2_cartpole_normalized.zip",
                 "vec_normalize.pkl"]:
        assert os.path.getsize(os.path.join(workdir, name)) > 0, name


@pytest.mark.slow
def test_atari(workdir):
    nb, text = _run_checked("03_atari.ipynb", workdir)
    assert "observation space: (84, 84, 4)" in text
    assert _number_after(text, "points per life:") >= 0
    assert os.path.getsize(os.path.join(workdir, "ppo2_breakout.zip")) > 0
    assert len(_png_outputs(nb)) == 2


@pytest.mark.slow
def test_custom_env(workdir):
    nb, text = _run_checked("04_custom_env.ipynb", workdir)
    assert "check_env passed" in text
    untrained = _number_after(text, "untrained:")
    trained = _number_after(text, "trained: mean_reward=")
    # the best mean return is about 0.55; an agent that never reaches the goal gets -4
    assert trained > 0.2 and trained > untrained, (untrained, trained)
    _number_after(text, "A2C on the old-style env: mean_reward=")


@pytest.mark.slow
def test_load_original_models(workdir):
    # the notebook downloads two rl-baselines-zoo agents; here the same files come from tests/data
    shutil.copy(os.path.join(LEGACY_DIR, "ppo2", "CartPole-v1.pkl"), os.path.join(workdir, "ppo2_CartPole-v1.pkl"))
    shutil.copy(os.path.join(LEGACY_DIR, "dqn", "CartPole-v1.pkl"), os.path.join(workdir, "dqn_CartPole-v1.pkl"))
    nb, text = _run_checked("05_load_original_models.ipynb", workdir)
    # both zoo agents balance the pole for the whole episode (500 steps)
    assert _number_after(text, "zoo PPO2: mean_reward=") == 500.0
    assert _number_after(text, "zoo DQN: mean_reward=") == 500.0
    assert _number_after(text, "one episode of the PPO2 agent:") == 500.0
    assert _number_after(text, "updates done:") >= 1
    _number_after(text, "after continued training and reloading: mean_reward=")
    assert os.path.getsize(os.path.join(workdir, "ppo2_cartpole_continued.zip")) > 0


@pytest.mark.slow
def test_callbacks_and_plotting(workdir):
    nb, text = _run_checked("06_callbacks_and_plotting.ipynb", workdir)
    assert "new best mean return" in text
    for name in ["monitor.csv", "best_model.zip", os.path.join("eval", "best_model.zip"),
                 os.path.join("eval", "evaluations.npz")]:
        assert os.path.getsize(os.path.join(workdir, "logs", name)) > 0, name
    assert os.path.getsize(os.path.join(workdir, "learning_curve.png")) > 0
    assert len(_png_outputs(nb)) == 2
    n_evaluations = len(re.findall(r"step \d+: evaluation return", text))
    params = NOTEBOOKS["06_callbacks_and_plotting.ipynb"]
    assert n_evaluations == params["TOTAL_TIMESTEPS"] // params["EVAL_FREQ"]
    _number_after(text, "best model: mean_reward=")
