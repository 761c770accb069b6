#include "sim/comm_launcher.hpp"

#include <algorithm>
#include <limits>
#include <memory>
#include <utility>
#include <variant>

namespace trainsim::sim {

using program::Collective;
using program::GroupId;
using program::OpIndex;
using program::Rank;

static_assert(static_cast<std::size_t>(program::CollectiveKind::sendrecv) + 1 ==
                  CommLauncher::kCollectiveKinds,
              "one cached route list per collective kind");

CommLauncher::CommLauncher(const program::Program& program, const hw::HardwareProfile& hw,
                           const ProgramIndex& index, Topology& topology, FlowNetwork& flows,
                           LinkId engine_base, const NodeFold* fold,
                           std::shared_ptr<std::vector<PlanSlot>> shared_plans)
    : program_(program),
      hw_(hw),
      index_(index),
      topology_(topology),
      flows_(flows),
      group_plans_(shared_plans != nullptr ? std::move(shared_plans)
                                           : std::make_shared<std::vector<PlanSlot>>()),
      engine_base_(engine_base),
      fold_(fold != nullptr && fold->active() ? fold : nullptr) {
  if (fold_ != nullptr) {
    folded_use_.assign(flows.link_count(), 0);
    side_use_.assign(flows.link_count(), 0);
    marking_.assign(flows.link_count(), 0);
  }
  groups_.resize(index.groups.size());
  group_routes_.resize(index.groups.size() * kCollectiveKinds);
  channel_routes_.resize(index.channels.size());
  // A shared store made under the same key is already sized for these groups.
  if (group_plans_->size() != index.groups.size() * kCollectiveKinds) {
    group_plans_->clear();
    group_plans_->resize(index.groups.size() * kCollectiveKinds);
  }
  channel_plans_.resize(index.channels.size());
  for (std::size_t g = 0; g < index.groups.size(); ++g) {
    const IndexedGroup& ig = index.groups[g];
    groups_[g].ready.assign(static_cast<std::size_t>(ig.instances), 0);
    groups_[g].participants.assign(static_cast<std::size_t>(ig.instances) * ig.needed.size(),
                                   {-1, -1});
  }
  channels_.resize(index.channels.size());
  for (std::size_t c = 0; c < index.channels.size(); ++c) {
    channels_[c].send_ready.assign(index.channels[c].send_ops.size(), 0);
    channels_[c].recv_ready.assign(index.channels[c].recv_ops.size(), 0);
  }
  // At most one activity per collective instance and per matched send: reserved up front,
  // the lists never regrow (and copy themselves) inside the event loop (1.3 M activities on
  // the 3072-GPU row).
  std::size_t activities = 0;
  std::size_t parts = 0;
  for (const IndexedGroup& ig : index.groups) {
    activities += static_cast<std::size_t>(ig.instances);
    parts += static_cast<std::size_t>(ig.instances) * ig.needed.size();
  }
  for (const IndexedChannel& ic : index.channels) {
    const std::size_t pairs = std::min(ic.send_ops.size(), ic.recv_ops.size());
    activities += pairs;
    parts += 2 * pairs;
  }
  activities_.reserve(activities);
  parts_.reserve(parts);
}

std::span<const Participant> CommLauncher::participants(std::int32_t id) const {
  const Activity& a = activity(id);
  return std::span<const Participant>(parts_).subspan(
      static_cast<std::size_t>(a.part_begin), static_cast<std::size_t>(a.part_end - a.part_begin));
}

bool CommLauncher::joined(GroupId g, std::int32_t instance, std::int32_t slot) const {
  const GroupProgress& gp = groups_[static_cast<std::size_t>(g)];
  const std::size_t needed = index_.groups[static_cast<std::size_t>(g)].needed.size();
  return gp.participants[static_cast<std::size_t>(instance) * needed +
                         static_cast<std::size_t>(slot)]
             .first >= 0;
}

std::int32_t CommLauncher::collective_ready(std::int32_t r, const OpInfo& info) {
  const OpIndex i = info.op;
  const IndexedGroup& g = index_.groups[static_cast<std::size_t>(info.ref)];
  GroupProgress& gp = groups_[static_cast<std::size_t>(info.ref)];
  const auto k = static_cast<std::size_t>(info.value);
  const std::size_t needed = g.needed.size();
  // This rank's slot among the recorded ranks the group needs (few: found, not stored per op).
  const auto slot = static_cast<std::size_t>(std::lower_bound(g.needed.begin(), g.needed.end(), r) -
                                             g.needed.begin());
  gp.participants[k * needed + slot] = {r, i};
  if (++gp.ready[k] < static_cast<std::int32_t>(needed)) return -1;

  // The kind and size as the first participant (the group's first needed member) issued it.
  const IndexedCall& c = g.calls[k];
  const auto id = static_cast<std::int32_t>(activities_.size());
  Activity a;
  a.part_begin = static_cast<std::int32_t>(parts_.size());
  parts_.insert(parts_.end(), gp.participants.begin() + static_cast<std::ptrdiff_t>(k * needed),
                gp.participants.begin() + static_cast<std::ptrdiff_t>((k + 1) * needed));
  a.part_end = static_cast<std::int32_t>(parts_.size());
  a.copy_engine = c.copy_engine;
  PlanSlot& slot_plans = (*group_plans_)[static_cast<std::size_t>(info.ref) * kCollectiveKinds +
                                         static_cast<std::size_t>(c.kind)];
  const LaunchPlan* found = slot_plans.find(c.size, c.copy_engine);
  if (found == nullptr) {
    LaunchPlan& plan = slot_plans.fresh();
    plan.copy_engine = c.copy_engine;
    // The groups launched together are images of one another: NCCL's choice for the first
    // is every one's.
    const IndexedGroup& first =
        g.launches.empty() ? g : index_.groups[static_cast<std::size_t>(g.launches.front())];
    plan.algorithm =
        choose_algorithm(c.kind, c.size, first.gpus, first.rings, topology_, hw_).algorithm;
    // A tree's chains inside nodes that are symmetric by their groups' shape are made for the
    // kept nodes alone (a scalar all-reduce over 16 384 GPUs: 230 000 chain flows otherwise).
    const std::span<const std::uint8_t> chain_nodes =
        fold_ == nullptr ? std::span<const std::uint8_t>()
                         : fold_->tree_chain_nodes(plan.algorithm, g.launches, index_);
    for (const GroupId h : g.launches) {
      const IndexedGroup& hs = index_.groups[static_cast<std::size_t>(h)];
      a.latency =
          std::max(a.latency, collective_latency(c.kind, static_cast<std::int64_t>(hs.gpus.size()),
                                                 hs.nodes, plan.algorithm, hw_));
      flow_specs_.clear();
      append_algorithm_flows(plan.algorithm, c.kind, c.size, hs.gpus, hs.rings, topology_,
                             hw_.network.nics_per_node, flow_specs_, chain_nodes);
      queue_flows(collective_efficiency(c.kind, c.size, static_cast<std::int64_t>(hs.gpus.size()),
                                        hs.nodes, hw_),
                  group_routes_[static_cast<std::size_t>(h) * kCollectiveKinds +
                                static_cast<std::size_t>(c.kind)],
                  c.copy_engine);
    }
    keep_plan(plan, c.size, a.latency,
              fold_ == nullptr ? Staged{queued_.size(), false}
                               : queue_launch(c.copy_engine, !chain_nodes.empty()));
    queued_.clear();
    queued_links_.clear();
    found = &plan;
  }
  a.latency = found->latency;
  a.flows_left = start_plan(*found, id);
  return add(a);
}

std::int32_t CommLauncher::p2p_ready(const OpInfo& info) {
  const IndexedChannel& c = index_.channels[static_cast<std::size_t>(info.ref)];
  ChannelProgress& cp = channels_[static_cast<std::size_t>(info.ref)];
  const auto k = static_cast<std::size_t>(info.value);
  if (info.kind == OpKind::send) {
    cp.send_ready[k] = 1;
    if (k >= cp.recv_ready.size() || !cp.recv_ready[k]) return -1;
  } else {
    cp.recv_ready[k] = 1;
    if (k >= cp.send_ready.size() || !cp.send_ready[k]) return -1;
  }
  const OpIndex send_op = c.send_ops[k];
  const auto& send = std::get<program::Send>(program_.ranks[static_cast<std::size_t>(c.sender)]
                                                 .ops[static_cast<std::size_t>(send_op)]
                                                 .payload);
  const Rank src = program_.ranks[static_cast<std::size_t>(c.sender)].rank;
  const bool inter = topology_.node_of(src) != topology_.node_of(send.peer);
  const auto id = static_cast<std::int32_t>(activities_.size());
  Activity a;
  a.latency = p2p_latency(inter, hw_);
  a.part_begin = static_cast<std::int32_t>(parts_.size());
  parts_.emplace_back(c.sender, send_op);
  parts_.emplace_back(c.receiver, c.recv_ops[k]);
  a.part_end = static_cast<std::int32_t>(parts_.size());
  PlanSlot& slot_plans = channel_plans_[static_cast<std::size_t>(info.ref)];
  const LaunchPlan* found = slot_plans.find(send.size, false);
  if (found == nullptr) {
    LaunchPlan& plan = slot_plans.fresh();
    flow_specs_.clear();
    if (send.size.count() > 0) {
      flow_specs_.push_back({src, send.peer, send.size.as_double()});
      append_p2p_images(program_, index_, c, src, send.peer, send.size.as_double(), flow_specs_);
    }
    const double efficiency = p2p_efficiency(send.size, inter, hw_);
    queue_flows({efficiency, efficiency}, channel_routes_[static_cast<std::size_t>(info.ref)]);
    keep_plan(plan, send.size, a.latency,
              fold_ == nullptr ? Staged{queued_.size(), false} : queue_launch(false, false));
    queued_.clear();
    queued_links_.clear();
    found = &plan;
  }
  a.flows_left = start_plan(*found, id);
  return add(a);
}

/// Representative replay: the unrecorded ranks that the sender stands for send too, to the
/// peer at the same offset (the plan's translation symmetry: stage s+1 of a TP/DP position
/// is the same offset away for every position; along a CP ring, around it), when that peer
/// is represented by the receiver. Their flows share links with the recorded one.
void append_p2p_images(const program::Program& program, const ProgramIndex& index,
                       const IndexedChannel& c, Rank src, Rank dst, double bytes,
                       std::vector<FlowSpec>& out) {
  if (program.records_every_rank()) return;
  const bool axes = program.axes.known();
  for (const Rank image : index.represented_by(c.sender)) {
    if (image == src) continue;
    const Rank peer = axes ? program.axes.translate(dst, src, image) : dst + (image - src);
    if (peer < 0 || peer >= program.world_size || peer == image) continue;
    if (index.representative[static_cast<std::size_t>(peer)] != c.receiver) continue;
    out.push_back({image, peer, bytes});
  }
}

void CommLauncher::queue_flows(const TierEfficiency& efficiency, CachedRoutes& cache,
                               bool copy_engine) {
  if (fold_ != nullptr) {
    // Staged whole: queue_launch routes them once the launch's symmetry is known.
    for (const FlowSpec& f : flow_specs_) {
      if (f.src == f.dst) continue;  // a local copy, not modelled as traffic
      const bool inside = topology_.node_of(f.src) == topology_.node_of(f.dst);
      launch_flows_.push_back({f.src, f.dst, f.bytes / efficiency.of(!inside)});
    }
    return;
  }
  // A group's collectives of one kind, and a channel's sends, run between the same GPU pairs
  // every time: their routes are looked up once.
  const bool same_pairs = cache.pairs.size() == flow_specs_.size() &&
                          std::equal(flow_specs_.begin(), flow_specs_.end(), cache.pairs.begin(),
                                     [](const FlowSpec& f, const std::pair<Rank, Rank>& p) {
                                       return f.src == p.first && f.dst == p.second;
                                     });
  if (!same_pairs) {
    cache.pairs.clear();
    cache.routes.clear();
    for (const FlowSpec& f : flow_specs_) {
      cache.pairs.emplace_back(f.src, f.dst);
      cache.routes.push_back(topology_.route_links(f.src, f.dst));
    }
  }
  // NCCL reaches `efficiency` of a link's bandwidth: a flow puts bytes / efficiency on the
  // wire at link speed, so flows sharing a link split its raw capacity and together never
  // move more useful bytes than the efficiency allows.
  for (std::size_t k = 0; k < flow_specs_.size(); ++k) {
    const FlowSpec& f = flow_specs_[k];
    const Topology::Links& route = cache.routes[k];
    if (route.count == 0) continue;  // same GPU: a local copy, not modelled as traffic
    const bool inside = topology_.node_of(f.src) == topology_.node_of(f.dst);
    queue_one(f.src, f.bytes / efficiency.of(!inside), route, inside, copy_engine, false);
  }
}

void CommLauncher::queue_one(Rank src, double wire_bytes, const Topology::Links& route, bool inside,
                             bool copy_engine, bool folded) {
  QueuedFlow q;
  q.bytes = wire_bytes;
  q.src = src;
  q.first = static_cast<std::int32_t>(queued_links_.size());
  for (const LinkId l : route)
    queued_links_.push_back(folded ? fold_->link(l) : l);
  // Its GPU's communication engine (a kept GPU's own when folded).
  if (engine_base_ >= 0 && !copy_engine && route.count < kMaxRouteLinks && inside) {
    queued_links_.push_back(engine_base_ + src);
  }
  q.links = static_cast<std::int32_t>(queued_links_.size()) - q.first;
  queued_.push_back(q);
}

CommLauncher::Staged CommLauncher::queue_launch(bool copy_engine, bool inside_kept) {
  // The shift moves whole nodes, so it keeps a flow inside its node or across: the launch is
  // its own image exactly when its flows inside nodes are and its flows across are. Where
  // only one part is (a tree: its chains inside each node are, its double binary tree across
  // them is not), that part still folds and only the other runs beside.
  inside_flows_.clear();
  across_flows_.clear();
  for (const FlowSpec& f : launch_flows_) {
    (topology_.node_of(f.src) == topology_.node_of(f.dst) ? inside_flows_ : across_flows_)
        .push_back(f);
  }
  const bool inside_folds = inside_kept || fold_->invariant(inside_flows_);
  const bool across_folds = fold_->invariant(across_flows_);
  // One flow of each orbit of a folded part travels, the one leaving the kept node, over the
  // kept nodes' images of its links (its own on the sending side); every flow of a side part
  // travels on its own links. In the launch's order where it folds whole, or not at all.
  const auto queue = [&](const std::vector<FlowSpec>& flows, bool folded) {
    for (const FlowSpec& f : flows) {
      if (folded && !fold_->keeps(f.src)) continue;
      queue_one(f.src, f.bytes, topology_.route_links(f.src, f.dst),
                topology_.node_of(f.src) == topology_.node_of(f.dst), copy_engine, folded);
    }
  };
  Staged staged;
  if (inside_folds == across_folds) {
    queue(launch_flows_, inside_folds);
    staged.folded = inside_folds ? queued_.size() : 0;
    staged.side_engines = !inside_folds && !inside_flows_.empty();
  } else {
    queue(inside_folds ? inside_flows_ : across_flows_, true);
    staged.folded = queued_.size();
    queue(inside_folds ? across_flows_ : inside_flows_, false);
    staged.side_engines = !inside_folds;
  }
  launch_flows_.clear();
  return staged;
}

void CommLauncher::mark_plan(LaunchPlan& plan, const Staged& staged) {
  // The kept nodes' links of queued_[begin, end), each once, in the order first met (any
  // order would do), flagged in marking_ until cleared.
  const auto marks_of = [&](std::size_t begin, std::size_t end) {
    std::vector<LinkId> marks;
    for (std::size_t i = begin; i < end; ++i) {
      const QueuedFlow& q = queued_[i];
      for (std::int32_t k = q.first; k < q.first + q.links; ++k) {
        const LinkId l = fold_->link(queued_links_[static_cast<std::size_t>(k)]);
        if (!std::exchange(marking_[static_cast<std::size_t>(l)], std::uint8_t{1}))
          marks.push_back(l);
      }
    }
    return marks;
  };
  std::vector<LinkId> folded = marks_of(0, staged.folded);
  for (const LinkId l : folded)
    marking_[static_cast<std::size_t>(l)] = 0;
  std::vector<LinkId> side = marks_of(staged.folded, queued_.size());
  for (const LinkId l : side)
    marking_[static_cast<std::size_t>(l)] = 0;
  if (!folded.empty() && !side.empty()) {
    for (const LinkId l : side)
      marking_[static_cast<std::size_t>(l)] = 1;
    const bool meet = std::any_of(folded.begin(), folded.end(), [&](LinkId l) {
      return marking_[static_cast<std::size_t>(l)] != 0;
    });
    for (const LinkId l : side)
      marking_[static_cast<std::size_t>(l)] = 0;
    if (meet) throw FoldBroken();
  }
  plan.marks = std::make_shared<const std::vector<LinkId>>(std::move(folded));
  plan.side_marks = std::make_shared<const std::vector<LinkId>>(std::move(side));
  plan.side_engines = staged.side_engines;
}

void CommLauncher::keep_plan(LaunchPlan& plan, Bytes size, Time latency, const Staged& staged) {
  if (fold_ != nullptr) mark_plan(plan, staged);
  plan.latency = latency;
  plan.flows = static_cast<std::int32_t>(queued_.size());
  plan.groups.clear();
  const auto same_shape = [](const QueuedFlow& a, const QueuedFlow& b) {
    return a.bytes == b.bytes && a.links == b.links;
  };
  // Grouped by (bytes, route length), keeping queue order within a group so the flows' order
  // never depends on the sort's tie-breaking; the usual case is one group (every flow an
  // image of one transfer), left in queue order.
  if (!std::all_of(queued_.begin(), queued_.end(),
                   [&](const QueuedFlow& q) { return same_shape(q, queued_.front()); })) {
    std::stable_sort(queued_.begin(), queued_.end(), [](const QueuedFlow& a, const QueuedFlow& b) {
      return a.bytes != b.bytes ? a.bytes < b.bytes : a.links < b.links;
    });
  }
  for (std::size_t i = 0; i < queued_.size();) {
    const QueuedFlow shape = queued_[i];
    std::vector<LinkId> links;
    for (; i < queued_.size() && same_shape(queued_[i], shape); ++i) {
      const auto begin = queued_links_.begin() + queued_[i].first;
      links.insert(links.end(), begin, begin + queued_[i].links);
    }
    plan.groups.push_back(
        {shape.bytes, std::make_shared<const ImageSet>(std::move(links),
                                                       static_cast<std::size_t>(shape.links))});
  }
  // Last: `find` matches a plan by its size, and plans outlive a replay that throws while
  // making one (ReplayWorld).
  plan.size = size;
}

std::int32_t CommLauncher::start_plan(const LaunchPlan& plan, std::int32_t owner) {
  if (fold_ != nullptr && plan.flows > 0) {
    // Side flows and folded flows never share a link or its images: each side's links are
    // counted, and a start onto the other side's is where the fold stops.
    for (const LinkId l : *plan.marks) {
      if (side_use_[static_cast<std::size_t>(l)] > 0) throw FoldBroken();
    }
    for (const LinkId l : *plan.side_marks) {
      if (folded_use_[static_cast<std::size_t>(l)] > 0) throw FoldBroken();
    }
    for (const LinkId l : *plan.marks)
      ++folded_use_[static_cast<std::size_t>(l)];
    for (const LinkId l : *plan.side_marks)
      ++side_use_[static_cast<std::size_t>(l)];
    marked_.push_back({owner, plan.marks, plan.side_marks, plan.side_engines});
    if (plan.side_engines && sides_in_flight_++ == 0) side_started_ = true;
  }
  for (const LaunchPlan::Group& g : plan.groups)
    flows_.start_images(g.images, g.bytes, std::numeric_limits<double>::infinity(), owner);
  return plan.flows;
}

void CommLauncher::release_marks(std::int32_t id) {
  const auto it = std::find_if(marked_.begin(), marked_.end(),
                               [id](const Marked& m) { return m.activity == id; });
  if (it == marked_.end()) return;
  for (const LinkId l : *it->links)
    --folded_use_[static_cast<std::size_t>(l)];
  for (const LinkId l : *it->side_links)
    --side_use_[static_cast<std::size_t>(l)];
  if (it->side_engines) --sides_in_flight_;
  *it = std::move(marked_.back());
  marked_.pop_back();
}

std::int32_t CommLauncher::add(const Activity& a) {
  activities_.push_back(a);
  return static_cast<std::int32_t>(activities_.size() - 1);
}

}  // namespace trainsim::sim
