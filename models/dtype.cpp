#include "models/dtype.hpp"

#include <array>

namespace trainsim {

std::optional<DType> dtype_from_string(std::string_view s) {
  constexpr std::array all{DType::fp64, DType::fp32, DType::tf32,
                           DType::bf16, DType::fp16, DType::fp8};
  for (DType t : all) {
    if (to_string(t) == s) return t;
  }
  return std::nullopt;
}

}  // namespace trainsim
