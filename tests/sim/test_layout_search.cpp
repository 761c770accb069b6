#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <string>
#include <vector>

#include "models/build_program.hpp"
#include "models/errors.hpp"
#include "sim/analysis/layout_search.hpp"
#include "sim_fixtures.hpp"
#include "units/doctest_printers.hpp"

using namespace trainsim;
using namespace trainsim::sim;

namespace {

using test::small_model;

/// small_model with a mixture of experts in every layer: 4 experts of width 256, top 2.
ModelSpec small_moe_model(std::int64_t layers) {
  ModelSpec m = small_model(layers);
  m.activation = Activation::swiglu;
  m.bias = false;
  MoeSpec moe;
  moe.experts = 4;
  moe.top_k = 2;
  moe.expert_ffn = 256;
  m.moe = moe;
  return m;
}

/// The space of the pruning and estimate tests: 4 layers on 4 GPUs (one node), batch 8.
constexpr std::int64_t kGpus = 4;
constexpr std::int64_t kBatch = 8;
/// |estimated / replayed − 1| on every survivor of that space (sim/analysis/README.md), of
/// the iteration time and of the peak memory.
constexpr double kEstimateBound = 0.50;
constexpr double kPeakBound = 0.25;

LayoutSpaceOptions small_space() {
  LayoutSpaceOptions o;
  o.max_micro_batch = 4;
  return o;
}

std::vector<ReplayedLayout> replay_all(const ModelSpec& model, const hw::HardwareProfile& hw,
                                       const std::vector<Layout>& layouts) {
  std::vector<ReplayedLayout> out;
  for (const Layout& l : layouts)
    out.push_back(replay_layout(model, hw, l, kBatch));
  return out;
}

SearchOptions small_search(std::size_t top) {
  SearchOptions o;
  o.space = small_space();
  o.top = top;
  return o;
}

/// The same layouts estimated and replayed, in the same order, with the same figures.
void check_same_search(const SearchResult& a, const SearchResult& b) {
  REQUIRE(a.ranked.size() == b.ranked.size());
  for (std::size_t i = 0; i < a.ranked.size(); ++i) {
    CHECK(a.ranked[i].index == b.ranked[i].index);
    CHECK(a.ranked[i].estimate.iteration == b.ranked[i].estimate.iteration);
    CHECK(a.ranked[i].estimate.peak == b.ranked[i].estimate.peak);
  }
  REQUIRE(a.best.size() == b.best.size());
  for (std::size_t i = 0; i < a.best.size(); ++i) {
    CHECK(a.best[i].candidate.index == b.best[i].candidate.index);
    CHECK(a.best[i].iteration == b.best[i].iteration);
  }
}

}  // namespace

TEST_CASE("enumerate_layouts: every valid layout of a 2-layer model on 2 GPUs, counted by hand") {
  // t = 1: p = 1 (d = 2, one micro batch of 1 per replica): {accumulation, layered} × ZeRO
  // 0-3 × 3 recomputations = 24; p = 2 (d = 1, mb 1 or 2): {gpipe, 1f1b, layered v=1} × 3 × 2
  // = 18. t = 2 (p = d = 1): {1D, 1D + SP} × {accumulation, layered} × 3 × mb {1, 2} = 24.
  LayoutSpaceOptions o;
  o.tensor_grids = false;
  const std::vector<Layout> layouts = enumerate_layouts(small_model(2), 2, 2, o);
  CHECK(layouts.size() == 24 + 18 + 24);
  std::set<std::string> names;
  for (const Layout& l : layouts) {
    names.insert(describe(l));
    CHECK(l.plan.gpus() == 2);
    CHECK_NOTHROW(check_supported(small_model(2), l.plan, training_of(l, 2)));
  }
  CHECK(names.size() == layouts.size());  // no layout twice
  CHECK(names.count("1d t=2 sp · pp 1 layered v=2 · dp 1 zero 0 · recompute full · mb 2") == 1);
  CHECK(names.count("1d t=1 · pp 2 gpipe · dp 1 zero 0 · recompute none · mb 1") == 1);
}

