# SPDX-License-Identifier: Apache-2.0
# The plugin-verdict cache on a full disk (issue 53): `ktune list` still
# lists every plugin, and leaves no temporary file in the cache folder. The
# disk is a 64 KiB tmpfs filled to the last byte, mounted in a private
# mount namespace (skipped where unprivileged namespaces are not allowed).
. "$KT_SOURCE_DIR/tests/cli/lib.sh"
unshare -rm true 2>/dev/null || {
    echo "skipped: no unprivileged mount namespace"
    exit 77
}
rm -rf ./*
mkdir full
expect_exit 0 unshare -rm bash -c '
    mount -t tmpfs -o size=64k none full || exit 3
    mkdir full/plugins
    dd if=/dev/zero of=full/filler bs=4k 2>/dev/null
    KTUNE_CACHE_DIR=$PWD/full "$0" list --plugin "$1" >/dev/null 2>list.err ||
        { cat list.err; exit 4; }
    ls -A full/plugins' "$KTUNE" "$KT_FIXTURES/good_plugin.so"
if [ -n "$out" ]; then
    echo "FAIL: the full cache folder holds files after ktune list:"
    echo "$out" | sed 's/^/    /'
    failures=$((failures + 1))
fi
finish
