// The GEMM shapes CSV reader (calibrate/gemm_shapes.hpp) on arbitrary text.
#include <sstream>
#include <string>

#include "calibrate/gemm_shapes.hpp"
#include "fuzz_target.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::istringstream in{std::string(trainsim::fuzz::as_text(data, size))};
  trainsim::fuzz::expect_accept_or_reject(
      [&] { (void)trainsim::calibrate::parse_gemm_shapes(in, "fuzz.csv"); });
  return 0;
}
