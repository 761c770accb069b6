#include "reports/analyses/plan_report.hpp"

#include <fmt/format.h>

#include <map>
#include <numeric>

#include "units/format.hpp"

namespace trainsim::reports {
namespace {

Time exposed_comm(const sim::TimeBreakdown& b) {
  return std::accumulate(b.exposed_comm.begin(), b.exposed_comm.end(), Time::zero());
}

double share(Time part, Time whole) {
  return whole.seconds() > 0 ? 100.0 * part.seconds() / whole.seconds() : 0.0;
}

double estimate_error(const sim::ReplayedLayout& r) {
  return r.candidate.estimate.iteration.seconds() / r.iteration.seconds() - 1.0;
}

nlohmann::ordered_json replayed_json(const sim::ReplayedLayout& r, std::size_t rank, Bytes capacity,
                                     bool reference) {
  nlohmann::ordered_json j;
  j["rank"] = rank;
  j["description"] = sim::describe(r.candidate.layout);
  j["layout"] = layout_json(r.candidate.layout);
  const nlohmann::ordered_json null(nullptr);
  j["estimate_rank"] = reference ? null : nlohmann::ordered_json(r.estimate_rank);
  j["estimated_iteration_s"] =
      reference ? null : nlohmann::ordered_json(r.candidate.estimate.iteration.seconds());
  j["iteration_s"] = r.iteration.seconds();
  j["estimate_error"] = reference ? null : nlohmann::ordered_json(estimate_error(r));
  j["tokens_per_s"] = r.tokens_per_s;
  j["model_tflops_per_gpu"] = r.model_rate_per_gpu.flops_per_second() / 1e12;
  j["peak_bytes"] = r.peak.count();
  j["headroom_bytes"] = capacity.count() - r.peak.count();
  j["fits"] = r.fits;
  const sim::TimeBreakdown& b = r.breakdown;
  j["breakdown_s"] = {
      {"compute", b.compute.seconds()},     {"recompute", b.recompute.seconds()},
      {"optimizer", b.optimizer.seconds()}, {"exposed_comm", exposed_comm(b).seconds()},
      {"bubble", b.bubble.seconds()},       {"other", b.other.seconds()}};
  return j;
}

std::string row(std::string_view label, const sim::ReplayedLayout& r, Bytes capacity,
                std::string_view estimate) {
  constexpr std::string_view kRow =
      "  {:<5}{:>10}  {:>10}  {:>8}  {:>6}  {:>6}  {:>8}  {:>9}  {:>8}  {}";
  return fmt::format(
      kRow, label, to_string(r.iteration), fmt::format("{:.0f}", r.tokens_per_s),
      fmt::format("{:.1f}", r.model_rate_per_gpu.flops_per_second() / 1e12),
      fmt::format("{:.1f}%", share(r.breakdown.bubble, r.iteration)),
      fmt::format("{:.1f}%", share(exposed_comm(r.breakdown), r.iteration)),
      fmt::format("{:.1f}%", share(r.breakdown.recompute, r.iteration)),
      fmt::format("{:.1f} GiB", (capacity - r.peak).as_double() / (1024.0 * 1024 * 1024)), estimate,
      sim::describe(r.candidate.layout));
}

/// Why `a` beats `b`: the breakdown terms that differ most, as shares of each iteration.
std::string why(const sim::ReplayedLayout& a, const sim::ReplayedLayout& b, Bytes capacity) {
  const auto term = [](std::string_view name, Time x, Time tx, Time y, Time ty) {
    return fmt::format("{} {:.1f}% vs {:.1f}%", name, share(x, tx), share(y, ty));
  };
  return fmt::format(
      "{:.2f}x the throughput: {}, {}, {}, compute {} vs {}; headroom {} vs {}",
      b.iteration.seconds() / a.iteration.seconds(),
      term("bubble", a.breakdown.bubble, a.iteration, b.breakdown.bubble, b.iteration),
      term("exposed comm", exposed_comm(a.breakdown), a.iteration, exposed_comm(b.breakdown),
           b.iteration),
      term("recompute", a.breakdown.recompute, a.iteration, b.breakdown.recompute, b.iteration),
      to_string(a.breakdown.compute), to_string(b.breakdown.compute),
      to_gib_string(capacity - a.peak), to_gib_string(capacity - b.peak));
}

}  // namespace

nlohmann::ordered_json layout_json(const sim::Layout& layout) {
  const ParallelPlan& p = layout.plan;
  nlohmann::ordered_json j;
  j["tensor_kind"] = std::string(to_string(p.tensor.kind));
  j["tensor_size"] = p.tensor.size;
  j["depth"] = p.tensor.depth;
  j["sequence_parallel"] = p.tensor.sequence_parallel;
  j["context_size"] = p.context.size;
  j["expert_size"] = p.expert.size;
  j["pipeline_size"] = p.pipeline.size;
  j["schedule"] = std::string(to_string(p.pipeline.schedule));
  j["chunks"] = p.pipeline.chunks;
  j["first_stage_layers"] = p.pipeline.first_stage_layers
                                ? nlohmann::ordered_json(*p.pipeline.first_stage_layers)
                                : nlohmann::ordered_json(nullptr);
  j["last_stage_layers"] = p.pipeline.last_stage_layers
                               ? nlohmann::ordered_json(*p.pipeline.last_stage_layers)
                               : nlohmann::ordered_json(nullptr);
  j["data_size"] = p.data.size;
  j["zero"] = p.data.zero;
  j["recompute"] = std::string(to_string(p.recompute));
  j["micro_batch"] = layout.micro_batch;
  return j;
}

/// `plan --stragglers F`: each layout with one slow GPU, ranked by the iteration it then takes.
std::string robustness_text(const PlanReport& report) {
  const sim::SearchResult& s = report.search;
  const std::vector<sim::StragglerRobustness>& rob = report.robustness;
  std::vector<std::size_t> order(rob.size());
  for (std::size_t i = 0; i < order.size(); ++i)
    order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return rob[a].worst() < rob[b].worst(); });
  std::string out = fmt::format(
      "\none slow GPU (kernels x{:g}) where it costs most, GPU 0 or the last GPU; by the "
      "iteration it then takes:\n  {:<5}{:>10}  {:>10}  {:>10}  {:>7}\n",
      rob.front().factor, "rank", "iteration", "GPU 0", "last GPU", "cost");
  for (const std::size_t i : order) {
    out += fmt::format("  {:<5}{:>10}  {:>10}  {:>10}  {:>+6.1f}%\n", fmt::format("#{}", i + 1),
                       s.best[i].iteration, rob[i].first_gpu, rob[i].last_gpu,
                       100.0 * rob[i].cost(s.best[i].iteration));
  }
  return out;
}

