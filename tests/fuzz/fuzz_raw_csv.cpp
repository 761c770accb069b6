// The raw calibration CSV reader (calibrate/raw_measurements.hpp) on arbitrary text.
#include <sstream>
#include <string>

#include "calibrate/raw_measurements.hpp"
#include "fuzz_target.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::istringstream in{std::string(trainsim::fuzz::as_text(data, size))};
  trainsim::fuzz::expect_accept_or_reject(
      [&] { (void)trainsim::calibrate::parse_raw_measurements(in, "fuzz.csv"); });
  return 0;
}
