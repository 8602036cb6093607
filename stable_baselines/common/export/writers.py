"""
The three writers of an :class:`InferenceGraph`: a TensorFlow SavedModel (a directory), a TFLite flatbuffer and
an ONNX model (files). Each writes a temporary sibling of the target and renames it into place, so a failed
export leaves what was there before.
"""
import importlib
import os
import shutil
import tempfile
from typing import Any, Callable, Dict

from stable_baselines.common.export.inference_graph import ACTIONS, MASK, NEW_STATE, OBSERVATIONS, STATE, \
    InferenceGraph
from stable_baselines.common.tf_compat import quiet_deprecations, tf

# the ONNX operator set of exported models (onnxruntime 1.16 and newer run it)
ONNX_OPSET = 15
SIGNATURE_KEY = "serving_default"


def _check_target(path: str, directory: bool) -> None:
    """
    Refuse a target that is something else than what the format writes.

    :param path: (str) the target
    :param directory: (bool) whether the format writes a directory
    """
    if directory:
        if os.path.isfile(path):
            raise ValueError("Cannot export a SavedModel to {!r}: it is an existing file (a SavedModel is a "
                             "directory)".format(path))
        if os.path.isdir(path) and os.listdir(path) and \
                not os.path.exists(os.path.join(path, "saved_model.pb")):
            raise ValueError("Cannot export a SavedModel to {!r}: it is a non-empty directory that is not a "
                             "SavedModel (refusing to replace its content)".format(path))
    elif os.path.isdir(path):
        raise ValueError("Cannot export to {!r}: it is an existing directory (this format writes a file)"
                         .format(path))


def _write_atomically(path: str, directory: bool, write: Callable[[str], None]) -> None:
    """
    Call ``write(temporary)`` on a sibling of ``path``, then move the result to ``path``.

    :param path: (str) the target
    :param directory: (bool) whether ``write`` makes a directory (else a file)
    :param write: (str -> None) writes the export to the path it is given (which does not exist yet)
    """
    path = os.path.abspath(path)
    _check_target(path, directory)
    parent = os.path.dirname(path)
    os.makedirs(parent, exist_ok=True)
    workdir = tempfile.mkdtemp(prefix="." + os.path.basename(path) + ".", suffix=".tmp", dir=parent)
    try:
        staged = os.path.join(workdir, "export")
        write(staged)
        if directory and os.path.isdir(path):
            # a directory cannot be replaced in one rename: move the old one aside first
            old = os.path.join(workdir, "previous")
            os.rename(path, old)
        os.replace(staged, path)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


def _tensor_map(graph: tf.Graph, names: Any, keys: Any) -> Dict[str, Any]:
    """:return: ({str: tf.Tensor}) the tensors named, under the given keys"""
    return {key: graph.get_tensor_by_name(name) for key, name in zip(keys, names)}


def write_saved_model(inference: InferenceGraph, path: str) -> None:
    """
    Write a SavedModel directory with the signature ``serving_default``: inputs ``observations`` (and ``state``,
    ``mask``), outputs ``actions`` (and ``new_state``).

    :param inference: (InferenceGraph) the function
    :param path: (str) the directory
    """
    def write(target: str) -> None:
        graph = tf.Graph()
        with graph.as_default():
            tf.import_graph_def(inference.graph_def, name="")
            inputs = _tensor_map(graph, inference.inputs, [OBSERVATIONS, STATE, MASK])
            outputs = _tensor_map(graph, inference.outputs, [ACTIONS, NEW_STATE])
            signature = tf.saved_model.signature_def_utils.predict_signature_def(inputs, outputs)
            with tf.Session(graph=graph) as session:
                builder = tf.saved_model.Builder(target)
                builder.add_meta_graph_and_variables(session, [tf.saved_model.tag_constants.SERVING],
                                                     signature_def_map={SIGNATURE_KEY: signature},
                                                     strip_default_attrs=True)
                builder.save()

    with quiet_deprecations():
        _write_atomically(path, True, write)


def write_tflite(inference: InferenceGraph, path: str) -> None:
    """
    Write a TFLite flatbuffer; its first input takes the observations (batch first, resizable with
    ``resize_tensor_input`` unless the policy is recurrent).

    :param inference: (InferenceGraph) the function
    :param path: (str) the file
    """
    def write(target: str) -> None:
        graph = tf.Graph()
        with graph.as_default():
            tf.import_graph_def(inference.graph_def, name="")
            inputs = [graph.get_tensor_by_name(name) for name in inference.inputs]
            outputs = [graph.get_tensor_by_name(name) for name in inference.outputs]
            with tf.Session(graph=graph) as session:
                converter = tf.lite.TFLiteConverter.from_session(session, inputs, outputs)
                flatbuffer = converter.convert()
        with open(target, "wb") as file:
            file.write(flatbuffer)

    with quiet_deprecations():
        _write_atomically(path, False, write)


def _import_tf2onnx() -> Any:
    """:return: (module) tf2onnx, or an ImportError saying which extra installs it"""
    try:
        return importlib.import_module("tf2onnx")
    except ImportError as error:
        raise ImportError("Exporting to ONNX needs the packages tf2onnx and onnx: install them with "
                          "`pip install stable-baselines[export]`") from error


def _rename_values(graph: Any, names: Dict[str, str]) -> None:
    """
    Rename values of an ONNX graph (its inputs, outputs and the node ports using them).

    :param graph: (onnx.GraphProto) the graph, changed in place
    :param names: ({str: str}) the new name of each value renamed (TensorFlow's "observations:0" -> "observations")
    """
    for value in list(graph.input) + list(graph.output):
        value.name = names.get(value.name, value.name)
    for node in graph.node:
        node.input[:] = [names.get(name, name) for name in node.input]
        node.output[:] = [names.get(name, name) for name in node.output]


def write_onnx(inference: InferenceGraph, path: str) -> None:
    """
    Write an ONNX model (converted by tf2onnx); its first input takes the observations.

    :param inference: (InferenceGraph) the function
    :param path: (str) the file
    """
    tf2onnx = _import_tf2onnx()

    def write(target: str) -> None:
        model, _ = tf2onnx.convert.from_graph_def(inference.graph_def, input_names=inference.inputs,
                                                  output_names=inference.outputs, opset=ONNX_OPSET)
        _rename_values(model.graph, {name: name.split(":")[0] for name in inference.inputs + inference.outputs})
        with open(target, "wb") as file:
            file.write(model.SerializeToString())

    with quiet_deprecations():
        _write_atomically(path, False, write)
