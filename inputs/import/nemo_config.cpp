#include "inputs/import/nemo_config.hpp"

// Design: both YAML forms name Megatron's TransformerConfig / DDP / training fields in
// snake_case, so each field becomes the Megatron flag it stands for (a table where the names
// or meanings differ, `--` + dashes otherwise) and `scenario_from_megatron` does the rest:
// one mapping, one set of checks. Booleans become store_true flags when true; false is the
// flags' default and is dropped, except where Megatron's default is true (bias, tied
// embeddings), which the table turns into the negating flag.

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "inputs/import/megatron_flags.hpp"

namespace trainsim::inputs::import {

namespace {

constexpr int kMaxInterpolationDepth = 16;
constexpr std::size_t kMaxResolutions = 100000;
// A config has a few hundred fields; aliases can make a small file name millions.
constexpr std::size_t kMaxFields = 100000;

SourceLocation at(const std::filesystem::path& file, const YAML::Node& n) {
  const YAML::Mark m = n.Mark();
  return m.is_null() ? SourceLocation{file, 0, 0} : SourceLocation{file, m.line + 1, m.column + 1};
}

// The config's tree with its file, resolving OmegaConf's `${path}`, `${.sibling}` and
// `${multiply:a,b}` interpolations (NeMo 1 writes `max_position_embeddings:
// ${.encoder_seq_length}`).
class Config {
 public:
  Config(YAML::Node root, std::filesystem::path file)
      : root_(std::move(root)), file_(std::move(file)) {}

  const std::filesystem::path& file() const { return file_; }
  const YAML::Node& root() const { return root_; }

  // The scalar at `node` (inside the mapping at `parent_path`), interpolations resolved.
  std::string scalar(const YAML::Node& node, const std::string& parent_path, int depth = 0) const {
    const std::string text = node.Scalar();
    if (!text.starts_with("${") || !text.ends_with("}")) return text;
    // Interpolations referring to each other twice over grow exponentially; a config needs few.
    if (++resolutions_ > kMaxResolutions)
      throw ConfigError(at(file_, node), fmt::format("'{}': more than {} interpolations resolved",
                                                     text, kMaxResolutions));
    if (depth > kMaxInterpolationDepth)
      throw ConfigError(at(file_, node), fmt::format("'{}': interpolations nest deeper than {}",
                                                     text, kMaxInterpolationDepth));
    const std::string inner = text.substr(2, text.size() - 3);
    if (inner.starts_with("multiply:")) {
      const std::string args = inner.substr(9);
      const std::size_t comma = args.find(',');
      if (comma == std::string::npos)
        throw ConfigError(at(file_, node), fmt::format("'{}': multiply takes two arguments", text));
      const std::int64_t a =
          whole(resolve_word(args.substr(0, comma), node, parent_path, depth), node);
      const std::int64_t b =
          whole(resolve_word(args.substr(comma + 1), node, parent_path, depth), node);
      std::int64_t product = 0;
      if (__builtin_mul_overflow(a, b, &product))
        throw ConfigError(at(file_, node), fmt::format("'{}': {} x {} overflows", text, a, b));
      return std::to_string(product);
    }
    return resolve_word(inner, node, parent_path, depth);
  }

 private:
  // A number, or a path whose value is looked up ("model.x", ".x" relative to the parent).
  std::string resolve_word(std::string word, const YAML::Node& from, const std::string& parent_path,
                           int depth) const {
    word.erase(0, word.find_first_not_of(' '));
    word.erase(word.find_last_not_of(' ') + 1);
    if (!word.empty() && (std::isdigit(static_cast<unsigned char>(word[0])) != 0 || word[0] == '-'))
      return word;
    const std::string path = word.starts_with('.') ? parent_path + word : word;
    // reset(), not operator=: assigning a yaml-cpp Node writes through to the node it refers to.
    YAML::Node n;
    n.reset(root_);
    std::string parent;
    std::size_t begin = path.starts_with('.') ? 1 : 0;
    while (begin <= path.size()) {
      const std::size_t dot = std::min(path.find('.', begin), path.size());
      const std::string part = path.substr(begin, dot - begin);
      const YAML::Node& here = n;  // const lookups insert nothing
      if (part.empty() || !here.IsMap() || !here[part])
        throw ConfigError(at(file_, from),
                          fmt::format("interpolation '{}': no value at '{}'", from.Scalar(), path));
      const YAML::Node child = here[part];
      n.reset(child);
      if (dot < path.size()) parent += (parent.empty() ? "" : ".") + part;
      begin = dot + 1;
    }
    if (!n.IsScalar())
      throw ConfigError(at(file_, from), fmt::format("interpolation '{}': '{}' is not a scalar",
                                                     from.Scalar(), path));
    return scalar(n, parent, depth + 1);
  }

