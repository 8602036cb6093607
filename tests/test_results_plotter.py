import os

import numpy as np
import pandas
import pytest

from stable_baselines import results_plotter
from stable_baselines.bench.monitor import Monitor
from stable_baselines.common.gym_compat import reset_env, step_env
from stable_baselines.common.identity_env import IdentityEnv
from stable_baselines.results_plotter import (X_EPISODES, X_TIMESTEPS, X_WALLTIME, load_results, rolling_window,
                                              ts2xy, window_func)


def test_rolling_window_and_window_func():
    array = np.arange(5.0)
    windows = rolling_window(array, 3)
    assert windows.tolist() == [[0, 1, 2], [1, 2, 3], [2, 3, 4]]
    x_var, y_mean = window_func(np.arange(10, 15), array, 3, np.mean)
    assert x_var.tolist() == [12, 13, 14]
    assert y_mean.tolist() == [1.0, 2.0, 3.0]
    with pytest.raises(ValueError, match="window"):
        rolling_window(array, 6)


def test_ts2xy():
    frame = pandas.DataFrame({"r": [1.0, 2.0, 3.0], "l": [10, 20, 30], "t": [3600.0, 7200.0, 10800.0]})
    x_var, y_var = ts2xy(frame, X_TIMESTEPS)
    assert x_var.tolist() == [10, 30, 60] and y_var.tolist() == [1.0, 2.0, 3.0]
    assert ts2xy(frame, X_EPISODES)[0].tolist() == [0, 1, 2]
    assert ts2xy(frame, X_WALLTIME)[0].tolist() == [1.0, 2.0, 3.0]
    with pytest.raises(ValueError, match="xaxis"):
        ts2xy(frame, "steps")


def _write_monitor_file(log_dir, n_episodes):
    """Play ``n_episodes`` episodes of 3 steps (action 0) in a Monitor writing ``<log_dir>/run.monitor.csv``."""
    env = Monitor(IdentityEnv(dim=2, ep_length=3), os.path.join(log_dir, "run"))
    for _ in range(n_episodes):
        reset_env(env)
        done = False
        while not done:
            _, _, terminated, truncated, _ = step_env(env, 0)
            done = terminated or truncated
    env.close()


def test_plot_results_from_monitor_files(tmp_path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    log_dir = str(tmp_path)
    _write_monitor_file(log_dir, 120)
    frame = load_results(log_dir)
    assert len(frame) == 120
    x_var, _ = ts2xy(frame, X_TIMESTEPS)
    assert x_var[-1] == 360

    results_plotter.plot_results([log_dir], 150, X_TIMESTEPS, "Identity")
    axes = plt.gca()
    assert axes.get_title() == "Identity"
    assert axes.get_xlabel() == X_TIMESTEPS
    assert axes.get_xlim() == (0, 150)  # trimmed to num_timesteps
    # 50 episodes left after trimming (< the smoothing window of 100): only the scatter, no rolling mean
    assert len(axes.lines) == 0 and len(axes.collections) == 1
    plt.close("all")

    results_plotter.plot_results([log_dir], None, X_EPISODES, "Identity")
    axes = plt.gca()
    # all 120 episodes (>= the window of 100): the scatter plus the rolling mean
    assert len(axes.lines) == 1 and len(axes.collections) == 1
    assert len(axes.lines[0].get_xdata()) == 120 - 100 + 1
    plt.close("all")


def test_cli_help_documents_every_option(capsys):
    with pytest.raises(SystemExit) as exit_info:
        results_plotter.main(["--help"])
    assert exit_info.value.code == 0
    text = " ".join(capsys.readouterr().out.split())  # argparse wraps lines: compare with single spaces
    assert text.startswith("usage: python -m stable_baselines.results_plotter [-h]")
    assert "monitor.csv" in text and "Varible" not in text
    parser = results_plotter._argument_parser()
    options = [action for action in parser._actions if action.dest != "help"]
    assert sorted(action.dest for action in options) == ["dirs", "num_timesteps", "output", "task_name", "xaxis"]
    for action in options:
        assert action.help, action.dest
        assert " ".join(action.help.split()) in text
    assert "(default: 10000000)" in text and "(default: timesteps)" in text and "(default: Breakout)" in text


def test_cli_options_reach_the_figure(tmp_path, capsys):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    _write_monitor_file(str(tmp_path), 10)
    output = str(tmp_path / "curve.png")
    results_plotter.main(["--dirs", str(tmp_path), "--num_timesteps", "15", "--task_name", "Short",
                          "--output", output])
    assert capsys.readouterr().out == "Saved the figure to {}\n".format(output)
    axes = plt.gca()
    assert axes.get_title() == "Short" and axes.get_xlabel() == X_TIMESTEPS
    assert axes.collections[0].get_offsets()[:, 0].tolist() == [3, 6, 9, 12, 15]  # 5 episodes of 3 steps
    assert os.path.getsize(output) > 0
    plt.close("all")
