/*
 * ktune new-plugin: scaffolds an out-of-tree plugin project, built against
 * an installed ktune through its CMake package (find_package(ktune)):
 * CMakeLists.txt, NAME.cu (one operator, two variants, verified against a
 * double-precision reference, with work accounting) and NAME.ini (a tuning
 * job). The templates below are the files, with @NAME@ and @VERSION@
 * replaced; tests/install builds and lists what they produce.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "app/cli.h"
#include "core/version.h"

#ifndef KT_PREFIX_FROM_BINDIR
#define KT_PREFIX_FROM_BINDIR ".."
#endif
#ifndef KT_CMAKE_PACKAGE_DIR
#define KT_CMAKE_PACKAGE_DIR "lib/cmake/ktune"
#endif

/* Longest NAME: it becomes file, target and plugin names. */
#define KT_NEW_PLUGIN_NAME_MAX 64

static const char help[] =
    "usage: ktune new-plugin NAME [DIR]\n\n"
    "Writes a kernel plugin project into DIR (default: ./NAME), creating the\n"
    "folder if needed:\n"
    "  CMakeLists.txt  find_package(ktune) and ktune_add_plugin(NAME NAME.cu)\n"
    "  NAME.cu         one operator, NAME:mul (z = x * y), two variants\n"
    "                  (one_per_thread, grid_stride), verified against a\n"
    "                  double-precision reference, with work accounting\n"
    "  NAME.ini        a tuning job for 'ktune tune'\n\n"
    "NAME is the plugin's name: letters, digits and '_', not starting with a\n"
    "digit, at most 64 characters, and not the name of a plugin ktune\n"
    "already loads. Existing files are never overwritten. Needs no GPU.\n"
    "See docs/tutorial.md.\n\n"
    "Exit codes: 0 written; 1 a folder or file could not be written; 2 a\n"
    "bad NAME, DIR or option, or a file that exists already.\n";

static const char cmake_template[] =
    "# @NAME@: a ktune kernel plugin, built against an installed ktune.\n"
    "#\n"
    "#   cmake -S . -B build -DCMAKE_PREFIX_PATH=<ktune's install prefix>\n"
    "#   cmake --build build\n"
    "#   ktune list --plugin build/@NAME@.so\n"
    "#\n"
    "# ktune_add_plugin builds @NAME@.so with the flags of ktune's own "
    "plugins:\n"
    "# the shared CUDA runtime, C++20, hidden visibility, and sm_90 "
    "(H100/H200)\n"
    "# unless CMAKE_CUDA_ARCHITECTURES is set "
    "(-DCMAKE_CUDA_ARCHITECTURES=80).\n"
    "cmake_minimum_required(VERSION 3.25)\n"
    "project(@NAME@ LANGUAGES CUDA)\n"
    "\n"
    "# The reference in setup() runs on the CPU: optimise the host code too.\n"
    "if(NOT CMAKE_BUILD_TYPE AND NOT CMAKE_CONFIGURATION_TYPES)\n"
    "  set(CMAKE_BUILD_TYPE Release)\n"
    "endif()\n"
    "\n"
    "find_package(ktune @VERSION@ REQUIRED)\n"
    "ktune_add_plugin(@NAME@ @NAME@.cu)\n";

