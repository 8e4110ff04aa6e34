"""Labels for improving ``net``: its own decisions, every legal action valued on the true deal.

A shard of round ``r`` is made in two steps:

1. **States**: the *state player* (the player being improved: ``net``, then the improved player of the
   round before) plays seeded hands on the batched core against itself and against the *continuation
   player* (both seats). Each of its discard decisions (discards with a knock legal, and plain
   discards) is kept with probability ``rate``, with the whole hand as it stands (both real hands and
   the real stock), the acting player's observation and the action the state player plays there.
2. **Values**: :func:`gin3_training.improve.label_kernels.value_rows_fast` plays every legal action of each kept
   decision from ``K`` shared reshuffles of the hidden stock, the continuation player (compiled: the
   gated heuristic, ``gated``'s file by default) on both sides to the end of the hand.

``shard_RR_IIII.npz`` holds ``obs`` (float16), ``mask`` (int8), ``values`` and ``se`` (float32, the
acting player's points, NaN where illegal), ``played`` (the state player's action), ``player`` (0 team,
1 box), ``deal`` (unique per hand in the run, for cross-validation by deal) and ``run`` (the settings,
JSON). Every file is written whole or not at all; a resumed run skips the shards it finds and refuses
one written with other settings (one line naming the file and the setting). Decisions are valued in
batches of about :data:`BATCH_SECONDS`, with a progress line at least every :data:`PROGRESS_SECONDS`
giving an estimate of the time left.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from gin3_env.engine.actions import DISCARD_BASE
from gin3_env.engine.rules import Rules
from gin3_env.files import parse_npz
from gin3_env.kernels import hand_kernels as hk
from gin3_env.kernels.gates import stack_gates
from gin3_env.kernels.hands import VectorHands, rules_vector
from gin3_env.kernels.heuristic_params import heuristic_config, heuristic_params
from gin3_env.observation.layout import OBS_SIZE
from gin3_training.improve.label_kernels import OPPONENT, STOCK, value_rows_fast, value_rows_fast_serial
from gin3_training.run.run import Run, today_name

__all__ = [
    "SHARD_KEYS",
    "ActionLabels",
    "check_key",
    "continuation_args",
    "label_shard",
    "load_shards",
    "play_states",
    "run_round",
]

HIDDEN = {"stock": STOCK, "opponent": OPPONENT}  # ActionLabels.hidden: the kernels' code
BATCH_SECONDS = 2.0
PROGRESS_SECONDS = 30.0
SHARD_KEYS = ("obs", "mask", "values", "se", "played", "player", "deal", "run")
MAX_SHARD_BYTES = 1 << 30  # a shard of the shipped config is a few MB


@dataclass(frozen=True)
class ActionLabels:
    """Settings of a round's labels (stored in each shard; a resumed round must match them)."""

    seed: int = 0
    round: int = 0
    decisions: int = 2000  # decisions valued in the round
    shard_size: int = 250  # decisions per shard file (the unit a resumed run skips)
    shuffles: int = 32  # K: reshuffles of the stock, shared by every action of a decision
    rate: float = 0.15  # each discard decision of the state player is kept with this probability
    num_envs: int = 64  # hands stepped together while the states are played
    state_player: str = "net"  # a policy spec (a .npz path for the improved player of a round)
    continuation: str = "gated"  # the compiled continuation player: "gated", "heuristic" or a gate .json
    candidates: int = 0  # value only the state player's network's best this many actions (0: every legal one)
    hidden: str = "stock"  # what each copy deals afresh: "stock" (the true deal) or "opponent" (its unseen cards too)

    def __post_init__(self) -> None:
        for name in ("seed", "round", "decisions", "shard_size", "shuffles", "num_envs", "candidates"):
            v = getattr(self, name)
            low = 0 if name in ("seed", "round", "candidates") else 1
            if isinstance(v, bool) or not isinstance(v, int) or v < low:
                raise ValueError(f"action labels {name} must be an int >= {low}, got {v!r}")
        if self.shuffles < 2:
            raise ValueError(f"action labels shuffles must be at least 2, got {self.shuffles}")
        if self.hidden not in HIDDEN:
            raise ValueError(f"action labels hidden must be one of {', '.join(HIDDEN)}, got {self.hidden!r}")
        if isinstance(self.rate, bool) or not isinstance(self.rate, int | float) or not 0 < self.rate <= 1:
            raise ValueError(f"action labels rate must be a number in (0, 1], got {self.rate!r}")

    @property
    def shards(self) -> int:
        return -(-self.decisions // self.shard_size)

    def key(self) -> dict[str, Any]:
        key = asdict(self)
        if not self.candidates:  # every legal action: the key shards have had from the start
            del key["candidates"]
        if self.hidden == "stock":  # the true deal: the key of the rounds before the choice existed
            del key["hidden"]
        return key


def continuation_args(spec: str) -> tuple[Any, ...]:
    """``(fp, ip, gates)``: the compiled continuation player's arguments for ``spec`` (it plays the knock
    limit of the rules the labels are valued under)."""
    if spec not in ("heuristic", "gated") and not spec.endswith(".json"):
        raise ValueError(f"the continuation player is compiled: gated, heuristic or a gate file .json, not {spec!r}")
    model = None
    if spec != "heuristic":
        from gin3_env.policies.gate_file import load_gated
        from gin3_env.policies.registry import model_path

        model = load_gated(model_path(spec))
    fp, ip = heuristic_params(heuristic_config(model.heuristic if model is not None else None))
    return (fp, ip, stack_gates(model.gates if model is not None else ()))


def _batch_player(spec: str) -> Any:
    from gin3_env.policies import load_policy
    from gin3_env.vector.players import as_batch

    player = as_batch(load_policy(spec))
    if player is None:
        raise ValueError(f"{spec!r} has no batched form: it cannot play the states")
    return player


def play_states(n: int, seed: int, player: Any, other: Any, rate: float, num_envs: int = 64,
                rules: Rules | None = None, record: bool = False) -> dict[str, np.ndarray]:
    """``n`` discard decisions of ``player`` (batched, ``act(obs, masks)``) in hands dealt from ``seed``,
    seated against itself and against ``other`` (both seats), each kept with probability ``rate``: the
    hand's arrays (``S``, ``M``, ``deck``, ``pile``, ``mask``), ``obs``, ``played``, ``player``, ``deal``;
    with ``record``, also ``moves`` (int8, one row per decision: the hand's moves from its deal, ``-1`` past
    them) and ``nmoves`` (how many): what :mod:`.compact` replays the decision from."""
    hands = VectorHands(num_envs, seed=seed, rules=rules)
    width = 2 * (rules or Rules()).max_turns + 8  # every move a hand can have: offers, draws, discards
    hist = np.full((num_envs, width), -1, np.int8)
    hlen = np.zeros(num_envs, np.int64)
    rng = np.random.default_rng([seed, 1])
    seat = np.array(((0, 0), (0, 1), (1, 0)), np.int64)[np.arange(num_envs) % 3]  # 0 the player, 1 other
    keep: dict[str, list[np.ndarray]] = {k: [] for k in ("S", "M", "deck", "pile", "mask", "obs", "played", "player",
                                                        "deal", "moves", "nmoves")}
    total = 0
    while total < n:
        obs = np.ascontiguousarray(hands.observe()[:, :OBS_SIZE])
        masks = np.ascontiguousarray(hands.action_mask, dtype=np.int8)
        mine = seat[np.arange(num_envs), hands.current_player] == 0
        actions = np.zeros(num_envs, np.int64)
        if mine.any():
            actions[mine] = player.act(obs[mine], masks[mine])
        if (~mine).any():
            actions[~mine] = other.act(obs[~mine], masks[~mine])
        take = mine & (hands.phase == hk.DISCARD) & (rng.random(num_envs) < rate)
        take &= masks[:, DISCARD_BASE:].sum(axis=1) > 1
        rows = np.flatnonzero(take)[: n - total]
        if len(rows):
            for key, arr in (("S", hands._S), ("M", hands._M), ("deck", hands._deck), ("pile", hands._pile),
                             ("mask", masks), ("obs", obs)):
                keep[key].append(np.array(arr[rows]))
            keep["played"].append(actions[rows])
            keep["player"].append(hands.current_player[rows].astype(np.int64))
            keep["deal"].append(hands.deal_index[rows].copy())
            keep["moves"].append(hist[rows].copy())
            keep["nmoves"].append(hlen[rows].copy())
            total += len(rows)
        before = hands.deal_index.copy()
        hands.step(actions)
        if record:
            hist[np.arange(num_envs), hlen] = actions
            hlen += 1
            new = hands.deal_index != before  # a hand that ended is dealt again: its moves start afresh
            hist[new] = -1
            hlen[new] = 0
    out = {k: np.concatenate(v) for k, v in keep.items()}
    if not record:
        del out["moves"], out["nmoves"]
    return out


def label_shard(run: ActionLabels, i: int, player: Any, other: Any, cont: tuple[Any, ...],
                tick: Callable[[int, int], None] | None = None, threads: bool = False,
                rules: Rules | None = None, record: bool = False, kernel: Callable[..., None] | None = None
                ) -> dict[str, np.ndarray]:
    """Shard ``i`` of ``run``: its states played (:func:`play_states`), then every legal action valued (with
    ``run.candidates``, only the state player's network's best actions by its scores: the others stay NaN);
    ``tick(valued, n)`` after each batch. With ``record``, also ``moves``, ``nmoves`` (see :func:`play_states`)
    and ``deck_seed`` (the seed the hands were dealt from). ``kernel``: the valuing kernel (default
    :func:`.label_kernels.value_rows_fast`, or its serial twin without ``threads``: the values of
    :func:`.label_kernels.value_rows_serial`, the same to the bit, at about half the work)."""
    n = min(run.shard_size, run.decisions - i * run.shard_size)
    seed = shard_seed(run, i)
    st = play_states(n, seed, player, other, run.rate, run.num_envs, rules, record)
    seeds = np.random.default_rng([seed, 2]).integers(0, 2**31 - 1, size=n).astype(np.int64)
    values = np.full(st["mask"].shape, np.nan, np.float64)
    se = np.full(st["mask"].shape, np.nan, np.float64)
    valued = st["mask"] if not run.candidates else candidate_mask(player, st["obs"], st["mask"], run.candidates)
    R = rules_vector(rules or Rules())
    if kernel is None:
        kernel = value_rows_fast if threads else value_rows_fast_serial
    done, batch = 0, 2
    while done < n:
        end = min(n, done + batch)
        t0 = time.perf_counter()
        sl = slice(done, end)
        v, s = values[sl].copy(), se[sl].copy()
        kernel(st["S"][sl], st["M"][sl], st["deck"][sl], st["pile"][sl], valued[sl], R, seeds[sl], run.shuffles,
               *cont, v, s, HIDDEN[run.hidden])
        values[sl], se[sl] = v, s
        per = (time.perf_counter() - t0) / (end - done)
        done = end
        batch = max(1, min(4 * batch, int(BATCH_SECONDS / max(per, 1e-6))))
        if tick is not None:
            tick(done, n)
    out = {"obs": st["obs"].astype(np.float16), "mask": st["mask"], "values": values.astype(np.float32),
           "se": se.astype(np.float32), "played": st["played"].astype(np.int8), "player": st["player"].astype(np.int8),
           "deal": deal_id(st["deal"], run.round, i), "run": np.array(json.dumps(run.key()))}
    if record:
        out.update(moves=st["moves"], nmoves=st["nmoves"], deck_seed=np.array(seed, np.int64),
                   hand_deal=st["deal"])
    return out


def shard_seed(run: ActionLabels, i: int) -> int:
    """The seed shard ``i`` of ``run`` deals its hands from (and draws its reshuffles' seeds from)."""
    return int(np.random.SeedSequence([run.seed, run.round, i]).generate_state(1)[0])


def deal_id(deal: np.ndarray, round_: int, i: int) -> np.ndarray:
    """A deal's number unique in a run (for cross-validation by deal): its index in shard ``i`` of round ``round_``."""
    return np.asarray(deal, np.int64) + np.int64(i) * 1_000_000 + np.int64(round_) * 1_000_000_000


def candidate_mask(player: Any, obs: np.ndarray, mask: np.ndarray, k: int) -> np.ndarray:
    """``mask`` kept on each row's ``k`` best actions by the scores of ``player``'s network (a batched
    :class:`~gin3_env.policies.net.NetPolicy`; an improved player's own network, not its head)."""
    from gin3_env.policies.net import NetPolicy, ranks

    policy = getattr(player, "policy", None)
    if not isinstance(policy, NetPolicy):
        raise ValueError("action labels candidates need a network as the state player (net or a .npz)")
    state, acts, start, legal = policy.inputs(obs, mask)
    rank = ranks(policy.net.scores(state, acts, np.repeat(np.arange(len(obs)), np.diff(start))), start)
    out = np.zeros_like(mask)
    keep = rank < k
    out[np.repeat(np.arange(len(obs)), np.diff(start))[keep], legal[keep]] = 1
    return out


def shard_name(run: ActionLabels, i: int, folder: str = "labels") -> str:
    """Shard ``i`` of ``run``, inside the run folder."""
    return f"{folder}/shard_{run.round:02d}_{i:04d}.npz"


def run_round(held: Run, run: ActionLabels, progress: Callable[[str], None] | None = None,
              threads: bool = False, folder: str = "labels") -> list[str]:
    """Write the missing shards of ``run`` under ``folder`` of the held run folder ``held`` (see the module doc);
    returns all its shards (names inside the run folder). A shard found is read through the run's checked reader
    (a link, a FIFO: refused in one line) and refused where it was made with other settings."""
    say = progress or (lambda s: None)
    paths = [shard_name(run, i, folder) for i in range(run.shards)]
    found = [p for p in paths if held.exists(p)]
    for p in found:
        check_key(held, p, run.key())
    if found:
        say(f"round {run.round} labels: {len(found)} of {run.shards} shards found in {held.path / folder}"
            + (", resuming" if len(found) < run.shards else ", all done"))
    todo = [i for i, p in enumerate(paths) if p not in found]
    if not todo:
        return paths
    player, other = _batch_player(run.state_player), _batch_player(run.continuation)
    cont = continuation_args(run.continuation)
    left_total = sum(min(run.shard_size, run.decisions - i * run.shard_size) for i in todo)
    clock = {"done": 0, "cpu": 0.0, "said": time.monotonic()}
    for i in todo:
        c0 = time.process_time()
        base = clock["done"]

        def tick(valued: int, n: int, base: float = base, c0: float = c0, i: int = i) -> None:
            now = time.monotonic()
            if now - clock["said"] >= PROGRESS_SECONDS and valued < n:
                clock["said"] = now
                say(f"round {run.round} labels, shard {i + 1}/{run.shards}: {valued}/{n} decisions; "
                    + _left(left_total - base - valued, base + valued, clock["cpu"] + time.process_time() - c0))

        shard = label_shard(run, i, player, other, cont, tick, threads)
        held.write_npz(paths[i], shard)
        n = len(shard["played"])
        dt = time.process_time() - c0
        clock["done"] += n
        clock["cpu"] += dt
        clock["said"] = time.monotonic()
        say(f"round {run.round} labels, shard {i + 1}/{run.shards}: {n} decisions in {dt:.0f} CPU-s "
            f"({n / max(dt, 1e-9):.1f} valued decisions per CPU-second); "
            + _left(left_total - clock["done"], clock["done"], clock["cpu"]))
    return paths


def _open_shard(held: Run, rel: str) -> dict[str, np.ndarray]:
    """The arrays of the shard ``rel`` of the held run folder (read through the checked reader)."""
    raw = held.read(rel, "label shard", MAX_SHARD_BYTES)
    return parse_npz(raw, f"label shard {held.path / rel}", MAX_SHARD_BYTES)  # headers checked before allocation


def check_key(held: Run, rel: str, key: dict[str, Any]) -> None:
    """Refuse (one line naming the shard and the first setting that differs) a shard made with other settings."""
    try:
        written = json.loads(str(_open_shard(held, rel)["run"]))
        if not isinstance(written, dict):
            raise ValueError("its settings are not a mapping")
    except Exception as exc:
        raise ValueError(f"label shard {held.path / rel} cannot be read: {exc}") from None
    now = key_now(written)
    for name, value in key.items():
        if now.get(name) != value:
            raise ValueError(f"label shard {held.path / rel} was written with {name}={written.get(name)!r:.60}, "
                             f"this run has {value!r:.60}")


def key_now(written: dict[str, Any]) -> dict[str, Any]:
    """A label file's recorded settings with its continuation player under today's name: a continuation is
    always compiled (:func:`continuation_args`), so ``trained`` in a file is the gated player's former name."""
    if "continuation" not in written:
        return written
    return {**written, "continuation": today_name(written["continuation"])}


def _left(left: float, done: float, cpu: float) -> str:
    if done <= 0 or cpu <= 0:
        return "time left: not yet measured"
    return f"about {left * cpu / done / 60:.1f} CPU-min left in this round's labels"


def load_shards(held: Run, paths: list[str]) -> dict[str, np.ndarray]:
    """The shards ``paths`` of the held run folder, their decisions joined (``run`` left out)."""
    parts: dict[str, list[np.ndarray]] = {}
    for p in paths:
        z = _open_shard(held, p)
        if sorted(z) != sorted(SHARD_KEYS):
            raise ValueError(f"{held.path / p} is not a shard of action labels (members {sorted(z)})")
        for k in SHARD_KEYS[:-1]:
            parts.setdefault(k, []).append(z[k])
    return {k: np.concatenate(v) for k, v in parts.items()}
