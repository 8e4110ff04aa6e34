"""A saved hand or match as a video: one frame per move, ``.mp4`` (H.264) or ``.gif``.

``gin3 replay FILE --video out.mp4`` calls :func:`write_video`. The writers are
imageio's: MP4 through imageio-ffmpeg (its wheel ships an ffmpeg binary, so no
system ffmpeg is needed), GIF through Pillow. Both are in the ``video`` extra
(``pip install 'gin3_env[video]'``), with moviepy, which Gymnasium's
``RecordVideo`` uses to record the Gymnasium env (``render_mode="rgb_array"``).

The last frame of each hand (its showdown) is held for ``hold`` seconds. The file
is written beside its destination and moved there when complete.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence

import numpy as np

from ..files import atomic_output
from .frame import model_image
from .steps import Step

VIDEO_SUFFIXES = (".mp4", ".gif")
INSTALL_HINT = "pip install 'gin3_env[video]' (imageio and imageio-ffmpeg)"

__all__ = ["VIDEO_SUFFIXES", "video_frames", "write_video"]


def video_frames(steps: Sequence[Step], viewer: int | None = None) -> Iterator[tuple[np.ndarray, bool]]:
    """Each step's frame, with whether it ends a hand (to be held longer)."""
    for i, step in enumerate(steps):
        ends_hand = i == len(steps) - 1 or steps[i + 1].hand_number != step.hand_number
        yield np.asarray(model_image(step.model(viewer)), dtype=np.uint8), ends_hand


def _check(path: str | os.PathLike[str], fps: float, hold: float) -> str:
    suffix = os.path.splitext(os.fspath(path))[1].lower()
    if suffix not in VIDEO_SUFFIXES:
        raise ValueError(f"a video file name ends in {' or '.join(VIDEO_SUFFIXES)}, got {os.fspath(path)!r}")
    if not (isinstance(fps, int | float) and 0 < fps <= 60):
        raise ValueError(f"fps must be a number in (0, 60], got {fps!r}")
    if not (isinstance(hold, int | float) and 0 <= hold <= 60):
        raise ValueError(f"hold must be a number of seconds in [0, 60], got {hold!r}")
    return suffix


def write_video(
    path: str | os.PathLike[str],
    steps: Sequence[Step],
    *,
    fps: float = 2.0,
    hold: float = 3.0,
    viewer: int | None = None,
) -> int:
    """Write the steps as a video at ``path`` (``.mp4`` or ``.gif``); returns the number of moves shown.

    ``fps`` moves per second; ``viewer`` None shows both hands (0 or 1: that side's view)."""
    suffix = _check(path, fps, hold)
    if not steps:
        raise ValueError("nothing to record: the log has no steps")
    try:
        import imageio.v2 as imageio
        import imageio.v3 as iio
    except ImportError as exc:
        raise ImportError(f"writing videos needs imageio: {INSTALL_HINT} ({exc})") from None
    extra = round(hold * fps)
    with atomic_output(path) as tmp:
        if suffix == ".gif":
            frames, durations = [], []
            for frame, ends in video_frames(steps, viewer):
                frames.append(frame)
                durations.append(1000.0 / fps + (1000.0 * hold if ends else 0.0))
            iio.imwrite(tmp, frames, extension=".gif", plugin="pillow", is_batch=True, duration=durations, loop=0)
        else:
            try:
                import imageio_ffmpeg  # noqa: F401  (the ffmpeg binary)
            except ImportError as exc:
                raise ImportError(f"writing MP4 needs imageio-ffmpeg: {INSTALL_HINT} ({exc})") from None
            writer = imageio.get_writer(
                tmp, format="FFMPEG", mode="I", fps=fps, codec="libx264", pixelformat="yuv420p", macro_block_size=16
            )
            try:
                for frame, ends in video_frames(steps, viewer):
                    for _ in range(1 + (extra if ends else 0)):
                        writer.append_data(frame)
            finally:
                writer.close()
    return len(steps)
