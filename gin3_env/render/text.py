"""Text rendering of a hand: the table, the showdown, the legal moves.

Used by the environments (``render_mode="ansi"``/``"human"``), by ``gin3 play``
and by ``gin3 replay``. Everything here returns plain strings; ANSI colours are
added only with ``color=True`` (red hearts and diamonds, bold headings).

A table for the team's view, mid-hand (``viewer=0``)::

    -- Turn 3 - Team to discard or knock --
    Box: 10 cards (hidden), holds 7♥ (taken from the pile)
    Discard pile: 9♣ on top (2 cards; below: K♦)   Stock: 28 cards
    Team hand: [A♣ 2♣ 3♣] [5♦ 5♥ 5♠] 8♦ 9♦ J♠ Q♠ K♠  deadwood 54 (best discard leaves 44)

``viewer=None`` shows both hands (replays, the env's render); ``viewer=0`` or
``1`` shows that player's hand and only the size of the other's, plus the
cards the other is known to hold (taken from the discard pile): what the
viewer knows, read from his :class:`~gin3_env.engine.PlayerView`.

Imports the engine only, so the envs (one layer up) use it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from ..engine.actions import (
    DRAW_STOCK,
    PASS,
    TAKE_DISCARD,
    action_card,
    action_str,
    check_action,
    is_knock,
)
from ..engine.cards import card_str, cards_of, sort_key
from ..engine.hand import BOX, TEAM, HandState
from ..engine.match import Roles
from ..engine.melds import best_arrangement
from ..engine.phases import Phase
from ..engine.result import HandResult, Spread

RED = "\x1b[31m"
BOLD = "\x1b[1m"
DIM = "\x1b[2m"
RESET = "\x1b[0m"

__all__ = [
    "deadwood_text",
    "describe_action",
    "fmt_card",
    "fmt_cards",
    "fmt_hand",
    "move_label",
    "player_names",
    "render_moves",
    "render_result",
    "render_table",
    "says",
    "scores_text",
    "table_pile",
]


# ------------------------------------------------------------------ cards
def fmt_card(card: int, *, symbols: bool = True, color: bool = False) -> str:
    """``7♠`` (or ``7S``); hearts and diamonds in red when ``color``."""
    text = card_str(card, symbols)
    if color and card // 13 in (1, 2):
        return f"{RED}{text}{RESET}"
    return text


def fmt_cards(cards: Iterable[int], *, symbols: bool = True, color: bool = False) -> str:
    return " ".join(fmt_card(c, symbols=symbols, color=color) for c in cards)


def _meld(cards: Iterable[int], symbols: bool, color: bool) -> str:
    return "[" + fmt_cards(sorted(cards, key=sort_key), symbols=symbols, color=color) + "]"


def fmt_hand(cards: Iterable[int] | int, *, symbols: bool = True, color: bool = False) -> str:
    """A hand with its best melds first, each in brackets, then the deadwood cards (suit, rank order)."""
    arrangement = best_arrangement(cards)
    parts = [_meld(m, symbols, color) for m in arrangement.melds]
    dead = sorted(arrangement.deadwood_cards, key=sort_key)
    parts += [fmt_card(c, symbols=symbols, color=color) for c in dead]
    return " ".join(parts) if parts else "(no cards)"


def _count(n: int) -> str:
    return f"{n} card" if n == 1 else f"{n} cards"


def _bold(text: str, color: bool) -> str:
    return f"{BOLD}{text}{RESET}" if color else text


# ------------------------------------------------------------------ names
def player_names(roles: Roles | None = None, names: Sequence[str] | None = None) -> tuple[str, str]:
    """Display names of the hand's players (TEAM, BOX): given ``names``, else from the roles."""
    if names is not None:
        if len(names) != 2:
            raise ValueError(f"names must give two names (team, box), got {names!r}")
        return (str(names[0]), str(names[1]))
    if roles is None:
        return ("Team", "Box")
    return (f"Team (captain, seat {roles.captain})", f"Box (seat {roles.box})")


def _short(name: str) -> str:
    """``"Team (captain, seat 1)" -> "Team"``: the name without its parenthesis."""
    return name.split(" (", 1)[0]


