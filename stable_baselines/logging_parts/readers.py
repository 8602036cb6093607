"""
Read the files of the logger back, as ``pandas`` data frames (one row per dump, one column per key).
"""
import glob
import json
import logging
import os
from collections import defaultdict
from typing import TYPE_CHECKING, Dict, Iterator, List, Tuple

import numpy as np

if TYPE_CHECKING:
    import pandas  # noqa: F401


def _pandas():
    """:return: (module) pandas, or an ImportError saying what needs it"""
    try:
        import pandas
    except ImportError as exc:
        raise ImportError("Reading the logger's files (read_csv, read_json, read_tb) needs pandas: "
                          "pip install pandas") from exc
    return pandas


def read_json(fname: str) -> "pandas.DataFrame":
    """
    Read a ``progress.json`` file (one JSON object per line).

    :param fname: (str) the path of the file
    :return: (pandas.DataFrame) one row per line, one column per key (missing entries are NaN)
    """
    pandas = _pandas()
    with open(fname, "rt") as file_handler:
        records = [json.loads(line) for line in file_handler if line.strip()]
    return pandas.DataFrame(records)


def read_csv(fname: str) -> "pandas.DataFrame":
    """
    Read a ``progress.csv`` file (lines starting with ``#`` are skipped).

    :param fname: (str) the path of the file
    :return: (pandas.DataFrame) the table of the file (empty cells are NaN)
    """
    return _pandas().read_csv(fname, index_col=None, comment="#")


def _event_files(path: str) -> List[str]:
    """:return: ([str]) the tensorboard event files at ``path`` (a file, or a folder holding ``events.*``)"""
    if os.path.isdir(path):
        return sorted(glob.glob(os.path.join(path, "events.*")))
    if os.path.basename(path).startswith("events."):
        return [path]
    raise ValueError("Expected a tensorboard file (events.*) or a directory containing them, got {}".format(path))


def _numbered_events(fname: str) -> Iterator[Tuple[int, List[Tuple[str, float]]]]:
    """
    :param fname: (str) a tensorboard event file
    :return: (iterator of (int, [(str, float)])) the step and the (tag, value) scalars of each event whose
        step is positive (the file-version record at step 0 is skipped)
    """
    from stable_baselines.common.tf_compat import tf
    tf_log = logging.getLogger("tensorflow")
    level = tf_log.level
    tf_log.setLevel(logging.ERROR)  # summary_iterator announces its own deprecation
    try:
        for event in tf.train.summary_iterator(fname):
            if event.step > 0:
                yield event.step, [(value.tag, value.simple_value) for value in event.summary.value]
    finally:
        tf_log.setLevel(level)


def read_tb(path: str) -> "pandas.DataFrame":
    """
    Read the scalars of tensorboard event files (as written by the ``tensorboard`` format of the logger).

    :param path: (str) an event file, or a folder: then all its ``events.*`` files are read
    :return: (pandas.DataFrame) one column per tag (in sorted order); row ``i`` holds step ``i + 1``,
        NaN where a tag has no value at that step
    """
    pandas = _pandas()
    columns: Dict[str, Dict[int, float]] = defaultdict(dict)
    last_step = 0
    for fname in _event_files(path):
        for step, scalars in _numbered_events(fname):
            last_step = max(last_step, step)
            for tag, value in scalars:
                columns[tag][step] = value
    tags = sorted(columns)
    table = np.full((last_step, len(tags)), np.nan)
    for column, tag in enumerate(tags):
        for step, value in columns[tag].items():
            table[step - 1, column] = value
    return pandas.DataFrame(table, columns=tags)
