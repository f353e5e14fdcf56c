# SPDX-License-Identifier: Apache-2.0
# Shipped files carry no path of the machine they were made on (issue 30
# item 20): no tracked file names the ktune binary or a plugin of a build
# tree by its absolute path (a folder build* under some root folder), and
# what ktune writes names its binary by name ("ktune tune ...", the version
# beside it) and a built-in plugin by name and version.
. "$KT_SOURCE_DIR/tests/cli/lib.sh"

# An absolute path (after a space, quote, '=', '(', ',', ':', '`' or '>',
# so "$dir/build/x.so" in a script is no match) into a folder build*.
pattern='(^|[[:space:]"'"'"'=(,:`>])(/[A-Za-z0-9_.+-]+)+/build[A-Za-z0-9_.-]*/(ktune|[A-Za-z0-9_/.-]*\.so)\b'
if files=$(git -C "$KT_SOURCE_DIR" ls-files 2>/dev/null) && [ -n "$files" ]; then
    hits=$(cd "$KT_SOURCE_DIR" && printf '%s\n' "$files" |
        xargs -d '\n' grep -IlE "$pattern" 2>/dev/null)
    if [ -n "$hits" ]; then
        echo "FAIL: tracked files name an absolute build path:"
        (cd "$KT_SOURCE_DIR" && printf '%s\n' "$hits" |
            xargs -d '\n' grep -HInoE "$pattern" | head -20 | sed 's/^/    /')
        failures=$((failures + 1))
    fi
else
    echo "not a git checkout: the tracked-file check is skipped"
fi

# What a run writes: the command line starts with the program's name, not
# the folder it was built in; the recording's plugin is named, no path.
rec=$KT_SOURCE_DIR/tests/data/vector_add-h200-n1048576.jsonl
rm -f s.json j.jsonl
expect_exit 0 "$KTUNE" tune "$KT_SOURCE_DIR/configs/vector_add.ini" --replay "$rec" \
    --quiet --json s.json --journal j.jsonl
python3 - <<'PY' || failures=$((failures + 1))
import json
s = json.load(open("s.json"))
h = json.loads(open("j.jsonl").readline())
for where, env in (("--json", s["environment"]), ("journal", h["environment"])):
    cmd = env["host"]["command_line"]
    assert cmd.startswith("ktune tune "), (where, cmd)
    assert env["host"]["ktune_version"], where
    p = env["plugin"]
    assert p["name"] == "vector_add" and p["version"] and "path" not in p, (where, p)
PY
rm -f s.json j.jsonl
finish
