#pragma once
// What a launch of one group's collective of one kind, or of one channel's send, starts for a
// given size: a group's collectives of one kind and size (every layer's TP all-reduce) and a
// channel's sends of one size start the same flows every time, so they are worked out once
// (sim/comm_launcher.hpp) and replayed from here. A plan depends on the group's members and
// rings, the topology, the profile and the node fold alone, never on the replay's state, so
// replays of Programs alike share them (sim/replay_world.hpp).

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "sim/collective_model.hpp"
#include "sim/image_set.hpp"
#include "units/units.hpp"

namespace trainsim::sim {

struct LaunchPlan {
  /// Flows of equal wire bytes and route length, in queue order: the images of one transfer,
  /// started by one FlowNetwork::start_images call (which bundles them when it can).
  struct Group {
    double bytes = 0.0;
    std::shared_ptr<const ImageSet> images;
  };
  Bytes size = Bytes::of(-1);  ///< < 0: nothing worked out yet
  Time latency;
  std::vector<Group> groups;  ///< by (bytes, route length)
  std::int32_t flows = 0;
  CollectiveAlgorithm algorithm = CollectiveAlgorithm::ring;  ///< collectives: NCCL's choice
  bool copy_engine = false;  ///< its flows bypass the GPUs' communication-engine links
  /// With a fold, the kept nodes' links, each once, that its folded flows use (`marks`) and
  /// whose images its side flows use (`side_marks`: the part that is not symmetric, every flow
  /// on its own links).
  std::shared_ptr<const std::vector<LinkId>> marks;
  std::shared_ptr<const std::vector<LinkId>> side_marks;
  /// Some side flow stays inside a node, so crosses a GPU's communication engine.
  bool side_engines = false;
};

/// The plans of one launching group and kind, or of one channel: the last few sizes', so that
/// a group alternating sizes (ZeRO-3 gathering layers and the embedding; a pipeline's
/// activations and its embedding's gradient) works each out once.
struct PlanSlot {
  static constexpr std::size_t kSizes = 4;
  std::vector<LaunchPlan> plans;
  std::size_t next = 0;  ///< the plan a fifth size replaces
  /// The plan for `size` and `copy_engine`, or null.
  const LaunchPlan* find(Bytes size, bool copy_engine) const {
    for (const LaunchPlan& p : plans) {
      if (p.size == size && p.copy_engine == copy_engine) return &p;
    }
    return nullptr;
  }
  /// An empty plan to fill: a new one, or the oldest of kSizes.
  LaunchPlan& fresh() {
    if (plans.size() < kSizes) return plans.emplace_back();
    LaunchPlan& p = plans[next++ % kSizes];
    p = LaunchPlan{};
    return p;
  }
};

/// What the plans of a replay were worked out under: the world's groups (ReplayWorld's count
/// of group sets indexed), the node fold's shape (run 1: none) and the engine links. Plans
/// made under one key serve every replay with that key.
struct PlanKey {
  std::uint64_t groups = 0;
  std::int32_t fold_run = 1;
  std::int32_t fold_period = 1;
  LinkId engine_base = -1;
  bool operator==(const PlanKey&) const = default;
};

}  // namespace trainsim::sim
