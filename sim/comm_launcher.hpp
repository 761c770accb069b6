#pragma once
// Matches communication ops and starts their transfers: a collective starts when every
// recorded rank standing for a member of its group has issued it (its flows, and in
// representative replay those of the unrecorded groups it stands for, go onto the link
// network); a send and its receive start together. Each match becomes an Activity that
// ends once its flows have finished and its latency has passed; the replay owns the clock
// and tells the launcher when flows finish.

#include <cstdint>
#include <memory>
#include <span>
#include <utility>
#include <vector>

#include "models/program.hpp"
#include "sim/collective_model.hpp"
#include "sim/flow_network.hpp"
#include "sim/hardware_profile.hpp"
#include "sim/launch_plan.hpp"
#include "sim/node_fold.hpp"
#include "sim/program_index.hpp"
#include "sim/topology.hpp"
#include "units/units.hpp"

namespace trainsim::sim {

/// Representative replay: the flows of the unrecorded ranks that channel `c`'s sender stands
/// for, each sending `bytes` to the peer at the same rank offset as `src` to `dst` when the
/// receiver stands for that peer (appended to `out`; nothing when every rank is recorded).
void append_p2p_images(const program::Program& program, const ProgramIndex& index,
                       const IndexedChannel& c, program::Rank src, program::Rank dst, double bytes,
                       std::vector<FlowSpec>& out);

/// (recorded-rank index, op index): one op taking part in an activity.
using Participant = std::pair<std::int32_t, program::OpIndex>;

/// A matched collective or send/receive pair in progress.
struct Activity {
  std::int32_t flows_left = 0;  ///< flows still on the network
  Time latency;                 ///< paid after the last flow finishes
  std::int32_t part_begin = 0;  ///< range of the launcher's participant list
  std::int32_t part_end = 0;
  bool copy_engine = false;  ///< moved by copy engines: no interference either way
};

class CommLauncher {
 public:
  static constexpr std::size_t kCollectiveKinds = 7;  ///< program::CollectiveKind's values

  /// All references must outlive the launcher; flows are owned by their activity's id.
  /// `engine_base` >= 0: link `engine_base + g` of `flows` is GPU g's communication engine,
  /// added to the route of every transfer GPU g sends inside its node (the replay throttles
  /// it while g computes); -1: no engine links. With an active `fold`, only the flows
  /// leaving kept nodes go onto the network, over the kept nodes' links (sim/node_fold.hpp);
  /// a launch whose flows are not symmetric under it throws FoldBroken.
  /// `shared_plans`: the group launch plans of replays alike (ReplayWorld::group_plans, for
  /// the PlanKey of this launcher's groups, fold and engine links: the caller's to match), or
  /// null for a store of its own.
  CommLauncher(const program::Program& program, const hw::HardwareProfile& hw,
               const ProgramIndex& index, Topology& topology, FlowNetwork& flows,
               LinkId engine_base = -1, const NodeFold* fold = nullptr,
               std::shared_ptr<std::vector<PlanSlot>> shared_plans = nullptr);

  /// A collective op (its OpInfo) of recorded rank `r` is ready to run. Returns the id of the
  /// activity it completes (the last needed member arrived and its flows started), or -1
  /// while members are missing.
  std::int32_t collective_ready(std::int32_t r, const OpInfo& info);

  /// A send or receive (its OpInfo) is ready. Returns the id of the activity once both
  /// sides are ready (its flows started), or -1.
  std::int32_t p2p_ready(const OpInfo& info);

  const Activity& activity(std::int32_t id) const {
    return activities_[static_cast<std::size_t>(id)];
  }
  /// Ops taking part in activity `id`.
  std::span<const Participant> participants(std::int32_t id) const;

  /// `images` flows owned by activity `id` finished (a bundle's at once); true when they were
  /// the activity's last.
  bool flow_finished(std::int32_t id, std::int32_t images = 1) {
    if ((activities_[static_cast<std::size_t>(id)].flows_left -= images) != 0) return false;
    if (fold_ != nullptr) release_marks(id);
    return true;
  }

  /// With a fold: whether side flows inside nodes (a launch's part that is not symmetric, on
  /// its own links) are in flight; the engines of GPUs outside the kept nodes then matter.
  bool side_in_flight() const { return sides_in_flight_ > 0; }
  /// Whether such side flows started since the last call, with none in flight before them.
  bool take_side_started() { return std::exchange(side_started_, false); }

  /// Whether needed member `slot` of group `g` has issued its `instance`-th collective
  /// there (for deadlock reports).
  bool joined(program::GroupId g, std::int32_t instance, std::int32_t slot) const;

 private:
  struct GroupProgress {
    std::vector<std::int32_t> ready;        ///< per instance, members ready
    std::vector<Participant> participants;  ///< instances x needed slots; {-1, -1} when absent
  };
  struct ChannelProgress {
    std::vector<std::uint8_t> send_ready;
    std::vector<std::uint8_t> recv_ready;
  };

