// SPDX-License-Identifier: Apache-2.0
#include "engine/nvrtc.h"

#include <cuda_runtime_api.h>
#include <nvrtc.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/cachedir.h"
#include "core/clock.h"
#include "core/hash.h"
#include "core/msg.h"
#include "core/settings.h"
#include "core/term.h"
#include "engine/calibrate.h"
#include "engine/nvrtc_code.h"

#define CACHE_MAGIC "KTNVRTC1"

/* Guards the statistics. */
static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;

/* Everything that decides the binary, in one text: hashed for the key and
 * kept in the entry, so a colliding hash reads as a miss. */
typedef struct identity {
    char *text;
    size_t size;
} identity;

static kt_status nvrtc_check(nvrtcResult r, const char *call, kt_err *err)
{
    if (r == NVRTC_SUCCESS)
        return KT_S_OK;
    return kt_err_set(err, KT_S_UNSUPPORTED, "%s: %s", call,
                      nvrtcGetErrorString(r));
}

kt_status kt_nvrtc_version(int *major, int *minor, kt_err *err)
{
    return nvrtc_check(nvrtcVersion(major, minor), "nvrtcVersion", err);
}

/* The identity: NVRTC's version, the architecture, the kernel, the
 * options (the toolkit's include folder last, as NVRTC gets them), every
 * header the source includes with its content's hash
 * (engine/nvrtc_headers.c; none: no line, so a source without includes
 * keeps the key it had), then the source. The code identity (ir: the
 * front end's IR hash, engine/nvrtc_code.c) has the IR in place of the
 * -D/-U options, and a first line of its own. */
static kt_status make_identity(const kt_nvrtc_request *req, const char *ir,
                               identity *id, kt_err *err)
{
    const char *toolkit = kt_nvrtc_toolkit_option();
    int major = 0, minor = 0;
    size_t size;
    char *p, *headers = NULL;
    kt_status rc;

    if ((rc = kt_nvrtc_version(&major, &minor, err)) ||
        (rc = kt_nvrtc_headers(req, &headers, err)))
        return rc;
    size = 160 + strlen(req->arch) + strlen(req->name_expr) +
           strlen(req->source) + (headers ? strlen(headers) : 0) +
           (toolkit ? strlen(toolkit) : 0);
    for (size_t i = 0; i < req->num_options; ++i)
        size += strlen(req->options[i]) + 8;
    if (!(p = malloc(size))) {
        free(headers);
        return kt_err_set(err, KT_S_NOMEM, "out of memory");
    }
    id->text = p;
    p += sprintf(p, "%s\nnvrtc %d.%d\narch %s\nname %s\n",
                 ir ? "ktune-nvrtc-code 1" : "ktune-nvrtc 1", major, minor,
                 req->arch, req->name_expr);
    for (size_t i = 0; i < req->num_options; ++i)
        if (!ir || !kt_nvrtc_preprocessor_option(req->options[i]))
            p += sprintf(p, "opt %s\n", req->options[i]);
    if (toolkit)
        p += sprintf(p, "opt %s\n", toolkit);
    if (ir)
        p += sprintf(p, "ir %s\n", ir);
    p += sprintf(p, "%ssource\n%s", headers ? headers : "", req->source);
    id->size = (size_t)(p - id->text);
    free(headers);
    return KT_S_OK;
}

/* Two FNV-1a passes with different bases: 128 bits of file name. */
static void hash_identity(const identity *id, char key[33])
{
    kt_hash_hex128(id->text, id->size, key);
}

kt_status kt_nvrtc_key(const kt_nvrtc_request *req, char key[33], kt_err *err)
{
    identity id = {0};
    kt_status rc = make_identity(req, NULL, &id, err);
    if (!rc)
        hash_identity(&id, key);
    free(id.text);
    return rc;
}

void kt_nvrtc_arch(int major, int minor, char *out, size_t out_size)
{
    snprintf(out, out_size, "sm_%d%d", major, minor);
}

/* KTUNE_NVRTC_CACHE=off: no cache. */
static int cache_off(void)
{
    kt_settings set;
    const char *off;

    kt_settings_read(&set);
    off = set.ktune_nvrtc_cache;
    return off && strcmp(off, "off") == 0;
}

