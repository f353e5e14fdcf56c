// SPDX-License-Identifier: Apache-2.0
// empty: a kernel that does nothing, launched over n threads — the launch
// floor every other measurement stands on. Its work is zero bytes and zero
// flops: derived bandwidth and flop rate are then 0 (core/derive.c divides
// the work by the time, never by the work), not infinite or NaN. Nothing is
// computed, so nothing can be wrong: a launch that failed or faulted is
// caught by the host's own checks around launch and synchronisation.
#include <ktune/plugin_util.h>

namespace
{

__global__ void empty_kernel()
{
}

// The same, with the arguments a typical kernel receives (three pointers
// and a size): whether passing parameters moves the floor.
__global__ void empty_args(const float *, const float *, float *, size_t)
{
}

const kt_param_desc block_only[] = {
    KT_PARAM_POW2("block", "threads per block", 32, 1024, 256),
};

// The geometry is shape()'s (kt_shape_per_element); the state is the
// problem's sizes (kt_setup_sizes).
int launch_empty(void *, const kt_config *, const kt_shape *sh, void *stream)
{
    return kt_launch(*sh, stream, empty_kernel);
}

int launch_args(void *st, const kt_config *, const kt_shape *sh, void *stream)
{
    size_t n = (size_t)((kt_sizes_state *)st)->sizes[0];
    return kt_launch(*sh, stream, empty_args, (const float *)nullptr,
                     (const float *)nullptr, (float *)nullptr, n);
}

const kt_size_desc sizes[] = {
    KT_SIZE("n", "threads launched (rounded up to whole blocks)", 1, 1,
            (int64_t)1 << 40),
};

const kt_variant variants[] = {
    KT_VARIANT("empty", "__global__ void k() {}", block_only,
               kt_shape_per_element<empty_kernel>, nullptr, launch_empty),
    KT_VARIANT("empty_args",
               "empty body, three pointers and a size as arguments", block_only,
               kt_shape_per_element<empty_args>, nullptr, launch_args),
};

const kt_operator operators[] = {
    KT_OPERATOR("launch", "an empty kernel over n threads: the launch floor", 0,
                sizes, variants, kt_work_none, kt_setup_sizes, nullptr,
                kt_verify_nothing, kt_teardown_free),
};

const kt_plugin plugin =
    KT_PLUGIN("empty", "1.0.0", "the empty kernel: launch overhead, zero work",
              operators);

} // namespace

KT_PLUGIN_EXPORT(plugin)
