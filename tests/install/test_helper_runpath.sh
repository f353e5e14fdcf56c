# SPDX-License-Identifier: Apache-2.0
# The installed NVRTC helper (libexec/ktune/ktune-nvrtc) finds cudart and
# NVRTC by its own RUNPATH, as ktune does: run from the installed, moved
# prefix (fixture ktune_installed) with LD_LIBRARY_PATH empty and the loader
# cache out of the way, `ktune tune --check` compiles a declared kernel
# (NVRTC, no GPU needed). Without the helper's RUNPATH, on a host whose CUDA
# folder is not in /etc/ld.so.cache (a runfile install), every compile
# failed while ktune itself started.
. "$KT_SOURCE_DIR/tests/cli/lib.sh"
unset KTUNE_PLUGIN_PATH

P=$KT_INSTALL_WORK/moved
helper=$P/libexec/ktune/ktune-nvrtc
decl=$P/share/ktune/examples/declared_transpose/transpose.ini
[ -x "$helper" ] && [ -f "$decl" ] || {
    echo "FAIL: no installed helper or declaration under $P: run the install"
    echo "      test first (the fixture ktune_installed)"
    exit 1
}
loader=$(readelf -l "$helper" | sed -n 's/.*Requesting program interpreter: \(.*\)]/\1/p')

# The helper alone, through the dynamic loader with its cache inhibited:
# every library it needs is found (none "not found").
expect_exit 0 env LD_LIBRARY_PATH= LD_TRACE_LOADED_OBJECTS=1 "$loader" --inhibit-cache "$helper"
expect_text "libnvrtc"
if grep -q "not found" <<<"$out"; then
    echo "FAIL: with the loader cache inhibited the helper misses libraries:"
    echo "$out" | sed 's/^/    /'
    failures=$((failures + 1))
fi

# The whole run, ktune spawning the helper: the cache hidden for every
# process (an empty file over /etc/ld.so.cache in a private mount
# namespace) where unprivileged namespaces are allowed.
if unshare -rm true 2>/dev/null; then
    expect_exit 0 unshare -rm env LD_LIBRARY_PATH= KTUNE_CACHE_DIR="$PWD/cache" bash -c \
        'mount --bind /dev/null /etc/ld.so.cache && exec "$0" tune "$1" --check' \
        "$P/bin/ktune" "$decl"
    expect_text "transpose"
    # Each variant compiled (a compile that failed is only a warning).
    case "$out" in *"not checked"*)
        echo "FAIL: the installed helper could not compile: $out"
        failures=$((failures + 1)) ;;
    esac
else
    echo "note: no unprivileged mount namespace; the helper alone was checked"
fi
finish
