# Developer targets. Run them from the repository root, with the environment where the
# package is installed active (or pass PYTHON=.venv/bin/python SPHINXBUILD=.venv/bin/sphinx-build).
PYTHON ?= python
SPHINXBUILD ?= sphinx-build
DOCKER ?= docker

.PHONY: help pytest type lint doc docker-cpu docker-gpu clean

help:
	@echo "make pytest      run the test suite (2 workers)"
	@echo "make type        type-check stable_baselines with mypy (config: setup.cfg)"
	@echo "make lint        lint with ruff (config: ruff.toml)"
	@echo "make doc         build the HTML documentation into docs/_build/html (warnings are errors)"
	@echo "make docker-cpu  build the CPU image stable-baselines:cpu"
	@echo "make docker-gpu  build the GPU image stable-baselines:gpu"
	@echo "make clean       remove build, cache and documentation output"

pytest:
	$(PYTHON) -m pytest -n 2 tests

type:
	$(PYTHON) -m mypy stable_baselines

lint:
	$(PYTHON) -m ruff check stable_baselines tests docs

doc:
	$(SPHINXBUILD) -W -b html docs docs/_build/html

docker-cpu:
	$(DOCKER) build -f docker/Dockerfile.cpu -t stable-baselines:cpu .

docker-gpu:
	$(DOCKER) build -f docker/Dockerfile.gpu -t stable-baselines:gpu .

clean:
	rm -rf build dist docs/_build .pytest_cache .mypy_cache .ruff_cache .coverage htmlcov
	find . -path ./.venv -prune -o -path ./.git -prune -o -type d -name __pycache__ -print0 | xargs -0 rm -rf
