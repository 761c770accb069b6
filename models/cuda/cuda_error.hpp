#pragma once
// CudaError: a failed CUDA runtime, cuBLAS or kernel-launch call, naming the call and its code
// (style §11). Library code throws it and never exits.

#include <stdexcept>
#include <string>
#include <string_view>

namespace trainsim::cuda {

class CudaError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Throws CudaError "CALL failed: MESSAGE (code N)" unless `code` is 0 (success in every
/// CUDA library).
inline void throw_if_failed(int code, std::string_view call, std::string_view message) {
  if (code == 0) return;
  throw CudaError(std::string(call) + " failed: " + std::string(message) + " (code " +
                  std::to_string(code) + ")");
}

}  // namespace trainsim::cuda
