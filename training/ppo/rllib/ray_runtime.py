"""The Ray runtime of ``gin3 train --backend rllib``: start or join Ray, keep it quiet, stop it.

- :func:`connect` starts a local Ray instance bound to 127.0.0.1 only (no dashboard,
  no usage statistics, a small object store), or joins the cluster at ``address``
  after checking that its head answers (:func:`check_address`), sending the
  ``ray start`` token where there is one. It returns whether it started Ray: that
  caller stops it (:func:`shutdown`).
- :func:`quiet` keeps Ray's own warnings (deprecations inside Ray, its notes about
  the new API stack, GPU monitoring, token authentication) and the colour escapes
  of the lines it forwards from its worker processes out of the run's output;
  errors still come through.
- :func:`kill_local_ray` ends at once every process of a local instance this
  process started (the second Ctrl-C).

Nothing here knows about training; a problem the user can fix is a
:class:`RunError` (one line, exit code 2).
"""

from __future__ import annotations

import contextlib
import importlib.util
import logging
import os
import signal
import socket
import sys
import threading
from collections.abc import Callable
from typing import Any

OBJECT_STORE_BYTES = 256 * 1024**2
# Loggers of Ray's Python side (driver and workers) kept at ERROR: their warnings are about Ray itself.
RAY_LOGGERS = ("ray", "ray.rllib", "ray.tune", "ray.train", "ray.data")


class RunError(ValueError):
    """A problem with what the user asked for: reported as one line, exit code 2."""


def loopback_only() -> None:
    """Make a Ray instance started by this process bind to 127.0.0.1 only.

    Ray swaps a node address of 127.0.0.1 for the machine's address unless its
    single-machine mode is on (``RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0``, read once
    at import; set here for the child processes and, if Ray is already imported,
    on its constant). Usage statistics (a network call) are off as well."""
    os.environ["RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"] = "0"
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    constants = sys.modules.get("ray._private.ray_constants")
    if constants is not None:
        constants.ENABLE_RAY_CLUSTER = False  # type: ignore[attr-defined]


def quiet() -> None:
    """Ray's warnings and colour escapes out of the output (set before ``ray.init``).

    Lines forwarded from Ray's worker processes lose their colour codes
    (``RAY_COLOR_PREFIX=0``); Ray's and RLlib's Python loggers here pass errors
    only (:func:`connect` asks the same of every worker process of the job)."""
    os.environ.setdefault("RAY_COLOR_PREFIX", "0")
    for name in RAY_LOGGERS:
        logging.getLogger(name).setLevel(logging.ERROR)


def check_address(address: str, timeout: float = 3.0) -> None:
    """``RunError`` unless ``HOST:PORT`` accepts a TCP connection (``auto`` is left to Ray)."""
    if address == "auto":
        return
    host, sep, port = address.rpartition(":")
    if address.startswith("ray://") or not sep or not host or not port.isdigit():
        raise RunError(f"--address must be HOST:PORT of a Ray cluster's head (or auto), got {address!r}")
    try:
        with socket.create_connection((host.strip("[]"), int(port)), timeout=timeout):
            pass
    except OSError as exc:
        raise RunError(
            f"cannot reach a Ray cluster at {address}: {exc.strerror or exc} "
            "(start one with `ray start --head --port PORT`, or leave --address out for a local run)"
        ) from None


def _has_token() -> bool:
    if os.environ.get("RAY_AUTH_TOKEN"):
        return True
    path = os.environ.get("RAY_AUTH_TOKEN_PATH") or os.path.expanduser("~/.ray/auth_token")
    return os.path.isfile(path)


def connect(address: str = "", num_cpus: int = 0) -> bool:
    """Join the Ray cluster at ``address``, or (``""``) start a local instance on 127.0.0.1 with
    ``num_cpus`` logical CPUs (0: the machine's). True when this call started Ray (and its
    caller must stop it); False when Ray was already running in this process."""
    if address:
        check_address(address)
        if "RAY_AUTH_MODE" not in os.environ and _has_token():
            os.environ["RAY_AUTH_MODE"] = "token"  # `ray start` clusters use token authentication
    else:
        loopback_only()
    if importlib.util.find_spec("ray") is None:
        raise RunError("the RLlib backend needs Ray: pip install 'gin3_env[rllib]' "
                       "(in a virtual environment of its own, see the README)")
    quiet()
    import ray

    if ray.is_initialized():
        return False
    # errors only, in this process and in every worker process of the job (on a cluster too)
    logs: dict[str, Any] = {"logging_level": logging.ERROR,
                            "logging_config": ray.LoggingConfig(encoding="TEXT", log_level="ERROR")}
    try:
        if address:
            ray.init(address=address, **logs)
        else:
            ray.init(
                address="local",  # a new instance, never one that a stale /tmp/ray/ray_current_cluster names
                num_cpus=num_cpus or os.cpu_count() or 1,
                include_dashboard=False,
                object_store_memory=OBJECT_STORE_BYTES,
                _node_ip_address="127.0.0.1",
                **logs,
            )
    except (ConnectionError, RuntimeError) as exc:
        where = f"the Ray cluster at {address}" if address else "a local Ray instance"
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise RunError(f"cannot connect to {where}: {first}") from None
    quiet()  # ray.init set its loggers' levels again
    return True


def shutdown(keep_handlers: Callable[[], None] | None = None) -> None:
    """Stop the Ray instance (or leave the cluster) this process is connected to.

    ``ray.shutdown`` resets SIGTERM to its default action below Python early on (its core's
    signal handlers are uninstalled), then spends a second or so stopping processes; a SIGTERM
    then would kill this process without a word. With ``keep_handlers`` (called from the main
    thread), the shutdown runs in a helper thread while the main thread calls it every 10 ms, so a
    signal in that second still reaches the caller's handler."""
    import ray

    if keep_handlers is None or threading.current_thread() is not threading.main_thread():
        ray.shutdown()
        return
    failure: list[BaseException] = []

    def run() -> None:
        try:
            ray.shutdown()
        except BaseException as exc:  # raised again in the caller's thread
            failure.append(exc)

    helper = threading.Thread(target=run, name="gin3-ray-shutdown", daemon=True)
    helper.start()
    while helper.is_alive():
        keep_handlers()
        helper.join(timeout=0.01)
    keep_handlers()
    if failure:
        raise failure[0]


def _descendants(pid: int) -> set[int]:
    """The processes below ``pid``, from /proc (empty where there is none)."""
    children: dict[int, list[int]] = {}
    try:
        entries = [e for e in os.listdir("/proc") if e.isdigit()]
    except OSError:
        return set()
    for name in entries:
        try:
            with open(f"/proc/{name}/stat") as f:
                ppid = int(f.read().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        children.setdefault(ppid, []).append(int(name))
    found: set[int] = set()
    todo = [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            if child not in found:
                found.add(child)
                todo.append(child)
    return found


def kill_local_ray() -> None:
    """The second signal: SIGKILL the local Ray instance this process started (gcs, raylet, their
    agents and workers, all below this process), which an immediate exit would leave running for a
    while (Ray's agents notice a dead raylet only after some time)."""
    pids = _descendants(os.getpid())
    if not pids:  # no /proc: Ray's own list of the processes it started
        node = getattr(sys.modules.get("ray._private.worker"), "_global_node", None)
        if node is not None:
            node.kill_all_processes(check_alive=False, allow_graceful=False)
        return
    for pid in pids:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)
