"""
Target networks: the graph ops that make a target network follow its online network, either by copying it
(hard update) or by moving a fraction ``tau`` towards it (Polyak averaging: ``target <- (1 - tau) * target + tau *
source``). The variables come as lists or from two scopes whose variables mirror each other.
"""
from typing import List, Sequence, Tuple

from stable_baselines.common.tf_compat import tf


def mirrored_variables(source_scope: str, target_scope: str) -> Tuple[List[tf.Variable], List[tf.Variable]]:
    """
    The trainable variables of two scopes of the default graph, checked to mirror each other (same names after
    the scope prefix, same order).

    :param source_scope: (str) the scope of the online network (e.g. ``"model/"``)
    :param target_scope: (str) the scope of the target network (e.g. ``"target/"``)
    :return: ([tf.Variable], [tf.Variable]) the source variables and the target variables, pairwise
    """
    sources = tf.get_collection(tf.GraphKeys.TRAINABLE_VARIABLES, scope=source_scope)
    targets = tf.get_collection(tf.GraphKeys.TRAINABLE_VARIABLES, scope=target_scope)
    source_names = [var.name[len(source_scope):] for var in sources]
    target_names = [var.name[len(target_scope):] for var in targets]
    if source_names != target_names:
        raise RuntimeError("The target network ({!r}) does not mirror the network ({!r}): {} vs {}".format(
            target_scope, source_scope, [var.name for var in targets], [var.name for var in sources]))
    return sources, targets


def _check_pairs(sources: Sequence[tf.Variable], targets: Sequence[tf.Variable]) -> None:
    if len(sources) != len(targets):
        raise RuntimeError("A target update needs as many target variables as source variables: {} vs {}".format(
            [var.name for var in targets], [var.name for var in sources]))


def _value_when_run(var: tf.Variable) -> tf.Tensor:
    """
    :param var: (tf.Variable) a variable
    :return: (tf.Tensor) a tensor whose consumers see the variable's value at the time they run: the reference
        output of a reference variable (no read op of its own), else ``read_value()``
    """
    ref = var.op.outputs[0]
    return ref if ref.dtype != ref.dtype.base_dtype else var.read_value()


def polyak_update(source: tf.Variable, target: tf.Variable, tau: float, fresh_reads: bool = False) -> tf.Tensor:
    """
    One Polyak-averaging assignment ``target <- (1 - tau) * target + tau * source``.

    :param source: (tf.Variable) the online variable
    :param target: (tf.Variable) the target variable
    :param tau: (float) the fraction of the way towards the source (0: no change, 1: a copy)
    :param fresh_reads: (bool) read both variables when the arithmetic runs, so that the assignment sees updates
        it has a control dependency on
    :return: (tf.Tensor) the assignment
    """
    old = _value_when_run(target) if fresh_reads else target
    kept = (1 - tau) * old
    new = _value_when_run(source) if fresh_reads else source
    return tf.assign(target, kept + tau * new)


def polyak_updates(sources: Sequence[tf.Variable], targets: Sequence[tf.Variable], tau: float,
                   fresh_reads: bool = False) -> List[tf.Tensor]:
    """
    :func:`polyak_update` for pairs of variables.

    :param sources: ([tf.Variable]) the online variables
    :param targets: ([tf.Variable]) the target variables, in the same order
    :param tau: (float) the fraction of the way towards the sources
    :param fresh_reads: (bool) see :func:`polyak_update`
    :return: ([tf.Tensor]) one assignment per pair
    """
    _check_pairs(sources, targets)
    return [polyak_update(source, target, tau, fresh_reads) for source, target in zip(sources, targets)]


def hard_updates(sources: Sequence[tf.Variable], targets: Sequence[tf.Variable]) -> List[tf.Tensor]:
    """
    :param sources: ([tf.Variable]) the online variables
    :param targets: ([tf.Variable]) the target variables, in the same order
    :return: ([tf.Tensor]) the assignments copying each source into its target
    """
    _check_pairs(sources, targets)
    return [tf.assign(target, source) for source, target in zip(sources, targets)]
