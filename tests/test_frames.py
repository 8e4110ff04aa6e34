"""Frames of the table (gin3_env.render): golden pictures, privacy, determinism, rgb_array in every env.

The golden PNGs under ``tests/golden/`` are frames of stacked deals; a frame is
compared with a small tolerance (Pillow's font rasteriser may move a few edge
pixels between versions). To redraw them after a deliberate change of the
picture: ``GIN3_UPDATE_GOLDEN=1 pytest tests/test_frames.py`` (then look at them).
"""

from __future__ import annotations

import os
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest
from conftest import deal, play, stacked_deck
from hypothesis import given, settings
from hypothesis import strategies as st

import gin3_env
from gin3_env.engine.actions import DRAW_STOCK, PASS, TAKE_DISCARD, discard_action
from gin3_env.engine.cards import cards_of, parse_card
from gin3_env.engine.hand import BOX, TEAM, HandState
from gin3_env.engine.match import Roles
from gin3_env.render.frame import HEIGHT, WIDTH, table_frame
from gin3_env.render.model import HIDDEN, table_model

PIL = pytest.importorskip("PIL")
from PIL import Image  # noqa: E402

GOLDEN = Path(__file__).resolve().parent / "golden"
TEAM_MELDS = "AC 2C 3C 7D 7H 7S 9H TH JH"
BOX_JUNK = "8H 7C 4C KC QD 5S 2D 6H KS 9C"


def knock_state() -> HandState:
    """The team takes the upcard 5D and knocks with 4D: the box lays off 4C, 7C and 8H."""
    return play(deal(f"{TEAM_MELDS} 4D", BOX_JUNK, "5D"), "take", "knock 4D")


def discard_phase_state() -> HandState:
    """Both pass the upcard; the team draws 5C from the stock and is to discard."""
    return play(deal(f"{TEAM_MELDS} 4D", BOX_JUNK, "QH", stock="5C"), "pass", "pass", "draw")


def assert_close_to_golden(frame: np.ndarray, name: str, *, may_update: bool = True) -> None:
    path = GOLDEN / name
    if may_update and os.environ.get("GIN3_UPDATE_GOLDEN"):
        path.parent.mkdir(exist_ok=True)
        Image.fromarray(frame).save(path, optimize=True)
    golden = np.asarray(Image.open(path).convert("RGB"), dtype=np.int16)
    assert frame.shape == golden.shape, f"{name}: frame {frame.shape}, golden {golden.shape}"
    diff = np.abs(frame.astype(np.int16) - golden)
    mean = float(diff.mean())
    far = float((diff.max(axis=2) > 64).mean())
    # One card of another rank (9C for 8C) moves ~300 pixels (0.05%) by more than 64 levels.
    assert mean < 0.5 and far < 0.0002, f"{name}: mean difference {mean:.3f}, {far:.3%} of pixels far off"


# ------------------------------------------------------------------ golden
def test_golden_showdown_frame() -> None:
    frame = table_frame(knock_state(), None)
    assert frame.shape == (HEIGHT, WIDTH, 3) and frame.dtype == np.uint8
    assert_close_to_golden(frame, "frame_showdown.png")


def test_golden_team_view_in_a_match() -> None:
    roles = Roles(box=1, captain=0, sitter=2)
    frame = table_frame(discard_phase_state(), TEAM, roles=roles, scores=[12, 30, 5], seat_names=["A", "B", "C"])
    assert_close_to_golden(frame, "frame_team_view.png")


def test_golden_spectator_frame_mid_hand() -> None:
    """Both hands, a fanned pile, cards known from the pile outlined, the last moves."""
    state = _random_play(seed=11, moves=33)
    assert not state.is_over and len(state.discards) > 6 and state.known[0] and state.known[1]
    assert_close_to_golden(table_frame(state, None), "frame_spectator.png")


def test_a_different_table_is_far_from_the_golden_frame() -> None:
    """The tolerance is small enough to notice a changed card."""
    other = play(deal(f"{TEAM_MELDS} 4D", "8H 7C 4C KC QD 5S 2D 6H KS 8C", "5D"), "take", "knock 4D")
    with pytest.raises(AssertionError, match="difference"):
        assert_close_to_golden(table_frame(other, None), "frame_showdown.png", may_update=False)


def test_frames_are_deterministic() -> None:
    state = discard_phase_state()
    first = table_frame(state, TEAM)
    assert np.array_equal(first, table_frame(state.clone(), TEAM))
    assert np.array_equal(table_frame(knock_state(), None), table_frame(knock_state(), None))


