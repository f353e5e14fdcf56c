// SPDX-License-Identifier: Apache-2.0
/*
 * The nvperf libraries, loaded when CUPTI's profiler is first used rather
 * than with every ktune process: their initialisers touch some 250 MB of
 * memory, a tenth of a second or more of every start-up, in the tuner and
 * again in each worker, though most runs collect no counters. C and C++.
 */
#ifndef KT_METRICS_CUPTI_NVPERF_LOAD_H
#define KT_METRICS_CUPTI_NVPERF_LOAD_H

#ifdef __cplusplus
extern "C" {
#endif

/* Loads libnvperf_host and libnvperf_target (once per process, thread-safe)
 * from the folder libcupti was loaded from, else by name through this
 * program's search path, so that CUPTI's own dlopen of them by name finds
 * them loaded. Call before the first CUPTI profiler call. Best effort: a
 * library that cannot be loaded is left to CUPTI, whose call then fails
 * with its own result. The libraries stay loaded. */
void kt_nvperf_load(void);

#ifdef __cplusplus
}
#endif

#endif
