#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Downloads, where the package index is reachable, the wheels that Kernel
# Tuner 1.5.0's nsga2/nsga3 (pymoo) and skopt (scikit-optimize) strategies
# import and the device machine's image lacks (Python 3.12, x86_64; its
# numpy, scipy, scikit-learn, joblib, matplotlib, pyyaml and wrapt are used
# as they are) into .meth-wheels/ (git-ignored; or $METH_WHEELS), about
# 7 MiB; bench/hub/fetch_wheels.sh fetches Kernel Tuner's own into
# .kt-wheels/. bench/methodology/device.sh installs both with pip --target.
#
#   bash bench/methodology/fetch_wheels.sh
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
dest="${METH_WHEELS:-$root/.meth-wheels}"
mkdir -p "$dest"
plat=(--platform manylinux_2_28_x86_64 --platform manylinux_2_27_x86_64
    --platform manylinux_2_24_x86_64 --platform manylinux_2_17_x86_64
    --platform manylinux2014_x86_64)
for p in pymoo==0.6.2 moocore==0.3.2 cffi==2.1.1 pycparser==3.12 \
    autograd==1.9.1 cma==4.5.0 alive-progress==3.3.0 about-time==4.2.1 \
    graphemeu==0.7.2 Deprecated==1.3.1 platformdirs==4.14.9 \
    scikit-optimize==0.10.2 pyaml==26.7.0; do
    python3 -m pip download -q --no-deps --only-binary=:all: \
        --python-version 3.12 --implementation cp "${plat[@]}" -d "$dest" "$p"
done
ls -l "$dest"
du -sh "$dest"
