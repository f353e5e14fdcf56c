# SPDX-License-Identifier: Apache-2.0
# Every KTUNE_* variable is checked before a command runs: garbage exits 2
# naming the variable (never a silent default or a clamp), a value it takes
# runs, and docs/cli.md names every variable the checker knows.
. "$KT_SOURCE_DIR/tests/cli/lib.sh"

K=$KTUNE
rm -rf ./* && : > a_file && mkdir a_folder

bad() {
    local var=$1
    shift
    for value in "$@"; do
        expect_exit 2 env "$var=$value" "$K" list
        expect_text "ktune list: $var=$value: expected"
    done
}
good() {
    local var=$1
    shift
    for value in "$@"; do
        expect_exit 0 env "$var=$value" "$K" list
    done
}

bad KTUNE_PLUGIN_TIMEOUT abc -1 0 nan inf 18446744073709551616 1e308 "5 s"
good KTUNE_PLUGIN_TIMEOUT 10 2.5
bad KTUNE_PLUGIN_CACHE /dev/full yes 2
good KTUNE_PLUGIN_CACHE 0 1
bad KTUNE_CACHE_DIR "$PWD/a_file" /dev/null
good KTUNE_CACHE_DIR "$PWD/a_folder" "$PWD/new_folder"
bad KTUNE_NVRTC_CACHE 0 no
good KTUNE_NVRTC_CACHE off on
bad KTUNE_PROFILE_FLUSH fast
bad KTUNE_ROUND_SYNC 2
bad KTUNE_WORKER_TIMES 0 yes
bad KTUNE_CUPTI_RANGE kernels
good KTUNE_CUPTI_RANGE launch
bad KTUNE_TIMELINE_DRIVER 2
bad KTUNE_TIMELINE_FLUSH_MS 0 60000 -5 x 1.5 1000000
bad KTUNE_TRACER "$PWD/a_folder" /no/such/tracer.so
# Issue 53, N12: the NVML restore file, the NVML library and the NVRTC
# helper are checked too.
bad KTUNE_NVML_RESTORE /dev/zero "$PWD/a_folder" /no/such/folder/restore
good KTUNE_NVML_RESTORE "$PWD/a_file" "$PWD/new_restore"
bad KTUNE_NVML_LIBRARY /dev/zero "$PWD/a_folder"
good KTUNE_NVML_LIBRARY libnvidia-ml.so.1 /no/such/libnvidia-ml.so.1 "$PWD/a_file"
bad KTUNE_NVRTC_HELPER /no/such/helper "$PWD/a_file" "$PWD/a_folder" on
good KTUNE_NVRTC_HELPER off /bin/true
# Every command, not only list.
for cmd in "tune --check $KT_SOURCE_DIR/configs/vector_add.ini" "info" \
    "bench vector_add:add" "wisdom show x" "diff a b" "report x"; do
    # shellcheck disable=SC2086
    expect_exit 2 env KTUNE_PLUGIN_TIMEOUT=abc "$K" $cmd
    expect_text "KTUNE_PLUGIN_TIMEOUT=abc"
done

# A variable that changes what is measured is in the result's protocol
# record (the --json summary and the journal's header), and absent without.
rec=$KT_SOURCE_DIR/tests/data/vector_add-h200-n1048576.jsonl
protocol_has() {
    python3 - "$1" "$2" "$3" <<'PY' || { echo "FAIL: $1 lacks $2=$3"; failures=$((failures + 1)); }
import json, sys
path, key, want = sys.argv[1:]
doc = json.loads(open(path).readline()) if path.endswith(".jsonl") else json.load(open(path))
got = doc["environment"]["protocol"].get(key)
want = {"absent": None, "true": True}.get(want, want)
assert got == want, (path, key, got)
PY
}
rm -f s.json j.jsonl
expect_exit 0 env KTUNE_ROUND_SYNC=1 KTUNE_PROFILE_FLUSH=sweep "$K" tune \
    "$KT_SOURCE_DIR/configs/vector_add.ini" --replay "$rec" --quiet \
    --json s.json --journal j.jsonl
for f in s.json j.jsonl; do
    protocol_has $f round_sync true
    protocol_has $f profile_flush sweep
done
rm -f s.json j.jsonl
expect_exit 0 "$K" tune "$KT_SOURCE_DIR/configs/vector_add.ini" --replay "$rec" \
    --quiet --json s.json --journal j.jsonl
for f in s.json j.jsonl; do
    protocol_has $f round_sync absent
    protocol_has $f profile_flush absent
done

# Every variable the checker knows is in docs/cli.md's table.
for var in $(grep -o '{"KTUNE_[A-Z_]*"' "$KT_SOURCE_DIR/app/envcheck.c" | tr -d '{"'); do
    grep -q "\`$var\`" "$KT_SOURCE_DIR/docs/cli.md" ||
        { echo "FAIL: $var is not in docs/cli.md"; failures=$((failures + 1)); }
done
finish
