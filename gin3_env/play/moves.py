"""Reading a person's move: a number from the list or the move in words.

``parse_move(text, state)`` returns the action id of the player to act, or raises
``ValueError`` with a message meant for the person ("8H is not in your hand").
Accepted forms (case does not matter)::

    3                       the number shown in the list (1..k, the k legal moves in order)
    draw | d | stock        draw from the stock
    take | t                take the top discard (the upcard in the opening)
    pass | p                refuse the upcard (opening only)
    7S | 7s | 7♠ | 10h      discard that card (also "discard 7S")
    knock 7S | k 7S         knock, discarding 7S (also "gin 7S")
"""

from __future__ import annotations

from ..engine.actions import DRAW_STOCK, PASS, TAKE_DISCARD, discard_action, knock_action
from ..engine.cards import card_str, parse_card
from ..engine.hand import HandState
from ..engine.phases import Phase

HELP = """\
Moves: type the number in brackets, or the move in words:
  draw (d)          draw the top card of the stock
  take (t)          take the top card of the discard pile (the upcard in the opening)
  pass (p)          refuse the upcard (only in the opening)
  7S / 7s / 7♠      discard that card (10 is T or 10: TH, 10h); also "discard 7S"
  knock 7S (k 7S)   knock, discarding 7S: the other 10 cards need deadwood <= the knock limit
Other: help (h, ?) shows this, Enter shows the table again, quit (q) leaves the game.
Goal: form melds (sets of 3-4 same rank, runs of 3+ in one suit) and cut your deadwood
(A=1, 2-10 face, J/Q/K=10); knock at 10 or less, gin at 0 scores a 25 bonus."""

_DRAW = {"draw", "d", "stock", "s"}
_TAKE = {"take", "t", "pick"}
_PASS = {"pass", "p"}
_DISCARD = {"discard", "drop", "x"}
_KNOCK = {"knock", "k", "gin", "g"}


def _phase_problem(state: HandState, wanted: str) -> str:
    """Why a move of kind ``wanted`` (draw, take, pass, discard) is not possible now."""
    phase = state.phase
    if phase is Phase.OVER:
        return "the hand is over"
    if phase in (Phase.OFFER_TEAM, Phase.OFFER_BOX):
        return f"you cannot {wanted} now: in the opening you take the upcard or pass"
    if phase is Phase.DISCARD:
        return f"you cannot {wanted} now: you hold 11 cards, discard one or knock"
    if wanted == "take":
        return "you cannot take the discard now: both passed on the upcard, so draw from the stock"
    if wanted == "pass":
        return "you can pass only on the upcard in the opening: draw or take"
    return f"you cannot {wanted} yet: draw or take a card first"


def _card(text: str, state: HandState) -> int:
    try:
        card = parse_card(text)
    except ValueError:
        raise ValueError(f"{text!r} is not a card (try 7S, TH or 10h, QC, A♠)") from None
    if not state.hands[state.player] >> card & 1:
        raise ValueError(f"{card_str(card)} is not in your hand")
    if card == state.taken and not state.rules.allow_discard_taken_card:
        raise ValueError(f"you cannot discard the card you just took ({card_str(card)})")
    return card


def parse_move(text: str, state: HandState) -> int:
    """The action id for ``text`` played by ``state.player``; ``ValueError`` saying what is wrong."""
    raw = text.strip().replace(",", " ").split()
    words = [w.lower() for w in raw]
    if not words:
        raise ValueError("type a move: its number, or draw / take / pass / a card / knock and a card")
    legal = state.legal_actions()
    if len(words) == 1 and words[0].isdigit():
        number = int(words[0])
        if 1 <= number <= len(legal):
            return legal[number - 1]
        raise ValueError(f"{number} is not one of the listed moves")  # the list is shown again
    verb, rest = words[0], raw[1:]
    if verb in _DRAW and not rest:
        if DRAW_STOCK in legal:
            return DRAW_STOCK
        raise ValueError(_phase_problem(state, "draw"))
    if verb in _TAKE and not rest:
        if TAKE_DISCARD in legal:
            return TAKE_DISCARD
        raise ValueError(_phase_problem(state, "take"))
    if verb in _PASS and not rest:
        if PASS in legal:
            return PASS
        raise ValueError(_phase_problem(state, "pass"))
    if verb in _KNOCK:
        return _knock(rest, state)
    if verb in _DISCARD:
        if len(rest) != 1:
            raise ValueError("say which card to discard, e.g. discard 7S")
        raw = rest
    if len(raw) == 1:
        if state.phase is not Phase.DISCARD:
            try:
                parse_card(raw[0])
            except ValueError:
                raise ValueError(f"I don't understand {text.strip()!r} (type help)") from None
            raise ValueError(_phase_problem(state, "discard"))
        return discard_action(_card(raw[0], state))
    raise ValueError(f"I don't understand {text.strip()!r} (type help)")


def _knock(rest: list[str], state: HandState) -> int:
    if state.phase is not Phase.DISCARD:
        raise ValueError(_phase_problem(state, "knock"))
    limit = state.rules.knock_limit
    kd = state.knock_deadwoods()
    if not rest:
        options = [a for a in state.legal_actions() if a >= knock_action(0)]
        if not options:
            raise ValueError(f"knock needs deadwood <= {limit}: your best discard leaves {min(kd.values())}")
        cards = " ".join(card_str(a - knock_action(0)) for a in options)
        raise ValueError(f"say which card to discard, e.g. knock {cards.split()[0]} (you can knock with {cards})")
    if len(rest) != 1:
        raise ValueError("knock takes one card, e.g. knock 7S")
    card = _card(rest[0], state)
    if kd[card] > limit:
        raise ValueError(f"knock needs deadwood <= {limit}: discarding {card_str(card)} leaves {kd[card]}")
    return knock_action(card)