TEST_CASE("enumerate_layouts: a pipeline size that does not divide the layers gets lighter ends") {
  // 6 layers on 4 stages: 1 + 2 + 2 + 1 (Llama 3 405B's 7 + 14 x 8 + 7 in small), with the
  // schedules that model uneven stages; 4 stages do not divide 5 layers, nor does 5 + 2.
  const ModelSpec model = small_model(6);
  const hw::HardwareProfile hw = test::small_profile();
  LayoutSpaceOptions o;
  o.tensor_grids = false;
  o.max_micro_batch = 1;
  std::set<PipelineSchedule> schedules;
  std::size_t uneven = 0;
  for (const Layout& l : enumerate_layouts(model, 4, 4, o)) {
    if (l.plan.pipeline.size != 4) {
      CHECK_FALSE(l.plan.pipeline.uneven());
      continue;
    }
    INFO(describe(l));
    ++uneven;
    schedules.insert(l.plan.pipeline.schedule);
    CHECK(l.plan.pipeline.first_stage_layers == 1);
    CHECK(l.plan.pipeline.last_stage_layers == 1);
    CHECK(l.plan.pipeline.stage_layers(6, 1) == 2);
    CHECK(largest_stage_layers(model, l.plan) == 2);
    CHECK(describe(l).find("pp 4 " + std::string(to_string(l.plan.pipeline.schedule)) +
                           " first 1 last 1") != std::string::npos);
    // The floor on the model state never above what the replay allocates, and the estimate
    // within the bound of the even layouts'.
    const ReplayedLayout replayed = replay_layout(model, hw, l, 4);
    CHECK(model_state_floor(model, l) <= replayed.peak);
    const ReducedFit fit(model, reduced_layout(l), hw);
    const double error = fit.estimate(model, l, 4).iteration / replayed.iteration - 1.0;
    CHECK(std::abs(error) < kEstimateBound);
  }
  CHECK(uneven > 0);
  CHECK(schedules ==
        std::set<PipelineSchedule>{PipelineSchedule::gpipe, PipelineSchedule::one_f_one_b});
  for (const Layout& l : enumerate_layouts(small_model(5), 4, 4, o))
    CHECK(l.plan.pipeline.size != 4);
}

TEST_CASE("enumerate_layouts: the grid kinds appear where their shape fits, and only there") {
  // 4 GPUs: a 2 x 2 grid (2D) fits; 2.5D needs q²·d >= 8 and 3D q³ >= 8.
  const std::vector<Layout> layouts = enumerate_layouts(small_model(4), 4, 8, small_space());
  std::set<TensorKind> kinds;
  for (const Layout& l : layouts)
    kinds.insert(l.plan.tensor.kind);
  CHECK(kinds == std::set<TensorKind>{TensorKind::one_d, TensorKind::two_d});
  const std::vector<Layout> eight = enumerate_layouts(small_model(4), 8, 8, small_space());
  const auto has = [&](TensorKind k) {
    return std::any_of(eight.begin(), eight.end(),
                       [k](const Layout& l) { return l.plan.tensor.kind == k; });
  };
  CHECK(has(TensorKind::two_and_half_d));
  CHECK(has(TensorKind::three_d));
  // The grids run the GPT layer alone: a SwiGLU model gets the 1D blocks only, every one of
  // them (the layouts are the GPT model's 1D ones, the model being otherwise alike).
  ModelSpec swiglu = small_model(4);
  swiglu.activation = Activation::swiglu;
  REQUIRE_FALSE(swiglu.gpt_layer());
  const std::vector<Layout> one_d = enumerate_layouts(swiglu, 8, 8, small_space());
  CHECK(std::all_of(one_d.begin(), one_d.end(),
                    [](const Layout& l) { return l.plan.tensor.kind == TensorKind::one_d; }));
  CHECK(one_d.size() ==
        static_cast<std::size_t>(std::count_if(eight.begin(), eight.end(), [](const Layout& l) {
          return l.plan.tensor.kind == TensorKind::one_d;
        })));
}