# ------------------------------------------------------------------ what the model shows
def test_model_groups_melds_and_marks_layoffs_as_the_text_does() -> None:
    model = table_model(knock_state(), None)
    team, box = model["rows"][1], model["rows"][0]
    assert team["name"] == "Team" and box["name"] == "Box"
    melds = [g for g in team["groups"] if g["kind"] == "meld"]
    laid = {c for g in melds for c, mark in g["cards"] if mark == "layoff"}
    assert laid == {parse_card("4C"), parse_card("7C"), parse_card("8H")}
    assert model["showdown"][-1] == "Result: knock: Team scores 52 - 5 = 47"
    assert model["showdown"][0] == "Team knocks, discarding 4♦."
    assert model["over"] and not team["to_act"]
    start = table_model(deal(f"{TEAM_MELDS} 4D", BOX_JUNK, "5D"), TEAM)
    own = start["rows"][1]
    assert [len(g["cards"]) for g in own["groups"]] == [3, 3, 3, 1] and own["to_act"]
    assert start["rows"][0]["groups"] == [{"kind": "hidden", "cards": [[HIDDEN, ""]] * 10}]
    assert start["title"] == "Opening - Team may take the upcard 5♦ or pass"


def test_taken_card_and_known_cards_are_marked() -> None:
    state = play(deal(f"{TEAM_MELDS} 4D", BOX_JUNK, "5D"), "take")
    team_view = table_model(state, TEAM)
    marks = {c: m for g in team_view["rows"][1]["groups"] for c, m in g["cards"]}
    assert marks[parse_card("5D")] == "taken"
    assert "(Team took 5♦ and may not discard it this turn)" in team_view["notes"]
    box_view = table_model(state, BOX)
    top = box_view["rows"][0]
    assert top["groups"][0] == {"kind": "known", "cards": [[parse_card("5D"), "taken"]]}
    assert top["groups"][1]["cards"] == [[HIDDEN, ""]] * 10


def _swap_hidden(state: HandState, viewer: int, pick: int) -> HandState:
    """The same hand from a deck where one of the opponent's hidden cards and a stock card trade places."""
    other = 1 - viewer
    hidden = [c for c in cards_of(state.hands[other]) if not state.known[other] >> c & 1]
    a, b = hidden[pick % len(hidden)], state.stock[pick % len(state.stock)]
    deck = [b if c == a else a if c == b else c for c in state.deck]
    twin = HandState.deal(state.rules, deck=deck)
    for action in state.actions:
        twin.apply(action)
    assert twin.hands[other] != state.hands[other]
    return twin


def _random_play(seed: int, moves: int) -> HandState:
    rng = np.random.default_rng(seed)
    state = HandState.deal(rng=rng)
    for _ in range(moves):
        legal = [a for a in state.legal_actions() if a < 55]  # no knock: the hand stays private
        state.apply(int(rng.choice(legal)))
        if state.is_over:
            break
    return state


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 10_000), st.integers(0, 40), st.sampled_from([TEAM, BOX]), st.integers(0, 100))
def test_an_agents_view_does_not_depend_on_the_opponents_hidden_cards(
    seed: int, moves: int, viewer: int, pick: int
) -> None:
    state = _random_play(seed, moves)
    if state.is_over or not state.stock:
        return
    twin = _swap_hidden(state, viewer, pick)
    assert table_model(state, viewer) == table_model(twin, viewer)
    assert table_model(state, None) != table_model(twin, None)


def test_agent_frames_equal_for_two_deals_differing_in_hidden_cards_spectator_frames_differ() -> None:
    stock = "5C 6C QS"  # drawn in this order; the box's hidden cards below differ
    a = deal(f"{TEAM_MELDS} 4D", BOX_JUNK, "KD", stock=stock)
    b = deal(f"{TEAM_MELDS} 4D", "8H 7C 4C KC QD 5S 2D 6H KS 2S", "KD", stock=stock)  # 9C -> 2S
    for state in (a, b):
        for action in (PASS, PASS, DRAW_STOCK, discard_action(parse_card("5C")), TAKE_DISCARD):
            state.apply(action)
    assert np.array_equal(table_frame(a, TEAM), table_frame(b, TEAM))
    assert not np.array_equal(table_frame(a, None), table_frame(b, None))
    assert not np.array_equal(table_frame(a, BOX), table_frame(b, BOX))


