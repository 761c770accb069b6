#include "sim/analysis/layout_search.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <exception>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>

#include "models/build_program.hpp"
#include "models/errors.hpp"
#include "models/spread.hpp"
#include "sim/analysis/fit_memo.hpp"
#include "sim/analysis/traffic_floor.hpp"
#include "sim/replay.hpp"

namespace trainsim::sim {
namespace {

std::string gib(Bytes b) {
  return fmt::format("{:.1f} GiB", b.as_double() / (1024.0 * 1024 * 1024));
}

/// Why no layout exists: the batch cannot feed the replicas, or the count splits no way.
[[noreturn]] void explain_empty_space(const ModelSpec& model, std::int64_t gpus,
                                      std::int64_t global_batch) {
  std::optional<std::int64_t> fewest_replicas;
  std::int64_t widest = 0;
  for (std::int64_t t = 1; t <= gpus; ++t) {
    if (gpus % t != 0 || model.heads % t != 0 || model.key_value_heads() % t != 0 ||
        model.ffn % t != 0) {
      continue;
    }
    for (std::int64_t p = 1; p <= gpus / t; ++p) {
      if ((gpus / t) % p != 0 || model.layers % p != 0) continue;
      const std::int64_t d = gpus / (t * p);
      if (!fewest_replicas || d < *fewest_replicas) {
        fewest_replicas = d;
        widest = t * p;
      }
    }
  }
  if (fewest_replicas && *fewest_replicas > global_batch) {
    throw Infeasible(fmt::format(
        "global_batch: {} sequences cannot use {} GPUs: one replica spans at most {} GPUs "
        "(tensor size dividing heads {} × pipeline size dividing layers {}), so {} GPUs need at "
        "least {} data-parallel replicas of one sequence each; use a global batch of at least "
        "{} or at most {} GPUs",
        global_batch, gpus, widest, model.heads, model.layers, gpus, *fewest_replicas,
        *fewest_replicas, widest * global_batch));
  }
  throw Infeasible(fmt::format(
      "gpus: {} GPUs split into no valid tensor × pipeline × data layout of this model "
      "(tensor sizes must divide heads {} and ffn {}, or form a q², q²·d or q³ grid; pipeline "
      "sizes must divide layers {}; data sizes must divide global_batch {}); use a GPU count "
      "such as a product of those",
      gpus, model.heads, model.ffn, model.layers, global_batch));
}

/// work(i) for i in [0, count), spread over the search's processes and threads, reporting
/// progress as this process's items finish.
template <class Result>
std::vector<Result> run_all(std::size_t count, const SearchOptions& options, std::string_view phase,
                            const std::function<Result(std::size_t)>& work,
                            const std::function<void(ByteWriter&, const Result&)>& encode,
                            const std::function<Result(ByteReader&)>& decode) {
  if (options.progress) options.progress(phase, 0, count);
  return spread(options.processes, count, options.threads, work, encode, decode,
                in_phase(options.progress, phase));
}

// What a replay computes (the candidate is the caller's to set).
void encode_replayed(ByteWriter& out, const ReplayedLayout& r) {
  out.put(r.iteration);
  out.put(r.tokens_per_s);
  out.put(r.model_rate_per_gpu);
  out.put(r.peak);
  out.put(r.fits);
  out.put(r.breakdown);
}

ReplayedLayout decode_replayed(ByteReader& in) {
  ReplayedLayout r;
  r.iteration = in.get<Time>();
  r.tokens_per_s = in.get<double>();
  r.model_rate_per_gpu = in.get<FlopRate>();
  r.peak = in.get<Bytes>();
  r.fits = in.get<bool>();
  r.breakdown = in.get<TimeBreakdown>();
  return r;
}

/// Layouts estimated per round of the bounded search: a fixed size, so that where the search
/// stops does not depend on the thread count.
constexpr std::size_t kBatchLayouts = 64;

void encode_fit(ByteWriter& out, const ReducedFit& fit) {
  out.put(fit);
}
void encode_fit(ByteWriter& out, const KernelFloor& fit) {
  out.put(fit);
}
void encode_fit(ByteWriter& out, const TrafficFloor& fit) {
  fit.encode(out);
}
template <class Fit>
Fit decode_fit(ByteReader& in);
template <>
ReducedFit decode_fit(ByteReader& in) {
  return in.get<ReducedFit>();
}
template <>
KernelFloor decode_fit(ByteReader& in) {
  return in.get<KernelFloor>();
}
template <>
TrafficFloor decode_fit(ByteReader& in) {
  return TrafficFloor::decode(in);
}

/// The fits (ReducedFit, KernelFloor, TrafficFloor) one search uses, by layout (describe() as the
/// key): taken from the memo where another search made them, else made on demand in parallel and
/// added to it.
template <class Fit>
class FitCache {
 public:
  /// `shelf`: the reduced Programs traffic floors leave for reduced fits, or null.
  FitCache(FitStore<Fit>& store, ProgramShelf* shelf) : store_(store), shelf_(shelf) {}