namespace {
void check_pruning_and_estimates(const ModelSpec& model, const char* what) {
  hw::HardwareProfile hw = test::small_profile();
  const std::vector<Layout> layouts = enumerate_layouts(model, kGpus, kBatch, small_space());
  REQUIRE(layouts.size() > 100);
  const std::vector<ReplayedLayout> full = replay_all(model, hw, layouts);
  // A capacity that half the layouts exceed, so that pruning has work.
  std::vector<Bytes> peaks;
  for (const ReplayedLayout& r : full)
    peaks.push_back(r.peak);
  std::nth_element(peaks.begin(), peaks.begin() + static_cast<long>(peaks.size() / 2), peaks.end());
  hw.gpu.memory = peaks[peaks.size() / 2];

  SearchOptions options;
  options.space = small_space();
  options.exhaustive = true;
  options.memory_margin = std::getenv("TRAINSIM_LAYOUT_ERRORS") ? 10.0 : options.memory_margin;
  const SearchResult result = search_layouts(model, hw, kGpus, kBatch, options);
  CHECK(result.layouts == layouts.size());
  CHECK(result.bounded_out == 0);
  CHECK(result.pruned_by_floor + result.pruned_by_estimate + result.ranked.size() ==
        layouts.size());
  std::vector<bool> kept(layouts.size(), false);
  for (const EstimatedLayout& e : result.ranked)
    kept[e.index] = true;
  std::size_t fitting = 0, pruned = 0;
  double worst = 0.0;
  std::string worst_layout;
  for (std::size_t i = 0; i < layouts.size(); ++i) {
    const bool fits = full[i].peak <= hw.gpu.memory;
    fitting += fits ? 1 : 0;
    if (!kept[i]) {
      ++pruned;
      INFO(describe(layouts[i]));
      CHECK_FALSE(fits);
    }
  }
  CHECK(pruned > 0);
  CHECK(fitting > 0);
  // The shortcut against the full replay on every survivor.
  double worst_peak = 0.0;
  std::string worst_peak_layout;
  for (const EstimatedLayout& e : result.ranked) {
    const double error = e.estimate.iteration.seconds() / full[e.index].iteration.seconds() - 1.0;
    const double peak_error = e.estimate.peak.as_double() / full[e.index].peak.as_double() - 1.0;
    if (std::abs(peak_error) > std::abs(worst_peak)) {
      worst_peak = peak_error;
      worst_peak_layout = describe(e.layout);
    }
    if (std::getenv("TRAINSIM_LAYOUT_ERRORS")) {
      std::printf("%+.3f mem %+.3f %s\n", error, peak_error, describe(e.layout).c_str());
    }
    if (std::abs(error) > std::abs(worst)) {
      worst = error;
      worst_layout = describe(e.layout);
    }
  }
  std::printf(
      "layout estimate vs replay, %zu layouts of a 4-layer %s on 4 GPUs: worst %+.1f%% (%s)\n",
      result.ranked.size(), what, 100.0 * worst, worst_layout.c_str());
  CHECK(std::abs(worst) < kEstimateBound);
  std::printf("  peak: worst %+.1f%% (%s)\n", 100.0 * worst_peak, worst_peak_layout.c_str());
  CHECK(std::abs(worst_peak) < kPeakBound);
  // The winners are the fastest fitting replays among those replayed.
  REQUIRE_FALSE(result.best.empty());
  for (const ReplayedLayout& r : result.best) {
    CHECK(r.fits);
    CHECK(r.iteration == full[r.candidate.index].iteration);
  }
  // The bounded search estimates fewer layouts and finds the same best ones.
  options.exhaustive = false;
  const SearchResult bounded = search_layouts(model, hw, kGpus, kBatch, options);
  CHECK(bounded.bounded_out > 0);
  REQUIRE(bounded.best.size() == result.best.size());
  for (std::size_t i = 0; i < result.best.size(); ++i)
    CHECK(bounded.best[i].candidate.index == result.best[i].candidate.index);
}
}  // namespace

TEST_CASE(
    "search_layouts: pruning never drops a layout whose full replay fits, and the estimate "
    "stays within its bound") {
  check_pruning_and_estimates(small_model(4), "model");
}

TEST_CASE(
    "search_layouts: the same holds for a Llama-shaped model, its logits larger than its layers") {
  // Llama 3's proportions in small: a vocabulary 32 times the hidden size, untied, SwiGLU and
  // RMSNorm, so the head's activations (the logits of every micro batch a schedule holds)
  // outweigh a layer's, and the output layer's state a layer's. Sequence 1024, so that the
  // small profile's latencies do not dominate (at 256 the time of its ZeRO 2 pipelines, which
  // the estimate charges both vocabulary matrices' reductions, comes out 70 % above replay).
  ModelSpec model = small_model(4);
  model.vocab = 8192;
  model.seq_len = 1024;
  model.tied_embeddings = false;
  model.activation = Activation::swiglu;
  model.norm = NormKind::rmsnorm;
  model.position = PositionKind::rope;
  model.bias = false;
  check_pruning_and_estimates(model, "Llama-shaped model");
}

