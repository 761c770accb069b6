// import_torchtitan(): torchtitan's job config TOML into a scenario. This file holds the
// import's frame: the order of its steps, the world size and hardware, the llama3 model, the
// scenario keys written, and the sweep that lists every setting not read (ignored or
// unknown); torchtitan_importer.hpp names the files holding the other steps.
#include "inputs/import/torchtitan_config.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "inputs/import/torchtitan_importer.hpp"
#include "models/errors.hpp"

namespace trainsim::inputs::import::detail {

namespace {

// ---------------------------------------------------------------------------------------
// Settings that do not change a training step's time: whole sections, and single keys.

constexpr std::array<std::string_view, 13> kIgnoredSections{
    "job",        "profiling", "metrics",           "optimizer",       "lr_scheduler",
    "checkpoint", "comm",      "memory_estimation", "fault_tolerance", "validation",
    "debug",      "ft",        "dataloader"};

constexpr std::array<std::string_view, 24> kIgnoredKeys{
    "model.hf_assets_path",
    "model.tokenizer_path",
    "model.print_after_conversion",
    "training.steps",
    "training.dataset",
    "training.dataset_path",
    "training.warmup_steps",
    "training.gc_freq",
    "training.gc_debug",
    "training.seed",
    "training.deterministic",
    "training.deterministic_warn_only",
    "experimental.custom_import",
    "experimental.custom_args_module",
    "experimental.custom_model_path",
    "experimental.model_module_path",
    "activation_checkpoint.early_stop",
    "activation_checkpoint.preserve_rng_state",
    "activation_checkpoint.determinism_check",
    "activation_checkpoint.debug",
    "activation_checkpoint.per_op_sac_force_recompute_mm_shapes_by_fqns",
    "activation_checkpoint.visualize_memory_budget_pareto",
    "parallelism.expert_parallel_comm_backend",
    "parallelism.pipeline_parallel_split_mode",
};

bool ignorable(std::string_view path) {
  for (const std::string_view s : kIgnoredSections) {
    if (path == s || (path.starts_with(s) && path.size() > s.size() && path[s.size()] == '.'))
      return true;
  }
  return std::find(kIgnoredKeys.begin(), kIgnoredKeys.end(), path) != kIgnoredKeys.end();
}

}  // namespace

ImportedScenario TorchtitanImporter::run() {
  out_.origin = fmt::format("{} (torchtitan job config)", config_.file().filename().string());
  header();
  model();
  degrees();
  batch();
  precision();
  recompute();
  pipeline();
  other_parallelism();
  compile();
  emit();
  sweep();
  version_note();
  return std::move(out_);
}

std::string TorchtitanImporter::from(const Setting& s, std::string_view fallback) const {
  return s.node != nullptr ? config_.origin(s)
                           : fmt::format("torchtitan's default {} {}", s.path, fallback);
}

void TorchtitanImporter::ignore(const Setting& s, std::string_view why) {
  if (s.node == nullptr) return;
  out_.ignored.push_back(why.empty() ? config_.origin(s)
                                     : fmt::format("{}: {}", config_.origin(s), why));
}

void TorchtitanImporter::ignore_section(std::string_view path, std::string_view why) {
  if (!config_.has(path)) return;
  for (const Setting& s : config_.unread(path)) {
    config_.mark(s.path);
    ignore(s, why);
  }
}

void TorchtitanImporter::header() {
  if (options_.hardware.empty()) {
    throw ConfigError({config_.file(), 0, 0},
                      "no hardware profile: a torchtitan config does not name the GPUs; give "
                      "--hardware NAME (a profile in hwprofiles/, e.g. dgx-h100) or a path");
  }
  if (!options_.gpus) {
    throw ConfigError(
        {config_.file(), 0, 0},
        "no world size: torchtitan takes it from the launcher (NGPU=8 ./run_train.sh, "
        "torchrun's --nproc_per_node times the nodes), not from the TOML; give --gpus N");
  }
  gpus_ = *options_.gpus;
  if (gpus_ < 1 || gpus_ > kMaxGpus) {
    throw ConfigError({config_.file(), 0, 0},
                      fmt::format("--gpus {}: expected an integer from 1 to {}", gpus_, kMaxGpus));
  }
  if (options_.vocab && (*options_.vocab < 1 || *options_.vocab > 134217728)) {
    throw ConfigError(
        {config_.file(), 0, 0},
        fmt::format("--vocab {}: expected an integer from 1 to 134217728", *options_.vocab));
  }
  name_ = !options_.name.empty() ? options_.name : config_.file().stem().string();
}

void TorchtitanImporter::model() {
  const Setting name = config_.find("model.name");
  model_name_ = from(name, "\"llama3\"");
  if (name.node != nullptr) {
    const std::string n = config_.string(name, "a model name");
    if (n != "llama3") {
      config_.fail(name,
                   "trainsim imports torchtitan's \"llama3\" (its llama4, deepseek_v3, "
                   "qwen3 and other model registries are not read yet)");
    }
  }
  flavor_s_ = config_.find("model.flavor");
  std::string flavor = "debugmodel";
  if (flavor_s_.node != nullptr) flavor = config_.string(flavor_s_, "a flavor name");
  flavor_ = llama3_flavor(flavor);
  if (flavor_ == nullptr) {
    config_.fail(flavor_s_, fmt::format("llama3's flavors are {}", llama3_flavor_names()));
  }
  if (flavor_s_.node == nullptr) {
    out_.notes.push_back(
        "model.flavor absent: torchtitan's default \"debugmodel\" (6 layers, dim 256)");
  }
  if (flavor_->attention != "sdpa") {
    out_.notes.push_back(fmt::format(
        "flavor \"{}\" runs {} attention (document masking): costed as flash attention over "
        "whole causal sequences",
        flavor_->name, flavor_->attention == "flex" ? "FlexAttention" : "varlen (packed)"));
  }

  const Setting norm = config_.find("model.norm_type");  // 2024
  norm_ = "rmsnorm";
  if (norm.node != nullptr) {
    const std::string n =
        config_.choice(norm, {"rmsnorm", "fused_rmsnorm", "layernorm", "np_layernorm"});
    norm_s_ = norm;
    if (n == "layernorm" || n == "np_layernorm") norm_ = "layernorm";
    if (n == "fused_rmsnorm") {
      out_.notes.push_back(
          fmt::format("{}: torchtitan's Triton RMSNorm kernel; costed as "
                      "trainsim's rmsnorm",
                      config_.origin(norm)));
    }
    if (n == "np_layernorm") {
      out_.notes.push_back(
          fmt::format("{}: LayerNorm without gain and bias; costed as "
                      "trainsim's layernorm (with them)",
                      config_.origin(norm)));
    }
  }

  converters_s_ = config_.find("model.converters");
  if (converters_s_.node != nullptr) {
    converters_ = config_.strings(converters_s_,
                                  "\"float8\", \"mx\" or their "
                                  "\"quantize.linear.*\" names");
  }
}

void TorchtitanImporter::emit() {
  const Flavor& f = *flavor_;
  const std::string flavor = from(flavor_s_, "\"debugmodel\"");
  const auto dims = [&](std::string_view what) {
    return fmt::format("{}: llama3 {}'s {}", flavor, f.name, what);
  };
  const auto llama = [&](std::string_view what) {
    return fmt::format("{}: llama3, {}", model_name_, what);
  };
  if (!name_.empty()) {
    out_.set("name", name_, options_.name.empty() ? "the torchtitan file's name" : "--name");
  }
  out_.set("hardware", options_.hardware, "--hardware");
  out_.set("gpus", std::to_string(gpus_),
           "--gpus (the launcher's world size: NGPU / torchrun --nproc_per_node x nodes)");

  out_.set("model.layers", std::to_string(f.layers), dims("n_layers"));
  out_.set("model.hidden", std::to_string(f.dim), dims("dim"));
  out_.set("model.heads", std::to_string(f.heads), dims("n_heads"));
  out_.set("model.kv_heads", std::to_string(f.kv_heads), dims("n_kv_heads"));
  const auto [ffn, steps] = llama_ffn(f);
  out_.set("model.ffn", std::to_string(ffn),
           fmt::format("{}: llama3 {}'s FeedForward rule: {}", flavor, f.name, steps));
  out_.set("model.seq_len", std::to_string(seq_len_), from(seq_s_, "2048"));
  if (options_.vocab) {
    out_.set("model.vocab", std::to_string(*options_.vocab), "--vocab");
  } else {
    out_.set("model.vocab", std::to_string(f.vocab),
             dims(f.vocab == 2048 ? "vocab_size (the test tokenizer's)"
                                  : "vocab_size (the Llama 3 tokenizer's)"));
  }
  out_.set("model.make_vocab_divisible_by", "1", "torchtitan does not pad the vocabulary");
  out_.set("model.dtype", dtype_, dtype_source_);
  out_.set("model.activation", "swiglu", llama("SwiGLU FeedForward w2(silu(w1 x) * w3 x)"));
  out_.set("model.norm", norm_,
           norm_s_.node != nullptr ? config_.origin(norm_s_) : llama("RMSNorm"));
  out_.set("model.position", "rope", llama("rotary embeddings"));
  out_.set("model.rope_theta", "500000", dims("rope_theta"));
  out_.set("model.tied_embeddings", "false", llama("tok_embeddings and output untied"));
  out_.set("model.bias", "false", llama("no biases"));
  out_.set("model.hidden_dropout", "0.0", llama("no dropout"));
  out_.set("model.attention_dropout", "0.0", llama("no dropout"));
  out_.set("model.attention_flops", "dense",
           "torchtitan's MFU counts the attention core densely (12 x layers x dim x seq_len "
           "per token)");
  out_.set(
      "model.attention", attention_,
      attention_ == "flash"
          ? llama(fmt::format("{} attention: FlashAttention or cuDNN fused kernels", f.attention))
          : "fp32: sdpa's memory-efficient or math kernel");

  out_.set("training.global_batch", std::to_string(global_batch_),
           global_s_.node != nullptr && global_s_.node->value_or(Int{0}) != -1
               ? config_.origin(global_s_)
               : fmt::format("{} x DP {} ({})", from(local_s_, "8"),
                             degrees_.replicate * degrees_.shard, from(global_s_, "-1")));
  out_.set("training.micro_batch", std::to_string(micro_batch_), micro_source_);
  out_.set("training.optimizer", "adam", optimizer_source_);
  out_.set("training.clip_grad", number_text(clip_grad_), clip_source_);
  if (precision_ == "fp8") {
    out_.set("training.precision", "fp8", precision_source_);
    out_.set("training.fp8_recipe", fp8_recipe_, fp8_source_);
  }

  const Degrees& d = degrees_;
  out_.set("parallel.tensor.size", std::to_string(d.tensor), from(d.tensor_s, "1"));
  if (d.tensor > 1) {
    out_.set("parallel.tensor.sequence_parallel", "true",
             "torchtitan's TP shards the norms along the sequence (SequenceParallel)");
    if (async_tp_) out_.set("parallel.tensor.comm_overlap", "true", "async TP");
  }
  out_.set("parallel.pipeline.size", std::to_string(d.pipeline), from(d.pipeline_s, "1"));
  if (d.pipeline > 1) {
    out_.set("parallel.pipeline.schedule", schedule_, schedule_source_);
    if (chunks_ > 1) {
      out_.set("parallel.pipeline.chunks", std::to_string(chunks_),
               "virtual stages per rank of the looped schedule");
    }
    if (first_layers_) {
      out_.set("parallel.pipeline.first_stage_layers", std::to_string(*first_layers_),
               split_source_);
      out_.set("parallel.pipeline.last_stage_layers", std::to_string(*last_layers_), split_source_);
    }
  }
  out_.set("parallel.context.size", std::to_string(d.context), from(d.context_s, "1"));
  out_.set("parallel.data.size", std::to_string(d.replicate * d.shard),
           fmt::format("{} x {}: DDP/HSDP replicas {} x FSDP shards {}", from(d.replicate_s, "1"),
                       from(d.shard_s, "-1"), d.replicate, d.shard));
  out_.set("parallel.data.zero", std::to_string(zero_), zero_source_);
  if (overlap_param_gather_) {
    out_.set("parallel.data.overlap_param_gather", "true",
             "FSDP2 gathers the parameters at the step's first forward");
  }
  out_.set("parallel.recompute", recompute_, recompute_source_);
}

void TorchtitanImporter::sweep() {
  for (const Setting& s : config_.unread()) {
    (ignorable(s.path) ? out_.ignored : out_.unknown).push_back(config_.origin(s));
  }
}

void TorchtitanImporter::version_note() {
  const auto any = [&](std::initializer_list<std::string_view> paths) {
    return std::any_of(paths.begin(), paths.end(),
                       [&](std::string_view p) { return config_.has(p); });
  };
  std::vector<std::string> versions;
  if (any({"training.batch_size", "training.data_parallel_degree",
           "training.data_parallel_replicate_degree", "training.data_parallel_shard_degree",
           "training.tensor_parallel_degree", "experimental.pipeline_parallel_degree",
           "experimental.context_parallel_degree", "float8.enable_float8_linear",
           "checkpoint.enable_checkpoint", "model.norm_type", "training.warmup_steps"})) {
    versions.emplace_back(
        "2024 (config_manager.py: [training] batch_size and parallel degrees, "
        "[experimental] pipeline and context parallelism)");
  }
  const bool v02 = any({"compile", "quantize", "checkpoint.enable"});
  if (any({"parallelism", "training.local_batch_size"}) && !v02) {
    versions.emplace_back(
        "v0.1.0 (mid-2025: [parallelism], training.local_batch_size, "
        "[float8] with model.converters)");
  }
  if (v02) {
    versions.emplace_back(
        "v0.2.0, the last TOML schema (late 2025 - Feb 2026: [parallelism], "
        "[compile], [quantize.linear.float8])");
  }
  if (versions.empty()) {
    out_.notes.push_back(
        "no version-specific key names: read with torchtitan's last TOML "
        "schema (v0.2.0) and its defaults");
  } else if (versions.size() == 1) {
    out_.notes.push_back("key names read: torchtitan " + versions.front());
  } else {
    std::string all;
    for (const std::string& v : versions)
      all += (all.empty() ? "" : "; ") + v;
    out_.notes.push_back(
        "key names of several torchtitan versions, each read by its own "
        "name: " +
        all);
  }
}

}  // namespace trainsim::inputs::import::detail

namespace trainsim::inputs::import {

ImportedScenario import_torchtitan(std::string_view text, const std::filesystem::path& file,
                                   const ImportOptions& options) {
  const toml::table root = detail::parse_toml(text, file);
  return detail::TorchtitanImporter(root, file, options).run();
}

}  // namespace trainsim::inputs::import
