#include "models/cpu_communicator.hpp"

#include <algorithm>
#include <condition_variable>
#include <stdexcept>

namespace trainsim {

/// One group's meeting point: posted buffers plus a reusable generation barrier.
struct CpuCommunicator::Rendezvous {
  explicit Rendezvous(std::size_t n) : inputs(n) {}

  void arrive_and_wait() {
    std::unique_lock lock(mutex);
    const std::uint64_t gen = generation;
    if (++arrived == inputs.size()) {
      arrived = 0;
      ++generation;
      cv.notify_all();
    } else {
      cv.wait(lock, [&] { return generation != gen; });
    }
  }

  std::mutex mutex;
  std::condition_variable cv;
  std::size_t arrived = 0;
  std::uint64_t generation = 0;
  std::vector<std::span<const double>> inputs;
};

CpuCommunicator::CpuCommunicator() = default;
CpuCommunicator::~CpuCommunicator() = default;

CpuCommunicator::Rendezvous& CpuCommunicator::arrive(std::span<const std::int64_t> group,
                                                     std::int64_t rank,
                                                     std::span<const double> input,
                                                     std::size_t& position) {
  const auto it = std::find(group.begin(), group.end(), rank);
  if (it == group.end()) throw std::logic_error("cpu communicator: rank is not in the group");
  position = static_cast<std::size_t>(it - group.begin());
  Rendezvous* r = nullptr;
  {
    std::lock_guard lock(mutex_);
    auto& slot = groups_[std::vector<std::int64_t>(group.begin(), group.end())];
    if (!slot) slot = std::make_unique<Rendezvous>(group.size());
    r = slot.get();
  }
  {
    std::lock_guard lock(r->mutex);
    r->inputs[position] = input;
  }
  r->arrive_and_wait();
  return *r;
}

void CpuCommunicator::release(Rendezvous& r) {
  r.arrive_and_wait();
}

void CpuCommunicator::all_reduce(std::span<const std::int64_t> group, std::int64_t rank,
                                 std::span<double> data, ReduceOp op) {
  if (group.size() <= 1) return;
  std::size_t position = 0;
  Rendezvous& r = arrive(group, rank, data, position);
  std::vector<double> result(r.inputs[0].begin(), r.inputs[0].end());
  for (std::size_t m = 1; m < r.inputs.size(); ++m) {
    const std::span<const double> in = r.inputs[m];
    if (in.size() != result.size()) throw std::logic_error("cpu all-reduce: sizes differ");
    for (std::size_t i = 0; i < result.size(); ++i) {
      result[i] = op == ReduceOp::sum ? result[i] + in[i] : std::max(result[i], in[i]);
    }
  }
  release(r);  // everyone has read every input: now overwrite our own
  std::copy(result.begin(), result.end(), data.begin());
}

std::vector<double> CpuCommunicator::all_to_all(std::span<const std::int64_t> group,
                                                std::int64_t rank, std::span<const double> input,
                                                std::span<const std::int64_t> send) {
  // Each member posts [its n send counts | its data]; every member then reads its chunk of
  // each member's data at the offset the member's counts give.
  const std::size_t n = group.size();
  std::vector<double> posted(send.begin(), send.end());
  posted.insert(posted.end(), input.begin(), input.end());
  std::size_t position = 0;
  Rendezvous& r = arrive(group, rank, posted, position);
  std::vector<double> out;
  for (std::size_t m = 0; m < n; ++m) {
    const std::span<const double> theirs = r.inputs[m];
    std::size_t offset = n;
    for (std::size_t j = 0; j < position; ++j)
      offset += static_cast<std::size_t>(theirs[j]);
    const auto count = static_cast<std::size_t>(theirs[position]);
    out.insert(out.end(), theirs.begin() + static_cast<std::ptrdiff_t>(offset),
               theirs.begin() + static_cast<std::ptrdiff_t>(offset + count));
  }
  release(r);
  return out;
}

void CpuCommunicator::all_gather(std::span<const std::int64_t> group, std::int64_t rank,
                                 std::span<const double> input, std::span<double> output) {
  std::size_t position = 0;
  Rendezvous& r = arrive(group, rank, input, position);
  for (std::size_t m = 0; m < r.inputs.size(); ++m) {
    std::copy(r.inputs[m].begin(), r.inputs[m].end(),
              output.begin() + static_cast<std::ptrdiff_t>(m * input.size()));
  }
  release(r);
}

void CpuCommunicator::ring_shift(std::span<const std::int64_t> group, std::int64_t rank,
                                 std::span<const double> input, std::span<double> output) {
  std::size_t position = 0;
  Rendezvous& r = arrive(group, rank, input, position);
  const std::span<const double> from = r.inputs[(position + r.inputs.size() - 1) % r.inputs.size()];
  if (from.size() != output.size()) throw std::logic_error("cpu ring shift: sizes differ");
  std::copy(from.begin(), from.end(), output.begin());
  release(r);
}

void CpuCommunicator::reduce_scatter(std::span<const std::int64_t> group, std::int64_t rank,
                                     std::span<const double> input, std::span<double> output) {
  std::size_t position = 0;
  Rendezvous& r = arrive(group, rank, input, position);
  const std::size_t chunk = output.size();
  std::vector<double> result(chunk, 0.0);
  for (const std::span<const double> in : r.inputs) {
    for (std::size_t i = 0; i < chunk; ++i)
      result[i] += in[position * chunk + i];
  }
  release(r);
  std::copy(result.begin(), result.end(), output.begin());
}

void CpuCommunicator::reduce(std::span<const std::int64_t> group, std::int64_t rank,
                             std::int64_t root, std::span<double> data) {
  if (group.size() <= 1) return;
  std::size_t position = 0;
  Rendezvous& r = arrive(group, rank, data, position);
  std::vector<double> result;
  if (rank == root) {
    result.assign(r.inputs[0].begin(), r.inputs[0].end());
    for (std::size_t m = 1; m < r.inputs.size(); ++m) {
      const std::span<const double> in = r.inputs[m];
      if (in.size() != result.size()) throw std::logic_error("cpu reduce: sizes differ");
      for (std::size_t i = 0; i < result.size(); ++i)
        result[i] += in[i];
    }
  }
  release(r);  // everyone has read every input: now overwrite the root's
  if (rank == root) std::copy(result.begin(), result.end(), data.begin());
}

void CpuCommunicator::broadcast(std::span<const std::int64_t> group, std::int64_t rank,
                                std::int64_t root, std::span<double> data) {
  std::size_t position = 0;
  Rendezvous& r = arrive(group, rank, data, position);
  const auto root_it = std::find(group.begin(), group.end(), root);
  const auto root_position = static_cast<std::size_t>(root_it - group.begin());
  std::vector<double> result(r.inputs[root_position].begin(), r.inputs[root_position].end());
  release(r);
  std::copy(result.begin(), result.end(), data.begin());
}

void CpuCommunicator::send(std::int64_t from, std::int64_t to, std::span<const double> data) {
  {
    std::lock_guard lock(mail_mutex_);
    mail_[{from, to}].emplace_back(data.begin(), data.end());
  }
  mail_cv_.notify_all();
}

void CpuCommunicator::recv(std::int64_t from, std::int64_t to, std::span<double> data) {
  std::unique_lock lock(mail_mutex_);
  auto& queue = mail_[{from, to}];
  mail_cv_.wait(lock, [&] { return !queue.empty(); });
  if (queue.front().size() != data.size()) {
    throw std::logic_error("cpu communicator: received message has the wrong size");
  }
  std::copy(queue.front().begin(), queue.front().end(), data.begin());
  queue.pop_front();
}

}  // namespace trainsim
