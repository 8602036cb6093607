"""
The README's "Set up" commands are what CI runs: ``.ci/run`` reads them from README.md between
the ``<!-- ci:install -->`` / ``<!-- ci:test -->`` markers. These tests keep that link intact.
"""
import os
import re
import shutil
import subprocess

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

INSTALL_COMMAND = ('python3 -m venv .venv && .venv/bin/pip install --upgrade pip && '
                   '.venv/bin/pip install -e ".[mpi,tests]" && .venv/bin/python -m stable_baselines.demo')
TEST_COMMAND = ".venv/bin/python -m pytest -n 2 --durations=25 tests"


def _read(relative_path: str) -> str:
    with open(os.path.join(ROOT, relative_path), encoding="utf-8") as file_handler:
        return file_handler.read()


def _readme_block(name: str) -> list:
    """Lines between the ci:NAME markers, without code fences or blank lines (as .ci/run reads them)."""
    match = re.search(r"^<!-- ci:{0} -->\n(.*?)^<!-- /ci:{0} -->$".format(name), _read("README.md"),
                      flags=re.DOTALL | re.MULTILINE)
    assert match is not None, "README.md has no <!-- ci:{0} --> ... <!-- /ci:{0} --> block".format(name)
    return [line for line in match.group(1).splitlines() if line.strip() and not line.startswith("```")]


@pytest.mark.parametrize("name, expected", [("install", INSTALL_COMMAND), ("test", TEST_COMMAND)])
def test_readme_block_holds_exactly_the_command(name, expected):
    assert _readme_block(name) == [expected]


def test_ci_script_reads_the_readme_markers():
    script = _read(".ci/run")
    assert script.startswith("#!/usr/bin/env bash\n")
    assert "set -euo pipefail" in script
    assert 'readme_command install' in script and 'readme_command test' in script
    assert "<!-- ci:${name} -->" in script and "<!-- /ci:${name} -->" in script


@pytest.mark.skipif(shutil.which("bash") is None or shutil.which("awk") is None, reason="needs bash and awk")
def test_ci_script_extracts_the_same_strings():
    script = _read(".ci/run")
    function = re.search(r"^readme_command\(\) \{\n.*?^\}$", script, flags=re.DOTALL | re.MULTILINE)
    assert function is not None, ".ci/run has no readme_command function"
    program = function.group(0) + '\nreadme_command install\nreadme_command test\n'
    result = subprocess.run(["bash", "-c", "set -euo pipefail\n" + program], cwd=ROOT,
                            capture_output=True, text=True, timeout=30, check=False)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [INSTALL_COMMAND, TEST_COMMAND]
