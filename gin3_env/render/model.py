"""What a picture of the table shows, as a plain dict: the one source of frames and the HTML viewer.

``table_model(state, viewer)`` holds the same facts as the text table of
:func:`gin3_env.render.render_table` with the same ``viewer``: the phase and whose
turn it is, the scores and roles (in a match), both rows of cards (melds grouped,
then the deadwood cards), the top discard and the pile below it, the stock count,
the card taken this turn and, once the hand is over, the showdown (spreads, layoffs,
deadwoods, points and why, in the words of ``gin3 play``).

``viewer`` is 0 (the team's view), 1 (the box's view) or None (the spectator's:
both hands face up). From a player's side the other hand is a row of face-down
cards, except the cards that player is known to hold (taken from the discard pile);
the model then holds nothing else about the hidden cards, so a picture drawn from
it cannot show them. At the showdown of a knock or gin both spreads are public and
shown to everyone.

The model (all JSON-able)::

    {"title": "Turn 3 - Box to discard or knock",
     "scores": "Scores: ..." or None,
     "rows": [row_top, row_bottom],   # the viewer's opponent on top (the box for spectators)
     "stock": 28,
     "pile": {"top": 7 or None, "below": [12, 40], "count": 3,
              "label": "Discard pile: 3", "note": ""},   # note: "on top: the knock's discard"
     "moves": ["#4: Team discards 9♣", "#5: Box takes 9♣ from the discard pile"],
     "notes": ["(Box took 9♣ and may not discard it this turn)"],
     "showdown": ["Team knocks, discarding 4♦.", ..., "Result: ..."] or [],
     "over": False}

    row = {"player": 0, "name": "Team", "to_act": True,
           "info": "11 cards - deadwood 9 (best discard leaves 4: can knock)",
           "groups": [{"kind": "meld", "cards": [[0, ""], [1, ""], [2, ""]]}, ...]}

``moves`` are the last moves of the hand (at most ``MOVES_SHOWN``), worded as
``gin3 replay`` words them; a card drawn from the stock is named only to the player
who drew it (and to spectators).

A group's ``kind`` is ``"meld"``, ``"deadwood"``, ``"known"`` (the opponent's cards
taken from the pile) or ``"hidden"``; each card is ``[card, mark]`` with ``card``
0..51 (``-1`` face down) and ``mark`` ``""``, ``"taken"`` (taken from the pile this
turn: it may not be discarded now), ``"known"`` (taken from the pile, so the other
player knows it is there) or ``"layoff"`` (a defender's card
laid off on this meld of the knocker's).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..engine.cards import cards_of, sort_key
from ..engine.hand import BOX, TEAM, HandState
from ..engine.match import Roles
from ..engine.melds import best_arrangement
from ..engine.phases import Phase
from . import (
    deadwood_text,
    describe_action,
    fmt_card,
    fmt_cards,
    player_names,
    render_result,
    render_table,
    scores_text,
    table_pile,
)

HIDDEN = -1
MOVES_SHOWN = 6
Card = list[Any]  # [card or HIDDEN, mark]

__all__ = ["HIDDEN", "MOVES_SHOWN", "move_lines", "table_model"]


def _cards(cards: Sequence[int], mark: str = "", marks: dict[int, str] | None = None) -> list[Card]:
    marks = marks or {}
    return [[int(c), marks.get(c, mark)] for c in cards]


def _hand_groups(mask: int, marks: dict[int, str]) -> list[dict[str, Any]]:
    """Best melds first (each sorted), then the deadwood cards, as :func:`~gin3_env.render.fmt_hand` orders them."""
    arrangement = best_arrangement(mask)
    groups = [{"kind": "meld", "cards": _cards(sorted(m, key=sort_key), marks=marks)} for m in arrangement.melds]
    dead = sorted(arrangement.deadwood_cards, key=sort_key)
    if dead:
        groups.append({"kind": "deadwood", "cards": _cards(dead, marks=marks)})
    return groups


def _count(n: int) -> str:
    return f"{n} card" if n == 1 else f"{n} cards"


def move_lines(state: HandState, viewer: int | None, names: Sequence[str], limit: int | None = None) -> list[str]:
    """The hand's moves so far (the last ``limit``), ``"#3: Box draws from the stock"``; replayed
    from the deal, a stock card named only to the player who drew it (every card for ``None``)."""
    replay = HandState.deal(state.rules, deck=state.deck)
    lines = []
    for i, action in enumerate(state.actions):
        p = replay.player
        reveal = viewer is None or viewer == p
        lines.append(f"#{i + 1}: {describe_action(replay, action, names[p], reveal=reveal, symbols=True)}")
        replay.apply(action)
    return lines if limit is None else lines[-limit:]


def _spread_rows(state: HandState, who: tuple[str, str]) -> dict[int, dict[str, Any]]:
    """Both rows at the showdown of a knock or gin: the spreads, layoffs on the knocker's melds."""
    result = state.result
    assert result is not None and result.spreads is not None and result.knocker is not None
    k = result.knocker
    laid: dict[int, list[int]] = {}
    for card, index in result.spreads[1 - k].layoffs:
        laid.setdefault(index, []).append(card)
    rows = {}
    for p in (TEAM, BOX):
        spread = result.spreads[p]
        groups: list[dict[str, Any]] = []
        for i, cards in enumerate(spread.melds):
            extra = laid.get(i, []) if p == k else []  # laid off where they extend the meld: A♠ 2♠ on 3♠ 4♠ 5♠
            marks = dict.fromkeys(extra, "layoff")
            groups.append({"kind": "meld", "cards": _cards(sorted([*cards, *extra], key=sort_key), marks=marks)})
        if spread.deadwood_cards:
            groups.append({"kind": "deadwood", "cards": _cards(sorted(spread.deadwood_cards, key=sort_key))})
        if p == k:
            info = ("went gin" if result.outcome == "gin" else "knocked") + f" - deadwood {spread.deadwood}"
        else:
            n = len(spread.layoffs)
            info = f"deadwood {spread.deadwood}" + (f" after laying off {_count(n)}" if n else "")
        rows[p] = {"player": p, "name": who[p], "to_act": False, "info": info, "groups": groups}
    return rows


