"""
``model.export``: the deterministic policy of a model as a TensorFlow SavedModel, a TFLite model or an ONNX
model, taking raw observations (the normalisation of a ``VecNormalize`` env built in) and returning actions as
``predict(obs, deterministic=True)`` does.
"""
from typing import Any, Callable, Dict, Optional

from stable_baselines.common.export.inference_graph import InferenceGraph, ObservationNormalization, \
    build_inference_graph
from stable_baselines.common.export.spec import ARGMAX, AS_IS, CLIP, UNSCALE, ExportSpec, actor_critic_spec, \
    box_spec, policy_for_batch
from stable_baselines.common.export.writers import write_onnx, write_saved_model, write_tflite

WRITERS: Dict[str, Callable[[InferenceGraph, str], None]] = {
    "savedmodel": write_saved_model,
    "tflite": write_tflite,
    "onnx": write_onnx,
}


def check_export_format(export_format: Any) -> None:
    """
    :param export_format: (Any) the format asked for (a ValueError naming the known ones if it is not one)
    """
    if not isinstance(export_format, str) or export_format not in WRITERS:
        raise ValueError("Unknown export format {!r}: choose one of {}".format(
            export_format, ", ".join(repr(name) for name in list(WRITERS) + ["sb3"])))


def export_model(spec: ExportSpec, vec_normalize: Any, path: str, export_format: str,
                 batch_size: Optional[int] = None) -> None:
    """
    Write the inference function of a model.

    :param spec: (ExportSpec) the model's acting graph
    :param vec_normalize: (VecNormalize, NormalizationStatistics or None) the observation statistics to build in
    :param path: (str) where to write
    :param export_format: (str) "savedmodel", "tflite" or "onnx"
    :param batch_size: (int) the batch size the spec was built for (recurrent policies only)
    """
    try:
        check_export_format(export_format)
        if batch_size is not None and not spec.recurrent:
            raise ValueError("batch_size is for recurrent policies (their state has one row per sequence); this "
                             "export takes any batch of observations")
        inference = build_inference_graph(spec, ObservationNormalization.of_env(vec_normalize))
    finally:
        if spec.owns_session:
            spec.session.close()
    WRITERS[export_format](inference, path)


__all__ = ["ARGMAX", "AS_IS", "CLIP", "UNSCALE", "ExportSpec", "WRITERS", "actor_critic_spec", "box_spec",
           "check_export_format", "export_model", "policy_for_batch"]
