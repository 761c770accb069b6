#pragma once
// A reproduction of a published result: the paper's figures beside ours, each with its
// tolerance. `trainsim validate` runs them; the test suite runs them too.

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "reports/comparison.hpp"

namespace trainsim::reports {

struct ReproductionReport {
  std::vector<Comparison> comparisons;
  /// Predictions with no published figure to compare with, and how we got them.
  std::string notes;
};

struct Reproduction {
  std::string name;   ///< as given to `trainsim validate NAME`
  std::string title;  ///< the paper, with its arXiv number
  /// Runs the reproduction with the project root (scenarios/ and hwprofiles/ below it).
  std::function<ReproductionReport(const std::filesystem::path& project_root)> run;
};

/// Every reproduction, in a fixed order.
const std::vector<Reproduction>& reproductions();

}  // namespace trainsim::reports
