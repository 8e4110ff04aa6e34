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
) -> int:
    """Write the video and/or the HTML viewer of a hand or match log; returns the exit code (0).

    A bad log, file name or missing folder is a ``ValueError`` (checked before anything is
    written); a missing video writer is a ``ValueError`` naming the extra to install."""
    from .video import VIDEO_SUFFIXES

    if video is None and html is None:
        raise ValueError("give --video FILE and/or --html FILE")
    if video is not None:
        check_output_file(video, "--video", VIDEO_SUFFIXES)
    if html is not None:
        check_output_file(html, "--html", (".html", ".htm"))
    steps = log_steps(log)  # a bad log is refused before anything is written
    if html is not None:
        from .html import write_html

        write_html(html, log, title=title)
        say(f"Viewer page ({len(steps)} steps) written to {html}: open it in a browser")
    if video is not None:
        from .video import write_video

        try:
            moves = write_video(video, steps, fps=fps)
        except ImportError as exc:
            raise ValueError(str(exc)) from None
        say(f"Video ({moves} steps at {fps:g} per second) written to {video}")
    return 0
