# SPDX-License-Identifier: Apache-2.0
# Names that collide with code ktune adds must not refuse a valid kernel
# (issue 53): a T1 parameter reaches the kernel as a #define written into
# the source, not a -D option that NVRTC applies before its built-in
# header (x, y, z, w, pad, value, type and T are names in it), and the
# argument checks ktune appends use ktune_-prefixed names only (a source's
# own `#define T 4`, P, E, value or count left them uncompilable). Each
# kernel here uses its parameter, so it only compiles when the value
# arrives. Two parameters whose names differ only in case are two (Python
# counts 105, not 21), and a Condition that is false or fails at the
# default point rules that point out instead of refusing the file. No GPU
# needed (NVRTC compiles on the CPU).
. "$KT_SOURCE_DIR/tests/cli/lib.sh"
rm -rf ./*

declaration() { # NAME SOURCE-PREFIX: t1.ini, t1.cu, t1.json over parameter NAME
    local m=x
    [ "$1" = x ] && m=y # a kernel with a parameter x cannot write .x
    printf '%s\n' "$2" >t1.cu
    cat >>t1.cu <<CU
__global__ void scale(float *out, const float *in, int n)
{
    int i = blockIdx.$m * blockDim.$m + threadIdx.$m;
    if (i < n)
        out[i] = in[i] * ($1);
}
CU
    printf '{"ConfigurationSpace": {"TuningParameters": [{"Name": "%s", "Values": [1, 2]}, {"Name": "BX", "Values": [32, 64]}], "Conditions": []}}\n' "$1" >t1.json
    cat >t1.ini <<INI
[operator]
name = t1names
source = t1.cu
sizes = n=4096
buffer.in = input f32[n]
buffer.out = output f32[n]
args = out, in, int n

[variant.t1]
reference = yes
kernel = scale
space = t1.json
block = BX
grid = ceil_div(n, BX)
INI
}

for name in x y z w pad value count type T P E; do
    declaration "$name" ""
    expect_exit 0 "$KTUNE" tune t1.ini --check
    expect_text "space 4 point(s)"
done
# The source's own macros, named like the checks' old names.
declaration BY $'#define T 4\n#define P 2\n#define E 1\n#define value 3\n#define count 5\n#define BY (T - P - E)'
expect_exit 0 "$KTUNE" tune t1.ini --check
expect_text "space 4 point(s)"
# An error in the source still names the source's own line.
declaration pad $'#define T 4\nthis is not C++;'
expect_exit 2 "$KTUNE" tune t1.ini --check
expect_text "t1.cu(2): error"

# tile and TILE: two parameters.
two_tiles() { # CONDITION: t1.json over tile, TILE and BX with it
    printf '{"ConfigurationSpace": {"TuningParameters": [%s, %s, %s], "Conditions": [%s]}}\n' \
        '{"Name": "tile", "Values": [1, 2, 3, 4, 5]}' \
        '{"Name": "TILE", "Values": [1, 2, 3, 4, 5, 6, 7]}' \
        '{"Name": "BX", "Values": [32, 64, 128]}' "$1" >t1.json
}
declaration tile ""
sed -i 's/(tile)/(tile + TILE)/' t1.cu
two_tiles '{"Expression": "tile <= TILE", "Parameters": ["tile", "TILE"]}'
expect_exit 0 "$KTUNE" tune t1.ini --check
expect_text "space 105 point(s) before device limits, 75 after require:"
expect_text "tile {1, 2, 3, 4, 5}, TILE {1, 2, 3, 4, 5, 6, 7}"
# An INI key lowers its name: default.TILE cannot say which, and says so.
sed 's/^space = .*/&\ndefault.TILE = 3/' t1.ini >amb.ini
expect_exit 2 "$KTUNE" tune amb.ini --check
expect_text "'tile' names two parameters that differ only in case"

# A Condition that divides by zero at the default (tile 1), and a grid that
# does too: the default point is ruled out, the others are searched.
two_tiles '{"Expression": "BX // (tile - 1) > 0", "Parameters": ["tile", "BX"]}'
sed -i 's/^grid = .*/grid = ceil_div(n, BX * (tile - 1))/' t1.ini
expect_exit 0 "$KTUNE" tune t1.ini --check
expect_text "space 105 point(s) before device limits, 84 after require:"
finish
