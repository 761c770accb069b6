#include "models/op_list_pool.hpp"

#include <algorithm>
#include <utility>
#include <vector>

namespace trainsim {

std::vector<program::Op> OpListPool::take(std::size_t ops) {
  if (ops < kMinOps) return {};
  const std::lock_guard lock(mutex_);
  auto best = lists_.end();
  for (auto it = lists_.begin(); it != lists_.end(); ++it) {
    if (it->capacity() >= ops && (best == lists_.end() || it->capacity() < best->capacity()))
      best = it;
  }
  if (best == lists_.end()) return {};
  std::vector<program::Op> out = std::move(*best);
  lists_.erase(best);
  kept_ops_ -= out.capacity();
  out.clear();
  return out;
}

void OpListPool::give(program::Program& program) {
  std::size_t room = 0;
  for (const program::RankProgram& r : program.ranks)
    room += r.ops.capacity();
  // Freed after the lock is let go: handing a gigabyte back to the kernel takes a while, and
  // the other search threads need not wait for it.
  std::vector<std::vector<program::Op>> dropped;
  const std::lock_guard lock(mutex_);
  budget_ops_ = std::max(budget_ops_, room);
  for (program::RankProgram& r : program.ranks) {
    if (r.ops.capacity() < kMinOps) continue;
    kept_ops_ += r.ops.capacity();
    lists_.push_back(std::move(r.ops));
    r.ops = {};
  }
  // Over the budget: drop the lists with least room first (a large list saves the most faults).
  std::sort(lists_.begin(), lists_.end(),
            [](const auto& a, const auto& b) { return a.capacity() > b.capacity(); });
  while (kept_ops_ > budget_ops_) {
    kept_ops_ -= lists_.back().capacity();
    dropped.push_back(std::move(lists_.back()));
    lists_.pop_back();
  }
}

std::size_t OpListPool::kept_ops() const {
  const std::lock_guard lock(mutex_);
  return kept_ops_;
}

}  // namespace trainsim
