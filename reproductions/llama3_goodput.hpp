#pragma once
// Llama 3 (arXiv 2407.21783) §3.3.4: the 405B model's pre-training on 16 384 H100 saw 466
// interruptions in a 54-day window, 419 of them unexpected, and kept "higher than 90 %"
// effective training time. Predicted from dgx-h100's reliability section (those counts per
// cause, detect and restart times stated as guesses before the run, Meta's storage figures)
// and the checkpoint of scenarios/llama3/llama3-405b.yaml; with the mean time to
// interruption and the effective share against the GPU count as sweeps.

#include <filesystem>

#include "reproductions/reproduction.hpp"

namespace trainsim::reproductions {

/// Replays the 405B scenario once (about a second) for its iteration time.
ReproductionReport run_llama3_goodput(const std::filesystem::path& project_root);

}  // namespace trainsim::reproductions
