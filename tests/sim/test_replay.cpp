#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <variant>
#include <vector>

#include "sim/collective_model.hpp"
#include "sim/compute_model.hpp"
#include "sim/replay.hpp"
#include "sim/topology.hpp"
#include "sim_fixtures.hpp"
#include "units/doctest_printers.hpp"

using namespace trainsim;
using namespace trainsim::sim;
using program::Alloc;
using program::Free;
using program::GroupKind;
using program::MemoryCategory;
using program::Phase;
using program::Stream;
using test::all_reduce;
using test::gemm;
using test::ProgramBuilder;

namespace {

Time gemm_time(const program::Gemm& g, const hw::HardwareProfile& hw) {
  return estimate_gemm(g, hw).time;
}

void check_close(Time got, Time want, std::int64_t tolerance_ps = 2) {
  INFO("got " << got.ps() << " ps, want " << want.ps() << " ps");
  CHECK(std::llabs(got.ps() - want.ps()) <= tolerance_ps);
}

Time total(const TimeBreakdown& b) {
  Time t = b.compute + b.recompute + b.optimizer + b.bubble + b.other;
  for (const Time e : b.exposed_comm)
    t += e;
  return t;
}

void check_breakdowns_add_up(const SimulationResult& r) {
  for (const TimeBreakdown& b : r.breakdown)
    CHECK(total(b) == r.iteration_time);
}

std::uint64_t fingerprint(const SimulationResult& r) {
  std::uint64_t h = 1469598103934665603ULL;
  auto mix = [&h](std::int64_t v) {
    for (int i = 0; i < 8; ++i) {
      h ^= static_cast<std::uint64_t>(v >> (8 * i)) & 0xffU;
      h *= 1099511628211ULL;
    }
  };
  for (const RankTimeline& t : r.timelines) {
    mix(t.rank);
    for (const OpTiming& o : t.ops) {
      mix(o.start.ps());
      mix(o.end.ps());
    }
  }
  mix(r.iteration_time.ps());
  return h;
}

// Two ranks in one node: GEMM, then a TP all-reduce of its output on the TP stream while an
// independent GEMM runs, then a GEMM that needs the all-reduce.
program::Program overlap_program(Bytes size, const program::Gemm& independent,
                                 bool copy_engine = false) {
  ProgramBuilder b(2);
  const auto tp = b.group(GroupKind::tp, {0, 1}, 0);
  for (std::size_t r = 0; r < 2; ++r) {
    const auto g1 = b.add(r, gemm(512, 512, 4096));
    program::Collective c = all_reduce(tp, size);
    c.copy_engine = copy_engine;
    const auto ar = b.add(r, c, Stream::tp, {g1});
    b.add(r, independent);
    b.add(r, gemm(512, 512, 4096), Stream::compute, {ar});
  }
  return b.program();
}

}  // namespace

TEST_CASE("a chain of GEMMs takes the sum of their modelled times") {
  const auto hw = test::small_profile();
  ProgramBuilder b(1);
  const std::vector<program::Gemm> gemms{gemm(512, 512, 4096), gemm(640, 128, 8192),
                                         gemm(512, 512, 1), gemm(129, 128, 8192)};
  Time want = Time::zero();
  for (const auto& g : gemms) {
    b.add(0, g);
    want += gemm_time(g, hw);
  }
  const SimulationResult r = replay(b.program(), hw);
  CHECK(r.iteration_time == want);
  CHECK(r.timelines[0].ops[1].start == gemm_time(gemms[0], hw));
  CHECK(r.breakdown[0].compute == want);
  CHECK(r.stuck.empty());
  check_breakdowns_add_up(r);
}

TEST_CASE("compute overlaps a collective on another stream — deps order them") {
  const auto hw = test::small_profile();
  const Bytes size = Bytes::of(8'000'000);
  const auto small = gemm(256, 256, 1024);
  const SimulationResult r = replay(overlap_program(size, small), hw);
  const Time g = gemm_time(gemm(512, 512, 4096), hw);
  const Time g2 = gemm_time(small, hw);
  // n = 2: per-link volume S, 80 GB/s; base + 2 intra steps.
  const Time ar = size / Bandwidth::gb_per_s(80) + Time::from_us(2 + 2);
  REQUIRE(g2 < ar);
  for (const RankTimeline& t : r.timelines) {
    CHECK(t.ops[2].start == g);  // the independent GEMM does not wait for the all-reduce
    check_close(t.ops[1].end, g + ar);
    CHECK(t.ops[3].start == t.ops[1].end);
  }
  check_close(r.iteration_time, g + ar + g);
  const TimeBreakdown& b = r.breakdown[0];
  CHECK(b.compute == g + g2 + g);
  check_close(b.exposed_comm[static_cast<std::size_t>(GroupKind::tp)], ar - g2);
  check_breakdowns_add_up(r);
}