void kt_nvrtc_cache_dir(char *out, size_t out_size)
{
    int n;

    if (cache_off() || kt_cache_root(out, out_size, NULL))
        out[0] = '\0';
    else if ((n = (int)strlen(out)) + sizeof "/nvrtc" > out_size)
        out[0] = '\0';
    else
        memcpy(out + n, "/nvrtc", sizeof "/nvrtc");
}

kt_status kt_nvrtc_cache_open(char *out, size_t out_size, kt_err *err)
{
    out[0] = '\0';
    return cache_off() ? KT_S_OK : kt_cache_dir("nvrtc", out, out_size, err);
}

/* The entry's bytes being parsed. */
typedef struct reader {
    const char *at, *end;
} reader;

/* A length and that many bytes, no longer than what is left: a damaged
 * length is a damaged entry, never a huge allocation. */
static int read_blob(reader *r, char **out, size_t *size)
{
    uint64_t n;
    if ((size_t)(r->end - r->at) < sizeof n)
        return -1;
    memcpy(&n, r->at, sizeof n);
    r->at += sizeof n;
    if (n > (uint64_t)(r->end - r->at) || !(*out = malloc((size_t)n + 1)))
        return -1;
    memcpy(*out, r->at, (size_t)n);
    (*out)[n] = '\0';
    r->at += n;
    *size = (size_t)n;
    return 0;
}

static int write_blob(FILE *f, const void *data, size_t size)
{
    uint64_t n = size;
    return fwrite(&n, sizeof n, 1, f) == 1 &&
                   (!size || fwrite(data, 1, size, f) == size)
               ? 0
               : -1;
}

/* The entry's fields after its identity into out: 1, or -1 damaged. */
static int parse_rest(reader *r, kt_nvrtc_output *out)
{
    uint32_t compiled;
    size_t n;

    if ((size_t)(r->end - r->at) < sizeof compiled)
        return -1;
    memcpy(&compiled, r->at, sizeof compiled);
    r->at += sizeof compiled;
    if (read_blob(r, &out->lowered, &n) || read_blob(r, &out->log, &n) ||
        read_blob(r, &out->image, &out->image_size) || r->at != r->end)
        return -1;
    /* The log reaches the terminal: no escape sequence from a file. */
    kt_term_sanitize(out->log);
    out->compiled = compiled != 0;
    out->cached = 1;
    return 1;
}

/* 1: a valid entry for exactly this identity was read into out; 0: none
 * (no file, or another identity under the same hash); -1: a damaged entry
 * (wrong magic, sizes beyond the file); -2: one not to be used (a link, not
 * ours, writable by others, its hash wrong: said in a note here). Both are
 * misses. */
static int cache_read(const char *dir, const char *name, const identity *id,
                      kt_nvrtc_output *out)
{
    char *text = NULL, *stored = NULL;
    size_t len = 0, stored_size = 0;
    reader r;
    kt_err e;
    int ok = -1;

    kt_err_clear(&e);
    if (kt_cache_get(dir, name, KT_NVRTC_ENTRY_MAX, &text, &len, &e)) {
        kt_term_sanitize(e.msg);
        kt_msg("note: %s; compiling it again\n", e.msg);
        ok = -2;
    } else if (!text) {
        ok = 0;
    } else if (r.at = text, r.end = text + len,
               len >= 8 && memcmp(text, CACHE_MAGIC, 8) == 0) {
        r.at += 8;
        if (read_blob(&r, &stored, &stored_size) == 0)
            ok = stored_size != id->size ||
                         memcmp(stored, id->text, id->size) != 0
                     ? 0 /* a whole entry of another identity */
                     : parse_rest(&r, out);
    }
    free(stored);
    free(text);
    if (ok != 1) {
        kt_nvrtc_output_free(out);
        memset(out, 0, sizeof *out);
    }
    return ok;
}

