"""Atomic JSON files get the user's umask, like every other file a run writes."""

from __future__ import annotations

import json
import os
import stat
import sys
from pathlib import Path

import pytest

from gin3_env.files import save_json


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX permissions")
@pytest.mark.parametrize("umask", [0o022, 0o077, 0o002])
def test_save_json_mode_follows_the_umask(tmp_path: Path, umask: int) -> None:
    old = os.umask(umask)
    try:
        save_json(tmp_path / "data.json", {"a": [1, 2]})
        with open(tmp_path / "plain.zip", "wb") as fh:  # how a model zip is written
            fh.write(b"x")
    finally:
        os.umask(old)
    mode = stat.S_IMODE((tmp_path / "data.json").stat().st_mode)
    assert mode == 0o666 & ~umask == stat.S_IMODE((tmp_path / "plain.zip").stat().st_mode)
    assert json.loads((tmp_path / "data.json").read_text()) == {"a": [1, 2]}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["data.json", "plain.zip"]  # no temporary left


def test_save_json_replaces_and_cleans_up_on_failure(tmp_path: Path) -> None:
    path = tmp_path / "data.json"
    save_json(path, [1])
    save_json(path, [2])
    assert json.loads(path.read_text()) == [2]
    with pytest.raises(TypeError):
        save_json(path, {"bad": object()})
    assert json.loads(path.read_text()) == [2]
    assert [p.name for p in tmp_path.iterdir()] == ["data.json"]
