#pragma once
// A PyTorch profiler (Kineto) trace: the Chrome-trace JSON that torch.profiler's
// export_chrome_trace writes (optionally gzip-compressed), read for what a step measured —
// its ProfilerStep#N spans and every GPU activity (kernels, memcpys, memsets) with its device,
// stream, start and duration, each kernel classed by name. Parsed by the format (event kinds,
// `args`), not by any one file: fields Kineto may leave out are optional, the ones a GPU
// activity cannot do without are checked and named when missing.

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "units/units.hpp"

namespace trainsim::inputs {

/// What a GPU activity is, by its name (kernels) or its category (memcpy, memset). Coarse on
/// purpose: the classes a simulator prediction can be compared with.
enum class KernelFamily : std::uint8_t {
  gemm,           ///< cuBLAS / cuBLASLt / CUTLASS matrix products (and their split-K reductions)
  attention,      ///< fused attention (FlashAttention, cuDNN fMHA, PyTorch's efficient attention)
  normalization,  ///< LayerNorm / RMSNorm forward and backward
  softmax_loss,   ///< softmax, log-softmax, cross-entropy / NLL
  optimizer,      ///< multi-tensor and fused optimizer kernels (Adam, norms, scaling)
  communication,  ///< NCCL kernels
  elementwise,    ///< PyTorch's element-wise, reduction, copy, cat, index and fill kernels
  memcpy,         ///< copies (gpu_memcpy)
  memset,         ///< memsets (gpu_memset)
  other           ///< a kernel no rule names
};
inline constexpr int kKernelFamilyCount = 10;
std::string_view to_string(KernelFamily f);

/// The family of a kernel's name (case-insensitive substring rules, first match wins; the
/// rules are listed in inputs/README.md).
KernelFamily classify_kernel(std::string_view name);

struct GpuActivity {
  std::string name;
  KernelFamily family = KernelFamily::other;
  std::int64_t device = 0;
  std::int64_t stream = 0;
  Time start;  ///< trace clock
  Time duration;
  /// The CUDA runtime call that launched it (args.correlation), when the trace has one.
  std::optional<std::int64_t> correlation;
};

/// A CPU-side ProfilerStep#N span (torch.profiler's step markers).
struct ProfilerStep {
  std::int64_t number = 0;
  Time start;
  Time duration;
};

/// A CUDA runtime call on the host (cudaLaunchKernel, cudaMemcpyAsync, ...): the host time at
/// which a GPU activity of the same correlation was issued.
struct RuntimeCall {
  std::int64_t correlation = 0;
  Time start;
};

struct KinetoTrace {
  std::filesystem::path source;
  std::vector<ProfilerStep> steps;         ///< by number, one span per number
  std::vector<GpuActivity> activities;     ///< in start order
  std::vector<RuntimeCall> runtime_calls;  ///< in correlation order
  std::optional<std::int64_t> rank;        ///< distributedInfo.rank
  std::optional<std::int64_t> world_size;  ///< distributedInfo.world_size
};

/// Parses trace text. Not JSON, no `traceEvents` array (or a bare array), an event that is not
/// an object, or a complete ("X") GPU activity or step without a numeric `ts`/`dur` (or with a
/// negative or non-finite one) throws ConfigError naming `source`, the line and column where
/// the parser stopped or the event's index and name, the field and what is valid.
KinetoTrace parse_kineto_trace(std::string_view text, const std::filesystem::path& source);

/// Reads FILE (plain JSON, or gzip when it starts with gzip's magic bytes) and parses it;
/// ConfigError when it cannot be read or inflated.
KinetoTrace load_kineto_trace(const std::filesystem::path& file);

}  // namespace trainsim::inputs
