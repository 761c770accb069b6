#include "inputs/kineto_trace.hpp"

#include <fmt/format.h>
#include <zlib.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <fstream>
#include <iterator>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>

#include "models/errors.hpp"

namespace trainsim::inputs {

namespace {

using nlohmann::json;

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

struct Rule {
  std::string_view needle;  // lower case
  KernelFamily family;
};

// First match wins: communication and attention before GEMM (NCCL and flash kernels may name
// "gemm"-like tiles), the optimizer's multi-tensor kernels before element-wise.
constexpr std::array kRules{
    Rule{"nccl", KernelFamily::communication},
    Rule{"flash", KernelFamily::attention},
    Rule{"fmha", KernelFamily::attention},
    Rule{"attention", KernelFamily::attention},
    Rule{"attn", KernelFamily::attention},
    Rule{"cudnn_generated", KernelFamily::attention},
    // cuDNN's attention backward around its main kernel: the pre-pass D = rowsum(dO ∘ O) and
    // the dQ conversion are element-wise work (the replay records them so:
    // MetaBackend::flash_attention_backward); the head reduction (grouped-query dK, dV) belongs
    // to the attention kernel.
    Rule{"compute_dot_do_o", KernelFamily::elementwise},
    Rule{"convert_dq", KernelFamily::elementwise},
    Rule{"cudnn::fusion", KernelFamily::attention},
    Rule{"layer_norm", KernelFamily::normalization},
    Rule{"layernorm", KernelFamily::normalization},
    Rule{"rms_norm", KernelFamily::normalization},
    Rule{"rmsnorm", KernelFamily::normalization},
    Rule{"rowwisemoments", KernelFamily::normalization},
    Rule{"gammabetabackward", KernelFamily::normalization},
    Rule{"softmax", KernelFamily::softmax_loss},
    Rule{"cross_entropy", KernelFamily::softmax_loss},
    Rule{"nll_loss", KernelFamily::softmax_loss},
    Rule{"multi_tensor_apply", KernelFamily::optimizer},
    Rule{"adam", KernelFamily::optimizer},
    Rule{"gemm", KernelFamily::gemm},
    Rule{"gemv", KernelFamily::gemm},
    Rule{"cutlass", KernelFamily::gemm},
    Rule{"cublas", KernelFamily::gemm},
    Rule{"nvjet", KernelFamily::gemm},
    Rule{"xmma", KernelFamily::gemm},
    Rule{"splitkreduce", KernelFamily::gemm},
    Rule{"sgemm", KernelFamily::gemm},
    Rule{"elementwise", KernelFamily::elementwise},
    Rule{"reduce_kernel", KernelFamily::elementwise},
    Rule{"catarray", KernelFamily::elementwise},
    Rule{"index", KernelFamily::elementwise},
    Rule{"copy", KernelFamily::elementwise},
    Rule{"fill", KernelFamily::elementwise},
    Rule{"scatter", KernelFamily::elementwise},
    Rule{"gather", KernelFamily::elementwise},
    Rule{"embedding", KernelFamily::elementwise},
};

// 1-based line and column of a byte offset, for the parser's error.
std::pair<int, int> line_column(std::string_view text, std::size_t byte) {
  byte = std::min(byte, text.size());
  int line = 1;
  std::size_t line_start = 0;
  for (std::size_t i = 0; i < byte; ++i) {
    if (text[i] == '\n') {
      ++line;
      line_start = i + 1;
    }
  }
  return {line, static_cast<int>(byte - line_start) + 1};
}

class EventReader {
 public:
  EventReader(const std::filesystem::path& source, std::size_t index, const json& event)
      : source_(source), index_(index), event_(event) {}

  std::string name() const {
    const auto it = event_.find("name");
    return it != event_.end() && it->is_string() ? it->get<std::string>() : std::string();
  }
  std::string string_or_empty(const char* key) const {
    const auto it = event_.find(key);
    return it != event_.end() && it->is_string() ? it->get<std::string>() : std::string();
  }
  /// A finite, non-negative number of microseconds.
  double microseconds(const char* key) const {
    const auto it = event_.find(key);
    if (it == event_.end() || !it->is_number()) fail(key, "is missing or not a number");
    const double v = it->get<double>();
    if (!std::isfinite(v) || v < 0.0)
      fail(key, fmt::format("is {}: expected a finite number >= 0", v));
    return v;
  }
  /// args.KEY as an integer, when present and integral.
  std::optional<std::int64_t> arg(const char* key) const {
    const auto args = event_.find("args");
    if (args == event_.end() || !args->is_object()) return std::nullopt;
    const auto it = args->find(key);
    if (it == args->end() || !it->is_number_integer()) return std::nullopt;
    return it->get<std::int64_t>();
  }
  /// The top-level integer KEY (pid, tid), when present.
  std::optional<std::int64_t> integer(const char* key) const {
    const auto it = event_.find(key);
    if (it == event_.end() || !it->is_number_integer()) return std::nullopt;
    return it->get<std::int64_t>();
  }