TEST_CASE("a group's collectives of one size reuse their flows, another size gets its own") {
  const auto hw = test::small_profile();
  const std::vector<Bytes> sizes{Bytes::of(8'000'000), Bytes::of(2'000'000), Bytes::of(8'000'000),
                                 Bytes::of(8'000'000), Bytes::of(0),         Bytes::of(2'000'000)};
  ProgramBuilder b(2);
  const auto tp = b.group(GroupKind::tp, {0, 1}, 0);
  for (std::size_t r = 0; r < 2; ++r) {
    for (const Bytes size : sizes)
      b.add(r, all_reduce(tp, size), Stream::tp);
  }
  const SimulationResult r = replay(b.program(), hw);
  for (const RankTimeline& t : r.timelines) {
    REQUIRE(t.ops.size() == sizes.size());
    for (std::size_t i = 0; i < sizes.size(); ++i) {
      INFO("all-reduce " << i);
      // n = 2: per-link volume S at 80 GB/s, then base + 2 intra steps of latency.
      check_close(t.ops[i].end - t.ops[i].start,
                  sizes[i] / Bandwidth::gb_per_s(80) + Time::from_us(2 + 2));
    }
  }
}

TEST_CASE("compute slows down exactly while a collective shares the GPU") {
  auto hw = test::small_profile();
  hw.compute_slowdown_during_comm = 1.0;  // half speed
  const Bytes size = Bytes::of(8'000'000);
  const auto big = gemm(1024, 1024, 8192);
  const SimulationResult r = replay(overlap_program(size, big), hw);
  const Time g = gemm_time(gemm(512, 512, 4096), hw);
  const Time g2 = gemm_time(big, hw);
  const Time ar = size / Bandwidth::gb_per_s(80) + Time::from_us(4);
  REQUIRE(g2.ps() * 2 > ar.ps());
  // Half speed during the all-reduce, full speed after: ar + (g2 - ar/2).
  check_close(r.timelines[0].ops[2].end, g + ar + (g2 - ar.scaled(0.5)));
  check_breakdowns_add_up(r);
}

TEST_CASE("copy-engine transfers neither slow compute nor slow down under it") {
  // Transformer Engine's ring exchange (program::Collective::copy_engine): no SMs taken.
  auto hw = test::small_profile();
  hw.compute_slowdown_during_comm = 1.0;
  hw.comm_slowdown_during_compute = 1.0;
  const Bytes size = Bytes::of(8'000'000);
  const auto big = gemm(2048, 2048, 8192);
  const Time g = gemm_time(gemm(512, 512, 4096), hw);
  const Time g2 = gemm_time(big, hw);
  const Time ar = size / Bandwidth::gb_per_s(80) + Time::from_us(4);
  REQUIRE(g2 > ar);
  const SimulationResult r = replay(overlap_program(size, big, true), hw);
  check_close(r.timelines[0].ops[1].end, g + ar);  // full speed under the GEMM
  check_close(r.timelines[0].ops[2].end, g + g2);  // the GEMM at full speed beside it
  const SimulationResult sm = replay(overlap_program(size, big, false), hw);
  CHECK(sm.timelines[0].ops[2].end > r.timelines[0].ops[2].end);  // SM-driven: both slow
  check_breakdowns_add_up(r);
}

TEST_CASE("transfers inside a node slow down exactly while their GPU computes") {
  auto hw = test::small_profile();
  hw.comm_slowdown_during_compute = 1.0;  // half speed while a kernel runs
  const Bytes size = Bytes::of(8'000'000);
  const Time g = gemm_time(gemm(512, 512, 4096), hw);
  const Time latency = Time::from_us(4);
  // n = 2: S on the wire per link at 100 GB/s x 0.8 efficiency = 80 GB/s, halved to 40.
  SUBCASE("the independent kernel outlasts the all-reduce") {
    const auto big = gemm(2048, 2048, 8192);
    const Time g2 = gemm_time(big, hw);
    const Time ar = size / Bandwidth::gb_per_s(40) + latency;
    REQUIRE(g2 > ar);
    const SimulationResult r = replay(overlap_program(size, big), hw);
    check_close(r.timelines[0].ops[1].end, g + ar, 4);
    check_close(r.iteration_time, g + g2 + g, 4);
    check_breakdowns_add_up(r);
  }
  SUBCASE("the all-reduce outlasts the kernel: half speed, then full speed") {
    const auto small = gemm(256, 256, 1024);
    const Time g2 = gemm_time(small, hw);
    const double moved = Bandwidth::gb_per_s(40).bytes_per_second() * g2.seconds();
    REQUIRE(moved < size.as_double());
    const Time rest =
        Time::from_seconds((size.as_double() - moved) / Bandwidth::gb_per_s(80).bytes_per_second());
    const SimulationResult r = replay(overlap_program(size, small), hw);
    check_close(r.timelines[0].ops[1].end, g + g2 + rest + latency, 4);
    check_breakdowns_add_up(r);
  }
  SUBCASE("between nodes the NIC paces the transfer and compute does not slow it") {
    hw.node.gpus = 1;
    const auto big = gemm(2048, 2048, 8192);
    auto calm = hw;
    calm.comm_slowdown_during_compute = 0.0;
    const SimulationResult slowed = replay(overlap_program(size, big), hw);
    const SimulationResult plain = replay(overlap_program(size, big), calm);
    CHECK(slowed.timelines[0].ops[1].end == plain.timelines[0].ops[1].end);
  }
}

