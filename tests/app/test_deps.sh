# SPDX-License-Identifier: Apache-2.0
# The README's first command installs only what building and running ktune
# needs: tools/deps --print names exactly the run-time set docs/install.md
# documents, none of the test and CI packages (cmocka, clang,
# clang-format, Chromium, jsonschema); and tools/deps itself, run with a
# package manager that records instead of installing, asks for that set and
# nothing else, through sudo only when not root, and for nothing (no apt,
# no sudo) when everything is installed. --test adds the documented test set.
. "$KT_SOURCE_DIR/tests/cli/lib.sh"
deps=$KT_SOURCE_DIR/tools/deps
rm -rf ./*

# docs/install.md's table: "| `tools/deps` ... | `PACKAGES` |".
documented() { # ROW-START: the packages of that table row, one a line
    grep -F -- "$1" "$KT_SOURCE_DIR/docs/install.md" | head -n 1 |
        sed 's/^[^|]*|[^|]*|[^`]*`\([^`]*\)`.*/\1/' | tr ' ' '\n' | grep -v '^$'
}
runtime=$(documented '| `tools/deps` (build and run)' | sort)
test_set=$(documented '| `tools/deps --test` adds' | sort)
[ -n "$runtime" ] && [ -n "$test_set" ] || {
    echo "FAIL: no package rows in docs/install.md"
    exit 1
}

expect_exit 0 bash "$deps" --print
printed=$(sort <<<"$out")
if [ "$printed" != "$runtime" ]; then
    echo "FAIL: tools/deps --print and docs/install.md's run-time set differ:"
    diff <(echo "$printed") <(echo "$runtime") | sed 's/^/    /'
    failures=$((failures + 1))
fi
for p in libcmocka-dev clang clang-format chromium python3-jsonschema libclang-rt-dev; do
    if grep -qx -- "$p" <<<"$printed"; then
        echo "FAIL: the run-time set holds the test package $p"
        failures=$((failures + 1))
    fi
done
expect_exit 0 bash "$deps" --print --test
want=$(sort <<<"$runtime"$'\n'"$test_set")
got=$(sort <<<"$out")
. /etc/os-release 2>/dev/null || true
[ "${ID:-}" = ubuntu ] && want=$(grep -vx chromium <<<"$want")
if [ "$got" != "$want" ]; then
    echo "FAIL: tools/deps --print --test and docs/install.md's two rows differ:"
    diff <(echo "$got") <(echo "$want") | sed 's/^/    /'
    failures=$((failures + 1))
fi

# A package manager that records: dpkg-query says "installed" for the
# names in ./installed, apt-get and sudo append their arguments to ./calls.
mkdir -p fake
cat >fake/dpkg-query <<'SH'
#!/bin/sh
for last; do :; done
grep -qx -- "$last" "$FAKE/installed" && printf 'install ok installed'
exit 0
SH
cat >fake/apt-get <<'SH'
#!/bin/sh
echo "apt-get $*" >>"$FAKE/calls"
SH
cat >fake/sudo <<'SH'
#!/bin/sh
echo "sudo $1" >>"$FAKE/calls"
exec "$@"
SH
printf '#!/bin/sh\necho "${FAKE_UID:-0}"\n' >fake/id
chmod +x fake/*
export FAKE=$PWD

run_deps() { # UID [ARGS]: tools/deps with the fakes first in PATH
    local uid=$1
    shift
    : >calls
    out=$(FAKE_UID=$uid PATH="$PWD/fake:$PATH" bash "$deps" "$@" 2>&1)
}
installed_only() { # the packages `apt-get install` was asked for
    grep '^apt-get .*install' calls | sed 's/.*-qq //' | tr ' ' '\n' | grep -v '^$' | sort
}

: >installed
run_deps 0
if [ "$(installed_only)" != "$runtime" ]; then
    echo "FAIL: tools/deps asked apt-get to install:"
    installed_only | sed 's/^/    /'
    failures=$((failures + 1))
fi
# Recommends are not installed: only what is named.
grep -q '^apt-get .*install.* --no-install-recommends ' calls || {
    echo "FAIL: tools/deps installs Recommends too:"
    sed 's/^/    /' calls
    failures=$((failures + 1))
}
if grep -q '^sudo' calls; then
    echo "FAIL: tools/deps used sudo as root"
    failures=$((failures + 1))
fi
run_deps 1000
grep -q '^sudo apt-get' calls || {
    echo "FAIL: not root, but apt-get ran without sudo"
    failures=$((failures + 1))
}
# Everything there: nothing asked of apt-get or sudo.
echo "$runtime" >installed
run_deps 1000
expect_text "tools/deps: everything is installed"
if [ -s calls ]; then
    echo "FAIL: with everything installed tools/deps still called:"
    sed 's/^/    /' calls
    failures=$((failures + 1))
fi
# One missing: only that one.
grep -vx zlib1g-dev <<<"$runtime" >installed
run_deps 0
[ "$(installed_only)" = zlib1g-dev ] || {
    echo "FAIL: with zlib1g-dev missing, apt-get was asked for: $(installed_only | tr '\n' ' ')"
    failures=$((failures + 1))
}
finish
