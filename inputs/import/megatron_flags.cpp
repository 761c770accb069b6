#include "inputs/import/megatron_flags.hpp"

// Design: the flags go into a table (last occurrence wins, as argparse stores them); each
// scenario key is then derived by one function that reads the flags it needs through
// `Flags`, which marks them used. What is left unused is sorted into "ignored" (known not to
// change a step's time: optimiser hyper-parameters, data paths, logging) and "unknown".
// Megatron's own checks (ecosystem-formats.md §1.4) are made here, at the flag, so a user
// reads "--num-query-groups 3" rather than the scenario key it became.

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cstdint>
#include <limits>
#include <map>
#include <set>
#include <string_view>

namespace trainsim::inputs::import {

namespace {

constexpr std::int64_t kMaxInt = std::int64_t{1} << 40;
// Sizes within the scenario's own ranges (inputs/parameters.cpp), so products of two or three
// of them stay far inside int64.
constexpr std::int64_t kMaxGpus = std::int64_t{1} << 20;
constexpr std::int64_t kMaxWidth = std::int64_t{1} << 22;
constexpr std::int64_t kMaxBatch = std::int64_t{1} << 30;

// Flags known not to change the time of a training step: optimiser hyper-parameters, data and
// tokenizer paths, logging, evaluation and checkpoint intervals, launcher plumbing. A name
// ending in '*' matches every flag with that prefix.
constexpr std::array kNoEffect = {
    "--lr",
    "--lr-*",
    "--min-lr",
    "--decoupled-lr",
    "--decoupled-min-lr",
    "--weight-decay*",
    "--adam-*",
    "--sgd-momentum",
    "--init-method-std",
    "--seed",
    "--train-iters",
    "--train-samples",
    "--log-*",
    "--save*",
    "--load",
    "--no-load-*",
    "--eval-*",
    "--tensorboard-*",
    "--wandb-*",
    "--data-path",
    "--data-cache-path",
    "--train-data-path",
    "--valid-data-path",
    "--test-data-path",
    "--split",
    "--vocab-file",
    "--merge-file",
    "--tokenizer-type",
    "--tokenizer-model",
    "--mock-data",
    "--exit-*",
    "--distributed-backend",
    "--distributed-timeout-minutes",
    "--use-mcore-models",
    "--norm-epsilon",
    "--apply-layernorm-1p",
    "--rotary-percent",
    "--calculate-per-token-loss",
    "--num-workers",
    "--dataloader-type",
    "--timing-log-*",
    "--profile*",
    "--use-checkpoint-args",
    "--ckpt-*",
    "--async-save",
    "--moe-aux-loss-coeff",
    "--moe-z-loss-coeff",
    "--no-create-attention-mask-in-dataloader",
    "--reset-*",
    "--eod-mask-loss",
    "--hysteresis",
    "--loss-scale*",
    "--initial-loss-scale",
    "--min-loss-scale",
    "--attention-softmax-in-fp32",
    "--accumulate-allreduce-grads-in-fp32",
    "--fp8-amax-history-len",
    "--fp8-amax-compute-algo",
    "--fp8-margin",
    "--use-cpu-initialization",
    "--micro-batch-size-*",
    "--bf16-*",
    "--no-masked-softmax-fusion",
    "--no-bias-gelu-fusion",
    "--no-bias-dropout-fusion",
    "--no-gradient-accumulation-fusion",
    "--rotary-seq-len-interpolation-factor",
};

// Flags that change a step's time in ways trainsim does not model: each is reported as a note.
const std::map<std::string_view, std::string_view>& not_modelled() {
  static const std::map<std::string_view, std::string_view> table = {
      {"--cross-entropy-loss-fusion",
       "the fused cross entropy is costed as Megatron's unfused passes"},
      {"--manual-gc", "Python's garbage collector is not modelled"},
      {"--empty-unused-memory-level", "the caching allocator's emptying is not modelled"},
      {"--grad-reduce-in-bf16",
       "gradients are reduced in the scenario's rule (fp32 with bf16 weights)"},
      {"--fp8-param-gather", "FP8 parameter gathers are not modelled: gathers move bf16 weights"},
      {"--moe-router-load-balancing-type",
       "routing is trainsim's balanced default, not the learned router's"},
      {"--moe-router-score-function", "the router's score function is not modelled (softmax cost)"},
      {"--add-qkv-bias", "the QKV bias alone is not modelled: model.bias covers every linear"},
      {"--no-overlap-p2p-communication", "pipeline sends are modelled as Megatron overlaps them"},
      {"--overlap-p2p-communication", "pipeline sends are modelled as Megatron overlaps them"},
      {"--rampup-batch-size", "the steady-state global batch is simulated, not the ramp-up"},
      {"--enable-cuda-graph", "CUDA graphs' launch savings are not modelled"},
      {"--cuda-graph-impl", "CUDA graphs' launch savings are not modelled"},
      {"--moe-permute-fusion", "the token permutation is costed unfused"},
      {"--bias-swiglu-fusion", "element-wise fusions are not modelled"},
  };
  return table;
}

bool matches(std::string_view pattern, std::string_view flag) {
  if (pattern.ends_with('*')) return flag.starts_with(pattern.substr(0, pattern.size() - 1));
  return pattern == flag;
}

bool no_effect(std::string_view flag) {
  return std::any_of(kNoEffect.begin(), kNoEffect.end(),
                     [&](std::string_view p) { return matches(p, flag); });
}

std::string where_text(const SourceLocation& where) {
  return where.file.empty() ? std::string() : fmt::format(" ({})", where.to_string());
}

// The flags, each stored once (the last occurrence wins, as in argparse), with use tracking.
class Flags {
 public:
  explicit Flags(std::span<const FlagValue> flags) {
    for (const FlagValue& f : flags)
      by_name_[f.flag] = &f;
  }