def says(name: str, third: str) -> str:
    """``name`` and the verb agreeing with it: ``("Box", "knocks")``, ``("You", "knock")``."""
    if _short(name).lower() != "you":
        return f"{name} {third}"
    verb, _, rest = third.partition(" ")
    verb = verb[:-2] if verb in ("goes", "passes") else verb[:-1]
    return f"{name} {verb} {rest}".rstrip()


def _possessive(name: str) -> str:
    return "your" if _short(name).lower() == "you" else f"{name}'s"


def _phase_text(state: HandState, names: tuple[str, str], symbols: bool) -> str:
    who = _short(names[state.player])
    top = state.top_discard
    phase = state.phase
    if phase is Phase.OFFER_TEAM:
        return f"Opening - {who} may take the upcard {card_str(top, symbols) if top is not None else ''} or pass"
    if phase is Phase.OFFER_BOX:
        return f"Opening - {_short(names[TEAM])} passed; {who} may take the upcard or pass"
    if phase is Phase.DRAW:
        if state.stock_only or not state.discards:
            return f"Turn {state.turns + 1} - {who} must draw from the stock"
        return f"Turn {state.turns + 1} - {who} to draw from the stock or take the discard"
    if phase is Phase.DISCARD:
        return f"Turn {state.turns + 1} - {who} to discard or knock"
    return f"Hand over after {state.turns} turn{'' if state.turns == 1 else 's'}"


def deadwood_text(state: HandState, player: int) -> str:
    """``"deadwood 9 (best discard leaves 4: can knock)"``: the player's deadwood, and to the one to discard
    what his best discard leaves."""
    mask = state.hands[player]
    arrangement = best_arrangement(mask)
    text = f"deadwood {arrangement.deadwood}"
    if state.phase is Phase.DISCARD and state.player == player:
        best = min(state.knock_deadwoods().values())
        limit = state.rules.knock_limit
        can = "gin!" if best == 0 else ("can knock" if best <= limit else f"knock needs <= {limit}")
        text += f" (best discard leaves {best}: {can})"
    return text


def scores_text(scores: Sequence[int], roles: Roles | None, seat_names: Sequence[str] | None) -> str:
    """``"Scores: seat 0 (captain) 12 | seat 1 (box) 30 | seat 2 (sitter) 5"``; a seat name that ends in a
    parenthesis takes the role inside it: ``"Seat 0 (heuristic, captain) 12"``."""
    parts = []
    for seat, score in enumerate(scores):
        label = seat_names[seat] if seat_names is not None else f"seat {seat}"
        if roles is not None:
            role = roles.role_of(seat)
            label = f"{label[:-1]}, {role})" if label.endswith(")") else f"{label} ({role})"
        parts.append(f"{label} {score}")
    return "Scores: " + " | ".join(parts)


# ------------------------------------------------------------------ table
def table_pile(state: HandState) -> tuple[list[int], bool]:
    """The discard pile as every picture of the table shows it, bottom card first, and whether its
    top card is the knock's discard: once a hand ends by a knock or gin, that discard lies on top.

    The text table, the frames, the videos and the HTML viewer all take the pile from here."""
    pile = list(state.discards)
    knock_card = state.result.knock_discard if state.result is not None else None
    if knock_card is not None and (not pile or pile[-1] != knock_card):
        pile.append(knock_card)
    return pile, knock_card is not None and pile[-1] == knock_card


