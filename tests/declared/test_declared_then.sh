# SPDX-License-Identifier: Apache-2.0
# Several kernels per evaluation without a GPU (NVRTC checks on the CPU):
# then/block_sums.ini declares a second kernel after each variant's first,
# one taken from the first kernel's module and one template compiled on
# its own, and checks from another folder; each mistake in the then.* keys
# is refused with exit 2, file:line, the key and what is wrong, and the
# then-kernel's arguments are checked against its signature like the
# first kernel's.
. "$KT_SOURCE_DIR/tests/cli/lib.sh"

src=$KT_SOURCE_DIR/tests/declared/then
mkdir -p decl elsewhere
cp "$src/block_sums.cu" "$src/block_sums.ini" decl/

cd elsewhere || exit 1
expect_exit 0 "$KTUNE" tune ../decl/block_sums.ini --check
expect_text "two_pass       16 point(s)"
expect_exit 0 "$KTUNE" list --plugin ../decl/block_sums.ini
expect_text "first_timed"
cd .. || exit 1

# mutate NAME SED-EXPRESSION: decl/NAME.ini, the example with one change.
mutate() { decl_mutate decl/block_sums.ini "decl/$1.ini" "$2"; }
# refused NAME PATTERN SECTION-AND-KEY TEXT: exit 2, at the line PATTERN is.
refused() { decl_refused "decl/$1.ini" "$2" "$3" "$4"; }

mutate count '0,/^then.args = .*/s//then.args = partials, out/'
refused count "^then = total$" "[variant.two_pass] then:" \
    "ktune: total does not take 2 arguments as then.args declares"

mutate type '0,/^then.args = partials/s//then.args = x/'
refused type "^then = total$" "[variant.two_pass] then:" \
    "argument 1 of total is not a pointer to float as then.args declares ('x')"

mutate template_type '/^\[variant.first_timed\]/,$s/^then.args = partials, out/then.args = partials, x/'
refused template_type "^then = total_t" "[variant.first_timed] then:" \
    "argument 2 of total_t<128> is not a pointer to float as then.args declares ('x')"

mutate unknown '0,/^then = total$/s//then = totl/'
refused unknown "^then = totl" "[variant.two_pass] then:" \
    "does not compile"

mutate orphan '0,/^then = total$/s///'
refused orphan "^then.args" "[variant.two_pass] then.args:" \
    "without 'then = KERNEL', the second kernel it belongs to"

mutate no_grid '0,/^then.grid = 1$/s///'
refused no_grid "^\[variant.two_pass\]" "[variant.two_pass] then.grid:" \
    "missing; expected 1 to 3 expressions"

mutate zero_grid '0,/^then.grid = 1$/s//then.grid = items - items/'
refused zero_grid "^then.grid = items - items" "[variant.two_pass] then.grid:" \
    "at the defaults a grid dimension is 0"

mutate timed 's/^then.timed = no/then.timed = later/'
refused timed "^then.timed" "[variant.first_timed] then.timed:" \
    "'later': expected yes or no"

mutate name '0,/^then.args = .*/s//then.args = partials, out, int ceil_div(n, blocks)/'
refused name "^then.args = partials, out, int ceil_div(n, blocks)" \
    "[variant.two_pass] then.args:" "'blocks'"

finish
