"""
Context managers that frame a call of ``learn``: how talkative the libraries are, and where tensorboard
events go.
"""
import glob
import os
import re
from types import TracebackType
from typing import Any, Optional, Type

from stable_baselines import logger
from stable_baselines.common.gym_compat import gymnasium
from stable_baselines.common.tf_compat import tf

# gymnasium's logger has no DISABLED level in every version; 50 is above its ERROR level
_GYM_SILENT = getattr(gymnasium.logger, "DISABLED", 50)


class SetVerbosity:
    """
    Inside the block, match the verbosity of TensorFlow's C++ logging, of our logger and of gymnasium's logger
    to the model's ``verbose`` (0: all quiet, 1: our logger only, 2: TensorFlow's messages too); restore the
    previous levels on exit.

    :param verbose: (int) the model's verbosity level
    """

    def __init__(self, verbose: int = 0) -> None:
        self.verbose = verbose
        self.tf_level: Optional[str] = None
        self.log_level: Optional[int] = None
        self.gym_level: Optional[int] = None

    def __enter__(self) -> None:
        self.tf_level = os.environ.get("TF_CPP_MIN_LOG_LEVEL")
        self.log_level = logger.get_level()
        self.gym_level = gymnasium.logger.min_level
        if self.verbose < 2:
            os.environ["TF_CPP_MIN_LOG_LEVEL"] = "2"
        if self.verbose < 1:
            logger.set_level(logger.DISABLED)
            gymnasium.logger.min_level = _GYM_SILENT

    def __exit__(self, exc_type: Optional[Type[BaseException]], exc_val: Optional[BaseException],
                 exc_tb: Optional[TracebackType]) -> None:
        assert self.log_level is not None and self.gym_level is not None, "__exit__ without __enter__"
        if self.verbose < 2:
            if self.tf_level is None:
                os.environ.pop("TF_CPP_MIN_LOG_LEVEL", None)
            else:
                os.environ["TF_CPP_MIN_LOG_LEVEL"] = self.tf_level
        if self.verbose < 1:
            logger.set_level(self.log_level)
            gymnasium.logger.min_level = self.gym_level


def check_folder_path(path: str, what: str) -> None:
    """
    Raise a NotADirectoryError when ``path`` cannot become a folder because it, or one of its parents, is a
    file (TensorFlow would only fail later, with its own wording).

    :param path: (str) the folder, existing or to be created
    :param what: (str) what the folder is for, for the message (e.g. "tensorboard_log")
    """
    current = os.path.abspath(os.fspath(path))
    while not os.path.exists(current):
        parent = os.path.dirname(current)
        if parent == current:
            return
        current = parent
    if not os.path.isdir(current):
        raise NotADirectoryError("{}={!r} must be a folder (existing or to be created), but {!r} is a file"
                                 .format(what, path, current))


class TensorboardWriter:
    """
    Inside the block, a ``tf.summary.FileWriter`` writing to ``<tensorboard_log_path>/<tb_log_name>_<run>``
    (or None when ``tensorboard_log_path`` is None). ``<run>`` is one more than the highest run number found
    there for a new run, the highest one when training continues.

    :param graph: (tf.Graph) the model's graph
    :param tensorboard_log_path: (str) the folder of the runs, or None for no events
    :param tb_log_name: (str) the name of the run
    :param new_tb_log: (bool) start a new numbered run (False: continue the latest)
    """

    def __init__(self, graph: Any, tensorboard_log_path: Optional[str], tb_log_name: str,
                 new_tb_log: bool = True) -> None:
        self.graph = graph
        self.tensorboard_log_path = tensorboard_log_path
        self.tb_log_name = tb_log_name
        self.writer: Optional[Any] = None  # the tf.summary.FileWriter, while inside the block
        self.new_tb_log = new_tb_log

    def __enter__(self) -> Optional[Any]:
        if self.tensorboard_log_path is None:
            return self.writer
        check_folder_path(self.tensorboard_log_path, "tensorboard_log")
        run_id = self._get_latest_run_id(self.tensorboard_log_path) + (1 if self.new_tb_log else 0)
        run_dir = os.path.join(self.tensorboard_log_path, "{}_{}".format(self.tb_log_name, run_id))
        with self.graph.as_default():
            self.writer = tf.summary.FileWriter(run_dir, graph=self.graph)
        return self.writer

    def _get_latest_run_id(self, folder: str) -> int:
        """
        :param folder: (str) the folder of the runs
        :return: (int) the highest ``<run>`` among the folders ``<tb_log_name>_<run>`` of the log folder (0: none)
        """
        numbered = re.compile(re.escape(self.tb_log_name) + r"_(\d+)")
        pattern = "{}/{}_[0-9]*".format(glob.escape(folder), glob.escape(self.tb_log_name))
        run_ids = [int(match.group(1)) for match in
                   (numbered.fullmatch(os.path.basename(path)) for path in glob.glob(pattern)) if match]
        return max(run_ids, default=0)

    def __exit__(self, exc_type: Optional[Type[BaseException]], exc_val: Optional[BaseException],
                 exc_tb: Optional[TracebackType]) -> None:
        if self.writer is not None:
            self.writer.add_graph(self.graph)
            self.writer.flush()
