# SPDX-License-Identifier: Apache-2.0
# On a GPU: a plugin whose setup() segfaults, one whose kernel never ends
# and one whose entry point calls exit(0) each cost one point or one "not
# loaded" line in bench, profile, compare, tune and sanitize, with the exit
# code docs/isolation.md states; and a transpose that swaps m and n in one
# index is caught by the boundary sizes although the problem is square.
# About 60 s on an H200 (every time limit here is short on purpose).
. "$KT_SOURCE_DIR/tests/cli/lib.sh"

"$KT_HAS_GPU" || {
    echo "no CUDA device: skipped"
    exit 77
}
export KTUNE_CACHE_DIR=$PWD/cache
rm -rf cache logs ./*.json ./*.jsonl ./*.ini
SEGV=$KT_FIXTURES/hostile_setup_fault.so
EXIT0=$KT_FIXTURES/hostile_exit0_entry.so
FAULTS=$KT_FIXTURES/gpu_faults.so
T=$KT_FIXTURES/transpose_bug.so
quick="--min-time 0 --max-time 1 --timeout 5"
ok() { echo "ok: $*"; }

# --- bench ------------------------------------------------------------------
expect_exit 1 "$KTUNE" bench good:scale --plugin "$SEGV" $quick
expect_text "signal 11"
ok "bench: setup() segfault costs the run, exit 1"
expect_exit 1 "$KTUNE" bench gpu_faults:twice --plugin "$FAULTS" --variant endless $quick
expect_text "timeout"
ok "bench: endless kernel stopped after --timeout, exit 1"
KTUNE_PLUGIN_PATH=$EXIT0 expect_exit 0 "$KTUNE" bench vector_add:add --size n=2^20 $quick
expect_text "not loaded: $EXIT0"
expect_text "median"
ok "bench: exit(0) plugin is one 'not loaded' line, the bench runs"

# --- profile -------------------------------------------------------------------
expect_exit 1 "$KTUNE" profile good:scale --plugin "$SEGV" --no-counters $quick
expect_text "signal 11"
expect_exit 1 "$KTUNE" profile gpu_faults:twice --plugin "$FAULTS" --variant endless --no-counters $quick
expect_text "timeout"
KTUNE_PLUGIN_PATH=$EXIT0 expect_exit 0 "$KTUNE" profile vector_add:add --size n=2^20 --no-counters $quick
expect_text "not loaded: $EXIT0"
ok "profile: the same three"

# --- compare -------------------------------------------------------------------
expect_exit 1 "$KTUNE" compare good:scale --plugin "$SEGV" --no-counters $quick
expect_text "signal 11"
expect_exit 1 "$KTUNE" compare gpu_faults:twice --plugin "$FAULTS" --no-counters $quick --size n=100000
expect_text "endless"
expect_text "timeout"
expect_text "correct"
KTUNE_PLUGIN_PATH=$EXIT0 expect_exit 0 "$KTUNE" compare vector_add:add --size n=2^20 --no-counters $quick
expect_text "not loaded: $EXIT0"
ok "compare: setup fault fails the run (exit 1), an endless variant is one timeout row"

# --- tune ------------------------------------------------------------------------
cat > endless.ini <<'INI'
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
max_time = 1
timeout = 3
INI
KTUNE_PLUGIN_PATH="$FAULTS:$EXIT0" expect_exit 0 "$KTUNE" tune endless.ini --journal none --json t.json
expect_text "not loaded: $EXIT0"
python3 -c 'import json; s=json.load(open("t.json")); assert s["best"]["variant"]=="correct", s["best"]; assert {x["status"] for x in s["invalid"]}=={"timeout"}, s["invalid"]' ||
    { echo "FAIL: tune did not record the endless point as a timeout"; failures=$((failures + 1)); }
sed 's/gpu_faults:twice/good:scale/; s/^variant = .*/variant = plain/; s/^block = 128/block = 64/' endless.ini >segv.ini
expect_exit 1 "$KTUNE" tune segv.ini --plugin "$SEGV" --journal none
expect_text "signal 11"
ok "tune: endless point recorded as timeout (exit 0); setup() segfault exit 1"

# --- sanitize ----------------------------------------------------------------
expect_exit 1 "$KTUNE" sanitize good:scale --plugin "$SEGV" --tools memcheck --timeout 60
# How the crash shows depends on compute-sanitizer (a signal, or its own
# exit status): a line per variant that is not a clean 0.
grep -Eq 'tiled +memcheck +(-1|[1-9])' <<<"$out" ||
    { echo "FAIL: sanitize: the crashing set-up was not a failed line"; echo "$out"; failures=$((failures + 1)); }
expect_exit 1 "$KTUNE" sanitize gpu_faults:twice --plugin "$FAULTS" --tools memcheck --size n=1000 --timeout 20
expect_text "endless          memcheck         -1  the run did not finish within 20 s"
expect_text "correct          memcheck          0"
KTUNE_PLUGIN_PATH=$EXIT0 expect_exit 2 "$KTUNE" sanitize vector_add:nosuch --tools memcheck
expect_text "not loaded: $EXIT0"
ok "sanitize: setup fault and endless kernel one line each (exit 1); exit(0) plugin one 'not loaded' line"

# --- a transposed dimension --------------------------------------------------
expect_exit 0 "$KTUNE" bench transpose_bug:transpose --plugin "$T" --variant right $quick
expect_exit 1 "$KTUNE" bench transpose_bug:transpose --plugin "$T" --variant swapped $quick
expect_text "mismatch"
expect_text "per dimension"
# Without boundaries the square problem hides it: the reason they exist.
expect_exit 0 "$KTUNE" bench transpose_bug:transpose --plugin "$T" --variant swapped --no-boundaries $quick
ok "transpose with swapped m and n: caught at a non-square boundary size"
finish
