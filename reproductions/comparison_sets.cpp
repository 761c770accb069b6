#include "reproductions/comparison_sets.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <stdexcept>
#include <string>

#include "reproductions/reproduction_content.hpp"

namespace trainsim::reproductions {
namespace {

using enum SetStatistic;

// Aims: issue 16's targets. Table 5's eight iteration times: mean |error| ≤ 3 %, max ≤ 5 %;
// Table 4's ten figures: ≤ 5 % each; the pipelined rows (in Table 5's set, and the 530B × DP 8
// note): ≤ 5 %; vTrain's held-out rows: median ≤ 5 %, p90 ≤ 12 % (the fitting rows the same);
// every set's signed bias within ±2 %. Sets the issue names no target for keep their figures'
// own aims as a max (Table 2's 1 %, the tensor-scheme ratios' 10 %, the bubbles' 5 %) and the
// same ±2 % bias; the speedups and MFU/HFU of Table 5 (ratios of its times) take its 5 %.
constexpr double kBiasAim = 0.02;

// Tolerances (the regression guard the suite fails on): the aim where a set meets it, else its
// statistic as measured plus a margin (half a point to a point, rounded up; vTrain's a point or
// two), so that no change makes a set worse unnoticed. First set at commit f8ceeb8 (nominal
// profiles, before issue 16's physics); tightened with the host model, Megatron's kernels and
// optimizer step and the fitted A100 figures, which brought Korthikanti's sets to their aims
// (Table 5: mean 1.5 %, max 3.1 %, bias +0.7 %) and vTrain's held-out rows to median 5.4 %,
// p90 18.5 %, bias -1.0 % (fitting rows 6.5 %, 17.1 %, -1.8 %). Lower a tolerance with the
// change that brings its statistic down.
std::vector<ComparisonSet> all_sets() {
  return {
      {set_names::kKorthikantiTable2,
       "activation bytes per layer of the four models, 5 recomputation/SP rows each, against "
       "Table 2's closed forms (exact today)",
       {"korthikanti2022"},
       {{max_abs, 0.01}, {abs_bias, kBiasAim}},
       {{max_abs, 0.01}, {abs_bias, kBiasAim}}},
      {set_names::kKorthikantiTable4,
       "one 22B layer's forward and backward times, 5 rows (Table 4's 10 figures)",
       {"korthikanti2022"},
       {{max_abs, 0.05}, {abs_bias, kBiasAim}},
       {{max_abs, 0.05}, {abs_bias, kBiasAim}}},
      {set_names::kKorthikantiTable5Times,
       "Table 5's 8 iteration times: 22B, 175B, 530B and 1T, full recomputation and SP + "
       "selective",
       {"korthikanti2022", "korthikanti2022-pipelines"},
       {{mean_abs, 0.03}, {max_abs, 0.05}, {abs_bias, kBiasAim}},
       {{mean_abs, 0.03}, {max_abs, 0.05}, {abs_bias, kBiasAim}}},
      {set_names::kKorthikantiDp8,
       "the note under Table 5: 530B, SP + selective, with 8-way data parallelism on 2240 GPUs "
       "(a pipelined row, not one of the table's 8 times)",
       {"korthikanti2022-pipelines"},
       {{max_abs, 0.05}, {abs_bias, kBiasAim}},
       {{max_abs, 0.05}, {abs_bias, kBiasAim}}},
      {set_names::kKorthikantiSpeedups,
       "Table 5's gain of SP + selective over full recomputation, as a speedup, per model",
       {"korthikanti2022", "korthikanti2022-pipelines"},
       {{max_abs, 0.05}, {abs_bias, kBiasAim}},
       {{max_abs, 0.05}, {abs_bias, kBiasAim}}},
      {set_names::kKorthikantiUtilization,
       "Table 5's MFU and HFU (SP + selective, the paper's FLOP counts) per model, and the "
       "530B x DP 8 note's MFU",
       {"korthikanti2022", "korthikanti2022-pipelines"},
       {{max_abs, 0.05}, {abs_bias, kBiasAim}},
       {{max_abs, 0.05}, {abs_bias, kBiasAim}}},
      {set_names::kLamyBubbles,
       "the first stage's bubble with all communication free against §7.7's closed forms plus "
       "the last stage's extra compute, both layouts",
       {"lamy-poirier2021"},
       // Issue 18's like-with-like comparison (Δ/C₁ from FLOPs) meets the aim: max 2.0 %.
       {{max_abs, 0.05}, {abs_bias, kBiasAim}},
       {{max_abs, 0.05}, {abs_bias, kBiasAim}}},
      {set_names::kLamyShortestTime,
       "the abstract's halving of the shortest training time, as our searches' ratio against "
       "Megatron-LM 2021's 1F1B",
       {"lamy-poirier2021"},
       {{max_abs, 0.20}, {abs_bias, 0.20}},
       {{max_abs, 0.10}, {abs_bias, kBiasAim}}},
      {set_names::kOptimus,
       "the abstract's training and inference speedups and largest-batch ratio of 2D over 1D",
       {"optimus2021"},
       // The largest-batch row's setup is its map's (left out of the statistics).
       {{max_abs, 0.15}, {abs_bias, 0.11}},
       {{max_abs, 0.10}, {abs_bias, kBiasAim}}},
      {set_names::kTesseract,
       "strong-scaling speedups of 2.5D over 1D and over 2D",
       {"tesseract2022"},
       {{max_abs, 0.10}, {abs_bias, kBiasAim}},
       {{max_abs, 0.10}, {abs_bias, kBiasAim}}},
      {set_names::kTesseractWeak,
       "weak-scaling throughput ratio of 2.5D over 1D at the largest point, with 1.7x over 2D of "
       "the same runs (added with issue 18: the guard is the row's own ±20 %, fixed before any "
       "run)",
       {"tesseract2022"},
       {{max_abs, 0.20}, {abs_bias, 0.20}},
       {{max_abs, 0.10}, {abs_bias, kBiasAim}}},
      {set_names::kBian,
       "(forward + backward) / batch speedups of 3D over 1D and over 2D",
       {"bian2021-3d"},
       {{max_abs, 0.17}, {abs_bias, 0.17}},
       {{max_abs, 0.10}, {abs_bias, kBiasAim}}},
      {set_names::kVtrainFitting,
       "vTrain's single-node A100 iteration times, the 1152 rows a fit may use (all but every "
       "5th), on selene-a100-80gb (whose host, streaming-kernel and per-kernel figures were fitted "
       "to these rows)",
       {"vtrain2024"},
       {{median_abs, 0.075}, {p90_abs, 0.19}, {abs_bias, kBiasAim}},
       {{median_abs, 0.05}, {p90_abs, 0.12}, {abs_bias, kBiasAim}}},
      {set_names::kVtrainHeldOut,
       "vTrain's single-node A100 iteration times, the 288 held-out rows (every 5th: 0-based "
       "rows 4, 9, 14, ...), on selene-a100-80gb (fitted without them)",
       {"vtrain2024"},
       {{median_abs, 0.065}, {p90_abs, 0.20}, {abs_bias, kBiasAim}},
       {{median_abs, 0.05}, {p90_abs, 0.12}, {abs_bias, kBiasAim}}},
      {set_names::kH100Published,
       "NVIDIA's published H100 model TFLOP/s per GPU: Megatron-Core r0.8.0's 4 BF16 GPT "
       "weak-scaling rows and Megatron-Bridge 25.11's 2 dense Llama 3 FP8 rows, on dgx-h100 "
       "(aims: issue 19's mean and max, every set's bias; first measured: mean 11.5 %, max "
       "25.6 % (GPT 1.7B, too fast), bias -1.9 %; with TE's ring exchange on copy engines: "
       "10.7 %, 25.6 %, -0.0 %)",
       {"h100-published"},
       {{mean_abs, 0.115}, {max_abs, 0.27}, {abs_bias, 0.02}},
       // Issue 19's mean and max; every set's bias aim (issue 19 asks 3 %).
       {{mean_abs, 0.05}, {max_abs, 0.10}, {abs_bias, kBiasAim}}},
      {set_names::kB200Published,
       "Megatron-Bridge 25.11's Llama 3 8B FP8 row on DGX-B200, on dgx-b200 (Hopper's "
       "efficiencies assumed on Blackwell; first measured: +15.4 %, too fast)",
       {"h100-published"},
       {{mean_abs, 0.165}, {max_abs, 0.165}, {abs_bias, 0.165}},
       {{mean_abs, 0.05}, {max_abs, 0.10}, {abs_bias, kBiasAim}}},
      {set_names::kLlama3Goodput,
       "Llama 3 405B's effective training time over its 54-day window on 16 384 H100, against "
       "the paper's lower bound of 90 % (issue 25's target, stated before the run: 90 % to 95 %, "
       "so 0 to +5.6 % against the bound; the row's claim fails below it)",
       {"llama3-goodput"},
       {{max_abs, 0.056}, {abs_bias, 0.056}},
       // Every set's bias aim, as convention; against a lower bound, being close above it is
       // no goal in itself, so "> aim" here says only that we are more than 2 % above 90 %.
       {{max_abs, 0.056}, {abs_bias, kBiasAim}}},
  };
}

bool lists(const ComparisonSet& set, const std::string& reproduction) {
  return std::find(set.reproductions.begin(), set.reproductions.end(), reproduction) !=
         set.reproductions.end();
}

}  // namespace

const std::vector<ComparisonSet>& comparison_sets() {
  static const std::vector<ComparisonSet> sets = all_sets();
  return sets;
}

std::vector<SetResult> evaluate_sets(std::span<const ReproductionRun> runs,
                                     const std::vector<ComparisonSet>& sets) {
  std::map<std::string, std::vector<const Comparison*>> rows;
  auto add = [&](const ReproductionRun& run, const Comparison& c) {
    const auto set = std::find_if(sets.begin(), sets.end(),
                                  [&](const ComparisonSet& s) { return s.name == c.set; });
    if (set == sets.end()) {
      throw std::logic_error(c.set.empty()
                                 ? fmt::format("{}: '{}' belongs to no set", run.name, c.figure)
                                 : fmt::format("{}: '{}' names set '{}', which is not declared",
                                               run.name, c.figure, c.set));
    }
    if (!lists(*set, run.name)) {
      throw std::logic_error(fmt::format("{}: '{}' is in set '{}', which does not list {}",
                                         run.name, c.figure, c.set, run.name));
    }
    rows[c.set].push_back(&c);
  };
  for (const ReproductionRun& run : runs) {
    for (const Comparison& c : run.report.comparisons)
      add(run, c);
    for (const Comparison& c : run.report.set_rows)
      add(run, c);
  }
  std::vector<SetResult> results;
  for (const ComparisonSet& set : sets) {
    SetResult r{&set, {}, {}};
    bool any_ran = false;
    for (const std::string& name : set.reproductions) {
      const bool ran = std::any_of(runs.begin(), runs.end(),
                                   [&](const ReproductionRun& run) { return run.name == name; });
      any_ran = any_ran || ran;
      if (!ran) r.missing.push_back(name);
    }
    if (!any_ran) continue;
    const std::vector<const Comparison*>& members = rows[set.name];
    if (members.empty() && r.judged()) {
      throw std::logic_error(fmt::format("set '{}' has no rows", set.name));
    }
    r.stats = set_stats(members);
    results.push_back(std::move(r));
  }
  return results;
}

nlohmann::ordered_json validation_json(std::span<const ReproductionRun> runs,
                                       std::span<const SetResult> sets) {
  using nlohmann::ordered_json;
  ordered_json j;
  ordered_json reproductions = ordered_json::array();
  int failures = 0;
  for (const ReproductionRun& run : runs) {
    const ReproductionReport& r = run.report;
    ordered_json one;
    one["name"] = run.name;
    one["comparisons"] = r.comparisons.size();
    one["outside_tolerance"] = count_failures(r.comparisons);
    one["not_reproduced"] =
        std::count_if(r.comparisons.begin(), r.comparisons.end(),
                      [](const Comparison& c) { return c.explained_failure(); });
    one["set_rows"] = r.set_rows.size();
    one["claims"] = r.claims.size();
    one["claims_not_as_predicted"] = count_unexpected(r.claims);
    reproductions.push_back(std::move(one));
    failures += reproduction_failures(r);
  }
  j["reproductions"] = std::move(reproductions);
  ordered_json list = ordered_json::array();
  for (const SetResult& s : sets)
    list.push_back(set_json(s));
  j["sets"] = std::move(list);
  j["failures"] = {{"comparisons_and_claims", failures}, {"sets", count_set_failures(sets)}};
  return j;
}

}  // namespace trainsim::reproductions
