// SPDX-License-Identifier: Apache-2.0
#include "capture/operator.h"

#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

struct kt_cap_op {
    kt_capture cap;
    kt_cap_rules rules;
    char name[128];
    char summary[512];
    const char *param_names[3];
    kt_param_desc params[3];
    kt_size_desc size;
    kt_variant variant;
    kt_operator op;
    kt_plugin plugin;
};

/* What setup made: the module, the allocations, the moved arguments. */
typedef struct cap_state {
    const kt_host *host;
    const kt_cap_op *op;
    cudaLibrary_t lib;
    cudaKernel_t kernel;
    void **work, **pristine; /* per allocation, the host's device memory */
    unsigned char *args;     /* args_bytes, pointers moved */
    void **argv;             /* into args, one per parameter */
    uint32_t smem_set;       /* the largest dynamic smem opted into */
} cap_state;

static const char *const block_names[3] = {"block_x", "block_y", "block_z"};

void kt_cap_plugin_name(const char *dir, char *out, size_t size)
{
    size_t n = strlen(dir);
    const char *base;
    while (n > 1 && dir[n - 1] == '/')
        --n;
    base = dir + n;
    while (base > dir && base[-1] != '/')
        --base;
    snprintf(out, size, "cap-%.*s", (int)(dir + n - base), base);
    for (char *p = out + 4; *p; ++p)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
              (*p >= '0' && *p <= '9') || strchr("_-.", *p)))
            *p = '_';
}

int kt_cap_is_capture(const char *path)
{
    char file[4200];
    struct stat st;
    size_t n = strlen(path), m = strlen(KT_CAP_MANIFEST);
    if (stat(path, &st) != 0)
        return 0;
    if (S_ISREG(st.st_mode))
        return n >= m && strcmp(path + n - m, KT_CAP_MANIFEST) == 0 &&
               (n == m || path[n - m - 1] == '/');
    snprintf(file, sizeof file, "%s/%s", path, KT_CAP_MANIFEST);
    return S_ISDIR(st.st_mode) && stat(file, &st) == 0 && S_ISREG(st.st_mode);
}

int kt_cap_is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

const kt_capture *kt_cap_op_capture(const kt_cap_op *op)
{
    return &op->cap;
}

/* ---- the pure callbacks ---------------------------------------------- */

static void block_of(const kt_config *c, int64_t b[3])
{
    for (int d = 0; d < 3; ++d)
        b[d] = d < (int)c->count ? c->values[d] : 1;
}

static int c_shape(const kt_cap_op *op, const kt_config *cfg, kt_shape *out)
{
    int64_t b[3];
    char why[256];
    int ok;
    kt_err err;
    block_of(cfg, b);
    memset(out, 0, sizeof *out);
    out->struct_size = sizeof *out;
    if (kt_cap_rules_shape(&op->rules, &op->cap, b, out->grid,
                           &out->dynamic_smem_bytes, &ok, why, sizeof why,
                           &err))
        return KT_FAIL;
    if (!ok)
        return KT_INVALID;
    for (int d = 0; d < 3; ++d)
        out->block[d] = (uint32_t)b[d];
    return KT_OK;
}

static int c_check(const kt_cap_op *op, const kt_config *cfg, char *why,
                   size_t why_size)
{
    int64_t b[3];
    uint32_t g[3], smem;
    int ok;
    kt_err err;
    block_of(cfg, b);
    if (kt_cap_rules_shape(&op->rules, &op->cap, b, g, &smem, &ok, why,
                           why_size, &err)) {
        snprintf(why, why_size, "%s", err.msg);
        return KT_INVALID;
    }
    return ok ? KT_OK : KT_INVALID;
}

static int c_work(const kt_cap_op *op, kt_work *out)
{
    memset(out, 0, sizeof *out);
    out->struct_size = sizeof *out;
    /* Unknown: each captured allocation read once is the one floor. */
    out->bytes_read = (double)kt_capture_data_bytes(&op->cap) / 2.0;
    return KT_OK;
}

/* ---- set-up and the launch ------------------------------------------- */

static int fail_cuda(const kt_host *h, const char *call, cudaError_t e)
{
    return h->error(h, "%s: %s (%s)", call, cudaGetErrorString(e),
                    cudaGetErrorName(e));
}

