#pragma once
// The two kernels the microbenchmarks need beyond the executor's (models/cuda/kernels.hpp):
// an empty kernel, whose back-to-back launches time the launch overhead, and the reference
// for the GEMM check (sampled entries of C computed in double from fp32 copies of A and B).

#include <cuda_runtime.h>

#include <cstdint>

namespace trainsim::calibrate::gpu {

/// Launches `count` empty one-block kernels on `stream`.
void launch_empty_kernels(int count, cudaStream_t stream);

/// One batch element's row-major operands in fp32: op(A) is m×k (stored k×m when
/// transpose_a), op(B) k×n (stored n×k when transpose_b).
struct ReferenceGemm {
  const float* a = nullptr;
  const float* b = nullptr;
  std::int64_t m = 0;
  std::int64_t n = 0;
  std::int64_t k = 0;
  bool transpose_a = false;
  bool transpose_b = false;
};

/// For each of `count` entries (rows[i], cols[i]): value[i] = Σ_l op(A)[r,l]·op(B)[l,c] and
/// magnitude[i] = Σ_l |op(A)[r,l]·op(B)[l,c]|, in double, one thread per entry.
void reference_gemm_entries(const ReferenceGemm& g, const std::int64_t* rows,
                            const std::int64_t* cols, int count, double* value, double* magnitude,
                            cudaStream_t stream);

}  // namespace trainsim::calibrate::gpu
