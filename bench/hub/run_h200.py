#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The benchmark-hub kernels on the H200, ktune and Kernel Tuner 1.5.0 in
one run (issue 28, parts 4-5). run_h200.sh is the entry point (it installs
Kernel Tuner's wheels first); see its header for what is measured.

Steps, in priority order; each is time-bounded by what is left of
--deadline and skipped (reported, not done) when too little is left, so
`--resume DIR` in a later call runs what is missing and continues the
recordings' journals (--seed-from tests/data starts them from the
recordings committed there, on the GPU they were made on):

  check:K         ktune tune DECL --check, from a folder of its own
  record:convolution  the whole space: random strategy seed 1 (a uniform
                  permutation), every feasible point, --sweep-s budget
  kt_points:convolution  Kernel Tuner on the first --kt-points points of
                  that journal (the same points), capped at --kt-points-s
  default:K       ktune's default strategy (one_at_a_time), --default-s
  kt_strategy:K   Kernel Tuner's --kt-strategy, time_limit --default-s
  record:gemm, record:dedispersion  a first part of their samples
  kt_points:gemm, kt_points:dedispersion  Kernel Tuner on those points
  screen:K        ktune on the same first points under a screening
                  measurement ([measure] screen_samples=--screen-samples:
                  the search's calls stop after that many samples, the
                  finalists take the full protocol), beside kt_points:K
  neutral         every winner re-timed by the neutral harness
  profile:K       ktune profile on each tool's winner
  ncu             Nsight Compute's speed of light on ktune's winners as
                  the neutral step of the same call built them
  default:B       the other declarations (BAT's): check, default, profile
  record:K        the samples (>= 5,000 points each) with the time left

A step whose piece is missing (no declaration, a failed --check, no
Kernel Tuner, no hub checkout) is recorded with the reason and skipped.
Everything goes under --out: logs/, rec/ (journals, summaries), default/,
kt/, neutral.json, profile/, state.json (what ran, for --resume and
results.py) and results.md with its table last.
"""
import argparse
import atexit
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import hub  # noqa: E402


class Run:
    def __init__(self, a):
        self.a = a
        self.t0 = time.time()
        self.out = os.path.abspath(a.out)
        for d in ("logs", "rec", "default", "kt", "profile"):
            os.makedirs(os.path.join(self.out, d), exist_ok=True)
        self.state_path = os.path.join(self.out, "state.json")
        self.state = hub.load_json(self.state_path) or {"steps": {}, "sessions": []}
        self.session = {"start": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                        "argv": sys.argv[1:], "dry_run": a.dry_run, "ran": [],
                        "commit": git_commit()}
        self.state["sessions"].append(self.session)
        self.lock = threading.RLock()  # --kt-device: two threads
        self.env = dict(os.environ)
        # NVRTC (12.9+) caches compiles in the driver's compute cache,
        # shared by every process: Kernel Tuner's (CuPy's NVRTC) and any
        # ktune older than its -no-cache would reuse an earlier step's
        # kernels and report a compile of milliseconds. Off for both tools.
        self.env["CUDA_CACHE_DISABLE"] = "1"
        self.session["cuda_cache_disable"] = True  # per call: a resumed folder's may lack it
        if a.hub:
            self.env["KTUNE_HUB_DIR"] = a.hub
        if a.bat:
            self.env["KTUNE_BAT_DIR"] = a.bat

    def left(self):
        return self.a.deadline - (time.time() - self.t0)

    def log(self, msg):
        print(f"[{time.time() - self.t0:6.1f}s] {msg}", flush=True)

    def save(self):
        with self.lock:
            tmp = self.state_path + ".tmp"
            with open(tmp, "w") as f:
                json.dump(self.state, f, indent=1, default=str)
            os.replace(tmp, self.state_path)

    def rel(self, path):
        return os.path.relpath(path, self.out)

    def cmd(self, name, argv, timeout, env=None, cwd=None):
        """Runs argv with its output in logs/NAME.log; returns a record."""
        logf = os.path.join(self.out, "logs", name.replace(":", "-") + ".log")
        t = time.time()
        rec = {"cmd": " ".join(argv), "log": self.rel(logf)}
        try:
            with open(logf, "w") as f:
                p = subprocess.run(argv, stdout=f, stderr=subprocess.STDOUT,
                                   timeout=max(1, timeout), env=env or self.env,
                                   cwd=cwd or ROOT)
            rec["rc"] = p.returncode
        except subprocess.TimeoutExpired:
            rec["rc"], rec["timed_out"] = 124, True
        except OSError as e:
            rec["rc"], rec["error"] = 127, repr(e)
        rec["wall_s"] = time.time() - t
        with open(logf, errors="replace") as f:
            text = f.read()
        rec["tail"] = text[-600:]
        return rec, text

    def step(self, name, need_s, fn, resumable=False):
        """Runs fn() -> record unless done (and not resumable) or too
        little time is left; records the outcome in state.json."""
        old = self.state["steps"].get(name)
        if old and old.get("done"):
            return old
        if self.a.steps and not any(name == s or name.startswith(s + ":")
                                    for s in self.a.steps):
            return old
        if self.left() < need_s:
            rec = dict(old or {})
            rec.update(skipped=f"no time left: needs {need_s:.0f} s, "
                       f"{max(0, self.left()):.0f} s left", done=bool(old and old.get("done")))
            with self.lock:
                self.state["steps"][name] = rec
                self.save()
            self.log(f"{name}: skipped ({rec['skipped']})")
            return rec
        self.log(f"{name}: start ({self.left():.0f} s left)")
        t = time.time()
        try:
            rec = fn()
        except Exception as e:  # noqa: BLE001 -- a broken step is reported
            rec = {"error": f"{type(e).__name__}: {e}", "done": False}
        rec["step_s"] = time.time() - t
        rec.setdefault("done", True)
        if old and resumable:
            rec["sessions"] = (old.get("sessions") or 1) + 1
        with self.lock:
            self.state["steps"][name] = rec
            self.session["ran"].append(name)
            self.save()
        self.log(f"{name}: {rec.get('summary') or rec.get('error') or rec.get('skipped') or 'done'}")
        return rec

    def fresh_cache(self):
        """An empty folder, removed when the program ends."""
        d = tempfile.mkdtemp(prefix="ktune-cache-")
        atexit.register(shutil.rmtree, d, True)
        return d

    def budget(self, nominal):
        return nominal * (self.a.dry_scale if self.a.dry_run else 1.0)


# ------------------------------------------------------------------ ktune

def ktune_env(run):
    env = dict(run.env)
    env["KTUNE_CACHE_DIR"] = run.fresh_cache()  # every timed run compiles afresh
    return env


def do_check(run, name, decl):
    with tempfile.TemporaryDirectory(prefix="hub-check-") as where:  # "from any folder"
        rec, text = run.cmd(f"check:{name}", [run.a.ktune, "tune", decl, "--check"],
                            120, env=ktune_env(run), cwd=where)
    count, which = hub.parse_check(text)
    rec.update(count=count, count_is=which, ok=rec["rc"] == 0, done=rec["rc"] == 0)
    key = hub.classify(decl)
    if key and count is not None:
        rec["t1_feasible"] = hub.KERNELS[key]["feasible"]
        rec["matches_t1"] = count == hub.KERNELS[key]["feasible"]
    rec["summary"] = (f"exit {rec['rc']}, {count} points ({which})" if count is not None
                      else f"exit {rec['rc']}: {text.strip().splitlines()[-1] if text.strip() else ''}")
    return rec


def journal_facts(path):
    """A journal's clock at its end and the screen it was started with
    (its header's protocol; 0 for none), from one read; (0.0, 0) when
    it cannot be read."""
    try:
        head, evals, _ = hub.read_journal(path)
    except OSError:
        return 0.0, 0
    return (max([e.get("elapsed_s") or 0 for e in evals] + [0.0]),
            (head.get("protocol") or {}).get("screen_samples") or 0)


def journal_elapsed(path):
    return journal_facts(path)[0]


def caches_of(out):
    """The recordings' compile caches of the run folder out."""
    return os.path.normpath(out) + "-cache"


def record_cache(run, key, resume):
    """A recording's own compile cache, beside the run folder (OUT-cache/
    KEY; not in it, which is tarred back from the device): a journal
    resumed on the same warm machine reuses the compiles its earlier part
    made, as one long run of it would (issue 28: one compile per code,
    the cache shared across runs), and never anyone else's; a fresh
    machine starts it empty, and so does a journal started afresh.
    Returns (path, whether it held the earlier part's compiles)."""
    path = os.path.join(caches_of(run.out), key)
    if not resume:
        shutil.rmtree(path, ignore_errors=True)
    kept = os.path.isdir(path) and bool(os.listdir(path))
    os.makedirs(path, exist_ok=True)
    return path, kept


def do_record(run, key, decl, budget_s):
    """A recording: random strategy seed 1 (one uniform permutation of
    the space), at most `sample_points` points, max_seconds continued
    across sessions (ktune's clock continues in a resumed journal)."""
    k = hub.KERNELS[key]
    jpath = os.path.join(run.out, "rec", f"{key}-{run.state['gpu_tag']}.jsonl")
    resume = os.path.exists(jpath) and os.path.getsize(jpath) > 0
    # A journal resumes only under its own protocol: the screen its header
    # says it was started with (none for a seeded one), not this call's
    # option nor the state's record, which a forced rerun has dropped.
    before, screen = journal_facts(jpath) if resume else (0.0, run.a.record_screen)
    n = len(run.state.get("sessions", []))
    summ = os.path.join(run.out, "rec", f"{key}-{run.state['gpu_tag']}.session{n}.json")
    target = 0 if k["record"] == "whole" else k["sample_points"]
    old = run.state["steps"].get(f"record:{key}") or {}
    argv = [run.a.ktune, "tune", decl, "--quiet",
            "--set", "strategy.name=random", "--set", "strategy.seed=1",
            "--set", f"strategy.max_evals={target}",
            "--set", f"strategy.max_seconds={before + budget_s:.0f}",
            "--set", "strategy.finalists=1",
            "--journal", jpath, "--json", summ]
    if screen:
        argv += ["--set", f"measure.screen_samples={screen}"]
    if resume:
        argv.append("--resume")
    env = ktune_env(run)
    env["KTUNE_CACHE_DIR"], kept = record_cache(run, key, resume)
    rec, _ = run.cmd(f"record:{key}.s{n}", argv, budget_s + 90, env=env)
    rec.update(cache_kept=kept, journal=run.rel(jpath), json=run.rel(summ), resumed=resume,
               budget_s=budget_s, target=target or k["feasible"], screen_samples=screen,
               facts=hub.summary_facts(hub.load_json(summ)))
    rec["total_wall_s"] = (old.get("total_wall_s") or 0) + rec["wall_s"]
    if old.get("seeded_from"):
        rec["seeded_from"] = old["seeded_from"]
    if os.path.exists(jpath):
        _, evals, _ = hub.read_journal(jpath)
        pts = hub.unique_points(evals)
        rec["points"] = len(pts)
        best = hub.best_of(key, pts)
        rec["best"] = best and {"params": best["point"].get("params"),
                                "variant": best["point"].get("variant"),
                                "median_us": best["median_us"]}
    # whole: every point the device allows (the summary's feasible count,
    # which device limits may put below the T1 file's)
    whole = (rec.get("facts") or {}).get("feasible") or k["feasible"]
    rec["done"] = bool(rec.get("points") and rec["points"] >= (target or whole))
    if os.path.exists(jpath):
        rec["sidecar"] = run.rel(write_sidecar(run, key, decl, jpath, rec))
    rec["summary"] = (f"exit {rec['rc']}, {rec.get('points', 0)} of "
                      f"{target or k['feasible']} points in {rec['wall_s']:.0f} s")
    return rec


def write_sidecar(run, key, decl, jpath, rec, sample=None):
    """The recording's sidecar in tests/data's format (tools/
    record_ground_truth.sh): what tests/tuner/test_search_list.sh and the
    replay tests read, next to the journal: rec/KEY-h200.meta.json."""
    header, evals, _ = hub.read_journal(jpath)
    env = header.get("environment") or {}
    facts = rec.get("facts") or {}
    feasible = facts.get("feasible") or hub.KERNELS[key]["feasible"]
    sizes = header.get("sizes") or {}
    name = os.path.basename(jpath).split(".jsonl")[0]
    sample = rec.get("points") if sample is None else sample
    meta = {
        "kind": "ktune.recording", "recording": name + ".jsonl.gz",
        "spec": header.get("plugin_spec"), "sizes": sizes, "space": header.get("space"),
        "feasible": feasible, "recorded": rec.get("points"),
        "verified_and_timed": sum(1 for e in evals if e.get("status") == "ok"),
        "complete": bool(rec.get("points") and rec["points"] >= feasible),
        "order": ("random strategy, seed 1: a uniform random permutation of the space's points, "
                  "without repeats; " + ("every feasible point" if (sample or 0) >= feasible
                                         else f"the first {sample} points of it")),
        "stop_reason": facts.get("stop_reason"), "wall_s": rec.get("total_wall_s"),
        "protocol": header.get("protocol"),
        "device": (env.get("device") or {}).get("name"), "device_record": env.get("device"),
        "commit": (env.get("host") or {}).get("git_commit", run.state.get("commit")),
        "config": os.path.relpath(decl, ROOT), "command": portable(run, rec.get("cmd")), "synthetic": False,
        "needs": [v for v in ("KTUNE_HUB_DIR", "KTUNE_BAT_DIR") if v in read_text(decl)],
    }
    if not rec.get("cmd") and rec.get("seed_meta"):
        # Seeded from a committed recording and not extended here: its
        # sample was made by the seed's command, on the seed's commit.
        meta.update(rec["seed_meta"])
    path = os.path.join(os.path.dirname(jpath), name + ".meta.json")
    with open(path, "w") as f:
        json.dump(meta, f, indent=1)
    return path


def portable(run, cmd):
    """cmd with the checkout's and the run folder's absolute paths made
    relative (the checkout) or $OUT: a sidecar in tests/data names no
    machine's paths."""
    return (cmd or "").replace(ROOT + os.sep, "").replace(run.out + os.sep, "$OUT" + os.sep)


def read_text(path):
    with open(path) as f:
        return f.read()


def compress_recordings(run):
    """rec/*.jsonl also as .jsonl.gz (gzip -9, what tests/data holds and
    what comes back from the device machine at a tenth of the size)."""
    import gzip

    folder = os.path.join(run.out, "rec")
    for n in sorted(os.listdir(folder)):
        if n.endswith(".jsonl"):
            with open(os.path.join(folder, n), "rb") as f, \
                    gzip.open(os.path.join(folder, n + ".gz"), "wb", 9) as g:
                shutil.copyfileobj(f, g)


def recordings_for_tests(run):
    """rec/tests-data/KEY-h200.jsonl.gz and .meta.json, ready to copy into
    tests/data: each recording merged with the points its live default run
    visited (issue 28: the sample plus every point the strategies
    visited), with its sidecar."""
    folder = os.path.join(run.out, "rec", "tests-data")
    os.makedirs(folder, exist_ok=True)
    made = []
    for key in hub.ORDER:
        rec = run.state["steps"].get(f"record:{key}") or {}
        jpath = os.path.join(run.out, rec.get("journal") or "-")
        decl = next((d["path"] for d in run.state.get("declarations") or [] if d.get("hub") == key), None)
        if not (rec.get("journal") and os.path.exists(jpath) and decl):
            continue
        live = os.path.join(run.out, "default", f"{key}.jsonl")
        extras = [live] if os.path.exists(live) else []
        out = os.path.join(folder, f"{key}-{run.state['gpu_tag']}.jsonl.gz")
        n_base, n_extra, n_points = hub.merge_journals(jpath, extras, out)
        merged = dict(rec, points=n_points)
        meta = write_sidecar(run, key, os.path.join(ROOT, decl), out, merged, sample=rec.get("points"))
        doc = hub.load_json(meta)
        doc["order"] += (f"; then the {n_extra} records of the live default run "
                         f"(default/{key}.jsonl), which visited {n_points - rec.get('points', 0)} "
                         "points the sample lacks") if extras else ""
        doc["recorded_sample"] = rec.get("points")
        with open(meta, "w") as f:
            json.dump(doc, f, indent=1)
        made.append(f"{key}: {n_points} points ({n_base} + {n_extra} records)")
    run.state["tests_data"] = made


def restore_recordings(out):
    """A resumed folder whose plain journals did not come back: from their
    .jsonl.gz."""
    import gzip

    folder = os.path.join(out, "rec")
    for n in sorted(os.listdir(folder)) if os.path.isdir(folder) else []:
        plain = os.path.join(folder, n[:-3])
        if n.endswith(".jsonl.gz") and not os.path.exists(plain):
            with gzip.open(os.path.join(folder, n), "rb") as g, open(plain, "wb") as f:
                shutil.copyfileobj(g, f)


def do_default(run, name, decl, budget_s):
    j = os.path.join(run.out, "default", f"{name}.jsonl")
    s = os.path.join(run.out, "default", f"{name}.json")
    for p in (j, s):
        if os.path.exists(p):
            os.remove(p)
    # ktune's default strategy is what the job (or ktune) names unless one is given.
    pick = ["--set", f"strategy.name={run.a.ktune_strategy}"] if run.a.ktune_strategy else []
    argv = [run.a.ktune, "tune", decl, *pick,
            "--set", f"strategy.max_seconds={budget_s:.0f}", "--journal", j, "--json", s]
    rec, _ = run.cmd(f"default:{name}", argv, budget_s + 120, env=ktune_env(run))
    facts = hub.summary_facts(hub.load_json(s))
    rec.update(json=run.rel(s), journal=run.rel(j), facts=facts, budget_s=budget_s)
    b = facts and facts.get("best")
    rec["summary"] = (f"exit {rec['rc']}, {facts.get('evaluations')} evaluations, best "
                      f"{b.get('config')} {b.get('median_us')} us" if b else f"exit {rec['rc']}, no answer")
    return rec


def do_profile(run, name, decl, who, params, spec, variant):
    argv = [run.a.ktune, "profile", spec, "--plugin", decl]
    if variant:
        argv += ["--variant", variant]
    argv += hub.set_args(params)
    jpath = os.path.join(run.out, "profile", f"{name}-{who}.json")
    argv += ["--json", jpath]
    rec, text = run.cmd(f"profile:{name}:{who}", argv, 180, env=ktune_env(run))
    # the roofline's line ("... bounds this kernel") and the counters'
    # diagnosis, whatever it says ("no single bottleneck" as well)
    diag = [ln.strip() for ln in text.splitlines()
            if "bound" in ln.lower() or ln.lstrip().startswith("diagnosis")][:3]
    rec.update(json=run.rel(jpath), diagnosis=diag, params=params)
    rec["summary"] = f"exit {rec['rc']}" + (f": {diag[0]}" if diag else "")
    return rec


# ----------------------------------------------------------- Kernel Tuner

def kt_available(run):
    if run.a.no_kt:
        return "Kernel Tuner switched off (--no-kt)"
    if not run.a.hub or not os.path.isdir(os.path.join(run.a.hub, "kernels")):
        return f"no hub checkout at KTUNE_HUB_DIR={run.a.hub}"
    p = subprocess.run([sys.executable, "-c", "import kernel_tuner; print(kernel_tuner.__version__)"],
                       capture_output=True, text=True, env=run.env)
    if p.returncode:
        return "Kernel Tuner does not import: " + (p.stderr.strip().splitlines() or ["?"])[-1]
    run.state["kt_version"] = p.stdout.strip()
    return None


def kt_run(run, name, key, extra, timeout):
    out = os.path.join(run.out, "kt", name.replace(":", "-") + ".json")
    argv = [sys.executable, os.path.join(HERE, "kt_hub.py"), "--hub", run.a.hub,
            "--kernel", key, "--out", out] + extra
    if run.a.dry_run:
        argv.append("--simulate")
    env = dict(run.env)
    env["CUPY_CACHE_DIR"] = run.fresh_cache()  # cupy's on-disk kernel cache: fresh
    if run.a.kt_device is not None:
        env["CUDA_VISIBLE_DEVICES"] = str(run.a.kt_device)
    rec, _ = run.cmd(name, argv, timeout, env=env)
    doc = hub.load_json(out) or {}
    rec["json"] = run.rel(out)
    for k in ("ok", "error", "evaluations", "valid", "tune_s", "script_s", "evals_per_s",
              "evals_per_s_own", "configs_s",
              "best", "strategy", "strategy_options", "restricted_to", "kt_version", "backend"):
        if k in doc:
            rec[k] = doc[k]
    rec["summary"] = (f"{doc.get('evaluations')} evaluations in {doc.get('tune_s') or 0:.1f} s"
                      if doc.get("ok") else f"failed: {doc.get('error') or rec.get('tail', '')[-200:]}")
    return rec


def do_kt_points(run, key, n, cap):
    recs = run.state["steps"]
    rj = (recs.get(f"record:{key}") or {}).get("journal")
    if not rj or not os.path.exists(os.path.join(run.out, rj)):
        return {"skipped": f"no ktune recording of {key} to take the points from", "done": False}
    _, evals, _ = hub.read_journal(os.path.join(run.out, rj))
    pts = hub.unique_points(evals)[:n]
    if not pts:
        return {"skipped": f"the {key} recording holds no points", "done": False}
    pfile = os.path.join(run.out, "kt", f"{key}-points.json")
    with open(pfile, "w") as f:
        json.dump([p["point"] for p in pts], f)
    rec = kt_run(run, f"kt_points:{key}", key, ["--mode", "points", "--points", pfile,
                                                 "--cap", f"{cap:.0f}"], cap + 150)
    rec["points_file"] = run.rel(pfile)
    rec["points_asked"] = len(pts)
    # ktune's time for the same points: their first-visit elapsed times
    el = [p["elapsed_s"] for p in pts if p.get("elapsed_s") is not None]
    rec["ktune_same_points_s"] = max(el) if el else None
    return rec


def do_screen(run, key, decl, n):
    """ktune on the points Kernel Tuner's kt_points:KEY was given (the
    recording's first n: random strategy seed 1 visits them in the same
    order) with the screening measurement, the finalists in full: the
    per-evaluation figure beside Kernel Tuner's own."""
    kt = run.state["steps"].get(f"kt_points:{key}") or {}
    pfile = os.path.join(run.out, kt.get("points_file") or "-")
    if not os.path.exists(pfile):
        return {"skipped": f"no kt_points:{key} points to measure the same way", "done": False}
    want = {hub.point_key(p) for p in hub.load_json(pfile) or []}
    j = os.path.join(run.out, "screen", f"{key}.jsonl")
    s = os.path.join(run.out, "screen", f"{key}.json")
    os.makedirs(os.path.dirname(j), exist_ok=True)
    for p in (j, s):
        if os.path.exists(p):
            os.remove(p)
    argv = [run.a.ktune, "tune", decl, "--quiet",
            "--set", "strategy.name=random", "--set", "strategy.seed=1",
            "--set", f"strategy.max_evals={n}",
            "--set", f"measure.screen_samples={run.a.screen_samples}",
            "--journal", j, "--json", s]
    rec, _ = run.cmd(f"screen:{key}", argv, 300, env=ktune_env(run))
    facts = hub.summary_facts(hub.load_json(s))
    rec.update(json=run.rel(s), journal=run.rel(j), facts=facts,
               screen_samples=run.a.screen_samples)
    if os.path.exists(j):
        _, evals, _ = hub.read_journal(j)
        pts = hub.unique_points(evals)
        same = [p for p in pts if hub.point_key(p["point"]) in want]
        el = [p["elapsed_s"] for p in same if p.get("elapsed_s") is not None]
        rec["same_points"], rec["points_asked"] = len(same), len(want)
        rec["same_points_s"] = max(el) if el else None
        if rec["same_points_s"]:
            rec["evals_per_s"] = len(same) / rec["same_points_s"]
    own = kt.get("evals_per_s_own") or kt.get("evals_per_s")
    rec["ratio"] = rec["evals_per_s"] / own if rec.get("evals_per_s") and own else None
    rec["summary"] = (f"exit {rec['rc']}, {rec.get('same_points', 0)} of {len(want)} points in "
                      f"{rec.get('same_points_s') or 0:.1f} s"
                      + (f", {rec['ratio']:.1f}x Kernel Tuner's rate" if rec.get("ratio") else ""))
    return rec


# -------------------------------------------------------------- neutral

def winners(run):
    """Every tool's answer per hub kernel: ktune's default, Kernel Tuner's
    strategy, the recording's best."""
    steps, out = run.state["steps"], []
    for key in hub.ORDER:
        d = (steps.get(f"default:{key}") or {}).get("facts") or {}
        if d.get("best"):
            out.append({"kernel": key, "label": "ktune", "params": d["best"].get("params")})
        k = steps.get(f"kt_strategy:{key}") or {}
        if k.get("best"):
            out.append({"kernel": key, "label": "kernel_tuner", "params": k["best"]["params"]})
        r = steps.get(f"record:{key}") or {}
        if r.get("best"):
            out.append({"kernel": key, "label": "recorded_best", "params": r["best"]["params"]})
    return out


def do_neutral(run):
    entries = winners(run)
    if not entries:
        return {"skipped": "no winners to re-time", "done": False}
    wfile = os.path.join(run.out, "winners.json")
    with open(wfile, "w") as f:
        json.dump(entries, f, indent=1)
    out = os.path.join(run.out, "neutral.json")
    run.neutral_builds = tempfile.mkdtemp(prefix="hub-neutral-")  # this machine's, for do_ncu
    argv = [sys.executable, os.path.join(HERE, "neutral.py"), "--hub", run.a.hub,
            "--in", wfile, "--out", out, "--samples", str(run.a.samples),
            "--keep", run.neutral_builds]
    if run.a.dry_run:
        argv.append("--dry-run" if run.a.dry_scale < 0.05 else "--compile-only")
    rec, _ = run.cmd("neutral", argv, max(60, run.left() - 10))
    rec["json"] = run.rel(out)
    rec["entries"], rec["winners"] = len(entries), entries
    rec["summary"] = f"exit {rec['rc']}, {len(entries)} configurations"
    return rec


def do_ncu(run, kernels):
    """Nsight Compute's speed of light on ktune's winners as the neutral
    step of this call built them: the check of ktune profile's diagnosis
    (compute- or memory-bound) on each."""
    if not getattr(run, "neutral_builds", None):
        return {"skipped": "the neutral step did not run in this call (its builds are this machine's)",
                "done": False}
    if not shutil.which("ncu") or run.a.dry_run:
        return {"skipped": "no ncu on this machine" if not run.a.dry_run else "dry run", "done": False}
    out = os.path.join(run.out, "ncu.json")
    argv = [sys.executable, os.path.join(HERE, "ncu_winners.py"), os.path.join(run.out, "neutral.json"),
            "--kernels", ",".join(kernels), "--out", out]
    rec, text = run.cmd("ncu", argv, 240)
    rec.update(json=run.rel(out), lines=text.strip().splitlines()[-len(kernels):])
    rec["summary"] = f"exit {rec['rc']}: " + "; ".join(rec["lines"])
    return rec


# ------------------------------------------------------------- the plan

def prepare(run, decls):
    """The checks, and what they leave: (good hub declarations, others,
    check results, why Kernel Tuner is missing or None)."""
    hubs = {key: path for name, path, key in decls if key}
    others = [(name, path) for name, path, key in decls if not key]
    checks_ok = {}
    for name, path, key in decls:
        rec = run.step(f"check:{name}", 5, lambda p=path, n=name: do_check(run, n, p))
        checks_ok[name] = bool(rec and rec.get("ok"))
    for key in hub.ORDER:
        if key in hubs:
            run.state["steps"].pop(f"missing:{key}", None)  # an earlier call's
        elif not run.a.kernels:  # --kernels leaves the others out on purpose
            run.state["steps"][f"missing:{key}"] = {
                "skipped": f"no declaration of {key} under examples/hub", "done": False}
    good = {k: p for k, p in hubs.items() if checks_ok.get(k)}
    for k in hubs:
        if k not in good:
            run.log(f"{k}: its declaration failed --check; its GPU steps are skipped")
    kt_missing = kt_available(run)
    if kt_missing:
        run.state["kt_missing"] = kt_missing
        run.log(f"Kernel Tuner: {kt_missing}; its steps are skipped")
    return good, [(n, p) for n, p in others if checks_ok.get(n)], kt_missing


class Steps:
    """The plan's steps, each one call: run.step with its budget."""

    def __init__(self, run, good, others, kt_missing):
        self.run, self.a, self.good, self.others = run, run.a, good, others
        self.kt = not kt_missing

    def record(self, key, budget):
        run = self.run
        if key in self.good:
            run.step(f"record:{key}", min(20, budget), lambda: do_record(
                run, key, self.good[key], min(budget, max(5, run.left() - self.a.reserve))),
                resumable=True)

    def first_samples(self):
        for key in ("gemm", "dedispersion"):
            if not (self.run.state["steps"].get(f"record:{key}") or {}).get("points"):
                self.record(key, self.run.budget(self.a.first_sample_s))

    def kt_points(self, key, nominal):
        run = self.run
        if self.kt and key in self.good:
            run.step(f"kt_points:{key}", 30, lambda: do_kt_points(
                run, key, self.a.kt_points, min(run.budget(nominal), run.left() - self.a.reserve)))
        if self.kt and key in self.good:
            run.step(f"screen:{key}", 20, lambda: do_screen(run, key, self.good[key], self.a.kt_points))

    def default(self, name, path):
        run, b = self.run, self.run.budget(self.a.default_s)
        run.step(f"default:{name}", b + 10, lambda: do_default(run, name, path, b))

    def defaults(self):
        for key in hub.ORDER:
            if key in self.good:
                self.default(key, self.good[key])

    def bat_defaults(self):
        for name, path in self.others:
            self.default(name, path)

    def kt_strategies(self):
        run, b = self.run, self.run.budget(self.a.default_s)
        for key in hub.ORDER:
            if key in self.good and self.kt:
                run.step(f"kt_strategy:{key}", b + 20, lambda k=key: kt_run(
                    run, f"kt_strategy:{k}", k, ["--mode", "strategy", "--strategy",
                                                 self.a.kt_strategy, "--time-limit", f"{b:.0f}"],
                    b + 180))

    def finish(self):
        """The harness, the profiles, then the samples with the time left."""
        run = self.run
        if self.a.hub:
            old = run.state["steps"].get("neutral") or {}
            if old.get("done") and old.get("winners") != winners(run):
                old["done"] = False  # new answers since: all are re-timed together
            run.step("neutral", 30, lambda: do_neutral(run))
        profile_winners(run, self.good)
        compute = [k for k in hub.ORDER
                   if ((run.state["steps"].get(f"default:{k}") or {}).get("facts") or {}).get("best")]
        if compute and self.a.hub:
            run.step("ncu", 30, lambda: do_ncu(run, compute))
        rest = [k for k in ("dedispersion", "gemm", "hotspot") if k in self.good]
        for i, key in enumerate(rest):
            share = (run.left() - self.a.reserve) / max(1, len(rest) - i)
            if share >= 20:
                self.record(key, share)


def plan(run, decls):
    """One GPU: every step in priority order."""
    a = run.a
    good, others, kt_missing = prepare(run, decls)
    st = Steps(run, good, others, kt_missing)
    if a.kt_device is not None and st.kt:
        return plan_parallel(run, st)
    st.record("convolution", run.budget(a.sweep_s))
    st.kt_points("convolution", a.kt_points_s)
    st.defaults()
    st.kt_strategies()
    st.first_samples()
    for key in ("gemm", "dedispersion"):
        st.kt_points(key, a.kt_other_s)
    st.bat_defaults()
    st.finish()


def plan_parallel(run, st):
    """Two GPUs (--kt-device N): Kernel Tuner's runs on GPU N in a thread
    of their own while ktune's run on GPU 0; its runs on ktune's points
    wait for those recordings. The harness, profiles and the remaining
    samples follow on GPU 0 once both are done. Both share the host's
    cores (stated on the page)."""
    a = run.a
    run.state["parallel"] = (f"Kernel Tuner on GPU {a.kt_device}, ktune on GPU 0, at the same time "
                             "(one host: their compiles share its cores)")
    recorded = threading.Event()
    sampled = threading.Event()

    def ktune_side():
        try:
            st.record("convolution", run.budget(a.sweep_s))
            recorded.set()
            st.first_samples()
            sampled.set()
            st.defaults()
            st.bat_defaults()
        finally:
            recorded.set()
            sampled.set()

    def kt_side():
        st.kt_strategies()
        recorded.wait()
        st.kt_points("convolution", a.kt_points_s)
        sampled.wait()
        for key in ("gemm", "dedispersion"):
            st.kt_points(key, a.kt_other_s)

    t = threading.Thread(target=kt_side, name="kernel_tuner")
    t.start()
    ktune_side()
    t.join()
    st.finish()


def profile_winners(run, good):
    steps = run.state["steps"]
    for key, decl in good.items():
        d = (steps.get(f"default:{key}") or {}).get("facts") or {}
        best = d.get("best")
        if not best:
            continue
        spec, variant = d.get("spec"), best.get("variant")
        run.step(f"profile:{key}:ktune", 20, lambda k=key, dc=decl, b=best, s=spec, v=variant: do_profile(
            run, k, dc, "ktune", b.get("params") or {}, s, v))
        kt = steps.get(f"kt_strategy:{key}") or {}
        if kt.get("best"):
            names = set((best.get("params") or {}).keys())
            params = {n: v for n, v in kt["best"]["params"].items() if n in names}
            if params != (best.get("params") or {}):
                run.step(f"profile:{key}:kernel_tuner", 20, lambda k=key, dc=decl, p=params, s=spec,
                         v=variant: do_profile(run, k, dc, "kernel_tuner", p, s, v))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--ktune", help="the ktune binary (default BUILD/ktune)")
    ap.add_argument("--out", default=os.environ.get("OUT") or os.path.join(os.getcwd(), "hub-out"))
    ap.add_argument("--hub", default=os.environ.get("KTUNE_HUB_DIR"))
    ap.add_argument("--bat", default=os.environ.get("KTUNE_BAT_DIR"))
    ap.add_argument("--resume", metavar="DIR", help="an earlier run's --out: its state and journals continue")
    ap.add_argument("--deadline", type=float, default=570, help="seconds for this call (default 570)")
    ap.add_argument("--reserve", type=float, default=20, help="seconds kept for the results")
    ap.add_argument("--steps", default="", help="only these steps (comma-separated names or kinds: check,record,...)")
    ap.add_argument("--decl-dir", default=os.path.join(ROOT, "examples", "hub"),
                    help="the declarations' folder (default examples/hub)")
    ap.add_argument("--kernels", default="", help="only these declarations (names or hub keys)")
    ap.add_argument("--sweep-s", type=float, default=300)
    ap.add_argument("--first-sample-s", type=float, default=30)
    ap.add_argument("--default-s", type=float, default=60)
    ap.add_argument("--ktune-strategy", default="",
                    help="ktune's strategy for the default runs (default: the job's, else ktune's default)")
    ap.add_argument("--kt-strategy", default="genetic_algorithm")
    ap.add_argument("--kt-points", type=int, default=100)
    ap.add_argument("--kt-points-s", type=float, default=150)
    ap.add_argument("--kt-other-s", type=float, default=45)
    ap.add_argument("--samples", type=int, default=50)
    ap.add_argument("--screen-samples", type=int, default=3,
                    help="screen:K's [measure] screen_samples (default 3)")
    ap.add_argument("--record-screen", type=int, default=0, metavar="N",
                    help="recordings started in this call screen each point after N samples "
                    "([measure] screen_samples; the closing finalist in full); a resumed one "
                    "keeps its own protocol (default 0: the full protocol for every point)")
    ap.add_argument("--gpu-tag", default="", help="the recordings' GPU tag (default: from nvidia-smi)")
    ap.add_argument("--seed-from", metavar="DIR", default="",
                    help="start recordings missing from the state from DIR's KEY-TAG.jsonl.gz "
                    "(tests/data), their sample part, where TAG is this GPU's")
    ap.add_argument("--restart", metavar="KEYS", default="",
                    help="these recordings (hub keys, comma-separated) start afresh; the old "
                    "journals move to superseded/ (with --seed-from, a restarted one is not seeded)")
    ap.add_argument("--no-kt", action="store_true")
    ap.add_argument("--kt-device", type=int, default=None,
                    help="a second GPU: Kernel Tuner runs there while ktune runs on GPU 0 (halves the wall time)")
    ap.add_argument("--dry-run", action="store_true",
                    help="no GPU: budgets times --dry-scale, Kernel Tuner simulated, the harness only built")
    ap.add_argument("--dry-scale", type=float, default=0.02)
    ap.add_argument("--results", default="", help="also write the results page here (results.py)")
    a = ap.parse_args(argv)
    a.steps = [s for s in a.steps.split(",") if s]
    a.ktune = os.path.abspath(a.ktune or os.path.join(a.build, "ktune"))
    a.hub = os.path.abspath(a.hub) if a.hub else None
    a.bat = os.path.abspath(a.bat) if a.bat else None
    if a.resume and os.path.abspath(a.resume) != os.path.abspath(a.out):
        shutil.copytree(a.resume, a.out, dirs_exist_ok=True)
        if os.path.isdir(caches_of(a.resume)):
            shutil.copytree(caches_of(a.resume), caches_of(a.out), dirs_exist_ok=True)
    restore_recordings(a.out)
    run = Run(a)
    run.state.update(commit=git_commit(), hub=a.hub, bat=a.bat, build=a.build)
    tag = a.gpu_tag or gpu_tag(a.dry_run)
    if run.state.setdefault("gpu_tag", tag) != tag:
        print(f"run_h200.py: {a.out} holds a run on a {run.state['gpu_tag']} GPU, this one is a {tag}: "
              "one folder is one GPU's (start a fresh --out)", file=sys.stderr)
        return 2
    restart = [k for k in a.restart.split(",") if k]
    unknown = [k for k in restart if k not in hub.ORDER]
    if unknown:
        print(f"run_h200.py: --restart {','.join(unknown)}: not a hub recording "
              f"(expected some of {','.join(hub.ORDER)})", file=sys.stderr)
        return 2
    if restart:
        restart_recordings(run, restart)
    if a.seed_from:
        seed_recordings(run, a.seed_from, skip=restart)
    run.log(f"ktune {a.ktune}; hub {a.hub}; BAT {a.bat}; out {run.out}; deadline {a.deadline:.0f} s")
    if not os.access(a.ktune, os.X_OK):
        run.state["ktune_missing"] = f"no ktune binary at {a.ktune}"
        run.log(run.state["ktune_missing"])
        decls = []
    else:
        decls = hub.discover(os.path.abspath(a.decl_dir), set(a.kernels.split(",")) - {""} or None)
    run.state["declarations"] = [{"name": n, "path": os.path.relpath(p, ROOT), "hub": k} for n, p, k in decls]
    if not decls:
        run.log(f"no declarations in {a.decl_dir}: nothing of ktune's to run")
    plan(run, decls)
    compress_recordings(run)
    recordings_for_tests(run)
    run.session["end"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    run.session["wall_s"] = time.time() - run.t0
    run.save()
    page = os.path.join(run.out, "results.md")
    argv = [sys.executable, os.path.join(HERE, "results.py"), run.out, "-o", page]
    if a.results:
        argv += ["-o", a.results]
    subprocess.run(argv)
    return 0


def gpu_tag(dry_run):
    """The recordings' file tag: h200 or h100 from nvidia-smi's name (a
    recording is one GPU's; tests/data keeps them apart by name), else
    gpu; h200 in a dry run, whose files are made-up."""
    if dry_run:
        return "h200"
    try:
        name = subprocess.run(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"],
                              capture_output=True, text=True, timeout=30).stdout
    except (OSError, subprocess.TimeoutExpired):
        name = ""
    for tag in ("H200", "H100", "A100", "B200"):
        if tag in name.upper():
            return tag.lower()
    return "gpu"


def restart_recordings(run, keys):
    """Each of keys' recordings starts afresh in this call (under this
    call's --record-screen; its compile cache is emptied by record_cache,
    the journal being gone): its journal, sidecar and summaries move to
    superseded/sN/ (N: this call's number) and its state to
    state["superseded"], where the page and the next owner still find
    them."""
    n = len(run.state.get("sessions", []))
    tag = run.state["gpu_tag"]
    dest = os.path.join(run.out, "superseded", f"s{n}")
    for key in keys:
        old = run.state["steps"].pop(f"record:{key}", None)
        moved = []
        for folder in (os.path.join(run.out, "rec"), os.path.join(run.out, "rec", "tests-data")):
            for f in sorted(os.listdir(folder)) if os.path.isdir(folder) else []:
                if f.startswith(f"{key}-{tag}.") and os.path.isfile(os.path.join(folder, f)):
                    os.makedirs(dest, exist_ok=True)
                    sub = os.path.relpath(folder, os.path.join(run.out, "rec")).replace(os.sep, "-")
                    shutil.move(os.path.join(folder, f),
                                os.path.join(dest, f if sub == "." else f"{sub}-{f}"))
                    moved.append(f)
        if old or moved:
            run.state.setdefault("superseded", {})[f"record:{key}.s{n}"] = dict(
                old or {}, moved_to=run.rel(dest), files=moved)
        run.log(f"record:{key}: restarted ({len(moved)} files to {run.rel(dest)})"
                if old or moved else f"record:{key}: nothing to restart")
    run.save()


def seed_recordings(run, folder, skip=()):
    """Each recording the state lacks, from FOLDER/KEY-TAG.jsonl.gz: the
    part its sidecar calls the sample (the merged live-default records at
    its end left out, so that the journal resumes as the same uniform
    permutation), as rec/KEY-TAG.jsonl with its record:KEY state."""
    tag = run.state["gpu_tag"]
    for key in hub.ORDER:
        name = f"record:{key}"
        src = os.path.join(folder, f"{key}-{tag}.jsonl.gz")
        meta = hub.load_json(os.path.join(folder, f"{key}-{tag}.meta.json")) or {}
        if run.state["steps"].get(name) or key in skip or not os.path.exists(src):
            continue
        jpath = os.path.join(run.out, "rec", f"{key}-{tag}.jsonl")
        kept = hub.split_sample(src, meta, jpath)
        _, evals, _ = hub.read_journal(jpath)
        pts = hub.unique_points(evals)
        best = hub.best_of(key, pts)
        run.state["steps"][name] = {
            "journal": run.rel(jpath), "points": len(pts), "seeded_from": src, "done": False,
            "total_wall_s": meta.get("wall_s") or journal_elapsed(jpath), "records": kept,
            # a screened recording resumes only screened (the journal's protocol)
            "screen_samples": (meta.get("protocol") or {}).get("screen_samples") or 0,
            "seed_meta": {k: meta[k] for k in ("command", "commit", "commit_note") if k in meta},
            "best": best and {"params": best["point"].get("params"),
                              "variant": best["point"].get("variant"), "median_us": best["median_us"]}}
        run.log(f"{name}: seeded from {src}: {len(pts)} points ({kept} records)")
    run.save()


def git_commit():
    """The tree this call runs: KTUNE_COMMIT when set (a device machine's
    copy of the tree may carry a stale .git), else git's HEAD."""
    if os.environ.get("KTUNE_COMMIT"):
        return os.environ["KTUNE_COMMIT"][:12]
    try:
        return subprocess.run(["git", "-C", ROOT, "rev-parse", "--short=12", "HEAD"], capture_output=True,
                              text=True).stdout.strip() or "unknown"
    except OSError:
        return "unknown"


if __name__ == "__main__":
    sys.exit(main())
