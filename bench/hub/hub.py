# SPDX-License-Identifier: Apache-2.0
"""What the hub benchmarks share: the four benchmark-hub kernels (their
declarations, hub scripts, T1 files, objectives), how a ktune journal and
a ktune JSON summary are read, and how a point is written. Used by
run_h200.py (the GPU run), kt_hub.py (Kernel Tuner), neutral.py (the
neutral harness) and results.py (the results page); no GPU, numpy only
where a caller needs it.

The kernels' files stay in the hub's checkout (KTUNE_HUB_DIR); nothing of
theirs is copied here."""
import gzip
import json
import math
import os
import re

# The four kernels of AutoTuningAssociation/benchmark_hub, by the key the
# benchmarks use. hub_script: the hub's Kernel Tuner script (relative to
# KTUNE_HUB_DIR) and how its tune() is called; t1: its T1 file; feasible:
# the T1 space's size after its conditions (issue 28); record: "whole" (the
# whole space is recorded) or "sample" (a uniform random sample of
# `sample_points`); work: the objective's work per launch (None: time is the
# objective); per_tf: the work scales with this parameter (hotspot's
# temporal tiling: GFLOP/s is the objective, not time).
KERNELS = {
    "convolution": {
        "match": ["convolution_milo", "convolution"],
        "hub_script": "kernels/convolution_milo.py",
        "t1": "kernels/convolution_milo.json",
        "call": "device",
        "feasible": 4362,
        "record": "whole",
        "sample_points": 4362,
        "unit": "GFLOP/s",
        "work": 4096 * 4096 * 15 * 15 * 2 / 1e9,
        "per_tf": None,
        "compile_bound": True,
    },
    "dedispersion": {
        "match": ["dedisp_milo", "dedispersion", "dedisp"],
        "hub_script": "kernels/dedisp_milo/dedispersion_milo.py",
        "t1": "kernels/dedispersion_milo.json",
        "call": "device",
        "feasible": 11130,
        "record": "sample",
        "sample_points": 5000,
        "unit": "GB/s",
        "work": 2048 * 25000 * 1536 / 1e9,
        "per_tf": None,
        "compile_bound": False,
    },
    "gemm": {
        "match": ["gemm_milo", "gemm"],
        "hub_script": "kernels/gemm_milo.py",
        "t1": "kernels/gemm_milo.json",
        "call": "inputs",
        "feasible": 116928,
        "record": "sample",
        "sample_points": 5000,
        "unit": "GFLOP/s",
        "work": (4096**3 * 2 + 2 * 4096 * 4096) / 1e9,
        "per_tf": None,
        "compile_bound": True,
    },
    "hotspot": {
        "match": ["hotspot_milo", "hotspot"],
        "hub_script": "kernels/hotspot_milo.py",
        "t1": "kernels/hotspot_milo.json",
        "call": "device",
        "feasible": 82984,
        "record": "sample",
        "sample_points": 5000,
        "unit": "GFLOP/s",
        "work": 15 * 4096 * 4096 / 1e9,
        "per_tf": "temporal_tiling_factor",
        "compile_bound": True,
    },
}
ORDER = ["convolution", "dedispersion", "gemm", "hotspot"]


def classify(ini_path):
    """The hub kernel a declaration declares (by the hub file its source
    names, else by its file name), or None for another kernel (BAT's)."""
    try:
        with open(ini_path) as f:
            text = f.read()
    except OSError:
        text = ""
    base = os.path.basename(ini_path).lower()
    if "bat" in base.split("_")[0] or "KTUNE_BAT_DIR" in text:
        return None
    for key in ORDER:
        if KERNELS[key]["match"][0] in text:
            return key
    for key in ORDER:
        if any(base.startswith(m) for m in KERNELS[key]["match"]):
            return key
    return None