/* Written whole (core/cachedir.h): readers see whole entries. */
static void cache_write(const char *dir, const char *name, const identity *id,
                        const kt_nvrtc_output *out)
{
    uint32_t compiled = (uint32_t)out->compiled;
    char *buf = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&buf, &size);
    int bad;

    if (!f)
        return;
    bad =
        fwrite(CACHE_MAGIC, 1, 8, f) != 8 ||
        write_blob(f, id->text, id->size) ||
        fwrite(&compiled, sizeof compiled, 1, f) != 1 ||
        write_blob(f, out->lowered, out->lowered ? strlen(out->lowered) : 0) ||
        write_blob(f, out->log, out->log ? strlen(out->log) : 0) ||
        write_blob(f, out->image, out->image_size);
    bad |= fclose(f) != 0;
    if (!bad)
        (void)kt_cache_put(dir, name, buf, size, NULL);
    free(buf);
}

static kt_status fetch_log(nvrtcProgram prog, kt_nvrtc_output *out, kt_err *err)
{
    size_t size = 0;
    kt_status rc;

    if ((rc = nvrtc_check(nvrtcGetProgramLogSize(prog, &size),
                          "nvrtcGetProgramLogSize", err)))
        return rc;
    if (!(out->log = calloc(1, size + 1)))
        return kt_err_set(err, KT_S_NOMEM, "out of memory");
    return nvrtc_check(nvrtcGetProgramLog(prog, out->log), "nvrtcGetProgramLog",
                       err);
}

static kt_status fetch_image(nvrtcProgram prog, const kt_nvrtc_request *req,
                             kt_nvrtc_output *out, kt_err *err)
{
    int cubin = strncmp(req->arch, "sm_", 3) == 0;
    const char *lowered = NULL;
    kt_status rc;

    if ((rc = nvrtc_check(nvrtcGetLoweredName(prog, req->name_expr, &lowered),
                          "nvrtcGetLoweredName", err)))
        return rc;
    if (!(out->lowered = strdup(lowered)))
        return kt_err_set(err, KT_S_NOMEM, "out of memory");
    rc = cubin ? nvrtc_check(nvrtcGetCUBINSize(prog, &out->image_size),
                             "nvrtcGetCUBINSize", err)
               : nvrtc_check(nvrtcGetPTXSize(prog, &out->image_size),
                             "nvrtcGetPTXSize", err);
    if (rc)
        return rc;
    if (!(out->image = malloc(out->image_size + 1)))
        return kt_err_set(err, KT_S_NOMEM, "out of memory");
    return cubin
               ? nvrtc_check(nvrtcGetCUBIN(prog, out->image), "nvrtcGetCUBIN",
                             err)
               : nvrtc_check(nvrtcGetPTX(prog, out->image), "nvrtcGetPTX", err);
}

kt_status kt_nvrtc_run_here(const kt_nvrtc_request *req, kt_nvrtc_output *out,
                            kt_err *err)
{
    nvrtcProgram prog = NULL;
    char arch[64];
    int n;
    const char **opts = kt_nvrtc_options(req, 0, arch, &n);
    double t0 = kt_clock_seconds(), cpu0 = kt_clock_thread_cpu_seconds();
    nvrtcResult r;
    kt_status rc;

    if (!opts)
        return kt_err_set(err, KT_S_NOMEM, "out of memory");
    if ((rc = nvrtc_check(nvrtcCreateProgram(&prog, req->source,
                                             req->source_name, 0, NULL, NULL),
                          "nvrtcCreateProgram", err)) ||
        (rc = nvrtc_check(nvrtcAddNameExpression(prog, req->name_expr),
                          "nvrtcAddNameExpression", err)))
        goto done;
    r = nvrtcCompileProgram(prog, n, opts);
    if ((rc = fetch_log(prog, out, err)))
        goto done;
    if (r == NVRTC_ERROR_COMPILATION)
        out->compiled = 0;
    else if (!(rc = nvrtc_check(r, "nvrtcCompileProgram", err)) &&
             !(rc = fetch_image(prog, req, out, err)))
        out->compiled = 1;
    out->seconds = kt_clock_seconds() - t0;
    out->cpu_seconds = kt_clock_thread_cpu_seconds() - cpu0;
done:
    if (prog)
        nvrtcDestroyProgram(&prog);
    free(opts);
    return rc;
}

/* Process-wide counts of compiles and cache hits (kt_nvrtc_stats_get),
 * under g_lock: every compile of the process adds to them. */
