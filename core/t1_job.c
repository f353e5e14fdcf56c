// SPDX-License-Identifier: Apache-2.0
#include "core/t1_job.h"

#include <ctype.h>
#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "core/fileio.h"
#include "core/t1.h"

/* T1 files are small; a larger one is refused, not read whole. */
#define T1_JOB_MAX_BYTES ((size_t)64 << 20)

static const char *const size_names[] = {"size_x", "size_y", "size_z"};
static const char *const block_names[] = {"block_size_x", "block_size_y",
                                          "block_size_z"};
static const char *const grid_divs[] = {"GridDivX", "GridDivY", "GridDivZ"};

/* What the translation works from: the file's JSON and its space. */
typedef struct t1_job {
    const char *path;
    json_t *doc, *spec; /* spec: KernelSpecification, borrowed */
    kt_t1_space *space;
    int64_t sizes[3];
    size_t num_sizes;
    FILE *out;
    kt_err *err;
} t1_job;

static kt_status read_doc(const char *path, json_t **doc, kt_err *err)
{
    char *text = NULL;
    size_t len = 0;
    json_error_t jerr;
    kt_status rc;

    *doc = NULL;
    if ((rc =
             kt_file_read(path, "T1 file", T1_JOB_MAX_BYTES, &text, &len, err)))
        return rc;
    *doc = json_loadb(text, len, 0, &jerr);
    free(text);
    if (!*doc)
        return kt_err_set(err, KT_S_INPUT, "%s:%d:%d: not JSON: %s", path,
                          jerr.line, jerr.column, jerr.text);
    return KT_S_OK;
}

kt_t1_kind kt_t1_kind_of(const char *path)
{
    struct stat st;
    json_t *doc = NULL;
    kt_err err;
    kt_t1_kind kind = KT_T1_OTHER_JSON;

    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode) ||
        (size_t)st.st_size > T1_JOB_MAX_BYTES || read_doc(path, &doc, &err) ||
        !json_is_object(doc)) {
        json_decref(doc);
        return KT_T1_NOT_JSON;
    }
    if (json_is_object(json_object_get(doc, "ConfigurationSpace")))
        kind = json_is_object(json_object_get(doc, "KernelSpecification"))
                   ? KT_T1_JOB
                   : KT_T1_SPACE_ONLY;
    json_decref(doc);
    return kind;
}

kt_status kt_t1_job_count(const char *path, unsigned long long *product,
                          unsigned long long *count, kt_err *err)
{
    kt_t1_space *s = NULL;
    uint64_t n = 0;
    double p = 1;
    kt_status rc = kt_t1_load(path, &s, err);

    if (!rc) {
        for (size_t i = 0; i < s->num_params; ++i)
            p *= (double)s->params[i].num_values;
        rc = kt_t1_count(s, &n, err);
    }
    *product = (unsigned long long)p;
    *count = (unsigned long long)n;
    kt_t1_free(s);
    return rc;
}

static kt_status bad(const t1_job *j, const char *field, const char *what,
                     const json_t *found)
{
    char *text =
        found ? json_dumps(found, JSON_ENCODE_ANY | JSON_COMPACT) : NULL;
    kt_err_set(j->err, KT_S_INPUT,
               "%s: KernelSpecification.%s: %s, found %.200s", j->path, field,
               what, text ? text : "nothing");
    free(text);
    return KT_S_INPUT;
}

/* Kernel Tuner looks for KernelFile as written, beside the T1 file, then
 * one folder up (tune_kernel_T1); the first that exists, made absolute. */
static kt_status kernel_file(const t1_job *j, char *out)
{
    const json_t *f = json_object_get(j->spec, "KernelFile");
    char dir[PATH_MAX], tries[3][PATH_MAX + 8];
    const char *slash = strrchr(j->path, '/');

    if (!json_is_string(f) || !json_string_length(f))
        return bad(j, "KernelFile", "expected the kernel's file name", f);
    snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - j->path) : 1,
             slash ? j->path : ".");
    snprintf(tries[0], sizeof tries[0], "%s", json_string_value(f));
    snprintf(tries[1], sizeof tries[1], "%s/%s", dir, json_string_value(f));
    snprintf(tries[2], sizeof tries[2], "%s/../%s", dir, json_string_value(f));
    for (int i = 0; i < 3; ++i)
        if (realpath(tries[i], out))
            return KT_S_OK;
    return kt_err_set(j->err, KT_S_INPUT,
                      "%s: KernelSpecification.KernelFile: '%s' is neither "
                      "where the command runs, nor in %s, nor one folder up",
                      j->path, json_string_value(f), dir);
}

