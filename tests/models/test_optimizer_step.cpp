// The optimizer step as Megatron runs it (issue 16, item 4): on meta, the op sequence after the
// backward pass (fp16 unscale and overflow check, gradient norm, clipping, Adam, the loss read),
// each kernel's bytes, the model group's all-reduces and the host's syncs, and the host
// synchronisation after each batched pipeline call; on cpu, that the norm, the clipping and the
// unscaling compute what one device computes, with clipping that triggers and that does not.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <variant>
#include <vector>

#include "equivalence_asserts.hpp"
#include "models/build_program.hpp"
#include "models/cpu_backend.hpp"
#include "models/cpu_communicator.hpp"
#include "models/equivalence_check.hpp"
#include "models/transformer.hpp"
#include "models/pipeline_schedule.hpp"
#include "models/train_step.hpp"

using namespace trainsim;
using namespace trainsim::program;

namespace {

// Weights N(0, 0.1) (norm gains around 1), fixed seed, copied into the fp32 masters (Adam then
// keeps weights and masters equal).
void randomize_weights(TransformerModel& model, OptimizerState& optimizer) {
  std::normal_distribution<double> normal(0.0, 0.1);
  std::mt19937_64 init(9);
  for (std::size_t i = 0; i < model.parameters().size(); ++i) {
    const Parameter& p = model.parameters()[i];
    for (double& x : CpuBackend::values(p.value))
      x = normal(init) + (p.name.ends_with("gamma") ? 1.0 : 0.0);
    const std::span<double> v = CpuBackend::values(p.value);
    std::copy(v.begin(), v.end(), CpuBackend::values(optimizer.tensors[i].master).begin());
  }
}

ModelSpec small_model(DType dtype = DType::bf16) {
  ModelSpec m = test::model_spec(2, 64, 4, 256, 16, 128);
  m.dtype = dtype;
  return m;
}

ParallelPlan plan(std::int64_t tp, std::int64_t dp, int zero = 0) {
  ParallelPlan p;
  p.tensor.size = tp;
  p.data.size = dp;
  p.data.zero = zero;
  return p;
}

std::string_view name_of(const Program& p, const Op& op) {
  return p.names.name(op.name);
}

// Elements of the parameters 1D replicates over TP (counted in the norm by TP rank 0 only):
// per layer two LayerNorms and the two row-parallel biases, the position table, the final
// LayerNorm.
std::int64_t replicated_elements(const ModelSpec& m) {
  return m.layers * 6 * m.hidden + m.seq_len * m.hidden + 2 * m.hidden;
}

// Elements of rank `rank`'s parameters (its fp32 gradients, allocated persistently with ZeRO 0).
std::int64_t local_elements(const Program& p, Rank rank) {
  for (const RankProgram& r : p.ranks) {
    if (r.rank != rank) continue;
    std::int64_t bytes = 0;
    for (const Op& op : r.ops) {
      const auto* a = std::get_if<Alloc>(&op.payload);
      if (a != nullptr && a->category == MemoryCategory::gradients) bytes += a->size.count();
    }
    return bytes / 4;
  }
  FAIL("no rank " << rank);
  return 0;
}

const RankProgram& rank_program(const Program& p, Rank rank) {
  for (const RankProgram& r : p.ranks) {
    if (r.rank == rank) return r;
  }
  throw std::out_of_range("no such rank");
}

// The ops after the last backward-phase op (memory events left out), with their indices.
std::vector<OpIndex> step_ops(const RankProgram& r) {
  OpIndex last_backward = -1;
  for (std::size_t i = 0; i < r.ops.size(); ++i) {
    if (r.ops[i].tag.phase == Phase::backward) last_backward = static_cast<OpIndex>(i);
  }
  std::vector<OpIndex> out;
  for (std::size_t i = static_cast<std::size_t>(last_backward + 1); i < r.ops.size(); ++i) {
    if (!r.ops[i].is_memory_event()) out.push_back(static_cast<OpIndex>(i));
  }
  return out;
}

bool depends_on(const RankProgram& r, OpIndex op, OpIndex on) {
  const auto deps = r.deps(r.ops[static_cast<std::size_t>(op)]);
  return std::find(deps.begin(), deps.end(), on) != deps.end();
}

// The ops named `name` of a rank, in order.
std::vector<OpIndex> named(const Program& p, const RankProgram& r, std::string_view name) {
  std::vector<OpIndex> out;
  for (std::size_t i = 0; i < r.ops.size(); ++i) {
    if (name_of(p, r.ops[i]) == name && !r.ops[i].is_memory_event())
      out.push_back(static_cast<OpIndex>(i));
  }
  return out;
}

// Sums the kernels named `name` of `r`: (read, written).
std::pair<std::int64_t, std::int64_t> kernel_bytes(const Program& p, const RankProgram& r,
                                                   std::string_view name) {
  std::int64_t read = 0;
  std::int64_t written = 0;
  for (const OpIndex i : named(p, r, name)) {
    const Op& op = r.ops[static_cast<std::size_t>(i)];
    const auto& k = std::get<Kernel>(op.payload);
    CHECK(op.stream == Stream::compute);
    CHECK(op.kernel_class == KernelClass::optimizer);
    read += k.read.count();
    written += k.written.count();
  }
  return {read, written};
}

// Checks one scalar all-reduce of the model group, then the host's read of it: returns the
// all-reduce's index.
OpIndex check_scalar_reduction(const Program& p, const RankProgram& r,
                               const std::vector<OpIndex>& ops, std::size_t& at,
                               std::string_view name, SyncPoint point,
                               const std::vector<Rank>& group) {
  REQUIRE(at + 1 < ops.size());
  const OpIndex reduce = ops[at++];
  const Op& c = r.ops[static_cast<std::size_t>(reduce)];
  CHECK(name_of(p, c) == std::string(name) + ".all_reduce");
  const auto& coll = std::get<Collective>(c.payload);
  CHECK(coll.kind == CollectiveKind::all_reduce);
  CHECK(coll.size == Bytes::of(4));
  CHECK(coll.dtype == DType::fp32);
  CHECK(c.stream == Stream::dp);
  const Group& g = p.groups[static_cast<std::size_t>(coll.group)];
  CHECK(g.kind == GroupKind::optimizer);
  CHECK(g.ranks == group);
  CHECK(depends_on(r, reduce, ops[at - 2]));  // the kernel that wrote the scalar
  const OpIndex read = ops[at++];
  const Op& h = r.ops[static_cast<std::size_t>(read)];
  CHECK(name_of(p, h) == std::string(name) + ".item");
  CHECK(h.stream == Stream::host);
  CHECK(std::get<HostSync>(h.payload).point == point);
  CHECK_FALSE(std::get<HostSync>(h.payload).device);
  const auto deps = r.deps(h);
  CHECK(std::vector<OpIndex>(deps.begin(), deps.end()) == std::vector<OpIndex>{reduce});
  return reduce;
}

}  // namespace

