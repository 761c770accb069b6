// The measured-run CSV reader (vTrain's format; inputs/run_measurements.hpp) on arbitrary
// text, and the scenario each accepted row becomes.
#include <sstream>
#include <string>

#include "fuzz_target.hpp"
#include "inputs/run_measurements.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::istringstream in{std::string(trainsim::fuzz::as_text(data, size))};
  trainsim::fuzz::expect_accept_or_reject([&] {
    const auto runs = trainsim::inputs::parse_run_measurements(in, "fuzz.csv");
    for (const auto& run : runs.rows)
      (void)trainsim::inputs::measured_run_scenario(run);
  });
  return 0;
}
