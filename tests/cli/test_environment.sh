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
bad KTUNE_NVRTC_THREADS -1 1000000 9 x 1.5
good KTUNE_NVRTC_THREADS 0 8
bad KTUNE_PLUGIN_CACHE /dev/full yes 2
good KTUNE_PLUGIN_CACHE 0 1
bad KTUNE_CACHE_DIR "$PWD/a_file" /dev/null
good KTUNE_CACHE_DIR "$PWD/a_folder" "$PWD/new_folder"
bad KTUNE_NVRTC_CACHE 0 no
good KTUNE_NVRTC_CACHE off on
bad KTUNE_NVRTC_PREFETCH 2 yes
bad KTUNE_PROFILE_FLUSH fast
bad KTUNE_ROUND_SYNC 2
bad KTUNE_WORKER_TIMES 0 yes
bad KTUNE_CUPTI_RANGE kernels
good KTUNE_CUPTI_RANGE launch
bad KTUNE_TIMELINE_DRIVER 2
bad KTUNE_TIMELINE_FLUSH_MS 0 60000 -5 x
bad KTUNE_TRACER "$PWD/a_folder" /no/such/tracer.so
# Every command, not only list.
for cmd in "tune --check $KT_SOURCE_DIR/configs/vector_add.ini" "info" \
    "bench vector_add:add" "wisdom show x" "diff a b" "report x"; do
    # shellcheck disable=SC2086
    expect_exit 2 env KTUNE_PLUGIN_TIMEOUT=abc "$K" $cmd
    expect_text "KTUNE_PLUGIN_TIMEOUT=abc"
done

# Every variable the checker knows is in docs/cli.md's table.
for var in $(grep -o '{"KTUNE_[A-Z_]*"' "$KT_SOURCE_DIR/app/envcheck.c" | tr -d '{"'); do
    grep -q "\`$var\`" "$KT_SOURCE_DIR/docs/cli.md" ||
        { echo "FAIL: $var is not in docs/cli.md"; failures=$((failures + 1)); }
done
finish
