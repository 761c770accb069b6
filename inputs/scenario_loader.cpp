#include "inputs/scenario_loader.hpp"

#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <string>

#include "inputs/hwprofile_loader.hpp"
#include "inputs/parameters.hpp"
#include "inputs/yaml_reader.hpp"
#include "models/build_program.hpp"
#include "models/expert_parallel.hpp"
#include "models/tensor_grid.hpp"

namespace trainsim::inputs {
namespace {

/// A scenario as read, before the checks: the values, the tensor kind as written, and where
/// each field was written.
struct ReadScenario {
  Scenario scenario;
  std::string tensor_kind;
  bool stragglers_written = false;  ///< stragglers.factor or .seed written
  std::map<std::string, SourceLocation, std::less<>> where;

  const SourceLocation& at(std::string_view path) const { return where.find(path)->second; }
};

/// Reads the keys of one section through the parameter table, recording locations.
class SectionReader {
 public:
  SectionReader(const YamlValue& parent, std::string_view section, ReadScenario& out)
      : out_(out), section_(section), map_(open(parent, section)) {}

  /// The value of a leaf: as written, or the table's default (located at the section).
  /// nullopt for an absent derived key.
  std::optional<YamlValue> value(std::string_view key) const {
    const Parameter& p = scenario_parameter(map_.child_path(key));
    std::optional<YamlValue> v = map_.find(key);
    if (!v) {
      switch (p.default_kind) {
        case DefaultKind::required:
          v = map_.required(key);
          break;  // throws
        case DefaultKind::derived:
          out_.where[std::string(p.path)] = map_.self().location();
          return std::nullopt;
        case DefaultKind::value:
          v = map_.self().synthetic(std::string(p.path), p.default_value, map_.self().location());
          break;
      }
    }
    out_.where[std::string(p.path)] = v->location();
    return v;
  }

  std::int64_t integer(std::string_view key) const {
    const Parameter& p = scenario_parameter(map_.child_path(key));
    return value(key)->as_int_in(p.min, p.max);
  }
  std::optional<std::int64_t> optional_integer(std::string_view key) const {
    const Parameter& p = scenario_parameter(map_.child_path(key));
    if (auto v = value(key)) return v->as_int_in(p.min, p.max);
    return std::nullopt;
  }
  /// A unit-less real number in the table's range.
  double number(std::string_view key) const {
    const Parameter& p = scenario_parameter(map_.child_path(key));
    const double max = p.max == std::numeric_limits<std::int64_t>::max()
                           ? std::numeric_limits<double>::infinity()
                           : static_cast<double>(p.max);
    return value(key)->as_double_in(static_cast<double>(p.min), max);
  }
  std::optional<double> optional_number(std::string_view key) const {
    if (!map_.find(key)) {
      value(key);  // records where the derived default comes from
      return std::nullopt;
    }
    return number(key);
  }
  /// Whether `key` is written in the file.
  bool written(std::string_view key) const { return map_.find(key).has_value(); }
  bool boolean(std::string_view key) const { return value(key)->as_bool(); }
  std::string text(std::string_view key) const {
    if (auto v = value(key)) return v->as_string();
    return {};
  }
  /// The chosen text form, checked against the table's choices.
  std::string_view choice(std::string_view key) const {
    const Parameter& p = scenario_parameter(map_.child_path(key));
    return p.choices[value(key)->as_choice(p.choices)];
  }
  /// The chosen text form of a choice with a derived default; nullopt when absent.
  std::optional<std::string_view> optional_choice(std::string_view key) const {
    const Parameter& p = scenario_parameter(map_.child_path(key));
    if (auto v = value(key)) return p.choices[v->as_choice(p.choices)];
    return std::nullopt;
  }
  /// A subsection; absent optional sections read as empty mappings (all defaults).
  SectionReader section(std::string_view key) const {
    return SectionReader(map_.self(), map_.child_path(key), out_);
  }