  const FlagValue* get(std::string_view name) {
    const auto it = by_name_.find(std::string(name));
    if (it == by_name_.end()) return nullptr;
    used_.insert(it->first);
    return it->second;
  }
  bool has(std::string_view name) { return get(name) != nullptr; }

  // A store_true flag: present, with no value.
  bool enabled(std::string_view name) {
    const FlagValue* f = get(name);
    if (f == nullptr) return false;
    if (!f->values.empty())
      fail(*f, fmt::format("takes no value, got '{}' (a store_true flag: present or absent)",
                           f->values.front()));
    return true;
  }

  const std::string* text(std::string_view name) {
    const FlagValue* f = get(name);
    if (f == nullptr) return nullptr;
    if (f->values.size() != 1) fail(*f, fmt::format("takes one value, got {}", f->values.size()));
    return &f->values.front();
  }

  std::optional<std::int64_t> integer(std::string_view name, std::int64_t lo = 1,
                                      std::int64_t hi = kMaxInt) {
    const std::string* t = text(name);
    if (t == nullptr) return std::nullopt;
    std::int64_t v = 0;
    const auto [end, ec] = std::from_chars(t->data(), t->data() + t->size(), v);
    if (ec != std::errc() || end != t->data() + t->size() || v < lo || v > hi)
      fail(*get(name), fmt::format("'{}' is not a whole number in {}..{}", *t, lo, hi));
    return v;
  }

  std::optional<double> number(std::string_view name, double lo, double hi) {
    const std::string* t = text(name);
    if (t == nullptr) return std::nullopt;
    double v = 0;
    const auto [end, ec] = std::from_chars(t->data(), t->data() + t->size(), v);
    if (ec != std::errc() || end != t->data() + t->size() || !(v >= lo && v <= hi))
      fail(*get(name), fmt::format("'{}' is not a number in [{}, {}]", *t, lo, hi));
    return v;
  }

  // One of `choices`; returns it.
  std::optional<std::string> choice(std::string_view name,
                                    std::span<const std::string_view> choices) {
    const std::string* t = text(name);
    if (t == nullptr) return std::nullopt;
    if (std::find(choices.begin(), choices.end(), *t) == choices.end())
      fail(*get(name), fmt::format("'{}' is not one of {}", *t, fmt::join(choices, ", ")));
    return *t;
  }

  // "--num-layers 96 (train.sh:24:5)": the source comment of a key set from this flag.
  std::string source(std::string_view name) {
    const FlagValue* f = get(name);
    return f == nullptr ? std::string(name) : fmt::format("{}{}", f->spelled, where_text(f->where));
  }

  [[noreturn]] static void fail(const FlagValue& f, const std::string& message) {
    throw ConfigError(f.where, fmt::format("{}: {}", f.spelled, message));
  }
  [[noreturn]] void fail(std::string_view name, const std::string& message) {
    const FlagValue* f = get(name);
    if (f != nullptr) fail(*f, message);
    throw ConfigError({}, fmt::format("{}: {}", name, message));
  }

  // Every flag given and not read, in the order of first appearance.
  std::vector<const FlagValue*> unused(std::span<const FlagValue> all) const {
    std::vector<const FlagValue*> out;
    std::set<std::string> seen;
    for (const FlagValue& f : all) {
      if (used_.contains(f.flag) || !seen.insert(f.flag).second) continue;
      out.push_back(by_name_.at(f.flag));
    }
    return out;
  }