TEST_CASE("meta: the optimizer step as Megatron runs it, bf16 and fp16 (TP 2 x DP 2)") {
  for (const DType dtype : {DType::bf16, DType::fp16}) {
    CAPTURE(to_string(dtype));
    const ModelSpec m = small_model(dtype);
    const Program p =
        build_program(m, plan(2, 2), test::training_spec(4, 1), ProgramScope::every_rank);
    for (const Rank rank : {0, 1, 3}) {
      CAPTURE(rank);
      const RankProgram& r = rank_program(p, rank);
      const std::int64_t n = local_elements(p, rank);
      // TP rank 0 counts the parameters 1D replicates, the others do not (Megatron's
      // param_is_not_tensor_parallel_duplicate).
      const std::int64_t counted = rank % 2 == 0 ? n : n - replicated_elements(m);
      const std::vector<Rank> tp_group{rank / 2 * 2, rank / 2 * 2 + 1};
      const std::vector<OpIndex> ops = step_ops(r);
      std::size_t at = 0;
      if (dtype == DType::fp16) {
        // _amp_foreach_non_finite_check_and_unscale_: reads and writes every fp32 gradient.
        REQUIRE(name_of(p, r.ops[static_cast<std::size_t>(ops[at])]) == "optimizer.unscale");
        ++at;
        CHECK(kernel_bytes(p, r, "optimizer.unscale") == std::pair{4 * n, 4 * n + 4});
        check_scalar_reduction(p, r, ops, at, "optimizer.found_inf", SyncPoint::found_inf,
                               tp_group);
      }
      REQUIRE(name_of(p, r.ops[static_cast<std::size_t>(ops[at])]) == "optimizer.grad_norm");
      ++at;
      CHECK(kernel_bytes(p, r, "optimizer.grad_norm") == std::pair{4 * counted, std::int64_t{4}});
      const OpIndex norm = check_scalar_reduction(p, r, ops, at, "optimizer.grad_norm",
                                                  SyncPoint::grad_norm, tp_group);
      // The clipping scales every gradient this rank holds (the meta backend cannot know the
      // norm: it records the scale, as the early iterations papers time clip) and waits for
      // the norm's all-reduce.
      REQUIRE(name_of(p, r.ops[static_cast<std::size_t>(ops[at])]) == "optimizer.clip");
      CHECK(depends_on(r, ops[at], norm));
      ++at;
      CHECK(kernel_bytes(p, r, "optimizer.clip") == std::pair{4 * n, 4 * n});
      // Adam: read p, g, m, v, write p, m, v (28 B); the copy to the model dtype (fp32 read,
      // 2-byte write), Megatron's _copy_main_params_to_model_params.
      CHECK(kernel_bytes(p, r, "optimizer.adam") == std::pair{16 * n, 12 * n});
      CHECK(kernel_bytes(p, r, "optimizer.adam.copy_to_model") == std::pair{4 * n, 2 * n});
      // Then the loss, read by the training loop: the iteration's last op.
      const Op& last = r.ops[static_cast<std::size_t>(ops.back())];
      CHECK(name_of(p, last) == "loss.item");
      CHECK(std::get<HostSync>(last.payload).point == SyncPoint::loss);
      std::size_t syncs = 0;
      for (const OpIndex i : ops)
        syncs += std::holds_alternative<HostSync>(r.ops[static_cast<std::size_t>(i)].payload);
      CHECK(syncs == (dtype == DType::fp16 ? 3u : 2u));
      // Gradients are zeroed at the start of the iteration: 4 B each, written only.
      const auto zero = named(p, r, "grads.zero");
      REQUIRE(zero.size() == 1);
      CHECK(std::get<Kernel>(r.ops[static_cast<std::size_t>(zero[0])].payload).written ==
            Bytes::of(4 * n));
    }
  }
}

