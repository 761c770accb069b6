#include "sim/analysis/kernel_floor.hpp"

#include <array>
#include <vector>

#include "models/build_program.hpp"
#include "sim/compute_model.hpp"

namespace trainsim::sim {
namespace {

/// The seconds rank 0's compute stream is busy in `program` with nothing slowing it.
double compute_stream_seconds(const program::Program& program, const hw::HardwareProfile& hw,
                              GemmTimes& gemm_times) {
  std::int64_t ps = 0;  // in the replay's unit, so that the sum is the replay's, exactly
  for (const program::Op& op : program.ranks.front().ops) {
    if (op.stream != program::Stream::compute) continue;
    if (const auto* g = std::get_if<program::Gemm>(&op.payload)) {
      ps += gemm_times(*g).ps();
    } else if (const auto* k = std::get_if<program::Kernel>(&op.payload)) {
      ps += kernel_time(*k, hw, op.kernel_class).ps();
    }
  }
  return Time::from_ps(ps).seconds();
}

/// Rank 0's memory in `program` with its allocations and frees taken in issue order, each run
/// of them between two other ops as one instant (as a replay counts an instant's allocations
/// and frees together).
RunMemory issue_order_memory(const program::Program& program) {
  constexpr auto comm = static_cast<std::size_t>(program::MemoryCategory::comm_buffers);
  constexpr auto activations = static_cast<std::size_t>(program::MemoryCategory::activations);
  std::array<std::int64_t, program::kMemoryCategoryCount> live{};
  struct Buffer {
    std::int64_t bytes = 0;
    std::size_t category = 0;
  };
  std::vector<Buffer> buffers;  // by BufferId: the meta backend numbers them from 0
  std::int64_t total = 0;
  std::int64_t peak = 0;
  std::int64_t held = 0;
  double held_activations = 0;
  const auto commit = [&] {
    peak = std::max(peak, total);
    const std::int64_t outside = total - live[comm];
    if (outside > held) {
      held = outside;
      held_activations = static_cast<double>(live[activations]);
    }
  };
  bool pending = false;
  for (const program::Op& op : program.ranks.front().ops) {
    if (const auto* a = std::get_if<program::Alloc>(&op.payload)) {
      const auto id = static_cast<std::size_t>(a->buffer);
      if (id >= buffers.size()) buffers.resize(id + 1);
      buffers[id] = {a->size.count(), static_cast<std::size_t>(a->category)};
      live[buffers[id].category] += buffers[id].bytes;
      total += buffers[id].bytes;
      pending = true;
    } else if (const auto* f = std::get_if<program::Free>(&op.payload)) {
      const Buffer& b = buffers.at(static_cast<std::size_t>(f->buffer));
      live[b.category] -= b.bytes;
      total -= b.bytes;
      pending = true;
    } else if (pending) {
      commit();
      pending = false;
    }
  }
  if (pending) commit();
  return {static_cast<double>(peak), static_cast<double>(held), held_activations};
}

}  // namespace

KernelFloor::KernelFloor(const ModelSpec& model, const Layout& compute,
                         const hw::HardwareProfile& hardware) {
  GemmTimes gemm_times(hardware);
  std::array<double, 4> sums{};  // (l, m) = (1,1), (1,2), (2,1), (2,2)
  std::array<RunMemory, 4> memory{};
  for (std::size_t i = 0; i < sums.size(); ++i) {
    const program::Program program =
        reduced_program(model, compute, 1 + static_cast<std::int64_t>(i / 2),
                        1 + static_cast<std::int64_t>(i % 2), 0, ProgramScope::first_rank);
    sums[i] = compute_stream_seconds(program, hardware, gemm_times);
    memory[i] = issue_order_memory(program);
  }
  busy_s_ = Bilinear::fit(sums[0], sums[1], sums[2], sums[3]);
  memory_ = MemoryFit(model, compute, memory);
}

LayoutEstimate KernelFloor::floor(const ModelSpec& model, const Layout& layout,
                                  std::int64_t global_batch) const {
  const ParallelPlan& plan = layout.plan;
  const auto L = static_cast<double>(largest_stage_layers(model, plan));
  LayoutEstimate out;
  out.iteration = iteration_floor(plan, replica_micro_batches(layout, global_batch), L,
                                  busy_s_.a + busy_s_.b * L, busy_s_.c + busy_s_.e * L, busy_s_.e);
  out.peak = memory_.sharded_floor(model, layout, global_batch);
  return out;
}

}  // namespace trainsim::sim
