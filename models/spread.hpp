#pragma once
// Spreads a sweep's independent items over the processes of a job (models/process_group.hpp)
// and, inside each, over its threads (models/parallel_for.hpp). Item i is computed by process
// i mod size (round robin: sweeps list similar items together, so neighbours of unequal cost
// land on different processes); every process then holds every item's result, in item order,
// and goes on exactly as one process would have.

#include <cstddef>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "models/byte_codec.hpp"
#include "models/parallel_for.hpp"
#include "models/process_group.hpp"

namespace trainsim {

/// Told (items done on this process, items this process computes) after each of its items.
using SpreadProgress = std::function<void(std::size_t done, std::size_t total)>;

/// Whether `group` has more than one process (null: no).
inline bool spreads(const ProcessGroup* group) {
  return group != nullptr && group->size() > 1;
}

/// The items of [0, count) that this process computes: all of them without a group.
std::vector<std::size_t> items_of(const ProcessGroup* group, std::size_t count);

/// work(i) for every i in [0, count), each on its process of `group` (on `threads` threads,
/// 0: the group's share of the cores), as bytes, on every process, in item order. An item that
/// threw is rethrown on every process (the lowest such i, as a sequential loop would): a
/// ConfigError as one (same location and message), an Infeasible as one, anything else as
/// std::runtime_error with its message, so that no process is left waiting in a collective.
/// A collective: every process of the group calls it with the same count.
std::vector<std::string> spread_bytes(const ProcessGroup& group, std::size_t count,
                                      unsigned threads,
                                      const std::function<std::string(std::size_t)>& work,
                                      const SpreadProgress& progress = {});

/// As spread_bytes, with each result encoded and decoded by the caller. Without a group of
/// several processes, this process computes every item on its threads, nothing encoded.
template <class Result>
std::vector<Result> spread(const ProcessGroup* group, std::size_t count, unsigned threads,
                           const std::function<Result(std::size_t)>& work,
                           const std::function<void(ByteWriter&, const Result&)>& encode,
                           const std::function<Result(ByteReader&)>& decode,
                           const SpreadProgress& progress = {}) {
  std::vector<Result> out;
  out.reserve(count);
  if (!spreads(group)) {
    std::vector<std::optional<Result>> results(count);
    std::size_t done = 0;
    std::mutex report;
    for_each_in_parallel(
        count,
        [&](std::size_t i) {
          results[i].emplace(work(i));
          if (!progress) return;
          const std::lock_guard lock(report);
          progress(++done, count);
        },
        threads);
    for (std::optional<Result>& r : results)
      out.push_back(std::move(*r));
    return out;
  }
  const std::vector<std::string> bytes = spread_bytes(
      *group, count, threads,
      [&](std::size_t i) {
        ByteWriter writer;
        encode(writer, work(i));
        return writer.take();
      },
      progress);
  for (const std::string& b : bytes) {
    ByteReader reader(b);
    out.push_back(decode(reader));
  }
  return out;
}

}  // namespace trainsim
