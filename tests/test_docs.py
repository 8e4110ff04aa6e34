"""The documents the code cites ship with the repository, and every citation resolves.

Code, tests and the README cite the rules as ``§5.3`` (a section of ``docs/rules.md``) and the
design as ``docs/design.md``; no file outside the repository is cited, and no development history
(issue numbers) is written into code, comments or docstrings.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SOURCES = sorted(path for folder in ("gin3_env", "tests", "training") for path in ROOT.joinpath(folder).rglob("*.py"))
PAGES = sorted(path for path in ROOT.joinpath("docs").rglob("*.md") if "_build" not in path.parts)
TEXTS = [*SOURCES, *sorted(ROOT.joinpath("docs").rglob("*.py")), ROOT / "README.md", *PAGES]
SECTION = re.compile(r"§\s?(\d+(?:\.\d+)?)")
HEADING = re.compile(r"^#{2,3} (\d+(?:\.\d+)?)\.? ", re.MULTILINE)
THIS_FILE = Path(__file__).resolve()


def rules_sections() -> set[str]:
    return set(HEADING.findall((ROOT / "docs" / "rules.md").read_text()))


def test_rules_page_is_numbered() -> None:
    sections = rules_sections()
    assert {"1", "4.3", "5", "5.3", "6.1", "6.2", "6.3", "7", "8", "9"} <= sections


def test_every_section_cited_resolves() -> None:
    sections = rules_sections()
    missing = []
    for path in TEXTS:
        for number, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
            for cited in SECTION.findall(line):
                if cited not in sections:
                    missing.append(f"{path.relative_to(ROOT)}:{number}: §{cited}")
    assert not missing, "citations with no section in docs/rules.md:\n" + "\n".join(missing)


def test_no_document_outside_the_repository_is_cited() -> None:
    outside = re.compile(r"\b(DESIGN|RULES)(\.md)?\b(?! *=)")
    found = []
    for path in TEXTS:
        if path.resolve() == THIS_FILE:
            continue
        for number, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
            if outside.search(line) and "RULES_EXAMPLE" not in line:
                found.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert not found, "cite docs/rules.md or docs/design.md instead:\n" + "\n".join(found)


def test_design_page_ships() -> None:
    design = (ROOT / "docs" / "design.md").read_text()
    for heading in ("Layers", "Observation", "Batched core", "Model files"):
        assert heading.lower() in design.lower()


def test_no_issue_numbers_in_code() -> None:
    history = re.compile(r"\b[Ii]ssue[s]? ?#?\d+|\(#\d+\)")
    found = []
    for path in SOURCES:
        if path.resolve() == THIS_FILE:
            continue
        for number, line in enumerate(path.read_text().splitlines(), 1):
            if history.search(line):
                found.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert not found, "development history belongs in git, not the code:\n" + "\n".join(found)


def toctree_entries(page: Path) -> set[str]:
    """The documents a page's ``{toctree}`` blocks list, as paths relative to the docs folder, without ``.md``."""
    entries = set()
    for block in re.findall(r"```\{toctree\}\n(.*?)```", page.read_text(), flags=re.S):
        for line in block.splitlines():
            line = line.strip()
            if line and not line.startswith(":"):
                entries.add(str((page.parent / line).relative_to(ROOT / "docs")))
    return entries


def test_the_site_lists_every_page() -> None:
    """Every Markdown page under docs/ is in a toctree of the site (Sphinx refuses the build otherwise), and
    every toctree entry is a page: a new page is one line in docs/index.md."""
    listed = set().union(*(toctree_entries(page) for page in PAGES))
    pages = {str(page.relative_to(ROOT / "docs").with_suffix("")) for page in PAGES} - {"index"}
    assert not pages - listed, f"pages in no toctree (add them to docs/index.md): {sorted(pages - listed)}"
    assert not listed - pages, f"toctree entries with no page: {sorted(listed - pages)}"