TEST_CASE("collectives on the same NIC slow each other down") {
  auto hw = test::small_profile();
  hw.node.gpus = 2;  // ranks 0,1 in node 0 and 2,3 in node 1, one NIC each
  const Bytes size = Bytes::of(10'000'000);
  const Time latency = ring_latency(program::CollectiveKind::all_reduce, 2, 2, hw);
  auto build = [&](bool both) {
    ProgramBuilder b(4);
    const auto dp0 = b.group(GroupKind::dp, {0, 2}, 1);
    const auto dp1 = b.group(GroupKind::dp, {1, 3}, 1);
    b.add(0, all_reduce(dp0, size), Stream::dp);
    b.add(2, all_reduce(dp0, size), Stream::dp);
    if (both) {
      b.add(1, all_reduce(dp1, size), Stream::dp);
      b.add(3, all_reduce(dp1, size), Stream::dp);
    }
    return b.program();
  };
  // Alone: the NIC at 80 % efficiency. Together: two flows share each NIC direction, each
  // putting S / 0.8 on the wire.
  check_close(replay(build(false), hw).iteration_time, size / Bandwidth::gb_per_s(8) + latency);
  const SimulationResult both = replay(build(true), hw);
  check_close(both.iteration_time, size / Bandwidth::gb_per_s(4) + latency);
  CHECK(both.breakdown[0].exposed_comm[static_cast<std::size_t>(GroupKind::dp)] ==
        both.iteration_time);
}

TEST_CASE("representative replay launches the whole family: same times as every-rank replay") {
  auto hw = test::small_profile();
  hw.node.fabric = hw::FabricKind::pcie;
  hw.node.host_bridge_bandwidth = Bandwidth::gb_per_s(50);
  const Bytes size = Bytes::of(4'000'000);
  auto build = [&](bool every_rank) {
    ProgramBuilder b = every_rank ? ProgramBuilder(4) : ProgramBuilder(4, {0, 1}, {0, 1, 0, 1});
    const auto tp0 = b.group(GroupKind::tp, {0, 1}, 0);
    const auto tp1 = b.group(GroupKind::tp, {2, 3}, 0);
    const std::size_t recorded = every_rank ? 4 : 2;
    for (std::size_t r = 0; r < recorded; ++r) {
      const auto g = r < 2 ? tp0 : tp1;
      const auto g1 = b.add(r, gemm(512, 512, 4096));
      const auto ar = b.add(r, all_reduce(g, size), Stream::tp, {g1});
      b.add(r, gemm(512, 512, 4096), Stream::compute, {ar});
    }
    return b.program();
  };
  const SimulationResult full = replay(build(true), hw);
  const SimulationResult rep = replay(build(false), hw);
  CHECK(full.iteration_time == rep.iteration_time);
  for (std::size_t r = 0; r < 2; ++r) {
    REQUIRE(rep.timelines[r].ops.size() == full.timelines[r].ops.size());
    for (std::size_t i = 0; i < rep.timelines[r].ops.size(); ++i) {
      CHECK(rep.timelines[r].ops[i].start == full.timelines[r].ops[i].start);
      CHECK(rep.timelines[r].ops[i].end == full.timelines[r].ops[i].end);
    }
  }
  // Four flows share the 50 GB/s host bridge: 12.5 GB/s of wire each, 80 % of it useful.
  const Time g = gemm_time(gemm(512, 512, 4096), hw);
  check_close(rep.iteration_time,
              g + size / Bandwidth::gb_per_s(10) +
                  ring_latency(program::CollectiveKind::all_reduce, 2, 1, hw) + g);
}

