"""
Console helpers: aligned table rows, ANSI colors and a timing context manager.
"""
import time
from contextlib import contextmanager
from typing import Any, Iterator, Optional, Sequence

import numpy as np

from stable_baselines.common.misc_util import mpi_rank_or_zero


def fmt_row(width: int, row: Sequence[Any], header: bool = False) -> str:
    """
    fits a list of items to at least a certain length

    :param width: (int) the minimum width of the string
    :param row: ([Any]) a list of object you wish to get the string representation
    :param header: (bool) whether or not to return the string as a header
    :return: (str) the string representation of all the elements in 'row', of length >= 'width'
    """
    out = " | ".join(fmt_item(x, width) for x in row)
    if header:
        out = out + "\n" + "-" * len(out)
    return out


def fmt_item(item: Any, width: int) -> str:
    """
    fits items to a given string length

    :param item: (Any) the item you wish to get the string representation
    :param width: (int) the minimum width of the string
    :return: (str) the string representation of 'item' of length >= 'width'
    """
    if isinstance(item, np.ndarray):
        if item.ndim != 0:
            raise ValueError("fmt_item expects a scalar or a 0-d array, got an array of shape {}".format(item.shape))
        item = item.item()
    if isinstance(item, (float, np.floating)):
        value = abs(item)
        if (value < 1e-4 or value > 1e+4) and value > 0:
            rep = "%7.2e" % item
        else:
            rep = "%7.5f" % item
    else:
        rep = str(item)
    return " " * (width - len(rep)) + rep


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
    Colorize, bold and/or highlight a string for terminal print

    :param string: (str) input string
    :param color: (str) the color, the lookup table is the dict at console_util.color2num
    :param bold: (bool) if the string should be bold or not
    :param highlight: (bool) if the string should be highlighted or not
    :return: (str) the stylized output string
    """
    if color not in COLOR_TO_NUM:
        raise ValueError("Unknown color {!r}, expected one of {}".format(color, sorted(COLOR_TO_NUM)))
    attr = []
    num = COLOR_TO_NUM[color]
    if highlight:
        num += 10
    attr.append(str(num))
    if bold:
        attr.append('1')
    return '\x1b[%sm%s\x1b[0m' % (';'.join(attr), string)


@contextmanager
def timed(msg: str, verbose: Optional[bool] = None) -> Iterator[None]:
    """
    Time the enclosed block and print ``msg`` before it and the elapsed time after it, as
    TRPO did with ``verbose >= 1`` on the rank-0 worker.

    :param msg: (str) what is being timed
    :param verbose: (bool) print (True), stay silent (False), or None: print on the MPI rank-0 worker only
    """
    show = (mpi_rank_or_zero() == 0) if verbose is None else bool(verbose)
    if not show:
        yield
        return
    print(colorize(msg, color='magenta'))
    start_time = time.time()
    yield
    print(colorize("done in {:.3f} seconds".format((time.time() - start_time)), color='magenta'))
