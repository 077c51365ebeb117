// Device helpers shared by the kernels (push_relabel.cu, single_loop.cu, global_relabel.cu). PyCUDA compiles
// the kernels with this directory on the include path (kernels/__init__.py, load()).

#pragma once

// The slots of the push-relabel kernels' counts (declarations.PREFLOW_COUNTS reads them).
#define COUNT_PUSHES 0
#define COUNT_RELABELS 1
#define COUNT_CANCELLED 2   // arcs cancel_violations_kernel pushed along

// 64-bit signed atomic add: two's complement makes the unsigned atomicAdd subtract too.
static __device__ __forceinline__ void atomic_add(long long *address, long long value)
{
    atomicAdd(reinterpret_cast<unsigned long long *>(address),
              static_cast<unsigned long long>(value));
}

// Sum over a warp; every lane of the warp must call it.
static __device__ unsigned int warp_sum(unsigned int value)
{
    for (int offset = 16; offset > 0; offset /= 2)
        value += __shfl_down_sync(0xffffffffu, value, offset);
    return value;
}

// Adds the warp's pushes and relabels to their counts: one atomic each per warp,
// by its first lane. Every lane of the warp must call it.
static __device__ void add_warp_counts(unsigned int pushes, unsigned int relabels,
                                       unsigned long long *counts)
{
    pushes = warp_sum(pushes);
    relabels = warp_sum(relabels);
    if (threadIdx.x % 32 == 0 && pushes + relabels > 0) {
        atomicAdd(&counts[COUNT_PUSHES], static_cast<unsigned long long>(pushes));
        atomicAdd(&counts[COUNT_RELABELS], static_cast<unsigned long long>(relabels));
    }
}
