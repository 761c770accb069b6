#include "sim/flow_network.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace trainsim::sim {

namespace {
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr std::int64_t kNever = std::numeric_limits<std::int64_t>::max();
/// set_capacity as set_capacities of one link.
constexpr std::int32_t kNoOffset = 0;
// Relative slack when deciding that a link is full or a flow reached its cap: progressive
// filling subtracts floating-point shares, so exact zeros cannot be relied on.
constexpr double kSaturated = 1e-12;
}  // namespace

FlowNetwork::FlowNetwork(std::vector<double> capacities) : capacity_(std::move(capacities)) {
  for (const double c : capacity_) {
    if (!(c > 0.0)) throw std::invalid_argument("flow network: link capacity must be positive");
  }
  residual_.assign(capacity_.size(), 0.0);
  unfrozen_on_link_.assign(capacity_.size(), 0);
  link_used_.assign(capacity_.size(), 0);
  link_flows_.resize(capacity_.size());
  link_plain_flows_.assign(capacity_.size(), 0);
  link_visited_.assign(capacity_.size(), 0);
  link_first_shape_.assign(capacity_.size(), FirstShape{});
}

FlowId FlowNetwork::new_flow(double bytes, double cap, std::int32_t owner) {
  FlowId id;
  if (!free_slots_.empty()) {
    id = free_slots_.back();
    free_slots_.pop_back();
  } else {
    id = static_cast<FlowId>(flows_.size());
    flows_.emplace_back();
  }
  Flow& f = flows_[static_cast<std::size_t>(id)];
  const std::uint32_t version = f.version + 1;
  f = Flow{};
  f.version = version;
  f.remaining = bytes;
  f.cap = cap;
  f.updated = now_;
  f.owner = owner;
  f.active_slot = static_cast<std::int32_t>(active_.size());
  active_.push_back(id);
  fresh_.push_back(id);
  dirty_ = true;
  return id;
}

void FlowNetwork::attach(FlowId id) {
  Flow& f = flows_[static_cast<std::size_t>(id)];
  for (std::uint8_t i = 0; i < f.link_count; ++i) {
    std::vector<FlowId>& on = link_flows_.at(static_cast<std::size_t>(f.links[i]));
    f.slot_on_link[i] = static_cast<std::int32_t>(on.size());
    on.push_back(id);
    ++link_plain_flows_[static_cast<std::size_t>(f.links[i])];
  }
  count_plain(f, 1);
}

template <class Visit>
void FlowNetwork::for_each_shape_on(std::size_t l, Visit visit) const {
  const FirstShape& first = link_first_shape_[l];
  if (first.shape < 0) return;
  visit(ShapeOnLink{first.shape, first.component});
  if (first.more < 0) return;
  for (const ShapeOnLink& on : more_shapes_[static_cast<std::size_t>(first.more)])
    visit(on);
}

void FlowNetwork::count_plain(const Flow& f, std::int32_t delta) {
  for (std::uint8_t i = 0; i < f.link_count; ++i) {
    for_each_shape_on(static_cast<std::size_t>(f.links[i]), [&](const ShapeOnLink& on) {
      shapes_[static_cast<std::size_t>(on.shape)].plain += delta;
    });
  }
}

std::pair<FlowId, std::int32_t> FlowNetwork::bundle_on_others(std::size_t l) const {
  for (const ShapeOnLink& on : more_shapes_[static_cast<std::size_t>(link_first_shape_[l].more)]) {
    const FlowId bundle = shape_bundle_[static_cast<std::size_t>(on.shape)];
    if (bundle >= 0) return {bundle, on.component};
  }
  return {kNoBundle, 0};
}

void FlowNetwork::set_shape_bundle(std::int32_t shape, FlowId id) {
  const std::int32_t delta = id >= 0 ? 1 : -1;
  shape_bundle_[static_cast<std::size_t>(shape)] = id;
  for (const std::int32_t other : shapes_[static_cast<std::size_t>(shape)].overlaps)
    shapes_[static_cast<std::size_t>(other)].bundles += delta;
}

