#pragma once
// Element types of tensors on the device, with their size and text form.

#include <cstdint>
#include <optional>
#include <string_view>

namespace trainsim {

/// fp8: the 8-bit floats of Transformer Engine's FP8 GEMMs (E4M3 forward, E5M2 gradients under
/// its HYBRID format); the cpu backend keeps their values exact (fp64).
enum class DType : std::uint8_t { fp64, fp32, tf32, bf16, fp16, fp8 };

/// Bytes per element (tf32 is stored as fp32).
constexpr std::int64_t bytes_per_element(DType t) {
  switch (t) {
    case DType::fp64:
      return 8;
    case DType::fp32:
      return 4;
    case DType::tf32:
      return 4;
    case DType::bf16:
      return 2;
    case DType::fp16:
      return 2;
    case DType::fp8:
      return 1;
  }
  return 0;
}

/// The dtype a GEMM on `input` operands writes: its own, except Transformer Engine's FP8
/// GEMMs, which write bf16.
constexpr DType gemm_output_dtype(DType input) {
  return input == DType::fp8 ? DType::bf16 : input;
}

constexpr std::string_view to_string(DType t) {
  switch (t) {
    case DType::fp64:
      return "fp64";
    case DType::fp32:
      return "fp32";
    case DType::tf32:
      return "tf32";
    case DType::bf16:
      return "bf16";
    case DType::fp16:
      return "fp16";
    case DType::fp8:
      return "fp8";
  }
  return "?";
}

/// Inverse of to_string; nullopt for an unknown name.
std::optional<DType> dtype_from_string(std::string_view s);

}  // namespace trainsim
