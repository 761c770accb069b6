#pragma once
// The reduced layouts (one stage: sim/analysis/layout_estimate.hpp) of a two-node space, for
// tests of what a layout's reduced runs share.

#include <set>
#include <string>
#include <utility>
#include <vector>

#include "sim/analysis/layout_estimate.hpp"
#include "sim/analysis/layout_space.hpp"

namespace trainsim::test {

/// The distinct reduced layouts of every layout of `model` on 16 GPUs (two nodes of
/// rail_profile's 8) at batch 16, micro batches up to 2, in the order first met.
inline std::vector<sim::Layout> two_node_reduced_layouts(const ModelSpec& model) {
  sim::LayoutSpaceOptions space;
  space.max_micro_batch = 2;
  std::set<std::string> seen;
  std::vector<sim::Layout> out;
  for (const sim::Layout& layout : sim::enumerate_layouts(model, 16, 16, space)) {
    sim::Layout reduced = sim::reduced_layout(layout);
    if (seen.insert(sim::describe(reduced)).second) out.push_back(std::move(reduced));
  }
  return out;
}

}  // namespace trainsim::test