std::int32_t FlowNetwork::shape_of(const std::shared_ptr<const ImageSet>& set) {
  KnownSet& known = known_sets_[set.get()];
  if (!known.set.expired()) return known.shape;  // a live set's address is its own
  const std::span<const LinkId> links = set->links();
  std::uint64_t hash = set->route_links();
  for (const LinkId l : links)
    hash = (hash ^ static_cast<std::uint32_t>(l)) * 0x100000001b3ULL;
  std::vector<std::int32_t>& alike = shapes_by_links_[hash];
  const auto same = std::find_if(alike.begin(), alike.end(), [&](std::int32_t k) {
    const ImageSet& other = *shapes_[static_cast<std::size_t>(k)].set;
    return other.route_links() == set->route_links() &&
           std::equal(links.begin(), links.end(), other.links().begin(), other.links().end());
  });
  std::int32_t shape = same != alike.end() ? *same : static_cast<std::int32_t>(shapes_.size());
  if (same == alike.end()) {
    // A new shape: the shapes it shares a link with, the flows already on its links. Every
    // allocation first, then the links and the other shapes told, which cannot fail: a failed
    // allocation leaves no shape half known.
    Shape sh;
    sh.set = set;
    const std::span<const LinkId> distinct = set->distinct_links();
    shape_marks_.resize(shapes_.size() + 1, 0);
    ++shape_search_;
    std::vector<std::int32_t> more_of(distinct.size(), -1);  // the list each link's goes to
    for (std::size_t d = 0; d < distinct.size(); ++d) {
      const auto l = static_cast<std::size_t>(distinct[d]);
      sh.plain += link_plain_flows_[l];
      for_each_shape_on(l, [&](const ShapeOnLink& on) {
        auto& mark = shape_marks_[static_cast<std::size_t>(on.shape)];
        if (mark == shape_search_) return;
        mark = shape_search_;
        sh.overlaps.push_back(on.shape);
        if (shape_bundle_[static_cast<std::size_t>(on.shape)] >= 0) ++sh.bundles;
      });
      if (const FirstShape& first = link_first_shape_[l]; first.shape >= 0) {
        // A link's second shape opens its list (told to the link below, once nothing can fail).
        more_of[d] = first.more >= 0 ? first.more : static_cast<std::int32_t>(more_shapes_.size());
        if (first.more < 0) more_shapes_.emplace_back();
        std::vector<ShapeOnLink>& more = more_shapes_[static_cast<std::size_t>(more_of[d])];
        more.reserve(more.size() + 1);
      }
    }
    for (const std::int32_t other : sh.overlaps) {
      std::vector<std::int32_t>& theirs = shapes_[static_cast<std::size_t>(other)].overlaps;
      theirs.reserve(theirs.size() + 1);
    }
    sh.overlaps.push_back(shape);
    shapes_.reserve(shapes_.size() + 1);
    shape_bundle_.reserve(shape_bundle_.size() + 1);
    alike.reserve(alike.size() + 1);
    for (const std::int32_t other : sh.overlaps) {
      if (other != shape) shapes_[static_cast<std::size_t>(other)].overlaps.push_back(shape);
    }
    for (std::size_t d = 0; d < distinct.size(); ++d) {
      FirstShape& first = link_first_shape_[static_cast<std::size_t>(distinct[d])];
      if (first.shape < 0) {
        first = {shape, set->distinct_component()[d], -1};
      } else {
        first.more = more_of[d];
        more_shapes_[static_cast<std::size_t>(more_of[d])].push_back(
            {shape, set->distinct_component()[d]});
      }
    }
    shapes_.push_back(std::move(sh));
    shape_bundle_.push_back(kNoBundle);
    alike.push_back(shape);
  }
  known.set = set;
  known.shape = shape;
  if (known_sets_.size() > 2 * known_sets_swept_ + 64) {
    // Sets come and go over a long replay: forget those gone, now and then.
    std::erase_if(known_sets_, [&](const auto& entry) {
      return entry.first != set.get() && entry.second.set.expired();
    });
    known_sets_swept_ = known_sets_.size();
  }
  return shape;
}

