// Replays a synthetic Program of ~1.3 million ops (64 ranks: TP 8 inside a node, DP 8
// across nodes; chains of GEMMs, kernels, allocations and collectives) and prints the
// replay rate in ops per second. Usage: bench_replay [ranks] [ops_per_rank]

#include <fmt/format.h>

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "models/program.hpp"
#include "sim/hardware_profile.hpp"
#include "sim/replay.hpp"

using namespace trainsim;

namespace {

hw::HardwareProfile bench_profile() {
  hw::HardwareProfile hw;
  hw.name = "bench";
  hw.gpu.peak[DType::bf16] = FlopRate::tflops(989);
  hw.gpu.sm_count = 132;
  hw.gpu.memory = Bytes::of(std::int64_t{80} << 30);
  hw.gpu.memory_bandwidth = Bandwidth::gb_per_s(3350);
  hw.gpu.kernel_launch = Time::from_us(4);
  hw.gpu.gemm.size_efficiency = hw::EfficiencyCurve({{1e9, 0.5}, {1e12, 1.0}});
  hw.node.gpus = 8;
  hw.node.gpu_bandwidth = Bandwidth::gb_per_s(450);
  hw.node.latency = Time::from_us(1);
  hw.network.nics_per_node = 8;
  hw.network.nic_bandwidth = Bandwidth::gb_per_s(50);
  hw.network.latency = Time::from_us(5);
  hw.collectives.base_latency = Time::from_us(8);
  hw.collectives.intra_node_efficiency = hw::EfficiencyCurve({{1e5, 0.2}, {1e8, 0.85}});
  hw.collectives.inter_node_efficiency = hw::EfficiencyCurve({{1e5, 0.2}, {1e8, 0.9}});
  hw.compute_slowdown_during_comm = 0.1;
  hw.comm_slowdown_during_compute = 0.5;  // exercise the communication-engine links
  return hw;
}

struct Builder {
  program::RankProgram& rp;
  program::OpIndex add(program::Payload payload, program::Stream stream,
                       std::initializer_list<program::OpIndex> deps,
                       program::Phase phase = program::Phase::forward) {
    program::Op op;
    op.payload = payload;
    op.stream = stream;
    op.tag.phase = phase;
    op.dep_begin = static_cast<std::int32_t>(rp.dep_pool.size());
    for (const auto d : deps) {
      if (d >= 0) rp.dep_pool.push_back(d);
    }
    op.dep_end = static_cast<std::int32_t>(rp.dep_pool.size());
    rp.ops.push_back(op);
    return static_cast<program::OpIndex>(rp.ops.size() - 1);
  }
};

program::Program synthetic(std::int32_t world, std::int64_t ops_per_rank) {
  constexpr std::int32_t tp = 8;
  const std::int32_t dp = world / tp;
  program::Program p;
  p.world_size = world;
  for (std::int32_t r = 0; r < world; ++r)
    p.representative.push_back(r);
  for (std::int32_t d = 0; d < dp; ++d) {
    program::Group g;
    g.id = static_cast<program::GroupId>(p.groups.size());
    g.kind = program::GroupKind::tp;
    g.family = 0;
    for (std::int32_t t = 0; t < tp; ++t)
      g.ranks.push_back(d * tp + t);
    p.groups.push_back(g);
  }
  for (std::int32_t t = 0; t < tp; ++t) {
    program::Group g;
    g.id = static_cast<program::GroupId>(p.groups.size());
    g.kind = program::GroupKind::dp;
    g.family = 1;
    for (std::int32_t d = 0; d < dp; ++d)
      g.ranks.push_back(d * tp + t);
    p.groups.push_back(g);
  }
  for (std::int32_t r = 0; r < world; ++r) {
    program::RankProgram rp;
    rp.rank = r;
    rp.ops.reserve(static_cast<std::size_t>(ops_per_rank) + 16);
    Builder b{rp};
    const program::GroupId tp_group = r / tp;
    const program::GroupId dp_group = dp + r % tp;
    program::OpIndex last = -1;
    program::BufferId buffer = 0;
    std::int64_t layer = 0;
    // 10 ops per layer; a DP all-reduce of a gradient bucket every 4 layers.
    while (static_cast<std::int64_t>(rp.ops.size()) + 12 <= ops_per_rank) {
      const auto alloc =
          b.add(program::Alloc{++buffer, Bytes::of(8 << 20), program::MemoryCategory::activations},
                program::Stream::compute, {last});
      program::Gemm qkv{2048, 1536, 4096, 1, DType::bf16, false, false};
      b.add(qkv, program::Stream::compute, {alloc});
      const auto k1 =
          b.add(program::Kernel{Bytes::of(16 << 20), Bytes::of(8 << 20), Flops::of(1e7)},
                program::Stream::compute, {});
      program::Gemm proj{2048, 4096, 512, 1, DType::bf16, false, false};
      const auto g2 = b.add(proj, program::Stream::compute, {k1});
      const auto ar = b.add(program::Collective{program::CollectiveKind::all_reduce, tp_group,
                                                Bytes::of(16 << 20), DType::bf16},
                            program::Stream::tp, {g2});
      const auto k2 =
          b.add(program::Kernel{Bytes::of(16 << 20), Bytes::of(16 << 20), Flops::of(1e7)},
                program::Stream::compute, {ar});
      program::Gemm fc{2048, 2048, 4096, 1, DType::bf16, false, false};
      const auto g3 = b.add(fc, program::Stream::compute, {k2}, program::Phase::backward);
      const auto g4 = b.add(fc, program::Stream::compute, {g3}, program::Phase::backward);
      const auto fr = b.add(program::Free{buffer}, program::Stream::compute, {g4});
      if (++layer % 4 == 0) {
        b.add(program::Collective{program::CollectiveKind::all_reduce, dp_group,
                                  Bytes::of(64 << 20), DType::bf16},
              program::Stream::dp, {g4});
      } else {
        b.add(program::Kernel{Bytes::of(1 << 20), Bytes::of(1 << 20), Flops::of(1e5)},
              program::Stream::compute, {fr});
      }
      last = fr;
    }
    p.ranks.push_back(std::move(rp));
  }
  return p;
}

}  // namespace

