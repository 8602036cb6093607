"""
The Stable Baselines logger: key-value diagnostics (``logkv`` ... ``dumpkvs``) and plain messages
(``log``), written to any number of output formats.

Output formats (``format_strs`` of :func:`configure`, or the ``OPENAI_LOG_FORMAT`` environment
variable, comma separated):

- ``stdout``: the boxed table printed to the terminal (:class:`HumanOutputFormat`)
- ``log``: the same table, in ``<folder>/log.txt``
- ``json``: one JSON object per dump, in ``<folder>/progress.json``
- ``csv``: ``<folder>/progress.csv``
- ``tensorboard``: tensorboard scalars, in ``<folder>/tb/events.out.tfevents.*``

By default the logger prints to stdout only and writes no file. Files are written only when a
folder is given, to :func:`configure` or through the ``OPENAI_LOGDIR`` environment variable.

Example::

    from stable_baselines import logger
    logger.configure(folder="/tmp/experiment", format_strs=["stdout", "csv", "tensorboard"])
    logger.logkv("loss", 0.25)
    logger.logkv_mean("reward", 1.0)
    logger.dumpkvs()
"""
import json
import os
import sys
import time
import warnings
from collections import defaultdict
from typing import TYPE_CHECKING, Any, Callable, Dict, Iterable, List, Optional, TextIO, Union

if TYPE_CHECKING:
    import pandas  # noqa: F401

DEBUG = 10
INFO = 20
WARN = 30
ERROR = 40
DISABLED = 50

# formats that only print and need no folder
_CONSOLE_FORMATS = ("stdout",)
_FILE_FORMATS = ("log", "json", "csv", "tensorboard")


class KVWriter(object):
    """
    Key-value writer: the interface of the output formats that receive the diagnostics table.
    """

    def writekvs(self, kvs: Dict[str, Any]) -> None:
        """
        Write a dictionary of key-values.

        :param kvs: (dict) the key-values to write
        """
        raise NotImplementedError

    def close(self) -> None:
        """Close the writer (releases its file, if it owns one)."""


class SeqWriter(object):
    """
    Sequence writer: the interface of the output formats that receive plain messages (``log``).
    """

    def writeseq(self, seq: Iterable[str]) -> None:
        """
        Write a sequence of strings, separated by spaces, ending with a new line.

        :param seq: (iterable of str) the strings to write
        """
        raise NotImplementedError

    def close(self) -> None:
        """Close the writer (releases its file, if it owns one)."""


def _is_float(value: Any) -> bool:
    try:
        import numpy as np
        return isinstance(value, (float, np.floating))
    except ImportError:  # pragma: no cover
        return isinstance(value, float)


class HumanOutputFormat(KVWriter, SeqWriter):
    """
    Write the diagnostics as a human readable table, keys sorted::

        ---------------------------------
        | explained_variance | 0.0352   |
        | fps                | 1201     |
        | nupdates           | 100      |
        ---------------------------------

    Floats are printed with ``'%-8.3g'``; keys and values longer than 23 characters are cut to
    20 characters followed by ``...``.

    :param filename_or_file: (str or file-like) a path (the file is created, and closed by
        :meth:`close`) or an object with a ``write`` method. Given ``sys.stdout`` itself, the
        table goes to whatever ``sys.stdout`` is at write time (so redirections work).
    """

    def __init__(self, filename_or_file: Union[str, TextIO]):
        self._follow_stdout = False
        if isinstance(filename_or_file, str):
            self._file = open(filename_or_file, "wt")
            self.own_file = True
        elif filename_or_file is sys.stdout or filename_or_file is sys.__stdout__:
            self._file = None
            self._follow_stdout = True
            self.own_file = False
        else:
            if not hasattr(filename_or_file, "write"):
                raise TypeError("Expected a file path (str) or an object with a write method, got {!r}"
                                .format(filename_or_file))
            self._file = filename_or_file
            self.own_file = False

    @property
    def file(self) -> TextIO:
        """(file-like) the stream the table is written to"""
        return sys.stdout if self._follow_stdout else self._file

    def writekvs(self, kvs: Dict[str, Any]) -> None:
        # Create strings for printing
        key2str = {}
        for key, val in sorted(kvs.items(), key=lambda item: str(item[0])):
            if _is_float(val):
                valstr = "%-8.3g" % (val,)
            else:
                valstr = str(val)
            key2str[self._truncate(str(key))] = self._truncate(valstr)

        # Find max widths
        if len(key2str) == 0:
            warnings.warn("Tried to write empty key-value dict")
            return
        keywidth = max(map(len, key2str.keys()))
        valwidth = max(map(len, key2str.values()))

        # Write out the data
        dashes = "-" * (keywidth + valwidth + 7)
        lines = [dashes]
        for key, val in sorted(key2str.items()):
            lines.append("| %s%s | %s%s |" % (key, " " * (keywidth - len(key)), val, " " * (valwidth - len(val))))
        lines.append(dashes)
        out = self.file
        out.write("\n".join(lines) + "\n")
        # Flush the output to the file
        if hasattr(out, "flush"):
            out.flush()

    @classmethod
    def _truncate(cls, string: str) -> str:
        return string[:20] + "..." if len(string) > 23 else string

    def writeseq(self, seq: Iterable[str]) -> None:
        seq = list(seq)
        out = self.file
        for i, elem in enumerate(seq):
            out.write(elem)
            if i < len(seq) - 1:  # add space unless this is the last one
                out.write(" ")
        out.write("\n")
        if hasattr(out, "flush"):
            out.flush()

    def close(self) -> None:
        if self.own_file:
            self._file.close()