# ------------------------------------------------------------------ the envs
def test_aec_hand_env_rgb_array_and_render_view() -> None:
    deck = stacked_deck(f"{TEAM_MELDS} 4D", BOX_JUNK, "5D")
    env = gin3_env.env(render_mode="rgb_array")
    env.reset(options={"deck": deck})
    frame = env.render()
    assert isinstance(frame, np.ndarray) and frame.shape == (HEIGHT, WIDTH, 3) and frame.dtype == np.uint8
    state = env.unwrapped.hand
    assert np.array_equal(frame, table_frame(state, None))
    assert np.array_equal(env.unwrapped.frame("box_0"), table_frame(state, BOX))
    viewer = gin3_env.raw_env(render_mode="rgb_array", render_view="team_0")
    viewer.reset(options={"deck": deck})
    assert np.array_equal(viewer.render(), table_frame(state, TEAM))
    with pytest.raises(ValueError, match="render_view"):
        gin3_env.raw_env(render_mode="rgb_array", render_view="player_0")
    with pytest.raises(ValueError, match="unknown agent"):
        env.unwrapped.frame("sitter")


def test_aec_match_env_rgb_array_seat_views() -> None:
    env = gin3_env.match_raw_env(render_mode="rgb_array", render_view="player_2")
    roles = {"box": 0, "captain": 1, "sitter": 2}
    env.reset(seed=3, options={"roles": roles})
    assert env.metadata["render_modes"] == ["ansi", "human", "rgb_array"]
    frame = env.render()
    assert frame.shape == (HEIGHT, WIDTH, 3)
    hand, r = env.hand, env.roles
    assert hand is not None and r is not None
    kwargs = {"roles": r, "scores": [0, 0, 0], "seat_names": list(gin3_env.envs.aec_match.SEATS)}
    assert np.array_equal(frame, table_frame(hand, TEAM, **kwargs))  # the sitter sees the team's cards
    assert np.array_equal(env.frame("player_0"), table_frame(hand, BOX, **kwargs))
    assert np.array_equal(env.frame(), table_frame(hand, None, **kwargs))


def test_gymnasium_frame_is_the_learners_view_until_the_hand_ends() -> None:
    env = gym.make("gin3/ThreeHandedGin-v0", learner="box", opponent="heuristic", render_mode="rgb_array")
    deck = stacked_deck(BOX_JUNK, f"{TEAM_MELDS} 4D", "KD")
    env.reset(options={"deck": deck})
    inner = env.unwrapped
    frame = env.render()
    assert np.array_equal(frame, table_frame(inner.hand, BOX))
    done = False
    while not done:
        legal = np.flatnonzero(inner.action_masks())
        _, _, term, trunc, _ = env.step(int(legal[-1]))  # knocks as soon as it can
        done = term or trunc
    assert inner.hand.is_over
    assert np.array_equal(env.render(), table_frame(inner.hand, None))
    match = gym.make("gin3/ThreeHandedGinMatch-v0", learner=0, opponent="random", render_mode="rgb_array")
    match.reset(seed=0)
    assert match.render().shape == (HEIGHT, WIDTH, 3)


def test_record_video_records_the_gymnasium_env(tmp_path: Path) -> None:
    pytest.importorskip("moviepy", reason="RecordVideo needs moviepy (the 'video' extra)")
    from gymnasium.wrappers import RecordVideo

    env = gym.make("gin3/ThreeHandedGin-v0", learner="team", opponent="heuristic", render_mode="rgb_array")
    folder = tmp_path / "videos"
    env = RecordVideo(env, str(folder), episode_trigger=lambda _: True, disable_logger=True)
    env.reset(seed=5)
    done = False
    while not done:
        legal = np.flatnonzero(env.unwrapped.action_masks())
        _, _, term, trunc, _ = env.step(int(legal[0]))
        done = term or trunc
    env.close()
    videos = sorted(folder.glob("*.mp4"))
    assert videos and videos[0].stat().st_size > 10_000, videos


def test_sb3_make_vec_env_gets_rgb_array_frames() -> None:
    pytest.importorskip("stable_baselines3")
    from stable_baselines3.common.env_util import make_vec_env

    vec = make_vec_env("gin3/ThreeHandedGin-v0", n_envs=2, env_kwargs={"opponent": "random"})
    try:
        vec.reset()
        assert vec.render_mode == "rgb_array"
        images = vec.get_images()
        assert len(images) == 2 and all(i.shape == (HEIGHT, WIDTH, 3) for i in images)
    finally:
        vec.close()


def test_importing_the_package_does_not_import_pillow() -> None:
    import subprocess
    import sys

    code = "import sys, gin3_env; env = gin3_env.env(render_mode='ansi'); env.reset(seed=0); env.render(); "
    code += "print('PIL' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_pettingzoo_render_test_passes_in_every_mode(capsys: pytest.CaptureFixture[str]) -> None:
    from pettingzoo.test import render_test

    render_test(gin3_env.raw_env)  # ansi, human and rgb_array (a uint8 (H, W, 3) array)
    render_test(lambda render_mode=None: gin3_env.match_raw_env(render_mode=render_mode))
    assert "Discard pile" in capsys.readouterr().out  # human mode printed the table
