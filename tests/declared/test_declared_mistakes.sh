# SPDX-License-Identifier: Apache-2.0
# Declarations with every kind of mistake are refused before anything runs:
# exit 2, file:line, the section and key, the expression and what is wrong.
# No GPU needed (NVRTC compiles on the CPU).
. "$KT_SOURCE_DIR/tests/cli/lib.sh"

src=$KT_SOURCE_DIR/examples/declared_transpose
cp "$src/transpose.cu" "$src/transpose.ini" .

# mutate NAME SED-EXPRESSION: NAME.ini, the example with one change.
mutate() { decl_mutate transpose.ini "$1.ini" "$2"; }
# refused NAME PATTERN SECTION-AND-KEY TEXT: exit 2, at the line PATTERN is.
refused() { decl_refused "$1.ini" "$2" "$3" "$4"; }

# The example itself is fine, and needs no GPU to check.
expect_exit 0 "$KTUNE" tune transpose.ini --check
expect_text "tiled          30 point(s): tile {16, 32, 64}"
expect_exit 0 "$KTUNE" list --plugin transpose.ini
expect_text "operator transpose:transpose"

mutate unknown_kernel 's/kernel = transpose_tiled</kernel = transpose_tild</'
refused unknown_kernel "transpose_tild" "[variant.tiled] kernel:" \
    'identifier "transpose_tild" is undefined'

mutate arg_count 's/^args = y, x, int rows, int cols/args = y, x, int rows/'
refused arg_count "kernel = transpose_naive" "[variant.naive] kernel:" \
    "transpose_naive does not take 3 arguments as [operator] args declares"

mutate arg_type 's/^args = y, x, int rows/args = y, x, float rows/'
refused arg_type "kernel = transpose_naive" "[variant.naive] kernel:" \
    "argument 3 of transpose_naive is not float"

mutate arg_buffer 's/^args = y, x,/args = y, z,/'
refused arg_buffer "^args" "[operator] args:" "'z' is not a buffer"

mutate bad_expression 's/^grid = ceil_div(cols, bx), /grid = ceil_div(cols, bx, /'
refused bad_expression "^grid = ceil_div(cols, bx," "[variant.naive] grid:" \
    "missing ')'"

mutate division_by_zero 's/^block = bx, by/block = bx, by \/ (bx - 16)/'
refused division_by_zero "^block = bx, by /" "[variant.naive] block:" \
    "'by / (bx - 16)': division by zero"

mutate overflow 's/input f32\[rows \* cols\]/input f32[rows * cols * 4611686018427387904]/'
refused overflow "4611686018427387904" "[operator] buffer.x:" \
    "overflows 64-bit integers"

mutate undeclared 's/^block = tile, rows_per/block = tile, rowsper/'
refused undeclared "rowsper" "[variant.tiled] block:" \
    "'rowsper' is not declared (not a size or parameter)"

mutate undeclared_size 's/^grid = ceil_div(cols, tile), ceil_div(rows, tile)/grid = ceil_div(width, tile)/'
refused undeclared_size "width" "[variant.tiled] grid:" "'width' is not declared"

mutate unknown_key 's/^require = /requir = /'
refused unknown_key "^requir =" "[variant.tiled] requir:" \
    "unknown key; did you mean 'require'?"

mutate no_reference '/^reference = yes/d'
refused no_reference "^\[operator\]" "[operator]:" "no reference"

mutate bad_type 's/input f32\[/input bf16[/'
refused bad_type "f16" "[operator] buffer.x:" "'bf16' is not an element type"

mutate bad_param 's/^param.pad = 0, 1/param.pad = 1, 0/'
refused bad_param "^param.pad" "[variant.tiled] param.pad:" \
    "'values' must ascend"

mutate no_source 's/^source = transpose.cu/source = missing.cu/'
refused no_source "^source" "[operator] source:" "cannot read"

mutate unknown_section 's/^\[variant.naive\]/[varient.naive]/'
refused unknown_section "varient" "[varient.naive]:" "unknown section"

# Keys are read in lower case: param.TILE declares tile, and an expression
# that writes TILE is told so (issue 30 item 13).
mutate upper_name 's/^param.tile = /param.TILE = /; s/<tile,/<TILE,/'
refused upper_name "transpose_tiled<TILE" "[variant.tiled] kernel:" \
    "'TILE' is not declared (not a size or parameter); did you mean 'tile'? (names are read in lower case)"
# default.NAME gives a declared parameter another default than its first
# value; one that is not among the values is refused.
mutate other_default 's/^param.pad = 0, 1/param.pad = 0, 1\ndefault.tile = 32/'
expect_exit 0 "$KTUNE" list --plugin other_default.ini
expect_text "tile           {16, 32, 64}, default 32"
mutate bad_default 's/^param.pad = 0, 1/param.pad = 0, 1\ndefault.tile = 33/'
refused bad_default "default.tile" "[variant.tiled] default.tile:" \
    "parameter 'tile': 33 is not one of {16, 32, 64}"

finish
