#include "calibrate/collective_benchmarks.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <ostream>
#include <utility>

#include "calibrate/nccl_communicators.hpp"
#include "models/cuda/kernels.hpp"
#include "sim/collective_model.hpp"

namespace trainsim::calibrate::gpu {
namespace {

constexpr int kSamples = 32;

std::vector<int> group_sizes(int devices) {
  std::vector<int> out;
  for (int g = 2; g <= devices; g *= 2)
    out.push_back(g);
  if (devices >= 2 && out.back() != devices) out.push_back(devices);
  return out;
}

std::vector<std::int64_t> message_sizes(bool quick) {
  std::vector<std::int64_t> out;
  const std::int64_t last = quick ? std::int64_t{512} << 10 : std::int64_t{1} << 30;
  for (std::int64_t b = 8; b <= last; b *= quick ? 16 : 2)
    out.push_back(b);
  return out;
}

/// Elements each rank sends and receives for nccl-tests' size of `count` elements.
struct Counts {
  std::int64_t send = 0;
  std::int64_t recv = 0;
};

Counts counts(Benchmark kind, std::int64_t count, int n) {
  switch (kind) {
    case Benchmark::all_gather:
      return {count / n, count};
    case Benchmark::reduce_scatter:
      return {count, count / n};
    default:
      return {count, count};
  }
}

bool divides_by_group(Benchmark kind) {
  return kind == Benchmark::all_gather || kind == Benchmark::reduce_scatter ||
         kind == Benchmark::all_to_all;
}

// One sampled output element of a driven rank and what it must hold.
struct Sample {
  int rank = 0;  // in the group
  std::int64_t index = 0;
  double want = 0.0;
  double magnitude = 0.0;
};

// The input elements (rank, index) that output element `i` of `rank` is made of.
std::vector<std::pair<int, std::int64_t>> sources(Benchmark kind, std::int64_t count, int ranks,
                                                  int rank, std::int64_t i) {
  const std::int64_t c = count / ranks;  // a chunk (gather, scatter, all-to-all)
  std::vector<std::pair<int, std::int64_t>> out;
  switch (kind) {
    case Benchmark::all_reduce:
    case Benchmark::reduce:
      for (int q = 0; q < ranks; ++q)
        out.emplace_back(q, i);
      break;
    case Benchmark::all_gather:
      out.emplace_back(static_cast<int>(i / c), i % c);
      break;
    case Benchmark::reduce_scatter:
      for (int q = 0; q < ranks; ++q)
        out.emplace_back(q, rank * c + i);
      break;
    case Benchmark::broadcast:
    case Benchmark::send_recv:
      out.emplace_back(0, i);
      break;
    case Benchmark::all_to_all:
      out.emplace_back(static_cast<int>(i / c), rank * c + i % c);
      break;
    default:
      break;
  }
  return out;
}

float element(const DeviceBuffer& buffer, std::int64_t i) {
  float v = 0.0f;
  use_device(buffer.device());
  check(cudaMemcpy(&v, buffer.as<float>() + i, 4, cudaMemcpyDeviceToHost), "cudaMemcpy");
  return v;
}

// The collective of one row over the ranks this process drives (all of the group's, or under
// MPI its own). Rank q's input is N(0, 1) with seed q + 1 (counter-based: element i depends on
// the seed and i alone), so a process can regenerate another process's input to check its
// own outputs.
struct CollectiveState {
  Benchmark kind = Benchmark::all_reduce;
  GroupMembers* members = nullptr;
  int ranks = 0;
  std::int64_t count = 0;                // nccl-tests' size in elements
  std::vector<DeviceBuffer> send, recv;  // per driven rank, in driven() order

