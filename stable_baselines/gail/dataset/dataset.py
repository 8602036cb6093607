"""
Expert datasets for behaviour cloning (``model.pretrain``) and GAIL.

An expert dataset is a dict (or an ``.npz`` archive holding it) with the keys ``obs``, ``actions``,
``rewards``, ``episode_returns`` and ``episode_starts``. ``obs``, ``actions``, ``rewards`` and
``episode_starts`` have one entry per transition, concatenated across episodes; ``episode_returns`` one
entry per episode. For image observations, ``obs`` holds the paths of the image files instead of
the pixels (see :func:`stable_baselines.gail.generate_expert_traj`). Observations of Dict and Tuple spaces are a
dict or tuple of arrays, stored entry by entry in archives (see :mod:`stable_baselines.gail.dataset.structured`).

Nothing here needs MPI.
"""
import os
import queue
import threading
from concurrent.futures import Executor, ThreadPoolExecutor
from typing import Any, Dict, List, Mapping, Optional, Tuple

import numpy as np

from stable_baselines.common.safe_loading.archive import read_npz_file
from stable_baselines.common.safe_loading.errors import InvalidModelFileError
from stable_baselines.common.safe_loading.saved_objects import expert_dataset_class
from stable_baselines.gail.dataset.images import load_image, resolve_in_folder
from stable_baselines.gail.dataset.structured import (OBS_KEY_PREFIX, check_structured_rows, count_rows,
                                                      has_structured_keys, read_observations, shapes_by_key, take_rows)

# keys every dataset must hold ("rewards" is recorded by generate_expert_traj but not needed to clone)
REQUIRED_KEYS = ("obs", "actions", "episode_returns", "episode_starts")
EXPERT_KEYS = ("actions", "episode_returns", "rewards", "obs", "episode_starts")
_BACKENDS = ("threading", "sequential", "multiprocessing", "loky")


