#include "models/spread.hpp"

#include <fmt/format.h>

#include <cstdint>
#include <exception>
#include <mutex>
#include <stdexcept>

#include "models/errors.hpp"

namespace trainsim {
namespace {

// What an item's record starts with: its result, or the kind of exception it threw.
enum class Outcome : std::uint8_t { result, config_error, infeasible, other_error };

// An item's record: its outcome, then its result's bytes or the exception's fields.
std::string record_of(const std::function<std::string(std::size_t)>& work, std::size_t i) {
  ByteWriter out;
  try {
    std::string result = work(i);
    out.put(Outcome::result);
    out.put_string(result);
  } catch (const ConfigError& e) {
    out.put(Outcome::config_error);
    out.put_string(e.where().file.string());
    out.put(e.where().line);
    out.put(e.where().column);
    out.put_string(e.message());
  } catch (const Infeasible& e) {
    out.put(Outcome::infeasible);
    out.put_string(e.what());
  } catch (const std::exception& e) {
    out.put(Outcome::other_error);
    out.put_string(e.what());
  }
  return out.take();
}

// The result of a record, or its exception thrown again.
std::string result_of(const std::string& record) {
  ByteReader in(record);
  switch (in.get<Outcome>()) {
    case Outcome::result:
      return in.get_string();
    case Outcome::config_error: {
      SourceLocation where;
      where.file = in.get_string();
      where.line = in.get<int>();
      where.column = in.get<int>();
      throw ConfigError(where, in.get_string());
    }
    case Outcome::infeasible:
      throw Infeasible(in.get_string());
    case Outcome::other_error:
      throw std::runtime_error(in.get_string());
  }
  throw std::runtime_error("an item's record exchanged between processes has no known outcome");
}

}  // namespace

std::vector<std::size_t> items_of(const ProcessGroup* group, std::size_t count) {
  const std::size_t size = group ? group->size() : 1;
  std::vector<std::size_t> mine;
  for (std::size_t i = group ? group->rank() : 0; i < count; i += size)
    mine.push_back(i);
  return mine;
}

std::vector<std::string> spread_bytes(const ProcessGroup& group, std::size_t count,
                                      unsigned threads,
                                      const std::function<std::string(std::size_t)>& work,
                                      const SpreadProgress& progress) {
  const std::vector<std::size_t> mine = items_of(&group, count);
  std::vector<std::string> records(mine.size());
  std::size_t done = 0;
  std::mutex report;
  for_each_in_parallel(
      mine.size(),
      [&](std::size_t k) {
        records[k] = record_of(work, mine[k]);
        if (!progress) return;
        const std::lock_guard lock(report);
        progress(++done, mine.size());
      },
      threads == 0 ? group.threads() : threads);
  ByteWriter blob;
  for (const std::string& r : records)
    blob.put_string(r);
  const std::vector<std::string> blobs = group.all_gather(blob.take());
  if (blobs.size() != group.size()) {
    throw std::runtime_error(fmt::format("{} processes' results gathered from a group of {}",
                                         blobs.size(), group.size()));
  }
  // Process p's blob holds items p, p + size, ... in order.
  std::vector<ByteReader> readers(blobs.begin(), blobs.end());
  std::vector<std::string> out(count);
  for (std::size_t i = 0; i < count; ++i)
    out[i] = result_of(readers[i % group.size()].get_string());
  return out;
}

}  // namespace trainsim
