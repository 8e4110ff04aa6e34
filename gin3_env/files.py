"""Atomic file writing: a reader sees the old file or the complete new one, never half of it.

The file gets the permissions of any file the user creates (``0o666`` less the
umask, e.g. ``0644``), the same as the model ``.zip`` files beside it:
``tempfile.mkstemp`` would make it ``0600``.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import tempfile
from collections.abc import Iterator
from typing import Any

_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0)


def check_output_file(path: str | os.PathLike[str], flag: str, suffixes: tuple[str, ...] = ()) -> None:
    """Refuse, with a ``ValueError`` naming ``flag``, an output file that could not be written: a name
    without one of ``suffixes`` (when given), a folder where the file would go, or a folder that does not
    exist (an output flag writes into an existing folder and creates none). Commands call it before they
    play or compute anything."""
    text = os.fspath(path)
    if suffixes and not text.lower().endswith(suffixes):
        raise ValueError(f"{flag} file name must end in {' or '.join(suffixes)}, got {text!r}")
    if os.path.isdir(text):
        raise ValueError(f"{flag} {text}: is a folder; give a file name")
    folder = os.path.dirname(os.path.abspath(text))
    if not os.path.isdir(folder):
        raise ValueError(f"{flag} {text}: no such folder {folder} (create it first)")


def save_json(path: str | os.PathLike[str], data: Any, indent: int = 2) -> None:
    """Write ``data`` as JSON atomically: a temporary file beside ``path``, then ``os.replace``."""
    folder = os.path.dirname(os.path.abspath(path))
    while True:  # a fresh name beside the target, created with the umask's mode (unlike mkstemp's 0600)
        tmp = os.path.join(folder, f".gin3-{secrets.token_hex(6)}.json.tmp")
        try:
            fd = os.open(tmp, _FLAGS, 0o666)
        except FileExistsError:
            continue
        break
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
