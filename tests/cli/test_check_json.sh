#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# `ktune tune JOB --check --json FILE`: the counts --check prints, as a
# document programs read (libktune's ktune_check does) instead of the
# text, whose counts may read "about N": a declared space counted, one too
# large to count point by point estimated and said so, a plugin's space
# not countable without a device (feasible null); the text still printed.
. "$KT_SOURCE_DIR/tests/cli/lib.sh"

field() { python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
for k in sys.argv[2].split("."):
    d = d[int(k)] if isinstance(d, list) else d[k]
print(json.dumps(d))' "$@"; }

expect_field() {
    local got
    got=$(field "$1" "$2")
    if [ "$got" != "$3" ]; then
        echo "FAIL: $1 $2 is $got, expected $3"
        failures=$((failures + 1))
    fi
}

rm -f ./*.json
expect_exit 0 "$KTUNE" tune "$KT_SOURCE_DIR/examples/declared_transpose/transpose.ini" \
    --check --json t.json
expect_text "space 45 point(s) before device limits, 45 after require"
expect_field t.json kind '"ktune.check"'
expect_field t.json space.size 45
expect_field t.json space.feasible 45
expect_field t.json space.estimated false
expect_field t.json variants.1.id '"tiled"'

# 2^24 points and a require no bound prunes: estimated ("about N").
cat > big.cu <<'CU'
extern "C" __global__ void k(float *y, int n) { }
CU
{
    printf '[operator]\nname = big\nsource = big.cu\nsizes = n=256\n'
    printf 'buffer.y = output f32[n]\nargs = y, int n\n\n[variant.v]\n'
    printf 'kernel = k\nreference = yes\nblock = 32\ngrid = n / 32\n'
    for p in a b c d; do
        printf 'param.%s = ' "$p"
        seq -s, 1 64 | sed 's/,/, /g'
    done
    printf 'require = (a + b + c + d) %% 3 == 0\n'
} > big.ini
expect_exit 0 "$KTUNE" tune big.ini --check --json big.json
expect_text "about "
expect_field big.json space.size 16777216
expect_field big.json space.estimated true
n=$(field big.json space.feasible)
if ! [ "$n" -gt 4194304 ] 2>/dev/null || ! [ "$n" -lt 8388608 ]; then
    echo "FAIL: the estimate $n is not near a third of 2^24"
    failures=$((failures + 1))
fi

# A built-in plugin's constraints are its code: not counted here.
cat > job.ini <<'INI'
[job]
operator = vector_add:add
n = 2^20
INI
expect_exit 0 "$KTUNE" tune job.ini --check --json p.json
expect_field p.json space.feasible null
expect_field p.json space.counted false
finish
