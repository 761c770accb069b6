// for_each_in_parallel (models/parallel_for.hpp): every piece once, the lowest piece's
// exception, and nested calls sharing their caller's threads: `--threads N` means N threads at
// any depth (issue 22), so one thread is exactly one thread.
#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "models/parallel_for.hpp"

using trainsim::for_each_in_parallel;

namespace {

// The threads a two-level loop runs on: `outer` pieces, each running `inner` pieces of its own
// call (which asks for a thread per core).
std::set<std::thread::id> threads_used(std::size_t outer, std::size_t inner, unsigned threads) {
  std::mutex m;
  std::set<std::thread::id> ids;
  for_each_in_parallel(
      outer,
      [&](std::size_t) {
        for_each_in_parallel(inner, [&](std::size_t) {
          const std::lock_guard lock(m);
          ids.insert(std::this_thread::get_id());
          // Long enough that a second thread, if any were started, takes pieces too.
          std::this_thread::sleep_for(std::chrono::milliseconds(1));
        });
      },
      threads);
  return ids;
}

}  // namespace

TEST_CASE("parallel for: every piece once, and the lowest piece's exception") {
  std::vector<int> hits(100, 0);
  for_each_in_parallel(
      hits.size(), [&](std::size_t i) { ++hits[i]; }, 4);
  CHECK(std::all_of(hits.begin(), hits.end(), [](int h) { return h == 1; }));
  CHECK_THROWS_WITH(for_each_in_parallel(
                        10,
                        [](std::size_t i) {
                          if (i == 3 || i == 7) throw std::runtime_error(std::to_string(i));
                        },
                        4),
                    "3");
}

TEST_CASE("parallel for: one thread asked for is one thread, nested calls included") {
  const std::set<std::thread::id> ids = threads_used(3, 16, 1);
  REQUIRE(ids.size() == 1);
  CHECK(*ids.begin() == std::this_thread::get_id());
}

TEST_CASE("parallel for: nested calls share the threads their caller was given") {
  // Two outer pieces on two threads: each inner call gets one thread, its own.
  CHECK(threads_used(2, 16, 2).size() <= 2);
  // One outer piece given three threads: its inner call may use all three.
  CHECK(threads_used(1, 64, 3).size() <= 3);
  CHECK(threads_used(1, 64, 3).size() >= 2);
}

TEST_CASE("parallel_width: what a call made here would run on, nested calls capped") {
  using trainsim::parallel_width;
  CHECK(parallel_width(3) == 3);  // at the top, as asked
  CHECK(parallel_width(0) == std::max(1U, std::thread::hardware_concurrency()));
  std::mutex m;
  std::vector<unsigned> inside;
  // Two pieces on 4 threads: each piece was given 2.
  for_each_in_parallel(
      2,
      [&](std::size_t) {
        const std::lock_guard lock(m);
        inside.push_back(parallel_width(0));
        inside.push_back(parallel_width(1));
        inside.push_back(parallel_width(5));
      },
      4);
  CHECK(inside == std::vector<unsigned>{2, 1, 2, 2, 1, 2});
}