static const char cu_template[] =
    "// @NAME@: a ktune kernel plugin, made by `ktune new-plugin @NAME@`.\n"
    "//\n"
    "// One operator, @NAME@:mul (z = x * y element by element, float32), and "
    "two\n"
    "// variants that compute it with different thread-to-data mappings:\n"
    "//   one_per_thread  one element per thread, as many threads as elements\n"
    "//   grid_stride     blocks_per_sm x SMs blocks loop over the array\n"
    "// Replace the kernels with yours and keep the contract (ktune's\n"
    "// docs/plugin-abi.md):\n"
    "//   work()    the bytes the *algorithm* must move and its flops, "
    "whatever a\n"
    "//             variant does: effective bandwidth is derived from them\n"
    "//   setup()   inputs from host->random_f32 (seeded, never zeros), "
    "device\n"
    "//             memory from host->alloc_device, the reference in double\n"
    "//   launch()  enqueue on the given stream and return: no allocation, no\n"
    "//             copy, no synchronisation (it runs inside the timed "
    "interval)\n"
    "//   verify()  every element against the reference (host->check_f32), "
    "with\n"
    "//             a tolerance derived from the arithmetic\n"
    "#include <cuda_runtime.h>\n"
    "#include <ktune/plugin.h>\n"
    "\n"
    "#include <stdio.h>\n"
    "#include <stdlib.h>\n"
    "\n"
    "namespace\n"
    "{\n"
    "\n"
    "// ---------------------------------------------------------------- "
    "kernels\n"
    "\n"
    "// Indices are size_t: n may be beyond 2^31 elements.\n"
    "__global__ void mul_one_per_thread(const float *__restrict__ x,\n"
    "                                   const float *__restrict__ y,\n"
    "                                   float *__restrict__ z, size_t n)\n"
    "{\n"
    "    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < n)\n"
    "        z[i] = x[i] * y[i];\n"
    "}\n"
    "\n"
    "__global__ void mul_grid_stride(const float *__restrict__ x,\n"
    "                                const float *__restrict__ y,\n"
    "                                float *__restrict__ z, size_t n)\n"
    "{\n"
    "    const size_t stride = (size_t)gridDim.x * blockDim.x;\n"
    "    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < "
    "n;\n"
    "         i += stride)\n"
    "        z[i] = x[i] * y[i];\n"
    "}\n"
    "\n"
    "// ------------------------------------------------------------- "
    "parameters\n"
    "\n"
    "// The tunable parameters of each variant, as data. A configuration "
    "comes\n"
    "// back as one value per parameter in this order: cfg->values[P_BLOCK], "
    "...\n"
    "enum { P_BLOCK = 0, P_BLOCKS_PER_SM = 1 };\n"
    "\n"
    "const int64_t blocks_per_sm_values[] = {1, 2, 4, 8, 16, 32};\n"
    "\n"
    "const kt_param_desc one_per_thread_params[] = {\n"
    "    KT_PARAM_POW2(\"block\", \"threads per block\", 32, 1024, 256),\n"
    "};\n"
    "const kt_param_desc grid_stride_params[] = {\n"
    "    KT_PARAM_POW2(\"block\", \"threads per block\", 32, 1024, 256),\n"
    "    KT_PARAM_LIST(\"blocks_per_sm\", \"blocks per SM; grid = this x "
    "SMs\",\n"
    "                  blocks_per_sm_values, 4),\n"
    "};\n"
    "\n"
    "// ------------------------------------------------------------------ "
    "state\n"
    "\n"
    "struct state {\n"
    "    const kt_host *host;\n"
    "    size_t n;\n"
    "    int sm_count;\n"
    "    float *x, *y, *z; // device memory, allocated through the host\n"
    "    double *want;     // the reference, computed in double\n"
    "};\n"
    "\n"
    "size_t size_n(const kt_problem *p)\n"
    "{\n"
    "    return (size_t)p->sizes[0];\n"
    "}\n"
    "\n"
    "// ----------------------------------------------------------------- "
    "shapes\n"
    "\n"
    "// Grid and block of a configuration, computed without the GPU: ktune "
    "checks\n"
    "// them against the device's limits before anything runs.\n"
    "int set_1d(kt_shape *out, uint64_t grid, uint64_t block, const void "
    "*kernel)\n"
    "{\n"
    "    if (grid == 0)\n"
    "        grid = 1;\n"
    "    if (grid > 0x7fffffffu)\n"
    "        return KT_INVALID;\n"
    "    out->grid[0] = (uint32_t)grid;\n"
    "    out->grid[1] = out->grid[2] = 1;\n"
    "    out->block[0] = (uint32_t)block;\n"
    "    out->block[1] = out->block[2] = 1;\n"
    "    out->kernel = kernel;\n"
    "    return KT_OK;\n"
    "}\n"
    "\n"
    "int shape_one_per_thread(const kt_problem *p, const kt_config *c, "
    "kt_shape *out)\n"
    "{\n"
    "    const uint64_t block = (uint64_t)c->values[P_BLOCK];\n"
    "    return set_1d(out, kt_div_up(size_n(p), block), block,\n"
    "                  (const void *)mul_one_per_thread);\n"
    "}\n"
    "\n"
    "uint64_t grid_stride_grid(const kt_config *c, int sm_count)\n"
    "{\n"
    "    return (uint64_t)c->values[P_BLOCKS_PER_SM] * (uint64_t)sm_count;\n"
    "}\n"
    "\n"
    "int shape_grid_stride(const kt_problem *p, const kt_config *c, kt_shape "
    "*out)\n"
    "{\n"
    "    return set_1d(out, grid_stride_grid(c, p->device->sm_count),\n"
    "                  (uint64_t)c->values[P_BLOCK], (const void "
    "*)mul_grid_stride);\n"
    "}\n"
    "\n"
    "// A constraint the shape cannot express: the whole grid should be "
    "resident\n"
    "// at once. Refused points cost no GPU time and are reported with the "
    "reason.\n"
    "int check_grid_stride(const kt_problem *p, const kt_config *c, char "
    "*why,\n"
    "                      size_t why_size)\n"
    "{\n"
    "    const int64_t block = c->values[P_BLOCK];\n"
    "    const int64_t per_sm = c->values[P_BLOCKS_PER_SM];\n"
    "    if (per_sm * block > p->device->max_threads_per_sm ||\n"
    "        per_sm > p->device->max_blocks_per_sm) {\n"
    "        snprintf(why, why_size,\n"
    "                 \"%lld blocks of %lld threads do not fit on one SM\",\n"
    "                 (long long)per_sm, (long long)block);\n"
    "        return KT_INVALID;\n"
    "    }\n"
    "    return KT_OK;\n"
    "}\n"
    "\n"
    "// --------------------------------------------------------------- "
    "launches\n"
    "\n"
    "int launch_one_per_thread(void *st, const kt_config *c, void *stream)\n"
    "{\n"
    "    const state *s = (const state *)st;\n"
    "    const unsigned block = (unsigned)c->values[P_BLOCK];\n"
    "    const unsigned grid = (unsigned)kt_div_up(s->n, block);\n"
    "    mul_one_per_thread<<<grid, block, 0, (cudaStream_t)stream>>>(s->x, "
    "s->y,\n"
    "                                                                 s->z, "
    "s->n);\n"
    "    return KT_OK; // ktune checks the launch and the execution itself\n"
    "}\n"
    "\n"
    "int launch_grid_stride(void *st, const kt_config *c, void *stream)\n"
    "{\n"
    "    const state *s = (const state *)st;\n"
    "    const unsigned block = (unsigned)c->values[P_BLOCK];\n"
    "    const unsigned grid = (unsigned)grid_stride_grid(c, s->sm_count);\n"
    "    mul_grid_stride<<<grid, block, 0, (cudaStream_t)stream>>>(s->x, s->y, "
    "s->z,\n"
    "                                                              s->n);\n"
    "    return KT_OK;\n"
    "}\n"
    "\n"
    "// -------------------------------------------------------------- "
    "lifecycle\n"
    "\n"
    "int work(const kt_problem *p, kt_work *out)\n"
    "{\n"
    "    const double n = (double)size_n(p);\n"
    "    out->bytes_read = 8.0 * n;    // x and y, each read once\n"
    "    out->bytes_written = 4.0 * n; // z, written once\n"
    "    out->flops = n;               // one multiplication per element\n"
    "    return KT_OK;\n"
    "}\n"
    "\n"
    "void teardown(void *st)\n"
    "{\n"
    "    state *s = (state *)st;\n"
    "    if (!s)\n"
    "        return;\n"
    "    if (s->x)\n"
    "        s->host->free_device(s->host, s->x);\n"
    "    if (s->y)\n"
    "        s->host->free_device(s->host, s->y);\n"
    "    if (s->z)\n"
    "        s->host->free_device(s->host, s->z);\n"
    "    free(s->want);\n"
    "    free(s);\n"
    "}\n"
    "\n"
    "int setup(const kt_host *host, const kt_problem *p, void **out)\n"
    "{\n"
    "    const size_t n = size_n(p), bytes = n * sizeof(float);\n"
    "    state *s = (state *)calloc(1, sizeof(state));\n"
    "    float *hx = NULL, *hy = NULL;\n"
    "    int rc;\n"
    "\n"
    "    *out = s; // handed to teardown() even when setup fails\n"
    "    if (!s)\n"
    "        return host->error(host, \"out of host memory\");\n"
    "    s->host = host;\n"
    "    s->n = n;\n"
    "    s->sm_count = host->device->sm_count;\n"
    "    hx = (float *)malloc(bytes);\n"
    "    hy = (float *)malloc(bytes);\n"
    "    s->want = (double *)malloc(n * sizeof(double));\n"
    "    if (!hx || !hy || !s->want) {\n"
    "        free(hx);\n"
    "        free(hy);\n"
    "        return host->error(host, \"out of host memory for n = %zu\", n);\n"
    "    }\n"
    "    // Seeded random inputs, one stream number per buffer: the same "
    "values\n"
    "    // for every configuration and on every machine.\n"
    "    host->random_f32(host, 0, hx, n, -1.0f, 1.0f);\n"
    "    host->random_f32(host, 1, hy, n, -1.0f, 1.0f);\n"
    "    for (size_t i = 0; i < n; ++i)\n"
    "        s->want[i] = (double)hx[i] * (double)hy[i];\n"
    "    // Outputs are KT_MEM_OUTPUT: ktune fills them with NaN before each\n"
    "    // verification, so an element no thread writes fails.\n"
    "    rc = host->alloc_device(host, bytes, KT_MEM_INPUT, \"x\", (void "
    "**)&s->x);\n"
    "    if (rc == KT_OK)\n"
    "        rc = host->alloc_device(host, bytes, KT_MEM_INPUT, \"y\", (void "
    "**)&s->y);\n"
    "    if (rc == KT_OK)\n"
    "        rc =\n"
    "            host->alloc_device(host, bytes, KT_MEM_OUTPUT, \"z\", (void "
    "**)&s->z);\n"
    "    if (rc == KT_OK)\n"
    "        rc = host->upload(host, s->x, hx, bytes);\n"
    "    if (rc == KT_OK)\n"
    "        rc = host->upload(host, s->y, hy, bytes);\n"
    "    free(hx);\n"
    "    free(hy);\n"
    "    return rc;\n"
    "}\n"
    "\n"
    "int verify(void *st, const kt_config *, const kt_variant *)\n"
    "{\n"
    "    const state *s = (const state *)st;\n"
    "    // The product of two floats is exact in double; the kernel rounds "
    "it\n"
    "    // once, which moves it by at most 2^-24 of its magnitude.\n"
    "    return s->host->check_f32(s->host, \"z\", s->z, s->want, s->n, "
    "0x1p-24, 0.0);\n"
    "}\n"
    "\n"
    "// ------------------------------------------------------------ "
    "descriptors\n"
    "\n"
    "const kt_size_desc sizes[] = {\n"
    "    {KT_STRUCT_SIZE(kt_size_desc), .reserved = 0, .name = \"n\",\n"
    "     .help = \"number of elements\", .default_value = 1 << 24, .min = 1,\n"
    "     .max = (int64_t)1 << 32},\n"
    "};\n"
    "\n"
    "const kt_variant variants[] = {\n"
    "    {KT_STRUCT_SIZE(kt_variant), .num_params = "
    "KT_COUNT(one_per_thread_params),\n"
    "     .id = \"one_per_thread\", .summary = \"one element per thread\",\n"
    "     .params = one_per_thread_params, .shape = shape_one_per_thread,\n"
    "     .check = nullptr, .launch = launch_one_per_thread},\n"
    "    {KT_STRUCT_SIZE(kt_variant), .num_params = "
    "KT_COUNT(grid_stride_params),\n"
    "     .id = \"grid_stride\",\n"
    "     .summary = \"blocks_per_sm x SMs blocks loop over the array\",\n"
    "     .params = grid_stride_params, .shape = shape_grid_stride,\n"
    "     .check = check_grid_stride, .launch = launch_grid_stride},\n"
    "};\n"
    "\n"
    "const kt_operator operators[] = {\n"
    "    {KT_STRUCT_SIZE(kt_operator), .flags = 0, .id = \"mul\",\n"
    "     .summary = \"z = x * y element by element, float32, inputs in [-1, "
    "1)\",\n"
    "     .sizes = sizes, .num_sizes = KT_COUNT(sizes),\n"
    "     .num_variants = KT_COUNT(variants), .variants = variants, .work = "
    "work,\n"
    "     .setup = setup, .reset = nullptr, .verify = verify, .teardown = "
    "teardown},\n"
    "};\n"
    "\n"
    "const kt_plugin plugin = {\n"
    "    KT_PLUGIN_HEADER,\n"
    "    .name = \"@NAME@\",\n"
    "    .version = \"0.1.0\",\n"
    "    .summary = \"@NAME@: z = x * y, one element per thread or "
    "grid-stride\",\n"
    "    .operators = operators,\n"
    "    .num_operators = KT_COUNT(operators),\n"
    "};\n"
    "\n"
    "} // namespace\n"
    "\n"
    "KT_PLUGIN_EXPORT(plugin)\n";

