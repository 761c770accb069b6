#include "reports/program_table.hpp"

#include <fmt/format.h>

#include <array>
#include <map>
#include <unordered_map>
#include <utility>
#include <variant>

#include "units/format.hpp"

namespace trainsim::reports {
namespace {

struct CollectiveTally {
  std::int64_t count = 0;
  Bytes bytes;
};

struct RankStats {
  std::int64_t gemms = 0;
  std::int64_t kernels = 0;
  std::int64_t sends = 0;
  std::int64_t recvs = 0;
  std::int64_t allocs = 0;
  std::int64_t frees = 0;
  Flops gemm_flops;
  Bytes kernel_bytes;
  Bytes live_at_end;
  std::array<std::int64_t, program::kSyncPointCount> syncs{};  ///< host syncs per SyncPoint
  // (group kind, collective kind) -> tally; std::map keeps the print order fixed.
  std::map<std::pair<int, int>, CollectiveTally> collectives;
};

RankStats count(const program::Program& program, const program::RankProgram& rank) {
  using namespace program;
  RankStats s;
  std::unordered_map<BufferId, Bytes> live;
  for (const Op& op : rank.ops) {
    std::visit(
        [&](const auto& p) {
          using T = std::decay_t<decltype(p)>;
          if constexpr (std::is_same_v<T, Gemm>) {
            ++s.gemms;
            s.gemm_flops += p.flops();
          } else if constexpr (std::is_same_v<T, Kernel>) {
            ++s.kernels;
            s.kernel_bytes += p.read + p.written;
          } else if constexpr (std::is_same_v<T, Collective>) {
            const Group& g = program.groups[static_cast<std::size_t>(p.group)];
            CollectiveTally& t =
                s.collectives[{static_cast<int>(g.kind), static_cast<int>(p.kind)}];
            ++t.count;
            t.bytes += p.size;
          } else if constexpr (std::is_same_v<T, Send>) {
            ++s.sends;
          } else if constexpr (std::is_same_v<T, Recv>) {
            ++s.recvs;
          } else if constexpr (std::is_same_v<T, Alloc>) {
            ++s.allocs;
            live[p.buffer] = p.size;
          } else if constexpr (std::is_same_v<T, Free>) {
            ++s.frees;
            live.erase(p.buffer);
          } else if constexpr (std::is_same_v<T, HostSync>) {
            ++s.syncs[static_cast<std::size_t>(p.point)];
          }
        },
        op.payload);
  }
  for (const auto& entry : live)
    s.live_at_end += entry.second;
  return s;
}

}  // namespace

std::string format_program_stats(const program::Program& program) {
  using namespace program;
  std::string out =
      fmt::format("Program: {} GPUs, {} recorded, {} groups, {} ops\n", program.world_size,
                  program.ranks.size(), program.groups.size(), program.op_count());
  for (const RankProgram& rank : program.ranks) {
    const RankStats s = count(program, rank);
    out += fmt::format("GPU {}: {} ops\n", rank.rank, rank.ops.size());
    out += fmt::format("  GEMMs        {:>8}  {}\n", s.gemms, to_string(s.gemm_flops));
    out += fmt::format("  kernels      {:>8}  {} moved\n", s.kernels, to_string(s.kernel_bytes));
    for (const auto& [key, tally] : s.collectives) {
      out += fmt::format("  {:<4} {:<15}{:>5}  {}\n", to_string(static_cast<GroupKind>(key.first)),
                         to_string(static_cast<CollectiveKind>(key.second)), tally.count,
                         to_string(tally.bytes));
    }
    if (s.sends + s.recvs > 0) out += fmt::format("  send/recv    {:>4}/{}\n", s.sends, s.recvs);
    std::string syncs;
    std::int64_t total = 0;
    for (int k = 0; k < kSyncPointCount; ++k) {
      const std::int64_t n = s.syncs[static_cast<std::size_t>(k)];
      if (n == 0) continue;
      total += n;
      syncs += fmt::format("{}{} {}", syncs.empty() ? "" : ", ",
                           to_string(static_cast<SyncPoint>(k)), n);
    }
    if (total > 0) out += fmt::format("  host syncs   {:>4}  ({})\n", total, syncs);
    out += fmt::format("  alloc/free   {:>4}/{}, {} live at the end (persistent state)\n", s.allocs,
                       s.frees, to_gib_string(s.live_at_end));
  }
  return out;
}

}  // namespace trainsim::reports
