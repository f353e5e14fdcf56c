# SPDX-License-Identifier: Apache-2.0
# Sourced by tests that run Kernel Tuner 1.5.0 itself: sets $py to a Python
# that imports kernel_tuner 1.5.0: python3 itself where it does (a GPU host
# with bench/hub/fetch_wheels.sh's wheels installed on PYTHONPATH), else
# KTUNE_KT_VENV (a venv that has it) or a venv pip-installed into the
# test's folder (kept for the next run); without network or pip the test
# exits 77 (skipped) with a note.
venv=${KTUNE_KT_VENV:-$PWD/kt-venv}
py=$venv/bin/python
if [ -z "${KTUNE_KT_VENV:-}" ] && python3 -c 'import kernel_tuner' 2>/dev/null; then
    py=python3
elif ! "$py" -c 'import kernel_tuner' 2>/dev/null; then
    if ! python3 -m venv "$venv" >venv.log 2>&1 ||
        ! timeout 600 "$venv/bin/pip" install -q kernel_tuner==1.5.0 \
            >>venv.log 2>&1; then
        echo "skipped: could not pip-install kernel_tuner==1.5.0 into" \
            "$venv (no network?): $(tail -1 venv.log)"
        exit 77
    fi
fi
version=$("$py" -c 'from importlib.metadata import version; print(version("kernel_tuner"))')
if [ "$version" != 1.5.0 ]; then
    echo "skipped: $venv has kernel_tuner $version, not 1.5.0"
    exit 77
fi
