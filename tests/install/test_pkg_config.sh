# SPDX-License-Identifier: Apache-2.0
# ktune.pc from the installed, moved prefix (fixture ktune_installed) is
# enough to build a plugin without CMake: its nvcc flags and include path
# compile the scaffold's source with nvcc alone, and the installed ktune
# lists the result, built for ktune's own architectures.
. "$KT_SOURCE_DIR/tests/cli/lib.sh"
unset KTUNE_PLUGIN_PATH

P=$KT_INSTALL_WORK/moved
src=$KT_INSTALL_WORK/scaffold/scaffold_op.cu
pcfile=$(find "$P" -name ktune.pc)
[ -f "$pcfile" ] && [ -f "$src" ] || {
    echo "FAIL: no ktune.pc or scaffold under $KT_INSTALL_WORK: run the"
    echo "      install test first (the fixture ktune_installed)"
    exit 1
}
rm -f scaffold_pc.so

PKG_CONFIG_PATH=$(dirname "$pcfile")
export PKG_CONFIG_PATH
expect_exit 0 "$KT_PKG_CONFIG" --cflags ktune
cflags=$out
expect_text "-I$P/"
expect_exit 0 "$KT_PKG_CONFIG" --variable=nvcc_flags ktune
nvcc_flags=$out
expect_text "-std=c++20"
expect_text "--cudart=shared"
expect_text "-Xcompiler=-fPIC,-fvisibility=hidden"
expect_exit 0 "$KT_PKG_CONFIG" --variable=plugindir ktune
[ -f "$out/vector_add.so" ] ||
    { echo "FAIL: plugindir $out holds no vector_add.so"; failures=$((failures + 1)); }

# shellcheck disable=SC2086 # the flags are words
expect_exit 0 "$KT_CUDA_COMPILER" $nvcc_flags $cflags -o scaffold_pc.so "$src"
expect_exit 0 "$P/bin/ktune" list --plugin "$PWD/scaffold_pc.so"
expect_text "operator scaffold_op:mul"
expect_text "variant grid_stride"
# ktune's architectures (when they are numbers; native and all depend on
# the machine): the plugin is built for exactly those.
if [ -n "$KT_CUDA_ARCHS" ]; then
    grep -F "scaffold_pc.so (CUDA" <<<"$out" | grep -q "sm $KT_CUDA_ARCHS)" || {
        echo "FAIL: scaffold_pc.so is not built for sm $KT_CUDA_ARCHS:"
        grep -F "scaffold_pc.so" <<<"$out" | sed 's/^/    /'
        failures=$((failures + 1))
    }
fi
finish
