"""Hostile inputs at the doors that are not run folders: outputs never name an input
(exploit, ladder, evaluate, the files inside a search spec included), the network ``.npz`` file read with
every check before allocation, the distillation sizes bounded, deep YAML refused at every config door, and
the AEC env's text render from its ``render_view``'s side. Each refusal is one line, no traceback."""

from __future__ import annotations

import io
import os
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from numpy.lib import format as npy

from gin3_env.cli import main
from gin3_env.engine.hand import BOX, TEAM
from gin3_env.files import InputFileError, read_npz
from gin3_env.policies.loading import GATE_MODEL
from gin3_env.policies.model_fields import MissingModelFileError, ModelFileError
from gin3_env.policies.net import STATE_SIZE, ActionNet, load_net


def one_line(err: str) -> str:
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1 and "Traceback" not in err, err
    return lines[0]


def run(capsys: pytest.CaptureFixture[str], argv: list[str]) -> tuple[int, str]:
    try:
        code = main(argv)
    except SystemExit as usage:
        code = int(usage.code or 0) if not isinstance(usage.code, str) else 2
    return code, capsys.readouterr().err


def gate_copy(tmp_path: Path, name: str = "g.json") -> Path:
    gate = tmp_path / name
    gate.write_text(GATE_MODEL.read_text())
    return gate


# ----------------------------------------------------------- (7) an input is never an output
def test_exploit_json_naming_the_gate_played_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    gate = gate_copy(tmp_path)
    before = gate.read_bytes()
    code, err = run(capsys, ["exploit", str(gate), "--hands", "1", "--json", str(gate)])
    assert code == 2 and "is an input of this command" in one_line(err)
    assert gate.read_bytes() == before


