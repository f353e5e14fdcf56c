#include "metrics/catalog.h"

#include <math.h>
#include <string.h>

/* Request and sector counts come from the same l1tex counters Nsight
 * Compute shows, and sectors per request is computed from those two sums
 * rather than read from the .ratio metric: the three figures then agree
 * exactly, and no extra counter (or pass) is needed. */
static const kt_metric_def catalog[KT_M_COUNT] = {
    {KT_M_ACHIEVED_OCCUPANCY,
     KT_MK_COUNTER,
     "achieved_occupancy",
     "active warps per active cycle, as a share of the SM's warp slots",
     "%",
     KT_MF_VALUE,
     {"sm__warps_active.avg.pct_of_peak_sustained_active", NULL},
     1},
    {KT_M_LD_REQUESTS,
     KT_MK_COUNTER,
     "global_load_requests",
     "global load requests (one per warp-wide load instruction)",
     "requests",
     KT_MF_VALUE,
     {"l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", NULL},
     1},
    {KT_M_LD_SECTORS,
     KT_MK_COUNTER,
     "global_load_sectors",
     "32-byte sectors requested by global loads",
     "sectors",
     KT_MF_VALUE,
     {"l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", NULL},
     1},
    {KT_M_LD_SECTORS_PER_REQUEST,
     KT_MK_COUNTER,
     "global_load_sectors_per_request",
     "sectors per global load request (4 for a warp reading consecutive "
     "4-byte words)",
     "sectors/request",
     KT_MF_RATIO,
     {"l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
      "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"},
     1},
    {KT_M_ST_REQUESTS,
     KT_MK_COUNTER,
     "global_store_requests",
     "global store requests (one per warp-wide store instruction)",
     "requests",
     KT_MF_VALUE,
     {"l1tex__t_requests_pipe_lsu_mem_global_op_st.sum", NULL},
     1},
    {KT_M_ST_SECTORS,
     KT_MK_COUNTER,
     "global_store_sectors",
     "32-byte sectors written by global stores",
     "sectors",
     KT_MF_VALUE,
     {"l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum", NULL},
     1},
    {KT_M_ST_SECTORS_PER_REQUEST,
     KT_MK_COUNTER,
     "global_store_sectors_per_request",
     "sectors per global store request",
     "sectors/request",
     KT_MF_RATIO,
     {"l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
      "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum"},
     1},
    {KT_M_DRAM_READ_BYTES,
     KT_MK_COUNTER,
     "dram_bytes_read",
     "bytes read from device memory (DRAM)",
     "bytes",
     KT_MF_VALUE,
     {"dram__bytes_read.sum", NULL},
     1},
    {KT_M_DRAM_WRITE_BYTES,
     KT_MK_COUNTER,
     "dram_bytes_written",
     "bytes written to device memory (DRAM)",
     "bytes",
     KT_MF_VALUE,
     {"dram__bytes_write.sum", NULL},
     1},
    {KT_M_DRAM_THROUGHPUT,
     KT_MK_COUNTER,
     "dram_throughput",
     "DRAM throughput as a share of its peak over the elapsed time",
     "% of peak",
     KT_MF_VALUE,
     {"dram__throughput.avg.pct_of_peak_sustained_elapsed", NULL},
     1},
    {KT_M_MEMORY_THROUGHPUT,
     KT_MK_COUNTER,
     "memory_throughput",
     "throughput of the busiest memory unit (L1, L2 or DRAM) as a share of "
     "its peak",
     "% of peak",
     KT_MF_VALUE,
     {"gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed", NULL},
     1},
    {KT_M_SM_THROUGHPUT,
     KT_MK_COUNTER,
     "sm_throughput",
     "throughput of the busiest SM pipeline as a share of its peak",
     "% of peak",
     KT_MF_VALUE,
     {"sm__throughput.avg.pct_of_peak_sustained_elapsed", NULL},
     1},
    {KT_M_L1_HIT_RATE,
     KT_MK_COUNTER,
     "l1_hit_rate",
     "share of L1TEX sector lookups that hit",
     "%",
     KT_MF_VALUE,
     {"l1tex__t_sector_hit_rate.pct", NULL},
     1},
    {KT_M_L2_HIT_RATE,
     KT_MK_COUNTER,
     "l2_hit_rate",
     "share of L2 sector lookups that hit",
     "%",
     KT_MF_VALUE,
     {"lts__t_sector_hit_rate.pct", NULL},
     1},
    {KT_M_LONG_SCOREBOARD,
     KT_MK_COUNTER,
     "long_scoreboard_stalls",
     "share of active warp cycles spent waiting for an L1TEX (global, "
     "local) result",
     "% of warp cycles",
     KT_MF_PERCENT,
     {"smsp__warps_issue_stalled_long_scoreboard.sum",
      "smsp__warps_active.sum"},
     1},
    {KT_M_REGISTERS,
     KT_MK_STATIC,
     "registers_per_thread",
     "registers per thread (cudaFuncGetAttributes)",
     "registers",
     KT_MF_VALUE,
     {NULL, NULL},
     0},
    {KT_M_SHARED_PER_BLOCK,
     KT_MK_STATIC,
     "shared_memory_per_block",
     "static plus dynamic shared memory per block",
     "bytes",
     KT_MF_VALUE,
     {NULL, NULL},
     0},
    {KT_M_LOCAL_PER_THREAD,
     KT_MK_STATIC,
     "local_memory_per_thread",
     "local memory per thread: register spills and local arrays",
     "bytes",
     KT_MF_VALUE,
     {NULL, NULL},
     0},
    {KT_M_THEORETICAL_OCCUPANCY,
     KT_MK_STATIC,
     "theoretical_occupancy",
     "resident warps the resources allow, as a share of the SM's warp "
     "slots, and what limits them",
     "%",
     KT_MF_VALUE,
     {NULL, NULL},
     0},
};

const kt_metric_def *kt_metric_catalog(size_t *count)
{
    *count = KT_M_COUNT;
    return catalog;
}

const kt_metric_def *kt_metric_find(const char *name)
{
    for (size_t i = 0; i < KT_M_COUNT; ++i)
        if (strcmp(catalog[i].name, name) == 0)
            return &catalog[i];
    return NULL;
}

double kt_metric_compute(const kt_metric_def *def, const double *raw)
{
    switch (def->formula) {
    case KT_MF_VALUE: return raw[0];
    case KT_MF_RATIO: return raw[1] != 0 ? raw[0] / raw[1] : NAN;
    case KT_MF_PERCENT: return raw[1] != 0 ? 100.0 * raw[0] / raw[1] : NAN;
    }
    return NAN;
}
