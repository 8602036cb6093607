"""
The inference graph of an export: the model's acting subgraph with its variables frozen into constants,
imported into a fresh graph between the observation normalisation of a ``VecNormalize`` env and the mapping of
the action into the action space. The model's own graph is only read, never changed.
"""
from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Sequence, Set

import numpy as np

from stable_baselines.common.export.spec import ARGMAX, CLIP, UNSCALE, ExportSpec
from stable_baselines.common.tf_compat import tf

# the names of the inputs and outputs of every exported function
OBSERVATIONS = "observations"
STATE = "state"
MASK = "mask"
ACTIONS = "actions"
NEW_STATE = "new_state"

_VARIABLE_OPS = ("VariableV2", "Variable", "VarHandleOp")


@dataclass
class ObservationNormalization:
    """
    The observation normalisation of a ``VecNormalize`` env, frozen at export time:
    ``clip((obs - mean) / sqrt(var + epsilon), -clip_obs, clip_obs)``.

    :param mean: (np.ndarray) the running mean of the observations
    :param var: (np.ndarray) their running variance
    :param epsilon: (float) added to the variance
    :param clip_obs: (float) the bound of the normalised observations
    """

    mean: np.ndarray
    var: np.ndarray
    epsilon: float
    clip_obs: float

    @classmethod
    def of_env(cls, vec_normalize: Any) -> Optional["ObservationNormalization"]:
        """
        :param vec_normalize: (VecNormalize, NormalizationStatistics or None) the statistics and settings
        :return: (ObservationNormalization or None) its current statistics, None without observation normalisation
        """
        if vec_normalize is None or not vec_normalize.norm_obs or vec_normalize.norm_obs_keys == []:
            return None
        if vec_normalize.norm_obs_keys is not None:
            raise ValueError("Cannot export with the VecNormalize statistics per key of a Dict observation ({}): only "
                             "the normalisation of Box observations is built into the exported function"
                             .format(vec_normalize.norm_obs_keys))
        rms = vec_normalize.obs_rms
        return cls(np.array(rms.mean), np.array(rms.var), float(vec_normalize.epsilon),
                   float(vec_normalize.clip_obs))

    def apply(self, observations: tf.Tensor) -> tf.Tensor:
        """
        :param observations: (tf.Tensor) raw observations (float32)
        :return: (tf.Tensor) the normalised observations (float32)
        """
        scale = 1.0 / np.sqrt(self.var + self.epsilon)
        shifted = observations - tf.constant(self.mean.astype(np.float32), name="obs_mean")
        scaled = shifted * tf.constant(scale.astype(np.float32), name="obs_scale")
        return tf.clip_by_value(scaled, -self.clip_obs, self.clip_obs)


@dataclass
class InferenceGraph:
    """
    A frozen inference function.

    :param graph_def: (tf.GraphDef) the graph (constants only, no variables)
    :param inputs: ([str]) the names of its input tensors (observations first, then state and mask)
    :param outputs: ([str]) the names of its output tensors (actions first, then the new state)
    :param input_shapes: ([[int or None]]) the static shape of each input (None: any batch size)
    """

    graph_def: Any
    inputs: List[str]
    outputs: List[str]
    input_shapes: List[List[Optional[int]]]

    @property
    def recurrent(self) -> bool:
        """(bool) whether the function takes and returns a recurrent state"""
        return len(self.inputs) > 1


def _ancestors(nodes: Dict[str, Any], targets: Sequence[str]) -> Set[str]:
    """:return: ({str}) the names of ``targets`` and of every node they depend on (data and control inputs)"""
    seen: Set[str] = set()
    pending = list(targets)
    while pending:
        name = pending.pop()
        if name in seen:
            continue
        seen.add(name)
        for source in nodes[name].input:
            pending.append(source.lstrip("^").split(":")[0])
    return seen


def _variable_values(session: Any, names: Sequence[str]) -> Dict[str, np.ndarray]:
    """:return: ({str: np.ndarray}) the current value of each variable named (by its op name)"""
    graph = session.graph
    variables = {var.op.name: var for var in graph.get_collection(tf.GraphKeys.GLOBAL_VARIABLES)
                 + graph.get_collection(tf.GraphKeys.LOCAL_VARIABLES)}
    missing = [name for name in names if name not in variables]
    if missing:
        raise ValueError("Cannot export: the acting graph reads variables that are not in the model's variable "
                         "collections: {}".format(missing))
    values = session.run([variables[name] for name in names])
    return dict(zip(names, values))


