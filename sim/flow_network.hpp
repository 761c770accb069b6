#pragma once
// Transfers (flows) over directed links that share bandwidth max-min fairly (progressive
// filling), each flow optionally capped below its fair share. Rates are recomputed lazily,
// once per instant at which flows started or ended, so a collective that starts a thousand
// flows at once pays for one recomputation; and only in the connected components (flows
// sharing links, transitively) where something changed, so the work per change does not grow
// with the number of independent transfers in flight (a pipeline's nodes).
//
// A representative replay starts the identical images of one transfer together (the same
// bytes over routes of one shape, one per GPU the recorded rank stands for). When no other
// flow uses those images' links, they travel as one bundle: one flow with a multiplicity,
// settled and scheduled once. The images may share links among themselves (a GPU sending to
// its seven peers at once): progressive filling then gives every image min(cap, c/k) over its
// links (k images on a link of capacity c) in its first round whenever that minimum is equal
// for all, which the bundle checks at each refill. A bundle stays exact only while no other
// flow joins its links and every image is refilled together with that one rate; a flow
// joining, unequal rates, or a capacity change that reaches only some of its components
// (images joined by shared links; separate flows would be refilled a component at a time)
// splits it into its images (state copied unchanged), which then get the exact per-flow
// treatment. What a start checks is kept per shape (the image sets of one set of links: a
// group's collectives of several kinds and sizes), updated as flows and bundles come and go,
// so a bundle's start and end cost the shapes sharing its links, not the links.

#include <array>
#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <span>
#include <unordered_map>
#include <utility>
#include <vector>

#include "sim/engine.hpp"
#include "sim/image_set.hpp"
#include "units/units.hpp"

namespace trainsim::sim {

using FlowId = std::int32_t;

class FlowNetwork final : public Resource {
 public:
  /// `capacities` in bytes per second, indexed by LinkId; each must be positive.
  explicit FlowNetwork(std::vector<double> capacities);

  /// Starts a flow of `bytes` (> 0) along `route` (at most kMaxRouteLinks links; may be empty
  /// when only `cap` limits it) with a rate cap in bytes/s (infinity for none; the flow then
  /// needs a non-empty route). `owner` is handed back when the flow completes.
  FlowId start(std::span<const LinkId> route, double bytes, double cap, std::int32_t owner);

  /// Starts `links.size() / route_links` image flows of `bytes` each, image i along
  /// links[i * route_links, (i + 1) * route_links) (1 to kMaxRouteLinks links each), all owned
  /// by `owner`, which take_completed hands back once per image. They travel as one bundle
  /// when no flow in flight uses their links (they may share links among themselves), else
  /// as separate flows.
  void start_images(std::span<const LinkId> links, std::size_t route_links, double bytes,
                    double cap, std::int32_t owner);
  /// As above, for images worked out once (a launch plan's): the bundle keeps `set`.
  void start_images(const std::shared_ptr<const ImageSet>& set, double bytes, double cap,
                    std::int32_t owner);

  /// Changes link `l`'s capacity (> 0) from now on; flows in progress keep what they moved.
  void set_capacity(LinkId l, double capacity);
  /// set_capacity of links `base + o` for each `o` in `offsets`, in that order, checked once:
  /// a GPU's compute starting or ending changes one link per GPU its recorded rank stands
  /// for (48 on the 3072-GPU row), and one call each was ~3 % of the replay.
  void set_capacities(LinkId base, std::span<const std::int32_t> offsets, double capacity);

  Time next_completion() override;
  void advance(Time dt) override;

  /// A flow that completed: its owner and how many images it stood for.
  struct Completed {
    std::int32_t owner = 0;
    std::int32_t images = 1;
  };
  /// Removes the flows that have completed at the present instant and appends them to `done`
  /// (in flow-slot order, so deterministic): a bundle once, with its images, where the replay
  /// used to count 2688 images of one TP collective down one by one.
  void take_completed(std::vector<Completed>& done);

  /// Current rate of an active flow in bytes/s (after any pending recomputation).
  double rate(FlowId f);
  std::size_t link_count() const { return capacity_.size(); }
  /// Flows in flight, a bundle counting once.
  std::size_t active_count() const { return active_.size(); }
  /// Owner of an active flow.
  std::int32_t owner(FlowId f) const { return flows_[static_cast<std::size_t>(f)].owner; }

 private:
  /// set_capacity after its checks.
  void change_capacity(std::size_t l, double capacity);