TEST_CASE("meta: with sharded gradients the norm is summed over the shards of every rank") {
  // The distributed optimizer (ZeRO 1) and ZeRO 2, 3: each rank reads the counted parts of its
  // shards; the model group is the world (Megatron's distributed optimizer).
  const ModelSpec m = small_model();
  const std::int64_t tp = 2;
  const std::int64_t dp = 4;
  const Program replicated =
      build_program(m, plan(tp, 1), test::training_spec(dp, 1), ProgramScope::every_rank);
  const std::int64_t n = local_elements(replicated, 0);
  REQUIRE(local_elements(replicated, 1) == n);
  std::vector<Rank> world(static_cast<std::size_t>(tp * dp));
  for (std::size_t i = 0; i < world.size(); ++i)
    world[i] = static_cast<Rank>(i);
  for (const int zero : {1, 2, 3}) {
    CAPTURE(zero);
    const Program p =
        build_program(m, plan(tp, dp, zero), test::training_spec(dp, 1), ProgramScope::every_rank);
    for (std::int64_t t = 0; t < tp; ++t) {
      std::int64_t norm_read = 0;
      std::int64_t clipped = 0;
      for (std::int64_t d = 0; d < dp; ++d) {
        const RankProgram& r = rank_program(p, static_cast<Rank>(t + tp * d));
        norm_read += kernel_bytes(p, r, "optimizer.grad_norm").first;
        clipped += kernel_bytes(p, r, "optimizer.clip").first;
        const std::vector<OpIndex> reduce = named(p, r, "optimizer.grad_norm.all_reduce");
        REQUIRE(reduce.size() == 1);
        const auto& coll = std::get<Collective>(r.ops[static_cast<std::size_t>(reduce[0])].payload);
        CHECK(p.groups[static_cast<std::size_t>(coll.group)].ranks == world);
      }
      // Over the DP group the shards cover the TP rank's parameters once (padding left out).
      CHECK(norm_read == 4 * (t == 0 ? n : n - replicated_elements(m)));
      CHECK(clipped == 4 * n);
    }
  }
}

