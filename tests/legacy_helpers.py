"""
What the tests of the original library's files share: the parameter lists of tests/data/legacy_models/README.md
(the contract: the names and shapes, in the order of the original's ``get_parameter_list()``) and the returns a
model reaches when it plays an env deterministically.
"""
import os
import re
from typing import Any, List, Tuple

README = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "legacy_models", "README.md")
_ENTRY = re.compile(r"^(\S+) \(([\d, ]*)\)$")


def readme_parameter_list(file_name: str) -> List[Tuple[str, Tuple[int, ...]]]:
    """
    :param file_name: (str) a file of the folder, as the README names it (e.g. 'ddpg/Pendulum-v0.pkl')
    :return: ([(str, tuple)]) the (name, shape) list of the README block headed by that file
    """
    with open(README, encoding="utf-8") as handle:
        text = handle.read()
    start = text.index("`{}`".format(file_name), text.index("## Parameter lists"))
    block = text[text.index("```", start) + 3:]
    block = block[:block.index("```")]
    result = []
    for line in block.strip().splitlines():
        match = _ENTRY.match(line.strip())
        assert match, line
        shape = tuple(int(dim) for dim in match.group(2).replace(" ", "").split(",") if dim)
        result.append((match.group(1), shape))
    return result


def param_list(model: Any) -> List[Tuple[str, Tuple[int, ...]]]:
    """:return: ([(str, tuple)]) the (name, shape) of the model's parameters, in the order it saves them"""
    return [(param.name, tuple(param.shape.as_list())) for param in model.get_parameter_list()]


def deterministic_returns(model: Any, env: Any, n_episodes: int) -> List[float]:
    """
    :param model: (BaseRLModel) the model
    :param env: (gymnasium.Env) a single env; episode ``i`` starts from ``reset(seed=i)``
    :param n_episodes: (int) the episodes to play
    :return: ([float]) the return of each episode, actions from ``predict(obs, deterministic=True)``
    """
    returns = []
    for episode in range(n_episodes):
        obs, _ = env.reset(seed=episode)
        done, total = False, 0.0
        while not done:
            action, _ = model.predict(obs, deterministic=True)
            obs, reward, terminated, truncated, _ = env.step(action)
            total += float(reward)
            done = terminated or truncated
        returns.append(total)
    return returns
