# Steps and lanes for .ci/run (sourced, not run).
#
# `step NAME COMMAND...` runs COMMAND with its output in $CI_LOGS/NAME.log, then prints that log
# whole under one lock (so two lanes' outputs never interleave), its time, and its exit status;
# it returns the command's status. `run_lanes F G ...` runs each function as a lane in the
# background (a lane stops at its first failing step; the others go on, so one run shows every
# failure), prints the table of step times, and fails when any lane failed. A failed step's
# failure lines (test failures, compiler errors, make errors) are printed again after the table:
# CI keeps only the end of a long log, and a failure in the first lane to end is otherwise cut.

CI_LOGS=${CI_LOGS:-.build-ci-logs}
rm -rf "$CI_LOGS"
mkdir -p "$CI_LOGS"
: > "$CI_LOGS/times"
CI_START=$SECONDS

step() {
    local name=$1
    shift
    local start=$SECONDS status=0
    echo "==> $name: started at +$((start - CI_START)) s ($*)"
    # CPU time beside wall time: the lanes share two cores, so a step's wall time says as much
    # about the other lane as about the step; its CPU seconds (all its processes) are its own.
    if [ -x /usr/bin/time ]; then
        /usr/bin/time -f "%U %S" -o "$CI_LOGS/$name.cpu" "$@" > "$CI_LOGS/$name.log" 2>&1 || status=$?
    else
        "$@" > "$CI_LOGS/$name.log" 2>&1 || status=$?
    fi
    local elapsed=$((SECONDS - start))
    local cpu
    cpu=$(awk '/^[0-9.]+ [0-9.]+$/ { printf "%d", $1 + $2 }' "$CI_LOGS/$name.cpu" 2>/dev/null || true)
    (
        flock 9
        echo "==> $name: output"
        cat "$CI_LOGS/$name.log"
        echo "==> $name: exit $status after ${elapsed} s"
        printf '%-20s %5d s  %6s  %s\n' "$name" "$elapsed" "${cpu:-?} cpu" "$([ $status = 0 ] && echo ok || echo "FAILED ($status)")" >> "$CI_LOGS/times"
    ) 9> "$CI_LOGS/.lock"
    return $status
}

stop_descendants() {
    local child
    for child in $(pgrep -P "$1"); do
        stop_descendants "$child"
        kill -TERM "$child" 2>/dev/null || true
    done
}

run_lanes() {
    local pids=() lane failed=0
    for lane in "$@"; do
        ( set -e; "$lane" ) &
        pids+=($!)
    done
    # A CI cancel (TERM) stops every lane and what it started (Ctrl-C reaches them all anyway).
    trap 'stop_descendants $$; exit 130' INT TERM
    for pid in "${pids[@]}"; do
        wait "$pid" || failed=1
    done
    echo "==> step times: wall seconds, then CPU seconds (lanes overlap; the total is wall time)"
    cat "$CI_LOGS/times"
    echo "total                $((SECONDS - CI_START)) s"
    print_failures
    return $failed
}

# The lines that say why each failed step failed, at most 40 per step: XCTest's and
# swift-testing's failures, compiler and linker errors, make's own error line.
print_failures() {
    local name
    for name in $(awk '/FAILED/ { print $1 }' "$CI_LOGS/times"); do
        echo "==> why $name failed (its failure lines; the whole log is printed above)"
        grep -E "error:|: failed|✘|Test Case .* failed|FAIL|Fatal error|\*\*\* \[" "$CI_LOGS/$name.log" \
            | grep -vE "with 0 failures|passed" | head -40 || true
    done
}
