#include "cli/exec_command.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>

#include "documents/atomic_file.hpp"
#include "inputs/scenario_loader.hpp"
#include "models/build_program.hpp"
#include "models/equivalence_check.hpp"
#include "models/errors.hpp"
#include "models/rank_layout.hpp"
#include "reports/measured_run_json.hpp"
#include "reports/program_table.hpp"

#ifdef TRAINSIM_WITH_CUDA
#include "models/cuda/cuda_backend.hpp"
#include "models/cuda/cuda_check.hpp"
#include "models/cuda/timed_run.hpp"
#endif
#if defined(TRAINSIM_WITH_CUDA) && defined(TRAINSIM_WITH_MPI)
#include "models/cuda/mpi_nccl_ids.hpp"
#include "mpi/mpi_world.hpp"
#endif

namespace trainsim::cli {
namespace {

#if defined(TRAINSIM_WITH_CUDA) && defined(TRAINSIM_WITH_MPI)
constexpr bool kWithMpi = true;
#else
constexpr bool kWithMpi = false;
#endif

// fp64 on one CPU core per rank: beyond this the check takes minutes and gigabytes.
constexpr std::int64_t kCpuParameterLimit = 50'000'000;

struct ExecOptions {
  std::filesystem::path scenario;
  std::string backend = "cpu";
  bool check = false;
  bool mpi = false;
  std::uint64_t seed = 1;
  bool time = false;
  std::filesystem::path json;
  std::int64_t warmup = 2;
  std::int64_t repetitions = 5;
};

void run_meta(const Scenario& scenario) {
  const program::Program program = build_program(scenario, ProgramScope::every_rank);
  std::cout << reports::format_program_stats(program);
}

void check_cpu_size(const Scenario& scenario) {
  if (scenario.model.parameters() > kCpuParameterLimit) {
    throw Infeasible(fmt::format(
        "the cpu backend runs fp64 on this machine and is meant for small models; '{}' has {} "
        "parameters (limit {}): use --backend meta, or a scenario such as "
        "scenarios/tests/tiny-tp2-dp2.yaml",
        scenario.name, scenario.model.parameters(), kCpuParameterLimit));
  }
}

void run_cpu(const Scenario& scenario, const ExecOptions& options) {
  check_cpu_size(scenario);
  const EquivalenceReport report = check_against_single_device(scenario.model, scenario.parallel,
                                                               scenario.training, options.seed);
  fmt::print("cpu backend (fp64): {} ranks as threads (TP {} {} × DP {}), seed {}\n", report.ranks,
             scenario.parallel.tensor.size, to_string(scenario.parallel.tensor.kind),
             scenario.parallel.data.size, options.seed);
  fmt::print("  loss, partitioned   {:.15g}\n", report.loss_partitioned);
  fmt::print("  loss, one device    {:.15g}\n", report.loss_single);
  if (report.grad_norm_single) {
    fmt::print("  gradient norm       {:.15g} (one device; ranks within {:.1e}), {}\n",
               *report.grad_norm_single, report.grad_norm_error,
               report.clipped ? fmt::format("clipped to {}", scenario.training.clip_grad)
                              : fmt::format("below clip_grad {}", scenario.training.clip_grad));
  }
  if (!options.check) return;

  if (scenario.training.inference()) {
    fmt::print(
        "\n  inference: forward passes only, the loss is compared with one device's "
        "training loss\n");
  } else {
    fmt::print("\n  {:<28}{:>16}{:>16}\n", "parameter (relative error)", "gradient", "after Adam");
    for (const ParameterError& p : report.parameters) {
      fmt::print("  {:<28}{:>16.3e}{:>16.3e}\n", p.name, p.gradient, p.value);
    }
  }
  fmt::print("\n  largest relative error {:.3e} (loss {:.3e}); tolerance {:.0e}: {}\n",
             report.max_error, report.loss_error, report.tolerance,
             report.passed ? "PASSED" : "FAILED");
  if (report.uncompared > 0) {
    throw std::runtime_error(fmt::format(
        "{} gradient or parameter entries were held by no rank after the step (ZeRO shards "
        "must cover every entry)",
        report.uncompared));
  }
  if (!report.passed) {
    throw std::runtime_error(fmt::format(
        "the partitioned run differs from the single device by {:.3e} (tolerance {:.0e})",
        report.max_error, report.tolerance));
  }
}

// Sums of a measured run's op times by class and by layer, and the skipped collectives.
void print_measured(const MeasuredRun& run) {
  std::map<std::string, double> by_class;
  std::map<std::int32_t, double> by_layer;
  for (const MeasuredOp& op : run.ops) {
    by_class[std::string(to_string(op.op_class))] += op.seconds;
    by_layer[op.tag.layer] += op.seconds;
  }
  fmt::print("cuda backend on {}: rank {} of {}, {} warm-up + {} timed iterations (medians)\n",
             run.device, run.rank, run.scenario, run.warmup, run.repetitions);
  fmt::print("  iteration {:>12.4f} ms (all streams)\n", run.iteration_seconds * 1e3);
  for (const auto& [name, seconds] : by_class)
    fmt::print("  {:<10}{:>12.4f} ms\n", name, seconds * 1e3);
  for (const auto& [layer, seconds] : by_layer) {
    fmt::print("  {:<22}{:>12.4f} ms\n",
               layer == program::Tag::kNoLayer ? std::string("outside layers")
                                               : fmt::format("layer {}", layer),
               seconds * 1e3);
  }
  std::int64_t skipped = 0;
  for (const SkippedCollective& c : run.skipped)
    skipped += c.count;
  if (skipped > 0) {
    fmt::print(
        "  skipped {} collectives and transfers per iteration: their group's other GPUs are "
        "absent (one process drives one GPU), so the times above exclude communication\n",
        skipped);
    for (const SkippedCollective& c : run.skipped)
      fmt::print("    {:<32} group {:<14} x{}\n", c.name, c.group, c.count);
  }
}

#ifdef TRAINSIM_WITH_CUDA
// Every rank on its own GPU against the same ranks on the cpu backend.
void run_cuda_ranks(const Scenario& scenario, const ExecOptions& options) {
  check_cpu_size(scenario);  // the cpu side of the comparison runs fp64
  const BackendComparison c = cuda::check_cuda_against_cpu(scenario, options.seed);
  const double tolerance = cuda::cuda_tolerance(scenario.model.dtype);
  fmt::print("cuda backend ({}): {} ranks as threads, one GPU each, NCCL; seed {}\n",
             to_string(scenario.model.dtype), c.ranks, options.seed);
  fmt::print("  loss, cuda          {:.9g}\n", c.loss_other);
  fmt::print("  loss, cpu (fp64)    {:.9g}\n", c.loss_cpu);
  fmt::print("\n  {:<28}{:>16}{:>16}\n", "parameter (relative error)", "gradient", "after Adam");
  for (const ParameterError& p : c.parameters)
    fmt::print("  {:<28}{:>16.3e}{:>16.3e}\n", p.name, p.gradient, p.value);
  fmt::print("\n  largest relative error {:.3e} (loss {:.3e}); tolerance {:.0e}: {}\n", c.max_error,
             c.loss_error, tolerance, c.max_error < tolerance ? "PASSED" : "FAILED");
  if (options.check && !(c.max_error < tolerance)) {
    throw std::runtime_error(
        fmt::format("the cuda ranks differ from the cpu ranks by {:.3e} (tolerance {:.0e})",
                    c.max_error, tolerance));
  }
}
#endif

#if defined(TRAINSIM_WITH_CUDA) && defined(TRAINSIM_WITH_MPI)
// One process per GPU under mpirun: this process's rank against the same rank on cpu. Each
// process prints its own verdict; rank 0 then prints whether every rank passed (an
// all-reduce), and with --check every process fails when any rank did.
void run_cuda_mpi(const Scenario& scenario, const ExecOptions& options) {
  check_cpu_size(scenario);  // before MPI starts: the same verdict on every process
  const mpi::MpiWorld world(nullptr, nullptr);
  const mpi::Placement& at = world.placement();
  cuda::MpiNcclIds ids(world.comm());
  BackendComparison c;
  try {
    c = cuda::check_cuda_rank_against_cpu(scenario, options.seed,
                                          {at.world_rank, at.world_size, at.local_rank}, ids);
  } catch (const std::exception& e) {
    // The other processes may be waiting for this one in a collective: end the job.
    fmt::print(stderr, "trainsim: rank {}: error: {}\n", at.world_rank, e.what());
    std::fflush(stderr);
    world.abort(2);
  }
  const double tolerance = cuda::cuda_tolerance(scenario.model.dtype);
  const ParameterError* worst = nullptr;
  for (const ParameterError& p : c.parameters) {
    if (worst == nullptr || std::max(p.gradient, p.value) > std::max(worst->gradient, worst->value))
      worst = &p;
  }
  const bool passed = c.max_error < tolerance;
  fmt::print(
      "rank {} of {} (node {}, GPU {}): loss cuda {:.9g}, cpu {:.9g}; largest relative "
      "error {:.3e} (loss {:.3e}{}{}); tolerance {:.0e}: {}\n",
      at.world_rank, at.world_size, at.node, at.local_rank, c.loss_other, c.loss_cpu, c.max_error,
      c.loss_error, worst == nullptr ? "" : ", worst parameter ",
      worst == nullptr ? "" : worst->name, tolerance, passed ? "PASSED" : "FAILED");
  std::fflush(stdout);
  const bool every = world.all(passed);
  if (at.world_rank == 0) {
    fmt::print(
        "cuda backend ({}): {} processes on {} nodes, one rank and one GPU each (MPI), "
        "NCCL; seed {}: {}\n",
        to_string(scenario.model.dtype), at.world_size, at.nodes, options.seed,
        every ? "every rank PASSED" : "some rank FAILED");
  }
  if (options.check && !every) {
    throw std::runtime_error(
        fmt::format("rank {}: some cuda rank differs from its cpu rank by {:.0e} or more",
                    at.world_rank, tolerance));
  }
}
#endif

void run_cuda(const Scenario& scenario, const ExecOptions& options) {
#ifndef TRAINSIM_WITH_CUDA
  (void)scenario;
  (void)options;
  (void)print_measured;
  throw Infeasible(
      "this trainsim was built without CUDA: no CUDA compiler was found when it was configured "
      "(nvcc on PATH or /usr/local/cuda/bin/nvcc, with TRAINSIM_ENABLE_CUDA=ON); rebuild where "
      "the CUDA toolkit is installed, or use --backend meta or cpu");
#else
  std::string why;
  const int gpus = cuda::gpu_count(why);
  if (gpus == 0) {
    throw Infeasible(
        fmt::format("--backend cuda needs a CUDA GPU and this machine has none "
                    "usable ({}); use --backend meta or cpu here",
                    why));
  }
  if (options.mpi) {
#ifdef TRAINSIM_WITH_MPI
    run_cuda_mpi(scenario, options);
    return;
#endif
  }
  const std::int64_t ranks = RankLayout(scenario.parallel).world_size();
  if (!options.time && (gpus >= ranks || options.check)) {
    run_cuda_ranks(scenario, options);  // throws Infeasible naming both counts when too few
    return;
  }
  cuda::TimedRunOptions timed{options.time ? options.warmup : 0,
                              options.time ? options.repetitions : 1, options.seed};
  const MeasuredRun run = cuda::run_timed(scenario, timed);
  print_measured(run);
  if (!options.json.empty()) {
    documents::write_atomically(options.json, reports::measured_run_to_json(run));
    fmt::print("  wrote {}\n", options.json.string());
  }
#endif
}

void run_exec(const ExecOptions& options) {
  if (!options.json.empty() && !(options.backend == "cuda" && options.time)) {
    throw std::invalid_argument("--json writes measured times: it needs --backend cuda --time");
  }
  if (!options.json.empty()) documents::check_destination(options.json);
  if (options.mpi && !(options.backend == "cuda" && !options.time)) {
    throw std::invalid_argument(
        "--mpi runs one cuda rank per process: it needs --backend cuda "
        "and no --time");
  }
  if (options.mpi && !kWithMpi) {
    throw Infeasible(
        "--mpi: this trainsim was built without the cuda backend's MPI launcher, which needs "
        "both a CUDA compiler and MPI at configure time (CMake found no MPI, or "
        "CMAKE_DISABLE_FIND_PACKAGE_MPI was set); install libopenmpi-dev and rebuild, or run "
        "the ranks as threads of one process (no --mpi)");
  }
  const Scenario scenario = inputs::load_scenario(options.scenario);
  if (options.backend == "meta") {
    run_meta(scenario);
  } else if (options.backend == "cuda") {
    run_cuda(scenario, options);
  } else {
    run_cpu(scenario, options);
  }
}

}  // namespace

void add_exec_command(CLI::App& app) {
  auto options = std::make_shared<ExecOptions>();
  CLI::App* cmd = app.add_subcommand("exec", "Run the reference executor on a scenario");
  cmd->add_option("scenario", options->scenario, "Scenario YAML file")->required();
  cmd->add_option("--backend", options->backend,
                  "meta: record the Program of every GPU and count it; cpu: run it in fp64 "
                  "(Eigen, ranks as threads) beside a single device; cuda: with a GPU per rank "
                  "and no --time, every rank as a thread on its own GPU (NCCL) beside the same "
                  "ranks on cpu; otherwise rank 0's iteration on this GPU (collectives whose "
                  "other GPUs are absent are skipped and listed)")
      ->check(CLI::IsMember({"meta", "cpu", "cuda"}));
  cmd->add_flag("--check", options->check,
                "cpu: compare the loss, every gradient and the updated parameters of every rank "
                "with the single-device fp64 run, print the errors, fail above 1e-9; cuda: "
                "fail when the cuda ranks differ from the cpu ranks by 1e-3 (fp32) or 2^-5 "
                "(bf16) or more, and when there are fewer GPUs than ranks");
  cmd->add_flag("--mpi", options->mpi,
                std::string("cuda: one process per GPU, started by mpirun -np RANKS (across "
                            "nodes): each runs its MPI rank on its node-local GPU against the "
                            "same cpu rank, prints its verdict, rank 0 whether all passed") +
                    (kWithMpi ? "" : " (not built in this trainsim: it needs CUDA and MPI)"));
  cmd->add_option("--seed", options->seed, "Seed for the initial weights and the tokens");
  cmd->add_flag("--time", options->time,
                "cuda: warm-up iterations, then time every op and the iteration with cudaEvents "
                "over the repetitions (medians)");
  cmd->add_option("--warmup", options->warmup, "cuda --time: untimed iterations first")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--repetitions", options->repetitions, "cuda --time: timed iterations")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--json", options->json,
                  "cuda --time: write the measured per-op times (MEASURED.json for validate-run)");
  cmd->callback([options] { run_exec(*options); });
}

}  // namespace trainsim::cli
