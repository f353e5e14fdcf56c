#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""make_capture.py DIR [DAMAGE]: writes a capture folder (format 1, as
capture/trace/capturer.c writes it) of a vector add c = a + b over n
floats, launched 4 x 256; DAMAGE spoils one thing so the reader's refusal
can be tested. The module image is placeholder bytes: the CPU tests never
load it."""
import json
import os
import struct
import sys

out, damage = sys.argv[1], (sys.argv[2] if len(sys.argv) > 2 else "")
n = 1000
os.makedirs(out, exist_ok=True)
a = struct.pack("<%df" % n, *[float(i) for i in range(n)])
b = struct.pack("<%df" % n, *[2.0 * i for i in range(n)])
c0 = bytes(4 * n)
c1 = struct.pack("<%df" % n, *[3.0 * i for i in range(n)])
base = [0x7F0000000000, 0x7F0000100000, 0x7F0000200000]
args = struct.pack("<QQQi", base[0], base[1], base[2], n) + bytes(4)
blobs = {"module.bin": b"\x7fELF" + bytes(60), "args.bin": args,
         "alloc-0.before": a, "alloc-0.after": a,
         "alloc-1.before": b, "alloc-1.after": b,
         "alloc-2.before": c0, "alloc-2.after": c1}
m = {
    "format": "ktune-capture", "version": 1,
    "kernel": {"mangled": "_Z6vecaddPKfS0_Pfi",
               "demangled": "vecadd(float const*, float const*, float*, int)"},
    "module": {"file": "module.bin", "kind": "cubin", "bytes": 64},
    "device": {"name": "NVIDIA H200", "cc_major": 9, "cc_minor": 0},
    "launch": {"index": 1, "grid": [4, 1, 1], "block": [256, 1, 1],
               "dynamic_smem": 0, "stream": "0x0"},
    "args_file": "args.bin", "args_bytes": 32,
    "params": [{"offset": 0, "size": 8, "pointer": {"allocation": 0, "offset": 0}},
               {"offset": 8, "size": 8, "pointer": {"allocation": 1, "offset": 0}},
               {"offset": 16, "size": 8, "pointer": {"allocation": 2, "offset": 0}},
               {"offset": 24, "size": 4}],
    "allocations": [{"base": "0x%x" % base[k], "bytes": 4 * n,
                     "before": "alloc-%d.before" % k,
                     "after": "alloc-%d.after" % k} for k in range(3)],
}
text = None
if damage == "format":
    m["format"] = "nsys-report"
elif damage == "version":
    m["version"] = 2
elif damage == "no-grid":
    del m["launch"]["grid"]
elif damage == "grid-zero":
    m["launch"]["grid"][1] = 0
elif damage == "truncated":
    blobs["alloc-1.after"] = b[:100]
elif damage == "longer":
    blobs["module.bin"] += b"x"
elif damage == "traversal":
    m["allocations"][0]["before"] = "../../etc/passwd"
elif damage == "overlap":
    m["allocations"][1]["base"] = "0x%x" % (base[0] + 8)
elif damage == "bad-alloc":
    m["params"][1]["pointer"]["allocation"] = 7
elif damage == "past-args":
    m["params"][3]["size"] = 16
elif damage == "out-of-order":
    m["params"][1]["offset"] = 4
elif damage == "address":
    m["allocations"][2]["base"] = 123
elif damage == "json":
    text = "{\"format\": \"ktune-capture\", "
elif damage == "kind":
    m["module"]["kind"] = "elf"
elif damage == "escapes":  # shown names that would drive a terminal
    m["kernel"]["demangled"] = "vecadd\x1b]0;owned\x07\x1b[2J(float*)\u009b31m"
    m["device"]["name"] = "NVIDIA \x1b[31mH200"
elif damage == "mangled-escape":
    m["kernel"]["mangled"] = "_Z6vecadd\x1b[2J"
elif damage == "huge":  # sizes whose sum wraps (sparse blobs: tmpfs)
    for k in range(3):
        m["allocations"][k]["base"] = "0x%x" % (k << 62)
        m["allocations"][k]["bytes"] = (1 << 62) - 1
elif damage == "link":  # a blob that is a link out of the folder
    pass
elif damage:
    sys.exit("unknown damage " + damage)
for name, data in blobs.items():
    path = os.path.join(out, name)
    if damage == "link" and name == "alloc-0.before":
        with open(path + ".outside", "wb") as f:
            f.write(data)
        os.symlink(os.path.abspath(path + ".outside"), path)
        continue
    with open(path, "wb") as f:
        if damage == "huge" and name.startswith("alloc-"):
            f.truncate((1 << 62) - 1)
        else:
            f.write(data)
with open(os.path.join(out, "capture.json"), "w") as f:
    f.write(text if text is not None else json.dumps(m, indent=1))