static kt_status problem_size(t1_job *j)
{
    const json_t *ps = json_object_get(j->spec, "ProblemSize");
    const json_t *v;
    size_t i;

    if (json_is_integer(ps)) {
        j->sizes[0] = json_integer_value(ps);
        j->num_sizes = 1;
    } else if (json_is_array(ps) && json_array_size(ps) >= 1 &&
               json_array_size(ps) <= 3) {
        json_array_foreach (ps, i, v) {
            if (!json_is_integer(v))
                return bad(j, "ProblemSize", "expected integers", ps);
            j->sizes[j->num_sizes++] = json_integer_value(v);
        }
    } else {
        return bad(j, "ProblemSize", "expected one to three integers", ps);
    }
    for (i = 0; i < j->num_sizes; ++i)
        if (j->sizes[i] < 1)
            return bad(j, "ProblemSize", "expected sizes of at least 1", ps);
    return KT_S_OK;
}

/* An argument's Size as Kernel Tuner evaluates it (eval with the tunable
 * parameters as lists and ProblemSize): ProblemSize[i] becomes the size,
 * max(NAME) and min(NAME) of a parameter its largest and smallest value;
 * the rest is left to the declaration's expression reader. */
static kt_status size_text(const t1_job *j, const char *where,
                           const json_t *size, char **out)
{
    const char *p;
    char *buf = NULL;
    size_t cap = 0;
    FILE *m = open_memstream(&buf, &cap);

    if (!m)
        return kt_err_set(j->err, KT_S_NOMEM, "out of memory");
    if (json_is_integer(size))
        fprintf(m, "%lld", (long long)json_integer_value(size));
    for (p = json_is_string(size) ? json_string_value(size) : ""; *p;) {
        unsigned idx;
        int n = 0;
        char fn[4], name[128];
        long k;
        if (sscanf(p, "ProblemSize[%u]%n", &idx, &n) == 1 && n > 0 &&
            idx < j->num_sizes) {
            fprintf(m, "%lld", (long long)j->sizes[idx]);
        } else if (sscanf(p, "%3[maxin](%127[A-Za-z0-9_])%n", fn, name, &n) ==
                       2 &&
                   n > 0 && (!strcmp(fn, "max") || !strcmp(fn, "min")) &&
                   (k = kt_t1_find(j->space, name)) >= 0) {
            const kt_t1_param *par = &j->space->params[k];
            int64_t best = par->values[0];
            for (size_t i = 1; i < par->num_values; ++i)
                if (fn[1] == 'a' ? par->values[i] > best
                                 : par->values[i] < best)
                    best = par->values[i];
            fprintf(m, "%lld", (long long)best);
        } else {
            fputc(*p, m);
            n = 1;
        }
        p += n;
    }
    fclose(m);
    if (!buf || !buf[0] || (!json_is_integer(size) && !json_is_string(size))) {
        free(buf);
        return bad(j, where,
                   "expected an element count (an integer or a "
                   "Python expression of ProblemSize)",
                   size);
    }
    *out = buf;
    return KT_S_OK;
}

static int identifier(const char *s)
{
    if (!s || !(isalpha((unsigned char)*s) || *s == '_'))
        return 0;
    for (; *s; ++s)
        if (!isalnum((unsigned char)*s) && *s != '_')
            return 0;
    return 1;
}

static const char *text_of(const json_t *o, const char *key)
{
    const json_t *v = json_object_get(o, key);
    return json_is_string(v) ? json_string_value(v) : "";
}

/* A Vector: a float buffer, its role from Output and AccessType, filled
 * as Kernel Tuner fills it (Constant: FillValue; Random: numpy's randn,
 * whatever FillValue says), in constant memory for MemType Constant. */
