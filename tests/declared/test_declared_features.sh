# SPDX-License-Identifier: Apache-2.0
# The declaration features of issue 28 without a GPU (NVRTC checks on the
# CPU): features/features.ini (constant memory, float scalars, a u8
# buffer, a float4 view, fills from distributions, a .npy file and a
# generator kernel, an in-out buffer, a pinned size, a reference that
# follows a parameter, work of a parameter) checks from another folder,
# its include found next to the source; each feature's mistake is refused
# with exit 2, file:line, the key and what is wrong.
. "$KT_SOURCE_DIR/tests/cli/lib.sh"

src=$KT_SOURCE_DIR/tests/declared/features
mkdir -p decl elsewhere
cp "$src/features.cu" "$src/features.h" "$src/features.ini" \
    "$src/weights.npy" decl/

# Checked from another folder: the source's include and the .npy resolve
# against the declaration, not the current folder.
cd elsewhere || exit 1
expect_exit 0 "$KTUNE" tune ../decl/features.ini --check
expect_text "pinned sizes (fixed by the operator; boundary-size verification keeps them): m=16"
expect_text "vec            27 point(s)"
expect_exit 2 "$KTUNE" tune ../decl/features.ini --check --set job.m=8
expect_text "[job] m: 8 is out of range; expected 16 to 16"
cd .. || exit 1

# mutate NAME SED-EXPRESSION: decl/NAME.ini, the example with one change.
mutate() { decl_mutate decl/features.ini "decl/$1.ini" "$2"; }
# refused NAME PATTERN SECTION-AND-KEY TEXT: exit 2, at the line PATTERN is.
refused() { decl_refused "decl/$1.ini" "$2" "$3" "$4"; }

mutate no_symbol 's/^constant.c_weights = w/constant.c_weight = w/'
refused no_symbol "^constant" "[operator] constant.c_weight:" \
    "the compiled source has no __constant__ symbol 'c_weight'"

mutate big_constant 's/^buffer.w = .*/buffer.w = input f32[m * 2] constant(1)/'
refused big_constant "^constant" "[operator] constant.c_weights:" \
    "buffer 'w' has 128 bytes at the defaults; the symbol holds 64"

mutate constant_output 's/^constant.c_weights = w/constant.c_weights = y/'
refused constant_output "^constant" "[operator] constant.c_weights:" \
    "buffer 'y' is not an input"

mutate npy_dtype 's/^buffer.w = input f32/buffer.w = input f64/'
refused npy_dtype "^buffer.w" "[operator] buffer.w:" \
    "holds dtype '<f4'; the buffer's type f64 is '<f8'"

mutate npy_count 's/^buffer.w = input f32\[m\]/buffer.w = input f32[m + 1]/'
refused npy_count "^buffer.w" "[operator] buffer.w:" \
    "holds 16 elements; the buffer has 17 at the default sizes"

mutate unset_var 's|^source = features.cu|source = ${KTUNE_TEST_UNSET_DIR}/features.cu|'
refused unset_var "^source" "[operator] source:" \
    '${KTUNE_TEST_UNSET_DIR} is not set'

mutate view 's/x as float4/x as float2/'
refused view "kernel = features_simple" "[variant.simple] kernel:" \
    "argument 3 of features_simple<1> is not a pointer to float2"

mutate int_literal 's/int n$/int 0.5/'
refused int_literal "^args" "[operator] args:" \
    "int takes an integer expression, not 0.5"

mutate generator 's/from make_ramp/from features_simple<1>/'
refused generator "^buffer.r" "[operator] buffer.r:" \
    "expected 'from FILE.npy' or 'from KERNEL'"

mutate generator_args 's/from make_ramp/from step_all/'
refused generator_args "^buffer.r" "[operator] buffer.r:" \
    "does not compile"

mutate follows 's/^follows = steps/follows = step/'
refused follows "^follows" "[variant.simple] follows:" \
    "'step' is not a parameter of [variant.simple]"

mutate work 's/^flops = 6 \* n \* steps/flops = 6 * n * stepz/'
refused work "^flops" "[operator] flops:" \
    "with the names of [variant.simple]: '6 * n * stepz': 'stepz' is not declared"

mutate fill_output 's/^buffer.y = output f32\[n\]/buffer.y = output f32[n] constant(0)/'
refused fill_output "^buffer.y" "[operator] buffer.y:" \
    "only input and inout buffers are filled"

mutate bad_fill 's/normal(0, 1)/gauss(0, 1)/'
refused bad_fill "^buffer.x" "[operator] buffer.x:" \
    "expected a fill: uniform(a, b), normal(mu, sigma)"

mutate bad_pin 's/m=16 pinned/m=16 frozen/'
refused bad_pin "^sizes" "[operator] sizes:" "'NAME=VALUE pinned'"

finish
