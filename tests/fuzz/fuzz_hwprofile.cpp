// The hardware profile loader (inputs/hwprofile_loader.hpp) on arbitrary text.
#include "fuzz_target.hpp"
#include "inputs/hwprofile_loader.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto file = trainsim::fuzz::input_file(trainsim::fuzz::as_text(data, size), ".yaml");
  trainsim::fuzz::expect_accept_or_reject(
      [&] { (void)trainsim::inputs::load_hardware_profile(file); });
  return 0;
}
