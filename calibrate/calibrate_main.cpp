// trainsim-calibrate: the calibrator's GPU microbenchmarks (calibrate/README.md). One driver
// over a table of benchmark descriptors (benchmark.hpp); rows go to the raw measurement CSV
// that `trainsim fit` reads, with the environment record as its `# key: value` lines.
// Exits 77 (ctest: skipped) when no GPU is usable, saying why.

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <ctime>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
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
#include "reports/atomic_file.hpp"

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
};

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
  if (r.group_size > 0) return fmt::format("{} B over {}", r.bytes.count(), r.group_size);
  if (r.bytes.count() > 0) return fmt::format("{} B", r.bytes.count());
  return "";
}

/// The rows every chosen benchmark would measure on a node of `devices` GPUs (no GPU needed).
int list_grid(const Options& options) {
  BenchContext ctx;
  ctx.quick = options.quick;
  ctx.device_count = options.list_devices;
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

int run(const Options& options) {
  if (options.list_devices > 0) return list_grid(options);
  if (options.out.empty()) throw std::invalid_argument("--out: required unless --list");
  std::string why_not;
  const auto env = query_environment(why_not);
  if (!env) {
    std::cout << "skipped: " << why_not << "\n";
    return kExitNoGpu;
  }
  trainsim::reports::check_destination(options.out);

  BenchContext ctx;
  ctx.quick = options.quick;
  ctx.device_count = static_cast<int>(env->devices.size());
  ctx.l2_bytes = env->devices.front().l2_bytes;
  ctx.log = &std::cerr;
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

  std::map<std::string, std::string> environment = to_key_values(*env);
  environment["date"] = utc_now();
  environment["nccl"] = nccl_version();
  environment["suite"] = options.suite + (options.quick ? " (quick)" : "");
  environment["mpi"] = "not built: collectives over this node's GPUs only";

  const TimingPolicy policy = options.quick ? TimingPolicy::quick() : TimingPolicy{};
  const MappedFlag gate;
  std::vector<RawMeasurement> rows;
  auto write = [&] {
    trainsim::reports::write_atomically(
        options.out, [&](std::ostream& out) { write_raw_measurements(out, environment, rows); });
  };
  for (const BenchmarkDescriptor& d : descriptors(options.suite)) {
    const std::vector<RawMeasurement> grid = d.grid(ctx);
    std::cerr << fmt::format("{}: {} rows\n", d.name, grid.size());
    for (RawMeasurement row : grid) {
      const std::unique_ptr<Prepared> p = d.setup(row, ctx);
      if (!p) continue;
      const Timing t = time_prepared(*p, policy, gate);
      row.time = t.median;
      row.repetitions = t.repetitions;
      row.verified = t.verified;
      row.algorithm = p->algorithm;
      if (p->bus_factor > 0.0) row.algorithm += "; " + bandwidths(row, p->bus_factor);
      std::cerr << fmt::format("  {:<22} {:<28} {:>12.3f} us  {:>5} reps  {}  {}\n", d.name,
                               describe(row), row.time.seconds() * 1e6, row.repetitions,
                               row.verified ? "ok" : "WRONG", row.algorithm);
      if (!t.note.empty()) std::cerr << "    check not run: " << t.note << "\n";
      rows.push_back(row);
    }
    write();  // after every benchmark: a later failure keeps what was measured
  }
  write();
  std::cout << fmt::format("{} rows → {}\n", rows.size(), options.out.string());
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
  app.add_flag("--quick", options.quick, "A small grid and few repetitions (a smoke run)");
  app.add_option("--shapes", options.shapes,
                 "GEMM shapes to measure as well (`trainsim gemm-shapes SCENARIO... -o FILE`)")
      ->check(CLI::ExistingFile);
  app.footer(
      "\nCollectives run over this node's GPUs (one process, NCCL communicators of GPUs "
      "0..g-1 for every power-of-two g and the whole node). Multi-node runs (MPI) are not "
      "built: this calibrator has no MPI launcher yet. Exit code 77: no usable GPU.");
  CLI11_PARSE(app, argc, argv);
  try {
    return run(options);
  } catch (const std::exception& e) {
    std::cerr << "trainsim-calibrate: error: " << e.what() << "\n";
    return 1;
  }
}