class DataLoader(object):
    """
    Serves minibatches of (observations, actions) taken at the given indices; observations that are image
    paths are read from disk.

    Minibatches are prepared ahead of time, in a background thread (``max_queue_len`` of them at most),
    unless ``sequential=True``, in which case each minibatch is built when it is requested. When the
    observations are image paths, the images are read by ``n_workers`` worker threads (whatever the
    backend, except ``'sequential'`` which reads them in turn; joblib is not needed).

    The design follows the loader of https://github.com/araffin/robotics-rl-srl (MIT licence; A. Raffin,
    R. Traoré, A. Hill).

    :param indices: ([int]) the transitions (indices into ``observations``) to serve
    :param observations: (np.ndarray) the observations, or the paths of their image files (a dict or tuple of
        arrays for structured observations)
    :param actions: (np.ndarray) the actions, aligned with ``observations``
    :param batch_size: (int) transitions per minibatch
    :param n_workers: (int) threads reading images in parallel
    :param infinite_loop: (bool) start a new pass over the indices after each one instead of stopping
    :param max_queue_len: (int) how many minibatches may be prepared ahead
    :param shuffle: (bool) shuffle the indices before each pass
    :param start_process: (bool) start the background preparation right away
    :param backend: (str) the original joblib backend name ('threading', 'sequential', 'multiprocessing' or
        'loky'); all but 'sequential' read images with threads here
    :param sequential: (bool) build each minibatch on request, with no background thread (slower, less memory)
    :param partial_minibatch: (bool) serve the last, smaller minibatch of a pass instead of dropping it
    """

    def __init__(self, indices: Any, observations: Any, actions: np.ndarray, batch_size: int,
                 n_workers: int = 1, infinite_loop: bool = True, max_queue_len: int = 1, shuffle: bool = False,
                 start_process: bool = True, backend: str = 'threading', sequential: bool = False,
                 partial_minibatch: bool = True) -> None:
        indices = np.asarray(indices, dtype=np.int64).reshape(-1)
        structured = isinstance(observations, (dict, tuple))
        if not structured:
            observations = np.asarray(observations)
        n_observations = check_structured_rows(observations) if structured else len(observations)
        actions = np.asarray(actions)
        if n_observations != len(actions):
            raise ValueError("DataLoader: observations and actions must have the same length, got {} observations "
                             "and {} actions".format(n_observations, len(actions)))
        if len(indices) > 0 and (indices.min() < 0 or indices.max() >= n_observations):
            raise ValueError("DataLoader: indices must lie in [0, {}), got values from {} to {}"
                             .format(n_observations, indices.min(), indices.max()))
        if int(batch_size) < 1:
            raise ValueError("DataLoader: batch_size must be a positive integer, got {!r}".format(batch_size))
        if backend not in _BACKENDS:
            raise ValueError("DataLoader: backend must be one of {}, got {!r}".format(_BACKENDS, backend))
        if int(max_queue_len) < 1:
            raise ValueError("DataLoader: max_queue_len must be >= 1, got {!r}".format(max_queue_len))

        self.indices = indices.copy()
        self.actions = actions
        self.observations = observations
        self.batch_size = int(batch_size)
        self.n_workers = int(n_workers)
        self.infinite_loop = infinite_loop
        self.max_queue_len = int(max_queue_len)
        self.shuffle = shuffle
        self.backend = backend
        self.sequential = sequential
        self.partial_minibatch = partial_minibatch
        # observations given as file paths (strings) are images to read from disk
        self.load_images = not structured and observations.dtype.kind in ("U", "S", "O")
        self.n_minibatches = self._count_minibatches()
        # own random generator, seeded from numpy's global one (so np.random.seed makes runs reproducible,
        # and the background thread does not race the main thread on the global generator)
        self._rng = np.random.RandomState(np.random.randint(2 ** 31 - 1))
        self.start_idx = 0
        self.queue: Optional[queue.Queue] = None
        self.process: Optional[threading.Thread] = None
        self._stop_event: Optional[threading.Event] = None
        self._finished = False
        # the minibatches of the current pass in sequential mode, and the next one to serve
        self._epoch: List[np.ndarray] = []
        self._batch_idx = 0
        if start_process:
            self.start_process()

    def _count_minibatches(self) -> int:
        n_full, remainder = divmod(len(self.indices), self.batch_size)
        return n_full + int(self.partial_minibatch and remainder > 0)

    def __len__(self) -> int:
        """:return: (int) the number of minibatches in one pass over the indices"""
        return self.n_minibatches

    @property
    def _minibatch_indices(self) -> np.ndarray:
        end = self.start_idx + self.batch_size
        return self.indices[self.start_idx:end]

    # ------------------------------------------------------------------------------------------
    # building minibatches
    # ------------------------------------------------------------------------------------------
    def _read_images(self, paths, executor: Optional[Executor]) -> np.ndarray:
        paths = [str(path) for path in paths]
        if executor is None:
            images = [load_image(path) for path in paths]
        else:
            images = list(executor.map(load_image, paths))
        return np.stack(images, axis=0)

    def _make_minibatch(self, batch_indices: np.ndarray, executor: Optional[Executor] = None) -> Tuple[Any, Any]:
        obs = take_rows(self.observations, batch_indices)
        if self.load_images:
            obs = self._read_images(obs, executor)
        return obs, self.actions[batch_indices]

    def _epoch_slices(self) -> List[np.ndarray]:
        """Shuffle if asked, then cut the indices into the minibatches of one epoch."""
        if self.shuffle:
            self._rng.shuffle(self.indices)
        return [self.indices[i * self.batch_size:(i + 1) * self.batch_size] for i in range(self.n_minibatches)]

    def _make_executor(self) -> Optional[Executor]:
        if not self.load_images or self.n_workers <= 1 or self.backend == "sequential":
            return None
        # Image decoding (Pillow) releases the GIL, so worker threads read images in parallel; the
        # process backends of the original ('multiprocessing', 'loky') are accepted and use threads too
        # (forking a process that runs TensorFlow is unsafe).
        return ThreadPoolExecutor(max_workers=self.n_workers)

    # ------------------------------------------------------------------------------------------
    # background preparation
    # ------------------------------------------------------------------------------------------
    def start_process(self) -> None:
        """Start preparing minibatches in a background thread (nothing to do in sequential mode)."""
        if self.sequential:
            return
        self.close()
        self.queue = queue.Queue(maxsize=self.max_queue_len)
        self._stop_event = threading.Event()
        self._finished = False
        self.process = threading.Thread(target=self._run, args=(self.queue, self._stop_event),
                                        name="ExpertDataLoader", daemon=True)
        self.process.start()

    def _put(self, item_queue: "queue.Queue", stop_event: threading.Event, item: Any) -> bool:
        while not stop_event.is_set():
            try:
                item_queue.put(item, timeout=0.05)
                return True
            except queue.Full:
                continue
        return False

    def _run(self, item_queue: "queue.Queue", stop_event: threading.Event) -> None:
        executor = self._make_executor()
        try:
            while not stop_event.is_set():
                for batch_indices in self._epoch_slices():
                    try:
                        item = self._make_minibatch(batch_indices, executor)
                    except Exception as error:  # pylint: disable=broad-except
                        # hand the error to the consumer instead of dying silently
                        self._put(item_queue, stop_event, error)
                        return
                    if not self._put(item_queue, stop_event, item):
                        return
                # end of an epoch
                if not self._put(item_queue, stop_event, None):
                    return
                if not self.infinite_loop:
                    return
        finally:
            if executor is not None:
                executor.shutdown(wait=False)

    def close(self) -> None:
        """
        Stop the background preparation (if any). Calling ``start_process()`` (or iterating again)
        restarts it.
        """
        if self._stop_event is not None:
            self._stop_event.set()
        if self.process is not None:
            self.process.join(timeout=5)
        self.process = None
        self.queue = None
        self._stop_event = None

    def sequential_next(self) -> Tuple[Any, Any]:
        """
        Build and return the next minibatch of the pass in the calling thread.

        :return: (np.ndarray, np.ndarray) observations and actions
        """
        if self.start_idx == 0:
            self._epoch = self._epoch_slices()
            self._batch_idx = 0
        if self._batch_idx >= len(self._epoch):
            raise StopIteration
        batch_indices = self._epoch[self._batch_idx]
        self._batch_idx += 1
        self.start_idx += len(batch_indices)
        return self._make_minibatch(batch_indices)

    # ------------------------------------------------------------------------------------------
    # iterator protocol
    # ------------------------------------------------------------------------------------------
    def __iter__(self) -> "DataLoader":
        self.start_idx = 0
        if not self.sequential and self._finished and not self.infinite_loop:
            # the single pass is over: prepare a new one
            self.start_process()
        return self

    def __next__(self) -> Tuple[Any, Any]:
        if self.sequential:
            return self.sequential_next()
        process, work_queue = self.process, self.queue  # started (and stopped) together
        if process is None or work_queue is None:
            raise ValueError("You must call .start_process() before using the dataloader "
                             "(or create it with start_process=True)")
        if self._finished:
            raise StopIteration
        while True:
            try:
                item = work_queue.get(timeout=0.1)
                break
            except queue.Empty:
                if not process.is_alive() and work_queue.empty():
                    self._finished = True
                    raise StopIteration
        if isinstance(item, Exception):
            self._finished = True
            raise item
        if item is None:
            if not self.infinite_loop:
                self._finished = True
            raise StopIteration
        return item

    def __del__(self):
        try:
            if self._stop_event is not None:
                self._stop_event.set()
        except Exception:  # pylint: disable=broad-except  # pragma: no cover - interpreter shutdown
            pass

    def __getstate__(self) -> Dict[str, Any]:
        # threads and queues cannot be pickled: after unpickling, call start_process() again
        # (ExpertDataset.get_next_batch does it by itself)
        state = self.__dict__.copy()
        for key in ("queue", "process", "_stop_event"):
            state[key] = None
        state["_finished"] = False
        return state


