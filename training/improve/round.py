"""A round of compact labels, resumable: ``python -m gin3_training.improve.round``.

Writes the compact label files (:mod:`.compact`) of one round of :class:`~.labels.ActionLabels` under
``--out`` (one file per ``--shard-size`` decisions, each written whole): ``net``'s own discard decisions (or
those of ``--state-player``), its best ``--candidates`` actions valued from ``--shuffles`` shared reshuffles,
``gated`` continuing. Run again with the same settings, it skips the files it finds and writes the rest; a file
written with other settings is refused. ``--stop-after SECONDS`` stops between files once that much wall-clock
time has passed (a machine lent for a while: what it wrote is kept, the next run goes on).

Round 0 (the committed files under ``docs/results/improve_labels/round0/``)::

    OPENBLAS_NUM_THREADS=1 NUMBA_NUM_THREADS=1 nice -n 19 python -m gin3_training.improve.round \
        --out docs/results/improve_labels/round0

(one BLAS thread: ``net``'s scoring of the states on two spinning OpenBLAS threads costs some fifteen times the
CPU on a busy machine), and on a 16-core machine, one worker per core, each its share of the files
(``training/improve/device_round.sh``)::

    python -m gin3_training.improve.round --out docs/results/improve_labels/round0 --worker 3/16 --stop-after 420
"""

from __future__ import annotations

import argparse
import time

from gin3_training.improve.compact import run_labels
from gin3_training.improve.labels import ActionLabels

ROUND0 = ActionLabels(seed=46, round=0, decisions=100_000, shard_size=500, shuffles=64, rate=0.15,
                      state_player="net", continuation="gated", candidates=3)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m gin3_training.improve.round",
                                     description="Compact labels of one improvement round, resumable.")
    parser.add_argument("--out", required=True, help="folder of the round's label files")
    parser.add_argument("--seed", type=int, default=ROUND0.seed)
    parser.add_argument("--round", type=int, default=ROUND0.round)
    parser.add_argument("--decisions", type=int, default=ROUND0.decisions)
    parser.add_argument("--shard-size", type=int, default=ROUND0.shard_size)
    parser.add_argument("--shuffles", type=int, default=ROUND0.shuffles)
    parser.add_argument("--rate", type=float, default=ROUND0.rate)
    parser.add_argument("--candidates", type=int, default=ROUND0.candidates)
    parser.add_argument("--state-player", default=ROUND0.state_player)
    parser.add_argument("--continuation", default=ROUND0.continuation)
    parser.add_argument("--hidden", default=ROUND0.hidden, choices=("stock", "opponent"),
                        help="what each reshuffle deals afresh: the stock (the true deal) or the opponent's unseen "
                             "cards too (the acting player's information state)")
    parser.add_argument("--threads", action="store_true", help="value a file's decisions on numba's threads")
    parser.add_argument("--stop-after", type=float, default=0.0, help="stop between files after this many seconds")
    parser.add_argument("--only", default="", help="write only the files I..J of the round (e.g. 0..15)")
    parser.add_argument("--worker", default="", help="W/N: write only the files i with i %% N == W (one of N workers)")
    args = parser.parse_args(argv)
    run = ActionLabels(seed=args.seed, round=args.round, decisions=args.decisions, shard_size=args.shard_size,
                       shuffles=args.shuffles, rate=args.rate, state_player=args.state_player,
                       continuation=args.continuation, candidates=args.candidates,
                       hidden=args.hidden)
    only: range | None = None
    if args.only:
        lo, hi = (int(x) for x in args.only.split(".."))
        only = range(lo, hi + 1)
    if args.worker:
        w, n = (int(x) for x in args.worker.split("/"))
        only = range(w, run.shards, n)

    def say(text: str) -> None:
        print(f"[{time.strftime('%H:%M:%S')}] {text}", flush=True)

    paths = run_labels(args.out, run, say, threads=args.threads, stop_after=args.stop_after, only=only)
    say(f"{len(paths)} of {run.shards} label files in {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
