#pragma once
// Internal to inputs/import/: the state of one torchtitan import (import_torchtitan's work).
// Each step reads its sections of the TOML and records what it decided; emit() writes the
// scenario keys at the end, so every key can name every setting that shaped it. The steps are
// defined, by subject, in
//   torchtitan_config.cpp       run(), the world size and hardware, the model, emit(), sweep()
//   torchtitan_parallelism.cpp  the parallel degrees, the batch, FSDP / DDP / HSDP, TP and CP
//   torchtitan_pipeline.cpp     the pipeline schedule and its stage split
//   torchtitan_execution.cpp    precision and float8, activation checkpointing, torch.compile

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "inputs/import/imported_scenario.hpp"
#include "inputs/import/llama3_flavors.hpp"
#include "inputs/import/toml_document.hpp"

namespace trainsim::inputs::import::detail {

using Int = std::int64_t;

constexpr Int kMaxGpus = 1048576;      // scenario key gpus
constexpr Int kMaxBatch = 1073741824;  // training.global_batch, training.micro_batch
constexpr Int kMaxSeqLen = 16777216;   // model.seq_len
constexpr Int kMaxLayers = 100000;     // model.layers

/// Whether `s` is one or more decimal digits.
inline bool all_digits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

struct Degrees {
  Int replicate = 1, shard = 1, context = 1, tensor = 1, pipeline = 1;
  Setting replicate_s, shard_s, context_s, tensor_s, pipeline_s;
};

class TorchtitanImporter {
 public:
  TorchtitanImporter(const toml::table& root, const std::filesystem::path& file,
                     const ImportOptions& options)
      : config_(root, file), options_(options) {}

  ImportedScenario run();

 private:
  // torchtitan_config.cpp
  /// "model.flavor = "8B" (llama3_8b.toml:12)" or "torchtitan's default model.flavor "8B"".
  std::string from(const Setting& s, std::string_view fallback) const;
  void ignore(const Setting& s, std::string_view why);
  /// Every key under section `path` not read yet, listed as ignored with `why`.
  void ignore_section(std::string_view path, std::string_view why);
  void header();
  void model();
  void emit();
  void sweep();
  void version_note();

  // torchtitan_parallelism.cpp
  void degrees();
  void batch();
  void other_parallelism();

  // torchtitan_pipeline.cpp
  void pipeline();
  std::vector<Int> parts_layers(const Setting& s, Int layers);
  std::vector<Int> split_layers(const Setting& s, Int layers);

  // torchtitan_execution.cpp
  void precision();
  void recompute();
  void compile();

  TomlDocument config_;
  const ImportOptions& options_;
  ImportedScenario out_;

  Int gpus_ = 0;
  std::string name_, model_name_;
  const Flavor* flavor_ = nullptr;
  Setting flavor_s_, norm_s_, converters_s_, seq_s_, local_s_, global_s_;
  std::vector<std::string> converters_;
  std::string norm_;
  Degrees degrees_;
  bool fsdp_ = false;
  Int seq_len_ = 2048, global_batch_ = 0, micro_batch_ = 1, accumulation_ = 1;
  std::string micro_source_;
  std::string dtype_ = "bf16", dtype_source_;
  std::string attention_ = "flash";
  std::string precision_ = "bf16", fp8_recipe_, precision_source_, fp8_source_;
  std::string recompute_ = "none", recompute_source_;
  std::string schedule_ = "1f1b", schedule_source_, split_source_;
  Int chunks_ = 1;
  std::optional<Int> first_layers_, last_layers_;
  bool async_tp_ = false;
  int zero_ = 0;
  bool overlap_param_gather_ = false;
  std::string zero_source_;
  double clip_grad_ = 1.0;
  std::string clip_source_, optimizer_source_;
};

}  // namespace trainsim::inputs::import::detail
