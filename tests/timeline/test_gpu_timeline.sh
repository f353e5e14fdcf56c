# SPDX-License-Identifier: Apache-2.0
# ktune timeline on a GPU: the test program's timeline holds every copy,
# memset and kernel it issued, per stream in issue order, with the right
# bytes and launch shapes; kernel times agree with the program's own CUDA
# event timings within 5%; the 20 ms host sleep is found as the largest
# gap. A crash keeps what was recorded and passes the signal on. ktune
# traced by ktune works (ktune bench vector_add:add).
. "$KT_SOURCE_DIR/tests/cli/lib.sh"

"$KT_HAS_GPU" || { echo "no CUDA device: skipped"; exit 77; }
P=$KT_TIMELINE_PROG

expect_exit 0 "$KTUNE" timeline --json prog.json --csv prog.csv -- "$P" \
    --expect expect.txt
echo "$out"
for text in "CUDA runtime API summary" "GPU kernel summary" \
    "GPU memory operations by size" "Kernels in launch order" \
    "GPU idle time" "Reading" "do not add them"; do
    expect_text "$text"
done
python3 - <<'PY' || failures=$((failures + 1))
import json
t = json.load(open("prog.json"))
ops = t["ops"]
exp = [l.split() for l in open("expect.txt")]
# The program's streams: those of its two copies in (16 and 8 MiB).
copies = [e for e in exp if e[0] == "copy" and e[1] == "HtoD"]
stream = {}
for e in copies[:2]:
    stream[int(e[3])] = next(o["stream"] for o in ops if o["kind"] == "memcpy"
                             and o["copy"] == "Host-to-Device"
                             and o["bytes"] == int(e[2]))
assert len(set(stream.values())) == 2, stream
extra = [o for o in ops if o["stream"] not in stream.values()]
if extra:
    print("operations on other streams (not the program's):", extra[:5])
def key(o):
    if o["kind"] == "kernel":
        return ("kernel", o["name"].split("(")[0], o["grid"][0], o["block"][0],
                o["dynamic_shared"])
    if o["kind"] == "memcpy":
        return ("copy", {"Host-to-Device": "HtoD",
                         "Device-to-Host": "DtoH"}[o["copy"]], o["bytes"])
    return ("memset", o["bytes"])
for idx, sid in stream.items():
    want = []
    for e in exp:
        if e[0] == "copy" and int(e[3]) == idx:
            want.append(("copy", e[1], int(e[2])))
        elif e[0] == "memset" and int(e[2]) == idx:
            want.append(("memset", int(e[1])))
        elif e[0] in ("kernel", "warmup") and int(e[5]) == idx:
            want.append(("kernel", e[1], int(e[2]), int(e[3]), int(e[4])))
    got = [key(o) for o in ops if o["stream"] == sid]
    assert got == want, ("stream %d" % idx, got, want)
kernels = [o for o in ops if o["kind"] == "kernel"
           and not o["name"].startswith("k_warmup")]
order = [k["name"].split("(")[0] for k in kernels]
assert order == ["k_scale", "k_offset", "k_combine", "k_square"], order
for a, b in zip(kernels, kernels[1:]):
    assert a["end_ns"] <= b["start_ns"], ("overlap", a["name"], b["name"])
events = {e[1]: float(e[6]) * 1e6 for e in exp if e[0] == "kernel"}
tot_ev = tot_tl = 0
for k in kernels:
    name = k["name"].split("(")[0]
    d = k["end_ns"] - k["start_ns"]
    ev = events[name]
    print("%-10s timeline %9.1f us  events %9.1f us  %+.2f%%" %
          (name, d / 1e3, ev / 1e3, 100 * (d - ev) / ev))
    assert abs(d - ev) <= 0.05 * ev, (name, d, ev)
    tot_ev += ev
    tot_tl += d
assert abs(tot_tl - tot_ev) <= 0.05 * tot_ev, (tot_tl, tot_ev)
gap = t["gpu"]["largest_gaps"][0]
assert gap["length_ns"] >= 19e6, gap
assert gap["before"].startswith("k_offset") and gap["after"].startswith("k_combine"), gap
assert t["wall_ns"] > 0 and t["wall_measured"], t["wall_ns"]
print("timeline ok: kernels %.1f us (events %.1f us), gap %.2f ms, wall %.1f ms"
      % (tot_tl / 1e3, tot_ev / 1e3, gap["length_ns"] / 1e6, t["wall_ns"] / 1e6))
PY

# A crash after the kernels: they are shown; the status is the signal's.
expect_exit 139 "$KTUNE" timeline --json crash.json -- "$P" --crash \
    --expect crash-expect.txt
expect_text "ended by signal 11"
expect_text "k_square"
python3 - <<'PY' || failures=$((failures + 1))
import json
t = json.load(open("crash.json"))
names = [o["name"].split("(")[0] for o in t["ops"] if o["kind"] == "kernel"]
assert names == ["k_warmup"] * 2 + ["k_scale", "k_offset", "k_combine",
                                    "k_square"], names
assert t["exit"]["signal"] == 11, t["exit"]
print("crash ok:", t["processes"][0]["ended"])
PY

# ktune traced by ktune.
expect_exit 0 "$KTUNE" timeline --json bench.json -- "$KTUNE" bench \
    vector_add:add
expect_text "GPU kernel summary"
expect_text "add_coalesced"
python3 - <<'PY' || failures=$((failures + 1))
import json
t = json.load(open("bench.json"))
k = [o for o in t["ops"] if o["kind"] == "kernel" and "add_coalesced" in o["name"]]
assert len(k) >= 10, len(k)
print("bench ok: %d add_coalesced launches in %d processes"
      % (len(k), len(t["processes"])))
PY
finish
