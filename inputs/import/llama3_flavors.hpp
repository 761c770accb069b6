#pragma once
// Internal to inputs/import/: torchtitan's llama3 flavors (ecosystem-formats.md §3.3:
// torchtitan/models/llama3/__init__.py) and the FeedForward width rule they share.

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

namespace trainsim::inputs::import::detail {

struct Flavor {
  std::string_view name;
  std::int64_t dim;
  std::int64_t layers;
  std::int64_t heads;
  std::int64_t kv_heads;
  double ffn_multiplier;  ///< 0: none
  std::int64_t multiple_of;
  std::int64_t vocab;
  std::string_view attention;  ///< torchtitan's attn_type: "sdpa", "flex", "varlen"
};

/// The flavor named `name` ("8B", "70B_flex", ...), or null.
const Flavor* llama3_flavor(std::string_view name);

/// Every flavor's name, quoted and separated by commas: "\"debugmodel\", ..., \"405B\"".
std::string llama3_flavor_names();

/// torchtitan's FeedForward width: 4·dim, two thirds of it (truncated), times the multiplier
/// (truncated), rounded up to a multiple of multiple_of. Also returns the steps as text.
std::pair<std::int64_t, std::string> llama_ffn(const Flavor& f);

}  // namespace trainsim::inputs::import::detail
