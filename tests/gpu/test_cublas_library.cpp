// cuBLAS is opened at run time by the cuda backend (models/cuda/cublas_library.hpp). Opening
// and resolving needs no GPU, so these run on every CUDA build.
#include <doctest/doctest.h>

#include <string>

#include "models/cuda/cublas_library.hpp"
#include "models/cuda/cuda_error.hpp"

using trainsim::cuda::CublasLibrary;
using trainsim::cuda::CudaError;

TEST_CASE("cublas_library: the cuBLAS compiled against opens and every entry point resolves") {
  const CublasLibrary blas;
  CHECK(static_cast<bool>(blas.create));
  CHECK(static_cast<bool>(blas.destroy));
  CHECK(static_cast<bool>(blas.set_stream));
  CHECK(static_cast<bool>(blas.gemm_strided_batched_ex));
  REQUIRE(static_cast<bool>(blas.status_string));
  // A call that needs no device: the resolved function is cuBLAS's own.
  CHECK(std::string(blas.status_string(CUBLAS_STATUS_NOT_INITIALIZED)) ==
        "the library was not initialized");
  CHECK(CublasLibrary::default_name() == "libcublas.so." + std::to_string(CUBLAS_VER_MAJOR));
}

TEST_CASE("cublas_library: a library that cannot be opened is named in the error") {
  try {
    const CublasLibrary blas("libtrainsim-no-such-cublas.so");
    FAIL("opening a missing library did not throw");
  } catch (const CudaError& e) {
    CHECK(std::string(e.what()).find("libtrainsim-no-such-cublas.so") != std::string::npos);
  }
}

TEST_CASE("cublas_library: a library without cuBLAS's symbols is refused, naming the symbol") {
  try {
    const CublasLibrary blas("libm.so.6");
    FAIL("a library without cuBLAS's symbols was accepted");
  } catch (const CudaError& e) {
    CHECK(std::string(e.what()).find("cublasCreate_v2") != std::string::npos);
  }
}