TEST_CASE("meta: a pipeline counts the tied word embedding on the first stage only") {
  const ModelSpec m = small_model();
  ParallelPlan pl = plan(1, 1);
  pl.pipeline.size = 2;
  const Program p = build_program(m, pl, test::training_spec(4, 1), ProgramScope::representative);
  REQUIRE(p.ranks.size() == 2);
  for (const RankProgram& r : p.ranks) {
    CAPTURE(r.rank);
    const std::int64_t n = local_elements(p, r.rank);
    const std::int64_t word = m.vocab * m.hidden;
    CHECK(kernel_bytes(p, r, "optimizer.grad_norm").first == 4 * (r.rank == 0 ? n : n - word));
    CHECK(kernel_bytes(p, r, "optimizer.clip").first == 4 * n);
    const std::vector<OpIndex> reduce = named(p, r, "optimizer.grad_norm.all_reduce");
    REQUIRE(reduce.size() == 1);
    const auto& coll = std::get<Collective>(r.ops[static_cast<std::size_t>(reduce[0])].payload);
    // The model-parallel group spans the stages.
    CHECK(p.groups[static_cast<std::size_t>(coll.group)].ranks == std::vector<Rank>{0, 1});
    // Only the last stage has a loss to read.
    CHECK(named(p, r, "loss.item").size() == (r.rank == 1 ? 1u : 0u));
  }
}

TEST_CASE("meta: batched pipelines synchronize the host after every p2p call, asynchronous not") {
  const ModelSpec m = test::model_spec(4, 64, 4, 256, 16, 128);
  struct Case {
    PipelineSchedule schedule;
    std::int64_t chunks;
  };
  for (const std::int64_t tp : {1, 2}) {  // TP 2: Megatron's scatter/gather
    for (const Case c :
         {Case{PipelineSchedule::gpipe, 1}, Case{PipelineSchedule::one_f_one_b, 1},
          Case{PipelineSchedule::interleaved, 2}, Case{PipelineSchedule::breadth_first, 2},
          Case{PipelineSchedule::layered, 2}}) {
      CAPTURE(tp);
      CAPTURE(to_string(c.schedule));
      ParallelPlan pl = plan(tp, 1);
      pl.pipeline = {2, c.schedule, c.chunks};
      const TrainingSpec training = test::training_spec(4, 1);
      const Program p = build_program(m, pl, training, ProgramScope::representative);
      const bool batched = transfer_order(c.schedule) == TransferOrder::batched;
      for (const RankProgram& r : p.ranks) {
        CAPTURE(r.rank);
        // Megatron's calls: the maximal runs of transfers between two passes.
        const std::int64_t stage = r.rank / tp;
        const std::vector<PipelineStep> steps = pipeline_steps(pipeline_shape(pl, training), stage);
        std::size_t calls = 0;
        for (std::size_t i = 0; i < steps.size(); ++i) {
          const auto pass = [](const PipelineStep& s) {
            return s.kind == PipelineStep::Kind::forward || s.kind == PipelineStep::Kind::backward;
          };
          if (!pass(steps[i]) && (i + 1 == steps.size() || pass(steps[i + 1]))) ++calls;
        }
        REQUIRE(calls > 0);
        std::size_t syncs = 0;
        std::size_t gathers = 0;
        OpIndex last_transfer = -1;
        OpIndex last_recv = -1;
        OpIndex last_compute = -1;
        OpIndex last_sync = -1;
        for (std::size_t i = 0; i < r.ops.size(); ++i) {
          const Op& op = r.ops[i];
          const auto at = static_cast<OpIndex>(i);
          if (std::holds_alternative<Recv>(op.payload)) last_recv = at;
          if (std::holds_alternative<Send>(op.payload) || std::holds_alternative<Recv>(op.payload))
            last_transfer = at;
          if (op.is_compute()) last_compute = at;
          const std::string_view name = name_of(p, op);
          if (name.starts_with("pp.recv") && name.ends_with(".all_gather")) {
            ++gathers;
            // Megatron's _communicate gathers the pieces after its synchronize.
            if (batched) CHECK(last_sync > last_recv);
          }
          const auto* h = std::get_if<HostSync>(&op.payload);
          if (h == nullptr || h->point != SyncPoint::p2p) continue;
          ++syncs;
          last_sync = at;
          // torch.cuda.synchronize(): the whole device, right after the call's transfers.
          CHECK(h->device);
          CHECK(op.stream == Stream::host);
          CHECK(r.deps(op).empty());
          CHECK(last_transfer > last_compute);
        }
        CHECK(syncs == (batched ? calls : 0u));
        CHECK((gathers > 0) == (tp > 1));
      }
    }
  }
}

