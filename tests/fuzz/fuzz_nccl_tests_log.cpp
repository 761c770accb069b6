// nccl-tests' text output reader (calibrate/nccl_tests_log.hpp) on arbitrary text.
#include <sstream>

#include "calibrate/nccl_tests_log.hpp"
#include "fuzz_target.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  trainsim::fuzz::expect_accept_or_reject([&] {
    std::istringstream in{std::string(trainsim::fuzz::as_text(data, size))};
    (void)trainsim::calibrate::parse_nccl_tests_log(in, "all_reduce_perf.log");
  });
  return 0;
}
