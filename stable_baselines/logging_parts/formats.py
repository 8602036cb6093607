"""
Output formats of the logger: each one receives the values of an iteration (``writekvs``) and, for the
text formats, plain messages (``writeseq``).

========================  =====================================  =====================================
format string             class                                  destination
========================  =====================================  =====================================
``stdout``                :class:`HumanOutputFormat`             the terminal, as a table
``log``                   :class:`HumanOutputFormat`             ``<folder>/log<suffix>.txt``
``json``                  :class:`JSONOutputFormat`              ``<folder>/progress<suffix>.json``
``csv``                   :class:`CSVOutputFormat`               ``<folder>/progress<suffix>.csv``
``tensorboard``           :class:`TensorBoardOutputFormat`       ``<folder>/tb<suffix>/events.out.*``
========================  =====================================  =====================================
"""
import json
import os
import sys
import warnings
from typing import Any, Callable, ContextManager, Dict, Iterable, List, Optional, TextIO, Tuple, Union

import numpy as np

# a table cell longer than this is shortened to its first _KEPT_CHARACTERS characters and "..."
_MAX_CELL_WIDTH = 23
_KEPT_CHARACTERS = 20


class KVWriter(object):
    """
    Interface of the formats that receive the key-value diagnostics of an iteration.
    """

    def writekvs(self, kvs: Dict[str, Any]) -> None:
        """
        Write the diagnostics of one iteration.

        :param kvs: (dict) diagnostic name -> value
        """
        raise NotImplementedError

    def close(self) -> None:
        """Release what the format holds (its file, if it opened one)."""


class SeqWriter(object):
    """
    Interface of the formats that receive free-text messages (``logger.log``).
    """

    def writeseq(self, seq: Iterable[str]) -> None:
        """
        Write the strings on one line, separated by single spaces.

        :param seq: (iterable of str) the pieces of the message
        """
        raise NotImplementedError

    def close(self) -> None:
        """Release what the format holds (its file, if it opened one)."""


def _by_name(kvs: Dict[Any, Any]) -> List[Tuple[Any, Any]]:
    """:return: ([(key, value)]) the items, ordered by the text of their key"""
    return sorted(kvs.items(), key=lambda item: str(item[0]))


def _shorten(text: str) -> str:
    """:return: (str) ``text``, cut to 20 characters plus ``...`` when it is longer than 23"""
    if len(text) > _MAX_CELL_WIDTH:
        return text[:_KEPT_CHARACTERS] + "..."
    return text


def _value_text(value: Any) -> str:
    """:return: (str) how a value appears in the table: floats as ``%-8.3g``, anything else through ``str``"""
    if isinstance(value, (float, np.floating)):
        return "%-8.3g" % (value,)
    return str(value)


def _table(cells: Dict[str, str]) -> str:
    """
    Draw the boxed two-column table of the terminal output.

    :param cells: (dict) key text -> value text (both already shortened)
    :return: (str) the table, one row per key in sorted order, framed by dashes, ending with a new line
    """
    key_width = max(len(key) for key in cells)
    value_width = max(len(value) for value in cells.values())
    border = "-" * (key_width + value_width + 7)
    rows = ["| {} | {} |".format(key.ljust(key_width), cells[key].ljust(value_width)) for key in sorted(cells)]
    return "\n".join([border] + rows + [border]) + "\n"


def _flush(stream: Any) -> None:
    if hasattr(stream, "flush"):
        stream.flush()


# stream -> context manager entered around each write of the stdout table (None: write directly)
TerminalGuard = Callable[[TextIO], ContextManager[Any]]
_TERMINAL_GUARD: List[Optional[TerminalGuard]] = [None]


def set_terminal_guard(guard: Optional[TerminalGuard]) -> Optional[TerminalGuard]:
    """
    Make every table and message the ``stdout`` format writes go through ``guard(sys.stdout)``, a context
    manager. A progress bar uses it to take itself off the screen while the text is written, then draw itself
    again below it, so that the two do not garble each other.

    :param guard: (Optional[Callable]) the new guard, None to write directly
    :return: (Optional[Callable]) the guard it replaces (to be set back afterwards)
    """
    previous = _TERMINAL_GUARD[0]
    _TERMINAL_GUARD[0] = guard
    return previous


