#pragma once
// Small hardware profiles and a Program builder for the simulator's tests.

#include <initializer_list>
#include <vector>

#include "models/model_spec.hpp"
#include "models/parallel_plan.hpp"
#include "models/program.hpp"
#include "sim/hardware_profile.hpp"

namespace trainsim::test {

/// 4 GPUs per NVSwitch node at 100 GB/s, one 10 GB/s NIC per node; 100 TFLOP/s bf16 on
/// 4 SMs, 3000 GB/s HBM; no launch overhead, perfect GEMM efficiency; NCCL reaches 80 %
/// of a link inside a node and 80 % across nodes.
inline hw::HardwareProfile small_profile() {
  hw::HardwareProfile hw;
  hw.name = "test";
  hw.gpu.model = "toy";
  hw.gpu.peak[DType::bf16] = FlopRate::tflops(100);
  hw.gpu.peak[DType::fp32] = FlopRate::tflops(25);
  hw.gpu.sm_count = 4;
  hw.gpu.memory = Bytes::of(std::int64_t{80} << 30);
  hw.gpu.memory_bandwidth = Bandwidth::gb_per_s(3000);
  hw.gpu.memory_efficiency = 0.5;
  hw.gpu.kernel_launch = Time::zero();
  hw.gpu.gemm.max_efficiency = 1.0;
  hw.gpu.gemm.tile_m = 128;
  hw.gpu.gemm.tile_n = 128;
  hw.gpu.gemm.ctas_per_sm = 1;
  hw.node.gpus = 4;
  hw.node.fabric = hw::FabricKind::nvswitch;
  hw.node.gpu_bandwidth = Bandwidth::gb_per_s(100);
  hw.node.latency = Time::from_us(1);
  hw.network.nics_per_node = 1;
  hw.network.nic_bandwidth = Bandwidth::gb_per_s(10);
  hw.network.latency = Time::from_us(5);
  hw.network.oversubscription = 1.0;
  hw.collectives.base_latency = Time::from_us(2);
  hw.collectives.intra_node_efficiency = hw::EfficiencyCurve::constant(0.8);
  hw.collectives.inter_node_efficiency = hw::EfficiencyCurve::constant(0.8);
  return hw;
}

/// A GPT small enough to replay every layout of a space: h 256, 4 heads, ffn 1024, s 256,
/// vocab 1024.
inline ModelSpec small_model(std::int64_t layers) {
  ModelSpec m;
  m.layers = layers;
  m.hidden = 256;
  m.heads = 4;
  m.ffn = 1024;
  m.seq_len = 256;
  m.vocab = 1024;
  m.vocab_divisor = 1;
  return m;
}

/// A plan of 1D TP `tp` (sequence parallel from 2), CP `cp`, PP `pp` (1F1B), DP `dp` and ZeRO
/// stage `zero`.
inline ParallelPlan plan_of(std::int64_t tp, std::int64_t cp, std::int64_t pp, std::int64_t dp,
                            int zero) {
  ParallelPlan plan;
  plan.tensor.size = tp;
  plan.tensor.sequence_parallel = tp > 1;
  plan.context.size = cp;
  plan.pipeline.size = pp;
  plan.data.size = dp;
  plan.data.zero = zero;
  return plan;
}

/// Builds Programs op by op.
class ProgramBuilder {
 public:
  /// `recorded` ranks get programs (all of them when empty); `representative` maps every
  /// world rank to an index into the recorded list (identity when empty).
  explicit ProgramBuilder(std::int32_t world, std::vector<program::Rank> recorded = {},
                          std::vector<std::int32_t> representative = {}) {
    p_.world_size = world;
    if (recorded.empty()) {
      for (program::Rank r = 0; r < world; ++r)
        recorded.push_back(r);
    }
    for (const program::Rank r : recorded) {
      program::RankProgram rp;
      rp.rank = r;
      p_.ranks.push_back(rp);
    }
    if (representative.empty()) {
      for (std::int32_t r = 0; r < world; ++r)
        representative.push_back(r);
    }
    p_.representative = std::move(representative);
  }

  program::GroupId group(program::GroupKind kind, std::vector<program::Rank> ranks,
                         std::int32_t family) {
    program::Group g;
    g.id = static_cast<program::GroupId>(p_.groups.size());
    g.kind = kind;
    g.ranks = std::move(ranks);
    g.family = family;
    p_.groups.push_back(g);
    return g.id;
  }

  /// Appends an op to recorded rank index `r`; returns its index.
  program::OpIndex add(std::size_t r, program::Payload payload,
                       program::Stream stream = program::Stream::compute,
                       std::initializer_list<program::OpIndex> deps = {},
                       program::Phase phase = program::Phase::forward) {
    program::RankProgram& rp = p_.ranks[r];
    program::Op op;
    op.payload = std::move(payload);
    op.stream = stream;
    op.tag.phase = phase;
    op.dep_begin = static_cast<std::int32_t>(rp.dep_pool.size());
    for (const program::OpIndex d : deps)
      rp.dep_pool.push_back(d);
    op.dep_end = static_cast<std::int32_t>(rp.dep_pool.size());
    rp.ops.push_back(op);
    return static_cast<program::OpIndex>(rp.ops.size() - 1);
  }

  const program::Program& program() const { return p_; }

 private:
  program::Program p_;
};

/// Two DGX-like nodes (with 16 GPUs): 8 GPUs per NVSwitch, one NIC per GPU.
inline hw::HardwareProfile rail_profile() {
  auto hw = small_profile();
  hw.node.gpus = 8;
  hw.network.nics_per_node = 8;
  return hw;
}

inline program::Gemm gemm(std::int64_t m, std::int64_t n, std::int64_t k, std::int64_t batch = 1) {
  return program::Gemm::of(m, n, k, batch);
}

inline program::Collective all_reduce(program::GroupId g, Bytes size) {
  return program::Collective{program::CollectiveKind::all_reduce, g, size, DType::bf16};
}

}  // namespace trainsim::test
