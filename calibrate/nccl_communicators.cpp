#include "calibrate/nccl_communicators.hpp"

#include <fmt/format.h>

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
  const ncclUniqueId id = new_unique_id();
  const int n = static_cast<int>(devices.size());
  std::vector<ncclComm_t> raw(devices.size(), nullptr);
  {
    // One thread initialising several ranks must do so inside a group, or the first
    // ncclCommInitRank would wait for the others forever.
    GroupCall group;
    for (int r = 0; r < n; ++r) {
      use_device(devices[static_cast<std::size_t>(r)]);
      check(ncclCommInitRank(&raw[static_cast<std::size_t>(r)], n, id, r), "ncclCommInitRank");
    }
  }
  for (int r = 0; r < n; ++r) {
    comms_.emplace_back(raw[static_cast<std::size_t>(r)], devices[static_cast<std::size_t>(r)]);
    streams_.emplace_back(devices[static_cast<std::size_t>(r)]);
  }
}

}  // namespace trainsim::calibrate::gpu
