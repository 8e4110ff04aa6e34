"""The ``gin3`` command line: --help everywhere, and ``play``/``replay`` driven through a pseudo-terminal."""

from __future__ import annotations

import importlib
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import forkrun
import pexpect
import pytest
from conftest import as_from_a_shell, stacked_deck

from gin3_env.engine.cards import card_str
from gin3_env.engine.hand import replay_hand as replay
from gin3_env.play.commands import read_decks, use_color, use_symbols

TEAM_MELDS = "AC 2C 3C 7D 7H 7S 9H TH JH"
BOX_JUNK = "8H 7C 4C KC QD 5S 2D 6H KS 9C"
KNOCK_DECK = " ".join(card_str(c) for c in stacked_deck(f"{TEAM_MELDS} 4D", BOX_JUNK, "5D"))
ANSI = re.compile(r"\x1b\[[0-9;]*m")
PROMPT = r"\n> "
PAUSE = r"\[Enter\][^\n]*: "


def run_cli(*args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return forkrun.run(args, timeout=timeout, env={**os.environ, "PYTHONIOENCODING": "utf-8"})


def spawn(*args: str, timeout: float = 20, env: dict[str, str] | None = None) -> pexpect.spawn:
    """``python -m gin3_env.cli ARGS`` on a pseudo-terminal."""
    environment = {**os.environ, "PYTHONIOENCODING": "utf-8", "LANG": "C.UTF-8"}
    environment.pop("NO_COLOR", None)
    environment.update(env or {})
    return pexpect.spawn(
        sys.executable,
        ["-m", "gin3_env.cli", *args],
        encoding="utf-8",
        timeout=timeout,
        env=environment,
        dimensions=(60, 200),
        preexec_fn=as_from_a_shell,
    )


def finish(child: pexpect.spawn) -> int:
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus is not None
    return child.exitstatus


def clean(text: str) -> str:
    return ANSI.sub("", text).replace("\r\n", "\n")


# ---------------------------------------------------------------- --help
def test_top_level_help_lists_subcommands() -> None:
    out = run_cli("--help")
    assert out.returncode == 0, out.stderr
    for name in ("train", "train-gate", "evaluate", "bench", "play", "replay"):
        assert name in out.stdout


def test_version() -> None:
    from importlib.metadata import version

    out = run_cli("--version")
    assert out.returncode == 0, out.stderr
    assert out.stdout == f"gin3 {version('gin3_env')}\n"


def test_console_script_help() -> None:
    script = Path(sys.executable).with_name("gin3")
    if not script.exists():
        pytest.skip("the gin3 console script is not installed in this environment")
    out = subprocess.run([str(script), "--help"], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0 and "usage: gin3" in out.stdout


@pytest.mark.parametrize("command", ["play", "replay"])
def test_own_subcommand_help(command: str) -> None:
    out = run_cli(command, "--help")
    assert out.returncode == 0, out.stderr
    assert f"usage: gin3 {command}" in out.stdout
    if command == "play":
        for option in (
            "--opponent",
            "--role",
            "--match",
            "--seed",
            "--deck",
            "--deck-json",
            "--no-color",
            "--save-log",
        ):
            assert option in out.stdout
        assert "--target-score" not in out.stdout  # hidden testing option
    else:
        assert "--all" in out.stdout


@pytest.mark.parametrize(
    ("command", "module", "function"),
    [
        ("train", "gin3_training.train", "main"),
        ("evaluate", "gin3_env.evaluation", "cli_main"),
        ("bench", "gin3_env.benchmarks", "main"),
        ("train-gate", "gin3_training.gates.train", "main"),
        ("exploit", "gin3_env.evaluation.exploit_cli", "cli_main"),
        ("dataset", "gin3_env.evaluation.dataset", "cli_main"),
    ],
)
def test_delegated_subcommand_help(command: str, module: str, function: str) -> None:
    out = run_cli(command, "--help")
    assert out.returncode == 0, out.stderr
    text = out.stdout + out.stderr
    try:
        available = callable(getattr(importlib.import_module(module), function, None))
    except ImportError:
        available = False
    if available:
        assert "usage:" in text
    else:
        assert f"gin3 {command} is not available" in text


def test_bad_arguments_are_usage_errors(tmp_path: Path) -> None:
    out = run_cli("play", "--role", "dealer")
    assert out.returncode == 2 and "invalid choice" in out.stderr
    out = run_cli("play", "--deck", "AC 2C")
    assert out.returncode == 2 and "deck must hold all 52 cards" in out.stderr
    out = run_cli("play", "--opponent", "nonsense")
    assert out.returncode == 2 and "unknown policy 'nonsense'" in out.stderr
    out = run_cli("play", "--role", "sitter")
    assert out.returncode == 2 and "--role sitter needs --match" in out.stderr
    out = run_cli("replay", str(tmp_path / "missing.json"))
    assert out.returncode == 2 and "no such file" in out.stderr


# ------------------------------------------------------------ play on a pty
def choose_number(moves: str) -> str:
    """Draw, pass on the upcard, knock when possible, else the first discard: as numbers."""
    for pattern in (r"\[(1)\] draw", r"\[(2)\] pass", r"\[(\d+)\] knock", r"\[(\d+)\] discard"):
        found = re.findall(pattern, moves)
        if found:
            return found[0]
    raise AssertionError(f"no move found in {moves!r}")


def choose_words(moves: str) -> str:
    """The same person, typing words and lower-case cards."""
    if "[1] draw" in moves:
        return "d"
    if "[2] pass" in moves:
        return "pass"
    knock = re.findall(r"\] knock, discard (\w\w)", moves)
    if knock:
        return f"knock {knock[0].lower()}"
    return re.findall(r"\] discard (\w\w)", moves)[0].lower()


def play_through(child: pexpect.spawn, choose: object, limit: int = 200) -> str:
    """Answer every prompt with ``choose(moves)`` until the program ends; returns the whole output."""
    seen = []
    for _ in range(limit):
        index = child.expect([PROMPT, PAUSE, pexpect.EOF])
        seen.append(child.before)
        if index == 2:
            return clean("".join(seen))
        if index == 1:
            child.sendline("s" if "watch move by move" in child.after else "")
            continue
        moves = clean(child.before).rsplit("Your move", 1)[-1]
        child.sendline(choose(moves))  # type: ignore[operator]
    raise AssertionError("the game did not end")


@pytest.mark.parametrize(("choose", "role"), [(choose_number, "team"), (choose_words, "box")])
def test_play_whole_hand(choose: object, role: str) -> None:
    child = spawn("play", "--opponent", "random", "--seed", "4", "--role", role, "--no-color", "--ascii")
    text = play_through(child, choose)
    assert finish(child) == 0
    assert "== Showdown ==" in text
    assert "Your hand:" in text
    opponent = "Box" if role == "team" else "Team"
    assert f"{opponent} draws from the stock" in text or f"{opponent} takes" in text
    assert "Traceback" not in text


def interrupt(child: pexpect.spawn) -> None:
    """Ctrl-C at the prompt, as a person presses it: a moment after the prompt shows (CPython sees a SIGINT that
    lands between ``input()`` writing its prompt and blocking in its read only when that read returns)."""
    time.sleep(0.2)
    child.sendintr()


def test_ctrl_c_in_play_exits_130_and_quit_exits_0() -> None:
    """``gin3 play`` ends on Ctrl-C as every other command does: a goodbye, exit 130 (``quit`` stays 0)."""
    child = spawn("play", "--opponent", "random", "--seed", "1", "--no-color", "--ascii")
    child.expect(PROMPT)
    interrupt(child)
    if child.expect([pexpect.EOF, pexpect.TIMEOUT]) == 1:
        masks = Path(f"/proc/{child.pid}/status").read_text() if Path(f"/proc/{child.pid}/status").exists() else ""
        child.terminate(force=True)
        pytest.fail("gin3 play ignored Ctrl-C; its signal masks: "
                    + " ".join(line for line in masks.splitlines() if line.startswith("Sig")))
    assert finish(child) == 130
    child = spawn("play", "--opponent", "random", "--seed", "1", "--no-color", "--ascii")
    child.expect(PROMPT)
    child.sendline("quit")
    assert finish(child) == 0


def test_garbage_input_then_quit() -> None:
    child = spawn("play", "--opponent", "random", "--seed", "1", "--no-color", "--ascii")
    child.expect(PROMPT)
    child.sendline("blah blah")
    child.expect(r"Sorry: I don't understand 'blah blah' \(type help\)\. Moves 1 to 2; Enter lists them again\.")
    child.expect(PROMPT)
    assert "[1]" not in child.before  # one line of refusal, not the menu again
    child.sendline("")
    child.expect(r"\[1\] take \w\w \(the upcard\)")  # Enter lists the moves again
    child.expect(PROMPT)
    child.sendline("7x")
    child.expect("Sorry: ")
    child.expect(PROMPT)
    child.sendline("42")
    child.expect(r"Sorry: 42 is not one of the listed moves\.")
    child.expect(PROMPT)
    child.sendline("help")
    child.expect("knock 7S")
    child.expect(PROMPT)
    child.sendline("quit")
    child.expect("Goodbye.")
    assert finish(child) == 0


def test_eof_exits_cleanly() -> None:
    child = spawn("play", "--opponent", "random", "--no-color")
    child.expect(PROMPT)
    child.sendeof()
    child.expect("Goodbye.")
    assert finish(child) == 0


def test_stacked_deck_showdown_and_saved_log_replay(tmp_path: Path) -> None:
    log = tmp_path / "hand.json"
    child = spawn("play", "--deck", KNOCK_DECK, "--no-color", "--ascii", "--save-log", str(log))
    child.expect(PROMPT)
    child.sendline("take")
    child.expect(PROMPT)
    child.sendline("5d")
    child.expect(r"you cannot discard the card you just took \(5D\)")
    child.expect(PROMPT)
    child.sendline("knock 7s")
    child.expect(r"knock needs deadwood <= 10: discarding 7S leaves 23")
    child.expect(PROMPT)
    child.sendline("knock 4d")
    child.expect(pexpect.EOF)
    text = clean(child.before)
    child.close()
    assert child.exitstatus == 0
    expected = "\n".join(
        [
            "== Showdown ==",
            "You knock, discarding 4D.",
            "You spread: [AC 2C 3C] [7D 7H 7S] [9H TH JH]; deadwood 5D = 5",
            "Box spreads: no melds; deadwood 9C KC 2D QD 6H 5S KS = 52",
            "Box lays off: 4C on [AC 2C 3C], 7C on [7D 7H 7S], 8H on [9H TH JH]",
            "Deadwood: You 5, Box 52",
            "Result: knock: You score 52 - 5 = 47",
        ]
    )
    assert expected in text
    assert f"Log saved to {log}" in text
    saved = json.loads(log.read_text())
    assert replay(saved).result.points == 47  # type: ignore[union-attr]
    assert saved["players"] == ["you", "heuristic"]  # the team, the box

    out = run_cli("replay", str(log), "--all", "--ascii")
    assert out.returncode == 0, out.stderr
    assert "#1: Team (you) takes 5D from the discard pile" in out.stdout
    assert "#2: Team (you) knocks, discarding 4D" in out.stdout
    assert "Box (heuristic) hand: 4C 7C 9C KC 2D QD 6H 8H 5S KS" in out.stdout  # both hands visible
    assert (
        expected.replace("You spread", "Team (you) spreads")
        .replace("Box spreads", "Box (heuristic) spreads")
        .replace("You knock", "Team knocks")
        .replace("You 5", "Team 5")
        .replace("You score", "Team scores")
        in out.stdout
    )

    child = spawn("replay", str(log), "--ascii", "--no-color")
    child.expect(PAUSE)
    child.sendline("")
    child.expect(re.escape("#1: Team (you) takes 5D"))
    child.expect(PAUSE)
    child.sendline("q")
    child.expect("Goodbye.")
    assert finish(child) == 0


def test_colors_only_on_a_terminal_without_no_color() -> None:
    child = spawn("play", "--deck", KNOCK_DECK, "--opponent", "random")
    child.expect(PROMPT)
    assert "\x1b[31m" in child.before  # red hearts/diamonds on a terminal
    child.sendline("q")
    finish(child)
    child = spawn("play", "--deck", KNOCK_DECK, "--opponent", "random", env={"NO_COLOR": "1"})
    child.expect(PROMPT)
    assert "\x1b[" not in child.before and "♥" in child.before
    child.sendline("q")
    finish(child)
    out = run_cli("play", "--deck", KNOCK_DECK, "--opponent", "random")  # not a terminal: EOF at once
    assert out.returncode == 0 and "\x1b[" not in out.stdout and "Goodbye." in out.stdout


@pytest.mark.parametrize("role", ["team", "sitter"])
def test_match_runs_to_the_end(role: str, tmp_path: Path) -> None:
    log = tmp_path / "match.json"
    child = spawn(
        "play",
        "--match",
        "--target-score",
        "10",
        "--seed",
        "2",
        "--role",
        role,
        "--opponent",
        "heuristic",
        "--no-color",
        "--ascii",
        "--save-log",
        str(log),
        timeout=30,
    )
    text = play_through(child, choose_number, limit=400)
    assert finish(child) == 0
    assert re.search(r"Match over: (You win|Player \d wins) with \d+ points\.", text)
    if role == "sitter":
        assert "You are the sitter this hand" in text
    saved = json.loads(log.read_text())
    assert saved["winner"] is not None and max(saved["scores"]) >= 10
    out = run_cli("replay", str(log), "--all", "--ascii")
    assert out.returncode == 0, out.stderr
    assert saved["players"] == ["you", "heuristic", "heuristic"]  # by seat: the person is seat 0
    assert f"Match over: Seat {saved['winner']} ({saved['players'][saved['winner']]}) wins" in out.stdout


# ------------------------------------------------------------- in-process
def test_read_decks_forms(tmp_path: Path) -> None:
    deck = stacked_deck(f"{TEAM_MELDS} 4D", BOX_JUNK, "5D")
    assert read_decks(KNOCK_DECK, None) == [deck]
    assert read_decks(None, None) == []
    path = tmp_path / "deck.json"
    for data, expected in [
        (deck, [deck]),
        ([card_str(c) for c in deck], [deck]),
        ({"deck": deck, "actions": []}, [deck]),
        ({"decks": [deck, deck[::-1]]}, [deck, deck[::-1]]),
    ]:
        path.write_text(json.dumps(data))
        assert read_decks(None, str(path)) == expected
    path.write_text(json.dumps(deck[:-1]))
    with pytest.raises(ValueError, match="52 cards"):
        read_decks(None, str(path))
    path.write_text("{")
    with pytest.raises(ValueError, match="cannot read --deck-json"):
        read_decks(None, str(path))


class FakeStream:
    def __init__(self, tty: bool, encoding: str = "utf-8") -> None:
        self.tty, self.encoding = tty, encoding

    def isatty(self) -> bool:
        return self.tty


def test_color_and_symbol_choice(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("NO_COLOR", raising=False)
    assert use_color(False, FakeStream(True))
    assert not use_color(True, FakeStream(True))
    assert not use_color(False, FakeStream(False))
    monkeypatch.setenv("NO_COLOR", "1")
    assert not use_color(False, FakeStream(True))
    assert use_symbols(False, FakeStream(True))
    assert not use_symbols(False, FakeStream(True, "ascii"))
    assert not use_symbols(True, FakeStream(True))


@pytest.mark.parametrize(("argv", "extra"), [(["train"], "train"), (["bench"], "bench"),
                                             (["train", "--backend", "rllib"], "rllib")])
def test_a_command_whose_extra_is_missing_names_that_extra_only(
    argv: list[str], extra: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """In the RLlib virtual environment, gin3 train (SB3) names the 'train' extra, not extras that clash with
    Ray's pins."""
    import gin3_env.cli as cli

    real = cli.importlib.import_module

    def missing(name: str, *args: object) -> object:
        if name.startswith(("gin3_training", "gin3_env.benchmarks")):
            raise ImportError(f"No module named {name!r} (as without the extra)")
        return real(name, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(cli.importlib, "import_module", missing)
    assert cli.main(argv) == 2
    err = capsys.readouterr().err
    assert f"pip install 'gin3_env[{extra}]'" in err and f"pip install -e '.[{extra}]'" in err, err
    assert "train,bench" not in err and all(f"[{other}]" not in err for other in {"train", "bench", "rllib"} - {extra})


def test_a_signal_after_a_stopped_run_printed_its_report_keeps_the_exit_code() -> None:
    """A run stopped by a signal exits at once through the ``gin3`` entry point: Python's finalization
    (a second or more with torch and Ray loaded) runs with the default signal actions."""
    script = ("import atexit, gin3_env.cli as cli\n"
              "atexit.register(lambda: print('finalized', flush=True))\n"
              "cli.main = lambda argv=None: {code}\n"
              "cli.entry()\n")
    for code, finalized in ((143, False), (130, False), (0, True), (2, True)):
        done = subprocess.run([sys.executable, "-c", script.format(code=code)], capture_output=True, text=True,
                              timeout=60, env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parent.parent)})
        assert done.returncode == code, done.stderr[-2000:]
        assert ("finalized" in done.stdout) is finalized, (code, done.stdout)


def blocked(modules: list[str], *argv: str) -> subprocess.CompletedProcess[str]:
    """``gin3 ARGV`` in a fresh interpreter where ``modules`` cannot be imported (an install without them)."""
    code = ("import sys\n" + "".join(f"sys.modules[{m!r}] = None\n" for m in modules)
            + "from gin3_env.cli import main\nsys.exit(main(sys.argv[1:]))")
    return subprocess.run([sys.executable, "-c", code, *argv], capture_output=True, text=True, timeout=300)


def test_a_misspelt_policy_gets_did_you_mean(capsys: pytest.CaptureFixture[str]) -> None:
    from gin3_env.cli import main

    assert main(["evaluate", "gated", "heuristc", "--hands", "2"]) == 2
    err = capsys.readouterr().err
    assert "unknown policy 'heuristc' (did you mean 'heuristic'?)" in err and len(err.strip().splitlines()) == 1


def test_a_json_file_that_is_not_a_gate_is_named_in_a_sentence(tmp_path: Path) -> None:
    from gin3_env.policies.gate_file import load_gated

    bad = tmp_path / "bad3.json"
    bad.write_text('{"a": 1}')
    with pytest.raises(ValueError) as info:
        load_gated(bad)
    said = "it names no format, expected 'gin3-gates'"
    assert str(info.value) == f"model file {bad} is not a gated player's model ({said})"
    assert "None" not in str(info.value)


def test_an_npz_file_that_is_not_a_network_says_no_format_not_none(tmp_path: Path) -> None:
    """A model-file error names what is missing, never "format None"."""
    import json

    import numpy as np

    from gin3_env.policies.net import MEMBERS, net_from_npz

    arrays = {m: np.zeros(1) for m in MEMBERS}
    arrays["meta"] = np.array(json.dumps({"version": 1}))
    with pytest.raises(ValueError) as info:
        net_from_npz(arrays, "bad.npz")
    assert "None" not in str(info.value) and "names no format" in str(info.value), info.value


def test_a_player_whose_extra_is_missing_names_the_extra() -> None:
    done = blocked(["torch"], "evaluate", "ppo", "heuristic", "--hands", "2")
    assert done.returncode == 2
    assert "the player 'ppo' needs torch, which is not installed: pip install 'gin3_env[train]'" in done.stderr


def test_ladder_without_open_spiel_leaves_its_players_out_with_a_line() -> None:
    done = blocked(["pyspiel"], "ladder", "--players", "random,heuristic,openspiel-simple", "--hands", "2",
                   "--no-progress", "--no-plot")
    assert done.returncode == 0, done.stderr
    assert "leaving out openspiel-simple: pyspiel is not installed (pip install 'gin3_env[openspiel]'" in done.stderr
    assert "random" in done.stdout and "openspiel-simple" not in done.stdout
