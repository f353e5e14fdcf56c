# SPDX-License-Identifier: Apache-2.0
# On a GPU: a compile-bound sweep (tests/declared/heavy.ini, 32 kernels of
# about a second of NVRTC each) compiles on every core ahead of the
# measurement: the pool's wall time is well under the compiles' summed
# time, the GPU waits on compiles for a fraction of that, the summary
# states threads, compile wall and CPU time and the GPU's idle fraction,
# and a second run compiles nothing.
. "$KT_SOURCE_DIR/tests/cli/lib.sh"

"$KT_HAS_GPU" || {
    echo "no CUDA device: skipped"
    exit 77
}
export KTUNE_CACHE_DIR=$PWD/pool-cache
rm -rf pool-cache ./pool*.json ./pool*.jsonl
decl=$KT_SOURCE_DIR/tests/declared/heavy.ini
cpus=$(nproc)

# field JSON PYTHON-EXPRESSION-OF-c: a figure of the summary's compilation.
field() {
    python3 -c "import json,sys; c=json.load(open(sys.argv[1]))['compilation']; print($2)" "$1"
}

expect_exit 0 "$KTUNE" tune "$decl" --journal pool1.jsonl --json pool1.json
expect_text "compile pool: $cpus thread(s)"
expect_text "of the run)"
# 32 kernels; the reference's (salt 0) compiles at set-up, before any
# point, and is loaded already when its point comes.
[ "$(field pool1.json "int(c['compiled'] >= 31)")" = 1 ] || {
    echo "FAIL: expected 31 or 32 kernels compiled: $(field pool1.json c)"
    failures=$((failures + 1))
}
[ "$(field pool1.json "c['threads']")" = "$cpus" ] || {
    echo "FAIL: expected $cpus compile threads"
    failures=$((failures + 1))
}
# Overlap: with 4 or more cores the pool's wall time is under half the
# compiles' summed time, and the GPU waited less than half of it.
if [ "$cpus" -ge 4 ]; then
    [ "$(field pool1.json "int(c['wall_s'] < 0.5 * c['seconds'])")" = 1 ] || {
        echo "FAIL: compiles did not overlap: $(field pool1.json c)"
        failures=$((failures + 1))
    }
    [ "$(field pool1.json "int(c['gpu_wait_s'] < 0.5 * c['seconds'])")" = 1 ] || {
        echo "FAIL: the GPU waited on compiles: $(field pool1.json c)"
        failures=$((failures + 1))
    }
fi
echo "pool of $cpus: $(field pool1.json c)"

# One thread, for the record: the GPU idle fraction compile-bound.
rm -rf pool-cache
expect_exit 0 "$KTUNE" tune "$decl" --journal pool2.jsonl --json pool2.json \
    --set measure.compile_threads=1
expect_text "compile pool: 1 thread(s)"
echo "one thread: $(field pool2.json c)"

# Cached: nothing compiles.
expect_exit 0 "$KTUNE" tune "$decl" --journal pool3.jsonl --json pool3.json
[ "$(field pool3.json "c['compiled']")" = 0 ] || {
    echo "FAIL: the cached run compiled kernels"
    failures=$((failures + 1))
}
[ "$(field pool3.json "int(c['cache_hits'] >= 31)")" = 1 ] || {
    echo "FAIL: expected 31 or 32 cache hits: $(field pool3.json c)"
    failures=$((failures + 1))
}
finish