  /// Fits the layouts of `which` (layouts[i] for i in which) not at hand yet.
  void fit(const ModelSpec& model, const hw::HardwareProfile& hardware,
           const std::vector<std::size_t>& which, const std::vector<Layout>& layouts,
           const SearchOptions& options, std::string_view phase) {
    std::vector<Layout> todo;
    std::vector<std::string> keys;
    for (std::size_t i : which) {
      std::string key = describe(layouts[i]);
      const auto [it, added] = used_.try_emplace(key, store_.find(key));
      if (added && !it->second) {
        todo.push_back(layouts[i]);
        keys.push_back(std::move(key));
      }
    }
    std::vector<std::optional<Fit>> fitted = run_all<std::optional<Fit>>(
        todo.size(), options, phase,
        [&](std::size_t k) -> std::optional<Fit> {
          try {
            if constexpr (std::is_constructible_v<Fit, const ModelSpec&, const Layout&,
                                                  const hw::HardwareProfile&, ProgramShelf*>) {
              return Fit(model, todo[k], hardware, shelf_);
            } else {
              return Fit(model, todo[k], hardware);
            }
          } catch (const Infeasible&) {
            // A reduced Program the executor rejects: its layouts cannot be estimated; left out.
            return std::nullopt;
          }
        },
        [](ByteWriter& out, const std::optional<Fit>& fit) {
          out.put(fit.has_value());
          if (fit) encode_fit(out, *fit);
        },
        [](ByteReader& in) -> std::optional<Fit> {
          if (!in.get<bool>()) return std::nullopt;
          return decode_fit<Fit>(in);
        });
    for (std::size_t k = 0; k < keys.size(); ++k)
      used_[keys[k]] = store_.insert(keys[k], std::move(fitted[k]));
  }
  const Fit* find(const Layout& layout) const {
    const auto it = used_.find(describe(layout));
    if (it == used_.end() || !it->second || !*it->second) return nullptr;
    return &**it->second;
  }
  /// Distinct layouts this search used.
  std::size_t size() const { return used_.size(); }

