"""Baseline policies: legality, decoding, behaviour of the heuristic, strength, load_policy."""

from __future__ import annotations

import copy

import numpy as np
import pytest
from conftest import deal, play

from gin3_env.engine.actions import PASS, TAKE_DISCARD, discard_action, knock_action
from gin3_env.engine.cards import mask_of, parse_card, parse_cards
from gin3_env.engine.hand import BOX, TEAM, HandState
from gin3_env.engine.phases import Phase
from gin3_env.engine.rules import Rules
from gin3_env.engine.view import PlayerView
from gin3_env.evaluation import evaluate_hands
from gin3_env.observation import action_mask, encode
from gin3_env.observation.decoding import decode
from gin3_env.observation.layout import OBS_SIZE
from gin3_env.policies import SIMPLE, HeuristicConfig, HeuristicPolicy, RandomPolicy, SB3Policy, load_policy
from gin3_env.policies.heuristic import meld_outs, partner_pairs


def obs_of(state: HandState, player: int | None = None) -> dict[str, np.ndarray]:
    p = state.player if player is None else player
    return {"observation": encode(state.view(p)), "action_mask": action_mask(state.view(p))}


def random_states(n: int, seed: int, rules: Rules | None = None) -> list[HandState]:
    """States reached by random play from random deals (every phase shows up)."""
    rng = np.random.default_rng(seed)
    states = []
    while len(states) < n:
        state = HandState.deal(rules, rng=rng)
        for _ in range(int(rng.integers(0, 40))):
            legal = state.legal_actions()
            state.apply(legal[int(rng.integers(len(legal)))])
            if state.is_over:
                break
        if not state.is_over:
            states.append(state)
    return states


# ------------------------------------------------------------------ decoding
def test_decode_reads_back_what_encode_wrote() -> None:
    for state in random_states(60, seed=1):
        p = state.player
        view = decode(encode(state.view(p)), state.rules)
        assert isinstance(view, PlayerView) and view.player == view.to_act == p
        assert view.hand == state.hands[p]
        assert view.top == (state.discards[-1] if state.discards else None)
        assert view.pile == tuple(sorted(state.discards[:-1])) and view.pile_mask == mask_of(state.discards[:-1])
        assert view.opponent_known == state.known[1 - p]
        assert view.opponent_declined == state.declined[1 - p]
        assert view.own_declined == state.declined[p]
        assert view.taken == state.taken
        assert view.phase is state.phase
        assert view.stock_size == len(state.stock) and view.turns == state.turns
        assert view.stock_only == state.stock_only
        assert view.legal_actions() == state.legal_actions()
        assert view.unseen & (state.hands[p] | state.known[1 - p]) == 0


# ------------------------------------------------------------------ legality
@pytest.mark.parametrize("rules", [Rules(), Rules(knock_limit=0), Rules(allow_discard_taken_card=True)])
def test_heuristic_always_legal(rules: Rules) -> None:
    policy = HeuristicPolicy(knock_limit=rules.knock_limit)
    phases = set()
    for state in random_states(150, seed=2, rules=rules):
        obs = obs_of(state)
        action = policy.act(obs)
        assert obs["action_mask"][action] == 1, (state.phase, action)
        phases.add(state.phase)
    assert phases == {Phase.OFFER_TEAM, Phase.OFFER_BOX, Phase.DRAW, Phase.DISCARD}


def test_random_policy_always_legal_and_seeded() -> None:
    states = random_states(100, seed=3)
    a, b = RandomPolicy(seed=7), RandomPolicy(seed=7)
    picks = []
    for state in states:
        obs = obs_of(state)
        action = a.act(obs)
        assert obs["action_mask"][action] == 1
        assert b.act(obs) == action
        picks.append(action)
    assert len(set(picks)) > 10  # it does explore


