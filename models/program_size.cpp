#include "models/program_size.hpp"

#include <fmt/format.h>

#include <unistd.h>

#include <algorithm>
#include <fstream>

#include "models/errors.hpp"

namespace trainsim {
namespace {

// Limits that keep the exact integer byte counts (int64) from overflowing and the Program
// small enough to build in memory. Computed in double so the check itself cannot overflow.
constexpr double kMaxBytes = 0x1p62;
constexpr double kMaxRecordedOps = 5e7;
constexpr double kMaxProgramOps = 1e8;
// What a recorded op costs in memory with the replay's state (measured: the 3072-GPU row, 10.6
// M ops, peaks at 1.31 GB, ~124 B per op), with margin; and the share of the machine's memory
// the recorded ops may take, so that a run too large for it stops with this error, not an
// out-of-memory kill.
constexpr double kBytesPerRecordedOp = 160.0;
constexpr double kMemoryShareForOps = 0.5;
// Ops the executor records per layer and micro batch, with margin (measured: about 175 with
// SP and full recomputation, 225 with ZeRO-3's gathers and gradient buckets on top).
constexpr double kOpsPerLayerAndMicroBatch = 250.0;
// A 2D/2.5D grid records q broadcasts, GEMMs and reductions per SUMMA product, so its ops grow
// with the grid side (measured with full recomputation: 548, 772 and 1220 for q = 2, 4, 8).
constexpr double kGridOpsPerLayerAndMicroBatch = 350.0;
constexpr double kGridOpsPerSide = 125.0;
// A 3D cube records a fixed number of collectives per Linear3D whatever q (measured with
// full recomputation and ZeRO-3: 443).
constexpr double kCubeOpsPerLayerAndMicroBatch = 500.0;
// Context parallelism's ring adds, per CP rank in the ring, a send, a receive, a block kernel
// and its merge in the forward, and in the backward the block's three kernels and two sends and
// receives, each with its buffers' allocations and frees (with margin for recomputation).
constexpr double kOpsPerContextRank = 40.0;
// TP communication overlap's rings record, per TP rank and layer forward (and again with full
// recomputation), for the two column linears a ring step, a GEMM and a buffer each, for the
// two row linears also the partial sum's buffer, addition and free (about 22 ops per TP rank,
// with margin).
constexpr double kOpsPerRingRank = 30.0;

double ops_per_layer_and_micro_batch(const TensorParallel& tensor) {
  switch (tensor.kind) {
    case TensorKind::one_d:
      return kOpsPerLayerAndMicroBatch;
    case TensorKind::two_d:
    case TensorKind::two_and_half_d:
      return kGridOpsPerLayerAndMicroBatch +
             kGridOpsPerSide * static_cast<double>(tensor.grid_side());
    case TensorKind::three_d:
      return kCubeOpsPerLayerAndMicroBatch;
  }
  return kOpsPerLayerAndMicroBatch;
}

}  // namespace

double estimated_ops_per_gpu(const ModelSpec& model, const ParallelPlan& plan,
                             const TrainingSpec& training) {
  const double context = static_cast<double>(plan.context.size);
  const double ring = plan.tensor.comm_overlap
                          ? kOpsPerRingRank * static_cast<double>(plan.tensor.size) *
                                (plan.recompute == Recompute::full ? 2.0 : 1.0)
                          : 0.0;
  const double per_layer = ops_per_layer_and_micro_batch(plan.tensor) +
                           (plan.context.size > 1 ? kOpsPerContextRank * context : 0.0) + ring;
  const double micro_batches =
      static_cast<double>(training.global_batch) /
      (static_cast<double>(training.micro_batch) * static_cast<double>(plan.data.size));
  return static_cast<double>(model.layers) * micro_batches * per_layer;
}

double estimated_ops_per_stage(const ModelSpec& model, const ParallelPlan& plan,
                               const TrainingSpec& training) {
  const double stages = static_cast<double>(std::max<std::int64_t>(plan.pipeline.size, 1));
  if (!plan.pipeline.uneven()) return estimated_ops_per_gpu(model, plan, training) / stages;
  // Uneven stages: the heaviest one bounds every stage's op list.
  std::int64_t heaviest = 0;
  for (std::int64_t stage = 0; stage < plan.pipeline.size; ++stage)
    heaviest = std::max(heaviest, plan.pipeline.stage_layers(model.layers, stage));
  return estimated_ops_per_gpu(model, plan, training) * static_cast<double>(heaviest) /
         static_cast<double>(model.layers);
}

std::optional<std::string> size_limit_problem(const ModelSpec& model, const ParallelPlan& plan,
                                              const TrainingSpec& training) {
  const double t = static_cast<double>(plan.tensor.size);
  const double b = static_cast<double>(training.micro_batch);
  const double s =
      static_cast<double>(model.seq_len / std::max<std::int64_t>(plan.context.size, 1));
  const double h = static_cast<double>(model.hidden);
  const double a = static_cast<double>(model.heads);
  const double v = static_cast<double>(model.padded_vocab(plan.tensor.vocab_shards()));
  const double f = static_cast<double>(model.ffn);
  const double layers = static_cast<double>(model.layers);
  // 18 B per parameter of the model's own linears (GQA, SwiGLU, an untied output layer), in
  // doubles: absurd sizes must reach this guard without overflowing an integer count.
  const auto width = [](std::int64_t w) { return static_cast<double>(w); };
  const double per_layer = h * width(model.qkv_width()) + width(model.attention_width()) * h +
                           h * width(model.fc1_width()) + f * h;
  const double embeddings = v * h * (model.tied_embeddings ? 1.0 : 2.0);
  // A MoE layer's experts on this rank (E/EP of them, whole) and the rows they take: at most
  // every member's k copies of each of this rank's tokens.
  double expert_state = 0.0;
  double routed = 0.0;
  if (model.moe) {
    const MoeSpec& moe = *model.moe;
    const double ep = static_cast<double>(plan.expert.size);
    const double ffn = static_cast<double>(moe.expert_ffn);
    expert_state = 18.0 * static_cast<double>(moe.moe_layers(model.layers)) *
                   (static_cast<double>(moe.experts) / ep * 3.0 * h * ffn +
                    h * static_cast<double>(moe.experts));
    routed = 2.0 * b * s / t * static_cast<double>(moe.top_k) * ep * std::max(h, 2.0 * ffn);
  }
  const double state = 18.0 * (layers * per_layer + embeddings) / t + expert_state;
  // The unfused core's fp32 softmax of one layer; a flash kernel keeps no s² tensor.
  const double scores =
      model.attention == AttentionKind::flash ? 0.0 : 4.0 * b * (a / t) * s * s;
  const double logits = 4.0 * b * s * v / t;
  const double largest = std::max({state, scores, logits, routed});
  if (largest > kMaxBytes) {
    return std::string(fmt::format(
        "this model needs {:.3g} bytes in one buffer on one GPU (model state {:.3g}, attention "
        "scores {:.3g}, logits {:.3g}, routed rows {:.3g}); the limit is {:.3g} bytes",
        largest, state, scores, logits, routed, kMaxBytes));
  }
  const double micro_batches =
      static_cast<double>(training.global_batch) / (b * static_cast<double>(plan.data.size));
  const double ops = estimated_ops_per_gpu(model, plan, training);
  if (ops > kMaxRecordedOps) {
    return std::string(fmt::format(
        "one GPU's Program would hold about {:.3g} ops ({} layers x {:.0f} micro batches); the "
        "limit is {:.0e}: use fewer, larger micro batches",
        ops, model.layers, micro_batches, kMaxRecordedOps));
  }
  return std::nullopt;
}

void check_size_limits(const ModelSpec& model, const ParallelPlan& plan,
                       const TrainingSpec& training) {
  if (auto problem = size_limit_problem(model, plan, training))
    throw Infeasible(std::move(*problem));
}

namespace {
/// The memory this process may use in bytes: the machine's physical memory, or its control
/// group's limit where one is set (cgroup v2's memory.max: a container's, where an
/// out-of-memory kill comes from); 0 when the system says neither.
double memory_bytes() {
  const long pages = ::sysconf(_SC_PHYS_PAGES);
  const long page = ::sysconf(_SC_PAGE_SIZE);
  double memory =
      pages > 0 && page > 0 ? static_cast<double>(pages) * static_cast<double>(page) : 0.0;
  std::ifstream limit("/sys/fs/cgroup/memory.max");
  double cgroup = 0.0;
  if (limit >> cgroup && cgroup > 0.0) memory = memory > 0.0 ? std::min(memory, cgroup) : cgroup;
  return memory;
}
}  // namespace

double recorded_ops_limit() {
  const double memory = memory_bytes();
  if (memory <= 0.0) return kMaxProgramOps;
  return std::min(kMaxProgramOps, kMemoryShareForOps * memory / kBytesPerRecordedOp);
}

void check_recorded_size(const ModelSpec& model, const ParallelPlan& plan,
                         const TrainingSpec& training, std::int64_t recorded_gpus) {
  const double ops =
      estimated_ops_per_stage(model, plan, training) * static_cast<double>(recorded_gpus);
  const double limit = recorded_ops_limit();
  if (ops > limit) {
    throw TooLargeToRecord(fmt::format(
        "recording the Programs of {} GPUs would hold about {:.3g} ops (~{:.0f} GB); the limit "
        "is {:.3g} ops ({:.0e}, or what half of this machine's {:.0f} GB holds at {:.0f} B per "
        "op): without --full, simulate records one GPU per group of identical ones; fewer, "
        "larger micro batches record fewer ops",
        recorded_gpus, ops, ops * kBytesPerRecordedOp / 1e9, limit, kMaxProgramOps,
        memory_bytes() / 1e9, kBytesPerRecordedOp));
  }
}

}  // namespace trainsim
