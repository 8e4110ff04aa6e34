"""``python -m gin3_env ...`` is the ``gin3`` command."""

from .cli import entry

entry()
