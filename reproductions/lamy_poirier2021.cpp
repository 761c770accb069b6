// Lamy-Poirier 2021, "Layered gradient accumulation and modular pipeline parallelism: fast and
// efficient training of large language models" (arXiv 2106.02679), as published-results.md §6
// gives it: the abstract's claims, no numbers. A 1T GPT at Kaplan's critical batch on A100s of
// the nominal selene-a100-80gb profile, at two layouts of the same model and batch: m = p
// (DP 96, 12288 GPUs) and m = 2p (DP 48, 6144 GPUs, the slack the paper's argument needs); in
// each, the same GPUs, batch and layout for every schedule (the layouts and why: the scenario
// files and reproductions/lamy-poirier2021/README.md). The claims are evaluated at each layout.
//
// Per schedule: iteration time, the first stage's bubble over its compute (Megatron's bubble
// over the ideal time, §7.1, the definition the closed forms use), the DP communication the
// most exposed GPU waits on, peak memory, the bytes a GPU sends point to point, and the 5 %
// bandwidth thresholds: the lowest NIC bandwidth (the profile's scaled by a factor found on a
// log2 grid) at which the iteration time, and the forward + backward time, stay
// within 5 % of theirs at the profile's bandwidth. The Program of a row is built once and
// replayed at each bandwidth. Compared with published figures: each schedule's bubble with §7.7's
// closed form, in a replay with every communication free (bubble_form), and the abstract's
// halving of the shortest training time, against Megatron-LM as it was in 2021 (the comment above
// kShortestTimeTokens).
//
// The claims, their thresholds and whether each should hold here were written down from the
// physics (the estimates in the comment above `claims` below) before the first run.

#include "reproductions/lamy_poirier2021.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "inputs/hwprofile_loader.hpp"
#include "inputs/scenario_loader.hpp"
#include "models/build_program.hpp"
#include "models/parallel_for.hpp"
#include "models/scaling_laws.hpp"
#include "reports/program_measures.hpp"
#include "reports/summary.hpp"
#include "reproductions/claims/paper_maps.hpp"
#include "reproductions/comparison_sets.hpp"
#include "reproductions/lamy_shortest_time.hpp"
#include "sim/analysis/training_time.hpp"
#include "sim/replay.hpp"

namespace trainsim::reproductions {
namespace {

constexpr const char* kAbstract =
    "Lamy-Poirier 2021 (arXiv 2106.02679), abstract (published-results.md §6)";
constexpr const char* kClosedForms =
    "parallelism-reference.md §7.7: (p−1)/m, (p−1)/(v·m), p(p−1)/(L·m), free communication; "
    "Δ/C₁, the last stage's extra compute over the first's, from the model's FLOP counts";

// layered_zero3: the paper's full method, layered + modular with ZeRO 3 and layer-input
// checkpoints (full recomputation), for the claims about memory and the network end to end.
enum class Role { one_f_one_b, interleaved, layered, layered_zero3, variant };

struct RowSpec {
  const char* file;
  Role role;
};

// The rows of a layout, in table order: interleaved with every valid chunk count (v divides
// L/p = 8, and m is a multiple of p), the fastest of them standing for interleaved in the
// claims. A Role::variant row gets every figure of the table (its bandwidth thresholds with
// --sweeps).
using Rows = std::array<RowSpec, 6>;

/// One layout of the same model and global batch; every schedule is simulated on it and the
/// claims are evaluated on it.
struct LayoutSpec {
  const char* name;   ///< "m = p", "m = 2p": names its claims, comparisons and sweeps
  const char* id;     ///< "", "-m2p": suffix of its sweeps' file names
  const char* setup;  ///< the layout in words
  bool first_set;     ///< the m = p layout, whose claims keep their original wording
  Rows rows;
};

// m = p: the first layout (why each figure: the scenario files). m = 2p: the same model and
// batch with half the DP replicas (DP 48, 6144 GPUs), so each pipeline runs twice as many
// micro batches as it has stages, the slack the paper's argument needs (why this layout and not
// another: the comments of scenarios/lamy-poirier2021/gpt-1t-dp48-*.yaml).
constexpr std::array<LayoutSpec, 2> kLayouts{{
    {"m = p",
     "",
     "TP 8 with SP × PP 16 × DP 96 on 12288 A100, m = 16 micro batches per pipeline",
     true,
     {{
         {"gpt-1t-1f1b.yaml", Role::one_f_one_b},
         {"gpt-1t-interleaved-v2.yaml", Role::interleaved},
         {"gpt-1t-interleaved-v4.yaml", Role::interleaved},
         {"gpt-1t-interleaved-v8.yaml", Role::interleaved},
         {"gpt-1t-layered.yaml", Role::layered},
         {"gpt-1t-layered-zero3-full.yaml", Role::layered_zero3},
     }}},
    {"m = 2p",
     "-m2p",
     "TP 8 with SP × PP 16 × DP 48 on 6144 A100, m = 32 micro batches per pipeline",
     false,
     {{
         {"gpt-1t-dp48-1f1b.yaml", Role::one_f_one_b},
         {"gpt-1t-dp48-interleaved-v2.yaml", Role::interleaved},
         {"gpt-1t-dp48-interleaved-v4.yaml", Role::interleaved},
         {"gpt-1t-dp48-interleaved-v8.yaml", Role::interleaved},
         {"gpt-1t-dp48-layered.yaml", Role::layered},
         {"gpt-1t-dp48-layered-zero3-full.yaml", Role::layered_zero3},
     }}},
}};

// The slowdown that defines a threshold, and the search's range and resolution: factors of
// the profile's NIC bandwidth from 1/64 to 1, on a grid of 64 steps in log2 (2^(6/64), 7 %;
// the grid the first version's bisection of [1/64, 1] ended on, so its thresholds stay put).
constexpr double kSlowdown = 0.05;
constexpr double kLowestLog2 = -6.0;
constexpr int kGridSteps = 64;
// The search walks down from the profile's bandwidth in strides of kGallopSteps grid steps
// (2^(-0.75), 0.59×) and then bisects the last stride: the thresholds sit within a stride or
// two of the profile's bandwidth, where this takes 4-5 replays against the 7 of a bisection of
// the whole range, and the second threshold of a row reuses most of the first's replays.
constexpr int kGallopSteps = 8;

// The closed forms of §7.7 assume free communication and equal stages. They are compared, like
// with like (issue 18 item 3), with the bubble of a replay in which every communication is free
// (free_communication: NVLink, the NICs, every latency and the host's time to issue them, not
// only the NICs), against the form extended by the one inequality of the stages that replay
// keeps: the last stage holds the head and the loss, the first the embedding (bubble_form).
// Aim 5 % and tolerance 20 % are the ones set before the first run (issue 5, when the replay
// still carried the TP/SP communication and the head was left out), unchanged; the unit-time
// tests (tests/) measure 0.1-3 % above the forms without any communication.
constexpr double kBubbleAim = 0.05;
constexpr double kBubbleTolerance = 0.20;

// The NIC bandwidth that stands for a free inter-node network (the tables' "free network"
// columns and the checks of claims 1 and 2): 100× the profile's, 2.5 TB/s per GPU; NVLink, the
// latencies and the host are left as they are (the closed forms use free_communication).
constexpr double kFreeNetworkLog2 = 6.643856189774724;  // log2(100)

/// What one replay of a row gives.
struct Timing {
  double iteration_s = 0.0;
  double forward_backward_s = 0.0;
  double bubble = 0.0;        ///< first stage: bubble / (compute + recompute)
  double bubble_s = 0.0;      ///< first stage: the bubble itself
  double exposed_dp_s = 0.0;  ///< the most any GPU waits on DP communication
  double exposed_pp_s = 0.0;  ///< the same for pipeline transfers beyond the bubble
  double first_pp_s = 0.0;    ///< first stage: waits on running pipeline transfers
  double first_dp_s = 0.0;    ///< first stage: waits on DP communication
  double compute_s = 0.0;     ///< first stage: compute + recompute
};

Timing measure(const program::Program& program, const sim::SimulationResult& result) {
  Timing t;
  t.iteration_s = result.iteration_time.seconds();
  t.forward_backward_s = reports::forward_backward_time(program, result).seconds();
  const sim::TimeBreakdown& first = result.breakdown.front();  // world rank 0: the first stage
  t.bubble_s = first.bubble.seconds();
  t.compute_s = (first.compute + first.recompute).seconds();
  t.bubble = t.bubble_s / t.compute_s;
  t.first_pp_s = first.exposed_comm[static_cast<std::size_t>(program::GroupKind::pp)].seconds();
  t.first_dp_s = first.exposed_comm[static_cast<std::size_t>(program::GroupKind::dp)].seconds();
  for (const sim::TimeBreakdown& b : result.breakdown) {
    const auto exposed = [&](program::GroupKind kind) {
      return b.exposed_comm[static_cast<std::size_t>(kind)].seconds();
    };
    t.exposed_dp_s = std::max(t.exposed_dp_s, exposed(program::GroupKind::dp));
    t.exposed_pp_s = std::max(t.exposed_pp_s, exposed(program::GroupKind::pp));
  }
  return t;
}

/// The lowest factor of the profile's NIC bandwidth known to keep a time within kSlowdown:
/// `within` is it, `beyond` the highest factor known to slow more (0 when even the lowest
/// tried, 2^kLowestLog2, stays within), with the replay there.
struct Threshold {
  double within = 1.0;
  double beyond = 0.0;
  Timing at_beyond;
};

struct RowFigures {
  Role role = Role::variant;
  std::string layout;
  std::int64_t stages = 1, chunks = 1, micro_batches = 1, layers = 1;
  PipelineSchedule schedule = PipelineSchedule::one_f_one_b;
  int zero = 1;
  Recompute recompute = Recompute::selective;
  /// The last stage's extra work over the first's, over the first's (Δ/C₁), from the model's
  /// FLOP counts: the head's logit GEMMs (forward and backward) over a stage's layers (forward,
  /// backward and what the recomputation re-runs); the embedding's lookup has none.
  double head_share = 0.0;
  Timing base;     ///< at the profile's NIC bandwidth
  Timing free;     ///< at kFreeNetworkLog2
  Timing no_comm;  ///< every communication free (free_communication), rows with a closed form
  double peak_gib = 0.0;
  bool fits = false;
  double p2p_gb = 0.0;  ///< bytes a GPU sends per iteration, the largest over stages
  bool has_thresholds = false;
  Threshold iteration_threshold;
  Threshold forward_backward_threshold;
  std::vector<Timing> sweep;  ///< at sweep_log2() (with options.sweeps)
};

// The plotted sweep: the profile's bandwidth times 2^(−k/2), k = 0 … 12.
std::vector<double> sweep_log2() {
  std::vector<double> out;
  for (int k = 0; k <= 12; ++k)
    out.push_back(-0.5 * k);
  return out;
}

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

/// Replays one row's Program at bandwidths given as log2 of the factor, once each.
class BandwidthReplays {
 public:
  BandwidthReplays(const program::Program& program, const hw::HardwareProfile& hardware)
      : program_(program), hardware_(hardware) {}