  void issue() const {
    const Counts c = counts(kind, count, ranks);
    GroupCall group;
    const std::vector<int>& driven = members->driven();
    for (std::size_t k = 0; k < driven.size(); ++k) {
      const int r = driven[k];
      const ncclComm_t comm = members->nccl(r);
      const cudaStream_t st = members->stream(r).get();
      const void* in = send[k].data();
      void* out = recv[k].data();
      const auto sc = static_cast<std::size_t>(c.send);
      const auto rc = static_cast<std::size_t>(c.recv);
      switch (kind) {
        case Benchmark::all_reduce:
          check(ncclAllReduce(in, out, sc, ncclFloat32, ncclSum, comm, st), "ncclAllReduce");
          break;
        case Benchmark::all_gather:
          check(ncclAllGather(in, out, sc, ncclFloat32, comm, st), "ncclAllGather");
          break;
        case Benchmark::reduce_scatter:
          check(ncclReduceScatter(in, out, rc, ncclFloat32, ncclSum, comm, st),
                "ncclReduceScatter");
          break;
        case Benchmark::broadcast:
          check(ncclBroadcast(in, out, sc, ncclFloat32, 0, comm, st), "ncclBroadcast");
          break;
        case Benchmark::reduce:
          check(ncclReduce(in, out, sc, ncclFloat32, ncclSum, 0, comm, st), "ncclReduce");
          break;
        case Benchmark::all_to_all:
          check(ncclAlltoAll(in, out, sc / static_cast<std::size_t>(ranks), ncclFloat32, comm, st),
                "ncclAlltoAll");
          break;
        case Benchmark::send_recv:
          if (r == 0) check(ncclSend(in, sc, ncclFloat32, 1, comm, st), "ncclSend");
          if (r == 1) check(ncclRecv(out, rc, ncclFloat32, 0, comm, st), "ncclRecv");
          break;
        default:
          break;
      }
    }
  }

  /// Reduce leaves the non-roots' outputs undefined, send/recv the sender's.
  bool output_defined(int rank) const {
    if (kind == Benchmark::reduce) return rank == 0;
    if (kind == Benchmark::send_recv) return rank == 1;
    return true;
  }

  /// Whether the sampled outputs of the driven ranks hold what the collective defines, within
  /// the rounding of an fp32 sum in NCCL's order. Inputs are visited rank by rank (a rank not
  /// driven here regenerated once on this process's first GPU).
  bool verify_driven() const {
    const std::vector<int>& driven = members->driven();
    for (const int r : driven)
      members->stream(r).synchronize();
    const Counts c = counts(kind, count, ranks);
    std::vector<Sample> samples;
    for (const int r : driven) {
      if (!output_defined(r)) continue;
      std::uint64_t state = static_cast<std::uint64_t>(r) + 7;
      for (int s = 0; s < kSamples; ++s) {
        state = state * 6364136223846793005ULL + 1442695040888963407ULL;
        const std::int64_t i =
            s == 0 ? c.recv - 1 : static_cast<std::int64_t>(state >> 33) % c.recv;
        samples.push_back({r, i});
      }
    }
    for (int q = 0; q < ranks; ++q) {
      const auto at = std::find(driven.begin(), driven.end(), q);
      std::optional<DeviceBuffer> regenerated;
      if (at == driven.end()) {
        const int here = driven.front();
        regenerated.emplace(members->device(here), static_cast<std::size_t>(c.send * 4));
        cuda::kernels::fill_normal({regenerated->data(), DType::fp32}, c.send, 0.0, 1.0,
                                   static_cast<std::uint64_t>(q + 1), members->stream(here).get());
        members->stream(here).synchronize();
      }
      const DeviceBuffer& input =
          regenerated ? *regenerated : send[static_cast<std::size_t>(at - driven.begin())];
      for (Sample& s : samples) {
        for (const auto& [from, j] : sources(kind, count, ranks, s.rank, s.index)) {
          if (from != q) continue;
          const double v = element(input, j);
          s.want += v;
          s.magnitude += std::abs(v);
        }
      }
    }
    for (const Sample& s : samples) {
      const auto k = static_cast<std::size_t>(std::find(driven.begin(), driven.end(), s.rank) -
                                              driven.begin());
      const double got = element(recv[k], s.index);
      if (!(std::abs(got - s.want) <= 1e-6 * ranks * s.magnitude + 1e-30)) return false;
    }
    return true;
  }

