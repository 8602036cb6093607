"""
Building a model's graph again for another number of environments (``set_env`` on a model whose graph has that
number in its shapes: recurrent policies, ACER), keeping the value of every variable.
"""
from typing import Any, Dict

import numpy as np

from stable_baselines.common.tf_compat import tf


def _variable_values(graph: tf.Graph, sess: tf.Session) -> Dict[str, np.ndarray]:
    """:return: (dict) the value of every global variable of ``graph``, by name"""
    with graph.as_default():
        variables = tf.global_variables()
    return dict(zip((variable.name for variable in variables), sess.run(variables)))


def rebuild_keeping_values(model: Any) -> None:
    """
    Run ``model.setup_model()`` again (a new graph and session, sized for ``model.n_envs``) and give every
    variable of the new graph the value of the variable of the same name and shape in the old one: parameters,
    and also the optimizer's moments, moving averages and step counters, so training goes on where it was. The
    old session is closed.

    :param model: (BaseRLModel) a model whose graph is built
    """
    old_graph, old_sess = model.graph, model.sess
    values = _variable_values(old_graph, old_sess)
    model.setup_model()
    with model.graph.as_default():
        for variable in tf.global_variables():
            value = values.get(variable.name)
            if value is not None and tuple(value.shape) == tuple(variable.shape.as_list()):
                # run the initializer with the old value fed in place of its initial value: no operation is
                # added to the graph
                model.sess.run(variable.initializer, {variable.initializer.inputs[1]: value})
    old_sess.close()
    model.refresh_numpy_forward()
