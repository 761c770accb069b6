// The torchtitan import's execution of a step: the dtype (training.dtype, FSDP's mixed
// precision, autocast), torchao float8 linears and their scaling, activation checkpointing,
// torch.compile, gradient clipping, the optimizer and profiling.
#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "inputs/import/torchtitan_importer.hpp"
#include "models/errors.hpp"

namespace trainsim::inputs::import::detail {

void TorchtitanImporter::precision() {
  const Degrees& d = degrees_;
  const Setting dtype = config_.find("training.dtype");
  const Setting param = config_.find("training.mixed_precision_param");
  const Setting reduce = config_.find("training.mixed_precision_reduce");
  const std::string param_value =
      param.node == nullptr ? "bfloat16" : config_.choice(param, {"bfloat16", "float32"});
  const auto short_name = [](const std::string& t) { return t == "bfloat16" ? "bf16" : "fp32"; };
  const bool full_bf16 =
      dtype.node != nullptr && config_.choice(dtype, {"bfloat16", "float32"}) == "bfloat16";
  if (!full_bf16) ignore(dtype, "fp32 parameters, mixed precision by mixed_precision_param");
  if (full_bf16) {
    dtype_ = "bf16";
    dtype_source_ = config_.origin(dtype) + ": bf16 parameters and compute";
    ignore(param, "training.dtype bfloat16 sets the dtype");
  } else if (fsdp_) {
    dtype_ = short_name(param_value);
    dtype_source_ = from(param, "\"bfloat16\"") + ": FSDP2's compute dtype";
  } else if (d.tensor > 1 || d.pipeline > 1) {
    dtype_ = "fp32";
    dtype_source_ =
        "torchtitan applies mixed_precision_param only with FSDP (or autocast "
        "under DDP and on one device): fp32 with TP or PP and no FSDP";
    out_.notes.push_back(
        "no FSDP with tensor or pipeline parallelism: torchtitan trains in "
        "fp32 (it warns that mixed precision needs FSDP, HSDP or CP)");
    ignore(param, "no FSDP: not applied");
  } else {
    dtype_ = short_name(param_value);
    dtype_source_ = from(param, "\"bfloat16\"") + ": torch.autocast's dtype (DDP or one GPU)";
  }
  if (reduce.node != nullptr) {
    if (config_.choice(reduce, {"float32", "bfloat16"}) == "bfloat16") {
      out_.notes.push_back(
          fmt::format("{}: trainsim reduces fp32 gradients (twice the "
                      "bytes of torchtitan's bf16 reduce-scatter)",
                      config_.origin(reduce)));
    } else {
      ignore(reduce, "fp32 gradient reduction, as trainsim's");
    }
  }
  if (dtype_ == "fp32") {
    attention_ = "standard";
    out_.notes.push_back(
        "fp32 compute: PyTorch's sdpa takes its memory-efficient or math "
        "kernel, not FlashAttention; costed as trainsim's standard attention");
  }

  // Float8 linears: model.converters (2025-26) or [float8] enable_float8_linear (2024).
  bool float8 = false;
  std::string float8_source;
  for (const std::string& c : converters_) {
    if (c == "float8" || c == "quantize.linear.float8") {
      float8 = true;
      float8_source = config_.origin(converters_s_);
    } else if (c == "mx" || c == "quantize.linear.mx") {
      config_.fail(converters_s_,
                   "MX (mxfp8) linears are not simulated; trainsim models "
                   "bf16 and float8 with tensorwise scaling");
    } else if (c == "quantize.grouped_mm.float8" || c == "quantize.grouped_mm.mx") {
      out_.notes.push_back(
          fmt::format("{}: \"{}\" converts MoE grouped GEMMs; llama3 has "
                      "none",
                      config_.origin(converters_s_), c));
    } else {
      config_.fail(converters_s_,
                   fmt::format("unknown converter \"{}\"; torchtitan's are \"float8\", \"mx\", "
                               "\"quantize.linear.float8\", \"quantize.linear.mx\"",
                               escaped(c)));
    }
  }
  const Setting old_enable = config_.find("float8.enable_float8_linear");  // 2024
  if (old_enable.node != nullptr && config_.boolean(old_enable)) {
    float8 = true;
    float8_source = config_.origin(old_enable);
  } else {
    ignore(old_enable, "");
  }
  if (converters_s_.node != nullptr && !float8) ignore(converters_s_, "no converter applies");

  const bool v02 = config_.has("quantize.linear.float8");
  const std::string section = v02 ? "quantize.linear.float8" : "float8";
  if (v02 && config_.has("float8")) {
    config_.fail(Setting{"float8", config_.node("float8")},
                 "v0.1's name of [quantize.linear.float8], which the config also has: keep one");
  }
  // Sections of the converters llama3 does not use, listed once float8 is settled.
  const auto ignore_other_quantizers = [&] {
    ignore_section("quantize.linear.mx", "MX not enabled");
    ignore_section("mx", "MX not enabled");
    ignore_section("quantize.grouped_mm", "no grouped GEMMs in llama3");
  };
  if (!float8) {
    ignore_section(section, "float8 not enabled (model.converters lacks \"float8\")");
    ignore_other_quantizers();
    return;
  }
  if (dtype_ != "bf16") {
    throw ConfigError(config_.where(converters_s_.node != nullptr ? converters_s_ : old_enable),
                      fmt::format("{}: float8 linears with {} compute; trainsim simulates "
                                  "float8 over bf16 (set training.mixed_precision_param or "
                                  "training.dtype to \"bfloat16\")",
                                  float8_source, dtype_));
  }
  precision_ = "fp8";
  fp8_recipe_ = "tensorwise";
  precision_source_ = float8_source + ": torchao float8 linears";
  fp8_source_ = float8_source + ": torchao's dynamic (current) scaling";
  const auto key = [&](std::string_view k) { return config_.find(section + "." + std::string(k)); };
  if (const Setting r = key("recipe_name"); r.node != nullptr) {
    const std::string recipe = config_.choice(r, {"tensorwise", "rowwise", "rowwise_with_gw_hp"});
    if (recipe != "tensorwise") {
      config_.fail(r,
                   "rowwise float8 scaling is not simulated; trainsim models \"tensorwise\" "
                   "(per-tensor current scaling, torchao's default)");
    }
    fp8_source_ = config_.origin(r) + ": per-tensor current scaling";
  }
  // 2024: scaling_type_input/weight/grad_output, "dynamic" or "delayed".
  std::string scaling, scaling_origins;
  for (const std::string_view k :
       {"scaling_type_input", "scaling_type_weight", "scaling_type_grad_output"}) {
    const Setting s = key(k);
    if (s.node == nullptr) continue;
    const std::string v = config_.choice(s, {"dynamic", "delayed"});
    if (!scaling.empty() && v != scaling) {
      config_.fail(s,
                   "mixed dynamic and delayed scaling is not simulated; use one for "
                   "input, weight and grad_output");
    }
    scaling = v;
    scaling_origins += (scaling_origins.empty() ? "" : ", ") + config_.origin(s);
  }
  if (scaling == "delayed") {
    fp8_recipe_ = "delayed";
    fp8_source_ = scaling_origins + ": delayed scaling (amax history)";
  } else if (scaling == "dynamic") {
    fp8_source_ = scaling_origins + ": dynamic (current) per-tensor scaling";
  }
  if (const Setting e = key("emulate"); e.node != nullptr) {
    if (config_.boolean(e)) {
      config_.fail(e,
                   "emulated float8 (bf16 GEMMs with casts, for GPUs without float8) is not "
                   "simulated; expected false");
    }
    ignore(e, "");
  }
  if (const Setting g = key("enable_fsdp_float8_all_gather"); g.node != nullptr) {
    if (config_.boolean(g) && fsdp_) {
      out_.notes.push_back(
          fmt::format("{}: FSDP gathers float8 weights in torchao; trainsim's ZeRO 3 gathers bf16 "
                      "parameters (twice the bytes)",
                      config_.origin(g)));
    } else {
      ignore(g, fsdp_ ? "" : "no FSDP");
    }
  }
  if (const Setting p = key("precompute_float8_dynamic_scale_for_fsdp"); p.node != nullptr) {
    config_.boolean(p);
    ignore(p, "one amax all-reduce per step; not modelled");
  }
  if (const Setting f = key("filter_fqns"); f.node != nullptr) {
    const std::vector<std::string> fqns = config_.strings(f, "module names kept in bf16");
    const bool only_output =
        std::all_of(fqns.begin(), fqns.end(), [](const std::string& s) { return s == "output"; });
    if (only_output) {
      ignore(f, "trainsim keeps the output layer in bf16 too");
    } else {
      out_.notes.push_back(
          fmt::format("{}: trainsim runs every layer's QKV, projection and "
                      "MLP linears in float8 (the output layer in bf16); "
                      "other filters are not applied",
                      config_.origin(f)));
    }
  }
  for (const std::string_view k : {"force_recompute_fp8_weight_in_bwd", "moe_fqns_prototype"}) {
    ignore(key(k), "");
  }
  ignore_other_quantizers();
}

void TorchtitanImporter::recompute() {
  const Setting mode_s = config_.find("activation_checkpoint.mode");
  const Setting option_s = config_.find("activation_checkpoint.selective_ac_option");
  const Setting budget_s = config_.find("activation_checkpoint.memory_budget");
  const std::string mode =
      mode_s.node == nullptr
          ? "selective"
          : config_.choice(mode_s, {"none", "selective", "full", "memory_budget"});
  if (mode == "memory_budget") {
    config_.fail(mode_s,
                 "the compiler's memory-budget checkpointing is not simulated; use "
                 "\"none\", \"full\" or \"selective\"");
  }
  ignore(budget_s, "used by mode \"memory_budget\" only");
  if (mode != "selective") {
    recompute_ = mode;
    recompute_source_ = config_.origin(mode_s);
    ignore(option_s, "used by mode \"selective\" only");
    return;
  }
  const std::string option =
      option_s.node == nullptr ? "2" : config_.string(option_s, "\"op\" or a layer interval");
  if (option == "op") {
    recompute_ = "selective";
    recompute_source_ =
        fmt::format("{}, {}", from(mode_s, "\"selective\""), config_.origin(option_s));
    out_.notes.push_back(
        "activation_checkpoint selective \"op\": torchtitan's per-op policy saves every "
        "matmul's output except every second one and the attention outputs, recomputing the "
        "rest; approximated as trainsim's selective recomputation (Megatron's: the attention "
        "core recomputed)");
    return;
  }
  const bool digits = all_digits(option);
  if (digits && option.substr(std::min(option.find_first_not_of('0'), option.size())) == "1") {
    recompute_ = "full";
    recompute_source_ = fmt::format("{}, {}: every layer checkpointed",
                                    from(mode_s, "\"selective\""), config_.origin(option_s));
    return;
  }
  const std::string expected =
      "checkpointing every N-th layer is not simulated; trainsim simulates mode \"none\", "
      "\"full\", or \"selective\" with selective_ac_option \"op\" or \"1\" (every layer)";
  if (option_s.node == nullptr) {
    const std::string why =
        mode_s.node != nullptr ? config_.origin(mode_s) + " without selective_ac_option"
        : config_.has("activation_checkpoint") ? "activation_checkpoint: mode absent"
                                               : "activation_checkpoint: section absent";
    throw ConfigError(config_.where(mode_s),
                      fmt::format("{}, so torchtitan's defaults apply: mode \"selective\" with "
                                  "selective_ac_option \"2\" (every 2nd layer); {}",
                                  why, expected));
  }
  config_.fail(option_s, digits ? expected
                                : "expected \"op\" or a positive integer as a string (every "
                                  "N-th layer)");
}

void TorchtitanImporter::compile() {
  const Setting enable_s = config_.find({"compile.enable", "training.compile"});
  const Setting autograd_s = config_.find(
      {"parallelism.enable_compiled_autograd", "experimental.enable_compiled_autograd"});
  const bool enabled = enable_s.node != nullptr && config_.boolean(enable_s);
  if (enabled) {
    out_.notes.push_back(
        fmt::format("{}: torch.compile's fusions are not modelled: "
                    "element-wise kernels are costed as unfused",
                    config_.origin(enable_s)));
  } else {
    ignore(enable_s, "eager, as trainsim costs it");
  }
  if (autograd_s.node != nullptr && config_.boolean(autograd_s)) {
    out_.notes.push_back(
        fmt::format("{}: not modelled (as torch.compile)", config_.origin(autograd_s)));
  } else {
    ignore(autograd_s, "");
  }
  const std::string why = enabled ? "compiler options: not modelled" : "compile disabled";
  ignore(config_.find("compile.components"), why);
  ignore(config_.find("compile.backend"), why);
  if (async_tp_ && !enabled) {
    out_.notes.push_back("async TP without torch.compile: torchtitan refuses this at start");
  }

  const Setting max_norm = config_.find("training.max_norm");
  clip_grad_ = max_norm.node == nullptr ? 1.0 : config_.number(max_norm, 0.0, "gradient norm");
  clip_source_ = from(max_norm, "1.0") + ": gradient clipping by global norm";
  const Setting optimizer = config_.find("optimizer.name");
  if (optimizer.node != nullptr) config_.choice(optimizer, {"AdamW", "Adam"});
  optimizer_source_ = from(optimizer, "\"AdamW\"") + ": Adam's two fp32 moments";
  const Setting profiling = config_.find("profiling.enable_profiling");
  if (profiling.node != nullptr && profiling.node->value_or(false)) {
    out_.notes.push_back(
        fmt::format("{}: the profiled steps run slower; the prediction is "
                    "an unprofiled step",
                    config_.origin(profiling)));
  } else {
    ignore(profiling, "");
  }
}

}  // namespace trainsim::inputs::import::detail
