"""
The logger of Stable Baselines: diagnostics gathered during an iteration (``logkv``, ``logkv_mean``) and
written at once (``dumpkvs``), plus free-text messages (``log``, ``info``, ...).

Where things go is chosen with :func:`configure` (or the environment variables ``OPENAI_LOGDIR`` and
``OPENAI_LOG_FORMAT``): the table on stdout, and, given a folder, ``log.txt``, ``progress.csv``,
``progress.json`` or tensorboard events under ``tb/``. Until then, and after :func:`reset`, the logger only
prints to stdout. Nothing is written to disk unless a folder is given.

Example::

    from stable_baselines import logger
    logger.configure(folder="/tmp/experiment", format_strs=["stdout", "csv", "tensorboard"])
    logger.logkv("loss", 0.25)
    logger.logkv_mean("reward", 1.0)
    logger.dumpkvs()
    frame = logger.read_csv("/tmp/experiment/progress.csv")

The machinery lives in :mod:`stable_baselines.logging_parts`; this module is the public interface.
"""
import functools
import os
import tempfile
import time
import warnings
from typing import Any, Callable, Dict, List, Optional, Tuple, Union

from stable_baselines.common import misc_util
from stable_baselines.logging_parts.core import DEBUG, DISABLED, ERROR, INFO, WARN, Logger
from stable_baselines.logging_parts.formats import (FILE_FORMATS, CSVOutputFormat, HumanOutputFormat,
                                                    JSONOutputFormat, KVWriter, SeqWriter, TensorBoardOutputFormat,
                                                    make_output_format)
from stable_baselines.logging_parts.readers import read_csv, read_json, read_tb

FormatStrings = Union[str, List[str], None]


# ----------------------------------------------------------------------------------------------
# diagnostics of the current iteration
# ----------------------------------------------------------------------------------------------
def logkv(key: str, val: Any) -> None:
    """
    Record the value of a diagnostic for this iteration; the last value given before the dump is kept.

    :param key: (Any) the name of the diagnostic
    :param val: (Any) its value
    """
    Logger.CURRENT.logkv(key, val)


def logkv_mean(key: str, val: Any) -> None:
    """
    Like :func:`logkv`, but the dump shows the mean of all values given during the iteration.

    :param key: (Any) the name of the diagnostic
    :param val: (Number) one more value to average
    """
    Logger.CURRENT.logkv_mean(key, val)


def logkvs(key_values: Dict[str, Any]) -> None:
    """
    Record several diagnostics at once, as :func:`logkv` does for each.

    :param key_values: (dict) diagnostic name -> value
    """
    for key, value in key_values.items():
        Logger.CURRENT.logkv(key, value)


def dumpkvs() -> None:
    """
    Write the diagnostics of this iteration to every output format, then start a new iteration.
    """
    Logger.CURRENT.dumpkvs()


def getkvs() -> Dict[str, Any]:
    """
    :return: (dict) the diagnostics recorded since the last dump (the logger's own dictionary)
    """
    return Logger.CURRENT.name2val


# the names of the tabular API of older code, and those of the later logger
record_tabular = logkv
dump_tabular = dumpkvs
record = logkv
record_mean = logkv_mean
dump = dumpkvs


# ----------------------------------------------------------------------------------------------
# messages and levels
# ----------------------------------------------------------------------------------------------
def log(*args: Any, level: int = INFO) -> None:
    """
    Write a message (the arguments as text, separated by spaces) to stdout and the text files, unless its
    level is below the logger's level.

    :param args: (list) the pieces of the message
    :param level: (int) the level of the message (DEBUG=10, INFO=20, WARN=30, ERROR=40, DISABLED=50)
    """
    Logger.CURRENT.log(*args, level=level)


def debug(*args: Any) -> None:
    """
    Write a message at level DEBUG (hidden unless the level was lowered to DEBUG).

    :param args: (list) the pieces of the message
    """
    log(*args, level=DEBUG)


def info(*args: Any) -> None:
    """
    Write a message at level INFO.

    :param args: (list) the pieces of the message
    """
    log(*args, level=INFO)


def warn(*args: Any) -> None:
    """
    Write a message at level WARN.

    :param args: (list) the pieces of the message
    """
    log(*args, level=WARN)


def error(*args: Any) -> None:
    """
    Write a message at level ERROR.

    :param args: (list) the pieces of the message
    """
    log(*args, level=ERROR)


def set_level(level: int) -> None:
    """
    Set the lowest level of the messages the current logger writes (DISABLED also silences the table).

    :param level: (int) DEBUG=10, INFO=20, WARN=30, ERROR=40 or DISABLED=50
    """
    Logger.CURRENT.set_level(level)


