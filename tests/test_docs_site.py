"""The docs site's generated tables (docs/_ext/gin3_docs.py) read the code and agree with it.

The site itself is built by ``.ci/run`` (``sphinx-build -W``, warnings as errors); these checks run the
table writers without a build, so that a table that drifted from the code fails in the default run.
Skipped where Sphinx (the ``docs`` extra) is not installed.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

pytest.importorskip("sphinx")
pytest.importorskip("gymnasium")
pytest.importorskip("pettingzoo")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "docs" / "_ext"))

import gin3_docs

import gin3_env
from gin3_env.observation import LAYOUT, MATCH_LAYOUT

PETTINGZOO_IDS, GYMNASIUM_IDS, _ = gin3_docs.env_tables()
IDS = [*PETTINGZOO_IDS, *GYMNASIUM_IDS]


def test_every_id_has_its_page() -> None:
    pages = Path(__file__).resolve().parent.parent / "docs" / "envs"
    for env_id in IDS:
        named = [page for page in pages.glob("*.md") if f"{{gin3-env-header}} {env_id}\n" in page.read_text()]
        assert len(named) == 1, f"{env_id}: {len(named)} pages"


@pytest.mark.parametrize("env_id", IDS)
def test_observation_table_is_the_layout(env_id: str) -> None:
    table, problems = gin3_docs.observation_markdown(env_id)
    assert problems == []
    rows = table.splitlines()[2:]
    features = gin3_docs.own_features(env_id)
    if features is not None:  # a learner env with a feature vector of its own (the knock learner)
        assert [row.split("|")[3].strip() for row in rows] == list(features)
        return
    layout = MATCH_LAYOUT if "Match" in env_id or "match" in env_id else LAYOUT
    assert len(rows) == len(layout)
    for row, (name, start, stop, _) in zip(rows, map(gin3_docs.layout_row, layout), strict=True):
        index, feature, meaning = (cell.strip() for cell in row.strip("|").split("|"))
        assert (index, feature) == (gin3_docs.slice_label(start, stop), f"`{name}`") and meaning


def test_observation_table_reports_drift(monkeypatch: pytest.MonkeyPatch) -> None:
    """A layout row the docstrings place elsewhere is reported, not written."""
    name, start, stop, _ = gin3_docs.layout_row(LAYOUT[0])
    moved = ((name, start + 1, stop + 1), *LAYOUT[1:])
    monkeypatch.setattr(gin3_docs, "layout_for", lambda size: moved)
    _, problems = gin3_docs.observation_markdown("gin3/three_handed_gin-v0")
    assert any(f"{name!r} at {start}:{stop}, the layout at {start + 1}:{stop + 1}" in p for p in problems)


def test_action_table_covers_every_action() -> None:
    table, problems = gin3_docs.action_markdown()
    assert problems == []
    spans = [row.strip("|").split("|")[1].strip() for row in table.splitlines()[2:]]
    ids = [i for span in spans for i in (range(int(span), int(span) + 1) if ".." not in span
                                        else range(int(span.split("..")[0]), int(span.split("..")[1]) + 1))]
    assert ids == list(range(gin3_env.NUM_ACTIONS))


@pytest.mark.parametrize("env_id", IDS)
def test_header_and_signature_read_the_env(env_id: str) -> None:
    header = gin3_docs.header_markdown(env_id)
    features = gin3_docs.own_features(env_id)
    if features is not None:  # the knock learner: its own features, hold or knock
        assert f"`({len(features)},)`" in header and "`Discrete(2)`" in header
        return
    size = 380 if "atch" in env_id else 374
    assert f"`({size},)`" in header and "`Discrete(107)`" in header
    assert "knock_limit=10" in gin3_docs.signature_markdown(env_id)


@pytest.mark.parametrize(("env_id", "title"), [
    ("gin3/three_handed_gin-v0", "Arguments"), ("gin3/three_handed_gin-v0", "Rewards"),
    ("gin3/three_handed_gin-v0", "Legal Actions Mask"), ("gin3/three_handed_gin_match-v0", "Version History"),
    ("gin3/ThreeHandedGin-v0", "Arguments"), ("gin3/ThreeHandedGinMatch-v0", "Version history"),
])
def test_the_pages_sections_are_in_the_docstrings(env_id: str, title: str) -> None:
    body = gin3_docs.docstring_section(gin3_docs.env_docstring(env_id), title)
    assert body and "###" not in body


def test_a_missing_section_is_none() -> None:
    assert gin3_docs.docstring_section("### Rewards\n\nx\n", "Infos") is None
    assert gin3_docs.docstring_section("### Rewards\n\nx\n\n### State\n\ny", "Rewards") == "x"


def test_markdown_tables_become_list_tables() -> None:
    lines = ["Intro", "", "| a | b |", "|---|---|", "| ``x`` | y |", "", "after"]
    assert gin3_docs.markdown_tables_to_rst(lines) == [
        "Intro", "", ".. list-table::", "   :header-rows: 1", "",
        "   * - a", "     - b", "   * - ``x``", "     - y", "", "", "after"]


@pytest.mark.parametrize("env_id", IDS)
def test_each_env_page_opens_with_a_frame_the_package_draws(env_id: str) -> None:
    pages = Path(__file__).resolve().parent.parent / "docs" / "envs"
    page = next(p for p in pages.glob("*.md") if f"{{gin3-env-header}} {env_id}\n" in p.read_text())
    body = page.read_text().split("\n", 1)[1].lstrip()
    assert body.startswith(f"```{{gin3-env-frame}} {env_id}\n```"), f"{page.name} does not open with its frame"
    frame, caption = gin3_docs.env_frame(env_id)
    assert frame.dtype.name == "uint8" and frame.ndim == 3 and frame.shape[2] == 3 and frame.std() > 10
    assert "rgb_array" in caption


def test_the_summary_table_has_no_empty_header_row() -> None:
    header = gin3_docs.header_markdown("gin3/three_handed_gin-v0")
    assert "| | |" not in header and ":header-rows: 0" in header and "* - Import" in header
    lines = ["| | |", "|---|---|", "| Import | x |"]
    assert gin3_docs.markdown_tables_to_rst(lines) == [".. list-table::", "   :header-rows: 0", "",
                                                       "   * - Import", "     - x", ""]
