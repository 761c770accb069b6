#include "calibrate/collective_benchmarks.hpp"

#include <fmt/format.h>

#include <cmath>
#include <ostream>

#include "calibrate/nccl_communicators.hpp"
#include "models/cuda/kernels.hpp"

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

struct CollectiveState {
  Benchmark kind = Benchmark::all_reduce;
  LocalCommunicators* comms = nullptr;
  int ranks = 0;
  std::int64_t count = 0;  // nccl-tests' size in elements
  std::vector<DeviceBuffer> send, recv;

  void issue() const {
    const Counts c = counts(kind, count, ranks);
    GroupCall group;
    for (int r = 0; r < ranks; ++r) {
      const auto u = static_cast<std::size_t>(r);
      const ncclComm_t comm = comms->comm(r).get();
      const cudaStream_t st = comms->stream(r).get();
      const void* in = send[u].data();
      void* out = recv[u].data();
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

  float input(int rank, std::int64_t i) const {
    float v = 0.0f;
    use_device(send[static_cast<std::size_t>(rank)].device());
    check(cudaMemcpy(&v, send[static_cast<std::size_t>(rank)].as<float>() + i, 4,
                     cudaMemcpyDeviceToHost),
          "cudaMemcpy");
    return v;
  }

  /// Whether output element i of `rank` holds what the collective defines, within the
  /// rounding of an fp32 sum in NCCL's order.
  bool check_element(int rank, std::int64_t i) const {
    const std::int64_t c = count / ranks;  // a chunk (gather, scatter, all-to-all)
    double want = 0.0;
    double magnitude = 0.0;
    auto add = [&](int q, std::int64_t j) {
      const double v = input(q, j);
      want += v;
      magnitude += std::abs(v);
    };
    switch (kind) {
      case Benchmark::all_reduce:
      case Benchmark::reduce:
        for (int q = 0; q < ranks; ++q)
          add(q, i);
        break;
      case Benchmark::all_gather:
        add(static_cast<int>(i / c), i % c);
        break;
      case Benchmark::reduce_scatter:
        for (int q = 0; q < ranks; ++q)
          add(q, rank * c + i);
        break;
      case Benchmark::broadcast:
      case Benchmark::send_recv:
        add(0, i);
        break;
      case Benchmark::all_to_all:
        add(static_cast<int>(i / c), rank * c + i % c);
        break;
      default:
        break;
    }
    float got = 0.0f;
    use_device(recv[static_cast<std::size_t>(rank)].device());
    check(cudaMemcpy(&got, recv[static_cast<std::size_t>(rank)].as<float>() + i, 4,
                     cudaMemcpyDeviceToHost),
          "cudaMemcpy");
    return std::abs(static_cast<double>(got) - want) <= 1e-6 * ranks * magnitude + 1e-30;
  }

  /// Reduce leaves the non-roots' outputs undefined, send/recv the sender's.
  bool output_defined(int rank) const {
    if (kind == Benchmark::reduce) return rank == 0;
    if (kind == Benchmark::send_recv) return rank == 1;
    return true;
  }

  bool verify() const {
    for (int r = 0; r < ranks; ++r)
      comms->stream(r).synchronize();
    const std::int64_t out_count = counts(kind, count, ranks).recv;
    for (int r = 0; r < ranks; ++r) {
      if (!output_defined(r)) continue;
      std::uint64_t state = static_cast<std::uint64_t>(r) + 7;
      for (int s = 0; s < kSamples; ++s) {
        state = state * 6364136223846793005ULL + 1442695040888963407ULL;
        const std::int64_t i =
            s == 0 ? out_count - 1 : static_cast<std::int64_t>(state >> 33) % out_count;
        if (!check_element(r, i)) return false;
      }
    }
    return true;
  }
};

std::vector<RawMeasurement> collective_grid(Benchmark kind, const BenchContext& ctx) {
  std::vector<RawMeasurement> rows;
  const std::vector<int> groups =
      kind == Benchmark::send_recv ? std::vector<int>{2} : group_sizes(ctx.device_count);
  if (ctx.device_count < 2) {
    *ctx.log << fmt::format("{}: skipped (needs 2 GPUs or more; this node has {})\n",
                            to_string(kind), ctx.device_count);
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
      r.tier = Tier::intra_node;
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
  s->comms = &ctx.communicators(s->ranks);
  const Counts c = counts(s->kind, s->count, s->ranks);
  try {
    for (int r = 0; r < s->ranks; ++r) {
      const int device = s->comms->device(r);
      s->send.emplace_back(device, static_cast<std::size_t>(c.send * 4));
      s->recv.emplace_back(device, static_cast<std::size_t>(c.recv * 4));
      use_device(device);
      cuda::kernels::fill_normal({s->send.back().data(), DType::fp32}, c.send, 0.0, 1.0,
                                 static_cast<std::uint64_t>(r + 1), s->comms->stream(r).get());
    }
  } catch (const cuda::CudaError& e) {
    *ctx.log << fmt::format("{} {} B over {}: skipped ({})\n", to_string(row.benchmark),
                            row.bytes.count(), s->ranks, e.what());
    cudaGetLastError();
    return nullptr;
  }
  auto p = std::make_unique<Prepared>();
  for (int r = 0; r < s->ranks; ++r)
    p->streams.push_back({s->comms->device(r), s->comms->stream(r).get()});
  p->run = [s] { s->issue(); };
  p->verify = [s] { return s->verify(); };
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
  const double n = ranks;
  switch (kind) {
    case Benchmark::all_reduce:
      return 2.0 * (n - 1.0) / n;
    case Benchmark::all_gather:
    case Benchmark::reduce_scatter:
    case Benchmark::all_to_all:
      return (n - 1.0) / n;
    default:
      return 1.0;  // broadcast, reduce, send/recv
  }
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
