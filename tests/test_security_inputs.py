"""Round 3 of hostile testing, inputs and outputs: every reader capped, every input never an output.

Gate files, replay logs, ``--deck-json`` and ``--rules`` go through one reader
(:func:`gin3_env.files.read_json`): a regular file only (a link to ``/dev/zero`` or a FIFO is
refused, not read), a size cap, a nesting cap. A gate's numbers are checked before any kernel sees
them. Outputs are tried before anything is played, never name an input, and a templated page is
filled in one pass. Each refusal is one line, exit 2."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from gin3_env.cli import main
from gin3_env.engine.hand import HandState
from gin3_env.evaluation import cli_main
from gin3_env.evaluation import logs as logs_module
from gin3_env.evaluation.ladder import cli_main as ladder_main
from gin3_env.files import InputFileError, read_json
from gin3_env.policies import HeuristicPolicy, load_policy
from gin3_env.policies.gate_file import MAX_GATES_BYTES, load_gated
from gin3_env.policies.loading import GATE_MODEL
from gin3_env.policies.model_fields import ModelFileError
from gin3_env.render.html import replay_html

DEEP = "[" * 100_000 + "]" * 100_000


def one_line(err: str) -> str:
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1 and "Traceback" not in err, err
    return lines[0]


def run(capsys: pytest.CaptureFixture[str], entry: Any, argv: list[str]) -> tuple[int, str]:
    try:
        code = entry(argv)
    except SystemExit as usage:
        code = int(usage.code or 0)
    return code, capsys.readouterr().err


def gate_data() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(GATE_MODEL.read_text())
    return data


def hand_log(tmp_path: Path, name: str = "hand.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(HandState.deal(rng=np.random.default_rng(3)).log()))
    return path


# ----------------------------------------------------- (10, 11) gate files
@pytest.mark.parametrize("change,match", [
    ({"W1": 5.0}, "W1 must be a list of rows"),
    ({"threshold": 10**400}, "threshold must be a finite number"),
    ({"b2": -10**400}, "b2 must be a finite number"),
    ({"options": {"min_deadwood": 10**30}}, "min_deadwood must be an int in 0..1000"),
    ({"options": {"min_deadwood": -10**30}}, "min_deadwood must be an int in 0..1000"),
    ({"heuristic": {"knock_limit": 10**30}}, "knock_limit must be an int in"),
    ({"heuristic": {"outs_weight": 10**400}}, "outs_weight must be finite"),
    ({"mean": [10**400] * 3}, "not arrays of numbers"),
])
def test_gate_numbers_out_of_range_are_refused_in_one_line(tmp_path: Path, change: dict[str, Any], match: str) -> None:
    path = tmp_path / "g.json"
    data = gate_data()
    if "heuristic" in change:  # the player's settings, beside its gates
        data.update(change)
    else:  # a field of its (knock) gate
        data["gates"][0].update(change)
    path.write_text(json.dumps(data))
    with pytest.raises(ModelFileError, match=match):
        load_gated(path)


def test_an_infinite_gate_scale_is_refused_like_a_nan_one(tmp_path: Path) -> None:
    data = gate_data()
    for bad in (float("inf"), float("nan")):
        gate = data["gates"][0]
        changed = {**data, "gates": [{**gate, "scale": [bad, *gate["scale"][1:]]}]}  # Infinity, NaN
        (tmp_path / "g.json").write_text(json.dumps(changed))
        with pytest.raises(ModelFileError, match="scale entries must be finite"):
            load_gated(tmp_path / "g.json")


def test_a_deep_or_huge_gate_file_is_refused_unread(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    deep = tmp_path / "deep.json"
    deep.write_text(DEEP)
    with pytest.raises(ModelFileError, match="nests JSON too deeply"):
        load_gated(deep)
    big = tmp_path / "big.json"
    with open(big, "wb") as fh:
        fh.truncate(MAX_GATES_BYTES + 1)
    with pytest.raises(ModelFileError, match="over the 8 MiB"):
        load_gated(big)
    for argv, entry in ((["evaluate", str(deep), "random", "--hands", "2"], None),
                        (["--players", f"heuristic,{deep}", "--hands", "2"], ladder_main),
                        (["play", "--opponent", str(deep)], main)):
        code, err = run(capsys, entry or (lambda a: cli_main(a[1:])), argv)
        assert code == 2 and "nests JSON too deeply" in one_line(err), err


# ----------------------------------------------------- (10, 12) logs, deck files, --rules
def test_a_log_that_is_a_device_or_a_fifo_is_refused_unread(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "zero.json").symlink_to("/dev/zero")
    os.mkfifo(tmp_path / "fifo.json")
    for name in ("zero.json", "fifo.json"):
        code, err = run(capsys, main, ["replay", str(tmp_path / name), "--all"])
        assert code == 2 and "only a regular file is read" in one_line(err)
    with pytest.raises(InputFileError, match="over the"):
        read_json(hand_log(tmp_path), "log", max_bytes=100)


def test_deep_json_in_a_log_a_deck_file_or_rules_is_one_line(tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    deep = tmp_path / "deep.json"
    deep.write_text(DEEP)
    for entry, argv in ((main, ["replay", str(deep), "--all"]), (main, ["play", "--deck-json", str(deep)]),
                        (cli_main, ["heuristic", "random", "--hands", "2", "--rules", DEEP])):
        code, err = run(capsys, entry, argv)
        assert code == 2 and "nests JSON too deeply" in one_line(err)


# ----------------------------------------------------- (13) the viewer page
@pytest.mark.parametrize("marker", ["@@SCRIPT@@", "@@STYLE@@", "@@DATA@@", "@@TITLE@@"])
def test_markers_in_a_title_or_a_log_are_not_substituted(marker: str) -> None:
    log = {**HandState.deal(rng=np.random.default_rng(3)).log(), "players": [marker, "<b>x</b>"]}
    page = replay_html(log, title=f"gin3 replay {marker}<i>.json")
    plain = replay_html(HandState.deal(rng=np.random.default_rng(3)).log(), title="t")
    assert page.count("<script") == plain.count("<script") and page.count("<style") == plain.count("<style")
    title = page[page.index("<title>"):page.index("</title>")]
    assert marker in title and "&lt;i&gt;" in title and "<i>" not in page


# ----------------------------------------------------- (8, 10) outputs
def test_json_naming_an_input_model_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    gate = tmp_path / "g.json"
    gate.write_text(GATE_MODEL.read_text())
    before = gate.read_bytes()
    code, err = run(capsys, cli_main, [str(gate), "random", "--hands", "2", "--json", str(gate)])
    assert code == 2 and "is an input of this command" in one_line(err)
    code, err = run(capsys, ladder_main, ["--players", f"heuristic,{gate}", "--hands", "2", "--json", str(gate)])
    assert code == 2 and "is an input of this command" in one_line(err)
    code, err = run(capsys, ladder_main, ["--players", f"heuristic,{gate}", "--hands", "2", "--plot", str(gate)])
    assert code == 2 and "--plot" in one_line(err)
    log = hand_log(tmp_path, "h.html")
    code, err = run(capsys, main, ["replay", str(log), "--html", str(log)])
    assert code == 2 and "is an input of this command" in one_line(err)
    code, err = run(capsys, main, ["play", "--deck-json", str(log), "--save-log", str(log)])
    assert code == 2 and "is an input of this command" in one_line(err)
    assert gate.read_bytes() == before and json.loads(log.read_text())


@pytest.mark.parametrize("flag", ["--json", "--plot"])
def test_ladder_outputs_that_cannot_be_written_are_refused_before_play(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], flag: str
) -> None:
    suffix = ".json" if flag == "--json" else ".png"
    for path in ("/proc/gin3-results" + suffix, str(tmp_path / ("r" * 300 + suffix))):
        code, err = run(capsys, ladder_main, ["--players", "heuristic,random", "--hands", "20000", flag, path])
        assert code == 2 and flag in one_line(err), err
        assert "cannot write in" in err or "longer than 255" in err


def test_replay_html_that_cannot_be_written_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, err = run(capsys, main, ["replay", str(hand_log(tmp_path)), "--html", "/proc/gin3-page.html"])
    assert code == 2 and "--html" in one_line(err)


# ----------------------------------------------------- (4) --save-logs swapped mid-write
def test_save_logs_swapped_for_a_link_mid_write_writes_nothing_outside(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    logs, outside = tmp_path / "logs", tmp_path / "outside"
    outside.mkdir()
    played = logs_module.play_deal
    calls = []

    def swap_after_the_first_log(*args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        if len(calls) == 2:  # the first log is written
            os.rename(logs, tmp_path / "logs.real")
            logs.symlink_to(outside)
        return played(*args, **kwargs)

    monkeypatch.setattr(logs_module, "play_deal", swap_after_the_first_log)
    heuristic = HeuristicPolicy()
    with pytest.raises(ValueError, match="moved or replaced"):
        logs_module.save_game_logs(logs, heuristic, load_policy("random", seed=1), hands=3)
    assert list(outside.iterdir()) == []
    assert [p.name for p in (tmp_path / "logs.real").iterdir()] == ["hand_000_a_team.json"]


# ----------------------------------------------------- (2, 3, 5, 10) gin3 train-gate
def last_line(err: str) -> str:
    """The error line after the progress lines of train-gate (on stderr too)."""
    assert "Traceback" not in err, err
    return err.strip().splitlines()[-1]


def gate_cli(capsys: pytest.CaptureFixture[str], out: Path, *flags: str) -> tuple[int, str]:
    from gin3_training.gates.train import main as gate_main

    return run(capsys, gate_main, ["--out", str(out), "--folds", "2", "--epochs", "1", "--hidden", "4", *flags])


def stages(seed: int, deals: int = 60) -> list[str]:
    """The ``--stages`` flag of one small knock stage."""
    return ["--stages", f"[{{decision: knock, deals: {deals}, seed: {seed}, shuffles: 2, chunk: 60}}]"]


def test_train_gate_refuses_a_folder_another_run_holds(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from gin3_training.run.lock import RunLock

    out = tmp_path / "gate"
    with RunLock(out, command="gin3 train-gate", check=()):
        code, err = gate_cli(capsys, out, *stages(5))
    assert code == 2 and f"in use by another gin3 train-gate (pid {os.getpid()})" in last_line(err)
    assert sorted(p.name for p in out.iterdir()) == [".lock"]


def test_train_gate_again_with_other_settings_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from gin3_training.gates.train import CONFIG_FILE

    out = tmp_path / "gate"
    code, err = gate_cli(capsys, out, *stages(7, 1), "--scorers", "[ridge]")
    assert code == 2 and "too few to fit a gate" in last_line(err)  # one deal: the config is recorded all the same
    (out / "labels_1_knock").mkdir(exist_ok=True)
    (out / "labels_1_knock" / "x").symlink_to(tmp_path)  # not reached: the config is checked first
    assert not (out / ".run-manifest.json").exists()
    recorded = json.loads((out / CONFIG_FILE).read_text())["config"]
    assert recorded["stages"][0]["seed"] == 7
    for flags in ([*stages(8, 1), "--scorers", "[ridge]"], [*stages(7, 1), "--scorers", "[mlp]"]):
        code, err = gate_cli(capsys, out, *flags)
        assert code == 2 and "holds a train-gate run made with" in last_line(err)
    assert json.loads((out / CONFIG_FILE).read_text())["config"] == recorded


def test_train_gate_never_follows_a_link_planted_in_out(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out, outside = tmp_path / "gate", tmp_path / "outside"
    out.mkdir()
    outside.mkdir()
    (out / "labels_1_knock").symlink_to(outside)
    code, err = gate_cli(capsys, out, *stages(1))
    assert code == 2 and "labels_1_knock is a symbolic link" in last_line(err)  # refused before the folder is held
    (out / "labels_1_knock").unlink()
    (out / "gated_1_knock.json").symlink_to(GATE_MODEL)
    code, err = gate_cli(capsys, out, *stages(1))
    assert code == 2 and "gated_1_knock.json is a symbolic link" in last_line(err)
    assert list(outside.iterdir()) == []


def test_train_gate_out_naming_a_file_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    file = tmp_path / "file"
    file.write_text("mine")
    for out in (file, file / "under"):
        code, err = gate_cli(capsys, out, *stages(1))
        assert code == 2 and "is a file, not a folder" in last_line(err)
    assert file.read_text() == "mine"