static kt_nvrtc_stats g_stats;

void kt_nvrtc_stats_get(kt_nvrtc_stats *out)
{
    pthread_mutex_lock(&g_lock);
    *out = g_stats;
    pthread_mutex_unlock(&g_lock);
}

void kt_nvrtc_stats_count(const kt_nvrtc_output *out)
{
    pthread_mutex_lock(&g_lock);
    g_stats.cache_hits += (size_t)out->cached;
    g_stats.compiled += (size_t)(!out->cached && !out->shared);
    g_stats.shared += (size_t)out->shared;
    g_stats.failed += (size_t)!out->compiled;
    g_stats.damaged += (size_t)out->damaged;
    g_stats.seconds += out->seconds;
    g_stats.cpu_seconds += out->cpu_seconds;
    pthread_mutex_unlock(&g_lock);
}

static kt_status cache_path(const char *key, char *path, size_t size,
                            kt_err *err)
{
    char dir[4096];
    kt_status rc;
    int n;

    path[0] = '\0';
    if ((rc = kt_nvrtc_cache_open(dir, sizeof dir, err)) || !dir[0])
        return rc;
    n = snprintf(path, size, "%s/%s.bin", dir, key);
    if (n < 0 || (size_t)n >= size)
        return kt_err_set(err, KT_S_INPUT,
                          "the NVRTC cache folder '%s' is too long a path "
                          "(at most %zu bytes)",
                          dir, size - 40);
    return KT_S_OK;
}

/* path's folder into dir; its last part, or NULL ("" or no folder). */
static const char *split_path(const char *path, char *dir, size_t size)
{
    const char *slash = strrchr(path, '/');
    if (!slash || (size_t)(slash - path) >= size)
        return NULL;
    memcpy(dir, path, (size_t)(slash - path));
    dir[slash - path] = '\0';
    return slash + 1;
}

/* Reads req's entry into out: 1 read, 0 a miss; a damaged entry is a miss
 * with a note (and out->damaged set), written over by the compile. */
static int cache_get(const char *path, const identity *id, kt_nvrtc_output *out)
{
    char dir[4200];
    const char *name = split_path(path, dir, sizeof dir);
    int got = name ? cache_read(dir, name, id, out) : 0;
    if (got == -1)
        kt_msg("note: %s: a damaged NVRTC cache entry (cut short or "
               "overwritten), compiling it again\n",
               path);
    out->damaged = got < 0;
    return got > 0;
}

/* cache_write for an entry's full path. */
static void cache_put(const char *path, const identity *id,
                      const kt_nvrtc_output *out)
{
    char dir[4200];
    const char *name = split_path(path, dir, sizeof dir);
    if (name)
        cache_write(dir, name, id, out);
}

/* req's identity, key and cache entry path ("" when the cache is off);
 * free id->text whatever it returns. */
static kt_status entry_of(const kt_nvrtc_request *req, const char *ir,
                          identity *id, char key[33], char *path, size_t size,
                          kt_err *err)
{
    kt_status rc = make_identity(req, ir, id, err);
    if (rc)
        return rc;
    hash_identity(id, key);
    return cache_path(key, path, size, err);
}

/* req's code key and the IR hash behind it into out (none when sharing is
 * off or the front end gave no IR). */
static kt_status code_key(const kt_nvrtc_request *req,
                          const kt_nvrtc_runner *run, kt_nvrtc_output *out,
                          kt_err *err)
{
    identity id = {0};
    kt_status rc;

    out->code[0] = out->ir[0] = '\0';
    if (!kt_nvrtc_share_on())
        return KT_S_OK;
    if ((rc = run ? run->front_end(run->ctx, req, out->ir, &out->cpu_seconds,
                                   err)
                  : kt_nvrtc_front_end(req, out->ir, err)) ||
        !out->ir[0])
        return rc;
    if (!(rc = make_identity(req, out->ir, &id, err)))
        hash_identity(&id, out->code);
    else
        out->ir[0] = '\0';
    free(id.text);
    return rc;
}

