# SPDX-License-Identifier: Apache-2.0
# examples/hub: every declaration checks without a GPU from another folder
# and gives the T1 file's own count after its Conditions. Needs checkouts
# of the benchmark hub and BAT (KTUNE_HUB_DIR, KTUNE_BAT_DIR; see
# examples/hub/README.md): skipped without them, since the repository
# holds none of their files.
. "$KT_SOURCE_DIR/tests/cli/lib.sh"

if [ -z "${KTUNE_HUB_DIR:-}" ] || [ -z "${KTUNE_BAT_DIR:-}" ]; then
    echo "KTUNE_HUB_DIR or KTUNE_BAT_DIR not set: skipped"
    exit 77
fi
hub=$KT_SOURCE_DIR/examples/hub
mkdir -p elsewhere && cd elsewhere || exit 1
# check NAME COUNT
check() {
    expect_exit 0 "$KTUNE" tune "$hub/$1.ini" --check
    expect_text "after require:"
    expect_text ", $2 after require"
}
check convolution 4362
check hotspot 82984
check dedispersion 11130
check gemm 116928
check pnpoly 4092
check nbody 1568
check triad 4320
check md5hash 165888
check bat_gemm 10312
check bat_convolution 6768
check expdist 96
finish