FlowId FlowNetwork::start(std::span<const LinkId> route, double bytes, double cap,
                          std::int32_t owner) {
  if (route.size() > kMaxRouteLinks) throw std::invalid_argument("flow network: route too long");
  if (route.empty() && !(cap < kInf)) {
    throw std::invalid_argument("flow network: a flow needs a route or a finite cap");
  }
  // A bundle is exact only while alone on its links: one this flow joins splits first.
  for (const LinkId l : route) {
    const FlowId bundle = bundle_on(static_cast<std::size_t>(l)).first;
    if (bundle >= 0) split(bundle, nullptr);
  }
  const FlowId id = new_flow(bytes, cap, owner);
  Flow& f = flows_[static_cast<std::size_t>(id)];
  std::copy(route.begin(), route.end(), f.links.begin());
  f.link_count = static_cast<std::uint8_t>(route.size());
  attach(id);
  return id;
}

void FlowNetwork::start_images(std::span<const LinkId> links, std::size_t route_links, double bytes,
                               double cap, std::int32_t owner) {
  start_images(std::make_shared<const ImageSet>(std::vector<LinkId>(links.begin(), links.end()),
                                                route_links),
               bytes, cap, owner);
}

void FlowNetwork::start_images(const std::shared_ptr<const ImageSet>& set, double bytes, double cap,
                               std::int32_t owner) {
  const std::span<const LinkId> links = set->links();
  const std::size_t route_links = set->route_links();
  const std::size_t images = set->images();
  // Bundled only when no other flow uses the images' links (see the header); the images may
  // share links among themselves. The shape's counts, not the links: this runs for every
  // transfer a representative replay starts.
  const std::int32_t shape = shape_of(set);
  const Shape& sh = shapes_[static_cast<std::size_t>(shape)];
  const bool alone = images > 1 && sh.plain == 0 && sh.bundles == 0;
  if (!alone) {
    for (std::size_t i = 0; i < images; ++i)
      start(links.subspan(i * route_links, route_links), bytes, cap, owner);
    return;
  }
  std::int32_t b;
  if (!free_bundles_.empty()) {
    b = free_bundles_.back();
    free_bundles_.pop_back();
  } else {
    b = static_cast<std::int32_t>(bundles_.size());
    bundles_.emplace_back();
  }
  Bundle& bd = bundles_[static_cast<std::size_t>(b)];
  bd.set = set;
  bd.shape = shape;
  bd.touched.assign(static_cast<std::size_t>(set->components()), 0);
  bd.touched_count = 0;
  const FlowId id = new_flow(bytes, cap, owner);
  Flow& f = flows_[static_cast<std::size_t>(id)];
  f.bundle = b;
  f.images = static_cast<std::int32_t>(images);
  set_shape_bundle(shape, id);
}

