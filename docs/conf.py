"""
Sphinx configuration for the Stable Baselines documentation (``make doc``).

The docstrings use the manual's field-list style (``:param x: (type) meaning``), which plain
reStructuredText renders, so no docstring extension (napoleon) is needed.
"""
import os
import sys

DOCS_DIR = os.path.dirname(os.path.abspath(__file__))
ROOT_DIR = os.path.dirname(DOCS_DIR)
# document the checkout, even when another copy of the package is installed
sys.path.insert(0, ROOT_DIR)
# importing stable_baselines imports TensorFlow; the package keeps TensorFlow's start-up logging quiet itself

with open(os.path.join(ROOT_DIR, "version.txt")) as file_handler:
    release = file_handler.read().strip()
version = ".".join(release.split(".")[:2])

project = "Stable Baselines"
author = "Stable Baselines revival contributors, after Hill et al. (2018)"
copyright = "2018-2020, Stable Baselines contributors; revival contributors"  # noqa: A001

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.viewcode",
    "sphinx.ext.mathjax",
]

# MPI is optional: document the MPI algorithms even where mpi4py is not installed
autodoc_mock_imports = ["mpi4py"]
autodoc_member_order = "bysource"
autodoc_default_options = {
    "members": True,
    "undoc-members": False,
    "show-inheritance": True,
}
autodoc_typehints = "signature"
# the manual style documents the constructor arguments in __init__: show both docstrings
autoclass_content = "both"
autosummary_generate = False
nitpicky = False

templates_path = []
exclude_patterns = ["_build", "Thumbs.db", ".DS_Store"]
source_suffix = {".rst": "restructuredtext"}
master_doc = "index"
language = "en"
pygments_style = "sphinx"

try:
    import sphinx_rtd_theme  # noqa: F401  (only tells whether the theme is installed)
except ImportError:
    html_theme = "alabaster"
else:
    html_theme = "sphinx_rtd_theme"
    extensions.append("sphinx_rtd_theme")
html_title = "Stable Baselines {} documentation".format(release)
htmlhelp_basename = "StableBaselinesdoc"