  /// Every process's verdict (a failed CUDA call here is a failed check: the other processes
  /// wait for this one's verdict).
  bool verify() const {
    bool ok = false;
    try {
      ok = verify_driven();
    } catch (const cuda::CudaError&) {
      if (members->driven().size() == static_cast<std::size_t>(ranks)) throw;  // one process
      cudaGetLastError();
    }
    return members->all(ok);
  }
};

// Whether ranks 0..g-1 sit on more than one node.
bool spans_nodes(const std::vector<int>& rank_nodes, int g) {
  if (rank_nodes.empty()) return false;
  const auto end = rank_nodes.begin() + std::min<std::ptrdiff_t>(g, std::ssize(rank_nodes));
  return std::any_of(rank_nodes.begin(), end, [&](int n) { return n != rank_nodes.front(); });
}

std::vector<RawMeasurement> collective_grid(Benchmark kind, const BenchContext& ctx) {
  std::vector<RawMeasurement> rows;
  const int ranks = ctx.collective_ranks();
  const std::vector<int> groups =
      kind == Benchmark::send_recv ? std::vector<int>{2} : group_sizes(ranks);
  if (ranks < 2) {
    *ctx.log << fmt::format("{}: skipped (needs 2 GPUs or more; {} here)\n", to_string(kind),
                            ranks);
    return rows;
  }
  for (const int g : groups) {
    for (const std::int64_t b : message_sizes(ctx.quick)) {
      std::int64_t count = std::max<std::int64_t>(b / 4, 1);
      if (divides_by_group(kind)) count = std::max<std::int64_t>(count / g * g, g);
      RawMeasurement r;
      r.benchmark = kind;
      r.bytes = Bytes::of(count * 4);
      r.group_size = g;
      r.tier = spans_nodes(ctx.rank_nodes, g) ? Tier::inter_node : Tier::intra_node;
      if (!rows.empty() && rows.back().bytes == r.bytes && rows.back().group_size == g) continue;
      rows.push_back(r);
    }
  }
  return rows;
}

std::unique_ptr<Prepared> collective_setup(const RawMeasurement& row, BenchContext& ctx) {
  auto s = std::make_shared<CollectiveState>();
  s->kind = row.benchmark;
  s->ranks = static_cast<int>(row.group_size);
  s->count = row.bytes.count() / 4;
  s->members = &ctx.group(s->ranks);
  const std::vector<int>& driven = s->members->driven();
  if (driven.empty()) return nullptr;  // under MPI: a process outside ranks 0..g-1 waits
  const Counts c = counts(s->kind, s->count, s->ranks);
  std::string failure;
  try {
    for (const int r : driven) {
      const int device = s->members->device(r);
      s->send.emplace_back(device, static_cast<std::size_t>(c.send * 4));
      s->recv.emplace_back(device, static_cast<std::size_t>(c.recv * 4));
      use_device(device);
      cuda::kernels::fill_normal({s->send.back().data(), DType::fp32}, c.send, 0.0, 1.0,
                                 static_cast<std::uint64_t>(r + 1), s->members->stream(r).get());
    }
  } catch (const cuda::CudaError& e) {
    failure = e.what();
    cudaGetLastError();
  }
  // Every process skips the row, or none: a rank left out would hang the others' collective.
  if (!s->members->all(failure.empty())) {
    *ctx.log << fmt::format("{} {} B over {}: skipped ({})\n", to_string(row.benchmark),
                            row.bytes.count(), s->ranks,
                            failure.empty() ? "another process could not allocate" : failure);
    return nullptr;
  }
  auto p = std::make_unique<Prepared>();
  for (const int r : driven)
    p->streams.push_back({s->members->device(r), s->members->stream(r).get()});
  p->run = [s] { s->issue(); };
  p->verify = [s] { return s->verify(); };
  p->longest = [s](double seconds) { return s->members->longest(seconds); };
  p->before_release = [s] { s->members->barrier(); };
  p->algorithm = fmt::format("nccl {}", nccl_version());
  p->bus_factor = bus_factor(row.benchmark, s->ranks);
  return p;
}

BenchmarkDescriptor collective(Benchmark kind) {
  BenchmarkDescriptor d;
  d.name = std::string(to_string(kind));
  d.suite = "nccl";
  d.grid = [kind](const BenchContext& ctx) { return collective_grid(kind, ctx); };
  d.setup = collective_setup;
  return d;
}

}  // namespace

double bus_factor(Benchmark kind, int ranks) {
  const std::optional<program::CollectiveKind> collective = collective_kind(kind);
  return collective ? sim::bus_factor(*collective, ranks) : 1.0;  // send/recv: 1
}

std::vector<BenchmarkDescriptor> collective_benchmarks() {
  std::vector<BenchmarkDescriptor> out;
  for (const Benchmark kind :
       {Benchmark::all_reduce, Benchmark::all_gather, Benchmark::reduce_scatter,
        Benchmark::broadcast, Benchmark::reduce, Benchmark::all_to_all, Benchmark::send_recv})
    out.push_back(collective(kind));
  return out;
}

}  // namespace trainsim::calibrate::gpu
