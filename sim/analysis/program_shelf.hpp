#pragma once
// The four Programs of a reduced layout's runs (l, m in {1, 2}) are built for its traffic
// floor and, when the search goes on to estimate the layout, again for its reduced fit (the
// same for a compute layout, its block's traffic floor then its compute floor): a shelf keeps
// the Programs of the layouts tallied last for their fits. A search estimates the
// front of its order right after tallying it, so most fits find theirs; a fit whose Programs
// were dropped builds them again (the same Programs: only the work differs).

#include <array>
#include <cstddef>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <utility>

#include "models/program.hpp"

namespace trainsim::sim {

/// (l, m) = (1,1), (1,2), (2,1), (2,2).
using ReducedPrograms = std::array<program::Program, 4>;

/// Safe to share between threads.
class ProgramShelf {
 public:
  /// Layouts kept at most, the oldest dropped first. A reduced layout's four Programs take up
  /// to a few MB; on the 405B training-time grid 16 saved as much time as 64 (the fits of a
  /// batch follow its tallies) with less memory held.
  static constexpr std::size_t kLayouts = 16;
  /// Op bytes kept at most by default: a 2D 16 × 16 grid's four Programs of the 1T model
  /// record 256 GPUs each, ~0.8 GB; rebuilt, they cost a fraction of the replays their fit makes.
  static constexpr std::size_t kBytes = std::size_t{256} << 20;

  explicit ProgramShelf(std::size_t max_bytes = kBytes) : max_bytes_(max_bytes) {}
  std::size_t max_bytes() const { return max_bytes_; }

  /// The bytes `program`'s ops take, as the shelf counts them.
  static std::size_t bytes_of(const program::Program& program) {
    return program.op_count() * sizeof(program::Op);
  }

  /// Keeps the Programs of the reduced layout `key` (its describe()), unless they alone
  /// exceed max_bytes(); drops the oldest while more are kept.
  void put(std::string key, std::shared_ptr<const ReducedPrograms> programs) {
    std::size_t bytes = 0;
    for (const program::Program& p : *programs)
      bytes += bytes_of(p);
    if (bytes > max_bytes_) return;
    const std::lock_guard lock(mutex_);
    kept_.push_back({std::move(key), std::move(programs), bytes});
    bytes_ += bytes;
    while (kept_.size() > kLayouts || bytes_ > max_bytes_) {
      bytes_ -= kept_.front().bytes;
      kept_.pop_front();
    }
  }
  /// Takes the Programs kept for `key` off the shelf; null when none are.
  std::shared_ptr<const ReducedPrograms> take(const std::string& key) {
    const std::lock_guard lock(mutex_);
    for (auto it = kept_.begin(); it != kept_.end(); ++it) {
      if (it->key != key) continue;
      std::shared_ptr<const ReducedPrograms> programs = std::move(it->programs);
      bytes_ -= it->bytes;
      kept_.erase(it);
      return programs;
    }
    return nullptr;
  }
  /// Drops every kept Program (a search done estimating: what is left would wait there for
  /// fits that may never come, while its full replays need the memory).
  void clear() {
    const std::lock_guard lock(mutex_);
    kept_.clear();
    bytes_ = 0;
  }

 private:
  struct Kept {
    std::string key;
    std::shared_ptr<const ReducedPrograms> programs;
    std::size_t bytes = 0;
  };
  std::size_t max_bytes_;
  std::mutex mutex_;
  std::deque<Kept> kept_;
  std::size_t bytes_ = 0;
};

}  // namespace trainsim::sim