static int load_module(cap_state *s)
{
    const kt_capture *c = &s->op->cap;
    const kt_host *h = s->host;
    void *image = malloc((size_t)c->module_bytes + 1);
    kt_err err;
    cudaError_t e;
    int rc = KT_OK;

    if (!image)
        return h->error(h, "out of memory for the module image");
    if (kt_capture_read_blob(c, c->module_file, image, c->module_bytes, &err)) {
        rc = h->error(h, "%s", err.msg);
        goto done;
    }
    /* PTX must end with its NUL for the JIT. */
    ((char *)image)[c->module_bytes] = '\0';
    e = cudaLibraryLoadData(&s->lib, image, NULL, NULL, 0, NULL, NULL, 0);
    if (e != cudaSuccess) {
        rc = fail_cuda(h, "cudaLibraryLoadData(captured module)", e);
        goto done;
    }
    e = cudaLibraryGetKernel(&s->kernel, s->lib, c->mangled);
    if (e != cudaSuccess)
        rc = h->error(h,
                      "cudaLibraryGetKernel(%s): %s: the captured module "
                      "does not hold the kernel",
                      c->mangled, cudaGetErrorString(e));
done:
    free(image);
    return rc;
}

/* Allocation k: a working copy (role input: its contents are the
 * program's, never poisoned) and a pristine one, both from before. */
static int load_alloc(cap_state *s, size_t k)
{
    const kt_capture *c = &s->op->cap;
    const kt_cap_alloc *a = &c->allocs[k];
    const kt_host *h = s->host;
    size_t bytes = (size_t)a->bytes;
    void *buf = malloc(bytes);
    char name[32];
    kt_err err;
    int rc;

    if (!buf)
        return h->error(h, "out of memory for allocation %zu (%zu bytes)", k,
                        bytes);
    snprintf(name, sizeof name, "alloc-%zu", k);
    rc = h->alloc_device(h, bytes, KT_MEM_INPUT, name, &s->work[k]);
    if (rc == KT_OK)
        rc = h->alloc_device(h, bytes, KT_MEM_SCRATCH, name, &s->pristine[k]);
    if (rc == KT_OK && kt_capture_read_blob(c, a->before, buf, a->bytes, &err))
        rc = h->error(h, "%s", err.msg);
    if (rc == KT_OK)
        rc = h->upload(h, s->pristine[k], buf, bytes);
    if (rc == KT_OK)
        rc = h->upload(h, s->work[k], buf, bytes);
    free(buf);
    return rc;
}

/* The captured argument bytes, each pointer into an allocation moved to
 * the same offset of its working copy. */
static int load_args(cap_state *s)
{
    const kt_capture *c = &s->op->cap;
    const kt_host *h = s->host;
    kt_err err;

    s->args = calloc(1, (size_t)c->args_bytes + 8);
    s->argv = calloc(c->num_params + 1, sizeof *s->argv);
    if (!s->args || !s->argv)
        return h->error(h, "out of memory for the arguments");
    if (kt_capture_read_blob(c, c->args_file, s->args, c->args_bytes, &err))
        return h->error(h, "%s", err.msg);
    for (size_t i = 0; i < c->num_params; ++i) {
        const kt_cap_param *p = &c->params[i];
        s->argv[i] = s->args + p->offset;
        if (p->alloc >= 0) {
            uint64_t moved =
                (uint64_t)(uintptr_t)s->work[p->alloc] + p->alloc_offset;
            memcpy(s->args + p->offset, &moved, sizeof moved);
        }
    }
    return KT_OK;
}

static void c_teardown(void *state)
{
    cap_state *s = state;
    if (!s)
        return;
    for (size_t k = 0; s->work && k < s->op->cap.num_allocs; ++k) {
        if (s->work[k])
            s->host->free_device(s->host, s->work[k]);
        if (s->pristine[k])
            s->host->free_device(s->host, s->pristine[k]);
    }
    if (s->lib)
        cudaLibraryUnload(s->lib);
    free(s->work);
    free(s->pristine);
    free(s->args);
    free(s->argv);
    free(s);
}

static int c_setup(const kt_cap_op *op, const kt_host *h, void **state)
{
    cap_state *s = calloc(1, sizeof *s);
    size_t n = op->cap.num_allocs;
    int rc = KT_OK;

    *state = NULL;
    if (!s)
        return h->error(h, "out of memory");
    s->host = h;
    s->op = op;
    s->work = calloc(n + 1, sizeof *s->work);
    s->pristine = calloc(n + 1, sizeof *s->pristine);
    if (!s->work || !s->pristine)
        rc = h->error(h, "out of memory");
    if (rc == KT_OK)
        rc = load_module(s);
    for (size_t k = 0; k < n && rc == KT_OK; ++k)
        rc = load_alloc(s, k);
    if (rc == KT_OK)
        rc = load_args(s);
    if (rc != KT_OK) {
        c_teardown(s);
        return rc;
    }
    *state = s;
    return KT_OK;
}

