// SPDX-License-Identifier: Apache-2.0
#include "records/t4.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>

#include "core/derive.h"
#include "core/outfile.h"
#include "core/version.h"
#include "records/replay_ext.h"

const char *kt_t4_invalidity(kt_eval_status status, const char *reason,
                             int host_checked)
{
    switch (status) {
    case KT_EVAL_OK: return "correct";
    case KT_EVAL_INVALID:
        /* A kernel that does not compile or load is Kernel Tuner's
         * CompilationFailedConfig; a launch the driver refused (too many
         * threads or registers, too much shared memory) its
         * RuntimeFailedConfig; what is refused before launching, its
         * InvalidConfig. */
        if (kt_eval_is_compile_failure(status, reason) ||
            (reason && strstr(reason, "cudaLibrary")))
            return "compile";
        if (!host_checked && reason &&
            (strstr(reason, "launch refused") ||
             strstr(reason, "refused to launch")))
            return "runtime";
        return "constraints";
    case KT_EVAL_MISMATCH: return "correctness";
    case KT_EVAL_TIMEOUT: return "timeout";
    case KT_EVAL_ERROR:
    case KT_EVAL_EXEC:
    case KT_EVAL_CRASH: break;
    }
    return "runtime";
}

/* ------------------------------------------------------------ results */

static json_t *configuration_json(const kt_tune_facts *f, const kt_point *pt)
{
    const kt_variant *v = &f->op->variants[pt->variant];
    json_t *conf = json_object();
    json_object_set_new(conf, "variant", json_string(v->id));
    for (uint32_t p = 0; p < pt->count; ++p) {
        const kt_param_desc *pd = &v->params[p];
        json_object_set_new(conf, pd->name,
                            pd->kind == KT_PARAM_ENUM
                                ? json_string(pd->labels[pt->values[p]])
                                : json_integer(pt->values[p]));
    }
    /* The device setting under Kernel Tuner's own parameter names. */
    for (size_t w = 0; w < 3; ++w) {
        kt_nvml_setting s = pt->nvml;
        if (f->space && f->space->nvml.count[w])
            json_object_set_new(conf, kt_nvml_key(w),
                                json_integer(*kt_nvml_field(&s, w)));
    }
    return conf;
}

/* Kernel Tuner's per-configuration times, in ms: compilation, validation,
 * benchmark, framework (the rest of the point's share of the evaluator
 * call: problem set-up, transfers, the worker's round trip), and
 * search_algorithm (the strategy's time before the call), with runtimes,
 * every kept sample. */
static json_t *times_json(const kt_tune_entry *e)
{
    const kt_timing *t = &e->timing;
    double compile = 1e3 * e->compile_s, verify = 1e3 * e->phases.verify_s;
    double bench = e->status == KT_EVAL_OK ? 1e3 * t->wall_time_s : 0;
    double framework = 1e3 * e->call_s - compile - verify - bench;
    json_t *runtimes = json_array();

    if (e->status == KT_EVAL_OK)
        for (size_t k = 0; k < t->num_rounds; ++k)
            if (t->samples_us && isfinite(t->samples_us[k]))
                json_array_append_new(runtimes,
                                      json_real(t->samples_us[k] / 1e3));
    /* T4's schema names the compile time "compilation_time", Kernel
     * Tuner's writer "compilation": both are given. */
    return json_pack("{s:f,s:f,s:f,s:f,s:f,s:f,s:o}", "compilation", compile,
                     "compilation_time", compile, "validation", verify,
                     "benchmark", bench, "framework",
                     framework > 0 ? framework : 0.0, "search_algorithm",
                     1e3 * e->strategy_s, "runtimes", runtimes);
}

static void add_measurement(json_t *meas, const char *name, double value,
                            const char *unit)
{
    json_array_append_new(meas, json_pack("{s:s,s:f,s:s}", "name", name,
                                          "value", value, "unit", unit));
}

static json_t *measurements_json(const kt_tune_facts *f, const kt_tune_entry *e)
{
    const kt_stats *s = &e->timing.kernel;
    json_t *meas = json_array();
    kt_derived d;

    if (e->status != KT_EVAL_OK)
        return meas;
    add_measurement(meas, "time", s->median / 1e3, "ms");
    add_measurement(meas, "time_ci_lo", s->ci_lo / 1e3, "ms");
    add_measurement(meas, "time_ci_hi", s->ci_hi / 1e3, "ms");
    add_measurement(meas, "noise", s->noise, "");
    if (f->work && s->median > 0) {
        kt_derive(f->work, s->median, 0, 0, &d);
        add_measurement(meas, "bandwidth", d.bandwidth_gbs, "GB/s");
    }
    /* Kernel Tuner's NVML observer names: energy per launch, power. */
    if (e->energy && e->energy->measured) {
        add_measurement(meas, "nvml_energy", e->energy->joules.median, "J");
        add_measurement(meas, "nvml_power", e->energy->power_w, "W");
    }
    return meas;
}

