# SPDX-License-Identifier: Apache-2.0
# Hostile sizes through --check (issue 53): a space of 2^47 points whose
# one condition reads every parameter is counted, or said to be estimated,
# in seconds (N23; it was walked point by point); 20,000 conditions give
# the count their strictest ones give (N22); a condition nested 100,000
# deep is exit 2 naming the limit (N20; it crashed); 100,000 sections or
# keys stop at the limit (D26). Each run under a
# timeout: a hang fails. No GPU needed.
. "$KT_SOURCE_DIR/tests/cli/lib.sh"

cp "$KT_SOURCE_DIR"/tests/declared/t1/scale.cu \
    "$KT_SOURCE_DIR"/tests/declared/t1/scale.ini .
export KT_T1_TEST_DIR=$PWD

# space.json from the test space, changed by the Python statement $1 on s.
space() {
    python3 - "$KT_SOURCE_DIR/tests/core/t1/space.json" "$1" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
cs = s["ConfigurationSpace"]
exec(sys.argv[2])
json.dump(s, open("space.json", "w"))
PY
}

# Six more parameters: 19800 * 64^5 * 8, about 2^47.3 points (the limit
# of a space is 2^48).
space 'names = ["XA", "XB", "XC", "XD", "XE"]
cs["TuningParameters"] += [{"Name": n, "Values": "list(range(64))"} for n in names]
cs["TuningParameters"] += [{"Name": "XF", "Values": "list(range(8))"}]
every = [p["Name"] for p in cs["TuningParameters"]]
cs["Conditions"] = [{"Expression": " + ".join(every) + " < 200"}]'
expect_exit 0 timeout 120 "$KTUNE" tune scale.ini --check
expect_text "space 170080704921600 point(s) before device limits, about "
expect_text "(estimated from random points"
# Within 1% of the exact count (a sum's distribution, by convolution).
about=$(sed -n 's/.*, about \([0-9]*\) after require.*/\1/p' <<<"$out" | head -1)
python3 -c 'import sys; n = int(sys.argv[1]); assert abs(n / 82557980673950 - 1) < 0.01, n' \
    "$about" || { echo "FAIL: estimate $about"; failures=$((failures + 1)); }

# 20,000 conditions, the first of each form the strictest.
space 'forms = ["BX * BY <= %d", "TILE + UNROLL < %d", "BX != %d", "MODE < %d",
         "SPARE <= %d", "NEG < %d", "BY * TILE <= %d"]
base = [512, 20, 1000, 3, 1, 3, 64]
cs["Conditions"] = [{"Expression": forms[i % 7] % (base[i % 7] + i)}
                    for i in range(20000)]'
expect_exit 0 timeout 120 "$KTUNE" tune scale.ini --check
expect_text "19800 point(s) before device limits, 18360 after require"

space 'cs["Conditions"] = [{"Expression": "(" * 100000 + "BX" + ")" * 100000}]'
expect_exit 2 timeout 120 "$KTUNE" tune scale.ini --check
expect_text "nesting deeper than 200 levels"

# A job and a declaration of 100,000 sections or keys: refused at the
# limit, where it is read (D26; the cap applied after reading the whole
# file, and finding a key set twice compared it with every other).
cp "$KT_SOURCE_DIR/configs/vector_add.ini" job.ini
python3 - <<'PY'
job = open("job.ini").read()
decl = open("scale.ini").read()
sections = "".join("[extra%d]\nk = 1\n" % i for i in range(100000))
keys = "[extra]\n" + "".join("k%d = 1\n" % i for i in range(100000))
for name, text in (("sections_job.ini", job + sections),
                   ("keys_job.ini", job + keys),
                   ("sections_decl.ini", decl + sections),
                   ("keys_decl.ini", decl + keys)):
    open(name, "w").write(text)
PY
for f in sections_job sections_decl; do
    expect_exit 2 timeout 20 "$KTUNE" tune --check $f.ini
    expect_text "more than 1024 sections (the limit)"
done
for f in keys_job keys_decl; do
    expect_exit 2 timeout 20 "$KTUNE" tune --check $f.ini
    expect_text "more than 16384 keys (the limit)"
done
finish
