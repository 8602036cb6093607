"""
``make type`` in the test suite: mypy checks the package with the configuration of setup.cfg.

Every module must be free of type errors, except the modules of ``PENDING`` (being rewritten at the time the
check was introduced), which may not get MORE errors than listed. Fixing a module means removing it from
``PENDING``; a new error anywhere else fails the test. A second test proves that the configuration does catch
a type error (it is not a blanket ``ignore_errors``).
"""
import collections
import os
import re
import subprocess
import sys
from typing import Dict, List, Tuple

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# module -> number of mypy errors it had when the check was introduced (it may only go down)
PENDING = {
    "stable_baselines/a2c/a2c.py": 9,
    "stable_baselines/acer/acer_simple.py": 26,
    "stable_baselines/acer/buffer.py": 22,
    "stable_baselines/acktr/acktr.py": 13,
    "stable_baselines/acktr/kfac.py": 6,
    "stable_baselines/common/bit_flipping_env.py": 8,
    "stable_baselines/common/callbacks.py": 12,
    "stable_baselines/common/model/actor_critic.py": 10,
    "stable_baselines/common/model/base.py": 7,
    "stable_baselines/common/model/context.py": 3,
    "stable_baselines/common/model/observations.py": 1,
    "stable_baselines/common/model/off_policy.py": 39,
    "stable_baselines/common/model/parameters.py": 9,
    "stable_baselines/common/model/probabilities.py": 2,
    "stable_baselines/common/offpolicy_policy.py": 7,
    "stable_baselines/common/returns.py": 1,
    "stable_baselines/common/save_util.py": 3,
    "stable_baselines/common/vec_env/vec_normalize.py": 2,
    "stable_baselines/ddpg/ddpg.py": 73,
    "stable_baselines/ddpg/main.py": 8,
    "stable_baselines/ddpg/policies.py": 1,
    "stable_baselines/deepq/dqn.py": 28,
    "stable_baselines/deepq/experiments/replay.py": 1,
    "stable_baselines/deepq/experiments/train_mountaincar.py": 3,
    "stable_baselines/deepq/policies.py": 4,
    "stable_baselines/gail/adversary.py": 3,
    "stable_baselines/gail/model.py": 1,
    "stable_baselines/her/utils.py": 6,
    "stable_baselines/ppo1/pposgd_simple.py": 11,
    "stable_baselines/ppo2/ppo2.py": 14,
    "stable_baselines/sac/policies.py": 7,
    "stable_baselines/sac/sac.py": 20,
    "stable_baselines/td3/policies.py": 3,
    "stable_baselines/td3/td3.py": 14,
    "stable_baselines/trpo_mpi/trpo_mpi.py": 19,
}

ERROR_LINE = re.compile(r"^(?P<path>[^:\s]+\.py):(?P<line>\d+): error: (?P<message>.*)$")


def _mypy(cache_dir: str, *targets: str) -> Tuple[int, str]:
    """
    Run mypy with the repository's configuration (setup.cfg).

    :param cache_dir: (str) mypy's cache (a temporary folder: the test writes nothing into the repository)
    :param targets: (str) files to check; none: those of the configuration (the package)
    :return: (int, str) the exit status and the report
    """
    command = [sys.executable, "-m", "mypy", "--config-file", os.path.join(ROOT, "setup.cfg"),
               "--cache-dir", cache_dir, "--no-color-output", "--no-error-summary", *targets]
    result = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=600)
    return result.returncode, result.stdout + result.stderr


def _errors_by_file(report: str) -> Dict[str, List[str]]:
    errors: Dict[str, List[str]] = collections.defaultdict(list)
    for line in report.splitlines():
        match = ERROR_LINE.match(line)
        if match:
            errors[match.group("path").replace(os.sep, "/")].append(line)
    return errors


@pytest.fixture(scope="module")
def mypy_cache(tmp_path_factory: pytest.TempPathFactory) -> str:
    try:
        import mypy  # noqa: F401  (only to give a clear message)
    except ImportError:
        pytest.fail("mypy is not installed: it comes with the test extra (pip install -e '.[tests]')")
    return str(tmp_path_factory.mktemp("mypy_cache"))


@pytest.fixture(scope="module")
def package_report(mypy_cache: str) -> Tuple[int, str]:
    return _mypy(mypy_cache)


def test_mypy_reports_no_new_errors(package_report):
    status, report = package_report
    errors = _errors_by_file(report)
    # 1 is mypy's status for "type errors found"; anything else (or 1 without errors) is a crash or a bad config
    assert (status, bool(errors)) in ((0, False), (1, True)), \
        "mypy failed to run (exit status {}):\n{}".format(status, report)
    problems = []
    for path, lines in sorted(errors.items()):
        allowed = PENDING.get(path, 0)
        if len(lines) > allowed:
            problems.append("{}: {} errors (allowed: {})\n    {}".format(path, len(lines), allowed,
                                                                        "\n    ".join(lines)))
    assert not problems, "mypy (make type) found type errors:\n" + "\n".join(problems)


def test_pending_modules_exist():
    # a renamed or removed module must leave the list, so that the list only ever shrinks
    missing = [path for path in PENDING if not os.path.isfile(os.path.join(ROOT, path))]
    assert not missing, "modules listed in PENDING that no longer exist: {}".format(missing)


def test_mypy_configuration_catches_a_type_error(mypy_cache, package_report, tmp_path):
    # a user-like script misusing the annotated API: a VecEnv wants a list of environment constructors
    script = tmp_path / "misuse.py"
    script.write_text("from stable_baselines.common.vec_env import DummyVecEnv\n"
                      "from stable_baselines.common.buffers import ReplayBuffer\n"
                      "\n"
                      "env = DummyVecEnv(3)\n"
                      "buffer: ReplayBuffer = ReplayBuffer(size='big')\n"
                      "count: int = buffer.storage\n")
    status, report = _mypy(mypy_cache, str(script))
    assert status == 1, report
    errors = [line for line in report.splitlines() if line.startswith(str(script)) and ": error: " in line]
    assert len(errors) == 3, report
    assert all(code in report for code in ("[arg-type]", "[assignment]")), report