TEST_CASE(
    "search_layouts: the same holds for a mixture of experts, its expert-parallel sizes searched") {
  const ModelSpec model = small_moe_model(4);
  const std::vector<Layout> layouts = enumerate_layouts(model, kGpus, kBatch, small_space());
  std::set<std::int64_t> sizes;
  for (const Layout& l : layouts) {
    const ParallelPlan& p = l.plan;
    CHECK(model.moe->experts % p.expert.size == 0);
    CHECK((p.tensor.size * p.context.size * p.data.size) % p.expert.size == 0);
    sizes.insert(p.expert.size);
  }
  CHECK(sizes == std::set<std::int64_t>{1, 2, 4});
  for (const Layout& l : enumerate_layouts(small_model(4), kGpus, kBatch, small_space()))
    CHECK(l.plan.expert.size == 1);
  check_pruning_and_estimates(model, "mixture of experts");
}

TEST_CASE("model_state_floor: with experts on some layers, the stage that holds the most") {
  // MoE on layers 0 and 3 (every 3) of 4, experts far lighter than the dense MLP: with two
  // stages each holds one MoE and one dense layer; the floor must count the dense layer each
  // holds, not assume the fewest MoE layers (which undercounts nothing here but would count two
  // dense layers where a stage holds one, above what any GPU allocates).
  ModelSpec model = small_moe_model(4);
  model.moe->every = 3;
  model.moe->expert_ffn = 64;
  const hw::HardwareProfile hw = test::small_profile();
  for (const Layout& l : enumerate_layouts(model, kGpus, kBatch, small_space())) {
    if (l.plan.pipeline.size < 2 || l.plan.recompute != Recompute::none || l.micro_batch != 1)
      continue;
    INFO(describe(l));
    CHECK(model_state_floor(model, l) <= replay_layout(model, hw, l, kBatch).peak);
  }
}

TEST_CASE("search_layouts: the same result on 1 and 2 threads") {
  const ModelSpec model = small_model(4);
  const hw::HardwareProfile hw = test::small_profile();
  SearchOptions options = small_search(4);
  options.threads = 1;
  const SearchResult one = search_layouts(model, hw, kGpus, kBatch, options);
  options.threads = 2;
  check_same_search(one, search_layouts(model, hw, kGpus, kBatch, options));
}

TEST_CASE(
    "search_layouts: a reference replayed beside the search, and workers replaying ahead, change "
    "nothing") {
  // Top 3: up to 9 full replays in rounds of 3, which 2 and 3 workers pad with layouts replayed
  // ahead (and the reference); what a later round does not ask for is dropped.
  const ModelSpec model = small_model(4);
  const hw::HardwareProfile hw = test::small_profile();
  SearchOptions options = small_search(3);
  options.threads = 1;
  const SearchResult plain = search_layouts(model, hw, kGpus, kBatch, options);
  CHECK_FALSE(plain.reference.has_value());
  REQUIRE(plain.replayed > 3);
  const Layout reference = enumerate_layouts(model, kGpus, kBatch, small_space()).back();
  const ReplayedLayout alone = replay_layout(model, hw, reference, kBatch);
  options.reference = reference;
  for (const unsigned threads : {1U, 2U, 3U}) {
    options.threads = threads;
    const SearchResult r = search_layouts(model, hw, kGpus, kBatch, options);
    INFO(threads, " threads");
    check_same_search(plain, r);
    CHECK(r.replayed == plain.replayed);
    REQUIRE(r.rejected.size() == plain.rejected.size());
    for (std::size_t i = 0; i < r.best.size(); ++i)
      CHECK(r.best[i].estimate_rank == plain.best[i].estimate_rank);
    REQUIRE(r.reference.has_value());
    CHECK(describe(r.reference->candidate.layout) == describe(reference));
    CHECK(r.reference->iteration == alone.iteration);
    CHECK(r.reference->peak == alone.peak);
  }
}

