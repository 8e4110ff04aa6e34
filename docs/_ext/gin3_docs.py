"""Sphinx directives that write the docs' tables from the code at build time, so they cannot drift.

Each directive builds Markdown from the package (the registration tables, the observation layout,
the action ids, the env module docstrings, the ``gin3`` parser) and parses it as the page's own
Markdown (MyST). Every name is reached through the registration tables or the package facades
(``gin3_env``, ``gin3_env.observation``), never a deep module path, so moving a module does not
break the site; a table or section that cannot be found is a build warning (an error under ``-W``).

- ``{gin3-env-header} ID``: the PettingZoo-style summary table of an environment id;
- ``{gin3-observation-table} ID``: the observation layout of an id's env, row by row;
- ``{gin3-action-table}``: the action ids;
- ``{gin3-env-signature} ID``: the factory's signature;
- ``{gin3-env-section} ID Title``: a section of the env module's docstring;
- ``{gin3-cli-help}``: ``gin3 --help`` and every subcommand's ``--help``;
- ``{gin3-related}``: links to the pages named in its body that exist (``page: text`` lines);
- ``{gin3-env-frame} ID``: a frame of a hand in the id's env, drawn by the package's renderer at build time
  (a few moves into a seeded hand; written to ``_generated/`` beside the pages).
"""

from __future__ import annotations

import importlib
import inspect
import os
import re
import subprocess
import sys
import textwrap
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from docutils import nodes
from docutils.statemachine import StringList
from sphinx.application import Sphinx
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective

LOG = logging.getLogger(__name__)
ROOT = Path(__file__).resolve().parents[2]


# ------------------------------------------------------------------ what the directives read
def env_tables() -> tuple[dict[str, str], dict[str, str], dict[str, str]]:
    """The PettingZoo ids, the Gymnasium ids and the Gymnasium vector entry points (id -> ``module:attr``)."""
    import gin3_env  # registers the ids and hands in the vector entry point

    registration = sys.modules[gin3_env.env.__module__.rsplit(".", 1)[0] + ".registration"]
    return registration.PETTINGZOO_ENVS, registration.GYMNASIUM_ENVS, registration.GYMNASIUM_VECTOR_ENVS


def entry_point(env_id: str) -> tuple[str, Any]:
    """``("pettingzoo" | "gymnasium", the factory or class)`` of a registered id."""
    pettingzoo_ids, gymnasium_ids, _ = env_tables()
    for library, table in (("pettingzoo", pettingzoo_ids), ("gymnasium", gymnasium_ids)):
        if env_id in table:
            module, attr = table[env_id].split(":")
            return library, getattr(importlib.import_module(module), attr)
    raise ValueError(f"unknown environment id {env_id!r}; the ids are {', '.join([*pettingzoo_ids, *gymnasium_ids])}")


def env_docstring(env_id: str) -> str:
    """The docstring of the module of an id's env: the first along its classes' order (the env, then the
    classes it stands on) that has a version history, so an env documented with its base class reads there."""
    _, target = entry_point(env_id)
    docs = [inspect.cleandoc(sys.modules[cls.__module__].__doc__ or "")
            for cls in getattr(target, "__mro__", (target,)) if cls.__module__ in sys.modules]
    return next((doc for doc in docs if re.search(r"^Version [Hh]istory$", doc, re.M)), docs[0])


def own_features(env_id: str) -> tuple[str, ...] | None:
    """The feature meanings of an env whose observation is no layout of the game's vector but a short
    feature vector of its own (its module's ``OBSERVATION_FEATURES``), else None."""
    _, target = entry_point(env_id)
    return getattr(sys.modules[target.__module__], "OBSERVATION_FEATURES", None)


def facade_name(target: Any) -> str | None:
    import gin3_env

    return next((name for name in gin3_env.__all__ if getattr(gin3_env, name, None) is target), None)


def spaces(env_id: str) -> dict[str, Any]:
    """Agents, action space, observation size and state size of an id's env, read off a built env."""
    library, target = entry_point(env_id)
    if library == "pettingzoo":
        env = target()
        agent = env.possible_agents[0]
        observation = env.observation_space(agent)["observation"]
        info = {"agents": list(env.possible_agents), "action": env.action_space(agent),
                "observation": observation, "state": env.state_space}
    else:
        import gymnasium

        env = gymnasium.make(env_id)
        info = {"agents": None, "action": env.action_space, "observation": env.observation_space,
                "state": getattr(env.unwrapped, "state_space", None)}
    env.close()
    return info


