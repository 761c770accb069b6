#include "models/parallel_for.hpp"

#include <algorithm>
#include <atomic>
#include <exception>
#include <thread>
#include <vector>

namespace trainsim {

void for_each_in_parallel(std::size_t count, const std::function<void(std::size_t)>& work,
                          unsigned threads_wanted) {
  const unsigned cores = std::max(1U, std::thread::hardware_concurrency());
  const std::size_t threads =
      std::min<std::size_t>(count, threads_wanted == 0 ? cores : threads_wanted);
  if (threads <= 1) {
    for (std::size_t i = 0; i < count; ++i)
      work(i);
    return;
  }
  std::atomic<std::size_t> next{0};
  std::vector<std::exception_ptr> errors(count);
  const auto worker = [&] {
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
