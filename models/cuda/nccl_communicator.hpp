#pragma once
// The NCCL communicators of one rank: one per CommGroup with more than one member (the groups
// the cpu backend's communicator runs over, as the launcher binds them) and, with pipeline
// parallelism, one per direction to each neighbouring stage. The unique ids that join a
// group's members come from an NcclIdSource the launcher owns and hands to every rank (no
// global state): with ranks as threads of one process, an NcclIdRegistry (made once per key,
// shared in memory); with one process per GPU started by MPI, an MpiNcclIds (mpi_nccl_ids.hpp:
// the group's first member makes the id, an all-gather hands it to the others).
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

/// A fresh id (ncclGetUniqueId).
NcclUniqueId new_nccl_unique_id();

/// A communicator whose id a rank needs: its key (the same on every member) and whether this
/// rank is its first member (the one that makes the id where ids cross processes).
struct NcclIdRequest {
  std::string key;
  bool first = false;
};

/// Where a rank's communicator ids come from.
class NcclIdSource {
 public:
  virtual ~NcclIdSource() = default;
  /// The ids of one rank's communicators, in the order of `requests`; called once per rank
  /// (with MPI: by every process, collectively).
  virtual std::vector<NcclUniqueId> ids_for(std::span<const NcclIdRequest> requests) = 0;
};

/// The unique ids of a run whose ranks are threads of one process: made once per key
/// (ncclGetUniqueId, by the first thread asking) and shared in memory.
class NcclIdRegistry final : public NcclIdSource {
 public:
  std::vector<NcclUniqueId> ids_for(std::span<const NcclIdRequest> requests) override;

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
  NcclCommunicators(NcclIdSource& ids, std::int64_t rank, std::span<const RankGroup> groups,
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