def render_table(
    state: HandState,
    viewer: int | None = None,
    *,
    symbols: bool = True,
    color: bool = False,
    roles: Roles | None = None,
    scores: list[int] | None = None,
    names: Sequence[str] | None = None,
    seat_names: Sequence[str] | None = None,
) -> str:
    """The table as text from ``viewer``'s side (0 team, 1 box, None both hands).

    ``roles``/``scores`` add the match's seats and totals; ``names`` overrides the
    two players' display names (e.g. ``("You", "Box")``) and ``seat_names`` the
    three seats'. At the end of a hand the showdown (:func:`render_result`) follows.
    """
    if viewer not in (None, TEAM, BOX):
        raise ValueError(f"viewer must be 0 (team), 1 (box) or None, got {viewer!r}")
    who = player_names(roles, names)
    kw = {"symbols": symbols, "color": color}
    lines = [_bold(f"-- {_phase_text(state, who, symbols)} --", color)]
    if scores is not None:
        lines.append(scores_text(scores, roles, seat_names))
    shown = (TEAM, BOX) if viewer is None else (viewer,)
    if viewer is not None:  # the other side as the viewer knows it
        view = state.view(viewer)
        p = 1 - viewer
        spread = state.result is not None and state.result.spreads is not None
        line = f"{who[p]}: {_count(view.opponent_hand_size)} ({'spread below' if spread else 'hidden'})"
        if view.opponent_known:
            known = fmt_cards(sorted(cards_of(view.opponent_known), key=sort_key), **kw)
            line += f", holds {known} (taken from the pile)"
        lines.append(line)
    pile, knock_on_top = table_pile(state)
    if pile:
        below = pile[-2::-1]
        rest = ""
        if below:
            shown_below = fmt_cards(below[:8], **kw) + (" ..." if len(below) > 8 else "")
            rest = f"; below: {shown_below}"
        note = ", the knock's discard" if knock_on_top else ""
        pile_text = f"Discard pile: {fmt_card(pile[-1], **kw)} on top{note} ({_count(len(pile))}{rest})"
    else:
        pile_text = "Discard pile: empty"
    lines.append(f"{pile_text}   Stock: {_count(len(state.stock))}")
    for p in shown:
        owner = "Your" if _short(who[p]).lower() == "you" else f"{who[p]}"
        line = f"{owner} hand: {fmt_hand(state.hands[p], **kw)}  {deadwood_text(state, p)}"
        if viewer is None and state.known[p]:
            line += f"; known to hold {fmt_cards(sorted(cards_of(state.known[p]), key=sort_key), **kw)}"
        lines.append(line)
    if state.phase is Phase.DISCARD and state.taken is not None:
        mover = _short(who[state.player])
        if not state.rules.allow_discard_taken_card:
            lines.append(f"({mover} took {fmt_card(state.taken, **kw)} and may not discard it this turn)")
    if state.result is not None:
        lines.append(render_result(state.result, symbols=symbols, color=color, roles=roles, names=names))
    return "\n".join(lines)


# --------------------------------------------------------------- showdown
def _spread_text(spread: Spread, symbols: bool, color: bool) -> str:
    melds = " ".join(_meld(m, symbols, color) for m in spread.melds) or "no melds"
    dead = fmt_cards(sorted(spread.deadwood_cards, key=sort_key), symbols=symbols, color=color) or "none"
    return f"{melds}; deadwood {dead} = {spread.deadwood}"


def render_result(
    result: HandResult,
    *,
    symbols: bool = True,
    color: bool = False,
    roles: Roles | None = None,
    names: Sequence[str] | None = None,
) -> str:
    """The end of a hand: both spreads, the layoffs, the deadwoods, the points and why."""
    who = player_names(roles, names)
    kw = {"symbols": symbols, "color": color}
    head = _bold("== Showdown ==", color)
    if result.outcome == "dead":
        return f"{head}\nDead hand: the stock ran down with no knock. No score; the same box deals again."
    if result.outcome == "truncated":
        return f"{head}\nTruncated: the hand reached the turn limit with no knock. No score."
    if result.knocker is None or result.spreads is None or result.winner is None:
        raise ValueError(f"a {result.outcome!r} result needs a knocker, a winner and spreads")
    k, d = result.knocker, 1 - result.knocker
    kname, dname = _short(who[k]), _short(who[d])
    kdw, ddw = result.knocker_deadwood, result.defender_deadwood
    assert kdw is not None and ddw is not None
    kspread, dspread = result.spreads[k], result.spreads[d]
    verb = "goes gin" if result.outcome == "gin" else "knocks"
    discard = "" if result.knock_discard is None else f", discarding {fmt_card(result.knock_discard, **kw)}"
    lines = [head, f"{says(kname, verb)}{discard}."]
    lines.append(f"{says(who[k], 'spreads')}: {_spread_text(kspread, symbols, color)}")
    own = Spread(dspread.melds, dspread.deadwood_cards, dspread.deadwood)
    lines.append(f"{says(who[d], 'spreads')}: {_spread_text(own, symbols, color)}")
    if dspread.layoffs:
        laid = ", ".join(
            f"{fmt_card(c, **kw)} on {_meld(kspread.melds[i], symbols, color)}" for c, i in dspread.layoffs
        )
        lines.append(f"{says(dname, 'lays off')}: {laid}")
    elif result.outcome == "gin":
        lines.append(f"{dname} may not lay off on a gin hand.")
    else:
        lines.append(f"{says(dname, 'lays off')} nothing.")
    lines.append(f"Deadwood: {kname} {kdw}, {dname} {ddw}")
    pts = result.points
    if result.outcome == "gin":
        why = f"gin: {says(kname, 'scores')} {pts - ddw} (gin bonus) + {ddw} ({_possessive(dname)} deadwood) = {pts}"
    elif result.outcome == "knock":
        why = f"knock: {says(kname, 'scores')} {ddw} - {kdw} = {pts}"
    else:
        why = (
            f"undercut ({_possessive(dname)} {ddw} <= {_possessive(kname)} {kdw}): {says(dname, 'scores')} "
            f"{pts - (kdw - ddw)} (undercut bonus) + ({kdw} - {ddw}) = {pts}"
        )
    lines.append(_bold(f"Result: {why}", color))
    return "\n".join(lines)


