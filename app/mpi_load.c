// SPDX-License-Identifier: Apache-2.0
/* ktune's side of --mpi: loads the MPI module (ktune_mpi.so, app/mpi.c,
 * the only object that links libmpi) with dlopen when --mpi is given, so
 * the ktune binary has no run-time dependency on MPI (tests/app/
 * test_no_libmpi.sh checks its NEEDED list). */
#include "app/mpi.h"

#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#ifndef KT_MPI_MODULE_FROM_BINDIR
#define KT_MPI_MODULE_FROM_BINDIR "../lib/ktune/ktune_mpi.so"
#endif

/* Set once, by the first kt_mpi_init of the process (the tune command's
 * start, before any thread); read by the forwarding calls below. */
static const kt_mpi_api *loaded;

/* The module's path: next to the binary (a build tree), else where an
 * install puts it relative to bin/. */
static kt_status module_path(char *out, size_t size, kt_err *err)
{
    char exe[PATH_MAX];
    ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
    char *slash;
    int n;

    if (len > 0)
        exe[len] = '\0';
    if (len <= 0 || !(slash = strrchr(exe, '/')))
        return kt_err_set(err, KT_S_UNSUPPORTED,
                          "--mpi: cannot find the ktune binary's folder "
                          "(/proc/self/exe) to load ktune_mpi.so from");
    *slash = '\0';
    n = snprintf(out, size, "%s/ktune_mpi.so", exe);
    if (n > 0 && (size_t)n < size && access(out, R_OK) == 0)
        return KT_S_OK;
    n = snprintf(out, size, "%s/%s", exe, KT_MPI_MODULE_FROM_BINDIR);
    if (n < 0 || (size_t)n >= size)
        return kt_err_set(err, KT_S_UNSUPPORTED,
                          "--mpi: the path of ktune_mpi.so under %s is "
                          "longer than %zu bytes",
                          exe, size - 1);
    return KT_S_OK;
}

/* RTLD_GLOBAL: Open MPI's own components, which it dlopens in turn,
 * resolve libmpi's symbols through the global scope. */
static kt_status load_module(kt_err *err)
{
    char path[PATH_MAX + 64];
    void *handle;
    kt_mpi_module_fn entry;
    kt_status rc;

    if (loaded)
        return KT_S_OK;
    if ((rc = module_path(path, sizeof path, err)))
        return rc;
    if (!(handle = dlopen(path, RTLD_NOW | RTLD_GLOBAL)))
        return kt_err_set(err, KT_S_UNSUPPORTED,
                          "--mpi: cannot load %s (ktune's MPI module, which "
                          "needs Open MPI's libmpi at run time): %s",
                          path, dlerror());
    *(void **)&entry = dlsym(handle, KT_MPI_MODULE_ENTRY);
    if (!entry || !(loaded = entry())) {
        rc = kt_err_set(err, KT_S_UNSUPPORTED, "--mpi: %s has no %s()", path,
                        KT_MPI_MODULE_ENTRY);
        dlclose(handle);
        return rc;
    }
    return KT_S_OK; /* kept loaded until exit: MPI finalises late */
}

kt_status kt_mpi_init(int *rank, int *size, int *local_rank, kt_err *err)
{
    kt_status rc = load_module(err);
    return rc ? rc : loaded->init(rank, size, local_rank, err);
}

void kt_mpi_finish(int abandoned, int exit_code)
{
    if (loaded)
        loaded->finish(abandoned, exit_code);
}

kt_status kt_mpi_remote_open(int rank, const kt_operator *op,
                             double open_timeout_s, double eval_timeout_s,
                             kt_evaluator **out, json_t **environment,
                             kt_err *err)
{
    if (!loaded)
        return kt_err_set(err, KT_S_UNSUPPORTED, "--mpi: MPI is not loaded");
    return loaded->remote_open(rank, op, open_timeout_s, eval_timeout_s, out,
                               environment, err);
}

int kt_mpi_serve(kt_evaluator *ev, const kt_operator *op, json_t *env,
                 const char *why)
{
    return loaded ? loaded->serve(ev, op, env, why) : 1;
}