int main(int argc, char** argv) {
  const std::int32_t world = argc > 1 ? std::atoi(argv[1]) : 64;
  const std::int64_t per_rank = argc > 2 ? std::atoll(argv[2]) : 20'000;
  if (world < 8 || world % 8 != 0 || per_rank < 12) {
    fmt::print(stderr, "usage: bench_replay [ranks, a multiple of 8] [ops per rank >= 12]\n");
    return 2;
  }
  const hw::HardwareProfile hw = bench_profile();
  const program::Program p = synthetic(world, per_rank);
  const auto ops = static_cast<double>(p.op_count());
  double best = 0.0;
  double best_run = 0.0;
  sim::SimulationResult result;
  for (int rep = 0; rep < 3; ++rep) {
    const auto t0 = std::chrono::steady_clock::now();
    sim::Simulation s(p, hw);
    const auto t1 = std::chrono::steady_clock::now();
    result = s.run();
    const auto t2 = std::chrono::steady_clock::now();
    const double total = std::chrono::duration<double>(t2 - t0).count();
    const double run = std::chrono::duration<double>(t2 - t1).count();
    best = std::max(best, ops / total);
    best_run = std::max(best_run, ops / run);
  }
  fmt::print("ops {:.0f} ranks {} events {} stuck {} iteration {:.3f} ms\n", ops, world,
             result.events_processed, result.stuck.size(), result.iteration_time.ms());
  fmt::print("replay (index + run): {:.2f} M ops/s; run only: {:.2f} M ops/s\n", best * 1e-6,
             best_run * 1e-6);
  return result.stuck.empty() ? 0 : 1;
}