def frozen_subgraph(graph: tf.Graph, outputs: Sequence[tf.Tensor], session: Any = None) -> Any:
    """
    The part of a graph that ``outputs`` depend on, its variables replaced by constants holding their current
    values.

    :param graph: (tf.Graph) the graph
    :param outputs: ([tf.Tensor]) the tensors to compute
    :param session: (tf.Session) the session holding the variables (None for a graph without variables)
    :return: (tf.GraphDef) the frozen subgraph
    """
    graph_def = graph.as_graph_def()
    nodes = {node.name: node for node in graph_def.node}
    needed = _ancestors(nodes, [tensor.op.name for tensor in outputs])
    variable_names = sorted(name for name in needed if nodes[name].op in _VARIABLE_OPS)
    values = _variable_values(session, variable_names) if variable_names else {}
    frozen = tf.GraphDef()
    frozen.versions.CopyFrom(graph_def.versions)
    for node in graph_def.node:  # in the graph's order (inputs before the nodes that use them)
        if node.name not in needed:
            continue
        copy = frozen.node.add()
        if node.name in values:
            const = tf.make_tensor_proto(values[node.name])
            copy.name, copy.op = node.name, "Const"
            copy.attr["dtype"].type = const.dtype
            copy.attr["value"].tensor.CopyFrom(const)
        elif node.op == "ReadVariableOp":  # reads a resource variable, now a constant
            copy.name, copy.op = node.name, "Identity"
            copy.input.extend(node.input)
            copy.attr["T"].CopyFrom(node.attr["dtype"])
        else:
            copy.CopyFrom(node)
    return frozen


def _to_action_space(action: tf.Tensor, spec: ExportSpec) -> tf.Tensor:
    """:return: (tf.Tensor) the deterministic action as ``predict`` returns it"""
    if spec.transform == CLIP:
        low, high = spec.bounds()
        return tf.clip_by_value(action, low, high)
    if spec.transform == UNSCALE:
        low, high = spec.bounds()
        return low + (tf.clip_by_value(action, -1.0, 1.0) + 1.0) * (0.5 * (high - low))
    if spec.transform == ARGMAX:
        return tf.argmax(action, axis=1)
    return action


def _shape(tensor: tf.Tensor) -> List[Optional[int]]:
    """:return: ([int or None]) the static shape of ``tensor``"""
    return list(tensor.shape.as_list())


def _input_dtype(spec: ExportSpec, normalization: Optional[ObservationNormalization]) -> tf.DType:
    """
    :return: (tf.DType) the dtype of the exported observations: float32 when normalised, else the dtype of the
        observation space (what the env gives; cast to the placeholder's inside the graph)
    """
    if normalization is not None:
        return tf.float32
    if spec.observation_dtype is None or np.dtype(spec.observation_dtype).kind not in "biuf":
        return spec.observations.dtype
    return tf.as_dtype(np.dtype(spec.observation_dtype))


def build_inference_graph(spec: ExportSpec, normalization: Optional[ObservationNormalization]) -> InferenceGraph:
    """
    Build the exported function of a model.

    :param spec: (ExportSpec) the model's acting graph
    :param normalization: (ObservationNormalization) the observation normalisation to put in front (or None)
    :return: (InferenceGraph) the frozen function: raw observations (and state, mask) in, action (and state) out
    """
    model_outputs = [spec.action] + ([spec.new_state] if spec.new_state is not None else [])
    policy = frozen_subgraph(spec.session.graph, model_outputs, spec.session)
    placeholder = spec.observations
    graph = tf.Graph()
    with graph.as_default():
        observations = tf.placeholder(_input_dtype(spec, normalization), _shape(placeholder), name=OBSERVATIONS)
        feed = observations if normalization is None else normalization.apply(observations)
        if feed.dtype != placeholder.dtype:
            feed = tf.cast(feed, placeholder.dtype)
        input_map = {placeholder.name: feed}
        inputs = [observations]
        if spec.recurrent:
            assert spec.state is not None and spec.mask is not None, "a recurrent spec has state and mask"
            state = tf.placeholder(spec.state.dtype, _shape(spec.state), name=STATE)
            mask = tf.placeholder(spec.mask.dtype, _shape(spec.mask), name=MASK)
            input_map.update({spec.state.name: state, spec.mask.name: mask})
            inputs += [state, mask]
        imported = tf.import_graph_def(policy, input_map=input_map,
                                       return_elements=[tensor.name for tensor in model_outputs], name="policy")
        outputs = [tf.identity(_to_action_space(imported[0], spec), name=ACTIONS)]
        if spec.recurrent:
            outputs.append(tf.identity(imported[1], name=NEW_STATE))
        graph_def = frozen_subgraph(graph, outputs)
    return InferenceGraph(graph_def, [tensor.name for tensor in inputs], [tensor.name for tensor in outputs],
                          [_shape(tensor) for tensor in inputs])