kt_status kt_nvrtc_prepare(const kt_nvrtc_request *req, kt_nvrtc_output *out,
                           kt_err *err)
{
    return kt_nvrtc_prepare_via(req, NULL, out, err);
}

kt_status kt_nvrtc_prepare_via(const kt_nvrtc_request *req,
                               const kt_nvrtc_runner *run, kt_nvrtc_output *out,
                               kt_err *err)
{
    identity id = {0};
    char key[33] = "", path[4200];
    double t0 = kt_clock_seconds(), cpu0 = kt_clock_thread_cpu_seconds();
    kt_status rc;

    memset(out, 0, sizeof *out);
    if (!(rc = entry_of(req, NULL, &id, key, path, sizeof path, err)) &&
        !cache_get(path, &id, out)) {
        rc = code_key(req, run, out, err); /* a helper's CPU in out */
        out->seconds = kt_clock_seconds() - t0;
        out->cpu_seconds += kt_clock_thread_cpu_seconds() - cpu0;
    }
    memcpy(out->key, key, sizeof key);
    free(id.text);
    return rc;
}

/* The code key's entry into out (1; shared set), else 0: out untouched. */
static int code_get(const char *path, const identity *id, kt_nvrtc_output *out)
{
    kt_nvrtc_output got;

    memset(&got, 0, sizeof got);
    if (!path[0] || !cache_get(path, id, &got))
        return 0;
    out->compiled = got.compiled;
    out->image = got.image;
    out->image_size = got.image_size;
    out->lowered = got.lowered;
    out->log = got.log;
    out->shared = 1;
    return 1;
}

kt_status kt_nvrtc_finish(const kt_nvrtc_request *req, kt_nvrtc_output *out,
                          kt_err *err)
{
    return kt_nvrtc_finish_via(req, NULL, out, err);
}

kt_status kt_nvrtc_finish_via(const kt_nvrtc_request *req,
                              const kt_nvrtc_runner *run, kt_nvrtc_output *out,
                              kt_err *err)
{
    identity id = {0}, cid = {0};
    char key[33], code[33], path[4200], cpath[4200] = "";
    double seconds = out->seconds, cpu = out->cpu_seconds;
    double t0 = kt_clock_seconds(), cpu0 = kt_clock_thread_cpu_seconds();
    kt_status rc;

    if ((rc = entry_of(req, NULL, &id, key, path, sizeof path, err)) ||
        (out->ir[0] &&
         (rc = entry_of(req, out->ir, &cid, code, cpath, sizeof cpath, err))))
        goto done;
    if (!code_get(cpath, &cid, out)) {
        rc = run ? run->compile(run->ctx, req, out, err)
                 : kt_nvrtc_run_here(req, out, err);
        /* Another process's CPU (a helper's) is not this thread's. */
        if (run)
            cpu += out->cpu_seconds;
        if (!rc && cpath[0])
            cache_put(cpath, &cid, out);
    }
    if (!rc && path[0])
        cache_put(path, &id, out);
    out->seconds = seconds + (kt_clock_seconds() - t0);
    out->cpu_seconds = cpu + (kt_clock_thread_cpu_seconds() - cpu0);
done:
    free(id.text);
    free(cid.text);
    return rc;
}

kt_status kt_nvrtc_build(const kt_nvrtc_request *req, kt_nvrtc_output *out,
                         kt_err *err)
{
    kt_status rc = kt_nvrtc_prepare(req, out, err);
    if (!rc && !out->cached)
        rc = kt_nvrtc_finish(req, out, err);
    return rc;
}

static char *dup_bytes(const char *from, size_t size)
{
    char *p = from ? malloc(size + 1) : NULL;
    if (p) {
        memcpy(p, from, size);
        p[size] = '\0';
    }
    return p;
}

kt_status kt_nvrtc_output_share(const kt_nvrtc_output *from,
                                kt_nvrtc_output *into, kt_err *err)
{
    kt_nvrtc_output_free(into);
    into->compiled = from->compiled;
    into->shared = 1;
    into->image = dup_bytes(from->image, from->image_size);
    into->lowered =
        dup_bytes(from->lowered, from->lowered ? strlen(from->lowered) : 0);
    into->log = dup_bytes(from->log, from->log ? strlen(from->log) : 0);
    into->image_size = into->image ? from->image_size : 0;
    if ((from->image && !into->image) || (from->lowered && !into->lowered) ||
        (from->log && !into->log)) {
        kt_nvrtc_output_free(into);
        return kt_err_set(err, KT_S_NOMEM, "out of memory");
    }
    return KT_S_OK;
}