def layout_row(row: Any) -> tuple[str, int, int, str | None]:
    """A layout row as (name, start, stop, description or None): a tuple or an object with those fields."""
    if isinstance(row, tuple):
        name, start, stop, *rest = row
        return str(name), int(start), int(stop), (str(rest[0]) if rest else None)
    return (str(row.name), int(row.start), int(row.stop),
            getattr(row, "description", None) or getattr(row, "meaning", None))


def docstring_table(doc: str) -> list[list[str]]:
    """The rows of every Markdown table in a docstring, cells stripped (header and rule rows included)."""
    return [[cell.strip() for cell in line.strip().strip("|").split("|")]
            for line in doc.splitlines() if line.strip().startswith("|")]


def layout_for(size: int) -> tuple[Any, ...]:
    from gin3_env import observation

    for layout in (observation.LAYOUT, observation.MATCH_LAYOUT):
        if layout_row(layout[-1])[2] == size:
            return tuple(layout)
    raise ValueError(f"no observation layout has {size} entries")


def slice_label(start: int, stop: int) -> str:
    return str(start) if stop == start + 1 else f"{start}:{stop}"


def observation_markdown(env_id: str) -> tuple[str, list[str]]:
    """The observation table of an id (index, feature, meaning) and the problems found (drift, gaps)."""
    size = int(spaces(env_id)["observation"].shape[0])
    features = own_features(env_id)
    if features is not None:  # a feature vector of its own: one row per feature, its meaning in the code
        rows = [f"| {i} | `f{i}` | {meaning} |" for i, meaning in enumerate(features)]
        problems = [] if len(features) == size else [f"{env_id}: {len(features)} features for {size} entries"]
        return "\n".join(["| index | feature | meaning |", "|---|---|---|", *rows]), problems
    own = docstring_table(env_docstring(env_id))
    pettingzoo_ids, _, _ = env_tables()
    others = [row for other in pettingzoo_ids for row in docstring_table(env_docstring(other))]
    by_slice = {row[0]: row[1] for row in docstring_table(_layout_docstring()) if len(row) == 2}
    problems = []
    lines = ["| index | feature | meaning |", "|---|---|---|"]
    for row in layout_for(size):
        name, start, stop, description = layout_row(row)
        label = slice_label(start, stop)
        for table in (own, others):
            match = next((r for r in table if len(r) == 3 and r[1].strip("`") == name), None)
            if match is not None:
                if match[0] != label:
                    problems.append(f"{env_id}: the env docstring puts {name!r} at {match[0]}, the layout at {label}")
                description = description or match[2]
                break
        description = description or by_slice.get(label)
        if not description:
            problems.append(f"{env_id}: no description of the observation feature {name!r} ({label})")
        lines.append(f"| {label} | `{name}` | {description or ''} |")
    spans = [layout_row(row)[1:3] for row in layout_for(size)]
    if [start for start, _ in spans] != [0, *(stop for _, stop in spans[:-1])]:
        problems.append(f"{env_id}: the layout's rows leave gaps or overlap: {spans}")
    return "\n".join(lines), problems


def _layout_docstring() -> str:
    """The docstring of the module that defines the observation layout (its table, if it has one)."""
    from gin3_env import observation

    for name, module in list(sys.modules.items()):
        if name.startswith("gin3_env.") and getattr(module, "LAYOUT", None) is observation.LAYOUT:
            doc = module.__doc__ or ""
            if "| slice" in doc:
                return inspect.cleandoc(doc)
    return ""


def action_markdown() -> tuple[str, list[str]]:
    """The action ids, from the facade's constants; meanings from the actions module's docstring table."""
    import gin3_env

    discard, knock, count = gin3_env.discard_action(0), gin3_env.knock_action(0), gin3_env.NUM_ACTIONS
    meanings = {row[0]: row[1] for row in docstring_table(sys.modules[gin3_env.action_str.__module__].__doc__ or "")
                if len(row) == 2}
    groups = [
        (str(gin3_env.DRAW_STOCK), [gin3_env.DRAW_STOCK], "DRAW_STOCK"),
        (str(gin3_env.TAKE_DISCARD), [gin3_env.TAKE_DISCARD], "TAKE_DISCARD"),
        (str(gin3_env.PASS), [gin3_env.PASS], "PASS"),
        (f"{discard} + c", list(range(discard, knock)), "discard_action(c)"),
        (f"{knock} + c", list(range(knock, count)), "knock_action(c)"),
    ]
    problems = []
    covered = sorted(a for _, ids, _ in groups for a in ids)
    if covered != list(range(count)):
        problems.append(f"the action groups cover {len(covered)} ids, the space has {count}")
    lines = ["| action | ids | name | meaning | e.g. (`action_str`) |", "|---|---|---|---|---|"]
    for label, ids, name in groups:
        meaning = meanings.get(label)
        if meaning is None:
            problems.append(f"the actions module's docstring has no row for action {label!r}")
        span = str(ids[0]) if len(ids) == 1 else f"{ids[0]}..{ids[-1]}"
        lines.append(f"| {label} | {span} | `{name}` | {meaning or ''} | `{ids[0]}`: {gin3_env.action_str(ids[0])} |")
    return "\n".join(lines), problems


