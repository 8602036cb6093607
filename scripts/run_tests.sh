#!/usr/bin/env bash
# Run the test suite with 2 workers, with coverage when pytest-cov is installed.
# Extra arguments go to pytest, e.g. `scripts/run_tests.sh -m "not slow"` or `... tests/test_ppo2.py`
# (with no path, pytest runs `tests/`: testpaths in setup.cfg).
# PYTHON selects the interpreter (default: the project's .venv if present, else python3).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

if [ -z "${PYTHON:-}" ]; then
    if [ -x .venv/bin/python ]; then PYTHON=.venv/bin/python; else PYTHON=python3; fi
fi

COVERAGE_ARGS=()
if "$PYTHON" -c "import pytest_cov" 2>/dev/null; then
    COVERAGE_ARGS=(--cov=stable_baselines --cov-report=term-missing:skip-covered)
fi

set +e
"$PYTHON" -m pytest -n 2 ${COVERAGE_ARGS[@]+"${COVERAGE_ARGS[@]}"} "$@"
rc=$?
set -e
if [ "$rc" -eq 5 ]; then
    echo "run_tests.sh: no tests were collected" >&2
    exit 1
fi
exit "$rc"
