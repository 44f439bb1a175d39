#!/usr/bin/env bash
# A/A check of `imago bench compare` (issue 26): RUNS+1 runs of one build, each compared with the
# next, so a comparison sees only run-to-run noise. Prints, per trial, compare's exit status
# (0: every row within noise) and the rows it judged better or worse; at the end the number of
# trials with a verdict. The runs stay in OUT for a look.
#
#   Scripts/bench-aa/bench-aa.sh IMAGO RUNS OUT -- BENCH-ARGUMENTS...
#   e.g. Scripts/bench-aa/bench-aa.sh .build/release/imago 20 /tmp/aa -- --scenario decode --quick
#
# With a second binary (IMAGO_B=path), runs alternate between the two builds and each trial
# compares an IMAGO run with the IMAGO_B run after it: an A/B check, e.g. a planted slowdown.
set -euo pipefail
if [ $# -lt 4 ] || [ "$4" != "--" ]; then
    echo "usage: $0 IMAGO RUNS OUT -- BENCH-ARGUMENTS..." >&2
    exit 64
fi
imago=$1 runs=$2 out=$3
shift 4
mkdir -p "$out"
run_dir() { echo "$out/run$1/latest"; }
for i in $(seq 0 "$runs"); do
    binary=$imago
    if [ -n "${IMAGO_B:-}" ] && [ $((i % 2)) -eq 1 ]; then binary=$IMAGO_B; fi
    echo "run $i: $binary (load average $(cut -d' ' -f1-3 /proc/loadavg))"
    "$binary" bench "$@" --out "$out/run$i" > "$out/run$i.log" 2>&1
done
with_verdict=0 trials=0
for i in $(seq 1 "$runs"); do
    # A/B: only a B run after an A run is a trial.
    if [ -n "${IMAGO_B:-}" ] && [ $((i % 2)) -eq 0 ]; then continue; fi
    trials=$((trials + 1))
    status=0
    "$imago" bench compare "$(run_dir $((i - 1)))" "$(run_dir "$i")" --out "$out/compare$i" > "$out/compare$i.log" 2>&1 \
        || status=$?
    if [ "$status" -ne 0 ]; then with_verdict=$((with_verdict + 1)); fi
    echo "trial $i: exit $status"
    grep -E '^(WORSE|BETTER)' "$out/compare$i.log" | sed 's/^/    /' || true
done
echo "$with_verdict of $trials trials had a verdict (A/A: at most 1 in 20 allowed)"
