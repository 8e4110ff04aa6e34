"""The env docstrings' tables, sizes and signatures, generated from the code.

The module docstrings of :mod:`.aec_hand`, :mod:`.aec_match` and :mod:`.single_agent` are
templates: where they show a size, a table or a constructor's signature they hold a placeholder
(``{obs}``, ``{observation_table}``, ``{signature}``, ...), and :func:`fill`, called at the
end of each module, replaces it with text computed from the code: the sizes from the observation
layout, the privileged state and the action ids; the observation tables from the layout's own
table (:func:`gin3_env.observation.layout.markdown_table`, as that module's docstring is); the
action table from the action ids of :mod:`gin3_env.engine.actions`; the signatures from
``inspect.signature`` of the env classes (the rules options spelled out by
:func:`~gin3_env.envs.keywords.takes_rules_options`). So ``help(gin3_env.envs.aec_hand)`` and the
docs pages read what the code does, and nothing is copied by hand.
"""

from __future__ import annotations

import inspect
import re
import textwrap
from typing import Any

from ..engine.actions import DISCARD_BASE, DRAW_STOCK, KNOCK_BASE, NUM_ACTIONS, PASS, TAKE_DISCARD
from ..observation.features import EXTRA_SIZE
from ..observation.layout import MATCH_FIELDS, MATCH_OBS_SIZE, OBS_SIZE, OBSERVATION, markdown_table
from ..observation.state import MATCH_STATE_SIZE, STATE_SIZE

__all__ = ["SIZES", "action_ids", "action_table", "fill", "header_table", "observation_table", "signature_block"]

# the sizes a docstring may name, by placeholder
SIZES = {
    "obs": OBS_SIZE,
    "match_obs": MATCH_OBS_SIZE,
    "aug": OBS_SIZE + EXTRA_SIZE,
    "match_aug": MATCH_OBS_SIZE + EXTRA_SIZE,
    "state": STATE_SIZE,
    "match_state": MATCH_STATE_SIZE,
    "actions": NUM_ACTIONS,
    "last_action": NUM_ACTIONS - 1,
}
PLACEHOLDER = re.compile(r"\{([a-z_]+)\}")


def aligned(rows: list[tuple[str, ...]]) -> str:
    """A Markdown table of ``rows`` (the first is the header), its columns padded to one width."""
    widths = [max(len(row[k]) for row in rows) for k in range(len(rows[0]))]
    lines = ["| " + " | ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)) + " |" for row in rows]
    lines.insert(1, "|" + "|".join("-" * (w + 2) for w in widths) + "|")
    return "\n".join(lines)


def header_table(imports: str, agents: tuple[str, ...], obs_size: int, manual: str = "No") -> str:
    """The PettingZoo-style table at the top of an AEC env's docstring."""
    return aligned([
        ("Import", imports),
        ("Actions", "Discrete"),
        ("Parallel API", "No"),
        ("Manual Control", manual),
        ("Agents", f"`agents= {list(agents)}`"),
        ("Agents", str(len(agents))),
        ("Action Shape", f"Discrete({NUM_ACTIONS})"),
        ("Action Values", f"Discrete({NUM_ACTIONS})"),
        ("Observation Shape", f"({obs_size},)"),
        ("Observation Values", "[0, 1]"),
    ])


def observation_table(match: bool = False) -> str:
    """The observation layout's table (the hand's fields; with ``match`` the match's after them)."""
    return markdown_table((*OBSERVATION, *MATCH_FIELDS) if match else OBSERVATION, head="index")


def action_table() -> str:
    """Every action id (from :mod:`gin3_env.engine.actions`), what it does and when it is legal."""
    return aligned([
        ("action", "meaning", "legal when"),
        (str(DRAW_STOCK), "draw from the stock", "draw phase"),
        (str(TAKE_DISCARD), "take the top discard (or the upcard)", "draw phase, opening offer"),
        (str(PASS), "pass (refuse the upcard)", "opening offer only"),
        (f"{DISCARD_BASE} + c", "discard card c", "discard phase, c in hand (not the card just taken)"),
        (f"{KNOCK_BASE} + c", "knock, discarding card c", "discard phase, the other 10 have deadwood <= limit"),
    ])


def action_ids() -> str:
    """The action ids in one line (the single-agent env's table)."""
    return (f"{DRAW_STOCK} draw, {TAKE_DISCARD} take discard, {PASS} pass, {DISCARD_BASE}+c discard c, "
            f"{KNOCK_BASE}+c knock discarding c")


def signature_block(name: str, target: Any, fence: str = "``` python", width: int = 90) -> str:
    """``name(...)`` with ``target``'s signature (defaults, no annotations), wrapped under the paren."""
    signature = inspect.signature(target)
    empty = inspect.Parameter.empty
    plain = signature.replace(parameters=[p.replace(annotation=empty) for p in signature.parameters.values()],
                              return_annotation=empty)
    lines = textwrap.wrap(f"{name}{plain}", width=width, subsequent_indent=" " * (len(name) + 1),
                          break_on_hyphens=False, break_long_words=False)
    return "\n".join([fence, *lines, "```"])


def fill(doc: str | None, **texts: str) -> str:
    """``doc`` with each ``{name}`` placeholder replaced by ``texts[name]`` or a size of :data:`SIZES`.

    Only placeholders are touched (``{"deck": ...}`` in an example is not one: it does not match
    ``{lowercase_name}``); a placeholder with no value is a ``KeyError``, so none is left unfilled."""
    values = {**{k: str(v) for k, v in SIZES.items()}, **texts}

    def value(match: re.Match[str]) -> str:
        return values[match.group(1)]

    return PLACEHOLDER.sub(value, doc or "")
