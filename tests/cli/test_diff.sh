# SPDX-License-Identifier: Apache-2.0
# ktune diff on committed results files (tests/data/diff, made by
# tools/gen_diff_fixtures.py from the H200 recording in replay): a
# regression beyond the threshold exits 1, an improvement, a tie and
# changes within the threshold exit 0, environments that differ are a
# warning naming each field, and a file that is not a results file, two
# operators, no shared configuration or a bad option exit 2. --json and
# --markdown ('-': stdout only) are checked against their schema and shape.
. "$(dirname "$0")/lib.sh"

D="$KT_SOURCE_DIR/tests/data/diff"
S="$KT_SOURCE_DIR/docs/schemas"

expect_exit 1 "$KTUNE" diff "$D/a.tune.json" "$D/b-slower.tune.json"
expect_text "1 regression(s), 0 improvement(s), 9 within 2.0%"
expect_text "vec4 block=1024 items=1                    732.864      769.507  +5.0% [+"
grep -q WARNING <<<"$out" && { echo "FAIL: same environment warned"; failures=$((failures + 1)); }
expect_text "answer unchanged: vec4 block=1024 items=1"
# the answer of B is another configuration (its row is still compared)
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d["best"]=dict(d["top"][3]); d["best"].pop("samples_us"); json.dump(d,open("moved.json","w"))' "$D/a.tune.json"
expect_exit 0 "$KTUNE" diff "$D/a.tune.json" moved.json
expect_text "answer changed: vec4 block=1024 items=1 (A) -> vec4 block=256 items=1 (B)"
# a threshold above the change: no regression
expect_exit 0 "$KTUNE" diff "$D/a.tune.json" "$D/b-slower.tune.json" --threshold 6%
expect_text "0 regression(s), 0 improvement(s), 10 within 6.0%"
expect_exit 0 "$KTUNE" diff "$D/a.tune.json" "$D/b-faster.tune.json"
expect_text "0 regression(s), 1 improvement(s)"
expect_text "-5.0% [-"
# every configuration 0.5% slower: measurable, but within 2%
expect_exit 0 "$KTUNE" diff "$D/a.tune.json" "$D/b-tie.tune.json"
expect_text "0 regression(s), 0 improvement(s), 10 within 2.0%"
# ... and beyond a 0.2% threshold
expect_exit 1 "$KTUNE" diff "$D/a.tune.json" "$D/b-tie.tune.json" --threshold 0.002
expect_text "10 regression(s)"
# the same file: a tie
expect_exit 0 "$KTUNE" diff "$D/a.compare.json" "$D/a.compare.json"
expect_text "0 regression(s), 0 improvement(s), 4 within 2.0%"
expect_exit 1 "$KTUNE" diff "$D/a.compare.json" "$D/b-slower.compare.json"
expect_text "vec4 block=32 items=2"
expect_text "regression"
# environments differ: loud, field by field, and the exit status still
# says what the numbers say
expect_exit 0 "$KTUNE" diff "$D/a.tune.json" "$D/b-env.tune.json"
expect_text "WARNING: A and B were measured in different environments"
expect_text "device.name: NVIDIA H200 (A) vs NVIDIA H100 80GB HBM3 (B)"
expect_text "device.driver_version: 13000 (A) vs 12040 (B)"
expect_text "device.sm_clock_mhz: 1980.0 (A) vs 1755.0 (B)"
expect_text "protocol.cache: cold (A) vs hot (B)"

# --json - and --markdown -: stdout is the document alone
"$KTUNE" diff "$D/a.tune.json" "$D/b-env.tune.json" --json - >diff.json 2>err.txt
grep -q "WARNING" err.txt || { echo "FAIL: the warning is not on stderr"; failures=$((failures + 1)); }
python3 - "$S/diff.schema.json" diff.json <<'PY' || failures=$((failures + 1))
import json, sys
import jsonschema
schema, doc = (json.load(open(p)) for p in sys.argv[1:])
jsonschema.Draft202012Validator.check_schema(schema)
jsonschema.Draft202012Validator(schema).validate(doc)
fields = [e["field"] for e in doc["environment_differences"]]
assert fields == ["device.name", "device.driver_version",
                  "device.sm_clock_mhz", "protocol.cache"], fields
assert doc["counts"]["same"] == 10, doc["counts"]
assert all(c["change"]["interval"] == "samples" for c in doc["configurations"])
assert doc["a"]["answer"] == "vec4 block=1024 items=1", doc["a"]
print("diff JSON valid")
PY
"$KTUNE" diff "$D/a.tune.json" "$D/b-slower.tune.json" --markdown - >diff.md 2>/dev/null
[ $? = 1 ] || { echo "FAIL: --markdown changed the exit status"; failures=$((failures + 1)); }
head -1 diff.md | grep -q "^## ktune diff: vector_add:add$" || { echo "FAIL: diff.md heading"; cat diff.md; failures=$((failures + 1)); }
grep -qF "| \`vec4 block=1024 items=1\` | 732.864 | 769.507 | +5.0% [" diff.md || { echo "FAIL: diff.md row"; cat diff.md; failures=$((failures + 1)); }
grep -q "^  configuration" diff.md && { echo "FAIL: the table went to stdout with --markdown -"; failures=$((failures + 1)); }