def test_random_policy_is_uniform() -> None:
    state = deal("AC 2C 3C 4D 5D 6D 7H 8H 9H KS", "AD 2D 3D 4H 5H 6H 7S 8S 9S KC", "QH")
    obs = obs_of(state)
    policy = RandomPolicy(seed=0)
    counts = np.bincount([policy.act(obs) for _ in range(2000)], minlength=3)
    assert counts[0] == 0 and abs(counts[TAKE_DISCARD] - counts[PASS]) < 200


def test_policies_refuse_a_bad_observation() -> None:
    for policy in (RandomPolicy(0), HeuristicPolicy()):
        with pytest.raises(ValueError, match="observation"):
            policy.act({"action_mask": np.ones(107, np.int8)})
        with pytest.raises(ValueError, match="no legal action"):
            policy.act({"observation": np.zeros(OBS_SIZE, np.float32), "action_mask": np.zeros(107, np.int8)})
        with pytest.raises(ValueError, match="shape"):
            policy.act({"observation": np.zeros(OBS_SIZE, np.float32), "action_mask": np.ones(5, np.int8)})
    with pytest.raises(ValueError, match="unknown HeuristicPolicy option"):
        HeuristicPolicy(bogus=1)


# ------------------------------------------------------------------ behaviour
def test_heuristic_is_a_function_of_the_observation() -> None:
    policy, fresh = HeuristicPolicy(), HeuristicPolicy()
    for state in random_states(40, seed=4):
        obs = obs_of(state)
        before = copy.deepcopy(obs)
        action = policy.act(obs)
        assert policy.act(copy.deepcopy(obs)) == action == fresh.act(obs)
        assert all(np.array_equal(before[k], obs[k]) for k in obs)  # the dict is not modified


def test_same_view_different_hidden_cards_same_action() -> None:
    team = "AC 2C 3C 4D 5D 6D 7H 8H QS QD"
    one = play(deal(team, "AH 2H 3H 4S 5S 6S 9C TC JC KC", "KH", stock="9D"), "pass", "pass", "draw")
    two = play(deal(team, "AS 2S 3S 4H 5H 6H 9S TS JS KD", "KH", stock="9D"), "pass", "pass", "draw")
    assert np.array_equal(encode(one.view(TEAM)), encode(two.view(TEAM)))
    assert HeuristicPolicy().act(obs_of(one)) == HeuristicPolicy().act(obs_of(two))


def test_heuristic_knocks_with_gin() -> None:
    state = deal("AC 2C 3C 4D 5D 6D 7H 8H 9H KS", "AD 2D 3D 4H 5H 6H 7S 8S 9S KC", "QC", stock="TH")
    policy = HeuristicPolicy()
    assert policy.act(obs_of(state)) == PASS  # QC melds with nothing
    play(state, "pass")
    assert policy.act(obs_of(state)) == PASS
    play(state, "pass", "draw")  # the team draws TH: 7H-TH and KS to spare
    assert policy.act(obs_of(state)) == knock_action(parse_card("KS"))


def test_heuristic_takes_a_card_that_melds_and_passes_one_that_does_not() -> None:
    box = "AD 2D 3D 4H 5H 6H 7S 8S 9S KC"
    meld = deal("AC 2C 5C 4D 5D 6D 7H 8H JS KS", box, "9H")
    assert HeuristicPolicy().act(obs_of(meld)) == TAKE_DISCARD
    useless = deal("AC 2C 5C 4D 5D 6D 7H 8H JS KS", box, "QD")
    assert HeuristicPolicy().act(obs_of(useless)) == PASS


def test_heuristic_discards_high_deadwood_not_melds() -> None:
    state = play(deal("AC 2C 3C 4D 5D 6D 7H 8H 2S KS", "AH 2H 3H 4S 5S 6S 9C TC JC KC", "QH", stock="9D"))
    play(state, "pass", "pass", "draw")
    action = HeuristicPolicy().act(obs_of(state))
    assert action == discard_action(parse_card("KS"))


