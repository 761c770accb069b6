#pragma once
// A reproduction of a published result: the paper's figures beside ours, each with its
// tolerance. `trainsim validate` runs them; the test suite runs them too.

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "documents/report_table.hpp"
#include "reproductions/claim.hpp"
#include "reproductions/claims/claim_map.hpp"
#include "reproductions/comparison.hpp"
#include "reproductions/sweep.hpp"

namespace trainsim::reproductions {

struct ReproductionReport {
  std::vector<Comparison> comparisons;
  /// Comparisons counted only in their set's statistics (reproductions/comparison_set.hpp): every
  /// row of a measured data set, too many to print one by one (vtrain2024's 1440 iteration
  /// times). Their per-row aim and tolerance are not used; the reproduction shows them through
  /// `tables` (a digest by configuration class) and `csv_tables` (every row).
  std::vector<Comparison> set_rows;
  /// A paper's qualitative claims, checked where it gives no numbers we can verify; one whose
  /// outcome is not the predicted one counts as a failure.
  std::vector<Claim> claims;
  /// Predictions with no published figure to compare with, and how we got them.
  std::string notes;
  /// Tables of such predictions (printed by `trainsim validate`, blocks and CSV files of the
  /// report).
  std::vector<documents::ReportTable> tables;
  /// Tables too long to print or show (one row per measurement): written by `trainsim report`
  /// as CSV files only, without a README block; not printed by `trainsim validate`.
  std::vector<documents::ReportTable> csv_tables;
  /// How the compared ratios move with the configuration (printed, and plotted on request).
  std::vector<Sweep> sweeps;
  /// Where each headline ratio arises among the setups the paper leaves unknown
  /// (reproductions/claims/): a region table, a grid and a heat map each.
  std::vector<claim_maps::ClaimMap> maps;
};

/// What a run computes beyond the comparisons.
struct ReproductionOptions {
  /// Also run the sweeps and the claim maps (those that decide no row: a row's evidence map
  /// always runs): a minute or more, so `trainsim validate` runs them only on request
  /// (`--sweeps`, `--plots DIR`); `trainsim report` always does.
  bool sweeps = false;
};

struct Reproduction {
  std::string name;   ///< as given to `trainsim validate NAME`
  std::string title;  ///< the paper, with its arXiv number
  /// Runs the reproduction with the project root (scenarios/ and hwprofiles/ below it).
  std::function<ReproductionReport(const std::filesystem::path& project_root,
                                   const ReproductionOptions& options)>
      run;
};

/// A reproduction's report as one run of `trainsim validate` or `trainsim report` produced it.
struct ReproductionRun {
  std::string name;  ///< Reproduction::name
  ReproductionReport report;
};

/// Every reproduction, in a fixed order.
const std::vector<Reproduction>& reproductions();

}  // namespace trainsim::reproductions
