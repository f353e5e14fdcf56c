#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The results files tests/data/diff/ holds for `ktune diff`'s tests, made
from the H200 recording of vector_add at n = 2^28 in replay (no GPU):

  a.tune.json        ktune tune configs/vector_add.ini --replay REC --json
  a.compare.json     ktune compare vector_add:add --from REC --replay REC
  b-tie.tune.json    a, every sample 0.5% slower (within the 2% threshold)
  b-slower.tune.json a, the answer's samples 5% slower (a regression)
  b-faster.tune.json a, the answer's samples 5% faster (an improvement)
  b-slower.compare.json  a.compare.json, the vec4 row's samples 5% slower
  b-env.tune.json    a on "another GPU": device name, driver and SM clock,
                     and the protocol's cache mode changed

Paths of the machine that made them are replaced by relative ones.

usage: gen_diff_fixtures.py KTUNE SOURCE_DIR
"""
import copy
import json
import os
import subprocess
import sys
import tempfile


def sanitize(doc):
    env = doc.get("environment", {})
    if "plugin" in env:
        env["plugin"]["path"] = "plugins/vector_add.so"
    if "host" in env:
        env["host"]["command_line"] = "ktune (see tools/gen_diff_fixtures.py)"
    for key in ("replay",):
        if isinstance(doc.get(key), dict) and "recording" in doc[key]:
            doc[key]["recording"] = "tests/data/vector_add-h200-n268435456.jsonl"
    for src in doc.get("sources", []):
        src["path"] = "tests/data/vector_add-h200-n268435456.jsonl"
    if "command" in doc:
        doc["command"] = "ktune compare (see tools/gen_diff_fixtures.py)"
    doc.pop("trace", None)
    return doc


def scaled(doc, factor, only=None):
    out = copy.deepcopy(doc)
    for entry in out["top"] + [out["best"]]:
        if only and entry["config"] != only:
            continue
        for k in ("median_us", "ci_lo_us", "ci_hi_us"):
            entry[k] *= factor
        if "samples_us" in entry:
            entry["samples_us"] = [x * factor for x in entry["samples_us"]]
    return out


def scaled_compare(doc, factor, variant):
    out = copy.deepcopy(doc)
    for row in out["variants"]:
        if row["variant"] != variant or row["status"] != "ok":
            continue
        for k in ("median_us", "ci_lo_us", "ci_hi_us"):
            row["stats"][k] *= factor
        row["timing"]["samples_us"] = [
            None if x is None else x * factor
            for x in row["timing"]["samples_us"]]
    return out


def main():
    ktune, src = sys.argv[1], sys.argv[2]
    rec = os.path.join(src, "tests/data/vector_add-h200-n268435456.jsonl")
    out_dir = os.path.join(src, "tests/data/diff")
    os.makedirs(out_dir, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        t, c = os.path.join(tmp, "t.json"), os.path.join(tmp, "c.json")
        subprocess.run([ktune, "tune", os.path.join(src, "configs/vector_add.ini"),
                        "--replay", rec, "--quiet", "--json", t], check=True)
        subprocess.run([ktune, "compare", "vector_add:add", "--from", rec,
                        "--replay", rec, "--json", c], check=True,
                       stdout=subprocess.DEVNULL)
        a = sanitize(json.load(open(t)))
        comp = sanitize(json.load(open(c)))
    best = a["best"]["config"]
    env = copy.deepcopy(a)
    dev = env["environment"]["device"]
    dev["name"], dev["driver_version"], dev["sm_clock_mhz"] = (
        "NVIDIA H100 80GB HBM3", 12040, 1755.0)
    env["device"] = dev["name"]
    env["protocol"]["cache"] = "hot"
    if "protocol" in env["environment"]:
        env["environment"]["protocol"]["cache"] = "hot"
    files = {"a.tune.json": a, "a.compare.json": comp,
             "b-tie.tune.json": scaled(a, 1.005),
             "b-slower.tune.json": scaled(a, 1.05, best),
             "b-faster.tune.json": scaled(a, 0.95, best),
             "b-slower.compare.json": scaled_compare(comp, 1.05, "vec4"),
             "b-env.tune.json": env}
    for name, doc in files.items():
        with open(os.path.join(out_dir, name), "w") as f:
            json.dump(doc, f, indent=1)
            f.write("\n")


if __name__ == "__main__":
    main()
