"""A discard gate on the shipped player: ``python -m experiments.discard_gate --out DIR [--deals N ...]``.

Labels the plain discards of deals played by the gated player of ``--base`` (default the shipped
``gated``: its knock and draw gates) on both sides, each with probability ``--rate``: the
heuristic's second and third best plain discards (by its own scores) against its choice, each played
from ``--shuffles`` reshuffles of the stock, the same for all three, the base player continuing
(:func:`gin3_training.gates.labels.run_labels`, shards under ``DIR/labels_discard/``, resumable;
the shards are keyed by the base player's weights, not by ``--deals``, so a shorter run reuses the
first shards of a longer one). Then fits the discard gate (ridge and MLP, 5 folds by deal, the
threshold by cross-validated gain per decision) and writes the base player with its discard gate
as ``DIR/gated_discard.json``. ``gin3 train-gate`` with a discard stage does the same after its own
gates; this script starts from an existing file.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from gin3_env.policies.gate_file import load_gated
from gin3_training.gates.labels import LabelRun
from gin3_training.gates.train import add_gate, player_digest

SHIPPED = Path(__file__).resolve().parents[1] / "gin3_env" / "models" / "gated.json"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m experiments.discard_gate", description=__doc__)
    parser.add_argument("--out", type=Path, required=True, help="folder of the shards and the model file")
    parser.add_argument("--base", type=Path, default=SHIPPED, help="the gated player extended (default trained)")
    parser.add_argument("--deals", type=int, default=40000, help="deals labelled (default 40000)")
    parser.add_argument("--chunk", type=int, default=1000, help="deals per shard (default 1000)")
    parser.add_argument("--seed", type=int, default=3000, help="seed of the deals and shuffles (default 3000)")
    parser.add_argument("--rate", type=float, default=0.25, help="share of plain discards labelled (default 0.25)")
    parser.add_argument("--shuffles", type=int, default=32, help="continuations per discard (default 32)")
    parser.add_argument("--scorers", default="ridge,mlp", help="gate scorers tried (default ridge,mlp)")
    parser.add_argument("--hidden", type=int, default=32, help="MLP hidden units (default 32)")
    parser.add_argument("--epochs", type=int, default=10, help="MLP epochs (default 10)")
    args = parser.parse_args(list(argv) if argv is not None else None)
    base = load_gated(args.base)
    run = LabelRun(seed=args.seed, deals=args.deals, chunk=args.chunk, shuffles=args.shuffles,
                   gate=player_digest(base), decision="discard", rate=args.rate)
    options = {"ridge_lambda": 1.0, "hidden": args.hidden, "epochs": args.epochs, "seed": args.seed}
    model = add_gate(base, args.out / "labels_discard", run, tuple(args.scorers.split(",")), 5, options, {},
                     lambda s: print(s, file=sys.stderr, flush=True))
    path = args.out / "gated_discard.json"
    model.save(path)
    discard = model.gate("discard")
    print(json.dumps({"model": str(path), "fit": discard.provenance["fit"] if discard else None}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