  std::int64_t whole(const std::string& text, const YAML::Node& node) const {
    try {
      std::size_t used = 0;
      const std::int64_t v = std::stoll(text, &used);
      if (used == text.size()) return v;
    } catch (const std::exception&) {
    }
    throw ConfigError(at(file_, node),
                      fmt::format("'{}' in '{}' is not a whole number", text, node.Scalar()));
  }

  YAML::Node root_;
  std::filesystem::path file_;
  mutable std::size_t resolutions_ = 0;  // against kMaxResolutions
};

// How one YAML field becomes Megatron flags.
struct FieldRule {
  std::string_view field;  // dotted path in the config
  std::string_view flag;   // the Megatron flag ("" = handled in code)
  enum Kind { value, if_true, if_false } kind = value;
};

// Bridge's ConfigContainer fields whose flag is not `--` + the name with dashes, or whose
// meaning is inverted (ecosystem-formats.md §2.1).
constexpr std::array kBridgeRules = {
    FieldRule{"model.num_moe_experts", "--num-experts"},
    FieldRule{"model.virtual_pipeline_model_parallel_size",
              "--num-virtual-stages-per-pipeline-rank"},
    FieldRule{"model.num_layers_in_first_pipeline_stage", "--decoder-first-pipeline-num-layers"},
    FieldRule{"model.num_layers_in_last_pipeline_stage", "--decoder-last-pipeline-num-layers"},
    FieldRule{"model.share_embeddings_and_output_weights", "--untie-embeddings-and-output-weights",
              FieldRule::if_false},
    FieldRule{"model.add_bias_linear", "--disable-bias-linear", FieldRule::if_false},
    FieldRule{"model.gated_linear_unit", "--swiglu", FieldRule::if_true},
    FieldRule{"model.fp8", "--fp8-format"},
    FieldRule{"model.rotary_base", "--rotary-base"},
    FieldRule{"model.seq_length", "--seq-length"},
    FieldRule{"dataset.seq_length", "--seq-length"},
    FieldRule{"optimizer.clip_grad", "--clip-grad"},
    FieldRule{"mixed_precision.fp8", "--fp8-format"},
};

// NeMo 1's model fields with names of their own (ecosystem-formats.md §2.4).
constexpr std::array kNemo1Rules = {
    FieldRule{"model.encoder_seq_length", "--seq-length"},
    FieldRule{"model.rotary_percentage", "--rotary-percent"},
    FieldRule{"model.share_embeddings_and_output_weights", "--untie-embeddings-and-output-weights",
              FieldRule::if_false},
    FieldRule{"model.bias", "--disable-bias-linear", FieldRule::if_false},
    FieldRule{"model.activations_checkpoint_granularity", "--recompute-granularity"},
    FieldRule{"model.activations_checkpoint_method", "--recompute-method"},
    FieldRule{"model.activations_checkpoint_num_layers", "--recompute-num-layers"},
    FieldRule{"model.num_moe_experts", "--num-experts"},
    FieldRule{"model.virtual_pipeline_model_parallel_size",
              "--num-virtual-stages-per-pipeline-rank"},
};

// Sections whose every field leaves a step's time unchanged (listed as ignored by path).
constexpr std::array<std::string_view, 14> kNoEffectSections = {
    "scheduler",   "logger",           "checkpoint",     "rng",  "tokenizer",  "profiling",
    "ft",          "straggler",        "nvrx_straggler", "peft", "validation", "env_vars",
    "exp_manager", "inprocess_restart"};

struct Collected {
  std::size_t fields = 0;  // settings read, against kMaxFields
  std::vector<FlagValue> flags;
  std::vector<std::string> ignored;
  std::vector<std::string> notes;
  WorldSize world;
};

std::string dashes(std::string_view name) {
  std::string out = "--";
  for (char c : name)
    out += c == '_' ? '-' : c;
  return out;
}

class Collector {
 public:
  Collector(const Config& config, std::span<const FieldRule> rules, Collected& out)
      : config_(config), rules_(rules), out_(out) {}