def discover(folder, only=None):
    """Declarations (*.ini) in folder (examples/hub): [(name, path, hub key
    or None)], sorted with the hub's four first. only: a set of names/keys
    to keep (None: all)."""
    out = []
    try:
        names = sorted(n for n in os.listdir(folder) if n.endswith(".ini"))
    except OSError:
        names = []
    for n in names:
        path = os.path.join(folder, n)
        key = classify(path)
        name = key if key else os.path.splitext(n)[0]
        if only and name not in only and os.path.splitext(n)[0] not in only:
            continue
        out.append((name, path, key))
    rank = {k: i for i, k in enumerate(ORDER)}
    out.sort(key=lambda t: (rank.get(t[2], len(ORDER)), t[0]))
    return out


def open_text(path):
    return gzip.open(path, "rt") if path.endswith(".gz") else open(path)


def read_journal(path):
    """A ktune journal (plain or gzip): (header, evals, runs). evals are
    the eval records in file order; a torn last line is skipped."""
    header, evals, runs = None, [], []
    with open_text(path) as f:
        for line in f:
            line = line.strip()
            if not line:
                continue
            try:
                r = json.loads(line)
            except ValueError:
                continue
            kind = r.get("kind")
            if header is None and kind not in ("eval", "run"):
                header = r
            if kind == "eval":
                evals.append(r)
            elif kind == "run":
                runs.append(r)
    return header or {}, evals, runs


def point_key(point):
    """A point as a hashable key: (variant, sorted params)."""
    params = point.get("params") or {}
    return (point.get("variant"), tuple(sorted(params.items())))


def ok_median_us(rec):
    """The kernel median of an eval record that verified and was timed."""
    if rec.get("status") != "ok":
        return None
    try:
        v = float(rec["timing"]["kernel"]["median"])
    except (KeyError, TypeError, ValueError):
        return None
    return v if v > 0 and math.isfinite(v) else None


def score(key, params, time_us):
    """Lower is better: time for most kernels, time per unit of work where
    the work is a parameter (hotspot's temporal tiling)."""
    if time_us is None:
        return None
    per = (KERNELS.get(key) or {}).get("per_tf")
    if per and per in params:
        return time_us / float(params[per])
    return time_us


def objective(key, params, time_us):
    """The hub's objective (GFLOP/s or GB/s) of a time in microseconds."""
    k = KERNELS.get(key)
    if not k or time_us is None or time_us <= 0:
        return None
    work = k["work"]
    if k["per_tf"] and k["per_tf"] in params:
        work *= float(params[k["per_tf"]])
    return work / (time_us * 1e-6)


def unique_points(evals):
    """The distinct points of a journal in first-visit order, each with its
    best (lowest) verified median, and its elapsed_s when first seen."""
    seen = {}
    order = []
    for r in evals:
        pt = r.get("point") or {}
        k = point_key(pt)
        med = ok_median_us(r)
        if k not in seen:
            seen[k] = {"point": pt, "median_us": med,
                       "elapsed_s": r.get("elapsed_s"),
                       "status": r.get("status")}
            order.append(k)
        elif med is not None and (seen[k]["median_us"] is None or
                                  med < seen[k]["median_us"]):
            seen[k]["median_us"] = med
            seen[k]["status"] = "ok"
    return [seen[k] for k in order]


def best_of(key, points):
    """The point of lowest score among unique_points() entries, or None."""
    best = None
    for p in points:
        s = score(key, p["point"].get("params") or {}, p["median_us"])
        if s is not None and (best is None or s < best[0]):
            best = (s, p)
    return best[1] if best else None


def find_key(obj, names):
    """The first value found under any of `names`, depth first through
    dicts: how fields that other branches add are read without knowing
    where they sit. Returns (path, value) or (None, None)."""
    stack = [("", obj)]
    while stack:
        path, o = stack.pop(0)
        if isinstance(o, dict):
            for k, v in o.items():
                if k in names and isinstance(v, (int, float)) and not isinstance(v, bool):
                    return (path + k, v)
            for k, v in o.items():
                if isinstance(v, dict):
                    stack.append((path + k + ".", v))
    return (None, None)


