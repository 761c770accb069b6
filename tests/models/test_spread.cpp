// The spread of a sweep's items over the processes of a job (models/spread.hpp), with the
// processes played by threads of this one (a group whose all_gather meets at a barrier): each
// item computed once, on its process; every process ends with every result, bit for bit; an
// item's exception rethrown on every process as the one-process loop would throw it. The same
// code under a real MPI job: the mpi.* ctests (tests/mpi/).

#include <doctest/doctest.h>

#include <cmath>
#include <condition_variable>
#include <functional>
#include <limits>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "models/byte_codec.hpp"
#include "models/errors.hpp"
#include "models/spread.hpp"

namespace trainsim {
namespace {

// What the "processes" of a ThreadGroup share: the blobs of the gather in progress.
class Meeting {
 public:
  explicit Meeting(std::size_t size) : blobs_(size) {}

  std::vector<std::string> all_gather(std::size_t rank, const std::string& mine) {
    std::unique_lock lock(mutex_);
    const std::size_t round = round_;
    blobs_[rank] = mine;
    if (++arrived_ == blobs_.size()) {
      result_ = blobs_;
      arrived_ = 0;
      ++round_;
      changed_.notify_all();
    } else {
      changed_.wait(lock, [&] { return round_ != round; });
    }
    return result_;
  }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<std::string> blobs_;
  std::vector<std::string> result_;
  std::size_t arrived_ = 0;
  std::size_t round_ = 0;
};

class ThreadGroup final : public ProcessGroup {
 public:
  ThreadGroup(Meeting& meeting, std::size_t rank, std::size_t size)
      : meeting_(meeting), rank_(rank), size_(size) {}
  std::size_t rank() const override { return rank_; }
  std::size_t size() const override { return size_; }
  unsigned threads() const override { return 1; }
  std::vector<std::string> all_gather(const std::string& mine) const override {
    return meeting_.all_gather(rank_, mine);
  }

