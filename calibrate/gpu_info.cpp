// trainsim-gpu-info: the environment record a calibration run starts with (GPU, SMs, memory,
// clocks, driver, CUDA runtime and cuBLAS versions), as YAML on stdout. Exits 77 (skipped)
// when no GPU is usable, saying why, so CI without a GPU passes cleanly.

#include <cstdio>
#include <string>

#include "calibrate/gpu_environment.hpp"

int main() {
  constexpr int kExitNoGpu = 77;
  std::string why_not;
  const auto env = trainsim::calibrate::gpu::query_environment(why_not);
  if (!env) {
    std::printf("skipped: %s\n", why_not.c_str());
    return kExitNoGpu;
  }
  std::fputs(trainsim::calibrate::gpu::to_yaml(*env).c_str(), stdout);
  return 0;
}