static const char ini_template[] =
    "; Tuning job for @NAME@:mul; every key is explained in ktune's\n"
    "; docs/configs.md. With the plugin built:\n"
    ";   ktune tune @NAME@.ini --plugin build/@NAME@.so\n"
    ";   ktune tune @NAME@.ini --plugin build/@NAME@.so --check   (no GPU "
    "needed)\n"
    "\n"
    "[job]\n"
    "operator = @NAME@:mul\n"
    "; 2^26 floats, 256 MiB per array: several times the L2 (60 MiB on the\n"
    "; H200), so the kernels are timed against DRAM, not the cache.\n"
    "n = 2^26\n"
    "seed = 1\n"
    "\n"
    "[space]\n"
    "; Both mappings and every block size; blocks_per_sm (grid_stride's own\n"
    "; parameter) keeps all its values.\n"
    "variant = one_per_thread, grid_stride\n"
    "block = 32, 64, 128, 256, 512, 1024\n"
    "\n"
    "[strategy]\n"
    "name = one_at_a_time\n"
    "max_seconds = 300\n"
    "\n"
    "[measure]\n"
    "; Flush the L2 before every sample.\n"
    "cache = cold\n"
    "\n"
    "[output]\n"
    "journal = @NAME@.journal.jsonl\n";

