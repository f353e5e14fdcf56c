# SPDX-License-Identifier: Apache-2.0
# The diagnosis against kernels whose truth is known by construction
# (tests/fixtures/diag_corpus.cu): for each, `ktune profile` must name the
# bound and judge loads and stores as the kernel's source says. Counts that
# follow from the source exactly are asserted too. About 20 s on an H200.
. "$KT_SOURCE_DIR/tests/cli/lib.sh"

"$KT_HAS_GPU" || { echo "no CUDA device: skipped"; exit 77; }
CORPUS=$KT_FIXTURES/diag_corpus.so

# name operator variant bounds(|) loads stores [excess-of-the-uncoalesced]
# bounds: memory-dram, memory (any unit), compute, latency, none.
cases=(
  "float1 stream float1 memory-dram c c"
  "float2 stream float2 memory-dram c c"
  "float4 stream float4 memory-dram c c"
  "stride2 stream stride2 memory u c 2"
  "stride8 stream stride8 memory u c 8"
  "stride32 stream stride32 memory u c 8"
  "low_occupancy stream low_occupancy latency c c"
  "reread reread reread memory-dram c c"
  "smem transpose smem memory|none c c"
  "naive transpose naive memory|none c u 8"
  "fma fma fma compute c c"
  "chase chase chase latency c c"
)
for c in "${cases[@]}"; do
  set -- $c
  name=$1 op=$2 variant=$3
  expect_exit 0 "$KTUNE" profile --plugin "$CORPUS" "diag_corpus:$op" \
      --variant "$variant" --no-boundaries --min-time 0.02 \
      --json "$name.json"
  if grep -q "counters    none" <<<"$out"; then
    echo "counters unavailable here: skipped"
    echo "$out"
    exit 77
  fi
  echo "$out" | grep -E "^(diagnosis|coalescing) "
  python3 - "$name.json" "$@" <<'PY' || failures=$((failures + 1))
import json, sys
path, name, op, variant, bounds, ld, st = sys.argv[1:8]
excess = float(sys.argv[8]) if len(sys.argv) > 8 else None
d = json.load(open(path))["diagnosis"]
co = d["coalescing"]
short = {"memory-bound": "memory", "compute-bound": "compute",
         "latency-bound": "latency", "no single bottleneck": "none"}
got = short.get(d["bound"], d["bound"])
accepted = bounds.split("|")
ok = got in accepted or (got == "memory" and d["unit"] == "DRAM"
                         and "memory-dram" in accepted)
problems = []
if not ok:
    problems.append("bound %s (%s), expected %s: %s" %
                    (d["bound"], d["unit"], bounds, d["why"]))
for side, want in (("loads", ld), ("stores", st)):
    c = co[side]
    if c is None or c.get("ideal") is None:
        problems.append("%s: no verdict (%s)" % (side, co["text"]))
        continue
    if c["uncoalesced"] != (want == "u"):
        problems.append("%s: uncoalesced=%s, expected %s" %
                        (side, c["uncoalesced"], want))
    if want == "u" and excess is not None and abs(c["excess"] - excess) > 0.3:
        problems.append("%s: %.2fx the sectors needed, expected %.0fx" %
                        (side, c["excess"], excess))
if problems:
    print("FAIL %s: %s" % (name, "; ".join(problems)))
    sys.exit(1)
print("ok %s: %s%s, loads %.2fx, stores %.2fx" %
      (name, d["bound"], " (%s)" % d["unit"] if d["unit"] else "",
       co["loads"]["excess"], co["stores"]["excess"]))
PY
done
finish
