"""Atomic file writing: a reader sees the old file or the complete new one, never half of it."""

from __future__ import annotations

import json
import os
import tempfile
from typing import Any


def save_json(path: str | os.PathLike[str], data: Any, indent: int = 2) -> None:
    """Write ``data`` as JSON atomically: a temporary file beside ``path``, then ``os.replace``."""
    folder = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=".gin3-", suffix=".json.tmp", dir=folder)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(data, fh, indent=indent)
            fh.write("\n")
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
