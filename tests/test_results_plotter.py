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


def test_plot_results_from_monitor_files(tmp_path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    log_dir = str(tmp_path)
    env = Monitor(IdentityEnv(dim=2, ep_length=3), os.path.join(log_dir, "run"))
    for _ in range(120):
        reset_env(env)
        done = False
        while not done:
            _, _, terminated, truncated, _ = step_env(env, 0)
            done = terminated or truncated
    env.close()
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
