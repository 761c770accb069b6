#include "inputs/parameters.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

namespace trainsim::inputs {
namespace {

constexpr std::int64_t no_max = std::numeric_limits<std::int64_t>::max();
// Upper bounds far beyond any model trained so far; they stop absurd values early, with the
// field named. Combinations that overflow a buffer are caught when the Program is built.
constexpr std::int64_t kMaxCount = std::int64_t{1} << 20;  // GPUs, parallel sizes, heads
constexpr std::int64_t kMaxLayers = 100'000;
constexpr std::int64_t kMaxWidth = std::int64_t{1} << 22;   // hidden, ffn
constexpr std::int64_t kMaxTokens = std::int64_t{1} << 24;  // seq_len
constexpr std::int64_t kMaxVocab = std::int64_t{1} << 27;
constexpr std::int64_t kMaxBatch = std::int64_t{1} << 30;  // sequences

Parameter integer(std::string_view path, DefaultKind kind, std::string_view default_value,
                  std::int64_t min, std::int64_t max, std::string_view description) {
  return Parameter{path, ParameterType::integer, kind, default_value, {}, min, max, description};
}

// A unit-less real number (a bare number in the file: it has no unit to state).
Parameter number(std::string_view path, std::string_view default_value, std::int64_t min,
                 std::string_view description) {
  return Parameter{
      path, ParameterType::number, DefaultKind::value, default_value, {}, min, no_max, description};
}

// A real number whose absence means something the description states (`rule`).
Parameter derived_number(std::string_view path, std::string_view rule, std::int64_t min,
                         std::string_view description) {
  return Parameter{path,       ParameterType::number, DefaultKind::derived, rule, {}, min, no_max,
                   description};
}

Parameter choice(std::string_view path, std::string_view default_value,
                 std::vector<std::string_view> choices, std::string_view description) {
  return Parameter{
      path, ParameterType::choice, DefaultKind::value, default_value, choices, 0, 0, description};
}

// A choice whose default depends on other fields (`default_value` states the rule).
Parameter derived_choice(std::string_view path, std::string_view default_value,
                         std::vector<std::string_view> choices, std::string_view description) {
  return Parameter{
      path, ParameterType::choice, DefaultKind::derived, default_value, choices, 0, 0, description};
}

Parameter boolean(std::string_view path, std::string_view default_value,
                  std::string_view description) {
  return Parameter{path,       ParameterType::boolean, DefaultKind::value, default_value, {}, 0, 0,
                   description};
}

Parameter text(std::string_view path, DefaultKind kind, std::string_view default_value,
               std::string_view description) {
  return Parameter{path, ParameterType::string, kind, default_value, {}, 0, 0, description};
}

std::vector<Parameter> build_table() {
  using enum DefaultKind;
  return {
      text("name", derived, "the file name without .yaml", "scenario name used in reports"),
      text("hardware", required, "",
           "hardware profile: a name in hwprofiles/ or a path to a .yaml (relative to this file)"),
      integer("gpus", required, "", 1, kMaxCount, "GPUs in the job; must equal TP x PP x DP"),
      integer("model.layers", required, "", 1, kMaxLayers, "transformer layers L"),
      integer("model.hidden", required, "", 1, kMaxWidth, "hidden size h"),
      integer("model.heads", required, "", 1, kMaxCount,
              "attention heads a; must divide hidden unless model.head_dim is given"),
      integer("model.kv_heads", derived, "model.heads", 1, kMaxCount,
              "key/value heads g of grouped-query attention; divides heads (g = heads: "
              "multi-head attention)"),
      integer("model.head_dim", derived, "model.hidden / model.heads", 1, kMaxWidth,
              "head dimension d_h (Qwen3, GPT-OSS: heads x head_dim differs from hidden)"),
      integer("model.ffn", derived, "4 x model.hidden", 1, kMaxWidth, "MLP inner width f"),
      integer("model.seq_len", value, "2048", 1, kMaxTokens, "sequence length s (tokens)"),
      integer("model.vocab", value, "51200", 1, kMaxVocab, "vocabulary size V as trained"),
      choice("model.dtype", "bf16", {"fp32", "bf16", "fp16", "fp64"},
             "activation and weight dtype on the device"),
      choice("model.attention_flops", "dense", {"dense", "causal"},
             "MFU's model FLOPs: count the attention core densely (the papers, torchtitan) or "
             "halved for the causal mask (Megatron-Core's num_floating_point_operations); HFU "
             "counts what runs (a flash kernel skips the masked tiles and recomputes the scores "
             "in its backward)"),
      integer("model.make_vocab_divisible_by", value, "128", 1, kMaxCount,
              "pad the vocabulary to a multiple of this x tensor.size (Megatron)"),
      choice("model.activation", "gelu", {"gelu", "swiglu"},
             "MLP activation: gelu (h -> ffn -> h) or swiglu (gate and up h -> 2 x ffn fused, "
             "silu(gate) x up, down ffn -> h; ffn is the gated width)"),
      choice("model.norm", "layernorm", {"layernorm", "rmsnorm"},
             "normalisation: layernorm (gain and bias) or rmsnorm (gain only)"),
      choice("model.position", "learned", {"learned", "rope"},
             "positions: a learned table added to the embedding, or rotary embeddings on "
             "queries and keys"),
      choice("model.attention", "standard", {"standard", "flash"},
             "attention core: standard (Megatron's unfused QK^T, softmax, P.V; s^2 scores in "
             "memory) or flash (a fused FlashAttention-style kernel: no s^2 tensor, scores "
             "recomputed in the backward, timed at the profile's gpu.attention; bf16 or fp16)"),
      boolean("model.qk_norm", "false",
              "Qwen3's QK-norm: RMSNorm over head_dim on every query and key head after the "
              "QKV linear (needs norm rmsnorm)"),
      integer("model.attention_window.size", derived, "none: full causal attention", 1, kMaxTokens,
              "sliding-window attention: query i sees keys i - size < j <= i (GPT-OSS: 128; "
              "needs attention flash)"),
      integer("model.attention_window.every", value, "1", 1, kMaxLayers,
              "the windowed layers: those whose index is a multiple of this (GPT-OSS: 2, the "
              "even layers; 1: every layer)"),
      number("model.rope_theta", "10000", 1, "RoPE base (a bare number; Llama 3: 500000)"),
      boolean("model.tied_embeddings", "true",
              "the output layer's weight is the word embedding (GPT); false: a weight of its "
              "own (Llama)"),
      boolean("model.bias", "true", "biases on the QKV, projection and MLP linears (false: Llama)"),
      number("model.hidden_dropout", "0.1", 0,
             "dropout probability on the embedding and the residual branches (a bare number "
             "in [0, 1); Megatron's default 0.1, Llama 0)"),
      number("model.attention_dropout", "0.1", 0,
             "dropout probability on the attention probabilities (a bare number in [0, 1))"),
      integer("model.moe.experts", derived, "none: a dense MLP on every layer", 1, kMaxCount,
              "mixture of experts: routed experts E per MoE layer (Megatron's --num-experts), "
              "each a SwiGLU MLP without biases (needs activation swiglu)"),
      integer("model.moe.top_k", value, "2", 1, kMaxCount,
              "experts each token is routed to (--moe-router-topk): the top-k router logits, "
              "softmax over them"),
      integer("model.moe.expert_ffn", derived, "model.ffn", 1, kMaxWidth,
              "one expert's inner (gated) width F (--moe-ffn-hidden-size)"),
      integer("model.moe.shared_experts", value, "0", 0, kMaxCount,
              "shared experts S every token passes, run as one SwiGLU MLP of S x expert_ffn "
              "(--moe-shared-expert-intermediate-size = S x F)"),
      integer("model.moe.every", value, "1", 1, kMaxLayers,
              "MoE on the layers whose index is a multiple of this (--moe-layer-freq; 1: every "
              "layer), a dense MLP (model.ffn) on the others"),
      derived_number("model.moe.capacity_factor", "none: dropless", 0,
                     "cap each expert at ceil(tokens x top_k / experts x factor) of the tokens a "
                     "GPU routes (its micro batch; its sequence shard with SP or CP), dropping "
                     "the overflow by lowest probability "
                     "(--moe-expert-capacity-factor, drop policy probs)"),
      choice("model.moe.routing", "balanced", {"balanced", "uniform", "zipf"},
             "how tokens spread over the experts in the prediction (the cpu check routes by its "
             "logits): balanced (every expert the same rows: Megatron's force-balanced "
             "routing), uniform (each token's top_k experts at random: binomial loads), zipf "
             "(popularity 1/rank^s over a shuffled ranking); the busiest expert-parallel rank "
             "sets the pace, and simulate prints the cost over balanced"),
      derived_number("model.moe.zipf_exponent", "1.0 with routing zipf", 0,
                     "s of zipf routing (0: uniform popularity; 1: the 2nd expert half as "
                     "popular as the 1st)"),
      integer("training.global_batch", required, "", 1, kMaxBatch,
              "sequences per optimizer step; a multiple of micro_batch x data.size"),
      integer("training.micro_batch", value, "1", 1, kMaxBatch, "sequences per micro batch"),
      choice("training.optimizer", "adam", {"adam"}, "optimizer (sets optimizer-state memory)"),
      number("training.clip_grad", "1.0", 0,
             "gradient clipping by global norm (Megatron's --clip-grad; a bare number, no unit): "
             "the optimizer step all-reduces the gradients' norm over the model-parallel group, "
             "the host reads it and the gradients are scaled when it exceeds this; 0 disables it. "
             "fp16 models also get Megatron's loss scaling (unscale, overflow check, host read)"),
      choice("training.precision", "bf16", {"bf16", "fp8"},
             "GEMM precision: bf16, or fp8 (Transformer Engine: the layers' QKV, projection and "
             "MLP GEMMs in FP8 at the profile's gpu.peak.fp8, their inputs and gradients cast "
             "to FP8 in both layouts, FP8 weight copies of 2 bytes per parameter, FP8 copies "
             "saved for the backward; embedding, attention core and output layer in bf16); "
             "needs model.dtype bf16 and tensor kind 1d"),
      derived_choice(
          "training.fp8_recipe", "delayed with precision fp8", {"delayed", "tensorwise"},
          "FP8 scaling (with precision fp8): delayed (per-tensor scales from the amax "
          "history, Megatron's default) or tensorwise (current scaling: an amax pass over each "
          "tensor before its cast, Megatron-Bridge's FP8-CS)"),
      choice("training.mode", "training", {"training", "inference"},
             "training: forward, backward, gradient reduction and optimizer per step; inference: "
             "forward passes only over global_batch sequences in micro batches (no gradients, "
             "optimizer state or saved activations, dropout off; needs recompute none and zero "
             "0)"),
      choice("parallel.tensor.kind", "1d", {"1d", "2d", "2.5d", "3d"},
             "tensor-parallel scheme: 1d Megatron, 2d Optimus (SUMMA on q x q), 2.5d Tesseract "
             "(depth x q x q), 3d Bian et al. (q x q x q cube)"),
      integer("parallel.tensor.size", value, "1", 1, kMaxCount,
              "GPUs per tensor-parallel block: 1d t (divides heads and ffn), 2d q², 2.5d q² x "
              "depth (q >= 2 divides heads, q² divides hidden and ffn, q x depth divides "
              "micro_batch), 3d q³ (q >= 2 divides heads, q² divides hidden, ffn and "
              "micro_batch)"),
      integer("parallel.tensor.depth", value, "1", 1, kMaxCount,
              "2.5d: stacked q x q grids d, each on micro_batch / d sequences (1 otherwise)"),
      derived_choice("parallel.tensor.grid_order", "weight-major for 3d, row-major otherwise",
                     {"row-major", "column-major", "depth-major", "weight-major", "input-major",
                      "output-major"},
                     "grid axis that varies fastest over consecutive GPUs, i.e. which groups "
                     "share a node: 2d/2.5d row-major (row groups), column-major (column "
                     "groups), depth-major (2.5d depth groups); 3d weight-major (weight groups, "
                     "ColossalAI's order), input-major or output-major"),
      boolean("parallel.tensor.sequence_parallel", "false",
              "shard LayerNorm/dropout activations along the sequence (needs tensor.size > 1)"),
      boolean("parallel.tensor.comm_overlap", "false",
              "Transformer Engine's TP communication overlap (Megatron's --tp-comm-overlap; 1d "
              "with sequence_parallel): the layers' sequence all-gathers and reduce-scatters "
              "run as ring exchanges, shard by shard, under the linears' GEMMs"),
      integer("parallel.pipeline.size", value, "1", 1, kMaxCount,
              "pipeline stages PP; layers must divide by size x chunks"),
      choice("parallel.pipeline.schedule", "1f1b",
             {"gpipe", "1f1b", "interleaved", "breadth-first", "layered"}, "pipeline schedule"),
      integer("parallel.pipeline.chunks", value, "1", 1, kMaxLayers,
              "model chunks per stage v (> 1 only with interleaved, breadth-first, layered; "
              "layered: layers / pipeline.size, one layer per chunk)"),
      integer("parallel.pipeline.first_stage_layers", derived, "layers split evenly", 1, kMaxLayers,
              "layers of the first stage (Megatron's --decoder-first-pipeline-num-layers; Llama "
              "3's lighter first stage, which also holds the embedding); the stages without a "
              "stated count share the rest evenly; schedule gpipe or 1f1b"),
      integer("parallel.pipeline.last_stage_layers", derived, "layers split evenly", 1, kMaxLayers,
              "layers of the last stage (--decoder-last-pipeline-num-layers; it also holds the "
              "output layer and the loss)"),
      integer("parallel.context.size", value, "1", 1, kMaxCount,
              "context-parallel size CP (Megatron's --context-parallel-size): each sequence's "
              "tokens split over CP GPUs in 2 x CP chunks, attention's keys and values passed "
              "around the ring; needs attention flash, position rope, 1d tensor parallelism and "
              "seq_len divisible by 2 x CP"),
      integer("parallel.data.size", derived, "gpus / (tensor.size x context.size x pipeline.size)",
              1, kMaxCount, "data-parallel size DP"),
      integer("parallel.data.zero", value, "0", 0, 3,
              "ZeRO stage: 1 shards the optimizer state (Megatron distributed optimizer), 2 "
              "also the gradients, 3 also the parameters"),
      boolean("parallel.data.overlap_grad_reduce", "true",
              "overlap the gradient reduction with the backward pass"),
      boolean("parallel.data.overlap_param_gather", "false",
              "Megatron's --overlap-param-gather (ZeRO 1 and 2): gather the updated parameters "
              "as the next step's forward pass first needs them, not after the optimizer"),
      integer("parallel.expert.size", value, "1", 1, kMaxCount,
              "expert-parallel size EP (--expert-model-parallel-size): each MoE layer's experts "
              "split over EP GPUs of a pipeline stage, drawn from its tensor x context x data "
              "ranks (Megatron-Core's MoE parallel folding), tokens dispatched to them and "
              "combined back by all-to-all; divides model.moe.experts and tensor.size x "
              "context.size x data.size"),
      integer("parallel.expert.tensor", value, "1", 1, 1,
              "expert tensor-parallel size (--expert-tensor-parallel-size): 1, each expert "
              "whole on one GPU (Megatron's advice for fine-grained experts; > 1 is not "
              "modelled yet)"),
      choice("parallel.recompute", "none", {"none", "selective", "full"},
             "activation recomputation: selective (attention core) or full (whole layers)"),
      integer("stragglers.rank", derived, "none", 0, kMaxCount,
              "one slow GPU, by global rank (0 to gpus - 1): its kernels take stragglers.factor "
              "times as long, and every collective and pipeline transfer it joins waits for it"),
      number("stragglers.factor", "1.2", 1,
             "how much longer a slow GPU's kernels take (1.2: 20 % longer; 1 to 100)"),
      number("stragglers.fraction", "0", 0,
             "each GPU is slow with this probability (0 to 1), drawn from stragglers.seed; "
             "besides stragglers.rank"),
      integer("stragglers.seed", value, "1", 0, kMaxCount,
              "seed of the stragglers.fraction draw (the same seed, the same GPUs)"),
      integer("runtime.device_max_connections", derived,
              "the hardware profile's host.device_max_connections", 1, 32,
              "CUDA_DEVICE_MAX_CONNECTIONS of the framework the scenario runs, where it differs "
              "from the one the profile's host section describes: 1 makes each GPU start its "
              "streams' ops in the order the host issued them (Megatron-LM sets it), more "
              "leaves the streams independent; needs a profile with a host section"),
  };
}

}  // namespace

const std::vector<Parameter>& scenario_parameters() {
  static const std::vector<Parameter> table = build_table();
  return table;
}

const Parameter& scenario_parameter(std::string_view path) {
  const auto& table = scenario_parameters();
  const auto it =
      std::find_if(table.begin(), table.end(), [&](const Parameter& p) { return p.path == path; });
  if (it == table.end()) {
    throw std::out_of_range(fmt::format("no scenario parameter \"{}\"", path));
  }
  return *it;
}

std::vector<std::string> scenario_keys_under(std::string_view section) {
  std::vector<std::string> keys;
  for (const Parameter& p : scenario_parameters()) {
    std::string_view rest = p.path;
    if (!section.empty()) {
      if (rest.size() <= section.size() + 1 || rest.substr(0, section.size()) != section ||
          rest[section.size()] != '.') {
        continue;
      }
      rest.remove_prefix(section.size() + 1);
    }
    std::string key(rest.substr(0, rest.find('.')));
    if (std::find(keys.begin(), keys.end(), key) == keys.end()) keys.push_back(std::move(key));
  }
  return keys;
}

bool scenario_section_required(std::string_view section) {
  const std::string prefix = fmt::format("{}.", section);
  return std::any_of(scenario_parameters().begin(), scenario_parameters().end(),
                     [&](const Parameter& p) {
                       return p.default_kind == DefaultKind::required &&
                              std::string_view(p.path).starts_with(prefix);
                     });
}

std::string valid_values(const Parameter& p) {
  switch (p.type) {
    case ParameterType::string:
      return "string";
    case ParameterType::boolean:
      return "true | false";
    case ParameterType::choice: {
      std::string out;
      for (std::string_view c : p.choices)
        out += out.empty() ? std::string(c) : " | " + std::string(c);
      return out;
    }
    case ParameterType::integer:
      if (p.max == no_max) return fmt::format("integer >= {}", p.min);
      return fmt::format("integer {}..{}", p.min, p.max);
    case ParameterType::number:
      if (p.max == no_max) return fmt::format("number >= {}", p.min);
      return fmt::format("number {}..{}", p.min, p.max);
  }
  return "";
}

std::string scenario_parameters_help() {
  std::string out =
      "Scenario keys (YAML; nested keys written as sections, e.g. model: {heads: 64}):\n";
  for (const Parameter& p : scenario_parameters()) {
    std::string def;
    switch (p.default_kind) {
      case DefaultKind::required:
        def = "required";
        break;
      case DefaultKind::value:
        def = fmt::format("default {}", p.default_value);
        break;
      case DefaultKind::derived:
        def = fmt::format("default {}", p.default_value);
        break;
    }
    out +=
        fmt::format("  {:<36} {:<30} {}\n      {}\n", p.path, valid_values(p), def, p.description);
  }
  return out;
}

}  // namespace trainsim::inputs