def _to_json_value(value: Any) -> Any:
    if hasattr(value, "dtype"):
        import numpy as np
        array = np.asarray(value)
        if array.size == 1:
            return array.reshape(()).item()
        return array.tolist()
    return value


class JSONOutputFormat(KVWriter):
    """
    Write the diagnostics as one JSON object per line. Numpy scalars and arrays are converted
    to numbers and lists.

    :param filename: (str) the file to write
    """

    def __init__(self, filename: str):
        self.file = open(filename, "wt")

    def writekvs(self, kvs: Dict[str, Any]) -> None:
        data = {str(key): _to_json_value(value) for key, value in sorted(kvs.items(), key=lambda item: str(item[0]))}
        self.file.write(json.dumps(data, default=str) + "\n")
        self.file.flush()

    def close(self) -> None:
        self.file.close()


class CSVOutputFormat(KVWriter):
    """
    Write the diagnostics as a CSV file, one row per dump. When a key appears that was not in
    the previous dumps, the header is rewritten and the previous rows get an empty cell for it.

    :param filename: (str) the file to write
    """

    def __init__(self, filename: str):
        self.file = open(filename, "w+t")
        self.keys = []  # type: List[str]
        self.sep = ","

    def writekvs(self, kvs: Dict[str, Any]) -> None:
        # Add our current row to the history
        extra_keys = sorted(str(key) for key in kvs.keys() if str(key) not in self.keys)
        if extra_keys:
            self.keys.extend(extra_keys)
            self.file.seek(0)
            lines = self.file.readlines()
            self.file.seek(0)
            self.file.truncate()
            self.file.write(self.sep.join(self.keys) + "\n")
            for line in lines[1:]:
                self.file.write(line.rstrip("\n"))
                self.file.write(self.sep * len(extra_keys))
                self.file.write("\n")
        str_kvs = {str(key): value for key, value in kvs.items()}
        cells = []
        for key in self.keys:
            value = str_kvs.get(key)
            cells.append("" if value is None else str(value))
        self.file.write(self.sep.join(cells) + "\n")
        self.file.flush()

    def close(self) -> None:
        self.file.close()


class TensorBoardOutputFormat(KVWriter):
    """
    Write the diagnostics as tensorboard scalars (one event per dump, steps counted from 1) in
    ``folder/events.out.tfevents.*``. Values that are not numbers are skipped.

    Works whether TensorFlow runs in TF-1 or TF-2 behaviour.

    :param folder: (str) the folder to write the events file in (created if needed)
    """

    def __init__(self, folder: str):
        from stable_baselines.common.tf_compat import tf
        os.makedirs(folder, exist_ok=True)
        self.dir = folder
        self.step = 1
        self._tf = tf
        # A FileWriter refuses to be created while executing eagerly (TF-2 behaviour):
        # creating it inside a graph context works in both behaviours.
        with tf.Graph().as_default():
            self.writer = tf.summary.FileWriter(os.path.abspath(folder))

    def writekvs(self, kvs: Dict[str, Any]) -> None:
        tf = self._tf
        values = []
        for key, value in sorted(kvs.items(), key=lambda item: str(item[0])):
            try:
                number = float(value)
            except (TypeError, ValueError):
                continue
            values.append(tf.Summary.Value(tag=str(key), simple_value=number))
        summary = tf.Summary(value=values)
        self.writer.add_summary(summary, self.step)
        self.writer.flush()
        self.step += 1

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
            self.writer = None


