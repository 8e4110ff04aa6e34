"""Golden hands from stacked decks: one test per rule (§4-§6, §9).

Every expected number here was worked out by hand from the rule book.
"""

from __future__ import annotations

import pytest
from conftest import action, deal, play, snapshot, stacked_deck

from gin3_env.engine.actions import DRAW_STOCK, PASS, TAKE_DISCARD, discard_action, knock_action
from gin3_env.engine.cards import card_str, parse_card, parse_cards
from gin3_env.engine.hand import BOX, TEAM, HandState
from gin3_env.engine.phases import Phase
from gin3_env.engine.result import HandResult, Spread
from gin3_env.engine.rules import Rules
from gin3_env.engine.showdown import score_knock
from gin3_env.errors import IllegalActionError

# Two melds and a set of 9s to be: A-2-3C, 4-5-6D, 9H 9S (+9D or 9C)
JUNK_BOX = "2H 4H 6H 8H TH 3S 5S 7S JD KD"  # no meld, no layoff anywhere below: 65 points


def c(text: str) -> int:
    return parse_card(text)


def bit(text: str) -> int:
    return sum(1 << x for x in parse_cards(text))


def melds(spread: Spread) -> set[str]:
    return {" ".join(card_str(x) for x in m) for m in spread.melds}


def dead(spread: Spread) -> str:
    return " ".join(card_str(x) for x in spread.deadwood_cards)


def layoffs(result: HandResult) -> set[tuple[str, str]]:
    """The defender's layoffs as (card, knocker meld it went onto)."""
    assert result.spreads is not None and result.knocker is not None
    knocker, defender = result.spreads[result.knocker], result.spreads[1 - result.knocker]
    return {
        (card_str(x), " ".join(card_str(y) for y in knocker.melds[i])) for x, i in defender.layoffs
    }


def expect_result(result: HandResult | None, **fields: object) -> HandResult:
    assert result is not None
    for name, value in fields.items():
        assert getattr(result, name) == value, (name, getattr(result, name), value)
    return result


def draw_and_discard(state: HandState, turns: int) -> None:
    """Each player in turn draws from the stock and discards the card drawn."""
    for _ in range(turns):
        drawn = state.stock[-1]
        play(state, "draw", discard_action(drawn))


# ---------------------------------------------------------------- deal
def test_stacked_deck_deals_as_the_rule_book_says() -> None:
    deck = stacked_deck("AC 2C 3C 4C 5C 6C 7C 8C 9C TC", "AD 2D 3D 4D 5D 6D 7D 8D 9D TD", "KS", "QS JS")
    state = HandState.deal(deck=deck)
    assert deck[0] == c("AC") and deck[1] == c("AD") and deck[20] == c("KS") and deck[21] == c("QS")
    assert state.hands == [bit("AC 2C 3C 4C 5C 6C 7C 8C 9C TC"), bit("AD 2D 3D 4D 5D 6D 7D 8D 9D TD")]
    assert state.discards == [c("KS")] and state.upcard == c("KS")
    assert len(state.stock) == 31
    assert state.stock[-1] == c("QS") and state.stock[-2] == c("JS")
    assert (state.phase, state.player, state.turns) == (Phase.OFFER_TEAM, TEAM, 0)
    assert state.legal_actions() == [TAKE_DISCARD, PASS]


# ------------------------------------------------------------- opening
def test_captain_takes_the_upcard() -> None:
    s = deal("AC 2C 3C 4D 5D 6D 9H 9S KS QH", JUNK_BOX, "9D")
    play(s, "take")
    assert (s.phase, s.player, s.taken) == (Phase.DISCARD, TEAM, c("9D"))
    assert s.hands[TEAM] == bit("AC 2C 3C 4D 5D 6D 9H 9S 9D KS QH")
    assert s.known[TEAM] == bit("9D") and s.discards == []
    held = parse_cards("AC 2C 3C 4D 5D 6D 9H 9S KS QH")
    # Not the card taken; knocks leave 10 (QH or KS) after the set of 9s.
    assert s.legal_actions() == sorted([discard_action(x) for x in held] + [knock_action(c("KS")),
                                                                           knock_action(c("QH"))])
    play(s, "QH")
    assert (s.phase, s.player, s.turns, s.taken) == (Phase.DRAW, BOX, 1, None)
    assert s.discards == [c("QH")] and s.known[TEAM] == bit("9D")
    assert s.legal_actions() == [DRAW_STOCK, TAKE_DISCARD]


