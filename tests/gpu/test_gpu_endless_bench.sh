# SPDX-License-Identifier: Apache-2.0
# On a GPU: a kernel that never ends, given to bench, costs no more than the
# per-point limit the command states (docs/isolation.md: --timeout S on top
# of --max-time, here 5 + 1 = 6 s), not the 60 s default: the worker is
# killed, the point is "timeout", exit 1. The whole command costs at most
# that plus 2 s (process start, the worker's kill, the context's release). Also with the limit in a job ([measure] timeout) for
# tune, where the endless point is one timeout and the run goes on.
. "$KT_SOURCE_DIR/tests/cli/lib.sh"

"$KT_HAS_GPU" || {
    echo "no CUDA device: skipped"
    exit 77
}
export KTUNE_CACHE_DIR=$PWD/cache
rm -rf cache ./*.json ./*.ini
FAULTS=$KT_FIXTURES/gpu_faults.so
TIMEOUT=5
MAX_TIME=1
LIMIT=$((TIMEOUT + MAX_TIME))
SLACK=2
flags="--plugin $FAULTS --size n=100000 --min-time 0 --max-time $MAX_TIME --timeout $TIMEOUT"

ms() { date +%s%3N; }

# Warm the compile cache and the driver so the endless bench pays no first
# compile. Its whole cost, process start to exit, is held to the limit plus
# the slack: the ending variant is no baseline, since it runs the whole
# protocol (calibration, --max-time of sampling) that the endless one is
# killed before.
"$KTUNE" bench gpu_faults:twice --variant correct $flags >/dev/null 2>&1
t0=$(ms)
expect_exit 1 "$KTUNE" bench gpu_faults:twice --variant endless $flags
cost=$(($(ms) - t0))
expect_text "timeout"
echo "bench: the endless variant cost $cost ms in all (limit ${LIMIT} s + ${SLACK} s)"
[ "$cost" -le $(((LIMIT + SLACK) * 1000)) ] || {
    echo "FAIL: the endless kernel cost $cost ms, more than the stated ${LIMIT} s + ${SLACK} s"
    failures=$((failures + 1))
}
# ... and it was stopped by the limit, not by luck: at least the timeout.
[ "$cost" -ge $((TIMEOUT * 1000 - 500)) ] || {
    echo "FAIL: the endless kernel ended after only $cost ms (a timeout of $TIMEOUT s was stated)"
    failures=$((failures + 1))
}

# tune: the job's [measure] timeout is the limit of its endless point.
cat > endless.ini <<INI
[job]
operator = gpu_faults:twice
n = 100000
[space]
variant = correct, endless
block = 128
[strategy]
name = exhaustive
[measure]
min_time = 0
max_time = $MAX_TIME
timeout = $TIMEOUT
INI
t0=$(ms)
expect_exit 0 "$KTUNE" tune endless.ini --plugin "$FAULTS" --journal none --json t.json
cost=$(($(ms) - t0))
echo "tune: $cost ms for both points (limit ${LIMIT} s for the endless one)"
python3 -c 'import json; s=json.load(open("t.json")); assert s["best"]["variant"]=="correct", s["best"]; assert {x["status"] for x in s["invalid"]}=={"timeout"}, s["invalid"]' ||
    { echo "FAIL: tune did not record the endless point as a timeout"; failures=$((failures + 1)); }
[ "$cost" -le $(((LIMIT + SLACK) * 1000 + base * 2)) ] || {
    echo "FAIL: tune took $cost ms, more than the endless point's ${LIMIT} s and two benches' worth of start-up"
    failures=$((failures + 1))
}
rm -rf cache ./*.json ./*.ini
finish
