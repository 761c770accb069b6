#pragma once
// GEMM through cuBLAS (cublasGemmStridedBatchedEx): bf16 and fp16 with fp32 accumulation,
// tf32 (fp32 storage, CUBLAS_COMPUTE_32F_FAST_TF32), fp32 and fp64 — the executor's cuda
// backend's calls. Grid: powers of two and odd sizes per dtype, plus every shape of --shapes.
// Operands are random N(0, 1) (never zero); enough copies of A, B, C rotate that a
// repetition's operands are not in L2 (2× L2 in all). The check recomputes 32 sampled entries
// of C of the first and last batch element in double on the device.

#include <cstdint>
#include <memory>
#include <vector>

#include "calibrate/benchmark.hpp"
#include "calibrate/gemm_shapes.hpp"
#include "calibrate/gpu_resources.hpp"

namespace trainsim::calibrate::gpu {

/// One GEMM shape's operands on one device and the call that computes it (also used by the
/// interference benchmark).
class GemmRunner {
 public:
  /// Throws CudaError when the operands do not fit.
  GemmRunner(const GemmShape& shape, int device, cudaStream_t stream, std::int64_t l2_bytes);
  /// Enqueues one GEMM on the next copy of the operands.
  void run();
  /// Checks sampled entries of the last result of copy 0 (call after a run of every copy).
  bool verify();
  int copies() const { return static_cast<int>(copies_.size()); }
  /// Bytes of one copy of A, B and C.
  std::int64_t footprint() const;

 private:
  struct Operands {
    DeviceBuffer a, b, c;
  };
  GemmShape shape_;
  int device_;
  cudaStream_t stream_;
  CublasHandle handle_;
  DeviceBuffer workspace_;  ///< kGemmWorkspaceBytes, given to cuBLAS as frameworks do
  std::vector<Operands> copies_;
  int next_ = 0;
};

/// The cuBLAS workspace PyTorch gives its handles on Hopper (CUBLAS_WORKSPACE_CONFIG's default
/// :4096:8, 32 MiB). Without one, and through cublasGemmStridedBatchedEx, the calibrator's bf16
/// GEMMs ran a median 11 % slower than torch.mm on the same shapes and layouts (H100,
/// 2026-11-27, calibrate/measurements/2026-11-27-h100/run4-torch-gemms/): the profile would be
/// fitted on a path no framework takes.
inline constexpr std::size_t kGemmWorkspaceBytes = std::size_t{32} << 20;

/// The "gemm" benchmark (suite gemm).
BenchmarkDescriptor gemm_benchmark();

}  // namespace trainsim::calibrate::gpu
