#include "models/parallel_for.hpp"

#include <algorithm>
#include <atomic>
#include <exception>
#include <thread>
#include <vector>

namespace trainsim {
namespace {

// The threads the piece running on this thread may use for calls it makes (0: not inside a
// piece, so the machine's cores). Per thread by nature: it describes what this thread is
// running, and every piece restores it when done.
thread_local unsigned piece_budget = 0;

// Sets this thread's budget for the duration of one piece, restoring the caller's after.
class BudgetScope {
 public:
  explicit BudgetScope(unsigned budget) : saved_(piece_budget) { piece_budget = budget; }
  ~BudgetScope() { piece_budget = saved_; }
  BudgetScope(const BudgetScope&) = delete;
  BudgetScope& operator=(const BudgetScope&) = delete;

 private:
  unsigned saved_;
};

}  // namespace

unsigned parallel_width(unsigned threads_wanted) {
  // A number asked for at the top is honoured as asked (more threads than cores included);
  // inside a piece it is capped by what the piece was given.
  if (piece_budget != 0)
    return threads_wanted == 0 ? piece_budget : std::min(threads_wanted, piece_budget);
  if (threads_wanted == 0) return std::max(1U, std::thread::hardware_concurrency());
  return threads_wanted;
}

void for_each_in_parallel(std::size_t count, const std::function<void(std::size_t)>& work,
                          unsigned threads_wanted) {
  const unsigned allowed = parallel_width(threads_wanted);
  const std::size_t threads = std::max<std::size_t>(1, std::min<std::size_t>(count, allowed));
  // Each piece may spread over its share of the threads its call did not use.
  const auto share = static_cast<unsigned>(std::max<std::size_t>(1, allowed / threads));
  if (threads <= 1) {
    const BudgetScope scope(share);
    for (std::size_t i = 0; i < count; ++i)
      work(i);
    return;
  }
  std::atomic<std::size_t> next{0};
  std::vector<std::exception_ptr> errors(count);
  const auto worker = [&] {
    const BudgetScope scope(share);
    for (std::size_t i = next++; i < count; i = next++) {
      try {
        work(i);
      } catch (...) {
        errors[i] = std::current_exception();
      }
    }
  };
  std::vector<std::thread> pool;
  for (std::size_t k = 1; k < threads; ++k)
    pool.emplace_back(worker);
  worker();
  for (std::thread& t : pool)
    t.join();
  for (const std::exception_ptr& e : errors) {
    if (e) std::rethrow_exception(e);
  }
}

}  // namespace trainsim
