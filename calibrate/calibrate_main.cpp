// trainsim-calibrate: the calibrator's GPU microbenchmarks (calibrate/README.md). One driver
// over a table of benchmark descriptors (benchmark.hpp); rows go to the raw measurement CSV
// that `trainsim fit` reads, with the environment record as its `# key: value` lines.
// Exits 77 (ctest: skipped) when no GPU is usable, saying why.

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <ctime>
#include <filesystem>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "calibrate/collective_benchmarks.hpp"
#include "calibrate/gemm_benchmark.hpp"
#include "calibrate/gemm_shapes.hpp"
#include "calibrate/gpu_environment.hpp"
#include "calibrate/interference_benchmark.hpp"
#include "calibrate/launch_benchmark.hpp"
#include "calibrate/memory_benchmarks.hpp"
#include "calibrate/nccl_communicators.hpp"
#include "calibrate/raw_writer.hpp"
#include "calibrate/timing.hpp"
#include "documents/atomic_file.hpp"

#ifdef TRAINSIM_WITH_MPI
#include "calibrate/mpi_group.hpp"
#include "mpi/mpi_world.hpp"
#endif

namespace {

using namespace trainsim::calibrate;
using namespace trainsim::calibrate::gpu;

constexpr int kExitNoGpu = 77;
const std::vector<std::string> kSuites{"gemm", "memory", "launch", "nccl", "interference", "all"};

struct Options {
  std::string suite = "all";
  std::filesystem::path out;
  std::filesystem::path shapes;
  bool quick = false;
  int list_devices = 0;  ///< --list: print the grid for this many GPUs, measure nothing
  int list_nodes = 1;    ///< --list with --nodes: that many nodes of list_devices GPUs
  bool mpi = false;      ///< one process per GPU under mpirun (suite nccl)
};

#ifdef TRAINSIM_WITH_MPI
constexpr bool kWithMpi = true;
#else
constexpr bool kWithMpi = false;
#endif

/// The node of each rank: `nodes` nodes of `gpus` GPUs, ranks filling them in order.
std::vector<int> consecutive_nodes(int nodes, int gpus) {
  std::vector<int> out;
  for (int n = 0; n < nodes; ++n)
    out.insert(out.end(), static_cast<std::size_t>(gpus), n);
  return out;
}

std::vector<BenchmarkDescriptor> descriptors(const std::string& suite) {
  std::vector<BenchmarkDescriptor> all{gemm_benchmark(), memcpy_benchmark(),
                                       elementwise_benchmark(), launch_benchmark()};
  for (BenchmarkDescriptor& d : collective_benchmarks())
    all.push_back(std::move(d));
  all.push_back(interference_benchmark());
  std::vector<BenchmarkDescriptor> chosen;
  for (BenchmarkDescriptor& d : all)
    if (suite == "all" || d.suite == suite) chosen.push_back(std::move(d));
  return chosen;
}

std::string utc_now() {
  const std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&t, &tm);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return text;
}

/// nccl-tests' algbw and busbw of a collective row, for the log and the algorithm cell.
std::string bandwidths(const RawMeasurement& row, double factor) {
  const double algbw = static_cast<double>(row.bytes.count()) / row.time.seconds() / 1e9;
  return fmt::format("algbw {:.2f} GB/s; busbw {:.2f} GB/s", algbw, algbw * factor);
}

std::string describe(const RawMeasurement& r) {
  if (r.benchmark == Benchmark::gemm || r.benchmark == Benchmark::gemm_during_collective)
    return fmt::format("{} {}x{}x{}x{}", to_string(r.dtype), r.m, r.n, r.k, r.batch);
  if (r.group_size > 0) {
    return fmt::format("{} B over {}{}", r.bytes.count(), r.group_size,
                       r.tier == Tier::inter_node ? " inter_node" : "");
  }
  if (r.bytes.count() > 0) return fmt::format("{} B", r.bytes.count());
  return "";
}

