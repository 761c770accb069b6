#pragma once
// Op lists kept from one Program for the next. A search replays large Programs one after
// another (training-time's grid: one or more per point, up to a gigabyte of ops each), and a
// list allocated afresh is first touched page by page: a fault and a zeroed page for every
// 4 KiB, which the allocator had just handed back to the kernel when the last Program was
// freed. On the Llama 3 405B grid up to 2048 GPUs the kernel took 17 % of the time, much of it
// these first touches, and recording the full replays' op lists made 44 % of the page faults
// (BENCHMARKS.md, 2026-11-29 afternoon). A list taken from here has its pages mapped already.

#include <cstddef>
#include <mutex>
#include <vector>

#include "models/program.hpp"

namespace trainsim {

/// Safe to share between threads.
class OpListPool {
 public:
  /// Lists with room for fewer ops are neither kept nor handed out (1 MiB of ops): the
  /// allocator's caches serve small blocks without faulting them in again, and a small build
  /// handed a large list would hold its memory for little. (Searches give the pool to full
  /// replays only; an earlier try that handed lists to every build, the reduced Programs' small
  /// ones too, saw them take the large lists and drop them.)
  static constexpr std::size_t kMinOps = std::size_t{1} << 14;

  /// A cleared list with room for `ops` ops, the one with least room among those kept that
  /// have enough; an empty list when none has (or `ops` < kMinOps).
  std::vector<program::Op> take(std::size_t ops);

  /// Takes the op lists of kMinOps and more from `program`'s ranks (left empty, with no room)
  /// and keeps them for later builds. What is kept stays within the largest Program given so
  /// far (its op lists' room), the lists with least room dropped first. The peak grows by what
  /// is kept while other replays run: with one search thread by at most that one Program, with
  /// several by more (a list handed out may also be larger than its build needs). Measured on
  /// the 405B training-time grid with 2 threads: +0.65 GB on 3.57 GB.
  void give(program::Program& program);

  /// Room of the lists kept, in ops (for tests).
  std::size_t kept_ops() const;

 private:
  mutable std::mutex mutex_;
  std::vector<std::vector<program::Op>> lists_;
  std::size_t kept_ops_ = 0;
  std::size_t budget_ops_ = 0;  ///< the largest Program given so far, in ops of room
};

}  // namespace trainsim
