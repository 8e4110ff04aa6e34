"""One sentence per shipped player, the same everywhere: the table in the code
(the rows of ``gin3_env.policies.registry``) is what the CLI's help prints, and the README, the docs and
the loader's own table state each player with exactly that sentence."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from gin3_env.policies import loading, registry
from gin3_env.policies.registry import player_sentences

PLAYERS = player_sentences()

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", ROOT / "docs" / "evaluation.md", ROOT / "docs" / "getting_started.md"]
# how the players were described before the one table: none of these may come back
STALE = ("heuristic with a knock gate", "heuristic with its learned knock", "fit the knock gate of the",
         "with learned knock, draw and discard gates")


def flat(text: str) -> str:
    """The text as a reader sees it: no Markdown or reST quotes, one space between words."""
    return re.sub(r"\s+", " ", text.replace("``", "").replace("`", "").replace('"', ""))


@pytest.mark.parametrize("page", PAGES, ids=[p.name for p in PAGES])
def test_each_page_states_each_player_with_the_tables_sentence(page: Path) -> None:
    text = flat(page.read_text())
    missing = [name for name, sentence in PLAYERS.items() if f"{name}: {sentence}" not in text]
    assert not missing, f"{page.relative_to(ROOT)} does not state {missing} with the sentence of PLAYERS"


def test_the_loaders_table_uses_the_sentences() -> None:
    text = flat(registry.__doc__ or "")
    for name, sentence in PLAYERS.items():
        assert sentence in text, name


def test_the_cli_help_prints_each_players_sentence() -> None:
    for command in (["evaluate", "--help"], ["play", "--help"]):
        done = subprocess.run([sys.executable, "-m", "gin3_env", *command], capture_output=True, text=True,
                              timeout=120, cwd=ROOT)
        assert done.returncode == 0, done.stderr
        text = flat(done.stdout)
        for name, sentence in PLAYERS.items():
            assert f"{name}: {sentence}" in text, (command, name)
    done = subprocess.run([sys.executable, "-m", "gin3_env", "--help"], capture_output=True, text=True, timeout=120,
                          cwd=ROOT)
    assert PLAYERS["gated"] in flat(done.stdout)  # train-gate's line names what it makes
    done = subprocess.run([sys.executable, "-m", "gin3_env", "train-gate", "--help"], capture_output=True, text=True,
                          timeout=120, cwd=ROOT)
    assert done.returncode == 0 and PLAYERS["gated"] in flat(done.stdout), done.stderr


def test_no_old_description_is_left() -> None:
    # where players are described to a user (a gate run's provenance names the stage it wrote, not a player)
    files = [*ROOT.glob("*.md"), *(ROOT / "docs").rglob("*.md"), ROOT / "gin3_env" / "cli.py",
             *(ROOT / "gin3_env" / "policies").glob("*.py"), *(ROOT / "gin3_env" / "evaluation").glob("*.py"),
             *(ROOT / "gin3_env" / "play").glob("*.py")]
    for path in files:
        if "_build" in path.parts:
            continue
        text = flat(path.read_text())
        for phrase in STALE:
            assert phrase not in text, f"{path.relative_to(ROOT)}: {phrase!r}"


def test_a_new_player_is_one_more_row(monkeypatch: pytest.MonkeyPatch) -> None:
    from dataclasses import replace

    monkeypatch.setitem(registry.PLAYER_ROWS, "net", replace(registry.PLAYER_ROWS["net"],
                                                             description="a network acting alone"))
    assert "net: a network acting alone" in loading.policy_spec_help()
    assert "'net'" in str(loading.unknown_policy("nett"))
