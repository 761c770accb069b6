#pragma once
// An in-process communicator for the cpu backend: ranks are threads, collectives run over an
// explicit rank list. Every member of a group calls the same collectives in the same order
// (as with NCCL). Sums run in group order on every rank, so all ranks get bitwise the same
// result and runs are deterministic.

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <vector>

#include "models/backend.hpp"

namespace trainsim {

class CpuCommunicator {
 public:
  CpuCommunicator();
  ~CpuCommunicator();
  CpuCommunicator(const CpuCommunicator&) = delete;
  CpuCommunicator& operator=(const CpuCommunicator&) = delete;

  /// In place: every member ends with the element-wise reduction of all members' `data`.
  void all_reduce(std::span<const std::int64_t> group, std::int64_t rank, std::span<double> data,
                  ReduceOp op);
  /// `output` (n x input size, disjoint from input) gets the members' inputs in group order.
  void all_gather(std::span<const std::int64_t> group, std::int64_t rank,
                  std::span<const double> input, std::span<double> output);
  /// `output` gets the sum over members of chunk `position in group` of their inputs
  /// (input size = n x output size).
  /// output = the previous member's input (group order, cyclic).
  void ring_shift(std::span<const std::int64_t> group, std::int64_t rank,
                  std::span<const double> input, std::span<double> output);
  void reduce_scatter(std::span<const std::int64_t> group, std::int64_t rank,
                      std::span<const double> input, std::span<double> output);
  /// All-to-all-v: this member's `input` holds `send[j]` elements for member j, in group order;
  /// returns the elements every member sent this one, in group order.
  std::vector<double> all_to_all(std::span<const std::int64_t> group, std::int64_t rank,
                                 std::span<const double> input, std::span<const std::int64_t> send);
  /// `root`'s `data` becomes the sum over the members (in group order); the others keep theirs.
  void reduce(std::span<const std::int64_t> group, std::int64_t rank, std::int64_t root,
              std::span<double> data);
  /// Every member's `data` becomes `root`'s.
  void broadcast(std::span<const std::int64_t> group, std::int64_t rank, std::int64_t root,
                 std::span<double> data);
  /// Point to point: queues a copy of `data` from `from` to `to` and returns (buffered, so a
  /// schedule whose sends and receives match in order never blocks on a send).
  void send(std::int64_t from, std::int64_t to, std::span<const double> data);
  /// Waits for the oldest message from `from` to `to` and copies it into `data` (same size).
  void recv(std::int64_t from, std::int64_t to, std::span<double> data);

 private:
  struct Rendezvous;
  /// Posts this member's buffer, waits for all, and returns everyone's (in group order);
  /// the caller must call `release` after it is done reading them.
  Rendezvous& arrive(std::span<const std::int64_t> group, std::int64_t rank,
                     std::span<const double> input, std::size_t& position);
  void release(Rendezvous& r);

  std::mutex mutex_;
  std::map<std::vector<std::int64_t>, std::unique_ptr<Rendezvous>> groups_;
  std::mutex mail_mutex_;
  std::condition_variable mail_cv_;
  std::map<std::pair<std::int64_t, std::int64_t>, std::deque<std::vector<double>>> mail_;
};

}  // namespace trainsim
