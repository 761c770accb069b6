// The cuda backend's NCCL collectives on two GPUs (two ranks as threads, nccl_communicator.hpp)
// against backend.hpp's semantics computed here on the host: fused all-reduce (sum, max),
// all-gather, reduce-scatter, broadcast, reduce, the ZeRO flat and shard variants with
// padding, and pipeline send / recv. Values are small integers times 0.5, exact in fp32, so
// equality is exact. Exits 77 (skipped) with fewer than 2 GPUs: NCCL runs one rank per GPU.
#include <doctest/doctest.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cstdio>
#include <exception>
#include <string>
#include <thread>
#include <vector>

#include "models/cuda/cuda_backend.hpp"
#include "models/cuda/nccl_communicator.hpp"

namespace trainsim {
namespace {

using cuda::CudaBackend;
using program::MemoryCategory;
using program::Stream;
using Values = std::vector<double>;

constexpr std::int64_t kRanks = 2;

// Rank r's input: (r + 1)·(i + 1)·0.5 + shift, i the element index.
Values input(std::int64_t rank, std::int64_t n, double shift = 0.0) {
  Values v(static_cast<std::size_t>(n));
  for (std::size_t i = 0; i < v.size(); ++i)
    v[i] = static_cast<double>(rank + 1) * static_cast<double>(i + 1) * 0.5 + shift;
  return v;
}
Values sum_over_ranks(std::int64_t n, double shift = 0.0) {
  Values s(static_cast<std::size_t>(n), 0.0);
  for (std::int64_t r = 0; r < kRanks; ++r) {
    const Values v = input(r, n, shift);
    for (std::size_t i = 0; i < s.size(); ++i)
      s[i] += v[i];
  }
  return s;
}

// One rank's checks; mismatches are collected (doctest's assertions stay on the main thread).
class RankChecks {
 public:
  RankChecks(CudaBackend& backend, std::int64_t rank) : b_(backend), rank_(rank) {}

  Tensor make(Shape shape, const Values& v) {
    Tensor t = b_.allocate(shape, DType::fp32, MemoryCategory::temporaries, "x");
    b_.upload(t, v);
    return t;
  }
  void expect(const std::string& what, const Tensor& t, const Values& want) {
    const Values got = b_.download(t);
    if (got != want) {
      failures.push_back(fmt::format("rank {}: {}: got [{}], want [{}]", rank_, what,
                                     fmt::join(got, ", "), fmt::join(want, ", ")));
    }
  }
  std::vector<std::string> failures;

