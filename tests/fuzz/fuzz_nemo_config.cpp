// NeMo / Megatron-Bridge YAML config importer (inputs/import/nemo_config.hpp) on arbitrary text.
#include "fuzz_target.hpp"
#include "inputs/import/nemo_config.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  trainsim::fuzz::expect_accept_or_reject([&] {
    (void)trainsim::inputs::import::import_nemo(trainsim::fuzz::as_text(data, size), "config.yaml",
                                                {"dgx-h100", 64, 50257, "fuzz"});
  });
  return 0;
}