def get_level() -> int:
    """
    :return: (int) the level of the current logger (DEBUG=10, INFO=20, WARN=30, ERROR=40, DISABLED=50)
    """
    return Logger.CURRENT.level


def get_dir() -> Optional[str]:
    """
    :return: (str) the folder the current logger writes its files to, None when it writes no file
    """
    return Logger.CURRENT.get_dir()


# ----------------------------------------------------------------------------------------------
# timing
# ----------------------------------------------------------------------------------------------
class ProfileKV:
    """
    Context manager adding the seconds spent in its block to the diagnostic ``wait_<name>``::

        with logger.ProfileKV("env_step"):
            env.step(action)

    :param name: (str) the name of the timed section
    """

    def __init__(self, name: str) -> None:
        self.name = "wait_" + name
        self.start_time: Optional[float] = None

    def __enter__(self) -> None:
        self.start_time = time.time()

    def __exit__(self, _type: Any, value: Any, traceback: Any) -> None:
        assert self.start_time is not None, "__exit__ without __enter__"
        Logger.CURRENT.name2val[self.name] += time.time() - self.start_time


profile_kv = ProfileKV


def profile(name: str) -> Callable:
    """
    Decorator adding the seconds spent in each call to the diagnostic ``wait_<name>``::

        @logger.profile("update")
        def update(batch): ...

    :param name: (str) the name of the timed section
    :return: (function) the decorator
    """

    def decorate(func: Callable) -> Callable:
        @functools.wraps(func)
        def timed(*args: Any, **kwargs: Any) -> Any:
            with ProfileKV(name):
                return func(*args, **kwargs)

        return timed

    return decorate


# ----------------------------------------------------------------------------------------------
# configuration
# ----------------------------------------------------------------------------------------------
def _mpi_rank() -> int:
    return misc_util.mpi_rank_or_zero()


def _logging_folder(folder: Optional[str]) -> Optional[str]:
    """:return: (str) the folder to write to (``OPENAI_LOGDIR`` when none is given), created; None for none"""
    if folder is None:
        folder = os.getenv("OPENAI_LOGDIR") or None
    if folder is None:
        return None
    if not isinstance(folder, (str, os.PathLike)):
        raise TypeError("Expected the logger folder to be a path (str), got {!r} of type {}"
                        .format(folder, type(folder).__name__))
    folder = os.fspath(folder)
    os.makedirs(folder, exist_ok=True)
    return folder


def _format_names(format_strs: FormatStrings, rank: int, has_folder: bool) -> Tuple[List[str], bool]:
    """
    Decide the output formats.

    :param format_strs: (str or [str]) the formats asked for (a comma separated string is accepted), or None
        for ``OPENAI_LOG_FORMAT`` (``OPENAI_LOG_FORMAT_MPI`` on MPI ranks > 0) or the defaults
    :param rank: (int) the MPI rank of this process
    :param has_folder: (bool) whether there is a logging folder
    :return: ([str], bool) the format names, and whether they came from an environment variable
    """
    from_env = False
    if format_strs is None:
        variable = "OPENAI_LOG_FORMAT" if rank == 0 else "OPENAI_LOG_FORMAT_MPI"
        if rank == 0:
            default = "stdout,log,csv" if has_folder else "stdout"
        else:
            default = "log" if has_folder else ""
        env_value = os.getenv(variable)
        from_env = env_value is not None
        format_strs = env_value if env_value is not None else default
    names = format_strs.split(",") if isinstance(format_strs, str) else format_strs
    return [name.strip() for name in names if name and name.strip()], from_env


