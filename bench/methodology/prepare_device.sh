#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Makes .hub/ (git-ignored) for bench/methodology/device.sh: the 12 cache
# files of the benchmark_hub checkout in KTUNE_HUB_DIR as
# .hub/cachefiles/APP/GPU.json.xz (about 18 MiB, which the device call
# carries), the hub's kernels/ input files, and .hub/budgets.json (run.py's
# budgets, computed by the methodology package: METH_PYTHON names a Python
# with autotuning-methodology 1.1.0; WORK, default build/methodology, keeps
# run.py's uncompressed copies).
#
#   KTUNE_HUB_DIR=HUB METH_PYTHON=/tmp/venv/bin/python \
#       bash bench/methodology/prepare_device.sh
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
hub="${KTUNE_HUB_DIR:?set KTUNE_HUB_DIR to a benchmark_hub checkout}"
py="${METH_PYTHON:-python3}"
work="${WORK:-$root/build/methodology}"
cd "$root"
mkdir -p .hub/kernels
cp -r "$hub/kernels/." .hub/kernels/
for app in convolution_milo dedispersion_milo; do
    mkdir -p ".hub/cachefiles/$app"
    for g in A100 A4000 A6000 MI250X W6600 W7800; do
        dst=".hub/cachefiles/$app/$g.json.xz"
        [ -s "$dst" ] && continue
        src="$hub/cachefiles/$app/$g.json"
        if [ -f "$src.gz" ]; then
            gzip -dc "$src.gz" | xz -6 -T1 >"$dst.part"
        else
            xz -6 -T1 -c "$src" >"$dst.part"
        fi
        mv "$dst.part" "$dst"
    done
done
"$py" - "$hub" "$work" <<'PY'
import json, sys
sys.path.insert(0, "bench/methodology")
import run
hub, work = sys.argv[1], sys.argv[2]
b = run.budgets(run.prepare(hub, work), run.files_all())
json.dump({f"{a}/{g}": v for (a, g), v in b.items()},
          open(".hub/budgets.json", "w"), indent=1)
print("budgets:", len(b), "files")
PY
du -sh .hub
