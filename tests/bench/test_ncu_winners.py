# SPDX-License-Identifier: Apache-2.0
"""bench/hub/ncu_winners.py reads Nsight Compute's --csv rows out of a
stream the profiled harness also writes to: the header is found by its
column names, not taken as the first row with many commas (the harness's
own lines before it made every figure come back empty on the H200)."""
import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.environ["KT_SOURCE_DIR"], "bench", "hub"))
import ncu_winners  # noqa: E402

HEAD = ['"ID"', '"Process ID"', '"Process Name"', '"Host Name"', '"Kernel Name"', '"Context"',
        '"Stream"', '"Block Size"', '"Grid Size"', '"Device"', '"CC"', '"Section Name"',
        '"Metric Name"', '"Metric Unit"', '"Metric Value"']


def row(name, unit, value):
    cells = ['"0"', '"1"', '"gemm-2"', '"h"', '"Xgemm"', '"1"', '"7"', '"(16, 8, 1)"',
             '"(32, 32, 1)"', '"0"', '"9.0"', '"GPU Speed Of Light Throughput"']
    return ",".join(cells + [f'"{name}"', f'"{unit}"', f'"{value}"'])


class MetricsOf(unittest.TestCase):
    def test_the_header_is_found_past_the_harness_lines(self):
        text = "\n".join([
            "config,a,b,c,d,e,f,g,h,i,j,k,l,m",  # the harness's own, 14 fields
            "==PROF== Connected to process 1",
            ",".join(HEAD),
            row("DRAM Frequency", "Ghz", "3.20"),
            row("Compute (SM) Throughput", "%", "81.52"),
            row("Memory Throughput", "%", "40.10"),
            row("DRAM Throughput", "%", "3.05"),
            row("Duration", "ms", "3.25"),
        ])
        got = ncu_winners.metrics_of(text)
        self.assertEqual(set(got), set(ncu_winners.METRICS))
        self.assertEqual(got["Compute (SM) Throughput"], {"value": "81.52", "unit": "%"})
        self.assertEqual(got["Duration"]["unit"], "ms")

    def test_no_header_no_figures(self):
        self.assertEqual(ncu_winners.metrics_of("config,a,b,c,d,e,f,g,h,i,j,k\n1,2,3\n"), {})


if __name__ == "__main__":
    unittest.main()