void FlowNetwork::split(FlowId id, std::vector<FlowId>* out) {
  const std::int32_t b = flows_[static_cast<std::size_t>(id)].bundle;
  Bundle& bd = bundles_[static_cast<std::size_t>(b)];
  const std::span<const LinkId> links = bd.set->links();
  const std::size_t n = bd.set->route_links();
  const auto images = static_cast<std::size_t>(flows_[static_cast<std::size_t>(id)].images);
  set_shape_bundle(bd.shape, kNoBundle);
  // A bundle never refilled yet (frozen is set by its first refill) has no due entry: its
  // images are refilled like any fresh flow. Otherwise they keep its rate and finish time.
  for (std::size_t i = 0; i < images; ++i) {
    FlowId image = id;
    if (i > 0) {
      image = new_flow(0.0, 0.0, 0);
      const Flow& from = flows_[static_cast<std::size_t>(id)];
      Flow& to = flows_[static_cast<std::size_t>(image)];
      to.remaining = from.remaining;
      to.cap = from.cap;
      to.rate = from.rate;
      to.updated = from.updated;
      to.finish_at = from.finish_at;
      to.owner = from.owner;
      to.frozen = from.frozen;
      to.visited = from.visited;
      if (!to.frozen) {
        // new_flow listed it as fresh already.
      } else {
        fresh_.pop_back();
        if (to.finish_at != kNever) {
          due_[to.finish_at].push_back({image, to.version});
          ++due_entries_;
        }
      }
    }
    Flow& f = flows_[static_cast<std::size_t>(image)];
    f.bundle = -1;
    f.images = 1;
    f.link_count = static_cast<std::uint8_t>(n);
    for (std::size_t k = 0; k < n; ++k)
      f.links[k] = links[i * n + k];
    attach(image);
    if (out != nullptr) out->push_back(image);
  }
  bd.set.reset();
  free_bundles_.push_back(b);
}

void FlowNetwork::set_capacity(LinkId l, double capacity) {
  if (!(capacity > 0.0))
    throw std::invalid_argument("flow network: link capacity must be positive");
  set_capacities(l, std::span<const std::int32_t>(&kNoOffset, 1), capacity);
}

void FlowNetwork::set_capacities(LinkId base, std::span<const std::int32_t> offsets,
                                 double capacity) {
  if (!(capacity > 0.0))
    throw std::invalid_argument("flow network: link capacity must be positive");
  for (const std::int32_t o : offsets) {
    const auto l = static_cast<std::size_t>(base) + static_cast<std::size_t>(o);
    if (base < 0 || o < 0 || l >= capacity_.size()) {
      throw std::out_of_range(
          fmt::format("flow network: link {} + {} outside 0..{}", base, o, capacity_.size() - 1));
    }
    change_capacity(l, capacity);
  }
}

void FlowNetwork::change_capacity(std::size_t link, double capacity) {
  const auto l = static_cast<LinkId>(link);
  auto& c = capacity_[link];
  if (c == capacity) return;
  c = capacity;
  if (const auto [bundle, component] = bundle_on(link); bundle >= 0) {
    // Only the images of the component this change reaches are refilled (as separate flows
    // would be). The link is listed as changed too, for the images of a bundle split before
    // the refill.
    changed_links_.push_back(l);
    dirty_ = true;
    Bundle& bd =
        bundles_[static_cast<std::size_t>(flows_[static_cast<std::size_t>(bundle)].bundle)];
    std::uint8_t& touched = bd.touched[static_cast<std::size_t>(component)];
    if (!touched) {
      touched = 1;
      if (bd.touched_count++ == 0) touched_bundles_.push_back(bundle);
    }
    return;
  }
  // A link with no flow needs no refill: a flow that starts on it later refills its own.
  if (link_flows_[static_cast<std::size_t>(l)].empty()) return;
  changed_links_.push_back(l);
  dirty_ = true;
}

void FlowNetwork::advance(Time dt) {
  // Rates must be those of the instant being left: refill first if anything changed.
  if (dirty_) recompute();
  now_ += dt.ps();
}

bool FlowNetwork::stale(const Due& d) const {
  const Flow& f = flows_[static_cast<std::size_t>(d.id)];
  return f.active_slot < 0 || f.version != d.version;
}

Time FlowNetwork::next_completion() {
  if (active_.empty()) return Time::max();
  if (dirty_) recompute();
  while (!due_.empty()) {
    // Drop stale entries from the back of the earliest instant until a live one is there.
    std::vector<Due>& first = due_.begin()->second;
    while (!first.empty() && stale(first.back())) {
      first.pop_back();
      --due_entries_;
    }
    if (!first.empty()) break;
    due_.erase(due_.begin());
  }
  if (due_.empty()) return Time::max();
  return Time::from_ps(std::max<std::int64_t>(0, due_.begin()->first - now_));
}

