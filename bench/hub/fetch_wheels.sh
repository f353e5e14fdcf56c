#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Downloads, where the package index is reachable, the wheels Kernel Tuner
# 1.5.0 needs on the H200 machine (Python 3.12, x86_64; numpy, scipy, pandas
# and cupy are there already) into .kt-wheels/ at the checkout's root
# (git-ignored; or $KT_WHEELS). bench/hub/run_h200.sh installs them with
# pip --target; name the folder in the device tool's carry (a few MiB).
#
#   bash bench/hub/fetch_wheels.sh
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
dest="${KT_WHEELS:-$root/.kt-wheels}"
mkdir -p "$dest"
plat=(--platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64
    --platform manylinux2014_x86_64)
for p in kernel_tuner==1.5.0 python-constraint2==2.9.0 jsonschema==4.26.0 \
    attrs==26.1.0 jsonschema-specifications==2025.9.1 referencing==0.37.0 \
    rpds-py==2026.9.1 typing-extensions==4.16.0 packaging==26.4 \
    xmltodict==1.0.4; do
    python3 -m pip download -q --no-deps --only-binary=:all: \
        --python-version 3.12 --implementation cp "${plat[@]}" -d "$dest" "$p"
done
ls -l "$dest"
du -sh "$dest"