TEST_CASE("meta: without clipping and loss scaling the step is Adam alone, with no model group") {
  const ModelSpec m = small_model();
  TrainingSpec unclipped = test::training_spec(4, 1);
  unclipped.clip_grad = 0.0;
  const Program p = build_program(m, plan(2, 2), unclipped, ProgramScope::representative);
  for (const Group& g : p.groups)
    CHECK(g.kind != GroupKind::optimizer);
  const RankProgram& r = p.ranks[0];
  std::vector<std::string> step;
  for (const OpIndex i : step_ops(r))
    step.emplace_back(name_of(p, r.ops[static_cast<std::size_t>(i)]));
  CHECK(step ==
        std::vector<std::string>{"optimizer.adam", "optimizer.adam.copy_to_model", "loss.item"});
  // fp16 still unscales and checks, over the TP group.
  const Program fp16 =
      build_program(small_model(DType::fp16), plan(2, 2), unclipped, ProgramScope::representative);
  std::vector<std::string> scaled;
  for (const OpIndex i : step_ops(fp16.ranks[0]))
    scaled.emplace_back(name_of(fp16, fp16.ranks[0].ops[static_cast<std::size_t>(i)]));
  CHECK(scaled == std::vector<std::string>{"optimizer.unscale", "optimizer.found_inf.all_reduce",
                                           "optimizer.found_inf.item", "optimizer.adam",
                                           "optimizer.adam.copy_to_model", "loss.item"});
}

