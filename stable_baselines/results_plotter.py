"""
Learning curves from the ``monitor.csv`` files that :class:`stable_baselines.bench.Monitor` writes: one dot
per episode (its reward) and, for runs of at least ``EPISODES_WINDOW`` episodes, the rolling mean of the
rewards.

In a notebook::

    from stable_baselines import results_plotter
    %matplotlib inline
    results_plotter.plot_results(["./log"], 10e6, results_plotter.X_TIMESTEPS, "Breakout")

From a shell (``--help`` lists the options)::

    python -m stable_baselines.results_plotter --dirs ./log --output curve.png

matplotlib is imported by the first plot, not with the package. When the user chose no backend
(``MPLBACKEND``, ``matplotlib.use``, a matplotlibrc, or pyplot already imported) and there is no display,
the non-interactive ``Agg`` backend is selected, so plotting works on a headless machine (save the figure
with ``plt.savefig``, or ``--output`` from the shell). A backend chosen by the user is never replaced.
"""
import argparse
import os
import sys
from typing import TYPE_CHECKING, Any, Callable, List, Optional, Sequence, Tuple

import numpy as np

from stable_baselines.bench.monitor import load_results

if TYPE_CHECKING:
    import pandas  # noqa: F401

# what the x axis can show
X_TIMESTEPS = 'timesteps'  # timesteps since the start (cumulative episode lengths)
X_EPISODES = 'episodes'  # episode count
X_WALLTIME = 'walltime_hrs'  # hours since the start
POSSIBLE_X_AXES = [X_TIMESTEPS, X_EPISODES, X_WALLTIME]
# number of episodes the smoothed curve averages over
EPISODES_WINDOW = 100
# colour of the smoothed curve of each run, in order (then again from the start)
COLORS = [
    'blue', 'green', 'red', 'cyan', 'magenta', 'yellow', 'black',
    'purple', 'pink', 'brown', 'orange', 'teal', 'coral', 'lightblue',
    'lime', 'lavender', 'turquoise', 'darkgreen', 'tan', 'salmon', 'gold',
    'darkred', 'darkblue',
]

_XY = Tuple[np.ndarray, np.ndarray]


def _has_display() -> bool:
    """:return: (bool) False on a Linux/BSD machine without X11 or Wayland display, True otherwise"""
    if not sys.platform.startswith(("linux", "freebsd", "openbsd", "netbsd")):
        return True
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def _backend_chosen_by_user(matplotlib_module: Any) -> bool:
    """
    :param matplotlib_module: (module) matplotlib
    :return: (bool) True when the backend is already decided (environment variable, matplotlibrc,
        ``matplotlib.use`` or pyplot imported); also True for matplotlib versions that cannot tell
    """
    if os.environ.get("MPLBACKEND") or "matplotlib.pyplot" in sys.modules:
        return True
    backend_or_none = getattr(matplotlib_module.rcParams, "_get_backend_or_none", None)
    return backend_or_none is None or backend_or_none() is not None


def _pyplot() -> Any:
    """
    :return: (module) ``matplotlib.pyplot``, imported after selecting ``Agg`` when nobody chose a backend
        and no display is available
    """
    import matplotlib
    if not _has_display() and not _backend_chosen_by_user(matplotlib):
        matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def rolling_window(array: np.ndarray, window: int) -> np.ndarray:
    """
    View the consecutive windows of the last axis of an array (no copy).

    :param array: (np.ndarray) the data, windows run along its last axis
    :param window: (int) the length of a window (1 to the length of the last axis)
    :return: (np.ndarray) read-only view of shape ``array.shape[:-1] + (n - window + 1, window)``
    """
    array = np.asarray(array)
    length = array.shape[-1]
    if not 1 <= window <= length:
        raise ValueError("rolling_window needs 1 <= window <= {} (the last dimension of the array), got {}"
                         .format(length, window))
    return np.lib.stride_tricks.sliding_window_view(array, window, axis=-1)


def window_func(var_1: np.ndarray, var_2: np.ndarray, window: int, func: Callable) -> _XY:
    """
    Reduce each rolling window of ``var_2`` with ``func``, paired with the ``var_1`` value at the window's end.

    :param var_1: (np.ndarray) the x values
    :param var_2: (np.ndarray) the y values, as many as x values
    :param window: (int) the length of the windows
    :param func: (numpy function) the reduction, called with ``axis=-1`` (``np.mean``, ``np.median``, ...)
    :return: (np.ndarray, np.ndarray) the x values from the ``window``-th on, and the reduced windows
    """
    reduced = func(rolling_window(var_2, window), axis=-1)
    return np.asarray(var_1)[window - 1:], reduced


