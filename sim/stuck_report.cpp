#include "sim/stuck_report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <variant>

namespace trainsim::sim {

namespace {

using program::GroupId;
using program::OpIndex;
using program::Rank;

std::string group_label(const program::Program& program, GroupId g) {
  return fmt::format("{} group {}",
                     program::to_string(program.groups[static_cast<std::size_t>(g)].kind), g);
}

}  // namespace

void report_stuck(const program::Program& program, const ProgramIndex& index,
                  const CommLauncher& comm, std::int32_t r,
                  const std::array<std::int32_t, program::kStreamCount>& heads,
                  std::span<const OpTiming> timing, program::OpIndex host_waiting,
                  std::vector<StuckOp>& out) {
  const IndexedRank& ir = index.ranks[static_cast<std::size_t>(r)];
  const program::RankProgram& rp = program.ranks[static_cast<std::size_t>(r)];
  for (std::size_t s = 0; s < ir.streams.size(); ++s) {
    if (heads[s] >= ir.streams[s].end) continue;
    const OpInfo& info = ir.slots[static_cast<std::size_t>(heads[s])];
    const OpIndex i = info.op;
    std::string why;
    if (info.kind == OpKind::host_sync) {
      why = fmt::format(
          "the host waits here for its GPU ({} sync)",
          program::to_string(
              std::get<program::HostSync>(rp.ops[static_cast<std::size_t>(i)].payload).point));
    } else if (info.pending == 0 && host_waiting >= 0 &&
               timing[static_cast<std::size_t>(i)].start == Time::max()) {
      why = fmt::format("not issued: its host waits at op {}", host_waiting);
    } else if (info.pending > 0) {
      std::string deps;
      for (const OpIndex d : rp.deps(rp.ops[static_cast<std::size_t>(i)])) {
        if (timing[static_cast<std::size_t>(d)].end != Time::max()) continue;
        deps += fmt::format("{}{}", deps.empty() ? "" : ", ", d);
      }
      why = fmt::format("waiting for dep op {}", deps);
    } else if (info.kind == OpKind::collective) {
      const IndexedGroup& g = index.groups[static_cast<std::size_t>(info.ref)];
      const auto k = static_cast<std::int32_t>(info.value);
      std::string missing;
      for (const Rank m : g.gpus) {
        const std::int32_t rep = index.representative[static_cast<std::size_t>(m)];
        const auto slot = static_cast<std::int32_t>(
            std::lower_bound(g.needed.begin(), g.needed.end(), rep) - g.needed.begin());
        if (comm.joined(info.ref, k, slot)) continue;
        missing += fmt::format("{}{}", missing.empty() ? "" : ", ", m);
      }
      why = missing.empty()
                ? fmt::format("launched on {} but its transfers never finish (zero bandwidth?)",
                              group_label(program, info.ref))
                : fmt::format("waiting for members {} of {} (collective #{} on the group)", missing,
                              group_label(program, info.ref), k);
    } else if (info.kind == OpKind::send || info.kind == OpKind::recv) {
      const bool is_send = info.kind == OpKind::send;
      const Rank peer =
          is_send ? std::get<program::Send>(rp.ops[static_cast<std::size_t>(i)].payload).peer
                  : std::get<program::Recv>(rp.ops[static_cast<std::size_t>(i)].payload).peer;
      why = is_send ? fmt::format("waiting for matching recv on rank {}", peer)
                    : fmt::format("waiting for matching send from rank {}", peer);
    } else {
      why = "never started";
    }
    out.push_back(StuckOp{
        rp.rank, i,
        fmt::format("{} stream: {}", program::to_string(static_cast<program::Stream>(s)), why)});
  }
}

// A deadlock is a bug in a schedule: name every op that never ran and why.
std::string describe_deadlock(const program::Program& program, const SimulationResult& result) {
  std::string text = fmt::format("the schedule deadlocked: {} ops never ran", result.stuck.size());
  for (const StuckOp& s : result.stuck) {
    std::string_view name = "?";
    for (const program::RankProgram& r : program.ranks) {
      if (r.rank == s.rank && s.op >= 0 && static_cast<std::size_t>(s.op) < r.ops.size()) {
        name = program.names.name(r.ops[static_cast<std::size_t>(s.op)].name);
      }
    }
    text += fmt::format("\n  GPU {} op {} ({}): {}", s.rank, s.op, name, s.reason);
  }
  return text;
}

}  // namespace trainsim::sim
