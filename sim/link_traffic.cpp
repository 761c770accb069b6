#include "sim/link_traffic.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <map>
#include <stdexcept>
#include <utility>
#include <variant>

#include "sim/collective_model.hpp"
#include "sim/comm_launcher.hpp"
#include "sim/node_fold.hpp"
#include "sim/program_index.hpp"
#include "sim/replay_world.hpp"
#include "sim/topology.hpp"

namespace trainsim::sim {

namespace {

LinkTraffic tally(const program::Program& program, const hw::HardwareProfile& hw,
                  Topology& topology, const ProgramIndex& index, bool fold_nodes,
                  ReplayWorld* world) {
  LinkTraffic out;
  out.capacities = topology.link_capacities();
  out.bytes.assign(out.capacities.size(), 0.0);
  // Folded (sim/node_fold.hpp): a launch that is its own image under the shift of nodes puts
  // on every link what it puts on the link's image in the first node of its run, so only its
  // flows leaving those nodes are routed, onto the images (`symmetric`); any other launch is
  // tallied on its own links (`bytes`); a link carries the two added.
  const NodeFold fold =
      fold_nodes ? NodeFold(program, index, topology, hw, -1, NodeFold::Use::tally) : NodeFold();
  std::vector<double> symmetric(fold.active() ? out.bytes.size() : 0, 0.0);
  std::vector<FlowSpec> flows;
  std::array<std::vector<FlowSpec>, 2> parts;  // inside nodes, across
  const auto route = [&](const std::vector<FlowSpec>& part, bool own_image) {
    if (own_image) {
      for (const FlowSpec& f : part) {
        if (!fold.keeps(f.src)) continue;
        for (const LinkId l : topology.route_links(f.src, f.dst))
          symmetric[static_cast<std::size_t>(fold.link(l))] += f.bytes;
      }
    } else {
      for (const FlowSpec& f : part) {
        for (const LinkId l : topology.route_links(f.src, f.dst))
          out.bytes[static_cast<std::size_t>(l)] += f.bytes;
      }
    }
  };
  // As the launcher does, a launch's flows inside nodes and across fold apart: the shift keeps
  // each part, and one may be symmetric where the other is not (a tree's chains, its tree).
  // Each part is its own image when `inside_kept` (the flows inside nodes were made for the
  // kept nodes alone, known symmetric), `permuted` (NodeFold::launches_symmetric), as
  // `verdicts` say (ReplayWorld::ring_verdicts; filled in where unknown), or as checked.
  const auto route_all = [&](bool inside_kept, bool permuted,
                             std::array<std::int8_t, 2>* verdicts) {
    if (!fold.active()) {
      route(flows, false);
      flows.clear();
      return;
    }
    for (std::vector<FlowSpec>& part : parts)
      part.clear();
    for (const FlowSpec& f : flows)
      parts[topology.node_of(f.src) == topology.node_of(f.dst) ? 0 : 1].push_back(f);
    for (std::size_t p = 0; p < parts.size(); ++p) {
      bool own_image = permuted || (p == 0 && inside_kept);
      if (!own_image && verdicts != nullptr && (*verdicts)[p] >= 0) {
        own_image = (*verdicts)[p] == 1;
      } else if (!own_image) {
        own_image = fold.invariant(parts[p]);
        if (verdicts != nullptr) (*verdicts)[p] = own_image ? 1 : 0;
      }
      route(parts[p], own_image);
    }
    flows.clear();
  };
  for (std::size_t gi = 0; gi < index.groups.size(); ++gi) {
    const IndexedGroup& g = index.groups[gi];
    if (g.calls.empty() || g.launches.empty()) continue;
    // As CommLauncher::collective_ready launches them: NCCL's choice for the group's first
    // launch is every launched group's; sizes summed per (kind, algorithm), in a map so the
    // order of the sums never depends on hashing.
    const IndexedGroup& first = index.groups[static_cast<std::size_t>(g.launches.front())];
    std::map<std::pair<program::CollectiveKind, Bytes>, CollectiveAlgorithm> chosen;
    std::map<std::pair<program::CollectiveKind, CollectiveAlgorithm>, std::int64_t> total;
    for (const IndexedCall& c : g.calls) {
      auto [it, added] = chosen.try_emplace({c.kind, c.size}, CollectiveAlgorithm::ring);
      if (added) {
        it->second =
            choose_algorithm(c.kind, c.size, first.gpus, first.rings, topology, hw).algorithm;
      }
      total[{c.kind, it->second}] += c.size.count();
    }
    // Launches the shift permutes: only the flows leaving kept nodes are routed, so only the
    // launches with a member there make theirs (a family of 2048 tensor groups: a few).
    const bool permuted = fold.launches_symmetric(g.launches, index);
    // A ring over launches of one member count and channel count puts one size on all its
    // flows (append_collective_flows), so whether they are their own image does not depend on
    // the size: known from the world once a Program alike was tallied.
    const bool uniform_rings =
        world != nullptr && fold.active() && !permuted &&
        std::all_of(g.launches.begin(), g.launches.end(), [&](program::GroupId h) {
          const IndexedGroup& hs = index.groups[static_cast<std::size_t>(h)];
          return hs.gpus.size() == first.gpus.size() && hs.rings.channels == first.rings.channels;
        });
    for (const auto& [key, bytes] : total) {
      std::array<std::int8_t, 2>* verdicts =
          uniform_rings && bytes > 0 && key.second == CollectiveAlgorithm::ring &&
                  key.first != program::CollectiveKind::all_to_all
              ? &world->ring_verdicts(fold.run(), fold.period(), static_cast<program::GroupId>(gi),
                                      key.first)
              : nullptr;
      // A tree's chains symmetric by their groups' shape: made for the kept nodes alone.
      const std::span<const std::uint8_t> chain_nodes =
          fold.tree_chain_nodes(key.second, g.launches, index);
      // Every part its own image: the launches without a kept member put nothing on a kept
      // link, so their flows are not made.
      const bool kept_only =
          permuted || (verdicts != nullptr && (*verdicts)[0] == 1 && (*verdicts)[1] == 1);
      for (const program::GroupId h : g.launches) {
        const IndexedGroup& hs = index.groups[static_cast<std::size_t>(h)];
        if (kept_only && std::none_of(hs.gpus.begin(), hs.gpus.end(),
                                      [&](std::int32_t m) { return fold.keeps(m); })) {
          continue;
        }
        append_algorithm_flows(key.second, key.first, Bytes::of(bytes), hs.gpus, hs.rings, topology,
                               hw.network.nics_per_node, flows, chain_nodes);
      }
      route_all(!chain_nodes.empty(), kept_only, verdicts);
    }
  }
  for (const IndexedChannel& c : index.channels) {
    if (c.send_ops.empty() || c.recv_ops.empty()) continue;
    const program::RankProgram& sender = program.ranks[static_cast<std::size_t>(c.sender)];
    // Only matched sends move (the replay's p2p_ready), each to its own peer; summed per
    // peer (in a map: a fixed order).
    const std::size_t pairs = std::min(c.send_ops.size(), c.recv_ops.size());
    std::map<program::Rank, std::int64_t> to_peer;
    for (std::size_t k = 0; k < pairs; ++k) {
      const auto& send =
          std::get<program::Send>(sender.ops[static_cast<std::size_t>(c.send_ops[k])].payload);
      to_peer[send.peer] += send.size.count();
    }
    for (const auto& [peer, bytes] : to_peer) {
      if (bytes <= 0) continue;
      const auto b = static_cast<double>(bytes);
      flows.push_back({sender.rank, peer, b});
      append_p2p_images(program, index, c, sender.rank, peer, b, flows);
      route_all(false, false, nullptr);
    }
  }
  if (fold.active()) {
    for (std::size_t l = 0; l < out.bytes.size(); ++l)
      out.bytes[l] += symmetric[static_cast<std::size_t>(fold.link(static_cast<LinkId>(l)))];
  }
  return out;
}

void check_world(std::int32_t gpus, const program::Program& program) {
  if (gpus != program.world_size) {
    throw std::invalid_argument(fmt::format(
        "link traffic: a topology of {} GPUs for a Program of {}", gpus, program.world_size));
  }
}

}  // namespace

LinkTraffic link_traffic(const program::Program& program, const hw::HardwareProfile& hw,
                         Topology& topology, bool fold_nodes) {
  check_world(topology.gpu_count(), program);
  return tally(program, hw, topology, index_program(program, hw, topology, IndexUse::traffic),
               fold_nodes, nullptr);
}

LinkTraffic link_traffic(const program::Program& program, ReplayWorld& world, bool fold_nodes) {
  // index_program checks the world's size (a Program of no GPUs is InvalidProgram, as alone).
  return tally(program, world.hardware(), world.topology(),
               index_program(program, world, IndexUse::traffic), fold_nodes, &world);
}

}  // namespace trainsim::sim