  struct Flow {
    std::array<LinkId, kMaxRouteLinks> links{};
    /// Position of this flow in link_flows_[links[i]].
    std::array<std::int32_t, kMaxRouteLinks> slot_on_link{};
    std::uint8_t link_count = 0;
    bool frozen = false;
    double remaining = 0.0;  ///< bytes left at `updated`
    double cap = std::numeric_limits<double>::infinity();
    double rate = 0.0;           ///< bytes per second
    std::int64_t updated = 0;    ///< ps
    std::int64_t finish_at = 0;  ///< ps
    std::int32_t owner = 0;
    std::int32_t active_slot = -1;
    std::uint32_t version = 0;  ///< changes whenever finish_at or the slot's flow changes
    std::uint32_t visited = 0;  ///< the last recomputation's search that reached it
    std::int32_t bundle = -1;   ///< index into bundles_ when this flow stands for images
    std::int32_t images = 1;
  };
  /// A bundle's images (their links, shares and components: sim/image_set.hpp) and which
  /// components a capacity change reached since the last refill. A bundle is on no link's
  /// flow list: its shape, in flight, marks its links, which no other flow uses.
  struct Bundle {
    std::shared_ptr<const ImageSet> set;
    std::int32_t shape = 0;
    std::vector<std::uint8_t> touched;
    std::int32_t touched_count = 0;
  };
  /// A shape's last whole refills (fill_bundle): the capacities of its links and the cap each
  /// saw, and the rate and sameness they gave. The answer is a function of those alone, and a
  /// shape's bundles are refilled many times under a few capacities (its GPUs computing or
  /// not): a representative TP 16 collective's 2688 images over 1151 links took 40 % of a
  /// replay to check image by image.
  struct FillAnswer {
    std::vector<double> capacities;  ///< parallel to the set's distinct_links()
    double cap = 0.0;
    double rate = 0.0;
    bool same = false;
  };
  static constexpr std::size_t kFillAnswers = 4;
  /// The image sets of one set of links: a group's collectives of several kinds and sizes
  /// start the same ring images, each kind and size from a set of its own. What a start must
  /// know is the shape's, kept as flows come and go, so that a start and an end cost the
  /// shapes that share a link with it, not the links (a TP 16 collective's images cross 1151):
  /// a bundle may start when no plain flow is on its links and no bundle of a shape sharing
  /// one is in flight.
  struct Shape {
    /// The first set of this shape met (its links, which a set met later is compared with):
    /// held for the replay, one per shape (257 sets, 30 MB, on the 98 304-GPU row).
    std::shared_ptr<const ImageSet> set;
    std::vector<std::int32_t> overlaps;  ///< shapes sharing a link with it, itself included
    std::int32_t bundles = 0;            ///< bundles in flight of the shapes in `overlaps`
    std::int64_t plain = 0;              ///< plain flows on its links, once per link crossed
    /// Its last whole refills (fill_bundle), up to kFillAnswers, the oldest replaced first.
    std::vector<FillAnswer> answers;
    std::size_t next = 0;  ///< the answer replaced next once all are used
  };
  /// A shape on a link, with the component of its images there.
  struct ShapeOnLink {
    std::int32_t shape = 0;
    std::int32_t component = 0;
  };
  /// A set met before and its shape. Weak: a set stays the launch plans' to drop (a plan keeps
  /// a few sizes, and a miss makes a new set); an address reused by a new set is met afresh.
  struct KnownSet {
    std::weak_ptr<const ImageSet> set;
    std::int32_t shape = 0;
  };
  /// A flow due at a finish time as last computed; stale once the flow's version moved on.
  struct Due {
    FlowId id;
    std::uint32_t version;
  };

