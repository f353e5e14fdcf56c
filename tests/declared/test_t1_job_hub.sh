# SPDX-License-Identifier: Apache-2.0
# `ktune tune FILE.json --check` on the benchmark hub's four T1 files gives
# each file's own count (convolution 4,362, dedispersion 11,130, hotspot
# 82,984, gemm 116,928), also where ktune cannot run the job (gemm's is
# OpenCL, dedispersion's kernel file the HIP one: refused by name, exit
# 2); convolution's runs as a job (exit 0, the same count after
# require). Needs a checkout of the hub (KTUNE_HUB_DIR; the repository
# holds none of its files): skipped without it.
. "$KT_SOURCE_DIR/tests/cli/lib.sh"

if [ -z "${KTUNE_HUB_DIR:-}" ]; then
    echo "KTUNE_HUB_DIR not set: skipped"
    exit 77
fi
export TMPDIR=$PWD/tmp
mkdir -p tmp
for pair in convolution:4362:0 dedispersion:11130:2 hotspot:82984:0 \
    gemm:116928:2; do
    IFS=: read -r name count code <<<"$pair"
    expect_exit "$code" "$KTUNE" tune "$KTUNE_HUB_DIR/kernels/${name}_milo.json" --check
    expect_text "_milo.json: "
    expect_text "in its Cartesian product, $count after its Conditions"
done
expect_exit 0 "$KTUNE" tune "$KTUNE_HUB_DIR/kernels/convolution_milo.json" --check
expect_text ", 4362 after require"
expect_exit 2 "$KTUNE" tune "$KTUNE_HUB_DIR/kernels/gemm_milo.json" --check
expect_text "KernelSpecification.Language: ktune compiles CUDA (NVRTC); expected \"CUDA\", found \"OpenCL\""
finish
