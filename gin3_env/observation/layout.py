"""The observation vector's layout: one table, read by the encoder, the decoder and the docs.

The observation is a flat ``float32`` vector: seven 52-card planes, then
scalar features. Card planes are indexed by the card id ``suit * 13 + rank``.

| slice     | feature                                                            |
|-----------|--------------------------------------------------------------------|
| 0:52      | own hand                                                           |
| 52:104    | top of the discard pile (one-hot; the upcard in the opening)       |
| 104:156   | the rest of the discard pile                                       |
| 156:208   | cards the opponent took from the discard pile and still holds      |
| 208:260   | cards the opponent declined (passed upcard, discards drawn over)   |
| 260:312   | cards this player declined                                         |
| 312:364   | the card this player took from the pile this turn (not discardable)|
| 364:369   | phase one-hot: offer to team, offer to box, draw, discard, over    |
| 369:371   | own role one-hot: team (captain), box                              |
| 371       | stock size / 31                                                    |
| 372       | own deadwood / 100 (after the best discard when holding 11 cards)  |
| 373       | turns played / max_turns                                           |

The match observation appends the seat's role one-hot (box, captain, sitter)
and the three totals / target (own seat first): 380 entries.
"""

from __future__ import annotations

NUM_PLANES = 7
PLANE = 52
HAND_PLANE, TOP_PLANE, PILE_PLANE, OPP_KNOWN_PLANE, OPP_DECLINED_PLANE, OWN_DECLINED_PLANE, TAKEN_PLANE = (
    range(NUM_PLANES)
)
PHASE_OFFSET = NUM_PLANES * PLANE  # 364
ROLE_OFFSET = PHASE_OFFSET + 5  # 369
STOCK_INDEX = ROLE_OFFSET + 2  # 371
DEADWOOD_INDEX = STOCK_INDEX + 1  # 372
TURN_INDEX = DEADWOOD_INDEX + 1  # 373
OBS_SIZE = TURN_INDEX + 1  # 374
STOCK_SCALE = 31  # the stock size is encoded as stock / 31 (the stock holds 31 cards after the deal)

# Each row: (name, start, stop) of the layout above; the env docstring test reads it.
LAYOUT: tuple[tuple[str, int, int], ...] = (
    ("hand", 0, 52),
    ("top_discard", 52, 104),
    ("discard_pile", 104, 156),
    ("opponent_known", 156, 208),
    ("opponent_declined", 208, 260),
    ("own_declined", 260, 312),
    ("taken_this_turn", 312, 364),
    ("phase", 364, 369),
    ("role", 369, 371),
    ("stock_size", 371, 372),
    ("deadwood", 372, 373),
    ("turns", 373, 374),
)

MATCH_ROLE_OFFSET = OBS_SIZE  # 374: own role one-hot: box, captain, sitter
MATCH_SCORE_OFFSET = MATCH_ROLE_OFFSET + 3  # 377: totals / target of self, next seat, seat after
MATCH_OBS_SIZE = MATCH_SCORE_OFFSET + 3  # 380
MATCH_LAYOUT: tuple[tuple[str, int, int], ...] = (
    *LAYOUT,
    ("match_role", MATCH_ROLE_OFFSET, MATCH_ROLE_OFFSET + 3),
    ("match_scores", MATCH_SCORE_OFFSET, MATCH_SCORE_OFFSET + 3),
)