def test_box_takes_the_upcard_after_the_captain_passes() -> None:
    s = deal("AC 2C 3C 4D 5D 6D 9H 9S KS QH", JUNK_BOX, "9D")
    play(s, "pass")
    assert (s.phase, s.player) == (Phase.OFFER_BOX, BOX)
    assert s.legal_actions() == [TAKE_DISCARD, PASS]
    assert s.declined == [bit("9D"), 0]
    play(s, "take")
    assert (s.phase, s.player, s.taken, s.known) == (Phase.DISCARD, BOX, c("9D"), [0, bit("9D")])
    assert discard_action(c("9D")) not in s.legal_actions()
    assert s.turns == 0
    play(s, "KD")
    assert (s.phase, s.player, s.turns, s.discards) == (Phase.DRAW, TEAM, 1, [c("KD")])
    assert s.legal_actions() == [DRAW_STOCK, TAKE_DISCARD]
    play(s, "take")  # the captain may take the box's discard
    assert s.taken == c("KD") and s.known == [bit("KD"), bit("9D")]


def test_pass_pass_forces_the_captain_to_draw_from_the_stock() -> None:
    s = deal("AC 2C 3C 4D 5D 6D 9H 9S KS QH", JUNK_BOX, "9D", stock="4S 8C")
    play(s, "pass", "pass")
    assert (s.phase, s.player, s.turns) == (Phase.DRAW, TEAM, 0)
    assert s.legal_actions() == [DRAW_STOCK]
    assert s.declined == [bit("9D"), bit("9D")]
    before = snapshot(s)
    with pytest.raises(IllegalActionError, match="take"):
        s.apply(TAKE_DISCARD)
    assert snapshot(s) == before
    play(s, "draw")
    assert s.hands[TEAM] & bit("4S") and s.taken is None and len(s.stock) == 30
    play(s, "4S")  # the card drawn from the stock may be discarded at once
    assert s.discards == [c("9D"), c("4S")]
    assert (s.phase, s.player) == (Phase.DRAW, BOX)
    assert s.legal_actions() == [DRAW_STOCK, TAKE_DISCARD]
    play(s, "draw")  # the box draws over the captain's 4S: public
    assert s.hands[BOX] & bit("8C") and s.declined == [bit("9D"), bit("9D 4S")]


# --------------------------------------------------------------- knocks
def test_knock_on_the_first_turn_plain_knock() -> None:
    s = deal("AC 2C 3C 4D 5D 6D 9H 9S KS QH", JUNK_BOX, "9D")
    play(s, "take", "knock KS")
    assert s.phase is Phase.OVER and s.turns == 1 and s.legal_actions() == []
    r = expect_result(s.result, outcome="knock", knocker=TEAM, winner=TEAM, points=55,
                      knocker_deadwood=10, defender_deadwood=65, knock_discard=c("KS"))
    assert r.returns == (55, -55)
    team, box = r.spreads
    assert melds(team) == {"AC 2C 3C", "4D 5D 6D", "9D 9H 9S"} and dead(team) == "QH"
    assert melds(box) == set() and box.deadwood == 65 and box.layoffs == ()
    assert s.hands[TEAM] == bit("AC 2C 3C 4D 5D 6D 9H 9S 9D QH")


def test_box_knocks_after_taking_the_upcard() -> None:
    s = deal(JUNK_BOX.replace("KD", "KC"), "AC 2C 3C 4D 5D 6D 9H 9S KS QH", "9D")
    play(s, "pass", "take", "knock QH")
    r = expect_result(s.result, outcome="knock", knocker=BOX, winner=BOX, points=55,
                      knocker_deadwood=10, defender_deadwood=65, knock_discard=c("QH"))
    assert r.returns == (-55, 55)
    assert melds(r.spreads[BOX]) == {"AC 2C 3C", "4D 5D 6D", "9D 9H 9S"}
    assert r.spreads[TEAM].deadwood == 65
    assert r.to_dict()["knocker"] == "box" and r.to_dict()["spreads"]["box"]["deadwood_cards"] == ["KS"]


GIN_TEAM = "AC 2C 3C 4C 5D 6D 7D 9H 9S KS"  # + 9D, knock KS: gin