  /// The routes of the flows between some GPU pairs, in their order, by value: worked out
  /// from the topology's structure once per group and kind, without its hashed cache (a
  /// ZeRO-3 group over thousands of nodes has tens of thousands of pairs).
  struct CachedRoutes {
    std::vector<std::pair<program::Rank, program::Rank>> pairs;
    std::vector<Topology::Links> routes;
  };

  /// A queued flow: its wire bytes, route (queued_links_ from `first`) and source GPU.
  struct QueuedFlow {
    double bytes = 0.0;
    std::int32_t first = 0;
    std::int32_t links = 0;
    std::int32_t src = 0;
  };
  /// An activity in flight with a fold: its plan's marks.
  struct Marked {
    std::int32_t activity = 0;
    std::shared_ptr<const std::vector<LinkId>> links;
    std::shared_ptr<const std::vector<LinkId>> side_links;
    bool side_engines = false;
  };
  /// How queue_launch queued a launch: its folded flows first, then its side flows.
  struct Staged {
    std::size_t folded = 0;     ///< queued_[0, folded) are folded
    bool side_engines = false;  ///< some side flow stays inside a node
  };

  /// Queues the flows of flow_specs_ at `efficiency` by tier (their routes, wire bytes), with
  /// their routes from `cache` when its pairs are theirs (else looked up and kept there). With
  /// a fold, stages them (wire bytes) in launch_flows_ for queue_launch instead.
  /// `copy_engine`: the transfers bypass the communication-engine links (no throttling while
  /// the GPU computes).
  void queue_flows(const TierEfficiency& efficiency, CachedRoutes& cache, bool copy_engine = false);
  /// Queues one flow of `wire_bytes` from `src` over `route` (each link's image in the kept
  /// nodes when `folded`), with its GPU's communication engine when it stays `inside` a node
  /// and is not `copy_engine`.
  void queue_one(program::Rank src, double wire_bytes, const Topology::Links& route, bool inside,
                 bool copy_engine, bool folded);
  /// With a fold: queues the staged flows of the launch (launch_flows_) in two parts, those
  /// inside nodes and those across: a part that is its own image under the shift goes folded
  /// (only its flows leaving kept nodes, over their links' images there), else it is a side
  /// part (every flow on its own links). Folded flows are queued first. `inside_kept`: the
  /// flows inside nodes were made for the kept nodes alone, known symmetric.
  Staged queue_launch(bool copy_engine, bool inside_kept);
  /// Keeps the queued flows, grouped, and `latency` as `plan` for `size`; with a fold, the
  /// links its folded and side flows mark (`staged`: how they were queued).
  void keep_plan(LaunchPlan& plan, Bytes size, Time latency, const Staged& staged);
  /// With a fold: the links `plan`'s folded and side flows mark. Throws FoldBroken where the
  /// two parts would meet (the shift keeps a flow inside or across nodes, so they never do).
  void mark_plan(LaunchPlan& plan, const Staged& staged);
  /// Starts `plan`'s flows for activity `owner`, a group at a time, and returns how many.
  /// With a fold, first marks its links, throwing FoldBroken where a side launch and folded
  /// flows would meet.
  std::int32_t start_plan(const LaunchPlan& plan, std::int32_t owner);
  std::int32_t add(const Activity& a);
  /// Unmarks the links of activity `id` (with a fold), its flows all finished.
  void release_marks(std::int32_t id);

  const program::Program& program_;
  const hw::HardwareProfile& hw_;
  const ProgramIndex& index_;
  Topology& topology_;
  FlowNetwork& flows_;
  std::vector<GroupProgress> groups_;
  std::vector<ChannelProgress> channels_;
  std::vector<Activity> activities_;
  std::vector<Participant> parts_;
  std::vector<FlowSpec> flow_specs_;
  std::vector<FlowSpec> launch_flows_;  ///< with a fold: every flow of the launch, wire bytes
  std::vector<FlowSpec> inside_flows_;  ///< queue_launch's parts of launch_flows_
  std::vector<FlowSpec> across_flows_;
  std::vector<QueuedFlow> queued_;
  std::vector<CachedRoutes> group_routes_;    ///< per group and collective kind
  std::vector<CachedRoutes> channel_routes_;  ///< per p2p channel
  /// Per launching group and collective kind.
  std::shared_ptr<std::vector<PlanSlot>> group_plans_;
  std::vector<PlanSlot> channel_plans_;       ///< per p2p channel
  std::vector<LinkId> queued_links_;
  std::vector<LinkId> image_links_;
  LinkId engine_base_ = -1;
  const NodeFold* fold_ = nullptr;        ///< null or inactive: every flow goes onto the network
  std::vector<std::int32_t> folded_use_;  ///< per link: folded activities in flight on it
  std::vector<std::int32_t> side_use_;    ///< per link: side activities on its images
  std::vector<Marked> marked_;            ///< activities in flight that marked links
  std::vector<std::uint8_t> marking_;     ///< mark_plan's flags, one per link
  std::int32_t sides_in_flight_ = 0;
  bool side_started_ = false;
};

}  // namespace trainsim::sim
