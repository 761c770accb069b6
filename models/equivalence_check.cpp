#include "models/equivalence_check.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <exception>
#include <limits>
#include <map>
#include <random>
#include <stdexcept>
#include <thread>
#include <utility>

#include "models/build_program.hpp"
#include "models/cpu_backend.hpp"
#include "models/errors.hpp"
#include "models/rank_layout.hpp"
#include "models/train_step.hpp"
#include "models/transformer.hpp"

namespace trainsim {

namespace {

using Values = std::vector<double>;

// Megatron draws TP-region dropout masks per TP rank: a partitioned run cannot match one
// device with dropout on (parallelism-reference §13), so the check runs without dropout.
TransformerShape numeric_shape(const ModelSpec& model, std::int64_t vocab, std::int64_t micro_batch) {
  return TransformerShape::of(model, vocab, micro_batch, 0.0, 0.0);
}

bool ends_with(const std::string& s, std::string_view suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// Weights small and random, LayerNorm gains near 1: every path carries signal.
std::vector<Values> random_parameters(std::span<const Parameter> params, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> normal(0.0, 1.0);
  std::vector<Values> out;
  for (const Parameter& p : params) {
    Values v(static_cast<std::size_t>(p.full_shape.numel()));
    const bool gamma = ends_with(p.name, ".gamma");
    const double scale = gamma || ends_with(p.name, ".beta") ? 0.1 : 0.05;
    for (double& x : v)
      x = (gamma ? 1.0 : 0.0) + scale * normal(rng);
    out.push_back(std::move(v));
  }
  return out;
}

// Rows [r0, r0 + nr) x columns [c0, c0 + nc) of a row-major matrix with `cols` columns.
Values block(const Values& full, std::int64_t cols, std::int64_t r0, std::int64_t nr,
             std::int64_t c0, std::int64_t nc) {
  Values out;
  for (std::int64_t r = r0; r < r0 + nr; ++r) {
    const auto begin = full.begin() + static_cast<std::ptrdiff_t>(r * cols + c0);
    out.insert(out.end(), begin, begin + static_cast<std::ptrdiff_t>(nc));
  }
  return out;
}

// This rank's part of a full tensor: its TP rank's, or for routed experts its expert-parallel
// rank's block of whole experts.
Values slice(const Values& full, const Parameter& p, const TensorParallelPosition& tp,
             const ExpertParallelPosition& ep) {
  const std::int64_t rows = p.full_shape.batch * p.full_shape.rows;
  const std::int64_t cols = p.full_shape.cols;
  Values out;
  const Split split = tp.cube ? p.split : split_for(p.split, p.full_shape, tp.cell.has_value());
  if (split == Split::replicated) return full;
  if (split == Split::experts) {
    const auto n = static_cast<std::ptrdiff_t>(full.size()) / ep.size;
    return {full.begin() + ep.rank * n, full.begin() + (ep.rank + 1) * n};
  }
  if (tp.cube) {
    // Row chunk (a·q + i) of q² and column block b (cube_blocks: a = k, b = j; swapped:
    // a = j, b = k), or all rows of column block k (cube_columns) or j (swapped).
    const std::int64_t q = tp.side();
    const CubeCell c = *tp.cube;
    const bool swapped =
        split == Split::cube_blocks_swapped || split == Split::cube_columns_swapped;
    if (split == Split::cube_columns || split == Split::cube_columns_swapped) {
      const std::int64_t column_block = swapped ? c.j : c.k;
      return block(full, cols, 0, rows, column_block * cols / q, cols / q);
    }
    const std::int64_t row_axis = swapped ? c.j : c.k;
    const std::int64_t column_block = swapped ? c.k : c.j;
    const std::int64_t chunk = rows / (q * q);
    return block(full, cols, (row_axis * q + c.i) * chunk, chunk, column_block * cols / q,
                 cols / q);
  }
  if (split == Split::blocks || split == Split::column_chunks) {
    const std::int64_t q = tp.side();
    const GridCell c = *tp.cell;
    if (split == Split::blocks)
      return block(full, cols, c.row * rows / q, rows / q, c.column * cols / q, cols / q);
    // Flat chunk i of column block j.
    const Values column = block(full, cols, 0, rows, c.column * cols / q, cols / q);
    const auto n = static_cast<std::ptrdiff_t>(column.size()) / q;
    return {column.begin() + c.row * n, column.begin() + (c.row + 1) * n};
  }
  if (split == Split::gated_columns) {
    // Block r of each half: [gate block r | up block r].
    const std::int64_t half = cols / 2;
    const std::int64_t c = half / tp.size;
    for (std::int64_t r = 0; r < rows; ++r) {
      for (const std::int64_t first : {tp.rank * c, half + tp.rank * c}) {
        const auto begin = full.begin() + static_cast<std::ptrdiff_t>(r * cols + first);
        out.insert(out.end(), begin, begin + static_cast<std::ptrdiff_t>(c));
      }
    }
    return out;
  }
  if (split == Split::rows) {
    const std::int64_t n = rows / tp.size * cols;
    const auto begin = full.begin() + static_cast<std::ptrdiff_t>(tp.rank * n);
    return {begin, begin + static_cast<std::ptrdiff_t>(n)};
  }
  const std::int64_t c = cols / tp.size;
  for (std::int64_t r = 0; r < rows; ++r) {
    const auto begin = full.begin() + static_cast<std::ptrdiff_t>(r * cols + tp.rank * c);
    out.insert(out.end(), begin, begin + static_cast<std::ptrdiff_t>(c));
  }
  return out;
}

struct TokenData {
  std::vector<std::vector<std::int64_t>> tokens;  // [sequence][position]
  std::vector<std::vector<std::int64_t>> labels;
};

TokenData random_tokens(std::int64_t sequences, std::int64_t seq_len, std::int64_t vocab,
                        std::uint64_t seed) {
  std::mt19937_64 rng(seed ^ 0x9e3779b97f4a7c15ULL);
  std::uniform_int_distribution<std::int64_t> id(0, vocab - 1);
  TokenData d;
  for (std::int64_t i = 0; i < sequences; ++i) {
    auto& t = d.tokens.emplace_back();
    auto& l = d.labels.emplace_back();
    for (std::int64_t p = 0; p < seq_len; ++p) {
      t.push_back(id(rng));
      l.push_back(id(rng));
    }
  }
  return d;
}

// Sequences [first, first + count) in [s, b] row order; with context parallelism the
// positions of CP rank `context.rank` (its two chunks, AttentionShape::position).
MicroBatchTokens micro_batch(const TokenData& d, std::int64_t first, std::int64_t count,
                             const ContextParallelPosition& context = {}) {
  MicroBatchTokens mb;
  const auto seq_len = static_cast<std::int64_t>(d.tokens.front().size());
  AttentionShape split;
  split.seq_len = seq_len / context.size;
  split.context_size = context.size;
  split.context_rank = context.rank;
  for (std::int64_t local = 0; local < split.seq_len; ++local) {
    const std::int64_t p = split.position(local);
    for (std::int64_t j = 0; j < count; ++j) {
      const auto seq = static_cast<std::size_t>(first + j);
      mb.tokens.push_back(d.tokens[seq][static_cast<std::size_t>(p)]);
      mb.labels.push_back(d.labels[seq][static_cast<std::size_t>(p)]);
    }
  }
  return mb;
}

// Sequences [first, first + count) of a micro batch split into `blocks` batch blocks as a
// 2D or 3D rank reads them: every token, block after block (the embedding reduce-scatters
// along these blocks), each in [s, b/blocks] order; labels of block `label_block` only (2D:
// row i of q blocks; 3D: i·q + k of q², batch block i, sub-block k as the logits hold it).
MicroBatchTokens blocked_micro_batch(const TokenData& d, std::int64_t first, std::int64_t count,
                                     std::int64_t blocks, std::int64_t label_block) {
  const std::int64_t per_block = count / blocks;
  MicroBatchTokens mb;
  for (std::int64_t i = 0; i < blocks; ++i) {
    MicroBatchTokens part = micro_batch(d, first + i * per_block, per_block);
    mb.tokens.insert(mb.tokens.end(), part.tokens.begin(), part.tokens.end());
    if (i == label_block) mb.labels = std::move(part.labels);
  }
  return mb;
}

// A rank's TP position as the model sees it (2D: its cell on its depth layer's grid).
TensorParallelPosition position_of(const RankLayout& layout, std::int64_t rank) {
  if (layout.cube()) {
    return {layout.coordinates(rank).tp, layout.tp_size(), {}, layout.cube_cell(rank)};
  }
  if (!layout.grid()) return {layout.coordinates(rank).tp, layout.tp_size(), {}};
  const std::int64_t q = layout.grid()->side();
  const GridCell cell = layout.cell(rank);
  return {cell.row * q + cell.column, q * q, cell};
}

void load(const Tensor& t, const Values& v) {
  std::copy(v.begin(), v.end(), CpuBackend::values(t).begin());
}

Values read(const Tensor& t) {
  const std::span<double> s = CpuBackend::values(t);
  return {s.begin(), s.end()};
}

// The cpu backend as a partitioned run's rank.
class CpuRankBackend final : public RankBackend {
 public:
  CpuRankBackend(CpuCommunicator& comm, RankBackendSetup setup)
      : cpu_(comm, setup.rank, std::move(setup.tp_group), std::move(setup.dp_group),
             std::move(setup.batches), static_cast<std::uint64_t>(setup.rank)) {
    for (auto& [group, ranks] : setup.groups)
      cpu_.bind(group, std::move(ranks));
  }
  Backend& backend() override { return cpu_; }
  void load(const Tensor& t, std::span<const double> values) override {
    std::copy(values.begin(), values.end(), CpuBackend::values(t).begin());
  }
  std::vector<double> read(const Tensor& t) override {
    const std::span<double> s = CpuBackend::values(t);
    return {s.begin(), s.end()};
  }

 private:
  CpuBackend cpu_;
};

struct RankResult {
  double loss = 0.0;
  std::optional<double> grad_norm;  // before clipping, as the host read it
  std::vector<std::string> names;   // of this rank's parameters (a pipeline stage holds some)
  std::vector<Split> splits;        // of this rank's parameters (the 3D ones differ from 1D's)
  std::vector<Values> grads;
  std::vector<Values> values;
};

struct RankSetup {
  RankBackendSetup backend;  // groups: grid, cube and embedding groups
  TensorParallelPosition tp;
  ModelPart part{};             // pipeline: this stage's layers, embedding, head
  PipelinePosition pipeline{};  // pipeline: stage and neighbours
  ContextParallelPosition context{};
  ExpertParallelPosition expert{};
  OptimizerLayout optimizer{};  // without the bucket size, which run_training chooses
};

// This rank's chunk [offset, offset + chunk) of a bucket's concatenated parameters.
Values chunk_of(const std::vector<Values>& per_parameter, const GradientBucket& bucket,
                const AdamShard& shard) {
  Values flat;
  for (std::size_t i : bucket.parameters)
    flat.insert(flat.end(), per_parameter[i].begin(), per_parameter[i].end());
  Values chunk(static_cast<std::size_t>(shard.master.numel()), 0.0);  // zero padding
  for (std::size_t k = 0; k < chunk.size(); ++k) {
    const auto at = static_cast<std::size_t>(shard.offset) + k;
    if (at < flat.size()) chunk[k] = flat[at];
  }
  return chunk;
}

// The inverse: a bucket's chunk written into the per-parameter arrays (other entries kept).
void place_chunk(const Values& chunk, const GradientBucket& bucket, const AdamShard& shard,
                 std::vector<Values>& per_parameter) {
  std::size_t at = 0;
  const auto begin = static_cast<std::size_t>(shard.offset);
  for (std::size_t i : bucket.parameters) {
    for (double& x : per_parameter[i]) {
      if (at >= begin && at - begin < chunk.size()) x = chunk[at - begin];
      ++at;
    }
  }
}

// Arrays shaped like the parameters, all NaN: not held by this rank.
std::vector<Values> unknown_like(std::span<const Parameter> params) {
  std::vector<Values> out;
  for (const Parameter& p : params) {
    out.emplace_back(static_cast<std::size_t>(p.shape.numel()),
                     std::numeric_limits<double>::quiet_NaN());
  }
  return out;
}

// The full values of each parameter by name (a pipeline stage holds a subset of them).
using FullValues = std::map<std::string, Values, std::less<>>;

// One training iteration of a loaded rank; fills `r`'s loss, gradients and values.
RankResult run_training(RankBackend& rank, TransformerModel& model, const IterationConfig& config,
                        OptimizerLayout layout, std::int64_t numel,
                        const std::vector<Values>& initial, RankResult r);

RankResult run_rank(RankBackend& rank, const RankSetup& setup, const TransformerShape& shape,
                    const FullValues& full, IterationConfig config, TransformerOptions options) {
  Backend& cpu = rank.backend();
  shard_model_state(options, setup.optimizer.zero);
  options.part = setup.part;
  options.context = setup.context;
  options.expert = setup.expert;
  config.pipeline = setup.pipeline;
  TransformerModel model(cpu, shape, setup.tp, options);
  const std::span<Parameter> params = model.parameters();
  std::int64_t numel = 0;
  std::vector<Values> initial;
  for (std::size_t i = 0; i < params.size(); ++i) {
    numel += params[i].shape.numel();
    initial.push_back(slice(full.at(params[i].name), params[i], setup.tp, setup.expert));
  }
  if (options.forward_only) {
    // Inference: the loss is all there is to compare.
    for (std::size_t i = 0; i < params.size(); ++i)
      rank.load(params[i].value, initial[i]);
    RankResult r;
    // Only the last pipeline stage computes a loss.
    const Tensor loss = run_inference(cpu, model, config);
    r.loss = loss.defined() ? rank.read(loss)[0] : 0.0;
    return r;
  }
  RankResult r;
  for (const Parameter& p : params)
    r.names.push_back(p.name);
  return run_training(rank, model, config, setup.optimizer, numel, initial, std::move(r));
}

RankResult run_training(RankBackend& rank, TransformerModel& model, const IterationConfig& config,
                        OptimizerLayout layout, std::int64_t numel,
                        const std::vector<Values>& initial, RankResult r) {
  const int zero = layout.zero;
  Backend& cpu = rank.backend();
  const auto load = [&rank](const Tensor& t, const Values& v) { rank.load(t, v); };
  const auto read = [&rank](const Tensor& t) { return rank.read(t); };
  const std::span<Parameter> params = model.parameters();
  // Several buckets even for tiny models, so that the bucketing path is exercised.
  layout.bucket_size = std::max<std::int64_t>(1, numel / 3);
  OptimizerState optimizer = make_optimizer_state(cpu, model, layout);
  // fp16: 2^12 instead of Megatron's initial 2^32, so that one step's fp16 gradients on a GPU
  // (the cuda check) do not overflow, which Megatron's first steps do until the scale falls;
  // any power of two is exact in fp64.
  if (optimizer.grad_scaler) optimizer.grad_scaler->scale = 4096.0;
  for (std::size_t i = 0; i < params.size(); ++i) {
    if (zero < 3) load(params[i].value, initial[i]);
    if (zero == 0) load(optimizer.tensors[i].master, initial[i]);
  }
  // ZeRO: the master (and ZeRO-3 parameter) shard is this rank's chunk of the bucket.
  // --overlap-param-gather: a rank starts the step as the previous step left it, with only its
  // own chunk current (the rest NaN here), so the step's gather must bring the others in
  // before the forward pass reads them.
  const bool stale = gathers_parameters_ahead(config, zero);
  std::vector<Values> own = unknown_like(params);
  for (std::size_t b = 0; b < optimizer.shards.size(); ++b) {
    const AdamShard& shard = optimizer.shards[b];
    const Values chunk = chunk_of(initial, optimizer.buckets[b], shard);
    load(shard.master, chunk);
    if (zero >= 3) load(shard.param, chunk);
    if (stale) place_chunk(chunk, optimizer.buckets[b], shard, own);
  }
  for (std::size_t i = 0; i < params.size() && stale; ++i)
    load(params[i].value, own[i]);
  const Tensor loss = run_iteration(cpu, model, optimizer, config);
  gather_updated_parameters(cpu, model, optimizer, config);
  if (optimizer.skipped) {
    throw std::runtime_error("equivalence check: the step found inf or NaN gradients");
  }
  // Only the last pipeline stage computes a loss.
  r.loss = loss.defined() ? read(loss)[0] : 0.0;
  r.grad_norm = optimizer.grad_norm;
  for (const Parameter& p : params)
    r.splits.push_back(p.split);
  if (zero == 0) {
    for (const Parameter& p : params)
      r.grads.push_back(read(p.grad));
  } else {
    // Only this rank's chunk of each bucket's gradient is reduced: the rest is not compared.
    std::vector<Values> full_grads;
    if (zero == 1) {
      for (const Parameter& p : params)
        full_grads.push_back(read(p.grad));
    }
    r.grads = unknown_like(params);
    for (std::size_t b = 0; b < optimizer.shards.size(); ++b) {
      const AdamShard& shard = optimizer.shards[b];
      const Values chunk =
          zero == 1 ? chunk_of(full_grads, optimizer.buckets[b], shard) : read(shard.grad);
      place_chunk(chunk, optimizer.buckets[b], shard, r.grads);
    }
  }
  if (zero < 3) {
    for (const Parameter& p : params)
      r.values.push_back(read(p.value));
  } else {
    r.values = unknown_like(params);
    for (std::size_t b = 0; b < optimizer.shards.size(); ++b) {
      const AdamShard& shard = optimizer.shards[b];
      place_chunk(read(shard.param), optimizer.buckets[b], shard, r.values);
    }
  }
  return r;
}

// NaN entries of `got` are not compared (gradient chunks another ZeRO rank owns).
double max_abs_difference(const Values& got, const Values& want) {
  double diff = 0.0;
  for (std::size_t i = 0; i < want.size(); ++i) {
    if (!std::isnan(got[i])) diff = std::max(diff, std::abs(got[i] - want[i]));
  }
  return diff;
}

// max |got − want| over the entries `want` holds (not NaN); infinite where `got` is NaN there
// (a backend's NaN must not pass as "not held").
double nan_aware_difference(const Values& got, const Values& want) {
  double diff = 0.0;
  for (std::size_t i = 0; i < want.size(); ++i) {
    if (std::isnan(want[i])) continue;
    if (std::isnan(got[i])) return std::numeric_limits<double>::infinity();
    diff = std::max(diff, std::abs(got[i] - want[i]));
  }
  return diff;
}

double max_abs(const Values& v) {
  double m = 0.0;
  for (const double x : v)
    m = std::max(m, std::abs(x));
  return m;
}

// Marks the entries of `got` that are compared (not NaN) in `seen`.
void mark_compared(const Values& got, std::vector<bool>& seen) {
  seen.resize(got.size(), false);
  for (std::size_t k = 0; k < got.size(); ++k) {
    if (!std::isnan(got[k])) seen[k] = true;
  }
}

// Parameter names and full shapes of the model, in registration order.
std::vector<Parameter> parameter_list(const TransformerShape& shape) {
  CpuCommunicator comm;
  CpuBackend cpu(comm, 0, {0}, {0}, {}, 0);
  TransformerModel model(cpu, shape, {0, 1});
  return {model.parameters().begin(), model.parameters().end()};
}

// What the single-device and the partitioned runs share: layout, tokens, initial weights.
struct RunInputs {
  RankLayout layout;
  std::int64_t vocab = 0;
  TokenData data;
  IterationConfig base;
  std::vector<Parameter> blueprint;
  FullValues full;
};

RunInputs prepare(const ModelSpec& model, const ParallelPlan& plan, const TrainingSpec& training,
                  std::uint64_t seed) {
  check_supported(model, plan, training);
  if (model.moe && model.moe->capacity_factor && plan.tensor.size * plan.context.size > 1) {
    // Megatron's capacity counts the tokens a rank routes: a sequence shard here.
    throw Infeasible(
        "model.moe.capacity_factor: with tensor or context parallelism each rank routes its "
        "sequence shard and drops by its own capacity, as Megatron-Core does, while one device "
        "routes whole micro batches: their drops differ, so the check cannot compare them (drop "
        "the capacity factor, or use tensor.size and context.size 1)");
  }
  RunInputs in{RankLayout(plan),
               model.padded_vocab(plan.tensor.vocab_shards()),
               random_tokens(training.global_batch, model.seq_len, model.vocab, seed),
               {},
               {},
               {}};
  in.base.global_tokens = training.global_batch * model.seq_len;
  in.base.clip_grad = training.inference() ? 0.0 : training.clip_grad;
  in.base.adam.lr = 1e-3;
  in.base.adam.weight_decay = 0.01;
  in.blueprint = parameter_list(numeric_shape(model, in.vocab, 1));
  std::vector<Values> values = random_parameters(in.blueprint, seed);
  for (std::size_t i = 0; i < in.blueprint.size(); ++i)
    in.full.emplace(in.blueprint[i].name, std::move(values[i]));
  return in;
}

// TP x PP x DP ranks as threads, each on a backend `make_rank` creates inside its thread; with
// `only`, that rank alone (its peers run in other processes), the others' results left empty.
std::vector<RankResult> run_partitioned(const ModelSpec& model, const ParallelPlan& plan,
                                        const TrainingSpec& training, const RunInputs& in,
                                        const RankBackendFactory& make_rank,
                                        std::optional<std::int64_t> only = std::nullopt) {
  const RankLayout& layout = in.layout;
  const TokenData& data = in.data;
  const std::int64_t d = layout.dp_size();
  const std::int64_t world = layout.world_size();
  const std::int64_t per_replica = training.global_batch / d;
  IterationConfig config = iteration_config(model, plan, training);
  config.adam = in.base.adam;
  TransformerOptions options{plan.tensor.sequence_parallel, plan.recompute};
  options.forward_only = training.inference();
  options.fp8 = training.fp8;
  options.tp_comm_overlap = plan.tensor.comm_overlap;
  const std::int64_t depth = layout.grid() ? layout.grid()->depth() : 1;
  const std::int64_t grid_batch = training.micro_batch / depth;  // per depth layer
  const TransformerShape shape = numeric_shape(model, in.vocab, grid_batch);
  std::vector<RankResult> results(static_cast<std::size_t>(world));
  std::vector<std::exception_ptr> errors(static_cast<std::size_t>(world));
  {
    std::vector<std::jthread> threads;
    for (std::int64_t rank = 0; rank < world; ++rank) {
      if (only && rank != *only) continue;
      const RankCoordinates c = layout.coordinates(rank);
      RankSetup setup{{rank, layout.tp_group(rank), layout.gradient_group(rank), {}, {}},
                      position_of(layout, rank)};
      setup.context = context_position(layout, rank);
      auto& groups = setup.backend.groups;
      if (layout.grid()) {
        groups.emplace_back(CommGroup::row, layout.row_group(rank));
        groups.emplace_back(CommGroup::column, layout.column_group(rank));
      }
      if (layout.cube()) {
        for (const CommGroup g : {CommGroup::input, CommGroup::weight, CommGroup::output,
                                  CommGroup::input_weight, CommGroup::output_weight})
          groups.emplace_back(g, layout.cube_group(rank, g));
      }
      const bool pipelined = scheduled_passes(plan);
      if (pipelined) {
        setup.part = model_part(model, plan, c.pp);
        setup.pipeline = pipeline_position(layout, plan, training, rank);
        setup.backend.previous = setup.pipeline.previous;
        setup.backend.next = setup.pipeline.next;
        const std::vector<std::int64_t> stages = layout.pp_group(rank);
        if (layout.pp_size() > 1 && (setup.part.embedding || setup.part.head))
          groups.emplace_back(CommGroup::embedding,
                              std::vector<std::int64_t>{stages.front(), stages.back()});
      }
      if (config.model_parallel > 1) {
        groups.emplace_back(CommGroup::model,
                            layout.model_group(rank, norm_over_every_rank(model, plan)));
      }
      if (model.moe) {
        groups.emplace_back(CommGroup::expert, layout.expert_group(rank));
        groups.emplace_back(CommGroup::expert_data, layout.expert_data_group(rank));
        setup.expert = expert_position(layout, rank);
      }
      setup.optimizer = optimizer_layout_of(model, plan, layout, rank);
      std::vector<MicroBatchTokens>& batches = setup.backend.batches;
      for (std::int64_t mb = 0; mb < config.micro_batches; ++mb) {
        const std::int64_t first = c.dp * per_replica + mb * training.micro_batch;
        if (layout.grid()) {
          const GridCell cell = layout.cell(rank);
          batches.push_back(blocked_micro_batch(data, first + cell.depth * grid_batch, grid_batch,
                                                layout.grid()->side(), cell.row));
        } else if (layout.cube()) {
          const std::int64_t q = layout.cube()->side();
          const CubeCell cell = layout.cube_cell(rank);
          batches.push_back(
              blocked_micro_batch(data, first, training.micro_batch, q * q, cell.i * q + cell.k));
        } else {
          batches.push_back(micro_batch(data, first, training.micro_batch, setup.context));
        }
        // A pipeline's first stage reads the tokens, its last the labels.
        if (pipelined && !setup.part.embedding) batches.back().tokens.clear();
        if (pipelined && !setup.part.head) batches.back().labels.clear();
      }
      threads.emplace_back([&, rank, setup = std::move(setup)]() mutable {
        try {
          const std::unique_ptr<RankBackend> backend = make_rank(setup.backend);
          results[static_cast<std::size_t>(rank)] =
              run_rank(*backend, setup, shape, in.full, config, options);
        } catch (...) {
          errors[static_cast<std::size_t>(rank)] = std::current_exception();
        }
      });
    }
  }
  for (const std::exception_ptr& e : errors) {
    if (e) std::rethrow_exception(e);
  }
  return results;
}

// Ranks on the cpu backend, sharing one in-process communicator.
RankBackendFactory cpu_ranks(CpuCommunicator& comm) {
  return [&comm](RankBackendSetup setup) -> std::unique_ptr<RankBackend> {
    return std::make_unique<CpuRankBackend>(comm, std::move(setup));
  };
}

}  // namespace

EquivalenceReport check_against_single_device(const ModelSpec& model, const ParallelPlan& plan,
                                              const TrainingSpec& training, std::uint64_t seed) {
  const RunInputs in = prepare(model, plan, training, seed);
  const RankLayout& layout = in.layout;
  const std::vector<Parameter>& blueprint = in.blueprint;
  const std::int64_t global = training.global_batch;

  // One device: the whole global batch as one micro batch; with a capacity factor, whose
  // drops depend on the tokens routed together, in micro batches of the partitioned run's
  // size (each DP rank's micro batch is one of them).
  const bool capacity = model.moe && model.moe->capacity_factor;
  const std::int64_t batch = capacity ? training.micro_batch : global;
  IterationConfig base = in.base;
  base.micro_batches = global / batch;
  std::vector<MicroBatchTokens> batches;
  for (std::int64_t first = 0; first < global; first += batch)
    batches.push_back(micro_batch(in.data, first, batch));
  CpuCommunicator single_comm;
  CpuRankBackend single_rank(single_comm, {0, {0}, {0}, {}, std::move(batches)});
  RankSetup one_device{{}, {0, 1, {}}};
  one_device.optimizer.experts = model.moe.has_value();
  const RankResult single =
      run_rank(single_rank, one_device, numeric_shape(model, in.vocab, batch), in.full, base, {});

  CpuCommunicator comm;
  const std::vector<RankResult> results =
      run_partitioned(model, plan, training, in, cpu_ranks(comm));
  const std::int64_t world = layout.world_size();

  EquivalenceReport report;
  report.ranks = world;
  report.loss_single = single.loss;
  // Every rank of a 1D TP group, of a grid row, or of a cube's input group (3D: the logits'
  // vocabulary blocks) holds the same loss: count one of each.
  for (std::int64_t rank = 0; rank < world; ++rank) {
    bool first = layout.coordinates(rank).tp == 0;
    if (layout.grid()) first = layout.cell(rank).column == 0;
    if (layout.cube()) first = layout.cube_cell(rank).j == 0;
    if (first) report.loss_partitioned += results[static_cast<std::size_t>(rank)].loss;
  }
  report.loss_error = std::abs(report.loss_partitioned - report.loss_single) /
                      std::max(std::abs(report.loss_single), 1e-300);
  report.max_error = report.loss_error;
  // Inference compares the loss alone (no gradients, no Adam step).
  for (std::size_t i = 0; i < blueprint.size() && !training.inference(); ++i) {
    ParameterError e;
    e.name = blueprint[i].name;
    // Per TP position (2D: grid cell; routed experts: expert-parallel rank), the entries some
    // rank of the gradient group compared (ZeRO shards split them over DP, with 2.5D over
    // depth x DP, experts over their expert-data group).
    const bool experts = blueprint[i].split == Split::experts;
    const auto positions =
        static_cast<std::size_t>(experts ? layout.ep_size() : position_of(layout, 0).size);
    std::vector<std::vector<bool>> grad_seen(positions);
    std::vector<std::vector<bool>> value_seen(positions);
    for (std::int64_t rank = 0; rank < world; ++rank) {
      const TensorParallelPosition tp = position_of(layout, rank);
      const ExpertParallelPosition ep = expert_position(layout, rank);
      const auto slot = static_cast<std::size_t>(experts ? ep.rank : tp.rank);
      const RankResult& r = results[static_cast<std::size_t>(rank)];
      // A pipeline stage holds some parameters: compare those it holds, by name.
      const auto held = std::find(r.names.begin(), r.names.end(), blueprint[i].name);
      if (held == r.names.end()) continue;
      const auto j = static_cast<std::size_t>(held - r.names.begin());
      Parameter shard = blueprint[i];
      shard.split = r.splits[j];
      e.gradient_abs = std::max(
          e.gradient_abs, max_abs_difference(r.grads[j], slice(single.grads[i], shard, tp, ep)));
      e.value_abs = std::max(
          e.value_abs, max_abs_difference(r.values[j], slice(single.values[i], shard, tp, ep)));
      mark_compared(r.grads[j], grad_seen[slot]);
      mark_compared(r.values[j], value_seen[slot]);
    }
    for (std::size_t p = 0; p < grad_seen.size(); ++p) {
      report.uncompared += std::count(grad_seen[p].begin(), grad_seen[p].end(), false) +
                           std::count(value_seen[p].begin(), value_seen[p].end(), false);
    }
    // Relative to the whole tensor: a shard can hold only entries whose true gradient is 0
    // (the key bias: softmax ignores a constant shift), where a shard-relative error is noise.
    const double grad_scale = max_abs(single.grads[i]);
    const double value_scale = max_abs(single.values[i]);
    e.gradient = grad_scale > 0.0 ? e.gradient_abs / grad_scale : e.gradient_abs;
    e.value = value_scale > 0.0 ? e.value_abs / value_scale : e.value_abs;
    report.max_gradient_abs_error = std::max(report.max_gradient_abs_error, e.gradient_abs);
    report.max_value_abs_error = std::max(report.max_value_abs_error, e.value_abs);
    report.max_gradient_error = std::max(report.max_gradient_error, e.gradient);
    report.max_value_error = std::max(report.max_value_error, e.value);
    report.parameters.push_back(std::move(e));
  }
  // Every rank all-reduced the same norm, which must be one device's.
  report.grad_norm_single = single.grad_norm;
  if (single.grad_norm) {
    report.clipped = *single.grad_norm > training.clip_grad;
    for (const RankResult& r : results) {
      report.grad_norm_error =
          r.grad_norm ? std::max(report.grad_norm_error,
                                 std::abs(*r.grad_norm - *single.grad_norm) / *single.grad_norm)
                      : std::numeric_limits<double>::infinity();
    }
  }
  report.max_error = std::max({report.max_error, report.max_gradient_error, report.max_value_error,
                               report.grad_norm_error});
  report.passed = report.max_error < report.tolerance && report.uncompared == 0;
  return report;
}

BackendComparison compare_with_cpu(const ModelSpec& model, const ParallelPlan& plan,
                                   const TrainingSpec& training, std::uint64_t seed,
                                   const RankBackendFactory& make_rank,
                                   std::optional<std::int64_t> only_rank) {
  const RunInputs in = prepare(model, plan, training, seed);
  const std::int64_t world = in.layout.world_size();
  if (only_rank && (*only_rank < 0 || *only_rank >= world)) {
    throw std::invalid_argument(
        fmt::format("compare_with_cpu: rank {} is outside the plan's {} ranks", *only_rank, world));
  }
  // The cpu ranks talk to each other in memory: all of them run here, even for one rank.
  CpuCommunicator comm;
  const std::vector<RankResult> cpu = run_partitioned(model, plan, training, in, cpu_ranks(comm));
  const std::vector<RankResult> other =
      run_partitioned(model, plan, training, in, make_rank, only_rank);
  const auto compared = [&](std::size_t r) {
    return !only_rank || static_cast<std::int64_t>(r) == *only_rank;
  };
  BackendComparison c;
  c.ranks = world;
  c.rank = only_rank.value_or(-1);
  for (std::size_t r = 0; r < cpu.size(); ++r) {
    if (!compared(r)) continue;
    c.loss_cpu += cpu[r].loss;  // ranks without a loss hold 0 on both
    c.loss_other += other[r].loss;
  }
  // Every rank of a TP group holds the loss: the sums count each the same number of times.
  c.loss_error = std::abs(c.loss_other - c.loss_cpu) / std::max(std::abs(c.loss_cpu), 1e-300);
  c.max_error = c.loss_error;
  for (const Parameter& p : in.blueprint) {
    if (training.inference()) break;
    ParameterError e;
    e.name = p.name;
    double grad_scale = 0.0;
    double value_scale = 0.0;
    for (std::size_t r = 0; r < cpu.size(); ++r) {
      const auto held = std::find(cpu[r].names.begin(), cpu[r].names.end(), p.name);
      if (!compared(r) || held == cpu[r].names.end()) continue;
      const auto j = static_cast<std::size_t>(held - cpu[r].names.begin());
      grad_scale = std::max(grad_scale, max_abs(cpu[r].grads[j]));
      value_scale = std::max(value_scale, max_abs(cpu[r].values[j]));
      e.gradient_abs =
          std::max(e.gradient_abs, nan_aware_difference(other[r].grads[j], cpu[r].grads[j]));
      e.value_abs =
          std::max(e.value_abs, nan_aware_difference(other[r].values[j], cpu[r].values[j]));
    }
    e.gradient = grad_scale > 0.0 ? e.gradient_abs / grad_scale : e.gradient_abs;
    e.value = value_scale > 0.0 ? e.value_abs / value_scale : e.value_abs;
    c.max_error = std::max({c.max_error, e.gradient, e.value});
    c.parameters.push_back(std::move(e));
  }
  return c;
}

GradientCheckReport check_gradients_finite_difference(const ModelSpec& model,
                                                      const TrainingSpec& training,
                                                      std::uint64_t seed,
                                                      std::int64_t samples_per_tensor,
                                                      double epsilon) {
  ParallelPlan plan;
  check_supported(model, plan, training);
  const std::int64_t vocab = model.padded_vocab(1);
  const std::int64_t global = training.global_batch;
  const TokenData data = random_tokens(global, model.seq_len, model.vocab, seed);
  const TransformerShape shape = numeric_shape(model, vocab, training.micro_batch);

  IterationConfig config;
  config.micro_batches = training.micro_batches_per_replica(1);
  config.global_tokens = global * model.seq_len;
  config.optimizer_step = false;

  std::vector<MicroBatchTokens> batches;
  for (std::int64_t mb = 0; mb < config.micro_batches; ++mb) {
    batches.push_back(micro_batch(data, mb * training.micro_batch, training.micro_batch));
  }
  CpuCommunicator comm;
  CpuBackend cpu(comm, 0, {0}, {0}, batches, 0);
  TransformerModel gpt(cpu, shape, {0, 1});
  OptimizerState optimizer = make_optimizer_state(cpu, gpt);
  const std::span<Parameter> params = gpt.parameters();
  const std::vector<Values> init = random_parameters(params, seed);
  for (std::size_t i = 0; i < params.size(); ++i)
    load(params[i].value, init[i]);

  const auto loss = [&] {
    const Tensor l = run_iteration(cpu, gpt, optimizer, config);
    return CpuBackend::values(l)[0];
  };
  loss();
  std::vector<Values> analytic;
  for (const Parameter& p : params)
    analytic.push_back(read(p.grad));

  GradientCheckReport report;
  std::mt19937_64 rng(seed + 1);
  for (std::size_t i = 0; i < params.size(); ++i) {
    const std::span<double> v = CpuBackend::values(params[i].value);
    std::uniform_int_distribution<std::size_t> pick(0, v.size() - 1);
    for (std::int64_t sample = 0; sample < samples_per_tensor; ++sample) {
      const std::size_t k = pick(rng);
      const double x = v[k];
      v[k] = x + epsilon;
      const double plus = loss();
      v[k] = x - epsilon;
      const double minus = loss();
      v[k] = x;
      const double fd = (plus - minus) / (2.0 * epsilon);
      const double an = analytic[i][k];
      // The floor keeps entries whose gradient is ~0 from dividing rounding noise by ~0.
      const double err = std::abs(fd - an) / std::max({std::abs(fd), std::abs(an), 1e-4});
      ++report.samples;
      if (err >= report.max_relative_error) {
        report.max_relative_error = err;
        report.worst = params[i].name + "[" + std::to_string(k) + "]";
      }
    }
  }
  return report;
}

}  // namespace trainsim
