# SPDX-License-Identifier: Apache-2.0
# `cmake --install` of this build into a temporary prefix, moved elsewhere
# afterwards, gives a working package: the installed ktune lists its
# built-in plugins without KTUNE_PLUGIN_PATH; examples/stencil and a
# `ktune new-plugin` scaffold build against it with find_package(ktune)
# (sm_90 when no architecture is set, the user's when one is) and the
# installed ktune lists them; the tuning jobs of both validate. Leaves
# moved/ and the built plugins for the pkg-config and GPU tests (fixture
# ktune_installed).
. "$KT_SOURCE_DIR/tests/cli/lib.sh"
unset KTUNE_PLUGIN_PATH CUDAARCHS

work=$PWD
rm -rf prefix moved stencil-build scaffold scaffold-sm80 scaffold_pc.so

# expect_file PATH: PATH exists.
expect_file() {
    if [ ! -e "$1" ]; then
        echo "FAIL: $1 is missing; the prefix holds:"
        (cd "$work/moved" 2>/dev/null && find . | sort | sed 's/^/    /')
        failures=$((failures + 1))
    fi
}

# --- install, then move the prefix: everything must be relative ---------
expect_exit 0 "$KT_CMAKE" --install "$KT_BUILD_DIR" --prefix "$work/prefix"
[ "$failures" = 0 ] || finish
mv prefix moved
P=$work/moved
config=$(find "$P" -name ktuneConfig.cmake)
pcfile=$(find "$P" -name ktune.pc)
expect_file "$P/bin/ktune"
# The NVRTC helper where ktune looks for it from its binary (relocated).
expect_file "$P/bin/../libexec/ktune/ktune-nvrtc"
expect_file "$P/include/ktune/plugin.h"
expect_file "$P/include/ktune/plugin_util.h"
expect_file "$P/share/ktune/configs/vector_add.ini"
expect_file "$P/share/ktune/examples/stencil/stencil.cu"
expect_file "$P/share/doc/ktune/tutorial.md"
expect_file "$P/share/doc/ktune/LICENSE"
expect_file "$config"
expect_file "$pcfile"
libdir=$(dirname "$(dirname "$(dirname "$config")")")
expect_file "$libdir/ktune/plugins/vector_add.so"
# Built with MPI: the --mpi module is installed where the binary loads it.
if [ -e "$KT_BUILD_DIR/ktune_mpi.so" ]; then
    expect_file "$libdir/ktune/ktune_mpi.so"
fi
expect_file "$(dirname "$config")/ktune_add_plugin.cmake"
expect_file "$P/share/ktune/recordings/vector_add-h200-n268435456.jsonl"
expect_file "$P/share/ktune/schemas/tune.schema.json"
expect_file "$P/share/bash-completion/completions/ktune"
expect_file "$P/share/man/man1/ktune.1"
# No dated docs/results files: history, not a manual.
if [ -e "$P/share/doc/ktune/results" ]; then
    echo "FAIL: the install carries docs/results ($(find "$P/share/doc/ktune/results" -type f | wc -l) files)"
    failures=$((failures + 1))
fi
[ "$failures" = 0 ] || finish

