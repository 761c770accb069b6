#include <doctest/doctest.h>

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <type_traits>
#include <variant>
#include <vector>

#include "equivalence_asserts.hpp"
#include "models/build_program.hpp"
#include "models/op_list_pool.hpp"
#include "models/program_size.hpp"

using namespace trainsim;

namespace {

constexpr std::size_t kMin = OpListPool::kMinOps;

/// A Program whose ranks' op lists have room for `rooms` ops each (and hold no ops).
program::Program with_rooms(std::initializer_list<std::size_t> rooms) {
  program::Program p;
  for (const std::size_t room : rooms) {
    program::RankProgram& r = p.ranks.emplace_back();
    r.ops.reserve(room);
  }
  return p;
}

/// Every field of an op that means something (an Op's padding does not), as text.
std::string fields(const program::Program& p, const program::RankProgram& r,
                   const program::Op& op) {
  const std::string payload = std::visit(
      [](const auto& x) {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, program::Gemm>) {
          return fmt::format("gemm {} {} {} {} {} {} {} {} {}", x.m, x.n, x.k, x.batch,
                             static_cast<int>(x.dtype), x.transpose_a, x.transpose_b,
                             static_cast<int>(x.c_dtype), x.accumulate);
        } else if constexpr (std::is_same_v<T, program::Kernel>) {
          return fmt::format("kernel {} {} {}", x.read.count(), x.written.count(), x.flops.count());
        } else if constexpr (std::is_same_v<T, program::Collective>) {
          return fmt::format("collective {} {} {} {} {}", static_cast<int>(x.kind), x.group,
                             x.size.count(), static_cast<int>(x.dtype), x.copy_engine);
        } else if constexpr (std::is_same_v<T, program::Send> || std::is_same_v<T, program::Recv>) {
          return fmt::format("p2p {} {} {}", std::is_same_v<T, program::Send>, x.peer,
                             x.size.count());
        } else if constexpr (std::is_same_v<T, program::Alloc>) {
          return fmt::format("alloc {} {} {}", x.buffer, x.size.count(),
                             static_cast<int>(x.category));
        } else if constexpr (std::is_same_v<T, program::Free>) {
          return fmt::format("free {}", x.buffer);
        } else {
          return fmt::format("sync {} {}", static_cast<int>(x.point), x.device);
        }
      },
      op.payload);
  std::string deps;
  for (const program::OpIndex d : r.deps(op))
    deps += fmt::format(" {}", d);
  return fmt::format("{} | {} {} {} {} {} | {} | {} |{}", payload, static_cast<int>(op.stream),
                     op.tag.layer, op.tag.micro_batch, op.tag.chunk, static_cast<int>(op.tag.phase),
                     p.names.name(op.name), static_cast<int>(op.kernel_class), deps);
}

}  // namespace

TEST_CASE(
    "the op list pool hands out the least room that holds a request, none below its minimum") {
  OpListPool pool;
  CHECK(pool.take(kMin).capacity() == 0);  // nothing kept yet
  program::Program p = with_rooms({kMin, 4 * kMin, 2 * kMin, 100});
  pool.give(p);
  CHECK(pool.kept_ops() == 7 * kMin);  // the list of 100 is not kept
  for (const program::RankProgram& r : p.ranks)
    CHECK((r.ops.capacity() == 0 || r.ops.capacity() == 100));
  CHECK(pool.take(kMin - 1).capacity() == 0);  // below the minimum: the allocator's
  const std::vector<program::Op> got = pool.take(kMin + 1);
  CHECK(got.capacity() == 2 * kMin);
  CHECK(got.empty());
  CHECK(pool.kept_ops() == 5 * kMin);
  CHECK(pool.take(8 * kMin).capacity() == 0);  // none has the room
  CHECK(pool.take(3 * kMin).capacity() == 4 * kMin);
  CHECK(pool.take(kMin).capacity() == kMin);
  CHECK(pool.kept_ops() == 0);
}

