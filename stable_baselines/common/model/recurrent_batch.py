"""
Recurrent policies at any batch size. The acting network of a recurrent model is built for exactly ``n_envs``
rows (its state placeholder and the split of the batch into per-environment sequences have that size), so
``predict`` and ``action_probability`` given another number of observations run a copy of the network built
for that number: same variables (nothing is added to the parameter list), own placeholders, made on first
use and kept per batch size. A batch of fewer rows than ``n_envs`` with a state of ``n_envs`` rows (the way
earlier versions were fed) is filled up with zero rows instead.
"""
from typing import Any, Callable, Dict, NamedTuple, Optional, Tuple

import numpy as np

from stable_baselines.common.tf_compat import tf
from stable_baselines.common.tf_util import outer_scope_getter


class RecurrentInputs(NamedTuple):
    """
    What one ``predict``/``action_probability`` call of a recurrent model feeds, and to which network.

    :param observations: (np.ndarray or dict) the batch given to the network
    :param state: (np.ndarray) the state, one row per row of the batch
    :param mask: (np.ndarray) the episode-start flags, one per row of the batch
    :param n_rows: (int) how many leading rows are the caller's (the others are zero padding)
    :param batch_size: (int) the rows of the network to run: ``n_envs`` for the model's acting network, any
        other number for a copy built for it
    """

    observations: Any
    state: np.ndarray
    mask: np.ndarray
    n_rows: int
    batch_size: int


def count_rows(observations: Any) -> int:
    """
    :param observations: (np.ndarray or dict) a batch of observations (a dict of batches for Dict spaces)
    :return: (int) the number of observations in it
    """
    if isinstance(observations, dict):
        return len(next(iter(observations.values())))
    return len(observations)


def _pad_rows(array: np.ndarray, n_padding: int) -> np.ndarray:
    return np.concatenate([array, np.zeros((n_padding,) + array.shape[1:], dtype=array.dtype)])


def _pad_observations(observations: Any, n_padding: int) -> Any:
    if isinstance(observations, dict):
        return type(observations)((key, _pad_rows(value, n_padding)) for key, value in observations.items())
    return _pad_rows(observations, n_padding)


def _check_state(state: Any, n_rows: int, n_envs: int, state_shape: Tuple[int, ...]) -> np.ndarray:
    """
    :return: (np.ndarray) ``state``, refused unless it has one row per observation (or, with fewer observations
        than environments, one row per environment)
    """
    array = np.asarray(state)
    accepted = [(n_rows,) + state_shape]
    if n_rows < n_envs:
        accepted.append((n_envs,) + state_shape)
    if array.shape not in accepted or array.dtype.kind not in "biuf":
        raise ValueError("The state of this recurrent policy is an array of shape (n_envs, state size) = {}, got "
                         "{} of dtype {}: one row per observation given (pass the state returned by the previous "
                         "predict() call, or None to start from the initial state)"
                         .format(" or ".join(str(shape) for shape in accepted), array.shape, array.dtype))
    return array


def _check_mask(mask: Any, n_rows: int, n_envs: int) -> np.ndarray:
    """:return: (np.ndarray) ``mask``, refused unless it has one entry per observation or per environment"""
    array = np.asarray(mask)
    lengths = sorted({n_rows, max(n_rows, n_envs)})
    if array.ndim != 1 or len(array) not in lengths:
        raise ValueError("The mask of a recurrent policy has one entry per environment (True where an episode "
                         "just started): expected shape {}, got {}"
                         .format(" or ".join("({},)".format(length) for length in lengths), array.shape))
    return array


def recurrent_inputs(observations: Any, state: Optional[Any], mask: Optional[Any], n_envs: int,
                     state_shape: Tuple[int, ...]) -> RecurrentInputs:
    """
    Check the state and mask given with a batch of observations and choose the network to run.

    No state is the initial one (zeros) of the batch; no mask means that no episode starts. A state of one row
    per observation runs a network of that batch size; with fewer observations than environments, a state of
    ``n_envs`` rows runs the acting network on the batch filled up with zero rows (its padding rows are
    returned in the new state, as before).

    :param observations: (np.ndarray or dict) the batch of observations
    :param state: (np.ndarray) the state before this step, or None
    :param mask: (np.ndarray) episode-start flags (one per observation or per environment), or None
    :param n_envs: (int) the rows of the model's acting network
    :param state_shape: (tuple) the shape of one row of the state
    :return: (RecurrentInputs)
    """
    n_rows = count_rows(observations)
    if n_rows == 0:
        raise ValueError("A recurrent policy needs at least one observation, got an empty batch")
    if state is None:
        state = np.zeros((n_rows,) + state_shape, dtype=np.float32)
    state = _check_state(state, n_rows, n_envs, state_shape)
    mask = np.zeros(n_rows, dtype=bool) if mask is None else _check_mask(mask, n_rows, n_envs)
    if len(state) == n_rows:
        return RecurrentInputs(observations, state, mask[:n_rows], n_rows, n_rows)
    n_padding = n_envs - n_rows
    mask = np.concatenate([mask[:n_rows], np.zeros(n_padding, dtype=mask.dtype)])
    return RecurrentInputs(_pad_observations(observations, n_padding), state, mask, n_rows, n_envs)


def inference_scope(batch_size: int) -> str:
    """
    :param batch_size: (int) the rows of an inference copy
    :return: (str) the variable scope its placeholders and operations are created in
    """
    return "predict_batch_{}".format(batch_size)


class InferenceCopies:
    """
    The copies of a recurrent acting network made for other batch sizes, kept per graph (a model that builds
    its graph again, e.g. in ``load`` or ``set_env``, gets new copies).
    """

    def __init__(self) -> None:
        self._graph: Optional[tf.Graph] = None
        self._copies: Dict[int, Any] = {}

    def get(self, graph: tf.Graph, batch_size: int, build: Callable[[int], Any]) -> Any:
        """
        :param graph: (tf.Graph) the model's graph
        :param batch_size: (int) the rows of the wanted copy
        :param build: (callable) ``build(batch_size)`` makes the policy, called inside the copy's variable scope
            with every variable read from the acting network
        :return: (RecurrentActorCriticPolicy) the copy
        """
        if self._graph is not graph:
            self._graph, self._copies = graph, {}
        if batch_size not in self._copies:
            scope = inference_scope(batch_size)
            known = set(graph.get_collection(tf.GraphKeys.GLOBAL_VARIABLES))
            try:
                with graph.as_default(), \
                        tf.variable_scope(scope, reuse=True, custom_getter=outer_scope_getter(scope)):
                    copy = build(batch_size)
            except ValueError as error:
                # e.g. a custom policy naming a variable after the batch size
                raise _copy_failed(batch_size, str(error)) from error
            # a variable made outside tf.get_variable would be a new, uninitialised one
            new = [variable.name for variable in graph.get_collection(tf.GraphKeys.GLOBAL_VARIABLES)
                   if variable not in known]
            if new:
                raise _copy_failed(batch_size, "it created new variables {}".format(new))
            self._copies[batch_size] = copy
        return self._copies[batch_size]


def _copy_failed(batch_size: int, reason: str) -> ValueError:
    return ValueError("Acting on {} observations needs a copy of this recurrent policy built for that batch size "
                      "with the variables of the acting network, and building it failed: {}. Give as many "
                      "observations as the model has environments instead.".format(batch_size, reason))
