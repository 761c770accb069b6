#pragma once
// `trainsim claims`: the claim maps of the seed papers (reproductions/claims/): where, among the
// setups each paper leaves unknown, its published ratio arises.

#include <CLI/CLI.hpp>

namespace trainsim::cli {

void add_claims_command(CLI::App& app);

}  // namespace trainsim::cli