 private:
  CudaBackend& b_;
  std::int64_t rank_;
};

void run_rank(cuda::NcclIdRegistry& ids, std::int64_t rank, std::vector<std::string>& failures) {
  const std::vector<std::int64_t> group{0, 1};
  const std::vector<cuda::RankGroup> groups{{CommGroup::tensor, group}, {CommGroup::data, group}};
  const std::vector<std::int64_t> peers{1 - rank};
  const int device = static_cast<int>(rank);
  cuda::NcclCommunicators comms(ids, rank, groups, peers, device);
  cuda::CudaBackendOptions options;
  options.device = device;
  options.nccl = &comms;
  CudaBackend b(rank, group, group, options);
  RankChecks c(b, rank);
  const auto r = static_cast<std::size_t>(rank);

  {  // a fused message of two tensors
    const Tensor x = c.make({1, 5, 1}, input(rank, 5));
    const Tensor y = c.make({1, 3, 1}, input(rank, 3, 1.0));
    const std::vector<Tensor> both{x, y};
    b.all_reduce(both, CommGroup::tensor, ReduceOp::sum, Stream::tp, "all_reduce");
    c.expect("all_reduce sum (first)", x, sum_over_ranks(5));
    c.expect("all_reduce sum (second)", y, sum_over_ranks(3, 1.0));
    const Tensor m = c.make({1, 4, 1}, input(rank, 4));
    b.all_reduce(std::span<const Tensor>(&m, 1), CommGroup::data, ReduceOp::max, Stream::dp,
                 "all_reduce max");
    c.expect("all_reduce max", m, input(kRanks - 1, 4));
  }
  {
    const Tensor x = c.make({1, 2, 3}, input(rank, 6));
    const Tensor g = b.all_gather(x, CommGroup::tensor, Stream::tp, "all_gather");
    Values want = input(0, 6);
    const Values second = input(1, 6);
    want.insert(want.end(), second.begin(), second.end());
    c.expect("all_gather", g, want);
  }
  {
    const Tensor x = c.make({1, 4, 3}, input(rank, 12));
    const Tensor s = b.reduce_scatter(x, CommGroup::tensor, Stream::tp, "reduce_scatter");
    const Values sum = sum_over_ranks(12);
    c.expect("reduce_scatter", s, Values(sum.begin() + 6 * rank, sum.begin() + 6 * (rank + 1)));
  }
  {
    const Tensor x = c.make({1, 3, 1}, input(rank, 3));
    c.expect("broadcast", b.broadcast(x, CommGroup::data, 1, Stream::dp, "broadcast"), input(1, 3));
    Tensor y = c.make({1, 3, 1}, input(rank, 3));
    b.reduce(y, CommGroup::data, 0, Stream::dp, "reduce");
    if (rank == 0) c.expect("reduce (root)", y, sum_over_ranks(3));
  }
  // Flat variants over tensors of 3 and 4 elements: 7 padded to 8, chunks of 4.
  {
    const std::vector<Tensor> ts{c.make({1, 3, 1}, input(rank, 3)),
                                 c.make({1, 4, 1}, input(rank, 4, 2.0))};
    b.reduce_scatter_flat(ts, CommGroup::data, Stream::dp, "reduce_scatter_flat");
    Values local = input(rank, 3);
    const Values tail = input(rank, 4, 2.0);
    local.insert(local.end(), tail.begin(), tail.end());
    Values sum = sum_over_ranks(3);
    const Values sum_tail = sum_over_ranks(4, 2.0);
    sum.insert(sum.end(), sum_tail.begin(), sum_tail.end());
    Values want = local;  // this chunk summed, the rest local
    for (std::size_t i = 4 * r; i < std::min<std::size_t>(4 * r + 4, 7); ++i)
      want[i] = sum[i];
    c.expect("reduce_scatter_flat (first)", ts[0], Values(want.begin(), want.begin() + 3));
    c.expect("reduce_scatter_flat (second)", ts[1], Values(want.begin() + 3, want.end()));
  }
  {
    const std::vector<Tensor> ts{c.make({1, 3, 1}, input(rank, 3)),
                                 c.make({1, 4, 1}, input(rank, 4, 2.0))};
    b.all_gather_flat(ts, CommGroup::data, Stream::dp, "all_gather_flat");
    Values want;  // element i from the owner of chunk i / 4
    for (std::size_t i = 0; i < 7; ++i) {
      const auto owner = static_cast<std::int64_t>(i / 4);
      want.push_back(i < 3 ? input(owner, 3)[i] : input(owner, 4, 2.0)[i - 3]);
    }
    c.expect("all_gather_flat (first)", ts[0], Values(want.begin(), want.begin() + 3));
    c.expect("all_gather_flat (second)", ts[1], Values(want.begin() + 3, want.end()));
  }
  {
    const std::vector<Tensor> ts{c.make({1, 3, 1}, input(rank, 3)),
                                 c.make({1, 4, 1}, input(rank, 4, 2.0))};
    Tensor shard = c.make({1, 4, 1}, Values(4, 1.0));
    b.reduce_scatter_accumulate(ts, shard, CommGroup::data, Stream::dp, "rs_accumulate");
    Values sum = sum_over_ranks(3);
    const Values sum_tail = sum_over_ranks(4, 2.0);
    sum.insert(sum.end(), sum_tail.begin(), sum_tail.end());
    sum.push_back(0.0);  // padding
    Values want(4);
    for (std::size_t k = 0; k < 4; ++k)
      want[k] = 1.0 + sum[4 * r + k];
    c.expect("reduce_scatter_accumulate", shard, want);
  }
  {
    const Tensor shard = c.make({1, 4, 1}, input(rank, 4, 10.0));
    const std::vector<Tensor> ts{c.make({1, 3, 1}, Values(3, 0.0)),
                                 c.make({1, 4, 1}, Values(4, 0.0))};
    b.all_gather_shards(shard, ts, CommGroup::data, Stream::dp, "all_gather_shards");
    Values want;
    for (std::size_t i = 0; i < 7; ++i)
      want.push_back(input(static_cast<std::int64_t>(i / 4), 4, 10.0)[i % 4]);
    c.expect("all_gather_shards (first)", ts[0], Values(want.begin(), want.begin() + 3));
    c.expect("all_gather_shards (second)", ts[1], Values(want.begin() + 3, want.end()));
  }
  {  // rank 0 sends row chunk 1 of 2, then rank 1 answers with a whole tensor
    if (rank == 0) {
      b.send(c.make({1, 4, 2}, input(0, 8)), 1, 2, 1, Stream::pp_send, "send");
      const Tensor got = b.recv({1, 3, 1}, DType::fp32, 1, Stream::pp_recv, "recv");
      c.expect("recv from 1", got, input(1, 3));
    } else {
      const Tensor got = b.recv({1, 2, 2}, DType::fp32, 0, Stream::pp_recv, "recv");
      const Values all = input(0, 8);
      c.expect("recv chunk 1 of 2 from 0", got, Values(all.begin() + 4, all.end()));
      b.send(c.make({1, 3, 1}, input(1, 3)), 0, 1, 0, Stream::pp_send, "send");
    }
  }
  b.synchronize();
  if (!b.skipped().empty()) c.failures.push_back(fmt::format("rank {}: a call was skipped", rank));
  failures = std::move(c.failures);
}

TEST_CASE("NCCL collectives of the cuda backend on two GPUs match backend.hpp") {
  cuda::NcclIdRegistry ids;
  std::vector<std::vector<std::string>> failures(kRanks);
  std::vector<std::exception_ptr> errors(kRanks);
  {
    std::vector<std::jthread> threads;
    for (std::int64_t rank = 0; rank < kRanks; ++rank) {
      threads.emplace_back([&, rank] {
        try {
          run_rank(ids, rank, failures[static_cast<std::size_t>(rank)]);
        } catch (...) {
          errors[static_cast<std::size_t>(rank)] = std::current_exception();
        }
      });
    }
  }
  for (const std::exception_ptr& e : errors) {
    if (e) std::rethrow_exception(e);
  }
  for (const auto& per_rank : failures) {
    for (const std::string& f : per_rank)
      FAIL_CHECK(f);
  }
}

}  // namespace
}  // namespace trainsim