class HumanOutputFormat(KVWriter, SeqWriter):
    """
    Write the diagnostics as a table for people to read, keys in sorted order::

        ---------------------------------
        | explained_variance | 0.0352   |
        | fps                | 1201     |
        | nupdates           | 100      |
        ---------------------------------

    Floats use ``'%-8.3g'``; a key or value longer than 23 characters keeps its first 20, then ``...``.

    :param filename_or_file: (str or file-like) a path (the format opens the file and closes it in
        :meth:`close`) or any object with a ``write`` method. ``sys.stdout`` itself is looked up again at
        each write, so a later redirection of ``sys.stdout`` (pytest's capture, notebooks) is followed.
    """

    def __init__(self, filename_or_file: Union[str, TextIO]) -> None:
        self._file: Optional[TextIO] = None
        self._follow_stdout = False
        self.own_file = False
        if isinstance(filename_or_file, str):
            self._file = open(filename_or_file, "wt")
            self.own_file = True
        elif filename_or_file is sys.stdout or filename_or_file is sys.__stdout__:
            self._follow_stdout = True
        elif hasattr(filename_or_file, "write"):
            self._file = filename_or_file
        else:
            raise TypeError("Expected a file path (str) or an object with a write method, got {!r}"
                            .format(filename_or_file))

    @property
    def file(self) -> TextIO:
        """(file-like) where the next write goes"""
        return sys.stdout if self._follow_stdout or self._file is None else self._file

    def writekvs(self, kvs: Dict[str, Any]) -> None:
        cells = {}
        for key, value in _by_name(kvs):
            cells[_shorten(str(key))] = _shorten(_value_text(value))
        if not cells:
            warnings.warn("Tried to write empty key-value dict")
            return
        self._write(_table(cells))

    def writeseq(self, seq: Iterable[str]) -> None:
        self._write(" ".join(seq) + "\n")

    def _write(self, text: str) -> None:
        stream = self.file
        guard = _TERMINAL_GUARD[0] if self._follow_stdout else None
        if guard is None:
            stream.write(text)
            _flush(stream)
            return
        with guard(stream):
            stream.write(text)
            _flush(stream)

    def close(self) -> None:
        if self.own_file and self._file is not None:
            self._file.close()


def _json_ready(value: Any) -> Any:
    """:return: (Any) ``value`` with numpy scalars and one-element arrays as numbers, other arrays as lists"""
    if not hasattr(value, "dtype"):
        return value
    array = np.asarray(value)
    return array.reshape(()).item() if array.size == 1 else array.tolist()


class JSONOutputFormat(KVWriter):
    """
    Write each dump as one JSON object on its own line. Numpy values become plain numbers (or lists for
    arrays); anything JSON cannot hold is written as its ``str``.

    :param filename: (str) the file to create
    """

    def __init__(self, filename: str) -> None:
        self.file = open(filename, "wt")

    def writekvs(self, kvs: Dict[str, Any]) -> None:
        record = {str(key): _json_ready(value) for key, value in _by_name(kvs)}
        self.file.write(json.dumps(record, default=str) + "\n")
        self.file.flush()

    def close(self) -> None:
        self.file.close()


