"""
What every conversion to Stable-Baselines3 needs: the successor's packages (a clear error without them), an env
that only carries spaces (the successor builds its models from an env), the weights of our layers in PyTorch's
layout, the filling of a state dict that must match it key for key and shape for shape, and the hyper-parameters
as plain values.
"""
import importlib
from typing import Any, Callable, Dict, Iterable, List, Optional, Tuple

import gymnasium
import numpy as np

from stable_baselines.common.tf_compat import tf

INSTALL_HINT = "pip install stable-baselines[sb3]"


def import_successor(module: str = "stable_baselines3") -> Any:
    """
    :param module: (str) ``stable_baselines3``, ``sb3_contrib`` or one of their modules
    :return: (module) the module (an ImportError naming the extra to install if it is missing)
    """
    try:
        return importlib.import_module(module)
    except ImportError as error:
        raise ImportError("model.export(format='sb3') needs Stable-Baselines3, sb3-contrib and PyTorch ({}); "
                          "importing {} failed: {}".format(INSTALL_HINT, module, error)) from error


def algorithm_of(model: Any) -> str:
    """
    :return: (str) the algorithm the model's class declares (``BaseRLModel.algorithm_name``, inherited by a user's
        subclass), or the class's own name for a model class of the user's
    """
    return getattr(type(model), "algorithm_name", None) or type(model).__name__


class SpacesOnlyEnv(gymnasium.Env):
    """
    An environment that has the spaces of a model and nothing else: the successor builds its models from an env,
    and never steps this one (the exported file holds no env).

    :param observation_space: (gymnasium.spaces.Space) the observation space
    :param action_space: (gymnasium.spaces.Space) the action space
    """

    def __init__(self, observation_space: gymnasium.spaces.Space, action_space: gymnasium.spaces.Space) -> None:
        self.observation_space = observation_space
        self.action_space = action_space

    def reset(self, *, seed: Optional[int] = None, options: Optional[dict] = None) -> Tuple[Any, dict]:
        """Refused: the env only carries spaces."""
        raise RuntimeError("this env only carries the spaces of an exported model: give the model an env of yours")

    def step(self, action: Any) -> Tuple[Any, float, bool, bool, dict]:
        """Refused: the env only carries spaces."""
        raise RuntimeError("this env only carries the spaces of an exported model: give the model an env of yours")


def spaces_only_vec_env(observation_space: Any, action_space: Any, n_envs: int) -> Any:
    """:return: (stable_baselines3 DummyVecEnv) ``n_envs`` envs that carry the spaces (the model's number of envs)"""
    vec_env = import_successor("stable_baselines3.common.vec_env")
    return vec_env.DummyVecEnv([lambda: SpacesOnlyEnv(observation_space, action_space)] * max(1, int(n_envs)))


# our activation functions -> the name of the torch.nn module that computes the same
_ACTIVATIONS = ((tf.tanh, "Tanh"), (tf.nn.tanh, "Tanh"), (tf.nn.relu, "ReLU"), (tf.nn.elu, "ELU"),
                (tf.nn.selu, "SELU"), (tf.sigmoid, "Sigmoid"), (tf.nn.sigmoid, "Sigmoid"),
                (tf.nn.softplus, "Softplus"))


def torch_activation(act_fun: Callable) -> Any:
    """:return: (type) the torch.nn module class computing ``act_fun`` (a ValueError for one it has no twin of)"""
    torch_nn = import_successor("torch.nn")
    for function, name in _ACTIVATIONS:
        if act_fun is function:
            return getattr(torch_nn, name)
    raise ValueError("Cannot export to SB3: the activation function {!r} has no torch.nn module that computes "
                     "the same (known: tanh, relu, elu, selu, sigmoid, softplus)".format(act_fun))


def dense(parameters: Dict[str, np.ndarray], scope: str, weight: str = "w", bias: str = "b") -> List[np.ndarray]:
    """
    :param parameters: (dict) the model's parameters by TF name
    :param scope: (str) the layer's scope (``model/pi_fc0``)
    :param weight: (str) the name of its matrix in the scope
    :param bias: (str) the name of its bias in the scope
    :return: ([np.ndarray]) the matrix in PyTorch's (out, in) layout and the bias
    """
    return [np.ascontiguousarray(parameter(parameters, scope + "/" + weight).T),
            parameter(parameters, scope + "/" + bias).reshape(-1)]


def parameter(parameters: Dict[str, np.ndarray], name: str) -> np.ndarray:
    """:return: (np.ndarray) the parameter of that TF name (``:0`` optional; a ValueError naming it if missing)"""
    for key in (name, name + ":0"):
        if key in parameters:
            return np.asarray(parameters[key])
    raise ValueError("Cannot export to SB3: the model has no parameter {!r} (a policy of another architecture than "
                     "the ones the export knows?)".format(name))


def has_parameter(parameters: Dict[str, np.ndarray], name: str) -> bool:
    """:return: (bool) whether the model has a parameter of that TF name"""
    return name in parameters or name + ":0" in parameters


