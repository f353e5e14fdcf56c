# SPDX-License-Identifier: Apache-2.0
# ktune capture without a GPU: the capture reader on a good capture and on
# each kind of damage (exit 2 naming file, field, expected, found), the
# geometry rules file, a capture loaded as a plugin (ktune list) and as a
# tuning job (ktune tune CAPTURE --check shows its space), and the
# command's bad cases; a program that makes no CUDA call keeps its exit
# status, and one killed by a signal keeps that too.
. "$KT_SOURCE_DIR/tests/cli/lib.sh"
MAKE="python3 $KT_SOURCE_DIR/tests/capture/make_capture.py"
rm -rf caps ./*-damaged out full

$MAKE caps/vecadd
expect_exit 0 "$KTUNE" capture --check caps/vecadd
expect_text "vecadd(float const*, float const*, float*, int)"
expect_text "grid 4x1x1, block 256x1x1"
expect_text "4 parameters, 32 bytes; 3 allocations, 12000 bytes"
expect_text "6 block shapes"
expect_exit 0 "$KTUNE" capture --check caps/vecadd/capture.json
# The manifest the capturer writes (mirrored by make_capture.py) follows
# the published schema.
expect_exit 0 python3 -c 'import json, jsonschema, sys
jsonschema.validate(json.load(open(sys.argv[1])), json.load(open(sys.argv[2])))' \
    caps/vecadd/capture.json "$KT_SOURCE_DIR/docs/schemas/capture.schema.json"

check_damage() { # DAMAGE TEXT
    rm -rf "$1-damaged"
    $MAKE "$1-damaged" "$1"
    expect_exit 2 "$KTUNE" capture --check "$1-damaged"
    expect_text "$2"
}
check_damage format 'format: expected "ktune-capture", found nsys-report'
check_damage version "version: expected 1, found 2"
check_damage no-grid "launch.grid: expected an array of 3 whole numbers"
check_damage grid-zero "launch.grid[1]: expected 1 to 2147483647, found 0"
check_damage truncated "alloc-1.after: expected 4000 bytes, found 100"
check_damage longer "module.bin: expected 64 bytes, found 65"
check_damage traversal "expected a file name inside the capture folder"
check_damage overlap "allocations that do not overlap"
check_damage bad-alloc "params[1].pointer.allocation: expected the index"
check_damage past-args "params[3].size: expected 1 or more, inside args_bytes"
check_damage out-of-order "params[1].offset: expected an offset after"
check_damage address "allocations[2].base: expected a hexadecimal address"
check_damage json "not a capture manifest"
check_damage kind 'module.kind: expected "cubin", "fatbin" or "ptx"'
expect_exit 2 "$KTUNE" capture --check no-such-capture
expect_text "No such file"

# Rules beside the capture.
printf '[geometry]\nblock_x = 64, 128, 1024\nsmem = block_x * 4\n' \
    >caps/vecadd/geometry.ini
expect_exit 0 "$KTUNE" capture --check caps/vecadd
expect_text "geometry.ini: 4 block shapes"
printf '[geometry]\nblock_x = 64\nblocks = 3\n' >caps/vecadd/geometry.ini
expect_exit 2 "$KTUNE" capture --check caps/vecadd
expect_text "geometry.ini:3: [geometry] blocks: unknown key"
rm caps/vecadd/geometry.ini

# The schema refuses what the reader refuses.
expect_exit 1 python3 -c 'import json, jsonschema, sys
jsonschema.validate(json.load(open(sys.argv[1])), json.load(open(sys.argv[2])))' \
    traversal-damaged/capture.json "$KT_SOURCE_DIR/docs/schemas/capture.schema.json"

# A capture as a plugin and as a job: the whole tuner reads it.
expect_exit 0 "$KTUNE" list --plugin caps/vecadd/capture.json
expect_text "operator cap-vecadd:launch"
expect_text "block_x        {32, 64, 128, 256, 512, 1024}, default 256"
printf '[job]\noperator = cap-vecadd:launch\n[strategy]\nname = exhaustive\n' \
    >caps/vecadd/tune.ini
expect_exit 0 "$KTUNE" tune caps/vecadd --check
expect_text "space 6 point(s)"
expect_text "pinned sizes"
rm caps/vecadd/tune.ini
expect_exit 2 "$KTUNE" tune caps/vecadd --check
expect_text "no tune.ini in the capture folder"
# list goes on with the other plugins and says which one it could not load.
expect_exit 1 "$KTUNE" list --plugin format-damaged/capture.json
expect_text 'expected "ktune-capture"'

# The command's bad cases: nothing runs.
expect_exit 2 "$KTUNE" capture
expect_text "PROGRAM is missing"
expect_exit 2 "$KTUNE" capture --check caps/vecadd -- true
expect_text "takes no PROGRAM"
expect_exit 2 "$KTUNE" capture --launch 0 -- true
expect_text "--launch 0"
expect_exit 2 "$KTUNE" capture --limit -5 -- true
expect_text "--limit"
expect_exit 2 "$KTUNE" capture -- no-such-program-here
expect_text "no such program in PATH"
mkdir -p full && touch full/x
expect_exit 2 "$KTUNE" capture --out full -- true
expect_text "not empty"

# No CUDA: said so; the program's status is its own, a crash its own.
expect_exit 0 "$KTUNE" capture --out out -- true
expect_text "made no CUDA call"
[ -z "$(ls out)" ] || { echo "FAIL: out/ not empty: $(ls out)"; failures=$((failures + 1)); }
rm -rf out
expect_exit 3 "$KTUNE" capture --out out -- sh -c 'exit 3'
rm -rf out
expect_exit 139 "$KTUNE" capture --out out -- sh -c 'kill -SEGV $$'
expect_text "ended by signal 11"
finish