double FlowNetwork::rate(FlowId f) {
  if (dirty_) recompute();
  return flows_[static_cast<std::size_t>(f)].rate;
}

void FlowNetwork::recompute() {
  dirty_ = false;
  // Max-min fairness decomposes over the connected components of the flow-link graph: a
  // component in which no flow started or ended and no link changed capacity keeps its rates
  // and its flows their finish times, so only the touched components are refilled. A flow
  // that left marked its links, so each part of a component it split is refilled too.
  ++search_;
  // By index: splitting a bundle that was never refilled lists its images as fresh.
  for (std::size_t k = 0; k < fresh_.size(); ++k) {
    const FlowId id = fresh_[k];
    if (flows_[static_cast<std::size_t>(id)].active_slot < 0) continue;
    collect_component(id);
    if (!component_.empty()) fill_component();
  }
  for (const FlowId id : touched_bundles_) {
    // Split since (then its images are reached through changed_links_), or refilled already.
    if (flows_[static_cast<std::size_t>(id)].bundle < 0) continue;
    collect_component(id);
    if (!component_.empty()) fill_component();
  }
  touched_bundles_.clear();
  for (const LinkId l : changed_links_) {
    const std::vector<FlowId>& on = link_flows_[static_cast<std::size_t>(l)];
    for (std::size_t k = 0; k < on.size(); ++k) {
      collect_component(on[k]);
      if (!component_.empty()) fill_component();
    }
  }
  fresh_.clear();
  changed_links_.clear();
  // Stale entries pile up as components are refilled: rebuild when they dominate.
  if (due_entries_ > 2 * active_.size() + 64) {
    due_.clear();
    due_entries_ = 0;
    for (const FlowId id : active_) {
      const Flow& f = flows_[static_cast<std::size_t>(id)];
      if (f.finish_at != kNever) {
        due_[f.finish_at].push_back({id, f.version});
        ++due_entries_;
      }
    }
  }
}

void FlowNetwork::collect_component(FlowId seed) {
  component_.clear();
  Flow& s = flows_[static_cast<std::size_t>(seed)];
  if (s.visited == search_) return;
  s.visited = search_;
  component_.push_back(seed);
  // A bundle is alone on its links (start splits it when another flow joins) and on no link's
  // list: its component is itself.
  if (s.bundle >= 0) return;
  for (std::size_t k = 0; k < component_.size(); ++k) {
    const Flow& f = flows_[static_cast<std::size_t>(component_[k])];
    for (std::uint8_t i = 0; i < f.link_count; ++i) {
      const auto l = static_cast<std::size_t>(f.links[i]);
      if (link_visited_[l] == search_) continue;
      link_visited_[l] = search_;
      for (const FlowId g : link_flows_[l]) {
        Flow& other = flows_[static_cast<std::size_t>(g)];
        if (other.visited == search_) continue;
        other.visited = search_;
        component_.push_back(g);
      }
    }
  }
}

namespace {
/// Brings the bytes left up to `now` at the old rate before the rate changes.
template <class Flow>
void settle(Flow& f, std::int64_t now) {
  f.remaining -= f.rate * static_cast<double>(now - f.updated) * 1e-12;
  f.remaining = std::max(f.remaining, 0.0);
  f.updated = now;
}
}  // namespace

void FlowNetwork::fill_alone(FlowId id) {
  // Alone on its links (most image flows of a representative replay): progressive filling
  // gives it its cap or its narrowest link, in one round; the same value, without the
  // bookkeeping.
  Flow& f = flows_[static_cast<std::size_t>(id)];
  settle(f, now_);
  f.rate = f.cap;
  for (std::uint8_t i = 0; i < f.link_count; ++i)
    f.rate = std::min(f.rate, capacity_[static_cast<std::size_t>(f.links[i])]);
  f.frozen = true;
  schedule_finish(id);
}