def test_gin_scores_bonus_plus_deadwood_and_allows_no_layoffs() -> None:
    box = "5C 8D 9C JH QH KH 2H 3S 4S 6S"  # 5C, 8D and 9C would lay off after a plain knock
    s = deal(GIN_TEAM, box, "9D")
    play(s, "take", "knock KS")
    r = expect_result(s.result, outcome="gin", knocker=TEAM, winner=TEAM, points=25 + 37,
                      knocker_deadwood=0, defender_deadwood=37)
    assert r.returns == (62, -62)
    assert melds(r.spreads[TEAM]) == {"AC 2C 3C 4C", "5D 6D 7D", "9D 9H 9S"}
    assert r.spreads[BOX].layoffs == ()
    assert melds(r.spreads[BOX]) == {"JH QH KH"}
    assert dead(r.spreads[BOX]) == "5C 9C 8D 2H 3S 4S 6S"


def test_gin_against_zero_deadwood_defender_scores_nothing() -> None:
    box = "TC JC QC KC 6H 7H 8H 2S 2H 2D"  # all melded: D = 0
    s = deal(GIN_TEAM, box, "9D")
    play(s, "take", "knock KS")
    r = expect_result(s.result, outcome="gin", knocker=TEAM, winner=TEAM, points=25,
                      knocker_deadwood=0, defender_deadwood=0)
    assert r.returns == (25, -25)


def test_gin_bonus_option() -> None:
    s = deal(GIN_TEAM, "5C 8D 9C JH QH KH 2H 3S 4S 6S", "9D", gin_bonus=20)
    play(s, "take", "knock KS")
    expect_result(s.result, outcome="gin", points=20 + 37)


KNOCK_TEAM = "7C 7D 7H 3S 4S 5S 9H TH JH QD"  # + AC, knock QD: K = 1


def test_knock_with_layoffs_on_a_set_and_both_ends_of_runs_with_chains() -> None:
    # 7S onto the 7s; 2S then AS below 3-4-5S; 8H below and QH, KH above 9-T-J H.
    box = "7S 2S AS 8H QH KH 9C 4D JD 6C"
    s = deal(KNOCK_TEAM, box, "AC")
    play(s, "take", "knock QD")
    r = expect_result(s.result, outcome="knock", knocker=TEAM, winner=TEAM, points=29 - 1,
                      knocker_deadwood=1, defender_deadwood=29)
    assert melds(r.spreads[TEAM]) == {"7C 7D 7H", "3S 4S 5S", "9H TH JH"} and dead(r.spreads[TEAM]) == "AC"
    assert layoffs(r) == {("7S", "7C 7D 7H"), ("2S", "3S 4S 5S"), ("AS", "3S 4S 5S"),
                          ("8H", "9H TH JH"), ("QH", "9H TH JH"), ("KH", "9H TH JH")}
    assert dead(r.spreads[BOX]) == "6C 9C 4D JD" and melds(r.spreads[BOX]) == set()
    # Chains are laid inner card first.
    order = [card_str(x) for x, _ in r.spreads[BOX].layoffs]
    assert order.index("2S") < order.index("AS") and order.index("QH") < order.index("KH")


UNDERCUT_BOX = "AD 2D 3D 4D 5D KC KD KS 2H 3H"  # D = 5, nothing to lay off


def test_undercut() -> None:
    s = deal(KNOCK_TEAM, UNDERCUT_BOX, "8C")
    play(s, "take", "knock QD")
    r = expect_result(s.result, outcome="undercut", knocker=TEAM, winner=BOX, points=10 + 3,
                      knocker_deadwood=8, defender_deadwood=5)
    assert r.returns == (-13, 13)


def test_undercut_on_equal_deadwood() -> None:
    s = deal(KNOCK_TEAM, UNDERCUT_BOX, "5C")
    play(s, "take", "knock QD")
    expect_result(s.result, outcome="undercut", knocker=TEAM, winner=BOX, points=10,
                  knocker_deadwood=5, defender_deadwood=5)


def test_undercut_bonus_option() -> None:
    s = deal(KNOCK_TEAM, UNDERCUT_BOX, "8C", undercut_bonus=25)
    play(s, "take", "knock QD")
    expect_result(s.result, outcome="undercut", winner=BOX, points=25 + 3)


def test_knocker_picks_the_spread_that_blocks_a_layoff() -> None:
    # Spreading 3-6H lets the box lay off 7H 8H (K 4, D 14: +10); keeping 6H back
    # blocks them (K 10, D 29: +19), §6.2.
    s = deal("3H 4H 5H 6H 9C 9D 9S AC AD QS", "7H 8H JC QC KC JD QD KD TS 4C", "2D")
    play(s, "take", "knock QS")
    r = expect_result(s.result, outcome="knock", knocker=TEAM, winner=TEAM, points=19,
                      knocker_deadwood=10, defender_deadwood=29)
    assert melds(r.spreads[TEAM]) == {"3H 4H 5H", "9C 9D 9S"}
    assert dead(r.spreads[TEAM]) == "AC AD 2D 6H"
    assert r.spreads[BOX].layoffs == ()