TEST_CASE(
    "cpu: clipping scales every gradient by clip_grad / (norm + 1e-6), fp16 unscales exactly") {
  ModelSpec m = test::model_spec(2, 16, 4, 64, 8, 20);
  const std::int64_t b = 2;
  std::mt19937_64 rng(11);
  MicroBatchTokens batch;
  for (std::int64_t i = 0; i < m.seq_len * b; ++i) {
    batch.tokens.push_back(static_cast<std::int64_t>(rng() % 20));
    batch.labels.push_back(static_cast<std::int64_t>(rng() % 20));
  }
  struct Step {
    std::vector<std::vector<double>> grads;
    std::optional<double> norm;
    bool skipped = false;
  };
  const auto step = [&](DType dtype, double clip) {
    m.dtype = dtype;
    CpuCommunicator comm;
    CpuBackend cpu(comm, 0, {0}, {0}, {batch}, 0);
    TransformerModel model(cpu, TransformerShape::of(m, m.vocab, b, 0.0, 0.0), {0, 1});
    OptimizerState optimizer = make_optimizer_state(cpu, model);
    randomize_weights(model, optimizer);
    CHECK(optimizer.grad_scaler.has_value() == (dtype == DType::fp16));
    IterationConfig config;
    config.global_tokens = m.seq_len * b;
    config.clip_grad = clip;
    run_iteration(cpu, model, optimizer, config);
    Step s;
    for (const Parameter& p : model.parameters()) {
      const std::span<double> g = CpuBackend::values(p.grad);
      s.grads.emplace_back(g.begin(), g.end());
    }
    s.norm = optimizer.grad_norm;
    s.skipped = optimizer.skipped;
    return s;
  };
  const Step free = step(DType::bf16, 1e9);
  REQUIRE(free.norm.has_value());
  double squares = 0.0;
  for (const auto& g : free.grads) {
    for (const double x : g)
      squares += x * x;
  }
  CHECK(*free.norm == doctest::Approx(std::sqrt(squares)).epsilon(1e-14));
  const double max_norm = 0.25 * *free.norm;
  const Step clipped = step(DType::bf16, max_norm);
  REQUIRE(clipped.norm.has_value());
  CHECK(*clipped.norm == *free.norm);  // the norm before clipping
  const double coefficient = max_norm / (*free.norm + 1e-6);
  for (std::size_t i = 0; i < free.grads.size(); ++i) {
    for (std::size_t k = 0; k < free.grads[i].size(); ++k)
      CHECK(clipped.grads[i][k] == doctest::Approx(coefficient * free.grads[i][k]).epsilon(1e-14));
  }
  // fp16: the backward starts from the loss times 2^32, the step multiplies by 2^-32; powers
  // of two are exact in fp64, so the gradients are bitwise those of the unscaled run.
  const Step scaled = step(DType::fp16, 1e9);
  CHECK_FALSE(scaled.skipped);
  CHECK(scaled.grads == free.grads);
  CHECK(scaled.norm == free.norm);
}

TEST_CASE("cpu: the gradient norm and its clipping equal one device's for every partitioning") {
  // Each plan twice: a max norm far below the norm (every gradient clipped) and far above it
  // (none); both must equal one device, whose norm every rank must have summed exactly once
  // (TP duplicates, the tied embedding's second copy, the ZeRO shards).
  std::mt19937_64 rng(20240901);
  struct Case {
    const char* what;
    ParallelPlan plan;
    std::int64_t micro_batch;
    DType dtype = DType::bf16;
  };
  const auto one_d = [](std::int64_t tp, bool sp, std::int64_t dp, int zero) {
    ParallelPlan p = plan(tp, dp, zero);
    p.tensor.sequence_parallel = sp;
    return p;
  };
  const auto grid = [](TensorKind kind, std::int64_t size, std::int64_t depth, std::int64_t dp,
                       int zero) {
    ParallelPlan p = plan(size, dp, zero);
    p.tensor.kind = kind;
    p.tensor.depth = depth;
    p.tensor.grid_order = default_grid_order(kind);
    return p;
  };
  const auto piped = [](ParallelPlan p, PipelineSchedule schedule, std::int64_t chunks) {
    p.pipeline = {2, schedule, chunks};
    return p;
  };
  std::vector<Case> cases{
      {"1d tp 2", one_d(2, false, 1, 0), 1},
      {"1d tp 2 sp", one_d(2, true, 1, 0), 1},
      {"1d tp 2 sp fp16", one_d(2, true, 1, 0), 1, DType::fp16},
      {"2d q 2", grid(TensorKind::two_d, 4, 1, 1, 0), 2},
      {"2.5d q 2 d 2", grid(TensorKind::two_and_half_d, 8, 2, 1, 0), 4},
      {"3d q 2", grid(TensorKind::three_d, 8, 1, 1, 0), 4},
      {"1f1b tp 2", piped(one_d(2, false, 1, 0), PipelineSchedule::one_f_one_b, 1), 1},
      {"interleaved tp 2 sp fp16", piped(one_d(2, true, 1, 0), PipelineSchedule::interleaved, 2), 1,
       DType::fp16},
      {"2d 1f1b", piped(grid(TensorKind::two_d, 4, 1, 1, 0), PipelineSchedule::one_f_one_b, 1), 2},
  };
  for (const int zero : {0, 1, 2, 3}) {
    cases.push_back({"1d tp 2 dp 2", one_d(2, zero % 2 == 1, 2, zero), 1});
    cases.push_back(
        {"1f1b tp 2 dp 2", piped(one_d(2, false, 2, zero), PipelineSchedule::one_f_one_b, 1), 1});
  }
  cases.push_back({"2.5d q 2 d 2 zero 1", grid(TensorKind::two_and_half_d, 8, 2, 1, 1), 4});
  cases.push_back({"3d q 2 dp 2 zero 2", grid(TensorKind::three_d, 8, 1, 2, 2), 4});
  cases.push_back(
      {"3d q 2 dp 2 zero 3 fp16", grid(TensorKind::three_d, 8, 1, 2, 3), 4, DType::fp16});
  for (const Case& c : cases) {
    CAPTURE(c.what);
    CAPTURE(c.plan.data.zero);
    ModelSpec m = test::model_spec(c.plan.pipeline.size * c.plan.pipeline.chunks, 16, 4, 64, 8, 16);
    m.dtype = c.dtype;
    std::optional<double> norm;
    for (const double clip : {1e-6, 1e6}) {
      CAPTURE(clip);
      TrainingSpec training =
          test::training_spec(2 * c.micro_batch * c.plan.data.size, c.micro_batch);
      training.clip_grad = clip;
      const std::uint64_t seed = rng();
      const EquivalenceReport r = check_against_single_device(m, c.plan, training, seed);
      test::check_matches_single_device(r, c.plan.gpus(), m.layers);
      REQUIRE(r.grad_norm_single.has_value());
      CAPTURE(*r.grad_norm_single);
      CHECK(r.grad_norm_error < 1e-13);
      CHECK(r.clipped == (clip < 1.0));
      CHECK(*r.grad_norm_single > 1e-3);
      CHECK(*r.grad_norm_single < 1e3);
      norm = r.grad_norm_single;
    }
    CHECK(norm.has_value());
  }
}

