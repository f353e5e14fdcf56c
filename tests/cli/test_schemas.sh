# SPDX-License-Identifier: Apache-2.0
# Every JSON output names its kind and format, and real output validates
# against its JSON Schema in docs/schemas (python3-jsonschema, installed by
# tools/deps --test): list, and in replay tune and compare; their CSV rows
# name device, operator and sizes. Each schema is
# itself a valid 2020-12 schema (bench, profile and info need a GPU for
# output; their schemas are checked as schemas here).
. "$(dirname "$0")/lib.sh"

python3 -c 'import jsonschema' 2>/dev/null || {
    echo "python3-jsonschema is missing (tools/deps --test installs it)"
    exit 1
}
S="$KT_SOURCE_DIR/docs/schemas"
rec="$KT_SOURCE_DIR/tests/data/vector_add-h200-n268435456.jsonl"
expect_exit 0 "$KTUNE" list --json
printf '%s\n' "$out" > list.json
expect_exit 0 "$KTUNE" tune "$KT_SOURCE_DIR/configs/vector_add.ini" \
    --replay "$rec" --quiet --json tune.json
expect_exit 0 "$KTUNE" compare vector_add:add --from "$rec" --replay "$rec" \
    --json compare.json

python3 - "$S" <<'PY' || failures=$((failures + 1))
import glob, json, os, sys
import jsonschema
V = jsonschema.Draft202012Validator
schemas = {}
for f in sorted(glob.glob(os.path.join(sys.argv[1], "*.schema.json"))):
    s = json.load(open(f))
    V.check_schema(s)
    kind = s["properties"]["kind"]["const"]
    schemas[kind] = s
for name in ("list", "tune", "compare"):
    doc = json.load(open(name + ".json"))
    assert doc["kind"] == "ktune." + name and doc["format"] >= 1, doc.get("kind")
    V(schemas[doc["kind"]]).validate(doc)
    print(name, "valid")
for kind in ("ktune.bench", "ktune.profile", "ktune.info"):
    assert kind in schemas, kind
PY
# CSV rows carry device, operator and sizes, so runs concatenate.
out=$("$KTUNE" tune "$KT_SOURCE_DIR/configs/vector_add.ini" --replay "$rec" \
    --quiet --csv - 2>/dev/null)
expect_text "device,operator,n,evaluation,variant,"
expect_text "NVIDIA H200,vector_add:add,268435456,1,coalesced,"
"$KTUNE" compare vector_add:add --from "$rec" --replay "$rec" --csv c.csv \
    >/dev/null 2>&1
out=$(cat c.csv)
expect_text "device,spec,n,variant,"
expect_text "NVIDIA H200,vector_add:add,268435456,"
rm -f list.json tune.json compare.json c.csv
finish
