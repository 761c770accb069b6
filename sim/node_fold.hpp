#pragma once
// A representative replay over many nodes, folded onto one node of each role. The replay
// already runs one recorded rank for every GPU of its class, but it still puts every GPU's
// flows on the network: a ZeRO-3 gather over 8192 GPUs starts 8192 ring flows per channel,
// and every flow event then touches each node's NICs (62 M flow images on the 405B grid's
// largest point). Yet the nodes are interchangeable: every node is wired alike to one core,
// so any permutation of nodes is a symmetry of the network. The fold's: the nodes in blocks
// of n × p consecutive nodes, each block shifted cyclically by p nodes, where every node's
// GPUs stand for the same recorded ranks, at the same places in their CP rings, position by
// position, as those p nodes on (p = 1: a pipeline stage's nodes, or all of them, play one
// part; p = c·t/G: context-parallel ranks whose TP groups of t fill whole nodes of G GPUs
// alternate over them). Where the flows in flight are their own image under the shift, the
// replay is exact on the quotient.
//
// The network's max-min fair rates are unique, so invariant under the shift: every link
// carries what its images (the n links it visits under the shift) carry, and every flow moves
// at its images' rate. Keeping only the flows that leave the first p nodes of each block (the
// kept nodes), with each link they cross taken to its image there, puts on each kept link
// exactly the flows its images carry (one kept flow per orbit of n flows, each orbit crossing
// each image of a link once), so the kept flows get the rates, and the activities the finish
// times, of the full replay. Conditions, all checked:
//   - a representative replay on full nodes, blocks of one shape (every orbit of size n >= 2);
//   - no capacity-limited core: an oversubscribed core is one link that every node's flows
//     share, which the fold would have to weigh n-fold;
//   - every launch's flows (source, destination, wire bytes) equal their images under the
//     shift (`invariant`, verified once per launch and size), or else the launch is a side
//     launch: a chain or a tree (broadcast, reduce, an all-reduce NCCL runs as a tree) has a
//     root, not a cyclic symmetry. A side launch puts all its flows on their own links, which
//     is exact while no folded flow uses an image of those links: they then share links only
//     with one another, as in the full replay. Where a folded flow and a side flow would meet
//     (checked at each start), the launcher throws FoldBroken and the replay starts again
//     unfolded; so that this stays rare, runs with a rooted collective of more than a few
//     scalars across nodes (gradient buckets, which overlap other traffic) are not folded,
//     while the scalar ones of the optimizer step (found-inf, gradient norm) are.
// Per-GPU state that is not a flow follows the recorded rank, which stands for a GPU and its
// images alike (compute, its communication engine's throttling, stragglers' pace).

#include <cstdint>
#include <exception>
#include <span>
#include <utility>
#include <vector>

#include "models/program.hpp"
#include "sim/collective_model.hpp"
#include "sim/hardware_profile.hpp"
#include "sim/program_index.hpp"
#include "sim/topology.hpp"

namespace trainsim::sim {

/// A side launch's flows would share links with folded flows (or the reverse): the replay
/// restarts unfolded.
struct FoldBroken : std::exception {
  const char* what() const noexcept override {
    return "a launch that breaks the node fold's symmetry meets folded flows";
  }
};

class NodeFold {
 public:
  /// Folds nothing.
  NodeFold() = default;
  /// What the fold serves: a replay (rooted collectives are side launches, so runs with a
  /// large one are not folded), or a tally of bytes per link (sim/link_traffic), where a
  /// launch that is not symmetric is simply tallied on its own links.
  enum class Use : std::uint8_t { replay, tally };

  /// The fold of `program`'s replay on `topology`; inactive unless the conditions above hold.
  /// `engine_base` >= 0: links engine_base + g are GPU g's communication engines.
  NodeFold(const program::Program& program, const ProgramIndex& index, Topology& topology,
           const hw::HardwareProfile& hw, LinkId engine_base, Use use = Use::replay);

  bool active() const { return run_ > 1; }
  /// Nodes each kept node stands for (1: inactive).
  std::int32_t run() const { return run_; }
  /// A rooted collective across nodes of more bytes than this keeps a run from folding.
  static constexpr double kScalarBytes = 64.0;