bool FlowNetwork::images_share_rate(const ImageSet& set, double cap, double& rate) {
  rate = cap;
  bool same = true;
  if (set.exclusive()) {
    // Each image alone on its links: min(cap, c) over them, one pass.
    const std::span<const LinkId> links = set.links();
    const std::size_t n = set.route_links();
    for (std::size_t i = 0; i < links.size() && same; i += n) {
      double image_rate = cap;
      for (std::size_t k = 0; k < n; ++k)
        image_rate = std::min(image_rate, capacity_[static_cast<std::size_t>(links[i + k])]);
      if (i == 0) rate = image_rate;
      same = image_rate == rate;
    }
    return same;
  }
  const std::span<const LinkId> distinct = set.distinct_links();
  const std::span<const std::int32_t> shares = set.distinct_shares();
  ratio_.resize(distinct.size());
  for (std::size_t d = 0; d < distinct.size(); ++d) {
    ratio_[d] = capacity_[static_cast<std::size_t>(distinct[d])] / static_cast<double>(shares[d]);
    rate = std::min(rate, ratio_[d]);
  }
  const std::span<const std::int32_t> of = set.distinct_of();
  const std::size_t n = set.route_links();
  for (std::size_t i = 0; i < of.size() && same && rate < cap; i += n) {
    bool at_lowest = false;
    for (std::size_t k = 0; k < n && !at_lowest; ++k)
      at_lowest = ratio_[static_cast<std::size_t>(of[i + k])] == rate;
    same = at_lowest;
  }
  return same;
}

void FlowNetwork::fill_bundle(FlowId id) {
  Flow& f = flows_[static_cast<std::size_t>(id)];
  Bundle& bd = bundles_[static_cast<std::size_t>(f.bundle)];
  const ImageSet& set = *bd.set;
  // Separate flows would all be refilled now when the bundle is new or a change reached every
  // component; when they would all get one rate (images_share_rate), the images keep one state.
  const bool all = !f.frozen || bd.touched_count == static_cast<std::int32_t>(bd.touched.size());
  double rate = f.cap;
  bool same = all;
  if (all && set.exclusive()) {
    same = images_share_rate(set, f.cap, rate);  // one pass over the links: nothing to save
  } else if (all) {
    // A set refilled before under the same capacities and cap: the answer it got then
    // (the shape's answers), the same bits as working it out again.
    Shape& memo = shapes_[static_cast<std::size_t>(bd.shape)];
    const std::span<const LinkId> distinct = set.distinct_links();
    const FillAnswer* seen = nullptr;
    for (const FillAnswer& answer : memo.answers) {
      bool equal = answer.cap == f.cap;
      for (std::size_t d = 0; d < distinct.size() && equal; ++d)
        equal = answer.capacities[d] == capacity_[static_cast<std::size_t>(distinct[d])];
      if (equal) {
        seen = &answer;
        break;
      }
    }
    if (seen != nullptr) {
      rate = seen->rate;
      same = seen->same;
    } else {
      same = images_share_rate(set, f.cap, rate);
      // Made whole before it is kept, so that a failed allocation leaves no half answer.
      FillAnswer answer{std::vector<double>(distinct.size()), f.cap, rate, same};
      for (std::size_t d = 0; d < distinct.size(); ++d)
        answer.capacities[d] = capacity_[static_cast<std::size_t>(distinct[d])];
      if (memo.answers.size() < kFillAnswers) {
        memo.answers.push_back(std::move(answer));  // `next` is its index until all are used
      } else {
        memo.answers[memo.next] = std::move(answer);
      }
      memo.next = (memo.next + 1) % kFillAnswers;
    }
  }
  if (same) {
    std::fill(bd.touched.begin(), bd.touched.end(), 0);
    bd.touched_count = 0;
    settle(f, now_);
    f.rate = rate;
    f.frozen = true;
    schedule_finish(id);
    return;
  }
  // Refill the components separate flows would have refilled, each as separate flows.
  const std::vector<std::uint8_t> touched = bd.touched;
  const std::shared_ptr<const ImageSet> kept = bd.set;  // split releases the bundle's
  images_.clear();
  split(id, &images_);
  const std::vector<FlowId> images = images_;
  for (const FlowId image : images)
    flows_[static_cast<std::size_t>(image)].visited = 0;  // reachable by this search again
  for (std::size_t i = 0; i < images.size(); ++i) {
    if (!all && !touched[static_cast<std::size_t>(kept->component()[i])]) continue;
    collect_component(images[i]);
    if (!component_.empty()) fill_component();
  }
}

