# SPDX-License-Identifier: Apache-2.0
"""A Kernel Tuner script run as `python -m ktune.kernel_tuner SCRIPT` runs
it, up to its first launch, without a GPU (tests/python/
test_kernel_tuner_scripts_cpu.py): tune_kernel goes through ktune's
interface (every parameter taken or refused by name), then the
declaration it made is checked (ktune's --check: the kernel's source,
space and restrictions) instead of tuned, and the run stops with
STOPPED_BEFORE_LAUNCH and the counts; run_kernel, which would launch
through CuPy, hands back the arguments unchanged, so a script that builds
its answer with it (convolution_correct.py) goes on to tune_kernel.

    python kt_check_launch.py SCRIPT.py [ARGS]
"""
import os
import runpy
import sys

from ktune import _kernel
from ktune.kernel_tuner import _run
from ktune.kernel_tuner.__main__ import install

STOPPED = "STOPPED_BEFORE_LAUNCH"


class StoppedBeforeLaunch(SystemExit):
    pass


def checked_instead(self, *args, **kwargs):
    result = self.check()
    points, feasible = result.space
    sys.stderr.write(f"{STOPPED}: the declaration checked, {points} points, "
                     f"{feasible} feasible\n")
    raise StoppedBeforeLaunch(3)


def arguments_back(kernel_name, kernel_source, problem_size, arguments, params,
                   *rest, **kw):
    sys.stderr.write(f"run_kernel {kernel_name} {dict(params)}: not launched "
                     "(no GPU); the arguments handed back unchanged\n")
    return list(arguments)


_kernel.Kernel.tune = checked_instead
_run.run_once = arguments_back
install()
sys.argv = sys.argv[1:]
sys.path.insert(0, os.path.dirname(os.path.abspath(sys.argv[0])))
runpy.run_path(sys.argv[0], run_name="__main__")