 private:
  static YamlMap open(const YamlValue& parent, std::string_view section) {
    const std::vector<std::string> keys = scenario_keys_under(section);
    if (section.empty()) return parent.as_map(keys);
    const std::string_view key = section.substr(section.rfind('.') + 1);
    const YamlMap parent_map = parent.as_map(scenario_keys_under(parent.path()));
    if (auto v = parent_map.find(key)) return v->as_map(keys);
    if (scenario_section_required(section)) parent_map.required(key);  // throws
    return parent
        .synthetic(std::string(section), YAML::Node(YAML::NodeType::Map), parent.location())
        .as_map(keys);
  }

  ReadScenario& out_;
  std::string section_;
  YamlMap map_;
};

DType dtype_of(std::string_view s) {
  return *dtype_from_string(s);
}

// The choice was already checked against parameters.cpp's list, which names the same values.
PipelineSchedule schedule_of(std::string_view s) {
  return *pipeline_schedule_from_string(s);
}

Recompute recompute_of(std::string_view s) {
  return *recompute_from_string(s);
}

ReadScenario read(const std::filesystem::path& file, std::span<const ScenarioOverride> overrides) {
  const YamlValue root = load_yaml_file(file);
  apply_overrides(root.node(), overrides, file);
  ReadScenario out;
  Scenario& sc = out.scenario;
  sc.source_file = file;
  const SectionReader top(root, "", out);
  sc.name = top.text("name");
  if (sc.name.empty()) sc.name = file.stem().string();
  sc.hardware = top.text("hardware");
  sc.gpus = top.integer("gpus");

  const SectionReader model = top.section("model");
  ModelSpec& m = sc.model;
  m.layers = model.integer("layers");
  m.hidden = model.integer("hidden");
  m.heads = model.integer("heads");
  m.ffn = model.optional_integer("ffn").value_or(4 * m.hidden);
  m.seq_len = model.integer("seq_len");
  m.vocab = model.integer("vocab");
  m.dtype = dtype_of(model.choice("dtype"));
  m.attention_flops =
      model.choice("attention_flops") == "causal" ? AttentionFlops::causal : AttentionFlops::dense;
  m.vocab_divisor = model.integer("make_vocab_divisible_by");
  m.kv_heads = model.optional_integer("kv_heads");
  m.head_size = model.optional_integer("head_dim");
  m.activation = *model_enum_from_string<Activation>(model.choice("activation"));
  m.norm = *model_enum_from_string<NormKind>(model.choice("norm"));
  m.position = *model_enum_from_string<PositionKind>(model.choice("position"));
  m.attention = *model_enum_from_string<AttentionKind>(model.choice("attention"));
  m.qk_norm = model.boolean("qk_norm");
  {
    const SectionReader window = model.section("attention_window");
    const std::int64_t every = window.integer("every");
    if (const auto size = window.optional_integer("size")) {
      m.attention_window = AttentionWindow{*size, every};
    }
  }
  {
    const SectionReader moe = model.section("moe");
    const std::optional<std::int64_t> experts = moe.optional_integer("experts");
    MoeSpec spec;
    spec.top_k = moe.integer("top_k");
    spec.expert_ffn = moe.optional_integer("expert_ffn").value_or(m.ffn);
    spec.shared_experts = moe.integer("shared_experts");
    spec.every = moe.integer("every");
    spec.capacity_factor = moe.optional_number("capacity_factor");
    spec.routing = *expert_routing_from_string(moe.choice("routing"));
    const std::optional<double> zipf = moe.optional_number("zipf_exponent");
    if (zipf && spec.routing != ExpertRouting::zipf) {
      throw ConfigError(out.at("model.moe.zipf_exponent"),
                        fmt::format("model.moe.zipf_exponent: {} is the exponent of routing zipf; "
                                    "routing is {} (set routing: zipf, or drop the exponent)",
                                    *zipf, to_string(spec.routing)));
    }
    spec.zipf_exponent = zipf.value_or(1.0);
    if (experts) {
      spec.experts = *experts;
      m.moe = spec;
    } else {
      for (const char* key : {"top_k", "expert_ffn", "shared_experts", "every", "capacity_factor",
                              "routing", "zipf_exponent"}) {
        if (moe.written(key)) {
          throw ConfigError(out.at(fmt::format("model.moe.{}", key)),
                            fmt::format("model.moe.{}: set model.moe.experts for a mixture of "
                                        "experts, or drop this key",
                                        key));
        }
      }
    }
  }
  m.rope_theta = model.number("rope_theta");
  m.tied_embeddings = model.boolean("tied_embeddings");
  m.bias = model.boolean("bias");
  m.hidden_dropout = model.number("hidden_dropout");
  m.attention_dropout = model.number("attention_dropout");

  const SectionReader training = top.section("training");
  sc.training.global_batch = training.integer("global_batch");
  sc.training.micro_batch = training.integer("micro_batch");
  training.choice("optimizer");  // adam is the only one
  sc.training.optimizer = Optimizer::adam;
  sc.training.mode = *run_mode_from_string(training.choice("mode"));
  sc.training.clip_grad = training.number("clip_grad");
  const std::optional<std::string_view> recipe = training.optional_choice("fp8_recipe");
  if (training.choice("precision") == "fp8") {
    sc.training.fp8 = fp8_recipe_from_string(recipe.value_or("delayed"));
  } else if (recipe) {
    throw ConfigError(out.at("training.fp8_recipe"),
                      "training.fp8_recipe: a scaling recipe for FP8 GEMMs; set "
                      "training.precision to fp8, or drop the recipe");
  }

  sc.runtime.device_max_connections =
      top.section("runtime").optional_integer("device_max_connections");
  {
    const SectionReader stragglers = top.section("stragglers");
    StragglerSpec& s = sc.stragglers;
    s.rank = stragglers.optional_integer("rank");
    s.factor = stragglers.number("factor");
    s.fraction = stragglers.number("fraction");
    s.seed = static_cast<std::uint64_t>(stragglers.integer("seed"));
    out.stragglers_written = stragglers.written("factor") || stragglers.written("seed");
  }

  const SectionReader parallel = top.section("parallel");
  const SectionReader tensor = parallel.section("tensor");
  ParallelPlan& plan = sc.parallel;
  out.tensor_kind = std::string(tensor.choice("kind"));
  plan.tensor.kind = tensor_kind_from_string(out.tensor_kind).value_or(TensorKind::one_d);
  plan.tensor.size = tensor.integer("size");
  plan.tensor.sequence_parallel = tensor.boolean("sequence_parallel");
  plan.tensor.comm_overlap = tensor.boolean("comm_overlap");
  plan.tensor.depth = tensor.integer("depth");
  // Derived default (parameters.cpp): ColossalAI's cube order for 3d, row-major otherwise.
  plan.tensor.grid_order =
      *grid_order_from_string(tensor.optional_choice("grid_order")
                                  .value_or(to_string(default_grid_order(plan.tensor.kind))));
  const SectionReader pipeline = parallel.section("pipeline");
  plan.pipeline.size = pipeline.integer("size");
  plan.pipeline.schedule = schedule_of(pipeline.choice("schedule"));
  plan.pipeline.chunks = pipeline.integer("chunks");
  plan.pipeline.first_stage_layers = pipeline.optional_integer("first_stage_layers");
  plan.pipeline.last_stage_layers = pipeline.optional_integer("last_stage_layers");
  plan.context.size = parallel.section("context").integer("size");
  const SectionReader data = parallel.section("data");
  const std::optional<std::int64_t> dp = data.optional_integer("size");
  plan.data.zero = static_cast<int>(data.integer("zero"));
  plan.data.overlap_grad_reduce = data.boolean("overlap_grad_reduce");
  plan.data.overlap_param_gather = data.boolean("overlap_param_gather");
  plan.recompute = recompute_of(parallel.choice("recompute"));
  const SectionReader expert = parallel.section("expert");
  plan.expert.size = expert.integer("size");
  plan.expert.tensor = expert.integer("tensor");

  if (dp) {
    plan.data.size = *dp;
  } else {
    // Derived default (parameters.cpp): whatever is left of the GPUs after TP and PP.
    const std::int64_t model_parallel = plan.tensor.size * plan.context.size * plan.pipeline.size;
    if (sc.gpus % model_parallel != 0) {
      throw ConfigError(out.at("gpus"),
                        fmt::format("gpus: {} GPUs cannot be split into tensor.size {} x "
                                    "context.size {} x pipeline.size {} = {} GPUs per replica; "
                                    "set gpus to a multiple of {} or set parallel.data.size",
                                    sc.gpus, plan.tensor.size, plan.context.size,
                                    plan.pipeline.size, model_parallel, model_parallel));
    }
    plan.data.size = sc.gpus / model_parallel;
  }

  sc.hardware_file = resolve_hardware_profile(sc.hardware, file.parent_path(), out.at("hardware"));
  return out;
}

[[noreturn]] void fail(const ReadScenario& r, std::string_view field, std::string message) {
  throw ConfigError(r.at(field), fmt::format("{}: {}", field, message));
}

/// The mixture of experts' rules (modern-models-reference §6).
void check_moe(const ReadScenario& r) {
  const Scenario& sc = r.scenario;
  const ModelSpec& m = sc.model;
  const MoeSpec& moe = *m.moe;
  if (moe.top_k > moe.experts) {
    fail(r, "model.moe.top_k",
         fmt::format("top_k {} is more than the {} experts a token can be routed to", moe.top_k,
                     moe.experts));
  }
  if (m.activation != Activation::swiglu) {
    fail(r, "model.activation",
         "the experts are SwiGLU MLPs (Mixtral, Qwen3, GPT-OSS, DeepSeek); a model with "
         "model.moe needs activation swiglu");
  }
  if (moe.capacity_factor && !(*moe.capacity_factor > 0.0 && std::isfinite(*moe.capacity_factor))) {
    fail(r, "model.moe.capacity_factor",
         fmt::format("a capacity factor is a finite number above 0 (1.0: each expert takes its "
                     "even share of the tokens); got {}",
                     *moe.capacity_factor));
  }
  if (moe.shared_experts > 0 && m.bias) {
    fail(r, "model.moe.shared_experts",
         fmt::format("{} shared experts are modelled without biases (DeepSeek's, Qwen2-MoE's); "
                     "set model.bias false",
                     moe.shared_experts));
  }
}

/// Facts that involve several fields. Each error sits at the field most likely to be wrong.
void check_stragglers(const ReadScenario& r) {
  const StragglerSpec& s = r.scenario.stragglers;
  if (s.rank && *s.rank >= r.scenario.gpus) {
    fail(r, "stragglers.rank",
         fmt::format("GPU {} is beyond the scenario's {} GPUs (ranks 0 to {})", *s.rank,
                     r.scenario.gpus, r.scenario.gpus - 1));
  }
  if (s.factor > 100.0) {
    fail(
        r, "stragglers.factor",
        fmt::format("{}: expected 1 to 100 (how much longer a slow GPU's kernels take)", s.factor));
  }
  if (s.fraction > 1.0) {
    fail(r, "stragglers.fraction", fmt::format("{}: expected 0 to 1 (a probability)", s.fraction));
  }
  if (!s.any() && r.stragglers_written) {
    fail(r, "stragglers.factor",
         "slows no GPU: give stragglers.rank (one GPU) or stragglers.fraction (a seeded share of "
         "them)");
  }
}

void check_consistency(const ReadScenario& r) {
  const Scenario& sc = r.scenario;
  const ModelSpec& m = sc.model;
  const ParallelPlan& p = sc.parallel;
  if (p.gpus() != sc.gpus) {
    fail(r, "gpus",
         fmt::format("{} GPUs, but tensor.size {} x context.size {} x pipeline.size {} x "
                     "data.size {} = {}; they must be equal",
                     sc.gpus, p.tensor.size, p.context.size, p.pipeline.size, p.data.size,
                     p.gpus()));
  }
  if (!m.head_size && m.hidden % m.heads != 0) {
    fail(r, "model.heads",
         fmt::format("hidden {} is not divisible by heads {}; heads must divide hidden, or give "
                     "model.head_dim",
                     m.hidden, m.heads));
  }
  if (!m.bias && m.activation == Activation::gelu) {
    fail(r, "model.bias",
         "bias false is modelled with activation swiglu (Llama); the GeLU MLP runs Megatron's "
         "fused bias-GeLU, which needs its bias: use bias true or activation swiglu");
  }
  if (m.moe) check_moe(r);
  check_stragglers(r);
  if (const auto problem = moe_parallel_problem(m, p)) {
    fail(r, problem->field, problem->message);
  }
  if (m.attention == AttentionKind::flash && m.dtype != DType::bf16 && m.dtype != DType::fp16) {
    fail(r, "model.attention",
         fmt::format("flash attention runs in bf16 or fp16 (FlashAttention's and cuDNN's fused "
                     "kernels); this model's dtype is {}: use standard or dtype bf16",
                     to_string(m.dtype)));
  }
  if (m.attention_window && m.attention != AttentionKind::flash) {
    fail(r, "model.attention_window.size",
         "sliding-window attention runs in the fused kernels (FlashAttention, cuDNN), as "
         "GPT-OSS trains it; set model.attention to flash");
  }
  if (m.position == PositionKind::rope && m.head_dim() % 2 != 0) {
    fail(r, m.head_size ? "model.head_dim" : "model.heads",
         fmt::format("RoPE rotates pairs of a head's dimensions; head_dim {} is odd",
                     m.head_dim()));
  }
  if (m.qk_norm && m.norm != NormKind::rmsnorm) {
    fail(r, "model.qk_norm",
         "qk_norm is an RMSNorm on each query and key head (Qwen3); it needs norm rmsnorm");
  }
  if (m.heads % m.key_value_heads() != 0) {
    fail(r, "model.kv_heads",
         fmt::format("kv_heads {} does not divide heads {}; each key/value head serves "
                     "heads / kv_heads query heads",
                     m.key_value_heads(), m.heads));
  }
  for (const auto& [field, probability] :
       {std::pair{"model.hidden_dropout", m.hidden_dropout},
        std::pair{"model.attention_dropout", m.attention_dropout}}) {
    if (probability >= 1.0) {
      fail(r, field,
           fmt::format("{} is a probability in [0, 1); got {}", field, probability));
    }
  }
  if (p.tensor.kind != TensorKind::one_d && !m.gpt_layer()) {
    fail(r, "parallel.tensor.kind",
         fmt::format("kind {} runs the GPT layer only (layernorm, gelu, learned positions, "
                     "multi-head attention with head_dim = hidden / heads, biases, tied "
                     "embeddings); this model's {}; use kind 1d",
                     r.tensor_kind, m.non_gpt_features()));
  }
  const bool one_d = p.tensor.kind == TensorKind::one_d;
  if (one_d && p.tensor.depth != 1) {
    fail(r, "parallel.tensor.depth",
         fmt::format("depth {} stacks the grids of 2.5d tensor parallelism; kind {} has depth 1",
                     p.tensor.depth, r.tensor_kind));
  }
  if (const std::optional<GridProblem> grid = tensor_grid_problem(m, p, sc.training)) {
    fail(r, grid->field, grid->message);
  }
  if (one_d && m.heads % p.tensor.size != 0) {
    fail(r, "parallel.tensor.size",
         fmt::format("heads {} is not divisible by tensor.size {}; use a tensor.size that "
                     "divides {}",
                     m.heads, p.tensor.size, m.heads));
  }
  if (one_d && m.key_value_heads() % p.tensor.size != 0) {
    fail(r, "parallel.tensor.size",
         fmt::format("kv_heads {} is not divisible by tensor.size {}; each TP rank holds "
                     "kv_heads / tensor.size key/value heads (Megatron's replication of fewer "
                     "heads than ranks is not modelled)",
                     m.key_value_heads(), p.tensor.size));
  }
  if (one_d && m.ffn % p.tensor.size != 0) {
    fail(r, "model.ffn",
         fmt::format("ffn {} is not divisible by tensor.size {}", m.ffn, p.tensor.size));
  }
  const std::int64_t per_step = sc.training.micro_batch * p.data.size;
  if (sc.training.global_batch % per_step != 0) {
    fail(r, "training.global_batch",
         fmt::format("global_batch {} is not a multiple of micro_batch {} x data.size {} = {}",
                     sc.training.global_batch, sc.training.micro_batch, p.data.size, per_step));
  }
  if (p.tensor.sequence_parallel && p.tensor.size < 2) {
    fail(r, "parallel.tensor.sequence_parallel",
         fmt::format("sequence parallelism needs tensor.size > 1 (got {}), as in Megatron-LM; "
                     "use false or a tensor.size of 2 or more",
                     p.tensor.size));
  }
  if (p.tensor.sequence_parallel && m.seq_len % p.tensor.size != 0) {
    fail(r, "parallel.tensor.sequence_parallel",
         fmt::format("sequence parallelism splits seq_len {} over tensor.size {}, which does not "
                     "divide it; use false or a tensor.size that divides {}",
                     m.seq_len, p.tensor.size, m.seq_len));
  }
  if (const std::optional<std::string> overlap = tp_comm_overlap_problem(p)) {
    fail(r, "parallel.tensor.comm_overlap", *overlap);
  }
  if (sc.training.fp8 && m.dtype != DType::bf16) {
    fail(r, "training.precision",
         fmt::format("fp8 runs Transformer Engine's linears beside a bf16 model; model.dtype is "
                     "{} (use bf16)",
                     to_string(m.dtype)));
  }
  if (sc.training.fp8 && p.tensor.kind != TensorKind::one_d) {
    fail(r, "training.precision",
         fmt::format("fp8 is modelled for Transformer Engine's 1d linears, not tensor kind {}",
                     to_string(p.tensor.kind)));
  }
  if (const std::optional<std::string> cp = context_parallel_problem(m, p)) {
    fail(r, "parallel.context.size", *cp);
  }
  if (sc.training.inference() && p.recompute != Recompute::none) {
    fail(r, "parallel.recompute",
         fmt::format("recompute {} re-runs forward work for a backward pass, which inference "
                     "does not have; use none with training.mode inference",
                     to_string(p.recompute)));
  }
  if (sc.training.inference() && p.data.zero != 0) {
    fail(r, "parallel.data.zero",
         fmt::format("ZeRO stage {} shards gradients and optimizer state, which inference does "
                     "not have; use 0 with training.mode inference",
                     p.data.zero));
  }
  if (p.data.overlap_param_gather && p.data.zero != 1 && p.data.zero != 2) {
    fail(r, "parallel.data.overlap_param_gather",
         fmt::format("true needs the distributed optimizer's gather of the updated parameters: "
                     "parallel.data.zero 1 or 2 (got {}; ZeRO 3 gathers before every use "
                     "anyway)",
                     p.data.zero));
  }
  if (const auto uneven = p.pipeline.uneven_problem(m.layers)) {
    fail(r,
         p.pipeline.first_stage_layers ? "parallel.pipeline.first_stage_layers"
                                       : "parallel.pipeline.last_stage_layers",
         *uneven);
  }
  const std::int64_t layer_groups = p.pipeline.size * p.pipeline.chunks;
  if (!p.pipeline.uneven() && m.layers % layer_groups != 0) {
    fail(r, "model.layers",
         fmt::format("layers {} is not divisible by pipeline.size {} x chunks {} = {}", m.layers,
                     p.pipeline.size, p.pipeline.chunks, layer_groups));
  }
  if (p.pipeline.schedule == PipelineSchedule::interleaved && p.pipeline.size > 1) {
    const std::int64_t micro_batches = sc.training.micro_batches_per_replica(p.data.size);
    if (p.pipeline.chunks < 2) {
      fail(r, "parallel.pipeline.chunks",
           fmt::format("chunks {}: schedule interleaved needs 2 or more model chunks per stage; "
                       "use chunks >= 2 or schedule 1f1b",
                       p.pipeline.chunks));
    }
    if (micro_batches % p.pipeline.size != 0) {
      fail(r, "training.global_batch",
           fmt::format("global_batch {} gives {} micro batches per replica, which schedule "
                       "interleaved needs to be a multiple of pipeline.size {} (Megatron's "
                       "rule); use a global_batch that is a multiple of micro_batch x data.size "
                       "x pipeline.size = {}",
                       sc.training.global_batch, micro_batches, p.pipeline.size,
                       sc.training.micro_batch * p.data.size * p.pipeline.size));
    }
  }
  if (p.pipeline.schedule == PipelineSchedule::breadth_first && p.pipeline.size > 1 &&
      p.pipeline.chunks < 2) {
    fail(r, "parallel.pipeline.chunks",
         fmt::format("chunks {}: schedule breadth-first loops over 2 or more model chunks per "
                     "stage (§7.5); use chunks >= 2, or schedule gpipe for one chunk",
                     p.pipeline.chunks));
  }
  if (p.pipeline.schedule == PipelineSchedule::layered &&
      m.layers != p.pipeline.size * p.pipeline.chunks && m.layers % p.pipeline.size == 0) {
    fail(r, "parallel.pipeline.chunks",
         fmt::format("chunks {}: schedule layered places one layer per chunk, round robin over "
                     "the stages (modular pipeline, §7.6), so chunks must be layers / "
                     "pipeline.size = {} / {} = {}; use chunks: {}, or breadth-first for chunks "
                     "of several layers",
                     p.pipeline.chunks, m.layers, p.pipeline.size, m.layers / p.pipeline.size,
                     m.layers / p.pipeline.size));
  }
  if (p.pipeline.chunks > 1 && p.pipeline.schedule != PipelineSchedule::interleaved &&
      p.pipeline.schedule != PipelineSchedule::breadth_first &&
      p.pipeline.schedule != PipelineSchedule::layered) {
    fail(r, "parallel.pipeline.chunks",
         fmt::format("chunks {} needs schedule interleaved, breadth-first or layered; this "
                     "schedule runs one chunk per stage (chunks: 1)",
                     p.pipeline.chunks));
  }
}

/// Plans that parse but cannot run: breadth-first needs stages to loop over.
void check_supported(const ReadScenario& r) {
  const ParallelPlan& p = r.scenario.parallel;
  if (p.pipeline.size == 1 && p.pipeline.schedule == PipelineSchedule::breadth_first) {
    fail(r, "parallel.pipeline.schedule",
         "schedule breadth-first without a pipeline (pipeline.size 1) has no stages to loop "
         "over; use layered for gradient accumulation layer by layer on one stage (§7.6), or "
         "pipeline.size >= 2");
  }
}

}  // namespace

Scenario load_scenario(const std::filesystem::path& file) {
  const ReadScenario r = read(file, {});
  check_consistency(r);
  check_supported(r);
  return r.scenario;
}

Scenario load_scenario(const std::filesystem::path& file,
                       std::span<const ScenarioOverride> overrides) {
  if (overrides.empty()) return load_scenario(file);
  try {
    const ReadScenario r = read(file, overrides);
    check_consistency(r);
    check_supported(r);
    return r.scenario;
  } catch (const ConfigError& e) {
    throw ConfigError(e.where(), fmt::format("{} (the scenario with {})", e.message(),
                                             describe_overrides(overrides)));
  }
}

hw::HardwareProfile scenario_hardware(const Scenario& scenario) {
  hw::HardwareProfile hw = load_hardware_profile(scenario.hardware_file);
  if (const auto connections = scenario.runtime.device_max_connections) {
    if (!hw.host) {
      throw ConfigError(
          SourceLocation{scenario.source_file, 0, 0},
          fmt::format("runtime.device_max_connections: {} needs a hardware profile with a host "
                      "section (the host model); '{}' has none",
                      *connections, hw.name));
    }
    hw.host->device_max_connections = *connections;
  }
  return hw;
}

}  // namespace trainsim::inputs