def check_expert_file(arrays: Dict[str, np.ndarray], what: str) -> None:
    """
    Refuse an expert dataset file whose arrays cannot be training data, before anything else reads them: a required
    array missing, actions or returns that are not numbers, episode starts that are not flags, NaN or infinite
    values, or arrays of different lengths.

    :param arrays: (dict) the arrays of the file, by name
    :param what: (str) the file, for messages
    :raises InvalidModelFileError: naming the array and what was expected
    """
    missing = [key for key in REQUIRED_KEYS if key not in arrays and not (key == "obs" and has_structured_keys(arrays))]
    if missing:
        raise InvalidModelFileError("{} lacks the array(s) {} (an expert dataset holds {})".format(
            what, ", ".join(missing), ", ".join(EXPERT_KEYS)))
    lengths = {}
    for name, array in arrays.items():
        observation = name == "obs" or name.startswith(OBS_KEY_PREFIX)
        kinds = "biufUS" if observation else "biuf"  # observations may be image paths
        if array.dtype.kind not in kinds:
            raise InvalidModelFileError("array {!r} of {} has dtype {}; expected {}".format(
                name, what, array.dtype, "numbers or image paths" if observation else "numbers"))
        if array.dtype.kind == "f" and not np.all(np.isfinite(array)):
            raise InvalidModelFileError("array {!r} of {} holds NaN or infinite values".format(name, what))
        if observation or name in ("actions", "episode_starts", "rewards"):
            lengths[name] = len(array) if array.ndim > 0 else 0
    starts = arrays["episode_starts"]
    if starts.dtype.kind != "b" and not np.all((starts == 0) | (starts == 1)):
        raise InvalidModelFileError("array 'episode_starts' of {} must hold flags (booleans, 0 or 1)".format(what))
    if len(set(lengths.values())) > 1 or not min(lengths.values()):
        raise InvalidModelFileError("the arrays of {} must hold one entry per transition (at least one), got "
                                    "lengths {}".format(what, ", ".join("{} {}".format(name, length)
                                                                        for name, length in sorted(lengths.items()))))