def test_heuristic_avoids_feeding_the_opponent() -> None:
    # QS and QD are equal deadwood; the box took JD and KD from the pile, so QD would meld for it.
    state = deal("AC 2C 3C 4D 5D 6D 7H 8H QS QD", "JD KD 2H 3H 4S 5S 6S 9C TC JC", "KH", stock="2S")
    play(state, "pass", "pass", "draw")
    state.known[BOX] = mask_of(parse_cards("JD KD"))
    assert HeuristicPolicy().act(obs_of(state)) == discard_action(parse_card("QS"))
    state.known[BOX] = mask_of(parse_cards("JS KS"))
    assert HeuristicPolicy().act(obs_of(state)) == discard_action(parse_card("QD"))


def test_danger_counts_known_cards_and_declines() -> None:
    policy = HeuristicPolicy()
    card = parse_card("QD")
    fields = dict(
        player=TEAM,
        to_act=TEAM,
        phase=Phase.DISCARD,
        hand=mask_of([card]),
        top=None,
        pile=(),
        opponent_known=0,
        opponent_declined=0,
        own_declined=0,
        taken=None,
        opponent_hand_size=10,
        stock_size=20,
        turns=0,
        stock_only=False,
        rules=Rules(),
    )
    base = PlayerView(**fields)
    p = 0.3
    free = policy.danger(card, base, p)
    known = policy.danger(card, PlayerView(**{**fields, "opponent_known": mask_of(parse_cards("JD KD"))}), p)
    assert known > free + 0.5
    declined = PlayerView(**{**fields, "opponent_declined": mask_of(parse_cards("QC"))})
    assert policy.danger(card, declined, p) < free  # QC refused: a pair of queens is unlikely
    dead = PlayerView(**{**fields, "pile": tuple(parse_cards("JD QC QH"))})
    assert policy.danger(card, dead, p) < free / 2


def test_meld_geometry_helpers() -> None:
    hand = mask_of(parse_cards("7H 8H 5C 5D"))
    outs = meld_outs(hand)
    assert outs == mask_of(parse_cards("6H 9H 5H 5S"))
    assert len(partner_pairs(parse_card("AC"))) == 3 + 1  # sets, and only A-2-3 as a run
    assert len(partner_pairs(parse_card("7C"))) == 3 + 3


# ------------------------------------------------------------------ strength
def test_heuristic_beats_random_by_a_wide_margin() -> None:
    report = evaluate_hands(HeuristicPolicy(), RandomPolicy(seed=5), 120, seed=11)
    assert report.overall.mean > 10 and report.overall.low > 0
    assert report.as_team.low > 10 and report.as_box.low > 10


def test_simple_config_beats_random() -> None:
    report = evaluate_hands(HeuristicPolicy(SIMPLE), RandomPolicy(seed=5), 60, seed=12)
    assert report.overall.low > 10


@pytest.mark.slow
def test_heuristic_beats_the_simple_player() -> None:
    report = evaluate_hands(HeuristicPolicy(), HeuristicPolicy(SIMPLE), 2000, seed=13)
    assert report.overall.low > 0, report.to_text()


# ------------------------------------------------------------------ load_policy
def test_load_builtin_policies() -> None:
    assert isinstance(load_policy("random", seed=1), RandomPolicy)
    assert isinstance(load_policy("heuristic"), HeuristicPolicy)
    assert load_policy("heuristic", outs_weight=0.0).config.outs_weight == 0.0
    policy = RandomPolicy(0)
    assert load_policy(policy) is policy


def test_load_policy_errors(tmp_path) -> None:
    with pytest.raises(ValueError, match=r"unknown policy .grandmaster.: choose random, heuristic, search.*rllib:"):
        load_policy("grandmaster")
    missing = tmp_path / "nope.zip"
    with pytest.raises(FileNotFoundError, match=r"nope\.zip"):
        load_policy(str(missing))
    corrupt = tmp_path / "corrupt.zip"
    corrupt.write_bytes(b"not a zip file at all")
    with pytest.raises(ValueError, match=r"corrupt\.zip"):
        load_policy(str(corrupt))
    with pytest.raises(ValueError, match="act"):
        load_policy(42)


