"""
``make type`` in the test suite: mypy checks the package with the configuration of setup.cfg, and must find no
type error in any module. A second test proves that the configuration does catch a type error (it is not a
blanket ``ignore_errors``).
"""
import collections
import os
import re
import subprocess
import sys
from typing import Dict, List, Tuple

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

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


@pytest.mark.slow
def test_mypy_reports_no_errors_and_catches_a_type_error(mypy_cache: str, tmp_path) -> None:
    """One test: the check of a user's script reads the cache the package's check wrote (on another xdist worker it
    would check the whole package again)."""
    status, report = _mypy(mypy_cache)
    errors = _errors_by_file(report)
    # 1 is mypy's status for "type errors found"; anything else (or 1 without errors) is a crash or a bad config
    assert (status, bool(errors)) in ((0, False), (1, True)), \
        "mypy failed to run (exit status {}):\n{}".format(status, report)
    problems = ["{}: {} errors\n    {}".format(path, len(lines), "\n    ".join(lines))
                for path, lines in sorted(errors.items())]
    assert not problems, "mypy (make type) found type errors:\n" + "\n".join(problems)

    # the configuration catches errors: a user-like script misusing the annotated API (a VecEnv wants a list of
    # environment constructors)
    script = tmp_path / "misuse.py"
    script.write_text("from stable_baselines.common.vec_env import DummyVecEnv\n"
                      "from stable_baselines.common.buffers import ReplayBuffer\n"
                      "\n"
                      "env = DummyVecEnv(3)\n"
                      "buffer: ReplayBuffer = ReplayBuffer(size='big')\n"
                      "count: int = buffer.storage\n")
    status, report = _mypy(mypy_cache, str(script))
    assert status == 1, report
    errors_in_script = [line for line in report.splitlines() if line.startswith(str(script)) and ": error: " in line]
    assert len(errors_in_script) == 3, report