def ts2xy(timesteps: "pandas.DataFrame", xaxis: str) -> _XY:
    """
    Turn the episodes of a monitor file into the points of a learning curve.

    :param timesteps: (pandas.DataFrame) the episodes, with columns ``r`` (reward), ``l`` (length) and
        ``t`` (seconds since the start), as returned by ``load_results``
    :param xaxis: (str) X_TIMESTEPS='timesteps', X_EPISODES='episodes' or X_WALLTIME='walltime_hrs'
    :return: (np.ndarray, np.ndarray) the x values and the episode rewards
    """
    if xaxis == X_TIMESTEPS:
        x_values = np.cumsum(timesteps.l.values)
    elif xaxis == X_EPISODES:
        x_values = np.arange(len(timesteps))
    elif xaxis in (X_WALLTIME, 'walltime hrs'):  # the manual's spelling is accepted too
        x_values = timesteps.t.values / 3600.
    else:
        raise ValueError("Unknown xaxis {!r}: expected one of {}".format(xaxis, POSSIBLE_X_AXES))
    return x_values, timesteps.r.values


def plot_curves(xy_list: List[_XY], xaxis: str, title: str) -> None:
    """
    Draw learning curves in a new figure: the points of each run, plus its rolling mean over
    ``EPISODES_WINDOW`` episodes when it has that many.

    :param xy_list: ([(np.ndarray, np.ndarray)]) the x and y values of each run
    :param xaxis: (str) the label of the x axis (X_TIMESTEPS, X_EPISODES or X_WALLTIME)
    :param title: (str) the title of the figure
    """
    plt = _pyplot()
    plt.figure(figsize=(8, 2))
    last_x = [x_values[-1] for x_values, _ in xy_list if len(x_values) > 0]
    for index, (x_values, y_values) in enumerate(xy_list):
        plt.scatter(x_values, y_values, s=2)
        if x_values.shape[0] >= EPISODES_WINDOW:
            smooth_x, smooth_y = window_func(x_values, y_values, EPISODES_WINDOW, np.mean)
            plt.plot(smooth_x, smooth_y, color=COLORS[index % len(COLORS)])
    plt.xlim(0, max(last_x) if last_x else 1)
    plt.title(title)
    plt.xlabel(xaxis)
    plt.ylabel("Episode Rewards")
    plt.tight_layout()


def plot_results(dirs: Sequence[str], num_timesteps: Optional[int], xaxis: str, task_name: str) -> None:
    """
    Draw the learning curve of each folder of monitor files, in one new figure.

    :param dirs: ([str]) the folders holding the ``*monitor.csv`` files, one curve each
    :param num_timesteps: (int or None) keep only the episodes that end within this many timesteps
        (None: all)
    :param xaxis: (str) X_TIMESTEPS='timesteps', X_EPISODES='episodes' or X_WALLTIME='walltime_hrs'
    :param task_name: (str) the title of the figure
    """
    if isinstance(dirs, str):
        dirs = [dirs]
    curves = []
    for folder in dirs:
        episodes = load_results(folder)
        if num_timesteps is not None:
            episodes = episodes[episodes.l.cumsum() <= num_timesteps]
        curves.append(ts2xy(episodes, xaxis))
    plot_curves(curves, xaxis, task_name)


def _argument_parser() -> argparse.ArgumentParser:
    """:return: (argparse.ArgumentParser) the command line of ``python -m stable_baselines.results_plotter``"""
    parser = argparse.ArgumentParser(
        prog="python -m stable_baselines.results_plotter",
        description="Plot the learning curves stored in the monitor.csv files written by "
                    "stable_baselines.bench.Monitor: the reward of each episode, and its mean over the last "
                    "{} episodes.".format(EPISODES_WINDOW),
        formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    parser.add_argument('--dirs', nargs='*', default=['./log'], metavar='DIR',
                        help='folders holding the monitor.csv files; each folder is one curve')
    parser.add_argument('--num_timesteps', type=int, default=int(10e6), metavar='N',
                        help='plot only the episodes that end within this many timesteps of the start')
    parser.add_argument('--xaxis', default=X_TIMESTEPS, choices=POSSIBLE_X_AXES,
                        help='what the x axis shows: timesteps since the start, episode count, or hours '
                             'since the start')
    parser.add_argument('--task_name', default='Breakout', help='title of the figure')
    parser.add_argument('--output', default=None, metavar='FILE',
                        help='save the figure to FILE (format from the extension: png, pdf, svg, ...) '
                             'instead of showing it in a window')
    return parser


def main(args: Optional[Sequence[str]] = None) -> None:
    """
    The command line: plot the monitor files of some folders, then show the figure or save it.

    .. code-block:: bash

        python -m stable_baselines.results_plotter --dirs ./log --xaxis episodes --output curve.png

    Without ``--output`` the figure opens in a window; on a machine without a display, ``--output`` is
    the way to get it. From Python: ``results_plotter.main(["--dirs", "./log"])``.

    :param args: ([str]) the command-line arguments (None: ``sys.argv[1:]``)
    """
    options = _argument_parser().parse_args(args)
    plot_results([os.path.abspath(folder) for folder in options.dirs], options.num_timesteps, options.xaxis,
                 options.task_name)
    plt = _pyplot()
    if options.output is not None:
        plt.savefig(options.output)
        print("Saved the figure to {}".format(options.output))
    elif not _has_display() and plt.get_backend().lower() == "agg":
        print("No display available: pass --output <file.png> to save the figure", file=sys.stderr)
    else:
        plt.show()


if __name__ == '__main__':
    main()