  // Every scalar and list under `node` (at `path`) becomes a flag, per the rules.
  void walk(const YAML::Node& node, const std::string& path, int depth = 0) {
    if (depth > 8) {
      out_.ignored.push_back(fmt::format("{} ({}): nested too deep to read", path, where(node)));
      return;
    }
    for (const auto& entry : node) {
      if (++out_.fields > kMaxFields)
        throw ConfigError(at(config_.file(), entry.first),
                          fmt::format("more than {} settings (aliases repeating sections?): not a "
                                      "NeMo or Bridge config",
                                      kMaxFields));
      if (!entry.first.IsScalar()) continue;
      const std::string key = entry.first.Scalar();
      if (key == "_target_") continue;  // the dataclass's name, not a setting
      const std::string child = path.empty() ? key : path + "." + key;
      if (entry.second.IsMap()) {
        walk(entry.second, child, depth + 1);
      } else {
        field(child, path, entry.second);
      }
    }
  }

 private:
  std::string where(const YAML::Node& n) const { return at(config_.file(), n).to_string(); }

  void field(const std::string& path, const std::string& parent, const YAML::Node& node) {
    if (node.IsNull() || (node.IsScalar() && (node.Scalar() == "null" || node.Scalar() == "~")))
      return;  // None: Megatron's default
    const std::string name = path.substr(path.rfind('.') + 1);
    std::vector<std::string> values;
    if (node.IsSequence()) {
      for (const YAML::Node& v : node) {
        if (!v.IsScalar())
          throw ConfigError(at(config_.file(), v),
                            fmt::format("{}: a list of scalars is expected", path));
        values.push_back(config_.scalar(v, parent));
      }
    } else {
      values.push_back(config_.scalar(node, parent));
    }
    const std::string spelled = fmt::format("{}: {}", path, fmt::join(values, ", "));
    if (values.size() == 1 && values.front() == "???") {
      out_.notes.push_back(
          fmt::format("{} ({}): a mandatory value left missing (\"???\")", path, where(node)));
      return;
    }
    if (const YAML::Node dataset = config_.root()["dataset"];
        path == "model.seq_length" && dataset && dataset.IsMap() && dataset["seq_length"]) {
      out_.notes.push_back(
          fmt::format("{} ({}): replaced by dataset.seq_length, as Bridge's runner "
                      "syncs it",
                      spelled, where(node)));
      return;
    }
    const auto rule = std::find_if(rules_.begin(), rules_.end(),
                                   [&](const FieldRule& r) { return r.field == path; });
    const bool boolean =
        values.size() == 1 && (values.front() == "true" || values.front() == "false" ||
                               values.front() == "True" || values.front() == "False");
    const bool truth = boolean && (values.front() == "true" || values.front() == "True");
    std::string flag = rule != rules_.end() ? std::string(rule->flag) : dashes(name);
    if (rule != rules_.end() && rule->kind != FieldRule::value) {
      if (!boolean)
        throw ConfigError(at(config_.file(), node),
                          fmt::format("{}: '{}' is not true or false", path, values.front()));
      if (truth == (rule->kind == FieldRule::if_true)) add(flag, {}, node, spelled);
      return;
    }
    if (boolean) {
      if (truth) {
        add(flag, {}, node, spelled);
      } else {  // the store_true flag's default: listed, not dropped
        out_.ignored.push_back(
            fmt::format("{} ({}): false, the flag's default", spelled, where(node)));
      }
      return;
    }
    add(flag, std::move(values), node, spelled);
  }

  void add(std::string flag, std::vector<std::string> values, const YAML::Node& node,
           const std::string& spelled) {
    out_.flags.push_back({std::move(flag), std::move(values), at(config_.file(), node), spelled});
  }

