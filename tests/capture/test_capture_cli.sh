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

# A run that matches nothing is never silent: it says what the program
# launched (the capture library's K and N lines, written here by a stand-in
# for a CUDA program into the folder ktune gives it), with demangled names,
# the callback each kernel came through, and whether its name matched.
fake_log() { # LINES...: a program that writes them as its capture log
    printf '%s\n' "$@" >fake.lines
    echo "cat $PWD/fake.lines >\"\$KTUNE_CAPTURE_DIR/capture-\$\$.log\""
}
rm -rf seen
expect_exit 0 "$KTUNE" capture --kernel '^nothing$' --out seen -- sh -c "$(fake_log \
    "$(printf 'K\t_Z9scale_addPKfS0_Pfif\truntime __cudaLaunchKernel_v13000 (505)')" \
    "$(printf 'K\tsaxpy\tdriver cuLaunchKernel (307)')" \
    "$(printf 'N\t_Z9scale_addPKfS0_Pfif\t2\t0')" \
    "$(printf 'N\tsaxpy\t10\t0')")"
expect_text 'no launch matched --kernel ^nothing$ (launch 1): nothing captured'
expect_text "the program launched 2 kernel(s), 12 launch(es) in all"
expect_text "_Z9scale_addPKfS0_Pfif (scale_add(float const*, float const*, float*, int, float)): 2 launch(es), through runtime __cudaLaunchKernel_v13000 (505)"
expect_text "saxpy: 10 launch(es), through driver cuLaunchKernel (307)"
# the name matched, the launch number did not come
rm -rf seen
expect_exit 0 "$KTUNE" capture --kernel saxpy --launch 5 --out seen -- sh -c "$(fake_log \
    "$(printf 'K\tsaxpy\tdriver cuLaunchKernel (307)')" \
    "$(printf 'N\tsaxpy\t2\t1')")"
expect_text "saxpy: 2 launch(es), through driver cuLaunchKernel (307); its name matches --kernel"
expect_text "was launched fewer times than --launch 5 asks"
# a process that ended before its totals: its launches are a lower bound
rm -rf seen
expect_exit 0 "$KTUNE" capture --out seen -- sh -c "$(fake_log \
    "$(printf 'K\t_Z4bumpPfi\truntime cudaLaunchKernel_v7000 (211)')")"
expect_text "the program launched 1 kernel(s), 1 or more launch(es) in all"
expect_text "_Z4bumpPfi (bump(float*, int)): 1 or more launch(es)"
# the library ran (its log is there) but no launch callback came
rm -rf seen
expect_exit 0 "$KTUNE" capture --out seen -- sh -c "$(fake_log)"
expect_text "saw no kernel launch"
# --verbose reaches the capture library, and lists what was launched
rm -rf seen
expect_exit 0 "$KTUNE" capture --verbose --out seen -- sh -c 'echo "verbose=$KTUNE_CAPTURE_VERBOSE"'
expect_text "verbose=1"
rm -rf seen
expect_exit 0 "$KTUNE" capture --out seen -- sh -c 'echo "verbose=${KTUNE_CAPTURE_VERBOSE:-unset}"'
expect_text "verbose=unset"
# The program's modules load eagerly, so the first launch has its image;
# a user's own CUDA_MODULE_LOADING is kept.
rm -rf seen
expect_exit 0 "$KTUNE" capture --out seen -- sh -c 'echo "loading=$CUDA_MODULE_LOADING"'
expect_text "loading=EAGER"
rm -rf seen
CUDA_MODULE_LOADING=LAZY expect_exit 0 "$KTUNE" capture --out seen -- sh -c 'echo "loading=$CUDA_MODULE_LOADING"'
expect_text "loading=LAZY"
# A capture library the driver cannot load is named, with the loader's
# reason (the driver itself says nothing).
rm -rf seen
echo "not a library" >not-a-library.so
KTUNE_CAPTURER=$PWD/not-a-library.so expect_exit 0 "$KTUNE" capture --out seen -- true
expect_text "made no CUDA call"
expect_text "the capture library cannot be loaded here either"
rm -rf seen fake.lines not-a-library.so

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
