# SPDX-License-Identifier: Apache-2.0
# On a GPU: then/block_sums.ini verifies every point of both variants.
# partial_sums alone leaves partials whose count and order follow the
# configuration; only the second kernel's total makes them comparable, so
# a then-kernel that did not run (or ran before the first) fails
# verification: "no mismatch" over the whole space is the test. A then-kernel
# timed with the first makes its point slower than the same first kernel
# timed alone (then.timed = no), which the bench pair shows.
. "$KT_SOURCE_DIR/tests/cli/lib.sh"

"$KT_HAS_GPU" || {
    echo "no CUDA device: skipped"
    exit 77
}
export KTUNE_CACHE_DIR=$PWD/cache
rm -rf cache ./*.json ./*.jsonl
decl=$KT_SOURCE_DIR/tests/declared/then/block_sums.ini

# VARIANT POINTS: every point of the variant's space verified and timed.
for vp in "two_pass 16" "first_timed 8"; do
    set -- $vp
    expect_exit 0 "$KTUNE" tune "$decl" --journal "$1.jsonl" --json "$1.json" \
        --set space.variant=$1 --set strategy.name=exhaustive \
        --set measure.max_time=0.1
    if grep -q '"status": *"mismatch"' "$1.jsonl"; then
        echo "FAIL: a point of $1 mismatched its reference"
        failures=$((failures + 1))
    fi
    python3 - "$1.jsonl" "$2" <<'PY' || failures=$((failures + 1))
import json, sys
ok = set()
for line in open(sys.argv[1]):
    r = json.loads(line) if line.strip() else {}
    if r.get("status") == "ok":
        ok.add(json.dumps(r["point"], sort_keys=True))
assert len(ok) == int(sys.argv[2]), f"{len(ok)} of {sys.argv[2]} points verified"
print(sys.argv[1], len(ok), "points verified")
PY
done

# The same first kernel, with and without the second in the timed launch.
expect_exit 0 "$KTUNE" bench block_sums --plugin "$decl" --variant two_pass \
    --set block=256 --set items=4 --min-time 0.05 --json with.json
expect_exit 0 "$KTUNE" bench block_sums --plugin "$decl" \
    --variant first_timed --set block=256 --set items=4 --set threads=512 \
    --min-time 0.05 --json alone.json
python3 - with.json alone.json <<'PY' || failures=$((failures + 1))
import json, sys
w = json.load(open(sys.argv[1]))["result"]["timing"]["kernel"]["median"]
a = json.load(open(sys.argv[2]))["result"]["timing"]["kernel"]["median"]
print(f"with the second kernel {w:.2f} us, first alone {a:.2f} us")
assert w > a, "the timed second kernel did not add time"
PY
finish