  /// A fresh flow slot holding `bytes`, active and due for a refill, on no link yet.
  FlowId new_flow(double bytes, double cap, std::int32_t owner);
  /// Puts plain flow `id` on the lists of its links.
  void attach(FlowId id);
  /// Splits bundle `id` into its images, each a plain flow with the bundle's state; `id`
  /// keeps image 0. Appends the ids of all images to `out` when given.
  void split(FlowId id, std::vector<FlowId>* out);
  /// Refills a component of one flow that is alone on its links.
  void fill_alone(FlowId id);
  /// Refills a bundle alone on its links (split first unless its images stay identical).
  void fill_bundle(FlowId id);
  /// Whether progressive filling gives every image of `set` one rate in its first round, and
  /// that rate (`rate`): each image gets min(cap, c/k) over its links (k: the images sharing a
  /// link) when that minimum is the same for all, since each has a link that fills at that
  /// rate and all freeze at once; the minima are equal when every image has a link at the
  /// lowest c/k (or the cap is lower still).
  bool images_share_rate(const ImageSet& set, double cap, double& rate);
  /// The shape of `set`, made when no set of its links was met before.
  std::int32_t shape_of(const std::shared_ptr<const ImageSet>& set);
  /// The bundle in flight on link `l` (with its images' component there), or kNoBundle. From
  /// flat arrays for the first shape met on the link (most links have one): a replay asks at
  /// every capacity change, tens of millions of times on a TP 16 layout of the 1T model.
  std::pair<FlowId, std::int32_t> bundle_on(std::size_t l) const {
    const FirstShape& first = link_first_shape_[l];
    if (first.shape < 0) return {kNoBundle, 0};
    if (const FlowId bundle = shape_bundle_[static_cast<std::size_t>(first.shape)]; bundle >= 0)
      return {bundle, first.component};
    return first.more >= 0 ? bundle_on_others(l) : std::pair<FlowId, std::int32_t>{kNoBundle, 0};
  }
  /// The same among the other shapes on the link.
  std::pair<FlowId, std::int32_t> bundle_on_others(std::size_t l) const;
  /// Marks `shape`'s bundle `id` in flight, or (kNoBundle) none.
  void set_shape_bundle(std::int32_t shape, FlowId id);
  /// Calls visit(ShapeOnLink) for each shape on link `l`, the first met first.
  template <class Visit>
  void for_each_shape_on(std::size_t l, Visit visit) const;
  /// Counts plain flow `f` on (+1) or off (-1) the shapes of its links.
  void count_plain(const Flow& f, std::int32_t delta);
  /// Refills the components touched since the last call (see recompute's comment).
  void recompute();
  /// Collects into component_ every flow connected to `seed` not yet reached in this search.
  void collect_component(FlowId seed);
  /// Progressive filling of the flows in component_, one connected component.
  void fill_component();
  /// Computes an active flow's finish time from its rate and records it as due.
  void schedule_finish(FlowId id);
  bool stale(const Due& d) const;
  void remove(FlowId id);
  /// Sorts distinct flow ids ascending.
  void sort_ids(std::vector<FlowId>& ids);

  std::vector<double> capacity_;
  std::vector<double> residual_;
  std::vector<std::int32_t> unfrozen_on_link_;
  std::vector<std::uint8_t> link_used_;
  std::vector<std::vector<FlowId>> link_flows_;  ///< active flows on each link
  std::vector<std::uint32_t> link_visited_;      ///< the last search that reached each link
  std::vector<std::int32_t> link_plain_flows_;   ///< link_flows_[l].size(), kept flat
  static constexpr FlowId kNoBundle = -1;
  std::vector<Shape> shapes_;
  /// The first shape met on each link (shape -1: none), and whether more are: flat, for
  /// bundle_on; the others in the link's list of more_shapes_ (few links have several).
  struct FirstShape {
    std::int32_t shape = -1;
    std::int32_t component = 0;
    std::int32_t more = -1;  ///< the link's list in more_shapes_, or -1
  };
  std::vector<FirstShape> link_first_shape_;
  std::vector<std::vector<ShapeOnLink>> more_shapes_;
  std::vector<FlowId> shape_bundle_;  ///< each shape's bundle in flight, or kNoBundle
  std::unordered_map<std::uint64_t, std::vector<std::int32_t>> shapes_by_links_;  ///< by hash
  std::unordered_map<const ImageSet*, KnownSet> known_sets_;
  std::size_t known_sets_swept_ = 0;        ///< known_sets_'s size after its last sweep
  std::vector<std::uint32_t> shape_marks_;  ///< shape_of's flags, one per shape
  std::uint32_t shape_search_ = 0;
  std::vector<FlowId> touched_bundles_;   ///< bundles a capacity change reached since the refill
  std::vector<Bundle> bundles_;
  std::vector<std::int32_t> free_bundles_;
  std::vector<FlowId> images_;  ///< split's output
  std::vector<double> ratio_;   ///< images_share_rate's c/k per distinct link
  std::uint32_t search_ = 0;
  std::vector<Flow> flows_;
  std::vector<FlowId> free_slots_;
  std::vector<FlowId> active_;
  std::vector<FlowId> scratch_;
  std::vector<std::uint8_t> slot_marks_;  ///< sort_ids' flags, one per flow slot
  std::vector<FlowId> component_;
  std::vector<LinkId> component_links_;
  std::vector<FlowId> fresh_;          ///< started since the last recomputation
  std::vector<LinkId> changed_links_;  ///< capacity changed or a flow left, since then
  /// Finish times with the flows due then (lazy deletion). The images of a collective start
  /// together at one rate, so far fewer times than flows: cheaper than a heap of flows.
  std::map<std::int64_t, std::vector<Due>> due_;
  std::size_t due_entries_ = 0;
  std::int64_t now_ = 0;  ///< ps
  bool dirty_ = false;
};

}  // namespace trainsim::sim