 private:
  std::map<std::string, const FlagValue*> by_name_;
  std::set<std::string> used_;
};

std::string str(std::int64_t v) {
  return std::to_string(v);
}

// The sizes every later step needs, read once.
struct Layout {
  std::int64_t world = 0, tp = 1, pp = 1, cp = 1, dp = 1, ep = 1;
  std::int64_t layers = 0, micro = 1;
  std::string world_source;
};

std::int64_t required(Flags& f, std::string_view name, std::int64_t hi = kMaxWidth) {
  const std::optional<std::int64_t> v = f.integer(name, 1, hi);
  if (!v)
    throw ConfigError({}, fmt::format("{} is required (Megatron's own rule): the flags do not "
                                      "give it",
                                      name));
  return *v;
}

void import_model(Flags& f, ImportedScenario& s, const ImportOptions& o, Layout& l) {
  l.layers = required(f, "--num-layers");
  s.set("model.layers", str(l.layers), f.source("--num-layers"));
  const std::int64_t hidden = required(f, "--hidden-size");
  s.set("model.hidden", str(hidden), f.source("--hidden-size"));
  const std::int64_t heads = required(f, "--num-attention-heads");
  s.set("model.heads", str(heads), f.source("--num-attention-heads"));
  if (const auto kv = f.integer("--kv-channels", 1, kMaxWidth)) {
    if (*kv * heads != hidden) s.set("model.head_dim", str(*kv), f.source("--kv-channels"));
  } else if (hidden % heads != 0) {
    f.fail("--num-attention-heads",
           fmt::format("hidden {} is not divisible by {} heads and --kv-channels is not given "
                       "(Megatron asserts hidden % heads == 0 then)",
                       hidden, heads));
  }
  const bool gqa = f.enabled("--group-query-attention");
  if (gqa) {
    const std::int64_t groups = f.integer("--num-query-groups").value_or(1);
    if (heads % groups != 0)
      f.fail("--num-query-groups",
             fmt::format("{} query groups do not divide {} heads", groups, heads));
    s.set("model.kv_heads", str(groups),
          f.has("--num-query-groups") ? f.source("--num-query-groups")
                                      : "--group-query-attention without --num-query-groups: 1");
  } else if (f.has("--num-query-groups")) {
    s.notes.push_back(fmt::format("{} ignored: Megatron uses it only with --group-query-attention",
                                  f.source("--num-query-groups")));
  }
  if (f.enabled("--multi-latent-attention"))
    f.fail("--multi-latent-attention", "multi-latent attention is not simulated yet");

  const bool swiglu = f.enabled("--swiglu");
  for (std::string_view other : {"--squared-relu", "--quick-geglu"})
    if (f.enabled(other)) f.fail(other, "this activation is not simulated (gelu or --swiglu)");
  f.enabled("--openai-gelu");  // GeLU's tanh form: the same kernels
  if (const auto ffn = f.integer("--ffn-hidden-size")) {
    s.set("model.ffn", str(*ffn), f.source("--ffn-hidden-size"));
  } else {
    const std::int64_t derived = swiglu ? (4 * hidden * 2 / 3) / 64 * 64 : 4 * hidden;
    s.set("model.ffn", str(derived),
          swiglu ? "derived as Megatron does with --swiglu: int(4h x 2/3 / 64) x 64"
                 : "derived as Megatron does: 4 x hidden");
  }
  const std::int64_t seq = f.has("--seq-length")           ? *f.integer("--seq-length")
                           : f.has("--encoder-seq-length") ? *f.integer("--encoder-seq-length")
                                                           : required(f, "--seq-length");
  s.set("model.seq_len", str(seq),
        f.has("--seq-length") ? f.source("--seq-length") : f.source("--encoder-seq-length"));
  if (const auto max_pos = f.integer("--max-position-embeddings"); max_pos && *max_pos < seq)
    f.fail("--max-position-embeddings",
           fmt::format("{} is below --seq-length {} (Megatron asserts >=)", *max_pos, seq));

  // Vocabulary: stated, or GPT-2's BPE when its files are given, or the user's --vocab.
  if (const auto v = f.integer("--vocab-size")) {
    s.set("model.vocab", str(*v), f.source("--vocab-size"));
  } else if (o.vocab) {
    s.set("model.vocab", str(*o.vocab), "--vocab (trainsim import option)");
  } else {
    const std::string* type = f.text("--tokenizer-type");
    const bool gpt2 = type != nullptr ? *type == "GPT2BPETokenizer"
                                      : f.has("--vocab-file") && f.has("--merge-file");
    if (!gpt2)
      throw ConfigError(
          {},
          fmt::format(
              "the vocabulary size is not in the flags ({}): give `--vocab N` to trainsim import "
              "(Llama 3: 128256, Llama 2/Mixtral: 32000, GPT-2: 50257)",
              type != nullptr ? f.source("--tokenizer-type")
                              : "no --vocab-size or --tokenizer-type"));
    s.set("model.vocab", "50257",
          type != nullptr
              ? f.source("--tokenizer-type") + ": GPT-2's BPE, 50257 entries"
              : "--vocab-file/--merge-file without --tokenizer-type: GPT-2's BPE, 50257 entries");
  }
  if (const auto m = f.integer("--make-vocab-size-divisible-by"))
    s.set("model.make_vocab_divisible_by", str(*m), f.source("--make-vocab-size-divisible-by"));

  const bool bf16 = f.enabled("--bf16");
  const bool fp16 = f.enabled("--fp16");
  if (bf16 && fp16) f.fail("--fp16", "--fp16 and --bf16 exclude each other (Megatron asserts)");
  s.set("model.dtype",
        bf16   ? "bf16"
        : fp16 ? "fp16"
               : "fp32",
        bf16   ? f.source("--bf16")
        : fp16 ? f.source("--fp16")
               : "neither --bf16 nor --fp16: Megatron trains in fp32");

  if (swiglu) s.set("model.activation", "swiglu", f.source("--swiglu"));
  static constexpr std::array<std::string_view, 2> norms = {"LayerNorm", "RMSNorm"};
  if (const auto norm = f.choice("--normalization", norms); norm && *norm == "RMSNorm")
    s.set("model.norm", "rmsnorm", f.source("--normalization"));

  static constexpr std::array<std::string_view, 6> positions = {
      "learned_absolute", "rope", "yarn", "mrope", "relative", "none"};
  std::string position =
      f.choice("--position-embedding-type", positions).value_or("learned_absolute");
  std::string position_source = f.source("--position-embedding-type");
  if (f.enabled("--use-rotary-position-embeddings")) {
    position = "rope";
    position_source = f.source("--use-rotary-position-embeddings");
  }
  if (position == "relative" || position == "none")
    f.fail("--position-embedding-type",
           fmt::format("'{}' is not simulated (learned_absolute or rope)", position));
  if (position != "learned_absolute") {
    s.set("model.position", "rope", position_source);
    if (position != "rope")
      s.notes.push_back(fmt::format("{}: simulated as rope (the same kernels)", position_source));
    if (const auto base = f.number("--rotary-base", 1, 1e12))
      s.set("model.rope_theta", f.text("--rotary-base")->c_str(), f.source("--rotary-base"));
  }
  f.enabled("--no-position-embedding");
  if (f.enabled("--untie-embeddings-and-output-weights"))
    s.set("model.tied_embeddings", "false", f.source("--untie-embeddings-and-output-weights"));
  if (f.enabled("--disable-bias-linear"))
    s.set("model.bias", "false", f.source("--disable-bias-linear"));
  if (f.enabled("--qk-layernorm")) s.set("model.qk_norm", "true", f.source("--qk-layernorm"));
  if (const auto d = f.number("--hidden-dropout", 0, 1))
    s.set("model.hidden_dropout", *f.text("--hidden-dropout"), f.source("--hidden-dropout"));
  if (const auto d = f.number("--attention-dropout", 0, 1))
    s.set("model.attention_dropout", *f.text("--attention-dropout"),
          f.source("--attention-dropout"));

  // Attention kernel: Transformer Engine's DotProductAttention (flash or cuDNN fused) unless
  // the unfused or local path is asked for.
  static constexpr std::array<std::string_view, 5> backends = {"flash", "fused", "unfused", "local",
                                                               "auto"};
  const std::string backend = f.choice("--attention-backend", backends).value_or("auto");
  static constexpr std::array<std::string_view, 3> impls = {"transformer_engine", "local",
                                                            "inference_optimized"};
  const std::string impl = f.choice("--transformer-impl", impls).value_or("transformer_engine");
  const bool legacy_flash = f.enabled("--use-flash-attn");  // read whatever the backend
  const bool fused = backend == "flash" || backend == "fused" ||
                     (backend == "auto" && impl == "transformer_engine") || legacy_flash;
  if (fused && (bf16 || fp16)) {
    s.set("model.attention", "flash",
          f.has("--attention-backend")
              ? f.source("--attention-backend") + ": a fused (flash or cuDNN) attention kernel"
              : "Megatron's default: Transformer Engine's fused attention (--attention-backend "
                "auto)");
  }
  s.set("model.attention_flops", "causal",
        "Megatron-Core's num_floating_point_operations counts the causal attention core halved");
}

void import_precision(Flags& f, ImportedScenario& s) {
  static constexpr std::array<std::string_view, 2> formats = {"e4m3", "hybrid"};
  if (!f.choice("--fp8-format", formats)) return;
  s.set("training.precision", "fp8", f.source("--fp8-format"));
  static constexpr std::array<std::string_view, 5> recipes = {"delayed", "tensorwise", "mxfp8",
                                                              "blockwise", "custom"};
  const std::string recipe = f.choice("--fp8-recipe", recipes).value_or("delayed");
  if (recipe != "delayed" && recipe != "tensorwise")
    f.fail("--fp8-recipe", fmt::format("'{}' is not simulated (delayed or tensorwise)", recipe));
  s.set("training.fp8_recipe", recipe,
        f.has("--fp8-recipe") ? f.source("--fp8-recipe")
                              : "Megatron's default --fp8-recipe: delayed");
}

void import_moe(Flags& f, ImportedScenario& s, const Layout& l) {
  const auto experts = f.integer("--num-experts", 0);
  if (!experts || *experts == 0) {
    if (l.ep > 1) f.fail("--expert-model-parallel-size", "needs --num-experts (Megatron asserts)");
    return;
  }
  s.set("model.moe.experts", str(*experts), f.source("--num-experts"));
  const std::int64_t top_k = f.integer("--moe-router-topk").value_or(2);
  if (top_k > *experts)
    f.fail("--moe-router-topk", fmt::format("{} is more than the {} experts", top_k, *experts));
  s.set("model.moe.top_k", str(top_k),
        f.has("--moe-router-topk") ? f.source("--moe-router-topk")
                                   : "Megatron's default --moe-router-topk: 2");
  std::int64_t expert_ffn = std::stoll(*s.value("model.ffn"));
  if (const auto e = f.integer("--moe-ffn-hidden-size")) {
    expert_ffn = *e;
    s.set("model.moe.expert_ffn", str(*e), f.source("--moe-ffn-hidden-size"));
  }
  if (const auto shared = f.integer("--moe-shared-expert-intermediate-size")) {
    if (*shared % expert_ffn != 0)
      f.fail("--moe-shared-expert-intermediate-size",
             fmt::format("{} is not a whole number of experts of {} (trainsim's shared experts "
                         "have the routed experts' width)",
                         *shared, expert_ffn));
    s.set("model.moe.shared_experts", str(*shared / expert_ffn),
          f.source("--moe-shared-expert-intermediate-size") + fmt::format(" / {}", expert_ffn));
  }
  if (const std::string* freq = f.text("--moe-layer-freq")) {
    if (freq->find_first_not_of("0123456789") != std::string::npos)
      f.fail("--moe-layer-freq",
             "a per-layer pattern is not simulated: trainsim's MoE layers "
             "repeat every N layers (give an integer N)");
    s.set("model.moe.every", str(*f.integer("--moe-layer-freq", 1, l.layers)),
          f.source("--moe-layer-freq"));
  }
  if (const auto c = f.number("--moe-expert-capacity-factor", 0, 1e6))
    s.set("model.moe.capacity_factor", *f.text("--moe-expert-capacity-factor"),
          f.source("--moe-expert-capacity-factor"));
  static constexpr std::array<std::string_view, 3> dispatchers = {"allgather", "alltoall", "flex"};
  const std::string dispatcher =
      f.choice("--moe-token-dispatcher-type", dispatchers).value_or("allgather");
  if (dispatcher != "alltoall")
    s.notes.push_back(
        fmt::format("{}: token dispatch simulated as all-to-all (the {} dispatcher is "
                    "not simulated)",
                    f.has("--moe-token-dispatcher-type")
                        ? f.source("--moe-token-dispatcher-type")
                        : "Megatron's default --moe-token-dispatcher-type allgather",
                    dispatcher));
  f.enabled("--moe-grouped-gemm");  // trainsim runs the local experts as grouped GEMMs
  f.enabled("--moe-router-force-load-balancing");  // balanced: trainsim's default routing
  if (*experts % l.ep != 0)
    f.fail("--expert-model-parallel-size",
           fmt::format("{} does not divide the {} experts (Megatron asserts)", l.ep, *experts));
  const std::int64_t etp = f.integer("--expert-tensor-parallel-size", 1, kMaxGpus).value_or(l.tp);
  if (etp != 1)
    f.fail(f.has("--expert-tensor-parallel-size") ? "--expert-tensor-parallel-size"
                                                  : "--tensor-model-parallel-size",
           fmt::format("expert tensor parallelism {} (Megatron's default is the TP size when "
                       "--expert-tensor-parallel-size is unset) is not simulated: add "
                       "--expert-tensor-parallel-size 1",
                       etp));
  if (l.world % (etp * l.ep * l.pp) != 0)
    f.fail("--expert-model-parallel-size",
           fmt::format("EP {} x ETP {} x PP {} does not divide the {} GPUs (Megatron asserts)",
                       l.ep, etp, l.pp, l.world));
  if (l.ep > 1) s.set("parallel.expert.size", str(l.ep), f.source("--expert-model-parallel-size"));
}

void import_pipeline(Flags& f, ImportedScenario& s, const Layout& l) {
  if (f.has("--pipeline-model-parallel-layout"))
    f.fail("--pipeline-model-parallel-layout",
           "an explicit layout is not read: use --pipeline-model-parallel-size with "
           "--decoder-first/last-pipeline-num-layers");
  if (l.pp == 1) return;
  s.set("parallel.pipeline.size", str(l.pp), f.source("--pipeline-model-parallel-size"));
  std::int64_t chunks = 1;
  std::string chunks_source;
  if (f.has("--num-layers-per-virtual-pipeline-stage") &&
      f.has("--num-virtual-stages-per-pipeline-rank"))
    f.fail("--num-virtual-stages-per-pipeline-rank",
           "and --num-layers-per-virtual-pipeline-stage exclude each other (Megatron asserts)");
  if (const auto per_stage = f.integer("--num-layers-per-virtual-pipeline-stage")) {
    if (l.layers % l.pp != 0 || (l.layers / l.pp) % *per_stage != 0)
      f.fail("--num-layers-per-virtual-pipeline-stage",
             fmt::format("{} layers over PP {} do not split into chunks of {} (Megatron asserts)",
                         l.layers, l.pp, *per_stage));
    chunks = l.layers / l.pp / *per_stage;
    chunks_source = f.source("--num-layers-per-virtual-pipeline-stage") +
                    fmt::format(": {} layers / PP {} / {}", l.layers, l.pp, *per_stage);
  } else if (const auto v = f.integer("--num-virtual-stages-per-pipeline-rank")) {
    chunks = *v;
    chunks_source = f.source("--num-virtual-stages-per-pipeline-rank");
  }
  const auto first = f.integer("--decoder-first-pipeline-num-layers");
  const auto last = f.integer("--decoder-last-pipeline-num-layers");
  if (chunks > 1) {
    if (first || last)
      f.fail(first ? "--decoder-first-pipeline-num-layers" : "--decoder-last-pipeline-num-layers",
             "uneven stages and virtual stages exclude each other (Megatron asserts)");
    s.set("parallel.pipeline.schedule", "interleaved", chunks_source);
    s.set("parallel.pipeline.chunks", str(chunks), chunks_source);
  } else {
    s.set("parallel.pipeline.schedule", "1f1b",
          "Megatron's schedule with PP > 1 and no virtual stages");
  }
  if (first)
    s.set("parallel.pipeline.first_stage_layers", str(*first),
          f.source("--decoder-first-pipeline-num-layers"));
  if (last)
    s.set("parallel.pipeline.last_stage_layers", str(*last),
          f.source("--decoder-last-pipeline-num-layers"));
  const bool embedding = f.enabled("--account-for-embedding-in-pipeline-split");
  const bool loss = f.enabled("--account-for-loss-in-pipeline-split");
  if ((embedding || loss) && (first || last))
    f.fail(embedding ? "--account-for-embedding-in-pipeline-split"
                     : "--account-for-loss-in-pipeline-split",
           "and --decoder-first/last-pipeline-num-layers exclude each other (Megatron asserts)");
  if ((embedding || loss) && !first && !last) {
    if (chunks > 1)
      f.fail(embedding ? "--account-for-embedding-in-pipeline-split"
                       : "--account-for-loss-in-pipeline-split",
             "with virtual stages is not simulated");
    const std::int64_t total = l.layers + (embedding ? 1 : 0) + (loss ? 1 : 0);
    if (total % l.pp != 0)
      f.fail(embedding ? "--account-for-embedding-in-pipeline-split"
                       : "--account-for-loss-in-pipeline-split",
             fmt::format("{} layers + embedding/loss = {} do not split over PP {}", l.layers, total,
                         l.pp));
    const std::int64_t per = total / l.pp;
    if (embedding)
      s.set("parallel.pipeline.first_stage_layers", str(per - 1),
            f.source("--account-for-embedding-in-pipeline-split"));
    if (loss)
      s.set("parallel.pipeline.last_stage_layers", str(per - 1),
            f.source("--account-for-loss-in-pipeline-split"));
  } else if (!first && !last && l.layers % l.pp != 0) {
    f.fail("--pipeline-model-parallel-size",
           fmt::format("{} layers do not split evenly over {} stages (Megatron asserts)", l.layers,
                       l.pp));
  }
}

void import_recompute(Flags& f, ImportedScenario& s, const Layout& l) {
  static constexpr std::array<std::string_view, 2> granularities = {"full", "selective"};
  std::optional<std::string> granularity = f.choice("--recompute-granularity", granularities);
  std::string source = f.source("--recompute-granularity");
  if (!granularity && f.enabled("--recompute-activations")) {
    granularity = "selective";
    source = f.source("--recompute-activations");
  }
  if (!granularity) return;
  static constexpr std::array<std::string_view, 2> methods = {"uniform", "block"};
  const auto method = f.choice("--recompute-method", methods);
  const auto count = f.integer("--recompute-num-layers");
  if (*granularity == "selective") {
    if (method || count)
      f.fail(method ? "--recompute-method" : "--recompute-num-layers",
             "must not be given with selective recomputation (Megatron asserts)");
    if (const FlagValue* modules = f.get("--recompute-modules")) {
      for (const std::string& m : modules->values)
        if (m != "core_attn")
          Flags::fail(*modules,
                      fmt::format("recomputing '{}' is not simulated: trainsim's selective "
                                  "recomputation is the attention core (core_attn)",
                                  m));
    }
    s.set("parallel.recompute", "selective", source);
    return;
  }
  if (!method || !count)
    f.fail("--recompute-granularity",
           "full recomputation needs --recompute-method and --recompute-num-layers (Megatron "
           "asserts)");
  const std::int64_t per_stage = l.layers / l.pp;
  if (*method == "block" && *count < per_stage)
    f.fail("--recompute-num-layers",
           fmt::format("block recomputation of {} of each stage's {} layers is not simulated: "
                       "trainsim recomputes every layer or none",
                       *count, per_stage));
  s.set("parallel.recompute", "full",
        source + fmt::format(" with {} {}", f.source("--recompute-method"),
                             f.source("--recompute-num-layers")));
  if (*method == "uniform" && *count > 1)
    s.notes.push_back(
        fmt::format("{}: checkpoints every {} layers; simulated as one checkpoint per "
                    "layer (the same recomputation, less memory held)",
                    f.source("--recompute-num-layers"), *count));
}

void import_data(Flags& f, ImportedScenario& s, const Layout& l) {
  const bool distributed = f.enabled("--use-distributed-optimizer");
  std::int64_t zero = distributed ? 1 : 0;
  std::string zero_source = f.source("--use-distributed-optimizer");
  if (f.enabled("--use-torch-fsdp2")) {
    zero = 3;
    zero_source = f.source("--use-torch-fsdp2") + ": parameters, gradients and optimizer sharded";
  }
  if (f.enabled("--use-megatron-fsdp") || f.enabled("--use-custom-fsdp")) {
    static constexpr std::array<std::string_view, 4> strategies = {
        "no_shard", "optim", "optim_grads", "optim_grads_params"};
    const std::string strategy =
        f.choice("--data-parallel-sharding-strategy", strategies).value_or("optim_grads_params");
    zero = std::find(strategies.begin(), strategies.end(), strategy) - strategies.begin();
    zero_source = fmt::format("Megatron FSDP, sharding {}", strategy);
  }
  if (l.dp > 1 || zero > 0)
    s.set("parallel.data.size", str(l.dp),
          fmt::format("{} GPUs / (TP {} x PP {} x CP {})", l.world, l.tp, l.pp, l.cp));
  if (zero > 0) s.set("parallel.data.zero", str(zero), zero_source);
  const bool overlap_grad = f.enabled("--overlap-grad-reduce");
  s.set("parallel.data.overlap_grad_reduce", overlap_grad ? "true" : "false",
        overlap_grad ? f.source("--overlap-grad-reduce")
                     : "no --overlap-grad-reduce (Megatron's default)");
  if (f.enabled("--overlap-param-gather")) {
    if (zero == 0 || !overlap_grad)
      f.fail("--overlap-param-gather",
             "needs --use-distributed-optimizer (or FSDP) and --overlap-grad-reduce (Megatron "
             "asserts)");
    s.set("parallel.data.overlap_param_gather", "true", f.source("--overlap-param-gather"));
  }
}

void import_tensor_context(Flags& f, ImportedScenario& s, const Layout& l) {
  if (l.tp > 1) {
    s.set("parallel.tensor.size", str(l.tp), f.source("--tensor-model-parallel-size"));
    const std::int64_t heads = std::stoll(*s.value("model.heads"));
    if (heads % l.tp != 0)
      f.fail(
          "--tensor-model-parallel-size",
          fmt::format("{} does not divide the {} attention heads (Megatron asserts)", l.tp, heads));
    if (const auto kv = s.value("model.kv_heads")) {
      const std::int64_t g = std::stoll(*kv);
      if (g % l.tp != 0 && l.tp % g != 0)
        f.fail(
            "--num-query-groups",
            fmt::format("{} query groups are neither a multiple nor a divisor of TP {}", g, l.tp));
    }
  }
  const bool sp = f.enabled("--sequence-parallel");
  if (sp && l.tp == 1)
    s.notes.push_back(fmt::format("{}: off with TP 1, as Megatron turns it off",
                                  f.source("--sequence-parallel")));
  else if (sp)
    s.set("parallel.tensor.sequence_parallel", "true", f.source("--sequence-parallel"));
  if (f.enabled("--tp-comm-overlap")) {
    if (!sp) f.fail("--tp-comm-overlap", "needs --sequence-parallel (Megatron asserts)");
    if (l.tp > 1) s.set("parallel.tensor.comm_overlap", "true", f.source("--tp-comm-overlap"));
  }
  if (l.cp > 1) {
    const std::int64_t seq = std::stoll(*s.value("model.seq_len"));
    if (seq % (2 * l.cp) != 0)
      f.fail("--context-parallel-size",
             fmt::format("sequence {} is not divisible by 2 x CP = {} (Megatron asserts)", seq,
                         2 * l.cp));
    s.set("parallel.context.size", str(l.cp), f.source("--context-parallel-size"));
    if (const FlagValue* type = f.get("--cp-comm-type"))
      for (const std::string& t : type->values)
        if (t != "p2p")
          Flags::fail(*type,
                      fmt::format("'{}' is not simulated: context parallelism is the p2p ring", t));
  }
}

}  // namespace

WorldSize torchrun_world_size(std::span<const std::string> words,
                              std::span<const SourceLocation> where) {
  std::optional<std::int64_t> per_node, nodes;
  std::string source;
  for (std::size_t i = 0; i < words.size(); ++i) {
    std::string flag = words[i];
    std::string value;
    if (const std::size_t eq = flag.find('='); eq != std::string::npos) {
      value = flag.substr(eq + 1);
      flag.resize(eq);
    } else if (i + 1 < words.size()) {
      value = words[i + 1];
    }
    const bool is_per_node = flag == "--nproc_per_node" || flag == "--nproc-per-node";
    if (!is_per_node && flag != "--nnodes") continue;
    const SourceLocation at = i < where.size() ? where[i] : SourceLocation{};
    std::int64_t v = 0;
    const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
    if (ec != std::errc() || end != value.data() + value.size() || v < 1 || v > kMaxGpus)
      throw ConfigError(at,
                        fmt::format("{} '{}': the importer needs a whole number of {} (an elastic "
                                    "range or 'gpu' is not a world size): give `--gpus N`",
                                    flag, value, is_per_node ? "GPUs per node" : "nodes"));
    (is_per_node ? per_node : nodes) = v;
    source += fmt::format("{}{} {}{}", source.empty() ? "" : ", ", flag, value, where_text(at));
  }
  if (!per_node) return {};
  return {*per_node * nodes.value_or(1), "torchrun " + source};
}

std::vector<FlagValue> split_megatron_arguments(std::span<const std::string> words,
                                                std::span<const SourceLocation> where) {
  std::vector<FlagValue> out;
  for (std::size_t i = 0; i < words.size(); ++i) {
    const std::string& w = words[i];
    const SourceLocation at = i < where.size() ? where[i] : SourceLocation{};
    if (w.starts_with("--") && w.size() > 2) {
      FlagValue f;
      const std::size_t eq = w.find('=');
      f.flag = w.substr(0, eq);
      if (eq != std::string::npos) f.values.push_back(w.substr(eq + 1));
      f.where = at;
      f.spelled = w;
      out.push_back(std::move(f));
      continue;
    }
    if (out.empty())
      throw ConfigError(at, fmt::format("'{}' comes before any flag: Megatron's arguments are "
                                        "--flag [value...] pairs",
                                        w));
    out.back().values.push_back(w);
    out.back().spelled += " " + w;
  }
  return out;
}

ImportedScenario scenario_from_megatron(std::span<const FlagValue> flags, const WorldSize& world,
                                        const ImportOptions& options, std::string origin) {
  ImportedScenario s;
  s.origin = std::move(origin);
  Flags f(flags);
  if (options.hardware.empty())
    throw ConfigError({},
                      "the hardware profile is not in Megatron's flags: give `--hardware NAME` "
                      "(a profile in hwprofiles/ or a path)");
  s.set("name", options.name.empty() ? "imported" : options.name,
        "--name (trainsim import option) or the input file's name");
  s.set("hardware", options.hardware, "--hardware (trainsim import option)");

  Layout l;
  if (options.gpus) {
    l.world = *options.gpus;
    l.world_source = "--gpus (trainsim import option)";
  } else if (world.gpus > 0) {
    l.world = world.gpus;
    l.world_source = world.source;
  } else {
    throw ConfigError({},
                      "the world size is not in Megatron's flags (torchrun sets WORLD_SIZE): give "
                      "`--gpus N`, or a launch script whose torchrun line has --nproc_per_node "
                      "and --nnodes");
  }
  l.tp = f.integer("--tensor-model-parallel-size", 1, kMaxGpus).value_or(1);
  l.pp = f.integer("--pipeline-model-parallel-size", 1, kMaxGpus).value_or(1);
  l.cp = f.integer("--context-parallel-size", 1, kMaxGpus).value_or(1);
  l.ep = f.integer("--expert-model-parallel-size", 1, kMaxGpus).value_or(1);
  if (l.world % (l.tp * l.pp * l.cp) != 0)
    throw ConfigError({},
                      fmt::format("{} GPUs ({}) are not divisible by TP {} x PP {} x CP {} = {} "
                                  "(Megatron asserts): give `--gpus N` with a multiple of {}",
                                  l.world, l.world_source, l.tp, l.pp, l.cp, l.tp * l.pp * l.cp,
                                  l.tp * l.pp * l.cp));
  l.dp = l.world / (l.tp * l.pp * l.cp);
  s.set("gpus", str(l.world), l.world_source);

  import_model(f, s, options, l);
  l.micro = required(f, "--micro-batch-size", kMaxBatch);
  const std::int64_t global =
      f.integer("--global-batch-size", 1, kMaxBatch).value_or(l.micro * l.dp);
  if (global % (l.micro * l.dp) != 0)
    f.fail("--global-batch-size", fmt::format("{} is not a multiple of micro batch {} x DP {} "
                                              "(Megatron asserts)",
                                              global, l.micro, l.dp));
  s.set("training.global_batch", str(global),
        f.has("--global-batch-size")
            ? f.source("--global-batch-size")
            : "no --global-batch-size: micro batch x DP (one micro batch)");
  s.set("training.micro_batch", str(l.micro), f.source("--micro-batch-size"));
  if (const auto clip = f.number("--clip-grad", 0, 1e12))
    s.set("training.clip_grad", *f.text("--clip-grad"), f.source("--clip-grad"));
  import_precision(f, s);
  import_tensor_context(f, s, l);
  import_pipeline(f, s, l);
  import_data(f, s, l);
  import_moe(f, s, l);
  import_recompute(f, s, l);

  for (const FlagValue* u : f.unused(flags)) {
    const std::string text = u->spelled + where_text(u->where);
    if (const auto it = not_modelled().find(u->flag); it != not_modelled().end())
      s.notes.push_back(fmt::format("{}: {}", text, it->second));
    else if (no_effect(u->flag))
      s.ignored.push_back(text);
    else
      s.unknown.push_back(text);
  }
  return s;
}

ImportedScenario scenario_from_launch_command(const LaunchCommand& command,
                                              const ImportOptions& options, std::string origin) {
  auto split = [](const std::vector<ShellWord>& words) {
    std::pair<std::vector<std::string>, std::vector<SourceLocation>> out;
    for (const ShellWord& w : words) {
      out.first.push_back(w.text);
      out.second.push_back(w.where);
    }
    return out;
  };
  const auto [words, where] = split(command.arguments);
  const auto [launcher, launcher_where] = split(command.launcher);
  ImportedScenario s = scenario_from_megatron(split_megatron_arguments(words, where),
                                              torchrun_world_size(launcher, launcher_where),
                                              options, std::move(origin));
  s.notes.insert(s.notes.end(), command.notes.begin(), command.notes.end());
  return s;
}

}  // namespace trainsim::inputs::import