def make_output_format(_format: str, ev_dir: Optional[str], log_suffix: str = "") -> KVWriter:
    """
    Return a logger for the requested format.

    :param _format: (str) the requested format: 'stdout', 'log', 'json', 'csv' or 'tensorboard'
    :param ev_dir: (str) the folder of the files (not needed for 'stdout'; created if needed)
    :param log_suffix: (str) the suffix of the file names
    :return: (KVWriter) the logger
    """
    if _format == "stdout":
        return HumanOutputFormat(sys.stdout)
    if _format not in _FILE_FORMATS:
        raise ValueError("Unknown format specified: {!r} (expected one of 'stdout', 'log', 'json', 'csv', "
                         "'tensorboard')".format(_format))
    if ev_dir is None:
        raise ValueError("The logger format {!r} writes files and needs a folder, but no folder was given"
                         .format(_format))
    os.makedirs(ev_dir, exist_ok=True)
    if _format == "log":
        return HumanOutputFormat(os.path.join(ev_dir, "log%s.txt" % log_suffix))
    if _format == "json":
        return JSONOutputFormat(os.path.join(ev_dir, "progress%s.json" % log_suffix))
    if _format == "csv":
        return CSVOutputFormat(os.path.join(ev_dir, "progress%s.csv" % log_suffix))
    return TensorBoardOutputFormat(os.path.join(ev_dir, "tb%s" % log_suffix))


# ================================================================
# API
# ================================================================

def logkv(key: str, val: Any) -> None:
    """
    Log a value of some diagnostic.
    Call this once for each diagnostic quantity, each iteration.
    If called many times, the last value will be used.

    :param key: (Any) save to log this key
    :param val: (Any) save to log this value
    """
    Logger.CURRENT.logkv(key, val)


def logkv_mean(key: str, val: Any) -> None:
    """
    The same as logkv(), but if called many times, the values are averaged.

    :param key: (Any) save to log this key
    :param val: (Number) save to log this value
    """
    Logger.CURRENT.logkv_mean(key, val)


def logkvs(key_values: Dict[str, Any]) -> None:
    """
    Log a dictionary of key-value pairs.

    :param key_values: (dict) the list of keys and values to save to log
    """
    for key, value in key_values.items():
        logkv(key, value)


def dumpkvs() -> None:
    """
    Write all of the diagnostics from the current iteration.
    """
    Logger.CURRENT.dumpkvs()


def getkvs() -> Dict[str, Any]:
    """
    Get the key values logs of the current iteration.

    :return: (dict) the logged values
    """
    return Logger.CURRENT.name2val


def log(*args, level: int = INFO) -> None:
    """
    Write the sequence of args, with no separators,
    to the console and output files (if you've configured an output file).

    level: int. (see logger.py docs) If the global logger level is higher than
                the level argument here, don't print to stdout.

    :param args: (list) log the arguments
    :param level: (int) the logging level (can be DEBUG=10, INFO=20, WARN=30, ERROR=40, DISABLED=50)
    """
    Logger.CURRENT.log(*args, level=level)


def debug(*args) -> None:
    """
    Write the sequence of args, with no separators,
    to the console and output files (if you've configured an output file).
    Using the DEBUG level.

    :param args: (list) log the arguments
    """
    log(*args, level=DEBUG)


def info(*args) -> None:
    """
    Write the sequence of args, with no separators,
    to the console and output files (if you've configured an output file).
    Using the INFO level.

    :param args: (list) log the arguments
    """
    log(*args, level=INFO)


def warn(*args) -> None:
    """
    Write the sequence of args, with no separators,
    to the console and output files (if you've configured an output file).
    Using the WARN level.

    :param args: (list) log the arguments
    """
    log(*args, level=WARN)


def error(*args) -> None:
    """
    Write the sequence of args, with no separators,
    to the console and output files (if you've configured an output file).
    Using the ERROR level.

    :param args: (list) log the arguments
    """
    log(*args, level=ERROR)


