"""
Plot the learning curves stored in ``monitor.csv`` files (written by
:class:`stable_baselines.bench.Monitor`).

matplotlib is imported when a plotting function is first called, never at import of the package.
A backend chosen by the user (``MPLBACKEND``, ``matplotlib.use``, a matplotlibrc, or pyplot already
imported) is kept; otherwise, on a machine without a display, the non-interactive ``Agg`` backend is
selected, so the functions work headless (save the figure with ``plt.savefig``, or ``--output`` on the
command line).

Example (in a jupyter notebook)::

    from stable_baselines import results_plotter
    %matplotlib inline
    results_plotter.plot_results(["./log"], 10e6, results_plotter.X_TIMESTEPS, "Breakout")
"""
import argparse
import os
import sys
from typing import TYPE_CHECKING, Callable, List, Optional, Sequence, Tuple

if TYPE_CHECKING:
    import pandas  # noqa: F401

import numpy as np

from stable_baselines.bench.monitor import load_results

X_TIMESTEPS = 'timesteps'
X_EPISODES = 'episodes'
X_WALLTIME = 'walltime_hrs'
POSSIBLE_X_AXES = [X_TIMESTEPS, X_EPISODES, X_WALLTIME]
EPISODES_WINDOW = 100
COLORS = ['blue', 'green', 'red', 'cyan', 'magenta', 'yellow', 'black', 'purple', 'pink',
          'brown', 'orange', 'teal', 'coral', 'lightblue', 'lime', 'lavender', 'turquoise',
          'darkgreen', 'tan', 'salmon', 'gold', 'darkred', 'darkblue']


def _has_display() -> bool:
    """:return: (bool) whether a GUI backend could open a window (always True outside Linux/BSD)"""
    if not sys.platform.startswith(("linux", "freebsd", "openbsd", "netbsd")):
        return True
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def _backend_chosen_by_user(matplotlib_module) -> bool:
    """:return: (bool) whether the user (or matplotlibrc) already decided the matplotlib backend"""
    if os.environ.get("MPLBACKEND") or "matplotlib.pyplot" in sys.modules:
        return True
    get_backend_or_none = getattr(matplotlib_module.rcParams, "_get_backend_or_none", None)
    if get_backend_or_none is None:  # older matplotlib: no way to tell an automatic choice from a user's one
        return True
    return get_backend_or_none() is not None


def _pyplot():
    """
    Import matplotlib.pyplot, selecting the ``Agg`` backend first when no display is available and the
    user chose no backend (so that plotting works headless instead of failing on a GUI backend).

    :return: (module) matplotlib.pyplot
    """
    import matplotlib
    if not _backend_chosen_by_user(matplotlib) and not _has_display():
        matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def rolling_window(array: np.ndarray, window: int) -> np.ndarray:
    """
    apply a rolling window to a np.ndarray

    :param array: (np.ndarray) the input Array
    :param window: (int) length of the rolling window
    :return: (np.ndarray) rolling window on the input array
    """
    array = np.asarray(array)
    if window < 1 or window > array.shape[-1]:
        raise ValueError("rolling_window needs 1 <= window <= {} (the last dimension of the array), got {}"
                         .format(array.shape[-1], window))
    shape = array.shape[:-1] + (array.shape[-1] - window + 1, window)
    strides = array.strides + (array.strides[-1],)
    return np.lib.stride_tricks.as_strided(array, shape=shape, strides=strides, writeable=False)


def window_func(var_1: np.ndarray, var_2: np.ndarray, window: int,
                func: Callable) -> Tuple[np.ndarray, np.ndarray]:
    """
    apply a function to the rolling window of 2 arrays

    :param var_1: (np.ndarray) variable 1
    :param var_2: (np.ndarray) variable 2
    :param window: (int) length of the rolling window
    :param func: (numpy function) function to apply on the rolling window on variable 2 (such as np.mean)
    :return: (np.ndarray, np.ndarray)  the rolling output with applied function
    """
    var_2_window = rolling_window(var_2, window)
    function_on_var2 = func(var_2_window, axis=-1)
    return np.asarray(var_1)[window - 1:], function_on_var2


def ts2xy(timesteps: "pandas.DataFrame", xaxis: str) -> Tuple[np.ndarray, np.ndarray]:
    """
    Decompose a timesteps variable to x ans ys

    :param timesteps: (Pandas DataFrame) the input data (columns ``r``, ``l``, ``t`` of a monitor file)
    :param xaxis: (str) the axis for the x and y output
        (can be X_TIMESTEPS='timesteps', X_EPISODES='episodes' or X_WALLTIME='walltime_hrs')
    :return: (np.ndarray, np.ndarray) the x and y output
    """
    if xaxis == X_TIMESTEPS:
        x_var = np.cumsum(timesteps.l.values)
        y_var = timesteps.r.values
    elif xaxis == X_EPISODES:
        x_var = np.arange(len(timesteps))
        y_var = timesteps.r.values
    elif xaxis in (X_WALLTIME, 'walltime hrs'):
        x_var = timesteps.t.values / 3600.
        y_var = timesteps.r.values
    else:
        raise ValueError("Unknown xaxis {!r}: expected one of {}".format(xaxis, POSSIBLE_X_AXES))
    return x_var, y_var


