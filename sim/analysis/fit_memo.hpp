#pragma once
// The fits a layout search makes (ReducedFit of reduced and compute layouts, KernelFloor of
// compute ones, TrafficFloor of reduced ones), kept by the layout they were made from so that later
// searches of the same model on the same hardware profile reuse them. A fit is a function of
// (model, profile, layout) alone: a reduced layout keeps no pipeline and no global batch, so
// `training-time`'s grid of (batch, GPU count) points shares most of its fits (a tensor block's
// compute floor serves every point, a reduced layout every point whose layouts reduce to it).
// Reusing one gives the same value as making it again, so the searches' results do not change. The
// memo also carries what its searches reuse without changing a result: the reduced Programs of the
// layouts tallied last (ProgramShelf) and the full replays' op lists (OpListPool).

#include <cstddef>
#include <map>
#include <mutex>
#include <optional>
#include <string>

#include "models/op_list_pool.hpp"
#include "sim/analysis/kernel_floor.hpp"
#include "sim/analysis/layout_estimate.hpp"
#include "sim/analysis/program_shelf.hpp"
#include "sim/analysis/traffic_floor.hpp"

namespace trainsim::sim {

/// Fits by describe() of their layout; nullopt where the executor rejected its Programs.
/// Safe to share between threads; an entry's address stays valid while the store lives.
template <class Fit>
class FitStore {
 public:
  /// The entry for `key`, or null when none was made.
  const std::optional<Fit>* find(const std::string& key) const {
    const std::lock_guard lock(mutex_);
    const auto it = fits_.find(key);
    return it == fits_.end() ? nullptr : &it->second;
  }
  /// Stores `fit` under `key` unless an entry is there (made meanwhile by another search: the
  /// same value); returns the stored entry.
  const std::optional<Fit>* insert(const std::string& key, std::optional<Fit> fit) {
    const std::lock_guard lock(mutex_);
    return &fits_.try_emplace(key, std::move(fit)).first->second;
  }
  std::size_t size() const {
    const std::lock_guard lock(mutex_);
    return fits_.size();
  }

 private:
  mutable std::mutex mutex_;
  std::map<std::string, std::optional<Fit>> fits_;
};

/// What searches of one model on one profile share. Never share it across models or profiles:
/// the keys name layouts only.
struct FitMemo {
  FitStore<ReducedFit> replays;  ///< four replays each, of reduced and of compute layouts
  FitStore<KernelFloor> kernels;  ///< four one-GPU sums each, of compute layouts
  FitStore<TrafficFloor> traffic;
  /// The last tallied reduced layouts' Programs, for their fits (program_shelf.hpp).
  ProgramShelf programs;
  /// The full replays' op lists, for the next full replay's Program (op_list_pool.hpp).
  OpListPool op_lists;
};

}  // namespace trainsim::sim