def set_level(level: int) -> None:
    """
    Set logging threshold on current logger.

    :param level: (int) the logging level (can be DEBUG=10, INFO=20, WARN=30, ERROR=40, DISABLED=50)
    """
    Logger.CURRENT.set_level(level)


def get_level() -> int:
    """
    Get logging threshold on current logger.

    :return: (int) the logging level (can be DEBUG=10, INFO=20, WARN=30, ERROR=40, DISABLED=50)
    """
    return Logger.CURRENT.level


def get_dir() -> Optional[str]:
    """
    Get directory that log files are being written to.
    will be None if there is no output directory (i.e., if you didn't call start)

    :return: (str) the logging directory
    """
    return Logger.CURRENT.get_dir()


record_tabular = logkv
dump_tabular = dumpkvs
# names of the later logger API, for callbacks written against it
record = logkv
record_mean = logkv_mean
dump = dumpkvs


class ProfileKV:
    """
    Usage::

        with logger.ProfileKV("interesting_scope"):
            code

    adds the time spent in the block to the diagnostic ``wait_interesting_scope``.

    :param name: (str) the profiling name
    """

    def __init__(self, name: str):
        self.name = "wait_" + name
        self.t1 = None

    def __enter__(self) -> None:
        self.t1 = time.time()

    def __exit__(self, _type, value, traceback) -> None:
        Logger.CURRENT.name2val[self.name] += time.time() - self.t1


profile_kv = ProfileKV


def profile(name: str) -> Callable:
    """
    Decorator: adds the time spent in each call of the function to the diagnostic ``wait_<name>``::

        @profile("my_func")
        def my_func(): code

    :param name: (str) the profiling name
    :return: (function) the decorator
    """

    def decorator_with_name(func):
        def func_wrapper(*args, **kwargs):
            with ProfileKV(name):
                return func(*args, **kwargs)

        func_wrapper.__name__ = getattr(func, "__name__", "func_wrapper")
        func_wrapper.__doc__ = getattr(func, "__doc__", None)
        return func_wrapper

    return decorator_with_name


# ================================================================
# Backend
# ================================================================

class Logger(object):
    """
    The logger class.

    ``Logger.CURRENT`` is the logger the module functions (``logkv``, ``dumpkvs``, ``log``, ...)
    write to; ``Logger.DEFAULT`` is the logger that prints to stdout, used until :func:`configure`
    is called and again after :func:`reset`.

    :param folder: (str) the logging location (None: no files)
    :param output_formats: ([KVWriter and/or SeqWriter]) the list of output formats
    """
    # A logger with no output files. (See right below class definition)
    # So that you can still log to the terminal without setting up any output files
    DEFAULT = None  # type: Optional["Logger"]
    # Current logger being used by the free functions above
    CURRENT = None  # type: Optional["Logger"]

    def __init__(self, folder: Optional[str], output_formats: List[Any]):
        self.name2val = defaultdict(float)  # values this iteration
        self.name2cnt = defaultdict(int)
        self.level = INFO
        self.dir = folder
        self.output_formats = output_formats

    # Logging API, forwarded
    # ----------------------------------------
    def logkv(self, key: str, val: Any) -> None:
        """
        Log a value of some diagnostic.
        Call this once for each diagnostic quantity, each iteration.
        If called many times, the last value will be used.

        :param key: (Any) save to log this key
        :param val: (Any) save to log this value
        """
        self.name2val[key] = val

    def logkv_mean(self, key: str, val: Any) -> None:
        """
        The same as logkv(), but if called many times, the values are averaged.

        :param key: (Any) save to log this key
        :param val: (Number) save to log this value
        """
        if val is None:
            self.name2val[key] = None
            return
        oldval, cnt = self.name2val[key], self.name2cnt[key]
        if oldval is None:
            oldval, cnt = 0.0, 0
        self.name2val[key] = oldval * cnt / (cnt + 1) + val / (cnt + 1)
        self.name2cnt[key] = cnt + 1

    def dumpkvs(self) -> None:
        """
        Write all of the diagnostics from the current iteration, then forget them.
        """
        if self.level == DISABLED:
            return
        for fmt in self.output_formats:
            if isinstance(fmt, KVWriter):
                fmt.writekvs(self.name2val)
        self.name2val.clear()
        self.name2cnt.clear()

    def log(self, *args, level: int = INFO) -> None:
        """
        Write the sequence of args, with no separators,
        to the console and output files (if you've configured an output file).

        level: int. (see logger.py docs) If the global logger level is higher than
                    the level argument here, don't print to stdout.

        :param args: (list) log the arguments
        :param level: (int) the logging level (can be DEBUG=10, INFO=20, WARN=30, ERROR=40, DISABLED=50)
        """
        if self.level <= level:
            self._do_log(args)

    # Configuration
    # ----------------------------------------
    def set_level(self, level: int) -> None:
        """
        Set logging threshold on current logger.

        :param level: (int) the logging level (can be DEBUG=10, INFO=20, WARN=30, ERROR=40, DISABLED=50)
        """
        self.level = level

    def get_dir(self) -> Optional[str]:
        """
        Get directory that log files are being written to.
        will be None if there is no output directory (i.e., if you didn't call start)

        :return: (str) the logging directory
        """
        return self.dir

    def close(self) -> None:
        """
        closes the file
        """
        for fmt in self.output_formats:
            fmt.close()

    # Misc
    # ----------------------------------------
    def _do_log(self, args) -> None:
        """
        log to the requested format outputs

        :param args: (list) the arguments to log
        """
        for fmt in self.output_formats:
            if isinstance(fmt, SeqWriter):
                fmt.writeseq(map(str, args))