static kt_status vector_arg(const t1_job *j, const json_t *a, const char *where,
                            FILE *args)
{
    const char *name = text_of(a, "Name"), *access = text_of(a, "AccessType");
    const json_t *out = json_object_get(a, "Output");
    int output = json_is_true(out) ||
                 (json_is_integer(out) && json_integer_value(out) != 0);
    const char *role = strcasecmp(access, "ReadWrite") == 0 ? "inout"
                       : output || strcasecmp(access, "WriteOnly") == 0
                           ? "output"
                           : "input";
    const char *fill = text_of(a, "FillType");
    char *count = NULL, where_size[96];
    kt_status rc;

    if (strcmp(text_of(a, "Type"), "float") != 0)
        return bad(j, where,
                   "Kernel Tuner's T1 reader takes Vector "
                   "arguments of Type \"float\" only",
                   json_object_get(a, "Type"));
    snprintf(where_size, sizeof where_size, "%s.Size", where);
    if ((rc = size_text(j, where_size, json_object_get(a, "Size"), &count)))
        return rc;
    fprintf(j->out, "buffer.%s = %s f32[%s]", name, role, count);
    free(count);
    if (strcmp(role, "output") != 0) {
        if (strcmp(fill, "Random") == 0)
            fputs(" normal(0, 1)", j->out);
        else if (strcmp(fill, "Constant") == 0 &&
                 json_is_number(json_object_get(a, "FillValue")))
            fprintf(j->out, " constant(%.17g)",
                    json_number_value(json_object_get(a, "FillValue")));
        else
            return bad(j, where,
                       "expected FillType Random or Constant "
                       "with a FillValue",
                       a);
    }
    fputc('\n', j->out);
    if (strcmp(text_of(a, "MemType"), "Constant") == 0)
        fprintf(j->out, "constant.%s = %s\n", name, name);
    fprintf(args, "%s", name);
    return KT_S_OK;
}

/* A Scalar: float or int32, its FillValue. */
static kt_status scalar_arg(const t1_job *j, const json_t *a, const char *where,
                            FILE *args)
{
    const char *type = text_of(a, "Type");
    const json_t *v = json_object_get(a, "FillValue");

    if (!json_is_number(v))
        return bad(j, where, "expected a Scalar with a number as FillValue", a);
    if (strcmp(type, "float") == 0)
        fprintf(args, "float %.9g", json_number_value(v));
    else if (strcmp(type, "int32") == 0 && json_is_integer(v))
        fprintf(args, "int %lld", (long long)json_integer_value(v));
    else
        return bad(j, where,
                   "Kernel Tuner's T1 reader takes Scalars of Type "
                   "\"float\" or \"int32\" (an integer FillValue)",
                   a);
    return KT_S_OK;
}

/* Buffers, constants and the argument list, in the file's order. */
static kt_status arguments(const t1_job *j)
{
    const json_t *list = json_object_get(j->spec, "Arguments"), *a;
    char *args = NULL, where[64];
    size_t cap = 0, i;
    FILE *m;
    kt_status rc = KT_S_OK;

    if (!json_is_array(list) || !json_array_size(list))
        return bad(j, "Arguments", "expected the kernel's arguments", list);
    if (!(m = open_memstream(&args, &cap)))
        return kt_err_set(j->err, KT_S_NOMEM, "out of memory");
    json_array_foreach (list, i, a) {
        const char *mem = text_of(a, "MemoryType");
        snprintf(where, sizeof where, "Arguments[%zu]", i);
        if (i)
            fputs(", ", m);
        if (!json_is_object(a) || !identifier(text_of(a, "Name")))
            rc = bad(j, where,
                     "expected an object with a Name that is an "
                     "identifier",
                     a);
        else if (strcmp(mem, "Vector") == 0)
            rc = vector_arg(j, a, where, m);
        else if (strcmp(mem, "Scalar") == 0)
            rc = scalar_arg(j, a, where, m);
        else
            rc = bad(j, where, "expected MemoryType Vector or Scalar",
                     json_object_get(a, "MemoryType"));
        if (rc)
            break;
    }
    fclose(m);
    if (!rc)
        fprintf(j->out, "args = %s\n", args ? args : "");
    free(args);
    return rc;
}