def table_model(
    state: HandState,
    viewer: int | None = None,
    *,
    roles: Roles | None = None,
    scores: Sequence[int] | None = None,
    names: Sequence[str] | None = None,
    seat_names: Sequence[str] | None = None,
    notes: Sequence[str] = (),
) -> dict[str, Any]:
    """The table from ``viewer``'s side (0 team, 1 box, None both hands) as a plain dict (module doc).

    ``roles``, ``scores``, ``names`` and ``seat_names`` are those of
    :func:`~gin3_env.render.render_table`; ``notes`` are extra lines shown beside the
    pile (a replay's last move, the match totals)."""
    if viewer not in (None, TEAM, BOX):
        raise ValueError(f"viewer must be 0 (team), 1 (box) or None, got {viewer!r}")
    who = player_names(roles, names)
    title = render_table(state, viewer, roles=roles, names=names).splitlines()[0]
    title = title.removeprefix("-- ").removesuffix(" --")
    result = state.result
    spread = result is not None and result.spreads is not None
    rows: dict[int, dict[str, Any]] = _spread_rows(state, who) if spread else {}
    taken = state.taken if state.phase is Phase.DISCARD else None
    for p in (TEAM, BOX):
        if p in rows:
            continue
        mask = state.hands[p]
        n = len(cards_of(mask))
        known = sorted(cards_of(state.known[p]), key=sort_key)
        marks = {taken: "taken"} if taken is not None and state.player == p else {}
        if viewer is None:  # a spectator also sees which cards the other player knows of
            marks = {**dict.fromkeys(known, "known"), **marks}
        if viewer is None or viewer == p:
            groups = _hand_groups(mask, marks)
            info = f"{_count(n)} - {deadwood_text(state, p)}"
            if viewer is None and known:
                info += f" - known to hold {fmt_cards(known)}"
        else:
            groups = []
            if known:
                groups.append({"kind": "known", "cards": _cards(known, "known", marks)})
            if n > len(known):
                groups.append({"kind": "hidden", "cards": [[HIDDEN, ""] for _ in range(n - len(known))]})
            info = f"{_count(n)} (hidden)" + (f" - holds {fmt_cards(known)} (taken from the pile)" if known else "")
        to_act = not state.is_over and state.player == p
        rows[p] = {"player": p, "name": who[p], "to_act": to_act, "info": info, "groups": groups}
    bottom = TEAM if viewer is None else viewer
    pile, knock_on_top = table_pile(state)
    lines = list(notes)
    if taken is not None and not state.rules.allow_discard_taken_card:
        mover = who[state.player].split(" (", 1)[0]
        lines.append(f"({mover} took {fmt_card(taken)} and may not discard it this turn)")
    showdown: list[str] = []
    if result is not None:
        showdown = render_result(result, roles=roles, names=names).splitlines()[1:]
    return {
        "title": title,
        "scores": None if scores is None else scores_text(scores, roles, seat_names),
        "rows": [rows[1 - bottom], rows[bottom]],
        "stock": len(state.stock),
        "pile": {
            "top": pile[-1] if pile else None,
            "below": [int(c) for c in pile[-2::-1][:8]],
            "count": len(pile),
            "label": f"Discard pile: {len(pile)}",
            "note": "on top: the knock's discard" if knock_on_top else "",
        },
        "moves": move_lines(state, viewer, who, MOVES_SHOWN),
        "notes": lines,
        "showdown": showdown,
        "over": state.is_over,
    }
