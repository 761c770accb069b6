#pragma once
// cuBLAS opened when a cuda backend is made, not when the program starts. Linked, it made
// every trainsim process load and relocate libcublasLt (~150 MB resident and ~25 K page
// faults before main, whatever the command: `simulate` of the 3072-GPU row went from 1.24 to
// 1.39 GB) although only `exec --backend cuda` and the GPU tests call it.

#include <cublas_v2.h>

#include <string>
#include <type_traits>

namespace trainsim::cuda {

/// The cuBLAS entry points the cuda backend calls, resolved from the shared library, which
/// stays open while this object lives (dlopen counts references: one per backend is cheap).
class CublasLibrary {
 public:
  /// The cuBLAS this was compiled against, e.g. "libcublas.so.13" (found like a linked
  /// library: the executable's run path, LD_LIBRARY_PATH, the loader's cache).
  static std::string default_name();

  /// Opens `name` and resolves every entry point; throws CudaError naming the library, the
  /// missing symbol and the loader's reason.
  explicit CublasLibrary(const std::string& name = default_name());
  ~CublasLibrary();
  CublasLibrary(const CublasLibrary&) = delete;
  CublasLibrary& operator=(const CublasLibrary&) = delete;

  // cublas_v2.h maps these names to their _v2 symbols; the pointer types follow.
  decltype(&cublasCreate) create = nullptr;
  decltype(&cublasDestroy) destroy = nullptr;
  decltype(&cublasSetStream) set_stream = nullptr;
  /// The overload taking a cublasComputeType_t (C++ also sees an inline one taking a
  /// cudaDataType, which is not in the library).
  using GemmStridedBatchedEx = cublasStatus_t (*)(cublasHandle_t, cublasOperation_t,
                                                  cublasOperation_t, int, int, int, const void*,
                                                  const void*, cudaDataType, int, long long,
                                                  const void*, cudaDataType, int, long long,
                                                  const void*, void*, cudaDataType, int, long long,
                                                  int, cublasComputeType_t, cublasGemmAlgo_t);
  GemmStridedBatchedEx gemm_strided_batched_ex = nullptr;
  decltype(&cublasGetStatusString) status_string = nullptr;

 private:
  void* handle_ = nullptr;
};

// The declared function has exactly this type (unevaluated: nothing is linked).
static_assert(std::is_same_v<decltype(static_cast<CublasLibrary::GemmStridedBatchedEx>(
                                 &cublasGemmStridedBatchedEx)),
                             CublasLibrary::GemmStridedBatchedEx>);

}  // namespace trainsim::cuda
