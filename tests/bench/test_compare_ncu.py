#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The cross-check's rules (bench/compare_ncu.py) on made-up counters: what
passes against Nsight Compute, what fails, and what each check column says.
No GPU, no ncu: the table is fed a ktune JSON and an ncu CSV written here."""
import importlib.util
import io
import json
import math
import os
import sys
import tempfile
import unittest
from contextlib import redirect_stdout

SOURCE = os.environ.get("KT_SOURCE_DIR") or os.path.join(
    os.path.dirname(__file__), "..", "..")
spec = importlib.util.spec_from_file_location(
    "compare_ncu", os.path.join(SOURCE, "bench", "compare_ncu.py"))
cn = importlib.util.module_from_spec(spec)
spec.loader.exec_module(cn)

DRAM = "dram__throughput.avg.pct_of_peak_sustained_elapsed"
MEM = "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed"
OCC = "sm__warps_active.avg.pct_of_peak_sustained_active"
LD_REQ = "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"
NAN = math.nan


class Checks(unittest.TestCase):
    def test_a_count_must_equal_ncus(self):
        self.assertEqual(cn.check(LD_REQ, 100.0, 100.0), ("equal", True))
        self.assertEqual(cn.check(LD_REQ, 100.0, 101.0)[1], False)

    def test_a_count_between_ncus_two_runs_passes(self):
        self.assertEqual(cn.check(cn.ST_SECTORS, 100.0, 98.0, 103.0),
                         ("within ncu's spread", True))

    def test_store_sectors_equal_to_ncus_instruction_count_pass(self):
        text, ok = cn.check(cn.ST_SECTORS, 16384.0, 16337.0, exact=16384.0)
        self.assertTrue(ok)
        self.assertIn("instruction-level count", text)
        self.assertIn("-0.287%", text)
        self.assertFalse(cn.check(cn.ST_SECTORS, 16384.0, 16337.0,
                                  exact=16390.0)[1])

    def test_a_percentage_within_two_points_passes(self):
        self.assertEqual(cn.check(DRAM, 85.0, 86.9), ("within 2", True))
        self.assertEqual(cn.check(DRAM, 85.0, 87.5), ("OFF by -2.5", False))

    def test_a_percentage_within_two_of_ncus_spread_passes(self):
        self.assertEqual(cn.check(DRAM, 78.4, 80.6, 79.8),
                         ("within 2 of ncu's spread", True))

    def test_a_longer_ncu_launch_passes_only_with_a_scale(self):
        # ktune 83.25 over 491 us, ncu 80.33 over 509 us: the same work.
        self.assertFalse(cn.check(MEM, 83.25, 80.33)[1])
        text, ok = cn.check(MEM, 83.25, 80.33, scale=491.0 / 509.0)
        self.assertTrue(ok)
        self.assertIn("ncu's launch +3.7%", text)

    def test_the_scale_never_excuses_an_active_cycle_share(self):
        self.assertFalse(cn.check(OCC, 80.0, 83.0, scale=1.0375)[1])

    def test_an_empty_kernels_l2_hit_rate_passes_when_ktune_says_why(self):
        self.assertFalse(cn.check(cn.L2_HIT, 96.0, 85.6)[1])
        self.assertTrue(cn.check(cn.L2_HIT, 96.0, 85.6, note="why")[1])


class LaunchScale(unittest.TestCase):
    def variant(self, vs_timed):
        return {"diagnosis": {"profiled": {"vs_timed": vs_timed}}}

    def test_a_typical_launch_gives_ktunes_over_ncus_duration(self):
        raw = {cn.DURATION: 491.0}
        self.assertAlmostEqual(
            cn.launch_scale(self.variant(1.01), raw, 509.0, True), 491 / 509)

    def test_no_scale_for_an_atypical_profiled_launch(self):
        raw = {cn.DURATION: 491.0}
        self.assertTrue(math.isnan(
            cn.launch_scale(self.variant(0.974), raw, 509.0, True)))

    def test_no_scale_when_the_launches_differ_by_more_than_5_percent(self):
        raw = {cn.DURATION: 491.0}
        self.assertTrue(math.isnan(
            cn.launch_scale(self.variant(1.0), raw, 491.0 * 1.06, True)))
        self.assertFalse(math.isnan(
            cn.launch_scale(self.variant(1.0), raw, 491.0 * 0.96, True)))

    def test_no_scale_when_the_work_differs(self):
        raw = {cn.DURATION: 491.0}
        self.assertTrue(math.isnan(
            cn.launch_scale(self.variant(1.0), raw, 509.0, False)))


def ncu_csv(rows, metrics):
    """An ncu --csv --page raw log: process lines, header, units, rows."""
    head = ["ID", "Kernel Name"] + metrics
    out = ["==PROF== Connected to process 1 (ktune)",
           ",".join('"%s"' % h for h in head),
           ",".join('""' for _ in head)]
    for i, (name, values) in enumerate(rows):
        cells = [str(i), name] + ["%s" % values.get(m, "") for m in metrics]
        out.append(",".join('"%s"' % c for c in cells))
    return "\n".join(out) + "\n"


class Table(unittest.TestCase):
    METRICS = [cn.DURATION, DRAM, MEM, LD_REQ, cn.LD_SECTORS,
               cn.ST_SECTORS, cn.SASS_SECTORS]

    def run_table(self, variants, rows):
        with tempfile.TemporaryDirectory() as d:
            kj = os.path.join(d, "k.json")
            nc = os.path.join(d, "n.csv")
            truth = os.path.join(d, "truth.txt")
            with open(kj, "w") as f:
                json.dump({"variants": variants}, f)
            with open(nc, "w") as f:
                f.write(ncu_csv(rows, self.METRICS))
            with open(truth, "w") as f:
                f.write("op/a any * *\nop/b any * *\n")
            cn.load_truth(truth)
            buf = io.StringIO()
            with redirect_stdout(buf):
                failed = cn.table(kj, nc, "op", True, set())
            return failed, buf.getvalue()

    def variant(self, name, dram, st, vs_timed=1.0, duration=491.0):
        raw = {cn.DURATION: duration, DRAM: dram, MEM: dram, LD_REQ: 8.0,
               cn.LD_SECTORS: 32.0, cn.ST_SECTORS: st}
        return {"variant": name, "config": name,
                "counters": {"raw": raw, "cost": {"kernels": 1}},
                "diagnosis": {"bound": "memory-bound",
                              "profiled": {"vs_timed": vs_timed},
                              "coalescing": {}}}

    def ncu_row(self, dram, st, duration=509.0):
        return ("k", {cn.DURATION: duration, DRAM: dram, MEM: dram,
                      LD_REQ: 8, cn.LD_SECTORS: 32, cn.ST_SECTORS: st,
                      cn.SASS_SECTORS: 32 + 16})

    def test_the_timed_round_is_the_last_and_the_rules_apply(self):
        verification = [("k", {cn.DURATION: 1.0})] * 2
        failed, text = self.run_table(
            [self.variant("a", 83.25, 16.0), self.variant("b", 90.0, 16.0)],
            verification + [self.ncu_row(80.33, 15.0),
                            self.ncu_row(80.33, 16.0)])
        self.assertIn("RESULT op/a: PASS", text)
        self.assertIn("equal to ncu's instruction-level count", text)
        self.assertIn("at ncu's launch time", text)
        self.assertIn("RESULT op/b: FAIL", text)
        self.assertEqual(failed, 2)  # b's DRAM and memory throughput

    def test_an_atypical_profiled_launch_is_not_scaled(self):
        failed, text = self.run_table(
            [self.variant("a", 83.25, 16.0, vs_timed=0.97)],
            [self.ncu_row(80.33, 16.0)])
        self.assertIn("OFF by 2.9", text)
        self.assertEqual(failed, 2)  # DRAM and memory throughput

    def test_rows_that_do_not_pair_fail(self):
        failed, text = self.run_table(
            [self.variant("a", 80.0, 16.0), self.variant("b", 80.0, 16.0)],
            [self.ncu_row(80.0, 16.0)])
        self.assertIn("cannot pair them", text)
        self.assertGreater(failed, 0)


if __name__ == "__main__":
    sys.exit(unittest.main())
