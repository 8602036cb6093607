"""
The :class:`Logger`: it gathers the diagnostics of one iteration (latest value, or running mean) and hands
them to its output formats at each dump; free-text messages pass through when their level is high enough.
"""
import sys
from collections import defaultdict
from typing import Any, ClassVar, DefaultDict, List, Optional, Sequence, Union

from stable_baselines.logging_parts.formats import HumanOutputFormat, KVWriter, SeqWriter

# message levels: a message is written when its level is at least the logger's level
DEBUG = 10
INFO = 20
WARN = 30
ERROR = 40
# at this level nothing is written, not even the diagnostics table
DISABLED = 50

OutputFormat = Union[KVWriter, SeqWriter]


class Logger(object):
    """
    Collects diagnostics and messages and writes them to its output formats.

    ``Logger.CURRENT`` is the instance the functions of :mod:`stable_baselines.logger` use;
    ``Logger.DEFAULT`` prints to stdout only and is the current one until ``logger.configure`` is called
    (and again after ``logger.reset``).

    :param folder: (str) the folder of the output files (None when nothing is written to disk)
    :param output_formats: ([KVWriter and/or SeqWriter]) where dumps and messages go
    """
    # both are assigned right below the class, before anything can read them
    DEFAULT: ClassVar["Logger"]
    CURRENT: ClassVar["Logger"]

    def __init__(self, folder: Optional[str], output_formats: List[OutputFormat]) -> None:
        self.name2val: DefaultDict[str, Any] = defaultdict(float)  # the values of the current iteration
        self.name2cnt: DefaultDict[str, int] = defaultdict(int)  # how many values each running mean holds
        self.level = INFO
        self.dir = folder
        self.output_formats = output_formats

    def logkv(self, key: str, val: Any) -> None:
        """
        Record the value of a diagnostic for this iteration; a later call with the same key replaces it.

        :param key: (Any) the name of the diagnostic
        :param val: (Any) its value
        """
        self.name2val[key] = val

    def logkv_mean(self, key: str, val: Any) -> None:
        """
        Record a value of a diagnostic whose table entry is the mean of all values given this iteration.
        ``None`` replaces the entry and restarts the mean.

        :param key: (Any) the name of the diagnostic
        :param val: (Number) one more value to average
        """
        if val is None:
            self.name2val[key] = None
            return
        mean, count = self.name2val[key], self.name2cnt[key]
        if mean is None:
            mean, count = 0.0, 0
        self.name2val[key] = mean * count / (count + 1) + val / (count + 1)
        self.name2cnt[key] = count + 1

    def dumpkvs(self) -> None:
        """
        Hand the diagnostics of this iteration to the output formats, then start a new iteration.
        At level ``DISABLED`` nothing is written and the values are kept.
        """
        if self.level == DISABLED:
            return
        for output in self.output_formats:
            if isinstance(output, KVWriter):
                output.writekvs(self.name2val)
        self.name2val.clear()
        self.name2cnt.clear()

    def log(self, *args: Any, level: int = INFO) -> None:
        """
        Write the arguments, converted to text and separated by spaces, to the text outputs, unless ``level``
        is below the logger's level.

        :param args: (list) the pieces of the message
        :param level: (int) the level of the message (DEBUG=10, INFO=20, WARN=30, ERROR=40, DISABLED=50)
        """
        if level >= self.level:
            self._do_log(args)

    def set_level(self, level: int) -> None:
        """
        Set the lowest level of the messages that get written.

        :param level: (int) DEBUG=10, INFO=20, WARN=30, ERROR=40 or DISABLED=50
        """
        self.level = level

    def get_dir(self) -> Optional[str]:
        """
        :return: (str) the folder of the output files, None when the logger writes no file
        """
        return self.dir

    def close(self) -> None:
        """
        Close every output format (and the files they opened).
        """
        for output in self.output_formats:
            output.close()

    def _do_log(self, args: Sequence[Any]) -> None:
        """
        Pass a message to every output that takes text.

        :param args: (list) the pieces of the message
        """
        for output in self.output_formats:
            if isinstance(output, SeqWriter):
                output.writeseq(map(str, args))


# the logger of a fresh process: the table and the messages on stdout, no file
_STDOUT_ONLY = Logger(folder=None, output_formats=[HumanOutputFormat(sys.stdout)])
Logger.DEFAULT = _STDOUT_ONLY
Logger.CURRENT = _STDOUT_ONLY