TEST_CASE("memory: peak, time of peak and breakdown at the peak") {
  const auto hw = test::small_profile();
  ProgramBuilder b(1);
  const auto g = gemm(512, 512, 4096);
  b.add(0, Alloc{1, Bytes::of(100), MemoryCategory::parameters});
  b.add(0, Alloc{2, Bytes::of(50), MemoryCategory::activations});
  b.add(0, g);
  b.add(0, Alloc{3, Bytes::of(30), MemoryCategory::temporaries});
  b.add(0, g);
  b.add(0, Free{3});
  b.add(0, g);
  b.add(0, Free{2});
  ReplayOptions with_timeline;
  with_timeline.record_memory_timeline = true;
  const SimulationResult r = replay(b.program(), hw, with_timeline);
  const RankMemory& m = r.memory[0];
  const Time t = gemm_time(g, hw);
  CHECK(m.peak == Bytes::of(180));
  CHECK(m.peak_at == t);
  CHECK(m.at_peak[static_cast<std::size_t>(MemoryCategory::parameters)] == Bytes::of(100));
  CHECK(m.at_peak[static_cast<std::size_t>(MemoryCategory::activations)] == Bytes::of(50));
  CHECK(m.at_peak[static_cast<std::size_t>(MemoryCategory::temporaries)] == Bytes::of(30));
  REQUIRE(m.timeline.size() == 4);  // t=0 (two allocs merged), t, 2t, 3t
  CHECK(m.timeline[0].at == Time::zero());
  CHECK(m.timeline[3].at == t * 3);
  CHECK(m.timeline[3].live[static_cast<std::size_t>(MemoryCategory::parameters)] == Bytes::of(100));
  CHECK(m.timeline[3].live[static_cast<std::size_t>(MemoryCategory::activations)] == Bytes::zero());

  // By default the timeline is not recorded; the peak, its time and breakdown are the same.
  const SimulationResult plain = replay(b.program(), hw);
  const RankMemory& p = plain.memory[0];
  CHECK(p.timeline.empty());
  CHECK(p.peak == m.peak);
  CHECK(p.peak_at == m.peak_at);
  CHECK(p.at_peak == m.at_peak);
  CHECK(p.peak_op == m.peak_op);
}

TEST_CASE("memory: a free and an allocation at the same instant do not count twice") {
  const auto hw = test::small_profile();
  ProgramBuilder b(1);
  const auto g = gemm(512, 512, 4096);
  b.add(0, Alloc{1, Bytes::of(100), MemoryCategory::activations});
  const auto gi = b.add(0, g);
  b.add(0, Free{1});
  // Ready at the same instant as the free, on another stream (the replay happens to handle it
  // first).
  b.add(0, Alloc{2, Bytes::of(100), MemoryCategory::comm_buffers}, Stream::tp, {gi});
  const SimulationResult r = replay(b.program(), hw);
  const RankMemory& m = r.memory[0];
  CHECK(m.peak == Bytes::of(100));
  CHECK(m.peak_at == Time::zero());
  CHECK(m.peak_op == 0);
}

namespace {
// Two pipeline stages: forward on 0, send activations, forward+backward on 1, send grads
// back, backward on 0, then an optimizer step and a DP-free finish.
program::Program pipeline_program() {
  ProgramBuilder b(2);
  b.group(GroupKind::pp, {0, 1}, 2);
  const auto fwd = gemm(512, 512, 4096);
  const auto bwd = gemm(512, 1024, 4096);
  const Bytes act = Bytes::of(2'000'000);
  const program::Kernel adam{Bytes::of(3'000'000), Bytes::of(3'000'000), Flops::of(1e6)};
  // stage 0
  const auto f0 = b.add(0, fwd);
  b.add(0, program::Send{1, act}, Stream::pp_send, {f0});
  const auto r0 = b.add(0, program::Recv{1, act}, Stream::pp_recv);
  b.add(0, bwd, Stream::compute, {r0}, Phase::backward);
  b.add(0, adam, Stream::compute, {}, Phase::optimizer);
  // stage 1
  const auto r1 = b.add(1, program::Recv{0, act}, Stream::pp_recv);
  b.add(1, fwd, Stream::compute, {r1});
  b.add(1, fwd, Stream::compute, {}, Phase::recompute);
  const auto b1 = b.add(1, bwd, Stream::compute, {}, Phase::backward);
  b.add(1, program::Send{0, act}, Stream::pp_send, {b1});
  b.add(1, adam, Stream::compute, {}, Phase::optimizer);
  return b.program();
}
}  // namespace

TEST_CASE("pipeline: bubbles, phases and the breakdown adding up to the iteration") {
  const auto hw = test::small_profile();
  const SimulationResult r = replay(pipeline_program(), hw);
  REQUIRE(r.stuck.empty());
  const Time f = gemm_time(gemm(512, 512, 4096), hw);
  const Time bw = gemm_time(gemm(512, 1024, 4096), hw);
  const Time p2p = Bytes::of(2'000'000) / Bandwidth::gb_per_s(80) + p2p_latency(false, hw);
  const Time adam = Bytes::of(6'000'000) / Bandwidth::gb_per_s(1500);
  const auto exposed_pp = [&](std::size_t rank) {
    return r.breakdown[rank].exposed_comm[static_cast<std::size_t>(GroupKind::pp)];
  };
  // Stage 1 waits for the activations: a bubble of f while stage 0 computes them, then the
  // transfer itself, exposed pipeline communication; and its iteration ends with the
  // gradients' transfer, p2p - adam after the optimizer step.
  check_close(r.breakdown[1].bubble, f);
  check_close(exposed_pp(1), p2p + p2p - adam);
  CHECK(r.breakdown[1].recompute == f);
  CHECK(r.breakdown[1].optimizer == adam);
  // Stage 0 idles from f until the gradients arrive: bubble while stage 1 works (its
  // activations' transfer included), then the gradients' transfer.
  check_close(r.breakdown[0].bubble, p2p + f + f + bw);
  check_close(exposed_pp(0), p2p);
  check_close(r.iteration_time, f + p2p + f + f + bw + p2p + bw + adam);
  check_breakdowns_add_up(r);
}

