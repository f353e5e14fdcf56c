#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The Python package's tests against a build tree (README's test command,
# .ci/run): a virtualenv in BUILD/pyenv with numpy, pytest, pandas and tqdm
# (made once), the package from python/, libktune from BUILD. GPU tests skip
# without a device. pytest's exit 5 (nothing collected) is a failure here:
# the suite must exist. Usage: tests/python/run.sh [BUILD] [pytest args...]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
shift || true
venv=$build/pyenv
if [ ! -x "$venv/bin/python" ]; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install -q numpy pytest pandas tqdm
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
"$venv/bin/python" -m pytest -q tests/python "$@"
rc=$?
set -e
if [ "$rc" -eq 5 ]; then
    echo "tests/python/run.sh: pytest collected no tests" >&2
    exit 1
fi
exit "$rc"