TEST_CASE("cpu: FP8 weight copies are cast again each step (two steps equal bf16's)") {
  // The cpu backend's FP8 casts are exact, so FP8 and bf16 runs agree step for step, but only
  // if the second step's FP8 weight copies come from the weights the first step's Adam wrote.
  ModelSpec m = test::model_spec(2, 16, 4, 64, 8, 20);
  const std::int64_t b = 2;
  std::mt19937_64 rng(12);
  MicroBatchTokens batch;
  for (std::int64_t i = 0; i < m.seq_len * b; ++i) {
    batch.tokens.push_back(static_cast<std::int64_t>(rng() % 20));
    batch.labels.push_back(static_cast<std::int64_t>(rng() % 20));
  }
  const auto losses = [&](std::optional<Fp8Recipe> fp8) {
    CpuCommunicator comm;
    CpuBackend cpu(comm, 0, {0}, {0}, {batch, batch}, 0);
    TransformerOptions options;
    options.fp8 = fp8;
    TransformerModel model(cpu, TransformerShape::of(m, m.vocab, b, 0.0, 0.0), {0, 1}, options);
    OptimizerState optimizer = make_optimizer_state(cpu, model);
    randomize_weights(model, optimizer);
    IterationConfig config;
    config.global_tokens = m.seq_len * b;
    config.adam.lr = 1e-2;
    std::vector<double> out;
    for (int step = 0; step < 2; ++step) {
      const Tensor loss = run_iteration(cpu, model, optimizer, config);
      out.push_back(CpuBackend::values(loss)[0]);
    }
    return out;
  };
  const std::vector<double> bf16 = losses(std::nullopt);
  const std::vector<double> fp8 = losses(Fp8Recipe::delayed);
  REQUIRE(bf16.size() == 2);
  CHECK(bf16[1] != doctest::Approx(bf16[0]).epsilon(1e-6));  // the step changed the weights
  CHECK(fp8[0] == doctest::Approx(bf16[0]).epsilon(1e-13));
  CHECK(fp8[1] == doctest::Approx(bf16[1]).epsilon(1e-13));
}