 private:
  Meeting& meeting_;
  std::size_t rank_;
  std::size_t size_;
};

// Runs body(group) on `size` threads, one per process of a ThreadGroup.
void as_processes(std::size_t size, const std::function<void(const ProcessGroup&)>& body) {
  Meeting meeting(size);
  std::vector<std::thread> processes;
  for (std::size_t r = 0; r < size; ++r) {
    processes.emplace_back([&, r] {
      const ThreadGroup group(meeting, r, size);
      body(group);
    });
  }
  for (std::thread& t : processes)
    t.join();
}

struct Item {
  double value = 0.0;
  std::string name;
  std::vector<std::int64_t> parts;
};

void encode(ByteWriter& out, const Item& item) {
  out.put(item.value);
  out.put_string(item.name);
  out.put_vector(item.parts);
}

Item decode(ByteReader& in) {
  Item item;
  item.value = in.get<double>();
  item.name = in.get_string();
  item.parts = in.get_vector<std::int64_t>();
  return item;
}

Item compute(std::size_t i) {
  Item item;
  item.value = std::sqrt(static_cast<double>(i) + 0.1) / 3.0;  // no short decimal form
  item.name = "item " + std::to_string(i);
  for (std::size_t k = 0; k < i % 4; ++k)
    item.parts.push_back(static_cast<std::int64_t>(i * 1000 + k));
  return item;
}

}  // namespace

TEST_CASE("bytes: every value comes back bit for bit, and reading past the end is an error") {
  ByteWriter out;
  out.put(0.1 + 0.2);
  out.put(std::numeric_limits<double>::denorm_min());
  out.put(std::int64_t{-7});
  out.put_string("GPU «3»");
  out.put_vector(std::vector<double>{1.0 / 3.0, -0.0});
  const std::string bytes = out.take();
  ByteReader in(bytes);
  CHECK(in.get<double>() == 0.1 + 0.2);
  CHECK(in.get<double>() == std::numeric_limits<double>::denorm_min());
  CHECK(in.get<std::int64_t>() == -7);
  CHECK(in.get_string() == "GPU «3»");
  const std::vector<double> v = in.get_vector<double>();
  REQUIRE(v.size() == 2);
  CHECK(v[0] == 1.0 / 3.0);
  CHECK(std::signbit(v[1]));
  CHECK(in.done());
  CHECK_THROWS_WITH_AS(in.get<int>(), doctest::Contains("4 bytes wanted at byte"),
                       std::runtime_error);
}

TEST_CASE("items_of: process r of n computes items r, r + n, … (without a group, all)") {
  CHECK(items_of(nullptr, 3) == std::vector<std::size_t>{0, 1, 2});
  as_processes(3, [](const ProcessGroup& group) {
    const std::vector<std::size_t> mine = items_of(&group, 7);
    const std::vector<std::vector<std::size_t>> expected{{0, 3, 6}, {1, 4}, {2, 5}};
    CHECK(mine == expected[group.rank()]);
  });
}

TEST_CASE("spread: every process of 1, 2 and 3 holds every result, as one process computes them") {
  constexpr std::size_t kItems = 11;
  const std::vector<Item> alone = spread<Item>(nullptr, kItems, 2, compute, encode, decode);
  for (std::size_t processes : {1U, 2U, 3U}) {
    CAPTURE(processes);
    std::mutex mutex;
    std::vector<std::size_t> computed_by(kItems, 0);  // how many times each item was computed
    std::vector<std::vector<Item>> results(processes);
    as_processes(processes, [&](const ProcessGroup& group) {
      results[group.rank()] = spread<Item>(
          &group, kItems, 1,
          [&](std::size_t i) {
            const std::lock_guard lock(mutex);
            ++computed_by[i];
            CHECK(i % group.size() == group.rank());
            return compute(i);
          },
          encode, decode);
    });
    CHECK(computed_by == std::vector<std::size_t>(kItems, 1));
    for (const std::vector<Item>& got : results) {
      REQUIRE(got.size() == kItems);
      for (std::size_t i = 0; i < kItems; ++i) {
        CHECK(got[i].value == alone[i].value);  // exact: the bits travel
        CHECK(got[i].name == alone[i].name);
        CHECK(got[i].parts == alone[i].parts);
      }
    }
  }
}

TEST_CASE("spread: the lowest item's exception is rethrown on every process, with its type") {
  const auto throwing = [](std::size_t i) -> Item {
    if (i == 4) throw Infeasible("item 4 cannot run");
    if (i == 2) throw ConfigError(SourceLocation{"a.yaml", 3, 5}, "model.heads: 7 is odd");
    if (i == 5) throw std::logic_error("item 5 broke");
    return compute(i);
  };
  // One process: the loop's own exception (the lowest item that threw).
  CHECK_THROWS_WITH_AS(spread<Item>(nullptr, 6, 1, throwing, encode, decode),
                       "a.yaml:3:5: model.heads: 7 is odd", ConfigError);
  std::mutex mutex;
  std::vector<std::string> seen;
  as_processes(3, [&](const ProcessGroup& group) {
    try {
      spread<Item>(&group, 6, 1, throwing, encode, decode);
    } catch (const ConfigError& e) {
      const std::lock_guard lock(mutex);
      seen.push_back(e.where().to_string() + " | " + e.message());
    }
  });
  CHECK(seen == std::vector<std::string>(3, "a.yaml:3:5 | model.heads: 7 is odd"));
  seen.clear();
  const auto later = [&](std::size_t i) -> Item {
    if (i == 4) throw Infeasible("item 4 cannot run");
    if (i == 5) throw std::logic_error("item 5 broke");
    return compute(i);
  };
  as_processes(2, [&](const ProcessGroup& group) {
    try {
      spread<Item>(&group, 6, 1, later, encode, decode);
    } catch (const Infeasible& e) {
      const std::lock_guard lock(mutex);
      seen.emplace_back(e.what());
    }
  });
  CHECK(seen == std::vector<std::string>(2, "item 4 cannot run"));
}

TEST_CASE("spread: progress counts this process's items") {
  as_processes(2, [](const ProcessGroup& group) {
    std::vector<std::pair<std::size_t, std::size_t>> calls;
    spread<Item>(&group, 5, 1, compute, encode, decode,
                 [&](std::size_t done, std::size_t total) { calls.emplace_back(done, total); });
    const std::size_t mine = group.rank() == 0 ? 3 : 2;
    REQUIRE(calls.size() == mine);
    CHECK(calls.back() == std::pair<std::size_t, std::size_t>{mine, mine});
  });
}

}  // namespace trainsim