TEST_CASE("replay: each rank's end and tensor-core FLOPs, kept without the op timings") {
  const auto hw = test::small_profile();
  const program::Program p = pipeline_program();
  ReplayOptions no_timings;
  no_timings.record_op_timings = false;
  const SimulationResult timed = replay(p, hw);
  const SimulationResult untimed = replay(p, hw, no_timings);
  REQUIRE(timed.timelines.size() == p.ranks.size());
  REQUIRE(untimed.tensor_core_flops.size() == p.ranks.size());
  for (std::size_t r = 0; r < p.ranks.size(); ++r) {
    Time last = Time::zero();
    for (const OpTiming& t : timed.timelines[r].ops) {
      if (t.end != Time::max()) last = std::max(last, t.end);
    }
    CHECK(timed.timelines[r].finished == last);
    CHECK(untimed.timelines[r].finished == last);
    CHECK(untimed.timelines[r].ops.empty());
    double gemm = 0.0;
    for (const program::Op& op : p.ranks[r].ops) {
      if (const auto* g = std::get_if<program::Gemm>(&op.payload)) gemm += g->flops().count();
    }
    CHECK(gemm > 0.0);
    CHECK(untimed.tensor_core_flops[r].count() == gemm);
  }
  CHECK(std::max(timed.timelines[0].finished, timed.timelines[1].finished) == timed.iteration_time);
}

TEST_CASE("pipeline: transfers use the profile's p2p curve and latency when it has them") {
  auto hw = test::small_profile();
  hw.collectives.p2p.base_latency = Time::from_us(4);
  hw.collectives.p2p.intra_node_efficiency = hw::EfficiencyCurve::constant(0.4);
  const SimulationResult r = replay(pipeline_program(), hw);
  REQUIRE(r.stuck.empty());
  const Time f = gemm_time(gemm(512, 512, 4096), hw);
  const Time bw = gemm_time(gemm(512, 1024, 4096), hw);
  // 100 GB/s x 0.4, and 4 us + one 1 us hop (the collectives' 2 us base latency is not used).
  const Time p2p = Bytes::of(2'000'000) / Bandwidth::gb_per_s(40) + Time::from_us(5);
  const Time adam = Bytes::of(6'000'000) / Bandwidth::gb_per_s(1500);
  check_close(r.iteration_time, f + p2p + f + f + bw + p2p + bw + adam);
}

TEST_CASE("pipeline: sends and receives on their own streams progress concurrently") {
  // Two stages exchanging tensors, each sending before it receives. On one in-order stream
  // both sends wait for receives that are queued behind them: a deadlock. On pp_send and
  // pp_recv both transfers run at once, in opposite directions: one transfer's time.
  const auto hw = test::small_profile();
  const Bytes act = Bytes::of(2'000'000);
  const auto exchange = [&](Stream send_stream, Stream recv_stream) {
    ProgramBuilder b(2);
    b.group(GroupKind::pp, {0, 1}, 0);
    for (std::size_t r = 0; r < 2; ++r) {
      const program::Rank peer = r == 0 ? 1 : 0;
      b.add(r, program::Send{peer, act}, send_stream);
      b.add(r, program::Recv{peer, act}, recv_stream);
    }
    return b.program();
  };
  const SimulationResult split = replay(exchange(Stream::pp_send, Stream::pp_recv), hw);
  REQUIRE(split.stuck.empty());
  check_close(split.iteration_time, act / Bandwidth::gb_per_s(80) + p2p_latency(false, hw));
  // A transfer's timing starts when it begins: both sides' ops cover the same interval.
  CHECK(split.timelines[0].ops[0].start == split.timelines[1].ops[1].start);
  CHECK(split.timelines[0].ops[0].end == split.timelines[1].ops[1].end);
  const SimulationResult one = replay(exchange(Stream::pp_send, Stream::pp_send), hw);
  CHECK(one.stuck.size() == 2);
}

