"""
The plotting section of the docs: results_plotter works headless and draws the manual's figures.
"""
import json
import os
import subprocess
import sys
import types

import numpy as np
import pytest

from stable_baselines import results_plotter

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def write_monitor_file(folder: str, n_episodes: int = 150, seed: int = 0) -> None:
    """A monitor.csv as Monitor writes it: a JSON header line, then r (reward), l (length), t (time)."""
    rng = np.random.RandomState(seed)
    with open(os.path.join(folder, "0.monitor.csv"), "w") as file_handler:
        file_handler.write("#{}\n".format(json.dumps({"t_start": 1600000000.0, "env_id": "CartPole-v1"})))
        file_handler.write("r,l,t\n")
        elapsed = 0.0
        for episode in range(n_episodes):
            length = int(10 + episode + rng.randint(0, 5))
            elapsed += length * 0.01
            file_handler.write("{},{},{}\n".format(float(length), length, round(elapsed, 6)))


HEADLESS_SCRIPT = r"""
import os, sys
import matplotlib
from stable_baselines import results_plotter
assert "matplotlib.pyplot" not in sys.modules, "importing results_plotter must not import pyplot"
log_dir, out_dir = sys.argv[1], sys.argv[2]
for xaxis in (results_plotter.X_TIMESTEPS, results_plotter.X_EPISODES, results_plotter.X_WALLTIME):
    results_plotter.plot_results([log_dir], None, xaxis, "Headless " + xaxis)
    import matplotlib.pyplot as plt
    plt.savefig(os.path.join(out_dir, xaxis + ".png"))
    plt.close("all")
results_plotter.main(["--dirs", log_dir, "--xaxis", "episodes", "--task_name", "CLI", "--output",
                      os.path.join(out_dir, "cli.png")])
print("BACKEND", matplotlib.get_backend())
"""


def test_plot_results_headless_in_a_fresh_process(tmp_path):
    """No display and no backend chosen: results_plotter selects Agg itself and writes the figures."""
    log_dir = tmp_path / "log"
    log_dir.mkdir()
    write_monitor_file(str(log_dir))
    env = {key: value for key, value in os.environ.items() if key not in ("DISPLAY", "WAYLAND_DISPLAY", "MPLBACKEND")}
    env["TF_CPP_MIN_LOG_LEVEL"] = "3"
    env["MPLCONFIGDIR"] = str(tmp_path / "mplconfig")  # no user matplotlibrc choosing a backend
    result = subprocess.run([sys.executable, "-c", HEADLESS_SCRIPT, str(log_dir), str(tmp_path)], env=env,
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-3000:]
    assert "backend agg" in result.stdout.lower()
    for name in ("timesteps.png", "episodes.png", "walltime_hrs.png", "cli.png"):
        with open(str(tmp_path / name), "rb") as file_handler:
            assert file_handler.read(8) == PNG_MAGIC, name


def test_manual_figure_contents(tmp_path):
    """The figure of the manual: a scatter of episode rewards plus the rolling mean over 100 episodes."""
    import matplotlib.pyplot as plt
    write_monitor_file(str(tmp_path), n_episodes=150)
    results_plotter.plot_results([str(tmp_path)], 10e6, results_plotter.X_TIMESTEPS, "Breakout")
    axes = plt.gca()
    assert axes.get_title() == "Breakout" and axes.get_xlabel() == "timesteps"
    assert axes.get_ylabel() == "Episode Rewards"
    assert len(axes.collections) == 1 and len(axes.lines) == 1
    x_data, y_data = axes.lines[0].get_data()
    assert len(x_data) == 150 - results_plotter.EPISODES_WINDOW + 1
    # the smoothed curve is the mean of the last 100 rewards
    frame = results_plotter.load_results(str(tmp_path))
    assert y_data[-1] == pytest.approx(frame.r.values[-100:].mean())
    assert tuple(plt.gcf().get_size_inches()) == (8.0, 2.0)
    out = tmp_path / "figure.png"
    plt.savefig(str(out))
    plt.close("all")
    assert out.read_bytes()[:8] == PNG_MAGIC


def _fake_matplotlib(backend_or_none):
    rc_params = types.SimpleNamespace(_get_backend_or_none=lambda: backend_or_none)
    return types.SimpleNamespace(rcParams=rc_params)


def test_backend_choice_rules(monkeypatch):
    monkeypatch.delenv("MPLBACKEND", raising=False)
    monkeypatch.setitem(sys.modules, "matplotlib.pyplot", None)
    # pyplot already imported: the backend is settled, keep it
    assert results_plotter._backend_chosen_by_user(_fake_matplotlib(None))
    monkeypatch.delitem(sys.modules, "matplotlib.pyplot")
    assert not results_plotter._backend_chosen_by_user(_fake_matplotlib(None))
    assert results_plotter._backend_chosen_by_user(_fake_matplotlib("pdf"))  # matplotlibrc / matplotlib.use
    monkeypatch.setenv("MPLBACKEND", "svg")
    assert results_plotter._backend_chosen_by_user(_fake_matplotlib(None))
    if sys.platform.startswith("linux"):
        monkeypatch.delenv("DISPLAY", raising=False)
        monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
        assert not results_plotter._has_display()
        monkeypatch.setenv("DISPLAY", ":0")
        assert results_plotter._has_display()


def test_cli_rejects_unknown_axis(tmp_path):
    write_monitor_file(str(tmp_path))
    with pytest.raises(SystemExit):
        results_plotter.main(["--dirs", str(tmp_path), "--xaxis", "steps"])
