#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Kernel Tuner's examples/cuda scripts under both tools, same machine,
same run (issue 51's Done-when table): each script unmodified, as `python
SCRIPT` with Kernel Tuner 1.5.0 and as `python -m ktune.kernel_tuner
SCRIPT` does it with ktune (both through bench/kt_scripts_launch.py, which
records each tune_kernel call), then both answers of every call re-timed
in one neutral harness (bench/kt_scripts_neutral.py: CuPy alone, hub
harness protocol) in a third run of the script. Prints the Markdown table
and writes everything to --out (logs, records, table.md, results.json).

Every script gets the same wall limit per tool (--limit, seconds). ktune
is told it (strategy_options time_limit where the script gives none);
Kernel Tuner's brute force refuses time_limit, so a Kernel Tuner run still
going at the limit is killed, and its evaluations and best so far come
from the cache file the launcher gave it (cache= where the script gave
none). The table says which runs were killed. The whole run fits the GPU
session's budget: at most (2 * --limit + --neutral-limit) per script.

  python3 -m pip install -q --no-index --no-deps --target /tmp/site .kt-wheels/*.whl
  python3 -m pip install -q --no-deps --target /tmp/pyk build-dist/ktune-*.whl
  python3 bench/kernel_tuner_scripts.py --examples .ktex/examples/cuda \\
      --kt-path /tmp/site --ktune-path /tmp/pyk --limit 20 --out $OUT/kts

(--extra-path DIR: a folder with PyCUDA and its dependencies, for the two
scripts that import it themselves; both tools get it.)

--fake runs no process: a fake runner writes made-up records, to check the
arguments, the bookkeeping and the table without a GPU.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Optional

HERE = Path(__file__).resolve().parent
LAUNCH = HERE / "kt_scripts_launch.py"
SCRIPTS = ["vector_add.py", "vector_add_metric.py", "matmul.py", "convolution.py",
           "convolution_correct.py", "pnpoly.py", "reduction.py", "stencil.py",
           "spmv.py", "expdist.py", "test_vector_add.py"]
TOOLS = ("kernel_tuner", "ktune")
# A script is not started with less than this per tool.
MIN_LIMIT_S = 5.0


class Runner:
    """Runs a command in its own process group, killed at the limit."""

    def run(self, cmd: list[str], cwd: Path, env: dict, log: Path,
            limit: float) -> tuple[float, str]:
        t0 = time.perf_counter()
        with open(log, "w") as f:
            p = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=f, stderr=subprocess.STDOUT,
                                 start_new_session=True)
            try:
                rc = p.wait(timeout=limit)
                status = "ok" if rc == 0 else f"exit {rc}"
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, signal.SIGKILL)
                p.wait()
                status = f"killed at {limit:.0f} s"
        return time.perf_counter() - t0, status


class FakeRunner:
    """Writes the records a run would leave, without running anything."""

    def __init__(self) -> None:
        self.n = 0

    def run(self, cmd: list[str], cwd: Path, env: dict, log: Path,
            limit: float) -> tuple[float, str]:
        self.n += 1
        arg = dict(zip(cmd, cmd[1:]))
        tool, rec, script = arg["--tool"], arg["--record"], cmd[-1]
        log.write_text(f"fake run of {script} by {tool}\n")
        lines = [{"event": "begin", "tool": tool}]
        params = {"block_size_x": [32, 64, 128]}
        start = {"event": "start", "call": 0, "kernel_name": "k", "tune_params": params}
        if script.startswith("test_"):
            log.write_text("1 passed in 0.5s\n")
            lines = lines[:1]
        elif tool == "neutral":
            answers = json.load(open(arg["--answers"]))[0]
            cfgs = [{"params": p, "tools": [t], "median_ms": 1.0 + 0.01 * i, "check": None}
                    for i, (t, p) in enumerate(answers.items()) if p]
            lines += [start, {"event": "neutral", "call": 0, "configs": cfgs}]
        elif tool == "kernel_tuner" and script == "convolution.py":
            cache = Path(arg["--cache-dir"]) / "call0.json"
            cache.parent.mkdir(parents=True, exist_ok=True)
            cache.write_text('{"device_name": "fake", "cache": {\n'
                             '"32": {"block_size_x": 32, "time": 2.5},\n'
                             '"64": {"block_size_x": 64, "time": "InvalidConfig"},\n')
            lines += [dict(start, added={"cache": str(cache)})]
            Path(rec).write_text("".join(json.dumps(x) + "\n" for x in lines))
            return limit, f"killed at {limit:.0f} s"
        else:
            best = {"block_size_x": 64 if tool == "ktune" else 128}
            lines += [start, {"event": "end", "call": 0, "wall_s": 1.0, "evaluations": 3,
                              "valid": 3, "best": best, "best_time_ms": 1.0}]
        Path(rec).write_text("".join(json.dumps(x) + "\n" for x in lines))
        return (2.0 if tool == "ktune" else 6.0), "ok"


def read_records(path: Path) -> list[dict]:
    if not path.exists():
        return []
    out = []
    for line in path.read_text().splitlines():
        try:
            out.append(json.loads(line))
        except ValueError:
            pass  # a line cut by a kill
    return out


def read_kt_cache(path: str) -> Optional[dict]:
    """A Kernel Tuner cache file, open (a killed run) or closed."""
    try:
        text = Path(path).read_text().rstrip()
    except OSError:
        return None
    if text.endswith(","):
        text = text[:-1] + "}}"
    elif text.endswith("{"):
        text += "}}"
    try:
        return json.loads(text)
    except ValueError:
        return None


def calls_of(records: list[dict]) -> list[dict]:
    """Per tune_kernel call: evaluations, best parameters, and how it
    ended ("end": finished; "cache": killed, read from its cache)."""
    calls: dict[int, dict] = {}
    for r in records:
        if r.get("event") == "start":
            calls[r["call"]] = {"call": r["call"], "kernel_name": r.get("kernel_name"),
                                "keys": list(r.get("tune_params") or {}),
                                "added": r.get("added") or {}, "how": "unfinished",
                                "evaluations": None, "best": None}
        elif r.get("event") == "end" and r["call"] in calls:
            calls[r["call"]].update(how="end", evaluations=r["evaluations"],
                                    valid=r.get("valid"), best=r["best"],
                                    best_time_ms=r.get("best_time_ms"))
    for c in calls.values():
        cache = c["added"].get("cache")
        if c["how"] == "unfinished" and cache:
            doc = read_kt_cache(cache) or read_kt_cache(cache + ".json")
            if doc is not None:
                entries = list((doc.get("cache") or {}).values())
                valid = [e for e in entries if isinstance(e.get("time"), (int, float))
                         and not isinstance(e.get("time"), bool)]
                b = min(valid, key=lambda e: e["time"]) if valid else None
                c.update(how="cache", evaluations=len(entries), valid=len(valid),
                         best={k: b[k] for k in c["keys"] if k in b} if b else None,
                         best_time_ms=b["time"] if b else None)
    return [calls[k] for k in sorted(calls)]


def pytest_outcome(log: Path) -> str:
    lines = [x for x in log.read_text(errors="replace").splitlines() if x.strip()] \
        if log.exists() else []
    for x in reversed(lines):
        if any(w in x for w in ("passed", "skipped", "failed", "error")):
            return x.strip("= ").strip()
    return ""


def last_error(log: Path) -> str:
    """The exception a failed script ended with (its last line)."""
    if not log.exists():
        return ""
    lines = [x for x in log.read_text(errors="replace").splitlines() if x.strip()]
    for x in reversed(lines):
        if "Error" in x or "Exception" in x:
            return x.strip()[:160]
    return lines[-1].strip()[:160] if lines else ""


def neutral_sums(records: list[dict], answers: list[dict]) -> dict:
    """Per tool, the neutral medians of its answers summed over the calls
    both tools answered (and re-timed), and the checks' verdicts."""
    out: dict[str, Any] = {"kernel_tuner": 0.0, "ktune": 0.0, "calls": 0, "checks": [],
                           "errors": []}
    timed = {r["call"]: r for r in records if r.get("event") == "neutral"}
    for i, ans in enumerate(answers):
        rec = timed.get(i)
        if not rec or not ans.get("kernel_tuner") or not ans.get("ktune"):
            continue
        per = {}
        for c in rec["configs"]:
            if "error" in c:
                out["errors"].append(c["error"])
                continue
            for t in c["tools"]:
                per[t] = c["median_ms"]
                if c.get("check"):
                    out["checks"].append(f"{t}:{c['check']}")
        if "kernel_tuner" in per and "ktune" in per:
            out["kernel_tuner"] += per["kernel_tuner"]
            out["ktune"] += per["ktune"]
            out["calls"] += 1
    return out


def fmt(x: Optional[float], spec: str = ".1f") -> str:
    return "" if x is None or (isinstance(x, float) and math.isnan(x)) else format(x, spec)


def limit_for(o: argparse.Namespace, script: str, left: float) -> float:
    """The script's wall limit per tool: --limit (or its --limit-for),
    cut so that both tools and the neutral run fit the time left of
    --budget."""
    want = o.limit_for.get(script, o.limit)
    return max(0.0, min(want, (left - o.neutral_limit) / 2))


def run_script(o: argparse.Namespace, runner: Any, script: str, envs: dict,
               limit: float) -> dict:
    row: dict[str, Any] = {"script": script, "limit_s": limit}
    is_test = script.startswith("test_")
    target = ["--"] + (["-m", "pytest", "-q", "-p", "no:cacheprovider", script] if is_test
                       else [script])
    for tool in TOOLS:
        rec = o.out / "records" / f"{tool}-{script}.jsonl"
        rec.unlink(missing_ok=True)
        cache_dir = o.out / "kt-cache" / script
        cmd = [o.python, str(LAUNCH), "--tool", tool, "--record", str(rec),
               "--deadline", f"{time.time() + limit:.3f}", "--cache-dir", str(cache_dir)]
        cmd += target
        if tool == "kernel_tuner":  # a cache left by an earlier run would be resumed
            shutil.rmtree(cache_dir, ignore_errors=True)
            cache_dir.mkdir(parents=True, exist_ok=True)
        log = o.out / "logs" / f"{tool}-{script}.log"
        wall, status = runner.run(cmd, o.out / f"work-{tool}", envs[tool], log, limit)
        calls = calls_of(read_records(rec))
        evals = [c["evaluations"] for c in calls if c["evaluations"] is not None]
        row[tool] = {"wall_s": wall, "status": status, "calls": calls,
                     "evaluations": sum(evals) if evals else None,
                     "note": pytest_outcome(log) if is_test else
                     ("" if status == "ok" else last_error(log))}
    answers = []
    n = max(len(row[t]["calls"]) for t in TOOLS)
    for i in range(n):
        answers.append({t: (row[t]["calls"][i]["best"] if i < len(row[t]["calls"]) else None)
                        for t in TOOLS})
    row["answers"] = answers
    if any(a["kernel_tuner"] and a["ktune"] for a in answers):
        apath = o.out / "records" / f"answers-{script}.json"
        apath.write_text(json.dumps(answers))
        rec = o.out / "records" / f"neutral-{script}.jsonl"
        rec.unlink(missing_ok=True)
        cmd = [o.python, str(LAUNCH), "--tool", "neutral", "--record", str(rec),
               "--answers", str(apath)] + target
        wall, status = runner.run(cmd, o.out / "work-neutral", envs["neutral"],
                                  o.out / "logs" / f"neutral-{script}.log", o.neutral_limit)
        row["neutral"] = dict(neutral_sums(read_records(rec), answers),
                              wall_s=wall, status=status)
    return row


def end_text(t: dict) -> str:
    s = t["status"]
    if s.startswith("killed"):
        via = [c for c in t["calls"] if c["how"] == "cache"]
        s += " (evaluations from its cache)" if via else " (nothing recorded)"
    if t.get("note"):
        s += f": {t['note']}"
    return s.replace("|", "/")


def table(rows: list[dict]) -> str:
    head = ("| script | limit s | Kernel Tuner wall s | its end | its evaluations | ktune wall s "
            "| its end | its evaluations | wall ktune / KT | KT answer, neutral ms "
            "| ktune answer, neutral ms | ktune / KT time |\n"
            "|---|---|---|---|---|---|---|---|---|---|---|---|\n")
    out = [head]
    for r in rows:
        kt, kn, nt = r["kernel_tuner"], r["ktune"], r.get("neutral") or {}
        ratio = kn["wall_s"] / kt["wall_s"] if kt["wall_s"] else None
        both = nt.get("calls")
        tr = nt["ktune"] / nt["kernel_tuner"] if both and nt["kernel_tuner"] else None
        out.append(f"| {r['script']} | {fmt(r['limit_s'], '.0f')} | {fmt(kt['wall_s'])} | "
                   f"{end_text(kt)} | "
                   f"{kt['evaluations'] if kt['evaluations'] is not None else ''} | "
                   f"{fmt(kn['wall_s'])} | {end_text(kn)} | "
                   f"{kn['evaluations'] if kn['evaluations'] is not None else ''} | "
                   f"{fmt(ratio, '.2f')} | {fmt(nt.get('kernel_tuner') if both else None, '.4f')} | "
                   f"{fmt(nt.get('ktune') if both else None, '.4f')} | {fmt(tr, '.3f')} |\n")
    return "".join(out)


def main(argv: Optional[list] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--examples", required=True, type=Path, help="Kernel Tuner's examples/cuda")
    ap.add_argument("--kt-path", default="", help="PYTHONPATH that has Kernel Tuner 1.5.0")
    ap.add_argument("--ktune-path", default="",
                    help="PYTHONPATH that has the ktune package (default: this checkout's python/)")
    ap.add_argument("--extra-path", default="",
                    help="PYTHONPATH both tools get after their own: what the scripts "
                         "import themselves (PyCUDA for pnpoly.py, test_vector_add.py)")
    ap.add_argument("--python", default=sys.executable)
    ap.add_argument("--out", type=Path, default=Path("kts-out"))
    ap.add_argument("--limit", type=float, default=20.0,
                    help="wall seconds per script and tool (default 20)")
    ap.add_argument("--limit-for", action="append", default=[], metavar="SCRIPT=S",
                    help="another limit for one script (repeatable)")
    ap.add_argument("--neutral-limit", type=float, default=40.0,
                    help="wall seconds of a script's neutral re-timing (default 40)")
    ap.add_argument("--budget", type=float, default=540.0,
                    help="wall seconds of the whole run (default 540): limits shrink to "
                         "fit it, and a script that no longer fits is not run")
    ap.add_argument("--fake", action="store_true", help="run nothing (see the doc)")
    ap.add_argument("scripts", nargs="*", default=SCRIPTS)
    o = ap.parse_args(argv)
    try:
        o.limit_for = {k: float(v) for k, v in (x.split("=", 1) for x in o.limit_for)}
    except ValueError:
        ap.error("--limit-for takes SCRIPT=SECONDS")
    unknown = [s for s in o.scripts if not (o.examples / s).is_file()] if not o.fake else []
    if unknown:
        ap.error(f"not in {o.examples}: {', '.join(unknown)}")
    for d in ("records", "logs", "kt-cache"):
        (o.out / d).mkdir(parents=True, exist_ok=True)
    for w in ("work-kernel_tuner", "work-ktune", "work-neutral"):
        if not o.fake:
            shutil.copytree(o.examples, o.out / w, dirs_exist_ok=True)
        else:
            (o.out / w).mkdir(exist_ok=True)
    base = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    ktune_path = o.ktune_path or str(HERE.parent / "python")
    def path(*parts: str) -> str:
        return os.pathsep.join(p for p in parts if p)

    envs = {"kernel_tuner": dict(base, PYTHONPATH=path(o.kt_path, o.extra_path)),
            "ktune": dict(base, PYTHONPATH=path(ktune_path, o.extra_path)),
            "neutral": dict(base, PYTHONPATH=path(ktune_path, o.extra_path))}
    runner = FakeRunner() if o.fake else Runner()
    rows, t0 = [], time.perf_counter()
    skipped = []
    for s in o.scripts:
        limit = limit_for(o, s, o.budget - (time.perf_counter() - t0))
        if limit < MIN_LIMIT_S:
            skipped.append(s)
            continue
        rows.append(run_script(o, runner, s, envs, limit))
        print(f"kernel_tuner_scripts: {s} done, {time.perf_counter() - t0:.0f} s so far",
              file=sys.stderr, flush=True)
    text = table(rows)
    limits = sorted({r["limit_s"] for r in rows})
    text += ("\nEach tool had the same wall limit per script, "
             f"{', '.join(f'{x:.0f}' for x in limits)} s (column 'limit s'); ktune was told it "
             "(strategy_options time_limit, less a margin for its closing), Kernel Tuner's "
             "brute force, which refuses time_limit, was killed at it (its evaluations and best "
             "so far from its cache file). A killed run's wall time is the limit: the ratio "
             "then compares nothing. The neutral re-timing had "
             f"{o.neutral_limit:.0f} s per script. Whole run {time.perf_counter() - t0:.0f} s"
             f" of a {o.budget:.0f} s budget.\n")
    if skipped:
        text += f"Not run (no time left in the budget): {', '.join(skipped)}.\n"
    print(text)
    (o.out / "table.md").write_text(text)
    (o.out / "results.json").write_text(json.dumps(rows, indent=1, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
