"""
Exact resume across a process boundary, the only case users have: this process trains a model, saves it with its
training state and goes on training on a new env; a FRESH Python process (another hash seed, none of this process's
generators, graphs or caches) loads the file with an env prepared the same way and goes on as long. Their parameters
must be identical, for every algorithm (and HER). One such process serves the cases of a test session (its imports
cost more than a case): it never saw the saving process's state, whatever earlier cases left in it.

The envs are seeded the way users seed them, in one of two ways (the cases alternate): before handing them over
(``reset(seed=...)`` of a gymnasium env, ``seed`` of a VecEnv, and the action space) — a resumed model leaves its env
as it was given, as the saving model's ``set_env`` does — or after, through ``model.get_env()``.
"""
import json
import os
import select
import subprocess
import sys
import tempfile
import time
from typing import Any, Iterator

import numpy as np
import pytest

from stable_baselines.common.vec_env import VecEnv
from tests.test_exact_resume import CASES, make_env, reseed

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TRAIN_STEPS = 200
CONTINUE_STEPS = 200


def seeds_before(case: str) -> bool:
    """:return: (bool) whether the case seeds its envs before handing them over (else after, through get_env)"""
    return sorted(CASES).index(case) % 2 == 0


def prepared_env(env: Any) -> Any:
    """:return: (Any) ``env`` seeded as a user seeds the env they hand to a model"""
    if isinstance(env, VecEnv):
        env.seed(7)
    else:
        env.reset(seed=7)
    env.action_space.seed(7)
    return env


def _answer(child: subprocess.Popen, timeout: float) -> str:
    """:return: (str) the child's next line of answer (an error with its last words if it ends or stays silent)"""
    deadline, silent = time.monotonic() + timeout, True
    while silent and time.monotonic() < deadline:
        if select.select([child.stdout], [], [], 1.0)[0]:
            line = child.stdout.readline()
            if line:
                return line.strip()
            silent = False  # the end of its output
        elif child.poll() is not None:  # ended, though another process may still hold its output open
            silent = False
    if not silent:
        try:
            child.wait(timeout=30)
        except subprocess.TimeoutExpired:
            pass
    child.stderr_file.seek(0)
    last_words = child.stderr_file.read()[-3000:]
    raise AssertionError("the resuming process {}; it printed:\n{}".format(
        "gave no answer in {} s".format(timeout) if silent else "ended (exit code {})".format(child.returncode),
        last_words))


@pytest.fixture(scope="module")
def resuming_process() -> Iterator[subprocess.Popen]:
    """A fresh Python process (another hash seed) that resumes the saved models it is sent."""
    environment = dict(os.environ, PYTHONHASHSEED="4242", PYTHONPATH=ROOT)
    with tempfile.TemporaryFile("w+") as stderr_file:
        child = subprocess.Popen([sys.executable, "-m", "tests.resume_child", "--serve"], cwd=ROOT, env=environment,
                                 stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=stderr_file, text=True)
        child.stderr_file = stderr_file  # type: ignore[attr-defined]
        try:
            assert _answer(child, timeout=300) == "ready"
            yield child
        finally:
            child.kill()
            child.wait()


def _run_child(child: subprocess.Popen, case: str, model_file: str, out: str) -> None:
    child.stdin.write(json.dumps([case, model_file, out]) + "\n")
    child.stdin.flush()
    answer = _answer(child, timeout=600)
    assert answer == "ok", json.loads(answer[len("error "):]) if answer.startswith("error ") else answer


@pytest.mark.parametrize("case", sorted(CASES))
def test_new_process_continues_exactly(case: str, tmp_path: Any, resuming_process: subprocess.Popen) -> None:
    env_id, build, _ = CASES[case]
    model_file, out = str(tmp_path / "model.zip"), str(tmp_path / "resumed.npz")
    model = build(make_env(env_id))
    model.learn(TRAIN_STEPS)
    model.save(model_file, include_training_state=True)
    if seeds_before(case):
        model.set_env(prepared_env(make_env(env_id)))
    else:
        model.set_env(make_env(env_id))
        reseed(model)
    model.learn(CONTINUE_STEPS, reset_num_timesteps=False)
    expected = model.get_parameters()

    _run_child(resuming_process, case, model_file, out)
    with np.load(out) as resumed:
        assert list(resumed["names"]) == list(expected)
        assert int(resumed["num_timesteps"]) == model.num_timesteps
        for index, (name, value) in enumerate(expected.items()):
            np.testing.assert_array_equal(resumed["p{}".format(index)], value, err_msg=name)
