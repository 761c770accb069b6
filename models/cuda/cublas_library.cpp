#include "models/cuda/cublas_library.hpp"

#include <dlfcn.h>

#include "models/cuda/cuda_error.hpp"

// The symbol a cuBLAS name stands for after cublas_v2.h's macros (cublasCreate ->
// "cublasCreate_v2"), so dlsym looks up what a linked call would have bound to.
#define TRAINSIM_CUBLAS_SYMBOL_TEXT(symbol) #symbol
#define TRAINSIM_CUBLAS_SYMBOL(name) TRAINSIM_CUBLAS_SYMBOL_TEXT(name)

namespace trainsim::cuda {

namespace {

std::string loader_error() {
  const char* why = dlerror();
  return why == nullptr ? std::string("no reason given") : std::string(why);
}

template <class Function>
void resolve(void* handle, const std::string& library, const char* symbol, Function& out) {
  dlerror();  // clears an earlier error, so a null symbol's reason is this lookup's
  void* address = dlsym(handle, symbol);
  if (address == nullptr) {
    throw CudaError("cuBLAS library " + library + " has no " + symbol + ": " + loader_error());
  }
  out = reinterpret_cast<Function>(address);
}

}  // namespace

std::string CublasLibrary::default_name() {
  return "libcublas.so." + std::to_string(CUBLAS_VER_MAJOR);
}

CublasLibrary::CublasLibrary(const std::string& name) {
  handle_ = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle_ == nullptr) {
    throw CudaError("cannot load the cuBLAS library " + name +
                    " (needed by the cuda backend): " + loader_error());
  }
  try {
    resolve(handle_, name, TRAINSIM_CUBLAS_SYMBOL(cublasCreate), create);
    resolve(handle_, name, TRAINSIM_CUBLAS_SYMBOL(cublasDestroy), destroy);
    resolve(handle_, name, TRAINSIM_CUBLAS_SYMBOL(cublasSetStream), set_stream);
    resolve(handle_, name, TRAINSIM_CUBLAS_SYMBOL(cublasGemmStridedBatchedEx),
            gemm_strided_batched_ex);
    resolve(handle_, name, TRAINSIM_CUBLAS_SYMBOL(cublasGetStatusString), status_string);
  } catch (...) {
    dlclose(handle_);
    throw;
  }
}

CublasLibrary::~CublasLibrary() {
  dlclose(handle_);
}

}  // namespace trainsim::cuda