Logger.DEFAULT = Logger.CURRENT = Logger(folder=None, output_formats=[HumanOutputFormat(sys.stdout)])


def _mpi_rank() -> int:
    from stable_baselines.common.misc_util import mpi_rank_or_zero
    return mpi_rank_or_zero()


def configure(folder: Optional[str] = None, format_strs: Optional[List[str]] = None) -> None:
    """
    Configure the current logger.

    Unlike the original library, no temporary folder is created: without a folder (and without
    ``OPENAI_LOGDIR``) the logger only prints to stdout and writes no file.

    :param folder: (str) the save location. None: the ``OPENAI_LOGDIR`` environment variable,
        if set; otherwise no folder (stdout only)
    :param format_strs: ([str]) the output logging formats ('stdout', 'log', 'json', 'csv',
        'tensorboard'). None: the comma separated ``OPENAI_LOG_FORMAT`` environment variable if set,
        else 'stdout,log,csv' when there is a folder and 'stdout' otherwise (MPI ranks > 0:
        ``OPENAI_LOG_FORMAT_MPI``, else 'log' with a folder and nothing without one)
    """
    if folder is None:
        folder = os.getenv("OPENAI_LOGDIR") or None
    if folder is not None:
        if not isinstance(folder, (str, os.PathLike)):
            raise TypeError("Expected the logger folder to be a path (str), got {!r} of type {}"
                            .format(folder, type(folder).__name__))
        folder = os.fspath(folder)
        os.makedirs(folder, exist_ok=True)

    rank = _mpi_rank()
    log_suffix = "-rank%03i" % rank if rank > 0 else ""

    from_env = False
    if format_strs is None:
        if rank == 0:
            env_formats = os.getenv("OPENAI_LOG_FORMAT")
            default = "stdout,log,csv" if folder is not None else "stdout"
        else:
            env_formats = os.getenv("OPENAI_LOG_FORMAT_MPI")
            default = "log" if folder is not None else ""
        from_env = env_formats is not None
        format_strs = (env_formats if from_env else default).split(",")
    elif isinstance(format_strs, str):
        format_strs = format_strs.split(",")
    format_strs = [fmt.strip() for fmt in format_strs if fmt and fmt.strip()]

    if folder is None:
        needs_folder = [fmt for fmt in format_strs if fmt in _FILE_FORMATS]
        if needs_folder:
            if not from_env:
                raise ValueError("The logger formats {} write files and need a folder: pass configure(folder=...) "
                                 "or set OPENAI_LOGDIR (got format_strs={}, no folder)"
                                 .format(needs_folder, format_strs))
            warnings.warn("OPENAI_LOG_FORMAT asks for {} but no folder was given (configure(folder=...) or "
                          "OPENAI_LOGDIR): those formats are ignored and nothing is written to disk"
                          .format(needs_folder))
            format_strs = [fmt for fmt in format_strs if fmt not in _FILE_FORMATS]

    output_formats = [make_output_format(fmt, folder, log_suffix) for fmt in format_strs]
    Logger.CURRENT = Logger(folder=folder, output_formats=output_formats)
    if folder is not None:
        log("Logging to %s" % folder)