std::string plan_text(const PlanReport& report) {
  const sim::SearchResult& s = report.search;
  std::string out;
  const auto line = [&out](std::string_view text) {
    out += text;
    out += '\n';
  };
  line(fmt::format("plan: {} on {} — {} GPUs, global batch {}, {} per GPU", report.scenario,
                   report.hardware, s.gpus, s.global_batch, to_gib_string(s.capacity)));
  line(fmt::format(
      "layouts: {} valid; {} pruned by model state; {} bounded out by the time floors (the "
      "kernels of {} tensor blocks, {} of them replayed, the link traffic of {} reduced "
      "layouts); {} pruned by estimated peak; {} estimated from {} reduced layouts (4 replays "
      "each); {} replayed in full",
      s.layouts, s.pruned_by_floor, s.bounded_out, s.kernel_layouts, s.compute_layouts,
      s.traffic_layouts, s.pruned_by_estimate, s.ranked.size(), s.reduced_layouts, s.replayed));
  line("");
  line(fmt::format("  {:<5}{:>10}  {:>10}  {:>8}  {:>6}  {:>6}  {:>8}  {:>9}  {:>8}  {}", "rank",
                   "iteration", "tokens/s", "TFLOP/s", "bubble", "comm", "recomp", "headroom",
                   "est.", "layout"));
  for (std::size_t i = 0; i < s.best.size(); ++i) {
    const sim::ReplayedLayout& r = s.best[i];
    line(row(fmt::format("#{}", i + 1), r, s.capacity,
             fmt::format("{:+.1f}%", 100.0 * estimate_error(r))));
  }
  if (report.search.reference) {
    line(row("ref", *report.search.reference, s.capacity,
             report.search.reference->fits ? "-" : "over"));
  }
  line("");
  line("  TFLOP/s: model FLOPs per GPU (3 × forward, no recomputation); bubble, comm (exposed),");
  line("  recomp: shares of the iteration on pipeline stage 0; est.: estimate vs replay; ref: the");
  line("  scenario's own layout (\"over\": it does not fit)");
  for (const sim::ReplayedLayout& r : s.rejected) {
    line(fmt::format("  replayed but over capacity: {} (peak {}, estimated {})",
                     sim::describe(r.candidate.layout), to_gib_string(r.peak),
                     to_gib_string(r.candidate.estimate.peak)));
  }
  line("");
  for (std::size_t i = 1; i < s.best.size(); ++i) {
    line(fmt::format("  #1 vs #{}: {}", i + 1, why(s.best.front(), s.best[i], s.capacity)));
  }
  if (report.search.reference) {
    line(fmt::format("  #1 vs the scenario's layout: {}",
                     why(s.best.front(), *report.search.reference, s.capacity)));
  }
  if (!report.robustness.empty()) out += robustness_text(report);
  return out;
}