TEST_CASE("search_layouts: fits shared with another search change nothing and are reused") {
  const ModelSpec model = small_model(4);
  const hw::HardwareProfile hw = test::small_profile();
  SearchOptions options = small_search(2);
  options.exhaustive = true;
  const SearchResult alone = search_layouts(model, hw, kGpus, 2 * kBatch, options);

  FitMemo memo;
  options.memo = &memo;
  // Another batch on half the GPUs: its layouts reduce to some of the same tensor blocks.
  search_layouts(model, hw, kGpus / 2, kBatch, options);
  const std::size_t made_before = memo.replays.size() + memo.traffic.size();
  REQUIRE(made_before > 0);
  const SearchResult shared = search_layouts(model, hw, kGpus, 2 * kBatch, options);
  // Some fits came from the first search: fewer were made than this search used.
  const std::size_t made = memo.replays.size() + memo.traffic.size() - made_before;
  CHECK(made < shared.compute_layouts + shared.reduced_layouts + shared.traffic_layouts);
  CHECK(shared.compute_layouts == alone.compute_layouts);
  CHECK(shared.reduced_layouts == alone.reduced_layouts);
  check_same_search(alone, shared);
}

TEST_CASE("search_layouts: impossible requests say why") {
  const ModelSpec model = small_model(4);
  hw::HardwareProfile hw = test::small_profile();
  SUBCASE("more GPUs than the batch can use") {
    // One replica spans at most heads 4 × layers 4 = 16 GPUs; 64 GPUs need 4 replicas.
    CHECK_THROWS_WITH_AS(search_layouts(model, hw, 64, 2),
                         doctest::Contains("global_batch: 2 sequences cannot use 64 GPUs"),
                         Infeasible);
  }
  SUBCASE("a GPU count no split can use") {
    CHECK_THROWS_WITH_AS(search_layouts(model, hw, 7, 8),
                         doctest::Contains("gpus: 7 GPUs split into no valid"), Infeasible);
  }
  SUBCASE("no GPUs") {
    CHECK_THROWS_WITH_AS(search_layouts(model, hw, 0, 8), doctest::Contains("gpus: 0"), Infeasible);
  }
  SUBCASE("a model that fits nowhere") {
    hw.gpu.memory = Bytes::of(1 << 20);
    CHECK_THROWS_WITH_AS(search_layouts(model, hw, kGpus, kBatch),
                         doctest::Contains("no layout of 4 GPUs fits in"), Infeasible);
  }
}

TEST_CASE(
    "search_layouts: on a 22B model the estimate of the best layouts is within 25 % of "
    "their replay") {
  // Korthikanti's 22B GPT (48 layers, h 6144) at batch 4 on 8 GPUs of the small profile:
  // the 12 best estimates (the window the bounded search guarantees) replayed in full.
  ModelSpec m;
  m.layers = 48;
  m.hidden = 6144;
  m.heads = 64;
  m.ffn = 24576;
  m.seq_len = 2048;
  m.vocab = 51200;
  const hw::HardwareProfile hw = test::small_profile();
  SearchOptions options;
  options.top = 3;
  const SearchResult result = search_layouts(m, hw, 8, 4, options);
  REQUIRE(result.ranked.size() >= 12);
  if (std::getenv("TRAINSIM_LAYOUT_ERRORS")) {
    for (const EstimatedLayout& e : result.ranked) {
      const ReplayedLayout r = replay_layout(m, hw, e.layout, 4);
      std::printf("%+.3f est %.3f (bubble %.3f) replay %.3f (bubble %.3f) %s\n",
                  e.estimate.iteration.seconds() / r.iteration.seconds() - 1.0,
                  e.estimate.iteration.seconds(), e.estimate.bubble.seconds(),
                  r.iteration.seconds(), r.breakdown.bubble.seconds(), describe(e.layout).c_str());
    }
  }
  double worst = 0.0;
  for (std::size_t k = 0; k < 12; ++k) {
    const EstimatedLayout& e = result.ranked[k];
    const ReplayedLayout r = replay_layout(m, hw, e.layout, 4);
    const double error = e.estimate.iteration.seconds() / r.iteration.seconds() - 1.0;
    INFO(describe(e.layout));
    CHECK(std::abs(error) < 0.25);
    worst = std::max(worst, std::abs(error));
  }
  std::printf("22B on 8 GPUs, 12 best estimates vs replay: worst |error| %.1f%%\n", 100 * worst);
}