void FlowNetwork::fill_component() {
  if (component_.size() == 1) {
    const FlowId id = component_.front();
    if (flows_[static_cast<std::size_t>(id)].bundle >= 0) {
      fill_bundle(id);
    } else {
      fill_alone(id);
    }
    return;
  }
  component_links_.clear();
  scratch_.assign(component_.begin(), component_.end());
  // A bundle is alone on its links (start splits it when another flow joins), so every flow
  // here is a plain one.
  for (const FlowId id : scratch_) {
    Flow& f = flows_[static_cast<std::size_t>(id)];
    settle(f, now_);
    f.rate = 0.0;
    f.frozen = false;
    for (std::uint8_t i = 0; i < f.link_count; ++i) {
      const auto l = static_cast<std::size_t>(f.links[i]);
      if (!link_used_[l]) {
        link_used_[l] = 1;
        component_links_.push_back(f.links[i]);
        residual_[l] = capacity_[l];
        unfrozen_on_link_[l] = 0;
      }
      ++unfrozen_on_link_[l];
    }
  }
  // Progressive filling: raise every unfrozen flow's rate by the same amount until a link
  // fills or a flow reaches its cap; freeze those flows; repeat.
  while (!scratch_.empty()) {
    double delta = kInf;
    for (const LinkId l : component_links_) {
      const auto li = static_cast<std::size_t>(l);
      if (unfrozen_on_link_[li] > 0) {
        delta = std::min(delta, residual_[li] / unfrozen_on_link_[li]);
      }
    }
    for (const FlowId id : scratch_) {
      const Flow& f = flows_[static_cast<std::size_t>(id)];
      delta = std::min(delta, f.cap - f.rate);
    }
    delta = std::max(delta, 0.0);
    for (const LinkId l : component_links_) {
      const auto li = static_cast<std::size_t>(l);
      residual_[li] -= delta * unfrozen_on_link_[li];
    }
    std::size_t kept = 0;
    for (const FlowId id : scratch_) {
      Flow& f = flows_[static_cast<std::size_t>(id)];
      f.rate += delta;
      bool freeze = f.rate >= f.cap * (1.0 - kSaturated);
      for (std::uint8_t i = 0; i < f.link_count && !freeze; ++i) {
        const auto l = static_cast<std::size_t>(f.links[i]);
        freeze = residual_[l] <= capacity_[l] * kSaturated;
      }
      if (freeze) {
        // Decisions read residuals only, so dropping this flow's share count now is safe.
        f.frozen = true;
        for (std::uint8_t i = 0; i < f.link_count; ++i) {
          --unfrozen_on_link_[static_cast<std::size_t>(f.links[i])];
        }
      } else {
        scratch_[kept++] = id;
      }
    }
    // Should rounding ever leave the binding link a hair above "full", stop rather than
    // loop forever; rates are then within rounding of the max-min solution.
    if (kept == scratch_.size()) kept = 0;
    scratch_.resize(kept);
  }
  for (const LinkId l : component_links_)
    link_used_[static_cast<std::size_t>(l)] = 0;
  for (const FlowId id : component_)
    schedule_finish(id);
}

