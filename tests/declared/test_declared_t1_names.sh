# SPDX-License-Identifier: Apache-2.0
# Names that collide with code ktune adds must not refuse a valid kernel
# (issue 53): a T1 parameter reaches the kernel as a #define written into
# the source, not a -D option that NVRTC applies before its built-in
# header (x, y, z, w, pad, value, type and T are names in it), and the
# argument checks ktune appends use ktune_-prefixed names only (a source's
# own `#define T 4`, P, E, value or count left them uncompilable). Each
# kernel here uses its parameter, so it only compiles when the value
# arrives. No GPU needed (NVRTC compiles on the CPU).
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
finish
