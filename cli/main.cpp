// The trainsim executable: one thin subcommand per use case. Library code throws typed
// errors; this is the only place that catches them and turns them into an exit status.

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <cstdio>
#include <exception>
#include <string_view>

#include "cli/claims_command.hpp"
#include "cli/collectives_command.hpp"
#include "cli/compare_command.hpp"
#include "cli/critical_batch_command.hpp"
#include "cli/exec_command.hpp"
#include "cli/fit_command.hpp"
#include "cli/fit_runs_command.hpp"
#include "cli/gemm_shapes_command.hpp"
#include "cli/goodput_command.hpp"
#include "cli/import_command.hpp"
#include "cli/isoefficiency_command.hpp"
#include "cli/job.hpp"
#include "cli/max_batch_command.hpp"
#include "cli/plan_command.hpp"
#include "cli/report_command.hpp"
#include "cli/schema_command.hpp"
#include "cli/simulate_command.hpp"
#include "cli/sweep_command.hpp"
#include "cli/training_time_command.hpp"
#include "cli/validate_command.hpp"
#include "cli/validate_run_command.hpp"
#include "models/errors.hpp"

namespace {
constexpr int kExitRuntimeError = 1;
constexpr int kExitBadInput = 2;
}  // namespace

int main(int argc, char** argv) {
  trainsim::cli::Job job;  // the processes of an mpirun job (started below)
  CLI::App app{"trainsim: predict how transformer training behaves on a GPU cluster"};
  app.set_version_flag("--version", "trainsim 0.1.0");
  app.require_subcommand(1);
  trainsim::cli::add_simulate_command(app);
  trainsim::cli::add_sweep_command(app, job);
  trainsim::cli::add_import_command(app);
  trainsim::cli::add_exec_command(app);
  trainsim::cli::add_validate_command(app, job);
  trainsim::cli::add_claims_command(app);
  trainsim::cli::add_validate_run_command(app);
  trainsim::cli::add_max_batch_command(app);
  trainsim::cli::add_compare_command(app);
  trainsim::cli::add_critical_batch_command(app);
  trainsim::cli::add_goodput_command(app);
  trainsim::cli::add_isoefficiency_command(app, job);
  trainsim::cli::add_plan_command(app, job);
  trainsim::cli::add_training_time_command(app, job);
  trainsim::cli::add_fit_command(app);
  trainsim::cli::add_fit_runs_command(app);
  trainsim::cli::add_gemm_shapes_command(app);
  trainsim::cli::add_collectives_command(app);
  trainsim::cli::add_report_command(app);
  trainsim::cli::add_schema_command(app);
  try {
    // Every command but `exec --backend cuda` (which starts MPI itself, one GPU per process)
    // runs as the job's processes: the sweeping ones share their work, the others run once per
    // process, and process 0 alone prints.
    if (argc > 1 && std::string_view(argv[1]) != "exec") job.group();
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  } catch (const trainsim::ConfigError& e) {
    return job.fail(kExitBadInput, "error", e.what());
  } catch (const trainsim::Infeasible& e) {
    return job.fail(kExitRuntimeError, "infeasible", e.what());
  } catch (const std::exception& e) {
    return job.fail(kExitRuntimeError, "error", e.what());
  }
  return 0;
}