def configure(folder: Optional[str] = None, format_strs: Optional[List[str]] = None) -> None:
    """
    Make a new current logger.

    Unlike the original library, no temporary folder is made up: without a folder (and without
    ``OPENAI_LOGDIR``) the logger prints to stdout and writes no file.

    :param folder: (str) the folder of the files. None: ``OPENAI_LOGDIR`` if set, else no folder
    :param format_strs: ([str]) the output formats among 'stdout', 'log', 'json', 'csv', 'tensorboard'.
        None: the comma separated ``OPENAI_LOG_FORMAT`` if set, else 'stdout,log,csv' with a folder and
        'stdout' without one. MPI ranks > 0 read ``OPENAI_LOG_FORMAT_MPI`` instead, defaulting to 'log'
        with a folder and nothing without one; their files are suffixed ``-rank<NNN>``.
    """
    folder = _logging_folder(folder)
    rank = _mpi_rank()
    names, from_env = _format_names(format_strs, rank, folder is not None)
    if folder is None:
        file_formats = [name for name in names if name in FILE_FORMATS]
        if file_formats and not from_env:
            raise ValueError("The logger formats {} write files and need a folder: pass configure(folder=...) "
                             "or set OPENAI_LOGDIR (got format_strs={}, no folder)".format(file_formats, names))
        if file_formats:
            warnings.warn("OPENAI_LOG_FORMAT asks for {} but no folder was given (configure(folder=...) or "
                          "OPENAI_LOGDIR): those formats are ignored and nothing is written to disk"
                          .format(file_formats))
            names = [name for name in names if name not in FILE_FORMATS]
    suffix = "-rank%03i" % rank if rank > 0 else ""
    Logger.CURRENT = Logger(folder=folder, output_formats=[make_output_format(name, folder, suffix)
                                                           for name in names])
    if folder is not None:
        log("Logging to %s" % folder)


def reset() -> None:
    """
    Close the current logger and return to the default one (stdout only).
    """
    if Logger.CURRENT is Logger.DEFAULT:
        return
    Logger.CURRENT.close()
    Logger.CURRENT = Logger.DEFAULT
    log("Reset logger")


class ScopedConfigure(object):
    """
    Context manager: a logger configured as by :func:`configure` is current inside the block; on exit it is
    closed and the previous logger is current again::

        with ScopedConfigure(folder="/tmp/run", format_strs=["csv"]):
            logger.logkv("a", 1)
            logger.dumpkvs()

    :param folder: (str) the folder of the files
    :param format_strs: ([str]) the output formats
    """

    def __init__(self, folder: Optional[str] = None, format_strs: Optional[List[str]] = None) -> None:
        self.dir = folder
        self.format_strs = format_strs
        self.prevlogger: Optional[Logger] = None

    def __enter__(self) -> None:
        self.prevlogger = Logger.CURRENT
        configure(folder=self.dir, format_strs=self.format_strs)

    def __exit__(self, *args: Any) -> None:
        Logger.CURRENT.close()
        Logger.CURRENT = self.prevlogger if self.prevlogger is not None else Logger.DEFAULT



# ----------------------------------------------------------------------------------------------
# demonstration (python -m stable_baselines.logger)
# ----------------------------------------------------------------------------------------------
def _demo(folder: Optional[str] = None) -> str:
    """
    Show what the logger does: messages filtered by level, tables on stdout, files in a folder, a scoped
    logger writing JSON, a value too long for the table.

    :param folder: (str) where the files go (None: a new temporary folder)
    :return: (str) the folder, holding ``log.txt``, ``progress.csv`` and ``scoped/progress.json``
    """
    if folder is None:
        folder = tempfile.mkdtemp(prefix="stable_baselines_logger_demo_")
    default_level = Logger.DEFAULT.level
    info("hi")
    debug("this DEBUG message is hidden at the INFO level")
    set_level(DEBUG)
    debug("this DEBUG message is shown at the DEBUG level")

    configure(folder=folder)
    logkvs({"a": 3, "b": 2.5})
    dumpkvs()
    logkv("b", -2.5)
    logkv("a", 5.5)
    dumpkvs()
    info("^^^ a = 5.5 above")
    logkv_mean("b", -22.5)
    logkv_mean("b", -44.4)
    logkv("a", 5.5)
    dumpkvs()
    info("^^^ b = -33.5 above: -33.45, the mean of -22.5 and -44.4")

    with ScopedConfigure(os.path.join(folder, "scoped"), ["json"]):
        logkv("b", -2.5)
        dumpkvs()
    reset()

    logkv("a", "a value too long for its column")
    dumpkvs()
    warn("a warning")
    error("an error")
    info("files written to {}".format(folder))
    Logger.DEFAULT.set_level(default_level)
    return folder


__all__ = ["DEBUG", "INFO", "WARN", "ERROR", "DISABLED", "KVWriter", "SeqWriter", "HumanOutputFormat",
           "JSONOutputFormat", "CSVOutputFormat", "TensorBoardOutputFormat", "make_output_format", "logkv",
           "logkv_mean", "logkvs", "dumpkvs", "getkvs", "log", "debug", "info", "warn", "error", "set_level",
           "get_level", "get_dir", "record_tabular", "dump_tabular", "record", "record_mean", "dump",
           "ProfileKV", "profile_kv", "profile", "Logger", "configure", "reset", "ScopedConfigure",
           "read_json", "read_csv", "read_tb"]

if __name__ == "__main__":
    _demo()