static int c_reset(void *state)
{
    cap_state *s = state;
    cudaError_t e;
    for (size_t k = 0; k < s->op->cap.num_allocs; ++k) {
        e = cudaMemcpy(s->work[k], s->pristine[k],
                       (size_t)s->op->cap.allocs[k].bytes,
                       cudaMemcpyDeviceToDevice);
        if (e != cudaSuccess)
            return fail_cuda(s->host, "cudaMemcpy(restore an allocation)", e);
    }
    /* A device-to-device cudaMemcpy may return before it is done, and the
     * host's stream need not wait for the legacy one. */
    e = cudaDeviceSynchronize();
    return e == cudaSuccess
               ? KT_OK
               : fail_cuda(s->host, "cudaDeviceSynchronize(after restoring)",
                           e);
}

static int c_launch(void *state, const kt_config *cfg, const kt_shape *sh,
                    void *stream)
{
    cap_state *s = state;
    dim3 grid = {sh->grid[0], sh->grid[1], sh->grid[2]};
    dim3 block = {sh->block[0], sh->block[1], sh->block[2]};
    cudaError_t e;
    (void)cfg;
    /* Above 48 KiB the kernel must opt in, as the program did. */
    if (sh->dynamic_smem_bytes > 48 * 1024 &&
        sh->dynamic_smem_bytes > s->smem_set) {
        e = cudaFuncSetAttribute((const void *)s->kernel,
                                 cudaFuncAttributeMaxDynamicSharedMemorySize,
                                 (int)sh->dynamic_smem_bytes);
        if (e != cudaSuccess)
            return fail_cuda(s->host, "cudaFuncSetAttribute", e);
        s->smem_set = sh->dynamic_smem_bytes;
    }
    e = cudaLaunchKernel((const void *)s->kernel, grid, block, s->argv,
                         sh->dynamic_smem_bytes, (cudaStream_t)stream);
    return e == cudaSuccess ? KT_OK : fail_cuda(s->host, "cudaLaunchKernel", e);
}

static const void *c_kernel_of(void *state, const kt_config *cfg)
{
    (void)cfg;
    return (const void *)((cap_state *)state)->kernel;
}

/* The first differing byte of allocation k, said in words. */
static int compare_alloc(cap_state *s, size_t k, unsigned char *got,
                         unsigned char *want)
{
    const kt_capture *c = &s->op->cap;
    const kt_host *h = s->host;
    uint64_t bytes = c->allocs[k].bytes, diff = 0, first = 0;
    kt_err err;
    int rc = h->download(h, got, s->work[k], (size_t)bytes);

    if (rc != KT_OK)
        return rc;
    if (kt_capture_read_blob(c, c->allocs[k].after, want, bytes, &err))
        return h->error(h, "%s", err.msg);
    if (memcmp(got, want, (size_t)bytes) == 0)
        return KT_OK;
    for (uint64_t i = bytes; i-- > 0;)
        if (got[i] != want[i]) {
            ++diff;
            first = i;
        }
    h->error(h,
             "allocation %zu (%llu bytes): %llu bytes differ from the "
             "captured output, the first at offset %llu (0x%02x, captured "
             "0x%02x)",
             k, (unsigned long long)bytes, (unsigned long long)diff,
             (unsigned long long)first, got[first], want[first]);
    return KT_MISMATCH;
}

static int c_verify(void *state, const kt_config *cfg, const kt_variant *v)
{
    cap_state *s = state;
    const kt_capture *c = &s->op->cap;
    uint64_t most = 0;
    unsigned char *got = NULL, *want = NULL;
    int rc = KT_OK;
    (void)cfg;
    (void)v;
    for (size_t k = 0; k < c->num_allocs; ++k)
        most = c->allocs[k].bytes > most ? c->allocs[k].bytes : most;
    if (most &&
        (!(got = malloc((size_t)most)) || !(want = malloc((size_t)most))))
        rc = s->host->error(s->host, "out of memory to compare %llu bytes",
                            (unsigned long long)most);
    for (size_t k = 0; k < c->num_allocs && rc == KT_OK; ++k)
        rc = compare_alloc(s, k, got, want);
    free(got);
    free(want);
    return rc;
}

/* ---- the stateless callbacks find their capture in their data -------- */