def header_markdown(env_id: str) -> str:
    library, target = entry_point(env_id)
    info = spaces(env_id)
    _, _, vector_ids = env_tables()
    if library == "pettingzoo":
        name = facade_name(target)
        imports = (f"`from gin3_env import {name}` or " if name else "") + f'`pettingzoo.make("aec", "{env_id}")`'
        agents = f"`agents= {info['agents']}`"
        count = str(len(info["agents"]))
        api = "PettingZoo AEC"
    else:
        imports = f'`import gin3_env` then `gymnasium.make("{env_id}")`'
        if env_id in vector_ids:
            imports += f'; batched: `gymnasium.make_vec("{env_id}", num_envs)`'
        agents = "one learner (`learner=`); the opponents move inside `step`"
        count = "1"
        api = "Gymnasium `Env`"
    rows = [
        ("Import", imports),
        ("API", api),
        ("Actions", "Discrete"),
        ("Parallel API", "No"),
        ("Manual Control", "`gin3 play` (in the terminal, against a policy)"),
        ("Agents", agents),
        ("Number of agents", count),
        ("Action Shape", f"`{info['action']}`"),
        ("Observation Shape", f"`{tuple(info['observation'].shape)}`"),
        ("Observation Values", f"[{info['observation'].low.min():g}, {info['observation'].high.max():g}]"),
    ]
    if info["state"] is not None:
        rows.append(("State Shape", f"`{tuple(info['state'].shape)}` (privileged: for centralised critics)"))
    # a table of name and value pairs has no header row (an empty one showed as a blank bar): a list table
    items = "\n".join(f"* - {k}\n  - {v}" for k, v in rows)
    return f"```{{list-table}}\n:header-rows: 0\n:widths: 1 3\n\n{items}\n```"


FRAME_SEED, FRAME_MOVES = 3, 9  # a hand a few moves in: the pile, a card taken from it, the stock


