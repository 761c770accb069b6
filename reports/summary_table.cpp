#include "reports/summary_table.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <iterator>
#include <string>
#include <string_view>

#include "units/format.hpp"

namespace trainsim::reports {
namespace {

double percent(Time part, Time whole) {
  return whole > Time::zero() ? 100.0 * (part / whole) : 0.0;
}

double percent(Bytes part, Bytes whole) {
  return whole > Bytes::zero() ? 100.0 * (part / whole) : 0.0;
}

/// The parts of a breakdown that changed, "compute +9.9 ms, exposed DP +2.1 ms".
std::string breakdown_change(const sim::TimeBreakdown& with, const sim::TimeBreakdown& without) {
  std::string out;
  auto part = [&](std::string_view name, Time a, Time b) {
    if (a == b) return;
    const Time diff = a > b ? a - b : b - a;
    out += fmt::format("{}{} {}{}", out.empty() ? "" : ", ", name, a > b ? "+" : "-", diff);
  };
  part("compute", with.compute, without.compute);
  part("recompute", with.recompute, without.recompute);
  part("optimizer", with.optimizer, without.optimizer);
  for (std::size_t k = 0; k < with.exposed_comm.size(); ++k) {
    std::string kind(program::to_string(static_cast<program::GroupKind>(k)));
    std::transform(kind.begin(), kind.end(), kind.begin(),
                   [](unsigned char ch) { return static_cast<char>(std::toupper(ch)); });
    part(fmt::format("exposed {}", kind), with.exposed_comm[k], without.exposed_comm[k]);
  }
  part("bubble", with.bubble, without.bubble);
  part("host-bound", with.host, without.host);
  part("other idle", with.other, without.other);
  return out.empty() ? "unchanged" : out;
}

std::string straggler_lines(const StragglerCost& c, std::int64_t gpus) {
  std::string slow;
  for (const program::Rank g : c.first_slow)
    slow += fmt::format("{}{}", slow.empty() ? "" : ", ", g);
  if (c.slow_gpus > static_cast<std::int64_t>(c.first_slow.size())) slow += ", …";
  std::string out = fmt::format(
      "  stragglers          {} of {} GPUs slow (GPU {}): {:+.2f} % (S = {:.4f}) over {} "
      "without them\n",
      c.slow_gpus, gpus, slow, 100.0 * (c.slowdown - 1.0), c.slowdown, c.without);
  std::string recorded;
  for (std::size_t i = 0; i < c.slowed.size() && i < 4; ++i) {
    const SlowedGpu& s = c.slowed[i];
    recorded += fmt::format("{}GPU {} x{:g}", recorded.empty() ? "" : "; ", s.gpu, s.factor);
    if (s.stands_for > 1) {
      recorded +=
          fmt::format(" ({} of the {} GPUs it stands for slow)", s.slow_members, s.stands_for);
    }
  }
  if (c.slowed.size() > 4) recorded += fmt::format("; {} more", c.slowed.size() - 4);
  const bool classes = std::any_of(c.slowed.begin(), c.slowed.end(), [](const SlowedGpu& s) {
    return s.slow_members < s.stands_for;
  });
  if (classes) {
    recorded +=
        " (a class runs at its slowest member's pace, exact for the iteration when its "
        "members meet in a collective each iteration; simulate --full shows each GPU)";
  }
  out += fmt::format("                      kernels stretched on the recorded {}\n", recorded);
  out += fmt::format("                      GPU {}'s time: {}\n", c.critical_gpu,
                     breakdown_change(c.with, c.without_breakdown));
  if (c.waiting_gpu && *c.waiting_gpu != c.critical_gpu) {
    out += fmt::format("                      GPU {}'s time (waits longest): {}\n", *c.waiting_gpu,
                       breakdown_change(c.waiting_with, c.waiting_without));
  }
  return out;
}

}  // namespace

std::string plan_description(const ParallelPlan& plan) {
  const TensorParallel& t = plan.tensor;
  std::string grid;
  if (t.kind == TensorKind::two_d) {
    grid = fmt::format(", {0} x {0} grid, {1}", t.grid_side(), to_string(t.grid_order));
  } else if (t.kind == TensorKind::two_and_half_d) {
    grid = fmt::format(", {0} x {0} x depth {1}, {2}", t.grid_side(), t.depth,
                       to_string(t.grid_order));
  } else if (t.kind == TensorKind::three_d) {
    grid = fmt::format(", {0} x {0} x {0} cube, {1}", t.grid_side(), to_string(t.grid_order));
  }
  std::string text = fmt::format("TP {} ({}{}{}{})", t.size, to_string(t.kind), grid,
                                 t.sequence_parallel ? ", sequence parallel" : "",
                                 t.comm_overlap ? ", communication overlapped" : "");
  if (plan.context.size > 1) text += fmt::format(" × CP {}", plan.context.size);
  text += fmt::format(" × PP {}", plan.pipeline.size);
  if (plan.pipeline.size > 1 || plan.pipeline.schedule == PipelineSchedule::layered) {
    std::string uneven;
    if (plan.pipeline.first_stage_layers) {
      uneven += fmt::format(", first stage {} layers", *plan.pipeline.first_stage_layers);
    }
    if (plan.pipeline.last_stage_layers) {
      uneven += fmt::format(", last stage {} layers", *plan.pipeline.last_stage_layers);
    }
    text += fmt::format(" ({}, {} chunk{}{})", to_string(plan.pipeline.schedule),
                        plan.pipeline.chunks, plan.pipeline.chunks == 1 ? "" : "s", uneven);
  }
  text += fmt::format(" × DP {}", plan.data.size);
  if (plan.data.zero > 0) {
    text += fmt::format(" (ZeRO-{}{})", plan.data.zero,
                        plan.data.overlap_param_gather ? ", parameter gather overlapped" : "");
  }
  text += fmt::format(", recompute {}", to_string(plan.recompute));
  return text;
}

std::string format_summary(const Scenario& scenario, const hw::HardwareProfile& hardware,
                           const Summary& s) {
  const ModelSpec& m = scenario.model;
  std::string out;
  auto line = [&out](std::string_view text) {
    out += text;
    out += '\n';
  };

  const bool inference = s.mode == RunMode::inference;
  line(fmt::format("{} on {} — {} GPUs: {}{}", s.scenario, hardware.name, s.gpus,
                   plan_description(scenario.parallel),
                   inference ? " — inference (forward passes only)" : ""));
  // A model other than Megatron's GPT says what differs (GQA, SwiGLU, RMSNorm, ...).
  const std::string features = m.non_gpt_features();
  line(
      fmt::format("model: {} layers, hidden {}, {} heads, ffn {}, seq {}, vocab {}, {}{} — {:.2f} "
                  "B parameters",
                  m.layers, m.hidden, m.heads, m.ffn, m.seq_len, m.vocab, to_string(m.dtype),
                  features.empty() ? "" : "; " + features,
                  static_cast<double>(m.parameters()) / 1e9));
  const std::int64_t micro_batches =
      scenario.training.micro_batches_per_replica(scenario.parallel.data.size);
  line(
      fmt::format("batch: global {}, micro {} → {} micro batch{} per replica, {} tokens per "
                  "{}",
                  scenario.training.global_batch, scenario.training.micro_batch, micro_batches,
                  micro_batches == 1 ? "" : "es", s.tokens_per_iteration,
                  inference ? "inference step" : "iteration"));
  line("");
  if (inference) {
    line(fmt::format("  inference step      {}  (forward passes of the global batch)",
                     s.iteration_time));
  } else {
    line(fmt::format("  iteration time      {}", s.iteration_time));
  }
  if (s.balanced_routing_time && m.moe) {
    const std::string routing = m.moe->routing == ExpertRouting::zipf
                                    ? fmt::format("zipf {:g}", m.moe->zipf_exponent)
                                    : std::string(to_string(m.moe->routing));
    line(
        fmt::format("  expert routing      {}: the busiest EP rank takes {:.2f}x the mean rows; "
                    "{:+.1f} % over balanced routing ({})",
                    routing, s.busiest_expert_load.value_or(1.0),
                    100.0 * (s.iteration_time.seconds() / s.balanced_routing_time->seconds() - 1.0),
                    *s.balanced_routing_time));
  }
  if (s.stragglers) out += straggler_lines(*s.stragglers, s.gpus);
  line(fmt::format("  throughput          {} tokens/s",
                   s.tokens_per_s >= 100.0 ? fmt::format("{:.0f}", s.tokens_per_s)
                                           : fmt::format("{:.3g}", s.tokens_per_s)));
  line(fmt::format("  TFLOP/s per GPU     {:.1f} hardware, {:.1f} model  (peak {:.0f} {})",
                   s.hardware_rate_per_gpu.tflops(), s.model_rate_per_gpu.tflops(),
                   s.peak_per_gpu.tflops(), to_string(m.dtype)));
  line(fmt::format("  MFU / HFU           {:.1f} % / {:.1f} %{}", 100.0 * s.mfu, 100.0 * s.hfu,
                   inference ? "  (model FLOPs: forward only, 2·N per token + attention)" : ""));
  line("");

  const sim::TimeBreakdown& b = s.breakdown;
  line(fmt::format("  {:<34}{:>12}{:>10}", fmt::format("time breakdown (GPU {})", s.critical_rank),
                   "time", "share"));
  auto row = [&](std::string_view name, Time t) {
    line(fmt::format("    {:<32}{:>12}{:>8.1f} %", name, t == Time::zero() ? "-" : to_string(t),
                     percent(t, s.iteration_time)));
  };
  row(inference ? "compute (forward)" : "compute (forward + backward)", b.compute);
  row("recompute", b.recompute);
  row("optimizer", b.optimizer);
  constexpr std::array<std::string_view, program::kGroupKindCount> kExposed{
      "exposed TP communication",        "exposed DP communication",
      "exposed PP communication",        "exposed embedding communication",
      "exposed optimizer communication", "exposed CP communication",
      "exposed EP communication"};
  for (std::size_t k = 0; k < kExposed.size(); ++k) {
    // The experts' all-to-all only where there are experts: dense summaries keep their rows.
    if (k == static_cast<std::size_t>(program::GroupKind::ep) && !m.moe) continue;
    row(kExposed[k], b.exposed_comm[k]);
  }
  row("pipeline bubble", b.bubble);
  row("host-bound idle", b.host);
  row("other idle", b.other);
  line("");

  const MemorySummary& mem = s.memory;
  line(fmt::format(
      "  peak memory (GPU {})  {} of {}  — {}", mem.peak_rank, to_gib_string(mem.peak),
      to_gib_string(mem.capacity),
      mem.fits ? "fits"
               : fmt::format("DOES NOT FIT (over by {})", to_gib_string(mem.peak - mem.capacity))));
  if (!mem.peak_during.empty()) {
    line(fmt::format("    reached at {} ({})", to_string(mem.peak_at), mem.peak_during));
  }
  constexpr std::array<std::string_view, program::kMemoryCategoryCount> kCategory{
      "parameters", "gradients", "optimizer state", "activations", "communication buffers",
      "temporaries"};
  for (std::size_t c = 0; c < kCategory.size(); ++c) {
    line(fmt::format("    {:<32}{:>12}{:>8.1f} %", kCategory[c], to_gib_string(mem.at_peak[c]),
                     percent(mem.at_peak[c], mem.peak)));
  }
  const auto guesses = hardware.guessed_fields();
  if (!guesses.empty()) {
    line("");
    line(fmt::format("  note: {} figure{} of profile '{}' {} guesses (see its provenance).",
                     guesses.size(), guesses.size() == 1 ? "" : "s", hardware.name,
                     guesses.size() == 1 ? "is a" : "are"));
  }
  return out;
}

}  // namespace trainsim::reports