void FlowNetwork::schedule_finish(FlowId id) {
  Flow& f = flows_[static_cast<std::size_t>(id)];
  f.finish_at = f.rate > 0.0 ? now_ + std::llround(f.remaining / f.rate * 1e12) : kNever;
  ++f.version;
  if (f.finish_at != kNever) {
    due_[f.finish_at].push_back({id, f.version});
    ++due_entries_;
  }
}

void FlowNetwork::remove(FlowId id) {
  Flow& f = flows_[static_cast<std::size_t>(id)];
  if (f.bundle >= 0) {
    // Alone on its links: they are free again, with no component left to refill.
    Bundle& bd = bundles_[static_cast<std::size_t>(f.bundle)];
    set_shape_bundle(bd.shape, kNoBundle);
    bd.set.reset();
    free_bundles_.push_back(f.bundle);
    f.bundle = -1;
  }
  count_plain(f, -1);  // a bundle has no links of its own: nothing counted
  for (std::uint8_t i = 0; i < f.link_count; ++i) {
    const LinkId l = f.links[i];
    std::vector<FlowId>& on = link_flows_[static_cast<std::size_t>(l)];
    const std::int32_t slot = f.slot_on_link[i];
    const FlowId moved = on.back();
    on[static_cast<std::size_t>(slot)] = moved;
    on.pop_back();
    --link_plain_flows_[static_cast<std::size_t>(l)];
    // The link's component lost a flow and may split; each part holds a flow still on this
    // link. A link left empty has no component to refill.
    if (on.empty()) continue;
    // The flow that was last on the link now sits in the freed slot.
    Flow& m = flows_[static_cast<std::size_t>(moved)];
    for (std::uint8_t j = 0; j < m.link_count; ++j) {
      if (m.links[j] == l && m.slot_on_link[j] == static_cast<std::int32_t>(on.size())) {
        m.slot_on_link[j] = slot;
        break;
      }
    }
    changed_links_.push_back(l);
  }
  const auto slot = static_cast<std::size_t>(f.active_slot);
  active_[slot] = active_.back();
  flows_[static_cast<std::size_t>(active_[slot])].active_slot = static_cast<std::int32_t>(slot);
  active_.pop_back();
  f.active_slot = -1;
  ++f.version;
  free_slots_.push_back(id);
}

void FlowNetwork::sort_ids(std::vector<FlowId>& ids) {
  // The images of a split collective finish at one instant, tens of thousands at once: marked
  // in a flag per slot and read back in slot order when they are a good part of the slots,
  // linear where a comparison sort was a few per cent of a ZeRO-3 replay. Same order.
  if (ids.size() < 64 || ids.size() < flows_.size() / 16) {
    std::sort(ids.begin(), ids.end());
    return;
  }
  slot_marks_.assign(flows_.size(), 0);
  for (const FlowId id : ids)
    slot_marks_[static_cast<std::size_t>(id)] = 1;
  ids.clear();
  for (std::size_t slot = 0; slot < slot_marks_.size(); ++slot) {
    if (slot_marks_[slot]) ids.push_back(static_cast<FlowId>(slot));
  }
}

void FlowNetwork::take_completed(std::vector<Completed>& done) {
  if (dirty_) recompute();
  // Finished flows are handed back in slot order so the owners' order never depends on the
  // order in which their finish times were recorded.
  scratch_.clear();
  while (!due_.empty() && due_.begin()->first <= now_) {
    for (const Due& d : due_.begin()->second) {
      if (stale(d)) continue;
      scratch_.push_back(d.id);
      ++flows_[static_cast<std::size_t>(d.id)].version;  // taken
    }
    due_entries_ -= due_.begin()->second.size();
    due_.erase(due_.begin());
  }
  if (scratch_.empty()) return;
  sort_ids(scratch_);
  for (const FlowId id : scratch_) {
    const Flow& f = flows_[static_cast<std::size_t>(id)];
    done.push_back({f.owner, f.images});
    remove(id);
  }
  dirty_ = true;
}

}  // namespace trainsim::sim
