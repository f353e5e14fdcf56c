// SPDX-License-Identifier: Apache-2.0
/*
 * ktune tune --mpi: one tuning run over the ranks of an MPI job
 * (`mpirun -np N ktune tune JOB --mpi`). Every rank loads the same job and
 * opens its own evaluator (a worker process on its host's GPU, or the
 * recording in replay); rank 0 also runs the strategy and writes the one
 * journal, and sees every other rank as a worker of its pool
 * (tuner/pool.h), one evaluate() call at a time.
 *
 * Messages are the worker protocol's JSON (isolation/worker.h), one MPI message
 * each (MPI carries them between hosts; there is no protocol of ktune's
 * own on the network):
 *   rank r -> 0   opened {device, environment, work} | error {message}
 *   0 -> rank r   evaluate {points, protocol}
 *   rank r -> 0   results {results}
 *   0 -> rank r   close
 * A rank that does not answer within the time limit is retired: its call
 * goes to another worker once (tuner/pool.h), and rank 0 ends the job
 * with MPI_Abort after writing its results, since MPI cannot finalise
 * with a rank that is not answering.
 *
 * The MPI side (app/mpi.c) is a module of its own, ktune_mpi.so, built
 * only when CMake finds MPI (KT_WITH_MPI, KT_HAVE_MPI) and the only file
 * that links libmpi: ktune loads it with dlopen when --mpi is given
 * (app/mpi_load.c), so the binary needs no MPI at run time otherwise.
 * The functions below are ktune's side: kt_mpi_init loads the module and
 * the others forward to it.
 */
#ifndef KT_CLI_MPI_H
#define KT_CLI_MPI_H

#include <jansson.h>

#include "core/error.h"
#include "core/evaluator.h"
#include "core/loader.h"

/* The module's entry points (ktune_mpi_module() returns them). */
typedef struct kt_mpi_api {
    kt_status (*init)(int *rank, int *size, int *local_rank, kt_err *err);
    void (*finish)(int abandoned, int exit_code);
    kt_status (*remote_open)(int rank, const kt_operator *op,
                             double open_timeout_s, double eval_timeout_s,
                             kt_evaluator **out, json_t **environment,
                             kt_err *err);
    int (*serve)(kt_evaluator *ev, const kt_operator *op, json_t *env,
                 const char *why);
} kt_mpi_api;
#define KT_MPI_MODULE_ENTRY "ktune_mpi_module"
typedef const kt_mpi_api *(*kt_mpi_module_fn)(void);

/* Loads ktune_mpi.so (next to the binary in a build tree, else
 * KT_MPI_MODULE_FROM_BINDIR from it) and initialises MPI (threads: rank
 * 0's pool calls it from several). KT_S_UNSUPPORTED naming the file and
 * dlerror() when the module or its libmpi cannot be loaded. The module
 * stays loaded until exit; the functions below need it. */
kt_status kt_mpi_init(int *rank, int *size, int *local_rank, kt_err *err);

/* Finalises MPI (nothing when kt_mpi_init did not load the module); with
 * `abandoned` set (a rank was retired), aborts the job with exit_code instead.
 */
void kt_mpi_finish(int abandoned, int exit_code);

/* Rank 0: the evaluator that forwards to rank `rank`, once that rank has
 * said it is open (within open_timeout_s); each evaluation must be
 * answered within eval_timeout_s per point. *environment receives the
 * rank's environment record (new reference). Closing it sends close. */
kt_status kt_mpi_remote_open(int rank, const kt_operator *op,
                             double open_timeout_s, double eval_timeout_s,
                             kt_evaluator **out, json_t **environment,
                             kt_err *err);

/* Ranks > 0: says the rank is open (ev, with its environment record env,
 * stolen), or that it could not open (ev NULL, why), then serves rank 0's
 * requests with ev until close. An exit code. */
int kt_mpi_serve(kt_evaluator *ev, const kt_operator *op, json_t *env,
                 const char *why);

#endif
