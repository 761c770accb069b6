#pragma once
// A positive count or size as written on the command line: "175e9", or with a suffix k, M,
// B (or G) and T for 1e3 … 1e12 ("175B", "15.6T").

#include <string>

namespace trainsim::cli {

/// Throws CLI::ValidationError naming `flag` unless `text` is a positive finite number (with
/// `suffixes`, one of k, K, M, B, G, T may follow it).
double parse_positive(const std::string& flag, const std::string& text, bool suffixes);

}  // namespace trainsim::cli
