// SPDX-License-Identifier: Apache-2.0
#define _GNU_SOURCE
#include "metrics/cupti/nvperf_load.h"

#include <cupti_result.h>
#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

/* nvperf is mapped once per process, for every profiling session. */
static pthread_once_t loaded = PTHREAD_ONCE_INIT;

/* The folder of the loaded libcupti (with its trailing '/'), or "" when
 * the loader cannot say. */
static void cupti_folder(char *dir, size_t size)
{
    Dl_info info;
    const char *slash;

    dir[0] = '\0';
    memset(&info, 0, sizeof info);
    if (!dladdr((void *)cuptiGetResultString, &info) || !info.dli_fname)
        return;
    slash = strrchr(info.dli_fname, '/');
    if (slash && (size_t)(slash - info.dli_fname) + 2 <= size)
        snprintf(dir, size, "%.*s", (int)(slash - info.dli_fname + 1),
                 info.dli_fname);
}

static void load_all(void)
{
    static const char *const libs[] = {"libnvperf_host.so",
                                       "libnvperf_target.so"};
    char dir[PATH_MAX], path[PATH_MAX + 64];

    cupti_folder(dir, sizeof dir);
    for (size_t i = 0; i < sizeof libs / sizeof libs[0]; ++i) {
        /* RTLD_GLOBAL: CUPTI's later dlopen by name matches the loaded
         * library's soname and takes this copy. */
        snprintf(path, sizeof path, "%s%s", dir, libs[i]);
        if (dir[0] && dlopen(path, RTLD_NOW | RTLD_GLOBAL))
            continue;
        /* By name: this program's RUNPATH holds the toolkit's folders. */
        (void)dlopen(libs[i], RTLD_NOW | RTLD_GLOBAL);
    }
}

void kt_nvperf_load(void)
{
    pthread_once(&loaded, load_all);
}
