# SPDX-License-Identifier: Apache-2.0
"""The methodology benchmark's report: every task file of run.py scored by
the package's code (score.py), per file and aggregated over the tuning and
the evaluation set, as Markdown, JSON and SVG curves."""
import json
import os
import platform
import subprocess
import time
from pathlib import Path

import numpy as np

import score

COLORS = ["#0072B2", "#D55E00", "#009E73", "#CC79A7", "#56B4E9", "#E69F00",
          "#7F7F7F", "#000000", "#A6761D", "#1B9E77", "#7570B3", "#E7298A",
          "#66A61E", "#E6AB02", "#666666", "#A6CEE3", "#B2DF8A", "#FB9A99",
          "#FDBF6F", "#CAB2D6", "#FFFF99", "#1F78B4", "#33A02C"]


def label(tool, s):
    return f"ktune:{s}" if tool == "ktune" else f"kt:{s}"


def snap(reps, st):
    """Objective values rounded on the way (chunks slimmed to 6 significant
    digits) back to the file's own value nearest them: the package checks
    every value is one of the file's. Exact values are unchanged."""
    dist = np.unique(st.objective_performances_total_sorted)
    dist = dist[np.isfinite(dist)]
    for r in reps:
        for e in r:
            for m in e["measurements"]:
                v = m["value"]
                if m["name"] != "time" or not isinstance(v, float) or \
                        not np.isfinite(v):
                    continue
                i = int(np.searchsorted(dist, v))
                c = [j for j in (i - 1, i) if 0 <= j < len(dist)]
                m["value"] = float(min((dist[j] for j in c),
                                       key=lambda x: abs(x - v)))


def unrun_reasons(done_path):
    """{(tool, app, gpu, strategy): why} from device.py's done list: the
    chunks listed as too long for one call or killed at its end."""
    words = {"too-long": "estimated longer than one device call",
             "killed": "still running at the device call's end"}
    out = {}
    if done_path and os.path.exists(done_path):
        for line in open(done_path):
            f = line.split()
            if len(f) >= 7 and f[6] in words:
                out[("kt" if f[0] == "kt" else "ktune", f[1], f[2], f[3])] = \
                    words[f[6]]
    return out


def score_all(files, bud, runs, kts, kns, hubcopy, log=print, unrun=None):
    """{file: {label: {"P", "curve", score.fractions()'s values,
    "seeds"}}}; a task file missing (not run, or failed) is left out and
    listed; one that holds a strategy's error instead of runs (kt_runs.py
    on a strategy Kernel Tuner 1.5.0 cannot run) is listed with it."""
    import run as runmod
    per, missing = {}, []
    unrun = unrun or {}
    for app, g in files:
        st = score.stats(hubcopy / "cachefiles" / app / f"{g}_T4.json", app,
                         g)
        group, meta = {}, {}
        for tool, names in [("ktune", kns), ("kt", kts)]:
            for s in names:
                p = runs / tool / f"{app}-{g}-{s}.json.gz"
                if not p.exists():
                    why = unrun.get((tool, app, g, s))
                    missing.append(f"{tool} {app} {g} {s}" +
                                   (f": {why}" if why else ""))
                    continue
                d, reps = runmod.load_runs(p, bud[(app, g)]["limit"])
                if d.get("error"):
                    missing.append(f"{tool} {app} {g} {s}: {d['error']}")
                    continue
                snap(reps, st)
                empty = sum(1 for r in reps if not r)
                if empty:
                    missing.append(f"{tool} {app} {g} {s}: {empty} of "
                                   f"{len(reps)} repeats evaluated nothing "
                                   "within the limit (left out of its curve; "
                                   "0 in its fraction over the budget)")
                if empty == len(reps):
                    continue
                group[label(tool, s)] = reps
                meta[label(tool, s)] = [r["seed"] for r in d["repeats"]]
        t = time.time()
        sc = score.score_file(st, group, limit=bud[(app, g)]["limit"])
        for k in sc:
            sc[k]["seeds"] = meta[k]
        per[f"{app}/{g}"] = sc
        log(f"scored {app}/{g}: {len(sc)} strategies, {time.time() - t:.0f}s")
    return per, missing