def test_load_ppo_model_or_clear_error() -> None:
    from gin3_env.policies.loading import PPO_MODEL

    if not PPO_MODEL.exists():
        with pytest.raises(FileNotFoundError, match="no PPO model is shipped"):
            load_policy("ppo")
        return
    policy = load_policy("ppo")
    state = random_states(1, seed=6)[0]
    obs = obs_of(state)
    assert obs["action_mask"][policy.act(obs)] == 1


def test_saved_maskable_ppo_model_round_trip(tmp_path) -> None:
    sb3_contrib = pytest.importorskip("sb3_contrib")
    from gin3_env.envs.single_agent import ThreeHandedGinEnv

    model = sb3_contrib.MaskablePPO("MlpPolicy", ThreeHandedGinEnv(opponent="random"), n_steps=32, seed=0)
    path = tmp_path / "tiny.zip"
    model.save(path)
    (tmp_path / "tiny.json").write_text('{"name": "tiny-ppo"}')
    policy = load_policy(str(path))
    assert isinstance(policy, SB3Policy) and policy.name == "tiny-ppo" and policy.obs_dim == OBS_SIZE
    for state in random_states(20, seed=7):
        obs = obs_of(state)
        assert obs["action_mask"][policy.act(obs)] == 1
        longer = {
            "observation": np.concatenate([obs["observation"], np.zeros(6, np.float32)]),
            "action_mask": obs["action_mask"],
        }
        assert longer["action_mask"][policy.act(longer)] == 1  # match observations are longer


def test_a_model_acts_with_one_torch_thread_unless_told_otherwise() -> None:
    """Inference runs on one torch thread (a busy core no longer slows it 3x), only
    while the model acts; ``threads=None`` leaves torch's setting, ``threads=n`` asks for n."""
    torch = pytest.importorskip("torch")
    from gymnasium import spaces

    class Recorder:  # a stand-in model: records torch's thread count when asked to predict
        observation_space = spaces.Box(0.0, 1.0, shape=(OBS_SIZE,))

        def __init__(self) -> None:
            self.seen: list[int] = []

        def predict(self, obs, action_masks, deterministic):
            self.seen.append(torch.get_num_threads())
            return np.flatnonzero(action_masks)[:1], None

    obs = obs_of(random_states(1, seed=3)[0])
    before = torch.get_num_threads()
    try:
        torch.set_num_threads(3)
        for threads, expected in ((1, 1), (None, 3), (2, 2)):
            model = Recorder()
            policy = SB3Policy(model, threads=threads) if threads != 1 else SB3Policy(model)
            policy.act(obs)
            assert model.seen == [expected], (threads, model.seen)
            assert torch.get_num_threads() == 3  # restored after acting
        with pytest.raises(ValueError, match="threads"):
            SB3Policy(Recorder(), threads=0)
    finally:
        torch.set_num_threads(before)


def test_heuristic_config_is_validated_plain_data() -> None:
    from gin3_env.kernels.heuristic_params import HeuristicConfig as Below

    assert HeuristicConfig is Below  # the policies re-export the compiled core's plain data
    assert HeuristicConfig(outs_weight=3, late_stock=np.int64(4)) == HeuristicConfig(outs_weight=3.0, late_stock=4)
    for bad, name in [({"knock_limit": 2.5}, "knock_limit"), ({"knock_limit": True}, "knock_limit"),
                      ({"outs_weight": "4"}, "outs_weight"), ({"danger_weight": float("nan")}, "danger_weight"),
                      ({"simple": 1}, "simple")]:
        with pytest.raises(ValueError, match=name):
            HeuristicConfig(**bad)
    with pytest.raises(ValueError, match="unknown HeuristicPolicy option"):
        HeuristicPolicy(knock_limt=9)