# ------------------------------------------------------------------ moves
def move_label(state: HandState, action: int, *, symbols: bool = False) -> str:
    """How a legal move reads in the numbered list, e.g. ``discard 7S`` or ``take 7S``."""
    action = check_action(action)
    if action == DRAW_STOCK:
        return "draw from the stock"
    if action == TAKE_DISCARD:
        top = state.top_discard
        where = "the upcard" if state.phase in (Phase.OFFER_TEAM, Phase.OFFER_BOX) else "the discard"
        return f"take {card_str(top, symbols)} ({where})" if top is not None else "take"
    if action == PASS:
        return "pass"
    return action_str(action, symbols)


def render_moves(state: HandState, *, symbols: bool = False, columns: int = 1) -> str:
    """The legal moves as a list numbered 1..k in action-id order: ``[3] discard AC (deadwood 12)``.

    The numbers are what a person types (:func:`gin3_env.play.moves.parse_move`
    maps ``n`` back to the ``n``-th legal action), not action ids.

    Discards and knocks note the deadwood left after them; ``columns`` > 1 lays
    the list out in that many columns (row by row)."""
    if columns < 1:
        raise ValueError(f"columns must be >= 1, got {columns}")
    items = []
    kd = state.knock_deadwoods() if state.phase is Phase.DISCARD else {}
    for number, a in enumerate(state.legal_actions(), start=1):
        text = f"[{number}] {move_label(state, a, symbols=symbols)}"
        card = action_card(a)
        if card is not None and card in kd:
            left = kd[card]
            text += " (gin)" if is_knock(a) and left == 0 else f" (deadwood {left})"
        items.append(text)
    if columns == 1:
        return "\n".join(items)
    width = max(len(t) for t in items) + 2
    rows = [items[i : i + columns] for i in range(0, len(items), columns)]
    return "\n".join("".join(t.ljust(width) for t in row).rstrip() for row in rows)


def describe_action(state: HandState, action: int, name: str, *, reveal: bool = False, symbols: bool = False) -> str:
    """One line for a move about to be played in ``state`` by ``name``: ``"Box discards 7S"``; a knock
    that leaves no deadwood reads as the showdown words it: ``"Team goes gin, discarding 2C"``.

    A card drawn from the stock is named only with ``reveal`` (replays). A name
    ``"You"`` (or ``"You (...)"``) gets the second person: ``"You discard 7S"``."""
    action = check_action(action)
    top = state.top_discard
    top_text = card_str(top, symbols) if top is not None else "?"
    if action == PASS:
        return f"{says(name, 'passes')} on the upcard {top_text}"
    if action == TAKE_DISCARD:
        return f"{says(name, 'takes')} {top_text} from the discard pile"
    if action == DRAW_STOCK:
        if reveal and state.stock:
            return f"{says(name, 'draws')} {card_str(state.stock[-1], symbols)} from the stock"
        return f"{says(name, 'draws')} from the stock"
    card = action_card(action)
    assert card is not None
    if is_knock(action):
        gin = state.phase is Phase.DISCARD and state.knock_deadwoods().get(card) == 0
        return f"{says(name, 'goes gin' if gin else 'knocks')}, discarding {card_str(card, symbols)}"
    return f"{says(name, 'discards')} {card_str(card, symbols)}"
