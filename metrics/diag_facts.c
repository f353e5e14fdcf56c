// SPDX-License-Identifier: Apache-2.0
#include "metrics/diag_facts.h"

#include <string.h>

void kt_diag_facts_init(kt_diag_facts *f, const kt_device *dev,
                        const kt_work *work)
{
    memset(f, 0, sizeof *f);
    f->dev = dev;
    f->work = work;
}

void kt_diag_facts_ceilings(kt_diag_facts *f, double copy_gbs,
                            double peak_bw_gbs, double fp32_gflops,
                            double sm_clock_mhz)
{
    f->copy_gbs = copy_gbs > 0 ? copy_gbs : 0;
    f->peak_bw_gbs = peak_bw_gbs > 0 ? peak_bw_gbs : 0;
    f->gflops_measured = fp32_gflops > 0;
    f->peak_gflops =
        f->gflops_measured
            ? fp32_gflops
            : (f->dev ? kt_peak_gflops_fp32(f->dev, sm_clock_mhz) : 0);
}

int kt_diagnose_point(const kt_diag_facts *f, const kt_diag_point *p,
                      kt_diagnosis *out, kt_occupancy *occ, kt_err *occ_err)
{
    kt_diag_input din;
    kt_occupancy o;
    int have_occ = 0;

    memset(&o, 0, sizeof o);
    if (p->kernel && f->dev)
        have_occ =
            kt_occupancy_of_kernel(f->dev, p->kernel, &o, occ_err) == KT_S_OK;
    else if (occ_err)
        kt_err_set(occ_err, KT_S_UNSUPPORTED, "no kernel facts");
    memset(&din, 0, sizeof din);
    if (f->work)
        din.work = *f->work;
    din.time_us = p->median_us;
    din.copy_gbs = f->copy_gbs;
    din.peak_bw_gbs = f->peak_bw_gbs;
    din.peak_gflops = f->peak_gflops;
    din.gflops_measured = f->gflops_measured;
    din.m = p->by_id;
    din.theoretical_occupancy = have_occ ? o.theoretical : -1;
    din.access_bytes = f->access_bytes;
    din.warp_size = f->dev ? f->dev->warp_size : 32;
    kt_diagnose(&din, out);
    if (occ)
        *occ = o;
    return have_occ;
}
