#include "cli/collectives_command.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

#include "documents/atomic_file.hpp"
#include "inputs/hwprofile_loader.hpp"
#include "inputs/quantity.hpp"
#include "models/errors.hpp"
#include "sim/collective_model.hpp"
#include "sim/topology.hpp"

namespace trainsim::cli {
namespace {

struct CollectivesOptions {
  std::string profile;
  std::int32_t gpus = 8;
  std::string op = "all_reduce";
  std::string min_size = "32 KiB";
  std::string max_size = "16 GiB";
  std::int64_t factor = 2;
  std::string algorithms = "auto";
  std::filesystem::path csv;
};

program::CollectiveKind parse_kind(const std::string& op) {
  std::vector<std::string> names;
  for (int k = 0; k <= static_cast<int>(program::CollectiveKind::sendrecv); ++k) {
    const auto kind = static_cast<program::CollectiveKind>(k);
    if (program::to_string(kind) == op) return kind;
    names.emplace_back(program::to_string(kind));
  }
  throw Infeasible(
      fmt::format("--op: unknown collective \"{}\"; valid: {}", op, fmt::join(names, ", ")));
}

Bytes parse_size(const std::string& text, const char* option) {
  try {
    const Bytes b = inputs::parse_bytes(text);
    if (b.count() <= 0) throw inputs::QuantityError("must be positive");
    return b;
  } catch (const inputs::QuantityError& e) {
    throw Infeasible(
        fmt::format("{}: \"{}\": {} (e.g. \"32 KiB\", \"16 GiB\")", option, text, e.what()));
  }
}

struct SweepRow {
  Bytes size;
  sim::CollectiveEstimate estimate;
  double algbw = 0.0;  ///< bytes/s
  double busbw = 0.0;
};

void run_collectives(const CollectivesOptions& options) {
  if (!options.csv.empty()) documents::check_destination(options.csv);
  const program::CollectiveKind kind = parse_kind(options.op);
  const Bytes low = parse_size(options.min_size, "--min");
  const Bytes high = parse_size(options.max_size, "--max");
  if (high < low) {
    throw Infeasible(fmt::format("--max {} is below --min {}", options.max_size, options.min_size));
  }
  const std::filesystem::path file = inputs::resolve_hardware_profile(
      options.profile, std::filesystem::current_path(), SourceLocation{"PROFILE", 0, 0}, "PROFILE");
  hw::HardwareProfile hw = inputs::load_hardware_profile(file);
  if (options.algorithms == "ring") {
    hw.collectives.algorithms = {true, false};
  } else if (options.algorithms != "auto") {
    throw Infeasible(fmt::format("--algorithm: \"{}\"; valid: auto, ring", options.algorithms));
  }
  sim::Topology topology(hw, options.gpus);
  std::vector<std::int32_t> gpus(static_cast<std::size_t>(options.gpus));
  std::iota(gpus.begin(), gpus.end(), 0);

  std::vector<SweepRow> rows;
  for (Bytes s = low; s <= high; s = s * options.factor) {
    SweepRow row{s, sim::estimate_collective_parts(kind, s, gpus, topology, hw)};
    const double seconds = row.estimate.total().seconds();
    row.algbw = s.as_double() / seconds;
    row.busbw = row.algbw * sim::bus_factor(kind, options.gpus);
    rows.push_back(row);
    if (s.count() > high.count() / options.factor) break;
  }

  fmt::print("{} over {} GPUs ({} nodes of {}) on {}: one collective alone on an idle cluster\n",
             program::to_string(kind), options.gpus, sim::nodes_spanned(gpus, topology),
             hw.node.gpus, hw.name);
  fmt::print("{:>14} {:>12} {:>12} {:>12} {:>10}\n", "size (B)", "time (us)", "algbw (GB/s)",
             "busbw (GB/s)", "algorithm");
  for (const SweepRow& r : rows) {
    fmt::print("{:>14} {:>12.2f} {:>12.2f} {:>12.2f} {:>10}\n", r.size.count(),
               r.estimate.total().seconds() * 1e6, r.algbw / 1e9, r.busbw / 1e9,
               hw::to_string(r.estimate.algorithm));
  }
  if (options.csv.empty()) return;
  documents::write_atomically(options.csv, [&](std::ostream& out) {
    out << "size_bytes,time_us,algbw_gb_s,busbw_gb_s,algorithm,latency_us\n";
    for (const SweepRow& r : rows) {
      out << fmt::format("{},{:.3f},{:.3f},{:.3f},{},{:.3f}\n", r.size.count(),
                         r.estimate.total().seconds() * 1e6, r.algbw / 1e9, r.busbw / 1e9,
                         hw::to_string(r.estimate.algorithm), r.estimate.latency.seconds() * 1e6);
    }
  });
}

}  // namespace

void add_collectives_command(CLI::App& app) {
  auto options = std::make_shared<CollectivesOptions>();
  CLI::App* cmd = app.add_subcommand(
      "collectives",
      "What a hardware profile predicts for one collective over N GPUs, size by size, in "
      "nccl-tests' columns (time, algbw, busbw) with the algorithm NCCL's choice gives");
  cmd->add_option("profile", options->profile, "Hardware profile (name or YAML file)")->required();
  cmd->add_option("-g,--gpus", options->gpus, "GPUs in the group (the first N: whole nodes)")
      ->check(CLI::Range(2, 1 << 20));
  cmd->add_option("--op", options->op, "The collective")
      ->check(CLI::IsMember({"all_reduce", "all_gather", "reduce_scatter", "broadcast", "reduce",
                             "all_to_all", "sendrecv"}))
      ->capture_default_str();
  cmd->add_option("-b,--min", options->min_size, "Smallest size (nccl-tests -b)")
      ->capture_default_str();
  cmd->add_option("-e,--max", options->max_size, "Largest size (nccl-tests -e)")
      ->capture_default_str();
  cmd->add_option("-f,--factor", options->factor, "Size multiplier per row (nccl-tests -f)")
      ->check(CLI::Range(2, 1024))
      ->capture_default_str();
  cmd->add_option("--algorithm", options->algorithms, "auto (NCCL's choice), ring (NCCL_ALGO=Ring)")
      ->check(CLI::IsMember({"auto", "ring"}))
      ->capture_default_str();
  cmd->add_option("--csv", options->csv, "Also write the rows as CSV");
  cmd->callback([options] { run_collectives(*options); });
}

}  // namespace trainsim::cli
