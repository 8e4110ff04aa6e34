"""The learnt decisions as data: one row per kind of decision a gate can switch.

A *gate* is a fitted switch at one kind of decision: where the heuristic (:func:`.heuristic_kernels.act_row`)
makes a decision of its kind, the gate scores each of the kind's *alternatives* from the player's own
observation and legal mask and plays the alternative of the highest score where that exceeds its
threshold. Each row of :data:`DECISIONS` says everything the code needs about a kind:

- ``name`` and ``code`` (its slot in the stacked gate argument of :mod:`.gates`, and its branch in the
  features and alternatives kernels of :mod:`.decision_features`);
- ``features``: the names of its features, in the order the features kernel writes them (the kernel
  writes each at an index named from this tuple);
- ``alternatives``: what the alternatives are, and ``max_alternatives``: how many a decision has at most;
- ``per_deal``: the most label rows a label run keeps of one deal (one row per alternative);
- ``played_out``: the moves a label run plays out per continuation (the base and each alternative;
  a knock ends the hand, so it is played once);
- ``values``: the names of the label values in a shard (alternative, its standard error, the base);
- ``options``: the gate's options (:class:`GateOption`: a name, a default and the rule by which it
  leaves a decision to the heuristic, read from one feature), the same rule in play and in the fit.

Adding a kind of decision: a row here, its branch in :mod:`.decision_features` and a stage in the
gate config (docs/design.md walks it). This module imports neither numba nor the kernels.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = [
    "AT_LEAST", "DECISIONS", "DISCARD_DECISION", "DISCARD_FEATURES", "DRAW_DECISION", "DRAW_FEATURES",
    "KNOCK_DECISION", "KNOCK_FEATURES", "MAX_ALTERNATIVES", "MAX_FEATURES", "MAX_OPTIONS", "NUM_DECISIONS",
    "ZERO_WHEN_SET", "Decision", "GateOption", "decision", "feature_index",
]

KNOCK_FEATURES = (
    "knock_deadwood",  # the deadwood the heuristic would knock with
    "dw_is_1", "dw_is_2", "dw_is_3", "dw_is_4", "dw_is_5",
    "hold_deadwood",  # deadwood after the heuristic's best plain discard
    "stock",  # cards left in the stock
    "gin_outs",  # unseen cards that would give gin after holding
    "improve_outs",  # unseen cards that would lower the deadwood after holding
    "mean_next_deadwood",  # mean best deadwood after drawing one unseen card
    "unseen",  # cards this player has not seen
    "pile",  # cards in the discard pile (with the top)
    "opp_known",  # cards the opponent took from the pile and still holds
    "opp_known_melded",  # of those, cards that meld with each other
    "opp_known_outs",  # unseen cards that would meld with the opponent's known cards
    "opp_declined",  # cards the opponent passed or drew over
    "own_declined",  # cards this player passed or drew over
    "hold_danger",  # the heuristic's danger of the hold discard
    "hold_card_points",  # the points of the hold discard
    "took_discard",  # this turn's card came from the pile
    "role_box",  # 1 for the box, 0 for the team
    "turn",  # turns played / the turn limit
    "dw_x_stock",  # knock deadwood times stock / 30
    "gin_outs_x_stock",  # gin outs times stock / 30
)

DRAW_FEATURES = (
    "heuristic_takes",  # 1 where the heuristic takes the face-up card (the gate's alternative: not taking)
    "offer",  # the opening offer (take or pass), not a turn's draw
    "deadwood_now",  # the best deadwood of the hand before the draw
    "take_deadwood",  # the least deadwood after taking the face-up card and the best discard
    "take_gain",  # deadwood_now - take_deadwood
    "top_melds",  # the face-up card sits in a meld after taking it (as the heuristic reckons it)
    "top_points",  # the face-up card's points
    "top_is_out",  # the face-up card would extend a meld or a partial meld of the hand
    "draw_mean_deadwood",  # mean least deadwood after drawing one unseen card and the best discard
    "draw_beats_take",  # share of unseen cards whose draw leaves less deadwood than taking
    "draw_knockable",  # share of unseen cards whose draw leaves a knockable hand (the game's knock limit)
    "draw_gin",  # share of unseen cards whose draw leaves gin
    "take_knockable",  # taking leaves a knockable hand
    "take_improve_outs",  # unseen cards that would lower the deadwood after taking
    "take_gin_outs",  # unseen cards that would give gin after taking
    "hand_outs",  # unseen cards that extend a meld or partial meld of the hand now
    "drop_danger",  # the heuristic's danger of the card taking would make it discard
    "drop_points",  # that card's points
    "stock",  # cards left in the stock
    "unseen",  # cards this player has not seen
    "pile",  # cards in the discard pile (with the top)
    "opp_known",  # cards the opponent took from the pile and still holds
    "opp_known_outs",  # unseen cards that would meld with the opponent's known cards
    "opp_declined",  # cards the opponent passed or drew over
    "own_declined",  # cards this player passed or drew over
    "role_box",  # 1 for the box, 0 for the team
    "turn",  # turns played / the turn limit
    "take_gain_x_stock",  # take_gain times stock / 30
    "takes_x_take_gain",  # heuristic_takes times take_gain
)

DISCARD_FEATURES = (
    "rank",  # the alternative's rank in the heuristic's discard scores (1: second best, 2: third)
    "score_gap",  # the alternative's score minus the heuristic's choice's (>= 0)
    "base_deadwood",  # the deadwood after the heuristic's discard
    "alt_deadwood",  # the deadwood after the alternative discard
    "deadwood_diff",  # alt_deadwood - base_deadwood
    "base_improve_outs",  # unseen cards that would lower the deadwood after the heuristic's discard
    "alt_improve_outs",  # the same after the alternative
    "improve_outs_diff",  # alt - base
    "base_gin_outs",  # unseen cards that would give gin after the heuristic's discard
    "alt_gin_outs",  # the same after the alternative
    "base_danger",  # the heuristic's danger of its discard
    "alt_danger",  # the heuristic's danger of the alternative
    "danger_diff",  # alt - base
    "base_points",  # the points of the heuristic's discard
    "alt_points",  # the points of the alternative
    "base_opp_out",  # the heuristic's discard would meld with the opponent's known cards
    "alt_opp_out",  # the alternative would
    "base_in_meld",  # the heuristic's discard sits in a best meld of the hand (11 cards)
    "alt_in_meld",  # the alternative does
    "alt_knockable",  # the alternative leaves deadwood within the game's knock limit
    "base_knockable",  # the heuristic's discard does
    "stock",  # cards left in the stock
    "unseen",  # cards this player has not seen
    "opp_known",  # cards the opponent took from the pile and still holds
    "opp_declined",  # cards the opponent passed or drew over
    "role_box",  # 1 for the box, 0 for the team
    "turn",  # turns played / the turn limit
    "deadwood_diff_x_stock",  # deadwood_diff times stock / 30
    "outs_diff_x_stock",  # improve_outs_diff times stock / 30
)

AT_LEAST, ZERO_WHEN_SET = 0, 1  # the rules of a gate option (GateOption.rule)


@dataclass(frozen=True)
class GateOption:
    """An option of a gate: where its rule fails on a decision's features, the gate leaves that
    alternative to the heuristic. ``AT_LEAST``: the gate acts only where ``feature >= value``;
    ``ZERO_WHEN_SET``: where the value is true, the gate acts only where ``feature == 0``."""

    name: str
    default: int | bool
    feature: str
    rule: int


@dataclass(frozen=True)
class Decision:
    """A kind of learnt decision (see the module doc)."""

    name: str
    code: int
    features: tuple[str, ...]
    alternatives: str
    max_alternatives: int
    per_deal: int
    played_out: int
    values: tuple[str, str, str]
    options: tuple[GateOption, ...] = ()

    def option(self, name: str) -> GateOption:
        for o in self.options:
            if o.name == name:
                return o
        raise KeyError(name)


KNOCK_DECISION, DRAW_DECISION, DISCARD_DECISION = 0, 1, 2  # the kind codes: each row's slot

DECISIONS: tuple[Decision, ...] = (
    Decision("knock", KNOCK_DECISION, KNOCK_FEATURES,
             "where the heuristic would knock: hold, its best plain discard (the knock actions masked out)",
             1, 8, 1, ("hold_v", "hold_se", "knock_v"),
             (GateOption("min_deadwood", 1, "knock_deadwood", AT_LEAST),)),
    Decision("draw", DRAW_DECISION, DRAW_FEATURES,
             "at a choice between taking the face-up card and not: the other move",
             1, 16, 2, ("alt_v", "alt_se", "base_v"),
             (GateOption("only_take", True, "heuristic_takes", ZERO_WHEN_SET),)),
    Decision("discard", DISCARD_DECISION, DISCARD_FEATURES,
             "at a plain discard: the heuristic's second and third best plain discards by its own scores",
             2, 16, 3, ("alt_v", "alt_se", "base_v")),
)
NUM_DECISIONS = len(DECISIONS)
MAX_FEATURES = max(len(d.features) for d in DECISIONS)
MAX_ALTERNATIVES = max(d.max_alternatives for d in DECISIONS)
MAX_OPTIONS = max(1, max(len(d.options) for d in DECISIONS))
assert all(d.code == i for i, d in enumerate(DECISIONS)), "a row's code is its place in the table"


def decision(name: str) -> Decision:
    """The row of the decision ``name`` (a ``ValueError`` naming the known ones otherwise)."""
    for d in DECISIONS:
        if d.name == name:
            return d
    raise ValueError(f"unknown decision {name!r}; the decisions are {[d.name for d in DECISIONS]}")


def feature_index(code: int, name: str) -> int:
    """The index of feature ``name`` of the decision ``code``: the kernels write each feature there."""
    return DECISIONS[code].features.index(name)
