# SPDX-License-Identifier: Apache-2.0
# `ktune capture --check` on captures made to mislead (issue 53, N26-N35):
# names holding terminal escapes are printed scrubbed (and a symbol with
# one is refused); a missing manifest is named without jansson's line -1;
# the folder's geometry.ini is evaluated at every block shape (a require
# that excludes every shape, a division by zero, a negative grid: exit 2);
# allocation sizes whose sum would wrap and blobs that are links out of the
# folder are refused.
. "$KT_SOURCE_DIR/tests/cli/lib.sh"
MAKE="python3 $KT_SOURCE_DIR/tests/capture/make_capture.py"
rm -rf ./*
ESC=$(printf '\033')
fail() {
    echo "FAIL: $*"
    failures=$((failures + 1))
}
no_controls() { # WHAT: the last output holds no terminal control byte
    if LC_ALL=C grep -q "[[:cntrl:]]" <<<"$(tr -d '\n\t' <<<"$out")" ||
        grep -q $'\xc2\x9b' <<<"$out"; then
        fail "$1 printed terminal controls: $(printf '%q' "$out")"
    fi
}

# Escapes in the names shown: printed, scrubbed.
$MAKE escapes escapes
expect_exit 0 "$KTUNE" capture --check escapes
expect_text "kernel   vecadd?]0;owned??[2J(float*)??31m"
expect_text "NVIDIA ?[31mH200"
no_controls "capture --check"
$MAKE mangled mangled-escape
expect_exit 2 "$KTUNE" capture --check mangled
expect_text "kernel.mangled: expected a symbol name, found a control character"
no_controls "a refused symbol's message"

# A folder without its manifest: the file named, no ":-1:".
mkdir empty
expect_exit 2 "$KTUNE" capture --check empty
expect_text "empty/capture.json: not a capture manifest"
case "$out" in *":-1:"*) fail "a line -1 in: $out" ;; esac

# geometry.ini is evaluated at every shape.
geometry() { # TEXT EXIT WANT: capture --check with that geometry.ini
    rm -rf geo
    $MAKE geo
    printf '%s\n' "$1" >geo/geometry.ini
    expect_exit "$2" "$KTUNE" capture --check geo
    expect_text "$3"
}
geometry $'[geometry]\nblock_x = 64, 128\nrequire = block_x > 4096' 2 \
    "no block shape is allowed: each of the 3 is refused"
geometry $'[geometry]\nblock_x = 64, 128\nsmem = block_x / 0' 2 \
    "[geometry] smem: "
geometry $'[geometry]\nblock_x = 64, 128\ngrid_x = 0 - block_x' 2 \
    "expected 1 to 2147483647"
geometry $'[geometry]\nblock_x = 64, 128\nrequire = block_x < 100' 0 \
    "3 block shapes, 1 allowed"

# Sizes that would wrap: each allocation is at most 2^48 bytes. The blobs
# are sparse files, on tmpfs where one can be that large.
if [ -d /dev/shm ] && [ -w /dev/shm ]; then
    huge=$(mktemp -d /dev/shm/ktune-huge-XXXXXX)
    $MAKE "$huge/cap" huge
    expect_exit 2 "$KTUNE" capture --check "$huge/cap"
    expect_text "allocations[0].bytes: expected 0 to 281474976710656"
    rm -rf "$huge"
fi

# A blob that is a link out of the folder.
$MAKE linked link
expect_exit 2 "$KTUNE" capture --check linked
expect_text "allocations[0].before: expected a regular file in the capture folder, found a symbolic link"
finish
