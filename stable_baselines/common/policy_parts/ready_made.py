"""
What the policy classes of every family share in their making: the wording of the usual constructor parameters
(:func:`parameters_doc`) and :func:`preset`, which makes a ready-made class (``MlpPolicy``, ``LnCnnPolicy``, ...)
that fixes some constructor keywords. :func:`four_presets` makes the four of DQN, DDPG, SAC and TD3.
"""
from typing import Any, Tuple

# the usual wording of a policy constructor's parameters
PARAMETERS = {
    "sess": "(tf.Session) the session the policy runs in",
    "ob_space": "(gym.Space) observation space",
    "ac_space": "(gym.Space) action space",
    "n_env": "(int) number of environments stepped together",
    "n_steps": "(int) steps per environment in one batch",
    "n_batch": "(int) rows of the placeholders (n_env * n_steps)",
    "n_lstm": "(int) cells of the LSTM",
    "reuse": "(bool) reuse the variables of an earlier policy of the same graph",
    "scale": "(bool) divide image observations by 255",
    "layers": "([int]) widths of the hidden layers of every network (None: [64, 64])",
    "cnn_extractor": "(function (tf.Tensor, ``**kwargs``): tf.Tensor) the CNN of 'cnn' feature extraction",
    "feature_extraction": "(str) 'cnn' or 'mlp'",
    "layer_norm": "(bool) layer normalisation in the hidden layers",
    "act_fun": "(tf.function) activation of the hidden layers",
    "kwargs": "(dict) arguments of the CNN extractor",
    "entry_cnn": "(callable) ``f(scaled_images, **kwargs) -> features`` for image entries",
    "mlp_extractor_arch": "([int]) hidden widths of the MLP of each vector entry (None: [64])",
    "extractors": "({str: callable}) encoders by entry name (``\"image\"``, ``\"robot/position\"``, ``\"[0]\"``)",
    "cnn_kwargs": "(dict) passed on to ``cnn_extractor``",
}
# the parameters every policy constructor starts with
BATCH = ("sess", "ob_space", "ac_space", "n_env", "n_steps", "n_batch", "reuse")


def parameters_doc(*names: str, **texts: str) -> str:
    """
    The ``:param`` lines of a class docstring, indented as in a class body.

    :param names: (str) the parameters in order; ``"cnn_extractor=entry_cnn"`` documents ``cnn_extractor`` with
        the wording of ``entry_cnn``
    :param texts: (str) wording by parameter name, replacing or adding to :data:`PARAMETERS`
    :return: (str) the lines
    """
    wording = dict(PARAMETERS, **texts)
    lines = []
    for name in names:
        shown, _, key = name.partition("=")
        lines.append("    :param {}: {}\n".format(shown, wording[key or shown]))
    return "".join(lines)


def preset(bases: Tuple[type, ...], name: str, summary: str, parameters: str, **fixed: Any) -> type:
    """
    A ready-made policy class: ``bases`` (a constructor that passes the keywords of its ``_fixed`` on, and the
    policy) with ``fixed`` as those keywords. The class belongs to the module of the last base.

    :param bases: (tuple) the base classes
    :param name: (str) the class name, e.g. 'LnMlpPolicy'
    :param summary: (str) the first paragraph of its docstring
    :param parameters: (str) the ``:param`` lines of its docstring (see :func:`parameters_doc`)
    :param fixed: (dict) the constructor keywords the class fixes
    :return: (type) the class, to be bound to ``name`` in that module
    """
    namespace = {"__module__": bases[-1].__module__, "__qualname__": name, "_fixed": fixed,
                 "__doc__": "\n    {}\n\n{}".format(summary, parameters)}
    return type(name, bases, namespace)


# name, summary, feature extraction, layer normalisation of the four ready-made classes of DQN, DDPG, SAC, TD3
_FOUR = (("CnnPolicy", "{} policy on images: its networks start with the Nature CNN.", "cnn", False),
         ("LnCnnPolicy", "{} policy on images (Nature CNN), layer-normalised hidden layers.", "cnn", True),
         ("MlpPolicy", "{} policy with MLP networks (two hidden layers of 64 unless ``layers`` says otherwise).",
          "mlp", False),
         ("LnMlpPolicy", "{} policy with MLP networks, layer-normalised hidden layers.", "mlp", True))


def four_presets(bases: Tuple[type, ...], algorithm: str, parameters: str,
                 always_layer_norm: bool = False) -> Tuple[type, type, type, type]:
    """
    ``CnnPolicy``, ``LnCnnPolicy``, ``MlpPolicy`` and ``LnMlpPolicy`` of an algorithm (see :func:`preset`).

    :param bases: (tuple) the base classes of each
    :param algorithm: (str) the algorithm's name, for the docstrings
    :param parameters: (str) the ``:param`` lines of their docstrings
    :param always_layer_norm: (bool) fix ``layer_norm`` in all four (False: only in the Ln ones)
    :return: ((type, type, type, type)) the classes, in that order
    """
    made = []
    for name, summary, feature_extraction, layer_norm in _FOUR:
        fixed: dict = {"feature_extraction": feature_extraction}
        if layer_norm or always_layer_norm:
            fixed["layer_norm"] = layer_norm
        made.append(preset(bases, name, summary.format(algorithm), parameters, **fixed))
    cnn, ln_cnn, mlp, ln_mlp = made
    return cnn, ln_cnn, mlp, ln_mlp
