#include "reports/program_measures.hpp"

#include <fmt/format.h>

#include <stdexcept>
#include <unordered_map>
#include <variant>

namespace trainsim::reports {

Bytes live_before_backward(const program::RankProgram& rank, program::MemoryCategory category) {
  using namespace program;
  std::unordered_map<BufferId, Bytes> live;
  for (const Op& op : rank.ops) {
    if (op.tag.phase == Phase::backward || op.tag.phase == Phase::recompute) break;
    if (const auto* a = std::get_if<Alloc>(&op.payload)) {
      if (a->category == category) live[a->buffer] = a->size;
    } else if (const auto* f = std::get_if<Free>(&op.payload)) {
      live.erase(f->buffer);
    }
  }
  Bytes total = Bytes::zero();
  for (const auto& entry : live)
    total += entry.second;
  return total;
}

namespace {
struct Span {
  Time begin = Time::max();
  Time end = Time::zero();
  bool empty() const { return begin == Time::max(); }
  Time length() const { return empty() ? Time::zero() : end - begin; }
  void add(const sim::OpTiming& t) {
    if (t.end == Time::max()) return;  // never ran: a host sync passed over (no host model)
    if (t.start < begin) begin = t.start;
    if (t.end > end) end = t.end;
  }
};
}  // namespace

LayerTimes layer_times(const program::RankProgram& rank, const sim::RankTimeline& timeline,
                       std::int32_t layer, std::int32_t micro_batch) {
  using program::Phase;
  Span forward;
  Span backward;
  for (std::size_t i = 0; i < rank.ops.size(); ++i) {
    const program::Op& op = rank.ops[i];
    if (op.tag.layer != layer || op.tag.micro_batch != micro_batch || op.is_memory_event()) {
      continue;
    }
    if (op.tag.phase == Phase::forward) forward.add(timeline.ops[i]);
    if (op.tag.phase == Phase::backward || op.tag.phase == Phase::recompute) {
      backward.add(timeline.ops[i]);
    }
  }
  if (forward.empty() || backward.empty()) {
    throw std::invalid_argument(
        fmt::format("GPU {} has no forward and backward ops of layer {} in micro batch {}",
                    rank.rank, layer, micro_batch));
  }
  return {forward.length(), backward.length()};
}

Time forward_backward_time(const program::Program& program, const sim::SimulationResult& result) {
  Time longest = Time::zero();
  for (std::size_t r = 0; r < program.ranks.size(); ++r) {
    const program::RankProgram& rank = program.ranks[r];
    const sim::RankTimeline& timeline = result.timelines[r];
    Span passes;
    for (std::size_t i = 0; i < rank.ops.size(); ++i) {
      const program::Op& op = rank.ops[i];
      if (op.tag.phase == program::Phase::optimizer || op.is_memory_event()) continue;
      passes.add(timeline.ops[i]);
    }
    if (passes.length() > longest) longest = passes.length();
  }
  return longest;
}

}  // namespace trainsim::reports
