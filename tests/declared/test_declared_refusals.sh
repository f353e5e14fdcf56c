# SPDX-License-Identifier: Apache-2.0
# What a declaration cannot mean is refused at its line with exit 2, also
# where every expression evaluates: values no launch can take (a block or
# grid dimension below 1, negative shared memory, a buffer of no elements),
# an architecture or option NVRTC does not know, and, in bench and profile,
# a point that breaks its variant's require (before any device is looked
# for). No GPU needed.
. "$KT_SOURCE_DIR/tests/cli/lib.sh"

src=$KT_SOURCE_DIR/examples/declared_transpose
rm -rf ./*
cp "$src/transpose.cu" "$src/transpose.ini" .

mutate() { decl_mutate transpose.ini "$1.ini" "$2"; }
# refused NAME PATTERN SECTION-AND-KEY TEXT: exit 2, at the line PATTERN is.
refused() { decl_refused "$1.ini" "$2" "$3" "$4"; }

# --- values no launch can take ---------------------------------------------------
mutate block0 's/^block = bx, by/block = 0, by/'
refused block0 "^block = 0" "[variant.naive] block:" "a block dimension is 0; expected 1 or more"
mutate block_neg 's/^block = bx, by/block = 0 - 32, by/'
refused block_neg "^block = 0 - 32" "[variant.naive] block:" "a block dimension is -32"
mutate grid_neg 's/^grid = ceil_div(cols, bx), ceil_div(rows, by)/grid = 0 - 1, 1/'
refused grid_neg "^grid = 0 - 1" "[variant.naive] grid:" "a grid dimension is -1"
mutate buf_neg 's/^buffer.x = input f32\[rows \* cols\]/buffer.x = input f32[0 - rows]/'
refused buf_neg "^buffer.x" "[operator] buffer.x:" "the element count is -8192"
mutate buf_zero 's/^buffer.x = input f32\[rows \* cols\]/buffer.x = input f32[rows - rows]/'
refused buf_zero "^buffer.x" "[operator] buffer.x:" "the element count is 0"
mutate smem_neg 's/^grid = ceil_div(cols, bx), ceil_div(rows, by)/&\nsmem = 0 - 1/'
refused smem_neg "^smem" "[variant.naive] smem:" "the dynamic shared memory is -1; expected 0 or more"
# Work is never negative (objective=gflops would rank it), a scalar fits its
# type (a float of 1e39 reached the kernel as infinity).
mutate flops_neg 's/^sizes = .*/&\nflops = 0 - rows * cols/'
refused flops_neg "^flops" "[operator] flops:" "the flop count is -67108864; expected 0 or more (work is counted)"
mutate bytes_neg 's/^sizes = .*/&\nbytes_read = rows - rows * cols/'
refused bytes_neg "^bytes_read" "[operator] bytes_read:" "the byte count is -67100672"
mutate float_big 's/^args = y, x, int rows, int cols/args = y, x, int rows, int cols, float 1e39/'
refused float_big "^args" "[operator] args:" "1e+39 does not fit a float"
mutate int_big 's/^args = y, x, int rows, int cols/args = y, x, int rows * 400000, int cols/'
refused int_big "^args" "[operator] args:" "3.2768e+09 does not fit a int"
# --- NVRTC options and architectures ------------------------------------------------
mutate arch 's/^sizes = .*/&\ncheck_arch = compute_9999/'
refused arch "^check_arch" "[operator] check_arch:" "NVRTC does not know 'compute_9999'"
mutate opt_o 's|^sizes = .*|&\noptions = -o /tmp/x|'
refused opt_o "^options" "[operator] options:" "NVRTC refuses the option '-o'"
mutate opt_bogus 's|^sizes = .*|&\noptions = -DX=1 --no-such-option|'
refused opt_bogus "^options" "[operator] options:" "NVRTC refuses the option '--no-such-option'"
mutate opt_fine 's|^sizes = .*|&\noptions = -DX=1|'
expect_exit 0 "$KTUNE" tune opt_fine.ini --check

# --- bench and profile: a point that breaks require, on the host --------------------
mutate strict 's/^require = rows_per <= tile/require = rows_per < tile/'
for cmd in bench profile; do
    expect_exit 2 "$KTUNE" $cmd transpose --plugin strict.ini --variant tiled \
        --set tile=16 --set rows_per=16
    expect_text "ktune $cmd: variant 'tiled': this point cannot run: [variant.tiled] require: 'rows_per < tile' is false"
done
# --- a declared operator named like a built-in plugin takes its place -------------
# (issue 50: Kernel Tuner's vector_add keeps its name; core/loader.c), for tune
# and for bench/profile naming it with --plugin.
mutate builtin_name 's/^name = transpose/name = vector_add/'
expect_exit 0 "$KTUNE" tune builtin_name.ini --check
expect_text "builtin_name.ini: vector_add  rows=8192 cols=8192"
expect_exit 0 "$KTUNE" list --plugin builtin_name.ini
expect_text "builtin_name.ini"
finish
