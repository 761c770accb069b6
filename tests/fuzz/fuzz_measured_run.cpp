// The MEASURED.json reader (reports/measured_run_json.hpp) on arbitrary text.
#include "fuzz_target.hpp"
#include "reports/measured_run_json.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  trainsim::fuzz::expect_accept_or_reject([&] {
    (void)trainsim::reports::measured_run_from_json(trainsim::fuzz::as_text(data, size),
                                                    "fuzz.json");
  });
  return 0;
}