def test_knocker_prefers_less_deadwood_among_equal_scores_and_knock_limit_option() -> None:
    # knock_limit 25: spreading 9-Q H (K 11) lets KH lay off (D 12): +1; keeping QH
    # back (K 21) blocks it (D 22): also +1. The smaller deadwood is shown.
    team = "9H TH JH QH 3C 3D 3S 5C 5D KC"
    box = "KH 6S 7S 8S JC JD JS 2H 4D 6D"
    s = deal(team, box, "AS", knock_limit=25)
    play(s, "take")
    assert knock_action(c("KC")) in s.legal_actions()  # 11 > 10 but within the option
    play(s, "knock KC")
    r = expect_result(s.result, outcome="knock", winner=TEAM, points=1,
                      knocker_deadwood=11, defender_deadwood=12)
    assert melds(r.spreads[TEAM]) == {"9H TH JH QH", "3C 3D 3S"}
    assert layoffs(r) == {("KH", "9H TH JH QH")}
    s = deal(team, box, "AS")
    play(s, "take")
    assert knock_action(c("KC")) not in s.legal_actions()  # default limit 10


def test_knock_limit_zero_is_gin_only() -> None:
    team = "AC 2C 3C 4D 5D 6D 9H 9S 9C 2S"
    s = deal(team, JUNK_BOX, "3H", knock_limit=0)
    play(s, "take")  # discarding 2S leaves 3H: 3 points, no knock
    assert not any(a >= 55 for a in s.legal_actions())
    s = deal(team, JUNK_BOX, "9D", knock_limit=0)
    play(s, "take")
    assert [a for a in s.legal_actions() if a >= 55] == [knock_action(c("2S"))]
    play(s, "knock 2S")
    expect_result(s.result, outcome="gin", points=25 + 65)


# ------------------------------------------------ the card just taken
TAKEN_TEAM = "AC 2C 3C 4D 5D 6D 9H 9S 9C 2S"  # deadwood 2


def test_card_taken_from_the_pile_cannot_be_discarded_or_knocked_with() -> None:
    s = deal(TAKEN_TEAM, JUNK_BOX, "KH")
    play(s, "take")
    legal = s.legal_actions()
    assert discard_action(c("KH")) not in legal and knock_action(c("KH")) not in legal
    assert knock_action(c("2S")) in legal  # leaves KH: 10
    for bad in (discard_action(c("KH")), knock_action(c("KH"))):
        before = snapshot(s)
        with pytest.raises(IllegalActionError, match="KH") as err:
            s.apply(bad)
        assert "DISCARD" in str(err.value) and "team" in str(err.value)
        assert snapshot(s) == before
    # On a later turn the card taken earlier may be discarded.
    play(s, "AC")
    draw_and_discard(s, 1)  # the box
    play(s, "draw")
    assert discard_action(c("KH")) in s.legal_actions()


def test_allow_discard_taken_card_option() -> None:
    s = deal(TAKEN_TEAM, JUNK_BOX, "KH", allow_discard_taken_card=True)
    play(s, "take")
    legal = s.legal_actions()
    assert discard_action(c("KH")) in legal and knock_action(c("KH")) in legal
    play(s, "knock KH")
    expect_result(s.result, outcome="knock", knocker_deadwood=2, defender_deadwood=65, points=63)
    s = deal(TAKEN_TEAM, JUNK_BOX, "KH", allow_discard_taken_card=True)
    play(s, "take", "KH")
    assert s.discards == [c("KH")] and s.hands[TEAM] == bit(TAKEN_TEAM)


# ------------------------------------------------- dead hand, truncation
def test_dead_hand_when_a_discard_leaves_two_in_the_stock() -> None:
    s = deal(TAKEN_TEAM, JUNK_BOX, "KH")
    play(s, "pass", "pass")
    draw_and_discard(s, 28)
    assert len(s.stock) == 3 and not s.is_over and s.turns == 28
    drawn = s.stock[-1]
    play(s, "draw")  # the captain's 29th draw leaves 2
    assert len(s.stock) == 2 and s.player == TEAM
    assert knock_action(drawn) in s.legal_actions()  # knocking is still allowed
    knocked = s.clone()
    play(knocked, knock_action(drawn))
    expect_result(knocked.result, outcome="knock", knocker_deadwood=2, defender_deadwood=65, points=63)
    play(s, discard_action(drawn))
    r = expect_result(s.result, outcome="dead", knocker=None, winner=None, points=0,
                      knocker_deadwood=None, defender_deadwood=None, spreads=None)
    assert r.returns == (0, 0) and s.phase is Phase.OVER and s.turns == 29