  const Config& config_;
  std::span<const FieldRule> rules_;
  Collected& out_;
};

bool no_effect_section(const std::string& key) {
  return std::find(kNoEffectSections.begin(), kNoEffectSections.end(), key) !=
         kNoEffectSections.end();
}

// Bridge's `mixed_precision: bf16_with_fp8_current_scaling_mixed` (a recipe name) as flags.
void mixed_precision_recipe(const Config& config, const YAML::Node& node, Collected& out) {
  std::string name = config.scalar(node, "");
  std::replace(name.begin(), name.end(), '-', '_');
  const SourceLocation where = at(config.file(), node);
  const std::string spelled = fmt::format("mixed_precision: {}", node.Scalar());
  auto add = [&](std::string flag, std::vector<std::string> values = {}) {
    out.flags.push_back({std::move(flag), std::move(values), where, spelled});
  };
  const bool fp16 = name.starts_with("fp16");
  if (!fp16 && !name.starts_with("bf16"))
    throw ConfigError(where,
                      fmt::format("mixed_precision '{}' is not a recipe the importer knows "
                                  "(bf16_mixed, fp16_mixed, *_with_fp8_delayed_scaling_mixed, "
                                  "*_with_fp8_current_scaling_mixed)",
                                  node.Scalar()));
  add(fp16 ? "--fp16" : "--bf16");
  if (name.find("fp8_delayed_scaling") != std::string::npos) {
    add("--fp8-format", {"hybrid"});
    add("--fp8-recipe", {"delayed"});
  } else if (name.find("fp8_current_scaling") != std::string::npos) {
    add("--fp8-format", {"hybrid"});
    add("--fp8-recipe", {"tensorwise"});
    out.notes.push_back(
        fmt::format("{} ({}): Bridge keeps the first and last layers in bf16; "
                    "simulated with every layer in FP8",
                    spelled, where.to_string()));
  } else if (name.find("mxfp8") != std::string::npos) {
    add("--fp8-format", {"e4m3"});
    add("--fp8-recipe", {"mxfp8"});
  } else if (name.find("subchannel") != std::string::npos) {
    add("--fp8-format", {"hybrid"});
    add("--fp8-recipe", {"blockwise"});
  } else if (name.find("fp4") != std::string::npos) {
    throw ConfigError(where,
                      fmt::format("mixed_precision '{}': FP4 is not simulated", node.Scalar()));
  } else if (name.find("fp8") != std::string::npos) {
    add("--fp8-format", {"hybrid"});
  }
}

Collected collect_bridge(const Config& config) {
  Collected out;
  for (const auto& entry : config.root()) {
    const std::string key = entry.first.Scalar();
    if (key == "mixed_precision" && entry.second.IsScalar()) {
      mixed_precision_recipe(config, entry.second, out);
    } else if (no_effect_section(key) || !entry.second.IsMap()) {
      out.ignored.push_back(
          fmt::format("{} ({})", key, at(config.file(), entry.second).to_string()));
    } else if (key == "model" || key == "train" || key == "dataset" || key == "ddp" ||
               key == "optimizer" || key == "comm_overlap" || key == "mixed_precision" ||
               key == "dist") {
      // Their fields carry Megatron's names without the section (train.micro_batch_size is
      // --micro-batch-size).
      Collector(config, kBridgeRules, out).walk(entry.second, key);
    } else {
      out.ignored.push_back(
          fmt::format("{} ({})", key, at(config.file(), entry.second).to_string()));
    }
  }
  auto find = [&](std::string_view flag) {
    return std::find_if(out.flags.begin(), out.flags.end(),
                        [&](const FlagValue& f) { return f.flag == flag; });
  };
  // Bridge's own defaults where Megatron's command line has others: ffn 4h even with a gated
  // unit (no SwiGLU rule), and no vocabulary padding unless should_pad_vocab.
  if (const auto hidden = find("--hidden-size"); hidden != out.flags.end() &&
                                                 find("--ffn-hidden-size") == out.flags.end() &&
                                                 hidden->values.size() == 1) {
    std::int64_t h = 0;
    const std::string& t = hidden->values.front();
    const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), h);
    if (ec == std::errc() && end == t.data() + t.size() && h > 0 && h <= (std::int64_t{1} << 22))
      out.flags.push_back({"--ffn-hidden-size",
                           {std::to_string(4 * h)},
                           hidden->where,
                           "Bridge's default ffn_hidden_size: 4 x hidden_size"});
  }
  if (const auto pad = find("--should-pad-vocab"); pad != out.flags.end()) {
    out.notes.push_back(fmt::format("{} ({}): padded to make_vocab_size_divisible_by x TP",
                                    pad->spelled, pad->where.to_string()));
    out.flags.erase(pad);
  } else {
    out.flags.erase(std::remove_if(out.flags.begin(), out.flags.end(),
                                   [](const FlagValue& f) {
                                     return f.flag == "--make-vocab-size-divisible-by";
                                   }),
                    out.flags.end());
    out.flags.push_back({"--make-vocab-size-divisible-by",
                         {"1"},
                         {},
                         "model.should_pad_vocab false (Bridge's default): no padding"});
  }
  // Bridge's GQA needs no enabling flag: a group count is GQA.
  const auto groups = std::find_if(out.flags.begin(), out.flags.end(), [](const FlagValue& f) {
    return f.flag == "--num-query-groups";
  });
  if (groups != out.flags.end()) {
    const FlagValue gqa{"--group-query-attention", {}, groups->where, groups->spelled};
    out.flags.push_back(gqa);
  }
  return out;
}

