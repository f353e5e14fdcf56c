#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The Python package's tests against a build tree (README's test command,
# .ci/run): the virtualenv BUILD/pyenv when it exists, else python3 when it
# has numpy and pytest, else a new BUILD/pyenv with numpy, pytest, pandas
# and tqdm; the package from python/, libktune from BUILD. GPU tests skip
# without a device. pytest's exit 5 (nothing collected) is a failure here:
# the suite must exist. Usage: tests/python/run.sh [BUILD] [pytest args...]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
shift || true
venv=$build/pyenv
if [ -x "$venv/bin/python" ]; then
    py=$venv/bin/python
elif python3 -c 'import numpy, pytest' 2>/dev/null; then
    py=python3 # Debian's python3-numpy and python3-pytest are enough
else
    python3 -m venv "$venv" || {
        echo "tests/python/run.sh: no virtualenv (Debian: apt-get install python3-venv," \
             "or python3-numpy python3-pytest)" >&2
        exit 1
    }
    "$venv/bin/pip" install -q numpy pytest pandas tqdm
    py=$venv/bin/python
fi
lib=$(ls "$build"/libktune.so 2>/dev/null || true)
if [ -z "$lib" ]; then
    echo "tests/python/run.sh: no libktune.so in $build (build the project first)" >&2
    exit 1
fi
export KTUNE_LIBRARY=$lib KTUNE_REQUIRE_LIBRARY=1
export PYTHONPATH=$root/python${PYTHONPATH:+:$PYTHONPATH}
cd "$root"
set +e
"$py" -m pytest -q tests/python "$@"
rc=$?
set -e
if [ "$rc" -eq 5 ]; then
    echo "tests/python/run.sh: pytest collected no tests" >&2
    exit 1
fi
exit "$rc"