/* ------------------------------------- another tool's recording */

/* The recording's own values, in its order, with no variant: the
 * configuration as the recording tool wrote it. */
static json_t *ext_configuration(const kt_extrec *rec, const kt_point *pt)
{
    const kt_extrec_record *r = kt_extrec_find(rec, pt);
    json_t *conf = json_object();
    for (size_t p = 0; r && p < rec->num_params; ++p) {
        const kt_extrec_param *par = &rec->params[p];
        uint32_t pos = 0;
        for (uint32_t k = 0; k < par->count; ++k)
            if (par->integer ? par->ints[k] == pt->values[p]
                             : (int64_t)k == pt->values[p])
                pos = k;
        json_object_set(conf, par->name, par->values[pos]);
    }
    return conf;
}

/* The recorded times Kernel Tuner's simulation charges, and ktune's own
 * wall time for the rest: its share of the call (framework) and the
 * strategy's time before it (search_algorithm). */
static json_t *ext_times(const kt_extrec *rec, const kt_extrec_record *r,
                         const kt_tune_entry *e)
{
    json_t *runtimes = json_array();
    (void)rec;
    for (uint32_t k = 0; k < r->num_runs; ++k)
        json_array_append_new(runtimes, json_real(r->runs_ms[k]));
    return json_pack("{s:f,s:f,s:f,s:f,s:f,s:f,s:o}", "compilation",
                     r->compile_ms, "compilation_time", r->compile_ms,
                     "validation", r->verify_ms, "benchmark", r->bench_ms,
                     "framework", 1e3 * e->call_s, "search_algorithm",
                     1e3 * e->strategy_s, "runtimes", runtimes);
}

/* "time": the recorded objective in ms, or for a failed point its error
 * name (Kernel Tuner's: what the methodology's scoring reads as invalid). */
static json_t *ext_measurements(const kt_extrec_record *r)
{
    static const char *const errors[] = {"",
                                         "InvalidConfig",
                                         "CompilationFailedConfig",
                                         "RuntimeFailedConfig",
                                         "RuntimeFailedConfig",
                                         "RuntimeFailedConfig"};
    json_t *value = r->verdict == KT_EXTREC_CORRECT ? json_real(r->time_ms)
                    : json_is_string(r->objective)
                        ? json_incref(r->objective)
                        : json_string(errors[r->verdict]);
    return json_pack("[{s:s,s:o,s:s}]", "name", "time", "value", value, "unit",
                     r->verdict == KT_EXTREC_CORRECT ? "ms" : "");
}

static json_t *ext_result(const kt_extrec *rec, const kt_point *pt,
                          const kt_tune_entry *e, const char *stamp)
{
    const kt_extrec_record *r = kt_extrec_find(rec, pt);
    if (!r)
        return NULL;
    return json_pack("{s:s,s:o,s:[s],s:o,s:s,s:i,s:o}", "timestamp", stamp,
                     "configuration", ext_configuration(rec, pt), "objectives",
                     "time", "times", ext_times(rec, r, e), "invalidity",
                     kt_replay_ext_invalidity(r->verdict), "correctness",
                     r->verdict == KT_EXTREC_CORRECT ? 1 : 0, "measurements",
                     ext_measurements(r));
}

json_t *kt_export_t4_json(const kt_tune_facts *f, const kt_tune_result *r)
{
    json_t *results = json_array();
    const kt_extrec *ext = kt_extrec_of(f->op);

    for (size_t i = 0; i < r->num_entries; ++i) {
        const kt_tune_entry *e = &r->entries[i];
        const kt_point pt = kt_tune_entry_point(r, e);
        char stamp[32];
        struct tm tm;

        gmtime_r(&e->when, &tm);
        strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%SZ", &tm);
        /* A point another tool's recording does not hold was never in
         * its space: not an evaluation. */
        if (ext) {
            json_t *res =
                e->host_checked ? NULL : ext_result(ext, &pt, e, stamp);
            if (res)
                json_array_append_new(results, res);
            continue;
        }
        json_array_append_new(
            results,
            json_pack("{s:s,s:o,s:[s],s:o,s:s,s:i,s:o}", "timestamp", stamp,
                      "configuration", configuration_json(f, &pt), "objectives",
                      "time", "times", times_json(e), "invalidity",
                      kt_t4_invalidity(e->status, e->reason, e->host_checked),
                      "correctness", e->status == KT_EVAL_OK ? 1 : 0,
                      "measurements", measurements_json(f, e)));
    }
    /* Kernel Tuner's writer states the unit of every time here. */
    return json_pack("{s:s,s:o,s:{s:s}}", "schema_version", "1.0.0", "results",
                     results, "metadata", "timeunit", "milliseconds");
}

/* ----------------------------------------------------------- metadata */

