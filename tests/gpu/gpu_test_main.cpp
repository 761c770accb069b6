// The main of every GPU test executable: runs the doctest cases when this machine has at least
// TRAINSIM_GPUS_NEEDED CUDA GPUs (set per executable by tests/gpu/CMakeLists.txt) and exits 77
// otherwise (ctest: skipped), saying why.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <cstdio>
#include <string>

#include "models/cuda/cuda_backend.hpp"

#ifndef TRAINSIM_GPUS_NEEDED
#error "tests/gpu/CMakeLists.txt sets TRAINSIM_GPUS_NEEDED for each GPU test"
#endif

int main(int argc, char** argv) {
  constexpr int kExitSkipped = 77;  // ctest: skipped
  constexpr int kNeeded = TRAINSIM_GPUS_NEEDED;
  std::string why;
  const int gpus = trainsim::cuda::gpu_count(why);
  if (gpus < kNeeded) {
    std::printf("skipped: needs %d GPU%s, found %d%s%s\n", kNeeded, kNeeded == 1 ? "" : "s", gpus,
                why.empty() ? "" : ": ", why.c_str());
    return kExitSkipped;
  }
  doctest::Context context(argc, argv);
  return context.run();
}
