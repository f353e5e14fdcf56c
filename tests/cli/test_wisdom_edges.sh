# SPDX-License-Identifier: Apache-2.0
# wisdom show|check|select: control characters from the file are printed
# escaped (an ESC in an operator name cannot retitle or clear the
# terminal), an interval upside down is refused, two sizes for a one-size
# operator are a usage error (exit 2), and --help after the verb is help.
. "$KT_SOURCE_DIR/tests/cli/lib.sh"

K=$KTUNE
rm -f ./*.jsonl
w=$(ls "$KT_SOURCE_DIR"/tests/fuzz/corpus_wisdom/* | head -n 1)
cp "$w" good.jsonl

python3 - <<'PY'
import json
lines = [json.loads(l) for l in open("good.jsonl") if l.strip()]
def write(name, change):
    m = [dict(l) for l in lines]
    change(m)
    with open(name, "w") as f:
        for l in m:
            f.write(json.dumps(l) + "\n")
write("esc.jsonl", lambda m: m[1].update(device="A\x1b]0;owned\x07B\x1b[2J"))
write("ci.jsonl", lambda m: m[1].update(ci_us=[9, 1]))
PY

for verb in show check; do
    "$K" wisdom $verb esc.jsonl > esc.out 2>&1
    if grep -q $'\x1b' esc.out; then
        echo "FAIL: wisdom $verb printed a raw ESC"; failures=$((failures + 1))
    fi
    grep -qF 'A\x1b]0;owned\x07B\x1b[2J' esc.out ||
        { echo "FAIL: wisdom $verb: the escaped name is missing"; failures=$((failures + 1)); }
    expect_exit 2 "$K" wisdom $verb ci.jsonl
    expect_text "ci_us: [9, 1] is no interval"
    expect_exit 0 "$K" wisdom $verb --help
    expect_text "wisdom"
done
expect_exit 0 "$K" wisdom select --help
expect_exit 2 "$K" wisdom select good.jsonl vector_add:add "NVIDIA H200" 1 2
expect_text "vector_add:add has 1 size(s) in this file, the command gives 2"
finish
