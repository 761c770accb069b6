#pragma once
// The one table of hardware-profile keys: path, kind of value, whether required, and what it
// is. The profile loader takes each section's known keys from here, and `trainsim schema
// profile` writes its JSON Schema from it, so the two cannot disagree on a key.

#include <string>
#include <string_view>
#include <vector>

namespace trainsim::inputs {

/// What a profile value is written as.
enum class ProfileValue {
  section,                ///< a mapping of the keys below it
  text,                   ///< a string (names, descriptions)
  choice,                 ///< one of `choices`
  choice_list,            ///< a list of `choices`
  positive_int,           ///< a whole number >= 1 (`max` when set)
  fraction,               ///< a number in (0, 1]
  number,                 ///< a number in [min, max]
  time,                   ///< a quantity with a time unit ("4 us")
  bytes,                  ///< a quantity with a size unit ("80 GB")
  bandwidth,              ///< a quantity with a rate unit ("900 GB/s", "400 Gb/s")
  flop_rate,              ///< "989 TFLOP/s"
  flop_rate_map,          ///< {dtype: flop rate}
  fraction_map,           ///< {name in `choices`: fraction}
  bytes_curve,            ///< {message size: fraction}, sorted on load
  flops_curve,            ///< {GEMM FLOPs: fraction}
  curves_by_size,         ///< {group size: bytes curve}
  tile,                   ///< [m, n]
  tile_list,              ///< [[m, n], ...]
  interruption_rate,      ///< "5.3e-5 /GPU-day"
  interruption_rate_map,  ///< {cause name: interruption rate}
  text_map,               ///< {field path: text} (provenance)
};

struct ProfileKey {
  std::string_view path;  ///< dotted, e.g. "gpu.gemm.tile"
  ProfileValue value = ProfileValue::text;
  bool required = false;
  std::vector<std::string_view> choices;  ///< for choice, choice_list and fraction_map keys
  double min = 0.0;                       ///< for number
  double max = 0.0;                       ///< for number and positive_int (0: unbounded)
  std::string_view description;
};

/// Every profile key, sections before their keys.
const std::vector<ProfileKey>& profile_keys();
/// The direct child key names of `section` ("" = the top level), as the loader's known keys.
std::vector<std::string> profile_keys_under(std::string_view section);

}  // namespace trainsim::inputs