  Timing at(double log2_factor) {
    if (auto it = cache_.find(log2_factor); it != cache_.end()) return it->second;
    const hw::HardwareProfile scaled =
        hardware_.with_nic_bandwidth(hardware_.network.nic_bandwidth * std::exp2(log2_factor));
    const Timing timing = measure(program_, sim::replay(program_, scaled));
    cache_.emplace(log2_factor, timing);
    return timing;
  }

  /// The lowest grid point whose time stays within kSlowdown of the time at the profile's
  /// bandwidth, assuming time falls as bandwidth rises (so any search order finds the same
  /// point): a walk down in strides, then a bisection of the stride that crossed.
  template <typename Measure>
  Threshold threshold(Measure measure) {
    const double limit = (1.0 + kSlowdown) * measure(at(0.0));
    const auto log2_at = [](int step) {
      return kLowestLog2 * static_cast<double>(kGridSteps - step) / kGridSteps;
    };
    const auto within = [&](int step) { return measure(at(log2_at(step))) <= limit; };
    int high = kGridSteps;  // within
    int low = high;         // beyond, once found
    while (true) {
      if (high == 0) return {std::exp2(kLowestLog2), 0.0, {}};
      low = std::max(0, high - kGallopSteps);
      if (!within(low)) break;
      high = low;
    }
    while (high - low > 1) {
      const int mid = (low + high) / 2;
      (within(mid) ? high : low) = mid;
    }
    return {std::exp2(log2_at(high)), std::exp2(log2_at(low)), at(log2_at(low))};
  }

