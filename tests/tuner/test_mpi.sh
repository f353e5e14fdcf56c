# SPDX-License-Identifier: Apache-2.0
# ktune tune --mpi on this host, answering from a recording (each rank its
# own replay, waiting the recorded durations): rank 0 journals what every
# rank measured and gives the single process's answer; a rank that hangs
# (SIGSTOP) or dies (SIGKILL, with Open MPI's recovery on) loses its call,
# not the run, and the journal resumes without MPI. Skipped (77) without
# mpirun or in a ktune built without MPI.
. "$KT_SOURCE_DIR/tests/cli/lib.sh"

command -v mpirun >/dev/null 2>&1 || { echo "no mpirun: skipped"; exit 77; }
if "$KTUNE" tune --mpi x.ini 2>&1 | grep -q "built without MPI"; then
    echo "ktune was built without MPI: skipped"
    exit 77
fi
REC=$KT_SOURCE_DIR/tests/data/vector_add-synthetic-n16777216.jsonl
rm -f ./*.json ./*.jsonl ./*.out
cat > job.ini <<'INI'
[job]
operator = vector_add:add
n = 2^24
[strategy]
name = exhaustive
max_seconds = 0
[measure]
timeout = 0.5
max_time = 0.5
[output]
journal = none
INI
MPIRUN=(mpirun --allow-run-as-root --oversubscribe)
# Under AddressSanitizer (CI): what Open MPI keeps until exit is not ours to
# free; the session's own memory is leak-checked by the tests without MPI.
export ASAN_OPTIONS="${ASAN_OPTIONS:-}${ASAN_OPTIONS:+:}detect_leaks=0"

best() { python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['best']['config'])" "$1"; }
evals_by() { grep -c "\"kind\":\"eval\".*\"env\":$2[,}]" "$1" 2>/dev/null || true; }
same_best() {
    [ "$(best ref.json)" = "$(best "$1")" ] ||
        { echo "FAIL: $1 answered $(best "$1"), expected $(best ref.json)"; failures=$((failures + 1)); }
}

expect_exit 0 "$KTUNE" tune job.ini --replay "$REC" --quiet --json ref.json

# Two ranks: both measure, rank 0 journals, the answer is the same.
expect_exit 0 timeout -k 5 120 "${MPIRUN[@]}" -np 2 "$KTUNE" tune job.ini \
    --replay "$REC" --mpi --time-scale 0.05 --journal two.jsonl --json two.json
expect_text "2 workers (each comparison on one of them)"
same_best two.json
[ "$(evals_by two.jsonl 1)" -gt 0 ] ||
    { echo "FAIL: rank 1 measured nothing"; failures=$((failures + 1)); }
[ "$(grep -c '"kind":"environment"' two.jsonl)" = 1 ] ||
    { echo "FAIL: rank 1 has no environment record"; failures=$((failures + 1)); }

# The rank that answered once, then stops (how) while 3 ranks run.
lose_rank() {
    local how=$1 name=$2 mpirun_pid rank_pid
    shift 2
    timeout -k 5 120 "${MPIRUN[@]}" "$@" -np 3 "$KTUNE" tune job.ini \
        --replay "$REC" --mpi --time-scale 0.3 --journal "$name.jsonl" \
        --json "$name.json" >"$name.out" 2>&1 &
    mpirun_pid=$!
    for _ in $(seq 1000); do
        [ "$(evals_by "$name.jsonl" 2)" -gt 0 ] && break
        sleep 0.02
    done
    for p in $(pgrep -P "$(pgrep -P $mpirun_pid -x mpirun || echo $mpirun_pid)"); do
        tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null |
            grep -qx OMPI_COMM_WORLD_RANK=2 && rank_pid=$p
    done
    if [ -z "${rank_pid:-}" ]; then
        echo "FAIL: $name: rank 2 not found"
        failures=$((failures + 1))
    else
        kill "-$how" "$rank_pid"
    fi
    wait $mpirun_pid
    # A stopped rank that mpirun left behind would hold the test's output
    # open (and ctest waiting) until ctest's own timeout.
    [ -n "${rank_pid:-}" ] && kill -KILL "$rank_pid" 2>/dev/null
    out=$(cat "$name.out")
    expect_text "retired: rank 2 stopped answering"
    same_best "$name.json"
    # Every point measured once, the journal resumes without MPI.
    expect_exit 0 "$KTUNE" tune job.ini --replay "$REC" --quiet --resume \
        --journal "$name.jsonl" --json "$name-resumed.json"
    same_best "$name-resumed.json"
}
lose_rank STOP hung
lose_rank KILL killed --mca orte_enable_recovery 1
finish