def plot_curves(xy_list: List[Tuple[np.ndarray, np.ndarray]], xaxis: str, title: str) -> None:
    """
    plot the curves

    :param xy_list: ([(np.ndarray, np.ndarray)]) the x and y coordinates to plot
    :param xaxis: (str) the axis for the x and y output
        (can be X_TIMESTEPS='timesteps', X_EPISODES='episodes' or X_WALLTIME='walltime_hrs')
    :param title: (str) the title of the plot
    """
    plt = _pyplot()

    plt.figure(figsize=(8, 2))
    non_empty = [xy for xy in xy_list if len(xy[0]) > 0]
    maxx = max(xy[0][-1] for xy in non_empty) if non_empty else 1
    minx = 0
    for i, (x_var, y_var) in enumerate(xy_list):
        color = COLORS[i % len(COLORS)]
        plt.scatter(x_var, y_var, s=2)
        # Do not plot the smoothed curve at all if the timeseries is shorter than window size.
        if x_var.shape[0] >= EPISODES_WINDOW:
            # Compute and plot rolling mean with window of size EPISODE_WINDOW
            x_var, y_mean = window_func(x_var, y_var, EPISODES_WINDOW, np.mean)
            plt.plot(x_var, y_mean, color=color)
    plt.xlim(minx, maxx)
    plt.title(title)
    plt.xlabel(xaxis)
    plt.ylabel("Episode Rewards")
    plt.tight_layout()


def plot_results(dirs: Sequence[str], num_timesteps: Optional[int], xaxis: str, task_name: str) -> None:
    """
    plot the results

    :param dirs: ([str]) the save location of the results to plot
    :param num_timesteps: (int or None) only plot the points below this value
    :param xaxis: (str) the axis for the x and y output
        (can be X_TIMESTEPS='timesteps', X_EPISODES='episodes' or X_WALLTIME='walltime_hrs')
    :param task_name: (str) the title of the task to plot
    """
    if isinstance(dirs, str):
        dirs = [dirs]
    tslist = []
    for folder in dirs:
        timesteps = load_results(folder)
        if num_timesteps is not None:
            timesteps = timesteps[timesteps.l.cumsum() <= num_timesteps]
        tslist.append(timesteps)
    xy_list = [ts2xy(timesteps_item, xaxis) for timesteps_item in tslist]
    plot_curves(xy_list, xaxis, task_name)


def main(args: Optional[Sequence[str]] = None) -> None:
    """
    Example usage in jupyter-notebook

    .. code-block:: python

        from stable_baselines import results_plotter
        %matplotlib inline
        results_plotter.plot_results(["./log"], 10e6, results_plotter.X_TIMESTEPS, "Breakout")

    Here ./log is a directory containing the monitor.csv files

    From a shell: ``python -m stable_baselines.results_plotter --dirs ./log --output curve.png``
    (``--output`` saves the figure, the only way to get it on a machine without a display;
    without it the figure is shown in a window).

    :param args: ([str]) the command-line arguments (None: ``sys.argv[1:]``)
    """
    parser = argparse.ArgumentParser(formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    parser.add_argument('--dirs', help='List of log directories', nargs='*', default=['./log'])
    parser.add_argument('--num_timesteps', type=int, default=int(10e6))
    parser.add_argument('--xaxis', help='Varible on X-axis', default=X_TIMESTEPS, choices=POSSIBLE_X_AXES)
    parser.add_argument('--task_name', help='Title of plot', default='Breakout')
    parser.add_argument('--output', help='Save the figure to this file (PNG, PDF, SVG, ...) instead of showing it',
                        default=None)
    parsed = parser.parse_args(args)
    parsed.dirs = [os.path.abspath(folder) for folder in parsed.dirs]
    plot_results(parsed.dirs, parsed.num_timesteps, parsed.xaxis, parsed.task_name)
    plt = _pyplot()
    if parsed.output is not None:
        plt.savefig(parsed.output)
        print("Saved the figure to {}".format(parsed.output))
    elif not _has_display() and plt.get_backend().lower() == "agg":
        print("No display available: pass --output <file.png> to save the figure", file=sys.stderr)
    else:
        plt.show()


if __name__ == '__main__':
    main()
