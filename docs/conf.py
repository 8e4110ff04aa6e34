"""Sphinx configuration of the gin3_env docs: Furo, Markdown pages (MyST), the API from the docstrings.

Build: ``pip install -e ".[docs]"`` then ``sphinx-build -W -b html docs OUT`` (``.ci/run`` does it).
The tables of the environment pages are written from the code at build time (``_ext/gin3_docs.py``).
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent), str(HERE / "_ext")]  # the checkout's package, then the docs' extension

import gin3_env  # noqa: E402

project = "gin3_env"
author = "gin3_env contributors"
release = version = gin3_env.__version__
copyright = "gin3_env contributors"

extensions = ["myst_parser", "sphinx.ext.autodoc", "sphinx.ext.napoleon", "gin3_docs"]
source_suffix = {".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build", "_ext", "Thumbs.db", ".DS_Store"]
myst_enable_extensions = ["colon_fence", "deflist"]
myst_heading_anchors = 3

html_theme = "furo"
html_title = f"gin3_env {release}"
html_static_path = ["_static"]
html_css_files = ["tables.css"]

autodoc_member_order = "bysource"
autodoc_typehints = "description"
autodoc_default_options = {"members": True, "imported-members": True, "undoc-members": False}