def conv(parameters: Dict[str, np.ndarray], scope: str, weight: str = "w", bias: str = "b") -> List[np.ndarray]:
    """:return: ([np.ndarray]) a convolution's kernel in PyTorch's (out, in, height, width) layout and its bias"""
    kernel = parameter(parameters, scope + "/" + weight)
    return [np.ascontiguousarray(kernel.transpose(3, 2, 0, 1)), parameter(parameters, scope + "/" + bias).reshape(-1)]


def nature_cnn_weights(parameters: Dict[str, np.ndarray], prefix: str, image_shape: Tuple[int, ...]) -> List[np.ndarray]:
    """
    The Nature CNN of our policies (``c1``, ``c2``, ``c3``, ``fc1``) as the successor's ``NatureCNN`` holds it: the
    kernels in PyTorch's layout, and the rows of the first dense layer reordered from the flattening of NHWC
    features (height, width, channel) to that of NCHW features (channel, height, width).

    :param parameters: (dict) the model's parameters by TF name
    :param prefix: (str) the scope holding the CNN (``model/``)
    :param image_shape: ((int,)) the (height, width, channels) of the observations
    :return: ([np.ndarray]) c1, c2, c3 (kernel, bias each), then fc1's matrix and bias
    """
    height, width = int(image_shape[0]), int(image_shape[1])
    weights: List[np.ndarray] = []
    for scope, kernel, stride in (("c1", 8, 4), ("c2", 4, 2), ("c3", 3, 1)):
        weights += conv(parameters, prefix + scope)
        height, width = (height - kernel) // stride + 1, (width - kernel) // stride + 1
    matrix = parameter(parameters, prefix + "fc1/w")
    channels = weights[-2].shape[0]
    if matrix.shape[0] != height * width * channels:
        raise ValueError("Cannot export to SB3: the first dense layer of the CNN takes {} features, the images of "
                         "shape {} give {}".format(matrix.shape[0], tuple(image_shape), height * width * channels))
    reordered = matrix.reshape(height, width, channels, -1).transpose(2, 0, 1, 3).reshape(matrix.shape[0], -1)
    return weights + [np.ascontiguousarray(reordered.T), parameter(parameters, prefix + "fc1/b").reshape(-1)]


def nature_cnn_state(parameters: Dict[str, np.ndarray], prefix: str, image_shape: Tuple[int, ...],
                     target: str) -> Dict[str, np.ndarray]:
    """:return: (dict) our Nature CNN under ``prefix`` as the state of the successor's ``NatureCNN`` ``target``"""
    keys = list(sequential_keys("cnn", 3)) + ["linear.0.weight", "linear.0.bias"]
    weights = nature_cnn_weights(parameters, prefix, image_shape)
    return {"{}.{}".format(target, key): value for key, value in zip(keys, weights)}


def fill_state_dict(module: Any, values: Dict[str, np.ndarray], what: str) -> None:
    """
    Load ``values`` into a torch module: every key of its state dict must be given once, with its shape.

    :param module: (torch.nn.Module) the successor's policy
    :param values: (dict) key of the module's state dict -> array
    :param what: (str) what is being exported (for the messages)
    """
    torch = import_successor("torch")
    state = module.state_dict()
    missing = sorted(set(state) - set(values))
    unknown = sorted(set(values) - set(state))
    if missing or unknown:
        raise ValueError("Cannot export {} to SB3: its policy has the tensors {} that the conversion does not "
                         "fill, and the conversion gives {} that it does not have".format(what, missing, unknown))
    for key, tensor in state.items():
        value = np.asarray(values[key], dtype=np.float32)
        if tuple(value.shape) != tuple(tensor.shape):
            raise ValueError("Cannot export {} to SB3: {} has shape {} in the successor's policy, the model gives {}"
                             .format(what, key, tuple(tensor.shape), tuple(value.shape)))
    module.load_state_dict({key: torch.as_tensor(np.asarray(values[key], dtype=np.float32)) for key in state})


def sequential_keys(prefix: str, n_layers: int, step: int = 2) -> Iterable[str]:
    """:return: (str) the weight and bias keys of the dense layers of a torch ``Sequential`` (activations between)"""
    for index in range(n_layers):
        yield "{}.{}.weight".format(prefix, index * step)
        yield "{}.{}.bias".format(prefix, index * step)


def constant(value: Any, name: str, notes: List[str]) -> Any:
    """
    :param value: (float or callable) a hyper-parameter of ours, maybe a schedule of the remaining progress
    :param name: (str) its name (for the note)
    :param notes: ([str]) where to say that a schedule became its value at the start
    :return: (float) the value (of a schedule: at the start of training)
    """
    if callable(value):
        start = float(value(1.0))
        if all(float(value(progress)) == start for progress in (0.0, 0.5)):  # a constant held as a function
            return start
        notes.append("the schedule of {} continues as the constant {} (its value at the start of training)"
                     .format(name, start))
        return start
    return value