TEST_CASE("the op list pool keeps no more than the largest Program given, dropping least room") {
  OpListPool pool;
  program::Program big = with_rooms({4 * kMin});
  pool.give(big);
  program::Program small = with_rooms({kMin, 2 * kMin});
  pool.give(small);  // 7·kMin kept would exceed the largest Program's 4·kMin: drop from the least
  CHECK(pool.kept_ops() == 4 * kMin);
  CHECK(pool.take(kMin).capacity() == 4 * kMin);
  CHECK(pool.kept_ops() == 0);
}

TEST_CASE(
    "a Program built with op lists from the pool is the one built without, in reused memory") {
  const ModelSpec model = test::model_spec(4, 64, 4, 256, 32, 128);
  ParallelPlan plan;
  plan.tensor.size = 2;
  plan.pipeline.size = 2;
  TrainingSpec training;
  training.micro_batch = 1;
  training.global_batch = 64;
  REQUIRE(estimated_ops_per_stage(model, plan, training) >= static_cast<double>(kMin));

  OpListPool pool;
  // First a Program of other ops (full recomputation), so the reused lists hold stale bytes.
  ParallelPlan other = plan;
  other.recompute = Recompute::full;
  program::Program first =
      build_program(model, other, training, ProgramScope::representative, 0, &pool);
  std::vector<const program::Op*> lists;
  for (const program::RankProgram& r : first.ranks)
    lists.push_back(r.ops.data());
  pool.give(first);
  REQUIRE(pool.kept_ops() > 0);

  const program::Program pooled =
      build_program(model, plan, training, ProgramScope::representative, 0, &pool);
  const program::Program fresh = build_program(model, plan, training, ProgramScope::representative);
  std::size_t reused = 0;
  for (const program::RankProgram& r : pooled.ranks)
    reused += static_cast<std::size_t>(std::count(lists.begin(), lists.end(), r.ops.data()));
  CHECK(reused == pooled.ranks.size());
  REQUIRE(pooled.ranks.size() == fresh.ranks.size());
  CHECK(pooled.names.size() == fresh.names.size());
  for (std::size_t i = 0; i < fresh.ranks.size(); ++i) {
    const program::RankProgram& a = pooled.ranks[i];
    const program::RankProgram& b = fresh.ranks[i];
    CHECK(a.rank == b.rank);
    CHECK(a.dep_pool == b.dep_pool);
    REQUIRE(a.ops.size() == b.ops.size());
    for (std::size_t k = 0; k < b.ops.size(); ++k) {
      if (fields(pooled, a, a.ops[k]) != fields(fresh, b, b.ops[k])) {
        FAIL_CHECK("rank " << i << " op " << k << ": " << fields(pooled, a, a.ops[k]) << " against "
                           << fields(fresh, b, b.ops[k]));
        break;
      }
    }
  }
}

TEST_CASE(
    "the op list pool shared by threads taking and giving at once loses and duplicates no list") {
  // Four threads, each taking a list, writing to it and giving it back (in a Program of its
  // own) many times: every list handed out is held by one thread at a time and comes empty,
  // and what is kept stays within the budget (the largest Program given, the seed's 16·kMin).
  OpListPool pool;
  program::Program seed = with_rooms({4 * kMin, 4 * kMin, 4 * kMin, 4 * kMin});
  pool.give(seed);
  REQUIRE(pool.kept_ops() == 16 * kMin);
  std::mutex held_mutex;
  std::set<const program::Op*> held;
  std::atomic<int> misused{0};  // held by two threads at once, or handed out not empty
  std::atomic<int> over_budget{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int round = 0; round < 500; ++round) {
        program::Program p;
        program::RankProgram& r = p.ranks.emplace_back();
        r.ops = pool.take(kMin);
        if (r.ops.capacity() == 0) r.ops.reserve(4 * kMin);  // none kept: a fresh list
        const program::Op* data = r.ops.data();
        {
          const std::lock_guard lock(held_mutex);
          if (!held.insert(data).second || !r.ops.empty()) ++misused;
        }
        r.ops.resize(64);  // a use of it while the others run
        {
          const std::lock_guard lock(held_mutex);
          held.erase(data);
        }
        pool.give(p);
        if (pool.kept_ops() > 16 * kMin) ++over_budget;
      }
    });
  }
  for (std::thread& t : threads)
    t.join();
  CHECK(misused == 0);
  CHECK(over_budget == 0);
  CHECK(pool.kept_ops() <= 16 * kMin);
}
