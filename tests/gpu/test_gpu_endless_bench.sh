# SPDX-License-Identifier: Apache-2.0
# On a GPU: a kernel that never ends, given to bench, costs no more than the
# per-point limit the command states (docs/isolation.md: --timeout S plus
# --max-time, here 5 + 1 = 6 s, counted from when the point is handed to
# the worker and covering the worker's kill), not the 60 s default: the
# worker is killed, the point is "timeout", exit 1. The whole command,
# process start to exit, costs at most the limit ktune states in its reason
# plus 1 s (process and worker start, the CUDA context, the problem's
# set-up: about 0.5 s on the H200). Also with the limit in a job ([measure]
# timeout) for tune, where the endless point is one timeout and the run
# goes on.
. "$KT_SOURCE_DIR/tests/cli/lib.sh"

"$KT_HAS_GPU" || {
    echo "no CUDA device: skipped"
    exit 77
}
export KTUNE_CACHE_DIR=$PWD/cache
rm -rf cache ./*.json ./*.ini ./*.log
FAULTS=$KT_FIXTURES/gpu_faults.so
TIMEOUT=5
MAX_TIME=1
LIMIT=$((TIMEOUT + MAX_TIME))
flags="--plugin $FAULTS --size n=100000 --min-time 0 --max-time $MAX_TIME --timeout $TIMEOUT"

ms() { date +%s%3N; }

# Warm the compile cache, the calibration cache and the driver so the
# endless bench pays no first compile or calibration.
"$KTUNE" bench gpu_faults:twice --variant correct $flags >/dev/null 2>&1

# The cost the user sees is ktune's own: its output goes to a file, since a
# pipe on stderr is also held by the killed worker until the driver has
# torn its context down (measured below, for the record).
t0=$(ms)
"$KTUNE" bench gpu_faults:twice --variant endless $flags >endless.log 2>&1
got=$?
cost=$(($(ms) - t0))
out=$(cat endless.log)
[ "$got" = 1 ] || {
    echo "FAIL: the endless bench exited $got, expected 1"
    failures=$((failures + 1))
}
expect_text "timeout: no result within its limit of $LIMIT s"
stated=$(sed -n 's/.*no result within its limit of \([0-9.]*\) s.*/\1/p' endless.log | head -1)
echo "bench: the endless variant cost $cost ms in all; ktune stated a limit of ${stated:-?} s"
if [ -z "$stated" ]; then
    echo "FAIL: ktune stated no per-point limit"
    failures=$((failures + 1))
else
    bound=$(python3 -c "print(int(($stated + 1) * 1000))")
    [ "$cost" -le "$bound" ] || {
        echo "FAIL: the endless kernel cost $cost ms, more than the stated ${stated} s + 1 s"
        failures=$((failures + 1))
    }
fi
# The point's own cost, from when it was sent until its worker was reaped,
# as ktune states it, is within the limit (the process and worker start,
# the context and the set-up come before the point).
point=$(sed -n 's/.*the point cost \([0-9.]*\) s.*/\1/p' endless.log | head -1)
echo "bench: ktune states the endless point cost ${point:-?} s of its ${stated:-?} s limit"
if [ -z "$point" ] || ! python3 -c "import sys; sys.exit(not $point <= ${stated:-0})"; then
    echo "FAIL: the endless point's stated cost ${point:-?} s is not within its limit ${stated:-?} s"
    failures=$((failures + 1))
fi
# ... and it was stopped by the limit, not by luck.
[ "$cost" -ge $((LIMIT * 1000 - 500)) ] || {
    echo "FAIL: the endless kernel ended after only $cost ms (a limit of $LIMIT s was stated)"
    failures=$((failures + 1))
}
# For the record: through a pipe, until the killed worker let go of it.
t0=$(ms)
"$KTUNE" bench gpu_faults:twice --variant endless $flags 2>&1 | cat >/dev/null
echo "bench through a pipe: $(($(ms) - t0)) ms until the killed worker's output closed"

# tune: the job's [measure] timeout is the limit of its endless point. The
# baseline is the same job without it; the endless one costs its limit, a
# fresh worker's start, and the wait for the killed worker's exit before
# that worker starts (two never hold one GPU: docs/isolation.md).
job() {
    cat <<INI
[job]
operator = gpu_faults:twice
n = 100000
[space]
variant = $1
block = 128
[strategy]
name = exhaustive
[measure]
min_time = 0
max_time = $MAX_TIME
timeout = $TIMEOUT
INI
}
job correct >correct.ini
job "correct, endless" >endless.ini
t0=$(ms)
"$KTUNE" tune correct.ini --plugin "$FAULTS" --journal none >/dev/null 2>&1
base=$(($(ms) - t0))
t0=$(ms)
"$KTUNE" tune endless.ini --plugin "$FAULTS" --journal none --json t.json >tune.log 2>&1
got=$?
cost=$(($(ms) - t0))
[ "$got" = 0 ] || {
    echo "FAIL: tune with an endless point exited $got, expected 0"
    sed 's/^/    /' tune.log
    failures=$((failures + 1))
}
echo "tune: $cost ms with the endless point, $base ms without (limit ${LIMIT} s)"
python3 -c 'import json; s=json.load(open("t.json")); assert s["best"]["variant"]=="correct", s["best"]; assert {x["status"] for x in s["invalid"]}=={"timeout"}, s["invalid"]' ||
    { echo "FAIL: tune did not record the endless point as a timeout"; failures=$((failures + 1)); }
[ "$cost" -le $((base + (LIMIT + 6) * 1000)) ] || {
    echo "FAIL: tune took $cost ms, more than the ${base} ms without the endless point + its ${LIMIT} s + 6 s"
    failures=$((failures + 1))
}
rm -rf cache ./*.json ./*.ini ./*.log
finish
