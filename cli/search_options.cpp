#include "cli/search_options.hpp"

#include <fmt/format.h>

namespace trainsim::cli {

void add_search_options(CLI::App& cmd, SearchCliOptions& o) {
  cmd.add_option("--threads", o.threads, "Worker threads (0: one per core)")->capture_default_str();
  cmd.add_option("--max-micro-batch", o.max_micro_batch, "Largest micro batch searched")
      ->capture_default_str();
  cmd.add_flag("--no-grids", o.no_grids, "Search 1D tensor parallelism only");
}

void apply_search_options(const SearchCliOptions& o, sim::SearchOptions& options) {
  if (o.max_micro_batch < 1) {
    throw CLI::ValidationError("--max-micro-batch",
                               fmt::format("at least 1; got {}", o.max_micro_batch));
  }
  options.threads = o.threads;
  options.space.max_micro_batch = o.max_micro_batch;
  options.space.tensor_grids = !o.no_grids;
}

}  // namespace trainsim::cli