def load_json(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def summary_facts(s):
    """What the results need from a ktune JSON summary, read defensively:
    a missing field is None, never an exception."""
    if not isinstance(s, dict):
        return None
    ov = s.get("overhead") or {}
    ph = s.get("phases") or {}
    comp = s.get("compilation") or {}
    wall = ov.get("wall_s") or s.get("elapsed_s")
    best = s.get("best") or None
    fresh = (s.get("evaluations") or 0) - (s.get("from_journal") or 0)
    facts = {
        "spec": s.get("spec"),
        "strategy": (s.get("strategy") or {}).get("name"),
        "evaluations": s.get("evaluations"),
        "fresh_evaluations": fresh,
        "feasible": s.get("feasible"),
        "wall_s": wall,
        "evals_per_s": (fresh / wall) if wall and fresh else None,
        "compile_s": comp.get("seconds"),
        "compiled": comp.get("compiled"),
        "compile_failed": comp.get("failed"),
        "gpu_s": ov.get("gpu_s"),
        "sampling_s": ph.get("sampling_s"),
        "best": best,
        "stop_reason": s.get("stop_reason"),
        "device": s.get("device"),
    }
    # The compile pool's figures (branch `pool`) under whatever names it
    # gives them; each one found says where.
    # (branch pool, 2026-12-01: compilation.threads, wall_s (the pool's busy
    # wall time), cpu_s, gpu_wait_s, gpu_idle_fraction)
    for field, names in (
            ("gpu_idle_fraction", ("gpu_idle_fraction", "gpu_idle",
                                   "idle_fraction")),
            ("compile_wall_s", ("wall_s", "compile_wall_s", "busy_s")),
            ("compile_cpu_s", ("cpu_s", "compile_cpu_s")),
            ("gpu_wait_s", ("gpu_wait_s", "compile_wait_s", "wait_s")),
            ("measure_s", ("measure_s", "measurement_s", "measuring_s")),
            ("compile_workers", ("threads", "workers", "compile_threads",
                                 "jobs"))):
        where, v = find_key(s.get("compilation") or s.get("compile") or {},
                            names)
        if where is None and field == "gpu_idle_fraction":  # a distinctive name
            where, v = find_key(s, names[:1])
        facts[field] = v
        facts[field + "_from"] = where
    if facts["gpu_idle_fraction"] is None and wall:
        # Stated fallback: the GPU counted busy only while sampling (the
        # evaluator's timed launches with their flushes and probes).
        busy = (ph.get("warmup_s") or 0) + (ph.get("sampling_s") or 0)
        if busy:
            facts["gpu_idle_fraction"] = max(0.0, 1 - busy / wall)
            facts["gpu_idle_fraction_from"] = \
                "estimate: 1 - (warmup_s + sampling_s) / wall_s"
    # Compile against measurement: the pool's busy wall time where it gives
    # one (compiles overlap each other and the measurements), else the
    # summed compile seconds; measurement is warm-up plus sampling.
    compile_wall = facts["compile_wall_s"] if facts["compile_wall_s"] is not None \
        else facts["compile_s"]
    facts["measure_s"] = facts["measure_s"] if facts["measure_s"] is not None else (
        (ph.get("warmup_s") or 0) + (ph.get("sampling_s") or 0) or None)
    facts["compile_share"] = compile_wall / wall if wall and compile_wall is not None else None
    return facts


def config_str(params):
    return " ".join(f"{k}={v}" for k, v in params.items())


def set_args(params):
    """--set NAME=VALUE for each parameter, as ktune profile/bench take
    them."""
    out = []
    for k, v in params.items():
        out += ["--set", f"{k}={v}"]
    return out


def parse_check(text):
    """The feasible count `ktune tune --check` prints: after constraints
    when it says so, else the Cartesian size; (count, which)."""
    for pat, which in ((r"([\d,]+)\s+(?:point\(s\)\s+)?(?:feasible|after)",
                        "after constraints"),
                       (r"space\s+([\d,]+)\s+point", "before constraints")):
        m = re.search(pat, text)
        if m:
            return int(m.group(1).replace(",", "")), which
    return None, None


def t1_values(hub_dir, key):
    """The T1 file's parameters: name -> list of values (its Python-like
    value lists evaluated with range and list only)."""
    with open(os.path.join(hub_dir, KERNELS[key]["t1"])) as f:
        t1 = json.load(f)
    out = {}
    for p in t1["ConfigurationSpace"]["TuningParameters"]:
        v = p["Values"]
        if isinstance(v, str):
            v = eval(v, {"__builtins__": {}},  # noqa: S307 -- T1's own syntax
                     {"range": range, "list": list})
        out[p["Name"]] = list(v)
    return out, [c["Expression"] for c in
                 t1["ConfigurationSpace"].get("Conditions", [])]


def t1_space(hub_dir, key):
    """Every point of the T1 space that meets its conditions (Python
    syntax), in Cartesian order, as dicts. For the small spaces (tests and
    samples): gemm's and hotspot's Cartesian products are large."""
    import itertools

    values, conds = t1_values(hub_dir, key)
    code = [compile(c, "<t1>", "eval") for c in conds]
    names = list(values)
    out = []
    for combo in itertools.product(*values.values()):
        p = dict(zip(names, combo))
        if all(eval(c, {"__builtins__": {}}, p) for c in code):  # noqa: S307
            out.append(p)
    return out


def split_sample(src, meta, out):
    """A merged recording's sample part (merge_journals' base) written
    plainly to out, ready to resume: every line up to the record that
    completes its sidecar's recorded_sample distinct points (the live
    default's records were appended after them). Without that count, the
    whole file. Returns the eval records kept."""
    want = meta.get("recorded_sample")
    seen, kept = set(), 0
    with open_text(src) as f, open(out, "w") as g:
        for line in f:
            if want is not None and len(seen) >= want:
                break
            try:
                r = json.loads(line)
            except ValueError:
                continue  # a torn line
            if r.get("kind") == "eval":
                seen.add(point_key(r.get("point") or {}))
                kept += 1
            g.write(line if line.endswith("\n") else line + "\n")
    return kept


def merge_journals(base, extras, out):
    """A recording for replay: the journal `base` (its header, records and
    calls as they are) followed by the eval records of the `extras` (the
    live default runs' journals: the points the strategies visited), their
    calls numbered on after base's last, under base's first environment
    (the same device and protocol: the extras are runs of the same
    declaration), and under base's run id. Written gzip-compressed when out ends in .gz. Returns
    (base evals, extra evals appended, distinct points in all)."""
    lines, last_call, seen, run_id = [], 0, set(), None
    with open_text(base) as f:
        for line in f:
            line = line.rstrip("\n")
            try:
                r = json.loads(line)
            except ValueError:
                continue  # a torn last line
            if r.get("kind") == "ktune.journal":
                run_id = r.get("run")
            if r.get("kind") == "eval":
                last_call = max(last_call, int(r.get("call") or 0))
                seen.add(point_key(r.get("point") or {}))
            lines.append(line)
    n_base, n_extra, offset = sum('"kind":"eval"' in ln or '"kind": "eval"' in ln
                                  for ln in lines), 0, last_call
    for path in extras:
        _, evals, _ = read_journal(path)
        calls = {}
        for r in evals:
            r = dict(r)
            calls.setdefault(r.get("call"), len(calls) + 1)
            r["call"] = offset + calls[r.get("call")]
            r["env"] = 0
            # One recording: its records are the base run's (ktune refuses
            # records of another run spliced into a journal).
            r.pop("run", None)
            if run_id is not None:
                r["run"] = run_id
            seen.add(point_key(r.get("point") or {}))
            lines.append(json.dumps(r, separators=(",", ":")))
            n_extra += 1
        offset += len(calls)
    data = ("\n".join(lines) + "\n").encode()
    if out.endswith(".gz"):
        with gzip.open(out, "wb", 9) as g:
            g.write(data)
    else:
        with open(out, "wb") as f:
            f.write(data)
    return n_base, n_extra, len(seen)