# bad input: exit 2 with the file named
printf '{"kind": "ktune.tune", "spec": ' > torn.json
expect_exit 2 "$KTUNE" diff "$D/a.tune.json" torn.json
expect_text "torn.json:1: not JSON"
"$KTUNE" list --json > list.json 2>/dev/null
expect_exit 2 "$KTUNE" diff list.json "$D/a.tune.json"
expect_text "list.json: kind ktune.list: expected"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d["top"][0]["median_us"]=-1; json.dump(d,open("neg.json","w"))' "$D/a.tune.json"
expect_exit 2 "$KTUNE" diff neg.json "$D/a.tune.json"
expect_text "neg.json: top[0]: \"median_us\": expected a time > 0 (us)"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d["spec"]="copy:copy"; json.dump(d,open("other.json","w"))' "$D/a.tune.json"
expect_exit 2 "$KTUNE" diff "$D/a.tune.json" other.json
expect_text "expected the same operator"
expect_exit 2 "$KTUNE" diff "$D/a.tune.json" "$D/a.compare.json"
expect_text "share no configuration"
expect_exit 2 "$KTUNE" diff "$D/a.tune.json" missing.json
expect_text "missing.json"
expect_exit 2 "$KTUNE" diff "$D/a.tune.json"
expect_text "expected two results files A B, found 1"
expect_exit 2 "$KTUNE" diff "$D/a.tune.json" "$D/b-tie.tune.json" --threshold 2
expect_text "--threshold: 2, expected a fraction"
# a format this ktune does not read, an interval upside down (issue 30 item 8)
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d["format"]=99; json.dump(d,open("f99.json","w"))' "$D/a.tune.json"
expect_exit 2 "$KTUNE" diff "$D/a.tune.json" f99.json
expect_text "f99.json: format: expected 1, the format this ktune reads"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d["top"][0]["ci_lo_us"]=900; d["top"][0]["ci_hi_us"]=100; json.dump(d,open("ci.json","w"))' "$D/a.tune.json"
expect_exit 2 "$KTUNE" diff "$D/a.tune.json" ci.json
expect_text "top[0]: the interval [ci_lo_us 900, ci_hi_us 100] does not hold the median"
# control characters from a file (ESC]0;...BEL retitles a terminal, ESC[2J
# clears it) are printed escaped, in the table and in the warning alike
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); e="A\x1b]0;owned\x07B\x1b[2J"; d["device"]=e; d["environment"]["device"]["name"]=e; json.dump(d,open("esc.json","w"))' "$D/a.tune.json"
expect_exit 0 "$KTUNE" diff "$D/a.tune.json" esc.json
if grep -q $'\x1b' <<<"$out"; then
    echo "FAIL: diff printed a raw ESC"; failures=$((failures + 1))
fi
expect_text 'A\x1b]0;owned\x07B\x1b[2J'
rm -f diff.json diff.md err.txt torn.json list.json neg.json other.json moved.json esc.json f99.json ci.json

# Two folders (nvbench's compare): files named alike are paired and each
# pair compared; a file on one side only is listed; a regression in any
# pair is exit 1, a pair that cannot be compared or no pair at all exit 2.
rm -rf fa fb
mkdir fa fb
cp "$D/a.tune.json" fa/vector.json
cp "$D/b-slower.tune.json" fb/vector.json
cp "$D/a.tune.json" fa/same.json
cp "$D/a.tune.json" fb/same.json
cp "$D/a.tune.json" fa/only-a.json
cp "$D/a.tune.json" fb/only-b.json.gz.not-results
expect_exit 1 "$KTUNE" diff fa fb --json folders.json --markdown folders.md
expect_text "== same.json"
expect_text "== vector.json"
expect_text "only in A: only-a.json"
expect_text "2 pair(s) compared, 0 not comparable, 1 regression(s)"
python3 - <<'PY' || { echo "FAIL: diff of folders: --json"; failures=$((failures + 1)); }
import json
d = json.load(open("folders.json"))
assert d["kind"] == "ktune.diff_folders", d["kind"]
assert [p["name"] for p in d["pairs"]] == ["same.json", "vector.json"], d["pairs"]
assert d["pairs"][1]["diff"]["kind"] == "ktune.diff", d["pairs"][1]["diff"]["kind"]
assert d["only_in_a"] == ["only-a.json"] and d["only_in_b"] == [], d
PY
grep -q '^## vector.json' folders.md || { echo "FAIL: diff of folders: --markdown"; failures=$((failures + 1)); }
rm fb/vector.json
expect_exit 0 "$KTUNE" diff fa fb
echo '{}' >fb/vector.json
expect_exit 2 "$KTUNE" diff fa fb
expect_text "1 not comparable"
rm -rf fb/*
expect_exit 2 "$KTUNE" diff fa fb
expect_text "hold no results file of the same name"
expect_exit 2 "$KTUNE" diff fa "$D/a.tune.json"
expect_text "one of A and B is a folder, the other a file"
rm -rf fa fb folders.json folders.md
finish
