// SPDX-License-Identifier: Apache-2.0
// jit_app: an application that ships a kernel's source (saxpy.cu) and a
// wisdom file, and compiles the configuration the wisdom gives for its
// size at run time through libktune-select (ktune/select_jit.h): NVRTC,
// cached on disk. Without NVRTC, or without wisdom, it runs the variant
// built in with its defaults. Either way it checks the answer.
//
//   jit_app WISDOM SOURCE [N]      exit 0 verified, 1 wrong or failed
#include <cuda_runtime.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vector>

#include <ktune/select.h>
#include <ktune/select_jit.h>

#include "saxpy.cu"

#define CHECK(x)                                                               \
    do {                                                                       \
        cudaError_t e_ = (x);                                                  \
        if (e_ != cudaSuccess) {                                               \
            fprintf(stderr, "jit_app: %s: %s\n", #x, cudaGetErrorString(e_));  \
            exit(1);                                                           \
        }                                                                      \
    } while (0)

static char *read_text(const char *path)
{
    FILE *f = fopen(path, "rb");
    long n;
    char *s;
    if (!f || fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 ||
        fseek(f, 0, SEEK_SET) != 0 || !(s = (char *)malloc((size_t)n + 1)) ||
        fread(s, 1, (size_t)n, f) != (size_t)n) {
        fprintf(stderr, "jit_app: cannot read %s\n", path);
        exit(1);
    }
    fclose(f);
    s[n] = '\0';
    return s;
}

// The wisdom's configuration compiled at run time: the kernel, or NULL
// (no NVRTC, no wisdom: the caller uses the built-in variant).
static const void *compile(const char *source_path, const kt_select_config &c,
                           const cudaDeviceProp &prop)
{
    kt_select_jit *j = NULL;
    kt_select_image img;
    kt_select_error e;
    cudaLibrary_t lib;
    cudaKernel_t k;
    char *src;
    if (!c.entry)
        return NULL;
    if (kt_select_jit_open(NULL, &j, &e) != KT_SELECT_OK) {
        printf("run-time compilation unavailable: %s\n", e.msg);
        return NULL;
    }
    src = read_text(source_path);
    if (kt_select_jit_compile(j, src, "saxpy.cu", "saxpy<{ITEMS}>", &c,
                              prop.major, prop.minor, &img,
                              &e) != KT_SELECT_OK) {
        fprintf(stderr, "jit_app: %s\n", e.msg);
        exit(1);
    }
    printf("%s %s\n", img.from_cache ? "from the cache" : "compiled",
           img.cache_file[0] ? img.cache_file : "(no cache)");
    CHECK(cudaLibraryLoadData(&lib, img.data, NULL, NULL, 0, NULL, NULL, 0));
    CHECK(cudaLibraryGetKernel(&k, lib, img.lowered_name));
    kt_select_image_free(&img);
    kt_select_jit_close(j);
    free(src);
    return (const void *)k;
}

int main(int argc, char **argv)
{
    int n = argc > 3 ? atoi(argv[3]) : 1 << 24;
    int64_t size = n;
    kt_select_wisdom *w = NULL;
    kt_select_config c;
    kt_select_error e;
    cudaDeviceProp prop;
    float a = 2.5f, *x, *y;
    std::vector<float> hx(n), hy(n);

    if (argc < 3 || n < 1) {
        fprintf(stderr, "usage: jit_app WISDOM SOURCE [N]\n");
        return 2;
    }
    CHECK(cudaGetDeviceProperties(&prop, 0));
    if (kt_select_open(argv[1], &w, &e) != KT_SELECT_OK)
        printf("no wisdom: %s\n", e.msg);
    kt_select_device(w, "jit_app:saxpy", prop.name, prop.major, prop.minor,
                     &size, 1, &c);
    const void *kernel = compile(argv[2], c, prop);
    int block = kernel ? (int)kt_select_get(&c, "BLOCK", 256) : 256;
    int items = kernel ? (int)kt_select_get(&c, "ITEMS", 1) : 1;
    unsigned grid =
        (unsigned)((n + (int64_t)block * items - 1) / ((int64_t)block * items));
    if (!kernel)
        kernel = (const void *)saxpy<1>;
    printf("%s: BLOCK %d ITEMS %d grid %u\n",
           block != 256 || items != 1 ? "wisdom" : "defaults", block, items,
           grid);

    for (int i = 0; i < n; ++i) {
        hx[i] = (float)(i % 97) * 0.5f;
        hy[i] = (float)(i % 13) - 6.0f;
    }
    CHECK(cudaMalloc(&x, n * sizeof(float)));
    CHECK(cudaMalloc(&y, n * sizeof(float)));
    CHECK(cudaMemcpy(x, hx.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(y, hy.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    void *args[] = {&a, &x, &y, &n};
    CHECK(cudaLaunchKernel(kernel, dim3(grid), dim3(block), args, 0, 0));
    CHECK(cudaDeviceSynchronize());
    std::vector<float> got(n);
    CHECK(cudaMemcpy(got.data(), y, n * sizeof(float), cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; ++i)
        if (got[i] != a * hx[i] + hy[i]) {
            printf("wrong at %d: %g, expected %g\n", i, got[i],
                   a * hx[i] + hy[i]);
            return 1;
        }
    printf("verified %d elements\n", n);
    kt_select_close(w);
    return 0;
}
