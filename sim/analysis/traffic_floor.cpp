#include "sim/analysis/traffic_floor.hpp"

#include <algorithm>
#include <array>
#include <memory>
#include <utility>

#include "sim/link_traffic.hpp"
#include "sim/replay_world.hpp"

namespace trainsim::sim {
namespace {

bool covers(const Bilinear& x, const Bilinear& y) {
  return x.a >= y.a && x.b >= y.b && x.c >= y.c && x.e >= y.e;
}

}  // namespace

TrafficFloor::TrafficFloor(const ModelSpec& model, const Layout& reduced,
                           const hw::HardwareProfile& hardware, ProgramShelf* shelf) {
  // Built and tallied one at a time: the four Programs are kept together (for the shelf) only
  // while they fit on it, so that a large tensor block's are never all held at once.
  auto programs = std::make_shared<ReducedPrograms>();
  bool keep = shelf != nullptr;
  std::size_t kept_bytes = 0;
  std::unique_ptr<ReplayWorld> world;  // the four Programs': built once
  std::array<LinkTraffic, 4> runs;     // (l, m) = (1,1), (1,2), (2,1), (2,2)
  for (std::size_t i = 0; i < runs.size(); ++i) {
    program::Program program =
        reduced_program(model, reduced, 1 + static_cast<std::int64_t>(i / 2),
                        1 + static_cast<std::int64_t>(i % 2), hardware.node.gpus);
    if (!world)
      world =
          std::make_unique<ReplayWorld>(hardware, std::max<std::int32_t>(1, program.world_size));
    runs[i] = link_traffic(program, *world);
    kept_bytes += ProgramShelf::bytes_of(program);
    keep = keep && kept_bytes <= shelf->max_bytes();
    if (keep) {
      (*programs)[i] = std::move(program);
    } else {
      programs.reset();
    }
  }
  if (keep) shelf->put(describe(reduced), std::move(programs));
  std::vector<Bilinear> fits;
  for (std::size_t l = 0; l < runs[0].bytes.size(); ++l) {
    const double capacity = runs[0].capacities[l];
    const auto seconds = [&](std::size_t i) { return runs[i].bytes[l] / capacity; };
    const Bilinear f = Bilinear::fit(seconds(0), seconds(1), seconds(2), seconds(3));
    if (f != Bilinear{}) fits.push_back(f);
  }
  // The images of a representative Program load their links alike: few distinct fits. Of
  // those, a fit at least as large in every coefficient is at least as large at every l, m
  // ≥ 1, so the others never set the floor.
  std::sort(fits.begin(), fits.end(), [](const Bilinear& x, const Bilinear& y) { return y < x; });
  fits.erase(std::unique(fits.begin(), fits.end()), fits.end());
  for (const Bilinear& f : fits) {
    if (std::none_of(links_.begin(), links_.end(), [&](const Bilinear& k) { return covers(k, f); }))
      links_.push_back(f);
  }
}

Time TrafficFloor::floor(const ModelSpec& model, const Layout& layout,
                         std::int64_t global_batch) const {
  const ParallelPlan& plan = layout.plan;
  const std::int64_t micro_batches = replica_micro_batches(layout, global_batch);
  // ZeRO 2 and 3 pipelines that run a chunk's micro batches together reduce (and gather) once
  // per run, where the reduced run, plain accumulation, does it every micro batch: taken at
  // the runs' count, the fit stays a floor (the rest of a micro batch's bytes counted as often).
  const bool runs = plan.data.zero >= 2 && plan.pipeline.size > 1;
  const auto m = static_cast<double>(runs ? data_parallel_rounds(plan.pipeline, micro_batches)
                                          : micro_batches);
  const auto L = static_cast<double>(largest_stage_layers(model, plan));
  double seconds = 0.0;
  for (const Bilinear& f : links_)
    seconds = std::max(seconds, f.at(L, m));
  return Time::from_seconds(seconds);
}

TrafficFloor TrafficFloor::decode(ByteReader& in) {
  TrafficFloor f;
  f.links_ = in.get_vector<Bilinear>();
  return f;
}

}  // namespace trainsim::sim
