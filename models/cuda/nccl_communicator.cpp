#include "models/cuda/nccl_communicator.hpp"

#include <cuda_runtime.h>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nccl.h>

#include <algorithm>
#include <cstring>

#include "models/cuda/cuda_error.hpp"

namespace trainsim::cuda {

namespace {

static_assert(sizeof(ncclUniqueId) == sizeof(NcclUniqueId), "NCCL_UNIQUE_ID_BYTES changed");

void check(ncclResult_t status, std::string_view call) {
  throw_if_failed(static_cast<int>(status), call, ncclGetErrorString(status));
}

// A communicator to be made: its registry key, size and this rank's number in it.
struct Pending {
  std::string key;
  int size = 0;
  int position = 0;
  NcclComm* target = nullptr;
};

}  // namespace

std::string_view comm_group_name(CommGroup group) {
  constexpr std::array<std::string_view, kCommGroupCount> kNames{
      "tensor", "data",         "row",           "column",    "input", "weight",
      "output", "input_weight", "output_weight", "embedding", "model"};
  return kNames[static_cast<std::size_t>(group)];
}

NcclUniqueId new_nccl_unique_id() {
  ncclUniqueId id{};
  check(ncclGetUniqueId(&id), "ncclGetUniqueId");
  NcclUniqueId bytes{};
  std::memcpy(bytes.data(), &id, bytes.size());
  return bytes;
}

std::vector<NcclUniqueId> NcclIdRegistry::ids_for(std::span<const NcclIdRequest> requests) {
  const std::lock_guard lock(mutex_);
  std::vector<NcclUniqueId> ids;
  for (const NcclIdRequest& r : requests) {
    const auto found = ids_.find(r.key);
    ids.push_back(found != ids_.end() ? found->second
                                      : ids_.emplace(r.key, new_nccl_unique_id()).first->second);
  }
  return ids;
}

NcclCommunicators::NcclCommunicators(NcclIdSource& ids, std::int64_t rank,
                                     std::span<const RankGroup> groups,
                                     std::span<const std::int64_t> peers, int device)
    : device_(device) {
  std::vector<Pending> pending;
  for (const RankGroup& g : groups) {
    if (g.ranks.size() < 2) continue;
    const auto at = std::find(g.ranks.begin(), g.ranks.end(), rank);
    if (at == g.ranks.end()) {
      throw std::invalid_argument(fmt::format("nccl: rank {} is not in its {} group [{}]", rank,
                                              comm_group_name(g.group), fmt::join(g.ranks, ", ")));
    }
    // The group's name is part of the key: two CommGroups over the same ranks (a grid row
    // and a 1D TP group) get a communicator each, as they have a stream each.
    pending.push_back({fmt::format("{}:{}", comm_group_name(g.group), fmt::join(g.ranks, ",")),
                       static_cast<int>(g.ranks.size()), static_cast<int>(at - g.ranks.begin()),
                       &groups_[static_cast<std::size_t>(g.group)]});
  }
  // One communicator per direction, so that each carries sends one way only and a peer's
  // receives match them in issue order, as the cpu communicator's mailbox does.
  for (const std::int64_t peer : peers) {
    pending.push_back({fmt::format("p2p:{}>{}", rank, peer), 2, 0, &to_[peer]});
    pending.push_back({fmt::format("p2p:{}>{}", peer, rank), 2, 1, &from_[peer]});
  }
  // The ids first, all at once (the registry's lock is not held across NCCL's blocking init;
  // the MPI exchange is one collective per process).
  std::vector<NcclIdRequest> requests;
  for (const Pending& p : pending)
    requests.push_back({p.key, p.position == 0});
  const std::vector<NcclUniqueId> bytes = ids.ids_for(requests);
  std::vector<ncclUniqueId> unique(pending.size());
  for (std::size_t i = 0; i < pending.size(); ++i)
    std::memcpy(&unique[i], bytes[i].data(), bytes[i].size());
  const cudaError_t set = cudaSetDevice(device);
  throw_if_failed(static_cast<int>(set), "cudaSetDevice", cudaGetErrorString(set));
  // Inside one group: every communicator of this rank is created at once, so the order in
  // which threads reach their groups cannot deadlock.
  check(ncclGroupStart(), "ncclGroupStart");
  for (std::size_t i = 0; i < pending.size(); ++i) {
    check(ncclCommInitRank(pending[i].target, pending[i].size, unique[i], pending[i].position),
          "ncclCommInitRank");
  }
  check(ncclGroupEnd(), "ncclGroupEnd");
}

NcclCommunicators::~NcclCommunicators() {
  for (NcclComm c : groups_) {
    if (c != nullptr) ncclCommDestroy(c);
  }
  for (const auto& [peer, c] : to_)
    ncclCommDestroy(c);
  for (const auto& [peer, c] : from_)
    ncclCommDestroy(c);
}

NcclComm NcclCommunicators::to(std::int64_t peer) const {
  const auto found = to_.find(peer);
  return found == to_.end() ? nullptr : found->second;
}

NcclComm NcclCommunicators::from(std::int64_t peer) const {
  const auto found = from_.find(peer);
  return found == from_.end() ? nullptr : found->second;
}

}  // namespace trainsim::cuda