 private:
  FitStore<Fit>& store_;
  ProgramShelf* shelf_;
  std::map<std::string, const std::optional<Fit>*> used_;
};

}  // namespace

ReplayedLayout replay_layout(const ModelSpec& model, const hw::HardwareProfile& hardware,
                             const Layout& layout, std::int64_t global_batch,
                             OpListPool* op_lists) {
  const TrainingSpec training = training_of(layout, global_batch);
  program::Program program = build_program(
      model, layout.plan, training, ProgramScope::representative, hardware.node.gpus, op_lists);
  ReplayOptions options;
  options.record_op_timings = false;
  const SimulationResult result = replay(program, hardware, options);
  ReplayedLayout out;
  out.candidate.layout = layout;
  out.iteration = result.iteration_time;
  const double seconds = result.iteration_time.seconds();
  out.tokens_per_s = static_cast<double>(global_batch * model.seq_len) / seconds;
  out.model_rate_per_gpu = FlopRate::flops_per_second(
      model.model_flops(global_batch).count() / seconds / static_cast<double>(layout.plan.gpus()));
  for (const RankMemory& m : result.memory)
    out.peak = std::max(out.peak, m.peak);
  out.fits = out.peak <= hardware.gpu.memory;
  if (!result.breakdown.empty()) out.breakdown = result.breakdown.front();
  if (op_lists != nullptr) op_lists->give(program);
  return out;
}

SearchResult search_layouts(const ModelSpec& model, const hw::HardwareProfile& hardware,
                            std::int64_t gpus, std::int64_t global_batch,
                            const SearchOptions& options) {
  if (options.top < 1) throw Infeasible("top: 0 layouts to replay; use 1 or more");
  // FP8 on a GPU without an FP8 peak: say so here, not by every layout's reduced replay
  // failing (which the search reads as "this layout cannot run").
  if (options.space.fp8) hardware.peak(DType::fp8);
  const std::vector<Layout> layouts = enumerate_layouts(model, gpus, global_batch, options.space);
  if (layouts.empty()) explain_empty_space(model, gpus, global_batch);

  SearchResult out;
  out.gpus = gpus;
  out.global_batch = global_batch;
  out.capacity = hardware.gpu.memory;
  out.layouts = layouts.size();

  // Floor pruning.
  std::vector<std::size_t> survivors;
  std::optional<std::pair<Bytes, std::size_t>> lowest_floor;
  for (std::size_t i = 0; i < layouts.size(); ++i) {
    const Bytes floor = model_state_floor(model, layouts[i]);
    if (!lowest_floor || floor < lowest_floor->first) lowest_floor = {floor, i};
    if (floor > out.capacity) {
      ++out.pruned_by_floor;
      continue;
    }
    survivors.push_back(i);
  }
  if (survivors.empty()) {
    throw Infeasible(fmt::format(
        "no layout of {} GPUs fits in {} per GPU: the weights, gradients and Adam state alone "
        "need at least {} ({}); use more GPUs or GPUs with more memory",
        gpus, gib(out.capacity), gib(lowest_floor->first),
        describe(layouts[lowest_floor->second])));
  }

  // Time floors, each taken only where the ones before leave a layout at the front: first one
  // GPU's kernels summed (kernel_floor.hpp) for every survivor, with a peak that prunes; then,
  // lazily, for a batch at the front, the tensor block's link traffic (traffic_floor.hpp on the
  // compute layout), the tensor block replayed alone (its compute floor, and a peak that
  // prunes), and the reduced layout's busiest link. A batch whose layouts have all four is
  // estimated. Every floor is a lower bound on the layout's time and a layout is estimated at
  // no less than its floor; where compute or communication dominates, a floor sends a layout
  // far back, often past where the search stops, unreplayed.
  FitMemo own;
  FitMemo& memo = options.memo ? *options.memo : own;
  FitCache<KernelFloor> kernels(memo.kernels, nullptr);
  std::vector<Layout> compute_of(layouts.size());
  for (std::size_t i : survivors)
    compute_of[i] = compute_layout(layouts[i]);
  kernels.fit(model, hardware, survivors, compute_of, options, "kernels");
  out.kernel_layouts = kernels.size();
  const double limit = out.capacity.as_double() * (1.0 + options.memory_margin);
  // The smallest peak of each kind, for the error when nothing fits: a floor's peak is a
  // lower bound (often far below: it leaves out what data parallelism adds), so it is named
  // only when no layout got as far as an estimate.
  std::optional<std::pair<Bytes, std::size_t>> lowest_floor_peak;
  std::optional<std::pair<Bytes, std::size_t>> lowest_peak;
  const auto note_peak = [&](Bytes peak, std::size_t i, bool estimated) {
    auto& lowest = estimated ? lowest_peak : lowest_floor_peak;
    if (!lowest || peak < lowest->first) lowest = {peak, i};
    if (peak.as_double() <= limit) return true;
    ++out.pruned_by_estimate;
    return false;
  };
  std::vector<std::pair<Time, std::size_t>> order;
  std::vector<Time> floor_of(layouts.size(), Time::zero());
  for (std::size_t i : survivors) {
    if (const KernelFloor* f = kernels.find(compute_of[i])) {
      const LayoutEstimate floor = f->floor(model, layouts[i], global_batch);
      floor_of[i] = floor.iteration;
      if (note_peak(floor.peak, i, false)) order.emplace_back(floor_of[i], i);
    }
  }
  const auto by_floor = [](const auto& x, const auto& y) { return x.first < y.first; };
  std::stable_sort(order.begin(), order.end(), by_floor);

  const std::size_t window = 4 * options.top;
  std::vector<Layout> reduced_of(layouts.size());
  for (const auto& [floor, i] : order)
    reduced_of[i] = reduced_layout(layouts[i]);
  FitCache<ReducedFit> compute(memo.replays, &memo.programs);
  FitCache<TrafficFloor> traffic(memo.traffic, &memo.programs);
  enum Floors : std::uint8_t { kernels_only, block_tallied, computed, tallied };
  std::vector<Floors> floors(layouts.size(), kernels_only);
  FitCache<ReducedFit> reduced(memo.replays, &memo.programs);
  std::vector<Time> best_times;  // estimated times of the ranked, sorted
  std::size_t next = 0;
  // Takes the next floor for the layouts of the front batch that lack it (the tensor block's
  // traffic, its compute floor, the reduced layout's traffic): raises theirs, drops those it
  // prunes (no compute fit: the executor rejects the tensor block; its peak over the limit)
  // and re-sorts the rest. False when every layout of the batch has all of them.
  const auto raise_front = [&](std::size_t end_batch) {
    for (const Floors stage : {kernels_only, block_tallied, computed}) {
      std::vector<std::size_t> batch;
      for (std::size_t k = next; k < end_batch; ++k) {
        if (floors[order[k].second] == stage) batch.push_back(order[k].second);
      }
      if (batch.empty()) continue;
      if (stage == kernels_only) {
        traffic.fit(model, hardware, batch, compute_of, options, "traffic");
      } else if (stage == block_tallied) {
        compute.fit(model, hardware, batch, compute_of, options, "bound");
      } else {
        traffic.fit(model, hardware, batch, reduced_of, options, "traffic");
      }
      std::size_t kept = next;
      for (std::size_t k = next; k < end_batch; ++k) {
        auto [floor, i] = order[k];
        if (floors[i] == stage) {
          floors[i] = static_cast<Floors>(stage + 1);
          if (stage == block_tallied) {
            const ReducedFit* f = compute.find(compute_of[i]);
            if (!f) continue;
            const LayoutEstimate e = f->compute_floor(model, layouts[i], global_batch);
            if (!note_peak(e.peak, i, false)) continue;
            floor_of[i] = std::max(floor_of[i], e.iteration);
          } else if (const TrafficFloor* f =
                         traffic.find(stage == kernels_only ? compute_of[i] : reduced_of[i])) {
            floor_of[i] = std::max(floor_of[i], f->floor(model, layouts[i], global_batch));
          }
          floor = floor_of[i];
        }
        order[kept++] = {floor, i};
      }
      order.erase(order.begin() + static_cast<std::ptrdiff_t>(kept),
                  order.begin() + static_cast<std::ptrdiff_t>(end_batch));
      // Only the batch's floors rose; the rest is still in order: the batch sorted and merged
      // in (both stable, the batch first among equals) puts every layout where a stable sort
      // of the whole rest would, in linear time. Sorting the rest (tens of thousands of
      // layouts) after each batch was a seventh of `plan` for Llama 3 70B on 512 GPUs.
      const auto from = order.begin() + static_cast<std::ptrdiff_t>(next);
      const auto batch_end = order.begin() + static_cast<std::ptrdiff_t>(kept);
      std::stable_sort(from, batch_end, by_floor);
      std::inplace_merge(from, batch_end, order.end(), by_floor);
      return true;
    }
    return false;
  };
  while (next < order.size()) {
    if (!options.exhaustive && best_times.size() >= window &&
        best_times[window - 1] <= order[next].first) {
      break;
    }
    const std::size_t end_batch = std::min(order.size(), next + kBatchLayouts);
    if (raise_front(end_batch)) continue;
    std::vector<std::size_t> batch;
    for (std::size_t k = next; k < end_batch; ++k)
      batch.push_back(order[k].second);
    reduced.fit(model, hardware, batch, reduced_of, options, "estimate");
    for (std::size_t i : batch) {
      const ReducedFit* f = reduced.find(reduced_of[i]);
      if (!f) continue;
      EstimatedLayout e{
          layouts[i], f->estimate(model, layouts[i], global_batch, compute.find(compute_of[i])), i};
      // The bilinear fit extrapolates from one or two layers and micro batches; where their
      // communication overlaps differently than at full scale it can fall below what the tensor
      // block's compute alone takes, or the busiest link's bytes, which no layout beats.
      e.estimate.iteration = std::max(e.estimate.iteration, floor_of[i]);
      if (!note_peak(e.estimate.peak, i, true)) continue;
      out.ranked.push_back(e);
      best_times.insert(
          std::upper_bound(best_times.begin(), best_times.end(), e.estimate.iteration),
          e.estimate.iteration);
    }
    next = end_batch;
  }
  memo.programs.clear();
  out.compute_layouts = compute.size();
  out.traffic_layouts = traffic.size();
  out.bounded_out = order.size() - next;
  out.reduced_layouts = reduced.size();
  if (out.ranked.empty()) {
    std::string nearest;
    if (lowest_peak) {
      nearest = fmt::format("; the smallest estimated peak is {} ({})", gib(lowest_peak->first),
                            describe(layouts[lowest_peak->second]));
    } else if (lowest_floor_peak) {
      nearest =
          fmt::format("; none was estimated, the smallest lower bound on a peak is {} ({})",
                      gib(lowest_floor_peak->first), describe(layouts[lowest_floor_peak->second]));
    }
    throw Infeasible(
        fmt::format("no layout of {} GPUs fits in {} per GPU{}; use more GPUs, a "
                    "smaller micro batch limit or GPUs with more memory",
                    gpus, gib(out.capacity), nearest));
  }
  std::stable_sort(out.ranked.begin(), out.ranked.end(),
                   [](const EstimatedLayout& x, const EstimatedLayout& y) {
                     return x.estimate.iteration < y.estimate.iteration;
                   });

  // Full replays in rounds of the number still missing, so that the set replayed does not
  // depend on the thread count; first the layouts estimated to fit, then those in the margin.
  std::vector<std::size_t> replay_order;
  for (int pass = 0; pass < 2; ++pass) {
    for (std::size_t k = 0; k < out.ranked.size(); ++k) {
      if ((out.ranked[k].estimate.peak <= out.capacity) == (pass == 0)) replay_order.push_back(k);
    }
  }
  std::size_t replayed = 0;
  const std::size_t budget = std::min(out.ranked.size(), 3 * options.top);
  const auto by_time = [](const ReplayedLayout& x, const ReplayedLayout& y) {
    return x.iteration < y.iteration;
  };
  // Once K fit, the layouts estimated faster than the K-th replayed time are replayed too (an
  // estimate that was optimistic for one layout can be for its neighbours), within the budget.
  const auto estimated_faster = [&](std::size_t from) {
    std::stable_sort(out.best.begin(), out.best.end(), by_time);
    const Time kth = out.best[options.top - 1].iteration;
    std::size_t n = 0;
    while (from + n < budget && n < options.top &&
           out.ranked[replay_order[from + n]].estimate.iteration < kth)
      ++n;
    return n;
  };
  // The workers a round leaves idle (3 layouts on 2 threads) replay ahead: the next layouts
  // of the replay order within the budget, kept for the rounds that ask for them. What none
  // asks for is dropped, and one that fails ahead is replayed again when asked (and fails
  // then, as it would have): the threads change the time, not the result. The first round
  // also replays the reference layout, first (the scenario's own: often the longest).
  const std::size_t workers =
      spreads(options.processes)
          ? options.processes->size() *
                (options.threads == 0 ? options.processes->threads() : options.threads)
          : parallel_width(options.threads);
  std::map<std::size_t, ReplayedLayout> ahead;  // by place in replay_order
  bool reference_due = options.reference.has_value();
  while (replayed < budget) {
    const std::size_t round = out.best.size() < options.top
                                  ? std::min(options.top - out.best.size(), budget - replayed)
                                  : estimated_faster(replayed);
    if (round == 0) break;
    std::vector<std::size_t> places;  // the round's own first, then those ahead
    for (std::size_t j = replayed; j < replayed + round; ++j) {
      if (!ahead.contains(j)) places.push_back(j);
    }
    const std::size_t asked = places.size();
    const std::size_t reference_items = reference_due ? 1 : 0;
    const std::size_t wanted = asked + reference_items;
    const std::size_t spare = (workers - wanted % workers) % workers;
    for (std::size_t j = replayed + round; j < budget && places.size() < asked + spare; ++j) {
      if (!ahead.contains(j)) places.push_back(j);
    }
    std::vector<std::optional<ReplayedLayout>> replays = run_all<std::optional<ReplayedLayout>>(
        places.size() + reference_items, options, "replay",
        [&](std::size_t j) -> std::optional<ReplayedLayout> {
          if (j < reference_items)
            return replay_layout(model, hardware, *options.reference, global_batch, &memo.op_lists);
          const std::size_t k = j - reference_items;
          const Layout& layout = out.ranked[replay_order[places[k]]].layout;
          if (k < asked)
            return replay_layout(model, hardware, layout, global_batch, &memo.op_lists);
          try {
            return replay_layout(model, hardware, layout, global_batch, &memo.op_lists);
          } catch (const std::exception&) {
            return std::nullopt;  // replayed again if a round asks for it
          }
        },
        [](ByteWriter& out_bytes, const std::optional<ReplayedLayout>& r) {
          out_bytes.put(r.has_value());
          if (r) encode_replayed(out_bytes, *r);
        },
        [](ByteReader& in) -> std::optional<ReplayedLayout> {
          if (!in.get<bool>()) return std::nullopt;
          return decode_replayed(in);
        });
    if (reference_due) {
      out.reference = std::move(*replays.front());
      out.reference->candidate.layout = *options.reference;  // not carried between processes
      reference_due = false;
    }
    for (std::size_t k = 0; k < places.size(); ++k) {
      if (replays[k + reference_items])
        ahead.emplace(places[k], std::move(*replays[k + reference_items]));
    }
    for (std::size_t j = replayed; j < replayed + round; ++j) {
      const auto it = ahead.find(j);
      ReplayedLayout r = std::move(it->second);
      ahead.erase(it);
      const std::size_t k = replay_order[j];
      r.candidate = out.ranked[k];
      r.estimate_rank = k + 1;
      (r.fits ? out.best : out.rejected).push_back(std::move(r));
    }
    replayed += round;
  }
  if (reference_due) {
    out.reference =
        replay_layout(model, hardware, *options.reference, global_batch, &memo.op_lists);
  }
  if (out.best.empty()) {
    throw Infeasible(fmt::format(
        "no layout of {} GPUs fits in {} per GPU: the {} best estimates were replayed and all "
        "exceed it (smallest replayed peak {}); use more GPUs or GPUs with more memory",
        gpus, gib(out.capacity), out.rejected.size(),
        gib(std::min_element(
                out.rejected.begin(), out.rejected.end(),
                [](const ReplayedLayout& x, const ReplayedLayout& y) { return x.peak < y.peak; })
                ->peak)));
  }
  out.replayed = replayed;
  std::stable_sort(out.best.begin(), out.best.end(), by_time);
  if (out.best.size() > options.top) out.best.resize(options.top);
  return out;
}

}  // namespace trainsim::sim
