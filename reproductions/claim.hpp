#pragma once
// A qualitative claim of a paper (an abstract's "halves", "is not necessary"), checked against
// our figures. Where a paper gives claims but no numbers we can verify, a reproduction states
// each as a sentence with a test that can fail, and says beforehand, from the physics, whether
// it should hold in our setup. `trainsim validate` prints them; a claim whose outcome differs
// from that prediction is a failure (our understanding, or the simulator, is wrong).

#include <string>
#include <vector>

namespace trainsim::reproductions {

struct Claim {
  std::string statement;  ///< the claim as a checkable sentence, its threshold included
  std::string source;     ///< where the paper makes it
  std::string evidence;   ///< our figures behind the verdict
  bool holds = false;     ///< what our figures say
  /// What we predicted before running: true for a claim expected to hold here; false for one
  /// expected not to hold in this setup, with the reason in `why_not`.
  bool expected = true;
  std::string why_not;
  /// For an outcome that differs from the prediction: the cause found after the run (so
  /// disclosed as such), and a check of it that could fail, e.g. the claim evaluated with that
  /// cause removed. Reported as explained, not counted as a failure, while the check passes.
  std::string explanation;
  bool explanation_holds = false;

  /// The outcome is the predicted one.
  bool as_predicted() const { return holds == expected; }
  /// Not as predicted, with an explanation whose check passes.
  bool explained() const { return !as_predicted() && !explanation.empty() && explanation_holds; }
};

/// "holds", "does not hold, as predicted: …", "NOT AS PREDICTED (…), explained after the run:
/// …" or "FAIL: …".
std::string claim_verdict(const Claim& claim);

/// A list: each claim, its evidence and verdict ("holds", "does not hold, as predicted: …",
/// "NOT AS PREDICTED, explained after the run: …", "FAIL: …").
std::string format_claims(const std::string& title, const std::vector<Claim>& claims);

/// Number of claims whose outcome is not the predicted one and not explained.
int count_unexpected(const std::vector<Claim>& claims);

}  // namespace trainsim::reproductions
