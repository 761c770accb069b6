#include "calibrate/nccl_communicators.hpp"

#include <fmt/format.h>

#include <exception>
#include <optional>
#include <thread>

namespace trainsim::calibrate::gpu {

std::string nccl_version() {
  int v = 0;
  check(ncclGetVersion(&v), "ncclGetVersion");
  // NCCL_VERSION(X, Y, Z) = X·10000 + Y·100 + Z since 2.9.
  return fmt::format("{}.{}.{}", v / 10000, (v % 10000) / 100, v % 100);
}

ncclUniqueId new_unique_id() {
  ncclUniqueId id{};
  check(ncclGetUniqueId(&id), "ncclGetUniqueId");
  return id;
}

NcclCommunicator::NcclCommunicator(const ncclUniqueId& id, int ranks, int rank, int device) {
  use_device(device);
  ncclComm_t c = nullptr;
  check(ncclCommInitRank(&c, ranks, id, rank), "ncclCommInitRank");
  comm_ = {device, c};
}

LocalCommunicators::LocalCommunicators(const std::vector<int>& devices) {
  // One thread per GPU, each joining with ncclCommInitRank from the shared id: the way the
  // executor's rank threads will create theirs. Joins block until every rank arrived, so the
  // threads run concurrently; a failure is rethrown here after all of them ended.
  const ncclUniqueId id = new_unique_id();
  const int n = static_cast<int>(devices.size());
  std::vector<std::optional<NcclCommunicator>> made(devices.size());
  std::vector<std::exception_ptr> errors(devices.size());
  {
    std::vector<std::jthread> threads;
    for (int r = 0; r < n; ++r) {
      threads.emplace_back([&, r] {
        const auto u = static_cast<std::size_t>(r);
        try {
          made[u].emplace(id, n, r, devices[u]);
        } catch (...) {
          errors[u] = std::current_exception();
        }
      });
    }
  }
  for (const std::exception_ptr& e : errors)
    if (e) std::rethrow_exception(e);
  for (int r = 0; r < n; ++r) {
    const auto u = static_cast<std::size_t>(r);
    comms_.push_back(std::move(*made[u]));
    streams_.emplace_back(devices[u]);
    ranks_.push_back(r);
  }
}

}  // namespace trainsim::calibrate::gpu
