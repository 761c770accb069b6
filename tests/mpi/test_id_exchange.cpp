// The MPI bootstrap of communicator ids, run under `mpirun -np N` (2 and 3 in ctest): every
// process asks for the keys of the groups it is a member of, the first member of each makes the
// id (here a fake that names its maker and a per-process counter, so a wrong or mixed-up id is
// visible), and every member must receive the maker's bytes. Also: the placement (world rank
// and size, node and local rank) and the errors for a key with no maker or two.
// Plain main (no doctest): every process checks its own part; the exit code is 1 on any
// process that failed, and rank 0 prints the verdict of all of them.

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

#include "mpi/id_exchange.hpp"
#include "mpi/mpi_world.hpp"

namespace {

using trainsim::mpi::IdBytes;
using trainsim::mpi::IdRequest;

IdBytes fake_id(const std::string& text) {
  IdBytes id{};
  std::copy_n(text.begin(), std::min(text.size(), id.size()), id.begin());
  return id;
}

std::string text_of(const IdBytes& id) {
  return std::string(id.data());
}

int failures = 0;

void expect(bool ok, const std::string& what, int rank) {
  if (ok) return;
  ++failures;
  std::fprintf(stderr, "rank %d: FAILED: %s\n", rank, what.c_str());
}

// The groups of a world of n: all ranks, each pair of neighbours (i, i+1), and every rank's
// singleton; keys listed in a per-process order (rotated by rank) so that the result cannot
// depend on the processes agreeing on an order.
void exchange_groups(MPI_Comm comm, int rank, int n) {
  std::vector<IdRequest> requests;
  std::vector<std::string> expected;
  auto ask = [&](const std::string& key, int first) { requests.push_back({key, rank == first}); };
  ask("world", 0);
  for (int i = 0; i + 1 < n; ++i) {
    if (rank == i || rank == i + 1) ask(fmt::format("pair:{},{}", i, i + 1), i);
  }
  ask(fmt::format("self:{}", rank), rank);
  ask("world", 0);  // asked twice: made once, received twice
  std::rotate(requests.begin(), requests.begin() + rank % static_cast<int>(requests.size()),
              requests.end());
  int made = 0;
  const std::vector<IdBytes> ids = trainsim::mpi::exchange_ids(
      comm, requests, [&] { return fake_id(fmt::format("made by {} #{}", rank, made++)); });
  expect(ids.size() == requests.size(), "one id per request", rank);
  for (std::size_t i = 0; i < requests.size() && i < ids.size(); ++i) {
    const std::string& key = requests[i].key;
    int maker = 0;
    if (key.starts_with("pair:")) maker = std::stoi(key.substr(5));
    if (key.starts_with("self:")) maker = rank;
    // Each maker makes its ids in its own request order: the counter is not checked, the
    // maker is, and all members of a key must agree (the world id is compared below).
    const std::string got = text_of(ids[i]);
    expect(got.starts_with(fmt::format("made by {} #", maker)),
           fmt::format("key {}: got '{}', expected an id made by {}", key, got, maker), rank);
  }
  // Every process received the same world id: all-gather its text and compare.
  const auto world = std::find_if(requests.begin(), requests.end(),
                                  [](const IdRequest& r) { return r.key == "world"; });
  const IdBytes mine = ids[static_cast<std::size_t>(world - requests.begin())];
  std::vector<char> all(static_cast<std::size_t>(n) * mine.size());
  MPI_Allgather(mine.data(), static_cast<int>(mine.size()), MPI_CHAR, all.data(),
                static_cast<int>(mine.size()), MPI_CHAR, comm);
  for (int p = 0; p < n; ++p) {
    expect(std::equal(mine.begin(), mine.end(), all.begin() + p * static_cast<long>(mine.size())),
           fmt::format("process {} received another world id", p), rank);
  }
}

// A bad request must throw on every process (none may be left waiting).
void expect_error(MPI_Comm comm, int rank, const std::vector<IdRequest>& requests,
                  const std::string& needle) {
  std::string message;
  try {
    trainsim::mpi::exchange_ids(comm, requests, [] { return fake_id("x"); });
  } catch (const std::runtime_error& e) {
    message = e.what();
  }
  expect(!message.empty(), fmt::format("no error, expected one with '{}'", needle), rank);
  if (rank == 0) {
    expect(message.find(needle) != std::string::npos,
           fmt::format("error '{}' does not say '{}'", message, needle), rank);
  }
}

}  // namespace

int main(int argc, char** argv) {
  try {
    trainsim::mpi::MpiWorld world(&argc, &argv);
    const trainsim::mpi::Placement& at = world.placement();
    const int rank = at.world_rank;
    const int n = at.world_size;
    expect(n >= 2, fmt::format("run under mpirun -np 2 or more (world size {})", n), rank);
    // One machine: a single node holding every process, local rank = world rank.
    expect(at.nodes == 1 && at.node == 0 && at.local_size == n && at.local_rank == rank &&
               at.rank_nodes == std::vector<int>(static_cast<std::size_t>(n), 0),
           fmt::format("placement node {} of {}, local rank {} of {}", at.node, at.nodes,
                       at.local_rank, at.local_size),
           rank);
    exchange_groups(world.comm(), rank, n);
    exchange_groups(world.comm(), rank, n);  // a second round: fresh ids, same pattern
    // Rank 0 alone asks for "lost" without making it; everyone makes "twice".
    expect_error(world.comm(), rank,
                 rank == 0 ? std::vector<IdRequest>{{"lost", false}} : std::vector<IdRequest>{},
                 "'lost' is made by no process");
    expect_error(world.comm(), rank, {{"twice", true}}, "'twice' is made by processes 0 and 1");
    const bool all = world.all(failures == 0);
    if (rank == 0) fmt::print("id exchange over {} processes: {}\n", n, all ? "passed" : "FAILED");
    return all ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
}