/// The rows every chosen benchmark would measure on a node of `devices` GPUs (no GPU needed).
int list_grid(const Options& options) {
  BenchContext ctx;
  ctx.quick = options.quick;
  ctx.device_count = options.list_devices;
  if (options.list_nodes > 1)
    ctx.rank_nodes = consecutive_nodes(options.list_nodes, ctx.device_count);
  ctx.log = &std::cout;
  if (!options.shapes.empty()) ctx.shapes = read_gemm_shapes(options.shapes);
  std::size_t total = 0;
  for (const BenchmarkDescriptor& d : descriptors(options.suite)) {
    const std::vector<RawMeasurement> grid = d.grid(ctx);
    std::cout << fmt::format("{}: {} rows\n", d.name, grid.size());
    for (const RawMeasurement& row : grid)
      std::cout << fmt::format("  {} {}\n", describe(row), row.algorithm);
    total += grid.size();
  }
  std::cout << fmt::format("{} rows\n", total);
  return 0;
}

/// Where this process's collectives run: over this node's GPUs, or (under mpirun) its own GPU
/// among the world's processes. Holds MPI's init for the run when used.
struct Launch {
  int rank = 0;  ///< world rank (0 without MPI): rank 0 logs and writes the CSV
  int device = 0;
  std::vector<int> rank_nodes;
  std::string description = kWithMpi ? "built, not used: collectives over this node's GPUs"
                                     : "not built: collectives over this node's GPUs only";
  std::function<GroupMembers&(int size)> group;  ///< set under MPI
#ifdef TRAINSIM_WITH_MPI
  std::optional<trainsim::mpi::MpiWorld> world;
  std::map<int, std::unique_ptr<MpiGroup>> groups;
#endif
};

void start_mpi(Launch& launch, int devices) {
#ifdef TRAINSIM_WITH_MPI
  const trainsim::mpi::Placement& at = launch.world.emplace(nullptr, nullptr).placement();
  launch.rank = at.world_rank;
  launch.device = at.local_rank;
  launch.rank_nodes = at.rank_nodes;
  launch.description =
      fmt::format("{} processes on {} nodes, one GPU each; collectives over world ranks 0..g-1",
                  at.world_size, at.nodes);
  if (at.local_rank >= devices) {
    std::cerr << fmt::format(
        "trainsim-calibrate: rank {}: error: {} processes on its node and {} "
        "GPUs: start one process per GPU\n",
        at.world_rank, at.local_size, devices);
    launch.world->abort(1);
  }
  launch.group = [&launch](int size) -> GroupMembers& {
    auto& g = launch.groups[size];
    if (!g) g = std::make_unique<MpiGroup>(launch.world->comm(), size, launch.device);
    return *g;
  };
#else
  (void)launch;
  (void)devices;
#endif
}