  [[noreturn]] void fail(std::string_view field, const std::string& what) const {
    throw ConfigError({source_}, fmt::format("traceEvents[{}] ('{}'): {} {}", index_,
                                             name().substr(0, 120), field, what));
  }

 private:
  const std::filesystem::path& source_;
  std::size_t index_;
  const json& event_;
};

// "ProfilerStep#12" → 12; nullopt for any other name.
std::optional<std::int64_t> step_number(std::string_view name) {
  constexpr std::string_view prefix = "ProfilerStep#";
  if (name.substr(0, prefix.size()) != prefix || name.size() == prefix.size() ||
      name.size() > prefix.size() + 18)
    return std::nullopt;
  std::int64_t n = 0;
  for (const char c : name.substr(prefix.size())) {
    if (c < '0' || c > '9') return std::nullopt;
    n = n * 10 + (c - '0');
  }
  return n;
}

struct RawSpan {
  double start_us = 0.0;
  double duration_us = 0.0;
};

Time relative(double us, double origin_us, const std::filesystem::path& source) {
  try {
    return Time::from_us(us - origin_us);
  } catch (const std::out_of_range&) {
    throw ConfigError({source}, fmt::format("a time of {} us (from the trace's first event) is "
                                            "beyond the 106 days a time can hold",
                                            us - origin_us));
  }
}

}  // namespace

std::string_view to_string(KernelFamily f) {
  switch (f) {
    case KernelFamily::gemm:
      return "gemm";
    case KernelFamily::attention:
      return "attention";
    case KernelFamily::normalization:
      return "normalization";
    case KernelFamily::softmax_loss:
      return "softmax and loss";
    case KernelFamily::optimizer:
      return "optimizer";
    case KernelFamily::communication:
      return "communication";
    case KernelFamily::elementwise:
      return "elementwise";
    case KernelFamily::memcpy:
      return "memcpy";
    case KernelFamily::memset:
      return "memset";
    case KernelFamily::other:
      return "other";
  }
  return "other";
}

KernelFamily classify_kernel(std::string_view name) {
  const std::string n = lower(name);
  for (const Rule& r : kRules) {
    if (n.find(r.needle) != std::string::npos) return r.family;
  }
  return KernelFamily::other;
}

KinetoTrace parse_kineto_trace(std::string_view text, const std::filesystem::path& source) {
  json root;
  try {
    root = json::parse(text.begin(), text.end());
  } catch (const json::parse_error& e) {
    const auto [line, column] = line_column(text, e.byte == 0 ? 0 : e.byte - 1);
    throw ConfigError({source, line, column}, fmt::format("not JSON: {}", e.what()));
  }
  const json* events = &root;
  if (root.is_object()) {
    const auto it = root.find("traceEvents");
    if (it == root.end() || !it->is_array())
      throw ConfigError({source},
                        "traceEvents is missing or not an array: expected a Chrome "
                        "trace as torch.profiler's export_chrome_trace writes it");
    events = &*it;
  } else if (!root.is_array()) {
    throw ConfigError({source}, "expected a JSON object with traceEvents (or an array of events)");
  }

  KinetoTrace trace;
  trace.source = source;
  if (root.is_object()) {
    if (const auto d = root.find("distributedInfo"); d != root.end() && d->is_object()) {
      if (const auto r = d->find("rank"); r != d->end() && r->is_number_integer())
        trace.rank = r->get<std::int64_t>();
      if (const auto w = d->find("world_size"); w != d->end() && w->is_number_integer())
        trace.world_size = w->get<std::int64_t>();
    }
  }

  struct RawActivity {
    GpuActivity activity;
    RawSpan span;
  };
  std::vector<RawActivity> activities;
  std::map<std::int64_t, RawSpan> steps;  // one per number: the longest span
  std::vector<std::pair<std::int64_t, double>> calls;
  double origin_us = std::numeric_limits<double>::infinity();

  for (std::size_t i = 0; i < events->size(); ++i) {
    const json& e = (*events)[i];
    if (!e.is_object())
      throw ConfigError({source}, fmt::format("traceEvents[{}] is not an object", i));
    const EventReader r(source, i, e);
    if (r.string_or_empty("ph") != "X") continue;  // metadata, counters, flows, instants
    const std::string category = lower(r.string_or_empty("cat"));
    const std::string name = r.name();
    const bool kernel = category == "kernel";
    const bool memcpy = category == "gpu_memcpy";
    const bool memset = category == "gpu_memset";
    const std::optional<std::int64_t> step =
        category == "gpu_user_annotation" ? std::nullopt : step_number(name);
    const bool runtime = category == "cuda_runtime" || category == "cuda_driver";
    if (!kernel && !memcpy && !memset && !step && !runtime) continue;

    const RawSpan span{r.microseconds("ts"), runtime ? 0.0 : r.microseconds("dur")};
    origin_us = std::min(origin_us, span.start_us);
    if (step) {
      RawSpan& s = steps[*step];
      if (span.duration_us >= s.duration_us) s = span;
    } else if (runtime) {
      if (const auto c = r.arg("correlation")) calls.emplace_back(*c, span.start_us);
    } else {
      GpuActivity a;
      a.name = name;
      a.family = memcpy   ? KernelFamily::memcpy
                 : memset ? KernelFamily::memset
                          : classify_kernel(name);
      a.device = r.arg("device").value_or(r.integer("pid").value_or(0));
      a.stream = r.arg("stream").value_or(r.integer("tid").value_or(0));
      a.correlation = r.arg("correlation");
      activities.push_back({std::move(a), span});
    }
  }

  // Every span's end, too, within what a Time holds (the breakdown adds start and duration).
  for (const auto& [number, span] : steps)
    (void)relative(span.start_us + span.duration_us, origin_us, source);
  for (const RawActivity& a : activities)
    (void)relative(a.span.start_us + a.span.duration_us, origin_us, source);
  for (const auto& [number, span] : steps) {
    trace.steps.push_back({number, relative(span.start_us, origin_us, source),
                           relative(span.duration_us, 0.0, source)});
  }
  trace.activities.reserve(activities.size());
  for (RawActivity& a : activities) {
    a.activity.start = relative(a.span.start_us, origin_us, source);
    a.activity.duration = relative(a.span.duration_us, 0.0, source);
    trace.activities.push_back(std::move(a.activity));
  }
  std::stable_sort(trace.activities.begin(), trace.activities.end(),
                   [](const GpuActivity& a, const GpuActivity& b) { return a.start < b.start; });
  std::sort(calls.begin(), calls.end());
  calls.erase(std::unique(calls.begin(), calls.end(),
                          [](const auto& a, const auto& b) { return a.first == b.first; }),
              calls.end());
  for (const auto& [correlation, start_us] : calls)
    trace.runtime_calls.push_back({correlation, relative(start_us, origin_us, source)});
  return trace;
}

KinetoTrace load_kineto_trace(const std::filesystem::path& file) {
  // gzread reads plain files as they are and inflates gzip ones (its magic bytes).
  gzFile in = gzopen(file.c_str(), "rb");
  if (in == nullptr) throw ConfigError({file}, "cannot open the trace for reading");
  std::string text;
  std::array<char, 1 << 16> buffer{};
  constexpr std::size_t kLimit = std::size_t{4} << 30;  // 4 GiB of JSON
  for (;;) {
    const int n = gzread(in, buffer.data(), static_cast<unsigned>(buffer.size()));
    if (n < 0) {
      int code = 0;
      const std::string why = gzerror(in, &code);
      gzclose(in);
      throw ConfigError({file}, fmt::format("cannot read the trace: {}", why));
    }
    if (n == 0) break;
    text.append(buffer.data(), static_cast<std::size_t>(n));
    if (text.size() > kLimit) {
      gzclose(in);
      throw ConfigError({file}, "the trace is over 4 GiB of JSON: profile fewer steps");
    }
  }
  gzclose(in);
  return parse_kineto_trace(text, file);
}

}  // namespace trainsim::inputs
