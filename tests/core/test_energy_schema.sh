#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The energy record results carry (measured, and not) validates against
# the "energy" definition of bench's and tune's schemas.
set -eu
python3 -c 'import jsonschema' 2>/dev/null || {
    echo "python3-jsonschema is missing (tools/deps --test installs it)"
    exit 1
}
"$1" > energy-records.jsonl
python3 - "$2" energy-records.jsonl <<'PY'
import json, sys
import jsonschema
for name in ("bench", "tune"):
    s = json.load(open("%s/%s.schema.json" % (sys.argv[1], name)))
    d = dict(s["$defs"]["energy"])
    d["$schema"] = s["$schema"]
    v = jsonschema.Draft202012Validator(d)
    recs = [json.loads(l) for l in open(sys.argv[2])]
    assert recs[0]["measured"] and not recs[1]["measured"]
    for r in recs:
        v.validate(r)
    bad = dict(recs[0])
    del bad["joules_per_launch"]
    assert list(v.iter_errors(bad)), "a measured record without joules passed"
    print(name, "energy records valid")
PY
