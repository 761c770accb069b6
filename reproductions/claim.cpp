#include "reproductions/claim.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace trainsim::reproductions {

std::string claim_verdict(const Claim& c) {
  if (c.as_predicted()) return c.holds ? "holds" : "does not hold, as predicted: " + c.why_not;
  const std::string verdict = c.expected ? "predicted to hold, does not"
                                         : "predicted not to hold here (" + c.why_not + "), holds";
  if (c.explained()) {
    return "NOT AS PREDICTED (" + verdict + "), explained after the run: " + c.explanation;
  }
  return "FAIL: " + verdict +
         (c.explanation.empty() ? "" : "; the explanation's check fails: " + c.explanation);
}

std::string format_claims(const std::string& title, const std::vector<Claim>& claims) {
  std::string out = title + "\n";
  int index = 0;
  for (const Claim& c : claims) {
    out += fmt::format("  {}. {}\n     source: {}\n     ours: {}\n     verdict: {}\n", ++index,
                       c.statement, c.source, c.evidence, claim_verdict(c));
  }
  return out;
}

int count_unexpected(const std::vector<Claim>& claims) {
  return static_cast<int>(std::count_if(claims.begin(), claims.end(), [](const Claim& c) {
    return !c.as_predicted() && !c.explained();
  }));
}

}  // namespace trainsim::reproductions
