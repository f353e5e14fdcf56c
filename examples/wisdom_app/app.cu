// SPDX-License-Identifier: Apache-2.0
// wisdom_app: an application with its own kernels (kernels.cuh) that takes
// their launch configurations from a wisdom file through libktune-select,
// falling back to its defaults where the file has nothing.
//
//   wisdom_app [--wisdom FILE] [--rounds N] [--quick]
//
// For every problem it runs, it prints the configuration the wisdom gave
// (exact entry, or the nearest by libktune-select's rule) and, with
// --wisdom, times that configuration against the defaults in the same run:
// interleaved rounds, one launch each per round, the L2 flushed before
// every launch (as ktune measures), medians compared. Every output is
// checked against a host reference. Exit 0 when everything verified.
#include <cuda_runtime.h>
#include <ktune/select.h>

#include <algorithm>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vector>

#include "kernels.cuh"

#define CK(call)                                                               \
    do {                                                                       \
        cudaError_t e_ = (call);                                               \
        if (e_ != cudaSuccess) {                                               \
            fprintf(stderr, "wisdom_app: %s:%d: %s: %s\n", __FILE__, __LINE__, \
                    #call, cudaGetErrorString(e_));                            \
            exit(1);                                                           \
        }                                                                      \
    } while (0)

namespace
{

// The application's defaults: what it launched before it had wisdom.
const wa::vadd_config vadd_default = {wa::VADD_ONE_PER_THREAD, 256, 4};
const wa::gemv_config gemv_default = {wa::GEMV_WARP_ROW, 256, 1};

struct context {
    const kt_select_wisdom *w;
    cudaDeviceProp prop;
    int rounds;
    void *flush;
    size_t flush_bytes;
    cudaEvent_t start, stop;
    double total_default_us, total_wisdom_us;
    int failures;
};

const char *match_name(const kt_select_config &c)
{
    switch (c.match) {
    case KT_SELECT_MATCH_EXACT: return "exact";
    case KT_SELECT_MATCH_DEVICE: return "nearest";
    case KT_SELECT_MATCH_CC: return "same cc";
    default: return "none";
    }
}

// The wisdom's configuration when it is one the application can launch;
// else the defaults, and why in note.
bool from_wisdom(const kt_select_config &c, wa::vadd_config *out, char *note,
                 size_t size)
{
    int v = wa::variant_index(wa::vadd_variant_names, 3, c.variant);
    if (!c.entry)
        return false;
    if (v < 0) {
        snprintf(note, size, "unknown variant %s: defaults", c.variant);
        return false;
    }
    *out = {v, (int)kt_select_get(&c, "block", 256),
            (int)kt_select_get(&c, "blocks_per_sm", 4)};
    return true;
}

bool from_wisdom(const kt_select_config &c, wa::gemv_config *out, char *note,
                 size_t size)
{
    int v = wa::variant_index(wa::gemv_variant_names, 3, c.variant);
    if (!c.entry)
        return false;
    if (v < 0) {
        snprintf(note, size, "unknown variant %s: defaults", c.variant);
        return false;
    }
    *out = {v, (int)kt_select_get(&c, "block", 256),
            (int)kt_select_get(&c, "vec", 1)};
    return true;
}

void describe(const wa::vadd_config &c, char *out, size_t size)
{
    if (c.variant == wa::VADD_ONE_PER_THREAD)
        snprintf(out, size, "%s block=%d", wa::vadd_variant_names[c.variant],
                 c.block);
    else
        snprintf(out, size, "%s block=%d blocks_per_sm=%d",
                 wa::vadd_variant_names[c.variant], c.block, c.blocks_per_sm);
}

void describe(const wa::gemv_config &c, char *out, size_t size)
{
    if (c.variant == wa::GEMV_THREAD_ROW)
        snprintf(out, size, "%s block=%d", wa::gemv_variant_names[c.variant],
                 c.block);
    else
        snprintf(out, size, "%s block=%d vec=%d",
                 wa::gemv_variant_names[c.variant], c.block, c.vec);
}

double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    size_t n = v.size();
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// Times one launch (launch() enqueues it) after flushing the L2.
template <class F> double time_launch(context &cx, F launch)
{
    float ms = 0;
    CK(cudaMemsetAsync(cx.flush, 0, cx.flush_bytes, 0));
    CK(cudaEventRecord(cx.start, 0));
    CK(launch());
    CK(cudaEventRecord(cx.stop, 0));
    CK(cudaEventSynchronize(cx.stop));
    CK(cudaEventElapsedTime(&ms, cx.start, cx.stop));
    return 1000.0 * ms;
}

// Medians of the two configurations over interleaved rounds (the second
// only with wisdom).
template <class F, class G>
void time_pair(context &cx, F launch_default, G launch_wisdom, bool both,
               double *t_default, double *t_wisdom)
{
    std::vector<double> d, w;
    launch_default(); // warm-up, and the first launch's costs
    if (both)
        launch_wisdom();
    CK(cudaDeviceSynchronize());
    for (int r = 0; r < cx.rounds; ++r) {
        d.push_back(time_launch(cx, launch_default));
        if (both)
            w.push_back(time_launch(cx, launch_wisdom));
    }
    *t_default = median(d);
    *t_wisdom = both ? median(w) : NAN;
}

void print_row(context &cx, const char *kernel, const char *size,
               const kt_select_config &c, const char *dflt, const char *tuned,
               double td, double tw, bool ok)
{
    printf("  %-5s %-18s %-8s %-34s %10.2f", kernel, size, match_name(c), dflt,
           td);
    if (cx.w)
        printf("  %-34s %10.2f %7.2fx", tuned, tw, td / tw);
    printf("  %s\n", ok ? "ok" : "WRONG");
    cx.total_default_us += td;
    if (cx.w)
        cx.total_wisdom_us += tw;
    cx.failures += !ok;
}

// Deterministic inputs in [-1, 1).
void fill(std::vector<float> &v, unsigned seed)
{
    unsigned x = seed * 2654435761u + 1;
    for (float &f : v) {
        x = x * 1664525u + 1013904223u;
        f = (float)((x >> 8) * (2.0 / 16777216.0) - 1.0);
    }
}

void run_vadd(context &cx, size_t n)
{
    std::vector<float> ha(n), hb(n), hc(n);
    float *a, *b, *c;
    kt_select_config sel;
    wa::vadd_config tuned = vadd_default;
    char note[160] = "", sd[96], st[96], size[32];
    int64_t want = (int64_t)n;
    double td, tw;
    bool ok = true;

    fill(ha, 1);
    fill(hb, 2);
    CK(cudaMalloc(&a, n * sizeof(float)));
    CK(cudaMalloc(&b, n * sizeof(float)));
    CK(cudaMalloc(&c, n * sizeof(float)));
    CK(cudaMemcpy(a, ha.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(b, hb.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    kt_select_device(cx.w, "wisdom_app:vadd", cx.prop.name, cx.prop.major,
                     cx.prop.minor, &want, 1, &sel);
    int sms = cx.prop.multiProcessorCount;
    if (from_wisdom(sel, &tuned, note, sizeof note) &&
        !wa::vadd_grid_size(tuned, n, sms)) {
        snprintf(note, sizeof note,
                 "wisdom's configuration cannot run at "
                 "this size: defaults");
        tuned = vadd_default;
    }
    auto launch_d = [&] {
        return wa::vadd_launch(vadd_default, a, b, c, n, sms, 0);
    };
    auto launch_w = [&] { return wa::vadd_launch(tuned, a, b, c, n, sms, 0); };
    for (int pass = 0; pass < (cx.w ? 2 : 1); ++pass) {
        CK(cudaMemset(c, 0xff, n * sizeof(float)));
        CK(pass ? launch_w() : launch_d());
        CK(cudaMemcpy(hc.data(), c, n * sizeof(float), cudaMemcpyDeviceToHost));
        for (size_t i = 0; i < n && ok; ++i)
            ok = hc[i] == ha[i] + hb[i];
    }
    time_pair(cx, launch_d, launch_w, cx.w != NULL, &td, &tw);
    describe(vadd_default, sd, sizeof sd);
    describe(tuned, st, sizeof st);
    snprintf(size, sizeof size, "n=%zu", n);
    print_row(cx, "vadd", size, sel, sd, st, td, tw, ok);
    if (note[0])
        printf("        %s\n", note);
    CK(cudaFree(a));
    CK(cudaFree(b));
    CK(cudaFree(c));
}

void run_gemv(context &cx, int m, int n)
{
    std::vector<float> hA((size_t)m * n), hx(n), hy(m);
    float *A, *x, *y;
    kt_select_config sel;
    wa::gemv_config tuned = gemv_default;
    char note[160] = "", sd[96], st[96], size[32];
    int64_t want[2] = {m, n};
    double td, tw;
    bool ok = true;

    fill(hA, 3);
    fill(hx, 4);
    CK(cudaMalloc(&A, hA.size() * sizeof(float)));
    CK(cudaMalloc(&x, hx.size() * sizeof(float)));
    CK(cudaMalloc(&y, hy.size() * sizeof(float)));
    CK(cudaMemcpy(A, hA.data(), hA.size() * sizeof(float),
                  cudaMemcpyHostToDevice));
    CK(cudaMemcpy(x, hx.data(), hx.size() * sizeof(float),
                  cudaMemcpyHostToDevice));
    kt_select_device(cx.w, "wisdom_app:gemv", cx.prop.name, cx.prop.major,
                     cx.prop.minor, want, 2, &sel);
    if (from_wisdom(sel, &tuned, note, sizeof note) &&
        !wa::gemv_grid_size(tuned, m, n)) {
        snprintf(note, sizeof note,
                 "wisdom's configuration cannot run at "
                 "this size: defaults");
        tuned = gemv_default;
    }
    auto launch_d = [&] {
        return wa::gemv_launch(gemv_default, A, x, y, m, n, 0);
    };
    auto launch_w = [&] { return wa::gemv_launch(tuned, A, x, y, m, n, 0); };
    for (int pass = 0; pass < (cx.w ? 2 : 1); ++pass) {
        CK(cudaMemset(y, 0xff, hy.size() * sizeof(float)));
        CK(pass ? launch_w() : launch_d());
        CK(cudaMemcpy(hy.data(), y, hy.size() * sizeof(float),
                      cudaMemcpyDeviceToHost));
        for (int i = 0; i < m && ok; i += 1 + m / 512) {
            double acc = 0;
            for (int j = 0; j < n; ++j)
                acc += (double)hA[(size_t)i * n + j] * hx[j];
            ok = fabs(hy[i] - acc) <= 1e-6 * n + 1e-5 * fabs(acc);
        }
    }
    time_pair(cx, launch_d, launch_w, cx.w != NULL, &td, &tw);
    describe(gemv_default, sd, sizeof sd);
    describe(tuned, st, sizeof st);
    snprintf(size, sizeof size, "m=%d n=%d", m, n);
    print_row(cx, "gemv", size, sel, sd, st, td, tw, ok);
    if (note[0])
        printf("        %s\n", note);
    CK(cudaFree(A));
    CK(cudaFree(x));
    CK(cudaFree(y));
}

int usage(void)
{
    fprintf(stderr, "usage: wisdom_app [--wisdom FILE] [--rounds N] "
                    "[--quick]\n");
    return 2;
}

} // namespace

int main(int argc, char **argv)
{
    context cx = {};
    kt_select_wisdom *w = NULL;
    const char *path = NULL;
    bool quick = false;

    cx.rounds = 30;
    for (int i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "--wisdom") == 0 && i + 1 < argc)
            path = argv[++i];
        else if (strcmp(argv[i], "--rounds") == 0 && i + 1 < argc)
            cx.rounds = atoi(argv[++i]);
        else if (strcmp(argv[i], "--quick") == 0)
            quick = true;
        else
            return usage();
    }
    if (cx.rounds < 1 || cx.rounds > 100000)
        return usage();
    if (path) {
        kt_select_error e;
        if (kt_select_open(path, &w, &e) != KT_SELECT_OK)
            fprintf(stderr, "wisdom_app: no wisdom, defaults everywhere: %s\n",
                    e.msg);
        else
            printf("wisdom %s: %zu entries\n", path, kt_select_count(w));
    }
    cx.w = w;
    CK(cudaGetDeviceProperties(&cx.prop, 0));
    cx.flush_bytes = 2 * (size_t)cx.prop.l2CacheSize;
    CK(cudaMalloc(&cx.flush, cx.flush_bytes));
    CK(cudaEventCreate(&cx.start));
    CK(cudaEventCreate(&cx.stop));
    printf("%s (cc %d.%d), %d rounds, L2 flushed before every launch\n",
           cx.prop.name, cx.prop.major, cx.prop.minor, cx.rounds);
    printf("  %-5s %-18s %-8s %-34s %10s", "", "size", "wisdom", "default",
           "us");
    if (w)
        printf("  %-34s %10s %8s", "from wisdom", "us", "speedup");
    printf("\n");
    // The tuned sizes (docs/wisdom.md, tune.sh), and sizes between them
    // that the nearest-size rule serves.
    static const size_t vadd_n[] = {1u << 18, 1u << 20, 3u << 20,
                                    1u << 22, 1u << 24, 1u << 26};
    static const int gemv_mn[][2] = {{1024, 1024},  {4096, 4096},
                                     {2048, 8192},  {8192, 8192},
                                     {32768, 1024}, {1024, 32768}};
    for (size_t n : vadd_n)
        if (!quick || n <= (1u << 22))
            run_vadd(cx, n);
    for (const int *mn : gemv_mn)
        if (!quick || (size_t)mn[0] * mn[1] <= (1u << 24))
            run_gemv(cx, mn[0], mn[1]);
    printf("total of medians: defaults %.1f us", cx.total_default_us);
    if (w)
        printf(", with wisdom %.1f us: %.2fx", cx.total_wisdom_us,
               cx.total_default_us / cx.total_wisdom_us);
    printf("; %s\n",
           cx.failures ? "SOME OUTPUTS WRONG" : "all outputs verified");
    CK(cudaFree(cx.flush));
    kt_select_close(w);
    return cx.failures ? 1 : 0;
}
