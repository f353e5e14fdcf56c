# SPDX-License-Identifier: Apache-2.0
# The dependency rule of docs/hacking.md holds: over #include lines
# (check_layers.sh, which must also catch planted violations) and over what
# the pure test binaries load (arguments: every tuner, report, compare and
# timeline test binary), none of which may load CUPTI or nvperf.
. "$KT_SOURCE_DIR/tests/cli/lib.sh"
check=$KT_SOURCE_DIR/tests/app/check_layers.sh

expect_exit 0 bash "$check" "$KT_SOURCE_DIR"
expect_text "includes follow the dependency rule"

# A copy of the library folders, to plant violations in.
rm -rf planted && mkdir planted
for d in core declared engine isolation metrics records tuner compare report timeline plugins examples bench; do
    cp -r "$KT_SOURCE_DIR/$d" planted/
done
plant() { # plant FILE LINE: appends LINE to planted/FILE, keeps the original
    cp "planted/$1" "planted/$1.orig"
    printf '%s\n' "$2" >>"planted/$1"
}
unplant() { mv "planted/$1.orig" "planted/$1"; }

plant metrics/diagnose.c '#include <cupti.h>'
expect_exit 1 bash "$check" planted
expect_text "metrics/diagnose.c:"
expect_text "includes <cupti.h>: only metrics/cupti/ may use CUPTI or nvperf"
unplant metrics/diagnose.c

plant tuner/tune.c '#include <nvperf_host.h>'
expect_exit 1 bash "$check" planted
expect_text "tuner/tune.c:"
unplant tuner/tune.c

plant compare/compare.c '#include "metrics/cupti/counters.h"'
expect_exit 1 bash "$check" planted
expect_text "compare/compare.c:"
expect_text "only the app links metrics/cupti/"
unplant compare/compare.c

plant tuner/tune.c '#include "app/cli.h"'
expect_exit 1 bash "$check" planted
expect_text "tuner/tune.c:"
expect_text "tuner/ may include only core/ metrics/ records/ tuner/ ktune/"
unplant tuner/tune.c

plant core/stats.c '#include "tuner/job.h"'
expect_exit 1 bash "$check" planted
expect_text "core/stats.c:"
unplant core/stats.c

plant report/plot.c '#include "compare/compare.h"'
expect_exit 1 bash "$check" planted
expect_text "report/plot.c:"
unplant report/plot.c

plant timeline/summary.c '#include <cupti_activity.h>'
expect_exit 1 bash "$check" planted
expect_text "timeline/summary.c:"
unplant timeline/summary.c

plant timeline/trace/tracer.c '#include "core/error.h"'
expect_exit 1 bash "$check" planted
expect_text "timeline/trace/tracer.c:"
unplant timeline/trace/tracer.c

plant plugins/empty/empty.cu '#include "core/error.h"'
expect_exit 1 bash "$check" planted
expect_text "plugins/empty/empty.cu:"
unplant plugins/empty/empty.cu

# The three floors of issue 27: core/ is pure (no CUDA header, no engine/
# or isolation/, no child process), engine/ does not reach up to
# isolation/, and tuner/, compare/ and report/ stand on core/ alone.
plant core/stats.c '#include <cuda_runtime_api.h>'
expect_exit 1 bash "$check" planted
expect_text "core/stats.c:"
expect_text "core/ includes no CUDA header"
unplant core/stats.c

plant core/loader.c '#include "isolation/oracle.h"'
expect_exit 1 bash "$check" planted
expect_text "core/loader.c:"
expect_text "core/ may include only core/ ktune/"
unplant core/loader.c

plant core/loader.c 'static void planted(void) { (void)fork(); }'
expect_exit 1 bash "$check" planted
expect_text "core/loader.c:"
expect_text "outside core/proc.c"
unplant core/loader.c

plant isolation/worker.c 'static void planted(void) { (void)waitpid(1, 0, 0); }'
expect_exit 1 bash "$check" planted
expect_text "isolation/worker.c:"
expect_text "outside core/proc.c"
unplant isolation/worker.c

plant engine/measure.c '#include "isolation/worker.h"'
expect_exit 1 bash "$check" planted
expect_text "engine/measure.c:"
expect_text "engine/ may include only core/ declared/ engine/ ktune/"
unplant engine/measure.c

# The declared floor (beside capture/): its parser reaches neither up to
# engine/ nor to the CUDA runtime, by header or by call.
plant declared/declared.c '#include "engine/nvrtc.h"'
expect_exit 1 bash "$check" planted
expect_text "declared/declared.c:"
expect_text "declared/ may include only core/ declared/ ktune/"
unplant declared/declared.c

plant declared/declared_fill.c '#include <cuda_runtime.h>'
expect_exit 1 bash "$check" planted
expect_text "declared/ includes no CUDA header"
unplant declared/declared_fill.c

plant declared/declared_path.c 'static void planted(void) { (void)cudaDeviceSynchronize(); }'
expect_exit 1 bash "$check" planted
expect_text "declared/declared_path.c:"
expect_text "declared/ calls no CUDA runtime"
unplant declared/declared_path.c

plant tuner/tune.c '#include "engine/measure.h"'
expect_exit 1 bash "$check" planted
expect_text "tuner/tune.c:"
unplant tuner/tune.c

plant compare/compare.c '#include "isolation/worker.h"'
expect_exit 1 bash "$check" planted
expect_text "compare/compare.c:"
unplant compare/compare.c

plant report/plot.c '#include <nvrtc.h>'
expect_exit 1 bash "$check" planted
expect_text "report/plot.c:"
expect_text "report/ includes no CUDA header"
unplant report/plot.c

# The records floor (issue 49) is below the tuner, compare and report: it
# reaches up to none of them, and it includes no CUDA header.
plant records/journal.c '#include "tuner/tune.h"'
expect_exit 1 bash "$check" planted
expect_text "records/journal.c:"
expect_text "records/ may include only core/ metrics/ records/ ktune/"
unplant records/journal.c

plant records/ktcache.c '#include "report/sources.h"'
expect_exit 1 bash "$check" planted
expect_text "records/ktcache.c:"
unplant records/ktcache.c

plant records/replay.c '#include <cuda_runtime_api.h>'
expect_exit 1 bash "$check" planted
expect_text "records/replay.c:"
expect_text "records/ includes no CUDA header"
unplant records/replay.c

# Clean again once every plant is gone.
expect_exit 0 bash "$check" planted
rm -rf planted

# ldd: the pure test binaries load no CUPTI and no nvperf.
[ $# -gt 0 ] || { echo "FAIL: no test binaries given"; failures=$((failures + 1)); }
if command -v ldd >/dev/null; then
    for bin in "$@"; do
        loaded=$(ldd "$bin" 2>&1 | grep -iE 'libcupti|libnvperf')
        [ -z "$loaded" ] || {
            echo "FAIL: $(basename "$bin") loads CUPTI or nvperf:"
            echo "$loaded" | sed 's/^/    /'
            failures=$((failures + 1))
        }
    done
    echo "ldd: $# pure test binaries checked"
else
    echo "no ldd: the binaries are not checked"
fi
finish
