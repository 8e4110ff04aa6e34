"""``gin3`` commands in processes forked from one that has already imported torch, SB3 and the package.

A ``gin3 train`` started as a new interpreter spends about 3.5 s of CPU importing torch,
``torch._dynamo`` (which the optimizer pulls in) and SB3 before it does anything, and the suite
starts a few dozen such commands. :func:`run` starts each of them instead as a fork of a
*zygote*: a helper process (one per test worker, started at its first use) that has done those
imports once. The command still runs in a process of its own, through the ``gin3`` entry point
(:func:`gin3_env.cli.entry`): its own arguments, working folder, environment, signal handlers,
stdout and stderr, exit code, and a normal interpreter exit (threads joined, ``atexit`` run).

What a fork shares with the zygote is what was imported before it; so a test about what a new
interpreter imports or does at start-up (an import-time environment variable such as
``NUMBA_CACHE_DIR``, ``import gin3_env`` not importing numba, the README in a fresh
interpreter) starts a real ``python`` instead, as do the tests that signal a run's process group.
"""

from __future__ import annotations

import atexit
import contextlib
import gc
import json
import os
import selectors
import signal
import subprocess
import sys
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import IO, Any

FORK = sys.platform.startswith("linux")  # fork after importing torch is safe on Linux
PRELOAD = (
    "torch",
    "torch._dynamo",  # imported by the first optimizer otherwise: 1.6 s
    "torch.utils.tensorboard",
    "stable_baselines3",
    "sb3_contrib",
    "matplotlib",
    "numba",
    "gin3_env",
    "gin3_env.cli",
    "gin3_env.evaluation",
    "gin3_training.train",
    "gin3_training.ppo.train",
)


class _Zygote:
    """The client side: one zygote process, one command at a time."""

    def __init__(self) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, __file__],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env={**os.environ, "PYTHONIOENCODING": "utf-8"},
        )
        self._read(120.0)  # {"ready": true}: the imports are done

    def _read(self, timeout: float) -> dict[str, Any]:
        assert self.proc.stdout is not None
        with selectors.DefaultSelector() as sel:
            sel.register(self.proc.stdout, selectors.EVENT_READ)
            if not sel.select(timeout):
                raise TimeoutError
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError(f"the zygote process ended (exit code {self.proc.wait()})")
        message: dict[str, Any] = json.loads(line)
        return message

    def run(self, request: dict[str, Any], timeout: float) -> int:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(request) + "\n")
        self.proc.stdin.flush()
        pid = int(self._read(60.0)["pid"])
        try:
            return int(self._read(timeout)["returncode"])
        except TimeoutError:
            os.kill(pid, signal.SIGKILL)
            self._read(60.0)
            raise

    def close(self) -> None:
        if self.proc.poll() is None:
            assert self.proc.stdin is not None
            self.proc.stdin.close()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()


_zygote: _Zygote | None = None


def run(
    args: Sequence[str],
    *,
    cwd: str | os.PathLike[str] | None = None,
    env: Mapping[str, str] | None = None,
    timeout: float = 300.0,
) -> subprocess.CompletedProcess[str]:
    """``gin3 ARGS`` as ``subprocess.run([python, "-m", "gin3_env.cli", *ARGS], capture_output=True,
    text=True)`` would give it, in a fork of the zygote. ``env`` replaces the environment once the
    process has started (what the preloaded modules read at import keeps the zygote's values)."""
    global _zygote
    words = [str(a) for a in args]
    command = [sys.executable, "-m", "gin3_env.cli", *words]
    if not FORK:  # no fork (or not a safe one, as on macOS): a new interpreter, as subprocess.run starts
        return subprocess.run(command, cwd=cwd, env=None if env is None else dict(env), capture_output=True, text=True,
                              timeout=timeout)
    if _zygote is None or _zygote.proc.poll() is not None:
        _zygote = _Zygote()
        atexit.register(_zygote.close)
    with tempfile.TemporaryDirectory(prefix="gin3-forkrun-") as folder:
        out, err = Path(folder, "stdout"), Path(folder, "stderr")
        request = {
            "args": words,
            "cwd": str(cwd if cwd is not None else Path.cwd()),
            "env": dict(os.environ if env is None else env),
            "stdout": str(out),
            "stderr": str(err),
        }
        try:
            code = _zygote.run(request, timeout)
        except TimeoutError:
            raise subprocess.TimeoutExpired(command, timeout, _text(out), _text(err)) from None
        return subprocess.CompletedProcess(command, code, _text(out), _text(err))


def _text(path: Path) -> str:
    return path.read_text(encoding="utf-8", errors="replace") if path.exists() else ""


# ------------------------------------------------------------------ the zygote itself
def _send(stream: IO[str], message: dict[str, Any]) -> None:
    stream.write(json.dumps(message) + "\n")
    stream.flush()


def _child(request: dict[str, Any]) -> None:
    """In the fork: become ``python -m gin3_env.cli ARGS``; leaves by SystemExit (a normal exit)."""
    try:
        signal.signal(signal.SIGINT, signal.default_int_handler)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        os.dup2(os.open(os.devnull, os.O_RDONLY), 0)
        os.dup2(os.open(request["stdout"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644), 1)
        os.dup2(os.open(request["stderr"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644), 2)
        os.chdir(request["cwd"])
        sys.path[0] = os.getcwd()  # as `python -m` puts it first (the zygote's own was this file's folder)
        os.environ.clear()
        os.environ.update(request["env"])
        import gin3_env.cli as cli

        sys.argv = [cli.__file__, *request["args"]]
    except BaseException:  # the fork could not become the command: say so, never serve on
        import traceback

        traceback.print_exc()
        os._exit(70)
    cli.entry()


def serve() -> None:
    """Import :data:`PRELOAD`, then fork one child per request line read from stdin."""
    import importlib

    for name in PRELOAD:
        with contextlib.suppress(ImportError):  # an extra this environment lacks: commands import what they need
            importlib.import_module(name)
    gc.freeze()  # a fork's garbage collections leave the preloaded objects alone (and their pages shared)
    protocol = sys.stdout
    _send(protocol, {"ready": True})
    for line in sys.stdin:
        request = json.loads(line)
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:
            _child(request)  # SystemExit from here ends the fork, never the loop's next turn
        _send(protocol, {"pid": pid})
        _, status = os.waitpid(pid, 0)
        _send(protocol, {"returncode": os.waitstatus_to_exitcode(status)})


if __name__ == "__main__":
    serve()
