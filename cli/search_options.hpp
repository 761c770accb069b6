#pragma once
// The layout-search options `trainsim plan` and `trainsim training-time` share (threads,
// largest micro batch, 1D only), declared and turned into sim::SearchOptions in one place so
// the two commands cannot drift apart.

#include <CLI/CLI.hpp>

#include <cstdint>

#include "sim/analysis/layout_search.hpp"

namespace trainsim::cli {

struct SearchCliOptions {
  unsigned threads = 0;
  std::int64_t max_micro_batch = 16;
  bool no_grids = false;
};

/// Declares --threads, --max-micro-batch and --no-grids on `cmd`.
void add_search_options(CLI::App& cmd, SearchCliOptions& o);

/// Sets the fields these options cover in `options`, leaving the rest (top, progress, ...) as
/// the caller has them. Throws CLI::ValidationError for a micro batch below 1.
void apply_search_options(const SearchCliOptions& o, sim::SearchOptions& options);

}  // namespace trainsim::cli