def _as_dict(traj_data: Any) -> Dict[str, np.ndarray]:
    if isinstance(traj_data, Mapping) or hasattr(traj_data, "files"):
        keys = list(traj_data.files) if hasattr(traj_data, "files") else list(traj_data.keys())
        return {key: traj_data[key] for key in keys}
    raise TypeError("traj_data must be a dict (or a loaded .npz archive) with the keys {}, got {}"
                    .format(", ".join(EXPERT_KEYS), type(traj_data).__name__))


@expert_dataset_class
class ExpertDataset(object):
    """
    Expert transitions for behaviour cloning (``model.pretrain``) and GAIL.

    The data is a dict (or the ``.npz`` archive holding it) with the keys ``actions``, ``episode_returns``,
    ``rewards``, ``obs`` and ``episode_starts``; each value concatenates all episodes along its first axis
    (one entry per step, one per episode for ``episode_returns``). Image observations are stored as the
    paths of compressed image files.

    :param expert_path: (str) the ``.npz`` file to read (give this or ``traj_data``)
    :param traj_data: (dict) the data itself, in the format above (give this or ``expert_path``)
    :param train_fraction: (float) share of the transitions used for training in behaviour cloning, the
        rest being the validation set (strictly between 0 and 1)
    :param batch_size: (int) minibatch size of behaviour cloning
    :param traj_limitation: (int) keep only this many first episodes (-1: all of them)
    :param randomize: (bool) shuffle the transitions
    :param verbose: (int) 0 silent, 1 print the content of the data and a summary
    :param sequential_preprocessing: (bool) prepare minibatches without background threads (slower, less memory)
    """

    def __init__(self, expert_path: Optional[str] = None, traj_data: Any = None, train_fraction: float = 0.7,
                 batch_size: int = 64, traj_limitation: int = -1, randomize: bool = True, verbose: int = 1,
                 sequential_preprocessing: bool = False) -> None:
        if (expert_path is None) == (traj_data is None):
            if expert_path is not None:
                raise ValueError("ExpertDataset: give either expert_path or traj_data, not both")
            raise ValueError("ExpertDataset: one of expert_path (a .npz file) or traj_data (a dict) is required")
        if not 0.0 < float(train_fraction) < 1.0:
            raise ValueError("ExpertDataset: train_fraction must be strictly between 0 and 1 (a training and a "
                             "validation set are both needed), got {!r}".format(train_fraction))
        if int(batch_size) < 1:
            raise ValueError("ExpertDataset: batch_size must be a positive integer, got {!r}".format(batch_size))

        if expert_path is not None:
            expert_path = os.fspath(expert_path)
            if not os.path.isfile(expert_path) and os.path.isfile(expert_path + ".npz"):
                expert_path += ".npz"
            if not os.path.isfile(expert_path):
                raise FileNotFoundError("ExpertDataset: expert dataset file not found: {!r}".format(expert_path))
            # numeric and text arrays only, within bounds: object arrays are pickles, which are never loaded
            # (store image paths as a string array, or load the file yourself and pass traj_data=)
            traj_data = read_npz_file(expert_path, "the expert dataset {!r}".format(expert_path))
            check_expert_file(traj_data, "the expert dataset {!r}".format(expert_path))
        else:
            traj_data = _as_dict(traj_data)

        missing = [key for key in REQUIRED_KEYS if key not in traj_data
                   and not (key == "obs" and has_structured_keys(traj_data))]
        if missing:
            raise KeyError("ExpertDataset: the expert data lacks the key(s) {}; expected the keys {} "
                           "(got: {})".format(", ".join(missing), ", ".join(EXPERT_KEYS),
                                              ", ".join(sorted(traj_data)) or "none"))

        observations = read_observations(traj_data)
        structured = isinstance(observations, (dict, tuple))
        n_observations = check_structured_rows(observations) if structured else len(observations) \
            if observations.ndim > 0 else 0
        actions = np.asarray(traj_data["actions"])
        episode_starts = np.asarray(traj_data["episode_starts"]).reshape(-1).astype(bool)
        episode_returns = np.asarray(traj_data["episode_returns"]).reshape(-1)
        if (not structured and observations.ndim == 0) or actions.ndim == 0:
            raise ValueError("ExpertDataset: 'obs' and 'actions' must be arrays with one entry per transition, "
                             "got shapes {} and {}".format(observations.shape, actions.shape))
        if not n_observations == len(actions) == len(episode_starts):
            raise ValueError("ExpertDataset: 'obs', 'actions' and 'episode_starts' must have one entry per "
                             "transition, got lengths {}, {} and {}"
                             .format(n_observations, len(actions), len(episode_starts)))
        if n_observations == 0:
            raise ValueError("ExpertDataset: the expert data holds no transition")
        if verbose > 0:
            for name, shape in shapes_by_key(traj_data):
                print(name, shape)

        # keep the first `traj_limitation` episodes: cut before the start of the next one
        n_episodes_total = max(int(np.sum(episode_starts)), 1)
        traj_limit_idx = n_observations
        if traj_limitation is not None and traj_limitation > 0:
            start_indices = np.flatnonzero(episode_starts)
            if len(start_indices) > traj_limitation:
                traj_limit_idx = int(start_indices[traj_limitation])
        num_traj = n_episodes_total if traj_limitation is None or traj_limitation <= 0 \
            else min(int(traj_limitation), n_episodes_total)

        observations = take_rows(observations, slice(0, traj_limit_idx))
        actions = actions[:traj_limit_idx]

        if not structured and self._is_image_paths(observations) and expert_path is not None:
            observations = resolve_in_folder(observations, os.path.dirname(os.path.abspath(expert_path)))

        # obs, actions: shape (N * L, ) + S; actions of more than two dims are flattened to (N * L, prod(S))
        if actions.ndim > 2:
            actions = actions.reshape((len(actions), -1))

        n_samples = count_rows(observations)
        indices = np.random.permutation(n_samples) if randomize else np.arange(n_samples)
        indices = indices.astype(np.int64)
        n_train = int(train_fraction * n_samples)
        train_indices = indices[:n_train]
        val_indices = indices[n_train:]
        if len(train_indices) == 0 or len(val_indices) == 0:
            raise ValueError("ExpertDataset: {} transitions split with train_fraction={} leave an empty {} set; "
                             "use more data or another train_fraction"
                             .format(n_samples, train_fraction, "training" if len(train_indices) == 0 else
                                     "validation"))

        self.actions = actions
        self.observations = observations
        self.returns = episode_returns[:num_traj]
        self.avg_ret = float(np.mean(self.returns)) if len(self.returns) > 0 else float("nan")
        self.std_ret = float(np.std(self.returns)) if len(self.returns) > 0 else float("nan")
        self.verbose = verbose
        self.num_traj = num_traj
        self.num_transition = n_samples
        self.train_fraction = train_fraction
        self.batch_size = int(batch_size)
        self.randomize = randomize
        self.sequential_preprocessing = sequential_preprocessing

        self.dataloader: Optional[DataLoader] = None
        self.train_loader: Optional[DataLoader] = None
        self.val_loader: Optional[DataLoader] = None
        self.restore_split(train_indices, val_indices)

        if self.verbose >= 1:
            self.log_info()

    def restore_split(self, train_indices: np.ndarray, val_indices: np.ndarray) -> None:
        """
        Use the given split of the transitions into a training and a validation set (for behavior cloning),
        e.g. the split of a dataset saved in a model file.

        :param train_indices: (np.ndarray) indices of the training transitions
        :param val_indices: (np.ndarray) indices of the validation transitions
        """
        n_samples = count_rows(self.observations)
        for name, indices in (("train_indices", train_indices), ("val_indices", val_indices)):
            indices = np.asarray(indices)
            if indices.ndim != 1 or len(indices) == 0 or indices.dtype.kind not in "iu" or \
                    indices.min() < 0 or indices.max() >= n_samples:
                raise ValueError("ExpertDataset.restore_split: {} must be a non-empty list of transition indices "
                                 "in [0, {}), got {!r}".format(name, n_samples, indices))
        self.train_loader = self._make_loader(train_indices, self.batch_size)
        self.val_loader = self._make_loader(val_indices, self.batch_size)

    def _make_loader(self, indices, batch_size: int) -> DataLoader:
        """A DataLoader over the given transitions, started lazily by get_next_batch."""
        return DataLoader(np.asarray(indices, dtype=np.int64), self.observations, self.actions, batch_size,
                          shuffle=self.randomize, start_process=False, sequential=self.sequential_preprocessing)

    @staticmethod
    def _is_image_paths(observations: np.ndarray) -> bool:
        return observations.dtype.kind in ("U", "S", "O")

    def init_dataloader(self, batch_size: int) -> None:
        """
        Create the dataloader GAIL draws expert minibatches from (over all transitions).

        :param batch_size: (int) transitions per minibatch
        """
        n_samples = count_rows(self.observations)
        if self.randomize:
            indices = np.random.permutation(n_samples).astype(np.int64)
        else:
            indices = np.arange(n_samples, dtype=np.int64)
        if self.dataloader is not None:
            self.dataloader.close()
        self.dataloader = self._make_loader(indices, batch_size)

    def __del__(self):
        try:
            for loader in (self.dataloader, self.train_loader, self.val_loader):
                if loader is not None:
                    loader.close()
        except Exception:  # pylint: disable=broad-except  # pragma: no cover - interpreter shutdown
            pass

    def prepare_pickling(self) -> None:
        """
        Stop the loaders' background work so that the dataset can be pickled.

        The background threads of the dataloaders are stopped; the dataloaders themselves are kept and
        restart on the next ``get_next_batch`` call, so the dataset stays usable after pickling.
        """
        for loader in (self.dataloader, self.train_loader, self.val_loader):
            if loader is not None:
                loader.close()

    def log_info(self) -> None:
        """Print a summary: numbers of episodes and transitions, mean and standard deviation of the returns."""
        print("Total trajectories: {}".format(self.num_traj))
        print("Total transitions: {}".format(self.num_transition))
        print("Average returns: {}".format(self.avg_ret))
        print("Std for returns: {}".format(self.std_ret))

    def get_next_batch(self, split: Optional[str] = None) -> Tuple[Any, Any]:
        """
        Return the next minibatch of a loader, starting a new pass when the current one is over.

        :param split: (str) which loader: None (GAIL's, see ``init_dataloader``), 'train' or 'val'
        :return: (np.ndarray, np.ndarray) observations and actions
        """
        loaders = {None: self.dataloader, "train": self.train_loader, "val": self.val_loader}
        if split not in loaders:
            raise ValueError("get_next_batch: split must be None, 'train' or 'val', got {!r}".format(split))
        dataloader = loaders[split]
        if dataloader is None:
            if split is None:
                raise ValueError("get_next_batch(split=None) uses the GAIL dataloader: call "
                                 "init_dataloader(batch_size) first")
            raise ValueError("The {} dataloader was released by prepare_pickling()".format(split))
        if dataloader.process is None and not dataloader.sequential:
            dataloader.start_process()
        try:
            return next(dataloader)
        except StopIteration:
            dataloader = iter(dataloader)
            return next(dataloader)

    def plot(self) -> None:
        """Show a histogram of the episode returns (needs matplotlib)."""
        import matplotlib.pyplot as plt  # pylint: disable=import-outside-toplevel
        plt.hist(self.returns)
        plt.show()