class CSVOutputFormat(KVWriter):
    """
    Write each dump as a row of a CSV file whose first line names the columns. A key never seen before adds
    a column: the header is rewritten and the earlier rows get an empty cell for it.

    :param filename: (str) the file to create
    """

    def __init__(self, filename: str) -> None:
        self.file = open(filename, "w+t")
        self.keys: List[str] = []
        self.sep = ","

    def _add_columns(self, new_keys: List[str]) -> None:
        """Append columns: rewrite the header and pad the rows already written."""
        self.file.seek(0)
        previous_rows = self.file.readlines()[1:]
        self.keys.extend(new_keys)
        self.file.seek(0)
        self.file.truncate()
        self.file.write(self.sep.join(self.keys) + "\n")
        padding = self.sep * len(new_keys)
        for row in previous_rows:
            self.file.write(row.rstrip("\n") + padding + "\n")

    def writekvs(self, kvs: Dict[str, Any]) -> None:
        by_text = {str(key): value for key, value in kvs.items()}
        new_keys = sorted(key for key in by_text if key not in self.keys)
        if new_keys:
            self._add_columns(new_keys)
        cells = ["" if by_text.get(key) is None else str(by_text[key]) for key in self.keys]
        self.file.write(self.sep.join(cells) + "\n")
        self.file.flush()

    def close(self) -> None:
        self.file.close()


class TensorBoardOutputFormat(KVWriter):
    """
    Write each dump as one tensorboard event of scalars, at steps 1, 2, 3, ... Values that do not convert
    to a float are left out. Works in TF-1 and in TF-2 (eager) behaviour alike.

    :param folder: (str) the folder of the ``events.out.tfevents.*`` file (created if needed)
    """

    def __init__(self, folder: str) -> None:
        from stable_baselines.common.tf_compat import tf
        os.makedirs(folder, exist_ok=True)
        self.dir = folder
        self.step = 1
        self._tf = tf
        # the FileWriter cannot be made while TF executes eagerly; inside a graph it can, in both behaviours
        with tf.Graph().as_default():
            self.writer = tf.summary.FileWriter(os.path.abspath(folder))

    def _scalars(self, kvs: Dict[str, Any]) -> List[Any]:
        """:return: ([tf.Summary.Value]) one summary value per numeric entry, ordered by key"""
        scalars = []
        for key, value in _by_name(kvs):
            try:
                number = float(value)
            except (TypeError, ValueError):
                continue
            scalars.append(self._tf.Summary.Value(tag=str(key), simple_value=number))
        return scalars

    def writekvs(self, kvs: Dict[str, Any]) -> None:
        self.writer.add_summary(self._tf.Summary(value=self._scalars(kvs)), self.step)
        self.writer.flush()
        self.step += 1

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
            self.writer = None


# format string -> (class, file or folder name pattern filled with the suffix)
# every class takes the path of its file (or folder)
_FILE_OUTPUTS: Dict[str, Tuple[Callable[[str], KVWriter], str]] = {
    "log": (HumanOutputFormat, "log{}.txt"),
    "json": (JSONOutputFormat, "progress{}.json"),
    "csv": (CSVOutputFormat, "progress{}.csv"),
    "tensorboard": (TensorBoardOutputFormat, "tb{}"),
}
# the format strings that write into the logging folder
FILE_FORMATS = tuple(_FILE_OUTPUTS)


def make_output_format(_format: str, ev_dir: Optional[str], log_suffix: str = "") -> KVWriter:
    """
    Build the output format named by a format string.

    :param _format: (str) 'stdout', 'log', 'json', 'csv' or 'tensorboard'
    :param ev_dir: (str) the folder of the files, created if needed (unused, may be None, for 'stdout')
    :param log_suffix: (str) added to the file names (``-rank001`` for the MPI workers)
    :return: (KVWriter) the output format
    """
    if _format == "stdout":
        return HumanOutputFormat(sys.stdout)
    if _format not in _FILE_OUTPUTS:
        raise ValueError("Unknown format specified: {!r} (expected one of 'stdout', {})"
                         .format(_format, ", ".join(repr(name) for name in FILE_FORMATS)))
    if ev_dir is None:
        raise ValueError("The logger format {!r} writes files and needs a folder, but no folder was given"
                         .format(_format))
    os.makedirs(ev_dir, exist_ok=True)
    format_class, name_pattern = _FILE_OUTPUTS[_format]
    return format_class(os.path.join(ev_dir, name_pattern.format(log_suffix)))
