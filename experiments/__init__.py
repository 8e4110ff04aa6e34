"""Research scripts: one-off measurements behind the figures in ``docs/``, outside the package.

Run each from the repository root as ``python -m experiments.NAME`` (``docs/experiments.md``
lists them with their commands). The package never imports them (``tests/test_layering.py``).
"""