TEST_CASE("deadlocks are reported, not hung on") {
  const auto hw = test::small_profile();
  SUBCASE("a collective whose other member never issues it") {
    ProgramBuilder b(2);
    const auto tp = b.group(GroupKind::tp, {0, 1}, 0);
    b.add(0, all_reduce(tp, Bytes::of(1000)), Stream::tp);
    b.add(1, gemm(128, 128, 128));
    const SimulationResult r = replay(b.program(), hw);
    REQUIRE(r.stuck.size() == 1);
    CHECK(r.stuck[0].rank == 0);
    CHECK(r.stuck[0].op == 0);
    CHECK(r.stuck[0].reason.find("waiting for members 1 of tp group 0") != std::string::npos);
    CHECK(r.timelines[0].ops[0].end == Time::max());
  }
  SUBCASE("a receive with no send") {
    ProgramBuilder b(2);
    b.group(GroupKind::pp, {0, 1}, 0);
    b.add(1, program::Recv{0, Bytes::of(1000)}, Stream::pp_recv);
    const auto g = b.add(1, gemm(128, 128, 128), Stream::compute, {0});
    (void)g;
    const SimulationResult r = replay(b.program(), hw);
    REQUIRE(r.stuck.size() == 2);
    std::string all;
    for (const StuckOp& s : r.stuck)
      all += s.reason + "\n";
    CHECK(all.find("waiting for matching send from rank 0") != std::string::npos);
    CHECK(all.find("waiting for dep op 0") != std::string::npos);
  }
  SUBCASE("a dependency on a later op of the same stream") {
    ProgramBuilder b(1);
    b.add(0, gemm(128, 128, 128), Stream::compute, {1});
    b.add(0, gemm(128, 128, 128));
    const SimulationResult r = replay(b.program(), hw);
    REQUIRE(r.stuck.size() == 1);
    CHECK(r.stuck[0].reason == "compute stream: waiting for dep op 1");
    CHECK(r.iteration_time == Time::zero());
  }
}

TEST_CASE("malformed programs throw InvalidProgram") {
  const auto hw = test::small_profile();
  ProgramBuilder b(1);
  b.add(0, gemm(128, 128, 128), Stream::compute, {5});
  CHECK_THROWS_AS(replay(b.program(), hw), InvalidProgram);
  ProgramBuilder c(2);
  c.group(GroupKind::tp, {1}, 0);
  c.add(0, all_reduce(0, Bytes::of(10)), Stream::tp);
  CHECK_THROWS_AS(replay(c.program(), hw), InvalidProgram);
  ProgramBuilder d(1);
  d.add(0, program::Free{42});
  CHECK_THROWS_AS(replay(d.program(), hw), InvalidProgram);
}

