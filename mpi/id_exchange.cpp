#include "mpi/id_exchange.hpp"

#include <fmt/format.h>

#include <cstdint>
#include <cstring>
#include <map>
#include <numeric>
#include <stdexcept>
#include <utility>

#include "mpi/mpi_world.hpp"

namespace trainsim::mpi {

namespace {

// A made id on the wire: key length (uint32), key bytes, id bytes.
void append(std::vector<char>& out, const std::string& key, const IdBytes& id) {
  const auto length = static_cast<std::uint32_t>(key.size());
  const auto* l = reinterpret_cast<const char*>(&length);
  out.insert(out.end(), l, l + sizeof length);
  out.insert(out.end(), key.begin(), key.end());
  out.insert(out.end(), id.begin(), id.end());
}

struct Made {
  IdBytes id{};
  int maker = -1;
};

// Parses every process's made ids; the same on every process, so a duplicate is seen by all.
std::map<std::string, Made> parse(const std::vector<char>& all, const std::vector<int>& counts,
                                  std::string& error) {
  std::map<std::string, Made> made;
  std::size_t at = 0;
  for (int process = 0; process < static_cast<int>(counts.size()); ++process) {
    const std::size_t end =
        at + static_cast<std::size_t>(counts[static_cast<std::size_t>(process)]);
    while (at < end) {
      std::uint32_t length = 0;
      std::memcpy(&length, all.data() + at, sizeof length);
      at += sizeof length;
      std::string key(all.data() + at, length);
      at += length;
      Made m;
      std::memcpy(m.id.data(), all.data() + at, m.id.size());
      at += m.id.size();
      m.maker = process;
      const auto [it, fresh] = made.emplace(key, m);
      if (!fresh && error.empty()) {
        error = fmt::format("id key '{}' is made by processes {} and {}: one member makes it", key,
                            it->second.maker, process);
      }
    }
  }
  return made;
}

}  // namespace

std::vector<IdBytes> exchange_ids(MPI_Comm comm, std::span<const IdRequest> requests,
                                  const std::function<IdBytes()>& make) {
  std::vector<char> mine;
  std::map<std::string, IdBytes> own;  // a key requested twice here is made once
  for (const IdRequest& r : requests) {
    if (r.make && !own.contains(r.key)) append(mine, r.key, own[r.key] = make());
  }
  int processes = 0;
  check(MPI_Comm_size(comm, &processes), "MPI_Comm_size");
  const int count = static_cast<int>(mine.size());
  std::vector<int> counts(static_cast<std::size_t>(processes));
  check(MPI_Allgather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, comm), "MPI_Allgather");
  std::vector<int> offsets(counts.size());
  std::exclusive_scan(counts.begin(), counts.end(), offsets.begin(), 0);
  std::vector<char> all(static_cast<std::size_t>(offsets.back() + counts.back()));
  check(MPI_Allgatherv(mine.data(), count, MPI_CHAR, all.data(), counts.data(), offsets.data(),
                       MPI_CHAR, comm),
        "MPI_Allgatherv");
  std::string error;
  const std::map<std::string, Made> made = parse(all, counts, error);
  std::vector<IdBytes> ids;
  for (const IdRequest& r : requests) {
    const auto found = made.find(r.key);
    if (found == made.end()) {
      if (error.empty()) {
        error =
            fmt::format("id key '{}' is made by no process: its first member must make it", r.key);
      }
      break;
    }
    ids.push_back(found->second.id);
  }
  // Every process throws, or none: a process left waiting in a communicator's init would hang.
  if (!all_processes(comm, error.empty())) {
    throw std::runtime_error(error.empty() ? "id exchange failed on another process" : error);
  }
  return ids;
}

}  // namespace trainsim::mpi
