// The llama3 flavor table and FeedForward rule the torchtitan importer sizes models from.
#include "inputs/import/llama3_flavors.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>

namespace trainsim::inputs::import::detail {

namespace {

using Int = std::int64_t;

constexpr std::array<Flavor, 8> kFlavors{{
    {"debugmodel", 256, 6, 16, 16, 0.0, 256, 2048, "sdpa"},
    {"debugmodel_flex_attn", 256, 6, 16, 16, 0.0, 256, 2048, "flex"},
    {"debugmodel_varlen_attn", 256, 6, 16, 16, 0.0, 256, 2048, "varlen"},
    {"8B", 4096, 32, 32, 8, 1.3, 1024, 128256, "sdpa"},
    {"8B_flex", 4096, 32, 32, 8, 1.3, 1024, 128256, "flex"},
    {"8B_varlen", 4096, 32, 32, 8, 1.3, 1024, 128256, "varlen"},
    {"70B", 8192, 80, 64, 8, 1.3, 4096, 128256, "sdpa"},
    {"405B", 16384, 126, 128, 8, 1.2, 4096, 128256, "sdpa"},
}};

}  // namespace

const Flavor* llama3_flavor(std::string_view name) {
  const auto it = std::find_if(kFlavors.begin(), kFlavors.end(),
                               [&](const Flavor& f) { return f.name == name; });
  return it == kFlavors.end() ? nullptr : &*it;
}

std::string llama3_flavor_names() {
  std::string known;
  for (const Flavor& f : kFlavors)
    known += fmt::format("{}\"{}\"", known.empty() ? "" : ", ", f.name);
  return known;
}

std::pair<Int, std::string> llama_ffn(const Flavor& f) {
  Int hidden = static_cast<Int>(2.0 * static_cast<double>(4 * f.dim) / 3.0);
  std::string steps = fmt::format("int(2 x 4 x {} / 3) = {}", f.dim, hidden);
  if (f.ffn_multiplier > 0) {
    hidden = static_cast<Int>(f.ffn_multiplier * static_cast<double>(hidden));
    steps += fmt::format(", x {} = {}", f.ffn_multiplier, hidden);
  }
  hidden = f.multiple_of * ((hidden + f.multiple_of - 1) / f.multiple_of);
  steps += fmt::format(", up to a multiple of {} = {}", f.multiple_of, hidden);
  return {hidden, steps};
}

}  // namespace trainsim::inputs::import::detail
