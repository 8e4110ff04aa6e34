"""Files in and out: atomic writes (a reader sees the old file or the complete new one, never half
of it), writes through a held folder's descriptor (:class:`HeldFolder`), and input files read with caps
(:func:`read_regular_file`, :func:`read_json`, :func:`read_npz`: a regular file only, a size cap, a nesting
cap, an array's header checked before its data is read).

The file gets the permissions of any file the user creates (``0o666`` less the
umask, e.g. ``0644``), the same as the model ``.zip`` files beside it:
``tempfile.mkstemp`` would make it ``0600``.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import re
import secrets
import stat
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0)


def check_output_file(path: str | os.PathLike[str], flag: str, suffixes: tuple[str, ...] = (), *,
                      inputs: tuple[str | os.PathLike[str], ...] = (), create_folders: bool = False) -> None:
    """Refuse, with a ``ValueError`` naming ``flag``, an output file that could not be written: a name
    without one of ``suffixes`` (when given), a name too long for the file system, a folder where the file
    would go, a folder that does not exist (an output flag writes into an existing folder and creates
    none, unless ``create_folders``: then the nearest existing folder above must be writable) or that
    cannot be written in, or one of the command's ``inputs`` (an input is never an output: ``--json``
    naming the model played would replace it). Commands call it before they play or compute anything."""
    text = os.fspath(path)
    if suffixes and not text.lower().endswith(suffixes):
        raise ValueError(f"{flag} file name must end in {' or '.join(suffixes)}, got {text!r}")
    if any(len(os.fsencode(part)) > 255 for part in text.replace(os.altsep or os.sep, os.sep).split(os.sep)):
        raise ValueError(f"{flag} {text[:60]}...: a file or folder name longer than 255 bytes")
    if os.path.isdir(text):
        raise ValueError(f"{flag} {text}: is a folder; give a file name")
    folder = os.path.dirname(os.path.abspath(text))
    if create_folders:
        while not os.path.lexists(folder) and os.path.dirname(folder) != folder:
            folder = os.path.dirname(folder)
        if not os.path.isdir(folder):
            raise ValueError(f"{flag} {text}: {folder} is a file, not a folder")
    elif not os.path.isdir(folder):
        raise ValueError(f"{flag} {text}: no such folder {folder} (create it first)")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise ValueError(f"{flag} {text}: cannot write in {folder} (permission denied)")
    probe = os.path.join(folder, f".gin3-{secrets.token_hex(6)}.probe")
    try:  # what the permissions do not say (a read-only file system, /proc, root's view): tried, then undone
        os.close(os.open(probe, _FLAGS, 0o600))
        os.unlink(probe)
    except OSError as exc:
        raise ValueError(f"{flag} {text}: cannot write in {folder} ({exc.strerror or exc})") from None
    for source in inputs:
        if os.path.lexists(source) and same_file(text, source):
            raise ValueError(f"{flag} {text}: is an input of this command ({os.fspath(source)}); an input is "
                             "never overwritten, give another file name")


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


# ---------------------------------------------------------------------- reading inputs
MAX_JSON_BYTES = 64 << 20  # a JSON input (a log, a deck file, a model's description); gate files have less
MAX_JSON_DEPTH = 100  # nesting of arrays and objects: this package's files nest a few levels
_OPEN_READ = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)
_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"', re.S)
_BRACKET = re.compile(rb"[\[\]{}]")


class InputFileError(ValueError):
    """An input file that is not read: missing, not a regular file, too large, or not the data asked for.
    The message names the file; ``reason`` is the problem alone, for a caller that names the file itself."""

    def __init__(self, what: str, reason: str, as_json: bool = False) -> None:
        super().__init__(f"cannot read {what}{' as JSON' if as_json else ''}: {reason}")
        self.reason = reason


def _size_text(n: int) -> str:
    return f"{n / (1 << 20):g} MiB" if n >= 1 << 20 else f"{n:,} bytes"


def read_regular_file(path: str | os.PathLike[str], what: str, max_bytes: int, *, dir_fd: int | None = None,
                      where: str | None = None) -> bytes:
    """The bytes of the regular file ``path``, read once and at most ``max_bytes`` of them, or an
    :class:`InputFileError` naming ``what`` and the file: a device (``/dev/zero``), a FIFO (opened
    without blocking) or a folder is refused, whether named directly or through a link, as is a file
    over ``max_bytes``. With ``dir_fd`` (a held folder's descriptor), ``path`` is one name in that folder,
    opened without following a link (a link is refused), and ``where`` names it in a refusal."""
    name = os.fspath(path)
    where = where or f"{what} {name}"
    try:
        if dir_fd is None:
            fd = os.open(name, _OPEN_READ)
        else:
            fd = os.open(name, _OPEN_READ | getattr(os, "O_NOFOLLOW", 0), dir_fd=dir_fd)
    except FileNotFoundError:
        raise InputFileError(where, "no such file") from None
    except OSError as exc:
        if dir_fd is not None and exc.errno == errno.ELOOP:
            raise InputFileError(where, "it is a symbolic link; a run reads only its own files") from None
        raise InputFileError(where, f"cannot open it ({exc.strerror or exc})") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            kind = "a folder" if stat.S_ISDIR(st.st_mode) else "not a regular file (a device, FIFO or socket)"
            raise InputFileError(where, f"it is {kind}; only a regular file is read")
        if st.st_size > max_bytes:
            raise InputFileError(where, f"it is {_size_text(st.st_size)}, over the {_size_text(max_bytes)} "
                                        "this reader takes")
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
        chunks, total = [], 0
        while True:
            block = os.read(fd, min(1 << 20, max_bytes + 1 - total))
            if not block:
                break
            chunks.append(block)
            total += len(block)
            if total > max_bytes:  # it grew while read
                raise InputFileError(where, f"it is over the {_size_text(max_bytes)} this reader takes")
        return b"".join(chunks)
    except OSError as exc:
        raise InputFileError(where, exc.strerror or str(exc)) from None
    finally:
        os.close(fd)


def json_depth(data: bytes | str) -> int:
    """How deep the arrays and objects of the JSON text ``data`` nest (strings skipped), without parsing it."""
    raw = data.encode("utf-8", "surrogatepass") if isinstance(data, str) else data
    depth = deepest = 0
    for match in _BRACKET.finditer(_STRING.sub(b'""', raw) if b'"' in raw else raw):
        if match.group() in (b"[", b"{"):
            depth += 1
            deepest = max(deepest, depth)
        else:
            depth -= 1
    return deepest


def parse_json(data: bytes | str, what: str, max_depth: int = MAX_JSON_DEPTH) -> Any:
    """``data`` parsed as JSON, or an :class:`InputFileError` naming ``what``: not UTF-8, not JSON, or nested
    deeper than ``max_depth`` (checked before parsing, so no reader recurses on it)."""
    if json_depth(data) > max_depth:
        raise InputFileError(what, f"it nests JSON too deeply (more than {max_depth} levels); not read")
    try:
        text = data.decode("utf-8") if isinstance(data, bytes) else data
        return json.loads(text)
    except UnicodeDecodeError:
        raise InputFileError(what, "not UTF-8 text", as_json=True) from None
    except RecursionError:
        raise InputFileError(what, "it nests JSON too deeply; not read") from None
    except ValueError as exc:
        raise InputFileError(what, str(exc), as_json=True) from None


def read_json(path: str | os.PathLike[str], what: str, max_bytes: int = MAX_JSON_BYTES,
              max_depth: int = MAX_JSON_DEPTH) -> Any:
    """The JSON file ``path``: :func:`read_regular_file` (a regular file, at most ``max_bytes``) then
    :func:`parse_json`; every refusal an :class:`InputFileError` naming ``what`` and the file."""
    return parse_json(read_regular_file(path, what, max_bytes), f"{what} {os.fspath(path)}", max_depth)


MAX_NPZ_MEMBERS = 64  # arrays in one .npz: this package's files hold a few dozen
_NPZ_KINDS = "biufU"  # bool, int, unsigned, float and text arrays; no objects, no records, no raw bytes


def _npz_member(zf: Any, info: Any, cap: int) -> Any:
    """The array of the ``.npy`` member ``info`` of the open zip ``zf``: its header parsed first (magic,
    version, dtype, shape), the byte count it declares checked against ``cap`` and against the member's
    size, and only then that many bytes read; a ``ValueError`` saying what is wrong otherwise."""
    import numpy as np
    from numpy.lib import format as npy

    if info.file_size > cap:
        raise ValueError(f"its member {info.filename!r:.60} inflates past {_size_text(cap)}")
    with zf.open(info) as fh:
        version = npy.read_magic(fh)
        if version == (1, 0):
            shape, fortran, dtype = npy.read_array_header_1_0(fh, max_header_size=10_000)
        elif version == (2, 0):
            shape, fortran, dtype = npy.read_array_header_2_0(fh, max_header_size=10_000)
        else:
            raise ValueError(f"its member {info.filename!r:.60} has .npy version {version}, not 1.0 or 2.0")
        if dtype.hasobject or dtype.fields is not None or dtype.subdtype is not None or dtype.kind not in _NPZ_KINDS:
            raise ValueError(f"its member {info.filename!r:.60} holds {dtype} data, not plain numbers or text")
        if any(int(n) < 0 for n in shape):
            raise ValueError(f"its member {info.filename!r:.60} declares a negative size in shape {shape}")
        count = 1
        for n in shape:
            count *= int(n)
        size = count * dtype.itemsize  # Python ints: a 2**40-element header is a number here, not an allocation
        if size > cap or size != info.file_size - fh.tell():
            raise ValueError(f"its member {info.filename!r:.60} declares shape {shape} of {dtype} ({size:,} bytes), "
                             f"which {'is over the cap' if size > cap else 'is not the data it holds'}")
        raw = fh.read(size + 1)  # one byte past: the zip's checksum is tested at the member's end
    if len(raw) != size:
        raise ValueError(f"its member {info.filename!r:.60} holds {len(raw):,} bytes, not the {size:,} it declares")
    array = np.frombuffer(raw, dtype=dtype, count=count)
    return (array.reshape(shape[::-1]).transpose() if fortran else array.reshape(shape)).copy()  # writable, owned


def read_npz(path: str | os.PathLike[str], what: str, max_bytes: int, names: tuple[str, ...] | None = None,
             max_members: int = MAX_NPZ_MEMBERS) -> dict[str, Any]:
    """The arrays of the numpy ``.npz`` file ``path`` by member name, or an :class:`InputFileError` naming
    ``what`` and the file: :func:`read_regular_file` (a regular file, at most ``max_bytes``), then each
    member's ``.npy`` header parsed and its dtype and shape checked BEFORE its data is read or allocated
    (no pickles, objects or records; at most ``max_bytes`` inflated; exactly the bytes it declares), at most
    ``max_members`` members, and (where ``names`` is given) none but those."""
    return parse_npz(read_regular_file(path, what, max_bytes), f"{what} {os.fspath(path)}", max_bytes, names,
                     max_members)


def parse_npz(raw: bytes, where: str, max_bytes: int, names: tuple[str, ...] | None = None,
              max_members: int = MAX_NPZ_MEMBERS) -> dict[str, Any]:
    """The arrays of the ``.npz`` bytes ``raw`` (read by a checked reader: :func:`read_npz`, a held run
    folder's ``read``), with :func:`read_npz`'s checks; an :class:`InputFileError` naming ``where``."""
    import io
    import zipfile
    import zlib

    out: dict[str, Any] = {}
    try:
        with zipfile.ZipFile(io.BytesIO(raw)) as zf:
            infos = zf.infolist()
            if len(infos) > max_members:
                raise ValueError(f"it holds {len(infos)} members, over the {max_members} this reader takes")
            for info in infos:
                name = info.filename.removesuffix(".npy")
                if not info.filename.endswith(".npy") or (names is not None and name not in names):
                    raise ValueError(f"it holds an unknown member {info.filename!r:.60}")
                if name in out:
                    raise ValueError(f"it holds the member {info.filename!r:.60} twice")
                out[name] = _npz_member(zf, info, max_bytes)
    except InputFileError:
        raise
    except (ValueError, zipfile.BadZipFile, zipfile.LargeZipFile, EOFError, OSError, zlib.error, RuntimeError,
            NotImplementedError, TypeError, KeyError, OverflowError, SyntaxError) as exc:
        text = " ".join(str(exc).split())[:200] or type(exc).__name__
        raise InputFileError(where, f"not a numpy .npz file of plain arrays ({text})") from None
    return out


# ---------------------------------------------------------------------- checking outputs
def same_file(a: str | os.PathLike[str], b: str | os.PathLike[str]) -> bool:
    """Whether ``a`` and ``b`` name one file (an existing one, or the same path once resolved)."""
    try:
        return os.path.samefile(a, b)
    except OSError:
        return os.path.realpath(a) == os.path.realpath(b)


# ---------------------------------------------------------------------- writing through a held folder
PARTIAL = ".gin3-partial"  # a file being written is ".NAME.gin3-partial" beside NAME
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_FLAGS_DIR = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | _NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
_FLAGS_NEW = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | _NOFOLLOW | getattr(os, "O_CLOEXEC", 0)


def relative_parts(rel: str) -> list[str]:
    """The components of ``rel`` (``a/b``), a name inside a folder: a ``ValueError`` for an empty name,
    an absolute path, ``.``, ``..``, a backslash or a NUL."""
    parts = rel.split("/") if isinstance(rel, str) else []
    if not parts or any(p in ("", ".", "..") or "\\" in p or "\0" in p for p in parts):
        raise ValueError(f"{rel!r} is not a name inside the folder")
    return parts


def _done(remove: Callable[..., None], name: str, fd: int) -> bool:
    """``remove(name, dir_fd=fd)``, then True (for :meth:`HeldFolder._at`, whose None means "none there")."""
    remove(name, dir_fd=fd)
    return True


class HeldFolder:
    """A folder held open by its descriptor: every file written or removed in it goes through that
    descriptor, each subfolder opened without following a link, so the folder's path swapped for a
    link (or a subfolder for one) can never send a write or a delete outside it. ``error`` is the
    exception raised (a ``ValueError``); ``what`` names the folder in its messages."""

    error: type[ValueError] = ValueError

    def __init__(self, path: str | os.PathLike[str], what: str = "folder") -> None:
        self.path = Path(os.path.abspath(path))
        self.what = what
        try:
            self.fd = os.open(self.path, _FLAGS_DIR)
        except OSError as exc:
            if self.path.is_symlink():
                raise self.error(f"{what} {path} is a symbolic link; gin3 writes only into a real folder") from None
            raise self.error(f"cannot open the {what} {path}: {exc.strerror or exc}") from None
        st = os.fstat(self.fd)
        self.identity = (st.st_dev, st.st_ino)

    def check(self) -> None:
        """An ``error`` if the folder's path no longer names the folder held (swapped for a link or another
        folder)."""
        try:
            st = os.lstat(self.path)
        except OSError:
            st = None
        if st is None or not stat.S_ISDIR(st.st_mode) or (st.st_dev, st.st_ino) != self.identity:
            raise self.error(f"{self.what} {self.path} was moved or replaced (by a link or another folder) "
                             "while in use; nothing more is written through it")

    def subfolder(self, parts: list[str], create: bool) -> int:
        """A descriptor of the folder ``parts`` inside (made where ``create``; FileNotFoundError where it is
        missing and not ``create``), no link followed: a linked subfolder is an ``error``."""
        fd = os.dup(self.fd)
        for i, part in enumerate(parts):
            try:
                nxt = os.open(part, _FLAGS_DIR, dir_fd=fd)
            except FileNotFoundError:
                if not create:
                    os.close(fd)
                    raise
                with contextlib.suppress(FileExistsError):
                    os.mkdir(part, 0o777, dir_fd=fd)
                try:
                    nxt = os.open(part, _FLAGS_DIR, dir_fd=fd)
                except OSError:
                    os.close(fd)
                    raise
            except OSError as exc:
                os.close(fd)
                where = self.path.joinpath(*parts[:i + 1])
                raise self.error(f"{where} is not a real folder (a symbolic link?); gin3 writes and deletes only "
                                 f"inside the {self.what} ({exc.strerror or exc})") from None
            os.close(fd)
            fd = nxt
        return fd

    def _parts(self, rel: str) -> list[str]:
        try:
            return relative_parts(rel)
        except ValueError as exc:
            raise self.error(f"{exc} ({self.what} {self.path})") from None

    def write(self, rel: str, data: bytes) -> None:
        """``data`` as the file ``rel`` (``a/b``) inside, atomically (``.NAME.gin3-partial``, then a rename),
        through the folder's descriptor; a link at ``rel`` is replaced, its target left alone."""
        self.check()
        parts = self._parts(rel)
        folder = self.subfolder(parts[:-1], create=True)
        name, tmp = parts[-1], f".{parts[-1]}{PARTIAL}"
        try:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(tmp, dir_fd=folder)  # a link planted there is removed, never written through
            fd = os.open(tmp, _FLAGS_NEW | os.O_EXCL, 0o666, dir_fd=folder)
            try:
                view = memoryview(data)
                while view:
                    view = view[os.write(fd, view):]
                os.fsync(fd)
            finally:
                os.close(fd)
            os.replace(tmp, name, src_dir_fd=folder, dst_dir_fd=folder)
            with contextlib.suppress(OSError):
                os.fsync(folder)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp, dir_fd=folder)
            raise
        finally:
            os.close(folder)

    def _at(self, rel: str, call: Callable[[str, int], Any], quiet: tuple[type[OSError], ...]) -> Any:
        """``call(name, folder_fd)`` for the last component of ``rel``, its folder opened without following a
        link; None where that folder is missing or ``call`` raises one of ``quiet``."""
        parts = self._parts(rel)
        try:
            folder = self.subfolder(parts[:-1], create=False)
        except FileNotFoundError:
            return None
        try:
            return call(parts[-1], folder)
        except quiet:
            return None
        finally:
            os.close(folder)

    def lstat(self, rel: str) -> os.stat_result | None:
        """The ``lstat`` of ``rel`` inside (None where it, or a folder on its way, is missing)."""
        found: os.stat_result | None = self._at(rel, lambda name, fd: os.lstat(name, dir_fd=fd), (FileNotFoundError,))
        return found

    def unlink(self, rel: str) -> bool:
        """Remove the file (or link) ``rel`` inside, never through a link; False where there was none."""
        self.check()
        return self._at(rel, lambda name, fd: _done(os.unlink, name, fd), (FileNotFoundError,)) is True

    def rmdir(self, rel: str) -> bool:
        """Remove the empty folder ``rel`` inside (never through a link); False where it is missing, holds
        something, is no folder or lies past a link."""
        self.check()
        try:
            return self._at(rel, lambda name, fd: _done(os.rmdir, name, fd), (OSError,)) is True
        except ValueError:
            return False

    def close(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1

    def __enter__(self) -> HeldFolder:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
