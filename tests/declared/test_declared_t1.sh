# SPDX-License-Identifier: Apache-2.0
# A declaration importing a T1 space file (space = PATH, docs/declared.md
# "Importing a T1 space"): --check prints the count Python gives for the
# file's Conditions, ANDed with a declared require; each file parameter
# reaches the kernel as a macro unless `defines` lists others; the file's
# Default is the default, default.NAME overrides it; and every mistake is
# exit 2 with the line. No GPU needed (NVRTC compiles on the CPU).
. "$KT_SOURCE_DIR/tests/cli/lib.sh"

cp "$KT_SOURCE_DIR"/tests/declared/t1/scale.cu \
    "$KT_SOURCE_DIR"/tests/declared/t1/scale.ini .
cp "$KT_SOURCE_DIR"/tests/core/t1/space.json .
export KT_T1_TEST_DIR=$PWD

# with NAME LINE: NAME.ini, scale.ini with LINE added to its variant.
with() {
    sed "s/^space = .*/&\n$2/" scale.ini >"$1.ini"
}

# The counts are python3's: the Conditions over itertools.product.
expect_exit 0 "$KTUNE" tune scale.ini --check
expect_text "space 19800 point(s) before device limits, 6280 after require:"
expect_text "NEG {-3, -1, 2}; 6280 after require"

# From another folder, the same (the space is found through the variable).
mkdir -p elsewhere
cd elsewhere
expect_exit 0 "$KTUNE" tune ../scale.ini --check
expect_text "6280 after require"
cd ..

# A declared require is ANDed with the file's Conditions (C syntax).
with req "require = SPARE == 1"
expect_exit 0 "$KTUNE" tune req.ini --check
expect_text "3140 after require"
with req2 "require = BX * BY * (TILE * UNROLL + SPARE + MODE + max(NEG, 0)) <= 2048"
expect_exit 0 "$KTUNE" tune req2.ini --check
expect_text "4033 after require"

# Defaults: the file's (BX 32 is not its first value; TILE's is written
# [2]); default.NAME overrides one (keys are case-insensitive).
expect_exit 0 "$KTUNE" list --plugin scale.ini
expect_text "BX             {1, 2, 4, 8, 16, 24, 32, 40, 48, 56, 64}, default 32"
expect_text "TILE           {1, 2, 3, 4}, default 2"
expect_text "MODE           {0, 1, 2}, default 0"
with dflt "default.MODE = 2"
expect_exit 0 "$KTUNE" list --plugin dflt.ini
expect_text "MODE           {0, 1, 2}, default 2"

# Every parameter is a macro: naming others in `defines` leaves the
# kernel without them.
with defs "defines = BX=BX"
expect_exit 2 "$KTUNE" tune defs.ini --check
expect_text "identifier \"TILE\" is undefined"

# Mistakes, each with its line.
unset KT_T1_TEST_DIR
expect_exit 2 "$KTUNE" tune scale.ini --check
expect_text "scale.ini:14: [variant.t1] space: '\${KT_T1_TEST_DIR}/space.json': \${KT_T1_TEST_DIR} is not set"
sed 's|^space = .*|space = ${KTUNE_HUB_DIR}/kernels/x.json|' scale.ini >hub.ini
expect_exit 2 env -u KTUNE_HUB_DIR "$KTUNE" tune hub.ini --check
expect_text "\${KTUNE_HUB_DIR} is not set: point it at a checkout of AutoTuningAssociation/benchmark_hub"
export KT_T1_TEST_DIR=$PWD

sed 's|^space = .*|space = missing.json|' scale.ini >missing.ini
expect_exit 2 "$KTUNE" tune missing.ini --check
expect_text "missing.ini:14: [variant.t1] space:"
expect_text "missing.json"

sed 's/"Expression": "TILE > 1 or MODE == 0"/"Expression": "TILE > 1 || MODE == 0"/' \
    space.json >damaged.json
sed 's|^space = .*|space = damaged.json|' scale.ini >damaged.ini
expect_exit 2 "$KTUNE" tune damaged.ini --check
expect_text "damaged.ini:14: [variant.t1] space:"
expect_text "damaged.json: ConfigurationSpace.Conditions[1].Expression: 'TILE > 1 || MODE == 0': unexpected text after the expression: '||' is written 'or' in Python syntax"

sed 's/^sizes = n=65536/sizes = n=65536, BX=4/' scale.ini >clash.ini
expect_exit 2 "$KTUNE" tune clash.ini --check
expect_text "'BX' is a size of [operator] and a parameter of"

with nope "default.nope = 2"
expect_exit 2 "$KTUNE" tune nope.ini --check
expect_text "[variant.t1] default.nope: 'nope' is not a parameter of this variant"
with bad_default "default.bx = 3"
expect_exit 2 "$KTUNE" tune bad_default.ini --check
expect_text "[variant.t1] default.bx:"

# The declaration's own expressions are C: a Python spelling says so.
with py "require = BX > 1 or BY > 1"
expect_exit 2 "$KTUNE" tune py.ini --check
expect_text "'or' is written '||' here"

finish