typedef struct scaffold_file {
    const char *suffix; /* appended to NAME, or the whole file name */
    int named;          /* 1: NAME + suffix, 0: suffix alone */
    const char *text;
} scaffold_file;

static const scaffold_file files[] = {
    {"CMakeLists.txt", 0, cmake_template},
    {".cu", 1, cu_template},
    {".ini", 1, ini_template},
};
enum { NUM_FILES = sizeof files / sizeof files[0] };

/* Target names CMake reserves (a plugin's target is called NAME). */
static const char *const reserved_targets[] = {
    "all",       "ALL_BUILD",      "clean",      "edit_cache",
    "help",      "install",        "INSTALL",    "package",
    "PACKAGE",   "package_source", "preinstall", "rebuild_cache",
    "RUN_TESTS", "test",           "ZERO_CHECK", "ktune",
};

static kt_status check_name(const char *name, kt_err *err)
{
    size_t len = strlen(name);

    if (len == 0)
        return kt_err_set(err, KT_S_INPUT,
                          "new-plugin: NAME is empty; expected an identifier "
                          "such as 'my_op'");
    if (len > KT_NEW_PLUGIN_NAME_MAX)
        return kt_err_set(err, KT_S_INPUT,
                          "new-plugin: NAME '%.20s...' has %zu characters; "
                          "expected at most %d",
                          name, len, KT_NEW_PLUGIN_NAME_MAX);
    for (size_t i = 0; i < len; ++i) {
        char c = name[i];
        int letter =
            (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
        int digit = c >= '0' && c <= '9';
        if (!letter && !(digit && i > 0)) {
            char what[32];
            if (c > ' ' && c <= '~')
                snprintf(what, sizeof what, "%s '%c'",
                         digit ? "a leading digit" : "the character", c);
            else
                snprintf(what, sizeof what, "the byte 0x%02x",
                         (unsigned)(unsigned char)c);
            return kt_err_set(err, KT_S_INPUT,
                              "new-plugin: NAME '%s' is not an identifier: "
                              "%s at position %zu; expected letters, digits "
                              "and '_', not starting with a digit",
                              name, what, i + 1);
        }
    }
    for (size_t i = 0; i < sizeof reserved_targets / sizeof reserved_targets[0];
         ++i)
        if (strcmp(name, reserved_targets[i]) == 0)
            return kt_err_set(err, KT_S_INPUT,
                              "new-plugin: NAME '%s' is reserved (a CMake "
                              "target name, or ktune's own); choose another",
                              name);
    return KT_S_OK;
}

/* Two plugins of one name cannot be loaded together: refuse a name that
 * the plugins ktune loads by default (built-in folder, KTUNE_PLUGIN_PATH)
 * already use. */
static kt_status check_name_free(const char *name, kt_err *err)
{
    kt_registry reg;
    const kt_loaded_plugin *taken;
    kt_status rc = KT_S_OK;

    kt_registry_init(&reg);
    kt_cli_load_plugins(&reg, NULL, 0, 1);
    taken = kt_registry_find(&reg, name);
    if (taken)
        rc = kt_err_set(err, KT_S_INPUT,
                        "new-plugin: a plugin called '%s' is already loaded "
                        "from %s; two plugins of one name cannot be loaded "
                        "together, choose another NAME",
                        name, taken->path);
    kt_registry_free(&reg);
    return rc;
}

/* Creates dir and its missing parents. A path that exists as something
 * other than a folder is the user's mistake; anything else that fails is
 * not. */
static kt_status make_dirs(const char *dir, kt_err *err)
{
    char path[PATH_MAX];
    struct stat st;
    size_t len = strlen(dir);

    if (len == 0 || len >= sizeof path)
        return kt_err_set(err, KT_S_INPUT,
                          "new-plugin: DIR must be a path of 1 to %zu "
                          "characters",
                          sizeof path - 1);
    memcpy(path, dir, len + 1);
    for (size_t i = 1; i <= len; ++i) {
        if (path[i] != '/' && path[i] != '\0')
            continue;
        char saved = path[i];
        path[i] = '\0';
        if (stat(path, &st) == 0) {
            if (!S_ISDIR(st.st_mode))
                return kt_err_set(err, KT_S_INPUT,
                                  "new-plugin: %s exists and is not a "
                                  "folder; expected a folder for DIR %s",
                                  path, dir);
        } else if (errno != ENOENT || mkdir(path, 0777) != 0) {
            return kt_err_set(err, KT_S_IO, "new-plugin: cannot create %s: %s",
                              path, strerror(errno));
        }
        path[i] = saved;
    }
    return KT_S_OK;
}

/* The template with @NAME@ and @VERSION@ replaced; malloc'ed, caller
 * frees. */
static char *expand(const char *text, const char *name, const char *version)
{
    size_t name_len = strlen(name), version_len = strlen(version);
    size_t size = 1;
    char *out, *o;

    for (const char *p = text; *p;) {
        if (strncmp(p, "@NAME@", 6) == 0) {
            size += name_len;
            p += 6;
        } else if (strncmp(p, "@VERSION@", 9) == 0) {
            size += version_len;
            p += 9;
        } else {
            ++size;
            ++p;
        }
    }
    out = malloc(size);
    if (!out)
        return NULL;
    o = out;
    for (const char *p = text; *p;) {
        if (strncmp(p, "@NAME@", 6) == 0) {
            memcpy(o, name, name_len);
            o += name_len;
            p += 6;
        } else if (strncmp(p, "@VERSION@", 9) == 0) {
            memcpy(o, version, version_len);
            o += version_len;
            p += 9;
        } else {
            *o++ = *p++;
        }
    }
    *o = '\0';
    return out;
}

/* Writes text to a file that must not exist yet (O_EXCL: never overwrites,
 * even when the file appeared after the first check). */
static kt_status write_new(const char *path, const char *text, kt_err *err)
{
    size_t len = strlen(text), done = 0;
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    kt_status rc = KT_S_OK;

    if (fd < 0)
        return kt_err_set(err, errno == EEXIST ? KT_S_INPUT : KT_S_IO,
                          "new-plugin: cannot create %s: %s", path,
                          strerror(errno));
    while (done < len) {
        ssize_t n = write(fd, text + done, len - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            rc = kt_err_set(err, KT_S_IO, "new-plugin: writing %s: %s", path,
                            strerror(n < 0 ? errno : EIO));
            break;
        }
        done += (size_t)n;
    }
    if (close(fd) != 0 && rc == KT_S_OK)
        rc = kt_err_set(err, KT_S_IO, "new-plugin: writing %s: %s", path,
                        strerror(errno));
    if (rc != KT_S_OK)
        unlink(path);
    return rc;
}

/* "0.1" from "0.1.0": the version find_package(ktune X.Y) asks for. */
static void package_version(char *out, size_t size)
{
    const char *second = strchr(KT_VERSION, '.');
    const char *third = second ? strchr(second + 1, '.') : NULL;
    int len = third ? (int)(third - KT_VERSION) : (int)strlen(KT_VERSION);
    snprintf(out, size, "%.*s", len, KT_VERSION);
}

/* Prints what to run next, with this ktune's path and, when it is an
 * installed one, the prefix that finds its CMake package. */
static void print_next_steps(const char *name, const char *dir)
{
    char exe[PATH_MAX], prefix[PATH_MAX + 32], package[2 * PATH_MAX + 64];
    ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
    const char *ktune = "ktune";
    char *real = NULL, *slash;

    prefix[0] = '\0';
    if (len > 0) {
        exe[len] = '\0';
        ktune = exe;
        slash = strrchr(exe, '/');
        if (slash) {
            *slash = '\0';
            snprintf(prefix, sizeof prefix, "%s/%s", exe,
                     KT_PREFIX_FROM_BINDIR);
            *slash = '/';
            real = realpath(prefix, NULL);
            if (real)
                snprintf(prefix, sizeof prefix, "%s", real);
            free(real);
            if (KT_CMAKE_PACKAGE_DIR[0] == '/')
                snprintf(package, sizeof package, "%s/ktuneConfig.cmake",
                         KT_CMAKE_PACKAGE_DIR);
            else
                snprintf(package, sizeof package, "%s/%s/ktuneConfig.cmake",
                         prefix, KT_CMAKE_PACKAGE_DIR);
            if (access(package, R_OK) != 0)
                prefix[0] = '\0';
        }
    }
    printf("\nnext:\n");
    if (prefix[0])
        printf("  cmake -S %s -B %s/build -DCMAKE_PREFIX_PATH=%s\n", dir, dir,
               prefix);
    else
        printf("  # this ktune is not an installed one: install it first\n"
               "  # (cmake --install BUILD --prefix PREFIX), then\n"
               "  cmake -S %s -B %s/build -DCMAKE_PREFIX_PATH=PREFIX\n",
               dir, dir);
    printf("  cmake --build %s/build\n", dir);
    printf("  %s list --plugin %s/build/%s.so\n", ktune, dir, name);
    printf("  %s bench %s:mul --plugin %s/build/%s.so --variant grid_stride\n",
           ktune, name, dir, name);
    printf("  %s tune %s/%s.ini --plugin %s/build/%s.so\n", ktune, dir, name,
           dir, name);
}

int kt_cmd_new_plugin(int argc, char **argv)
{
    static const struct option options[] = {{"help", no_argument, NULL, 'h'},
                                            {NULL, 0, NULL, 0}};
    char paths[NUM_FILES][PATH_MAX + KT_NEW_PLUGIN_NAME_MAX + 16];
    char version[32];
    const char *name, *dir;
    size_t created = 0;
    int opt, rc = KT_EXIT_OK;
    struct stat st;
    kt_err err;

    kt_err_clear(&err);
    optind = 1;
    while ((opt = getopt_long(argc, argv, "", options, NULL)) != -1) {
        switch (opt) {
        case 'h': fputs(help, stdout); return KT_EXIT_OK;
        default: return kt_cli_usage_error("new-plugin", "bad option");
        }
    }
    if (optind >= argc)
        return kt_cli_usage_error("new-plugin", "NAME is missing");
    if (argc - optind > 2)
        return kt_cli_usage_error("new-plugin", "unexpected argument '%s'",
                                  argv[optind + 2]);
    name = argv[optind];
    dir = optind + 1 < argc ? argv[optind + 1] : name;
    if (check_name(name, &err) || check_name_free(name, &err))
        return kt_cli_fail(&err);

    /* Every file is checked before any is written: all or nothing. */
    for (size_t i = 0; i < NUM_FILES; ++i) {
        snprintf(paths[i], sizeof paths[i], "%s/%s%s", dir,
                 files[i].named ? name : "", files[i].suffix);
        if (lstat(paths[i], &st) == 0) {
            kt_err_set(&err, KT_S_INPUT,
                       "new-plugin: %s exists; new-plugin never overwrites "
                       "files: choose another DIR or NAME",
                       paths[i]);
            return kt_cli_fail(&err);
        }
    }
    if (make_dirs(dir, &err))
        return kt_cli_fail(&err);
    package_version(version, sizeof version);
    for (; created < NUM_FILES; ++created) {
        char *text = expand(files[created].text, name, version);
        kt_status st_write;
        if (!text) {
            kt_err_set(&err, KT_S_NOMEM, "new-plugin: out of memory");
            break;
        }
        st_write = write_new(paths[created], text, &err);
        free(text);
        if (st_write)
            break;
    }
    if (created < NUM_FILES) {
        /* Leave nothing half made: remove what this call wrote. */
        for (size_t i = 0; i < created; ++i)
            unlink(paths[i]);
        return kt_cli_fail(&err);
    }
    printf("created");
    for (size_t i = 0; i < NUM_FILES; ++i)
        printf("%s %s", i ? "," : "", paths[i]);
    printf("\n");
    print_next_steps(name, dir);
    return rc;
}
