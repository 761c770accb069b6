#pragma once
// The sets every reproduction's comparisons belong to, each with its tolerance and aim stated
// here, in one place, before any run (issue 16, item 1: the measuring stick); and the
// evaluation of a run's comparisons by set, which `trainsim validate` prints and fails on.

#include <nlohmann/json.hpp>
#include <span>
#include <vector>

#include "reproductions/comparison_set.hpp"
#include "reproductions/reproduction.hpp"

namespace trainsim::reproductions {

/// Set names, as Comparison::set holds them.
namespace set_names {
inline constexpr const char* kKorthikantiTable2 = "korthikanti2022 Table 2 activations";
inline constexpr const char* kKorthikantiTable4 = "korthikanti2022 Table 4 layer times";
inline constexpr const char* kKorthikantiTable5Times = "korthikanti2022 Table 5 iteration times";
inline constexpr const char* kKorthikantiDp8 = "korthikanti2022 Table 5 note, 530B x DP 8";
inline constexpr const char* kKorthikantiSpeedups = "korthikanti2022 Table 5 speedups";
inline constexpr const char* kKorthikantiUtilization = "korthikanti2022 Table 5 MFU and HFU";
inline constexpr const char* kLamyBubbles = "lamy-poirier2021 bubbles vs closed forms";
inline constexpr const char* kLamyShortestTime = "lamy-poirier2021 shortest-time ratio";
inline constexpr const char* kOptimus = "optimus2021 2D over 1D";
inline constexpr const char* kTesseract = "tesseract2022 2.5D over 1D and 2D";
inline constexpr const char* kTesseractWeak = "tesseract2022 weak scaling";
inline constexpr const char* kBian = "bian2021-3d 3D over 1D and 2D";
inline constexpr const char* kVtrainFitting = "vtrain2024 fitting rows";
inline constexpr const char* kVtrainHeldOut = "vtrain2024 held-out rows";
inline constexpr const char* kH100Published = "h100-published H100 rows";
inline constexpr const char* kB200Published = "h100-published B200 rows";
inline constexpr const char* kLlama3Goodput = "llama3-goodput effective training time";
}  // namespace set_names

/// Every set, in a fixed order (the order of the summary).
const std::vector<ComparisonSet>& comparison_sets();

/// The sets drawing on at least one reproduction of `runs`, in `sets`' order, each over the
/// rows (comparisons and set rows) of those runs; a set some of whose reproductions did not
/// run is partial (SetResult::missing). The results point into `sets`. Throws
/// std::logic_error for a comparison without a set, naming a set not in `sets`, or coming from
/// a reproduction its set does not list, and for a set with no rows although all its
/// reproductions ran: the declarations and the reproductions must agree.
std::vector<SetResult> evaluate_sets(std::span<const ReproductionRun> runs,
                                     const std::vector<ComparisonSet>& sets = comparison_sets());

/// `trainsim validate --json`: `reproductions` (per run: name, comparisons,
/// outside_tolerance, not_reproduced, set_rows, claims, claims_not_as_predicted), `sets`
/// (set_json of each result), `failures` (comparisons_and_claims, sets).
nlohmann::ordered_json validation_json(std::span<const ReproductionRun> runs,
                                       std::span<const SetResult> sets);

}  // namespace trainsim::reproductions
