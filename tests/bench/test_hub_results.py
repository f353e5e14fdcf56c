#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The hub benchmarks' readers and results page (bench/hub/hub.py,
bench/hub/results.py) on made-up run folders: the figures of the table
follow from the files (evaluations per second and their ratio, compile
share, the GPU's idle fraction under the compile pool's names or the
stated fallback, best found against the recording, neutral re-timings per
unit of work for hotspot), a missing piece is a dash and is listed with
its reason, and `--check` counts are read after constraints when printed.
No GPU, no hub checkout."""
import gzip
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import unittest

SOURCE = os.environ.get("KT_SOURCE_DIR") or os.path.join(
    os.path.dirname(__file__), "..", "..")
HUBDIR = os.path.join(SOURCE, "bench", "hub")
sys.path.insert(0, HUBDIR)
spec = importlib.util.spec_from_file_location("hub", os.path.join(HUBDIR, "hub.py"))
hub = importlib.util.module_from_spec(spec)
spec.loader.exec_module(hub)
import results  # noqa: E402  (bench/hub/results.py, after hub)


def summary(evals, wall, compile_s, sampling, best_params, best_us, extra=None):
    s = {"kind": "ktune.tune", "spec": "convolution", "device": "NVIDIA H200",
         "strategy": {"name": "random"}, "evaluations": evals, "from_journal": 0,
         "overhead": {"wall_s": wall, "gpu_s": sampling / 2},
         "phases": {"warmup_s": 0.0, "sampling_s": sampling},
         "compilation": {"seconds": compile_s, "compiled": evals, "failed": 0},
         "best": {"variant": "v", "params": best_params, "median_us": best_us,
                  "config": hub.config_str(best_params)}}
    if extra:
        s["compilation"].update(extra)
    return s


class Readers(unittest.TestCase):
    def test_check_count_after_constraints_wins_over_cartesian(self):
        text = ("x.ini: convolution  ...\nspace 5120 point(s) before device limits:\n"
                "  v 5120 point(s)\n4,362 point(s) feasible after the conditions\n")
        self.assertEqual(hub.parse_check(text), (4362, "after constraints"))
        self.assertEqual(hub.parse_check("space 45 point(s) before device limits:\n"),
                         (45, "before constraints"))
        self.assertEqual(hub.parse_check("ktune tune: no such file"), (None, None))

    def test_pool_figures_are_found_under_their_names(self):
        # the names branch pool gives them (compilation.*)
        f = hub.summary_facts(summary(10, 5.0, 2.0, 1.0, {"a": 1}, 3.0,
                                      {"gpu_idle_fraction": 0.07, "wall_s": 1.5, "cpu_s": 20.0,
                                       "gpu_wait_s": 0.2, "threads": 16}))
        self.assertAlmostEqual(f["gpu_idle_fraction"], 0.07)
        self.assertEqual(f["gpu_idle_fraction_from"], "gpu_idle_fraction")
        self.assertAlmostEqual(f["compile_wall_s"], 1.5)
        self.assertAlmostEqual(f["gpu_wait_s"], 0.2)
        self.assertEqual(f["compile_workers"], 16)
        self.assertAlmostEqual(f["evals_per_s"], 2.0)
        self.assertAlmostEqual(f["compile_share"], 0.3)  # the pool's busy wall over the run's
        self.assertAlmostEqual(f["measure_s"], 1.0)
        # without the pool: summed compile seconds over the wall
        self.assertAlmostEqual(hub.summary_facts(summary(10, 5.0, 2.0, 1.0, {"a": 1}, 3.0))["compile_share"], 0.4)

    def test_without_the_pool_the_idle_fraction_is_a_stated_estimate(self):
        f = hub.summary_facts(summary(10, 5.0, 2.0, 1.0, {"a": 1}, 3.0))
        self.assertAlmostEqual(f["gpu_idle_fraction"], 0.8)
        self.assertIn("estimate", f["gpu_idle_fraction_from"])
        self.assertIsNone(hub.summary_facts(None))

    def test_hotspot_is_scored_per_unit_of_work(self):
        self.assertAlmostEqual(hub.score("hotspot", {"temporal_tiling_factor": 4}, 100.0), 25.0)
        self.assertAlmostEqual(hub.score("gemm", {"temporal_tiling_factor": 4}, 100.0), 100.0)
        g = hub.objective("hotspot", {"temporal_tiling_factor": 2}, 1000.0)
        self.assertAlmostEqual(g, 2 * 15 * 4096 * 4096 / 1e9 / 1e-3)

    def test_a_journal_reads_plain_or_gzip_and_keeps_the_first_visit_order(self):
        recs = [{"kind": "header", "space": {}},
                {"kind": "eval", "point": {"variant": "v", "params": {"a": 2}}, "status": "ok",
                 "timing": {"kernel": {"median": 5.0}}, "elapsed_s": 1.0},
                {"kind": "eval", "point": {"variant": "v", "params": {"a": 1}}, "status": "mismatch",
                 "elapsed_s": 2.0},
                {"kind": "eval", "point": {"variant": "v", "params": {"a": 2}}, "status": "ok",
                 "timing": {"kernel": {"median": 4.0}}, "elapsed_s": 3.0},
                {"kind": "run", "evaluations": 3}]
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "j.jsonl.gz")
            with gzip.open(path, "wt") as f:
                f.write("\n".join(json.dumps(r) for r in recs) + "\n{\"kind\": \"ev")  # torn
            header, evals, runs = hub.read_journal(path)
        self.assertEqual((len(evals), len(runs)), (3, 1))
        pts = hub.unique_points(evals)
        self.assertEqual([p["point"]["params"]["a"] for p in pts], [2, 1])
        self.assertEqual(pts[0]["median_us"], 4.0)
        self.assertEqual(hub.best_of("gemm", pts)["point"]["params"], {"a": 2})

    def test_declarations_are_sorted_hub_first_and_bat_apart(self):
        with tempfile.TemporaryDirectory() as d:
            for name, text in (("bat_gemm.ini", "source = ${KTUNE_BAT_DIR}/x.cu"),
                               ("hotspot.ini", "source = ${KTUNE_HUB_DIR}/kernels/hotspot_milo.cu"),
                               ("conv.ini", "source = ${KTUNE_HUB_DIR}/kernels/convolution_milo.cu"),
                               ("nbody.ini", "source = ${KTUNE_BAT_DIR}/nbody.cu")):
                with open(os.path.join(d, name), "w") as f:
                    f.write(text)
            got = [(n, k) for n, _, k in hub.discover(d)]
        self.assertEqual(got, [("convolution", "convolution"), ("hotspot", "hotspot"),
                               ("bat_gemm", None), ("nbody", None)])


class Page(unittest.TestCase):
    def make_run(self, d):
        conv = {"block_size_x": 64, "tile_size_x": 2}
        hot = {"block_size_x": 32, "temporal_tiling_factor": 2}
        hot_kt = {"block_size_x": 32, "temporal_tiling_factor": 4}
        steps = {
            "check:convolution": {"rc": 0, "count": 4362, "count_is": "after constraints", "ok": True,
                                  "cmd": "ktune tune examples/hub/convolution.ini --check", "wall_s": 0.3},
            "record:convolution": {"rc": 0, "points": 4362, "done": True, "total_wall_s": 290.0,
                                   "sessions": 2, "cache_kept": True, "journal": "rec/convolution-h200.jsonl",
                                   "best": {"params": conv, "median_us": 1000.0},
                                   "facts": hub.summary_facts(summary(4362, 290.0, 261.0, 200.0, conv,
                                                                      1000.0, {"gpu_idle_fraction": 0.05}))},
            "kt_points:convolution": {"ok": True, "evaluations": 100, "tune_s": 250.0,
                                      "evals_per_s": 0.4, "evals_per_s_own": 0.5, "points_asked": 100, "ktune_same_points_s": 7.0},
            "default:convolution": {"rc": 0, "facts": hub.summary_facts(
                summary(60, 20.0, 15.0, 4.0, conv, 1010.0))},
            "kt_strategy:convolution": {"ok": True, "strategy": "genetic_algorithm", "evaluations": 30,
                                        "best": {"params": conv, "time_us": 990.0}},
            "default:hotspot": {"rc": 0, "facts": hub.summary_facts(summary(80, 60.0, 30.0, 20.0, hot, 200.0))},
            "record:hotspot": {"rc": 0, "points": 700, "done": True, "total_wall_s": 60.0,
                               "best": {"params": hot_kt, "median_us": 390.0}},
            "kt_strategy:gemm": {"skipped": "no time left: needs 80 s, 12 s left", "done": False},
            "missing:dedispersion": {"skipped": "no declaration of dedispersion under examples/hub"},
        }
        state = {"commit": "abc123def456", "kt_version": "1.5.0", "hub": "/src/benchmark_hub", "bat": None,
                 "steps": steps, "sessions": [{"start": "2026-12-02T10:00:00Z", "end": "2026-12-02T10:09:00Z",
                                               "wall_s": 540, "argv": ["--deadline", "570"], "dry_run": False}],
                 "declarations": [{"name": "convolution", "hub": "convolution"},
                                  {"name": "bat_nbody", "hub": None}]}
        neutral = {"entries": [
            {"kernel": "convolution", "label": "ktune", "params": conv,
             "result": {"ok": True, "flush_write": {"median_us": 1000.0}, "flush_read": {"median_us": 995.0},
                        "checked": 256, "bad": 0, "device": "NVIDIA H200"}},
            {"kernel": "convolution", "label": "kernel_tuner", "params": conv,
             "result": {"ok": True, "flush_write": {"median_us": 1210.0}, "checked": 256, "bad": 0}},
            {"kernel": "hotspot", "label": "ktune", "params": hot,
             "result": {"ok": True, "flush_write": {"median_us": 200.0}}},
            {"kernel": "hotspot", "label": "kernel_tuner", "params": hot_kt,
             "result": {"ok": True, "flush_write": {"median_us": 380.0}}},
            {"kernel": "gemm", "label": "kernel_tuner", "params": {"MWG": 64},
             "result": {"ok": False, "error": "cudaLaunchKernel: too many resources requested for launch"}}]}
        with open(os.path.join(d, "state.json"), "w") as f:
            json.dump(state, f)
        # the recording's two calls: their summaries beside the journal
        os.makedirs(os.path.join(d, "rec"))
        for n, evals, before, clock in ((1, 3000, 0, 200.0), (2, 4362, 3000, 290.0)):
            with open(os.path.join(d, "rec", f"convolution-h200.session{n}.json"), "w") as f:
                json.dump({"evaluations": evals, "from_journal": before, "elapsed_s": clock}, f)
        with open(os.path.join(d, "neutral.json"), "w") as f:
            json.dump(neutral, f)

    def render(self):
        with tempfile.TemporaryDirectory() as d:
            self.make_run(d)
            page = os.path.join(d, "docs", "page.md")
            p = subprocess.run([sys.executable, os.path.join(HUBDIR, "results.py"), d, "-o", page],
                               capture_output=True, text=True)
            self.assertEqual(p.returncode, 0, p.stderr)
            with open(page) as f:
                return f.read(), p.stdout

    def row(self, text, key):
        table = text[text.rfind("## Summary"):]
        for line in table.splitlines():
            if line.startswith(f"| {key} |"):
                return [c.strip() for c in line.strip("|").split("|")]
        self.fail(f"no row for {key}")

    def test_the_table_is_last_and_its_figures_follow_from_the_files(self):
        text, stdout = self.render()
        self.assertTrue(stdout.startswith("## Summary"))
        r = self.row(text, "convolution")
        self.assertEqual(r[1], "4362 (4,362)")
        self.assertEqual(r[2], "290")
        self.assertEqual(r[3], "15.04")          # 4362 / 290 s
        self.assertEqual(r[4], "0.500")          # its own per-configuration times, not 0.4
        self.assertEqual(r[5], "30.1×")          # 15.04 / 0.5
        self.assertEqual(r[6], "0.90")           # 261 / 290
        self.assertEqual(r[7], "0.05")           # the pool's own figure
        self.assertEqual(r[8], "1.0100")         # 1010 / 1000
        self.assertEqual((r[9], r[10], r[11]), ("1000.00", "1210.00", "1.210"))
        self.assertIn("abc123def456", text)
        self.assertIn("NVIDIA H200", text)
        self.assertIn("ktune tune examples/hub/convolution.ini --check", text)
        self.assertIn("extrapolated: 2.42 h", text)  # 4362 points at 0.5/s

    def test_a_sample_that_reached_its_target_is_not_called_complete(self):
        text, _ = self.render()
        hot = text[text.index("### hotspot"):]
        self.assertIn("700 of 82,984 points (a uniform random part", hot)
        conv = text[text.index("### convolution"):]
        self.assertIn("4362 of 4,362 points (complete", conv)

    def test_the_recording_line_says_its_calls_and_whether_their_compiles_were_kept(self):
        text, _ = self.render()
        line = next(x for x in text.splitlines() if x.startswith("- recording: 4362 of 4,362"))
        self.assertIn("in 290 s over 2 calls, the compiles of the earlier calls kept (same machine) (by call: "
                      "3,000 points in 200 s (15.00/s); 1,362 points in 90 s (15.13/s))", line)
        self.assertIn("compile share 0.90; GPU idle fraction 0.05", line)  # 261 / 290
        self.assertNotIn("{", line)
        hot = next(x for x in text.splitlines() if x.startswith("- recording: 700 of"))
        self.assertNotIn("calls", hot)  # one call: nothing to say

    def test_hotspot_is_compared_per_unit_of_work(self):
        text, _ = self.render()
        r = self.row(text, "hotspot")
        # default 200 us at tf 2 = 100 us per step; recording 390 us at tf 4 = 97.5
        self.assertEqual(r[8], "1.0256")
        # neutral: Kernel Tuner 380 us / 4 = 95 against ktune's 200 / 2 = 100
        self.assertEqual(r[11], "0.950")

    def test_missing_pieces_are_dashes_and_listed_with_their_reason(self):
        text, _ = self.render()
        r = self.row(text, "dedispersion")
        self.assertTrue(all(c == "–" for c in r[2:]), r)
        self.assertIn("no declaration of dedispersion under examples/hub", text)
        self.assertIn("no time left: needs 80 s, 12 s left", text)
        self.assertIn("too many resources requested for launch", text)

    def test_a_call_with_nvrtcs_own_cache_on_is_named(self):
        line = results.nvrtc_cache_line([{"start": "T1", "cuda_cache_disable": True}, {"start": "T2"}])
        self.assertIn("**on** in the calls started T2", line)
        self.assertNotIn("T1", line)
        self.assertIn("off in every call", results.nvrtc_cache_line([{"start": "T1", "cuda_cache_disable": True}]))
        text, _ = self.render()  # the made-up run's one call predates the switch
        self.assertIn("was **on** in the calls started 2026-12-02T10:00:00Z", text)

    def test_a_folder_that_is_not_a_run_is_refused(self):
        with tempfile.TemporaryDirectory() as d:
            p = subprocess.run([sys.executable, os.path.join(HUBDIR, "results.py"), d],
                               capture_output=True, text=True)
        self.assertEqual(p.returncode, 2)
        self.assertIn("state.json", p.stderr)


if __name__ == "__main__":
    sys.exit(unittest.main())
