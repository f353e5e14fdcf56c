#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The results page of a run_h200.py run: reads its --out folder
(state.json, the ktune summaries and journals, Kernel Tuner's run files,
neutral.json) and writes Markdown: commands, date, GPU, commit, what was
skipped and why, the Kernel Tuner sample's extrapolation, and per kernel
points, wall, evaluations per second of both tools and their ratio,
compile share, the GPU's idle fraction, the best found against the
recorded optimum, and the neutral harness's re-timings with their ratios;
the short table last. A missing figure is a dash, never a guess.

    python3 bench/hub/results.py OUT_DIR [-o docs/results/2026-12-02-h200-hub-kernels.md]...
"""
import argparse
import glob
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import hub  # noqa: E402


REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def portable(cmd):
    """A command as printed in a shipped table: paths inside the checkout are
    relative to it, so the table names no folder of the machine it ran on."""
    return cmd.replace(REPO + "/", "")


def f(v, fmt="%.2f", none="–"):
    if v is None:
        return none
    try:
        return fmt % v
    except TypeError:
        return str(v)


def ratio(a, b):
    return a / b if a is not None and b not in (None, 0) else None


def recording_calls(r):
    """How many device calls a recording took, what each added and whether
    the last one found the earlier part's compiles (run_h200.py
    record_cache)."""
    n = r.get("record_calls") or 1
    if n <= 1 or r.get("points") is None:
        return ""
    kept = ("the compiles of the earlier calls kept (same machine)" if r.get("record_cache_kept")
            else "the last one compiled afresh")
    parts = "; ".join(f"{c['points']:,} points in {c['seconds']:.0f} s ({c['rate']:.2f}/s)"
                      for c in r.get("record_parts") or [])
    return f" over {n} calls, {kept}" + (f" (by call: {parts})" if parts else "")


def recording_parts(out, journal):
    """Each call's part of a recording from its summaries beside the
    journal (KEY-TAG.sessionN.json): the points it added and the run
    clock it took (the clock continues across calls)."""
    stem = os.path.join(out, (journal or "-").split(".jsonl")[0])
    found = []
    for path in glob.glob(glob.escape(stem) + ".session*.json"):
        tail = path[len(stem) + len(".session"):-len(".json")]
        doc = hub.load_json(path) or {}
        if tail.isdigit() and doc.get("evaluations") is not None and doc.get("elapsed_s"):
            found.append((int(tail), doc))
    parts, clock = [], 0.0
    for _, doc in sorted(found, key=lambda x: x[0]):
        fresh = doc["evaluations"] - (doc.get("from_journal") or 0)
        took = doc["elapsed_s"] - clock
        if fresh > 0 and took > 0:
            parts.append({"points": fresh, "seconds": took, "rate": fresh / took})
        clock = doc["elapsed_s"]
    return parts


def nvrtc_cache_line(sessions):
    """Whether NVRTC's own cache (the driver's compute cache, shared across
    processes) was off in each call: where it was on, a kernel an earlier
    step compiled may have been reused by a later one."""
    on = [s.get("start") or "?" for s in sessions if not s.get("cuda_cache_disable")]
    if not on:
        return ("- NVRTC's own cache (the driver's compute cache): off in every call "
                "(CUDA_CACHE_DISABLE=1); every timed run also has fresh ktune and Kernel Tuner caches")
    return ("- NVRTC's own cache (the driver's compute cache) was **on** in the calls started "
            f"{', '.join(on)}: there a kernel compiled by an earlier step may have been reused by a "
            "later one, and its compile times and evaluation rates are upper bounds")


class Page:
    def __init__(self, out):
        self.out = out
        self.state = hub.load_json(os.path.join(out, "state.json")) or {"steps": {}, "sessions": []}
        self.steps = self.state.get("steps") or {}
        self.neutral = hub.load_json(os.path.join(out, "neutral.json")) or {}

    def step(self, name):
        return self.steps.get(name) or {}

    def device(self):
        for name, s in self.steps.items():
            d = (s.get("facts") or {}).get("device")
            if d:
                return d
        for e in self.neutral.get("entries") or []:
            d = (e.get("result") or {}).get("device")
            if d:
                return d
        return None

    def neutral_of(self, key):
        """label -> (median µs under the write flush, entry)."""
        out = {}
        for e in self.neutral.get("entries") or []:
            if e.get("kernel") != key:
                continue
            r = e.get("result") or {}
            med = (r.get("flush_write") or {}).get("median_us") if r.get("ok") else None
            out[e.get("label")] = (med, e)
        return out

    def kernel_row(self, key):
        """Every figure of one hub kernel (None where missing)."""
        rec, dft = self.step(f"record:{key}"), self.step(f"default:{key}")
        ktp, kts = self.step(f"kt_points:{key}"), self.step(f"kt_strategy:{key}")
        chk = self.step(f"check:{key}")
        rf = rec.get("facts") or {}
        df = dft.get("facts") or {}
        row = {"key": key, "check": chk.get("count"), "check_is": chk.get("count_is"),
               "check_rc": chk.get("rc"), "feasible": hub.KERNELS[key]["feasible"],
               "points": rec.get("points"), "wall_s": rec.get("total_wall_s") or rec.get("wall_s"),
               # a whole-space recording that is done; a sample is never complete
               "complete": rec.get("done") and hub.KERNELS[key]["record"] == "whole",
               # Kernel Tuner's own per-configuration times where it gives
               # them (its lower bound), else its wall time
               "kt_evals_per_s": (ktp.get("evals_per_s_own") or ktp.get("evals_per_s"))
               if ktp.get("ok") else None,
               "kt_evals_per_s_wall": ktp.get("evals_per_s") if ktp.get("ok") else None,
               "kt_evals": ktp.get("evaluations"), "kt_tune_s": ktp.get("tune_s"),
               "compile_share": rf.get("compile_share"), "gpu_idle": rf.get("gpu_idle_fraction"),
               "gpu_idle_from": rf.get("gpu_idle_fraction_from"),
               "compile_wall_s": rf.get("compile_wall_s") if rf.get("compile_wall_s") is not None
               else rf.get("compile_s"), "compile_cpu_s": rf.get("compile_cpu_s"),
               "compile_workers": rf.get("compile_workers"), "gpu_wait_s": rf.get("gpu_wait_s"),
               "measure_s": rf.get("measure_s")}
        row["record_parts"] = recording_parts(self.out, rec.get("journal"))
        # ktune's evaluations per second: the recording's (same protocol,
        # uniform points), else the default run's
        # (over every call of it: the points each added over the run clock
        # each took, as ktune's own figure counts one call's)
        parts = row["record_parts"]
        whole = (sum(c["points"] for c in parts) / sum(c["seconds"] for c in parts)) if parts else None
        row["ktune_evals_per_s"] = whole or rf.get("evals_per_s") or df.get("evals_per_s")
        row["ktune_evals_from"] = "recording" if whole or rf.get("evals_per_s") else (
            "default run" if df.get("evals_per_s") else None)
        row["ratio"] = ratio(row["ktune_evals_per_s"], row["kt_evals_per_s"])
        row["record_screen"] = rec.get("screen_samples")
        row["record_calls"], row["record_cache_kept"] = rec.get("sessions") or 1, rec.get("cache_kept")
        rb = rec.get("best") or {}
        rbest = hub.score(key, rb.get("params") or {}, rb.get("median_us"))
        db = df.get("best") or {}
        dbest = hub.score(key, db.get("params") or {}, db.get("median_us"))
        row["default_best_us"], row["recorded_best_us"] = db.get("median_us"), rb.get("median_us")
        row["default_vs_recorded"] = ratio(dbest, rbest)
        row["default_evals"], row["default_wall"] = df.get("evaluations"), df.get("wall_s")
        row["kt_strategy"] = kts.get("strategy")
        row["kt_strategy_evals"] = kts.get("evaluations")
        kb = kts.get("best") or {}
        row["kt_best_us"] = kb.get("time_us")
        nt = self.neutral_of(key)
        for label in ("ktune", "kernel_tuner", "recorded_best"):
            med, e = nt.get(label, (None, None))
            row[f"n_{label}"] = hub.score(key, (e or {}).get("params") or {}, med)
            row[f"n_{label}_raw"] = med
            row[f"n_{label}_entry"] = e
        row["n_kt_over_ktune"] = ratio(row["n_kernel_tuner"], row["n_ktune"])
        row["n_ktune_over_recorded"] = ratio(row["n_ktune"], row["n_recorded_best"])
        if row["kt_evals_per_s"]:
            row["kt_sweep_extrapolated_s"] = row["feasible"] / row["kt_evals_per_s"]
        else:
            row["kt_sweep_extrapolated_s"] = None
        scr = self.step(f"screen:{key}")
        row["screen_samples"], row["screen_points"] = scr.get("screen_samples"), scr.get("same_points")
        row["screen_s"], row["screen_evals_per_s"] = scr.get("same_points_s"), scr.get("evals_per_s")
        row["screen_ratio"] = ratio(scr.get("evals_per_s"), row["kt_evals_per_s"])
        row["screen_best"] = ((scr.get("facts") or {}).get("best") or {}).get("median_us")
        row["ktune_same_points_s"] = ktp.get("ktune_same_points_s")
        row["kt_points_asked"] = ktp.get("points_asked")
        return row

    def header(self):
        st = self.state
        sessions = st.get("sessions") or []
        start = sessions[0].get("start") if sessions else None
        lines = ["# The benchmark-hub kernels on the H200: ktune and Kernel Tuner 1.5.0 in one run", ""]
        dry = any(s.get("dry_run") for s in sessions)
        if dry:
            lines += ["**DRY RUN (no GPU): Kernel Tuner ran in simulation mode on made-up times and "
                      "ktune's GPU commands failed at once; no number on this page is a measurement.**", ""]
        lines += [f"- date: {start or '–'} (UTC); GPU: {self.device() or '–'}; commit of the last call: "
                  f"`{st.get('commit', '–')}` (each call's tree below where recorded); Kernel Tuner {st.get('kt_version') or '–'} "
                  "(the hub's own scripts, cupy backend)",
                  f"- hub checkout: KTUNE_HUB_DIR={st.get('hub') or '–'}; BAT: KTUNE_BAT_DIR={st.get('bat') or '–'}",
                  "- produced by `bench/hub/run_h200.sh` (bench/hub/run_h200.py), page by `bench/hub/results.py`;"
                  " sessions:"]
        for s in sessions:
            tree = f", tree `{s['commit']}`" if s.get("commit") else ""
            lines.append(f"  - {s.get('start')}–{s.get('end', '?')} ({f(s.get('wall_s'), '%.0f')} s{tree}): "
                         f"`run_h200.sh {' '.join(s.get('argv') or [])}`")
        lines.append(nvrtc_cache_line(sessions))
        if st.get("parallel"):
            lines.append(f"- the two tools ran at the same time on two GPUs of one host: {st['parallel']}")
        for k in ("ktune_missing", "kt_missing"):
            if st.get(k):
                lines.append(f"- **missing**: {st[k]}")
        return lines

    def commands(self):
        lines = ["", "## Commands", ""]
        for name in sorted(self.steps):
            s = self.steps[name]
            if s.get("cmd"):
                lines.append(f"- `{name}` (exit {s.get('rc')}, {f(s.get('wall_s'), '%.1f')} s): "
                             f"`{portable(s['cmd'])}`")
        return lines

    def skipped(self):
        lines = []
        for name in sorted(self.steps):
            s = self.steps[name]
            why = s.get("skipped") or s.get("error")
            if why or (s.get("rc") not in (None, 0)):
                lines.append(f"- `{name}`: {why or 'exit %s: %s' % (s.get('rc'), (s.get('tail') or '').strip().splitlines()[-1:] or '')}")
        return (["", "## Not done, failed or skipped", ""] + lines) if lines else []

    def details(self, rows):
        lines = ["", "## Per kernel", ""]
        for r in rows:
            k = r["key"]
            lines.append(f"### {k}")
            lines.append("")
            lines.append(f"- `--check`: {f(r['check'], '%d')} points ({r['check_is'] or '–'}); the T1 file's "
                         f"feasible count {r['feasible']:,}")
            lines.append(f"- recording: {f(r['points'], '%d')} of {r['feasible']:,} points "
                         f"({'complete' if r['complete'] else 'a uniform random part'}"
                         + (f"; screen_samples {r['record_screen']}, the finalist in full"
                            if r.get("record_screen") else "; every point in the full protocol")
                         + ") in "
                         f"{f(r['wall_s'], '%.0f')} s" + recording_calls(r) + f"; compile share {f(r['compile_share'], '%.2f')}; GPU idle "
                         f"fraction {f(r['gpu_idle'], '%.2f')}" + (f" ({r['gpu_idle_from']})" if r['gpu_idle_from'] else "")
                         + f" (last call: compiling {f(r['compile_wall_s'], '%.1f')} s wall, "
                         f"{f(r['compile_cpu_s'], '%.1f')} s CPU on {f(r['compile_workers'], '%d')} threads; "
                         f"the GPU waited for compiles {f(r['gpu_wait_s'], '%.1f')} s; measuring "
                         f"{f(r['measure_s'], '%.1f')} s)")
            if r["kt_evals"] is not None:
                lines.append(f"- Kernel Tuner on the same first {f(r['kt_points_asked'], '%d')} points: "
                             f"{r['kt_evals']} evaluations in {f(r['kt_tune_s'], '%.1f')} s "
                             f"({f(r['kt_evals_per_s'], '%.3f')}/s by its own per-configuration times, "
                             f"{f(r['kt_evals_per_s_wall'], '%.3f')}/s by the wall time of tune_kernel); ktune reached the same points after "
                             f"{f(r['ktune_same_points_s'], '%.1f')} s; Kernel Tuner's whole space extrapolated: "
                             f"{f(r['kt_sweep_extrapolated_s'] and r['kt_sweep_extrapolated_s'] / 3600, '%.2f')} h")
            if r["screen_points"] is not None:
                lines.append(f"- ktune on those points with the screen (screen_samples "
                             f"{r['screen_samples']}, the finalists in full): {r['screen_points']} of them in "
                             f"{f(r['screen_s'], '%.1f')} s, {f(r['screen_evals_per_s'])}/s, "
                             f"**{f(r['screen_ratio'], '%.1f×')}** Kernel Tuner's rate; its answer "
                             f"{f(r['screen_best'], '%.2f')} µs")
            lines.append(f"- default strategy: {f(r['default_evals'], '%d')} evaluations in "
                         f"{f(r['default_wall'], '%.1f')} s, best {f(r['default_best_us'], '%.2f')} µs, "
                         f"{f(r['default_vs_recorded'], '%.4f')}× the recorded best "
                         f"({f(r['recorded_best_us'], '%.2f')} µs)")
            lines.append(f"- Kernel Tuner {r['kt_strategy'] or '–'}: {f(r['kt_strategy_evals'], '%d')} "
                         f"evaluations, best {f(r['kt_best_us'], '%.2f')} µs (its own timing)")
            for label in ("ktune", "kernel_tuner", "recorded_best"):
                e = r[f"n_{label}_entry"]
                if e:
                    res = e.get("result") or {}
                    cmp_ = e.get("vs_first") or {}
                    lines.append(f"- neutral harness, {label}: {f(r[f'n_{label}_raw'], '%.2f')} µs "
                                 f"(write flush; read flush {f((res.get('flush_read') or {}).get('median_us'), '%.2f')} µs), "
                                 f"host check {res.get('bad', '–')} bad of {res.get('checked', '–')}, output vs "
                                 f"{cmp_.get('to', '–')}: {f(cmp_.get('max_rel_diff'), '%.2g')}; "
                                 f"`{hub.config_str(e.get('params') or {})}`"
                                 + ("" if res.get("ok") else f"; **{res.get('error') or (e.get('build') or {}).get('error', '')[-200:]}**"))
            lines.append("")
        return lines

    def profiles(self):
        lines = []
        for name in sorted(self.steps):
            if name.startswith("profile:"):
                s = self.steps[name]
                lines.append(f"- `{name}` (exit {s.get('rc')}): {'; '.join(s.get('diagnosis') or []) or '–'}")
        ncu = self.step("ncu")
        for ln in ncu.get("lines") or []:
            lines.append(f"- Nsight Compute (`--clock-control none`, SpeedOfLight) on ktune's winner: {ln}")
        return (["## ktune profile of the winners", ""] + lines + [""]) if lines else []

    def others(self):
        lines = []
        for d in self.state.get("declarations") or []:
            if d.get("hub"):
                continue
            n = d["name"]
            c, df = self.step(f"check:{n}"), (self.step(f"default:{n}").get("facts") or {})
            b = df.get("best") or {}
            lines.append(f"| {n} | {f(c.get('count'), '%d')} | {f(df.get('evaluations'), '%d')} | "
                         f"{f(df.get('wall_s'), '%.1f')} | {b.get('config', '–')} | {f(b.get('median_us'), '%.2f')} |")
        if not lines:
            return []
        return ["## Other declarations (BAT)", "",
                "| declaration | --check points | default: evals | wall s | best | µs |",
                "|---|---|---|---|---|---|"] + lines + [""]

    def table(self, rows):
        lines = ["## Summary", "",
                 "| kernel | points (of T1) | wall s | evals/s ktune | evals/s KT | ratio | compile share | "
                 "GPU idle | default vs recorded | neutral µs ktune | neutral µs KT | KT / ktune |",
                 "|---|---|---|---|---|---|---|---|---|---|---|---|"]
        for r in rows:
            lines.append(
                f"| {r['key']} | {f(r['points'], '%d')} ({r['feasible']:,}) | {f(r['wall_s'], '%.0f')} | "
                f"{f(r['ktune_evals_per_s'])} | {f(r['kt_evals_per_s'], '%.3f')} | {f(r['ratio'], '%.1f×')} | "
                f"{f(r['compile_share'])} | {f(r['gpu_idle'])} | {f(r['default_vs_recorded'], '%.4f')} | "
                f"{f(r['n_ktune_raw'])} | {f(r['n_kernel_tuner_raw'])} | {f(r['n_kt_over_ktune'], '%.3f')} |")
        scr = [r for r in rows if r["screen_points"] is not None]
        if scr:
            lines += ["", "| kernel | same points | ktune screened s | evals/s ktune | evals/s KT | ratio |",
                      "|---|---|---|---|---|---|"]
            lines += [f"| {r['key']} | {r['screen_points']} | {f(r['screen_s'], '%.1f')} | "
                      f"{f(r['screen_evals_per_s'])} | {f(r['kt_evals_per_s'], '%.3f')} | "
                      f"{f(r['screen_ratio'], '%.1f×')} |" for r in scr]
        lines += ["", "ratio: ktune's evaluations per second over Kernel Tuner's on the same points (Kernel "
                  "Tuner's from its own per-configuration times, its most favourable figure); "
                  "default vs recorded: the default strategy's answer over the recording's best (ktune's "
                  "protocol; hotspot per unit of work); KT / ktune: the neutral harness's median of Kernel "
                  "Tuner's answer over ktune's (> 1: ktune's is faster; hotspot per unit of work)."]
        return lines

    def render(self):
        rows = [self.kernel_row(k) for k in hub.ORDER]
        lines = self.header() + self.commands() + self.skipped() + self.details(rows)
        lines += self.profiles() + self.others() + self.table(rows)
        return "\n".join(lines) + "\n"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("out_dir")
    ap.add_argument("-o", "--output", action="append", default=[])
    a = ap.parse_args(argv)
    if not os.path.isfile(os.path.join(a.out_dir, "state.json")):
        print(f"results.py: {a.out_dir}/state.json: not there (not a run_h200.py output folder)",
              file=sys.stderr)
        return 2
    text = Page(a.out_dir).render()
    for path in a.output:
        os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
        with open(path, "w") as fh:
            fh.write(text)
    if not a.output:
        sys.stdout.write(text)
    else:
        sys.stdout.write(text[text.rfind("## Summary"):])
    return 0


if __name__ == "__main__":
    sys.exit(main())