/* The operator's data and the variant's are both the kt_cap_op (ABI 1.3). */
static int shape_cb(const kt_problem *p, const kt_config *c, kt_shape *out)
{
    (void)p;
    return c_shape(KT_CONFIG_DATA(c), c, out);
}

static int check_cb(const kt_problem *p, const kt_config *c, char *why,
                    size_t n)
{
    (void)p;
    return c_check(KT_CONFIG_DATA(c), c, why, n);
}

static int work_cb(const kt_problem *p, kt_work *out)
{
    return c_work(KT_PROBLEM_DATA(p), out);
}

static int setup_cb(const kt_host *h, const kt_problem *p, void **s)
{
    return c_setup(KT_PROBLEM_DATA(p), h, s);
}

/* ---- the descriptor --------------------------------------------------- */

static void describe_params(kt_cap_op *op)
{
    for (int d = 0; d < 3; ++d) {
        kt_param_desc *p = &op->params[d];
        p->struct_size = sizeof *p;
        p->kind = KT_PARAM_LIST;
        p->name = block_names[d];
        p->help = "threads per block in this dimension (the grid follows "
                  "the capture's rules)";
        p->values = op->rules.values[d];
        p->count = (uint32_t)op->rules.counts[d];
        p->default_value = op->cap.block[d];
    }
}

static void describe(kt_cap_op *op)
{
    const kt_capture *c = &op->cap;
    int64_t bytes = (int64_t)(kt_capture_data_bytes(c) / 2);

    kt_cap_plugin_name(c->dir, op->name, sizeof op->name);
    snprintf(op->summary, sizeof op->summary,
             "launch %llu of %.300s as captured (grid %ux%ux%u, block "
             "%ux%ux%u)",
             (unsigned long long)c->launch_index, c->demangled, c->grid[0],
             c->grid[1], c->grid[2], c->block[0], c->block[1], c->block[2]);
    describe_params(op);
    op->size = (kt_size_desc){.struct_size = sizeof op->size,
                              .name = "bytes",
                              .help = "the captured allocations' bytes "
                                      "(fixed by the capture)",
                              .default_value = bytes ? bytes : 1,
                              .min = bytes ? bytes : 1,
                              .max = bytes ? bytes : 1};
    op->variant = (kt_variant){.struct_size = sizeof op->variant,
                               .num_params = 3,
                               .id = "captured",
                               .summary = "the captured kernel from its own "
                                          "module image",
                               .params = op->params,
                               .shape = shape_cb,
                               .check = check_cb,
                               .launch_shaped = c_launch,
                               .kernel_of = c_kernel_of,
                               .data = op};
    op->op = (kt_operator){.struct_size = sizeof op->op,
                           .flags = KT_OP_MODIFIES_INPUTS,
                           .id = "launch",
                           .summary = op->summary,
                           .sizes = &op->size,
                           .num_sizes = 1,
                           .num_variants = 1,
                           .variants = &op->variant,
                           .work = work_cb,
                           .setup = setup_cb,
                           .reset = c_reset,
                           .verify = c_verify,
                           .teardown = c_teardown,
                           .data = op};
    op->plugin = (kt_plugin){.magic = KT_PLUGIN_MAGIC,
                             .struct_size = sizeof op->plugin,
                             .abi_major = KT_ABI_MAJOR,
                             .abi_minor = KT_ABI_MINOR,
                             .cuda_runtime_version = CUDART_VERSION,
                             .compiler = "the captured program's",
                             .build_date = "",
                             .name = op->name,
                             .version = "capture-1",
                             .summary = op->summary,
                             .operators = &op->op,
                             .num_operators = 1};
}

kt_status kt_cap_op_load(const char *path, kt_cap_op **out,
                         const kt_plugin **desc, kt_err *err)
{
    kt_cap_op *op = calloc(1, sizeof *op);
    kt_status st;

    *out = NULL;
    if (!op)
        return kt_err_set(err, KT_S_NOMEM, "out of memory");
    if ((st = kt_capture_read(path, &op->cap, err)) ||
        (st = kt_cap_rules_load(&op->cap, &op->rules, err))) {
        kt_cap_rules_free(&op->rules);
        kt_capture_free(&op->cap);
        free(op);
        return st;
    }
    describe(op);
    *out = op;
    *desc = &op->plugin;
    return KT_S_OK;
}

void kt_cap_op_free(kt_cap_op *op)
{
    if (!op)
        return;
    kt_cap_rules_free(&op->rules);
    kt_capture_free(&op->cap);
    free(op);
}