 private:
  const program::Program& program_;
  const hw::HardwareProfile& hardware_;
  std::map<double, Timing> cache_;
};

double bytes_sent_gb(const program::Program& program) {
  double largest = 0.0;
  for (const program::RankProgram& rank : program.ranks) {
    double sent = 0.0;
    for (const program::Op& op : rank.ops) {
      if (const auto* send = std::get_if<program::Send>(&op.payload)) {
        sent += static_cast<double>(send->size.count());
      }
    }
    largest = std::max(largest, sent);
  }
  return largest * 1e-9;
}

std::string schedule_of(const RowFigures& r) {
  switch (r.schedule) {
    case PipelineSchedule::interleaved:
      return fmt::format("interleaved, v {}", r.chunks);
    case PipelineSchedule::layered:
      return fmt::format("layered + modular, v {}", r.chunks);
    default:
      return std::string(to_string(r.schedule));
  }
}

// The schedule, and the ZeRO stage and recomputation where they differ from the common layout.
std::string layout_of(const RowFigures& r) {
  std::string out = schedule_of(r);
  if (r.zero != 1) out += fmt::format(", ZeRO {}", r.zero);
  if (r.recompute != Recompute::selective) out += fmt::format(", {} rec.", to_string(r.recompute));
  return out;
}

// Which rows get the bandwidth bisection: every row for the sweeps, else the two the claims
// compare (each bisection replays a 1T pipeline a dozen times).
bool wants_thresholds(Role role, bool sweeps) {
  return sweeps || role == Role::one_f_one_b || role == Role::layered ||
         role == Role::layered_zero3;
}

// The rows compared with a closed form of §7.7: every schedule but the paper's whole method
// (ZeRO 3 and full recomputation change what a pass costs, not the schedule).
bool has_closed_form(Role role) {
  return role != Role::variant && role != Role::layered_zero3;
}

// The closed forms' world: a copy of the profile in which no communication costs anything. Every
// link (NVLink and the NICs) 10^6 times faster and used at NCCL's full efficiency at any size,
// no latency on any hop or collective, no host time to issue a collective or a transfer, and no
// interference between communication and compute; the compute (GEMMs, kernels and the host's
// dispatch of them) is the profile's. A rank still waits for its peers, which is the bubble.
hw::HardwareProfile free_communication(const hw::HardwareProfile& profile) {
  constexpr double kFaster = 1e6;
  const hw::EfficiencyCurve full = hw::EfficiencyCurve::constant(1.0);
  hw::HardwareProfile free = profile;
  free.node.gpu_bandwidth = profile.node.gpu_bandwidth * kFaster;
  free.node.latency = Time::zero();
  if (profile.node.host_bridge_bandwidth) {
    free.node.host_bridge_bandwidth = *profile.node.host_bridge_bandwidth * kFaster;
  }
  free.network.nic_bandwidth = profile.network.nic_bandwidth * kFaster;
  free.network.latency = Time::zero();
  hw::CollectiveSpec& c = free.collectives;
  c.base_latency = Time::zero();
  c.intra_node_efficiency = full;
  c.inter_node_efficiency = full;
  c.intra_node_efficiency_by_group_size.clear();
  c.inter_node_efficiency_by_group_size.clear();
  c.p2p = {Time::zero(), full, full};
  if (free.host) {
    free.host->collective = Time::zero();
    free.host->p2p = Time::zero();
  }
  free.compute_slowdown_during_comm = 0.0;
  free.comm_slowdown_during_compute = 0.0;
  return free;
}

RowFigures run_row(const std::filesystem::path& root, const RowSpec& spec, bool sweeps) {
  const Scenario scenario = inputs::load_scenario(root / "scenarios/lamy-poirier2021" / spec.file);
  const hw::HardwareProfile hardware = inputs::scenario_hardware(scenario);
  const program::Program program = build_program(scenario, ProgramScope::representative);
  const sim::SimulationResult result = sim::replay(program, hardware);
  const reports::Summary summary = reports::summarize(scenario, hardware, program, result);

  RowFigures row;
  row.role = spec.role;
  const ParallelPlan& plan = scenario.parallel;
  row.stages = plan.pipeline.size;
  row.chunks = plan.pipeline.chunks;
  row.schedule = plan.pipeline.schedule;
  row.zero = plan.data.zero;
  row.recompute = plan.recompute;
  row.layers = scenario.model.layers;
  {
    const ModelSpec& m = scenario.model;
    const double layer = m.layer_forward_flops(1).count();
    const double rerun = plan.recompute == Recompute::full ? layer
                         : plan.recompute == Recompute::selective
                             ? m.attention_core_forward_flops(1).count()
                             : 0.0;
    const double stage = static_cast<double>(m.layers / plan.pipeline.size) * (3.0 * layer + rerun);
    row.head_share = 3.0 * m.logit_forward_flops(1).count() / stage;
  }
  row.micro_batches =
      scenario.training.global_batch / (scenario.training.micro_batch * plan.data.size);
  row.layout = layout_of(row);
  row.base = measure(program, result);
  row.peak_gib = summary.memory.peak.as_double() / kGiB;
  row.fits = summary.memory.fits;
  row.p2p_gb = bytes_sent_gb(program);

  BandwidthReplays replays(program, hardware);
  row.free = replays.at(kFreeNetworkLog2);
  if (has_closed_form(spec.role)) {
    row.no_comm = measure(program, sim::replay(program, free_communication(hardware)));
  }
  if (wants_thresholds(spec.role, sweeps)) {
    row.has_thresholds = true;
    row.iteration_threshold = replays.threshold([](const Timing& t) { return t.iteration_s; });
    row.forward_backward_threshold =
        replays.threshold([](const Timing& t) { return t.forward_backward_s; });
  }
  if (sweeps) {
    for (double x : sweep_log2())
      row.sweep.push_back(replays.at(x));
  }
  return row;
}

double closed_form_bubble(const RowFigures& r) {
  const double p = static_cast<double>(r.stages);
  const double m = static_cast<double>(r.micro_batches);
  switch (r.schedule) {
    case PipelineSchedule::one_f_one_b:
    case PipelineSchedule::gpipe:
      return (p - 1.0) / m;
    case PipelineSchedule::layered:  // v = L/p: (p−1)/(v·m) = p(p−1)/(L·m)
      return p * (p - 1.0) / (static_cast<double>(r.layers) * m);
    default:
      return (p - 1.0) / (static_cast<double>(r.chunks) * m);
  }
}

std::string closed_form_text(const RowFigures& r) {
  switch (r.schedule) {
    case PipelineSchedule::one_f_one_b:
    case PipelineSchedule::gpipe:
      return fmt::format("(p−1)/m, p {} m {}", r.stages, r.micro_batches);
    case PipelineSchedule::layered:
      return fmt::format("p(p−1)/(L·m), L {}", r.layers);
    default:
      return fmt::format("(p−1)/(v·m), v {}", r.chunks);
  }
}

// The closed form extended by the stages' inequality, which the replay keeps when every
// communication is free: the head and the loss on the last stage, less the embedding on the
// first, make the last stage busier than the first by Δ = C_last − C_1 per iteration. Δ/C_1 is
// counted from the model's FLOPs (RowFigures::head_share), not taken from the replay, so the
// form holds nothing of ours but the schedule's structure. The derivation, for every
// schedule here: the last stage is the slowest, so once its first input has arrived it is never
// starved (each stage ahead of it produces faster than it consumes; for the looping schedules at
// m >= p a loop turn reaches it no earlier than it finishes the loop before, §7.5); it idles only
// for the fill before its first pass and the drain after its last, which are the closed form's
// bubble, (p−1)/(v·m) of a stage's work (v = 1 for 1F1B, v = L/p for layered). So the iteration
// is fill + C_last + drain, and the first stage, computing C_1 of it, waits the closed form's
// bubble plus Δ: bubble / C_1 = (p−1)/(v·m) + Δ/C_1. Δ/C_1 is ~2 % of the compute at any v and
// m (the head's logit GEMMs are ~1/6 of a layer's FLOPs, a stage has 8 layers); nothing is fitted,
// and nothing else is added. (Until issue 18's review it was measured in the same replay, 1.6 %:
// the head's GEMMs run at a higher efficiency than the layers'; the FLOP count keeps the form
// free of our timings.)
double bubble_form(const RowFigures& r) {
  return closed_form_bubble(r) + r.head_share;
}

Comparison bubble_comparison(const RowFigures& r, const LayoutSpec& layout) {
  Comparison c{fmt::format("{}{}: first stage's bubble / compute, all communication free ({} + "
                           "Δ/C₁, Δ/C₁ = {:.4f} from the model's FLOPs)",
                           layout.first_set ? "" : fmt::format("{}, ", layout.name), r.layout,
                           closed_form_text(r), r.head_share),
               kClosedForms,
               "",
               bubble_form(r),
               r.no_comm.bubble,
               kBubbleAim,
               kBubbleTolerance};
  c.set = set_names::kLamyBubbles;
  return c;
}

std::string threshold_text(const RowFigures& r, const Threshold& t, double nic_gb_per_s) {
  if (!r.has_thresholds) return "–";
  if (t.beyond == 0.0) return fmt::format("< {:.2f} GB/s", t.within * nic_gb_per_s);
  return fmt::format("{:.2f} GB/s", t.within * nic_gb_per_s);
}

documents::ReportTable table(const std::vector<RowFigures>& rows, double nic_gb_per_s,
                             const LayoutSpec& layout) {
  documents::ReportTable t{
      std::string("results") + layout.id,
      {"schedule", "iteration", "bubble", "DP exposed", "PP exposed", "peak memory", "p2p per GPU",
       "5 % threshold, iteration", "5 % threshold, fwd + bwd", "iteration, free network",
       "bubble, free network"},
      {}};
  for (const RowFigures& r : rows) {
    t.add_row(
        {r.layout, fmt::format("{:.2f} s", r.base.iteration_s),
         fmt::format("{:.1f} %", 100.0 * r.base.bubble),
         fmt::format("{:.2f} s", r.base.exposed_dp_s), fmt::format("{:.2f} s", r.base.exposed_pp_s),
         fmt::format("{:.1f} GiB{}", r.peak_gib, r.fits ? "" : " (DOES NOT FIT in 80 GiB)"),
         fmt::format("{:.1f} GB", r.p2p_gb), threshold_text(r, r.iteration_threshold, nic_gb_per_s),
         threshold_text(r, r.forward_backward_threshold, nic_gb_per_s),
         fmt::format("{:.2f} s", r.free.iteration_s),
         fmt::format("{:.1f} %", 100.0 * r.free.bubble)});
  }
  return t;
}

const RowFigures& only(const std::vector<RowFigures>& rows, Role role) {
  return *std::find_if(rows.begin(), rows.end(),
                       [&](const RowFigures& r) { return r.role == role; });
}

const RowFigures& fastest_interleaved(const std::vector<RowFigures>& rows) {
  const RowFigures* best = nullptr;
  for (const RowFigures& r : rows) {
    if (r.role == Role::interleaved && (!best || r.base.iteration_s < best->base.iteration_s)) {
      best = &r;
    }
  }
  return *best;
}

// The abstract's claims, each reduced to a test on this setup. The thresholds and the
// predicted outcome come from estimates made before the first run (Ψ = 7.8 B parameters per
// GPU; ~6.5 s of compute per GPU per iteration; a gradient reduce-scatter and a parameter
// all-gather of ~0.65 s each at 25 GB/s per NIC):
// - bubble: the closed forms give 1F1B (p−1)/m = 0.94 and layered p(p−1)/(L·m) = 0.12, a
//   ratio of v = 8; we ask for 4 to leave room for communication and the head.
// - iteration time: (1 + 0.94)/(1 + 0.12) = 1.73 before communication; we ask for 1.5. The
//   abstract's "halves the shortest training time" compares each method at its own best
//   layout (more DP replicas for layered), which this fixed layout does not search.
// - forward + backward threshold: 1F1B can hide a gradient reduce-scatter only behind its last
//   micro batch's backward (~0.26 s), so it slows by 5 % once the reduce-scatter outgrows
//   that by 5 % of the pass (~0.5× the bandwidth); layered hides each layer's reduce-scatter
//   (1/8 of it) behind the next layer's backward over all 16 micro batches (~0.5 s), so it
//   holds to ~0.15×: predicted ratio ~3, we ask for 2.
// - iteration threshold: ZeRO 1's all-gather of the updated parameters follows the optimizer
//   step in every schedule and grows as 1/bandwidth; 5 % of the iteration is 0.35 s (layered)
//   and 0.7 s (1F1B), so both thresholds sit near 0.6× (predicted ratio ~1): the claim of a
//   2× lower threshold should not hold at ZeRO 1, only once the gather overlaps (ZeRO 3).
// - memory: ZeRO 1 keeps bf16 weights and gradients of Ψ per GPU, 29 GiB of 80, so "a tiny
//   fraction" (we ask for 25 %) should not hold; it needs the ZeRO 3 rows.
//
// After the first runs (disclosed as such in each claim's explanation). With all transfers on
// one in-order stream, three claims predicted to hold did not: layered's 16 transfers per micro
// batch convoyed around the ring. Sends and receives now run on streams of their own, each
// schedule in its runtime's order (models/pipeline_schedule.hpp), and claims 1 and 2 hold as
// predicted. Claims 4 and 8 still do not: m = p leaves the looping schedule no slack (§7.5),
// so at each of its 2v loop turns the first stage waits for a chain of p stage-to-stage
// transfers, and those grow as 1/bandwidth like the gradient reduction they were to spare.
// The check: where the time first slows by more than 5 %, the first stage's waits on the
// transfers (exposed PP + bubble) account for at least half of the growth.
//
// The second set, m = 2p (DP 48, 6144 GPUs, m = 32): the same claims with the same thresholds
// and predicted outcomes, kept as they are whatever the runs show. Our estimates, written down
// before its first run (compute per GPU doubles to ~13 s; a layer's fp32 gradient
// reduce-scatter ~0.16 s at 25 GB/s, the same per GPU at DP 48 as at 96):
// - bubble: closed forms 15/32 = 0.47 against 240/4096 = 0.059, ratio 8; the slack hides the
//   chain of transfers at the loop turns, so layered should sit nearer its form: holds.
// - iteration: the closed forms alone give (1 + 0.47)/(1 + 0.059) = 1.39, below the 1.5 asked
//   for; with 1F1B's ~1 s more exposed DP, ~1.43. We expect claim 2 to miss at m = 2p: slack
//   shrinks 1F1B's bubble as much as it helps layered (the paper's halving compares each
//   method at its own best layout).
// - forward + backward threshold: slack hides the transfers (13 MB, ~1.6 ms, against ~25 ms
//   passes); layered then exposes only its last layer's reduce-scatter (~0.16 s) against 5 % of
//   ~14 s, 1F1B the whole stage's (~1.1 s) against 5 % of ~21 s: ratio ~3, holds.
// - ZeRO 3 end to end: the first gather and the last reduce-scatter (~0.75 s at 25 GB/s) are
//   exposed against 5 % of ~17 s; 1F1B's reduce-scatter and all-gather ~2.6 s against 5 % of
//   ~22 s: ratio ~1.5, below 2; uncertain (the SM slowdown of claim 8 at m = p adds to it).
// - memory: layered with ZeRO 1 keeps all 32 micro batches' activations, ~57 GB on ~33 GB of
//   states: over 80 GiB (claim 6 does not hold, as predicted); ZeRO 3 + checkpoints ~16-18 GiB,
//   under 20 (claim 7 holds).
constexpr const char* kLoopTurns =
    "m = p leaves the looping schedule no slack: at each of its 2v = 16 loop turns the first "
    "stage waits for a chain of p = 16 stage-to-stage transfers (13 MB each), which grow as "
    "1/bandwidth like the gradient reduction";

// Found after the m = 2p run, its root cause not found in that session: the slack does not
// hide the stage-to-stage transfers in our replay. The first stage waits on running transfers
// about one transfer's time per pass at m = 2p as at m = p (the per-pass figure below), where a
// looping schedule with p passes of slack per turn should wait for none. A lead from reading
// the executor, not checked here: placed_steps (models/pipeline_schedule.cpp) posts a receive
// once the unit-time schedule has produced its tensor, which inside a turn, where a stage runs
// one pass behind its producer, is right after the receiver's previous pass; the transfer then
// overlaps none of the receiver's compute, whatever the slack. The check is the m = p one,
// unchanged.
std::string transfers_with_slack(const RowFigures& layered) {
  const double passes = 2.0 * static_cast<double>(layered.micro_batches * layered.chunks);
  return fmt::format(
      "found after the run, its root cause open: the slack does not hide the stage-to-stage "
      "transfers in our replay; at the profile's bandwidth layered's first stage waits {:.3f} s "
      "on running transfers, {:.2f} ms for each of its {} passes (a 13 MB transfer's time), and "
      "those waits grow as 1/bandwidth like the gradient reduction",
      layered.base.first_pp_s, 1e3 * layered.base.first_pp_s / passes, passes);
}

// At the search's first point beyond the threshold: the growth of the first stage's waits on
// pipeline transfers (exposed PP + bubble) and of the measured time, and whether the waits make
// at least half of it.
struct TransferShare {
  double transfers_s = 0.0;
  double time_s = 0.0;
  bool holds = false;
};

TransferShare transfer_share(const Timing& base, const Threshold& t, double Timing::*time) {
  TransferShare share;
  share.transfers_s =
      (t.at_beyond.first_pp_s + t.at_beyond.bubble_s) - (base.first_pp_s + base.bubble_s);
  share.time_s = t.at_beyond.*time - base.*time;
  share.holds = t.beyond > 0.0 && share.time_s > 0.0 && share.transfers_s >= 0.5 * share.time_s;
  return share;
}

std::vector<Claim> claims(const std::vector<RowFigures>& rows, double nic_gb_per_s,
                          const LayoutSpec& layout) {
  const RowFigures& base = only(rows, Role::one_f_one_b);
  const RowFigures& layered = only(rows, Role::layered);
  const RowFigures& interleaved = fastest_interleaved(rows);
  std::vector<Claim> out;

  const auto bubble_ratio = [&](Timing RowFigures::*at) {
    return (base.*at).bubble / (layered.*at).bubble;
  };
  Claim bubble{
      "Layered + modular has a smaller pipeline bubble than 1F1B at the same batch: at least 4× "
      "smaller (closed forms: v = L/p = 8×)",
      kAbstract + std::string(" (mechanism: parallelism-reference §7.6, §10.2)"),
      fmt::format("bubble 1F1B {:.1f} %, layered {:.1f} % ({:.2f}×); best interleaved ({}) "
                  "{:.1f} %",
                  100.0 * base.base.bubble, 100.0 * layered.base.bubble,
                  bubble_ratio(&RowFigures::base), interleaved.layout,
                  100.0 * interleaved.base.bubble),
      bubble_ratio(&RowFigures::base) >= 4.0,
      true,
      "",
      "",
      false};
  bubble.explanation = fmt::format(
      "the pipeline transfers; check: with free transfers (100× NIC) the ratio is "
      "{:.2f}× (≥ 4 needed)",
      bubble_ratio(&RowFigures::free));
  bubble.explanation_holds = bubble_ratio(&RowFigures::free) >= 4.0;
  out.push_back(bubble);

  const auto speedup = [&](Timing RowFigures::*at) {
    return (base.*at).iteration_s / (layered.*at).iteration_s;
  };
  Claim time{
      "\"Together cut the shortest training time by half\", reduced to this fixed layout: "
      "layered's iteration is at least 1.5× shorter than 1F1B's",
      kAbstract,
      fmt::format("iteration 1F1B {:.2f} s, layered {:.2f} s ({:.2f}×); best interleaved "
                  "{:.2f} s",
                  base.base.iteration_s, layered.base.iteration_s, speedup(&RowFigures::base),
                  interleaved.base.iteration_s),
      speedup(&RowFigures::base) >= 1.5,
      true,
      "",
      "",
      false};
  time.explanation = fmt::format(
      "the pipeline transfers; check: with free transfers layered is {:.2f}× faster "
      "(≥ 1.5 needed)",
      speedup(&RowFigures::free));
  time.explanation_holds = speedup(&RowFigures::free) >= 1.5;
  if (!layout.first_set) {
    // Estimated before the m = 2p run (comment above): the closed forms alone stay below 1.5
    // there. The check, chosen after the run: layered's speedup on a free network is within
    // 5 % of the forms' ratio, so what is missing is the schedules' arithmetic, not the network.
    const double forms = (1.0 + closed_form_bubble(base)) / (1.0 + closed_form_bubble(layered));
    const double free = speedup(&RowFigures::free);
    time.explanation = fmt::format(
        "slack shrinks 1F1B's bubble as much as layered's: the closed forms alone give "
        "(1 + (p−1)/m)/(1 + p(p−1)/(L·m)) = {:.2f} at m = {}, below the 1.5 asked for "
        "(estimated before the run); check: with free transfers layered is {:.2f}× faster, "
        "within 5 % of the forms' {:.2f} (needed) and below 1.5",
        forms, layered.micro_batches, free, forms);
    time.explanation_holds = forms < 1.5 && free < 1.5 && std::abs(free / forms - 1.0) <= 0.05;
  }
  out.push_back(time);

  out.push_back(
      {"Layered gradient accumulation exposes less data-parallel communication than "
       "1F1B (each layer's gradients reduce behind the earlier layers' backward)",
       kAbstract + std::string(" (\"reduce data movement\"; mechanism §7.6)"),
       fmt::format("exposed DP, most exposed GPU: 1F1B {:.3f} s, layered {:.3f} s, best "
                   "interleaved {:.3f} s",
                   base.base.exposed_dp_s, layered.base.exposed_dp_s,
                   interleaved.base.exposed_dp_s),
       layered.base.exposed_dp_s < base.base.exposed_dp_s, true, "", "", false});

  // "5 % threshold of the iteration time: 1F1B …, layered … (…×); best interleaved …".
  const auto threshold_evidence = [&](const char* what, Threshold RowFigures::*field) {
    return fmt::format(
        "5 % threshold of the {}: 1F1B {}, layered {} ({:.2f}×); best "
        "interleaved {}",
        what, threshold_text(base, base.*field, nic_gb_per_s),
        threshold_text(layered, layered.*field, nic_gb_per_s),
        (base.*field).within / (layered.*field).within,
        threshold_text(interleaved, interleaved.*field, nic_gb_per_s));
  };
  const auto threshold_ratio = [&](Threshold RowFigures::*field) {
    return (base.*field).within / (layered.*field).within;
  };
  Claim network{
      "\"A fast InfiniBand connection is not necessary\", for the gradient reduction: the NIC "
      "bandwidth below which the forward + backward time degrades by more than 5 % is at least "
      "2× lower for layered than for 1F1B",
      kAbstract,
      threshold_evidence("forward + backward time", &RowFigures::forward_backward_threshold),
      threshold_ratio(&RowFigures::forward_backward_threshold) >= 2.0,
      true,
      "",
      "",
      false};
  const Threshold& fb = layered.forward_backward_threshold;
  const std::string cause = layout.first_set ? kLoopTurns : transfers_with_slack(layered);
  const TransferShare fb_share = transfer_share(layered.base, fb, &Timing::forward_backward_s);
  network.explanation = fmt::format(
      "{}; check: at {:.2f} GB/s, where layered's forward + backward first slows by more than "
      "5 % ({:+.3f} s), its first stage's waits on transfers grew by {:.3f} s (at least half "
      "needed)",
      cause, fb.beyond * nic_gb_per_s, fb_share.time_s, fb_share.transfers_s);
  network.explanation_holds = fb_share.holds;
  out.push_back(network);

  out.push_back(
      {"\"A fast InfiniBand connection is not necessary\", end to end: the NIC "
       "bandwidth below which the iteration time degrades by more than 5 % is at "
       "least 2× lower for layered than for 1F1B",
       kAbstract, threshold_evidence("iteration time", &RowFigures::iteration_threshold),
       threshold_ratio(&RowFigures::iteration_threshold) >= 2.0, false,
       "with ZeRO 1 the all-gather of the updated parameters follows the optimizer "
       "step in every schedule and grows as 1/bandwidth, so it sets both thresholds; "
       "to be checked again with the ZeRO 3 rows",
       "", false});

  out.push_back(
      {"Layered + ZeRO partitioning brings memory use to a tiny fraction of the GPU's: "
       "peak memory per GPU below 25 % of 80 GiB",
       kAbstract,
       fmt::format("peak per GPU: layered {:.1f} GiB, 1F1B {:.1f} GiB, best interleaved "
                   "{:.1f} GiB",
                   layered.peak_gib, base.peak_gib, interleaved.peak_gib),
       layered.peak_gib < 0.25 * 80.0, false,
       "ZeRO 1 keeps the bf16 weights and fp32 gradients of 7.8 B parameters on every "
       "GPU; the next claim adds ZeRO 3",
       "", false});

  // The paper's method in full: ZeRO 3 and layer-input checkpoints. Expected from the
  // physics: states 16 B x 7.8 B parameters / 96 = 1.3 GB, checkpoints m·(L/p)·2sbh/t =
  // 16 x 8 x 13 MB = 1.7 GB, one gathered layer (2 GB bf16) and its fp32 gradient bucket
  // (3.9 GB) plus a prefetch and one layer's recomputed activations: ~10-15 GiB.
  const RowFigures& zero3 = only(rows, Role::layered_zero3);
  out.push_back(
      {"With ZeRO 3 and layer-input checkpoints (full recomputation), layered + modular brings "
       "memory use to a tiny fraction of the GPU's: peak memory per GPU below 25 % of 80 GiB",
       kAbstract,
       fmt::format("peak per GPU: {} {:.1f} GiB; {} {:.1f} GiB", zero3.layout, zero3.peak_gib,
                   base.layout, base.peak_gib),
       zero3.peak_gib < 0.25 * 80.0, true, "", "", false});

  // ZeRO 3 gathers each layer once per direction and reduce-scatters it once per step,
  // behind the other layers' passes: ~8 B per parameter per step (62 GB per GPU, 2.5 s of NIC
  // time at 25 GB/s in a ~15 s iteration), so its time should hold until the NIC is several
  // times slower; 1F1B with ZeRO 1 exposes the all-gather after the step at any bandwidth.
  out.push_back(
      {"\"A fast InfiniBand connection is not necessary\", the paper's method end to end: the NIC "
       "bandwidth below which the iteration time degrades by more than 5 % is at least 2× lower "
       "for layered + modular with ZeRO 3 and checkpoints than for 1F1B with ZeRO 1",
       kAbstract,
       fmt::format("5 % threshold of the iteration time: 1F1B {}, {} {} ({:.2f}×)",
                   threshold_text(base, base.iteration_threshold, nic_gb_per_s), zero3.layout,
                   threshold_text(zero3, zero3.iteration_threshold, nic_gb_per_s),
                   base.iteration_threshold.within / zero3.iteration_threshold.within),
       base.iteration_threshold.within / zero3.iteration_threshold.within >= 2.0, true, "", "",
       false});
  // Found after the run: with ZeRO 3 the first layer's gather before the first pass and the
  // last layer's reduce-scatter after the last cannot overlap anything, and at m = p neither
  // can the transfers at the loop turns; all three grow as 1/bandwidth. The first stage sets
  // the time, and the rest of its growth is its compute: slowed while collectives hold SMs
  // (the profile's compute_slowdown_during_comm), and the longer ZeRO 3 collectives overlap more
  // of it. The check (chosen after the runs, as claim 4's): the waits on transfers and DP
  // account for at least half of the growth.
  const Threshold& it = zero3.iteration_threshold;
  const TransferShare it_share = transfer_share(zero3.base, it, &Timing::iteration_s);
  const double dp_growth = it.at_beyond.first_dp_s - zero3.base.first_dp_s;
  const double compute_growth = it.at_beyond.compute_s - zero3.base.compute_s;
  out.back().explanation = fmt::format(
      "{}; with ZeRO 3 also the first layer's parameter gather before the first pass and the "
      "last layer's gradient reduce-scatter after the last; check: at {:.2f} GB/s, where its "
      "iteration first slows by more than 5 % ({:+.3f} s), its first stage's waits on "
      "transfers grew by {:.3f} s and on DP communication by {:.3f} s (together at least half "
      "needed), its compute by {:.3f} s (slowed while the longer collectives hold SMs)",
      cause, it.beyond * nic_gb_per_s, it_share.time_s, it_share.transfers_s, dp_growth,
      compute_growth);
  out.back().explanation_holds = it.beyond > 0.0 && it_share.time_s > 0.0 &&
                                 it_share.transfers_s + dp_growth >= 0.5 * it_share.time_s;
  // The second set: the same claims, thresholds and predicted outcomes, named by their layout.
  if (!layout.first_set) {
    for (std::size_t i = 0; i < out.size(); ++i) {
      out[i].statement = fmt::format("Claim {} at {} ({}): {}", i + 1, layout.name, layout.setup,
                                     out[i].statement);
    }
  }
  return out;
}

std::vector<Sweep> bandwidth_sweeps(const std::vector<RowFigures>& rows, double nic_gb_per_s,
                                    const LayoutSpec& layout) {
  const std::vector<double> xs = sweep_log2();
  const auto make = [&](const char* id, const char* what, double Timing::*field) {
    Sweep sweep;
    sweep.id = std::string(id) + layout.id;
    sweep.title = fmt::format(
        "{} over its value at {:g} GB/s per NIC, against the NIC bandwidth (1T GPT, {}, {}, "
        "batch 1536; 1.05 is the threshold)",
        what, nic_gb_per_s, layout.name, layout.setup);
    sweep.x_label = "NIC bandwidth per direction (GB/s)";
    sweep.y_label = fmt::format("{} / at {:g} GB/s", what, nic_gb_per_s);
    sweep.log_x = true;
    for (const RowFigures& r : rows)
      sweep.series.push_back({r.layout, {}});
    for (std::size_t i = 0; i < xs.size(); ++i) {
      std::vector<double> values;
      for (const RowFigures& r : rows)
        values.push_back(r.sweep[i].*field / r.base.*field);
      sweep.add_row(std::exp2(xs[i]) * nic_gb_per_s, values);
    }
    return sweep;
  };
  return {make("sweep-bandwidth-iteration", "iteration time", &Timing::iteration_s),
          make("sweep-bandwidth-forward-backward", "forward + backward time",
               &Timing::forward_backward_s)};
}

}  // namespace

struct SidePoint {
  const lamy::Side* side = nullptr;
  sim::TrainingPoint best;
  double ratio = 0.0;  ///< this side's training time over the paper's method's
};

struct ShortestTime {
  sim::TrainingPoint paper;
  SidePoint baseline;             ///< the compared one: Megatron 2021's 1F1B
  std::vector<SidePoint> ladder;  ///< lamy::ladder()'s, in order
};

ShortestTime shortest_time(const std::filesystem::path& root) {
  const Scenario scenario =
      inputs::load_scenario(root / "scenarios/lamy-poirier2021/gpt-1t-1f1b.yaml");
  const hw::HardwareProfile hardware = inputs::scenario_hardware(scenario);
  lamy::Searches searches(scenario.model, hardware, scenario.training.global_batch);
  ShortestTime s;
  s.paper = searches.best(lamy::paper_method());
  const auto against_paper = [&](const lamy::Side& side) {
    SidePoint f{&side, searches.best(side), 0.0};
    f.ratio = f.best.seconds / s.paper.seconds;
    return f;
  };
  s.baseline = against_paper(lamy::megatron_1f1b());
  for (const lamy::Side& side : lamy::ladder())
    s.ladder.push_back(against_paper(side));
  return s;
}

// Issue 18 holds every seed claim to ±20 % (issue 7's 25 % for this row predates it); the
// paper's 2× against Megatron-LM 2021's 1F1B comes out 1.57× (-21.5 %), so the row is kept
// failing, with the claim map as its evidence: no plausible baseline or network gives 2× ± 20 %.
constexpr double kShortestTimeTolerance = 0.20;

Comparison shortest_time_comparison(const ShortestTime& s, const claim_maps::ClaimMap& map) {
  Comparison c;
  c.figure =
      "shortest training time, Megatron-LM 2021 1F1B (Narayanan's 1T schedule) over layered + "
      "modular with ZeRO 3 and checkpoints (issue 7 search, §10.2 reconstruction)";
  c.source = kAbstract;
  c.unit = "×";
  c.published = 2.0;
  c.predicted = s.baseline.ratio;
  c.aim = 0.10;
  c.tolerance = kShortestTimeTolerance;
  c.set = set_names::kLamyShortestTime;
  c.not_reproduced = NotReproduced{
      fmt::format(
          "against Megatron-LM as it was in 2021 the paper's method trains {:.2f}× faster with "
          "Megatron's 1F1B (Narayanan's 1T schedule), {:.2f}× with the interleaving Megatron "
          "already offered, and at most {:.2f}× once the 2022 features are there; a slower "
          "network lowers the ratio rather than raising it, so no setup plausible for a June "
          "2021 paper halves the shortest training time in our search (the paper's own analysis "
          "is not available to us, §10.2 is our reconstruction)",
          s.baseline.ratio, s.ladder.front().ratio,
          s.ladder[lamy::kDistributedOptimizerRung].ratio),
      fmt::format("map {}: {} setups, none plausible within ±{:.0f} %; the closest, {}, gives "
                  "{:.3g}× ({:+.1f} %)",
                  map.spec.id, map.evaluations, 100.0 * map.spec.tolerance,
                  map.spec.describe_change(map.closest), map.closest_value.ratio,
                  100.0 * map.signed_error(map.closest_value)),
      !map.reproduced_plausibly()};
  return c;
}

documents::ReportTable shortest_time_table(const ShortestTime& s) {
  documents::ReportTable t{"shortest-time",
                           {"side", "best point (GPUs, batch, layout)", "iteration", "steps",
                            "days", "time over the paper's method's"},
                           {}};
  const auto add = [&](const std::string& side, const sim::TrainingPoint& p, double ratio) {
    t.add_row({side, fmt::format("{} GPUs, batch {}, {}", p.gpus, p.batch, lamy::layout_text(p)),
               fmt::format("{:.2f} s", p.layout.iteration.seconds()),
               fmt::format("{:.0f}", p.steps), fmt::format("{:.1f}", p.seconds / 86400.0),
               fmt::format("{:.2f}×", ratio)});
  };
  add(lamy::paper_method().name, s.paper, 1.0);
  add(std::string(s.baseline.side->name) + " (compared)", s.baseline.best, s.baseline.ratio);
  for (const SidePoint& f : s.ladder)
    add(f.side->name, f.best, f.ratio);
  return t;
}

// Claim 17, first written for issue 7's pairing (2023-era Megatron at PP 16 against layered with
// the same features), now for the top of the ladder: with every later feature the baseline fits
// at PP 16 and its best run interleaves one layer per chunk. Predicted to hold, as before.
Claim one_layer_chunks(const ShortestTime& s, std::int64_t layers) {
  const SidePoint& top = s.ladder.back();
  const ParallelPlan& plan = top.best.layout.candidate.layout.plan;
  const std::int64_t one_layer = layers / plan.pipeline.size;
  Claim c;
  c.statement = fmt::format(
      "With every later Megatron feature (DP overlap, distributed optimizer, SP + selective "
      "recomputation) the best 1F1B/interleaved run interleaves one layer per chunk (v = L/p = "
      "{}), whose bubble (p−1)/(v·m) is the modular pipeline's p(p−1)/(L·m): its training time "
      "is {:.2f}× the paper's method's",
      one_layer, top.ratio);
  c.source = "our analysis (parallelism-reference §7.4, §7.6, §10.2)";
  c.evidence = fmt::format("best with every feature: {}; the paper's method: {}",
                           lamy::point_text(top.best), lamy::point_text(s.paper));
  c.holds =
      plan.pipeline.schedule == PipelineSchedule::interleaved && plan.pipeline.chunks == one_layer;
  return c;
}

// Claim 18: the compared baseline does not interleave; Megatron-LM could (v 2 at PP 64, one layer
// per chunk, as Narayanan's 530B row). Predicted (comment above shortest_time's constants):
// ≈ 1.43, so below 1.5, the lower edge of the comparison's tolerance.
Claim against_best_2021(const ShortestTime& s) {
  const SidePoint& best = s.ladder.front();
  Claim c;
  c.statement =
      "Against Megatron-LM 2021's best schedule (interleaving allowed, as Narayanan's runs up to "
      "530B), the paper's method trains less than 1.5× faster (below issue 7's 25 % tolerance of "
      "2×, the threshold set before the run): "
      "the published 2× needs a baseline that does not interleave";
  c.source =
      kAbstract + std::string(" (baseline: published-results.md §2, parallelism-reference §7.4)");
  c.evidence = fmt::format(
      "{:.2f}×: best Megatron-LM 2021: {}; the paper's method: {}; 1F1B "
      "only: {:.2f}×",
      best.ratio, lamy::point_text(best.best), lamy::point_text(s.paper), s.baseline.ratio);
  c.holds = best.ratio < 1.5;
  return c;
}

// Claim 19: which later feature closes the gap. Predicted: the distributed optimizer, which
// lets the baseline fit at PP 16 and interleave one layer per chunk (≈ 1.40 → 1.05, then 1.0
// with SP + selective). After the first run: its verdict depends on the ladder's rule, changed
// after that run (the comment above kShortestTimeTokens).
Claim gap_closer(const ShortestTime& s) {
  std::size_t largest = 1;
  std::string steps;
  const auto drop = [&](std::size_t i) { return s.ladder[i - 1].ratio - s.ladder[i].ratio; };
  for (std::size_t i = 1; i < s.ladder.size(); ++i) {
    if (drop(i) > drop(largest)) largest = i;
    steps += fmt::format("; {}: {:.3f}× (−{:.3f}; {})", s.ladder[i].side->name, s.ladder[i].ratio,
                         drop(i), lamy::layout_text(s.ladder[i].best));
  }
  Claim c;
  c.statement =
      "Of the Megatron features that came after the paper, the distributed optimizer closes "
      "most of the gap: the ladder's largest drop in the shortest-time ratio comes with ZeRO 1, "
      "which lets the baseline fit at fewer stages";
  c.source = "our analysis (parallelism-reference §8.1, §10.2)";
  c.evidence =
      fmt::format("{}: {:.3f}×{}", s.ladder.front().side->name, s.ladder.front().ratio, steps);
  c.holds = largest == lamy::kDistributedOptimizerRung;
  return c;
}

ReproductionReport run_lamy_poirier2021(const std::filesystem::path& root,
                                        const ReproductionOptions& options) {
  const double nic_gb_per_s =
      inputs::load_hardware_profile(root / "hwprofiles/selene-a100-80gb.yaml")
          .network.nic_bandwidth.gb_per_s();
  // The batch of every row (the scenario files' global batch × sequence length), quoted with
  // the loss at which Kaplan's law makes it critical.
  const scaling::Tokens batch_tokens = scaling::Tokens::of(1536.0 * 2048.0);
  ReproductionReport report;
  report.notes = fmt::format(
      "1T GPT (128 layers, hidden 25600, 160 heads, sequence 2048) on A100 of "
      "selene-a100-80gb, TP 8 with SP, ZeRO 1, micro batch 1, selective recomputation; global "
      "batch 1536 = {:.2f} M tokens, Kaplan's critical batch at a loss of {:.2f} nats. Two layouts "
      "of the same model and batch: m = p (DP 96) and m = 2p (DP 48, the slack the paper's "
      "argument needs); in each, the same GPUs, batch and layout for every schedule. "
      "Predictions: the paper's numbers are not in our docs.\n"
      "bubble: the first stage's idle time waiting on other stages over its compute; DP exp. / "
      "PP exp.: the most any GPU waits on DP (gradient reduce-scatter, parameter all-gather) / "
      "pipeline transfers beyond the bubble; p2p: bytes a GPU sends to other stages per "
      "iteration; 5 % thr.: the lowest NIC bandwidth (the profile's {:g} GB/s scaled, on a grid "
      "of 2^(6/64) = 7 % steps in log2, range 1/64 to 1) at which the iteration time (it.) or "
      "the forward + backward time without the optimizer step (f+b) stays within 5 % of its "
      "value at {:g} GB/s (– : not searched without --sweeps); free network: iteration and bubble "
      "with 100× the NIC bandwidth (the comparisons with the closed forms replay with every "
      "communication free, NVLink too).\n",
      batch_tokens.count() / 1e6, scaling::loss_at_critical_batch(batch_tokens), nic_gb_per_s,
      nic_gb_per_s);
  // Every row of both layouts is independent (its own scenario, Program and replays): they run
  // on the machine's cores, each into its own slot, and are read in the fixed order below, so
  // the report does not depend on the thread count (the sweeps take minutes per row).
  std::vector<const RowSpec*> specs;
  for (const LayoutSpec& layout : kLayouts) {
    for (const RowSpec& spec : layout.rows)
      specs.push_back(&spec);
  }
  std::vector<RowFigures> all_rows(specs.size());
  for_each_in_parallel(
      specs.size(), [&](std::size_t i) { all_rows[i] = run_row(root, *specs[i], options.sweeps); });
  std::size_t next_row = 0;
  for (const LayoutSpec& layout : kLayouts) {
    std::vector<RowFigures> rows;
    for (std::size_t i = 0; i < layout.rows.size(); ++i)
      rows.push_back(std::move(all_rows[next_row++]));
    for (const RowFigures& r : rows) {
      if (has_closed_form(r.role)) report.comparisons.push_back(bubble_comparison(r, layout));
    }
    for (Claim& claim : claims(rows, nic_gb_per_s, layout))
      report.claims.push_back(std::move(claim));
    report.notes += fmt::format("{} (table results{}): {}\n", layout.name, layout.id, layout.setup);
    report.tables.push_back(table(rows, nic_gb_per_s, layout));
    if (options.sweeps) {
      for (Sweep& sweep : bandwidth_sweeps(rows, nic_gb_per_s, layout))
        report.sweeps.push_back(std::move(sweep));
    }
  }
  const ShortestTime shortest = shortest_time(root);
  // The claim map of the halving (the row's evidence); its searches span B_crit on 12288 GPUs
  // only, so at the profile's network it must find the comparison's own figure (every side's
  // best lies there).
  std::vector<claim_maps::ClaimMapSpec> map_specs = claim_maps::lamy_poirier2021_maps(root);
  const claim_maps::ClaimMap map = claim_maps::run_claim_map(std::move(map_specs.front()), 1);
  // Both 2021 baselines at the profile's network: the map's first axis (values 0 and 1, the
  // compared 1F1B and the best 2021 schedule) against the full searches.
  const auto check = [&](double mapped, double full, const char* which) {
    if (std::fabs(mapped - full) > 1e-9 * full) {
      throw std::logic_error(fmt::format(
          "lamy-poirier2021: the shortest-time map's narrow search gives {} against {} at the "
          "profile's network, the full search {}: a best point lies outside B_crit on 12288 GPUs",
          mapped, which, full));
    }
  };
  check(map.lines[0].values[0].ratio, shortest.baseline.ratio, "Megatron-LM 2021's 1F1B");
  check(map.lines[0].values[1].ratio, shortest.ladder.front().ratio,
        "Megatron-LM 2021's best schedule");
  report.comparisons.push_back(shortest_time_comparison(shortest, map));
  report.tables.push_back(shortest_time_table(shortest));
  const std::int64_t layers =
      inputs::load_scenario(root / "scenarios/lamy-poirier2021/gpt-1t-1f1b.yaml").model.layers;
  report.claims.push_back(one_layer_chunks(shortest, layers));
  report.claims.push_back(against_best_2021(shortest));
  report.claims.push_back(gap_closer(shortest));
  report.maps.push_back(map);
  return report;
}

}  // namespace trainsim::reproductions