@pytest.mark.parametrize("dead_stock", [0, 5, 30])
def test_dead_stock_option(dead_stock: int) -> None:
    s = deal(TAKEN_TEAM, JUNK_BOX, "KH", dead_stock=dead_stock)
    play(s, "pass", "pass")
    draws = 31 - dead_stock
    draw_and_discard(s, draws - 1)
    assert not s.is_over and len(s.stock) == dead_stock + 1
    draw_and_discard(s, 1)
    expect_result(s.result, outcome="dead")
    assert len(s.stock) == dead_stock


def test_truncation_at_max_turns_passes_do_not_count() -> None:
    s = deal(TAKEN_TEAM, JUNK_BOX, "KH", max_turns=4)
    play(s, "pass", "pass")
    draw_and_discard(s, 3)
    assert not s.is_over and s.turns == 3
    draw_and_discard(s, 1)
    r = expect_result(s.result, outcome="truncated", winner=None, points=0)
    assert r.returns == (0, 0) and s.turns == 4 and len(s.stock) == 27


def test_default_cap_stops_an_endless_exchange_of_discards() -> None:
    # Both keep taking the other's discard: the stock never shrinks.
    s = deal(TAKEN_TEAM, JUNK_BOX, "KH")
    while not s.is_over:
        play(s, "take")
        keep = s.taken
        play(s, discard_action(next(x for x in s.hand_cards(s.player) if x != keep)))
    expect_result(s.result, outcome="truncated")
    assert s.turns == 200 and len(s.stock) == 31


# ----------------------------------------------------- illegal actions
def test_illegal_actions_leave_the_state_unchanged() -> None:
    s = deal(TAKEN_TEAM, JUNK_BOX, "KH", stock="QS")
    script = ["pass", "pass", "draw", "QS", "take"]
    for move in [*script, "2H"]:
        legal = set(s.legal_actions())
        for a in range(107):
            if a in legal:
                continue
            before = snapshot(s)
            with pytest.raises(IllegalActionError, match=f"illegal action {a} "):
                s.apply(a)
            assert snapshot(s) == before
        for bad in (-1, 107, 1.5, "draw", None, True):
            before = snapshot(s)
            with pytest.raises(ValueError):
                s.apply(bad)  # type: ignore[arg-type]
            assert snapshot(s) == before
        play(s, action(move))
    assert s.actions == [PASS, PASS, DRAW_STOCK, discard_action(c("QS")), TAKE_DISCARD, discard_action(c("2H"))]


def test_no_action_after_the_hand_is_over() -> None:
    s = deal("AC 2C 3C 4D 5D 6D 9H 9S KS QH", JUNK_BOX, "9D")
    play(s, "take", "knock KS")
    before = snapshot(s)
    with pytest.raises(IllegalActionError, match="over"):
        s.apply(DRAW_STOCK)
    assert snapshot(s) == before


def test_rules_travel_with_the_hand() -> None:
    rules = Rules(knock_limit=0, max_turns=9)
    s = HandState.deal(rules, deck=stacked_deck(TAKEN_TEAM, JUNK_BOX, "KH"))
    assert s.rules is rules and s.log()["rules"] == rules.to_dict()


@pytest.mark.parametrize(
    ("k", "d", "expected"),
    [(0, 0, ("gin", True, 25)), (0, 7, ("gin", True, 32)), (3, 9, ("knock", True, 6)),
     (9, 10, ("knock", True, 1)), (5, 5, ("undercut", False, 10)), (8, 5, ("undercut", False, 13)),
     (10, 0, ("undercut", False, 20))],
)
def test_score_knock_table(k: int, d: int, expected: tuple[str, bool, int]) -> None:
    assert score_knock(k, d, Rules()) == expected
    outcome, won, points = expected
    bonus = {"gin": 20 - 25, "undercut": 25 - 10, "knock": 0}[outcome]
    assert score_knock(k, d, Rules(gin_bonus=20, undercut_bonus=25)) == (outcome, won, points + bonus)
