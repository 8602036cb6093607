"""
Console helpers: aligned table rows, ANSI colors and a timing context manager.
"""
import time
from contextlib import contextmanager
from typing import Any, Iterator, Optional, Sequence, Union

import numpy as np

from stable_baselines.common.misc_util import mpi_rank_or_zero


def fmt_row(width: int, row: Sequence[Any], header: bool = False) -> str:
    """
    One line of a console table: the items right-aligned in columns of at least ``width`` characters,
    separated by a vertical bar between spaces.

    :param width: (int) the minimum width of a column
    :param row: ([Any]) the items of the line
    :param header: (bool) underline the line with dashes
    :return: (str) the formatted line (two lines for a header)
    """
    line = " | ".join(fmt_item(item, width) for item in row)
    if not header:
        return line
    return "{}\n{}".format(line, "-" * len(line))


def _number_text(number: Union[float, np.floating]) -> str:
    """
    A float in 7 characters or more: scientific notation for very small or very large magnitudes.

    :param number: (float) the number
    :return: (str) its text
    """
    magnitude = abs(float(number))
    use_exponent = magnitude > 0 and not 1e-4 <= magnitude <= 1e+4
    return ("%7.2e" if use_exponent else "%7.5f") % number


def fmt_item(item: Any, width: int) -> str:
    """
    The text of one table cell, right-aligned to at least ``width`` characters.

    :param item: (Any) the value (a float gets a fixed number of digits, anything else ``str``)
    :param width: (int) the minimum width
    :return: (str) the text, at least ``width`` characters long
    """
    if isinstance(item, np.ndarray):
        if item.ndim != 0:
            raise ValueError("fmt_item expects a scalar or a 0-d array, got an array of shape {}".format(item.shape))
        item = item.item()
    text = _number_text(item) if isinstance(item, (float, np.floating)) else str(item)
    return text.rjust(width)


COLOR_TO_NUM = dict(
    gray=30,
    red=31,
    green=32,
    yellow=33,
    blue=34,
    magenta=35,
    cyan=36,
    white=37,
    crimson=38
)


def colorize(string: str, color: str, bold: bool = False, highlight: bool = False) -> str:
    """
    Wrap a string in ANSI escape codes for a colored terminal output.

    :param string: (str) the text
    :param color: (str) a key of ``COLOR_TO_NUM`` (gray, red, green, yellow, blue, magenta, cyan, white, crimson)
    :param bold: (bool) also make it bold
    :param highlight: (bool) color the background instead of the letters
    :return: (str) the text with the escape codes
    """
    if color not in COLOR_TO_NUM:
        raise ValueError("Unknown color {!r}, expected one of {}".format(color, sorted(COLOR_TO_NUM)))
    code = COLOR_TO_NUM[color] + (10 if highlight else 0)
    codes = [str(code)] + (['1'] if bold else [])
    return "\x1b[{}m{}\x1b[0m".format(";".join(codes), string)


@contextmanager
def timed(msg: str, verbose: Optional[bool] = None) -> Iterator[None]:
    """
    Print ``msg`` (in magenta) before the enclosed block and its duration after it, as TRPO does
    with ``verbose >= 1`` on the rank-0 worker.

    :param msg: (str) what is being timed
    :param verbose: (bool) print (True), stay silent (False), or None: print on the MPI rank-0 worker only
    """
    if verbose is None:
        verbose = mpi_rank_or_zero() == 0
    if not verbose:
        yield
        return
    print(colorize(msg, color='magenta'))
    started = time.time()
    yield
    print(colorize("done in {:.3f} seconds".format(time.time() - started), color='magenta'))