# --- without a GPU: one command that replays the installed recording ------
if ! "$KT_HAS_GPU"; then
    expect_exit 1 "$P/bin/ktune" tune "$P/share/ktune/configs/vector_add.ini"
    expect_text "no CUDA device or driver found on this machine (CUDA: "
    hint=${out##*to watch a recorded tuning run instead: }
    case "$hint" in
    "ktune tune "*"$P/share/ktune/recordings/"*) ;;
    *) echo "FAIL: no replay of the installed recording in: $out"
       failures=$((failures + 1)) ;;
    esac
    # Pasted as printed (ktune from the prefix), it runs and writes no journal.
    expect_exit 0 env PATH="$P/bin:$PATH" bash -c "$hint --quiet"
    if ls ./*.jsonl >/dev/null 2>&1; then
        echo "FAIL: the pasted replay wrote a journal"
        failures=$((failures + 1))
    fi
fi

# --- the installed ktune finds its own plugins --------------------------
expect_exit 0 env -u KTUNE_PLUGIN_PATH "$P/bin/ktune" list
expect_text "operator vector_add:add"
expect_text "file $libdir/ktune/plugins/vector_add.so"
for plugin in gemv reduce saxpy matrix_add copy empty; do
    expect_text "file $libdir/ktune/plugins/$plugin.so"
done
if grep -qF "$KT_BUILD_DIR/plugins" <<<"$out"; then
    echo "FAIL: the installed ktune loaded plugins from the build tree"
    failures=$((failures + 1))
fi
# ... and its timeline tracer (found, or ktune timeline exits 1), with CUPTI.
expect_file "$libdir/ktune/libktune_trace.so"
expect_exit 0 env -u KTUNE_TRACER "$P/bin/ktune" timeline -- true
expect_text "made no CUDA call"
if ldd "$libdir/ktune/libktune_trace.so" | grep -q "not found"; then
    echo "FAIL: the installed tracer does not find its libraries"
    failures=$((failures + 1))
fi

configure() { # configure SOURCE BUILD [cmake options...]
    local src=$1 bld=$2
    shift 2
    expect_exit 0 "$KT_CMAKE" -S "$src" -B "$bld" -G "$KT_GENERATOR" \
        -DCMAKE_CUDA_COMPILER="$KT_CUDA_COMPILER" -DCMAKE_PREFIX_PATH="$P" "$@"
}

# --- the example, out of tree, through find_package(ktune) -------------
configure "$KT_SOURCE_DIR/examples/stencil" stencil-build
expect_exit 0 "$KT_CMAKE" --build stencil-build
expect_exit 0 "$P/bin/ktune" list --plugin "$work/stencil-build/stencil.so"
expect_text "operator stencil:blur9"
expect_text "variant direct"
expect_text "variant tiled"
expect_text "file $work/stencil-build/stencil.so (CUDA"
# No architecture given: ktune_add_plugin's default, sm_90 (nvcc's own
# default would be sm_52 or sm_75).
grep -F "stencil.so (CUDA" <<<"$out" | grep -q "sm 900)" || {
    echo "FAIL: stencil.so is not built for sm_90 alone:"
    grep -F "stencil.so" <<<"$out" | sed 's/^/    /'
    failures=$((failures + 1))
}
expect_text "operator vector_add:add"
expect_exit 0 "$P/bin/ktune" tune "$KT_SOURCE_DIR/examples/stencil/stencil.ini" \
    --plugin "$work/stencil-build/stencil.so" --check
expect_text "space 30 point(s)"

# --- a scaffold, built the same way -------------------------------------
expect_exit 0 "$P/bin/ktune" new-plugin scaffold_op scaffold
expect_text "created scaffold/CMakeLists.txt, scaffold/scaffold_op.cu, scaffold/scaffold_op.ini"
expect_text "-DCMAKE_PREFIX_PATH=$P"
configure scaffold scaffold/build
expect_exit 0 "$KT_CMAKE" --build scaffold/build
expect_exit 0 "$P/bin/ktune" list --plugin "$work/scaffold/build/scaffold_op.so"
expect_text "operator scaffold_op:mul"
expect_text "variant one_per_thread"
expect_text "variant grid_stride"
expect_text "blocks_per_sm  {1, 2, 4, 8, 16, 32}, default 4"
expect_exit 0 "$P/bin/ktune" tune scaffold/scaffold_op.ini \
    --plugin "$work/scaffold/build/scaffold_op.so" --check
expect_text "space 42 point(s)"

# The user's architectures win over the default (configure only).
configure scaffold scaffold-sm80 -DCMAKE_CUDA_ARCHITECTURES=80
if ! grep -rqF "arch=compute_80" scaffold-sm80 ||
    grep -rqF "arch=compute_90" scaffold-sm80; then
    echo "FAIL: -DCMAKE_CUDA_ARCHITECTURES=80 did not give sm_80 alone"
    failures=$((failures + 1))
fi
rm -rf scaffold-sm80 # 5 MB of CMake's compiler checks, nothing else

finish
