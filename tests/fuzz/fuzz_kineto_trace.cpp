// The PyTorch profiler trace reader (inputs/kineto_trace.hpp) on arbitrary text.
#include "fuzz_target.hpp"
#include "inputs/kineto_trace.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  trainsim::fuzz::expect_accept_or_reject([&] {
    (void)trainsim::inputs::parse_kineto_trace(trainsim::fuzz::as_text(data, size), "fuzz.json");
  });
  return 0;
}
