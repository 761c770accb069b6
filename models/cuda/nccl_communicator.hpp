#pragma once
// The NCCL communicators of one rank: one per CommGroup with more than one member (the groups
// the cpu backend's communicator runs over, as the launcher binds them) and, with pipeline
// parallelism, one per direction to each neighbouring stage. Ranks are threads of one
// process, one GPU each; the unique ids that join a group's members are made once per group
// by an NcclIdRegistry the launcher owns and hands to every rank (no global state). Across
// nodes (one process per GPU, an MPI bootstrap of the ids) is not built yet.
//
// NCCL types stay out of this header (ncclComm_t is a pointer to an opaque struct), so that
// the cuda backend's header needs no NCCL headers either.

#include <array>
#include <cstdint>
#include <map>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "models/backend.hpp"

struct ncclComm;  // NCCL's opaque communicator (ncclComm_t = ncclComm*)

namespace trainsim::cuda {

using NcclComm = ncclComm*;

/// The name of a CommGroup ("tensor", "data", "row", ...), as skip lists and NCCL keys say it.
std::string_view comm_group_name(CommGroup group);

/// The bytes of an ncclUniqueId (NCCL_UNIQUE_ID_BYTES).
using NcclUniqueId = std::array<char, 128>;

/// The unique ids of a run's communicators, made once per key and shared by the rank threads.
class NcclIdRegistry {
 public:
  /// The id of the communicator named `key`: made (ncclGetUniqueId) by the first caller.
  NcclUniqueId id_for(const std::string& key);

 private:
  std::mutex mutex_;
  std::map<std::string, NcclUniqueId> ids_;
};

/// One communicator group of a rank: which CommGroup, over which world ranks (in group order).
struct RankGroup {
  CommGroup group;
  std::vector<std::int64_t> ranks;
};

class NcclCommunicators {
 public:
  /// Creates this rank's communicators on `device` (made current) inside one
  /// ncclGroupStart/End: every member of each group must construct its own at the same time
  /// (one thread per rank), or this blocks. Groups of one get none. `peers` are the pipeline
  /// neighbours (each once; symmetric: a peer lists this rank too): two communicators each,
  /// one per direction.
  NcclCommunicators(NcclIdRegistry& ids, std::int64_t rank, std::span<const RankGroup> groups,
                    std::span<const std::int64_t> peers, int device);
  ~NcclCommunicators();
  NcclCommunicators(const NcclCommunicators&) = delete;
  NcclCommunicators& operator=(const NcclCommunicators&) = delete;

  /// The communicator of `group` (ranks numbered by position in the group), or nullptr.
  NcclComm group(CommGroup group) const { return groups_[static_cast<std::size_t>(group)]; }
  /// The two-rank communicator carrying this rank's sends to `peer` (sender 0, receiver 1),
  /// or nullptr when `peer` is no pipeline neighbour.
  NcclComm to(std::int64_t peer) const;
  /// The two-rank communicator carrying `peer`'s sends to this rank, or nullptr.
  NcclComm from(std::int64_t peer) const;
  int device() const { return device_; }

 private:
  std::array<NcclComm, kCommGroupCount> groups_{};
  std::map<std::int64_t, NcclComm> to_;
  std::map<std::int64_t, NcclComm> from_;
  int device_ = 0;
};

}  // namespace trainsim::cuda
