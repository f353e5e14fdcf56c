# SPDX-License-Identifier: Apache-2.0
# %% [markdown]
# # Tuning a CUDA kernel from Python with ktune
#
# A notebook in percent format: open it in Jupyter (jupytext) or VS Code
# and run the cells, or run it whole with `python3 tune_vector_add.py`.
# Needs a GPU for the tuning cells; the last cell replays a recording and
# runs anywhere. Install: `pip install .` at the repository's root
# (docs/python.md).

# %%
import numpy as np

import ktune

print("ktune", ktune.__version__)

# %% [markdown]
# ## The kernel and its arguments
# Every tunable parameter reaches the kernel as a macro: `block_size_x`
# here. The output is declared with `ktune.Out`; the answer verifies
# every configuration before its time counts.

# %%
src = r"""
__global__ void vector_add(float *c, const float *a, const float *b, int n) {
    int i = blockIdx.x * block_size_x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}
"""
n = 1 << 24
rng = np.random.default_rng(1)
a = rng.standard_normal(n, dtype=np.float32)
b = rng.standard_normal(n, dtype=np.float32)
kernel = ktune.Kernel(
    "vector_add", src, [ktune.Out(np.empty_like(a)), a, b, np.int32(n)],
    {"block_size_x": [32 * i for i in range(1, 21)]},
    problem_size=n, answer=[a + b, None, None, None])
print("space:", kernel.check().space)   # (points, feasible): no GPU needed

# %% [markdown]
# ## Tune
# A progress bar follows the run (tqdm where installed). In Jupyter the
# result shows as ktune's HTML report.

# %%
result = kernel.tune("exhaustive")
best = result.best
print(f"best {best['config']}: {best['median_us']:.2f} us "
      f"[{best['ci_lo_us']:.2f}, {best['ci_hi_us']:.2f}]")
result

# %% [markdown]
# ## Every point as a table, and one configuration again

# %%
try:
    df = result.to_pandas()
    print(df[["block_size_x", "status", "median_us", "ci_lo_us", "ci_hi_us"]]
          .sort_values("median_us").head())
except ImportError:
    print("pandas is not installed")
print(kernel.bench({"block_size_x": best["block_size_x"]}).best)

# %% [markdown]
# ## CuPy or PyTorch arguments
# Device arrays are copied to the host once, here (ktune's worker process
# allocates its own device memory).

# %%
try:
    import cupy as cp
    a_d, b_d = cp.asarray(a), cp.asarray(b)
    r = ktune.tune("vector_add", src, [ktune.Out(cp.empty_like(a_d)), a_d, b_d, np.int32(n)],
                   {"block_size_x": [32 * i for i in range(1, 21)]},
                   problem_size=n, answer=[a_d + b_d, None, None, None], progress=False)
    print("cupy:", r)
except ImportError:
    print("CuPy is not installed")

# %% [markdown]
# ## Replay a recording (no GPU)
# The search answered from a journal recorded on an H200.

# %%
import pathlib

rec = pathlib.Path(ktune.__file__).parent / "_native/share/ktune/recordings/vector_add-h200-n268435456.jsonl"
if rec.exists():
    print(ktune.replay(rec, "one_at_a_time"))
kernel.close()
