// Writes the synthetic raw CSV of the fit tests (selene-a100-80gb with the test's "true"
// figures, 0.5 % noise) to the file named on the command line, for the end-to-end test of
// `trainsim fit`.

#include <cstdio>
#include <exception>
#include <fstream>

#include "inputs/hwprofile_loader.hpp"
#include "synthetic_raw.hpp"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: write_synthetic_raw OUT.csv\n");
    return 2;
  }
  try {
    const auto base = trainsim::inputs::load_hardware_profile(
        std::filesystem::path(TRAINSIM_SOURCE_ROOT) / "hwprofiles" / "selene-a100-80gb.yaml");
    std::ofstream(argv[1]) << trainsim::calibrate::testing::synthetic_raw_csv(
        trainsim::calibrate::testing::synthetic_truth(base), 0.005);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "write_synthetic_raw: %s\n", e.what());
    return 1;
  }
  return 0;
}
