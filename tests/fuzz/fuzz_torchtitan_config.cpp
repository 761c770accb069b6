// torchtitan's TOML config importer (inputs/import/torchtitan_config.hpp) on arbitrary text.
#include "fuzz_target.hpp"
#include "inputs/import/torchtitan_config.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  trainsim::fuzz::expect_accept_or_reject([&] {
    (void)trainsim::inputs::import::import_torchtitan(trainsim::fuzz::as_text(data, size),
                                                      "train.toml", {"dgx-h100", 64, {}, "fuzz"});
  });
  return 0;
}
