#include "reports/claim.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace trainsim::reports {

std::string format_claims(const std::string& title, const std::vector<Claim>& claims) {
  std::string out = title + "\n";
  int index = 0;
  for (const Claim& c : claims) {
    std::string verdict;
    if (!c.as_predicted()) {
      verdict = c.expected ? "predicted to hold, does not"
                           : "predicted not to hold here (" + c.why_not + "), holds";
      if (c.explained()) {
        verdict = "NOT AS PREDICTED (" + verdict + "), explained after the run: " + c.explanation;
      } else {
        verdict =
            "FAIL: " + verdict +
            (c.explanation.empty() ? "" : "; the explanation's check fails: " + c.explanation);
      }
    } else {
      verdict = c.holds ? "holds" : "does not hold, as predicted: " + c.why_not;
    }
    out += fmt::format("  {}. {}\n     source: {}\n     ours: {}\n     verdict: {}\n", ++index,
                       c.statement, c.source, c.evidence, verdict);
  }
  return out;
}

int count_unexpected(const std::vector<Claim>& claims) {
  return static_cast<int>(std::count_if(claims.begin(), claims.end(), [](const Claim& c) {
    return !c.as_predicted() && !c.explained();
  }));
}

}  // namespace trainsim::reports
