# SPDX-License-Identifier: Apache-2.0
# Every JSON output names its kind and format, and real output validates
# against its JSON Schema in docs/schemas (python3-jsonschema, installed by
# tools/deps --test): list, and in replay tune and compare; their CSV rows
# name device, operator and sizes. Each schema is
# itself a valid 2020-12 schema (bench, profile and info need a GPU for
# output; their schemas are checked as schemas here). The T4 results and
# metadata files of a replayed tune validate against t4-*.schema.json, and
# so does every T4 file shipped in docs/; profile.schema.json describes
# every property (its output needs a GPU).
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
    --replay "$rec" --quiet --json tune.json --t4 t4-results.json
[ -f t4-metadata.json ] || { echo "FAIL: no T4 metadata file next to the results"; failures=$((failures + 1)); }
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
    kind = s["properties"].get("kind", {}).get("const")
    schemas[kind or os.path.basename(f).split(".")[0]] = s
for name in ("list", "tune", "compare"):
    doc = json.load(open(name + ".json"))
    assert doc["kind"] == "ktune." + name and doc["format"] >= 1, doc.get("kind")
    V(schemas[doc["kind"]]).validate(doc)
    print(name, "valid")
for name in ("t4-results", "t4-metadata"):
    doc = json.load(open(name + ".json"))
    V(schemas[name]).validate(doc)
    print(name, "valid")
t4 = json.load(open("t4-results.json"))["results"]
times = {"compilation", "compilation_time", "validation", "benchmark", "framework",
         "search_algorithm", "runtimes"}
assert all(times <= set(x["times"]) for x in t4), "T4 times incomplete"
for kind in ("ktune.bench", "ktune.profile", "ktune.info"):
    assert kind in schemas, kind
# profile needs a GPU for output, so its schema says what each part is:
# every property, down through kernel, counters and diagnosis, described.
def undescribed(node, where):
    for key, sub in node.get("properties", {}).items():
        if "description" not in sub:
            yield where + key
        yield from undescribed(sub, where + key + ".")
missing = list(undescribed(schemas["ktune.profile"], ""))
assert not missing, "profile.schema.json leaves undescribed: %s" % missing
for part in ("kernel", "counters", "diagnosis"):
    assert schemas["ktune.profile"]["properties"][part].get("properties"), part
# T4 files ktune wrote and ships (docs/) validate against ktune's own
# T4 schema (tests/data/kt holds Kernel Tuner's, read by --replay).
src = os.path.dirname(os.path.dirname(sys.argv[1]))
shipped = glob.glob(os.path.join(src, "docs", "**", "*.t4.json"), recursive=True)
shipped.append("t4-results.json")
for f in shipped:
    V(schemas["t4-results"]).validate(json.load(open(f)))
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
rm -f list.json tune.json compare.json c.csv t4-results.json t4-metadata.json
finish
