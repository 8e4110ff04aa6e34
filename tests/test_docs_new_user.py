"""What a new user reads first says what is true and shows that it worked: the docs front page, the getting-started
test notes, the pages of the players each command accepts, and the examples that train or check something."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"


def _blocks(page: Path, language: str = "python") -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", page.read_text(), flags=re.S)


def _section(page: Path, heading: str) -> str:
    text = page.read_text()
    start = text.index(f"\n## {heading}\n")
    end = text.find("\n## ", start + 1)
    return text[start:end if end > 0 else len(text)]


def _paragraphs(text: str) -> list[str]:
    """Prose paragraphs and list items, the code blocks and tables left out."""
    text = re.sub(r"```.*?```", "", text, flags=re.S)
    parts = re.split(r"\n\s*\n|\n(?=- )", text)
    return [p.strip() for p in parts if p.strip() and not p.lstrip().startswith(("|", "#"))]


def test_the_front_page_has_an_install_line_and_a_headline_result_with_its_command() -> None:
    index = (DOCS / "index.md").read_text()
    assert any(line.strip().startswith("pip install") for b in _blocks(DOCS / "index.md", "bash") for line in
               b.splitlines()), "docs/index.md has no install line"
    results = (DOCS / "results.md").read_text()
    figure = re.search(r"\*\*(\+\d+\.\d\d) points per hand, 95% CI (\[\+\d+\.\d\d, \+\d+\.\d\d\])\*\*", index)
    assert figure, "docs/index.md states no headline figure"
    command = re.search(r"`(gin3 evaluate net \w+ [^`]+)`", index)
    assert command and command[1] in results, "the headline's command is not the one docs/results.md gives"
    assert f"**{figure[1]} {figure[2]}**" in results, "the headline figure is not docs/results.md's"
    assert "](results.md)" in index


def test_the_front_page_does_not_repeat_its_table_of_contents_in_its_body() -> None:
    """A toctree with a caption shows in the page body under a plain capital heading; the sidebar has them all."""
    trees = re.findall(r"```\{toctree\}\n(.*?)```", (DOCS / "index.md").read_text(), flags=re.S)
    assert trees and all(":hidden:" in tree for tree in trees)


def test_the_getting_started_test_notes_are_short_sentences() -> None:
    setup = _section(DOCS / "getting_started.md", "Set up")
    for paragraph in _paragraphs(setup):
        assert len(paragraph.splitlines()) <= 4, f"a paragraph of {len(paragraph.splitlines())} lines:\n{paragraph}"
        for sentence in re.split(r"(?<=[.:])\s+(?=[A-Z`])", " ".join(paragraph.split())):
            assert len(sentence.split()) <= 40, f"a sentence of {len(sentence.split())} words: {sentence}"


def test_the_pages_of_exploit_and_ladder_accept_net_and_npz() -> None:
    for page in ("exploitability.md", "ladder.md"):
        text = " ".join((DOCS / page).read_text().split())
        assert "`net`" in text and "`.npz`" in text, page


def test_the_training_page_names_the_file_each_config_writes() -> None:
    """quick distils a network (best.npz); a PPO config writes best.zip."""
    text = (DOCS / "training.md").read_text()
    assert "runs/quick/best.zip" not in text
    for line in text.splitlines():
        if "best.zip" in line and "--config" in line:
            assert "--config quick" not in line and "--config distill" not in line, line


def test_the_training_and_openspiel_examples_end_by_printing_that_they_worked() -> None:
    """A block that trains for a minute, or runs OpenSpiel's checks, and prints nothing leaves the reader unsure."""
    blocks = [(page, b) for page in (ROOT / "README.md", DOCS / "training.md", DOCS / "vector.md")
              for b in _blocks(page) if "MaskablePPO(" in b or "random_sim_test" in b]
    assert len(blocks) >= 5
    for page, block in blocks:
        work = max(block.rfind(".learn("), block.rfind("random_sim_test("))
        assert block.find("print(", work) > work, f"{page.name}: nothing printed after the work:\n{block}"


def test_the_small_ladder_states_its_cpu_time_not_a_wall_time_promise() -> None:
    text = " ".join((DOCS / "ladder.md").read_text().split())
    assert "under a minute" not in text
    small = text[text.index("A small ladder"):]
    assert re.match(r"A small ladder.{0,200}?\b\d+ CPU-seconds", small), small[:300]


def test_the_libraries_page_covers_the_libraries_users_tried_and_the_dead_hands_of_random() -> None:
    text = " ".join((DOCS / "libraries.md").read_text().split())
    for library in ("BenchMARL", "IPPO", "IQL", "RLCard", "DQNAgent", "NFSPAgent", "skrl", "open_spiel.python.pytorch",
                    "Minari", "DataCollector", "PufferLib", "gin3 dataset"):
        assert library in text, library
    assert "no action masking of its own" in text and "ignores action masks" in text and "Gymnasium 1.x" in text
    assert "dead" in text and "`heuristic`" in text and "967 of its 1,000 hands dead" in text
    for figure in ("0 illegal actions of 2,753 and of 2,208", "0 illegal actions of 994"):  # a reviewer's, quoted
        assert figure in text
        assert "reviewer" in text[max(0, text.index(figure) - 80):text.index(figure)]
