"""Atomic file writing: a reader sees the old file or the complete new one, never half of it."""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from collections.abc import Iterator
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


@contextlib.contextmanager
def atomic_output(path: str | os.PathLike[str]) -> Iterator[str]:
    """A temporary path beside ``path`` (same extension) to write to; moved onto ``path`` when
    the block ends without an error, removed otherwise. For writers that want a file name."""
    folder = os.path.dirname(os.path.abspath(path))
    suffix = os.path.splitext(os.fspath(path))[1]
    fd, tmp = tempfile.mkstemp(prefix=".gin3-", suffix=f".tmp{suffix}", dir=folder)
    os.close(fd)
    try:
        yield tmp
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # mkstemp makes it private; the result gets a new file's mode
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