nlohmann::ordered_json plan_json(const PlanReport& report) {
  const sim::SearchResult& s = report.search;
  nlohmann::ordered_json j;
  j["scenario"] = report.scenario;
  j["hardware"] = report.hardware;
  j["gpus"] = s.gpus;
  j["global_batch"] = s.global_batch;
  j["capacity_bytes"] = s.capacity.count();
  j["layouts"] = s.layouts;
  j["pruned_by_floor"] = s.pruned_by_floor;
  j["pruned_by_estimate"] = s.pruned_by_estimate;
  j["kernel_layouts"] = s.kernel_layouts;
  j["compute_layouts"] = s.compute_layouts;
  j["traffic_layouts"] = s.traffic_layouts;
  j["bounded_out"] = s.bounded_out;
  j["reduced_layouts"] = s.reduced_layouts;
  j["estimated"] = s.ranked.size();
  j["best"] = nlohmann::ordered_json::array();
  for (std::size_t i = 0; i < s.best.size(); ++i) {
    j["best"].push_back(replayed_json(s.best[i], i + 1, s.capacity, false));
    if (i < report.robustness.size()) {
      const sim::StragglerRobustness& r = report.robustness[i];
      j["best"].back()["one_slow_gpu"] = {{"factor", r.factor},
                                          {"first_gpu_iteration_s", r.first_gpu.seconds()},
                                          {"last_gpu_iteration_s", r.last_gpu.seconds()},
                                          {"cost", r.cost(s.best[i].iteration)}};
    }
  }
  j["rejected"] = nlohmann::ordered_json::array();
  for (const sim::ReplayedLayout& r : s.rejected)
    j["rejected"].push_back(replayed_json(r, 0, s.capacity, false));
  j["reference"] = report.search.reference
                       ? replayed_json(*report.search.reference, 0, s.capacity, true)
                       : nlohmann::ordered_json(nullptr);
  return j;
}

std::string plan_csv(const PlanReport& report) {
  const sim::SearchResult& s = report.search;
  std::map<std::size_t, const sim::ReplayedLayout*> replayed;  // by enumeration index
  for (const sim::ReplayedLayout& r : s.best)
    replayed[r.candidate.index] = &r;
  for (const sim::ReplayedLayout& r : s.rejected)
    replayed[r.candidate.index] = &r;
  std::string out =
      "estimate_rank,tensor_kind,tensor_size,depth,sequence_parallel,context_size,expert_size,"
      "pipeline_size,"
      "schedule,"
      "chunks,data_size,zero,recompute,micro_batch,estimated_iteration_s,estimated_bubble_s,"
      "estimated_peak_bytes,iteration_s,peak_bytes,fits\n";
  for (std::size_t i = 0; i < s.ranked.size(); ++i) {
    const sim::EstimatedLayout& e = s.ranked[i];
    const ParallelPlan& p = e.layout.plan;
    out += fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{},{},{:.9g},{:.9g},{}", i + 1,
                       to_string(p.tensor.kind), p.tensor.size, p.tensor.depth,
                       p.tensor.sequence_parallel, p.context.size, p.expert.size, p.pipeline.size,
                       to_string(p.pipeline.schedule), p.pipeline.chunks, p.data.size, p.data.zero,
                       to_string(p.recompute), e.layout.micro_batch, e.estimate.iteration.seconds(),
                       e.estimate.bubble.seconds(), e.estimate.peak.count());
    const auto it = replayed.find(e.index);
    if (it != replayed.end()) {
      out += fmt::format(",{:.9g},{},{}\n", it->second->iteration.seconds(),
                         it->second->peak.count(), it->second->fits);
    } else {
      out += ",,,\n";
    }
  }
  return out;
}

}  // namespace trainsim::reports

namespace trainsim::reports {

documents::ReportContent plan_content(const PlanReport& report) {
  const sim::SearchResult& s = report.search;
  documents::ReportContent content;
  content.add_block("result", documents::fenced(plan_text(report)));
  documents::ReportTable best{
      "best",
      {"place", "layout", "iteration (s)", "tokens/s", "model TFLOP/s per GPU", "bubble (%)",
       "exposed comm (%)", "recompute (%)", "headroom (GiB)", "estimate vs replay (%)"},
      {}};
  const auto add = [&](std::string place, const sim::ReplayedLayout& r, std::string estimate) {
    best.add_row({std::move(place), sim::describe(r.candidate.layout),
                  fmt::format("{:.3f}", r.iteration.seconds()),
                  fmt::format("{:.0f}", r.tokens_per_s),
                  fmt::format("{:.1f}", r.model_rate_per_gpu.flops_per_second() / 1e12),
                  fmt::format("{:.1f}", share(r.breakdown.bubble, r.iteration)),
                  fmt::format("{:.1f}", share(exposed_comm(r.breakdown), r.iteration)),
                  fmt::format("{:.1f}", share(r.breakdown.recompute, r.iteration)),
                  fmt::format("{:.1f}", (s.capacity - r.peak).as_double() / (1024.0 * 1024 * 1024)),
                  std::move(estimate)});
  };
  for (std::size_t i = 0; i < s.best.size(); ++i) {
    add(fmt::format("#{}", i + 1), s.best[i],
        fmt::format("{:+.1f}", 100.0 * estimate_error(s.best[i])));
  }
  if (report.search.reference) add("scenario's own", *report.search.reference, "");
  content.add_table(std::move(best));
  return content;
}

}  // namespace trainsim::reports
