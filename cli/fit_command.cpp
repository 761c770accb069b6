#include "cli/fit_command.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "calibrate/fit_profile.hpp"
#include "calibrate/nccl_tests_log.hpp"
#include "calibrate/profile_writer.hpp"
#include "calibrate/raw_measurements.hpp"
#include "documents/atomic_file.hpp"
#include "inputs/hwprofile_loader.hpp"
#include "models/errors.hpp"

namespace trainsim::cli {
namespace {

struct FitOptions {
  std::filesystem::path raw;
  std::vector<std::filesystem::path> nccl_tests;
  std::string base;
  std::filesystem::path out;
  std::filesystem::path residuals;
  bool include_unverified = false;
};

// The raw CSV's rows and every nccl-tests log's, one source for the fit and the provenance:
// the files' names, and each environment key prefixed by its file when several files give it.
calibrate::RawMeasurements measurements(const FitOptions& options) {
  std::vector<calibrate::RawMeasurements> parts;
  if (!options.raw.empty()) parts.push_back(calibrate::read_raw_measurements(options.raw));
  for (const std::filesystem::path& log : options.nccl_tests)
    parts.push_back(calibrate::read_nccl_tests_log(log));
  if (parts.empty()) {
    throw ConfigError({"fit"},
                      "nothing to fit: give a raw measurement CSV and/or --nccl-tests LOG...");
  }
  if (parts.size() == 1) return parts.front();
  calibrate::RawMeasurements all;
  std::string names;
  for (const calibrate::RawMeasurements& part : parts) {
    names += (names.empty() ? "" : " + ") + part.file.filename().string();
    for (const auto& [key, value] : part.environment)
      all.environment[part.file.filename().string() + " " + key] = value;
    all.rows.insert(all.rows.end(), part.rows.begin(), part.rows.end());
  }
  all.file = names;
  return all;
}

// fit, the row's line and shape, measured and predicted seconds, signed error, held out.
std::string residuals_csv(const calibrate::ProfileFit& fit) {
  std::string out =
      "fit,line,benchmark,dtype,m,n,k,batch,algorithm,measured_s,predicted_s,error,held_out\n";
  for (const calibrate::FitSummary& s : fit.fits) {
    for (const calibrate::Residual& r : s.residuals) {
      const calibrate::RawMeasurement& row = *r.row;
      out += fmt::format("{},{},{},{},{},{},{},{},{},{:.9e},{:.9e},{:.6f},{}\n", s.what, row.line,
                         calibrate::to_string(row.benchmark), to_string(row.dtype), row.m, row.n,
                         row.k, row.batch, row.algorithm, row.time.seconds(), r.predicted_s,
                         r.predicted_s / row.time.seconds() - 1.0, r.held_out ? "yes" : "no");
    }
  }
  return out;
}

void run_fit(const FitOptions& options) {
  documents::check_destination(options.out);
  if (!options.residuals.empty()) documents::check_destination(options.residuals);
  const calibrate::RawMeasurements raw = measurements(options);
  const std::filesystem::path base_file = inputs::resolve_hardware_profile(
      options.base, std::filesystem::current_path(), SourceLocation{"--base", 0, 0}, "--base");
  const hw::HardwareProfile base = inputs::load_hardware_profile(base_file);
  const calibrate::ProfileFit fit = calibrate::fit_profile(raw, base, {options.include_unverified});
  const hw::HardwareProfile written =
      calibrate::write_fitted_profile(options.out, base_file, fit, {raw.file, raw.environment});

  fmt::print("{}: {} rows fitted against {} → {} ({})\n", raw.file.string(), fit.rows, base.name,
             options.out.string(), written.name);
  fmt::print("  {:<24} {:>6} {:>9} {:>10} {:>10}  {}\n", "fit", "rows", "held out", "median", "p90",
             "fitted");
  for (const calibrate::FitSummary& s : fit.fits) {
    fmt::print("  {:<24} {:>6} {:>9} {:>9.2f}% {:>9.2f}%  {}\n", s.what, s.fitted_rows,
               s.held_out.rows, s.held_out.median * 100.0, s.held_out.p90 * 100.0, s.values);
    fmt::print("  {:<24} covered: {}\n", "", s.ranges);
    for (const calibrate::FitSummary& part : s.parts) {
      fmt::print("    {:<22} {:>6} {:>9} {:>9.2f}% {:>9.2f}%  {}\n", part.what, part.fitted_rows,
                 part.held_out.rows, part.held_out.median * 100.0, part.held_out.p90 * 100.0,
                 part.values);
    }
  }
  for (const std::string& note : fit.notes)
    fmt::print("  note: {}\n", note);
  if (!options.residuals.empty()) {
    documents::write_atomically(options.residuals, residuals_csv(fit));
    fmt::print(
        "  residuals (every fitted GEMM and attention row, predicted by the fitted profile) → {}\n",
        options.residuals.string());
  }
}

}  // namespace

void add_fit_command(CLI::App& app) {
  auto options = std::make_shared<FitOptions>();
  CLI::App* cmd = app.add_subcommand(
      "fit",
      "Fit a calibrated hardware profile from raw microbenchmark rows (GEMM per dtype, memory, "
      "launch, fused attention, collectives per group size, send/recv, interference); every 5th "
      "row per fit is held "
      "out and its error reported");
  cmd->add_option("raw", options->raw,
                  "Raw measurement CSV (schema: calibrate/README.md); optional with --nccl-tests");
  cmd->add_option("--nccl-tests", options->nccl_tests,
                  "nccl-tests text logs (all_reduce_perf, all_gather_perf, reduce_scatter_perf, "
                  "alltoall_perf, sendrecv_perf, broadcast_perf, reduce_perf): their rows join "
                  "the fit (collectives per group size and tier, send/recv)")
      ->check(CLI::ExistingFile);
  cmd->add_option("--base", options->base,
                  "Base profile (a name in hwprofiles/ or a path); unfitted fields are kept")
      ->required();
  cmd->add_option("-o,--output", options->out, "Calibrated profile YAML to write")->required();
  cmd->add_flag("--include-unverified", options->include_unverified,
                "Fit rows with verified = no too (PyTorch's kernels timed by calibrate/pytorch/, "
                "whose results the scripts do not check); the report says how many");
  cmd->add_option("--residuals", options->residuals,
                  "Write every fitted GEMM and attention row's measured and predicted time, signed "
                  "error and whether "
                  "it was held out (CSV)");
  cmd->callback([options] { run_fit(*options); });
}

}  // namespace trainsim::cli
