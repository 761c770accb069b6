// compare_with_cpu, the comparison behind `exec --backend cuda`: a partitioned run on ranks a
// factory makes against the same ranks on the cpu backend. Checked here with cpu ranks on
// both sides (bitwise equal: 0 error, pipelines too) and with a rank backend that perturbs one
// initial value (the comparison must see it).
#include <doctest/doctest.h>

#include <exception>
#include <memory>
#include <stdexcept>
#include <thread>
#include <utility>
#include <vector>

#include "equivalence_asserts.hpp"
#include "models/cpu_backend.hpp"
#include "models/cpu_communicator.hpp"
#include "models/equivalence_check.hpp"

namespace trainsim {
namespace {

// A cpu rank whose first load of a tensor named `target` elements adds `delta` to element 0.
class CpuRank final : public RankBackend {
 public:
  CpuRank(CpuCommunicator& comm, RankBackendSetup setup, double delta)
      : cpu_(comm, setup.rank, std::move(setup.tp_group), std::move(setup.dp_group),
             std::move(setup.batches), static_cast<std::uint64_t>(setup.rank)),
        delta_(delta) {
    for (auto& [group, ranks] : setup.groups)
      cpu_.bind(group, std::move(ranks));
  }
  Backend& backend() override { return cpu_; }
  void load(const Tensor& t, std::span<const double> values) override {
    const std::span<double> v = CpuBackend::values(t);
    std::copy(values.begin(), values.end(), v.begin());
    if (!v.empty()) v[0] += delta_;
    delta_ = 0.0;  // the first tensor loaded only
  }
  std::vector<double> read(const Tensor& t) override {
    const std::span<double> v = CpuBackend::values(t);
    return {v.begin(), v.end()};
  }

 private:
  CpuBackend cpu_;
  double delta_;
};

RankBackendFactory cpu_ranks(CpuCommunicator& comm, double delta) {
  return [&comm, delta](RankBackendSetup setup) -> std::unique_ptr<RankBackend> {
    return std::make_unique<CpuRank>(comm, std::move(setup), delta);
  };
}

ModelSpec tiny() {
  return test::model_spec(2, 32, 4, 128, 8, 64);
}

TEST_CASE("compare_with_cpu: cpu ranks against cpu ranks agree exactly (TP 2 x DP 2, ZeRO 1)") {
  ParallelPlan plan;
  plan.tensor.size = 2;
  plan.data.size = 2;
  plan.data.zero = 1;
  CpuCommunicator comm;
  const BackendComparison c =
      compare_with_cpu(tiny(), plan, test::training_spec(8, 2), 3, cpu_ranks(comm, 0.0));
  CHECK(c.ranks == 4);
  CHECK(c.loss_cpu > 0.0);
  CHECK(c.loss_other == c.loss_cpu);
  CHECK(c.parameters.size() == static_cast<std::size_t>(4 + 12 * 2));
  CHECK(c.max_error == 0.0);
}

TEST_CASE("compare_with_cpu: pipeline stages exchange through send / recv (PP 2, 1F1B)") {
  ParallelPlan plan;
  plan.pipeline.size = 2;
  CpuCommunicator comm;
  const BackendComparison c =
      compare_with_cpu(tiny(), plan, test::training_spec(4, 1), 5, cpu_ranks(comm, 0.0));
  CHECK(c.ranks == 2);
  CHECK(c.loss_cpu > 0.0);
  CHECK(c.max_error == 0.0);
}

TEST_CASE("compare_with_cpu: a perturbed initial value on the other side is seen") {
  ParallelPlan plan;
  plan.tensor.size = 2;
  CpuCommunicator comm;
  const BackendComparison c =
      compare_with_cpu(tiny(), plan, test::training_spec(4, 2), 3, cpu_ranks(comm, 0.5));
  CHECK(c.max_error > 1e-3);
}

// One process per rank (MPI), played by threads: each calls compare_with_cpu for its own rank,
// the compared side's ranks meeting through one shared communicator as they would through NCCL.
std::vector<BackendComparison> compare_one_rank_each(const ParallelPlan& plan,
                                                     const std::vector<double>& deltas) {
  CpuCommunicator comm;
  std::vector<BackendComparison> out(deltas.size());
  std::vector<std::exception_ptr> errors(deltas.size());
  {
    std::vector<std::jthread> processes;
    for (std::size_t r = 0; r < deltas.size(); ++r) {
      processes.emplace_back([&, r] {
        try {
          out[r] = compare_with_cpu(tiny(), plan, test::training_spec(4, 2), 3,
                                    cpu_ranks(comm, deltas[r]), static_cast<std::int64_t>(r));
        } catch (...) {
          errors[r] = std::current_exception();
        }
      });
    }
  }
  for (const std::exception_ptr& e : errors)
    if (e) std::rethrow_exception(e);
  return out;
}

TEST_CASE("compare_with_cpu: one rank per caller (a process per GPU) compares that rank alone") {
  ParallelPlan plan;
  plan.tensor.size = 2;
  const std::vector<BackendComparison> same = compare_one_rank_each(plan, {0.0, 0.0});
  for (std::size_t r = 0; r < same.size(); ++r) {
    CHECK(same[r].ranks == 2);
    CHECK(same[r].rank == static_cast<std::int64_t>(r));
    CHECK(same[r].loss_cpu > 0.0);
    CHECK(same[r].loss_other == same[r].loss_cpu);
    CHECK(same[r].max_error == 0.0);
  }
  // Rank 1's initial values perturbed: its own comparison sees it.
  const std::vector<BackendComparison> perturbed = compare_one_rank_each(plan, {0.0, 0.5});
  CHECK(perturbed[1].max_error > 1e-3);
  CpuCommunicator comm;
  CHECK_THROWS_WITH_AS(
      compare_with_cpu(tiny(), plan, test::training_spec(4, 2), 3, cpu_ranks(comm, 0.0), 2),
      "compare_with_cpu: rank 2 is outside the plan's 2 ranks", std::invalid_argument);
}

}  // namespace
}  // namespace trainsim