std::int64_t trainer_int(const Config& config, const YAML::Node& trainer, const char* key) {
  const YAML::Node n = trainer[key];
  if (!n) return 1;
  const std::string text = config.scalar(n, "trainer");
  try {
    std::size_t used = 0;
    const std::int64_t v = std::stoll(text, &used);
    if (used == text.size() && v >= 1 && v <= (std::int64_t{1} << 20)) return v;
  } catch (const std::exception&) {
  }
  throw ConfigError(
      at(config.file(), n),
      fmt::format("trainer.{}: '{}' is not a whole number of {} in 1..1048576 (-1 and "
                  "'auto' are not a world size: give --gpus N)",
                  key, text, std::string_view(key) == "devices" ? "GPUs per node" : "nodes"));
}

Collected collect_nemo1(const Config& config) {
  Collected out;
  const YAML::Node trainer = config.root()["trainer"];
  if (trainer.IsMap()) {
    const std::int64_t devices = trainer_int(config, trainer, "devices");
    const std::int64_t nodes = trainer_int(config, trainer, "num_nodes");
    out.world = {devices * nodes,
                 fmt::format("trainer.devices {} x trainer.num_nodes {} ({})", devices, nodes,
                             at(config.file(), trainer).to_string())};
    for (const auto& entry : trainer) {
      const std::string key = entry.first.Scalar();
      if (key == "gradient_clip_val" && entry.second.IsScalar()) {
        const std::string v = config.scalar(entry.second, "trainer");
        out.flags.push_back({"--clip-grad",
                             {v},
                             at(config.file(), entry.second),
                             "trainer.gradient_clip_val: " + v});
      } else if (key != "devices" && key != "num_nodes" && key != "precision") {
        out.ignored.push_back(
            fmt::format("trainer.{} ({})", key, at(config.file(), entry.second).to_string()));
      }
    }
    if (const YAML::Node p = trainer["precision"]) {
      const std::string precision = config.scalar(p, "trainer");
      const std::string spelled = fmt::format("trainer.precision: {}", precision);
      if (precision.starts_with("bf16")) {
        out.flags.push_back({"--bf16", {}, at(config.file(), p), spelled});
      } else if (precision.starts_with("16")) {
        out.flags.push_back({"--fp16", {}, at(config.file(), p), spelled});
      } else if (!precision.starts_with("32")) {
        throw ConfigError(
            at(config.file(), p),
            fmt::format("trainer.precision: '{}' is not bf16, 16 or 32 (with or without -mixed)",
                        precision));
      }
    }
  }
  const YAML::Node model = config.root()["model"];
  for (const auto& entry : model) {
    const std::string key = entry.first.Scalar();
    const YAML::Node& v = entry.second;
    const SourceLocation where = at(config.file(), v);
    if (key == "optim" && v.IsMap()) {
      if (v["name"] && config.scalar(v["name"], "model.optim") == "distributed_fused_adam")
        out.flags.push_back({"--use-distributed-optimizer",
                             {},
                             at(config.file(), v["name"]),
                             "model.optim.name: distributed_fused_adam"});
      out.ignored.push_back(fmt::format("model.optim, but for its name ({})", where.to_string()));
    } else if (key == "normalization" && v.IsScalar()) {
      const std::string n = config.scalar(v, "model");
      const std::string flag_value = n == "rmsnorm"               ? "RMSNorm"
                                     : n.starts_with("layernorm") ? "LayerNorm"
                                                                  : n;
      out.flags.push_back({"--normalization", {flag_value}, where, "model.normalization: " + n});
    } else if (key == "activation" && v.IsScalar()) {
      const std::string a = config.scalar(v, "model");
      if (a == "swiglu" || a == "fast-swiglu") {
        out.flags.push_back({"--swiglu", {}, where, "model.activation: " + a});
      } else if (a != "gelu") {
        throw ConfigError(where,
                          fmt::format("model.activation: '{}' is not simulated (gelu, swiglu)", a));
      }
    } else if (key == "num_query_groups" && v.IsScalar() && config.scalar(v, "model") != "null") {
      out.flags.push_back({"--group-query-attention", {}, where, "model.num_query_groups (set)"});
      out.flags.push_back({"--num-query-groups",
                           {config.scalar(v, "model")},
                           where,
                           "model.num_query_groups: " + config.scalar(v, "model")});
    } else if (key == "fp8" && v.IsScalar()) {
      if (config.scalar(v, "model") == "true" || config.scalar(v, "model") == "True") {
        const YAML::Node h = model["fp8_hybrid"];
        const bool hybrid =
            h && (config.scalar(h, "model") == "true" || config.scalar(h, "model") == "True");
        out.flags.push_back({"--fp8-format",
                             {hybrid ? "hybrid" : "e4m3"},
                             where,
                             fmt::format("model.fp8: true, fp8_hybrid: {}", hybrid)});
      }
    } else if (key == "transformer_engine" && v.IsScalar()) {
      // NeMo 1's switch between Transformer Engine's layers and Megatron's local ones.
      const bool te = config.scalar(v, "model") == "true" || config.scalar(v, "model") == "True";
      out.flags.push_back({"--transformer-impl",
                           {te ? "transformer_engine" : "local"},
                           where,
                           "model.transformer_engine: " + config.scalar(v, "model")});
    } else if (key == "mcore_gpt") {
      out.ignored.push_back(
          fmt::format("model.mcore_gpt ({}): Megatron-Core and the legacy model "
                      "run the same kernels here",
                      where.to_string()));
    } else if (key == "fp8_hybrid" || key == "fp8_e4m3") {
      // read with model.fp8
    } else if (key == "tokenizer" && v.IsMap()) {
      if (v["type"] && config.scalar(v["type"], "model.tokenizer") == "GPT2BPETokenizer")
        out.flags.push_back({"--tokenizer-type",
                             {"GPT2BPETokenizer"},
                             at(config.file(), v["type"]),
                             "model.tokenizer.type: GPT2BPETokenizer"});
      else
        out.ignored.push_back(fmt::format("model.tokenizer ({})", where.to_string()));
    } else if (v.IsMap()) {
      out.ignored.push_back(fmt::format("model.{} ({})", key, where.to_string()));
    } else {
      YAML::Node one;
      one[key] = v;  // shares v (and its position)
      Collector(config, kNemo1Rules, out).walk(one, "model");
    }
  }
  for (const auto& entry : config.root())
    if (entry.first.Scalar() != "trainer" && entry.first.Scalar() != "model")
      out.ignored.push_back(fmt::format("{} ({})", entry.first.Scalar(),
                                        at(config.file(), entry.second).to_string()));
  return out;
}

}  // namespace

