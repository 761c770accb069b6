#include "reproductions/lamy_shortest_time.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <utility>

namespace trainsim::reproductions::lamy {

// The abstract's "halves the shortest training time" as issue 7's search measures it
// (sim/analysis/training_time.hpp; the analysis is our reconstruction, parallelism-reference
// §10.2, not the paper's): the shortest time to train the 1T model over the batch (B_crit/2,
// B_crit, 2·B_crit; B_crit = the rows' 1536 sequences), the GPU count (12288, the rows' count,
// and 6144) and the layout, the paper's method against Megatron-LM as the paper could have run
// it in June 2021 (issue 18 item 2), not against our best search. 300 B tokens set the scale; the
// ratio does not depend on it (both runs scale with S_min).
//
// Each side is a sub-space of the layout search (LayoutSpaceOptions::keep); every choice and its
// source:
// - Both sides: TP 8, 1D (one DGX node's NVSwitch domain; Narayanan et al. 2021, arXiv
//   2104.04473, run every model from 18B up at TP 8, published-results.md §2), micro batch 1
//   (their 310B to 1T rows); bf16 with Adam. No sequence parallelism and no selective
//   recomputation: both arrived with Korthikanti et al. 2022 (arXiv 2205.05198,
//   published-results.md §1), a year after the paper.
// - The paper's method: layered gradient accumulation on the modular pipeline (one layer per
//   chunk, parallelism-reference §7.6) with ZeRO 3 and layer-input checkpoints (full
//   recomputation). Why: the abstract says the methods "improve on ZeRO" and bring memory "to a
//   tiny fraction" of the GPU's, which needs the parameters sharded too (ZeRO 3: at ZeRO 1 the
//   bf16 weights and fp32 gradients alone are 29 GiB per GPU at PP 16, claim 6); §7.6's gain in
//   traffic is ZeRO 3's (each layer gathered once per step, not once per micro batch), and its
//   memory is layer-input checkpoints for all micro batches. Each layer's reduce-scatter runs
//   behind the earlier layers' backward (the method's point: overlap on). The pipeline size is
//   searched (every size fits with ZeRO 3).
// - Megatron-LM as of the paper (Narayanan et al. 2021, April 2021):
//   - schedules 1F1B, and interleaved with v chunks per stage, v dividing L/p and m a multiple
//     of p (parallelism-reference §7.4, group size N = p; the executor's check). Table 1
//     interleaves 5, 3 and 1 layers per chunk for 76B to 530B and not the 1T row ("–").
//   - full activation recomputation (`--checkpoint-activations`, every Table 1 run), or none
//     (recomputation was a flag): both searched; at 1T only full fits.
//   - no distributed optimizer (Megatron's came in 2022): ZeRO 0, bf16 weights, fp32 main
//     gradients and Adam's fp32 states, 18 B per parameter (parallelism-reference §8.1), so
//     PP 16 (7.8 B parameters per GPU, 141 GB) cannot fit and the pipeline size is searched
//     over what fits (PP 32, 64, 128 and the chunk counts each allows).
//   - the gradient all-reduce after the whole backward, not overlapped (Megatron's local DDP
//     reduced its gradient buffer once the schedule's last backward was done: our reading of its
//     code of the time, not in our docs; Korthikanti et al. 2022 still report their DP run with
//     the "gradient all-reduce not overlapped with backward", published-results.md §1).
//   Which schedule the paper's baseline ran, and how, nothing we have states (only the
//   abstract), so the schedule is swept: the comparison's baseline is Megatron's own schedule
//   for this model, Narayanan's Table 1 1T row (1F1B, no model chunks, full recomputation,
//   micro batch 1, TP 8; its PP 64 is in the searched space), and the best of 1F1B and
//   interleaved is its own row (claim 18), as is every later Megatron feature added to it in
//   turn (the ladder: the DP reduction overlapped with the backward, `overlap_grad_reduce`; the
//   distributed optimizer, ZeRO 1; sequence parallelism with selective recomputation).
//   Disclosed: this choice of the compared baseline was made knowing the feasibility check
//   below, so knowing that 1F1B is the slower of the two.
//
// Set before the first run (by the engineer who wrote issue 7's version): aim 10 %, tolerance
// 25 % against the published 2×. Predicted before any run of the paper's method or of these
// searches; only the baseline's layouts at PP 32 and 64 had been replayed, to see what fits (at
// batch 1536 on 12288 GPUs, ZeRO 0, full recomputation: PP 32 84.8 GiB, does not fit; PP 64
// 53.4 GiB, 1F1B 21.6 s and interleaved v 2 17.2 s per iteration). Rough arithmetic: compute
// and recomputation ≈ 9.5 s per GPU per iteration at B_crit on 12288 GPUs on either side (full
// recomputation on both). The paper's method at PP 16 (m = 16): bubble p(p−1)/(L·m) = 0.12 plus
// the ~6 % the rows measure beyond it, ~0.6 s of TP, little DP: ≈ 12.5 s; at PP 8 (m = 8): bubble
// 0.055 but twice the ZeRO 3 traffic per GPU (~125 GB a step, ~5 s of NIC time behind ~10 s of
// compute, mostly hidden): ≈ 11.5-12 s. Megatron at PP 64, m = 64: 1F1B's bubble (p−1)/m = 0.98,
// interleaved v 2's (one layer per chunk) 0.49, and the fp32 all-reduce of ~2 B parameters per
// GPU after the backward, ~0.8 s. So, with the paper's method at ~12 s:
// - against 1F1B (Narayanan's 1T schedule): 21.6 / 12 ≈ 1.8 (1.7 to 1.9), within the tolerance;
// - against the best of 1F1B and interleaved: 17.2 / 12 ≈ 1.43 (1.35 to 1.5), just outside;
// - + DP overlap: only the last chunk's reduction hides behind the cool-down, ~0.3 s: ≈ 1.40;
// - + distributed optimizer: PP 16 fits, and interleaving one layer per chunk (v = 8) has the
//   modular pipeline's bubble: ≈ 12.5 s, ratio ≈ 1.05, the ladder's largest step;
// - + SP and selective recomputation: ≈ 12.3 s (the 2023-era rows'), ratio ≈ 1.0.
//
// After the first run (the prediction above kept as written). The paper's method is best at
// PP 8 (DP 192, m = 8 = p), 13.73 s, not ~12: its last stage computes 10.4 s (the head on top of
// the 9.5 s), and the TP communication, the pipeline transfers and the embedding group's
// all-reduce add ~1.5 s beyond the bubble. Against 1F1B 1.57×, within the 25 % tolerance
// (predicted 1.7-1.9; issue 18 then held every seed claim to ±20 %, which this misses by 1.5
// points: the row is kept failing with its claim map as evidence, lamy_poirier2021.cpp); against
// the best of both schedules 1.25× (predicted 1.35-1.5; claim 18 holds). Overlapping the DP
// reduction with the backward made every layout slower (interleaved v 2 at PP 64: 17.19 → 17.87 s;
// ZeRO 1 at PP 16: 14.25 → 15.11 s): the reduction it hides (−1.4 s at PP 16) is less than what the
// first stage then waits longer for the others (+2.2 s), with or without the profile's SM slowdown;
// the reductions share each stage's NIC with the cool-down's transfers (the likely cause, not
// established). That first run added each feature switched on, so the overlap rung rose (1.30×) and
// every later rung carried the penalty; the ladder now makes each feature available, as Megatron's
// flags are, a rung keeping the faster of its space with and without it. Changed after that run,
// and it decides claim 19: switched on, the ladder's steps were ZeRO 1 −0.201 and SP + selective
// −0.205 (claim 19 not holding); available, −0.214 and −0.206 (holding). Either way the two steps
// are about equal, not the −0.35 and −0.05 predicted: the estimate did not carry the ~2.2 s of
// recomputed forward per iteration that selective recomputation removes.
namespace {

const Side kPaperMethod{"layered + modular, ZeRO 3, layer-input checkpoints (the paper's method)",
                        {PipelineSchedule::layered},
                        {3},
                        {Recompute::full},
                        {false},
                        {true}};
const Side kMegatron1f1b{"Megatron-LM 2021, 1F1B (Narayanan's 1T schedule)",
                         {PipelineSchedule::one_f_one_b},
                         {0},
                         {Recompute::none, Recompute::full},
                         {false},
                         {false}};
// The ladder: Megatron-LM 2021 with both its schedules, then each later feature made available
// in turn (a rung's space holds the one before it, so a feature that does not help is left off:
// Megatron's overlap_grad_reduce, distributed optimizer and sequence parallelism are flags).
constexpr std::array kMegatronSchedules{PipelineSchedule::one_f_one_b,
                                        PipelineSchedule::interleaved};
const std::array<Side, 4> kLadder{{
    {"Megatron-LM 2021, best of 1F1B and interleaved",
     {kMegatronSchedules.begin(), kMegatronSchedules.end()},
     {0},
     {Recompute::none, Recompute::full},
     {false},
     {false}},
    {"+ DP reduction overlapped with the backward",
     {kMegatronSchedules.begin(), kMegatronSchedules.end()},
     {0},
     {Recompute::none, Recompute::full},
     {false},
     {false, true}},
    {"+ distributed optimizer (ZeRO 1)",
     {kMegatronSchedules.begin(), kMegatronSchedules.end()},
     {0, 1},
     {Recompute::none, Recompute::full},
     {false},
     {false, true}},
    {"+ sequence parallelism and selective recomputation",
     {kMegatronSchedules.begin(), kMegatronSchedules.end()},
     {0, 1},
     {Recompute::none, Recompute::selective, Recompute::full},
     {false, true},
     {false, true}},
}};

bool keeps(const Side& side, const sim::Layout& layout) {
  const ParallelPlan& p = layout.plan;
  const auto has = [](const auto& list, auto value) {
    return std::find(list.begin(), list.end(), value) != list.end();
  };
  return has(side.schedules, p.pipeline.schedule) && has(side.zeros, p.data.zero) &&
         has(side.recomputes, p.recompute) &&
         has(side.sequence_parallel, p.tensor.sequence_parallel) &&
         p.tensor.kind == TensorKind::one_d && p.tensor.size == kShortestTimeTensor;
}

}  // namespace

// The layout of a point, and whether its DP reduction overlaps the backward (describe()
// leaves that out: the search holds it fixed).
std::string layout_text(const sim::TrainingPoint& p) {
  const sim::Layout& layout = p.layout.candidate.layout;
  return sim::describe(layout) + (layout.plan.data.overlap_grad_reduce ? " · DP overlapped" : "");
}

std::string point_text(const sim::TrainingPoint& p) {
  return fmt::format("{} GPUs, batch {}, {}: {:.2f} s × {:.0f} steps = {:.1f} days", p.gpus,
                     p.batch, layout_text(p), p.layout.iteration.seconds(), p.steps,
                     p.seconds / 86400.0);
}

const Side& paper_method() {
  return kPaperMethod;
}

const Side& megatron_1f1b() {
  return kMegatron1f1b;
}

const std::array<Side, 4>& ladder() {
  return kLadder;
}

sim::TrainingPoint Searches::best(const Side& side) {
  std::optional<sim::TrainingPoint> best;
  for (bool overlap : side.overlaps) {
    const sim::TrainingPoint p = search(side, overlap);
    if (!best || p.seconds < best->seconds) best = p;
  }
  return *best;
}

sim::TrainingPoint Searches::search(const Side& side, bool overlap) {
  std::string key = fmt::format("{}", overlap);
  for (PipelineSchedule x : side.schedules)
    key += fmt::format(" {}", to_string(x));
  for (int x : side.zeros)
    key += fmt::format(" z{}", x);
  for (Recompute x : side.recomputes)
    key += fmt::format(" {}", to_string(x));
  for (bool x : side.sequence_parallel)
    key += fmt::format(" sp{}", x);
  if (auto it = done_.find(key); it != done_.end()) return it->second;
  sim::TrainingTimeRequest request;
  request.tokens = kShortestTimeTokens;
  request.reference_batch = reference_batch_;
  request.max_gpus = kShortestTimeMaxGpus;
  const bool narrow = span_ == Span::critical_batch_on_every_gpu;
  request.min_gpus = narrow ? kShortestTimeMaxGpus : kShortestTimeMaxGpus / 2;
  request.batch_span = narrow ? 0 : 1;
  request.search.space.tensor_grids = false;
  request.search.space.max_micro_batch = 1;
  request.search.space.overlap_grad_reduce = overlap;
  request.search.space.keep = [&side](const sim::Layout& l) { return keeps(side, l); };
  const sim::TrainingTimeResult result = sim::search_training_time(model_, hardware_, request);
  return done_.emplace(key, result.points[result.best]).first->second;
}

}  // namespace trainsim::reproductions::lamy