int run(const Options& options) {
  if (options.list_devices > 0) return list_grid(options);
  if (options.out.empty()) throw std::invalid_argument("--out: required unless --list");
  if (options.mpi && !kWithMpi) {
    throw std::invalid_argument(
        "--mpi: this trainsim-calibrate was built without MPI (CMake found none, or "
        "CMAKE_DISABLE_FIND_PACKAGE_MPI was set); install libopenmpi-dev and rebuild");
  }
  if (options.mpi && options.suite != "nccl") {
    throw std::invalid_argument(fmt::format(
        "--mpi runs the collectives across processes: it needs --suite nccl, not '{}' (the "
        "other suites measure one GPU or one node: run them without mpirun)",
        options.suite));
  }
  std::string why_not;
  const auto env = query_environment(why_not);
  if (!env) {
    std::cout << "skipped: " << why_not << "\n";
    return kExitNoGpu;
  }
  Launch launch;
  if (options.mpi) start_mpi(launch, static_cast<int>(env->devices.size()));
  const bool writer = launch.rank == 0;
  if (writer) trainsim::documents::check_destination(options.out);
  std::ostream silent(nullptr);  // the other processes' logs: rank 0 speaks for the job

  BenchContext ctx;
  ctx.quick = options.quick;
  ctx.device_count = static_cast<int>(env->devices.size());
  ctx.l2_bytes = env->devices.front().l2_bytes;
  ctx.log = writer ? &std::cerr : &silent;
  ctx.rank_nodes = launch.rank_nodes;
  if (!options.shapes.empty()) ctx.shapes = read_gemm_shapes(options.shapes);
  std::map<int, std::unique_ptr<LocalCommunicators>> communicators;
  ctx.communicators = [&communicators](int size) -> LocalCommunicators& {
    auto& c = communicators[size];
    if (!c) {
      std::vector<int> devices;
      for (int d = 0; d < size; ++d)
        devices.push_back(d);
      c = std::make_unique<LocalCommunicators>(devices);
    }
    return *c;
  };
  ctx.group = launch.group ? launch.group
                           : std::function<GroupMembers&(int)>([&ctx](int size) -> GroupMembers& {
                               return ctx.communicators(size);
                             });

  std::map<std::string, std::string> environment = to_key_values(*env);
  environment["date"] = utc_now();
  environment["nccl"] = nccl_version();
  environment["suite"] = options.suite + (options.quick ? " (quick)" : "");
  environment["mpi"] = launch.description;

  const TimingPolicy policy = options.quick ? TimingPolicy::quick() : TimingPolicy{};
  const MappedFlag gate(launch.device);
  std::vector<RawMeasurement> rows;
  auto write = [&] {
    if (!writer) return;
    trainsim::documents::write_atomically(
        options.out, [&](std::ostream& out) { write_raw_measurements(out, environment, rows); });
  };
  for (const BenchmarkDescriptor& d : descriptors(options.suite)) {
    const std::vector<RawMeasurement> grid = d.grid(ctx);
    *ctx.log << fmt::format("{}: {} rows\n", d.name, grid.size());
    for (RawMeasurement row : grid) {
      const std::unique_ptr<Prepared> p = d.setup(row, ctx);
      if (!p) continue;
      const Timing t = time_prepared(*p, policy, gate);
      row.time = t.median;
      row.repetitions = t.repetitions;
      row.verified = t.verified;
      row.algorithm = p->algorithm;
      if (p->bus_factor > 0.0) row.algorithm += "; " + bandwidths(row, p->bus_factor);
      *ctx.log << fmt::format("  {:<22} {:<28} {:>12.3f} us  {:>5} reps  {}  {}\n", d.name,
                              describe(row), row.time.seconds() * 1e6, row.repetitions,
                              row.verified ? "ok" : "WRONG", row.algorithm);
      if (!t.note.empty()) *ctx.log << "    check not run: " << t.note << "\n";
      rows.push_back(row);
      // After every row: a failure or a time limit later keeps what was measured (a device
      // session stops the calibrator at its budget; the file is small, the write atomic).
      write();
    }
  }
  write();
  if (writer) std::cout << fmt::format("{} rows → {}\n", rows.size(), options.out.string());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "trainsim-calibrate: GPU microbenchmarks for `trainsim fit` (GEMM, memory, launch, NCCL "
      "collectives, GEMM during a collective); raw CSV schema in calibrate/README.md"};
  Options options;
  app.add_option("--suite", options.suite, "Which benchmarks")
      ->check(CLI::IsMember(kSuites))
      ->capture_default_str();
  app.add_option("--out", options.out, "Raw measurement CSV to write (atomically)");
  app.add_option("--list", options.list_devices,
                 "Print the grid for a node of this many GPUs and exit (no GPU needed)")
      ->check(CLI::PositiveNumber);
  app.add_option("--nodes", options.list_nodes,
                 "With --list: that many nodes of --list GPUs each (tiers of the groups)")
      ->check(CLI::PositiveNumber);
  app.add_flag("--mpi", options.mpi,
               std::string("Suite nccl across processes: started by mpirun with one process "
                           "per GPU (across nodes), groups of world ranks 0..g-1; rank 0 writes "
                           "--out") +
                   (kWithMpi ? "" : " (MPI is not built in this trainsim-calibrate)"));
  app.add_flag("--quick", options.quick, "A small grid and few repetitions (a smoke run)");
  app.add_option("--shapes", options.shapes,
                 "GEMM shapes to measure as well (`trainsim gemm-shapes SCENARIO... -o FILE`)")
      ->check(CLI::ExistingFile);
  app.footer(
      std::string("\nCollectives run over this node's GPUs (one process, NCCL communicators "
                  "of GPUs 0..g-1 for every power-of-two g and the whole node), or with --mpi "
                  "under `mpirun -np N` over N processes, one GPU each, across nodes (groups of "
                  "world ranks 0..g-1, tier inter_node when they span nodes). ") +
      (kWithMpi ? "" : "MPI is not built in this trainsim-calibrate. ") +
      "Exit code 77: no usable GPU.");
  CLI11_PARSE(app, argc, argv);
  try {
    return run(options);
  } catch (const std::exception& e) {
    std::cerr << "trainsim-calibrate: error: " << e.what() << "\n";
    return 1;
  }
}
