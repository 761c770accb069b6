// Lamy-Poirier 2021 (arXiv 2106.02679; published-results.md §6): layered gradient accumulation
// with modular pipeline parallelism "cut the shortest training time by half". The reproduction
// measures the halving with the shortest-time search (reproductions/lamy_shortest_time)
// against Megatron-LM as of 2021; this map asks which baseline and which network give 2×: the
// Megatron features that came after the paper, and the NIC bandwidth the abstract says is not
// needed.

#include <map>
#include <memory>
#include <mutex>

#include "inputs/hwprofile_loader.hpp"
#include "inputs/scenario_loader.hpp"
#include "reproductions/claims/paper_maps.hpp"
#include "reproductions/lamy_shortest_time.hpp"

namespace trainsim::reproductions::claim_maps {
namespace {

// The baselines of the map's first axis: the compared one, Megatron-LM 2021's best schedule,
// and two later features of the ladder (the DP overlap rung is left out: with it available the
// 2021 baseline's best does not change, lamy_shortest_time.cpp).
struct Baseline {
  const lamy::Side* side;
  const char* label;
  bool plausible;
};

std::vector<Baseline> baselines() {
  const auto& ladder = lamy::ladder();
  return {
      {&lamy::megatron_1f1b(), "2021, 1F1B (Narayanan's 1T)", true},
      {&ladder[0], "2021, best of 1F1B and interleaved", true},
      {&ladder[lamy::kDistributedOptimizerRung], "+ distributed optimizer (2022)", false},
      {&ladder[3], "+ SP and selective recomputation (2022)", false},
  };
}

struct Nic {
  double gb_per_s;
  const char* label;
  bool plausible;
};

// Per NIC and direction; Selene's HDR 200 Gb/s is the profile's.
constexpr std::array<Nic, 3> kNics{{{12.5, "HDR-100 12.5 GB/s", true},
                                    {25.0, "HDR 25 GB/s", true},
                                    {50.0, "NDR 50 GB/s (2022)", false}}};
constexpr std::size_t kProfileNic = 1;

// The searches per NIC bandwidth, shared by the map's setups; one map runs its setups on one
// thread (each search runs its layouts on every core), the mutex guards against more.
class SearchCache {
 public:
  SearchCache(ModelSpec model, hw::HardwareProfile hardware, std::int64_t reference_batch)
      : model_(std::move(model)), hardware_(std::move(hardware)), batch_(reference_batch) {}

  double ratio(std::size_t nic, const lamy::Side& baseline) {
    const std::lock_guard lock(mutex_);
    auto it = searches_.find(nic);
    if (it == searches_.end()) {
      it = searches_
               .emplace(nic,
                        lamy::Searches(
                            model_,
                            hardware_.with_nic_bandwidth(Bandwidth::gb_per_s(kNics[nic].gb_per_s)),
                            batch_, lamy::Searches::Span::critical_batch_on_every_gpu))
               .first;
    }
    lamy::Searches& s = it->second;
    return s.best(baseline).seconds / s.best(lamy::paper_method()).seconds;
  }

 private:
  ModelSpec model_;
  hw::HardwareProfile hardware_;
  std::int64_t batch_;
  std::mutex mutex_;
  std::map<std::size_t, lamy::Searches> searches_;
};

}  // namespace

std::vector<ClaimMapSpec> lamy_poirier2021_maps(const std::filesystem::path& root) {
  const Scenario scenario =
      inputs::load_scenario(root / "scenarios/lamy-poirier2021/gpt-1t-1f1b.yaml");
  auto cache = std::make_shared<SearchCache>(scenario.model, inputs::scenario_hardware(scenario),
                                             scenario.training.global_batch);
  ClaimMapSpec spec;
  spec.id = "lamy-shortest-time";
  spec.paper = "lamy-poirier2021";
  spec.claim = "Megatron-LM over layered + modular, shortest time to train a 1T GPT";
  spec.source = "Lamy-Poirier 2021 (arXiv 2106.02679), abstract";
  spec.published = 2.0;
  spec.tolerance = 0.20;  // issue 18's, for every seed claim
  spec.decides = "the shortest-time row";
  Axis baseline{"Megatron baseline",
                {},
                0,
                "the paper (June 2021) compared with Megatron-LM as it was: 1F1B, the schedule of "
                "Narayanan et al.'s 1T row (the reproduction's), or interleaved; the distributed "
                "optimizer and sequence parallelism came in 2022 (shown, not plausible)"};
  for (const Baseline& b : baselines())
    baseline.values.push_back({b.label, b.plausible});
  Axis nic{"NIC bandwidth",
           {},
           kProfileNic,
           "the paper's network is not stated; HDR-100 and HDR were the InfiniBand of 2021 (HDR "
           "is Selene's, the profile's); NDR came in 2022 (shown, not plausible)"};
  for (const Nic& n : kNics)
    nic.values.push_back({n.label, n.plausible});
  spec.axes = {std::move(baseline), std::move(nic)};
  spec.grid_x = 1;
  spec.grid_y = 0;
  spec.evaluate = [cache](const MapPoint& p) {
    MapValue v;
    v.ratio = cache->ratio(p[1], *baselines()[p[0]].side);
    return v;
  };
  return {std::move(spec)};
}

}  // namespace trainsim::reproductions::claim_maps
