"""Playing policies through a hand or a match: the one loop every caller shares.

At each decision the acting player's :class:`~gin3_env.engine.PlayerView` is built
once, the observation and the mask are derived from it (the match observation for
a match), the policy acts, and an illegal answer is a ``ValueError`` naming the
policy. A seat or player whose policy is ``None`` is not played: the loop stops
when it is to act, so a caller (a learning agent's env, a person at the terminal)
can take that turn itself.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ..engine.hand import HandState
from ..engine.match import MatchState, Roles
from ..engine.result import HandResult
from ..errors import IllegalActionError
from ..observation.encoding import action_mask, encode, encode_match
from .policy import Observation, Policy, introduce, policy_name

HandMove = Callable[[HandState, int], None]  # (state before the move, action)
MatchMove = Callable[[MatchState, int, int], None]  # (match before the move, seat, action)


def _act(policy: Policy, observation: Observation, legal: list[int], who: str) -> int:
    action = policy.act(observation)
    try:
        value = int(action)
    except (TypeError, ValueError):
        raise ValueError(f"policy {policy_name(policy)!r} ({who}) returned {action!r}, not an action id") from None
    if value not in legal:
        raise ValueError(
            f"policy {policy_name(policy)!r} ({who}) played an illegal action {value} (legal: {legal})"
        )
    return value


def run_hand(
    state: HandState,
    policies: Sequence[Policy | None],
    *,
    on_move: HandMove | None = None,
) -> HandResult | None:
    """Let ``policies[player]`` (TEAM, BOX) move until the hand is over or the player to
    act has no policy; returns the result if the hand ended. At a hand's first move each player with a
    ``face`` method is told whom it faces (:func:`~.policy.introduce`)."""
    if not state.actions:
        introduce(policies[0], policies[1])
    while not state.is_over:
        p = state.player
        policy = policies[p]
        if policy is None:
            return None
        view = state.view(p)
        legal = view.legal_actions()
        action = _act(policy, {"observation": encode(view), "action_mask": action_mask(view)}, legal, f"player {p}")
        if on_move is not None:
            on_move(state, action)
        try:
            state.apply(action)
        except IllegalActionError as exc:  # pragma: no cover - _act checked it
            raise ValueError(f"policy {policy_name(policy)!r} played an illegal action: {exc}") from None
    return state.result


def run_match(
    match: MatchState,
    seat_policies: Sequence[Policy | None],
    *,
    max_hands: int | None = None,
    on_move: MatchMove | None = None,
    on_hand: Callable[[MatchState, Roles, HandResult], None] | None = None,
) -> list[tuple[Roles, HandResult]]:
    """Let each seat's policy act for it until the match is over, the seat to act has no
    policy, or ``max_hands`` hands have been played; returns the hands that ended, each
    with the roles it was played with. ``on_hand`` is called after each of them."""
    ended: list[tuple[Roles, HandResult]] = []
    while not match.is_over and (max_hands is None or len(match.history) < max_hands):
        seat = match.acting_seat
        assert seat is not None
        policy = seat_policies[seat]
        if policy is None:
            break
        hand = match.hand
        if not hand.actions:  # a new hand: its two players learn whom they face
            roles = match.hand_roles
            introduce(seat_policies[roles.captain], seat_policies[roles.box])
        view = hand.view(hand.player)
        obs = {"observation": encode_match(match, seat, view), "action_mask": action_mask(view)}
        action = _act(policy, obs, view.legal_actions(), f"seat {seat}")
        if on_move is not None:
            on_move(match, seat, action)
        roles = match.hand_roles
        result = match.apply(action)
        if result is not None:
            ended.append((roles, result))
            if on_hand is not None:
                on_hand(match, roles, result)
    return ended