def test_exploit_json_naming_a_file_of_its_search_is_refused(tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    gate = gate_copy(tmp_path)
    before = gate.read_bytes()
    search = f"samples=4,min_samples=4,rollout_self={gate}"
    code, err = run(capsys, ["exploit", "heuristic", "--hands", "1", "--search", search, "--json", str(gate)])
    assert code == 2 and "is an input of this command" in one_line(err)
    assert gate.read_bytes() == before


def test_ladder_json_naming_a_file_of_its_exploit_search_is_refused(tmp_path: Path,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    gate = gate_copy(tmp_path)
    before = gate.read_bytes()
    code, err = run(capsys, ["ladder", "--players", "heuristic,random", "--hands", "2",
                             "--exploit-search", f"samples=4,min_samples=4,rollout_self={gate}", "--json", str(gate)])
    assert code == 2 and "is an input of this command" in one_line(err)
    assert gate.read_bytes() == before


def test_evaluate_json_naming_the_description_of_a_model_inside_a_search_is_refused(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    model, description = tmp_path / "m.zip", tmp_path / "m.json"  # a model file's description is read beside it
    model.write_bytes(b"zip")
    description.write_text("{}")
    code, err = run(capsys, ["evaluate", f"search:rollout_self={model}", "heuristic", "--hands", "1",
                             "--json", str(description)])
    assert code == 2 and "is an input of this command" in one_line(err)
    assert description.read_text() == "{}"


def test_evaluate_save_logs_over_the_gate_played_is_refused(tmp_path: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    logs = tmp_path / "logs"
    logs.mkdir()
    gate = gate_copy(logs, "hand_000_a_team.json")  # the name of the first log --save-logs writes
    before = gate.read_bytes()
    code, err = run(capsys, ["evaluate", str(gate), "random", "--hands", "1", "--save-logs", str(logs)])
    assert code == 2 and "is an input of this command" in one_line(err) and "--save-logs" in err
    assert gate.read_bytes() == before


# ----------------------------------------------------------- (11) the network file
def tiny_members(head: bool = False) -> dict[str, np.ndarray]:
    from gin3_env.kernels.net_features import ACTION_FEATURES

    def net(seed: int) -> ActionNet:
        rng = np.random.default_rng(seed)
        fa = len(ACTION_FEATURES)
        return ActionNet(np.zeros(STATE_SIZE), np.ones(STATE_SIZE), np.zeros(fa), np.ones(fa),
                         rng.normal(size=(4, STATE_SIZE)), rng.normal(size=(4, fa)), np.zeros(4),
                         rng.normal(size=(2, 4)), np.zeros(2), rng.normal(size=2), np.float32(0.0))

    whole = net(0)
    if head:
        whole = ActionNet(**{k: getattr(whole, k) for k in ("state_mean", "state_scale", "action_mean", "action_scale",
                                                             "Ws", "Wa", "b1", "W2", "b2", "w3", "b3")},
                          head=net(1), margin=0.5, top=2)
    with np.load(io.BytesIO(whole.to_bytes()), allow_pickle=False) as data:
        return {k: data[k] for k in data.files}


def write_zip(path: Path, members: dict[str, bytes]) -> Path:
    with zipfile.ZipFile(path, "w") as zf:
        for name, raw in members.items():
            zf.writestr(name, raw)
    return path


def npy_bytes(array: np.ndarray) -> bytes:
    buffer = io.BytesIO()
    np.save(buffer, array, allow_pickle=False)
    return buffer.getvalue()


def deep_meta(tmp_path: Path) -> Path:
    members = tiny_members()
    members["meta"] = np.array("[" * 100_000 + "]" * 100_000)
    return write_zip(tmp_path / "x.npz", {f"{k}.npy": npy_bytes(v) for k, v in members.items()})


def infinite_head_top(tmp_path: Path) -> Path:
    members = tiny_members(head=True)
    members["head_top"] = np.array(np.inf)
    return write_zip(tmp_path / "x.npz", {f"{k}.npy": npy_bytes(v) for k, v in members.items()})


def member_without_header(tmp_path: Path) -> Path:
    raw = {f"{k}.npy": npy_bytes(v) for k, v in tiny_members().items()}
    raw["b3.npy"] = b"no npy header here"
    return write_zip(tmp_path / "x.npz", raw)


def huge_declared_shape(tmp_path: Path) -> Path:
    raw = {f"{k}.npy": npy_bytes(v) for k, v in tiny_members().items()}
    header = io.BytesIO()
    npy.write_array_header_1_0(header, {"descr": "<f4", "fortran_order": False, "shape": (2**20, 2**20)})
    raw["Ws.npy"] = header.getvalue() + b"\0" * 64  # 2**40 elements declared, 64 bytes held
    return write_zip(tmp_path / "x.npz", raw)


def fifo(tmp_path: Path) -> Path:
    path = tmp_path / "x.npz"
    os.mkfifo(path)
    return path


def dev_zero(tmp_path: Path) -> Path:
    path = tmp_path / "x.npz"
    path.symlink_to("/dev/zero")
    return path


def folder(tmp_path: Path) -> Path:
    path = tmp_path / "x.npz"
    path.mkdir()
    return path


NET_DEFECTS: dict[str, tuple[Callable[[Path], Path], str]] = {
    "deep_meta": (deep_meta, "nests JSON too deeply"),
    "infinite_head_top": (infinite_head_top, "head_top is not a whole number"),
    "member_without_npy_header": (member_without_header, "magic string is not correct"),
    "huge_declared_shape": (huge_declared_shape, "declares shape (1048576, 1048576)"),
    "fifo": (fifo, "not a regular file"),
    "dev_zero": (dev_zero, "not a regular file"),
    "folder": (folder, "it is a folder"),
}


@pytest.mark.parametrize("defect", sorted(NET_DEFECTS))
def test_a_damaged_network_file_is_one_clear_line(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                  defect: str) -> None:
    make, said = NET_DEFECTS[defect]
    if defect == "fifo" and not hasattr(os, "mkfifo"):
        pytest.skip("no FIFOs here")
    path = make(tmp_path)
    with pytest.raises(ModelFileError) as info:
        load_net(path)
    assert not isinstance(info.value, MissingModelFileError) and "does not exist" not in str(info.value)
    assert said in str(info.value) and "\n" not in str(info.value) and str(path) in str(info.value)
    code, err = run(capsys, ["evaluate", str(path), "heuristic", "--hands", "1"])
    assert code == 2 and said in one_line(err) and "does not exist" not in err


def test_a_missing_network_file_still_does_not_exist(tmp_path: Path) -> None:
    with pytest.raises(MissingModelFileError, match="does not exist"):
        load_net(tmp_path / "none.npz")
    (tmp_path / "dangling.npz").symlink_to(tmp_path / "gone.npz")
    with pytest.raises(MissingModelFileError, match="does not exist"):
        load_net(tmp_path / "dangling.npz")


def test_read_npz_checks_headers_before_reading(tmp_path: Path) -> None:
    path = tmp_path / "a.npz"
    np.savez_compressed(path, a=np.arange(6, dtype=np.int64).reshape(2, 3), f=np.asfortranarray(np.eye(3)),
                        t=np.array("text"))
    data = read_npz(path, "arrays", 1 << 20)
    assert (data["a"] == np.arange(6).reshape(2, 3)).all() and (data["f"] == np.eye(3)).all()
    assert str(data["t"]) == "text" and data["a"].flags.writeable
    with pytest.raises(InputFileError, match="unknown member"):
        read_npz(path, "arrays", 1 << 20, names=("a", "f"))
    np.savez_compressed(tmp_path / "z.npz", z=np.zeros(100_000))  # a small file that inflates to 800 kB
    with pytest.raises(InputFileError, match="inflates past"):
        read_npz(tmp_path / "z.npz", "arrays", 10_000)
    np.save(tmp_path / "o.npy", np.array([{"x": 1}], dtype=object), allow_pickle=True)
    write_zip(tmp_path / "o.npz", {"o.npy": (tmp_path / "o.npy").read_bytes()})
    with pytest.raises(InputFileError, match="not plain numbers"):
        read_npz(tmp_path / "o.npz", "arrays", 1 << 20)
    header = io.BytesIO()
    npy.write_array_header_1_0(header, {"descr": "<f4", "fortran_order": False, "shape": (-1, -1)})
    write_zip(tmp_path / "n.npz", {"n.npy": header.getvalue() + b"\0" * 4})
    with pytest.raises(InputFileError, match="negative size"):
        read_npz(tmp_path / "n.npz", "arrays", 1 << 20)
    short = npy_bytes(np.arange(10.0))[:-8]  # a member that holds less than its header declares
    write_zip(tmp_path / "s.npz", {"s.npy": short})
    with pytest.raises(InputFileError, match="not the data it holds"):
        read_npz(tmp_path / "s.npz", "arrays", 1 << 20)


# ----------------------------------------------------------- (12) distillation sizes
def test_distill_hidden_sizes_are_bounded_in_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("torch")
    from gin3_training.distill.cli import main as distill_main
    from gin3_training.distill.config import MAX_HIDDEN, DistillConfig

    with pytest.raises(SystemExit) as info:
        distill_main(["--config", "quick", "--hidden", "[100000, 100000]"])
    assert info.value.code == 2 and f"1..{MAX_HIDDEN}" in one_line(capsys.readouterr().err)
    with pytest.raises(ValueError, match="hidden"):
        DistillConfig(hidden=[MAX_HIDDEN + 1, 8])
    assert DistillConfig(hidden=[MAX_HIDDEN, 8]).hidden == [MAX_HIDDEN, 8]


def test_distill_dagger_rounds_are_bounded_in_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("torch")
    from gin3_training.distill.cli import main as distill_main
    from gin3_training.distill.config import MAX_DAGGER_ROUNDS

    with pytest.raises(SystemExit) as info:
        distill_main(["--config", "quick", "--dagger-rounds", "1000000000"])
    assert info.value.code == 2 and f"at most {MAX_DAGGER_ROUNDS}" in one_line(capsys.readouterr().err)


# ----------------------------------------------------------- (14) deep YAML at every config door
DEEP_YAML = "a: " + "[" * 5000 + "]" * 5000 + "\n"


@pytest.mark.parametrize("command", [["train"], ["train-gate"]])
def test_a_deeply_nested_config_file_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                 command: list[str]) -> None:
    pytest.importorskip("yaml")
    deep = tmp_path / "deep.yaml"
    deep.write_text(DEEP_YAML)
    code, err = run(capsys, [*command, "--config", str(deep), "--out", str(tmp_path / "out")]
                    if command == ["train-gate"] else [*command, "--config", str(deep)])
    assert code == 2 and "nests more than" in one_line(err)


def test_the_rllib_config_reader_refuses_deep_yaml(tmp_path: Path) -> None:
    pytest.importorskip("yaml")
    from gin3_training.ppo.rllib.config import load_config

    deep = tmp_path / "deep.yaml"
    deep.write_text(DEEP_YAML)
    with pytest.raises(ValueError, match="nests more than"):
        load_config(str(deep))


def test_a_deeply_nested_flag_value_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("torch")
    from gin3_training.distill.cli import main as distill_main

    with pytest.raises(SystemExit) as info:
        distill_main(["--config", "quick", "--hidden", "[" * 5000 + "]" * 5000])
    assert info.value.code == 2 and "nests more than" in one_line(capsys.readouterr().err)


# ----------------------------------------------------------- the AEC env's text render
def _hidden(text: str, cards: list[int]) -> bool:
    from gin3_env.engine.cards import card_str

    return not any(card_str(c, symbols=True) in text for c in cards)


def test_aec_hand_text_render_shows_only_what_its_viewer_sees(capsys: pytest.CaptureFixture[str]) -> None:
    import gin3_env
    from gin3_env.engine.cards import cards_of
    from gin3_env.render import render_table

    for mode in ("ansi", "human"):
        env: Any = gin3_env.env(render_mode=mode, render_view="team_0")
        env.reset(seed=1)
        capsys.readouterr()
        out = env.render()
        text = out if mode == "ansi" else capsys.readouterr().out
        hand = env.unwrapped.hand
        assert text.strip() == render_table(hand, viewer=TEAM).strip() != render_table(hand, None).strip()
        assert _hidden(text, cards_of(hand.hands[BOX]))
    spectator: Any = gin3_env.env(render_mode="ansi")
    spectator.reset(seed=1)
    assert spectator.render() == render_table(spectator.unwrapped.hand, None)


def test_aec_match_text_render_shows_only_what_its_seat_sees() -> None:
    import gin3_env
    from gin3_env.engine.cards import cards_of

    env: Any = gin3_env.match_env(render_mode="ansi", render_view="player_0")
    env.reset(seed=1)
    match = env.unwrapped.match
    seat_side = BOX if match.hand_roles.box == 0 else TEAM
    other = match.hand.hands[1 - seat_side]
    text = env.render()
    assert _hidden(text, cards_of(other)) and "(hidden)" in text