/* The grid divisor of dimension d: GridDivX's items multiplied, or the
 * block size parameter where the file gives none (Kernel Tuner's
 * get_grid_dimensions), or 1. */
static kt_status divisor(const t1_job *j, int d, FILE *out)
{
    const json_t *list = json_object_get(j->spec, grid_divs[d]), *v;
    size_t i;

    if (!list || json_is_null(list) ||
        (json_is_array(list) && !json_array_size(list))) {
        fputs(kt_t1_find(j->space, block_names[d]) >= 0 ? block_names[d] : "1",
              out);
        return KT_S_OK;
    }
    if (!json_is_array(list))
        return bad(j, grid_divs[d],
                   "expected a list of parameter names or "
                   "expressions",
                   list);
    json_array_foreach (list, i, v) {
        if (i)
            fputs(" * ", out);
        if (json_is_string(v))
            fprintf(out, "(%s)", json_string_value(v));
        else if (json_is_integer(v))
            fprintf(out, "%lld", (long long)json_integer_value(v));
        else
            return bad(j, grid_divs[d],
                       "expected parameter names or "
                       "expressions",
                       list);
    }
    return KT_S_OK;
}

/* One variant of the kernel: the file's space, Kernel Tuner's block and
 * grid. The tuned one is named as the kernel, so a cache it writes names
 * the kernel as Kernel Tuner's does (and continues one); the reference is
 * KERNEL_at_default. */
static kt_status variant(const t1_job *j, int reference)
{
    const char *kernel = text_of(j->spec, "KernelName");
    kt_status rc = KT_S_OK;

    fprintf(j->out,
            "\n[variant.%s%s]\n%skernel = %s\nspace = %s\nblock = ", kernel,
            reference ? "_at_default" : "",
            reference ? "reference = yes\n" : "", kernel, j->space->path);
    for (int d = 0; d < 3; ++d)
        fprintf(j->out, "%s%s", d ? ", " : "",
                kt_t1_find(j->space, block_names[d]) >= 0 ? block_names[d]
                : d                                       ? "1"
                                                          : "256");
    fputs("\ngrid = ", j->out);
    for (int d = 0; d < 3 && !rc; ++d) {
        fputs(d ? ", " : "", j->out);
        if ((size_t)d >= j->num_sizes) {
            fputs("1", j->out);
            continue;
        }
        fprintf(j->out, "ceil_div(%s, ", size_names[d]);
        rc = divisor(j, d, j->out);
        fputs(")", j->out);
    }
    fputc('\n', j->out);
    return rc;
}

/* Search and Budget: the strategy by its name (Kernel Tuner's names are
 * ktune's too: tuner/strategy_names.c), its attributes as [strategy] keys
 * (which the job reader checks by name), the budget as max_evals or
 * max_seconds. */
static kt_status strategy(const t1_job *j)
{
    const json_t *search = json_object_get(j->doc, "Search");
    const json_t *budget = json_object_get(j->doc, "Budget"), *b, *a;
    const char *type;
    size_t i;

    fputs("\n[strategy]\n", j->out);
    if (json_is_string(json_object_get(search, "Name")))
        fprintf(j->out, "name = %s\n", text_of(search, "Name"));
    json_array_foreach (json_object_get(search, "Attributes"), i, a) {
        const json_t *v = json_object_get(a, "Value");
        if (!json_is_number(v) || !identifier(text_of(a, "Name")))
            return kt_err_set(j->err, KT_S_INPUT,
                              "%s: Search.Attributes[%zu]: expected a Name "
                              "and a number as Value",
                              j->path, i);
        fprintf(j->out, "%s = %.17g\n", text_of(a, "Name"),
                json_number_value(v));
    }
    b = json_array_get(budget, 0);
    if (!b)
        return KT_S_OK;
    type = text_of(b, "Type");
    if (!json_is_number(json_object_get(b, "BudgetValue")) ||
        (strcmp(type, "ConfigurationCount") != 0 &&
         strcmp(type, "TuningDuration") != 0))
        return kt_err_set(j->err, KT_S_INPUT,
                          "%s: Budget[0]: expected Type ConfigurationCount "
                          "or TuningDuration and a BudgetValue",
                          j->path);
    fprintf(j->out, "%s = %.17g\n",
            type[0] == 'C' ? "max_evals" : "max_seconds",
            json_number_value(json_object_get(b, "BudgetValue")));
    return KT_S_OK;
}