kt_status kt_t4_metadata_path(const char *results, char *out, size_t size,
                              kt_err *err)
{
    size_t n = strlen(results), word = strlen("results");
    const char *sep = "-";
    int used;

    if (n > 5 && strcmp(results + n - 5, ".json") == 0)
        n -= 5;
    if (n >= word && strncmp(results + n - word, "results", word) == 0) {
        n -= word;
        sep = "";
    }
    used = snprintf(out, size, "%.*s%smetadata.json", (int)n, results, sep);
    if (used < 0 || (size_t)used >= size)
        return kt_err_set(err, KT_S_INPUT,
                          "--t4 %s: the metadata file's path is longer than "
                          "%zu characters",
                          results, size - 1);
    return KT_S_OK;
}

static json_t *borrowed(json_t *env, const char *key)
{
    json_t *j = env ? json_object_get(env, key) : NULL;
    return j ? json_incref(j) : json_object();
}

/* lshw's shape (a list of {class, ...}): the machine, then the GPU. */
static json_t *hardware_json(const kt_tune_facts *f, const char *os)
{
    struct utsname u;
    json_t *dev =
        f->environment ? json_object_get(f->environment, "device") : NULL;
    json_t *list = json_array(),
           *gpu = json_is_object(dev) ? json_deep_copy(dev) : json_object();

    if (uname(&u) == 0)
        json_array_append_new(
            list, json_pack("{s:s,s:s,s:s,s:s,s:s}", "class", "system", "id",
                            u.nodename, "description", u.sysname, "version",
                            u.release, "width", u.machine));
    json_object_set_new(gpu, "class", json_string("display"));
    if (!json_object_get(gpu, "product"))
        json_object_set_new(
            gpu, "product",
            json_string(f->device_name ? f->device_name : "unknown"));
    json_array_append_new(list, gpu);
    return json_pack("{s:s,s:o}", "operating_system", os,
                     "hardware_description", list);
}

/* What produced the results, as "name==version" lines like Kernel
 * Tuner's requirements. */
static json_t *requirements_json(const kt_tune_facts *f)
{
    json_t *list = json_array(), *dev = NULL, *plugin = NULL;
    char line[384];

    json_array_append_new(list, json_string("ktune==" KT_VERSION));
    /* A replayed recording of another tool is no plugin of a version. */
    if (f->plugin && !kt_extrec_of(f->op)) {
        snprintf(line, sizeof line, "%s==%s", f->plugin->desc.name,
                 f->plugin->desc.version ? f->plugin->desc.version : "?");
        json_array_append_new(list, json_string(line));
    }
    if (f->environment) {
        dev = json_object_get(f->environment, "device");
        plugin = json_object_get(f->environment, "plugin");
    }
    if (json_is_integer(json_object_get(dev, "driver_version"))) {
        snprintf(line, sizeof line, "cuda-driver==%lld",
                 (long long)json_integer_value(
                     json_object_get(dev, "driver_version")));
        json_array_append_new(list, json_string(line));
    }
    if (json_is_integer(json_object_get(plugin, "cuda_runtime_version"))) {
        snprintf(line, sizeof line, "cuda-runtime==%lld",
                 (long long)json_integer_value(
                     json_object_get(plugin, "cuda_runtime_version")));
        json_array_append_new(list, json_string(line));
    }
    return list;
}

json_t *kt_t4_metadata_json(const kt_tune_facts *f)
{
    const char *os = "Linux";
    json_t *ktune = json_pack("{s:s,s:s,s:s,s:s}", "kind", "ktune.t4-metadata",
                              "spec", f->spec ? f->spec : "", "time_unit", "ms",
                              "objective", "time");

    json_object_set_new(ktune, "environment",
                        f->environment ? json_incref(f->environment)
                                       : json_null());
    return json_pack("{s:s,s:{s:s,s:o,s:{s:{s:o},s:o},s:o}}", "schema_version",
                     "1.0.0", "metadata", "operating_system", os, "hardware",
                     hardware_json(f, os), "environment", "device_query",
                     "ktune", borrowed(f->environment, "device"),
                     "requirements", requirements_json(f), "ktune", ktune);
}

/* -------------------------------------------------------------- files */

static kt_status write_doc(const char *path, json_t *j, kt_err *err)
{
    int rc = j ? kt_out_json(j, path) : -1;
    if (!j)
        errno = ENOMEM;
    json_decref(j);
    if (rc)
        return kt_err_set(err, KT_S_IO, "%s: cannot write: %s", path,
                          strerror(errno));
    return KT_S_OK;
}

kt_status kt_export_t4(const char *path, const kt_tune_facts *f,
                       const kt_tune_result *r, kt_err *err)
{
    char meta[4096];
    kt_status rc = write_doc(path, kt_export_t4_json(f, r), err);

    /* Written on stdout, the results have nowhere to keep a file next to
     * them. */
    if (rc || kt_out_is_stdout(path))
        return rc;
    if ((rc = kt_t4_metadata_path(path, meta, sizeof meta, err)))
        return rc;
    return write_doc(meta, kt_t4_metadata_json(f), err);
}