def reset() -> None:
    """
    Reset the logger to the default one (stdout only), closing the current one.
    """
    if Logger.CURRENT is not Logger.DEFAULT:
        Logger.CURRENT.close()
        Logger.CURRENT = Logger.DEFAULT
        log("Reset logger")


class ScopedConfigure(object):
    """
    Class for using a context manager to configure the logger: the previous logger is restored
    (and the scoped one closed) on exit::

        with ScopedConfigure(folder="/tmp/run", format_strs=["csv"]):
            code

    :param folder: (str) the logging folder
    :param format_strs: ([str]) the list of output logging formats
    """

    def __init__(self, folder: Optional[str] = None, format_strs: Optional[List[str]] = None):
        self.dir = folder
        self.format_strs = format_strs
        self.prevlogger = None

    def __enter__(self) -> None:
        self.prevlogger = Logger.CURRENT
        configure(folder=self.dir, format_strs=self.format_strs)

    def __exit__(self, *args) -> None:
        Logger.CURRENT.close()
        Logger.CURRENT = self.prevlogger


# ================================================================
# Readers
# ================================================================

def read_json(fname: str) -> "pandas.DataFrame":
    """
    read a json file using pandas

    :param fname: (str) the file path to read
    :return: (pandas.DataFrame) the data in the json
    """
    import pandas
    data = []
    with open(fname, "rt") as file_handler:
        for line in file_handler:
            if line.strip():
                data.append(json.loads(line))
    return pandas.DataFrame(data)


def read_csv(fname: str) -> "pandas.DataFrame":
    """
    read a csv file using pandas

    :param fname: (str) the file path to read
    :return: (pandas.DataFrame) the data in the csv
    """
    import pandas
    return pandas.read_csv(fname, index_col=None, comment="#")


def read_tb(path: str) -> "pandas.DataFrame":
    """
    read a tensorboard output

    :param path: (str) a tensorboard file OR a directory, where we will find all TB files of the form events.*
    :return: (pandas.DataFrame) the tensorboard data: one column per tag (sorted), row ``i`` holds step ``i + 1``
    """
    import glob
    import logging

    import numpy as np
    import pandas
    from stable_baselines.common.tf_compat import tf

    if os.path.isdir(path):
        fnames = sorted(glob.glob(os.path.join(path, "events.*")))
    elif os.path.basename(path).startswith("events."):
        fnames = [path]
    else:
        raise ValueError("Expected a tensorboard file (events.*) or a directory containing them, got {}".format(path))
    tag2pairs = defaultdict(list)
    maxstep = 0
    tf_logger = logging.getLogger("tensorflow")
    old_level = tf_logger.level
    tf_logger.setLevel(logging.ERROR)  # summary_iterator prints a deprecation notice
    try:
        for fname in fnames:
            for summary in tf.train.summary_iterator(fname):
                if summary.step > 0:
                    for value in summary.summary.value:
                        tag2pairs[value.tag].append((summary.step, value.simple_value))
                    maxstep = max(summary.step, maxstep)
    finally:
        tf_logger.setLevel(old_level)
    data = np.empty((maxstep, len(tag2pairs)))
    data[:] = np.nan
    tags = sorted(tag2pairs.keys())
    for colidx, tag in enumerate(tags):
        for step, value in tag2pairs[tag]:
            data[step - 1, colidx] = value
    return pandas.DataFrame(data, columns=tags)


__all__ = ["DEBUG", "INFO", "WARN", "ERROR", "DISABLED", "KVWriter", "SeqWriter", "HumanOutputFormat",
           "JSONOutputFormat", "CSVOutputFormat", "TensorBoardOutputFormat", "make_output_format", "logkv",
           "logkv_mean", "logkvs", "dumpkvs", "getkvs", "log", "debug", "info", "warn", "error", "set_level",
           "get_level", "get_dir", "record_tabular", "dump_tabular", "record", "record_mean", "dump",
           "ProfileKV", "profile_kv", "profile", "Logger", "configure", "reset", "ScopedConfigure",
           "read_json", "read_csv", "read_tb"]