/* [operator]: the kernel's file, its pinned sizes, buffers and arguments,
 * options, and the tolerance of the verification ktune adds. */
static kt_status operator_section(t1_job *j, const char *source)
{
    const char *kernel = text_of(j->spec, "KernelName");
    const char *lang = text_of(j->spec, "Language");
    kt_status rc;

    if (!identifier(kernel))
        return bad(j, "KernelName", "expected the kernel's name",
                   json_object_get(j->spec, "KernelName"));
    if (strcasecmp(lang, "CUDA") != 0)
        return bad(j, "Language",
                   "ktune compiles CUDA (NVRTC); expected "
                   "\"CUDA\"",
                   json_object_get(j->spec, "Language"));
    if ((rc = problem_size(j)))
        return rc;
    fprintf(j->out,
            "; Kernel Tuner's T1 job %s, as `kernel_tuner FILE` runs it,\n"
            "; written out by `ktune tune FILE` (core/t1_job.h). ktune adds\n"
            "; verification: every configuration against the kernel at the\n"
            "; file's Default configuration, rtol 1e-4, atol 1e-4.\n",
            j->path);
    if (json_is_object(json_object_get(j->spec, "Device")))
        fprintf(j->out,
                "; Device.Name %s: Kernel Tuner picks the device by it; ktune "
                "runs on [job] device (0 unless set)\n",
                text_of(json_object_get(j->spec, "Device"), "Name"));
    fprintf(j->out, "[operator]\nname = %s\nsource = %s\nsizes = ", kernel,
            source);
    for (size_t d = 0; d < j->num_sizes; ++d)
        fprintf(j->out, "%s%s=%lld pinned", d ? ", " : "", size_names[d],
                (long long)j->sizes[d]);
    fputc('\n', j->out);
    if ((rc = arguments(j)))
        return rc;
    if (j->space->num_compiler_options) {
        fputs("options =", j->out);
        for (size_t i = 0; i < j->space->num_compiler_options; ++i)
            fprintf(j->out, " %s", j->space->compiler_options[i]);
        fputc('\n', j->out);
    }
    fputs("rtol = 1e-4\natol = 1e-4\n", j->out);
    return KT_S_OK;
}

kt_status kt_t1_job_ini(const char *path, char **ini, kt_err *err)
{
    t1_job j = {.path = path, .err = err};
    char source[PATH_MAX], abs[PATH_MAX], *text = NULL;
    size_t cap = 0;
    kt_status rc;

    *ini = NULL;
    /* The declaration is read from elsewhere: every path in it absolute. */
    if (!realpath(path, abs))
        return kt_err_set(err, KT_S_INPUT, "%s: cannot open: %s", path,
                          strerror(errno));
    if ((rc = kt_t1_load(abs, &j.space, err)) ||
        (rc = read_doc(path, &j.doc, err)))
        goto done;
    j.spec = json_object_get(j.doc, "KernelSpecification");
    if ((rc = kernel_file(&j, source)))
        goto done;
    if (!(j.out = open_memstream(&text, &cap))) {
        rc = kt_err_set(err, KT_S_NOMEM, "out of memory");
        goto done;
    }
    if (!(rc = operator_section(&j, source)) && !(rc = variant(&j, 0)) &&
        !(rc = variant(&j, 1))) {
        fprintf(j.out, "\n[space]\nvariant = %s\n",
                text_of(j.spec, "KernelName"));
        rc = strategy(&j);
    }
    fclose(j.out);
    if (!rc) {
        *ini = text;
        text = NULL;
    }
done:
    free(text);
    json_decref(j.doc);
    kt_t1_free(j.space);
    return rc;
}
