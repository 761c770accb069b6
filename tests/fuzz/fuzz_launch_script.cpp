// The launch-script expander and Megatron's flag mapping (inputs/import/) on arbitrary text.
#include "fuzz_target.hpp"
#include "inputs/import/megatron_flags.hpp"
#include "inputs/import/shell_script.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  trainsim::fuzz::expect_accept_or_reject([&] {
    namespace im = trainsim::inputs::import;
    const im::LaunchCommand c =
        im::parse_launch_script(trainsim::fuzz::as_text(data, size), "train.sh");
    std::vector<std::string> words;
    std::vector<trainsim::SourceLocation> where;
    for (const im::ShellWord& w : c.arguments) {
      words.push_back(w.text);
      where.push_back(w.where);
    }
    const auto flags = im::split_megatron_arguments(words, where);
    (void)im::scenario_from_megatron(flags, {64, "fuzz"}, {"dgx-h100", {}, 50257, "fuzz"},
                                     "train.sh");
  });
  return 0;
}