  /// Nodes the shift moves by, within a block of run() × period() nodes.
  std::int32_t period() const { return period_; }
  /// Whether GPU `gpu` is in a kept node (among the first period() of its block); every GPU
  /// when inactive.
  bool keeps(std::int32_t gpu) const {
    return run_ <= 1 || node_of(gpu) % (run_ * period_) < period_;
  }
  /// The image of link `l` in its kept node (itself when inactive).
  LinkId link(LinkId l) const {
    return run_ <= 1 ? l : fold_[static_cast<std::size_t>(l)];
  }
  /// The GPUs of `gpus` in kept nodes (all when inactive), in their order.
  std::vector<program::Rank> kept(std::span<const program::Rank> gpus) const;
  /// Per node, 1 where it is kept (empty when inactive).
  std::span<const std::uint8_t> kept_nodes() const { return kept_nodes_; }
  /// Whether a tree over `gpus` has chains inside its nodes that are, together, their own image
  /// under the shift: the shift takes every node of the group to one of its nodes holding
  /// members at the same places in the same order. A chain is a function of its node's members
  /// in order (append_tree_flows), so the kept nodes' chains then stand for all, with no flow
  /// of the others made or compared (a sufficient condition, linear in the members: where it
  /// fails, `invariant` decides). False when inactive.
  bool chains_symmetric(std::span<const std::int32_t> gpus) const;
  /// What append_tree_flows takes as `chain_nodes` for a launch of the groups `launches` by
  /// `algorithm`: the kept nodes where it is a tree whose every group's chains are symmetric,
  /// else nothing (every node's chains).
  std::span<const std::uint8_t> tree_chain_nodes(CollectiveAlgorithm algorithm,
                                                 std::span<const program::GroupId> launches,
                                                 const ProgramIndex& index) const;
  /// Whether the shift takes the member lists of the groups `launches` onto one another,
  /// member by member in order (so it permutes them). Every collective's flows are a function
  /// of its group's members in order, their nodes in order of first appearance and its size
  /// (append_algorithm_flows, collective_rings), the same for every node, so the flows of such
  /// launches, together, are their own image under the shift, whatever the algorithm and size:
  /// a sufficient condition for `invariant`, linear in the members, that needs no flow made.
  /// False when inactive, or when two launches start at one GPU.
  bool launches_symmetric(std::span<const program::GroupId> launches,
                          const ProgramIndex& index) const;
  /// Whether `flows` (source, destination, wire bytes) are, as a multiset, their own images
  /// under the shift. Linear in the flows; works in buffers of the fold's own, so one fold
  /// serves one replay or tally at a time (not shared between threads).
  bool invariant(std::span<const FlowSpec> flows) const;

 private:
  std::int32_t node_of(std::int32_t gpu) const { return gpu / gpus_per_node_; }
  /// The shift: GPU `gpu`'s place `period_` nodes on in its block, cyclically.
  std::int32_t shifted(std::int32_t gpu) const;
  /// The kept node whose orbit holds `node`.
  std::int32_t kept_node_of(std::int32_t node) const;

  std::int32_t gpus_per_node_ = 1;
  std::int32_t gpu_count_ = 0;
  std::int32_t run_ = 1;
  std::int32_t period_ = 1;
  std::vector<LinkId> fold_;  ///< per flow-network link
  std::vector<std::int32_t> next_node_;  ///< per node, where the shift takes it
  std::vector<std::uint8_t> kept_nodes_;
  // invariant's buffers, kept between calls (a launch over 16 384 GPUs has ~10^5 flows).
  struct Entry {
    std::int32_t src = 0;
    std::int32_t dst = 0;
    double bytes = 0.0;
  };
  mutable std::vector<std::int32_t> begin_;  ///< per GPU, its flows in to_; empty: to_ sorted
  mutable std::vector<std::int32_t> fill_;
  mutable std::vector<Entry> to_;
  mutable std::vector<Entry> moved_;
  mutable std::vector<std::int32_t> launch_at_;  ///< launches_symmetric's: per GPU, or -1
  // chains_symmetric's buffers: per node, its members' start in node_members_ and count.
  mutable std::vector<std::int32_t> node_start_;
  mutable std::vector<std::int32_t> node_count_;
  mutable std::vector<std::int32_t> node_members_;
};

}  // namespace trainsim::sim
