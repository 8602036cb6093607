"""
What the tests of the original library's files share: where the files are, the parameter lists of
tests/data/legacy_models/README.md (the contract: the names and shapes, in the order of the original's
``get_parameter_list()``), the golden actions recorded with the original and the returns a model reaches when it
plays an env deterministically.
"""
import os
import re
from typing import Any, List, Optional, Tuple

import numpy as np
import pytest

README = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "legacy_models", "README.md")
_ENTRY = re.compile(r"^(\S+) \(([\d, ]*)\)$")

# the folder of the original's files: the copy in tests/data, else the shared one
LEGACY_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "legacy_models")
if not os.path.isdir(LEGACY_DIR):
    LEGACY_DIR = "/work/shared/legacy-models"


def legacy_file(*parts: str) -> str:
    """
    :param parts: (str) the path below the folder of the original's files
    :return: (str) the full path; the test is skipped when the file is not there
    """
    path = os.path.join(LEGACY_DIR, *parts)
    if not os.path.exists(path):
        pytest.skip("legacy model file {} not available".format(path))
    return path


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


def assert_golden_actions(model: Any, golden: Any, shape: Tuple[int, ...], tolerance: float) -> None:
    """
    Asserts that ``predict`` (with its default ``deterministic``) gives the golden actions, for the whole batch of
    golden observations and for single observations (the first, the 100th and the last).

    :param model: (BaseRLModel) the loaded model
    :param golden: (mapping) the golden file: 'policy_obs' and the original's 'action'
    :param shape: (tuple) the shape of the batch of actions
    :param tolerance: (float) the relative and absolute tolerance
    """
    actions, _ = model.predict(golden["policy_obs"])
    assert actions.shape == golden["action"].shape == shape
    np.testing.assert_allclose(actions, golden["action"], rtol=tolerance, atol=tolerance)
    for i in (0, 100, shape[0] - 1):
        np.testing.assert_allclose(model.predict(golden["policy_obs"][i])[0], golden["action"][i],
                                   rtol=tolerance, atol=tolerance)


def assert_golden_discrete_forward(model: Any, policy: Any, golden: Any) -> None:
    """
    Asserts that an agent of Discrete actions computes the golden forward pass: the logits and values of ``policy``
    (to 1e-4) and the deterministic actions of ``predict`` (exactly).

    :param model: (ActorCriticRLModel) the loaded model
    :param policy: (ActorCriticPolicy) the model's policy that acts (``step_model``, ``act_model``, ``policy_pi``)
    :param golden: (mapping) the golden file: 'policy_obs', 'pi', 'vf' and 'action'
    """
    obs = golden["policy_obs"].astype(np.float32)
    logits, values = model.sess.run([policy.policy, policy.value_fn], {policy.obs_ph: obs})
    np.testing.assert_allclose(logits, golden["pi"], rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(values, golden["vf"], rtol=1e-4, atol=1e-4)
    actions, _ = model.predict(obs, deterministic=True)
    np.testing.assert_array_equal(actions, golden["action"].astype(np.int64))


def deterministic_returns(model: Any, env: Any, n_episodes: int, deterministic: Optional[bool] = True) -> List[float]:
    """
    :param model: (BaseRLModel) the model
    :param env: (gymnasium.Env) a single env; episode ``i`` starts from ``reset(seed=i)``
    :param n_episodes: (int) the episodes to play
    :param deterministic: (bool) passed to ``predict``; None calls ``predict(obs)``, the model's own default
    :return: ([float]) the return of each episode, actions from ``predict(obs, deterministic=deterministic)``
    """
    returns = []
    predict_kwargs = {} if deterministic is None else dict(deterministic=deterministic)
    for episode in range(n_episodes):
        obs, _ = env.reset(seed=episode)
        done, total = False, 0.0
        while not done:
            action, _ = model.predict(obs, **predict_kwargs)
            obs, reward, terminated, truncated, _ = env.step(action)
            total += float(reward)
            done = terminated or truncated
        returns.append(total)
    return returns