def env_frame(env_id: str) -> tuple[Any, str]:
    """A ``uint8`` frame of a hand in the env of ``env_id`` a few seeded moves in (the heuristic's moves in the
    AEC envs, masked random ones for a learner), and its caption. An env that draws no frame of its own (the
    knock learner) shows the hand env it plays in."""
    import numpy as np

    library, target = entry_point(env_id)
    rng = np.random.default_rng(FRAME_SEED)
    if library == "pettingzoo":
        from gin3_env.policies import HeuristicPolicy

        env = target(render_mode="rgb_array")
        env.reset(seed=FRAME_SEED)
        heuristic = HeuristicPolicy()
        for _ in range(FRAME_MOVES):
            observation, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                break
            hand = {"observation": observation["observation"][: gin3_env_obs_size()],
                    "action_mask": observation["action_mask"]}
            env.step(heuristic.act(hand))
        return env.render(), "the table in the middle of a hand, as `render_mode=\"rgb_array\"` draws it"
    import gymnasium as gym

    draws = "rgb_array" in getattr(target, "metadata", {}).get("render_modes", [])
    shown = env_id if draws else "gin3/ThreeHandedGin-v0"
    env = gym.make(shown, render_mode="rgb_array", opponent="heuristic")
    env.reset(seed=FRAME_SEED)
    for _ in range(FRAME_MOVES // 3):
        _, _, terminated, truncated, _ = env.step(int(rng.choice(np.flatnonzero(env.unwrapped.action_masks()))))
        if terminated or truncated:
            env.reset(seed=FRAME_SEED + 1)
    where = "the learner's side" if shown == env_id else f"the hand it plays in ({shown}), from the learner's side"
    return env.render(), f"{where}, the opponent's cards face down, as `render_mode=\"rgb_array\"` draws it"


def gin3_env_obs_size() -> int:
    import gin3_env.observation

    return int(gin3_env.observation.OBS_SIZE)


def frame_markdown(env_id: str, srcdir: Path) -> str:
    """The frame of :func:`env_frame`, written as ``_generated/frame_<id>.png`` under ``srcdir``, as an image."""
    from PIL import Image

    frame, caption = env_frame(env_id)
    name = "frame_" + re.sub(r"[^A-Za-z0-9]+", "_", env_id).strip("_") + ".png"
    folder = srcdir / "_generated"
    folder.mkdir(exist_ok=True)
    Image.fromarray(frame).save(folder / name)
    return f"![{caption}](/_generated/{name})\n\n*{caption[0].upper() + caption[1:]}.*"


def plain_signature(target: Any) -> str:
    """A callable's signature with its defaults and without its annotations."""
    signature = inspect.signature(target)
    empty = inspect.Parameter.empty
    plain = signature.replace(parameters=[p.replace(annotation=empty) for p in signature.parameters.values()],
                              return_annotation=empty)
    return str(plain)


def signature_markdown(env_id: str) -> str:
    library, target = entry_point(env_id)
    if library == "pettingzoo":
        call = f"{facade_name(target) or target.__name__}{plain_signature(target)}"
    else:
        keywords = ", ".join(f"{p.name}={p.default!r}" for p in inspect.signature(target).parameters.values()
                             if p.default is not inspect.Parameter.empty)
        call = f'gymnasium.make("{env_id}", {keywords})'
    lines = textwrap.wrap(call, width=100, subsequent_indent="    ", break_on_hyphens=False, break_long_words=False)
    return "```python\n" + "\n".join(lines) + "\n```"


SECTION_HEADING = re.compile(r"^(#{2,4}) +(.+?) *$")
BARE_TITLES = {"arguments", "version history", "rewards", "infos", "state"}


def docstring_section(doc: str, title: str) -> str | None:
    """The body of a section of a docstring: under a ``### Title`` heading, or under a bare line
    ``Title`` (a paragraph heading, as in ``Version history``), up to the next heading of either kind.
    Sub-headings inside (``#### Legal Actions Mask``) become bold paragraphs."""
    lines = doc.splitlines()
    want = title.strip().lower()

    def opens(line: str) -> bool:
        heading = SECTION_HEADING.match(line)
        return (heading is not None and heading.group(2).lower() == want) or line.strip().lower() == want

    start = next((i + 1 for i, line in enumerate(lines) if opens(line)), None)
    if start is None:
        return None
    body: list[str] = []
    for line in lines[start:]:
        heading = SECTION_HEADING.match(line)
        if heading and len(heading.group(1)) <= 3:
            break
        if line.strip().lower() in BARE_TITLES and (not body or not body[-1].strip()):
            break
        body.append(f"**{heading.group(2)}**" if heading else line)
    return "\n".join(body).strip()


def markdownify(text: str) -> str:
    """Sphinx roles written in a docstring (``:class:`~a.B```) as plain code spans for Markdown."""
    def code(match: re.Match[str]) -> str:
        target = match.group(2)
        return f"`{target.rsplit('.', 1)[-1] if match.group(1) else target}`"

    return re.sub(r":\w+:`(~?)([^`]+)`", code, text)


def cli_help() -> str:
    """``gin3 --help`` and each subcommand's ``--help``, as the command prints them."""
    import gin3_env.cli as cli

    parser = cli.build_parser()
    commands = next(a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction").choices
    env = {**os.environ, "COLUMNS": "100", "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    parts = []
    for args in ([], *([name] for name in commands)):
        done = subprocess.run([sys.executable, "-m", "gin3_env", *args, "--help"], capture_output=True, text=True,
                              env=env, timeout=300, cwd=ROOT)
        if done.returncode != 0:
            raise RuntimeError(f"gin3 {' '.join(args)} --help failed: {done.stderr[-2000:]}")
        title = " ".join(["gin3", *args, "--help"])
        parts.append(f"## `{title}`\n\n```text\n{done.stdout.rstrip()}\n```\n")
    return "\n".join(parts)


# ------------------------------------------------------------------ docstrings for autodoc
TABLE_RULE = re.compile(r"^\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$")


def markdown_tables_to_rst(lines: list[str]) -> list[str]:
    """The Markdown pipe tables of a docstring (the form the env pages read) as reStructuredText list tables."""
    out: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.lstrip().startswith("|") and i + 1 < len(lines) and TABLE_RULE.match(lines[i + 1].strip()):
            indent = line[: len(line) - len(line.lstrip())]
            rows = [line]
            i += 2
            while i < len(lines) and lines[i].lstrip().startswith("|"):
                rows.append(lines[i])
                i += 1
            cells = [[cell.strip() or " " for cell in row.strip().strip("|").split("|")] for row in rows]
            width = max(len(row) for row in cells)
            header = 1
            if not "".join(cells[0]).strip():  # "| | |": no header, not a blank one
                cells, header = cells[1:], 0
            if out and out[-1].strip():
                out.append("")
            out += [f"{indent}.. list-table::", f"{indent}   :header-rows: {header}", ""]
            for row in cells:
                row = row + [" "] * (width - len(row))
                out.append(f"{indent}   * - {row[0]}")
                out += [f"{indent}     - {cell}" for cell in row[1:]]
            out.append("")
            continue
        out.append(line)
        i += 1
    return out


def process_docstring(app: Sphinx, what: str, name: str, obj: Any, options: Any, lines: list[str]) -> None:
    lines[:] = markdown_tables_to_rst(lines)


# ------------------------------------------------------------------ the directives
class MarkdownDirective(SphinxDirective):
    """Parses the Markdown that :meth:`markdown` returns as part of the page; problems are warnings."""

    has_content = False
    optional_arguments = 0

    def markdown(self) -> tuple[str, list[str]]:
        raise NotImplementedError

    def run(self) -> list[nodes.Node]:
        try:
            text, problems = self.markdown()
        except Exception as exc:  # a table that cannot be built fails the build, naming why
            LOG.warning(f"{self.name}: {type(exc).__name__}: {exc}", location=self.get_location())
            return []
        for problem in problems:
            LOG.warning(f"{self.name}: {problem}", location=self.get_location())
        container = nodes.container()
        self.state.nested_parse(StringList(text.splitlines(), source=self.get_source_info()[0]),
                                self.content_offset, container)
        return container.children


class EnvFrame(MarkdownDirective):
    required_arguments = 1

    def markdown(self) -> tuple[str, list[str]]:
        return frame_markdown(self.arguments[0], Path(self.env.srcdir)), []


def _one(func: Callable[[str], str]) -> type[MarkdownDirective]:
    class Directive(MarkdownDirective):
        required_arguments = 1

        def markdown(self) -> tuple[str, list[str]]:
            return func(self.arguments[0]), []

    return Directive


class ObservationTable(MarkdownDirective):
    required_arguments = 1

    def markdown(self) -> tuple[str, list[str]]:
        return observation_markdown(self.arguments[0])


class ActionTable(MarkdownDirective):
    def markdown(self) -> tuple[str, list[str]]:
        return action_markdown()


class EnvSection(MarkdownDirective):
    required_arguments = 2
    final_argument_whitespace = True
    option_spec = {"strip-signature": lambda argument: True}

    def markdown(self) -> tuple[str, list[str]]:
        env_id, title = self.arguments
        body = docstring_section(env_docstring(env_id), title)
        if body is None:
            return "", [f"the docstring of {env_id}'s module has no section {title!r}"]
        if "strip-signature" in self.options and body.startswith("```"):
            body = body.split("```", 2)[2].strip()  # the signature, which {gin3-env-signature} writes from the code
        return markdownify(body), []


class CliHelp(MarkdownDirective):
    def markdown(self) -> tuple[str, list[str]]:
        return cli_help(), []


class Related(MarkdownDirective):
    """A list of links to the pages named in the body (``page: text``) that exist in the docs folder."""

    has_content = True

    def markdown(self) -> tuple[str, list[str]]:
        here = Path(self.env.srcdir)
        items = []
        for line in self.content:
            page, _, text = line.partition(":")
            if page.strip() and (here / f"{page.strip()}.md").exists():
                items.append(f"- [{text.strip()}]({page.strip()}.md)")
        return "\n".join(items), []


def setup(app: Sphinx) -> dict[str, Any]:
    app.add_directive("gin3-env-header", _one(header_markdown))
    app.add_directive("gin3-env-signature", _one(signature_markdown))
    app.add_directive("gin3-observation-table", ObservationTable)
    app.add_directive("gin3-action-table", ActionTable)
    app.add_directive("gin3-env-section", EnvSection)
    app.add_directive("gin3-cli-help", CliHelp)
    app.add_directive("gin3-related", Related)
    app.add_directive("gin3-env-frame", EnvFrame)
    app.connect("autodoc-process-docstring", process_docstring)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}


__all__: Iterable[str] = ["setup"]
