#!/usr/bin/env bash
# A round's compact labels (round 0's by default) on a lent 16-core machine, within about 9 minutes; the files come back in one archive.
#
# From the repository root, through the device tool (the machine has python3 with numpy, numba and torch, but
# not gymnasium or pettingzoo, and reaches no network: their wheels travel in scratch/wheels, an ignored folder):
#
#   here, once:  python3 -m pip download --no-deps --only-binary=:all: -d scratch/wheels \
#                    gymnasium==1.4.0 pettingzoo==1.27.0 farama-notifications==0.0.6
#   device:      run(command="bash training/improve/device_round.sh", carry=["scratch/wheels"], timeout_s=590)
#   back here:   tar -xkf <files_at>/round0_labels.tar -C docs/results/improve_labels/round0
#
# Each of WORKERS processes (one numba thread each) writes the files i with i % WORKERS == w that are not in
# docs/results/improve_labels/round0 yet (the committed ones are skipped), and stops between files once BUDGET
# seconds have passed since this script began; every file is written whole. The new files go into
# $OUT/round0_labels.tar (the device brings back at most 8 files), with the workers' logs in $OUT/round0_log.txt.
# A later round: LABELS=docs/results/improve_labels/round3 ROUND_ARGS="--round 3 --state-player
# docs/results/improve_labels/improved_r2.npz" bash training/improve/device_round.sh (the archive keeps its name).
# The round then goes on anywhere, on 2 cores in the background, from where the files stand:
#
#   OPENBLAS_NUM_THREADS=1 NUMBA_NUM_THREADS=1 nohup nice -n 19 python -m gin3_training.improve.round \
#       --out docs/results/improve_labels/round0 >> runs/round0.log 2>&1 &
set -uo pipefail
START=$(date +%s)
OUT=${OUT:?set OUT: the folder whose files come back}
WORKERS=${WORKERS:-16}
BUDGET=${BUDGET:-480}
LABELS=${LABELS:-docs/results/improve_labels/round0}
ROUND_ARGS=${ROUND_ARGS:-}  # other settings of the round (a test: --decisions 40 --shard-size 10)
export PYTHONUNBUFFERED=1 NUMBA_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1
if ! python3 -c "import gymnasium, pettingzoo" 2>/dev/null; then
    python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site scratch/wheels/*.whl \
        || { echo "no wheels of gymnasium/pettingzoo in scratch/wheels (see the top of this script)"; exit 2; }
    export PYTHONPATH=/tmp/site
fi
mkdir -p /tmp/gin3path && ln -sfn "$PWD/training" /tmp/gin3path/gin3_training  # the lab's import name
export PYTHONPATH="$PWD:/tmp/gin3path${PYTHONPATH:+:$PYTHONPATH}"
mkdir -p "$LABELS" && touch /tmp/round_start
# compile the kernels once (numba's cache, beside the sources) before the workers start
python3 -m gin3_training.improve.round --out /tmp/warm --decisions 4 --shard-size 4 --shuffles 2 >"$OUT/round0_log.txt" 2>&1 \
    || { tail -20 "$OUT/round0_log.txt"; exit 3; }
LEFT=$(( BUDGET - ($(date +%s) - START) ))
echo "compiled in $(( $(date +%s) - START ))s; $WORKERS workers for ${LEFT}s" | tee -a "$OUT/round0_log.txt"
for w in $(seq 0 $(( WORKERS - 1 ))); do
    # shellcheck disable=SC2086
    python3 -m gin3_training.improve.round --out "$LABELS" --worker "$w/$WORKERS" --stop-after "$(( LEFT - 30 ))" \
        $ROUND_ARGS >"/tmp/worker_$w.log" 2>&1 &
done
wait
cat /tmp/worker_*.log >>"$OUT/round0_log.txt"
NEW=$(cd "$LABELS" && find . -name 'labels_*.npz' -newer /tmp/round_start | sort)
if [ -n "$NEW" ]; then
    (cd "$LABELS" && tar -cf "$OUT/round0_labels.tar" $NEW)
fi
echo "$(echo "$NEW" | grep -c npz) new label files, $(ls "$LABELS" | grep -c npz) in all; $(( $(date +%s) - START ))s" \
    | tee -a "$OUT/round0_log.txt"
grep -h "per CPU-s" /tmp/worker_*.log | tail -3
