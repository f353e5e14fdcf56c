# SPDX-License-Identifier: Apache-2.0
# The capture library without a GPU (tests/capture/fake_capture_prog.c: its
# code driven by a stand-in CUPTI and driver, run by ktune capture as any
# program): runtime launches are captured (the kernel handle of CUDA 13's
# <<< >>>, a module loaded lazily inside the launch, a host stub resolved
# through the module image), a driver launch too (CuPy), the runtime's
# inner driver call is not counted twice, what --kernel does not match is
# listed, and every capture reads back whole.
. "$KT_SOURCE_DIR/tests/cli/lib.sh"
P=$KT_FAKE_CAPTURE_PROG
rm -rf caps

expect_exit 0 "$KTUNE" capture --verbose --kernel '^scale_add$|^bump$|^saxpy$' \
    --launch all --out caps -- "$P"
echo "$out"
expect_text "fake program done"
# the library's --verbose lines, one per launch callback
expect_text "runtime __cudaLaunchKernel_v13000 (505): _Z9scale_addPKfS0_Pfif = scale_add(float const*, float const*, float*, int, float), grid 4x1x1, block 256x1x1, 0 bytes of dynamic shared memory: taken: --kernel matches its base name, launch 1"
expect_text "function handle from cuKernelGetFunction; module image 1"
expect_text "function handle from cuKernelGetFunction; module image 2"
expect_text "function handle from its module image, loaded again"
expect_text "driver cuLaunchKernel (307) inside another launch call: counted there"
expect_text "function handle from the driver call; module image 3"
expect_text "_Z5otherv = other(), grid 4x1x1"
expect_text "--kernel '^scale_add\$|^bump\$|^saxpy\$' matches none of its names"
if grep -q "module 99 loaded" <<<"$out"; then
    echo "FAIL: the library kept its own module load"
    failures=$((failures + 1))
fi
# the library's runtime call leaves the program's last error as it was
# (a failed cudaGetFuncBySymbol is taken back; none is made while the
# program's own error is pending)
expect_text "runtime asked 1 time(s); the program's last error after: 0"
expect_text "with an error pending: runtime asked 1 time(s); last error: 2"
# ktune's report of each capture
expect_text "launch   2 of the program's; grid 4x1x1, block 256x1x1"
expect_text "5 parameters, 32 bytes; 3 allocations, 12288 bytes"
expect_text "kernel   bump(float*, int)"
expect_text "kernel   saxpy"
expect_text "not captured: (graph), launch 0: kernels launched through a CUDA graph"
# a launch whose handle and CUPTI disagree on the kernel is refused
expect_text "not captured: _Z9scale_addPKfS0_Pfif, launch 3: the launch's kernel handle names another kernel than CUPTI does"
n=$(find caps -name capture.json | wc -l)
[ "$n" = 4 ] || { echo "FAIL: $n captures, expected 4"; failures=$((failures + 1)); }
for c in caps/*/; do
    expect_exit 0 "$KTUNE" capture --check "$c"
done
# what the kernel wrote is the reference output; its inputs are unchanged
c1=$(ls -d caps/001-*)
cmp -s "$c1/alloc-0.before" "$c1/alloc-0.after" ||
    { echo "FAIL: scale_add's input a changed"; failures=$((failures + 1)); }
cmp -s "$c1/alloc-2.before" "$c1/alloc-2.after" &&
    { echo "FAIL: scale_add's output c did not change"; failures=$((failures + 1)); }
# the totals at exit: scale_add three times (the inner driver call of the
# second not counted)
expect_exit 0 grep -c "$(printf 'N\t_Z9scale_addPKfS0_Pfif\t3\t1')" caps/capture-*.log
expect_exit 0 grep -c "$(printf 'N\t_Z5otherv\t1\t0')" caps/capture-*.log

# nothing matched: what was launched is listed
rm -rf caps
expect_exit 0 "$KTUNE" capture --kernel '^nothing$' --out caps -- "$P"
expect_text "no launch matched --kernel ^nothing\$ (launch 1): nothing captured"
expect_text "the program launched 5 kernel(s), 8 launch(es) in all"
expect_text "_Z4bumpPfi (bump(float*, int)): 1 launch(es), through runtime __cudaLaunchKernel_v13000 (505)"
rm -rf caps
finish