kt_status kt_nvrtc_cache_load(const kt_nvrtc_request *req, kt_nvrtc_output *out,
                              kt_err *err)
{
    identity id = {0};
    char key[33], path[4200];
    kt_status rc;

    memset(out, 0, sizeof *out);
    if (!(rc = entry_of(req, NULL, &id, key, path, sizeof path, err)))
        cache_get(path, &id, out);
    memcpy(out->key, key, sizeof key);
    free(id.text);
    return rc;
}

kt_status kt_nvrtc_cache_store(const kt_nvrtc_request *req,
                               const kt_nvrtc_output *out, kt_err *err)
{
    identity id = {0};
    char key[33], path[4200];
    kt_status rc;

    if (!(rc = entry_of(req, NULL, &id, key, path, sizeof path, err)) &&
        path[0])
        cache_put(path, &id, out);
    free(id.text);
    return rc;
}

kt_status kt_nvrtc_compile(const kt_nvrtc_request *req, kt_nvrtc_output *out,
                           kt_err *err)
{
    char key[33];
    kt_status rc;

    memset(out, 0, sizeof *out);
    if ((rc = kt_nvrtc_key(req, key, err)))
        return rc;
    if (kt_nvrtc_find_loaded(key)) {
        /* Loaded already in this process: nothing to read or compile. */
        out->compiled = 1;
        out->cached = 1;
        memcpy(out->key, key, sizeof key);
        return KT_S_OK;
    }
    if (!(rc = kt_nvrtc_build(req, out, err)))
        kt_nvrtc_stats_count(out);
    return rc;
}

void kt_nvrtc_output_free(kt_nvrtc_output *out)
{
    free(out->image);
    free(out->lowered);
    free(out->log);
    out->image = out->lowered = out->log = NULL;
    out->image_size = 0;
}

void kt_nvrtc_first_error(const char *log, char *out, size_t out_size)
{
    const char *line = log ? strstr(log, "error") : NULL;
    const char *start, *end;

    if (!line) {
        snprintf(out, out_size, "%s", log && *log ? log : "no log");
        return;
    }
    start = line;
    while (start > log && start[-1] != '\n')
        --start;
    end = strchr(line, '\n');
    /* Host code met inside CUB or Thrust: the device-wide algorithms
     * behind <cub/cub.cuh>, which NVRTC cannot compile; their block and
     * warp headers it can. (Host code of the kernel's own source has
     * NVRTC's own advice in the line.) */
    snprintf(out, out_size, "%.*s%s",
             (int)(end ? (size_t)(end - start) : strlen(start)), start,
             strstr(log, "not allowed in JIT mode") &&
                     (strstr(log, "/cub/") || strstr(log, "/thrust/"))
                 ? " (NVRTC compiles device code only: a header with host "
                   "code, such as <cub/cub.cuh>, cannot be included; include "
                   "the block or warp headers the kernel uses, e.g. "
                   "<cub/block/block_reduce.cuh>)"
                 : "");
}

/* ---------------------------------------------------------------- load */

typedef struct loaded {
    char key[33];
    cudaLibrary_t library;
    cudaKernel_t kernel;
    /* Whose data the library's __constant__ symbols hold now
     * (kt_nvrtc_constants_owner); NULL: nobody's yet. */
    const void *constants_owner;
} loaded;

/* Process-wide: every instance and boundary size shares one load (n
 * entries at at, under g_lock). */
static struct {
    loaded *at;
    size_t n;
} g_loaded;

const void *kt_nvrtc_find_loaded(const char *key)
{
    for (size_t i = 0; i < g_loaded.n; ++i)
        if (strcmp(g_loaded.at[i].key, key) == 0)
            return (const void *)g_loaded.at[i].kernel;
    return NULL;
}

