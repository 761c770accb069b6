#include "synthetic_raw.hpp"

#include <fmt/format.h>

#include <cstdint>
#include <numeric>
#include <optional>
#include <vector>

#include "models/program.hpp"
#include "sim/collective_model.hpp"
#include "sim/compute_model.hpp"
#include "sim/topology.hpp"

namespace trainsim::calibrate::testing {
namespace {

/// A 64-bit LCG (Knuth's MMIX constants): the same sequence everywhere, unlike <random>'s
/// distributions.
class Noise {
 public:
  explicit Noise(double amplitude) : amplitude_(amplitude) {}
  double factor() {
    state_ = state_ * 6364136223846793005ULL + 1442695040888963407ULL;
    const double u = static_cast<double>(state_ >> 11) / static_cast<double>(1ULL << 53);
    return 1.0 + amplitude_ * (2.0 * u - 1.0);
  }

 private:
  double amplitude_;
  std::uint64_t state_ = 20261121;
};

struct Writer {
  std::string text;
  Noise noise;

  void row(std::string_view benchmark, std::string_view gemm_cells, std::string_view bytes,
           std::string_view group, std::string_view tier, Time t, std::string_view bytes_moved,
           std::string_view verified = "yes") {
    // benchmark,dtype,m,n,k,batch,bytes,group_size,tier,algorithm,time_s,repetitions,flops,
    // bytes_moved,verified
    text += fmt::format("{},{},{},{},{},synthetic,{:.9e},20,,{},{}\n", benchmark, gemm_cells, bytes,
                        group, tier, t.seconds() * noise.factor(), bytes_moved, verified);
  }
};

std::string gemm_cells(const program::Gemm& g) {
  return fmt::format("{},{},{},{},{}", to_string(g.dtype), g.m, g.n, g.k, g.batch);
}

hw::EfficiencyCurve scaled(const hw::EfficiencyCurve& curve, double factor) {
  std::vector<hw::EfficiencyCurve::Point> points;
  for (const auto& p : curve.points())
    points.push_back({p.size, factor * p.efficiency});
  return hw::EfficiencyCurve(points);
}

}  // namespace

hw::HardwareProfile synthetic_truth(const hw::HardwareProfile& base) {
  hw::HardwareProfile t = base;
  t.gpu.memory_efficiency = 0.91;
  t.gpu.kernel_launch = Time::from_us(2.7);
  t.gpu.kernel_efficiency[program::KernelClass::elementwise] = 0.66;
  t.gpu.gemm.max_efficiency = 0.78;
  if (base.gpu.gemm.candidate_tiles.empty()) {
    t.gpu.gemm.tile_m = 128;
    t.gpu.gemm.tile_n = 256;
  } else {
    // cuBLAS's heuristic: small tiles fed more slowly, a larger per-CTA overhead.
    t.gpu.gemm.operand_bandwidth = base.gpu.gemm.operand_bandwidth * 0.7;
    t.gpu.gemm.cta_overhead_k = base.gpu.gemm.cta_overhead_k * 1.5 + 16.0;
  }
  t.collectives.base_latency = Time::from_us(11.0);
  t.gpu.gemm.max_efficiency_by_dtype[DType::tf32] = 0.66;
  t.collectives.inter_node_efficiency = scaled(base.collectives.inter_node_efficiency, 0.9);
  // Groups of 8 reach less than the smaller ones (2 and 4 keep the tier's curve).
  t.collectives.intra_node_efficiency_by_group_size.emplace(
      8, scaled(base.collectives.intra_node_efficiency, 0.85));
  t.collectives.p2p.base_latency = Time::from_us(6.0);
  t.collectives.p2p.intra_node_efficiency = scaled(base.collectives.intra_node_efficiency, 0.8);
  t.collectives.p2p.inter_node_efficiency = scaled(base.collectives.inter_node_efficiency, 0.95);
  t.compute_slowdown_during_comm = 0.21;
  t.gpu.attention = hw::AttentionSpec{0.57, 0.44, Time::from_us(25.0), Time::from_us(90.0)};
  return t;
}

std::string synthetic_raw_csv(const hw::HardwareProfile& truth, double noise) {
  Writer w{
      "# date: 2026-11-21\n# gpu: synthetic\n"
      "benchmark,dtype,m,n,k,batch,bytes,group_size,tier,algorithm,time_s,repetitions,"
      "flops,bytes_moved,verified\n",
      Noise(noise)};
  for (int i = 0; i < 6; ++i)
    w.row("launch", ",,,,", "", "", "", sim::kernel_time({}, truth), "");
  for (std::int64_t bytes = std::int64_t{1} << 20; bytes <= std::int64_t{4} << 30; bytes *= 4) {
    for (const auto& [name, factor] : {std::pair{"memcpy", 2}, std::pair{"elementwise", 3}}) {
      program::Kernel k;
      k.read = Bytes::of(bytes * factor);
      // The element-wise kernels at their class's share, a copy at memory_efficiency.
      const auto kernel_class =
          factor == 3 ? std::optional(program::KernelClass::elementwise) : std::nullopt;
      w.row(name, ",,,,", std::to_string(bytes), "", "", sim::kernel_time(k, truth, kernel_class),
            std::to_string(bytes * factor));
    }
  }
  // Dimensions that are multiples of 128 but not all of 256, so that 128 x 256 and 256 x 128
  // tiles quantize differently; small ones where the waves are part-filled.
  const std::vector<std::int64_t> dims{384, 1152, 2176, 4224, 6272, 8192};
  for (const std::int64_t m : dims) {
    for (const std::int64_t n : dims) {
      for (const std::int64_t k : {256, 1024, 8192}) {
        const program::Gemm g = program::Gemm::of(m, n, k, 1);
        w.row("gemm", gemm_cells(g), "", "", "", sim::estimate_gemm(g, truth).time, "");
      }
    }
  }
  // tf32 GEMMs, which the truth runs at their own efficiency.
  for (const std::int64_t m : {1152, 4224, 8192}) {
    for (const std::int64_t n : {1152, 4224, 8192}) {
      for (const std::int64_t k : {1024, 8192}) {
        const program::Gemm g = program::Gemm::of(m, n, k, 1, DType::tf32);
        w.row("gemm", gemm_cells(g), "", "", "", sim::estimate_gemm(g, truth).time, "");
      }
    }
  }
  std::vector<std::int64_t> sizes{8, 1024};
  // x2 steps as the microbenchmarks sweep: a curve fitted per group size or for send_recv
  // alone has few rows per size, and a held-out one is predicted between its neighbours. 19
  // sizes: with a multiple of 5, every kind's sweep would hold out the same sizes.
  for (std::int64_t s = std::int64_t{32} << 10; s <= std::int64_t{2} << 30; s *= 2)
    sizes.push_back(s);
  const std::vector<std::pair<std::string_view, program::CollectiveKind>> kinds{
      {"all_reduce", program::CollectiveKind::all_reduce},
      {"all_gather", program::CollectiveKind::all_gather},
      {"reduce_scatter", program::CollectiveKind::reduce_scatter}};
  for (const std::int64_t group : {2, 4, 8, 16, 32}) {
    sim::Topology topology(truth, static_cast<std::int32_t>(group));
    std::vector<std::int32_t> gpus(static_cast<std::size_t>(group));
    std::iota(gpus.begin(), gpus.end(), 0);
    const bool inter = group > truth.node.gpus;
    for (const auto& [name, kind] : kinds) {
      if (inter && kind != program::CollectiveKind::all_reduce) continue;
      for (const std::int64_t s : sizes) {
        w.row(name, ",,,,", std::to_string(s), std::to_string(group),
              inter ? "inter_node" : "intra_node",
              sim::estimate_collective(kind, Bytes::of(s), gpus, topology, truth), "");
      }
    }
  }
  {
    // send_recv: GPU 0 to GPU 1, and to the first GPU of the next node.
    sim::Topology topology(truth, static_cast<std::int32_t>(2 * truth.node.gpus));
    for (const bool inter : {false, true}) {
      const auto peer = static_cast<std::int32_t>(inter ? truth.node.gpus : 1);
      for (const std::int64_t s : sizes) {
        w.row("send_recv", ",,,,", std::to_string(s), "2", inter ? "inter_node" : "intra_node",
              sim::estimate_p2p(Bytes::of(s), 0, peer, topology, truth), "");
      }
    }
  }
  for (const std::int64_t m : {1152, 2176, 4224, 6272, 8192}) {
    for (const std::int64_t n : {4224, 8192}) {
      const program::Gemm g = program::Gemm::of(m, n, 4096, 1);
      w.row("gemm_during_collective", gemm_cells(g), "268435456", "8", "intra_node",
            sim::estimate_gemm(g, truth).time.scaled(1.0 + truth.compute_slowdown_during_comm), "");
    }
  }
  // Fused attention, forward and backward, over the sequences and head dims kernels.py sweeps
  // (8192 tokens per call, 16 heads). The backward row times the pre-pass D = rowsum(dO ∘ O)
  // (reads dO and O, writes D in fp32) and the dQ conversion (fp32 to bf16) too, as the replay
  // has them.
  for (const std::int64_t d : {64, 128}) {
    for (const std::int64_t s : {1024, 2048, 4096, 8192}) {
      const std::int64_t batch = 8192 / s * 16;
      const double flops = 2.0 * static_cast<double>(batch * d * s) * static_cast<double>(s + 1);
      const std::string cells = fmt::format("bf16,{},,{},{}", s, d, batch);
      program::Kernel forward;
      forward.flops = Flops::of(flops);
      w.row("attention", cells, "", "", "",
            sim::kernel_time(forward, truth, program::KernelClass::attention), "");
      program::Kernel backward;
      backward.flops = Flops::of(2.5 * flops);
      program::Kernel pre_pass;
      pre_pass.read = Bytes::of(2 * 2 * batch * s * d);
      pre_pass.written = Bytes::of(4 * batch * s);
      program::Kernel dq_convert;
      dq_convert.read = Bytes::of(4 * batch * s * d);
      dq_convert.written = Bytes::of(2 * batch * s * d);
      w.row("attention_backward", cells, "", "", "",
            sim::kernel_time(pre_pass, truth, program::KernelClass::elementwise) +
                sim::kernel_time(backward, truth, program::KernelClass::attention_backward) +
                sim::kernel_time(dq_convert, truth, program::KernelClass::elementwise),
            "");
    }
  }
  // A failed verification with a wild time: must not move any fit.
  w.row("gemm", gemm_cells(program::Gemm::of(8192, 8192, 8192, 1)), "", "", "", Time::from_ms(1),
        "", "no");
  return std::move(w.text);
}

}  // namespace trainsim::calibrate::testing
