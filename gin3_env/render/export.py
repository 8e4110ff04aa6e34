"""``gin3 replay FILE --video out.mp4 --html out.html``: a saved log as a video and/or a viewer page."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from ..files import check_output_file
from .steps import log_steps

__all__ = ["export_replay"]


def export_replay(
    log: Mapping[str, Any],
    *,
    video: str | None = None,
    html: str | None = None,
    fps: float = 2.0,
    title: str = "gin3 replay",
    say: Callable[[str], None] = print,
    inputs: tuple[str, ...] = (),
) -> int:
    """Write the video and/or the HTML viewer of a hand or match log; returns the exit code (0).

    A bad log, file name or missing folder is a ``ValueError`` (checked before anything is
    written; an output naming one of ``inputs``, the log read, is refused too); a missing video writer is
    a ``ValueError`` naming the extra to install, and a write that fails a ``ValueError`` naming the file."""
    from .video import VIDEO_SUFFIXES

    if video is None and html is None:
        raise ValueError("give --video FILE and/or --html FILE")
    if video is not None:
        check_output_file(video, "--video", VIDEO_SUFFIXES, inputs=inputs)
    if html is not None:
        check_output_file(html, "--html", (".html", ".htm"), inputs=inputs)
    steps = log_steps(log)  # a bad log is refused before anything is written
    if html is not None:
        from .html import write_html

        try:
            write_html(html, log, title=title)
        except OSError as exc:
            raise ValueError(f"--html {html}: cannot write it ({exc.strerror or exc})") from None
        say(f"Viewer page ({len(steps)} steps) written to {html}: open it in a browser")
    if video is not None:
        from .video import write_video

        try:
            moves = write_video(video, steps, fps=fps)
        except ImportError as exc:
            raise ValueError(str(exc)) from None
        except OSError as exc:
            raise ValueError(f"--video {video}: cannot write it ({exc.strerror or exc})") from None
        say(f"Video ({moves} steps at {fps:g} per second) written to {video}")
    return 0