kt_status kt_nvrtc_load(const kt_nvrtc_output *c, const void **kernel,
                        kt_err *err)
{
    loaded *grown, l;
    cudaError_t code;

    *kernel = kt_nvrtc_find_loaded(c->key);
    if (*kernel)
        return KT_S_OK;
    if (!c->compiled || !c->image)
        return kt_err_set(err, KT_S_INVALID, "nothing compiled to load");
    memset(&l, 0, sizeof l);
    snprintf(l.key, sizeof l.key, "%s", c->key);
    code =
        cudaLibraryLoadData(&l.library, c->image, NULL, NULL, 0, NULL, NULL, 0);
    if (code != cudaSuccess)
        return kt_err_set(err, KT_S_INVALID, "cudaLibraryLoadData: %s (%s)",
                          cudaGetErrorString(code), cudaGetErrorName(code));
    code = cudaLibraryGetKernel(&l.kernel, l.library, c->lowered);
    if (code != cudaSuccess) {
        cudaLibraryUnload(l.library);
        return kt_err_set(err, KT_S_INVALID, "cudaLibraryGetKernel(%s): %s",
                          c->lowered, cudaGetErrorString(code));
    }
    grown = realloc(g_loaded.at, (g_loaded.n + 1) * sizeof *grown);
    if (!grown) {
        cudaLibraryUnload(l.library);
        return kt_err_set(err, KT_S_NOMEM, "out of memory");
    }
    g_loaded.at = grown;
    g_loaded.at[g_loaded.n++] = l;
    *kernel = (const void *)l.kernel;
    return KT_S_OK;
}

void kt_nvrtc_unload_all(void)
{
    for (size_t i = 0; i < g_loaded.n; ++i)
        cudaLibraryUnload(g_loaded.at[i].library);
    free(g_loaded.at);
    g_loaded.at = NULL;
    g_loaded.n = 0;
}

static loaded *loaded_of(const void *kernel)
{
    for (size_t i = 0; i < g_loaded.n; ++i)
        if ((const void *)g_loaded.at[i].kernel == kernel)
            return &g_loaded.at[i];
    return NULL;
}

const void *kt_nvrtc_constants_owner(const void *kernel)
{
    const loaded *l = loaded_of(kernel);
    return l ? l->constants_owner : NULL;
}

void kt_nvrtc_set_constants_owner(const void *kernel, const void *owner)
{
    loaded *l = loaded_of(kernel);
    if (l)
        l->constants_owner = owner;
}

void kt_nvrtc_forget_constants_owner(const void *owner)
{
    for (size_t i = 0; i < g_loaded.n; ++i)
        if (g_loaded.at[i].constants_owner == owner)
            g_loaded.at[i].constants_owner = NULL;
}

kt_status kt_nvrtc_sibling(const void *kernel, const char *name,
                           const void **out, kt_err *err)
{
    const loaded *l = loaded_of(kernel);
    cudaKernel_t k;
    cudaError_t code;

    *out = NULL;
    if (!l)
        return kt_err_set(err, KT_S_INVALID, "'%s': kernel not loaded by NVRTC",
                          name);
    code = cudaLibraryGetKernel(&k, l->library, name);
    if (code != cudaSuccess) {
        (void)cudaGetLastError(); /* a miss is an answer, not an error */
        return kt_err_set(err, KT_S_INPUT, "the module has no kernel '%s' (%s)",
                          name, cudaGetErrorName(code));
    }
    *out = (const void *)k;
    return KT_S_OK;
}

kt_status kt_nvrtc_global(const void *kernel, const char *name, void **dptr,
                          size_t *bytes, kt_err *err)
{
    const loaded *l = loaded_of(kernel);
    cudaError_t code;

    if (!l)
        return kt_err_set(err, KT_S_INVALID, "'%s': kernel not loaded by NVRTC",
                          name);
    code = cudaLibraryGetGlobal(dptr, bytes, l->library, name);
    if (code != cudaSuccess)
        return kt_err_set(err, KT_S_INPUT,
                          "the compiled source has no device symbol "
                          "'%s' (%s): declare it at namespace scope, "
                          "e.g. __constant__ float %s[N]",
                          name, cudaGetErrorName(code), name);
    return KT_S_OK;
}