def svg(path, title, curves):
    """Aggregate standardised curves over the normalised time range."""
    w, h, l, r, tp, b = 760, 420, 60, 230, 30, 40
    lo = min(-0.5, min(float(np.min(c)) for c in curves.values()))
    hi = 1.0

    def x(i, n):
        return l + (w - l - r) * i / max(1, n - 1)

    def y(v):
        return tp + (h - tp - b) * (hi - v) / (hi - lo)
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" '
           f'height="{h}" font-family="sans-serif" font-size="11">',
           f'<text x="{l}" y="18" font-size="13">{title}</text>']
    for v in np.arange(np.ceil(lo * 4) / 4, hi + 0.01, 0.25):
        out.append(f'<line x1="{l}" x2="{w - r}" y1="{y(v):.1f}" '
                   f'y2="{y(v):.1f}" stroke="#e2e2e2"/>'
                   f'<text x="{l - 6}" y="{y(v) + 4:.1f}" '
                   f'text-anchor="end">{v:.2f}</text>')
    out.append(f'<text x="{(l + w - r) / 2}" y="{h - 8}" text-anchor="middle">'
               'time, from the 1% to the 95% cutoff of random search</text>')
    order = sorted(curves, key=lambda k: -float(np.mean(curves[k])))
    for i, k in enumerate(order):
        c = curves[k]
        step = max(1, len(c) // 200)
        pts = " ".join(f"{x(j, len(c)):.1f},{y(float(c[j])):.1f}"
                       for j in range(0, len(c), step))
        col = COLORS[i % len(COLORS)]
        width = 2.5 if k.startswith("ktune:") else 1.2
        out.append(f'<polyline fill="none" stroke="{col}" '
                   f'stroke-width="{width}" points="{pts}"/>')
        out.append(f'<text x="{w - r + 8}" y="{tp + 12 * i + 4}" fill="{col}">'
                   f'{k} {np.mean(c):.3f}</text>')
    out.append("</svg>")
    Path(path).write_text("\n".join(out) + "\n")


def commit():
    try:
        return subprocess.run(["git", "rev-parse", "--short", "HEAD"],
                              capture_output=True, text=True).stdout.strip()
    except OSError:
        return "?"


def table(per, keys, names):
    """The P table of a set: strategies scored on every file of it first,
    by aggregate P; then those scored on some of them, their cells "-"
    where they did not run and no aggregate (it would not be comparable)."""
    rows = ["| strategy | " + " | ".join(k.replace("_milo", "")
                                         for k in keys) + " | mean P |",
            "|---|" + "---:|" * (len(keys) + 1)]
    agg = score.aggregate([per[k] for k in keys], names)
    part = sorted(n for n in names if n not in agg and
                  any(n in per[k] for k in keys))
    for n in sorted(agg, key=lambda n: -agg[n]) + part:
        cells = [f"{per[k][n]['P']:.3f}" if n in per[k] else "-"
                 for k in keys]
        total = f"**{agg[n]:.3f}**" if n in agg else \
            f"({sum(n in per[k] for k in keys)} of {len(keys)} files)"
        rows.append(f"| {n} | " + " | ".join(cells) + f" | {total} |")
    return rows, agg


def frac_table(per, keys, names, field):
    rows = ["| strategy | " + " | ".join(k.replace("_milo", "")
                                         for k in keys) + " |",
            "|---|" + "---:|" * len(keys)]
    for n in names:
        if any(n in per[k] for k in keys):
            rows.append(f"| {n} | " + " | ".join(
                f"{per[k][n][field]:.3f}" if n in per[k] else "-"
                for k in keys) + " |")
    return rows


FRACTIONS = [
    ("frac_budget", "Fraction of the optimum over the budget: the optimum "
     "over the best time a repeat found within the time limit, median over "
     "the repeats (from the runs, no model)"),
    ("normalized_end", "The package's normalized best-found value at the end "
     "of the range, (median - curve) / (median - optimum) of the curve P is "
     "scored on (1: the optimum, 0: the space's median)")]


def default_rule(agg, tenth, tuning_files):
    """The default strategy, chosen on the tuning set alone (the
    methodology's hold-out): among ktune's searching strategies (all but
    exhaustive; auto is today's default, tpe on these spaces), the highest
    aggregate P
    over the tuning files of those whose runs stopped at 10% of the space
    (STRATEGY@10pct) have the median within 2% of the optimum on every
    tuning file; where no strategy has such runs, the highest P. Returns
    (strategy, reason)."""
    cands = sorted((n for n in agg if n.startswith("ktune:") and
                    "@" not in n and n != "ktune:exhaustive"),
                   key=lambda n: -agg[n])
    if not cands:
        return None, "no ktune strategy scored on the tuning set"

    def tenth_ok(n):
        rows = [tenth.get((f, n[len("ktune:"):])) for f in tuning_files]
        if any(r is None for r in rows):
            return None
        return all(r["median"] <= 1.02 for r in rows)
    checked = [n for n in cands if tenth_ok(n) is not None]
    for n in cands:
        ok = tenth_ok(n)
        if ok or (ok is None and not checked):
            why = "within 2% at 10% of the space on every tuning file" if \
                ok else "no 10%-of-the-space runs on the tuning set"
            return n, f"highest tuning-set P ({agg[n]:.3f}) ({why})"
    return None, "no strategy within 2% at 10% of the space on every " \
        "tuning file"


def at_tenth(files, runs, hubcopy):
    """ktune's strategies stopped at 10% of the space's points (device.py's
    STRATEGY@10pct runs): {(file, strategy): the median over seeds of the
    best time over the optimum, the worst, the seeds, the evaluations};
    files and strategies without such runs are left out."""
    import run as runmod
    out = {}
    for app, g in files:
        paths = sorted(runs.glob(f"ktune/{app}-{g}-*@10pct.json.gz"))
        if not paths:
            continue
        st = score.stats(hubcopy / "cachefiles" / app / f"{g}_T4.json", app,
                         g)
        opt = st.total_performance_absolute_optimum()
        for p in paths:
            strat = p.name[len(f"{app}-{g}-"):-len("@10pct.json.gz")]
            d, reps = runmod.load_runs(p, None)
            snap(reps, st)
            ratios = [score.best_within(r, float("inf")) / opt for r in reps]
            out[(f"{app}/{g}", strat)] = {
                "median": float(np.median(ratios)),
                "worst": float(max(ratios)), "seeds": len(ratios),
                "evaluations": max(len(r) for r in reps)}
    return out


def tenth_rows(tenth, keys):
    md = ["| file | strategy | evaluations | seeds | median | worst | "
          "median within 2% |", "|---|---|---:|---:|---:|---:|:---:|"]
    for (k, n), v in sorted(tenth.items()):
        if k in keys:
            md.append(f"| {k} | {n} | {v['evaluations']} | {v['seeds']} | "
                      f"{v['median']:.4f} | {v['worst']:.4f} | "
                      f"{'yes' if v['median'] <= 1.02 else 'NO'} |")
    return md


def header(a, files, bud, prefix):
    md = ["# Search judged by the methodology: ktune and Kernel Tuner 1.5.0",
          "",
          f"Date: {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; "
          f"machine: {platform.node()} ({os.cpu_count()} CPUs, shared), "
          f"commit {commit()}; no GPU (simulation and replay).",
          "", "Command:", "", "```",
          f"KTUNE_HUB_DIR=HUB python3 bench/methodology/run.py --build "
          f"{a.build} --repeats {a.repeats} --jobs {a.jobs} --out {prefix}",
          "```", "",
          "Budget per file (seconds of recorded time, the package's 0.95 "
          "cutoff plus its 10% margin) and the score's time range:", "",
          "| file | size | range start | range end | time limit |",
          "|---|---:|---:|---:|---:|"]
    for app, g in files:
        b = bud[(app, g)]
        md.append(f"| {app}/{g} | {b['size']} | {b['start']:.1f} | "
                  f"{b['end']:.1f} | {b['limit']:.1f} |")
    return md


def set_section(per, keys, names, title, tag, prefix):
    """One set's P table, fraction tables and curves; (lines, aggregate)."""
    rows, agg = table(per, keys, names)
    md = ["", f"## {title}: performance score P", ""] + rows
    order = sorted(agg, key=lambda n: -agg[n]) + sorted(
        n for n in names if n not in agg and any(n in per[k] for k in keys))
    for field, what in FRACTIONS:
        md += ["", f"{what}, {tag} set:", ""] + \
            frac_table(per, keys, order, field)
    curves = {n: np.mean([per[k][n]["curve"] for k in keys], axis=0)
              for n in agg}
    svg(f"{prefix}-{tag}.svg", f"Aggregate P over time, {tag} set", curves)
    md += ["", f"![{tag}]({Path(prefix).name}-{tag}.svg)"]
    return md, agg


def write(a, files, bud, runs, kts, kns, prefix):
    hubcopy = Path(a.work).resolve() / "hub"
    per, missing = score_all(files, bud, runs, kts, kns, hubcopy,
                             unrun=unrun_reasons(getattr(a, "done", None)))
    names = sorted({n for f in per.values() for n in f})
    tune = [f"{app}/{g}" for app, g in files if g in ("A100", "A4000")]
    ev = [f"{app}/{g}" for app, g in files if g not in ("A100", "A4000")]
    md = header(a, files, bud, prefix)
    out = {"files": {}, "aggregate": {}}
    tenth = at_tenth(files, runs, hubcopy)
    if tune:
        sec, agg = set_section(per, tune, names, "Tuning set (A100, A4000)",
                               "tuning", prefix)
        out["aggregate"]["tuning"] = agg
        choice, why = default_rule(agg, tenth, tune)
        out["default_rule"] = {"strategy": choice, "reason": why}
        md += sec + ["", "**Default chosen on the tuning set** "
                     "(report.default_rule): "
                     f"{choice or 'none'}: {why}."]
    if ev:
        sec, agg = set_section(per, ev, names, "Evaluation set (A6000, "
                               "MI250X, W6600, W7800)", "evaluation", prefix)
        out["aggregate"]["evaluation"] = agg
        md += sec
    if tenth:
        md += ["", "## ktune's strategies at 10% of the space", "",
               "Best time found within the first ceil(size / 10) "
               "evaluations (`--set strategy.max_evals=N --set "
               "strategy.max_seconds=0`), over the file's optimum:", ""] + \
            tenth_rows(tenth, tune + ev)
        out["at_tenth"] = {f"{k}|{n}": v for (k, n), v in tenth.items()}
    reps = {n: sorted({len(per[k][n]["seeds"]) for k in per if n in per[k]})
            for n in names}
    md += ["", "Repeats per strategy and file (seeds 1..N): " + ", ".join(
        f"{n} {'/'.join(map(str, r))}" for n, r in reps.items()) + "."]
    if missing:
        md += ["", "Not run, or not every repeat scored:", ""] + \
            [f"- {m}" for m in missing]
    for k, v in per.items():
        out["files"][k] = {n: {f: x[f] for f in ("P", "frac_budget",
                                                  "normalized_end",
                                                  "opt_over_curve_end",
                                                  "seeds")}
                           for n, x in v.items()}
    Path(prefix + ".md").write_text("\n".join(md) + "\n")
    Path(prefix + ".json").write_text(json.dumps(out, indent=1) + "\n")
    print("\n".join(md))
