"""A headless Chromium driven through the DevTools protocol over a pipe (standard library only).

``chromium --remote-debugging-pipe`` reads protocol commands from its file
descriptor 3 and writes answers and events to 4, each a JSON message ended by a
NUL byte: no network port, no websocket, no driver to install. Enough of the
protocol for the viewer's test: open a page, evaluate JavaScript, press keys,
click at a point, take a screenshot.
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import select
import shutil
import subprocess
import time
from pathlib import Path
from typing import Any

BINARIES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
KEY_CODES = {"ArrowRight": 39, "ArrowLeft": 37, "Home": 36, "End": 35, " ": 32}


def find_chromium() -> str | None:
    """The first Chromium-like binary on PATH, or None."""
    for name in BINARIES:
        found = shutil.which(name)
        if found:
            return found
    return None


def chromium_flags(profile: Path) -> list[str]:
    return [
        "--headless",
        "--no-sandbox",  # the tests run as root in CI
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--no-first-run",
        "--hide-scrollbars",
        f"--user-data-dir={profile}",
        "--window-size=1300,900",
    ]


class Browser:
    """One headless Chromium; ``open(url)`` a page, then ``eval``, ``press``, ``click``, ``screenshot``."""

    def __init__(self, binary: str, profile: Path, timeout: float = 60.0) -> None:
        to_child, self._write = os.pipe()
        self._read_fd, from_child = os.pipe()

        def wire() -> None:  # in the child: the pipe ends on descriptors 3 and 4
            a, b = os.dup(to_child), os.dup(from_child)  # above 4, so neither dup2 below is a no-op
            os.dup2(a, 3)
            os.dup2(b, 4)

        self.process = subprocess.Popen(
            [binary, *chromium_flags(profile), "--remote-debugging-pipe", "about:blank"],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            preexec_fn=wire,
            close_fds=False,
        )
        os.close(to_child)
        os.close(from_child)
        self.timeout = timeout
        self._buffer = b""
        self._next_id = 0
        self._session: str | None = None

    # ------------------------------------------------------------ protocol
    def _message(self, deadline: float) -> dict[str, Any]:
        while b"\0" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("the browser did not answer in time")
            ready, _, _ = select.select([self._read_fd], [], [], left)
            if ready:
                chunk = os.read(self._read_fd, 1 << 16)
                if not chunk:
                    raise RuntimeError("the browser closed its end of the pipe")
                self._buffer += chunk
        message, self._buffer = self._buffer.split(b"\0", 1)
        return json.loads(message)

    def send(self, method: str, params: dict[str, Any] | None = None, *, browser: bool = False) -> dict[str, Any]:
        """One command (to the page's session unless ``browser``); its result, events skipped."""
        self._next_id += 1
        message: dict[str, Any] = {"id": self._next_id, "method": method, "params": params or {}}
        if not browser and self._session is not None:
            message["sessionId"] = self._session
        os.write(self._write, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + self.timeout
        while True:
            answer = self._message(deadline)
            if answer.get("id") == self._next_id:
                if "error" in answer:
                    raise RuntimeError(f"{method}: {answer['error']}")
                return answer.get("result", {})

    # ------------------------------------------------------------ page
    def open(self, url: str, ready: str = "true") -> None:
        """Open ``url`` in a new tab and wait until the JavaScript ``ready`` is true."""
        target = self.send("Target.createTarget", {"url": url}, browser=True)["targetId"]
        attached = self.send("Target.attachToTarget", {"targetId": target, "flatten": True}, browser=True)
        self._session = attached["sessionId"]
        self.wait_for(f"document.readyState === 'complete' && location.href.startsWith('file:') && ({ready})")

    def eval(self, expression: str) -> Any:
        result = self.send("Runtime.evaluate", {"expression": expression, "returnByValue": True})
        if "exceptionDetails" in result:
            raise RuntimeError(f"{expression}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def wait_for(self, expression: str, timeout: float | None = None) -> None:
        deadline = time.monotonic() + (timeout or self.timeout)
        while not self.eval(f"Boolean({expression})"):
            if time.monotonic() > deadline:
                raise TimeoutError(f"still false: {expression}")
            time.sleep(0.05)

    def text(self, element_id: str) -> str:
        return self.eval(f"document.getElementById({json.dumps(element_id)}).textContent.trim()")

    def press(self, key: str) -> None:
        """A real key press (keyDown, keyUp) as the keyboard sends it."""
        code = "Space" if key == " " else key
        params = {"key": key, "code": code, "windowsVirtualKeyCode": KEY_CODES[key]}
        self.send("Input.dispatchKeyEvent", {"type": "keyDown", **params})
        self.send("Input.dispatchKeyEvent", {"type": "keyUp", **params})

    def click(self, element_id: str) -> None:
        """A real mouse click at the middle of the element."""
        box = self.eval(
            f"(() => {{ const r = document.getElementById({json.dumps(element_id)}).getBoundingClientRect();"
            " return [r.x + r.width / 2, r.y + r.height / 2]; })()"
        )
        for kind in ("mousePressed", "mouseReleased"):
            self.send("Input.dispatchMouseEvent", {"type": kind, "x": box[0], "y": box[1], "button": "left",
                                                   "clickCount": 1})

    def screenshot(self, path: Path) -> None:
        path.write_bytes(base64.b64decode(self.send("Page.captureScreenshot", {"format": "png"})["data"]))

    def close(self) -> None:
        with contextlib.suppress(RuntimeError, TimeoutError, OSError):  # it may close the pipe before answering
            self.send("Browser.close", browser=True)
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        os.close(self._read_fd)
        os.close(self._write)

    def __enter__(self) -> Browser:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