TEST_CASE("buffer ids: double allocations and stray frees are refused, small ids and large alike") {
  // Ids below the rank's op count take the index's flat table, others its map: both must
  // refuse the same Programs and account the same bytes.
  const auto hw = test::small_profile();
  for (const program::BufferId id :
       {program::BufferId{1}, program::BufferId{1'000'000'007}, program::BufferId{-3}}) {
    CAPTURE(id);
    ProgramBuilder twice(1);
    twice.add(0, Alloc{id, Bytes::of(10), MemoryCategory::activations});
    twice.add(0, Alloc{id, Bytes::of(10), MemoryCategory::activations});
    CHECK_THROWS_WITH_AS(replay(twice.program(), hw),
                         doctest::Contains("allocated twice without a free"), InvalidProgram);
    ProgramBuilder freed_twice(1);
    freed_twice.add(0, Alloc{id, Bytes::of(10), MemoryCategory::activations});
    freed_twice.add(0, Free{id});
    freed_twice.add(0, Free{id});
    CHECK_THROWS_WITH_AS(replay(freed_twice.program(), hw),
                         doctest::Contains("that is not allocated"), InvalidProgram);
    // Freed, the id can be allocated again; the peak is the larger of the two lives.
    ProgramBuilder reused(1);
    reused.add(0, Alloc{id, Bytes::of(10), MemoryCategory::activations});
    reused.add(0, gemm(128, 128, 128));
    reused.add(0, Free{id});
    reused.add(0, Alloc{id, Bytes::of(30), MemoryCategory::temporaries});
    reused.add(0, gemm(128, 128, 128));
    reused.add(0, Free{id});
    const SimulationResult r = replay(reused.program(), hw);
    REQUIRE(r.memory.size() == 1);
    CHECK(r.memory[0].peak == Bytes::of(30));
    CHECK(r.memory[0].at_peak[static_cast<std::size_t>(MemoryCategory::temporaries)] ==
          Bytes::of(30));
  }
}

namespace {
program::Program mixed_program() {
  ProgramBuilder b(8);
  std::vector<program::GroupId> tp, dp;
  for (int i = 0; i < 2; ++i)
    tp.push_back(b.group(GroupKind::tp, {4 * i, 4 * i + 1, 4 * i + 2, 4 * i + 3}, 0));
  for (int j = 0; j < 4; ++j)
    dp.push_back(b.group(GroupKind::dp, {j, j + 4}, 1));
  for (std::size_t r = 0; r < 8; ++r) {
    const auto t = tp[r / 4];
    const auto d = dp[r % 4];
    program::OpIndex last = -1;
    for (int layer = 0; layer < 3; ++layer) {
      const auto g = last < 0 ? b.add(r, gemm(512, 384, 2048))
                              : b.add(r, gemm(512, 384, 2048), Stream::compute, {last});
      const auto ar =
          b.add(r, all_reduce(t, Bytes::of(1'500'000 + 100'000 * layer)), Stream::tp, {g});
      b.add(r, program::Kernel{Bytes::of(4'000'000), Bytes::of(2'000'000), Flops::of(1e5)});
      last = b.add(r, gemm(512, 512, 1024), Stream::compute, {ar}, Phase::backward);
      b.add(r, all_reduce(d, Bytes::of(20'000'000)), Stream::dp, {last});
    }
  }
  return b.program();
}
}  // namespace

TEST_CASE("determinism and the event-stream fingerprint") {
  auto hw = test::small_profile();
  hw.compute_slowdown_during_comm = 0.25;
  const program::Program p = mixed_program();
  Simulation first(p, hw);
  Simulation second(p, hw);
  const SimulationResult a = first.run();
  const SimulationResult b = second.run();
  REQUIRE(a.stuck.empty());
  CHECK(fingerprint(a) == fingerprint(b));
  CHECK(a.events_processed == b.events_processed);
  check_breakdowns_add_up(a);
  // Any change of behaviour changes this number; update it only on purpose.
  MESSAGE("fingerprint " << fingerprint(a) << " iteration " << a.iteration_time.ps() << " ps");
  CHECK(fingerprint(a) == 2110916213746163534ULL);
  CHECK(a.iteration_time == Time::from_ps(30085546773));
}

TEST_CASE("representative replay: the represented ranks' pipeline sends share the NIC too") {
  auto hw = test::small_profile();
  hw.node.gpus = 2;  // stage 0 = ranks 0,1 (node 0), stage 1 = ranks 2,3 (node 1), one NIC each
  const Bytes act = Bytes::of(5'000'000);
  auto build = [&](bool every_rank) {
    ProgramBuilder b = every_rank ? ProgramBuilder(4) : ProgramBuilder(4, {0, 2}, {0, 0, 1, 1});
    b.group(GroupKind::pp, {0, 2}, 0);
    b.group(GroupKind::pp, {1, 3}, 0);
    const std::vector<program::Rank> ranks =
        every_rank ? std::vector<program::Rank>{0, 1, 2, 3} : std::vector<program::Rank>{0, 2};
    for (std::size_t r = 0; r < ranks.size(); ++r) {
      const program::Rank rank = ranks[r];
      if (rank < 2) {
        const auto g = b.add(r, gemm(512, 512, 4096));
        b.add(r, program::Send{rank + 2, act}, Stream::pp_send, {g});
      } else {
        const auto rv = b.add(r, program::Recv{rank - 2, act}, Stream::pp_recv);
        b.add(r, gemm(512, 512, 4096), Stream::compute, {rv});
      }
    }
    return b.program();
  };
  const SimulationResult full = replay(build(true), hw);
  const SimulationResult rep = replay(build(false), hw);
  const Time g = gemm_time(gemm(512, 512, 4096), hw);
  // Two sends share the 10 GB/s NIC: 5 GB/s of wire each, 80 % of it useful.
  check_close(full.iteration_time, g + act / Bandwidth::gb_per_s(4) + p2p_latency(true, hw) + g);
  CHECK(rep.iteration_time == full.iteration_time);
  CHECK(rep.breakdown[1].bubble == full.breakdown[2].bubble);
}

TEST_CASE("concurrent collectives share the efficiency: two all-reduces take twice as long") {
  const auto hw = test::small_profile();
  const Bytes size = Bytes::of(8'000'000);
  auto build = [&](bool both) {
    ProgramBuilder b(2);
    const auto tp = b.group(GroupKind::tp, {0, 1}, 0);
    const auto dp = b.group(GroupKind::dp, {0, 1}, 1);
    for (std::size_t r = 0; r < 2; ++r) {
      b.add(r, all_reduce(tp, size), Stream::tp);
      if (both) b.add(r, all_reduce(dp, size), Stream::dp);
    }
    return b.program();
  };
  const Time latency = ring_latency(program::CollectiveKind::all_reduce, 2, 1, hw);
  // n = 2: per-link volume S at 80 % of 100 GB/s; two on the same ports move 80 GB/s of
  // useful data between them, not 2 x 50.
  const Time one = replay(build(false), hw).iteration_time;
  const Time two = replay(build(true), hw).iteration_time;
  check_close(one, size / Bandwidth::gb_per_s(80) + latency);
  check_close(two, size * 2 / Bandwidth::gb_per_s(80) + latency);
  check_close(two - latency, (one - latency) * 2);
}

TEST_CASE("replay: a 2-node all-reduce of full nodes runs NCCL's tree, or 8 rings on 8 NICs") {
  auto hw = test::rail_profile();
  ProgramBuilder b(16);
  std::vector<program::Rank> all;
  for (program::Rank r = 0; r < 16; ++r)
    all.push_back(r);
  const auto dp = b.group(GroupKind::dp, all, 0);
  const Bytes size = Bytes::of(64'000'000);
  for (std::size_t r = 0; r < 16; ++r)
    b.add(r, all_reduce(dp, size), Stream::dp);
  // The tree (test_collective_model.cpp): 1.75 S out of each GPU at 0.8 x 100 GB/s + 26 us.
  const SimulationResult tree = replay(b.program(), hw);
  check_close(tree.iteration_time,
              Bytes::of(112'000'000) / Bandwidth::gb_per_s(80) + Time::from_us(26), 10);
  Topology topo(hw, 16);
  CHECK(tree.iteration_time ==
        estimate_collective(program::CollectiveKind::all_reduce, size, all, topo, hw));
  // Rings only: busbw = 0.8 x 8 NICs x 10 GB/s.
  hw.collectives.algorithms = {true, false};
  const SimulationResult r = replay(b.program(), hw);
  const Time latency = ring_latency(program::CollectiveKind::all_reduce, 16, 2, hw);
  check_close(r.iteration_time,
              Bytes::of(2 * 15 * 64'000'000 / 16) / Bandwidth::gb_per_s(64) + latency, 10);
  CHECK(r.iteration_time ==
        estimate_collective(program::CollectiveKind::all_reduce, size, all, topo, hw));
}

namespace {
// 2 nodes x 4 GPUs with 2 NICs per node: TP 2 inside a node, DP 4 across both nodes, so each
// DP group has 2 members per node and runs on 2 rings (one per NIC). Per layer a GEMM, a TP
// all-reduce, a GEMM, then a DP all-reduce of gradients overlapping the next layer.
// Representative replay records ranks 0 and 1 (the first TP group), standing for every
// TP group; both DP groups have a recorded member.
program::Program two_node_program(bool every_rank) {
  ProgramBuilder b =
      every_rank ? ProgramBuilder(8) : ProgramBuilder(8, {0, 1}, {0, 1, 0, 1, 0, 1, 0, 1});
  std::vector<program::GroupId> tp;
  for (program::Rank i = 0; i < 4; ++i)
    tp.push_back(b.group(GroupKind::tp, {2 * i, 2 * i + 1}, 0));
  std::vector<program::GroupId> dp;
  for (program::Rank j = 0; j < 2; ++j)
    dp.push_back(b.group(GroupKind::dp, {j, j + 2, j + 4, j + 6}, 1));
  const std::size_t recorded = every_rank ? 8 : 2;
  for (std::size_t r = 0; r < recorded; ++r) {
    const auto t = tp[r / 2];
    const auto d = dp[r % 2];
    program::OpIndex last = -1;
    for (int layer = 0; layer < 3; ++layer) {
      const auto g = last < 0 ? b.add(r, gemm(512, 384, 2048))
                              : b.add(r, gemm(512, 384, 2048), Stream::compute, {last});
      const auto ar = b.add(r, all_reduce(t, Bytes::of(2'000'000)), Stream::tp, {g});
      last = b.add(r, gemm(512, 512, 1024), Stream::compute, {ar}, Phase::backward);
      b.add(r, all_reduce(d, Bytes::of(6'000'000)), Stream::dp, {last});
    }
  }
  return b.program();
}
}  // namespace

TEST_CASE("2 nodes, TP inside and DP across: representative = every-rank replay") {
  auto hw = test::small_profile();
  hw.node.gpus = 4;
  hw.network.nics_per_node = 2;
  hw.compute_slowdown_during_comm = 0.25;
  const SimulationResult full = replay(two_node_program(true), hw);
  const SimulationResult rep = replay(two_node_program(false), hw);
  REQUIRE(full.stuck.empty());
  REQUIRE(rep.stuck.empty());
  CHECK(rep.iteration_time == full.iteration_time);
  for (std::size_t r = 0; r < 2; ++r) {
    REQUIRE(rep.timelines[r].ops.size() == full.timelines[r].ops.size());
    for (std::size_t i = 0; i < rep.timelines[r].ops.size(); ++i) {
      CHECK(rep.timelines[r].ops[i].start == full.timelines[r].ops[i].start);
      CHECK(rep.timelines[r].ops[i].end == full.timelines[r].ops[i].end);
    }
    CHECK(rep.breakdown[r].exposed_comm == full.breakdown[r].exposed_comm);
  }
  // The DP all-reduces cross nodes and are not free.
  CHECK(full.breakdown[0].exposed_comm[static_cast<std::size_t>(GroupKind::dp)] > Time::zero());
  // Every TP group behaves as the recorded one in the every-rank replay.
  for (std::size_t r = 2; r < 8; ++r) {
    CHECK(full.timelines[r].ops.back().end == full.timelines[r % 2].ops.back().end);
  }
}