ImportedScenario import_nemo(std::string_view text, const std::filesystem::path& file,
                             const ImportOptions& options) {
  YAML::Node root;
  try {
    root = YAML::Load(std::string(text));
  } catch (const YAML::Exception& e) {
    throw ConfigError({file, e.mark.line + 1, e.mark.column + 1},
                      fmt::format("not YAML: {}", e.msg));
  }
  if (!root.IsMap() || !root["model"] || !root["model"].IsMap())
    throw ConfigError({file, 1, 1},
                      "not a NeMo or Megatron-Bridge config: no `model:` mapping at the top "
                      "(NeMo 1: trainer: and model:; Bridge: model:, train:, dataset:)");
  for (const auto& entry : root)
    if (!entry.first.IsScalar())
      throw ConfigError(at(file, entry.first), "a top-level key must be a scalar");
  const Config config(root, file);
  const bool nemo1 = static_cast<bool>(root["trainer"]);
  Collected c = nemo1 ? collect_nemo1(config) : collect_bridge(config);
  ImportedScenario s =
      scenario_from_megatron(c.flags, c.world, options,
                             fmt::format("{} ({})", file.string(),
                                         nemo1 ? "NeMo 1 YAML config" : "Megatron-Bridge config"));
  s.ignored.insert(s.ignored.begin(), c.ignored.begin(), c.ignored.end());
  s.notes.insert(s.notes.end(), c.notes.begin(), c.notes.end());
  return s;
}

}  // namespace trainsim::inputs::import
