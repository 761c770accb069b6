#include "cli/fit_runs_command.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <memory>

#include "calibrate/fit_runs.hpp"
#include "calibrate/profile_writer.hpp"
#include "cli/progress_bar.hpp"
#include "documents/atomic_file.hpp"
#include "inputs/hwprofile_loader.hpp"
#include "inputs/run_measurements.hpp"

namespace trainsim::cli {
namespace {

struct FitRunsOptions {
  std::filesystem::path runs;
  std::string base;
  std::filesystem::path out;
  double holdout = 0.2;
  calibrate::RunSetup setup;
};

void print_errors(std::string_view label, const calibrate::RunErrors& e) {
  fmt::print("  {:<28} {:>5} {:>+9.2f}% {:>+9.2f}% {:>+9.2f}% {:>9.2f}% {:>9.2f}%\n", label, e.rows,
             e.median_signed * 100.0, e.p90_signed * 100.0, e.bias * 100.0,
             e.absolute.median * 100.0, e.absolute.p90 * 100.0);
}

std::string value_text(const calibrate::RunParameter& p, double v) {
  return p.unit.empty() ? fmt::format("{:.4f}", v) : fmt::format("{:.3f} {}", v, p.unit);
}

void run_fit_runs(const FitRunsOptions& options) {
  documents::check_destination(options.out);
  const inputs::RunMeasurements runs = inputs::read_run_measurements(options.runs);
  const std::filesystem::path base_file = inputs::resolve_hardware_profile(
      options.base, std::filesystem::current_path(), SourceLocation{"--base", 0, 0}, "--base");
  const hw::HardwareProfile base = inputs::load_hardware_profile(base_file);
  const calibrate::RunFit fit = [&] {
    calibrate::RunSetup setup = options.setup;
    ProgressBar bar;
    setup.progress = bar.callback();
    calibrate::RunFit out = calibrate::fit_runs(runs, base, options.holdout, setup);
    bar.clear();
    return out;
  }();

  calibrate::FitSummary s;
  s.what = "whole-run";
  s.fitted_rows = fit.fitted_rows;
  s.held_out = fit.fitted_held_out.absolute;
  s.ranges = fmt::format(
      "GPT, 1F1B, full recomputation, no DP overlap, bf16, vocabulary 50257 assumed; base "
      "profile's held-out median {:.2f} %, p90 {:.2f} %",
      fit.base_held_out.absolute.median * 100.0, fit.base_held_out.absolute.p90 * 100.0);
  for (const calibrate::FittedParameter& f : fit.parameters) {
    s.values +=
        fmt::format("{}{} {} (bounds {}-{}{})", s.values.empty() ? "" : ", ", f.parameter.name,
                    value_text(f.parameter, f.fitted), value_text(f.parameter, f.parameter.low),
                    value_text(f.parameter, f.parameter.high), f.at_bound ? ", at a bound" : "");
    s.fields.insert(s.fields.end(), f.parameter.fields.begin(), f.parameter.fields.end());
  }
  s.holdout_rule = fmt::format("held out: row i where floor((i+1) x {}) > floor(i x {})",
                               options.holdout, options.holdout);
  calibrate::ProfileFit profile_fit;
  profile_fit.profile = fit.profile;
  profile_fit.fits = {s};
  profile_fit.rows = runs.rows.size();
  const hw::HardwareProfile written =
      calibrate::write_fitted_profile(options.out, base_file, profile_fit, {runs.file, {}});

  fmt::print("{}: {} rows ({} fitted, {} held out, {} skipped) against {} → {} ({})\n",
             options.runs.string(), runs.rows.size(), fit.fitted_rows, fit.fitted_held_out.rows,
             fit.skipped_rows, base.name, options.out.string(), written.name);
  fmt::print("  {:<44} {:>14} {:>14} {:>24}\n", "figure", "base", "fitted", "bounds");
  for (const calibrate::FittedParameter& f : fit.parameters) {
    fmt::print("  {:<44} {:>14} {:>14} {:>24}{}\n", f.parameter.name,
               value_text(f.parameter, f.base), value_text(f.parameter, f.fitted),
               value_text(f.parameter, f.parameter.low) + " – " +
                   value_text(f.parameter, f.parameter.high),
               f.at_bound ? "  AT A BOUND" : "");
  }
  for (const calibrate::Confounded& c : fit.confounded) {
    if (c.a == c.b) {
      fmt::print(
          "  not determined: over its whole range, {} moves the rows by < 0.5 % rms; its "
          "fitted value means nothing: fix it from physics\n",
          fit.parameters[c.a].parameter.name);
    } else {
      fmt::print(
          "  confounded: {} and {} (correlation {:+.3f}): the rows cannot separate them; "
          "fix one from physics\n",
          fit.parameters[c.a].parameter.name, fit.parameters[c.b].parameter.name, c.correlation);
    }
  }
  fmt::print("  {} objective evaluations (mean |error| of the fitting rows) in {:.1f} s\n",
             fit.evaluations, fit.seconds);
  fmt::print("  {:<28} {:>5} {:>10} {:>10} {:>10} {:>10} {:>10}\n", "error (predicted/measured-1)",
             "rows", "median", "p90", "bias", "|median|", "|p90|");
  print_errors("base, fitting rows", fit.base_fit);
  print_errors("base, held-out rows", fit.base_held_out);
  print_errors("fitted, fitting rows", fit.fitted_fit);
  print_errors("fitted, held-out rows", fit.fitted_held_out);
  for (const std::string& why : fit.skipped)
    fmt::print("  skipped {}\n", why);
}

}  // namespace

void add_fit_runs_command(CLI::App& app) {
  auto options = std::make_shared<FitRunsOptions>();
  CLI::App* cmd = app.add_subcommand(
      "fit-runs",
      "Fit the host's dispatch costs, streaming-kernel HBM efficiency, per-kernel overhead and "
      "the intra-node collective curve's scale, each within physical bounds, from measured "
      "iteration times (vTrain's CSV), reporting held-out errors and confounded figures");
  cmd->add_option("runs", options->runs, "Run measurement CSV (vTrain's columns)")->required();
  cmd->add_option("--base", options->base,
                  "Base profile (a name in hwprofiles/ or a path); unfitted fields are kept")
      ->required();
  cmd->add_option("-o,--output", options->out, "Calibrated profile YAML to write")->required();
  cmd->add_option("--holdout", options->holdout,
                  "Fraction of rows held out for checking, spread evenly (default 0.2)")
      ->check(CLI::Range(0.0, 0.99));
  cmd->add_option("--max-evaluations", options->setup.max_evaluations,
                  "Objective evaluations the search may spend, each a replay of every fitting "
                  "row (default 160)")
      ->check(CLI::Range(10, 100000));
  cmd->callback([options] { run_fit_runs(*options); });
}

}  // namespace trainsim::cli
