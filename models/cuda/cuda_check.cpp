#include "models/cuda/cuda_check.hpp"

#include <fmt/format.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "models/cuda/cuda_backend.hpp"
#include "models/cuda/nccl_communicator.hpp"
#include "models/errors.hpp"
#include "models/rank_layout.hpp"

namespace trainsim::cuda {

namespace {

// The pipeline neighbours a rank sends to and receives from (each once).
std::vector<std::int64_t> peers_of(const RankBackendSetup& setup) {
  std::vector<std::int64_t> peers;
  if (setup.previous >= 0) peers.push_back(setup.previous);
  if (setup.next >= 0 && setup.next != setup.previous) peers.push_back(setup.next);
  return peers;
}

std::vector<RankGroup> groups_of(const RankBackendSetup& setup) {
  std::vector<RankGroup> groups{{CommGroup::tensor, setup.tp_group},
                                {CommGroup::data, setup.dp_group}};
  for (const auto& [group, ranks] : setup.groups)
    groups.push_back({group, ranks});
  return groups;
}

// A rank on its own GPU: its communicators first, so that they outlive the backend.
class CudaRankBackend final : public RankBackend {
 public:
  CudaRankBackend(NcclIdSource& ids, RankBackendSetup setup, std::int64_t vocab, std::uint64_t seed,
                  int device)
      : comms_(ids, setup.rank, groups_of(setup), peers_of(setup), device),
        backend_(setup.rank, setup.tp_group, setup.dp_group,
                 CudaBackendOptions{std::move(setup.batches), vocab, seed, device, &comms_}) {
    for (auto& [group, ranks] : setup.groups)
      backend_.bind(group, std::move(ranks));
  }
  Backend& backend() override { return backend_; }
  void load(const Tensor& t, std::span<const double> values) override {
    backend_.upload(t, values);
  }
  std::vector<double> read(const Tensor& t) override { return backend_.download(t); }

 private:
  NcclCommunicators comms_;
  CudaBackend backend_;
};

// Refused up front, not deep inside the rank threads (where a pipeline peer would wait for a
// transfer that never comes).
void refuse_unported(const Scenario& scenario) {
  if (scenario.parallel.tensor.comm_overlap) {
    throw Infeasible(
        "the cuda backend has no userbuffers ring exchange yet; parallel.tensor.comm_overlap is "
        "true (valid: false)");
  }
}

}  // namespace

double cuda_tolerance(DType dtype) {
  return dtype == DType::bf16 || dtype == DType::fp16 ? 0.03125 : 1e-3;
}

BackendComparison check_cuda_against_cpu(const Scenario& scenario, std::uint64_t seed) {
  refuse_unported(scenario);
  const std::int64_t world = RankLayout(scenario.parallel).world_size();
  std::string why;
  const int gpus = gpu_count(why);
  if (gpus < world) {
    throw Infeasible(fmt::format(
        "the cuda check runs every rank on its own GPU: '{}' has {} ranks and this machine {} "
        "GPUs{}{}",
        scenario.name, world, gpus, why.empty() ? "" : ": ", why));
  }
  NcclIdRegistry ids;  // shared by the rank threads for this run only
  const RankBackendFactory make_rank = [&](RankBackendSetup setup) -> std::unique_ptr<RankBackend> {
    const int device = static_cast<int>(setup.rank);
    return std::make_unique<CudaRankBackend>(ids, std::move(setup), scenario.model.vocab, seed,
                                             device);
  };
  return compare_with_cpu(scenario.model, scenario.parallel, scenario.training, seed, make_rank);
}

BackendComparison check_cuda_rank_against_cpu(const Scenario& scenario, std::uint64_t seed,
                                              const ProcessRank& process, NcclIdSource& ids) {
  refuse_unported(scenario);
  const std::int64_t world = RankLayout(scenario.parallel).world_size();
  if (process.world_size != world) {
    throw Infeasible(
        fmt::format("the cuda check runs one process per rank: '{}' has {} ranks and "
                    "{} processes were started (mpirun -np {})",
                    scenario.name, world, process.world_size, world));
  }
  std::string why;
  const int gpus = gpu_count(why);
  if (process.device >= gpus) {
    throw Infeasible(fmt::format("rank {} would run on GPU {} of its node, which has {} GPUs{}{}",
                                 process.rank, process.device, gpus, why.empty() ? "" : ": ", why));
  }
  const RankBackendFactory make_rank = [&](RankBackendSetup setup) -> std::unique_ptr<RankBackend> {
    return std::make_unique<CudaRankBackend>(ids, std::move(setup), scenario.model.vocab, seed,
                                             process.device);
  };
  return compare_with_cpu(scenario.model, scenario.parallel, scenario.training, seed, make_rank,
                          process.rank);
}

}  // namespace trainsim::cuda
