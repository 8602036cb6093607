"""
The Adam moments of a model carried into the successor's optimizer, where the two hold the same thing.

TensorFlow's Adam keeps, for each variable, the running means of the gradient and of its square (slots ``Adam`` and
``Adam_1``) and the powers of its two decay rates; PyTorch's Adam keeps the same two means per parameter and the
step count. The means are laid out as the variables are, so the converter that places our parameters in the
successor's state dict places them too.
"""
import math
from typing import Any, Callable, Dict, Optional, Tuple

import numpy as np

from stable_baselines.common.export.sb3.support import import_successor

Layout = Callable[[Dict[str, np.ndarray]], Dict[str, np.ndarray]]


def adam_moments(model: Any) -> Optional[Tuple[int, Dict[str, np.ndarray], Dict[str, np.ndarray]]]:
    """
    :param model: (BaseRLModel) a model whose parameters one TensorFlow Adam optimizer trains
    :return: (int, dict, dict) the number of steps it made and the two moments of every parameter it trains, by the
        parameter's name; None when the model has no such optimizer or it made no step yet
    """
    parameters = model.get_parameter_list()
    by_name = {variable.name: variable for variable in model.graph.get_collection("variables")}
    slots = []
    for variable in parameters:
        stem = variable.name[:-len(":0")]
        first, second = by_name.get(stem + "/Adam:0"), by_name.get(stem + "/Adam_1:0")
        if first is not None and second is not None:  # (a variable no loss reaches, such as PPO2's q head, has none)
            slots.append((variable.name, first, second))
    if not slots:
        return None
    powers = [variable for name, variable in by_name.items() if name.split("/")[-1].startswith("beta1_power")]
    if len(powers) != 1:  # no Adam, or several whose steps differ
        return None
    values = model.sess.run([powers[0]] + [slot for _, first, second in slots for slot in (first, second)])
    beta1_power, moments = float(values[0]), values[1:]
    if not 0.0 < beta1_power < 1.0:
        return None
    steps = int(round(math.log(beta1_power) / math.log(0.9))) - 1  # the power starts at 0.9, before any step
    if steps < 1:
        return None
    first_moments = {name: moments[2 * index] for index, (name, _, _) in enumerate(slots)}
    second_moments = {name: moments[2 * index + 1] for index, (name, _, _) in enumerate(slots)}
    return steps, first_moments, second_moments


def carry_adam_moments(model: Any, optimizer: Any, named_parameters: Dict[str, Any], layout: Layout) -> int:
    """
    Give the successor's Adam ``optimizer`` the moments of ``model``'s Adam, for every parameter they both have.

    :param model: (BaseRLModel) our model
    :param optimizer: (torch.optim.Adam) the successor's optimizer of those parameters
    :param named_parameters: (dict) its parameters by state-dict name
    :param layout: (callable) our values by variable name -> the successor's by state-dict name (the converter of
        the parameters)
    :return: (int) the steps carried over (0: none, the optimizer starts afresh)
    """
    torch = import_successor("torch")
    found = adam_moments(model)
    if found is None or type(optimizer) is not torch.optim.Adam:  # pylint: disable=unidiomatic-typecheck
        return 0
    steps, first, second = found
    if any(tuple(group["betas"]) != (0.9, 0.999) for group in optimizer.param_groups):  # TensorFlow's defaults
        return 0
    first_placed, second_placed = layout(first), layout(second)
    optimised = {id(parameter) for group in optimizer.param_groups for parameter in group["params"]}
    for name, parameter in named_parameters.items():
        if name in first_placed and id(parameter) in optimised:
            optimizer.state[parameter] = {
                "step": torch.tensor(float(steps)),
                "exp_avg": torch.as_tensor(np.asarray(first_placed[name], np.float32)).reshape(parameter.shape),
                "exp_avg_sq": torch.as_tensor(np.asarray(second_placed[name], np.float32)).reshape(parameter.shape)}
    return steps

